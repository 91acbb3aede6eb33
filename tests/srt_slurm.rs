//! srt-slurm recipes rendered per role, proven against srtctl's own worker
//! commands recorded in `tests/data/srtctl_rendered.json` by
//! `scripts/srtctl_render.py` (srtctl's `build_worker_command` over
//! InferenceX's local recipes and our fixtures): role by role, recipe-drift's
//! launch equals srtctl's argv without the flags srtctl derives from the
//! job's layout (`RUNTIME_FLAGS`), and its environment equals the role's.
//!
//! The recorded InferenceX cases carry the inputs srtctl rendered (each
//! role's flag map, environment, connector, backend and frontend types,
//! model path): the test writes them as a recipe of its own and renders it.
//! Under `CI` every case runs, otherwise every 16th.

mod common;

use std::sync::Arc;

use recipe_drift::extract::srt_slurm::{self, Outcome, without_runtime_flags};
use recipe_drift::launch::{Launch, Provenance};
use recipe_drift::span::{Origin, Source};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn facts() -> Value {
    let text = std::fs::read_to_string(format!("{ROOT}/tests/data/srtctl_rendered.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A role's words as srtctl would run them (launcher, then argv).
fn words(l: &Launch) -> Vec<String> {
    l.launcher
        .iter()
        .chain(&l.argv)
        .map(|t| t.text.clone())
        .collect()
}

/// Checks every role of a rendered job against a recorded case; returns
/// how many roles matched.
fn check(what: &str, rendered: &srt_slurm::Rendered, case: &Value, facts: &Value) -> usize {
    let roles = case["roles"].as_object().unwrap();
    let ours: Vec<&srt_slurm::RoleLaunch> = rendered.roles.iter().collect();
    assert_eq!(
        ours.iter().map(|r| r.role.name()).collect::<Vec<_>>(),
        roles.keys().map(String::as_str).collect::<Vec<_>>(),
        "{what}: roles"
    );
    for r in &ours {
        let want = &roles[r.role.name()];
        let Outcome::Launch { launch } = &r.outcome else {
            panic!("{what} {}: {:?}", r.role, r.outcome);
        };
        let argv: Vec<String> = want["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            words(launch),
            without_runtime_flags(&argv),
            "{what} {}",
            r.role
        );
        let env = &facts["environments"][want["environment"].as_u64().unwrap() as usize];
        let ours: serde_json::Map<String, Value> = launch
            .env
            .iter()
            .map(|e| (e.name.clone(), Value::String(e.value.clone())))
            .collect();
        assert_eq!(&Value::Object(ours), env, "{what} {} env", r.role);
        assert!(
            launch
                .argv
                .iter()
                .all(|t| !matches!(t.provenance, Provenance::Unknown { .. })),
            "{what}"
        );
    }
    ours.len()
}

fn read(path: &str, text: String, selector: Option<&str>) -> srt_slurm::Rendered {
    let source = Arc::new(Source::new(Origin::File(path.into()), text));
    srt_slurm::read(&source, selector, path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn our_fixture_recipes_render_as_srtctl_renders_them() {
    let facts = facts();
    let mut roles = 0;
    for case in facts["fixtures"].as_array().unwrap() {
        let name = case["recipe"].as_str().unwrap();
        let path = format!("{ROOT}/fixtures/srt-slurm/{name}");
        let selector = case["selector"].as_str();
        let rendered = read(&path, std::fs::read_to_string(&path).unwrap(), selector);
        if case["backend"] == "trtllm" {
            // srtctl's TensorRT-LLM roles are not rendered: their keys are data.
            let keys: Vec<_> = rendered
                .roles
                .iter()
                .map(|r| match &r.outcome {
                    Outcome::Unsupported { keys, .. } => keys.join(","),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(
                keys,
                [
                    "tensor_parallel_size,moe_expert_parallel_size,enable_attention_dp",
                    "tensor_parallel_size,kv_cache_config"
                ]
            );
            continue;
        }
        roles += check(&format!("{name}:{selector:?}"), &rendered, case, &facts);
    }
    assert!(roles >= 12, "{roles}");
}

/// A JSON value as YAML flow text that PyYAML types the same way (a float
/// keeps a `.` and a signed exponent: YAML 1.1 reads `1e-05` as text).
fn yaml(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap();
            let s = format!("{f:?}");
            match s.split_once('e') {
                None => s,
                Some((m, e)) => {
                    let m = if m.contains('.') {
                        m.to_string()
                    } else {
                        format!("{m}.0")
                    };
                    let e = if e.starts_with('-') {
                        e.to_string()
                    } else {
                        format!("+{e}")
                    };
                    format!("{m}e{e}")
                }
            }
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(yaml).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", serde_json::to_string(k).unwrap(), yaml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A recipe of our own holding a recorded case's inputs.
fn recipe_of(case: &Value, facts: &Value) -> String {
    let backend = case["backend"].as_str().unwrap();
    let roles = case["roles"].as_object().unwrap();
    let mut maps = serde_json::Map::new();
    let mut out = format!(
        "model: {{path: {}}}\nfrontend: {{type: {}}}\nresources:\n",
        yaml(&case["model"]),
        yaml(&case["frontend"])
    );
    for (role, workers) in [
        ("prefill", "prefill_workers"),
        ("decode", "decode_workers"),
        ("aggregated", "agg_workers"),
    ] {
        if roles.contains_key(role) {
            out.push_str(&format!("  {workers}: 1\n"));
        }
    }
    out.push_str(&format!("backend:\n  type: {backend}\n"));
    for (role, r) in roles {
        maps.insert(role.clone(), r["config"].clone());
        let env = &facts["environments"][r["environment"].as_u64().unwrap() as usize];
        out.push_str(&format!("  {role}_environment: {}\n", yaml(env)));
        if let Some(c) = r.get("connector") {
            out.push_str(&format!("  connector: {}\n", yaml(c)));
        }
    }
    out.push_str(&format!(
        "  {backend}_config: {}\n",
        yaml(&Value::Object(maps))
    ));
    out
}

#[test]
fn inferencex_recipes_render_as_srtctl_renders_them() {
    let facts = facts();
    let every = if std::env::var("CI").is_ok_and(|v| v == "true") {
        1
    } else {
        16
    };
    let (mut cases, mut roles) = (0, 0);
    for case in facts["cases"].as_array().unwrap().iter().step_by(every) {
        if case.get("refused").is_some() {
            continue;
        }
        let what = format!(
            "{}:{}",
            case["recipe"].as_str().unwrap(),
            case["selector"].as_str().unwrap_or("")
        );
        let rendered = read(&what, recipe_of(case, &facts), None);
        roles += check(&what, &rendered, case, &facts);
        cases += 1;
    }
    assert!(cases >= 10 && roles >= 15, "{cases} cases, {roles} roles");
}

/// A made-up InferenceX checkout with one dynamo-sglang entry: a point whose
/// recipe is local, one whose recipe is only at the cloned ref, and one with
/// a selector into a recipe with overrides.
fn checkout(recipe: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("configs")).unwrap();
    let local = root.join("benchmarks/multi_node/srt-slurm-recipes/sglang/org");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("disagg.yaml"), recipe).unwrap();
    std::fs::copy(
        format!("{ROOT}/fixtures/srt-slurm/vllm-overrides.yaml"),
        local.join("sweep.yaml"),
    )
    .unwrap();
    let point = |conc: u32, file: &str| {
        format!(
            "      - conc-list: [{conc}]\n        prefill:\n          num-worker: 1\n          tp: 8\n          additional-settings:\n          - \"CONFIG_FILE=recipes/{file}\"\n        decode:\n          num-worker: 1\n          tp: 16\n"
        )
    };
    let config = format!(
        "org-fp8-b200-dynamo-sglang:\n  image: lmsysorg/sglang:v0.5.9-cu130\n  model: org/Model-FP8\n  model-prefix: org\n  runner: b200-multinode\n  precision: fp8\n  framework: dynamo-sglang\n  multinode: true\n  scenarios:\n    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n{}{}{}",
        point(4, "sglang/org/disagg.yaml"),
        point(8, "b200-fp8/8k1k_only_upstream.yaml"),
        point(16, "sglang/org/sweep.yaml:zip_override_sweep[1]"),
    );
    std::fs::write(root.join("configs/nvidia-master.yaml"), config).unwrap();
    dir
}

#[test]
fn extract_gives_every_role_of_a_multi_node_entry() {
    let recipe =
        std::fs::read_to_string(format!("{ROOT}/fixtures/srt-slurm/sglang-disagg.yaml")).unwrap();
    let dir = checkout(&recipe);
    let root = dir.path().to_str().unwrap();
    let (code, out, err) = common::run(&[
        "extract",
        "--inferencex",
        root,
        "--entry",
        "org-fp8-b200-dynamo-sglang",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    let roles = |p: &Value| -> Vec<String> {
        p["launches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["role"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(roles(&points[0]), ["prefill", "decode"]);
    let decode: Vec<&str> = points[0]["launches"][1]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert!(
        decode
            .windows(2)
            .any(|w| w == ["--disaggregation-mode", "decode"]),
        "{decode:?}"
    );
    assert!(!decode.contains(&"--dist-init-addr"), "{decode:?}");
    assert_eq!(
        points[0]["launches"][0]["context"]["hardware"]["value"],
        "b200"
    );
    // The second point's recipe exists only at the ref the runner clones.
    assert!(points[1]["launches"].as_array().unwrap().is_empty());
    let why = points[1]["unknown"][0].as_str().unwrap();
    assert!(
        why.contains("b200-fp8/8k1k_only_upstream.yaml")
            && why.contains("srt-slurm checkout")
            && why.contains("runners.yaml is not in this checkout"),
        "{why}"
    );
    assert_eq!(roles(&points[2]), ["prefill", "decode"]);
    assert_eq!(points[2]["launches"][0]["engine"], "vllm");
}

#[test]
fn a_malformed_recipe_is_an_input_error_at_its_position() {
    let dir = checkout("name: x\nbackend:\n  sglang_config: [unclosed\n");
    let root = dir.path().to_str().unwrap();
    common::assert_input_error(
        &[
            "extract",
            "--inferencex",
            root,
            "--entry",
            "org-fp8-b200-dynamo-sglang",
        ],
        "disagg.yaml:",
        &[],
    );
    let dir = checkout("name: x\nresources:\n  prefill_workers: many\n");
    let root = dir.path().to_str().unwrap();
    common::assert_input_error(
        &[
            "extract",
            "--inferencex",
            root,
            "--entry",
            "org-fp8-b200-dynamo-sglang",
        ],
        "disagg.yaml:3:20",
        &["prefill_workers"],
    );
}
