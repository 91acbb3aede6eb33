//! Code that was not evaluated (`export $(...)` of an unknown operand, a
//! `source` of a file that is not read) may export any variable into the
//! server's environment: an engine variable the launch does not set is then
//! unknown, never its default, and a child shell inherits that.

use crate::Repo;

/// `env_open` of each launch of `extract --format json` on `file`.
fn env_open(repo: &Repo, file: &str) -> Vec<Option<String>> {
    let o = repo.run_deterministic(&["extract", file, "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    v["launches"]
        .as_array()
        .expect("launches")
        .iter()
        .map(|l| l["env_open"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn unevaluated_code_opens_the_environment_of_later_launches() {
    let repo = Repo::new();
    repo.write(
        "a.sh",
        "vllm serve org/m\nexport $(grep -v '^#' \"$ENVFILE\" | xargs)\nvllm serve org/m\nenv -i vllm serve org/m\ndocker run img vllm serve org/m\n",
    );
    let open = env_open(&repo, "a.sh");
    assert_eq!(open.len(), 4, "{open:?}");
    // Before the export: closed.
    assert_eq!(open[0], None);
    // After it: open, naming the code.
    let cause = open[1].as_deref().expect("open after the export");
    assert!(cause.starts_with("the `export` on line 2"), "{cause}");
    // `env -i` clears the environment. A container does not get the host's
    // environment, but its image's `ENV` lines (not in the text) may set any
    // variable: open, naming the image rather than the export.
    assert_eq!(open[2], None);
    let image = open[3]
        .as_deref()
        .expect("a container's environment is open");
    assert!(image.contains("`img`'s `ENV` lines"), "{image}");

    repo.write(
        "b.sh",
        "source \"$SETUP\"\nbash -c 'vllm serve org/m -tp ${TP:-2}'\n",
    );
    let o = repo.run_deterministic(&["extract", "b.sh", "--format", "json"]);
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let l = &v["launches"][0];
    // The child shell inherits the open environment: its launch is open and
    // `${TP:-2}` is unknown (the sourced file may have exported TP), not 2.
    assert!(
        l["env_open"]
            .as_str()
            .is_some_and(|c| c.contains("`source`")),
        "{l:#}"
    );
    let tp = &l["argv"][2];
    assert_eq!(tp["provenance"]["kind"], "unknown", "{tp:#}");
}

/// `compare --format json` of `docs.sh` against `recipe.sh` (vLLM 0.20, CUDA).
fn compare(repo: &Repo, recipe: &str) -> serde_json::Value {
    let o = compare_json(
        repo,
        "VLLM_USE_FLASHINFER_MOE_FP4=1 vllm serve org/m -tp 8\n",
        recipe,
    );
    assert_eq!(o.code, Some(1), "{}", o.both());
    serde_json::from_str(&o.stdout).expect("json")
}

/// `compare --format json docs.sh recipe.sh` (vLLM 0.20, CUDA, no checkpoint
/// facts) with these texts, bounded and leaking nothing.
pub(crate) fn compare_json(repo: &Repo, docs: &str, recipe: &str) -> crate::Outcome {
    repo.write("docs.sh", docs);
    repo.write("recipe.sh", recipe);
    let o = repo.run_deterministic(&[
        "compare",
        "docs.sh",
        "recipe.sh",
        "--engine-version",
        "0.20.0",
        "--platform",
        "cuda",
        "--no-checkpoint-facts",
        "--format",
        "json",
    ]);
    o.assert_bounded().assert_no_leak();
    o
}

/// The finding on `key` in a compare's JSON.
fn finding<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    v["links"][0]["findings"]
        .as_array()?
        .iter()
        .find(|f| f["key"] == key)
}

#[test]
fn an_open_environment_is_unknown_in_compare_never_the_default() {
    let repo = Repo::new();
    // Control: a closed environment leaves VLLM_USE_FLASHINFER_MOE_FP4 at its default
    // (false), a known value that contradicts the docs.
    let closed = compare(&repo, "vllm serve org/m -tp 8\n");
    let f = finding(&closed, "env:VLLM_USE_FLASHINFER_MOE_FP4").expect("finding");
    assert_eq!(f["recipe"]["value"], false, "{f:#}");
    assert!(finding(&closed, "env:*").is_none());

    // The env file may set VLLM_USE_FLASHINFER_MOE_FP4=1: the recipe's value is
    // unknown with the export named, so the equivalence is not shown.
    let open = compare(
        &repo,
        "export $(grep -v '^#' \"$ENVFILE\" | xargs)\nvllm serve org/m -tp 8\n",
    );
    let f = finding(&open, "env:VLLM_USE_FLASHINFER_MOE_FP4").expect("finding");
    assert_eq!(f["kind"], "missing", "{f:#}");
    assert!(f["recipe"].get("value").is_none(), "{f:#}");
    let reason = f["recipe"]["reason"].as_str().expect("reason");
    assert!(reason.contains("the `export` on line 1"), "{reason}");
    // Variables neither side writes are one finding, not one per variable.
    let all = finding(&open, "env:*").expect("the open-environment finding");
    assert_eq!(all["kind"], "unknown", "{all:#}");
    assert_eq!(all["class"], "major", "{all:#}");
    assert!(
        all["recipe"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("engine variables") && r.contains("MAJOR")),
        "{all:#}"
    );
    let per_key = open["links"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["key"].as_str().is_some_and(|k| k.starts_with("env:")))
        .count();
    assert_eq!(per_key, 2, "{open:#}");
}

/// The value given to `--tp` by the only launch of `script`: `?` and the
/// reason when unknown.
fn tp(repo: &Repo, script: &str) -> String {
    repo.write("r.sh", script);
    let o = repo.run_deterministic(&["extract", "r.sh", "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    let argv = v["launches"][0]["argv"].as_array().expect("argv").clone();
    let i = argv.iter().position(|t| t["text"] == "--tp").expect("--tp");
    let t = &argv[i + 1];
    match t["provenance"]["kind"].as_str() {
        Some("unknown") => format!("?{}", t["provenance"]["reason"].as_str().unwrap()),
        _ => t["text"].as_str().unwrap().to_string(),
    }
}

#[test]
fn files_an_unmodelled_program_names_are_not_read_as_committed() {
    let repo = Repo::new();
    repo.write("gen.sh", "TP=8\n");
    let serve = "sglang serve --model-path m --tp \"${TP:-2}\"\n";
    // A program recipe-drift does not model may write the files it names.
    for pre in [
        "python3 make_env.py --out gen.sh",
        "python3 make_env.py --out=./gen.sh",
        "yq -i '.tp = 4' gen.sh",
        "git checkout other -- gen.sh",
        "timeout 60 nice -n 5 python3 make_env.py gen.sh",
    ] {
        let v = tp(&repo, &format!("{pre}\nsource ./gen.sh\n{serve}"));
        assert!(v.starts_with('?'), "{pre}: {v}");
        assert!(
            v.contains("gen.sh") && v.contains("possibly written"),
            "{pre}: {v}"
        );
    }
    // Programs that only read, and unmodelled programs that name other
    // files, leave it readable.
    for pre in [
        "grep TP gen.sh",
        "wc -l gen.sh",
        "python3 report.py --log out.txt 8",
        // A shell's script is evaluated, with its own writes (here none).
        "bash -e --norc gen.sh",
    ] {
        assert_eq!(
            tp(&repo, &format!("{pre}\nsource ./gen.sh\n{serve}")),
            "8",
            "{pre}"
        );
    }
}

/// A docs page's fence (read by the bash evaluator, nothing executed) that runs
/// another program before the launch: a file the launch reads (`--config`)
/// may have been written by it, so its committed content is not the value
/// (red-team pass 4, H2 on pages).
#[test]
fn a_page_command_after_another_program_does_not_read_committed_files() {
    let repo = Repo::new();
    repo.write("cfg.yaml", "tensor-parallel-size: 8\n");
    let tp = |page: &str| {
        repo.write("page.md", page);
        let o = repo.run_deterministic(&[
            "compare",
            "page.md",
            "r.sh",
            "--engine-version",
            "0.20.0",
            "--no-checkpoint-facts",
            "--offline",
            "--format",
            "json",
        ]);
        o.assert_bounded().assert_no_leak();
        let v: serde_json::Value =
            serde_json::from_str(&o.stdout).unwrap_or_else(|_| panic!("{}", o.both()));
        v["links"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["key"] == "tp_size")
            .map(|f| f["docs"].clone())
    };
    repo.write("r.sh", "vllm serve org/m -tp 8\n");
    // Control: the committed file is read (8, as the recipe; equivalent).
    let control = tp("```bash\nvllm serve org/m --config cfg.yaml\n```\n").expect("equivalent");
    assert_eq!(control["value"], 8, "{control:#}");
    // After `awk` wrote it (bash would run -tp 2), the value is unknown.
    let docs = tp(
        "```bash\nawk 'BEGIN{print \"tensor-parallel-size: 2\" > \"cfg.yaml\"}'\nvllm serve org/m --config cfg.yaml\n```\n",
    )
    .expect("a finding on tp_size");
    assert_eq!(docs["state"], "unknown", "{docs:#}");
    assert!(
        docs["reason"]
            .as_str()
            .is_some_and(|r| r.contains("possibly changed by `awk` at page.md:2:1")),
        "{docs:#}"
    );
}
