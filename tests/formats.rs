//! `check`/`compare` output formats: SARIF (validated against the official
//! schema, offline), GitHub workflow commands with the job summary, and Markdown.

mod common;

use assert_cmd::Command;
use common::run;

const DEMO: &str = "fixtures/demo/recipe-drift.yaml";
const BROKEN: &str = "fixtures/misc/one-broken-link.yaml";
const DOCS: &str = "fixtures/demo/qwen35-mi355x-cookbook.md";
const RECIPE: &str = "fixtures/demo/qwen35-mi355x-recipe.sh";

/// The official SARIF 2.1.0 schema (OASIS; see tests/data/NOTICE.md).
#[test]
fn demo_check_sarif() {
    let (code, out, err) = run(&["check", "--config", DEMO, "--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("demo_check_sarif", out);
}

#[test]
fn demo_check_github() {
    let (code, out, err) = run(&["check", "--config", DEMO, "--format", "github"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("demo_check_github", out);
}

#[test]
fn demo_check_markdown() {
    let (code, out, err) = run(&["check", "--config", DEMO, "--format", "markdown"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("demo_check_markdown", out);
}

#[test]
fn new_formats_are_deterministic() {
    for f in ["sarif", "github", "markdown", "concise"] {
        let a = run(&["check", "--config", DEMO, "--format", f]).1;
        let b = run(&["check", "--config", DEMO, "--format", f]).1;
        assert_eq!(a, b, "{f}");
    }
}

#[test]
fn sarif_validates_against_the_official_schema() {
    // The validator is not vacuous: a log of the wrong version is rejected.
    let bad = serde_json::json!({"version": "2.0.0", "runs": []});
    assert!(!common::sarif::validator().is_valid(&bad));

    let (_, out, _) = run(&["check", "--config", DEMO, "--format", "sarif"]);
    common::sarif::assert_valid(&out);
    let (_, out, _) = run(&[
        "compare",
        DOCS,
        RECIPE,
        "--hardware",
        "mi355x",
        "--format",
        "sarif",
    ]);
    common::sarif::assert_valid(&out);
}

#[test]
fn sarif_results_rules_and_locations() {
    let (_, out, _) = run(&["check", "--config", DEMO, "--format", "sarif"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let run0 = &doc["runs"][0];
    let driver = &run0["tool"]["driver"];
    assert_eq!(driver["name"], "recipe-drift");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let ids: Vec<&str> = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "contradicts",
            "missing",
            "unknown",
            "equivalent",
            "no-effect",
            "startup-error",
            "docs-unpaired",
            "recipe-unpaired",
            "broken-continuation",
            "state-budget",
            "newer-release",
            "cross-role"
        ]
    );
    let results = run0["results"].as_array().unwrap();
    // The first finding: hicache_io_backend, on the docs line, recipe related.
    let r = &results[0];
    assert_eq!(r["ruleId"], "RD001");
    assert_eq!(r["level"], "error");
    assert!(
        r["message"]["text"]
            .as_str()
            .unwrap()
            .contains("hicache_io_backend")
    );
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], DOCS);
    assert_eq!(loc["region"]["startLine"], 31);
    assert_eq!(loc["region"]["startColumn"], 3);
    let rel = &r["relatedLocations"][0]["physicalLocation"];
    assert_eq!(rel["artifactLocation"]["uri"], RECIPE);
    assert_eq!(rel["region"]["startLine"], 23);
    // Equivalences are notes.
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "RD004" && r["level"] == "note")
    );
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn input_errors_are_notifications_in_sarif_and_errors_in_github() {
    let (code, out, err) = run(&["check", "--config", BROKEN, "--format", "sarif"]);
    assert_eq!(code, 2, "{err}");
    common::sarif::assert_valid(&out);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let n = &inv["toolExecutionNotifications"][0];
    assert_eq!(n["level"], "error");
    assert!(
        n["message"]["text"]
            .as_str()
            .unwrap()
            .contains("unreadable recipe")
    );
    let loc = &n["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "fixtures/bad/unterminated-quote.md"
    );
    assert_eq!(loc["region"]["startLine"], 4);

    let (code, out, _) = run(&["check", "--config", BROKEN, "--format", "github"]);
    assert_eq!(code, 2);
    assert!(
        out.contains("::error file=fixtures/bad/unterminated-quote.md,line=4,col=27,title=recipe-drift%3A input error::"),
        "{out}"
    );
    assert!(out.contains("1 could not be compared"), "{out}");
}

#[test]
fn github_annotations_sit_on_the_docs_line_else_the_recipe_line() {
    let (code, out, _) = run(&[
        "compare",
        DOCS,
        RECIPE,
        "--hardware",
        "mi355x",
        "--format",
        "github",
    ]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    let io = lines
        .iter()
        .find(|l| l.contains("hicache_io_backend"))
        .unwrap();
    assert!(
        io.starts_with(&format!(
            "::error file={DOCS},line=31,col=3,title=recipe-drift%3A [RD001 contradicts] hicache_io_backend (MAJOR)::"
        )),
        "{io}"
    );
    // Multi-line messages are one command: newlines are escaped.
    assert!(
        io.contains("%0Arecipe: kernel from `--hicache-io-backend kernel` at"),
        "{io}"
    );
    // The docs side leaves draft tokens to a rule: the recipe line carries it.
    let draft = lines
        .iter()
        .find(|l| l.contains("speculative_num_draft_tokens"))
        .unwrap();
    assert!(
        draft.starts_with(&format!("::notice file={RECIPE},line=19,col=5,")),
        "{draft}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .contains("1 link checked, 1 with MAJOR drift")
    );
}

fn run_with_summary(summary: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GITHUB_STEP_SUMMARY", summary)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn github_step_summary_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "# an earlier step\n").unwrap();
    let args = ["check", "--config", DEMO, "--format", "github"];
    let (code, out, err) = run_with_summary(&summary, &args);
    assert_eq!(code, 1, "{err}");
    // The annotations still go to standard output, not to the summary.
    assert!(out.starts_with("::error "), "{out}");
    let once = std::fs::read_to_string(&summary).unwrap();
    assert!(
        once.starts_with("# an earlier step\n\n## recipe-drift: MAJOR drift in 3 of 5 links"),
        "{once}"
    );
    assert!(
        once.contains(
            "| `hicache_io_backend` | **MAJOR** | RD001 contradicts | `direct` | `kernel` |"
        ),
        "{once}"
    );
    assert!(!once.contains("::error"), "{once}");
    let (code, _, _) = run_with_summary(&summary, &args);
    assert_eq!(code, 1);
    let twice = std::fs::read_to_string(&summary).unwrap();
    assert!(twice.starts_with(&once), "appended, not overwritten");
    assert_eq!(twice.matches("## recipe-drift:").count(), 2);
    // Other formats leave the summary alone.
    run_with_summary(&summary, &["check", "--config", DEMO, "--format", "json"]);
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), twice);
}

#[test]
fn unwritable_step_summary_exits_2_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    // A directory cannot be appended to.
    let (code, _, err) = run_with_summary(
        dir.path(),
        &["check", "--config", DEMO, "--format", "github"],
    );
    assert_eq!(code, 2);
    assert!(err.contains(&dir.path().display().to_string()), "{err}");
    assert!(err.contains("GITHUB_STEP_SUMMARY"), "{err}");
}

#[test]
fn markdown_has_the_table_and_the_diff_of_a_drifting_link() {
    let (code, out, _) = run(&[
        "compare",
        DOCS,
        RECIPE,
        "--hardware",
        "mi355x",
        "--format",
        "markdown",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("## recipe-drift: MAJOR drift in 1 of 1 link\n"),
        "{out}"
    );
    assert!(out.contains("| key | class | kind | docs | recipe | where |\n| --- | --- | --- | --- | --- | --- |\n"), "{out}");
    assert!(
        out.contains(&format!(
            "| `hicache_mem_layout` | **MAJOR** | RD001 contradicts | `page_first_direct` | `page_first` | docs `{DOCS}:32:3`<br>recipe `{RECIPE}:24:5` |"
        )),
        "{out}"
    );
    assert!(
        out.contains("| `tp_size` | MAJOR | RD004 equivalent | `2` | `2` |"),
        "{out}"
    );
    let diff = out.split("```diff\n").nth(1).expect("a diff block");
    let diff = diff.split("```").next().unwrap();
    assert!(
        diff.starts_with("--- docs (normalized)\n+++ recipe (normalized)\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n-  --hicache-io-backend direct\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n+  --hicache-io-backend kernel\n"),
        "{diff}"
    );
}

#[test]
fn markdown_says_when_commands_agree() {
    let (code, out, _) = run(&[
        "compare",
        "fixtures/demo/hicache-direct-page-first.sh",
        "fixtures/demo/hicache-direct-page-first-direct.sh",
        "--hardware",
        "mi355x",
        "--engine-version",
        "0.5.19",
        "--format",
        "markdown",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("## recipe-drift: no MAJOR drift in 1 link\n"),
        "{out}"
    );
    assert!(
        out.contains("The normalized commands are identical."),
        "{out}"
    );
    assert!(!out.contains("```diff"), "{out}");
}

#[test]
fn warnings_map_to_warning_in_sarif_and_github() {
    // The vLLM links: a no-effect env var on the recipe side is a warning.
    let cfg = "fixtures/demo/inferencex-link.yaml";
    let (code, out, _) = run(&["check", "--config", cfg, "--format", "sarif"]);
    assert_eq!(code, 1);
    common::sarif::assert_valid(&out);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["properties"]["key"] == "env:VLLM_USE_FLASHINFER_MOE_FP4")
        .expect("a no-effect result");
    assert_eq!(r["ruleId"], "RD005");
    assert_eq!(r["level"], "warning");
    let (_, out, _) = run(&["check", "--config", cfg, "--format", "github"]);
    let line = out
        .lines()
        .find(|l| l.contains("env%3AVLLM_USE_FLASHINFER_MOE_FP4"))
        .expect("a no-effect annotation");
    // The docs side does not set it: the annotation sits on the recipe's export.
    assert!(
        line.starts_with("::warning file=fixtures/inferencex/benchmarks/single_node/fixed_seq_len/orcav5_fp8_b200_vllm_mtp.sh,line=22,col=8,"),
        "{line}"
    );
}

#[test]
fn a_command_that_would_not_start_is_an_error_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("no-radix.sh");
    std::fs::write(
        &f,
        "sglang serve --model-path m/x --enable-hierarchical-cache --disable-radix-cache\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let args = |format| {
        [
            "compare",
            f,
            f,
            "--engine-version",
            "0.5.19",
            "--format",
            format,
        ]
    };
    let (code, out, _) = run(&args("sarif"));
    assert_eq!(code, 1);
    common::sarif::assert_valid(&out);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "RD006" && r["level"] == "error"),
        "{out}"
    );
    let (code, out, _) = run(&args("github"));
    assert_eq!(code, 1);
    // The file is outside the run's root (the current folder): its label is
    // `../` from there or absolute, by where the checkout and the temporary
    // folder are (docs/src/output.md, "File names").
    assert!(
        out.lines().any(|l| l.starts_with("::error file=")
            && l.contains(
                "no-radix.sh,line=1,col=1,title=recipe-drift%3A [RD006 startup-error] the docs command would not start::"
            )),
        "{out}"
    );
    let (code, out, _) = run(&args("markdown"));
    assert_eq!(code, 1);
    assert!(
        out.contains("**the docs command would not start** (`RD006 startup-error`)"),
        "{out}"
    );
}

