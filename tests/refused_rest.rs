//! One refused word does not hide the rest of a command (issue 26): the
//! refusal is an RD006 error at its word, the option it belongs to is set
//! aside (the keys it would set are unknown, never a default), and every
//! other key is compared, as a reviewer reads on.

mod common;

use common::run;
use serde_json::Value;

fn compare(docs: &str, recipe: &str, version: &str) -> Value {
    let (code, out, err) = run(&[
        "compare",
        &format!("fixtures/refused-rest/{docs}"),
        &format!("fixtures/refused-rest/{recipe}"),
        "--engine-version",
        version,
        "--offline",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "stdout: {out}\nstderr: {err}");
    serde_json::from_str(&out).unwrap()
}

/// (kind, key, severity) of a link's findings, and its docs startup errors.
fn findings(doc: &Value) -> (Vec<(String, String, String)>, Vec<String>) {
    let link = &doc["links"][0];
    let keyed = link["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| {
            Some((
                f["kind"].as_str()?.to_string(),
                f["key"].as_str()?.to_string(),
                f["severity"].as_str()?.to_string(),
            ))
        })
        .collect();
    let refused = link["docs"]["startup_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect();
    (keyed, refused)
}

#[test]
fn a_refused_choice_is_reported_and_the_rest_compared() {
    let doc = compare("docs-vllm.md", "recipe-vllm.sh", "0.34.0");
    let (keyed, refused) = findings(&doc);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("--moe-backend: invalid choice: 'fastest'"));
    let has = |kind: &str, key: &str| keyed.iter().any(|(k, y, _)| k == kind && y == key);
    // The drift the refusal used to hide.
    assert!(has("contradicts", "tp_size"), "{keyed:?}");
    // The refused option's key is unknown on the docs side, not `auto`.
    assert!(has("unknown", "moe_backend"), "{keyed:?}");
    // kv_cache_dtype is written alike: no finding.
    assert!(
        !keyed.iter().any(|(_, y, _)| y == "kv_cache_dtype"),
        "{keyed:?}"
    );
}

#[test]
fn an_ambiguous_prefix_and_a_removed_option_are_set_aside_with_their_values() {
    let doc = compare("docs-sglang.md", "recipe-sglang.sh", "0.5.23");
    let (keyed, refused) = findings(&doc);
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(
        refused[0].contains("ambiguous option: --cuda-graph-max-bs"),
        "{refused:?}"
    );
    assert!(
        refused[1].contains("--nsa-prefill-backend flashmla_sparse"),
        "{refused:?}"
    );
    let has = |kind: &str, key: &str| keyed.iter().any(|(k, y, _)| k == kind && y == key);
    assert!(has("contradicts", "tp_size"), "{keyed:?}");
    // What the ambiguous prefix could set is unknown, not the release's
    // default against the recipe's 128.
    assert!(has("unknown", "cuda_graph_max_bs_decode"), "{keyed:?}");
    assert!(
        !keyed
            .iter()
            .any(|(k, y, _)| y == "cuda_graph_max_bs_decode" && k != "unknown"),
        "{keyed:?}"
    );
    // The removed option's value word is not read as anything else.
    assert!(
        !keyed.iter().any(|(_, y, _)| y == "mem_fraction_static"),
        "{keyed:?}"
    );
    let normalized = doc["links"][0]["docs"]["normalized"].to_string();
    assert!(!normalized.contains("flashmla_sparse\""), "{normalized}");
}

#[test]
fn the_human_report_shows_the_refusal_and_the_diff_of_the_rest() {
    let (code, out, err) = run(&[
        "compare",
        "fixtures/refused-rest/docs-vllm.md",
        "fixtures/refused-rest/recipe-vllm.sh",
        "--engine-version",
        "0.34.0",
        "--offline",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("error[RD006 startup-error]"), "{out}");
    assert!(
        out.contains("error[RD001 contradicts]: tp_size differs"),
        "{out}"
    );
    assert!(out.contains("--- docs (normalized)"), "{out}");
    assert!(!out.contains("nothing was compared"), "{out}");
}
