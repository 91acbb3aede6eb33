//! Checkpoint facts end to end (issue 13 §1): `compare`, `check` and `resolve`
//! against a loopback Hugging Face Hub (`HF_ENDPOINT`) serving config.json and
//! hf_quant_config.json files written here (modelled on real shapes, never
//! copied), offline from the cache, and from a config's `checkpoints:`. The
//! token goes to the endpoint's host only and is never printed. Never the real
//! network.

mod common;

use std::path::Path;

use common::http::{Req, Resp, Server};
use serde_json::{Value, json};

/// A loopback Hub: `handler(request)` gives (status, extra headers, body).
fn serve(
    handler: impl Fn(&Req) -> (u16, Vec<(String, String)>, String) + Send + Sync + 'static,
) -> Server {
    Server::start(move |req, _| {
        let (status, headers, body) = handler(req);
        Resp {
            status,
            headers,
            body: body.into_bytes(),
        }
    })
}

/// Checkpoint files by model id: (config.json, hf_quant_config.json).
fn hub_files() -> Vec<(&'static str, Value, Option<Value>)> {
    vec![
        (
            "org/nvfp4-legacy",
            json!({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
                   "torch_dtype": "bfloat16", "kv_lora_rank": 512, "num_key_value_heads": 128}),
            Some(
                json!({"producer": {"name": "modelopt", "version": "0.29.0"},
                        "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
                                         "group_size": 16, "exclude_modules": ["lm_head"]}}),
            ),
        ),
        (
            "org/nvfp4-flat",
            json!({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "dtype": "bfloat16",
                   "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4",
                       "kv_cache_scheme": {"dynamic": false, "num_bits": 8, "type": "float"},
                       "producer": {"name": "modelopt", "version": "0.37.0"}}}),
            None,
        ),
        (
            "org/bf16-dense",
            json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "bfloat16"}),
            None,
        ),
        (
            "org/quark-mxfp4-kv",
            json!({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "torch_dtype": "bfloat16",
                   "quantization_config": {"quant_method": "quark",
                       "global_quant_config": {"weight": {"dtype": "fp4", "qscheme": "per_group", "group_size": 32}},
                       "layer_quant_config": {"*k_proj": {"output_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}},
                                              "*v_proj": {"output_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}},
                       "export": {"kv_cache_group": ["*k_proj", "*v_proj"]}}}),
            None,
        ),
        // The pairing fixtures' MI355X checkpoint (fixtures/pairing).
        (
            "amd/Qwen3.5-397B-A17B-MXFP4",
            json!({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "torch_dtype": "bfloat16",
                   "quantization_config": {"quant_method": "quark",
                       "global_quant_config": {"weight": {"dtype": "fp4", "qscheme": "per_group", "group_size": 32}}}}),
            None,
        ),
        (
            "org/deepseek-fp8",
            json!({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "torch_dtype": "bfloat16",
                   "kv_lora_rank": 512, "num_key_value_heads": 128,
                   "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                           "weight_block_size": [128, 128]}}),
            None,
        ),
    ]
}

const TOKEN: &str = "hf_secret_token_4242";

/// A loopback Hub: `/{model}/resolve/{rev}/{file}`; 404 for anything else.
fn hub() -> Server {
    let files = hub_files();
    serve(move |req| {
        for (model, config, quant) in &files {
            for rev in ["main", "abc123"] {
                let base = format!("/{model}/resolve/{rev}/");
                if req.path == format!("{base}config.json") {
                    return (
                        200,
                        vec![("ETag".into(), "\"c1\"".into())],
                        config.to_string(),
                    );
                }
                if req.path == format!("{base}hf_quant_config.json")
                    && let Some(q) = quant
                {
                    return (200, vec![], q.to_string());
                }
            }
        }
        (404, vec![], "not found".into())
    })
}

/// Runs recipe-drift in `dir` with the loopback Hub (and the token): (code, stdout, stderr).
fn run(dir: &Path, endpoint: &str, args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(dir)
        .env_remove("RECIPE_DRIFT_NO_CHECKPOINT_FACTS")
        .env_remove("GITHUB_TOKEN")
        .env("HF_ENDPOINT", endpoint)
        .env("HF_TOKEN", TOKEN)
        .env("RECIPE_DRIFT_RETRY_DELAY_MS", "1")
        .env("RECIPE_DRIFT_HTTP_TIMEOUT_MS", "5000")
        .args(args)
        .output()
        .unwrap();
    let (o, e) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(!e.contains("panicked"), "{e}");
    assert!(
        !o.contains(TOKEN) && !e.contains(TOKEN),
        "the token was printed:\n{o}\n{e}"
    );
    (out.status.code().unwrap_or(-1), o, e)
}

/// A scratch folder with a docs and a recipe command for `model`.
fn pair(docs_extra: &str, model: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("docs.sh"),
        format!("sglang serve --model-path {model} --tp 4{docs_extra}\n"),
    )
    .unwrap();
    std::fs::write(
        d.path().join("recipe.sh"),
        format!("sglang serve --model-path {model} --tp 4\n"),
    )
    .unwrap();
    d
}

fn compare(dir: &Path, endpoint: &str, extra: &[&str]) -> (i32, String, String) {
    let cache = dir.join("cache").display().to_string();
    let mut args = vec![
        "compare",
        "docs.sh",
        "recipe.sh",
        "--engine-version",
        "0.5.23",
        "--platform",
        "cuda",
        "--format",
        "json",
        "--cache-dir",
        &cache,
    ];
    args.extend_from_slice(extra);
    run(dir, endpoint, &args)
}

/// The finding on `key`, if any.
fn finding(stdout: &str, key: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v.pointer("/links/0/findings")
        .and_then(Value::as_array)
        .and_then(|fs| fs.iter().find(|f| f["key"] == key).cloned())
}

#[test]
fn fp8_kv_against_auto_is_equivalent_on_an_nvfp4_checkpoint_with_fp8_kv() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let f = finding(&out, "kv_cache_dtype").expect("an equivalent finding");
    assert_eq!(f["kind"], "equivalent", "{f}");
    // It says which fact decided it, and from where.
    let text = f.to_string();
    assert!(
        text.contains("checkpoint.kv_cache_quant_algo = FP8"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{}/org/nvfp4-legacy/resolve/main/hf_quant_config.json",
            hub.base()
        )),
        "{text}"
    );
    // The token went to the endpoint (the only host asked).
    let reqs = hub.requests();
    assert!(!reqs.is_empty());
    for r in &reqs {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str())
        );
    }
    // Deterministic: the same bytes again (now from the memo/cache).
    let (_, again, _) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(out, again);
}