/// A `\` continuation inside a `#` comment: the docs launch is read as bash
/// runs it (without the options after the comment), and the defect is an
/// error of its own in every format, placed at the comment, with the line
/// bash runs on its own as a related place.
#[test]
fn a_comment_that_ends_the_command_is_an_error_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(
        &page,
        "# Serve\n\n```bash\nsglang serve --model-path m/x \\\n  --enable-symm-mem  # optional \\\n  --tp 8\n```\n",
    )
    .unwrap();
    let script = dir.path().join("run.sh");
    std::fs::write(
        &script,
        "#!/bin/bash\nsglang serve --model-path m/x --enable-symm-mem --tp 8\n",
    )
    .unwrap();
    let (page, script) = (page.to_str().unwrap(), script.to_str().unwrap());
    let args = |format| {
        [
            "compare",
            page,
            script,
            "--no-config",
            "--no-checkpoint-facts",
            "--engine-version",
            "0.5.19",
            "--format",
            format,
        ]
    };
    let (code, out, err) = run(&args("json"));
    assert_eq!(code, 1, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let link = &doc["links"][0];
    assert_eq!(link["status"], "drift");
    let defects = link["docs"]["defects"].as_array().unwrap();
    assert_eq!(defects.len(), 1, "{out}");
    assert_eq!(defects[0]["kind"], "broken-continuation");
    let at = &defects[0]["span"];
    assert_eq!(
        (at["line"].as_u64(), at["col"].as_u64()),
        (Some(5), Some(22))
    );
    assert_eq!(defects[0]["related"][0]["line"], 6);
    assert!(link["recipe"].get("defects").is_none(), "{out}");
    // The docs launch stops at the comment: `--tp 8` is not the reader's.
    assert!(
        link["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["key"] == "tp_size" && f["kind"] == "missing"),
        "{out}"
    );
    let (code, out, _) = run(&args("sarif"));
    assert_eq!(code, 1);
    common::sarif::assert_valid(&out);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = doc["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let r = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "RD015")
        .unwrap_or_else(|| panic!("no RD015 result: {out}"));
    assert_eq!(r["level"], "error");
    let i = r["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[i]["id"], "RD015");
    let region = |l: &serde_json::Value| l["physicalLocation"]["region"].clone();
    assert_eq!(region(&r["locations"][0])["startLine"], 5);
    assert_eq!(region(&r["relatedLocations"][0])["startLine"], 6);
    let (code, out, _) = run(&args("github"));
    assert_eq!(code, 1);
    assert!(
        out.contains("title=recipe-drift%3A [RD015 broken-continuation] the docs command does not run as written::"),
        "{out}"
    );
    let (code, out, _) = run(&args("human"));
    assert_eq!(code, 1);
    assert!(out.contains("error[RD015 broken-continuation]: the docs command does not run as written: the `\\` at the end of the `#` comment does not continue the command"), "{out}");
    assert!(out.contains("runs `--tp 8`"), "{out}");
    let (code, out, _) = run(&args("markdown"));
    assert_eq!(code, 1);
    assert!(
        out.contains("**the docs command does not run as written** (`RD015 broken-continuation`)"),
        "{out}"
    );
}

/// Every format of `check` from `dir` with `args`: (format, exit code, stdout).
fn every_format(dir: &std::path::Path, args: &[&str]) -> Vec<(String, i32, String)> {
    ["human", "concise", "json", "sarif", "github", "markdown"]
        .iter()
        .map(|format| {
            let out = Command::cargo_bin("recipe-drift")
                .unwrap()
                .current_dir(dir)
                .env_remove("GITHUB_STEP_SUMMARY")
                .arg("check")
                .args(args)
                .args(["--format", format])
                .output()
                .unwrap();
            (
                format.to_string(),
                out.status.code().unwrap_or(-1),
                String::from_utf8(out.stdout).unwrap(),
            )
        })
        .collect()
}

/// A file's label is its path from the project root (the config's
/// repository), the same bytes in every format whether the run starts at the
/// root or in a subfolder, with `--config` or a discovered config.
#[test]
fn file_labels_are_the_same_bytes_from_the_root_and_from_a_subfolder() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (file, text) in [
        (
            "docs/serve.md",
            "```bash\nsglang serve --model-path org/m --tp 2\n```\n",
        ),
        ("recipes/run.sh", "sglang serve --model-path org/m --tp 4\n"),
        (
            ".recipe-drift.yaml",
            "links:\n  - name: serve\n    engine-version: \"0.5.19\"\n    hardware: b200\n    \
             docs: {file: docs/serve.md}\n    recipe: {file: recipes/run.sh}\n",
        ),
        // A config in a subfolder naming files of the repository.
        (
            "conf/links.yaml",
            "links:\n  - name: serve\n    engine-version: \"0.5.19\"\n    hardware: b200\n    \
             docs: {file: ../docs/serve.md}\n    recipe: {file: ../recipes/run.sh}\n",
        ),
    ] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::write(root.join(file), text).unwrap();
    }
    let sub = root.join("docs");
    let at_root = every_format(root, &["--config", ".recipe-drift.yaml"]);
    // Not vacuous: the finding is placed by the path from the root.
    let concise = &at_root[1].2;
    assert!(
        concise.contains("docs/serve.md:2:33: error[RD001"),
        "{concise}"
    );
    assert!(!concise.contains(&*root.to_string_lossy()), "{concise}");
    assert_eq!(
        at_root,
        every_format(&sub, &["--config", "../.recipe-drift.yaml"])
    );
    assert_eq!(at_root, every_format(&sub, &[]), "a discovered config");
    // A config in `conf/`: the files are still placed from the repository.
    let nested = every_format(root, &["--config", "conf/links.yaml"]);
    assert!(
        nested[1].2.starts_with("docs/serve.md:2:33: error[RD001"),
        "{}",
        nested[1].2
    );
    assert_eq!(
        nested,
        every_format(&sub, &["--config", "../conf/links.yaml"])
    );
}
