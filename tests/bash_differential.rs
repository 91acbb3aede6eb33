//! Differential test of the static bash evaluator: each fixture script runs under
//! real `bash` with a stub harness library and stub launchers that record their
//! argv; the static evaluation of the same script with the same env must produce
//! the same launches, token for token.
//!
//! Only our own fixture scripts are run, in a temporary copy, with a PATH of stubs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use recipe_drift::extract::{InputKind, extract_all};
use recipe_drift::launch::Engine;
use recipe_drift::span::Source;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One env case: variable assignments.
type EnvCase = Vec<(&'static str, &'static str)>;

/// Scripts (relative to `benchmarks/single_node/`) and the env cases to run them with.
fn cases() -> Vec<(&'static str, Vec<EnvCase>)> {
    let base = [
        ("MODEL", "org/model-a"),
        ("CONC", "32"),
        ("ISL", "1024"),
        ("OSL", "1024"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    vec![
        (
            "agentic/qwen3.5_fp4_mi355x_sglang_mtp.sh",
            vec![
                with(&[("TP", "2"), ("EP_SIZE", "1"), ("KV_OFFLOADING", "none")]),
                with(&[
                    ("TP", "8"),
                    ("EP_SIZE", "8"),
                    ("KV_OFFLOADING", "dram"),
                    ("KV_OFFLOAD_BACKEND", "hicache"),
                    ("TOTAL_CPU_DRAM_GB", "1024"),
                    ("SPEC_DECODING", "mtp"),
                ]),
                with(&[
                    ("TP", "4"),
                    ("EP_SIZE", "1"),
                    ("KV_OFFLOADING", "dram"),
                    ("KV_OFFLOAD_BACKEND", "hicache"),
                    ("TOTAL_CPU_DRAM_GB", "512"),
                    ("HICACHE_IO_BACKEND", "direct"),
                    ("CONC", "16"),
                ]),
            ],
        ),
        (
            "agentic/dsv4_fp4_b200_sglang_mtp.sh",
            vec![
                with(&[("TP", "8"), ("EP_SIZE", "8"), ("KV_OFFLOADING", "none")]),
                with(&[
                    ("TP", "2"),
                    ("EP_SIZE", "1"),
                    ("KV_OFFLOADING", "dram"),
                    ("KV_OFFLOAD_BACKEND", "hicache"),
                    ("TOTAL_CPU_DRAM_GB", "64"),
                ]),
                with(&[
                    ("TP", "4"),
                    ("EP_SIZE", "1"),
                    ("KV_OFFLOADING", "dram"),
                    ("KV_OFFLOAD_BACKEND", "other"),
                    ("TOTAL_CPU_DRAM_GB", "64"),
                ]),
            ],
        ),
        (
            "fixed_seq_len/dsr1_fp4_b200_sglang_mtp.sh",
            vec![
                with(&[("TP", "8")]),
                with(&[("TP", "8"), ("DP_ATTENTION", "true"), ("CONC", "8")]),
                with(&[("TP", "4"), ("DP_ATTENTION", "maybe")]),
                with(&[("TP", "4"), ("CONC", "128")]),
            ],
        ),
        (
            "fixed_seq_len/qwen3.5_fp4_mi355x.sh",
            vec![
                with(&[("TP", "8")]),
                with(&[
                    ("TP", "2"),
                    ("MEM_FRAC_STATIC", "0.9"),
                    ("MODEL", "/models/q"),
                ]),
            ],
        ),
        (
            "fixed_seq_len/llama_fp8_h200_vllm.sh",
            vec![
                with(&[
                    ("TP", "8"),
                    ("PRECISION", "fp8"),
                    ("MAX_MODEL_LEN", "2304"),
                    ("MODEL", "org/Llama-3-70B-Instruct-FP8"),
                ]),
                with(&[
                    ("TP", "2"),
                    ("PRECISION", "bf16"),
                    ("MAX_MODEL_LEN", "4096"),
                ]),
                with(&[
                    ("TP", "4"),
                    ("PRECISION", "nvfp4"),
                    ("MAX_MODEL_LEN", "4096"),
                ]),
            ],
        ),
        (
            "fixed_seq_len/gptoss_fp4_mi300x.sh",
            vec![with(&[("TP", "8")]), with(&[("TP", "1"), ("PORT", "9001")])],
        ),
        (
            "fixed_seq_len/kimik2_fp8_mi325x_sglang.sh",
            vec![
                with(&[("TP", "8")]),
                with(&[("TP", "2"), ("ISL", "8192"), ("SCHEDULE_POLICY", "lpm")]),
                with(&[("TP", "4"), ("CHUNKED_PREFILL", "4096")]),
            ],
        ),
        (
            "fixed_seq_len/dsr1_fp4_b200_trt.sh",
            vec![with(&[("TP", "8"), ("DP_ATTENTION", "true")])],
        ),
        (
            "fixed_seq_len/quoting_and_operators.sh",
            vec![
                with(&[("TP", "2")]),
                with(&[("TP", "4"), ("EXTRA_ARGS", "--a 1 --b")]),
                with(&[("TP", ""), ("EXTRA_ARGS", "")]),
            ],
        ),
    ]
}

/// A temporary copy of the fixture tree plus stubs.
fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(ROOT).join("fixtures/inferencex"), dir.path());
    std::fs::copy(
        Path::new(ROOT).join("tests/bash_stubs/benchmark_lib.sh"),
        dir.path().join("benchmarks/benchmark_lib.sh"),
    )
    .unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for (name, stub) in [
        ("python3", "record.sh"),
        ("python", "record.sh"),
        ("sglang", "record.sh"),
        ("vllm", "record.sh"),
        ("hf", "noop.sh"),
        ("nvidia-smi", "noop.sh"),
        ("amd-smi", "noop.sh"),
        ("curl", "noop.sh"),
        ("trtllm-serve", "record.sh"),
    ] {
        std::fs::copy(
            Path::new(ROOT).join("tests/bash_stubs").join(stub),
            bin.join(name),
        )
        .unwrap();
    }
    std::fs::create_dir(dir.path().join("results")).unwrap();
    (dir, bin)
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// (engine, argv after the launcher) for each recorded launch, in order.
fn recorded(record: &Path) -> Vec<(Engine, Vec<String>)> {
    let text = std::fs::read_to_string(record).unwrap_or_default();
    text.split('\u{1e}')
        .filter(|r| !r.is_empty())
        .filter_map(|r| {
            let mut f: Vec<String> = r.split('\u{1f}').map(str::to_string).collect();
            f.pop(); // trailing separator
            let name = f.remove(0);
            // `python [OPTIONS] -m MODULE` / `-mMODULE`: the options are
            // the interpreter's, not the server's.
            if name.starts_with("python") {
                let mut k = 0;
                while let Some(w) = f.get(k) {
                    if w == "-X" || w == "-W" {
                        k += 2;
                    } else if let Some(m) = w.strip_prefix("-m").filter(|m| !m.is_empty()) {
                        let m = m.to_string();
                        f.splice(..=k, ["-m".to_string(), m]);
                        break;
                    } else if w.starts_with('-') && w.ends_with('m') {
                        f.drain(..k);
                        f[0] = "-m".into();
                        break;
                    } else if w.starts_with('-') {
                        k += 1;
                    } else {
                        break;
                    }
                }
            }
            match (
                name.as_str(),
                f.first().map(String::as_str),
                f.get(1).map(String::as_str),
            ) {
                ("sglang", Some("serve"), _) => {
                    Some((Engine::parse("sglang").unwrap(), f[1..].to_vec()))
                }
                ("vllm", Some("serve"), _) => {
                    Some((Engine::parse("vllm").unwrap(), f[1..].to_vec()))
                }
                (_, Some("-m"), Some("sglang.launch_server")) => {
                    Some((Engine::parse("sglang").unwrap(), f[2..].to_vec()))
                }
                (_, Some("-m"), Some("vllm.entrypoints.openai.api_server")) => {
                    Some((Engine::parse("vllm").unwrap(), f[2..].to_vec()))
                }
                _ => None,
            }
        })
        .collect()
}

/// Runs `rel` (inside the sandbox `dir`) under real bash with the stub
/// launchers and evaluates it statically: (ours, bash's) launches.
#[allow(clippy::type_complexity)]
fn run_both(
    dir: &Path,
    bin: &Path,
    rel: &str,
    vars: &BTreeMap<String, String>,
) -> (Vec<(Engine, Vec<String>)>, Vec<(Engine, Vec<String>)>) {
    let record = dir.join("record");
    let status = Command::new("bash")
        .arg(rel)
        .current_dir(dir)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("RECORD", &record)
        .envs(vars)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("bash must be installed for the differential test");
    // Launchers run in the background: wait until the record settles.
    let expected_min = usize::from(status.success());
    let start = Instant::now();
    let mut last = usize::MAX;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let n = std::fs::read(&record).map(|b| b.len()).unwrap_or(0);
        if (n == last && n >= expected_min) || start.elapsed() > Duration::from_secs(5) {
            break;
        }
        last = n;
    }
    let real = recorded(&record);
    let source = Source::read(&dir.join(rel)).unwrap();
    let ours: Vec<(Engine, Vec<String>)> = extract_all(&source, InputKind::Bash, vars)
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .launches
        .into_iter()
        .map(|l| (l.engine, l.argv.into_iter().map(|t| t.text).collect()))
        .collect();
    (ours, real)
}

