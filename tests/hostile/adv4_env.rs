//! Red-team pass 4, environments around a launch: an `env` / `docker run -e`
//! operand whose value is not knowable is unknown (never empty), an env file
//! whose path is not knowable is not read with that part empty, and what the
//! text does not determine (an image's `ENV` lines, sudoers, profile files,
//! `BASH_ENV`) opens the environment, naming the cause.

use crate::Repo;

/// The launches of `extract --format json` on `file` (exit 0).
fn launches(repo: &Repo, file: &str) -> Vec<serde_json::Value> {
    let o = repo.run_deterministic(&["extract", file, "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    v["launches"].as_array().expect("launches").clone()
}

/// The env entry `name` of a launch.
fn env<'a>(launch: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    launch["env"].as_array()?.iter().find(|e| e["name"] == name)
}

/// Why a launch's environment is open, if it is.
fn open(launch: &serde_json::Value) -> Option<&str> {
    launch["env_open"].as_str()
}

/// H6: `env K="$X"`, `env -i K="$X"` and `docker run -e/--env K="$X"` with `$X`
/// not knowable: K is unknown with the reason, as the prefix form `K="$X" CMD`
/// already was (bash gives K the value of `$X`, whatever it is).
#[test]
fn an_env_operand_with_an_unknown_value_is_unknown_never_empty() {
    let repo = Repo::new();
    repo.write(
        "r.sh",
        "export $(grep -v '^#' \"$ENVFILE\" | xargs)\n\
         env -i PATH=\"$PATH\" VLLM_USE_FLASHINFER_MOE_FP4=\"$VLLM_USE_FLASHINFER_MOE_FP4\" vllm serve org/m\n\
         env A=1 B=\"${OTHER}\" vllm serve org/m\n\
         docker run --env VLLM_USE_FLASHINFER_MOE_FP4=\"$VLLM_USE_FLASHINFER_MOE_FP4\" img vllm serve org/m\n\
         docker run -e \"C=$OTHER\" --env=D=\"x$OTHER\" img vllm serve org/m\n\
         env E=\"$X_KNOWN\" vllm serve org/m\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 5, "{ls:#?}");
    for (l, names) in [
        (&ls[0], &["PATH", "VLLM_USE_FLASHINFER_MOE_FP4"][..]),
        (&ls[1], &["B"][..]),
        (&ls[2], &["VLLM_USE_FLASHINFER_MOE_FP4"][..]),
        (&ls[3], &["C", "D"][..]),
        (&ls[4], &["E"][..]),
    ] {
        for name in names {
            let e = env(l, name).unwrap_or_else(|| panic!("{name} in {l:#}"));
            assert_eq!(e["provenance"]["kind"], "unknown", "{name}: {e:#}");
            let reason = e["provenance"]["reason"].as_str().unwrap();
            assert!(reason.contains("not knowable"), "{name}: {reason}");
        }
    }
    // A known operand stays known.
    assert_eq!(env(&ls[1], "A").unwrap()["value"], "1");
    assert_ne!(env(&ls[1], "A").unwrap()["provenance"]["kind"], "unknown");
}

/// A name that is not knowable (`env "$N"=1`) sets some variable: the
/// launch's environment is open, naming it.
#[test]
fn an_env_operand_with_an_unknown_name_opens_the_environment() {
    let repo = Repo::new();
    repo.write(
        "r.sh",
        "docker run -e \"${N}X=1\" img vllm serve org/m\nenv \"${N}Y=1\" vllm serve org/m\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 2, "{ls:#?}");
    for l in &ls {
        let why = open(l).unwrap_or_else(|| panic!("open: {l:#}"));
        assert!(why.contains("name is not knowable"), "{why}");
        assert!(env(l, "X").is_none() && env(l, "Y").is_none(), "{l:#}");
    }
}

/// H10, L1: `docker run --env-file "t-$PROFILE.sh"` / `--env-file "$ENVF"`
/// with the path not knowable: the file is not read with the unknown part
/// empty (`t-.sh`), nor is it "no such file"; the container's environment is
/// open, naming the option and the variable.
#[test]
fn an_env_file_whose_path_is_not_knowable_is_not_read() {
    let repo = Repo::new();
    repo.write("t-.sh", "VLLM_USE_FLASHINFER_MOE_FP4=0\n");
    repo.write(
        "r.sh",
        "docker run --env-file \"t-$PROFILE.sh\" img vllm serve org/m\n\
         docker run --env-file \"$ENVF\" -e K=1 img vllm serve org/m\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 2, "{ls:#?}");
    assert!(
        env(&ls[0], "VLLM_USE_FLASHINFER_MOE_FP4").is_none(),
        "{:#}",
        ls[0]
    );
    for (l, var) in [(&ls[0], "$PROFILE"), (&ls[1], "$ENVF")] {
        let why = open(l).unwrap_or_else(|| panic!("open: {l:#}"));
        assert!(why.contains("`--env-file`") && why.contains(var), "{why}");
    }
    // The variables the command names stay known.
    assert_eq!(env(&ls[1], "K").unwrap()["value"], "1");
}

/// M2: `sudo` (sudoers `env_keep` / `env_file`) and `docker run` / `podman
/// run` (the image's `ENV` lines) may give the server variables the text does
/// not show: open, naming the cause, while what the launch sets stays known.
/// `env -i` after `sudo` clears what sudoers added.
#[test]
fn sudo_and_containers_open_the_environment_naming_the_cause() {
    let repo = Repo::new();
    repo.write(
        "r.sh",
        "sudo VLLM_X=1 vllm serve org/m\n\
         docker run -e VLLM_X=1 vllm/vllm-openai:v0.20.0 vllm serve org/m\n\
         podman run img vllm serve org/m\n\
         sudo env -i vllm serve org/m\n\
         vllm serve org/m\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 5, "{ls:#?}");
    assert!(open(&ls[0]).unwrap().contains("sudoers"), "{:#}", ls[0]);
    assert_eq!(env(&ls[0], "VLLM_X").unwrap()["value"], "1");
    assert!(
        open(&ls[1])
            .unwrap()
            .contains("`vllm/vllm-openai:v0.20.0`'s `ENV` lines"),
        "{:#}",
        ls[1]
    );
    assert_eq!(env(&ls[1], "VLLM_X").unwrap()["value"], "1");
    assert!(open(&ls[2]).unwrap().contains("`img`'s `ENV` lines"));
    assert_eq!(open(&ls[3]), None, "{:#}", ls[3]);
    assert_eq!(open(&ls[4]), None, "{:#}", ls[4]);
}

/// `compare --format json DOCS RECIPE` (vLLM 0.20, CUDA), its exit code and
/// the `env:*` finding.
fn open_finding(repo: &Repo, docs: &str, recipe: &str) -> serde_json::Value {
    let o = crate::open_env::compare_json(repo, docs, recipe);
    assert!(matches!(o.code, Some(0 | 1)), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    v["links"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["key"] == "env:*")
        .cloned()
        .expect("the env:* finding")
}

/// L5: the `env:*` finding says "the recipe leaves" / "the docs leave", shows
/// the closed side as the release default, and when both sides are open says
/// so on both (unknown, each with its own cause) instead of claiming a side
/// leaves the variables at their defaults.
#[test]
fn the_open_environment_finding_counts_and_words_each_side_right() {
    let repo = Repo::new();
    let serve = "vllm serve org/m -tp 8\n";
    let sourced = "source \"$SETUP\"\nvllm serve org/m -tp 8\n";
    let one = open_finding(&repo, sourced, serve);
    let reason = one["docs"]["reason"].as_str().expect("docs unknown");
    assert!(
        reason.contains("that the recipe leaves at their defaults"),
        "{reason}"
    );
    assert_eq!(one["recipe"]["state"], "known", "{one:#}");
    assert_eq!(one["recipe"]["source"], "default", "{one:#}");

    let other = open_finding(&repo, serve, sourced);
    let reason = other["recipe"]["reason"].as_str().expect("recipe unknown");
    assert!(
        reason.contains("that the docs leave at their defaults"),
        "{reason}"
    );

    let both = open_finding(&repo, sourced, "docker run img vllm serve org/m -tp 8\n");
    for (side, cause) in [("docs", "`source`"), ("recipe", "`img`'s `ENV` lines")] {
        assert_eq!(both[side]["state"], "unknown", "{both:#}");
        let reason = both[side]["reason"].as_str().unwrap();
        assert!(reason.contains("that neither side sets"), "{reason}");
        assert!(!reason.contains("default"), "{reason}");
        assert!(reason.contains(cause), "{side}: {reason}");
    }
}

/// H8: a non-interactive child bash (`bash -c`, `bash FILE`, `./x` with a
/// `#!/bin/bash` line) sources the file its exported `BASH_ENV` names first
/// (read through the confined layer, as bash 5.2 does); one whose path is
/// not knowable opens the child's environment. `sh -c` and `bash -i` do not
/// read it.
#[test]
fn a_child_bash_sources_its_bash_env_first() {
    let repo = Repo::new();
    repo.write("gen.sh", "TP=4\n");
    repo.write("x.sh", "#!/bin/bash\nvllm serve org/m -tp \"${TP:-2}\"\n");
    repo.write(
        "r.sh",
        "BASH_ENV=./gen.sh bash -c 'vllm serve org/m -tp \"${TP:-2}\"'\n\
         export BASH_ENV=./gen.sh\n\
         ./x.sh\n\
         sh -c 'vllm serve org/m -tp \"${TP:-2}\"'\n\
         BASH_ENV=\"$SETUP\" bash -c 'vllm serve org/m -tp \"${TP:-2}\"'\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 4, "{ls:#?}");
    let tp = |l: &serde_json::Value| l["argv"][2].clone();
    assert_eq!(tp(&ls[0])["text"], "4", "{:#}", ls[0]);
    assert_eq!(tp(&ls[1])["text"], "4", "{:#}", ls[1]);
    assert_eq!(tp(&ls[2])["text"], "2", "{:#}", ls[2]);
    assert_eq!(tp(&ls[3])["provenance"]["kind"], "unknown", "{:#}", ls[3]);
    assert!(open(&ls[3]).unwrap().contains("`BASH_ENV`"), "{:#}", ls[3]);
}

/// M2: a login (`bash -l`) or interactive (`bash -i`) shell reads profile or
/// rc files outside the text before its command: its environment is open
/// and the variables it inherited are unknown, naming those files; with
/// `--noprofile` / `--norc` it is not.
#[test]
fn login_and_interactive_shells_open_the_environment() {
    let repo = Repo::new();
    repo.write(
        "r.sh",
        "export TP=8\n\
         env -i bash -l -c 'vllm serve org/m'\n\
         bash -i -c 'vllm serve org/m -tp \"$TP\"'\n\
         bash --noprofile -l -c 'vllm serve org/m -tp \"$TP\"'\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 3, "{ls:#?}");
    assert!(
        open(&ls[0]).unwrap().contains("profile files"),
        "{:#}",
        ls[0]
    );
    assert!(open(&ls[1]).unwrap().contains("~/.bashrc"), "{:#}", ls[1]);
    assert_eq!(
        ls[1]["argv"][2]["provenance"]["kind"], "unknown",
        "{:#}",
        ls[1]
    );
    assert_eq!(open(&ls[2]), None, "{:#}", ls[2]);
    assert_eq!(ls[2]["argv"][2]["text"], "8", "{:#}", ls[2]);
}

/// H13: `sh FILE`, `./x.sh` with `#!/bin/sh`: /bin/sh may be dash, which has
/// no `source`, `declare`, `[[`...: after such a command the variables are
/// unknown, naming it (dash skips it; bash runs it). The same script under
/// bash is read as before. A `#!/bin/bash -a` line's option applies.
#[test]
fn sh_scripts_make_bash_only_commands_unknown_and_shebang_options_apply() {
    let repo = Repo::new();
    repo.write("gen.sh", "TP=8\n");
    repo.write(
        "x.sh",
        "#!/bin/sh\nsource ./gen.sh\nvllm serve org/m -tp \"${TP:-2}\"\n",
    );
    repo.write("a.sh", "#!/bin/bash -a\nVLLM_X=1\nvllm serve org/m\n");
    repo.write(
        "r.sh",
        "./x.sh\nsh x.sh\nbash x.sh\n./a.sh\nsh -c '[[ -n x ]] && vllm serve org/m'\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 5, "{ls:#?}");
    for l in &ls[..2] {
        let tp = &l["argv"][2];
        assert_eq!(tp["provenance"]["kind"], "unknown", "{tp:#}");
        let reason = tp["provenance"]["reason"].as_str().unwrap();
        assert!(reason.contains("`source` on line 2 under `sh`"), "{reason}");
    }
    assert_eq!(ls[2]["argv"][2]["text"], "8", "{:#}", ls[2]);
    assert_eq!(env(&ls[3], "VLLM_X").unwrap()["value"], "1", "{:#}", ls[3]);
    let cond = &ls[4]["launcher"][0]["provenance"];
    assert_eq!(cond["kind"], "unknown", "{cond:#}");
    assert!(
        cond["reason"].as_str().unwrap().contains("`[[` under `sh`"),
        "{cond:#}"
    );
}

/// A shell run in a container (`docker run -e TP=4 img bash -c ...`) gets
/// the container's `-e` variables, not the host's exports, and its
/// environment is open for the image's `ENV` lines.
#[test]
fn a_shell_in_a_container_gets_the_container_environment() {
    let repo = Repo::new();
    repo.write(
        "r.sh",
        "export A=1 TP=8\ndocker run -e TP=4 -e A img bash -c 'vllm serve org/m -tp \"${TP:-2}\" --x \"$B\"'\n",
    );
    let ls = launches(&repo, "r.sh");
    assert_eq!(ls.len(), 1, "{ls:#?}");
    assert_eq!(ls[0]["argv"][2]["text"], "4", "{:#}", ls[0]);
    assert_eq!(env(&ls[0], "A").unwrap()["value"], "1", "{:#}", ls[0]);
    let b = &ls[0]["argv"][4]["provenance"];
    assert_eq!(b["kind"], "unknown", "{b:#}");
    assert!(open(&ls[0]).unwrap().contains("`img`'s `ENV` lines"));
}