#[test]
fn fp8_kv_against_auto_is_major_drift_on_a_bf16_checkpoint() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/bf16-dense");
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 1, "{out}\n{err}");
    let f = finding(&out, "kv_cache_dtype").expect("a finding");
    assert_eq!(f["kind"], "contradicts", "{f}");
    assert_eq!(f["class"], "major", "{f}");
    assert!(f.to_string().contains("bf16"), "{f}");
    // hf_quant_config.json is absent (404), which is not an error.
    assert!(hub.requests().iter().any(|r| {
        r.path
            .ends_with("/org/bf16-dense/resolve/main/hf_quant_config.json")
    }));
}

#[test]
fn the_kv_scheme_of_a_flat_modelopt_config_and_quark_kv_groups() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-flat");
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    // A config.json with a quantization_config: hf_quant_config.json is not asked for.
    assert!(
        !hub.requests()
            .iter()
            .any(|r| r.path.contains("nvfp4-flat") && r.path.ends_with("hf_quant_config.json"))
    );
    // Quark's kv-cache group does not make auto fp8: SGLang runs the model dtype.
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/quark-mxfp4-kv");
    let (code, out, _) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 1, "{out}");
    // The quantization is decided (quark on both sides): no finding on it.
    assert!(finding(&out, "quantization").is_none(), "{out}");
}

#[test]
fn quantization_written_against_auto_detection_is_equivalent() {
    let hub = hub();
    for (model, q) in [
        ("org/deepseek-fp8", "fp8"),
        ("org/nvfp4-legacy", "modelopt_fp4"),
    ] {
        let d = pair(&format!(" --quantization {q}"), model);
        let (code, out, err) = compare(d.path(), &hub.base(), &[]);
        assert_eq!(code, 0, "{model}: {out}\n{err}");
        let f = finding(&out, "quantization").expect("equivalent");
        assert_eq!(f["kind"], "equivalent", "{f}");
    }
}

