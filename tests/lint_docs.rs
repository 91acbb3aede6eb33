//! `recipe-drift lint-docs`: each rule on a fixture generator of ours with one
//! defect, the clean generator, every output format, exit codes and bad input.

mod common;

use common::run;
use serde_json::Value;

const SNIPPETS: &str = "fixtures/lint/src/snippets";

fn fixture(name: &str) -> String {
    format!("{SNIPPETS}/{name}.jsx")
}

/// `lint-docs --format json` on some files: exit code and the document.
fn lint_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["lint-docs", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    (code, serde_json::from_str(&out).unwrap())
}

/// Every finding of a JSON document, across files.
fn findings(doc: &Value) -> Vec<Value> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["findings"].as_array().unwrap().clone())
        .collect()
}

fn not_checked(doc: &Value) -> Vec<String> {
    doc["files"][0]["not_checked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_clean_generator_has_no_findings_and_exits_0() {
    let (code, out, err) = run(&["lint-docs", &fixture("clean")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.ends_with("no findings in 1 file (1 generator, 6 states checked)\n"),
        "{out}"
    );
}

/// Each `lint-docs` row of findings.yaml: its fixture makes a finding of that
/// kind saying the row's words (exit 1); a rule that waits for explorer data
/// is listed as not checked instead, never reported clean.
#[test]
fn every_lint_row_of_the_table_is_made_by_its_fixture() {
    for k in recipe_drift::finding::kinds() {
        let Some(ex) = &k.lint else { continue };
        if let Some(why) = &ex.pending {
            let (_, doc) = lint_json(&[&fixture("clean")]);
            assert!(not_checked(&doc).contains(&k.name), "{}: not listed", k.id);
            assert!(
                doc["files"][0]["not_checked"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|n| n["why"] == why.as_str() && n["id"] == k.id.as_str()),
                "{}",
                k.id
            );
            continue;
        }
        let (code, doc) = lint_json(&[&ex.fixture]);
        assert_eq!(code, 1, "{}", k.id);
        let found = findings(&doc);
        assert!(
            found.iter().any(|f| f["id"] == k.id.as_str()
                && f["kind"] == k.name.as_str()
                && f["message"].as_str().unwrap().contains(&ex.says)),
            "{}: no {} finding saying {:?} in {found:#?}",
            k.id,
            k.name,
            ex.says
        );
    }
}

#[test]
fn placeholders_and_comments_are_no_command_and_name_their_states() {
    let (code, doc) = lint_json(&[&fixture("no-command")]);
    assert_eq!(code, 1);
    let found = findings(&doc);
    let msgs: Vec<(&str, &str, Vec<&str>)> = found
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap(),
                f["message"].as_str().unwrap(),
                f["states"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap())
                    .collect(),
            )
        })
        .collect();
    // `--tp undefined` is the placeholder's finding only (not also the parser's
    // refusal it causes), in the one state that prints it.
    assert_eq!(
        msgs,
        vec![
            (
                "RD008",
                "prints `undefined` in its command (a JavaScript value that was never set)",
                vec!["model=large, hardware=h100, quantization=fp8"]
            ),
            (
                "RD008",
                "prints no serve command: `# Example-70B is not supported on MI300X yet.`",
                vec![
                    "model=large, hardware=mi300x, quantization=bf16",
                    "model=large, hardware=mi300x, quantization=fp8"
                ]
            ),
        ]
    );
}

#[test]
fn refused_commands_are_startup_errors_with_the_release_and_rule() {
    let (code, doc) = lint_json(&[&fixture("startup-error")]);
    assert_eq!(code, 1);
    let found = findings(&doc);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found
            .iter()
            .all(|f| f["id"] == "RD006" && f["severity"] == "error")
    );
    let text: Vec<&str> = found
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        text.iter()
            .any(|m| m.starts_with("sglang 0.5.23 would not start")
                && m.contains("mutually exclusive")
                && m.contains("(rule hicache-requires-radix-cache)"))
    );
    assert!(text.iter().any(
        |m| m.contains("unrecognized arguments: --enable-turbo-cache")
            && m.contains("the newest bundled one was used")
    ));
    // The refused option is placed where the generator writes it; the rule's
    // refusal (no word of its own) on the generator.
    let place = |f: &Value| (f["line"].as_u64().unwrap(), f["col"].as_u64().unwrap());
    let turbo = found
        .iter()
        .find(|f| f["message"].as_str().unwrap().contains("turbo"))
        .unwrap();
    assert_eq!(place(turbo), (36, 9));
    // Every state with cache=hicache, and only those.
    let hicache = found
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("mutually exclusive")
        })
        .unwrap();
    let states = hicache["states"].as_array().unwrap();
    assert_eq!(states.len(), 4);
    assert!(
        states
            .iter()
            .all(|s| s.as_str().unwrap().ends_with("cache=hicache"))
    );
    // An older release is asked for with --engine-version.
    let (_, doc) = lint_json(&["--engine-version", "0.5.19", &fixture("startup-error")]);
    assert!(findings(&doc).iter().any(|f| {
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("sglang 0.5.19 would not start")
    }),);
}

