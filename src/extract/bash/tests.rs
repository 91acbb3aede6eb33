use super::*;
use crate::launch::Provenance;
use crate::span::Origin;

fn eval(script: &str, env: &[(&str, &str)]) -> Evaluation {
    let src = Arc::new(Source::new(
        Origin::Inline("s.sh".into()),
        script.to_string(),
    ));
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    evaluate(&src, &env).unwrap()
}

fn argv(e: &Evaluation, i: usize) -> Vec<String> {
    e.launches[i].argv.iter().map(|t| t.text.clone()).collect()
}

#[test]
fn arrays_defaults_and_arithmetic() {
    let s = r#"
source "$(dirname "$0")/../benchmark_lib.sh"
HICACHE_IO_BACKEND="${HICACHE_IO_BACKEND:-direct}"
PARALLEL_ARGS=( --tp "$TP" --dp 1 )
PARALLEL_ARGS+=( --ep-size "$EP_SIZE" )
MAX_RUNNING=$(( 2 * CONC ))
[ "$MAX_RUNNING" -gt 64 ] && MAX_RUNNING=64
SGLANG_CMD=(
  python3 -m sglang.launch_server
  --model-path "$MODEL" \
  "${PARALLEL_ARGS[@]}"
  --max-running-requests "$MAX_RUNNING"
  --hicache-io-backend "$HICACHE_IO_BACKEND"
  --port "$PORT"
)
"${SGLANG_CMD[@]}" > "$SERVER_LOG" 2>&1 &
"#;
    let e = eval(
        s,
        &[
            ("TP", "8"),
            ("EP_SIZE", "8"),
            ("CONC", "64"),
            ("MODEL", "org/m"),
        ],
    );
    assert_eq!(e.launches.len(), 1);
    assert_eq!(
        argv(&e, 0),
        [
            "--model-path",
            "org/m",
            "--tp",
            "8",
            "--dp",
            "1",
            "--ep-size",
            "8",
            "--max-running-requests",
            "64",
            "--hicache-io-backend",
            "direct",
            "--port",
            "8888"
        ]
    );
}

#[test]
fn branches_on_known_env_are_taken() {
    let s = r#"
if [[ "$DP_ATTENTION" == "true" ]]; then
  EXTRA="--enable-dp-attention --dp $TP"
elif [ "$TP" -ge 8 ]; then
  EXTRA="--tp-only"
else
  EXTRA=""
fi
case "$SPEC_DECODING" in
  mtp) SPEC=(--speculative-algorithm EAGLE) ;;
  *) SPEC=() ;;
esac
python3 -m sglang.launch_server --tp $TP $EXTRA "${SPEC[@]}"
"#;
    let e = eval(
        s,
        &[
            ("DP_ATTENTION", "true"),
            ("TP", "4"),
            ("SPEC_DECODING", "mtp"),
        ],
    );
    assert_eq!(
        argv(&e, 0),
        [
            "--tp",
            "4",
            "--enable-dp-attention",
            "--dp",
            "4",
            "--speculative-algorithm",
            "EAGLE"
        ]
    );
    let e = eval(
        s,
        &[
            ("DP_ATTENTION", "false"),
            ("TP", "8"),
            ("SPEC_DECODING", "none"),
        ],
    );
    assert_eq!(argv(&e, 0), ["--tp", "8", "--tp-only"]);
}

#[test]
fn unknown_conditions_make_values_unknown() {
    let s = r#"
TP=4
if [ -f /etc/big ]; then TP=8; fi
sglang serve --tp "$TP" --port 1
"#;
    let e = eval(s, &[]);
    let t = &e.launches[0].argv[1];
    assert!(
        matches!(&t.provenance, Provenance::Unknown { reason } if reason.contains("file")),
        "{t:?}"
    );
    assert_eq!(e.launches[0].argv[3].provenance, Provenance::Literal);
}

