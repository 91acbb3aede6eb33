//! Red-team pass 3, bash evaluation: declarations whose operands come from
//! an expansion, files the script writes before reading them, the working
//! folder (`cd -P`, `CDPATH`, a failed `cd`, `pushd`), what a child shell
//! inherits, `env -uNAME` / `env -S`, and `printf '%5%'`. Each case is
//! what bash 5.2 does (noted beside it), or unknown with the reason: never a
//! confident wrong value.

use crate::Repo;

/// The launches of `extract --format json` on `file`, run twice.
fn launches(repo: &Repo, file: &str) -> Vec<serde_json::Value> {
    let o = repo.run_deterministic(&["extract", file, "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    v["launches"].as_array().cloned().unwrap_or_default()
}

/// The argv of the only launch of `script`; an unknown word is `?` and the
/// reason.
fn argv(repo: &Repo, script: &str) -> Vec<String> {
    repo.write("r.sh", script);
    let l = launches(repo, "r.sh");
    assert_eq!(l.len(), 1, "{script}: {l:?}");
    l[0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| match t["provenance"]["kind"].as_str() {
            Some("unknown") => format!("?{}", t["provenance"]["reason"].as_str().unwrap()),
            _ => t["text"].as_str().unwrap().to_string(),
        })
        .collect()
}

/// The value given to `--tp` by the only launch of `script` (`?` and the
/// reason when unknown).
fn tp(repo: &Repo, script: &str) -> String {
    let a = argv(repo, script);
    let i = a.iter().position(|w| w == "--tp").expect("--tp");
    a[i + 1].clone()
}

/// The environment of the only launch of `script`: `NAME=value`.
fn env(repo: &Repo, script: &str) -> Vec<String> {
    repo.write("r.sh", script);
    let l = launches(repo, "r.sh");
    assert_eq!(l.len(), 1, "{script}: {l:?}");
    l[0]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{}={}",
                e["name"].as_str().unwrap(),
                e["value"].as_str().unwrap()
            )
        })
        .collect()
}

const SERVE: &str = "sglang serve --model-path m --tp \"${TP:-8}\"\n";

#[test]
fn declarations_apply_operands_that_come_from_expansions() {
    let repo = Repo::new();
    repo.write(".env", "TP=4\nSGLANG_USE_AITER=1\n");
    // bash runs --tp 4 for each.
    for pre in [
        "X=TP; declare \"$X=4\"",
        "X=TP; declare -g \"$X\"=4",
        "X=TP; declare -- $X=4",
        "X=TP; typeset \"$X=4\"",
        "X=TP; readonly \"$X=4\"",
        "ENVS=(TP=4 SGLANG_USE_AITER=1); for kv in \"${ENVS[@]}\"; do export \"$kv\"; done",
        "f() { local \"$1=4\"; sglang serve --model-path m --tp \"$TP\"; }; f TP; exit",
    ] {
        assert_eq!(tp(&repo, &format!("{pre}\n{SERVE}")), "4", "{pre}");
    }
    // An exported operand reaches the server's environment.
    let e = env(&repo, &format!("X=AITER; export SGLANG_USE_$X=1\n{SERVE}"));
    assert!(e.contains(&"SGLANG_USE_AITER=1".to_string()), "{e:?}");
    // `export $(grep ... | xargs)`: what it sets is not knowable.
    let v = tp(
        &repo,
        &format!("export $(grep -v '^#' .env | xargs)\n{SERVE}"),
    );
    assert!(v.starts_with('?'), "{v}");
    // `while read kv; do export "$kv"; done < .env`: the lines are not read.
    let v = tp(
        &repo,
        &format!("while IFS= read -r kv; do export \"$kv\"; done < .env\n{SERVE}"),
    );
    assert_ne!(v, "8");
    // `declare +x`: no longer exported, so a child shell does not see it.
    assert_eq!(
        tp(
            &repo,
            "export TP=4; declare +x TP\nbash -c 'sglang serve --model-path m --tp ${TP:-8}'\n"
        ),
        "8"
    );
}