#[test]
fn a_page_names_the_release_its_generators_are_checked_against() {
    // The page's static block runs lmsysorg/sglang:v0.5.19-cu129.
    let (code, doc) = lint_json(&["fixtures/lint/cookbook/Versioned.mdx"]);
    assert_eq!(code, 1);
    let found = findings(&doc);
    assert_eq!(found.len(), 2, "{found:#?}");
    for f in &found {
        assert!(
            f["message"].as_str().unwrap().contains("sglang 0.5.19"),
            "{f}"
        );
    }
    // The command line wins over the page.
    let (_, doc) = lint_json(&[
        "--engine-version",
        "0.5.23",
        "fixtures/lint/cookbook/Versioned.mdx",
    ]);
    assert!(
        findings(&doc)
            .iter()
            .all(|f| f["message"].as_str().unwrap().contains("sglang 0.5.23"))
    );
}

#[test]
fn an_env_var_the_image_release_does_not_read_is_no_effect() {
    // The command names the vllm/vllm-openai:v0.25.0 image: that release.
    let (code, doc) = lint_json(&[&fixture("no-effect")]);
    assert_eq!(code, 1);
    let found = findings(&doc);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["id"], "RD005");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("`VLLM_USE_FLASHINFER_MOE_FP4=1` has no effect in vllm 0.25.0")
    );
    // On the line that writes it.
    assert_eq!(
        (found[0]["line"].as_u64(), found[0]["col"].as_u64()),
        (Some(63), Some(7))
    );
    // Only the H100 states set it.
    assert_eq!(
        found[0]["states"],
        serde_json::json!(["model=small, hardware=h100", "model=large, hardware=h100"])
    );
}

#[test]
fn the_human_report_shows_each_finding_at_its_line_with_its_states() {
    let (code, out, _) = run(&["lint-docs", &fixture("duplicate-flag")]);
    assert_eq!(code, 1);
    // As `check` shows its findings: the title, the line that writes it,
    // what the finding knows beside (its states).
    let expected = "\
warning[RD010 duplicate-flag]: <DuplicateFlagDeployment />: `tp_size` is given twice with different values (--tp 4, then --tp-size 8); the engine keeps the last
  --> fixtures/lint/src/snippets/duplicate-flag.jsx:22:7
   |
22 |       commandRule: (value, all) => (value === 'mi300x' && all.model === 'large' ? '--tp-size 8' : null),
   |       ^
  = in 2 states: model=large, hardware=mi300x, quantization=bf16; model=large, hardware=mi300x, quantization=fp8

1 finding in 1 file (1 generator, 6 states checked)
";
    assert_eq!(out, expected);
    // Concise: one line per finding, with its place first.
    let (code, out, _) = run(&[
        "lint-docs",
        "--format",
        "concise",
        &fixture("duplicate-flag"),
    ]);
    assert_eq!(code, 1);
    assert!(out.starts_with("fixtures/lint/src/snippets/duplicate-flag.jsx:22:7: warning[RD010 duplicate-flag] <DuplicateFlagDeployment />: `tp_size` is given twice"), "{out}");
}

#[test]
fn a_dead_option_is_placed_on_its_definition_also_from_a_page() {
    for file in [
        fixture("dead-option"),
        "fixtures/lint/cookbook/Example.mdx".into(),
    ] {
        let (code, doc) = lint_json(&[&file]);
        assert_eq!(code, 1, "{file}");
        let found = findings(&doc);
        assert_eq!(found.len(), 1, "{file}: {found:#?}");
        let f = &found[0];
        assert_eq!(f["id"], "RD011");
        assert_eq!(f["file"], "fixtures/lint/src/snippets/dead-option.jsx");
        assert_eq!((f["line"].as_u64(), f["col"].as_u64()), (Some(38), Some(5)));
        assert_eq!(
            f["message"],
            "option `reasoning` changes nothing: every value (disabled, enabled) prints the same commands"
        );
    }
}

