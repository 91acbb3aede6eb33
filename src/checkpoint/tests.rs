//! Checkpoint facts: parsing config.json shapes, and each engine's `auto`
//! rules against the worked outcomes of docs/research/checkpoint-facts.md.

use serde_json::{Value, json};

use super::*;
use crate::launch::{Engine, Launch, Platform};
use crate::resolved::ResolveOptions;

/// A fact source with one checkpoint for every model.
#[derive(Debug)]
struct One(CheckpointFacts);

impl FactSource for One {
    fn facts(&self, _m: &str, _r: Option<&str>) -> Result<BTreeMap<String, Entry>, FactError> {
        Ok(self.0.entries("config.json", "quant"))
    }
}

fn resolve(
    engine: Engine,
    version: &str,
    facts: &CheckpointFacts,
    argv: &[&str],
) -> crate::resolved::Resolved {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let opts = ResolveOptions {
        engine_version: Some(version.into()),
        platform: Some(Platform::Cuda),
        checkpoints: Some(Arc::new(One(facts.clone()))),
        ..ResolveOptions::default()
    };
    crate::engine::resolve(&Launch::inline(engine, &argv, &[]), &opts).expect("resolves")
}

fn val(r: &crate::resolved::Resolved, k: &str) -> Value {
    match &r.values[k].val {
        Val::Known { value } => value.clone(),
        Val::Unknown { reason, one_of } => json!({"unknown": reason, "one_of": one_of}),
    }
}

/// SGLang (quantization, dtype, kv) and vLLM (quantization, dtype, kv) at the newest releases, CUDA.
fn outcomes(config: Value, hf_quant: Option<Value>) -> (Vec<Value>, Vec<Value>) {
    let f = CheckpointFacts::from_json(&config, hf_quant.as_ref());
    let s = resolve(sg(), "0.5.23", &f, &["--model-path", "org/m"]);
    let v = resolve(vl(), "0.33.0", &f, &["org/m"]);
    let keys = ["quantization", "dtype", "kv_cache_dtype"];
    (
        keys.iter().map(|k| val(&s, k)).collect(),
        keys.iter().map(|k| val(&v, k)).collect(),
    )
}

pub(crate) fn bf16_dense() -> Value {
    json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "bfloat16",
           "num_key_value_heads": 8})
}

pub(crate) fn deepseek_fp8() -> Value {
    json!({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "torch_dtype": "bfloat16",
           "kv_lora_rank": 512, "q_lora_rank": 1536, "num_key_value_heads": 128,
           "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                   "weight_block_size": [128, 128]}})
}

pub(crate) fn nvfp4_legacy(kv: Value) -> (Value, Value) {
    (
        json!({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "torch_dtype": "bfloat16"}),
        json!({"producer": {"name": "modelopt", "version": "0.29.0"},
               "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": kv, "group_size": 16,
                                "exclude_modules": ["lm_head"]}}),
    )
}

pub(crate) fn nvfp4_flat() -> Value {
    json!({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "dtype": "bfloat16",
           "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4",
               "kv_cache_scheme": {"dynamic": false, "num_bits": 8, "type": "float"},
               "producer": {"name": "modelopt", "version": "0.37.0"}, "ignore": ["lm_head"]}})
}

