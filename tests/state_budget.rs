//! A generator with more reachable states than the state budget
//! (`--max-states`): `check` and `lint-docs` read its first states (the same
//! on every run), pair, compare or check them like any other, and report the
//! cut as a finding of its own (`state-budget`), never as an input error.

mod common;

use common::run;
use serde_json::Value;

/// Our docs root: one page whose generator has sixteen states, each the
/// MI355X MXFP4 HiCache server that drifts from the seed benchmark.
const DOCS: &str = "fixtures/budget";
const PAGE: &str = "fixtures/budget/cookbook/many-states.mdx";
/// The seed InferenceX checkout: its TP2 HiCache point pairs with every state.
const SEED: &str = "fixtures/pairing/inferencex";
/// An InferenceX checkout with nothing of the page's identity: no pair, so
/// the cut is the run's only warning.
const UNRELATED: &str = "fixtures/inferencex-2026-03";

/// `check --docs-root fixtures/budget --inferencex IX` with `extra`, the
/// explored graphs cached in a fresh folder (so every run explores).
fn check(ix: &str, extra: &[&str]) -> (i32, String, String) {
    let cache = tempfile::tempdir().unwrap();
    let mut args = vec![
        "check",
        "--docs-root",
        DOCS,
        "--inferencex",
        ix,
        "--no-checkpoint-facts",
        "--offline",
        "--no-progress",
        "--cache-dir",
        cache.path().to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn json(out: &str, err: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

/// The run's `state-budget` findings in a JSON report.
fn cuts(doc: &Value) -> Vec<&Value> {
    doc["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["kind"] == "state-budget").collect())
        .unwrap_or_default()
}

#[test]
fn a_generator_over_the_state_budget_is_cut_and_its_first_states_are_compared() {
    let (code, out, err) = check(SEED, &["--max-states", "3", "--format", "json"]);
    // The states read drift (exit 1); the cut is no input error.
    assert_eq!(code, 1, "{err}");
    let doc = json(&out, &err);
    assert_eq!(doc["summary"]["failed"], 0, "{out}");
    let links = doc["links"].as_array().unwrap();
    // The first three states, breadth-first: the initial one, then the
    // first clicks on the log level.
    let levels: Vec<String> = links
        .iter()
        .map(|l| {
            let sel: Vec<(String, String)> =
                serde_json::from_value(l["pair"]["docs"]["selection"].clone()).unwrap();
            let get = |k: &str| sel.iter().find(|(kk, _)| kk == k).unwrap().1.clone();
            format!("{}/{}", get("logLevel"), get("port"))
        })
        .collect();
    assert_eq!(levels, ["info/30000", "debug/30000", "warning/30000"]);
    for l in links {
        assert_eq!(l["status"], "drift", "{l:#}");
        let keys: Vec<&str> = l["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .map(|f| f["key"].as_str().unwrap())
            .collect();
        assert_eq!(keys, ["hicache_io_backend", "hicache_mem_layout"]);
    }
    let cut = cuts(&doc);
    assert_eq!(cut.len(), 1, "{out}");
    let c = cut[0];
    assert_eq!(c["id"], "RD016");
    assert_eq!(c["severity"], "warning");
    assert_eq!(c["generator"], "ManyStates");
    // Placed on the generator's tag on the page.
    assert_eq!(c["file"], PAGE);
    assert_eq!(c["line"], 17);
    let says = c["message"].as_str().unwrap();
    for words in [
        "more than 3 reachable states",
        "the first 3 states",
        "the others were not read",
        "--max-states N",
    ] {
        assert!(says.contains(words), "{says}");
    }
    // The coverage list is about deployments only.
    assert!(
        doc["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["kind"] != "state-budget")
    );
}

#[test]
fn within_the_budget_every_state_is_read_and_nothing_is_cut() {
    let (code, out, err) = check(SEED, &["--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let doc = json(&out, &err);
    assert_eq!(doc["links"].as_array().unwrap().len(), 16);
    assert!(cuts(&doc).is_empty(), "{out}");
    assert!(doc.get("findings").is_none(), "{out}");
}

#[test]
fn the_cut_is_reported_in_every_format() {
    let (code, out, err) = check(UNRELATED, &["--max-states", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "warning[RD016 state-budget]: <ManyStates />: has more than 3 reachable states"
        ),
        "{out}"
    );
    assert!(out.contains("many-states.mdx:17:1"), "{out}");

    let (_, out, err) = check(UNRELATED, &["--max-states", "3", "--format", "concise"]);
    assert!(
        out.contains(
            "fixtures/budget/cookbook/many-states.mdx:17:1: warning[RD016 state-budget] <ManyStates />: has more than 3"
        ),
        "{out}\n{err}"
    );
    // The summary line counts the warning it lists.
    let summary = out.lines().last().unwrap_or_default();
    assert!(summary.contains(", 1 warning,"), "{out}");

    let (_, out, err) = check(UNRELATED, &["--max-states", "3", "--format", "github"]);
    assert!(
        out.contains("::warning file=fixtures/budget/cookbook/many-states.mdx,line=17"),
        "{out}\n{err}"
    );
    assert!(out.contains("RD016 state-budget"), "{out}");

    let (_, out, err) = check(UNRELATED, &["--max-states", "3", "--format", "markdown"]);
    assert!(out.contains("RD016"), "{out}\n{err}");
    assert!(out.contains("more than 3 reachable states"), "{out}");

    let (_, out, err) = check(UNRELATED, &["--max-states", "3", "--format", "sarif"]);
    let sarif = json(&out, &err);
    let run0 = &sarif["runs"][0];
    let results: Vec<&Value> = run0["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "RD016")
        .collect();
    assert_eq!(results.len(), 1, "{out}");
    let r = results[0];
    assert_eq!(r["level"], "warning");
    let i = r["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(run0["tool"]["driver"]["rules"][i]["name"], "state-budget");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], PAGE);
    assert_eq!(loc["region"]["startLine"], 17);
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn the_cut_counts_in_the_exit_code_as_a_warning() {
    for (extra, want) in [
        (&[][..], 0),
        (&["--fail-on", "warning"][..], 1),
        (&["--fail-on", "never"][..], 0),
        (&["--fail-on", "error"][..], 0),
    ] {
        let mut args = vec!["--max-states", "3", "--format", "concise"];
        args.extend_from_slice(extra);
        let (code, out, err) = check(UNRELATED, &args);
        assert_eq!(code, want, "{extra:?}: {out}\n{err}");
    }
    // Within the budget there is nothing to fail on.
    let (code, out, err) = check(UNRELATED, &["--fail-on", "warning"]);
    assert_eq!(code, 0, "{out}\n{err}");
}

#[test]
fn the_cut_falls_on_the_same_states_on_every_run() {
    // Each run explores afresh (its own cache folder).
    let args = ["--max-states", "5", "--format", "json"];
    let (_, a, _) = check(SEED, &args);
    let (_, b, _) = check(SEED, &args);
    assert_eq!(a, b);
    // And what the cut keeps is the start of the whole exploration.
    let all = json(&check(SEED, &["--format", "json"]).1, "");
    let cut = json(&a, "");
    let names = |d: &Value| -> Vec<String> {
        d["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&cut)[..], names(&all)[..5]);
}

#[test]
fn lint_docs_checks_the_states_before_the_cut_and_reports_it() {
    let cache = tempfile::tempdir().unwrap();
    let (code, out, err) = run(&[
        "lint-docs",
        "--docs-root",
        DOCS,
        "--max-states",
        "3",
        "--cache-dir",
        cache.path().to_str().unwrap(),
        "--format",
        "json",
        PAGE,
    ]);
    // A finding (the cut) is exit 1; no file failed.
    assert_eq!(code, 1, "{out}\n{err}");
    let doc = json(&out, &err);
    assert_eq!(doc["errors"].as_array().unwrap().len(), 0, "{out}");
    let file = &doc["files"][0];
    let found: Vec<&Value> = file["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "RD016")
        .collect();
    assert_eq!(found.len(), 1, "{out}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("were read and checked"),
        "{out}"
    );
    assert_eq!(found[0]["line"], 17);
}

/// Each budget row of findings.yaml: `check` and `lint-docs` on its page
/// with its budget make a finding of that kind saying the row's words.
#[test]
fn every_budget_row_of_the_table_is_made_by_its_fixture() {
    let mut rows = 0;
    for k in recipe_drift::finding::kinds() {
        let Some(b) = &k.budget else { continue };
        rows += 1;
        let n = b.max_states.to_string();
        let cache = tempfile::tempdir().unwrap();
        let (_, out, err) = run(&[
            "check",
            "--docs-root",
            &b.docs_root,
            "--inferencex",
            SEED,
            "--no-checkpoint-facts",
            "--offline",
            "--cache-dir",
            cache.path().to_str().unwrap(),
            "--max-states",
            &n,
            "--format",
            "json",
            &b.fixture,
        ]);
        let doc = json(&out, &err);
        let made = |f: &&Value| {
            f["id"] == k.id.as_str()
                && f["kind"] == k.name.as_str()
                && f["message"].as_str().unwrap().contains(&b.says)
        };
        assert!(
            doc["findings"].as_array().unwrap().iter().any(|f| made(&f)),
            "{}: {out}",
            k.id
        );
        let (_, out, err) = run(&[
            "lint-docs",
            "--docs-root",
            &b.docs_root,
            "--cache-dir",
            cache.path().to_str().unwrap(),
            "--max-states",
            &n,
            "--format",
            "json",
            &b.fixture,
        ]);
        let doc = json(&out, &err);
        assert!(
            doc["files"][0]["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| made(&f)),
            "{}: {out}",
            k.id
        );
    }
    assert!(rows > 0);
}

#[test]
fn the_budget_messages_name_flags_the_command_has() {
    // `extract --all-selections` still fails over the budget, naming its
    // own flags.
    let (code, _, err) = run(&[
        "extract",
        "--docs-root",
        DOCS,
        "--all-selections",
        "--max-states",
        "3",
        PAGE,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the state budget of --all-selections; raise it with --max-states N"),
        "{err}"
    );
    // `explain` knows the kind and shows how to make it.
    let (code, out, err) = run(&["explain", "RD016"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("RD016 state-budget: ") && out.contains("  severity: warning\n"),
        "{out}"
    );
    assert!(
        out.contains("--max-states 3 fixtures/budget/cookbook/many-states.mdx"),
        "{out}"
    );
    // `check --help` has the flag its messages name.
    let (_, help, _) = run(&["check", "--help"]);
    assert!(help.contains("--max-states <N>"), "{help}");
}

/// The policy sets the cut's severity in `check`: `state-budget: error`
/// fails the run (exit 1), where the default warning exits 0.
#[test]
fn the_policy_sets_the_cuts_severity() {
    let (code, out, err) = check(
        UNRELATED,
        &[
            "--max-states",
            "3",
            "--config",
            "fixtures/budget/state-budget-error.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let doc = json(&out, &err);
    let c = cuts(&doc);
    assert_eq!(c.len(), 1, "{out}");
    assert_eq!(c[0]["severity"], "error");
    assert_eq!(doc["summary"]["errors"], 1, "{:#}", doc["summary"]);
}