#[test]
fn static_evaluation_matches_real_bash() {
    let mut compared = 0;
    for (script, envs) in cases() {
        for env in envs {
            let (dir, bin) = sandbox();
            let rel = format!("benchmarks/single_node/{script}");
            let mut vars: BTreeMap<String, String> = env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            vars.insert(
                "RESULT_DIR".into(),
                dir.path().join("results").display().to_string(),
            );
            let (ours, real) = run_both(dir.path(), &bin, &rel, &vars);
            assert_eq!(
                ours, real,
                "{script} with {env:?}: static evaluation differs from bash"
            );
            compared += 1;
        }
    }
    assert!(compared >= 24);
}

/// Scripts that use the bash semantics the evaluator models beyond the
/// fixtures: positional parameters, brace expansion, `$IFS`, `set -e`,
/// `exec`, readonly variables and namerefs, `local` variables, loops
/// evaluated turn by turn, subshells. Each must give bash's launches exactly.
const SEMANTICS: &[&str] = &[
    r#"set -- --tp-size 2 "--served-model-name" "a b"
serve() { local m=$1; shift; sglang serve --model-path "$m" "$@" --seed "$#"; }
serve org/m "$@"
shift 2; sglang serve --model-path x "$@" "${1}" "$*"
for a; do sglang serve --model-path "$a"; done
IFS=,; X="$@"; Y=$@; Z="$*"; B=(p q); W="${B[@]}"; unset IFS
sglang serve --model-path "$X" "$Y" "$Z" "$W"
case "$@" in "--served-model-name a b") sglang serve --model-path case-joined;; esac
[[ "$@" == "--served-model-name a b" ]] && sglang serve --model-path test-joined
set -- 1 2 3 4 5 6 7 8 9 10 11
sglang serve --model-path "${10}" --seed "$#"
"#,
    r#"sglang serve --model-path m --x{=a,=b} {1..10..3} {08..11} {c..a} pre{a,b{c,d}}post {,e} "{q,r}" '{s,t}' {u} $'{v,w}' ${NOPE:-{y,z}}