#[test]
fn files_the_script_changed_are_not_read_as_committed() {
    let repo = Repo::new();
    repo.write("gen.sh", "TP=8\n");
    repo.write("run2.sh", "sglang serve --model-path m --tp 8\n");
    // bash runs --tp 4 for each: we must not say 8.
    for pre in [
        "echo TP=4 > gen.sh; source ./gen.sh",
        "cat > gen.sh <<'X'\nTP=4\nX\necho >> gen.sh; source ./gen.sh",
        "TP=4; rm -f gen.sh; source ./gen.sh",
        "TP=4; mv gen.sh old.sh; . ./gen.sh",
        "{ echo TP=4; } >> gen.sh; source gen.sh",
        "TP=8; source <(echo TP=4)",
        "sed -i s/8/4/ gen.sh; source gen.sh",
    ] {
        let v = tp(&repo, &format!("{pre}\n{SERVE}"));
        assert!(v.starts_with('?'), "{pre}: {v}");
        assert!(
            v.contains("gen.sh") || v.contains("process substitution"),
            "{pre}: {v}"
        );
    }
    // A file the script wrote whole from a here-document is read as written.
    assert_eq!(
        tp(
            &repo,
            &format!("cat > gen.sh <<'X'\nTP=4\nX\nsource ./gen.sh\n{SERVE}")
        ),
        "4"
    );
    // A file the script did not touch is still read.
    assert_eq!(
        tp(
            &repo,
            &format!("echo x > log.txt; source ./gen.sh\n{SERVE}")
        ),
        "8"
    );
    // `bash run2.sh` after writing it: listed as a launch not modelled.
    repo.write(
        "w.sh",
        "echo 'sglang serve --model-path m --tp 4' > run2.sh\nbash run2.sh\n",
    );
    let o = repo.run_deterministic(&["extract", "w.sh"]);
    assert!(
        o.stdout.contains("unsupported") && o.stdout.contains("run2.sh"),
        "{}",
        o.both()
    );
}

/// `compare` of docs using `-tp 8` with a vLLM recipe.
fn vllm_compare(repo: &Repo, recipe: &str) -> crate::Outcome {
    repo.write("docs.sh", "vllm serve org/m -tp 8\n");
    repo.write("recipe.sh", recipe);
    let o = repo.run_deterministic(&[
        "compare",
        "docs.sh",
        "recipe.sh",
        "--engine-version",
        "0.17.0",
        "--platform",
        "cuda",
        "--no-checkpoint-facts",
    ]);
    o.assert_bounded().assert_no_leak();
    o
}