#[test]
fn offline_reads_the_cache_and_a_miss_is_unknown_with_the_reason() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    let (code, online, _) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 0);
    let before = hub.requests().len();
    let (code, offline, err) = compare(d.path(), &hub.base(), &["--offline"]);
    assert_eq!(code, 0, "{offline}\n{err}");
    assert_eq!(hub.requests().len(), before, "offline asked the server");
    assert_eq!(online, offline);
    // A model not in the cache: unknown with the URL, not an error.
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/bf16-dense");
    let (code, out, err) = compare(d.path(), &hub.base(), &["--offline"]);
    assert_ne!(code, 2, "{err}");
    let f = finding(&out, "kv_cache_dtype").expect("a finding");
    let text = f.to_string();
    assert!(text.contains("not in the cache"), "{text}");
    assert!(
        text.contains("org/bf16-dense/resolve/main/config.json"),
        "{text}"
    );
}

#[test]
fn the_checkpoint_budget_and_hf_hub_offline() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    let (code, out, err) = compare(d.path(), &hub.base(), &["--max-checkpoints", "0"]);
    assert_ne!(code, 2, "{err}");
    assert!(hub.requests().is_empty());
    assert!(out.contains("--max-checkpoints"), "{out}");
    // HF_HUB_OFFLINE=1: like --offline for checkpoint facts.
    let cache = d.path().join("cache").display().to_string();
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(d.path())
        .env_remove("RECIPE_DRIFT_NO_CHECKPOINT_FACTS")
        .env("HF_ENDPOINT", hub.base())
        .env("HF_HUB_OFFLINE", "1")
        .args([
            "compare",
            "docs.sh",
            "recipe.sh",
            "--engine-version",
            "0.5.23",
            "--format",
            "json",
            "--cache-dir",
            &cache,
        ])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(2));
    assert!(hub.requests().is_empty());
    assert!(String::from_utf8_lossy(&out.stdout).contains("not in the cache"));
}

#[test]
fn a_network_failure_is_exit_2_with_the_url_and_no_checkpoint_facts_turns_it_off() {
    let hub = serve(|_| (500, vec![], "boom".into()));
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains(&format!(
            "{}/org/nvfp4-legacy/resolve/main/config.json",
            hub.base()
        )),
        "{err}"
    );
    assert!(err.contains("500"), "{err}");
    // --no-checkpoint-facts: nothing asked, the value stays unknown with the reason.
    let before = hub.requests().len();
    let (code, out, err) = compare(d.path(), &hub.base(), &["--no-checkpoint-facts"]);
    assert_ne!(code, 2, "{err}");
    assert_eq!(hub.requests().len(), before);
    assert!(out.contains("--no-checkpoint-facts"), "{out}");
}

#[test]
fn a_gated_model_is_unknown_with_the_reason_not_an_error() {
    let hub = serve(|_| (401, vec![], "gated".into()));
    let d = pair(" --kv-cache-dtype fp8_e4m3", "meta/gated");
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_ne!(code, 2, "{err}");
    let f = finding(&out, "kv_cache_dtype").expect("a finding");
    let text = f.to_string();
    assert!(text.contains("the Hub refused"), "{text}");
    assert!(text.contains("HF_TOKEN"), "{text}");
}

#[test]
fn the_token_does_not_follow_a_redirect_to_another_host() {
    // The other host redirects once more to itself: the token is not sent
    // there either (a client that rebuilt each hop's headers from the first
    // request sent it again on that second hop).
    let other = serve(|req| {
        if !req.path.starts_with("/hop2/") {
            (
                302,
                vec![("Location".into(), format!("/hop2{}", req.path))],
                String::new(),
            )
        } else if req.path.ends_with("config.json") && !req.path.contains("hf_quant") {
            (
                200,
                vec![],
                json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "bfloat16"})
                    .to_string(),
            )
        } else {
            (404, vec![], String::new())
        }
    });
    let to = other.base();
    let hub = serve(move |req| {
        (
            302,
            vec![("Location".into(), format!("{to}{}", req.path))],
            String::new(),
        )
    });
    let d = pair(" --kv-cache-dtype bf16", "org/elsewhere");
    let (code, out, err) = compare(
        d.path(),
        &hub.base(),
        &["--allow-host", &format!("127.0.0.1:{}", other.port)],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        other
            .requests()
            .iter()
            .any(|r| r.path.starts_with("/hop2/"))
    );
    for r in other.requests() {
        assert_eq!(r.header("authorization"), None, "{r:?}");
    }
    for r in hub.requests() {
        assert!(r.header("authorization").is_some());
    }
}