#[test]
fn every_format_renders_the_findings_with_their_ids() {
    let file = fixture("duplicate-flag");
    let (code, sarif, _) = run(&["lint-docs", "--format", "sarif", &file]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&sarif).unwrap();
    let result = &doc["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "RD010");
    assert_eq!(result["level"], "warning");
    let rules = doc["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let i = result["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[i]["id"], "RD010");
    let loc = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "fixtures/lint/src/snippets/duplicate-flag.jsx"
    );
    assert_eq!(loc["region"]["startLine"], 22);
    // One SARIF builder with `check`: columns count characters, and each
    // rule links to its kind's page.
    assert_eq!(doc["runs"][0]["columnKind"], "unicodeCodePoints");
    assert!(
        rules[i]["helpUri"]
            .as_str()
            .unwrap()
            .ends_with("docs/src/findings/duplicate-flag.md"),
        "{}",
        rules[i]
    );

    let (code, gh, _) = run(&["lint-docs", "--format", "github", &file]);
    assert_eq!(code, 1);
    assert!(
        gh.starts_with("::warning file=fixtures/lint/src/snippets/duplicate-flag.jsx,line=22,col=7,title=recipe-drift%3A [RD010 duplicate-flag]::<DuplicateFlagDeployment />: `tp_size` is given twice"),
        "{gh}"
    );
    assert_eq!(gh.lines().count(), 1);

    let (code, md, _) = run(&["lint-docs", "--format", "markdown", &file]);
    assert_eq!(code, 1);
    assert!(
        md.contains(
            "- **Warning** (`RD010 duplicate-flag`) at `fixtures/lint/src/snippets/duplicate-flag.jsx:22:7`: \\<DuplicateFlagDeployment /\\>: "
        ),
        "{md}"
    );
    assert!(!md.contains("Not checked"), "{md}");

    let (code, clean, _) = run(&["lint-docs", "--format", "markdown", &fixture("clean")]);
    assert_eq!(code, 0);
    assert!(clean.contains("No findings."));
}

#[test]
fn several_files_are_reported_in_order_and_deterministically() {
    let args = [
        "lint-docs",
        "--format",
        "json",
        "fixtures/lint/src/snippets/no-effect.jsx",
        "fixtures/lint/src/snippets/clean.jsx",
        "fixtures/lint/src/snippets/dead-option.jsx",
    ];
    let (code, a, _) = run(&args);
    assert_eq!(code, 1);
    assert_eq!(a, run(&args).1);
    let doc: Value = serde_json::from_str(&a).unwrap();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "fixtures/lint/src/snippets/no-effect.jsx",
            "fixtures/lint/src/snippets/clean.jsx",
            "fixtures/lint/src/snippets/dead-option.jsx"
        ]
    );
}

/// Exit 2, and in the report (as `check` reports a broken link) the error
/// with its position and these words.
fn assert_not_linted(args: &[&str], at: &str, words: &[&str]) -> String {
    let mut all = vec!["lint-docs"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 2, "stdout: {out}\nstderr: {err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line in: {out}"));
    assert!(line.contains(at), "expected {at} in: {line}");
    for w in words {
        assert!(line.contains(w), "expected {w:?} in: {line}");
    }
    assert!(!err.contains("panicked"), "{err}");
    out
}

#[test]
fn broken_input_exits_2_at_its_position() {
    // A generator that throws on a click is linted (RD007), not an error;
    // one that does not parse is.
    let (code, out, _) = run(&["lint-docs", &fixture("crash")]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error[RD007 generator-crash]: <CrashDeployment />: clicking `mi300x` in the state model=small, hardware=h100 throws: TypeError: cannot read property 'small' of undefined"),
        "{out}"
    );
    assert_not_linted(
        &["fixtures/bad/jsx/syntax-error.jsx"],
        "error: fixtures/bad/jsx/syntax-error.jsx:",
        &[],
    );
    // Not a generator, and a file that is not there.
    assert_not_linted(
        &["fixtures/demo/recipe-drift.yaml"],
        "fixtures/demo/recipe-drift.yaml",
        &["lint-docs reads local generators"],
    );
    assert_not_linted(
        &["fixtures/lint/missing.jsx"],
        "fixtures/lint/missing.jsx",
        &[],
    );
}

#[test]
fn a_broken_file_does_not_stop_the_others() {
    let broken = "fixtures/bad/jsx/syntax-error.jsx";
    let out = assert_not_linted(
        &[broken, &fixture("duplicate-flag")],
        "syntax-error.jsx:7:1",
        &["JSX syntax error"],
    );
    assert!(out.contains("[RD010 duplicate-flag]"), "{out}");
    assert!(
        out.ends_with("1 finding in 1 file (1 generator, 6 states checked); 1 file not linted\n"),
        "{out}"
    );
    let (code, json, _) = run(&["lint-docs", "--format", "json", broken, &fixture("clean")]);
    assert_eq!(code, 2);
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["errors"][0]["file"], broken);
    assert_eq!(doc["errors"][0]["line"], 7);
    assert_eq!(
        doc["files"][0]["file"],
        "fixtures/lint/src/snippets/clean.jsx"
    );
    let (code, sarif, _) = run(&["lint-docs", "--format", "sarif", broken]);
    assert_eq!(code, 2);
    let doc: Value = serde_json::from_str(&sarif).unwrap();
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert_eq!(inv["toolExecutionNotifications"][0]["level"], "error");
    let (code, gh, _) = run(&["lint-docs", "--format", "github", broken]);
    assert_eq!(code, 2);
    assert!(
        gh.starts_with("::error file=fixtures/bad/jsx/syntax-error.jsx,line=7,col=1,"),
        "{gh}"
    );
}

