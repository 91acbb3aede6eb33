//! srt-slurm recipes that exist only at the ref an InferenceX runner clones
//! (`fixtures/srt-clone/`): the ref is read from the runner's launch script
//! by the bash evaluator, the recipe is fetched through the fetch layer from
//! a loopback HTTP server each test starts (never the real network) and
//! rendered as a local one; a ref that is not knowable, `--offline` and a
//! 404 make the point unknown with the reason (`extract` fails on a fetch
//! failure, as for any remote file).

mod common;

use assert_cmd::Command;
use common::http::{Server, ok, status};
use serde_json::Value;

const IX: &str = "fixtures/srt-clone/inferencex";
const DOCS: &str = "fixtures/multinode/docs";

/// Our own recipe, modeled on srt-slurm's SGLang recipes with a `base:` and
/// an override the point selects.
const SGLANG_RECIPE: &str = "\
name: remote-fixture
base:
  model:
    path: org-model
    container: lmsysorg/sglang:v0.5.19-cu130
    precision: fp8
  resources:
    gpu_type: gb300
    gpus_per_node: 4
    prefill_nodes: 1
    prefill_workers: 1
    decode_nodes: 2
    decode_workers: 1
  backend:
    sglang_config:
      prefill:
        tensor-parallel-size: 4
        mem-fraction-static: 0.8
      decode:
        tensor-parallel-size: 8
        mem-fraction-static: 0.9
override_low:
  backend:
    sglang_config:
      decode:
        mem-fraction-static: 0.7
";

/// Our own recipe, modeled on srt-slurm's aggregated vLLM recipes.
const VLLM_RECIPE: &str = "\
name: remote-vllm
model:
  path: org-model
  container: vllm/vllm-openai:v0.25.0
  precision: fp8
resources:
  gpu_type: gb300
  gpus_per_node: 4
  agg_nodes: 1
  agg_workers: 1
backend:
  type: vllm
  vllm_config:
    aggregated:
      tensor-parallel-size: 4
      max-num-seqs: 64
";

/// Serves the fixtures' remote recipes at the refs the runner script picks.
fn recipes() -> Server {
    Server::start(|req, _| match req.path.as_str() {
        "/ExampleOrg/srt-slurm/release-7/recipes/sglang/org/remote.yaml" => ok(SGLANG_RECIPE),
        "/ExampleOrg/srt-slurm/vllm-3/recipes/vllm/org/remote.yaml" => ok(VLLM_RECIPE),
        _ => status(404),
    })
}

/// recipe-drift with the GitHub raw base at `server`, a fresh cache and the
/// loopback host allowed: (exit code, stdout, stderr).
fn run(server: &Server, args: &[&str]) -> (i32, String, String) {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("GITHUB_TOKEN")
        .env("RECIPE_DRIFT_GITHUB_RAW_BASE", server.base())
        .env("RECIPE_DRIFT_RETRY_DELAY_MS", "1")
        .args(args)
        .args(["--allow-host", "127.0.0.1", "--cache-dir"])
        .arg(cache.path())
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        err,
    )
}

fn extract(server: &Server, entry: &str, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        "extract",
        "--inferencex",
        IX,
        "--entry",
        entry,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = run(server, &args);
    let doc = serde_json::from_str(&out).unwrap_or(Value::Null);
    (code, doc, err)
}

fn argv(launch: &Value) -> Vec<String> {
    launch["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect()
}

fn value_of(argv: &[String], flag: &str) -> Option<String> {
    argv.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone())
}