A=(--k{1,2}); for v in {a,b}{1,2}; do A+=("$v"); done
sglang serve --model-path m "${A[@]}"
"#,
    r#"IFS=,
X="a,b,,c,"
set -- p q
sglang serve --model-path m $X "$*" "$@"
IFS=" ,"
Y=" d , e "
sglang serve --model-path m $Y
IFS=
sglang serve --model-path m $Y
unset IFS
Z="f  g"
sglang serve --model-path m $Z
"#,
    r#"set -e
f() { false && true; }
false || true
! true
if false; then :; fi
{ false && true; }
true | false || :
sglang serve --model-path a
X=$(false) || true
(exit 0)
exit 3 | true
sglang serve --model-path b
false &
sglang serve --model-path c
f
sglang serve --model-path never
"#,
    r#"set -eo pipefail
true | true
if false | true; then sglang serve --model-path never; fi
sglang serve --model-path p
false | true
sglang serve --model-path never
"#,
    r#"TP=8
f() { local TP=$1; sglang serve --model-path "tp$TP"; }
f 2
sglang serve --model-path "tp$TP"
X=g
h() { local X; sglang serve --model-path "${X-unset}"; X=in; local X=$X-again; sglang serve --model-path "$X"; }
h
sglang serve --model-path "$X"
A=(--a 1)
add() { local -n arr=$1; arr+=(--b 2); }
add A
arr=(zz)
sglang serve --model-path m "${A[@]}" "${arr[@]}"
k() { declare Y=1; declare -g W=2; Z=3; local i; for i in 1 2; do :; done; }
Y=0; i=9
k
sglang serve --model-path "$Y$W$Z$i"
"#,
    r#"break; sglang serve --model-path a; return; continue
f() { break; }
for i in 1 2; do f; sglang serve --model-path "in$i"; done
for i in 1 2; do for j in 1 2; do sglang serve --model-path "$i$j"; break 2; done; done
for i in 1 2 3; do for j in 1 2; do [ $j = 2 ] && continue 2; sglang serve --model-path "c$i$j"; done; sglang serve --model-path never; done
for i in 1 2; do break 5; done; sglang serve --model-path after
"#,
    r#"IFS=',' read -ra ARR <<< "a,b,,c"
