//! Scale behaviour that output must not show: links and pairs run on several
//! workers give the same bytes as one at a time, and links that share a page
//! or script share its loading without mixing up their results.

use assert_cmd::Command;

/// Runs recipe-drift from the repository root with `RECIPE_DRIFT_JOBS=jobs`:
/// (exit code, stdout); stderr is [`run_err`]'s.
fn run_with_jobs(args: &[&str], jobs: &str) -> (i32, String) {
    let (code, out, _) = run_err(args, jobs);
    (code, out)
}

/// (exit code, stdout, stderr), never a panic.
fn run_err(args: &[&str], jobs: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RECIPE_DRIFT_JOBS", jobs)
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        err,
    )
}

/// The zero-config run of the cookbook fixture against the seed checkout.
const PAIRING: &[&str] = &[
    "check",
    "--docs-root",
    "fixtures/cookbook",
    "--inferencex",
    "fixtures/pairing/inferencex",
    "--no-checkpoint-facts",
    "--no-progress",
];

#[test]
fn a_config_checked_on_several_workers_prints_the_same_bytes() {
    for format in ["human", "json", "sarif"] {
        let args = [
            "check",
            "--config",
            "fixtures/demo/recipe-drift.yaml",
            "--offline",
            "--no-progress",
            "--format",
            format,
        ];
        let one = run_with_jobs(&args, "1");
        let four = run_with_jobs(&args, "4");
        assert_eq!(one.0, 1, "the demo has drift");
        assert_eq!(one, four, "{format}");
    }
}

#[test]
fn pairs_checked_on_several_workers_print_the_same_bytes() {
    let args = [PAIRING, &["--format", "json"]].concat();
    let one = run_with_jobs(&args, "1");
    let three = run_with_jobs(&args, "3");
    let doc: serde_json::Value = serde_json::from_str(&one.1).unwrap();
    assert!(
        doc["links"].as_array().unwrap().len() > 1,
        "several pairs to spread"
    );
    assert_eq!(one, three);
}

#[test]
fn links_sharing_a_page_keep_their_own_recipe_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("page.md"),
        "```bash\nsglang serve --model-path org/m --tp 4\n```\n",
    )
    .unwrap();
    std::fs::write(
        root.join("same.sh"),
        "python3 -m sglang.launch_server --model-path org/m --tp 4\n",
    )
    .unwrap();
    std::fs::write(
        root.join("other.sh"),
        "python3 -m sglang.launch_server --model-path org/m --tp 8\n",
    )
    .unwrap();
    let mut config = String::from(
        "checkpoints:\n  - {model: org/m, facts: {architectures: [LlamaForCausalLM], model-type: llama, dtype: bfloat16}}\nlinks:\n",
    );
    for i in 0..6 {
        let recipe = if i % 2 == 0 { "same.sh" } else { "other.sh" };
        config.push_str(&format!(
            "  - {{name: l{i}, docs: {{file: page.md}}, recipe: {{file: {recipe}}}}}\n"
        ));
    }
    std::fs::write(root.join(".recipe-drift.yaml"), config).unwrap();
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(root)
        .env("RECIPE_DRIFT_JOBS", "2")
        .args([
            "check",
            "--config",
            ".recipe-drift.yaml",
            "--offline",
            "--no-progress",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let links = doc["links"].as_array().unwrap();
    assert_eq!(links.len(), 6);
    for (i, l) in links.iter().enumerate() {
        assert_eq!(l["name"], format!("l{i}"));
        let recipe = l["recipe"]["file"].as_str().unwrap();
        let keys: Vec<&str> = l["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .map(|f| f["key"].as_str().unwrap())
            .collect();
        if i % 2 == 0 {
            assert!(recipe.ends_with("same.sh"), "{recipe}");
            assert_eq!(l["status"], "ok", "{l}");
        } else {
            assert!(recipe.ends_with("other.sh"), "{recipe}");
            assert_eq!(keys, ["tp_size"], "{l}");
        }
    }
}

#[test]
fn more_links_than_the_budget_is_a_clear_error_before_any_work() {
    let (code, _, err) = run_err(
        &[
            "check",
            "--config",
            "fixtures/demo/recipe-drift.yaml",
            "--offline",
            "--no-progress",
            "--max-pairs",
            "1",
        ],
        "2",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("fixtures/demo/recipe-drift.yaml:"), "{err}");
    assert!(err.contains("more than --max-pairs 1"), "{err}");
    let (code, out, err) = run_err(&[PAIRING, &["--max-pairs", "1"]].concat(), "2");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than --max-pairs 1"), "{err}");
    assert!(out.is_empty(), "nothing compared, nothing printed");
}