#[test]
fn a_revision_pin_is_used() {
    let hub = hub();
    let d = pair(
        " --kv-cache-dtype fp8_e4m3 --revision abc123",
        "org/nvfp4-legacy",
    );
    std::fs::write(
        d.path().join("recipe.sh"),
        "sglang serve --model-path org/nvfp4-legacy --tp 4 --revision abc123\n",
    )
    .unwrap();
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        hub.requests()
            .iter()
            .all(|r| r.path.contains("/resolve/abc123/")),
        "{:?}",
        hub.requests()
    );
}

/// An unknown `--revision` is not `main`: the recipe side's facts are unknown
/// with the reason, never `main`'s (adv3 #7).
#[test]
fn an_unknown_revision_makes_the_facts_unknown() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    std::fs::write(
        d.path().join("recipe.sh"),
        "REV=$(cat pinned-revision.txt)\nsglang serve --model-path org/nvfp4-legacy --tp 4 --revision \"$REV\"\n",
    )
    .unwrap();
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    // Only the docs side (no revision: `main`) is asked for.
    assert!(
        hub.requests()
            .iter()
            .all(|r| r.path.contains("/resolve/main/")),
        "{:?}",
        hub.requests()
    );
    assert_ne!(code, 2, "{out}\n{err}");
    assert!(
        out.contains("the revision of org/nvfp4-legacy is not knowable from the text"),
        "{out}"
    );
}

/// A config with a link and `checkpoints:` text.
fn config(dir: &Path, checkpoints: &str) {
    std::fs::write(
        dir.join(".recipe-drift.yaml"),
        format!(
            "links:\n  - name: l\n    engine-version: \"0.5.23\"\n    docs: {{file: docs.sh, platform: cuda}}\n    recipe: {{file: recipe.sh, platform: cuda}}\n{checkpoints}"
        ),
    )
    .unwrap();
}

#[test]
fn check_reads_facts_from_the_config_first_and_never_asks_the_hub_for_them() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "private/model");
    config(
        d.path(),
        "checkpoints:\n  - model: private/model\n    facts:\n      architectures: [LlamaForCausalLM]\n      model-type: llama\n      dtype: bfloat16\n      quantization:\n        source: hf_quant_config.json\n        producer: modelopt\n        quant-algo: NVFP4\n        kv-cache-quant-algo: FP8\n",
    );
    let cache = d.path().join("cache").display().to_string();
    let (code, out, err) = run(
        d.path(),
        &hub.base(),
        &["check", "--format", "json", "--cache-dir", &cache],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(hub.requests().is_empty(), "{:?}", hub.requests());
    assert!(out.contains("`checkpoints:` private/model in"), "{out}");
    // Human output names the fact too.
    let (_, human, _) = run(
        d.path(),
        &hub.base(),
        &["check", "--cache-dir", &cache, "--show-equivalent"],
    );
    assert!(
        human.contains("checkpoint fact: checkpoint.kv_cache_quant_algo = FP8"),
        "{human}"
    );
}

#[test]
fn check_reads_the_hub_and_then_works_offline_from_the_cache() {
    let hub = hub();
    let d = pair(
        " --kv-cache-dtype fp8_e4m3 --quantization modelopt_fp4",
        "org/nvfp4-legacy",
    );
    config(d.path(), "");
    let cache = d.path().join("cache").display().to_string();
    let (code, out, err) = run(
        d.path(),
        &hub.base(),
        &["check", "--format", "sarif", "--cache-dir", &cache],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!hub.requests().is_empty());
    assert!(out.contains("decided by checkpoint facts"), "{out}");
    let n = hub.requests().len();
    let (code, again, err) = run(
        d.path(),
        &hub.base(),
        &[
            "check",
            "--format",
            "sarif",
            "--cache-dir",
            &cache,
            "--offline",
        ],
    );
    assert_eq!(code, 0, "{again}\n{err}");
    assert_eq!(hub.requests().len(), n);
    assert_eq!(out, again);
}

