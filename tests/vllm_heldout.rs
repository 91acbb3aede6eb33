//! Held-out commands judged by the real vLLM 0.34.0 (`tests/data/vllm_heldout_0.34.0.json`).
//!
//! Each case is a realistic `vllm serve` command built around what 0.34 changed. Its
//! `real` object was recorded from the release itself by `scripts/vllm_heldout.py`
//! (the real parser's verdict and namespace, and the checks the real post-parse
//! code makes without a GPU or a checkpoint: seed range, `SpeculativeConfig`
//! keys and methods, the spec-flag conflicts); `starts`, `startup_error` and
//! `values` were judged by hand from the release's source (each with `why`).
//! recipe-drift must agree on every case: refused by the parser (with the real
//! message) or not, starting or not, and the values (MAJOR keys and the values
//! 0.34 decides differently), and each plain option's value must be the real
//! namespace's. The test reads only the recorded file; re-judging it with the
//! wheel is the second test, which runs when `RECIPE_DRIFT_VLLM_ROOT` names a
//! release folder of `scripts/vllm_release.py` (and prints SKIPPED otherwise).

use std::collections::BTreeMap;
use std::path::Path;

use recipe_drift::engine::{ResolveError, resolve_outcome};
use recipe_drift::launch::{Engine, Launch, Platform};
use recipe_drift::resolved::{ResolveOptions, Val};
use serde_json::Value;

const DATA: &str = "tests/data/vllm_heldout_0.34.0.json";

/// Real namespace dests whose value recipe-drift keeps as written, by canonical key
/// (a null or `auto` there is decided later, so it is not compared).
const PLAIN: &[(&str, &str)] = &[
    ("tensor_parallel_size", "tp_size"),
    ("data_parallel_size", "dp_size"),
    ("pipeline_parallel_size", "pp_size"),
    ("decode_context_parallel_size", "dcp_size"),
    ("enable_expert_parallel", "enable_expert_parallel"),
    ("block_size", "page_size"),
    ("max_model_len", "context_length"),
    ("seed", "random_seed"),
    ("numa_bind", "numa_bind"),
    ("gpu_memory_utilization", "gpu_memory_utilization"),
    ("enable_extensible_kv_cache", "enable_extensible_kv_cache"),
    (
        "checkpoint_prepare_on_startup",
        "checkpoint_prepare_on_startup",
    ),
    ("enable_sleep_mode", "enable_sleep_mode"),
    ("quantization", "quantization"),
    ("kv_cache_dtype", "kv_cache_dtype"),
    ("enforce_eager", "enforce_eager"),
];

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn cases() -> (String, Vec<Value>) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA))
        .expect("held-out data");
    let v: Value = serde_json::from_str(&text).expect("held-out JSON");
    (
        v["version"].as_str().unwrap().to_string(),
        v["cases"].as_array().unwrap().clone(),
    )
}