pub(crate) fn quark_mxfp4(kv_group: bool) -> Value {
    let fp4 = json!({"dtype": "fp4", "qscheme": "per_group", "group_size": 32, "scale_format": "e8m0",
                     "is_dynamic": false, "observer_cls": "PerBlockMXObserver"});
    let mut layer = serde_json::Map::new();
    if kv_group {
        for p in ["*k_proj", "*v_proj"] {
            layer.insert(
                p.into(),
                json!({"output_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}),
            );
        }
    }
    json!({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "torch_dtype": "bfloat16",
           "quantization_config": {"quant_method": "quark", "global_quant_config": {"weight": fp4, "input_tensors": fp4},
               "layer_quant_config": layer,
               "export": {"kv_cache_group": if kv_group { json!(["*k_proj", "*v_proj"]) } else { json!([]) },
                          "pack_method": "reorder", "weight_format": "real_quantized"}}})
}

#[test]
fn parses_the_shapes_the_engines_read() {
    let (c, q) = nvfp4_legacy(json!("FP8"));
    let f = CheckpointFacts::from_json(&c, Some(&q));
    let qf = f.quantization.clone().unwrap();
    assert_eq!(qf.source, QuantSource::HfQuantConfig);
    assert_eq!(qf.quant_algo.as_deref(), Some("NVFP4"));
    assert_eq!(qf.kv_cache_quant_algo.as_deref(), Some("FP8"));
    assert_eq!(qf.producer.as_deref(), Some("modelopt"));
    assert_eq!(qf.quant_method, None);
    // config.json's quantization_config wins over hf_quant_config.json.
    let f = CheckpointFacts::from_json(&nvfp4_flat(), Some(&q));
    let qf = f.quantization.unwrap();
    assert_eq!(qf.source, QuantSource::Config);
    assert_eq!(qf.kv_cache_scheme.unwrap().num_bits, Some(8));
    assert_eq!(f.dtype.as_deref(), Some("bfloat16"));
    // text_config of a multimodal wrapper.
    let mm = json!({"architectures": ["X"], "model_type": "wrap", "torch_dtype": "float32",
                    "text_config": {"model_type": "gemma3_text", "torch_dtype": "bfloat16", "kv_lora_rank": 64}});
    let f = CheckpointFacts::from_json(&mm, None);
    let e = f.entries("c", "q");
    assert_eq!(e["checkpoint.dtype"].val, Val::known(json!("float32")));
    assert_eq!(
        e["checkpoint.text_dtype"].val,
        Val::known(json!("bfloat16"))
    );
    assert_eq!(
        e["checkpoint.text_model_type"].val,
        Val::known(json!("gemma3_text"))
    );
    assert_eq!(e["checkpoint.kv_lora_rank"].val, Val::known(json!(64)));
    assert_eq!(e["checkpoint.quant_source"].val, Val::known(Value::Null));
    // Every key exists.
    for (k, _) in crate::resolved::CHECKPOINT_KEYS {
        assert!(e.contains_key(*k), "{k}");
    }
}

#[test]
fn worked_outcomes_bf16_dense() {
    let (s, v) = outcomes(bf16_dense(), None);
    assert_eq!(s, vec![Value::Null, json!("bfloat16"), json!("bf16")]);
    assert_eq!(v, vec![Value::Null, json!("bfloat16"), json!("bfloat16")]);
}

#[test]
fn worked_outcomes_fp32_dense() {
    let (s, v) = outcomes(
        json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "float32"}),
        None,
    );
    assert_eq!(s, vec![Value::Null, json!("float16"), json!("float16")]);
    // vLLM: bfloat16 on SM >= 80, float16 below (the GPU is unknown).
    assert_eq!(v[1]["one_of"], json!(["bfloat16", "float16"]));
}

#[test]
fn worked_outcomes_deepseek_fp8_block() {
    let (s, v) = outcomes(deepseek_fp8(), None);
    assert_eq!(s, vec![json!("fp8"), json!("bfloat16"), json!("bf16")]);
    assert_eq!(v, vec![json!("fp8"), json!("bfloat16"), json!("bfloat16")]);
}

#[test]
fn worked_outcomes_deepseek_v32_dsa() {
    let mut c = deepseek_fp8();
    c["architectures"] = json!(["DeepseekV32ForCausalLM"]);
    c["index_topk"] = json!(2048);
    let (s, _) = outcomes(c, None);
    assert_eq!(s[2]["one_of"], json!(["fp8_e4m3", "bf16"]));
}

#[test]
fn worked_outcomes_nvfp4_legacy_with_and_without_fp8_kv() {
    let (c, q) = nvfp4_legacy(json!("FP8"));
    let (s, v) = outcomes(c, Some(q));
    assert_eq!(
        s,
        vec![json!("modelopt_fp4"), json!("bfloat16"), json!("fp8_e4m3")]
    );
    assert_eq!(
        v,
        vec![json!("modelopt_fp4"), json!("bfloat16"), json!("fp8")]
    );
    let (c, q) = nvfp4_legacy(Value::Null);
    let (s, v) = outcomes(c, Some(q));
    assert_eq!(s[2], json!("bf16"));
    assert_eq!(v[2], json!("bfloat16"));
}

#[test]
fn worked_outcomes_nvfp4_flat_scheme() {
    let (s, v) = outcomes(nvfp4_flat(), None);
    assert_eq!(
        s,
        vec![json!("modelopt_fp4"), json!("bfloat16"), json!("fp8_e4m3")]
    );
    assert_eq!(
        v,
        vec![json!("modelopt_fp4"), json!("bfloat16"), json!("fp8")]
    );
}

#[test]
fn worked_outcomes_quark_mxfp4_ignores_the_kv_group_for_auto() {
    for kv in [false, true] {
        let (s, v) = outcomes(quark_mxfp4(kv), None);
        assert_eq!(
            s,
            vec![json!("quark"), json!("bfloat16"), json!("bf16")],
            "kv group {kv}"
        );
        assert_eq!(
            v,
            vec![json!("quark"), json!("bfloat16"), json!("bfloat16")],
            "kv group {kv}"
        );
    }
}