#[test]
fn vllm_config_is_read_from_the_working_folder_and_never_stale() {
    let repo = Repo::new();
    repo.write("cfg.yaml", "tensor-parallel-size: 8\n");
    repo.write("sub/cfg.yaml", "tensor-parallel-size: 4\n");
    // Control: the committed file says 8.
    let o = vllm_compare(&repo, "vllm serve org/m --config cfg.yaml\n");
    assert_eq!(o.code, Some(0), "{}", o.both());
    // vLLM opens sub/cfg.yaml (tp 4) after each of these.
    for recipe in [
        "cd sub\nvllm serve org/m --config cfg.yaml\n",
        "(cd sub && vllm serve org/m --config cfg.yaml)\n",
        "pushd sub\nvllm serve org/m --config cfg.yaml\n",
    ] {
        let o = vllm_compare(&repo, recipe);
        assert_eq!(o.code, Some(1), "{recipe}: {}", o.both());
        assert!(o.stdout.contains("sub/cfg.yaml"), "{recipe}: {}", o.both());
    }
    // The config written by a here-document: its text, not the committed one.
    let o = vllm_compare(
        &repo,
        "cat > cfg.yaml <<EOF\ntensor-parallel-size: 4\nEOF\nvllm serve org/m --config cfg.yaml\n",
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(
        o.stdout.contains("cfg.yaml as written at recipe.sh:1:1"),
        "{}",
        o.both()
    );
    // Changed again after (or written only under an unknown condition):
    // not knowable, never the committed file.
    for recipe in [
        "cat > cfg.yaml <<EOF\ntensor-parallel-size: 4\nEOF\necho x: 1 >> cfg.yaml\nvllm serve org/m --config cfg.yaml\n",
        "if [ -f x ]; then cat > cfg.yaml <<EOF\ntensor-parallel-size: 4\nEOF\nfi\nvllm serve org/m --config cfg.yaml\n",
    ] {
        let o = vllm_compare(&repo, recipe);
        assert_eq!(o.code, Some(1), "{}", o.both());
        assert!(o.stdout.contains("missing]: tp_size"), "{}", o.both());
        assert!(
            o.stdout.contains("written by the script at recipe.sh:"),
            "{}",
            o.both()
        );
    }
}

#[test]
fn cd_follows_bash() {
    let repo = Repo::new();
    repo.write("env.sh", "TP=8\n");
    repo.write("a/env.sh", "TP=4\n");
    repo.write("a/b/env.sh", "TP=4\n");
    repo.symlink("lnk", std::path::Path::new("a/b"));
    let run = |pre: &str| tp(&repo, &format!("{pre}\nsource ./env.sh\n{SERVE}"));
    // bash: tp 4 (the physical parent of a/b is a; CDPATH finds a/b).
    assert_eq!(run("cd -P lnk/.."), "4");
    assert_eq!(run("set -P; cd lnk/.."), "4");
    assert_eq!(run("cd lnk; cd \"$(pwd -P)/..\""), "4");
    assert_eq!(run("CDPATH=a; cd b"), "4");
    // Logical `cd` (the default): lnk/.. is the start folder, tp 8.
    assert_eq!(run("cd lnk/.."), "8");
    // `cd -` goes back: tp 8.
    assert_eq!(run("cd a; cd -"), "8");
    assert_eq!(run("pushd a; popd"), "8");
    // A folder that is not in the repository: bash stays in `a` (tp 4);
    // we cannot know that no command made it, so it is unknown, never `a/..`.
    let v = run("cd a; cd nonexist; cd ..");
    assert!(v.starts_with('?'), "{v}");
}

#[test]
fn child_shells_inherit_what_bash_gives_them() {
    let repo = Repo::new();
    let child = |pre: &str, default: &str| {
        tp(
            &repo,
            &format!("{pre} bash -c 'sglang serve --model-path m --tp ${{TP:-{default}}}'\n"),
        )
    };
    // The prefix assignment over an exported variable: tp 2.
    assert_eq!(child("declare -x TP=4; TP=2", "8"), "2");
    // A here-document fed to a shell, with a prefix assignment: tp 2.
    assert_eq!(
        tp(
            &repo,
            "TP=2 bash <<'X'\nsglang serve --model-path m --tp ${TP:-4}\nX\n"
        ),
        "2"
    );
    // A `local` without a value does not hide the exported variable: tp 4.
    assert_eq!(
        tp(
            &repo,
            "export TP=4; f(){ local TP; bash -c 'sglang serve --model-path m --tp ${TP:-2}'; }; f\n"
        ),
        "4"
    );
}

#[test]
fn env_forms() {
    let repo = Repo::new();
    let e = env(
        &repo,
        "export SGLANG_USE_AITER=1\nenv -uSGLANG_USE_AITER sglang serve --model-path m --tp 8\n",
    );
    assert!(
        !e.iter().any(|v| v.starts_with("SGLANG_USE_AITER")),
        "{e:?}"
    );
    let script = "env -S 'SGLANG_USE_AITER=1 sglang serve' --model-path m --tp 4\n";
    assert_eq!(tp(&repo, script), "4");
    assert!(env(&repo, script).contains(&"SGLANG_USE_AITER=1".to_string()));
}

#[test]
fn printf_invalid_percent_stops_as_bash_does() {
    let repo = Repo::new();
    // bash: "invalid format character", X is empty: --tp 4.
    assert_eq!(
        tp(
            &repo,
            "printf -v X '%5%'\nsglang serve --model-path m --tp \"4$X\"\n"
        ),
        "4"
    );
}

#[test]
fn return_trap_same_line_alias_and_local_dash() {
    let repo = Repo::new();
    // A RETURN trap set in a function runs as it returns: bash runs tp 4.
    assert_eq!(
        tp(
            &repo,
            "TP=8\nf(){ trap 'TP=4' RETURN; }; f\nsglang serve --model-path m --tp $TP\n"
        ),
        "4"
    );
    // An alias defined on the line that uses it does not apply there: the
    // `--tp 8` launch never runs (bash runs tp 4 only).
    repo.write(
        "r.sh",
        "shopt -s expand_aliases; alias serve8='sglang serve --model-path m --tp 8'; serve8 2>/dev/null || sglang serve --model-path m --tp 4\n",
    );
    let l = launches(&repo, "r.sh");
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0]["argv"][3]["text"], "4");
    // On the next line it applies.
    assert_eq!(
        tp(
            &repo,
            "shopt -s expand_aliases; alias serve8='sglang serve --model-path m --tp 8'\nserve8\n"
        ),
        "8"
    );
    // `local -` restores `set -f` as the function returns: the unquoted
    // pattern is a glob again (not knowable), never the literal.
    repo.write("--tp=8", "");
    let a = argv(
        &repo,
        "f(){ local -; set -f; }; f\nX='--tp=[8]'\nsglang serve --model-path m $X\n",
    );
    assert!(a[2].starts_with('?'), "{a:?}");
}

#[test]
fn assignments_during_expansion_happen_in_every_context() {
    let repo = Repo::new();
    let serve = "sglang serve --model-path m --tp $T\n";
    // bash runs tp 4 for each.
    for pre in [
        "T=8; A=(1 2); X=${A[T=4]}",
        "T=8; X=abcdef; Y=${X:T=4:1}",
        "T=8; printf -v 'a[T=4]' x",
        "T=8; read 'a[T=4]' <<< x",
        "T=8; [ -v 'a[T=4]' ]",
        "read -r -d '' NOTE <<EOF\nlaunching with tp ${T:=4}\nEOF",
        ": <<EOF\n${T:=4}\nEOF",
    ] {
        assert_eq!(
            tp(&repo, &format!("{pre}\n{}", serve.replace("$T", "${T}"))),
            "4",
            "{pre}"
        );
    }
    // An external command's here-document is expanded in the child: tp 8.
    assert_eq!(
        tp(&repo, &format!("T=8; cat <<EOF\n${{T:=4}}\nEOF\n{serve}")),
        "8"
    );
}