#[test]
fn a_recipe_only_at_the_cloned_ref_is_fetched_there_and_rendered_with_its_selector() {
    let server = recipes();
    let (code, doc, err) = extract(&server, "org-fp8-gb300-dynamo-sglang", &[]);
    assert_eq!(code, 0, "{err}");
    let points = doc["points"].as_array().unwrap();
    let remote = &points[0];
    assert_eq!(
        remote["script"],
        "github:ExampleOrg/srt-slurm@release-7:recipes/sglang/org/remote.yaml:override_low"
    );
    assert!(remote.get("unknown").is_none(), "{remote:#}");
    let launches = remote["launches"].as_array().unwrap();
    let roles: Vec<&str> = launches
        .iter()
        .map(|l| l["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["prefill", "decode"]);
    // The override is merged over the base: decode's fraction is 0.7.
    let decode = argv(&launches[1]);
    assert_eq!(
        value_of(&decode, "--mem-fraction-static").as_deref(),
        Some("0.7")
    );
    assert_eq!(
        value_of(&argv(&launches[0]), "--mem-fraction-static").as_deref(),
        Some("0.8")
    );
    // Its positions are in the fetched file.
    let file = launches[1]["span"]["file"].as_str().unwrap();
    assert!(
        file.starts_with("github:ExampleOrg/srt-slurm@release-7:recipes/sglang/org/remote.yaml"),
        "{file}"
    );
    assert_eq!(remote["workers"][1]["nodes"], 2);
    // The local recipe beside it is read from the checkout, not fetched.
    assert!(
        points[1]["script"]
            .as_str()
            .unwrap()
            .ends_with("srt-slurm-recipes/sglang/org/local.yaml")
    );
    assert_eq!(
        server.paths(),
        ["/ExampleOrg/srt-slurm/release-7/recipes/sglang/org/remote.yaml"]
    );
}

#[test]
fn a_branch_given_to_the_clone_is_the_ref() {
    let server = recipes();
    let (code, doc, err) = extract(&server, "org-fp8-gb300-dynamo-vllm", &[]);
    assert_eq!(code, 0, "{err}");
    let point = &doc["points"][0];
    assert_eq!(
        point["script"],
        "github:ExampleOrg/srt-slurm@vllm-3:recipes/vllm/org/remote.yaml"
    );
    let launch = &point["launches"][0];
    assert_eq!(launch["role"], "aggregated");
    assert_eq!(launch["engine"], "vllm");
    assert_eq!(
        value_of(&argv(launch), "--max-num-seqs").as_deref(),
        Some("64")
    );
}

#[test]
fn a_ref_the_script_does_not_decide_is_unknown_with_the_reason_and_nothing_is_fetched() {
    let server = recipes();
    let (code, doc, err) = extract(&server, "org-fp4-gb300-dynamo-sglang", &[]);
    assert_eq!(code, 0, "{err}");
    let point = &doc["points"][0];
    assert!(point["launches"].as_array().unwrap().is_empty());
    let why = point["unknown"][0].as_str().unwrap();
    assert!(why.contains("whose ref is not knowable"), "{why}");
    assert!(
        why.contains("launch_gbx-nv.sh:22:9 runs only under a condition that is not knowable")
            && why.contains("the runner machine's name"),
        "{why}"
    );
    assert!(server.paths().is_empty(), "{:?}", server.paths());
}

#[test]
fn offline_without_the_recipe_cached_fails_extract_and_leaves_the_point_unknown_in_check() {
    let server = recipes();
    let (code, _, err) = extract(&server, "org-fp8-gb300-dynamo-sglang", &["--offline"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("github:ExampleOrg/srt-slurm@release-7:recipes/sglang/org/remote.yaml")
            && err.contains("--offline"),
        "{err}"
    );
    assert!(server.paths().is_empty());
    let m = check_reason(&server, &["--offline"]);
    assert!(
        m.contains("could not be had") && m.contains("--offline") && m.contains("@release-7:"),
        "{m}"
    );
}

#[test]
fn a_recipe_missing_at_the_ref_fails_extract_and_leaves_the_point_unknown_in_check() {
    let server = Server::start(|_, _| status(404));
    let (code, _, err) = extract(&server, "org-fp8-gb300-dynamo-sglang", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("HTTP 404") && err.contains("@release-7:"),
        "{err}"
    );
    let m = check_reason(&server, &[]);
    assert!(
        m.contains("could not be had") && m.contains("HTTP 404"),
        "{m}"
    );
}

/// The coverage message `check` gives the remote point of the fp8 SGLang entry.
fn check_reason(server: &Server, extra: &[&str]) -> String {
    let mut args = vec![
        "check",
        "--docs-root",
        DOCS,
        "--inferencex",
        IX,
        "--no-checkpoint-facts",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = run(server, &args);
    assert!(code == 0 || code == 1, "{code}: {err}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let found: Vec<&Value> = ["findings", "coverage"]
        .iter()
        .filter_map(|k| doc[k].as_array())
        .flatten()
        .filter(|f| {
            f["deployment"].as_str().is_some_and(|d| {
                d.contains("org-fp8-gb300-dynamo-sglang") && d.contains("remote.yaml")
            })
        })
        .collect();
    assert_eq!(found.len(), 1, "{doc:#}");
    found[0]["message"].as_str().unwrap().to_string()
}

#[test]
fn the_entry_depends_on_its_local_recipes_the_runner_list_and_the_launch_scripts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(IX);
    let deps =
        recipe_drift::extract::inferencex::dependencies(&root, "org-fp8-gb300-dynamo-sglang")
            .unwrap();
    for want in [
        "configs/nvidia-master.yaml",
        "configs/runners.yaml",
        "runners/launch_gbx-nv.sh",
        "benchmarks/multi_node/srt-slurm-recipes/sglang/org/local.yaml",
    ] {
        assert!(deps.contains(&root.join(want)), "{want}: {deps:?}");
    }
}