read -r x y <<< "  one two three  "
read -r z <<< "  four five  "
let X=2+3 "Y=X<<1"
let "Z=0" || sglang serve --model-path let-fails
printf -v P '%s-%d' ab 7
declare -i I=2*3; I+=4; J=1; J+=1
f() { local -i k=7+1; echo "$k"; }
sglang serve --model-path m "${ARR[@]}" "${#ARR[@]}" "$x" "$y" "$z" "$X" "$Y" "$P" "$I" "$J" "$(f)"
"#,
    r#"CMD="sglang serve --model-path m --tp-size 4"
eval "$CMD" > /dev/null 2>&1
eval X=5 'Y="a b"'
f() { eval 'return 3'; sglang serve --model-path never; }
f || sglang serve --model-path "ret$X$Y"
for i in 1 2 3; do eval '[ $i = 2 ] && break'; sglang serve --model-path "i$i"; done
eval 'set -- a b'
sglang serve --model-path "$@"
set -e
eval false
sglang serve --model-path never
"#,
    r#"exec >/dev/null
exec sglang serve --model-path b
sglang serve --model-path never
"#,
    r#"readonly A=1
export A=2 || true
unset A || true
declare -n R=B
B=x; R=y
(( A=3 )) || true
sglang serve --model-path "$A" --served-model-name "$B" "$R"
A=5; sglang serve --model-path aborted
sglang serve --model-path next
"#,
    r#"i=0
while [ $i -lt 3 ]; do i=$((i+1)); sglang serve --model-path "m$i"; done
until [ $i -eq 0 ]; do i=$((i-1)); done
for ((j=0; j<2; j++)); do sglang serve --model-path "j$j"; done
while true; do if [ $i -ge 2 ]; then break; fi; i=$((i+1)); done
g() { [ "$1" = skip ] && return 4; sglang serve --model-path "g$1"; }
g skip || sglang serve --model-path failed
g run
sglang serve --model-path "end$i"
"#,
    r#"x='*'
case "$x" in "*") sglang serve --model-path quoted-star;; esac
case abc in "*") sglang serve --model-path never;; *) sglang serve --model-path unquoted-star;; esac
case abc in "a"*) sglang serve --model-path a-prefix;; esac
P='a*'
case abc in $P) sglang serve --model-path var-pattern;; esac
case abc in "$P") sglang serve --model-path never;; *) sglang serve --model-path quoted-var;; esac
[[ abc == "a"* ]] && sglang serve --model-path test-prefix
[[ abc == "$P" ]] || sglang serve --model-path test-quoted-var
[[ abc != $P ]] || sglang serve --model-path test-var
[[ 5 == [[:digit:]] ]] && sglang serve --model-path digit
[[ x == [[:digit:]] ]] || sglang serve --model-path not-digit
[[ "]" == []a] ]] && sglang serve --model-path bracket
[[ b == [!]a] ]] && sglang serve --model-path neg-bracket
[[ ab == @(ab|c) ]] && sglang serve --model-path extglob-in-test
[[ aaa == +(a) ]] && sglang serve --model-path plus
[[ xyz == !(abc) ]] && sglang serve --model-path not
V=a.b.c
sglang serve --model-path "${V#"a."}" "${V%'.c'}" "${V/"."/-}" "${V//./_}"
"#,
    r#"shopt -s extglob nocasematch
case AB in a*) sglang serve --model-path nocase;; esac
[[ AbC == abc ]] && sglang serve --model-path nocase-test
case ab in @(x|ab)) sglang serve --model-path ext-case;; esac
case abc in !(x)) sglang serve --model-path ext-not;; esac
shopt -u nocasematch
case AB in a*) sglang serve --model-path never;; esac
shopt -q extglob && sglang serve --model-path query
case a in a) sglang serve --model-path a1;& b) sglang serve --model-path b1;; c) sglang serve --model-path never;; esac
case a in a) sglang serve --model-path a2;;& b) sglang serve --model-path never;; a*) sglang serve --model-path a3;;& *) sglang serve --model-path a4;; esac
case z in y) sglang serve --model-path never;& z) sglang serve --model-path z1;& esac
"#,
    r#"A=(--a 1 --b 2)
unset 'A[3]'
sglang serve --model-path m "${A[@]}" "${#A[@]}"
unset "A[@]"
sglang serve --model-path m "${#A[@]}"
unset 'TP'
TP=4; unset "TP"
sglang serve --model-path "tp${TP-unset}"
echo() { sglang serve --model-path from-echo "$@"; }
echo hi
command echo hi
builtin echo hi
sglang() { command sglang serve --model-path wrapped "$@"; }
sglang --seed 1
command sglang serve --model-path direct
unset -f sglang
sglang serve --model-path plain
"#,
    r#"set -o nounset -- a