#[test]
fn an_unknown_field_in_checkpoints_is_an_input_error_with_its_position() {
    let hub = hub();
    let d = pair("", "private/model");
    config(
        d.path(),
        "checkpoints:\n  - model: private/model\n    facts:\n      dtpye: bfloat16\n",
    );
    let (code, out, err) = run(d.path(), &hub.base(), &["check"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains(".recipe-drift.yaml:9:"), "{err}");
    assert!(err.contains("dtpye"), "{err}");
}

#[test]
fn resolve_shows_the_facts() {
    let hub = hub();
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        d.path(),
        &hub.base(),
        &[
            "resolve",
            "--engine",
            "vllm",
            "--engine-version",
            "0.33.0",
            "--platform",
            "cuda",
            "--cache-dir",
            &d.path().join("c").display().to_string(),
            "--",
            "org/nvfp4-legacy",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("kv_cache_dtype = fp8"), "{out}");
    assert!(
        out.contains("checkpoint.kv_cache_quant_algo = FP8"),
        "{out}"
    );
    assert!(out.contains("quantization = modelopt_fp4"), "{out}");
}

// ---- untrusted checkpoint files and model paths --------------------------------------

#[test]
fn a_hostile_config_json_from_the_hub_is_exit_2_at_its_position_within_budget() {
    let deep = "[".repeat(200_000);
    let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(11 * 1024 * 1024));
    let hub = serve(move |req| {
        if req.path.starts_with("/org/deep/") && req.path.ends_with("/config.json") {
            (200, vec![], deep.clone())
        } else if req.path.starts_with("/org/huge/") && req.path.ends_with("/config.json") {
            (200, vec![], huge.clone())
        } else {
            (404, vec![], String::new())
        }
    });
    for (model, words) in [
        (
            "org/deep",
            &["/org/deep/resolve/main/config.json:1:", "recursion limit"][..],
        ),
        (
            "org/huge",
            &["/org/huge/resolve/main/config.json", "size cap"][..],
        ),
    ] {
        let d = pair(" --kv-cache-dtype fp8_e4m3", model);
        let start = std::time::Instant::now();
        let (code, out, err) = compare(d.path(), &hub.base(), &[]);
        assert!(start.elapsed().as_secs() < 30);
        assert_eq!(code, 2, "{model}: {out}\n{err}");
        for w in words {
            assert!(err.contains(w), "{model}: expected {w:?} in {err}");
        }
    }
}

#[test]
fn local_model_folders_are_read_inside_the_root_only() {
    let top = tempfile::tempdir().unwrap();
    let repo = top.path().join("repo");
    let outside = top.path().join("outside/model");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(repo.join("models/good")).unwrap();
    std::fs::create_dir_all(repo.join("models/bad")).unwrap();
    std::fs::create_dir(repo.join(".git")).unwrap();
    std::fs::write(
        outside.join("config.json"),
        r#"{"torch_dtype": "CANARY-outside", "architectures": ["CANARY"]}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("models/evil")).unwrap();
    std::fs::write(
        repo.join("models/good/config.json"),
        json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "bfloat16"}).to_string(),
    )
    .unwrap();
    std::fs::write(repo.join("models/good/hf_quant_config.json"), json!({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}).to_string()).unwrap();
    std::fs::write(
        repo.join("models/bad/config.json"),
        "{\"torch_dtype\": bfloat16}",
    )
    .unwrap();
    let hub = hub();
    let write = |model: &str| {
        std::fs::write(
            repo.join("docs.sh"),
            format!("sglang serve --model-path {model} --kv-cache-dtype fp8_e4m3\n"),
        )
        .unwrap();
        std::fs::write(
            repo.join("recipe.sh"),
            format!("sglang serve --model-path {model}\n"),
        )
        .unwrap();
    };
    // A folder inside the repository: its config.json and hf_quant_config.json.
    write("./models/good");
    let (code, out, err) = compare(&repo, &hub.base(), &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("models/good/hf_quant_config.json"), "{out}");
    // A symlink or a path leading outside: not read, the facts are unknown.
    for model in ["./models/evil", "../outside/model"] {
        write(model);
        let (code, out, err) = compare(&repo, &hub.base(), &[]);
        assert_ne!(code, 2, "{model}: {err}");
        assert!(
            !out.contains("CANARY") && !err.contains("CANARY"),
            "{out}{err}"
        );
        assert!(
            out.contains("not a folder with a config.json inside the repository"),
            "{out}"
        );
    }
    // Not JSON: exit 2 at its position.
    write("./models/bad");
    let (code, out, err) = compare(&repo, &hub.base(), &[]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("models/bad/config.json:1:"), "{err}");
    assert!(hub.requests().is_empty());
}