#[test]
fn harness_gates_follow_the_env_contract() {
    let s = r#"
CACHE_ARGS=()
if require_agentic_kv_offload_backend hicache; then
  CACHE_ARGS=(--enable-hierarchical-cache --hicache-ratio "${HICACHE_RATIO:-2}")
fi
sglang serve --model-path m/x "${CACHE_ARGS[@]}"
"#;
    let on = eval(
        s,
        &[
            ("KV_OFFLOADING", "dram"),
            ("KV_OFFLOAD_BACKEND", "hicache"),
            ("TOTAL_CPU_DRAM_GB", "512"),
        ],
    );
    assert_eq!(
        argv(&on, 0),
        [
            "--model-path",
            "m/x",
            "--enable-hierarchical-cache",
            "--hicache-ratio",
            "2"
        ]
    );
    let off = eval(s, &[("KV_OFFLOADING", "none")]);
    assert_eq!(argv(&off, 0), ["--model-path", "m/x"]);
}

#[test]
fn functions_heredocs_and_parameter_operators() {
    let s = "build() { echo \"--x $1\"; }\n\
CONFIG=$(cat <<EOF\n{\"a\": $N}\nEOF\n)\n\
V=abc.tar.gz\n\
python3 -m sglang.launch_server --c \"$CONFIG\" --a \"${V%%.*}\" --b \"${V#*.}\" --r \"${V/abc/xyz}\" --l \"${#V}\" --d \"${U:=5}\" --u \"$U\" --alt \"${V:+yes}\"\n";
    let e = eval(s, &[("N", "3")]);
    assert_eq!(
        argv(&e, 0),
        [
            "--c",
            "{\"a\": 3}",
            "--a",
            "abc",
            "--b",
            "tar.gz",
            "--r",
            "xyz.tar.gz",
            "--l",
            "10",
            "--d",
            "5",
            "--u",
            "5",
            "--alt",
            "yes"
        ]
    );
}

#[test]
fn interpreter_variables_and_unsupported_engines() {
    let s = "SGLANG_PYTHON=$(command -v python3)\n\"$SGLANG_PYTHON\" -m sglang.launch_server --tp 2\ntrtllm-serve x\n";
    let e = eval(s, &[]);
    assert_eq!(e.launches.len(), 1);
    assert_eq!(argv(&e, 0), ["--tp", "2"]);
    assert_eq!(e.unsupported.len(), 1);
}

#[test]
fn syntax_errors_have_positions() {
    let src = Arc::new(Source::new(
        Origin::Inline("s.sh".into()),
        "if true; then\n  echo )\nfi\n".into(),
    ));
    let e = evaluate(&src, &BTreeMap::new()).unwrap_err().to_string();
    assert!(e.starts_with("<s.sh>:2:"), "{e}");
}

#[test]
fn substitutions_loops_regex_and_exit_statuses() {
    let s = r#"
LIST=$(seq -s, 1 4)
CFG=$(printf '{"n":%d,"r":%.2f,"s":"%s"}' 3 0.5 x)
CHOICE=$([[ $CONC -gt 4 ]] && echo 30 || echo 10)
for i in 1 2 3 4 5; do
  [ "$i" = 3 ] && break
  LAST=$i
done
if [[ "$TP" =~ ^[0-9]+$ ]]; then OK=yes; else OK=no; fi
if awk 'BEGIN { exit 1 }'; then MAYBE=a; else MAYBE=b; fi
setsid sglang serve --l "$LIST" --c "$CFG" --x "$CHOICE" --last "$LAST" --ok "$OK" --m "$MAYBE"
"#;
    let e = eval(s, &[("CONC", "8"), ("TP", "4")]);
    let a = argv(&e, 0);
    assert_eq!(
        &a[..10],
        [
            "--l",
            "1,2,3,4",
            "--c",
            "{\"n\":3,\"r\":0.50,\"s\":\"x\"}",
            "--x",
            "30",
            "--last",
            "2",
            "--ok",
            "yes"
        ]
    );
    let m = &e.launches[0].argv[11];
    assert!(
        matches!(&m.provenance, Provenance::Unknown { reason } if reason.contains("awk")),
        "{m:?}"
    );
}

