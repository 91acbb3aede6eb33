//! Bash semantics a recipe can use to make the static evaluator confidently
//! wrong: positional parameters, brace expansion, `set -e` / `exec` / loops
//! that never end before the launch, readonly variables, namerefs, `$IFS`,
//! unquoted glob patterns and `eval`. Each is evaluated as bash does, or what it
//! affects is unknown with the reason; never a confident wrong value.

use crate::{Outcome, Repo};

const DOCS: &str = "docs.sh";

/// The launches of `extract --format json` on `file`, run twice.
fn launches(repo: &Repo, file: &str) -> Vec<serde_json::Value> {
    let o = repo.run_deterministic(&["extract", file, "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    v["launches"].as_array().cloned().unwrap_or_default()
}

/// The argv texts of a launch, unknown tokens prefixed with `?`.
fn argv(launch: &serde_json::Value) -> Vec<String> {
    launch["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let unknown = t["provenance"]["kind"] == "unknown";
            format!(
                "{}{}",
                if unknown { "?" } else { "" },
                t["text"].as_str().unwrap()
            )
        })
        .collect()
}

/// Why a launch runs only under a condition, if it does.
fn condition(launch: &serde_json::Value) -> Option<String> {
    let p = &launch["launcher"][0]["provenance"];
    (p["kind"] == "unknown").then(|| p["reason"].as_str().unwrap().to_string())
}

/// `compare docs.sh recipe` (both in the repo), run twice.
fn compare(repo: &Repo, docs: &str, recipe: &str) -> Outcome {
    repo.write(DOCS, docs);
    repo.write("recipe.sh", recipe);
    let o = repo.run_deterministic(&["compare", DOCS, "recipe.sh"]);
    o.assert_bounded().assert_no_leak();
    o
}

#[test]
fn positional_parameters_are_evaluated() {
    let repo = Repo::new();
    // `set --` then "$@": bash runs --tp 4.
    let o = compare(
        &repo,
        "sglang serve --model-path m\n",
        "set -- --tp 4\nsglang serve --model-path m \"$@\"\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());

    // Function arguments (bound per call, restored after), shift, $#, ${10},
    // and the script's own parameters: none (InferenceX runs `bash SCRIPT`).
    repo.write(
        "fn.sh",
        r#"set -- a b c d e f g h i j k
serve() {
  local model=$1; shift
  sglang serve --model-path "$model" --tp "$#" "$@"
}
serve m --seed 1
sglang serve --model-path "${1}" --served-model-name "${10}" --seed "$#"
shift 20 || sglang serve --model-path x --seed "$#"
"#,
    );
    let l = launches(&repo, "fn.sh");
    assert_eq!(
        argv(&l[0]),
        ["--model-path", "m", "--tp", "2", "--seed", "1"]
    );
    assert_eq!(
        argv(&l[1]),
        [
            "--model-path",
            "a",
            "--served-model-name",
            "j",
            "--seed",
            "11"
        ]
    );
    assert_eq!(argv(&l[2]), ["--model-path", "x", "--seed", "11"]);
    repo.write(
        "own.sh",
        "sglang serve --model-path \"${1:-fallback}\" --seed \"$#\"\n",
    );
    let l = launches(&repo, "own.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "fallback", "--seed", "0"]);

    // `bash other.sh ARGS` gives other.sh its parameters.
    repo.write("inner.sh", "sglang serve --model-path m \"$@\"\n");
    repo.write("outer.sh", "bash inner.sh --tp 8\n");
    let l = launches(&repo, "outer.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "8"]);

    // Parameters set from a value that is not knowable: unknown, not shifted.
    repo.write(
        "unknown.sh",
        "set -- $EXTRA --tp 2\nsglang serve --model-path m --seed \"$#\" \"$2\"\n",
    );
    let l = launches(&repo, "unknown.sh");
    let a = argv(&l[0]);
    assert!(a[3].starts_with('?') && a[4].starts_with('?'), "{a:?}");
}

#[test]
fn brace_expansion_is_evaluated_within_a_budget() {
    let repo = Repo::new();
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp-size 1\n",
        "sglang serve --model-path m --tp-size={1,4}\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());

    repo.write(
        "b.sh",
        "sglang serve --model-path m --hicache-io-backend{=direct,=kernel} x{a,b{c,d}}y {1..7..3} {a..c} \"{q,r}\" '{s,t}' {u}\n",
    );
    let l = launches(&repo, "b.sh");
    assert_eq!(
        argv(&l[0]),
        [
            "--model-path",
            "m",
            "--hicache-io-backend=direct",
            "--hicache-io-backend=kernel",
            "xay",
            "xbcy",
            "xbdy",
            "1",
            "4",
            "7",
            "a",
            "b",
            "c",
            "{q,r}",
            "{s,t}",
            "{u}"
        ]
    );

    // Budgets: a sequence and a product too large, each at the word.
    repo.write("seq.sh", "sglang serve --model-path m {1..100000000}\n");
    repo.run(&["extract", "seq.sh"])
        .assert_input_error("seq.sh:1:29", &["brace expansion budget", "10000 words"]);
    repo.write(
        "product.sh",
        format!("sglang serve --model-path m {}\n", "{a,b}".repeat(40)),
    );
    repo.run(&["extract", "product.sh"])
        .assert_input_error("product.sh:1:29", &["brace expansion budget"]);
    // The budget is the script's: many words each under it add up.
    repo.write(
        "lines.sh",
        "sglang serve --model-path m {1..9999}\n".repeat(300),
    );
    let o = repo.run(&["extract", "lines.sh", "--format", "json"]);
    o.assert_input_error("lines.sh:2:29", &["brace expansion budget"]);
    assert!(o.max_rss_kib < 256 * 1024, "{}", o.both());
    repo.write(
        "deep.sh",
        format!(
            "sglang serve --model-path m {}x{}\n",
            "{a,".repeat(200),
            "}".repeat(200)
        ),
    );
    repo.run(&["extract", "deep.sh"])
        .assert_input_error("deep.sh:1:29", &["brace depth budget"]);
}

#[test]
fn set_e_and_exec_end_the_script() {
    let repo = Repo::new();
    // A known failure under `set -e`: the launch after it never runs.
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 4\n",
        "set -euo pipefail\nfalse\nsglang serve --model-path m --tp 4\n",
    );
    o.assert_input_error("recipe.sh: ", &["no serve command"]);
    for (script, runs) in [
        ("set -e\n[ 1 = 2 ]\n", false),
        ("set -e\nf() { false && true; }\nf\n", false),
        ("set -e\n(exit 3)\n", false),
        (
            "set -e\nfalse || true\n! true\nif false; then :; fi\n",
            true,
        ),
        ("set -e\n{ false && true; }\ntrue | false || :\n", true),
        ("set -e\nset +e\nfalse\n", true),
        // `exec` of another program replaces the shell; `exec` alone does not.
        ("exec /bin/true\n", false),
        ("exec >/dev/null 2>&1\n", true),
    ] {
        repo.write("s.sh", format!("{script}sglang serve --model-path m\n"));
        let l = launches(&repo, "s.sh");
        assert_eq!(l.len(), usize::from(runs), "{script}");
        if runs {
            assert_eq!(condition(&l[0]), None, "{script}");
        }
    }
    // `exec` of the launcher is the launch, and the last thing the script does.
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "exec sglang serve --model-path m --tp 2\nsglang serve --model-path m --tp 4\n",
    );
    assert_eq!(o.code, Some(0), "{}", o.both());
    // Under a condition that is not knowable: the launch after may not run.
    repo.write(
        "maybe.sh",
        "set -e\nif [ \"$MODE\" = x ]; then false; fi\nsglang serve --model-path m\n",
    );
    let l = launches(&repo, "maybe.sh");
    assert!(
        condition(&l[0]).is_some_and(|r| r.contains("may have exited")),
        "{l:?}"
    );
}

#[test]
fn a_loop_that_may_never_end_makes_the_launch_after_it_conditional() {
    let repo = Repo::new();
    for (script, reason) in [
        ("while true; do :; done\n", "never ends"),
        ("until false; do sleep 1; done\n", "never ends"),
        ("i=0\nwhile :; do i=$((i+1)); done\n", "may never end"),
        ("for ((i=0; 1; i++)); do :; done\n", "may never end"),
        (
            "while true; do if [ \"$READY\" = 1 ]; then break; fi; done\n",
            "ends only at a `break`",
        ),
    ] {
        repo.write("loop.sh", format!("{script}sglang serve --model-path m\n"));
        let l = launches(&repo, "loop.sh");
        assert_eq!(l.len(), 1, "{script}");
        let c = condition(&l[0]);
        assert!(
            c.as_deref().is_some_and(|r| r.contains(reason)),
            "{script}: {c:?}"
        );
        // The human listing says so too.
        let o = repo.run(&["extract", "loop.sh"]);
        o.assert_bounded();
        assert!(o.stdout.contains("may not run:"), "{}", o.both());
    }
    // `compare` says so beside the side.
    let o = compare(
        &repo,
        "sglang serve --model-path m\n",
        "while true; do :; done\nsglang serve --model-path m\n",
    );
    assert!(
        o.stdout.contains("note: the recipe launch may not run") && o.stdout.contains("never ends"),
        "{}",
        o.both()
    );
    // Loops that end are evaluated turn by turn, and what follows is certain.
    repo.write(
        "ends.sh",
        "i=0\nwhile [ $i -lt 3 ]; do i=$((i+1)); done\nuntil false; do break; done\nsglang serve --model-path m --tp \"$i\"\n",
    );
    let l = launches(&repo, "ends.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "3"]);
    assert_eq!(condition(&l[0]), None);
}

#[test]
fn readonly_variables_keep_their_value() {
    let repo = Repo::new();
    // `export` of a readonly variable fails and changes nothing.
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 4\n",
        "readonly TP=2\nexport TP=4 || true\nsglang serve --model-path m --tp \"$TP\"\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
    // An assignment statement to it aborts the top-level command it is in;
    // bash goes on with the next one.
    repo.write(
        "r.sh",
        "declare -r TP=2\nTP=4; sglang serve --model-path m --tp 8\nsglang serve --model-path m --tp \"$TP\"\n",
    );
    let l = launches(&repo, "r.sh");
    assert_eq!(l.len(), 1);
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "2"]);
    // unset, for and arithmetic leave it alone too.
    repo.write(
        "r2.sh",
        "TP=2; readonly TP\nunset TP\nfor TP in 8; do :; done\n(( TP=4 ))\nsglang serve --model-path m --tp \"$TP\"\n",
    );
    assert_eq!(
        argv(&launches(&repo, "r2.sh")[0]),
        ["--model-path", "m", "--tp", "2"]
    );
}

#[test]
fn namerefs_read_and_assign_their_target() {
    let repo = Repo::new();
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 1\n",
        "declare -n P=TP\nTP=1\nP=4\nsglang serve --model-path m --tp \"$TP\"\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
    // A reference to a name that is not knowable is unknown.
    repo.write(
        "n.sh",
        "declare -n P=$WHICH\nsglang serve --model-path m --tp \"$P\"\n",
    );
    let a = argv(&launches(&repo, "n.sh")[0]);
    assert!(a[3].starts_with('?'), "{a:?}");
}

#[test]
fn word_splitting_uses_the_current_ifs() {
    let repo = Repo::new();
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 4\n",
        "IFS=,\nARGS=\"--tp,4\"\nsglang serve --model-path m $ARGS\n",
    );
    assert_eq!(o.code, Some(0), "{}", o.both());
    repo.write(
        "ifs.sh",
        "IFS=,\nX=\"a,,b,\"\nset -- 1 2\nsglang serve $X \"$*\"\nIFS=\nY=\"c d\"\nsglang serve $Y\nIFS=$(pick_ifs)\nsglang serve $Y\n",
    );
    let l = launches(&repo, "ifs.sh");
    assert_eq!(argv(&l[0]), ["a", "", "b", "1,2"]);
    assert_eq!(argv(&l[1]), ["c d"]);
    assert!(argv(&l[2])[0].starts_with('?'), "{:?}", argv(&l[2]));
}