V=(a)
sglang serve --model-path "${V[0]}" "${#V[@]}" "${@}" "$*" "${2:-d}"
( echo "$2"; sglang serve --model-path never )
sglang serve --model-path after-subshell
X=$(echo "$3") || true
sglang serve --model-path after-subst
f() { sglang serve --model-path "in-f$1"; }
f
sglang serve --model-path never
"#,
    r#"shopt -s expand_aliases
alias serve='TP=8 sglang serve --model-path aliased'
alias l=ls
serve --seed 1
unalias serve
trap 'sglang serve --model-path at-exit' EXIT
trap 'echo int' INT
sglang serve --model-path before-exit
"#,
    r#"set -u
trap - EXIT
trap '' EXIT
set -- x
sglang serve --model-path ok "${UNSET_VAR:-default}" "${UNSET_VAR-d2}" "$1"
echo "${#2}"
sglang serve --model-path never
"#,
    r#"echo 8 | read TP
sglang serve --model-path m --tp "${TP:-unset}"
shopt -s lastpipe
echo 8 | read TP
printf '%s %s\n' a b | read -r X Y
echo "c d" | { read -r Z; sglang serve --model-path "in-$Z"; }
sglang serve --model-path m --tp "$TP" "$X" "$Y" "${Z:-unset}"
"#,
    // Values: printf conversions and escapes, echo flags, $'...'.
    r#"sglang serve --model-path "$(printf %d 010)" "$(printf '%d|%i|%d' 0x10 "'A" -010)" "$(printf '%x %X %o %u %c' 255 255 8 7 hello)"
sglang serve --model-path "$(printf '\x38\070\u0038|%5s|%-3d|%03d|%+d|%.2s' a 4 5 6 xyz)" "$(printf '%b' '\x41\0101\101\ca')" "$(printf '%s-' a b c)"
sglang serve --model-path "$(echo -e 'a\x41\tb')" "$(echo -ne 8)" "$(echo -nE '\x38')" "$(echo -en 'x\cy')" "$(echo -e '\0101\"')" "$(echo -n -e -E '\t')"
sglang serve --model-path $'a\x41\070\u0038\U00000038\e\ca\c?\q\'\"' $'tab\there'
"#,
    // Values: arithmetic on variables' text, declare -i/-u/-l/-c.
    r#"X=010; Y=1+2; Z=Y; H=0x10; A=(0 1 2 3 4 5 6 7 8 9 10 11); E=(3 010)
sglang serve --model-path m --tp "$((X))" "$((Y*2))" "$((Z*3))" "$((H+X))" "${A[010]}" "${A[0x3]}" "$((E[1]))" "$((A[X]))"
declare -i I; I=X; I+=Y; let "J = X + 1"; (( K = Y * X ))
if [[ $X -eq 8 && 010 -eq 8 ]]; then sglang serve --model-path octal-eq; fi
declare -u U=abc; declare -l L; L=ABC; declare -c C=hELLO; U+=def
sglang serve --model-path m "$I" "$J" "$K" "$U" "$L" "$C"
"#,
    // Values: keyed arrays, dirname/basename, read options, HOME unset.
    r#"x=([1]=8 [0]=4); y=(a [3]=c d); i=1; w=([i+1]=p q); z=([010]=o)
sglang serve --model-path "${x[0]}" "${x[1]}" "${#x[@]}" "${y[0]}" "${y[3]}" "${y[4]}" "${w[2]}" "${w[3]}" "${z[8]}"
sglang serve --model-path "$(dirname /)" "$(dirname //a)" "$(dirname a//b/)" "$(dirname a)" "$(basename -a x/y z/w)" "$(basename -s .sh a/b.sh c.sh)" "$(basename a/b.sh .sh)" "$(basename /)" "$(basename .sh .sh)"
read -d , A <<< "8,9"; read -n 1 B <<< "89"; read -rd: D E <<< "x y:z"; read -n 5 H <<< "ab"
read -N 3 C <<< "a
bc"
read -d '' F <<< "p q" || sglang serve --model-path eof
sglang serve --model-path "$A" "$B" "$C" "$D" "$E" "$F" "$H"
set -a; EXPORTED=1; set +a
X=1 eval 'sglang serve --model-path "in-eval-$X"'
sglang serve --model-path "after-eval-${X-unset}-$EXPORTED"
"#,
];

#[test]
fn semantics_match_real_bash() {
    for (k, script) in SEMANTICS.iter().enumerate() {
        let (dir, bin) = sandbox();
        let rel = format!("semantics_{k}.sh");
        std::fs::write(dir.path().join(&rel), script).unwrap();
        let (ours, real) = run_both(dir.path(), &bin, &rel, &BTreeMap::new());
        assert!(!real.is_empty(), "{script}");
        assert_eq!(ours, real, "{script}: static evaluation differs from bash");
    }
}