#[test]
fn extract_options_lists_values_defaults_and_conditions() {
    let file = fixture("options");
    let (code, out, err) = run(&["extract", "--options", &file]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "\
<OptionsDeployment /> at fixtures/lint/src/snippets/options.jsx:1:14: 5 options
  servedName (default example): free text
  model (default small): small \"Example-8B\", large \"Example-70B\"
  hardware (default h100): h100 \"H100\", mi300x \"MI300X\"
  quantization (default bf16): bf16 \"BF16\", fp8 \"FP8\" (disabled)
  offload (default none) [conditional: shown after model=large]: none \"None\", hicache \"HiCache\"
"
    );
    let (code, out, _) = run(&["extract", "--options", "--format", "json", &file]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let opts = doc["generators"][0]["options"].as_array().unwrap();
    let offload = opts.iter().find(|o| o["key"] == "offload").unwrap();
    assert_eq!(offload["shown"], "after-clicks");
    assert_eq!(offload["shown_after"], "model=large");
    assert_eq!(offload["hidden_after"], Value::Null);
    let quant = opts.iter().find(|o| o["key"] == "quantization").unwrap();
    assert_eq!(quant["values"][1]["disabled"], true);
    assert_eq!(doc["generators"][0]["incomplete"], Value::Null);
    // An option shown initially that a click hides says which click.
    let (code, out, _) = run(&[
        "extract",
        "--options",
        "fixtures/cookbook/src/snippets/autoregressive/kimi-k2-deployment.jsx",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("  expertParallel (default off) [conditional: hidden after vendor=amd]: off \"Off\", ep8 \"EP 8\"\n"),
        "{out}"
    );
    // A page lists the options of the generators it renders.
    let (code, out, _) = run(&["extract", "--options", "fixtures/lint/cookbook/Example.mdx"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(
            "<DeadOptionDeployment /> at fixtures/lint/cookbook/Example.mdx:11:1: 4 options\n"
        ),
        "{out}"
    );
}

#[test]
fn extract_options_refuses_what_is_not_a_generator() {
    let (code, _, err) = run(&["extract", "--options", "fixtures/demo/recipe-drift.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("--options applies to generators"), "{err}");
    let (code, _, _) = run(&["extract", "--options", "--select", "a=b", &fixture("clean")]);
    assert_eq!(code, 2);
}

#[test]
fn explain_knows_the_finding_ids() {
    let (code, out, err) = run(&["explain", "RD011", "rd006"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "RD011 dead-option: Every value of an option yields the same command.\n  severity: warning\n"
        ),
        "{out}"
    );
    assert!(out.contains("  example (lint-docs): fixtures/lint/src/snippets/dead-option.jsx\n"));
    assert!(out.contains("RD006 startup-error: "), "{out}");
    let (code, out, _) = run(&["explain", "RD009"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("example (lint-docs): fixtures/lint/src/snippets/disabled-selected.jsx"),
        "{out}"
    );
    assert!(!out.contains("not checked yet"), "{out}");
    let (code, _, err) = run(&["explain", "RD999"]);
    assert_eq!(code, 2);
    let last = &recipe_drift::finding::kinds().last().unwrap().id;
    assert!(
        err.contains(&format!("no finding kind RD999; the ids are RD001..{last}")),
        "{err}"
    );
}

#[test]
fn github_output_appends_the_markdown_summary_to_the_job_summary() {
    let dir = std::env::temp_dir().join(format!("rd-lint-summary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let summary = dir.join("summary.md");
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["lint-docs", "--format", "github", &fixture("dead-option")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("## recipe-drift lint-docs\n"), "{text}");
    assert!(text.contains("(`RD011 dead-option`)"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn explored_states_are_cached_and_read_back_with_the_same_findings() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().to_str().unwrap();
    let file = fixture("duplicate-flag");
    let first = lint_json(&["--cache-dir", dir, &file]);
    let graphs = cache.path().join("jsx-graphs");
    let entries = std::fs::read_dir(&graphs)
        .map(|d| d.count())
        .unwrap_or_else(|e| panic!("no explored-graph cache in {}: {e}", graphs.display()));
    assert_eq!(entries, 1, "one entry for one generator");
    let second = lint_json(&["--cache-dir", dir, &file]);
    assert_eq!(first, second, "the same report from the cached states");
    assert_eq!(first.0, 1);
}
