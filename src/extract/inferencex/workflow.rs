//! The environment InferenceX's multi-node workflow
//! (`.github/workflows/benchmark-multinode-tmpl.yml`, HEAD 843c625) gives a
//! point's runner script: the matrix fields and the entry's fields it
//! exports, before the point's `additional-settings` (which the caller adds
//! over them) and the runner's own variables.

use std::collections::BTreeMap;

use super::config::Entry;
use crate::files::Location;

/// A matrix field of the point (empty when the point has none).
pub(super) fn field<'a>(fields: &'a BTreeMap<String, String>, k: &str) -> &'a str {
    fields.get(k).map(String::as_str).unwrap_or("")
}

/// The workflow's variables for one point of a multi-node entry (`fields`:
/// the point's matrix fields as `config::multinode_points` reads them) and
/// the ones it sets whose value is not knowable here, with the reason.
/// `GITHUB_WORKSPACE` is the checkout (`root`).
pub(super) fn env(
    root: &Location,
    entry: &Entry,
    fields: &BTreeMap<String, String>,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let agentic = field(fields, "scenario") == "agentic";
    let mut wf: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in [
        ("MODEL", entry.model.clone()),
        ("IMAGE", entry.image.clone()),
        ("MODEL_PREFIX", entry.model_prefix.clone()),
        ("FRAMEWORK", entry.framework.clone()),
        ("PRECISION", entry.precision.clone()),
        ("RUNNER_TYPE", entry.runner.clone()),
        ("ISL", field(fields, "isl").to_string()),
        ("OSL", field(fields, "osl").to_string()),
        ("CONC_LIST", field(fields, "conc").replace(',', " ")),
        ("SPEC_DECODING", field(fields, "spec-decoding").to_string()),
        ("RANDOM_RANGE_RATIO", "0.8".into()),
        ("RUN_EVAL", "false".into()),
        ("EVAL_ONLY", "false".into()),
        (
            "SCENARIO_TYPE",
            if agentic {
                "agentic-coding"
            } else {
                "fixed-seq-len"
            }
            .into(),
        ),
        (
            "SCENARIO_SUBDIR",
            if agentic {
                "agentic/"
            } else {
                "fixed_seq_len/"
            }
            .into(),
        ),
        ("IS_AGENTIC", if agentic { "1" } else { "0" }.into()),
        ("KV_OFFLOADING", field(fields, "kv-offloading").to_string()),
        (
            "KV_OFFLOAD_BACKEND",
            field(fields, "kv-offload-backend").to_string(),
        ),
        ("IS_MULTINODE", "true".into()),
        ("GITHUB_WORKSPACE", root.display()),
    ] {
        wf.insert(k.into(), v);
    }
    for role in ["prefill", "decode"] {
        let up = role.to_uppercase();
        for (f, v) in [
            ("num-worker", "NUM_WORKERS"),
            ("tp", "TP"),
            ("ep", "EP"),
            ("dp-attn", "DP_ATTN"),
        ] {
            wf.insert(
                format!("{up}_{v}"),
                field(fields, &format!("{role}-{f}")).to_string(),
            );
        }
    }
    let mut unknown: BTreeMap<String, String> = BTreeMap::new();
    if agentic && !matches!(field(fields, "kv-offloading"), "" | "none") {
        unknown.insert(
            "TOTAL_CPU_DRAM_GB".into(),
            "set by the workflow from the runner's DRAM and the scenario's dram-utilization".into(),
        );
    }
    for (k, why) in [
        ("RUNNER_NAME", "the runner machine's name"),
        ("EXP_NAME", "the workflow's experiment name"),
        (
            "DISAGG",
            "the point's `disagg` matrix field, which is not read",
        ),
        ("RESULT_FILENAME", "named by the workflow run"),
        ("GITHUB_RUN_ID", "the workflow run's id"),
        ("GITHUB_RUN_ATTEMPT", "the workflow run's attempt"),
        ("HOME", "the runner user's home folder"),
    ] {
        unknown.insert(k.into(), why.into());
    }
    (wf, unknown)
}