/// A small deterministic generator (an LCG: no dependency, same scripts on
/// every run).
struct Gen(u64);

impl Gen {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        items[((self.0 >> 33) as usize) % items.len()]
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// A generated script: statements over positional parameters, `$IFS`,
/// brace expansion, functions with locals, loops, and launches that splice
/// all of them.
fn generated(g: &mut Gen) -> String {
    const WORDS: &[&str] = &["a", "\"b c\"", "d,e", "''", "f{g,h}", "{1..3}", "' i '"];
    const VALUES: &[&str] = &["\"a b,c\"", "' x  y '", "p,,q", "\"\"", "w"];
    const SPLICES: &[&str] = &[
        "\"$@\"",
        "$@",
        "\"$*\"",
        "$*",
        "\"$1\"",
        "${2}",
        "$#",
        "$V",
        "\"$V\"",
        "x{a,b}y",
        "--k{=u,=v}",
        "{3..1}",
        "\"${A[@]}\"",
        "${A[*]}",
        "\"${A[*]}\"",
        "${#A[@]}",
    ];
    let mut s = String::from(
        "V=init\nA=(one \"two three\")\nf() { local V=$1; shift || true; sglang serve --model-path \"f$V\" \"$@\" \"$#\"; }\n",
    );
    for _ in 0..3 + g.below(6) {
        let line = match g.below(9) {
            0 => {
                let n = g.below(4);
                let words: Vec<&str> = (0..n).map(|_| g.pick(WORDS)).collect();
                format!("set -- {}", words.join(" "))
            }
            1 => format!("shift {} || true", g.below(3)),
            2 => format!("V={}", g.pick(VALUES)),
            3 => g
                .pick(&["IFS=,", "IFS=' '", "unset IFS", "IFS=", "IFS=', '"])
                .to_string(),
            4 => format!("f {} {}", g.pick(WORDS), g.pick(SPLICES)),
            5 => format!("A+=({} {})", g.pick(WORDS), g.pick(SPLICES)),
            6 => format!(
                "for x in {}; do sglang serve --model-path \"loop$x\" {}; done",
                g.pick(WORDS),
                g.pick(SPLICES)
            ),
            7 => format!("B=({})\nset -- \"${{B[@]}}\"", g.pick(SPLICES)),
            _ => {
                let n = 1 + g.below(4);
                let args: Vec<&str> = (0..n).map(|_| g.pick(SPLICES)).collect();
                format!("sglang serve --model-path m {}", args.join(" "))
            }
        };
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("sglang serve --model-path last \"$@\" $* \"$V\" $V \"${A[@]}\"\n");
    s
}

#[test]
fn generated_scripts_match_real_bash() {
    let (dir, bin) = sandbox();
    let mut g = Gen(std::env::var("GEN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12));
    for k in 0..std::env::var("GEN_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60)
    {
        let script = generated(&mut g);
        let rel = format!("generated_{k}.sh");
        std::fs::write(dir.path().join(&rel), &script).unwrap();
        let _ = std::fs::remove_file(dir.path().join("record"));
        let (ours, real) = run_both(dir.path(), &bin, &rel, &BTreeMap::new());
        assert_eq!(ours, real, "{script}: static evaluation differs from bash");
    }
}

/// A generated script of control flow: `set -e` / `pipefail`, statuses of
/// tests, functions, subshells, pipelines and `$(...)`, `&&` / `||` / `!`,
/// `if`, loops with `break N` / `continue N`, `return`, readonly variables,
/// locals and `exec`, with numbered launches between them.
fn generated_control(g: &mut Gen) -> String {
    const STATUS: &[&str] = &[
        "true",
        "false",
        "[ 1 = 1 ]",
        "[ a = b ]",
        "(( 0 ))",
        "(( 2 ))",
        "! true",
        "(exit 3)",
        "true | false",
        "false | true",
        "X=$(false)",
        "X=$(true)",
        "ok",
        "bad",
        "{ false && true; }",
        "[[ $N -gt 1 ]]",
        "R=2",
        "local Q=1",
    ];
    let mut s = String::from("N=0\nreadonly R=1\nok() { return 0; }\nbad() { return 4; }\n");
    let mut n = 0;
    let mut launch = |s: &mut String| {
        n += 1;
        s.push_str(&format!("sglang serve --model-path L{n} --seed \"$N$R\"\n"));
    };
    for _ in 0..4 + g.below(8) {
        match g.below(10) {
            0 => s.push_str(g.pick(&[
                "set -e\n",
                "set +e\n",
                "set -o pipefail\n",
                "set +o pipefail\n",
            ])),
            1 | 2 => {
                s.push_str(g.pick(STATUS));
                s.push('\n');
            }
            3 => s.push_str(&format!(
                "{} {} {}\n",
                g.pick(STATUS),
                g.pick(&["&&", "||"]),
                g.pick(STATUS)
            )),
            4 => {
                s.push_str(&format!("if {}; then\n", g.pick(STATUS)));
                launch(&mut s);
                s.push_str("else\n");
                launch(&mut s);
                s.push_str("fi\n");
            }
            5 => {
                s.push_str("for i in 1 2 3; do\n  for j in a b; do\n    N=$((N+1))\n");
                s.push_str(&format!(
                    "    [ $i = {} ] && {}\n",
                    1 + g.below(3),
                    g.pick(&["break", "continue", "break 2", "continue 2"])
                ));
                launch(&mut s);
                s.push_str("  done\ndone\n");
            }
            6 => {
                s.push_str(&format!(
                    "w() {{ local N=9; {} || return 5; N=$((N+1)); }}\nw {}\n",
                    g.pick(STATUS),
                    g.pick(&["", "|| true", "&& true"])
                ));
            }
            7 => s.push_str(&format!(
                "while [ $N -lt {} ]; do N=$((N+1)); {}; done\n",
                g.below(5),
                g.pick(STATUS)
            )),
            _ => launch(&mut s),
        }
    }
    launch(&mut s);
    if g.below(3) == 0 {
        s.push_str("exec sglang serve --model-path exec\n");
        launch(&mut s);
    }
    s
}

#[test]
fn generated_control_flow_matches_real_bash() {
    let (dir, bin) = sandbox();
    let seed = std::env::var("GEN_SEED").ok().and_then(|s| s.parse().ok());
    let count = std::env::var("GEN_COUNT").ok().and_then(|s| s.parse().ok());
    let mut g = Gen(seed.unwrap_or(5));
    for k in 0..count.unwrap_or(60) {
        let script = generated_control(&mut g);
        let rel = format!("control_{k}.sh");
        std::fs::write(dir.path().join(&rel), &script).unwrap();
        let _ = std::fs::remove_file(dir.path().join("record"));
        let (ours, real) = run_both(dir.path(), &bin, &rel, &BTreeMap::new());
        assert_eq!(ours, real, "{script}: static evaluation differs from bash");
    }
}

/// `source FILE ARGS...` / `. FILE`: the file runs in this shell (its
/// variables and functions stay; ARGS are its positional parameters while
/// it runs; a `return` there ends it).
#[test]
fn sourcing_matches_real_bash() {
    let (dir, bin) = sandbox();
    let files = [
        (
            "lib/conf.sh",
            "TP=8\nserve() { sglang serve --model-path \"m$TP\" \"$@\"; }\n",
        ),
        (
            "lib/args.sh",
            "sglang serve --model-path args \"$@\" --seed \"$#\"\n[ \"$1\" = stop ] && return 3\nsglang serve --model-path after-return\n",
        ),
        (
            "lib/nested.sh",
            ". \"$(dirname \"${BASH_SOURCE[0]}\")/conf.sh\"\nEP=2\n",
        ),
    ];
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let script = r#"TP=2
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$SCRIPT_DIR/lib/conf.sh"
sglang serve --model-path m --tp "$TP"
sglang serve --model-path "$SCRIPT_DIR/../t.jinja" --chat-template "$(cd lib/../lib && pwd)/x" --x "$(pwd)"
sglang serve --model-path "$(realpath lib/conf.sh)" --x "$(readlink -f "$SCRIPT_DIR/lib/../lib")" --y "$(cd lib && realpath ../lib/args.sh)"
serve --seed 1
set -- outer
source lib/args.sh a b
source lib/args.sh stop || sglang serve --model-path returned "$1"
TP=1; EP=1
. lib/nested.sh
sglang serve --model-path "tp$TP-ep$EP"
"#;
    std::fs::write(dir.path().join("sourcing.sh"), script).unwrap();
    let (ours, real) = run_both(dir.path(), &bin, "sourcing.sh", &BTreeMap::new());
    assert!(real.len() >= 6, "{real:?}");
    assert_eq!(ours, real, "static evaluation differs from bash");
}

/// Launch forms: shell options before the script, a script without `.sh`,
/// on standard input or run by its path, `bash -c` / `sh -c` with `$0` and
/// positional parameters, Python options before `-m`, and wrapper programs.
#[test]
fn launch_forms_match_real_bash() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, bin) = sandbox();
    let inner = "sglang serve --model-path inner \"$@\" --n \"$#\"\n";
    for rel in ["lib/inner.sh", "lib/inner_noext"] {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, inner).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let script = r#"bash -x lib/inner.sh a 2>/dev/null
bash -eu -o pipefail -- lib/inner.sh b
bash --norc +e lib/inner_noext c
bash -e --norc lib/inner.sh refused 2>/dev/null
bash < lib/inner.sh
./lib/inner.sh d e
sh lib/inner.sh f
timeout 60 bash lib/inner.sh g
bash -c 'sglang serve --model-path "c-$0" --tp "$1" "$#"' zero 4 5
sh -c 'sglang serve --model-path "$0"'
echo 'sglang serve --model-path piped' | bash
bash <<< 'sglang serve --model-path herestring'
bash <<'EOF'
sglang serve --model-path heredoc --tp 2
EOF
TP=8
bash <<EOF
sglang serve --model-path "expanded-$TP" --q \"x\" '\$TP' "\\$TP"
EOF
python3 -u -m sglang.launch_server --model-path pyopt
python3 -msglang.launch_server --model-path attached
python3 -X dev -O -um sglang.launch_server --model-path clustered
nice -n 5 sglang serve --model-path nice
stdbuf -oL -eL sglang serve --model-path stdbuf
timeout -s INT 1h sglang serve --model-path timeout
setsid nohup sglang serve --model-path setsid >/dev/null 2>&1
taskset -c 0 sglang serve --model-path taskset
env -i PATH="$PATH" RECORD="$RECORD" sglang serve --model-path envi
X=1 env -u X sglang serve --model-path "envu-${X:-unset}"
"#;
    std::fs::write(dir.path().join("forms.sh"), script).unwrap();
    let mut vars = BTreeMap::new();
    vars.insert(
        "RECORD".to_string(),
        dir.path().join("record").display().to_string(),
    );
    let (ours, real) = run_both(dir.path(), &bin, "forms.sh", &vars);
    assert!(real.len() >= 20, "{real:?}");
    assert_eq!(ours, real, "static evaluation differs from bash");
}

/// Red-team pass 3: declarations with expanded operands, what child shells
/// inherit, the working folder (`cd -P`, `$CDPATH`, `cd -`, `pushd`/`popd`),
/// `env -S`, a RETURN trap, alias timing, assignments inside subscripts,
/// offsets and here-documents given to builtins, and `printf '%5%'`.
#[test]
fn adv3_forms_match_real_bash() {
    let (dir, bin) = sandbox();
    for (rel, text) in [
        ("env.sh", "V=top\n"),
        ("a/env.sh", "V=a\n"),
        ("a/b/env.sh", "V=b\n"),
    ] {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::os::unix::fs::symlink("a/b", dir.path().join("lnk")).unwrap();
    let script = r##"X=TP; declare "$X=4"; sglang serve --model-path m --tp "$TP"
ENVS=(A=1 B=2); for kv in "${ENVS[@]}"; do export "$kv"; done
bash -c 'sglang serve --model-path "ab$A$B"'
export C=3; declare +x C; bash -c 'sglang serve --model-path "c${C:-unset}"'
declare -x D=4; D=2 bash -c 'sglang serve --model-path "d$D"'
D=5 bash <<'X'
sglang serve --model-path "heredoc$D"
X
f(){ local D; bash -c 'sglang serve --model-path "local$D"'; }; f
cd -P lnk/..; source ./env.sh; sglang serve --model-path "p$V"; cd - >/dev/null
source ./env.sh; sglang serve --model-path "back$V"
CDPATH=a; cd b >/dev/null; source ./env.sh; sglang serve --model-path "cdpath$V"; cd - >/dev/null; unset CDPATH
pushd a >/dev/null; source ./env.sh; popd >/dev/null; sglang serve --model-path "pushd$V"
source ./env.sh; sglang serve --model-path "popd$V"
env -S 'sglang serve --model-path envs' --tp 2
shopt -s expand_aliases; alias s8='sglang serve --model-path alias8'; s8 2>/dev/null || sglang serve --model-path noalias
s8
T=8; AR=(1 2); Y=${AR[T=4]}; sglang serve --model-path "sub$T"
T=8; Z=abcdef; Y=${Z:T=2:1}; sglang serve --model-path "off$T"
read -r -d '' NOTE <<EOF
x ${RD:=7}
EOF
sglang serve --model-path "rd$RD"
printf -v P '%5%'; sglang serve --model-path "pf$P"
T=8; g(){ trap 'T=4' RETURN; }; g; sglang serve --model-path "trap$T"
"##;
    std::fs::write(dir.path().join("adv3.sh"), script).unwrap();
    let (ours, real) = run_both(dir.path(), &bin, "adv3.sh", &BTreeMap::new());
    assert_eq!(real.len(), 19, "{real:?}");
    assert_eq!(ours, real, "static evaluation differs from bash");
}