#[test]
fn worked_outcomes_compressed_tensors_kv_by_release() {
    let c = json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "bfloat16",
        "quantization_config": {"quant_method": "compressed-tensors",
            "kv_cache_scheme": {"type": "float", "num_bits": 8, "strategy": "tensor", "dynamic": false, "symmetric": true}}});
    let f = CheckpointFacts::from_json(&c, None);
    let at = |v| {
        val(
            &resolve(sg(), v, &f, &["--model-path", "org/m"]),
            "kv_cache_dtype",
        )
    };
    assert_eq!(at("0.5.18"), json!("bf16"));
    assert_eq!(at("0.5.19"), json!("fp8_e4m3"));
    let v = resolve(vl(), "0.33.0", &f, &["org/m"]);
    assert_eq!(val(&v, "kv_cache_dtype"), json!("bfloat16"));
}

#[test]
fn worked_outcomes_modelopt_mxfp8_by_release() {
    let c = json!({"architectures": ["X"], "model_type": "x", "torch_dtype": "bfloat16"});
    let q = json!({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "MXFP8"}});
    let f = CheckpointFacts::from_json(&c, Some(&q));
    let at = |v| {
        val(
            &resolve(sg(), v, &f, &["--model-path", "org/m"]),
            "quantization",
        )
    };
    assert_eq!(at("0.5.17"), json!("modelopt_fp8"));
    assert_eq!(at("0.5.18"), json!("mxfp8"));
    let v = resolve(vl(), "0.33.0", &f, &["org/m"]);
    assert!(
        v.startup_errors
            .iter()
            .any(|e| e.message.contains("Unknown ModelOpt quant algo"))
    );
}

