//! Red-team pass 4, evaluation semantics: assignments to a name that is
//! not knowable (`printf -v "$N"`, `let "$N=1"`, `(( $N = 1 ))`), a
//! prefix assignment before a function call, DEBUG/ERR traps, bash's
//! `{NAME}>file` descriptors, `unset` of a local, `coproc`, `eval` and
//! `source` of code that is not read, and `getopts`. Each case is what bash
//! 5.2 does (noted beside it), or unknown with the reason: never a
//! confident wrong value, never a launch silently dropped.

use crate::Repo;
use serde_json::Value;

/// `extract --format json` of `script` (as `r.sh`), run twice: the
/// launches and the unsupported notices.
fn extract(repo: &Repo, script: &str) -> (Vec<Value>, Vec<String>) {
    repo.write("r.sh", script);
    let o = repo.run_deterministic(&["extract", "r.sh", "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{script}: {}", o.both());
    let v: Value = serde_json::from_str(&o.stdout).expect("json");
    let launches = v["launches"].as_array().cloned().unwrap_or_default();
    let notes = v["unsupported"]
        .as_array()
        .map(|a| a.iter().map(|n| n.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    (launches, notes)
}

/// A token as text, or `?` and the reason when it is unknown.
fn text(t: &Value) -> String {
    match t["provenance"]["kind"].as_str() {
        Some("unknown") => format!("?{}", t["provenance"]["reason"].as_str().unwrap()),
        _ => t["value"]
            .as_str()
            .or_else(|| t["text"].as_str())
            .unwrap()
            .to_string(),
    }
}

/// The word after `opt` in a launch's argv.
fn arg(l: &Value, opt: &str) -> String {
    let a = l["argv"].as_array().unwrap();
    let i = a.iter().position(|t| t["text"] == opt).expect(opt);
    text(&a[i + 1])
}

/// A launch's environment variable `name` (`None`: not in it).
fn env(l: &Value, name: &str) -> Option<String> {
    l["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(text)
}

/// The only launch of `script`.
fn only(repo: &Repo, script: &str) -> Value {
    let (l, _) = extract(repo, script);
    assert_eq!(l.len(), 1, "{script}: {l:?}");
    l[0].clone()
}

/// H5: bash assigns the variable the name expands to (`N=TP` sets TP), so
/// when the name is not knowable every variable may have changed and the
/// environment is open, as with `declare "$N=1"`.
#[test]
fn an_assignment_to_a_name_that_is_not_knowable_makes_every_variable_unknown() {
    let repo = Repo::new();
    for form in [
        r#"printf -v "$N" '%s' 4"#,
        r#"let "$N=4""#,
        r#"(( $N = 4 ))"#,
        r#"set -a; printf -v "VLLM_$SUFFIX" 1"#,
    ] {
        let l = only(
            &repo,
            &format!("export VLLM_X=0\nTP=2\n{form}\nvllm serve org/m -tp \"$TP\"\n"),
        );
        let tp = arg(&l, "-tp");
        assert!(
            tp.starts_with("?$TP") && tp.contains("not knowable"),
            "{form}: {tp}"
        );
        let x = env(&l, "VLLM_X").unwrap();
        assert!(x.starts_with('?'), "{form}: {x}");
        assert!(l["env_open"].as_str().is_some(), "{form}: {l}");
    }
}

/// Arithmetic that is not evaluated still assigns what it names: bash
/// sets `i` (to X+1), so `i` is unknown, not its stale 1; nothing else is.
#[test]
fn arithmetic_that_is_not_evaluated_makes_what_it_assigns_unknown() {
    let repo = Repo::new();
    for form in [r#"(( i = $X + 1 ))"#, r#"let "i = $X + 1""#, r#"let i=X+1"#] {
        let l = only(
            &repo,
            &format!("i=1\nTP=2\n{form}\nvllm serve org/m -tp \"$i\" --x \"$TP\"\n"),
        );
        let i = arg(&l, "-tp");
        assert!(i.contains("assigned by arithmetic"), "{form}: {i}");
        assert_eq!(arg(&l, "--x"), "2", "{form}");
        assert!(l["env_open"].is_null(), "{form}: {l}");
    }
}

/// H7: bash exports `VAR=1 f`'s assignment while f runs (its launch sees
/// it) and drops it after.
#[test]
fn a_prefix_assignment_reaches_a_launch_inside_the_function() {
    let repo = Repo::new();
    let (l, _) = extract(
        &repo,
        "serve() { vllm serve org/m -tp \"${TP:-8}\"; }\nVLLM_X=1 TP=4 serve\nserve\n",
    );
    assert_eq!(l.len(), 2, "{l:?}");
    assert_eq!(env(&l[0], "VLLM_X").as_deref(), Some("1"));
    assert_eq!(arg(&l[0], "-tp"), "4");
    assert_eq!(env(&l[1], "VLLM_X"), None);
    assert_eq!(arg(&l[1], "-tp"), "8");
}

/// H9: bash runs a DEBUG trap before the launch and an ERR trap after
/// `false`: either may export anything, so the environment is open and
/// variables are unknown; `:` does nothing.
#[test]
fn a_debug_or_err_trap_makes_what_follows_unknown() {
    let repo = Repo::new();
    for (trap, also) in [("DEBUG", ""), ("ERR", "false\n")] {
        let l = only(
            &repo,
            &format!(
                "TP=2\ntrap 'export VLLM_X=1 TP=4' {trap}\n{also}vllm serve org/m -tp \"$TP\"\n"
            ),
        );
        let open = l["env_open"].as_str().unwrap_or_default();
        assert!(open.contains(&format!("the {trap} trap")), "{trap}: {l}");
        assert!(arg(&l, "-tp").starts_with("?$TP"), "{trap}: {l}");
    }
    let l = only(
        &repo,
        "TP=2\ntrap ':' DEBUG\nvllm serve org/m -tp \"$TP\"\n",
    );
    assert_eq!(arg(&l, "-tp"), "2");
    assert!(l["env_open"].is_null(), "{l}");
}

/// H11: `exec {fd}>>file` only opens a descriptor (bash goes on); `$fd` is
/// the number bash picks, and the file is written.
#[test]
fn a_named_descriptor_redirection_is_a_redirection() {
    let repo = Repo::new();
    let l = only(&repo, "exec {log}>>server.log\nvllm serve org/m -tp 8\n");
    assert_eq!(arg(&l, "-tp"), "8");
    let l = only(
        &repo,
        "exec {fd}<r.sh\nexec {fd}>&-\nvllm serve org/m -tp \"$fd\"\n",
    );
    assert!(arg(&l, "-tp").contains("descriptor number"), "{l}");
    repo.write("gen.sh", "TP=4\n");
    let l = only(
        &repo,
        "exec {fd}>gen.sh\nsource ./gen.sh\nvllm serve org/m -tp \"${TP:-2}\"\n",
    );
    assert!(arg(&l, "-tp").contains("written"), "{l}");
}

/// H12: bash 5.2 (`localvar_unset` off): unsetting the function's own
/// local leaves it unset there while the caller's exported value reaches
/// the environment; unsetting a caller's local shows the global again.
#[test]
fn unset_of_a_local_follows_dynamic_scoping() {
    let repo = Repo::new();
    let (l, _) = extract(
        &repo,
        "export VLLM_Y=1\n\
         f() { local VLLM_Y=2; unset VLLM_Y; vllm serve org/m -tp \"${VLLM_Y-9}\"; }\n\
         f\n\
         g() { local VLLM_Y=3; h; vllm serve org/m -tp \"$VLLM_Y\"; }\n\
         h() { unset VLLM_Y; }\n\
         g\n",
    );
    assert_eq!(l.len(), 2, "{l:?}");
    assert_eq!(arg(&l[0], "-tp"), "9");
    assert_eq!(env(&l[0], "VLLM_Y").as_deref(), Some("1"));
    assert_eq!(arg(&l[1], "-tp"), "1");
    assert_eq!(env(&l[1], "VLLM_Y").as_deref(), Some("1"));
}

/// M1: bash runs a coprocess's command in the background.
#[test]
fn a_coprocess_launch_is_found() {
    let repo = Repo::new();
    for script in [
        "coproc vllm serve org/m -tp 2\nwait\n",
        "coproc SRV { vllm serve org/m -tp 2; }\nvllm serve org/m -tp \"$SRV_PID\"\n",
    ] {
        let (l, _) = extract(&repo, script);
        assert_eq!(arg(&l[0], "-tp"), "2", "{script}");
        if let Some(second) = l.get(1) {
            assert!(arg(second, "-tp").contains("coproc"), "{second}");
        }
    }
}

/// M1, M5, M6: code that is not read (`source <(...)`, `source
/// "$UNKNOWN"`, `eval "$(program)"`) may set anything and start a server:
/// the environment opens and what follows is conditional, naming it; with
/// no launch after it, a notice says it may start a server. Never an
/// error, never a silent "no serve commands found".
#[test]
fn code_that_is_not_read_opens_the_environment_and_may_start_a_server() {
    let repo = Repo::new();
    for (code, cmd) in [
        ("source <(echo \"vllm serve org/m -tp 4\")", "source"),
        ("source \"$LAUNCHER\"", "source"),
        ("eval \"$(conda shell.bash hook)\"", "eval"),
    ] {
        let (l, notes) = extract(&repo, &format!("{code}\nvllm serve org/m -tp 8\n"));
        assert_eq!(l.len(), 1, "{code}: {l:?}");
        let open = l[0]["env_open"].as_str().unwrap_or_default().to_string();
        assert!(open.contains(&format!("`{cmd}`")), "{code}: {}", l[0]);
        let launcher = text(&l[0]["launcher"][0]);
        assert!(
            launcher.contains(&format!("`{cmd}` of")),
            "{code}: {launcher}"
        );
        // The launch after it stands for it (a `compare` is not ambiguous).
        assert!(notes.is_empty(), "{code}: {notes:?}");
        // Alone, or after the last launch: a notice.
        for script in [format!("{code}\n"), format!("vllm serve org/m\n{code}\n")] {
            let (_, notes) = extract(&repo, &script);
            assert_eq!(notes.len(), 1, "{script}: {notes:?}");
            assert!(
                notes[0].contains(&format!("`{cmd}` runs code recipe-drift cannot read"))
                    && notes[0].contains("may start a server"),
                "{script}: {notes:?}"
            );
        }
    }
}

/// L4: getopts sets its variable and OPTARG (exported under `set -a`).
#[test]
fn getopts_sets_its_variable_and_optarg() {
    let repo = Repo::new();
    let l = only(
        &repo,
        "getopts t: OPT -t 4\nvllm serve org/m -tp \"$OPTARG\" --x \"$OPT\"\n",
    );
    assert_eq!(arg(&l, "-tp"), "4");
    assert_eq!(arg(&l, "--x"), "t");
    let l = only(
        &repo,
        "set -a\ngetopts x VLLM_H -x\nvllm serve org/m -tp 8\n",
    );
    assert_eq!(env(&l, "VLLM_H").as_deref(), Some("x"));
    // Options bundled in one word: bash's position in it is hidden.
    let l = only(&repo, "getopts xy O -xy\nvllm serve org/m --x \"$O\"\n");
    assert!(arg(&l, "--x").contains("bundles"), "{l}");
    // In a loop, one option per turn, then the end.
    let l = only(
        &repo,
        "while getopts t:x O -x -t 4 rest; do case $O in t) TP=$OPTARG;; x) X=1;; esac; done\n\
         vllm serve org/m -tp \"$TP\" --x \"$X\" --i \"$OPTIND\"\n",
    );
    assert_eq!(arg(&l, "-tp"), "4");
    assert_eq!(arg(&l, "--x"), "1");
    assert_eq!(arg(&l, "--i"), "4");
}