#[test]
fn unquoted_glob_patterns_are_unknown() {
    let repo = Repo::new();
    // Files are never read for pathname expansion: the word is unknown...
    repo.write("model-a", "");
    repo.write(
        "g.sh",
        "P='model-*'\nsglang serve --model-path model-* --served-model-name $P --x '*' \"$P\"\n",
    );
    let l = launches(&repo, "g.sh");
    let a = argv(&l[0]);
    assert!(a[1].starts_with('?') && a[3].starts_with('?'), "{a:?}");
    assert_eq!(a[4..], ["--x", "*", "model-*"]);
    let reason = l[0]["argv"][1]["provenance"]["reason"].as_str().unwrap();
    assert!(reason.contains("pathname pattern"), "{reason}");
    // ...unless pathname expansion is off.
    repo.write(
        "f.sh",
        "set -f\nsglang serve --model-path model-* --x [ab]\n",
    );
    assert_eq!(
        argv(&launches(&repo, "f.sh")[0]),
        ["--model-path", "model-*", "--x", "[ab]"]
    );
}

#[test]
fn eval_runs_its_text() {
    let repo = Repo::new();
    // A launch run through `eval` is a launch (it was silently missed).
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "CMD=\"sglang serve --model-path m --tp 4\"\neval \"$CMD\" > server.log 2>&1 &\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
    assert!(o.stdout.contains("recipe.sh:2:1 eval"), "{}", o.both());
    // Text that is not knowable is code that is not read (as an unread
    // `source`, tests/hostile/adv4_eval.rs): with no launch after it, a
    // notice says it may start a server.
    repo.write("u.sh", "sglang serve --model-path m\neval \"$SETUP\"\n");
    let o = repo.run(&["extract", "u.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(
        o.both()
            .contains("u.sh:2:1: `eval` runs code recipe-drift cannot read"),
        "{}",
        o.both()
    );
    // eval of eval of ...: the eval depth budget.
    repo.write("deep.sh", "X='eval \"$X\"'\neval \"$X\"\n");
    repo.run(&["extract", "deep.sh"])
        .assert_input_error("deep.sh:2:1", &["eval depth budget"]);
}

#[test]
fn subshells_are_cheap_copies() {
    // Every pipeline stage and `&` runs in a copy of the state: a copy shares
    // the values (it took 28 s here with a 50,000-element array and 5,000
    // pipelines in a debug build).
    let repo = Repo::new();
    let mut s = String::from("A=($(seq 1 50000))\n");
    s.push_str(&"echo x | cat\ntrue &\n".repeat(5000));
    s.push_str("sglang serve --model-path m --seed \"${#A[@]}\"\n");
    repo.write("pipes.sh", s);
    let o = repo.run(&["extract", "pipes.sh", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.wall < std::time::Duration::from_secs(10), "{}", o.both());
    assert!(o.stdout.contains("\"50000\""), "{}", o.both());
}

/// `exec -a NAME CMD` runs CMD (its options come first): the launch is found,
/// in a script and in a plain command file, not silently missed.
#[test]
fn exec_with_options_still_launches() {
    let repo = Repo::new();
    let cmd = "exec -a foo sglang serve --model-path m --tp 2\n";
    repo.write("ex.sh", cmd);
    repo.write("ex.txt", cmd);
    for file in ["ex.sh", "ex.txt"] {
        let o = repo.run_deterministic(&["extract", file]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(
            o.stdout.contains("launch 1: sglang serve"),
            "{file}: {}",
            o.both()
        );
    }
}

/// In `[[ ]]` the operands of `-eq` and friends are arithmetic (`010` is
/// octal 8, `1+1` is 2); in `[ ]` they are decimal integers, as in bash.
#[test]
fn double_bracket_integer_tests_are_arithmetic() {
    let repo = Repo::new();
    repo.write(
        "oct.sh",
        "TP=2\n[[ 010 -eq 8 ]] && TP=8\nDP=1\n[ 010 -eq 8 ] && DP=8\nEP=1\n[[ 1+1 -eq 2 ]] && EP=4\nsglang serve --model-path m --tp $TP --dp $DP --ep $EP\n",
    );
    let o = repo.run_deterministic(&["extract", "oct.sh", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let argv: Vec<&str> = v["launches"][0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        argv,
        ["--model-path", "m", "--tp", "8", "--dp", "1", "--ep", "4"],
        "{}",
        o.both()
    );
}

/// `source FILE` runs FILE in this shell (it was taken for the harness
/// library and never read: `TP=8` there was lost and `compare` said ok).
#[test]
fn sourced_files_run_in_the_current_shell() {
    let repo = Repo::new();
    repo.write(
        "lib/conf.sh",
        "TP=8\nserve() { sglang serve --model-path m \"$@\"; }\n",
    );
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "TP=2\nsource lib/conf.sh\nsglang serve --model-path m --tp $TP\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
    // Its functions, its positional parameters while it runs; its launches
    // are placed in it.
    repo.write(
        "lib/args.sh",
        "sglang serve --model-path \"$1\" --seed \"$#\"\n",
    );
    repo.write(
        "s.sh",
        ". lib/conf.sh\nserve --tp \"$TP\"\nset -- x\nsource lib/args.sh a b\nsglang serve --model-path \"$1\"\n",
    );
    let l = launches(&repo, "s.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "8"]);
    assert_eq!(argv(&l[1]), ["--model-path", "a", "--seed", "2"]);
    assert_eq!(argv(&l[2]), ["--model-path", "x"]);
    let o = repo.run(&["extract", "s.sh"]);
    assert!(o.stdout.contains("at lib/args.sh:1:1"), "{}", o.both());

    // A file that is not read (missing, a path that is not knowable): every
    // variable it could set is unknown, and what follows runs under a
    // condition naming it; never the value from before. (A file outside the
    // root is refused: tests/hostile/confine.rs.)
    for (target, why) in [
        ("lib/missing.sh", "no such file"),
        ("\"$LIB_DIR/x.sh\"", "not knowable"),
    ] {
        let o = compare(
            &repo,
            "sglang serve --model-path m --tp 2\n",
            &format!("TP=2\nsource {target}\nsglang serve --model-path m --tp $TP\n"),
        );
        assert_eq!(o.code, Some(1), "{target}: {}", o.both());
        assert!(o.stdout.contains("missing]: tp_size"), "{}", o.both());
        assert!(o.stdout.contains(why), "{target}: {}", o.both());
        assert!(o.stdout.contains("`source` of"), "{}", o.both());
    }
    // An existing and a missing file outside the root read alike.
    let outcome = |target: &str| {
        repo.write(
            "o.sh",
            format!("source {target}\nsglang serve --model-path m\n"),
        );
        let o = repo.run(&["extract", "o.sh", "--format", "json"]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(2), "{target}: {}", o.both());
        o.stderr.replace(target, "TARGET")
    };
    assert_eq!(
        outcome("../outside/secret.sh"),
        outcome("../outside/absent.sh")
    );

    // A syntax error in a sourced file is placed in it; a file sourcing
    // itself ends at the call-depth budget.
    repo.write("lib/bad.sh", "if then\n");
    repo.write("b.sh", "source lib/bad.sh\n");
    repo.run(&["extract", "b.sh"])
        .assert_input_error("lib/bad.sh:1:", &["bash syntax error"]);
    repo.write("loop.sh", "source loop.sh\n");
    repo.run(&["extract", "loop.sh"])
        .assert_input_error("loop.sh:1:1", &["call-depth"]);
    // A large file sourced in a long loop is read and parsed once.
    repo.write("lib/big.sh", format!("# {}\nTP=8\n", "x".repeat(200_000)));
    repo.write(
        "many.sh",
        "for i in $(seq 1 10000); do source lib/big.sh; done\nsglang serve --model-path m --tp $TP\n",
    );
    let l = launches(&repo, "many.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "8"]);
    // Each unread source makes every variable unknown anew: counted, so a
    // loop of them over many variables ends at the built-bytes budget.
    let mut s: String = (0..5000).map(|i| format!("V{i}=x\n")).collect();
    s.push_str(
        "for i in $(seq 1 10000); do source missing.sh; done\nsglang serve --model-path m\n",
    );
    repo.write("clob.sh", s);
    repo.run_deterministic(&["extract", "clob.sh"])
        .assert_input_error("clob.sh:5001:", &["built-mib"]);
}

/// Quoted parts of a pattern are literal: `case $x in "*")` matches only
/// `*` (it was a glob: TP=8 here, and `compare` said ok).
#[test]
fn quoted_pattern_parts_are_literal() {
    let repo = Repo::new();
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 8\n",
        "X=abc\nTP=2\ncase $X in \"*\") TP=8;; esac\n[[ $X == \"a\"* ]] || TP=8\nsglang serve --model-path m --tp $TP\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
}

/// Bracket classes, extglob, `nocasematch`, and the `;&` / `;;&` case
/// terminators, as bash reads them; a pattern that is not evaluated makes
/// what it decides unknown.
#[test]
fn patterns_and_case_terminators_follow_bash() {
    let repo = Repo::new();
    repo.write(
        "p.sh",
        r#"A=; B=; C=; D=; E=
[[ 7 == [[:digit:]] ]] && A=digit
shopt -s extglob nocasematch
case GPU-H100 in gpu-@(h100|h200)) B=hopper;; esac
case a in a) C=1;& b) C=${C}2;; c) C=bad;; esac
case a in a) D=1;;& [[:alpha:]]) D=${D}2;; esac
[[ abc == a!(b)c ]] && E=yes || E=no
sglang serve --model-path m --x "$A" "$B" "$C" "$D" "$E"
"#,
    );
    let l = launches(&repo, "p.sh");
    let a = argv(&l[0]);
    assert_eq!(
        a[..7],
        ["--model-path", "m", "--x", "digit", "hopper", "12", "12"]
    );
    assert!(a[7].starts_with('?'), "{a:?}");
    // Many nested groups stay linear (a backtracking matcher takes forever).
    let pat = "+(*(a|aa))".repeat(30);
    repo.write(
        "lin.sh",
        format!(
            "X={}\n[[ $X == {pat}b ]] && TP=8\nsglang serve --model-path m --tp ${{TP:-1}}\n",
            "a".repeat(3000)
        ),
    );
    let o = repo.run_deterministic(&["extract", "lin.sh", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.wall < std::time::Duration::from_secs(10), "{}", o.both());
}

/// Builtins that made the evaluator confidently wrong: `unset 'A[i]'`,
/// `set -u`, functions shadowing builtins and launchers, `command`,
/// `trap`, aliases and `lastpipe`.
#[test]
fn shell_builtins_are_evaluated_or_unknown() {
    let repo = Repo::new();
    // unset of an array element: the last is removed, a gap is unknown.
    repo.write(
        "u.sh",
        "A=(--tp 2 --seed 1)\nunset 'A[3]'\nsglang serve --model-path m \"${A[@]}\"\nB=(--tp 2 --seed)\nunset 'B[1]'\nsglang serve --model-path m \"${B[@]}\"\n",
    );
    let l = launches(&repo, "u.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "2", "--seed"]);
    assert!(argv(&l[1])[2].starts_with('?'), "{:?}", argv(&l[1]));
    // set -u: an unset variable ends the script (the launch after it never
    // runs); one that may come from the environment makes it conditional.
    repo.write(
        "n.sh",
        "set -u\nset -- a\nsglang serve --model-path m \"$2\"\nsglang serve --model-path never\n",
    );
    assert!(launches(&repo, "n.sh").is_empty());
    repo.write(
        "e.sh",
        "set -u\ncd \"$WORKDIR\"\nsglang serve --model-path m\n",
    );
    let l = launches(&repo, "e.sh");
    assert!(condition(&l[0]).unwrap().contains("set -u"), "{l:?}");
    // A function named like a builtin or the launcher runs instead; `command`
    // skips it.
    repo.write(
        "f.sh",
        "command eval 'sglang serve --model-path e'\necho() { TP=8; }\nTP=2\necho hi\nsglang() { command sglang serve --model-path wrapped \"$@\"; }\nsglang --tp \"$TP\"\n",
    );
    let l = launches(&repo, "f.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "e"]);
    assert_eq!(argv(&l[1]), ["--model-path", "wrapped", "--tp", "8"]);
    // trap: EXIT code runs at the end; DEBUG code is not evaluated.
    repo.write(
        "t.sh",
        "trap 'sglang serve --model-path at-exit' EXIT\nsglang serve --model-path first\ntrap 'TP=8' DEBUG\nsglang serve --model-path m --tp 2\n",
    );
    let l = launches(&repo, "t.sh");
    assert_eq!(l.len(), 3, "{l:?}");
    assert!(condition(&l[0]).is_none());
    assert!(condition(&l[1]).unwrap().contains("DEBUG"), "{l:?}");
    assert_eq!(argv(&l[2]), ["--model-path", "at-exit"]);
    // EXIT code that is not knowable: harmless as written (`kill $PID`), or
    // an error naming the trap when it may start a server.
    repo.write(
        "k.sh",
        "sglang serve --model-path m &\nPID=$!\ntrap \"kill $PID\" EXIT\n",
    );
    assert_eq!(launches(&repo, "k.sh").len(), 1);
    repo.write("c.sh", "trap \"$CMD\" EXIT\nsglang serve --model-path m\n");
    repo.run(&["extract", "c.sh"])
        .assert_input_error("c.sh:", &["EXIT trap set on line 1", "may start a server"]);
    // An alias under expand_aliases prefixes env and args to the launch.
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "shopt -s expand_aliases\nalias serve='sglang serve --tp 8'\nserve --model-path m\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    // lastpipe: `echo 8 | read TP` sets TP in the script's shell; from a
    // pipe whose data is not knowable, to an unknown value.
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "TP=2\nshopt -s lastpipe\necho 8 | read TP\nsglang serve --model-path m --tp $TP\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("contradicts]: tp_size"), "{}", o.both());
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "TP=2\nshopt -s lastpipe\nnproc | read TP\nsglang serve --model-path m --tp $TP\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("missing]: tp_size"), "{}", o.both());
}

/// The script's own folder is knowable: `$0`, `${BASH_SOURCE[0]}`,
/// `dirname`, and `pwd` after `cd` (the `SCRIPT_DIR` idiom), so a file sourced
/// beside it is read (before, the path was unknown).
#[test]
fn the_script_folder_idiom_finds_sourced_files() {
    let repo = Repo::new();
    repo.write("bench/lib/common.sh", "TP=8\n");
    let o = compare(
        &repo,
        "sglang serve --model-path m --tp 2\n",
        "SCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"$SCRIPT_DIR/bench/lib/common.sh\"\nsglang serve --model-path m --tp $TP\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("contradicts]: tp_size"), "{}", o.both());
    repo.write(
        "bench/run.sh",
        "cd \"$(dirname \"$0\")\"\nsource ./lib/common.sh\nsglang serve --model-path m --tp $TP\n",
    );
    let l = launches(&repo, "bench/run.sh");
    assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "8"]);
}