#[test]
fn worked_outcomes_gpt_oss_and_gptq_by_release() {
    let c = json!({"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "torch_dtype": "bfloat16",
                   "quantization_config": {"quant_method": "mxfp4"}});
    let f = CheckpointFacts::from_json(&c, None);
    let q = |v| val(&resolve(vl(), v, &f, &["org/m"]), "quantization");
    assert_eq!(q("0.19.0"), json!("mxfp4"));
    assert_eq!(q("0.20.0"), json!("gpt_oss_mxfp4"));
    let c = json!({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "float16",
                   "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true, "desc_act": false}});
    let f = CheckpointFacts::from_json(&c, None);
    let q = |v| val(&resolve(vl(), v, &f, &["org/m"]), "quantization");
    assert_eq!(q("0.22.0"), json!("auto_gptq"));
    assert!(q("0.21.0")["one_of"].is_array());
}

#[test]
fn an_explicit_setting_is_kept_and_no_facts_leave_auto_unknown() {
    let (c, q) = nvfp4_legacy(json!("FP8"));
    let f = CheckpointFacts::from_json(&c, Some(&q));
    let r = resolve(
        sg(),
        "0.5.23",
        &f,
        &["--model-path", "org/m", "--kv-cache-dtype", "bf16"],
    );
    assert_eq!(val(&r, "kv_cache_dtype"), json!("bf16"));
    // A rule hit names the facts it read and where they came from.
    let r = resolve(sg(), "0.5.23", &f, &["--model-path", "org/m"]);
    let hit = r.values["kv_cache_dtype"].rules.last().unwrap();
    assert!(
        hit.facts
            .iter()
            .any(|f| f == "checkpoint.kv_cache_quant_algo = FP8 (from quant)"),
        "{:?}",
        hit.facts
    );
    // No checkpoint keys are left among the settings.
    assert!(!r.values.keys().any(|k| k.starts_with("checkpoint.")));
    let none = crate::engine::resolve(
        &Launch::inline(sg(), &["--model-path".into(), "org/m".into()], &[]),
        &ResolveOptions::default(),
    )
    .unwrap();
    match &none.values["kv_cache_dtype"].val {
        Val::Unknown { reason, .. } => assert!(reason.contains("no checkpoint facts"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn config_facts_parse_and_unknown_fields_are_errors() {
    let ok = "model: nvidia/X\nrevision: abc\nfacts:\n  architectures: [DeepseekV3ForCausalLM]\n  dtype: bfloat16\n  quantization:\n    source: hf_quant_config.json\n    producer: modelopt\n    quant-algo: NVFP4\n    kv-cache-quant-algo: FP8\n    kv-cache-scheme: {type: float, num-bits: 8, dynamic: false}\n";
    let spec: CheckpointSpec = serde_saphyr::from_str(ok).unwrap();
    assert_eq!(
        spec.facts.quantization.unwrap().source,
        QuantSource::HfQuantConfig
    );
    let bad = "model: nvidia/X\nfacts:\n  dtpye: bfloat16\n";
    let e = serde_saphyr::from_str::<CheckpointSpec>(bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("dtpye"), "{e}");
}

#[test]
fn revisions_are_quoted_as_one_segment() {
    assert_eq!(percent("main"), "main");
    assert_eq!(percent("refs/pr/1"), "refs%2Fpr%2F1");
}

fn sg() -> Engine {
    Engine::parse("sglang").unwrap()
}

fn vl() -> Engine {
    Engine::parse("vllm").unwrap()
}

#[test]
fn one_run_reads_at_most_the_budget_of_checkpoints() {
    let cache = tempfile::tempdir().unwrap();
    let src = Checkpoints::new(Lookup {
        by_hand: vec![],
        config: None,
        hub: true,
        fetch: Some(FetchOptions {
            cache_dir: Some(cache.path().to_path_buf()),
            offline: true,
            ..FetchOptions::default()
        }),
        max: MAX_CHECKPOINTS,
        locked: None,
    })
    .unwrap();
    let reason = |model: &str| match &src.facts(model, None).unwrap()["checkpoint.dtype"].val {
        Val::Unknown { reason, .. } => reason.clone(),
        other => panic!("{other:?}"),
    };
    for i in 0..MAX_CHECKPOINTS {
        assert!(reason(&format!("org/m{i}")).contains("not in the cache"));
    }
    assert!(reason("org/one-more").contains("the budget per run"));
    // One already read is still answered.
    assert!(reason("org/m0").contains("not in the cache"));
}

#[test]
fn facts_by_hand_prefer_the_entry_of_the_revision() {
    let spec = |rev: Option<&str>, dtype: &str| CheckpointSpec {
        model: "Org/M".into(),
        revision: rev.map(str::to_string),
        facts: CheckpointFacts {
            dtype: Some(dtype.into()),
            ..CheckpointFacts::default()
        },
    };
    let src = Checkpoints::new(Lookup {
        by_hand: vec![spec(None, "float16"), spec(Some("v2"), "bfloat16")],
        config: Some("c.yaml".into()),
        hub: false,
        fetch: None,
        max: MAX_CHECKPOINTS,
        locked: None,
    })
    .unwrap();
    let dtype = |m: &str, r: Option<&str>| src.facts(m, r).unwrap()["checkpoint.dtype"].val.clone();
    assert_eq!(dtype("org/m", Some("v2")), Val::known(json!("bfloat16")));
    assert_eq!(dtype("org/m", None), Val::known(json!("float16")));
    assert_eq!(dtype("org/m@v2", None), Val::known(json!("bfloat16")));
    assert_eq!(dtype("org/m", Some("v3")), Val::known(json!("float16")));
    // Facts by hand apply with the Hub off; other models are unknown, saying why.
    match &src.facts("org/other", None).unwrap()["checkpoint.dtype"].val {
        Val::Unknown { reason, .. } => {
            assert!(reason.contains("--no-checkpoint-facts"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

/// A quantization config that only `text_config` holds: the quantization
/// facts are unknown (not "unquantized"), the model's are known.
#[test]
fn a_quantization_config_only_in_text_config_is_unknown() {
    let config = json!({"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
        "text_config": {"model_type": "qwen3_vl_text", "torch_dtype": "bfloat16",
            "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}});
    let f = CheckpointFacts::from_json(&config, None);
    assert!(f.quant_in_text_config_only);
    let e = f.entries("config.json", "config.json");
    assert!(matches!(
        e["checkpoint.quant_method"].val,
        Val::Unknown { .. }
    ));
    assert!(matches!(
        e["checkpoint.quant_source"].val,
        Val::Unknown { .. }
    ));
    assert!(matches!(e["checkpoint.text_dtype"].val, Val::Known { .. }));
    let (sg, vl) = outcomes(config, None);
    for (engine, v) in [("sglang", &sg), ("vllm", &vl)] {
        assert!(
            v[0].get("unknown").is_some(),
            "{engine}: quantization {v:?}"
        );
    }
    // The same quantization config at the top level is known.
    let f = CheckpointFacts::from_json(
        &json!({"architectures": ["LlamaForCausalLM"], "torch_dtype": "bfloat16",
                "quantization_config": {"quant_method": "fp8"}}),
        None,
    );
    assert!(!f.quant_in_text_config_only);
}