/// What differs between recipe-drift and the recorded verdict of one case.
fn judge(version: &str, case: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    let argv: Vec<String> = case["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    let env: Vec<(String, String)> = case["env"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let opts = ResolveOptions {
        engine_version: Some(version.to_string()),
        platform: case["platform"].as_str().and_then(Platform::parse),
        ..ResolveOptions::default()
    };
    let engine = Engine::parse("vllm").unwrap();
    let real = &case["real"];
    let starts = case["starts"].as_bool().unwrap();
    // The recorded real checks and the hand verdict must not contradict each other.
    if (real["parser"]["ok"] == false || real["post_parse"]["error"].is_string()) && starts {
        bad.push("the real release refuses it, the hand verdict says it starts".into());
    }
    match resolve_outcome(&Launch::inline(engine, &argv, &env), &opts) {
        Err(ResolveError::Refused(r)) => {
            if real["parser"]["ok"] != false {
                bad.push(format!(
                    "refused by recipe-drift's parser, the real parser accepts it: {}",
                    r.message
                ));
            } else if !r
                .message
                .contains(real["parser"]["error"].as_str().unwrap())
            {
                bad.push(format!(
                    "parser messages differ: recipe-drift {:?}, vLLM {:?}",
                    r.message, real["parser"]["error"]
                ));
            }
        }
        Err(ResolveError::Failed(e)) => bad.push(format!("does not resolve: {e:?}")),
        Ok(r) => {
            if real["parser"]["ok"] == false {
                bad.push(format!(
                    "accepted, the real parser refuses it: {}",
                    real["parser"]["error"]
                ));
                return bad;
            }
            let errors: Vec<&str> = r
                .startup_errors
                .iter()
                .map(|e| e.message.as_str())
                .collect();
            if errors.is_empty() != starts {
                bad.push(format!(
                    "starts: expected {starts}, startup errors {errors:?}"
                ));
            }
            if let Some(want) = case["startup_error"].as_str()
                && !errors.iter().any(|m| m.contains(want))
            {
                bad.push(format!("no startup error with {want:?}: {errors:?}"));
            }
            for (key, want) in case["values"].as_object().unwrap() {
                let got = r.values.get(key).map(|e| &e.val);
                let ok = match (got, want) {
                    (Some(Val::Unknown { .. }), Value::Object(w)) if w.contains_key("unknown") => {
                        true
                    }
                    (
                        Some(Val::Unknown {
                            one_of: Some(g), ..
                        }),
                        Value::Object(w),
                    ) if w.contains_key("one_of") => {
                        let w = w["one_of"].as_array().unwrap();
                        g.len() == w.len() && g.iter().all(|x| w.iter().any(|y| same(x, y)))
                    }
                    (Some(Val::Known { value }), w) if !w.is_object() => same(value, w),
                    _ => false,
                };
                if !ok {
                    bad.push(format!("{key}: expected {want}, got {got:?}"));
                }
            }
            if starts {
                let ns = real["namespace"].as_object().unwrap();
                for (dest, key) in PLAIN {
                    let Some(v) = ns.get(*dest) else { continue };
                    if v.is_null() || v == "auto" {
                        continue;
                    }
                    match r.values.get(*key).map(|e| &e.val) {
                        Some(Val::Known { value }) if same(value, v) => {}
                        other => bad.push(format!(
                            "{key}: the real namespace holds {dest}={v}, recipe-drift {other:?}"
                        )),
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn held_out_commands_agree_with_the_real_release() {
    let (version, cases) = cases();
    let mut problems = BTreeMap::new();
    for case in &cases {
        let bad = judge(&version, case);
        if !bad.is_empty() {
            problems.insert(case["id"].as_str().unwrap().to_string(), bad);
        }
    }
    let starting = cases.iter().filter(|c| c["starts"] == true).count();
    println!(
        "held-out: {} of {} commands agree with vLLM {version} ({starting} start, {} refused)",
        cases.len() - problems.len(),
        cases.len(),
        cases.len() - starting
    );
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(cases.len() >= 50, "the held-out set shrank");
}

/// Re-judges the recorded `real` objects with the release itself (python and the
/// unpacked wheel): only when `RECIPE_DRIFT_VLLM_ROOT` is set (a release folder of
/// `scripts/vllm_release.py`, with the Python packages of `scripts/vllm_schema.py`
/// in `RECIPE_DRIFT_VLLM_PYTHON`, default `python3`); otherwise it says SKIPPED.
#[test]
fn held_out_verdicts_match_the_real_release_when_it_is_at_hand() {
    let Some(root) = std::env::var_os("RECIPE_DRIFT_VLLM_ROOT") else {
        let msg = "SKIPPED: held-out re-judging needs RECIPE_DRIFT_VLLM_ROOT (a release folder of scripts/vllm_release.py holding 0.34.0) and the packages of scripts/vllm_schema.py";
        println!("{msg}");
        eprintln!("{msg}");
        return;
    };
    let python = std::env::var("RECIPE_DRIFT_VLLM_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(&python)
        .arg(dir.join("scripts/vllm_heldout.py"))
        .arg("--check")
        .arg("--root")
        .arg(&root)
        .arg(dir.join(DATA))
        .output()
        .unwrap_or_else(|e| panic!("{python}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