/// `realpath` / `readlink -f` of a path inside the repository give its
/// canonical path, as bash's tools print it; a path outside the root (here a
/// symlink to the canary) is never resolved: the value is unknown, and
/// nothing of the outside file shows.
#[test]
fn realpath_resolves_inside_the_root_only() {
    let repo = Repo::new();
    repo.write("tpl/chat.jinja", "x\n");
    repo.symlink("out.jinja", &repo.outside().join("secret.txt"));
    repo.write(
        "run.sh",
        "sglang serve --model-path m --chat-template \"$(realpath tpl/chat.jinja)\" --x \"$(readlink -f out.jinja)\" --y \"$(realpath /etc/hostname)\"\n",
    );
    let o = repo.run_deterministic(&["extract", "run.sh", "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let argv = &v["launches"][0]["argv"];
    let real = repo.root().join("tpl/chat.jinja").canonicalize().unwrap();
    assert_eq!(argv[3]["text"], real.display().to_string(), "{}", o.stdout);
    for i in [5, 7] {
        assert_eq!(argv[i]["provenance"]["kind"], "unknown", "{}", o.stdout);
    }
}

/// Round 8 (issue 24, class 5): a command substitution in the command-name
/// position (`$(sglang serve ...)`, `` `sglang serve ...` ``) runs the server
/// once in bash 5.2 (checked with a counting `sglang` function); recipe-drift
/// reports two identical launches, so `compare` refuses the file as holding
/// two serve commands.
#[test]
fn adversary_round8_a_command_substitution_as_the_command_starts_one_server() {
    let repo = Repo::new();
    for script in [
        "$(sglang serve --model-path m --tp 2)\n",
        "`sglang serve --model-path m --tp 2`\n",
        "\"$(sglang serve --model-path m --tp 2)\"x\n",
    ] {
        repo.write("q.sh", script);
        let o = repo.run_deterministic(&["extract", "q.sh"]);
        o.assert_bounded();
        assert!(o.stdout.contains("launch 1"), "{script}{}", o.both());
        assert!(!o.stdout.contains("launch 2"), "{script}{}", o.both());
    }
}