#[test]
fn heredoc_operators_need_a_word() {
    use super::parse::heredoc_without_word as h;
    assert_eq!(h("cat <<EOF\nx\nEOF\n"), None);
    assert_eq!(h("cat <<-  EOF\n\tx\n\tEOF\n"), None);
    assert_eq!(h("cat <<<\"$X\""), None);
    assert_eq!(h("x=$(( 1 << 2 ))"), None);
    assert_eq!(h("cat <<\n"), Some(4));
    assert_eq!(h("$(<<  "), Some(2));
    // `<<<<<` is `<<<` then `<<`: the here-string has no word.
    assert_eq!(h("$(<<<<< <<<#"), Some(2));
    assert_eq!(h("a <<<< b"), Some(2));
    assert_eq!(h("cat <<< # x"), Some(4));
    assert_eq!(h("diff <(a) < <(b)"), None);
}

#[test]
fn arithmetic_for_loops_are_evaluated_and_while_bodies_are_maybe_runs() {
    let s = r#"
S=""
for ((n=1; n<=3; n++)); do
    S+="${S:+,}$((n*8))"
done
W=1
while ! curl -s localhost:8888; do
    W=2
done
vllm serve m -cc "{\"cudagraph_capture_sizes\": [${S}]}" --max-num-seqs "$W"
"#;
    let e = eval(s, &[]);
    assert_eq!(argv(&e, 0)[2], r#"{"cudagraph_capture_sizes": [8,16,24]}"#);
    // W may be 1 or 2: unknown, not the stale 1.
    let w = &e.launches[0].argv[4];
    assert!(
        matches!(&w.provenance, Provenance::Unknown { reason } if reason.contains("`while` loop")),
        "{w:?}"
    );
    // An unknown bound makes what the body sets unknown.
    let e = eval(
        "S=x\nfor ((i=0; i<N; i++)); do S=y; done\nvllm serve m --served-model-name \"$S\"\n",
        &[],
    );
    assert!(matches!(
        &e.launches[0].argv[2].provenance,
        Provenance::Unknown { reason } if reason.contains("for ((...))")
    ));
    // A loop that does not end within the loop budget may never end: what
    // follows runs only if it does.
    let e = eval(
        "for ((i=0; 1; i++)); do :; done\nvllm serve m --seed \"$i\"\n",
        &[],
    );
    assert!(matches!(
        &e.launches[0].launcher[0].provenance,
        Provenance::Unknown { reason } if reason.contains("may never end")
    ));
    assert!(matches!(
        &e.launches[0].argv[2].provenance,
        Provenance::Unknown { .. }
    ));
}

#[test]
fn without_a_harness_its_functions_are_plain_commands() {
    let s = r#"
source "$(dirname "$0")/../benchmark_lib.sh"
CACHE_ARGS=()
if require_agentic_kv_offload_backend hicache; then
  CACHE_ARGS=(--enable-hierarchical-cache)
fi
sglang serve --model-path m/x --port "${PORT:-9}" "${CACHE_ARGS[@]}"
"#;
    let src = Arc::new(Source::new(Origin::Inline("s.sh".into()), s.to_string()));
    let env: BTreeMap<String, String> = [("KV_OFFLOADING", "none")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let plain = evaluate_with(&src, &env, None, &LocalFiles, &NoHarness).unwrap();
    // The library is not modelled, and not read (this text is no file): what
    // it could set is unknown, with the file named; the gate's exit status
    // is not knowable.
    let a = argv(&plain, 0);
    assert_eq!(a[..3], ["--model-path", "m/x", "--port"]);
    assert!(matches!(
        &plain.launches[0].argv[3].provenance,
        Provenance::Unknown { reason } if reason.contains("benchmark_lib.sh, which is not read")
    ));
    assert!(matches!(
        &plain.launches[0].argv[4].provenance,
        Provenance::Unknown { reason } if reason.contains("require_agentic_kv_offload_backend")
    ));
    let modeled = evaluate(&src, &env).unwrap();
    assert_eq!(argv(&modeled, 0), ["--model-path", "m/x", "--port", "8888"]);
}

/// The reason a launch runs only under a condition, if it does.
fn condition_of(e: &Evaluation, i: usize) -> Option<String> {
    match &e.launches[i].launcher[0].provenance {
        Provenance::Unknown { reason } => Some(reason.clone()),
        _ => None,
    }
}

#[test]
fn positional_parameters_and_functions() {
    let s = r#"
set -- --tp 4 "a b"
serve() { local m=$1; shift; sglang serve --model-path "$m" "$@" --seed "$#"; }
serve m "$@"
sglang serve --model-path "${1}" "$*" "$#"
shift 5 || sglang serve --model-path shift-failed
for a; do sglang serve --model-path "$a"; done
"#;
    let e = eval(s, &[]);
    assert_eq!(
        argv(&e, 0),
        ["--model-path", "m", "--tp", "4", "a b", "--seed", "3"]
    );
    assert_eq!(argv(&e, 1), ["--model-path", "--tp", "--tp 4 a b", "3"]);
    assert_eq!(argv(&e, 2), ["--model-path", "shift-failed"]);
    assert_eq!(e.launches.len(), 6);
    // The script's own parameters: none.
    let e = eval("sglang serve --model-path \"${1:-d}\" --seed \"$#\"\n", &[]);
    assert_eq!(argv(&e, 0), ["--model-path", "d", "--seed", "0"]);
}

#[test]
fn a_jump_that_may_run_makes_what_follows_it_conditional() {
    // A `return` under a condition that is not knowable: the launch after it
    // may run; after the function, nothing is conditional any more.
    let s = r#"
f() { [ "$SKIP" = 1 ] && return; sglang serve --model-path inner; }
f
sglang serve --model-path after
"#;
    let e = eval(s, &[]);
    assert_eq!(e.launches.len(), 2);
    assert!(condition_of(&e, 0).is_some_and(|r| r.contains("`return`")));
    assert_eq!(condition_of(&e, 1), None);
    // A `continue` concerns its turn only.
    let s = "for i in 1 2; do [ \"$X\" = $i ] && continue; sglang serve --model-path m$i; done\nsglang serve --model-path end\n";
    let e = eval(s, &[]);
    assert!(condition_of(&e, 0).is_some());
    assert_eq!(condition_of(&e, 2), None);
}

#[test]
fn subshells_keep_their_effects() {
    // Pipeline stages and background commands run in subshells.
    let s = r#"
set -e
X=1
echo | X=2
X=3 &
false &
exit 4 | true
exec true &
sglang serve --model-path "m$X"
"#;
    let e = eval(s, &[]);
    assert_eq!(argv(&e, 0), ["--model-path", "m1"]);
    assert_eq!(condition_of(&e, 0), None);
    // An assignment's status is that of its `$(...)`.
    let e = eval("set -e\nX=$(false)\nsglang serve --model-path m\n", &[]);
    assert!(e.launches.is_empty());
    let e = eval(
        "if X=$(exit 3); then sglang serve --model-path t; else sglang serve --model-path f; fi\n",
        &[],
    );
    assert_eq!(argv(&e, 0), ["--model-path", "f"]);
}

#[test]
fn locals_end_with_their_function() {
    let s = r#"
TP=8
f() { local TP=$1; sglang serve --model-path m --tp "$TP"; }
f 2
sglang serve --model-path m --tp "$TP"
"#;
    let e = eval(s, &[]);
    assert_eq!(argv(&e, 0)[3], "2");
    assert_eq!(argv(&e, 1)[3], "8");
}

#[test]
fn an_unknown_array_element_names_what_it_was_written_as() {
    let e = eval(
        "CMD=(sglang serve --model-path m\n  --tp \"$TP\")\n\"${CMD[@]}\"\n",
        &[],
    );
    let t = &e.launches[0].argv[3];
    assert_eq!(t.text, "\"$TP\"");
    assert_eq!((t.span.pos.line, t.span.pos.col), (2, 8));
    assert!(matches!(&t.provenance, Provenance::Unknown { reason } if reason.contains("$TP")));
}

#[test]
fn set_u_ends_the_script_at_an_unset_variable() {
    let src = Arc::new(Source::new(
        Origin::Inline("s.sh".into()),
        "set -u\nX=$((NOPE + 1))\nsglang serve --model-path never\n".to_string(),
    ));
    let unknown = BTreeMap::new();
    let e = evaluate_with(
        &src,
        &BTreeMap::new(),
        Some(&unknown),
        &LocalFiles,
        &NoHarness,
    )
    .unwrap();
    assert!(e.launches.is_empty());
    // Without `set -u` the variable is 0 and the launch runs.
    let src = Arc::new(Source::new(
        Origin::Inline("s.sh".into()),
        "X=$((NOPE + 1))\nsglang serve --model-path m --seed \"$X\"\n".to_string(),
    ));
    let e = evaluate_with(
        &src,
        &BTreeMap::new(),
        Some(&unknown),
        &LocalFiles,
        &NoHarness,
    )
    .unwrap();
    assert_eq!(argv(&e, 0), ["--model-path", "m", "--seed", "1"]);
}

#[test]
fn array_elements_and_text_filters() {
    let s = r#"
IFS=',' read -ra IPS <<< "a,b,c"
URLS=()
for i in $(seq 0 1); do
    idx=$((i + 1))
    URLS[$i]="${IPS[$idx]}:20000"
done
URLS[3]=late
MAX=$(echo "8x512x64" | tr 'x' '\n' | sort -n | tail -1)
FIRST=$(printf '3\n1\n2\n' | sort | head -n 1)
python3 -m sglang.launch_server --a "${URLS[0]}" --b "${URLS[1]}" --max "$MAX" --first "$FIRST" --n "${#URLS[@]}"
"#;
    let e = eval(s, &[]);
    assert_eq!(
        argv(&e, 0)[..9],
        [
            "--a", "b:20000", "--b", "c:20000", "--max", "512", "--first", "1", "--n"
        ]
    );
    // Element 2 was never set: the array's length is not knowable.
    let t = &e.launches[0].argv[9];
    assert!(matches!(t.provenance, Provenance::Unknown { .. }), "{t:?}");
}

#[test]
fn git_clone_and_checkout_are_recorded_with_their_words_and_condition() {
    let s = r#"
srun true || exit 1
D=/tmp/clone
if [ "$KIND" = a ]; then
    git clone --branch v1 https://github.com/o/srt-slurm.git "$D" || exit 1
    cd "$D" || exit 1
    git checkout "$REF"
fi
if [ "$OTHER" = x ]; then
    git checkout maybe
fi
bash -c 'git checkout inner'
python3 -m sglang.launch_server --tp 2
"#;
    let e = eval(s, &[("KIND", "a")]);
    let words =
        |i: usize| -> Vec<String> { e.recorded[i].args.iter().map(|t| t.text.clone()).collect() };
    assert_eq!(
        e.recorded.iter().map(|r| r.name).collect::<Vec<_>>(),
        ["git clone", "git checkout", "git checkout", "git checkout"]
    );
    assert_eq!(
        words(0),
        [
            "--branch",
            "v1",
            "https://github.com/o/srt-slurm.git",
            "/tmp/clone"
        ]
    );
    // The `exit` after `srun` (status not knowable) is no condition of it;
    // `|| exit 1` after a recorded command does not make what follows one.
    assert_eq!(e.recorded[0].condition, None);
    assert_eq!(e.recorded[1].condition, None);
    // `$REF` is not set: its word is unknown, with the reason.
    assert!(matches!(
        e.recorded[1].args[0].provenance,
        Provenance::Unknown { .. }
    ));
    let cond = e.recorded[2].condition.as_deref().unwrap_or_default();
    assert!(cond.contains("OTHER"), "{cond}");
    // A child shell's commands are recorded too.
    assert_eq!(words(3), ["inner"]);
    assert_eq!(e.recorded[3].condition, None);
    assert_eq!(e.launches.len(), 1);
}