#[test]
fn an_mla_checkpoint_narrows_the_default_attention_backend() {
    let hub = hub();
    let d = pair(" --attention-backend fa3", "org/deepseek-fp8");
    let (code, out, err) = compare(d.path(), &hub.base(), &[]);
    assert_ne!(code, 2, "{err}");
    let f = finding(&out, "attention_backend").expect("a finding");
    let text = f.to_string();
    assert!(text.contains("MLA model"), "{text}");
    assert!(text.contains("trtllm_mla"), "{text}");
    assert!(
        text.contains("checkpoint.architecture = DeepseekV3ForCausalLM"),
        "{text}"
    );
}

// ---- the lock file and Hub failures (issue 23 §3) ----------------------------------------

const LOCK: &str = ".recipe-drift.lock.yaml";

/// stdout and stderr together.
fn both(out: &(i32, String, String)) -> String {
    format!("{}\n{}", out.1, out.2)
}

#[test]
fn a_hub_failure_names_the_remedies() {
    let hub = serve(|_| (500, vec![], "boom".into()));
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    config(d.path(), "");
    let cache = d.path().join("cache").display().to_string();
    for args in [
        &["compare", "docs.sh", "recipe.sh", "--cache-dir", &cache][..],
        &["check", "--cache-dir", &cache][..],
    ] {
        let out = run(d.path(), &hub.base(), args);
        assert_eq!(out.0, 2, "{args:?}: {}", both(&out));
        let text = both(&out);
        for remedy in [
            "--offline",
            "--no-checkpoint-facts",
            "`checkpoints:`",
            "recipe-drift lock",
            LOCK,
            "/org/nvfp4-legacy/resolve/main/config.json",
            "HTTP 500",
        ] {
            assert!(text.contains(remedy), "{args:?}: no {remedy:?} in {text}");
        }
    }
}

/// Runs `lock` in `dir` with its own cache: (code, stdout, stderr).
fn lock(dir: &Path, endpoint: &str, cache: &str, extra: &[&str]) -> (i32, String, String) {
    let cache = dir.join(cache).display().to_string();
    let mut args = vec!["lock", "--cache-dir", &cache];
    args.extend_from_slice(extra);
    run(dir, endpoint, &args)
}

#[test]
fn lock_writes_the_facts_a_check_reads_in_the_same_bytes_every_time() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    config(d.path(), "");
    let out = lock(d.path(), &hub.base(), "c1", &[]);
    assert_eq!(out.0, 0, "{}", both(&out));
    assert!(
        out.1.contains("locked the facts of 1 checkpoint into"),
        "{}",
        out.1
    );
    let first = std::fs::read_to_string(d.path().join(LOCK)).unwrap();
    // Again from a fresh cache: the same bytes.
    let out = lock(d.path(), &hub.base(), "c2", &[]);
    assert_eq!(out.0, 0, "{}", both(&out));
    let second = std::fs::read_to_string(d.path().join(LOCK)).unwrap();
    assert_eq!(first, second);
    assert!(first.contains("\nversion: 1\n"), "{first}");
    assert!(
        first.contains("  - model: \"org/nvfp4-legacy\"\n    revision: \"main\"\n"),
        "{first}"
    );
    for file in ["config.json", "hf_quant_config.json"] {
        assert!(
            first.contains(&format!(
                "      - from: \"{}/org/nvfp4-legacy/resolve/main/{file}\"\n",
                hub.base()
            )),
            "{first}"
        );
    }
    assert!(
        first.contains("checkpoint.kv_cache_quant_algo: \"FP8\"\n"),
        "{first}"
    );
    assert!(!first.contains(TOKEN), "{first}");
}

