//! InferenceX checkouts in their older layouts (master configs in
//! `.github/configs/`, scripts directly in `benchmarks/single_node/`, entries with
//! a top-level `seq-len-configs`) are read like the current one by `extract
//! --inferencex`, `check` and `discover`.

mod common;

use common::run;

const OLD: &str = "fixtures/inferencex-2026-03";

#[test]
fn extract_reads_the_older_layout() {
    let (code, out, err) = run(&[
        "extract",
        "--inferencex",
        OLD,
        "--entry",
        "qwen3.5-fp4-mi355x-sglang",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["config"]
            .as_str()
            .unwrap()
            .ends_with(".github/configs/amd-master.yaml"),
        "{v:#}"
    );
    // seq-len-configs conc 4..16 doubling: three points.
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 3, "{v:#}");
    assert!(
        points[0]["script"]
            .as_str()
            .unwrap()
            .ends_with("benchmarks/single_node/qwen3.5_fp4_mi355x.sh")
    );
    assert_eq!(points[0]["env"]["MAX_MODEL_LEN"], "2304");
    let argv: Vec<&str> = points[0]["launches"][0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert!(argv.windows(2).any(|w| w == ["--tp", "8"]), "{argv:?}");

    // The agentic scenario of the same layout.
    let (code, out, err) = run(&[
        "extract",
        "--inferencex",
        OLD,
        "--entry",
        "qwen3.5-fp4-mi355x-sglang-agentic",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("benchmarks/single_node/agentic/qwen3.5_fp4_mi355x.sh"),
        "{out}"
    );
}

#[test]
fn check_and_discover_read_the_older_layout() {
    let (code, out, err) = run(&[
        "check",
        "--config",
        "fixtures/demo/inferencex-2026-03-link.yaml",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("[3 points: conc=4,8,16"), "{out}");
    assert!(out.contains("1 link checked, 0 with MAJOR drift"), "{out}");

    let (code, out, err) = run(&["discover", OLD, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let proposals = v["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 1, "{v:#}");
    assert_eq!(proposals[0]["entry"], "qwen3.5-fp4-mi355x-sglang");
}

#[test]
fn a_checkout_without_master_configs_names_both_layouts() {
    let (code, _, err) = run(&[
        "extract",
        "--inferencex",
        "fixtures/cookbook",
        "--entry",
        "x",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("fixtures/cookbook/configs/*-master.yaml"),
        "{err}"
    );
    assert!(
        err.contains("fixtures/cookbook/.github/configs/*-master.yaml"),
        "{err}"
    );
}