/// The kind of every finding of a JSON report, by key.
fn kinds(stdout: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let mut out: Vec<(String, String)> = v
        .pointer("/links/0/findings")
        .and_then(Value::as_array)
        .map(|fs| {
            fs.iter()
                .map(|f| (f["key"].to_string(), f["kind"].to_string()))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn check_reads_the_lock_first_and_gives_the_online_verdict_offline() {
    for (model, verdict) in [("org/nvfp4-legacy", 0), ("org/bf16-dense", 1)] {
        let hub = hub();
        let d = pair(" --kv-cache-dtype fp8_e4m3", model);
        config(d.path(), "");
        let check = |cache: &str, extra: &[&str]| {
            let cache = d.path().join(cache).display().to_string();
            let mut args = vec!["check", "--format", "json", "--cache-dir", &cache];
            args.extend_from_slice(extra);
            run(d.path(), &hub.base(), &args)
        };
        let online = check("online", &[]);
        assert_eq!(online.0, verdict, "{model}: {}", both(&online));
        let out = lock(d.path(), &hub.base(), "lock-cache", &[]);
        assert_eq!(out.0, 0, "{}", both(&out));
        // Offline with an empty cache: the facts come from the lock, the
        // Hub is not asked, the verdict and the findings are the same.
        let asked = hub.requests().len();
        let offline = check("empty", &["--offline"]);
        assert_eq!(
            hub.requests().len(),
            asked,
            "{model}: offline asked the Hub"
        );
        assert_eq!(offline.0, verdict, "{model}: {}", both(&offline));
        assert_eq!(kinds(&offline.1), kinds(&online.1), "{model}");
        let f = finding(&offline.1, "kv_cache_dtype").expect("a finding");
        // The equivalence names the fact that decided it, from the lock.
        assert!(
            verdict == 1
                || f.to_string().contains(&format!(
                    "{LOCK}, locked from {}/{model}/resolve/main/",
                    hub.base()
                )),
            "{f}"
        );
    }
    // The lock is read before the Hub: a Hub that fails fails no link.
    let down = serve(|_| (500, vec![], "boom".into()));
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    config(d.path(), "");
    let hub = hub();
    assert_eq!(lock(d.path(), &hub.base(), "c", &[]).0, 0);
    let cache = d.path().join("fresh").display().to_string();
    let out = run(d.path(), &down.base(), &["check", "--cache-dir", &cache]);
    assert_eq!(out.0, 0, "{}", both(&out));
    assert!(down.requests().is_empty(), "{:?}", down.requests());
}

#[test]
fn a_bad_lock_file_is_exit_2_at_its_position() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    config(d.path(), "");
    for (text, at, words) in [
        (
            "version: 1\ncheckpoints:\n  - model: [\n",
            ":3:",
            "invalid YAML",
        ),
        (
            "version: 1\ncheckpoints: []\ncomment: hi\n",
            ":3:",
            "comment",
        ),
        ("version: 7\ncheckpoints: []\n", ":1:", "version 7"),
    ] {
        std::fs::write(d.path().join(LOCK), text).unwrap();
        for args in [&["check"][..], &["compare", "docs.sh", "recipe.sh"][..]] {
            let out = run(d.path(), &hub.base(), args);
            assert_eq!(out.0, 2, "{text}: {}", both(&out));
            assert!(out.2.contains(&format!("{LOCK}{at}")), "{text}: {}", out.2);
            assert!(out.2.contains(words), "{text}: {}", out.2);
        }
    }
    assert!(hub.requests().is_empty());
}

#[test]
fn lock_takes_model_ids_and_others_are_unknown_offline_with_the_reason() {
    let hub = hub();
    let d = pair(" --kv-cache-dtype fp8_e4m3", "org/nvfp4-legacy");
    config(d.path(), "");
    // Only another model is locked, without running the config.
    let out = lock(
        d.path(),
        &hub.base(),
        "c",
        &["--no-config", "org/bf16-dense@abc123"],
    );
    assert_eq!(out.0, 0, "{}", both(&out));
    let text = std::fs::read_to_string(d.path().join(LOCK)).unwrap();
    assert!(
        text.contains("model: \"org/bf16-dense\"\n    revision: \"abc123\"\n"),
        "{text}"
    );
    assert!(!text.contains("nvfp4"), "{text}");
    // The config's model is not in the lock: offline, unknown with the reason.
    let cache = d.path().join("empty").display().to_string();
    let out = run(
        d.path(),
        &hub.base(),
        &[
            "check",
            "--format",
            "json",
            "--offline",
            "--cache-dir",
            &cache,
        ],
    );
    assert_ne!(out.0, 2, "{}", both(&out));
    let f = finding(&out.1, "kv_cache_dtype")
        .expect("a finding")
        .to_string();
    assert!(
        f.contains("org/nvfp4-legacy, which is not in the cache nor in the lock file"),
        "{f}"
    );
    // A model the Hub does not have cannot be locked: exit 2, nothing written.
    std::fs::remove_file(d.path().join(LOCK)).unwrap();
    let out = lock(
        d.path(),
        &hub.base(),
        "c",
        &["--no-config", "org/no-such-model"],
    );
    assert_eq!(out.0, 2, "{}", both(&out));
    assert!(
        out.2.contains("cannot lock org/no-such-model@main"),
        "{}",
        out.2
    );
    assert!(!d.path().join(LOCK).exists());
    // Not a Hub id: a usage error.
    let out = lock(d.path(), &hub.base(), "c", &["--no-config", "./models/x"]);
    assert_eq!(out.0, 2, "{}", both(&out));
}

/// Copies a fixture folder into `to` (files only, recursively).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// `lock --docs-root --inferencex` runs the zero-config pairing as `check`
/// does and locks the checkpoints its deployments ask for, into the current
/// folder; a zero-config `check` reads that lock before the Hub, so offline
/// (and with the Hub down) it gives the online verdict.
#[test]
fn lock_records_a_zero_config_pairing_and_check_reads_it_offline() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    // A repository holding the docs, the checkout and the lock (the root
    // reads are confined to).
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(d.path())
        .status()
        .unwrap();
    assert!(git.success());
    common::copy_qwen_page(&d.path().join("docs"));
    copy_tree(
        &repo.join("fixtures/pairing/inferencex"),
        &d.path().join("ix"),
    );
    let pairing = ["--docs-root", "docs", "--inferencex", "ix"];
    let hub = hub();
    let mut args = vec!["lock", "--cache-dir", "c1"];
    args.extend(pairing);
    let out = run(d.path(), &hub.base(), &args);
    assert_eq!(out.0, 0, "{}", both(&out));
    assert!(
        out.1.contains("amd/Qwen3.5-397B-A17B-MXFP4@main: from"),
        "{}",
        out.1
    );
    let lock = std::fs::read_to_string(d.path().join(LOCK)).unwrap();
    assert!(
        lock.contains("  - model: \"amd/Qwen3.5-397B-A17B-MXFP4\"\n"),
        "{lock}"
    );
    let check = |endpoint: &str, cache: &str, extra: &[&str]| {
        let mut args = vec!["check", "--format", "json", "--cache-dir", cache];
        args.extend(pairing);
        args.extend_from_slice(extra);
        run(d.path(), endpoint, &args)
    };
    let online = check(&hub.base(), "online", &[]);
    assert!(online.0 == 0 || online.0 == 1, "{}", both(&online));
    let down = serve(|_| (500, vec![], "boom".into()));
    let offline = check(&down.base(), "empty", &["--offline"]);
    assert_eq!(offline.0, online.0, "{}", both(&offline));
    assert_eq!(kinds(&offline.1), kinds(&online.1));
    // With the Hub down, the locked checkpoint is read from the lock: its
    // files are never asked for (the models the Hub did not know are not in
    // the lock, and are asked again).
    let _ = check(&down.base(), "fresh", &[]);
    let asked: Vec<String> = down.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        !asked
            .iter()
            .any(|p| p.contains("amd/Qwen3.5-397B-A17B-MXFP4")),
        "{asked:?}"
    );
}

/// A `checkpoints:` entry states what it says and nothing more: stating only
/// the quantization leaves the model's dtype and architecture unknown (it
/// made a float16 model dtype before, as for a config.json without one).
#[test]
fn a_partial_checkpoints_entry_leaves_the_other_facts_unknown() {
    let hub = hub();
    let d = pair(" --dtype bfloat16", "private/model");
    config(
        d.path(),
        "checkpoints:\n  - model: private/model\n    facts:\n      quantization:\n        quant-method: fp8\n",
    );
    let cache = d.path().join("cache").display().to_string();
    let (_, out, err) = run(
        d.path(),
        &hub.base(),
        &["check", "--format", "json", "--cache-dir", &cache],
    );
    assert!(hub.requests().is_empty(), "{:?}", hub.requests());
    assert!(!out.contains("\"float16\""), "{out}\n{err}");
    assert!(
        out.contains("not stated in `checkpoints:` private/model"),
        "{out}\n{err}"
    );
}
