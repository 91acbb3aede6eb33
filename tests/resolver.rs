//! Resolver behaviour, one rule or convention per test (library level).

use std::collections::BTreeMap;
use std::sync::Arc;

use recipe_drift::compare::compare;
use recipe_drift::engine::resolve;
use recipe_drift::extract::{InputKind, extract_source};
use recipe_drift::finding::Kind;
use recipe_drift::policy::Policy;
use recipe_drift::resolved::{ResolveOptions, Resolved, Val};
use recipe_drift::span::{Origin, Source};
use serde_json::{Value, json};

fn resolved(text: &str, version: &str, hardware: Option<&str>) -> Resolved {
    let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
    let launch = extract_source(&src, InputKind::Command, &BTreeMap::new())
        .unwrap()
        .remove(0);
    resolve(
        &launch,
        &ResolveOptions {
            engine_version: Some(version.into()),
            platform: None,
            hardware: hardware.map(str::to_string),
            origin: None,
            checkpoints: None,
        },
    )
    .unwrap()
}

fn value(r: &Resolved, key: &str) -> Value {
    match &r.values[key].val {
        Val::Known { value } => value.clone(),
        Val::Unknown { reason, .. } => panic!("{key} is unknown: {reason}"),
    }
}

fn is_unknown(r: &Resolved, key: &str) -> bool {
    matches!(r.values[key].val, Val::Unknown { .. })
}

const M: &str = "sglang serve --model-path org/m";

#[test]
fn version_not_bundled_uses_nearest_lower_and_says_so() {
    let r = resolved(M, "0.5.19.post1", None);
    assert_eq!(r.version.version, "0.5.19");
    assert_eq!(r.version.requested.as_deref(), Some("0.5.19.post1"));
    assert!(r.version.from.contains("nearest lower"));
}

#[test]
fn hicache_default_layout_changes_in_0_5_14() {
    let c = format!("{M} --enable-hierarchical-cache");
    assert_eq!(
        value(&resolved(&c, "0.5.13", Some("b200")), "hicache_mem_layout"),
        "layer_first"
    );
    assert_eq!(
        value(&resolved(&c, "0.5.14", Some("b200")), "hicache_mem_layout"),
        "page_first"
    );
    // On ROCm 0.5.14 the default page_first + kernel falls back to layer_first.
    assert_eq!(
        value(
            &resolved(&c, "0.5.14", Some("mi355x")),
            "hicache_mem_layout"
        ),
        "layer_first"
    );
}

#[test]
fn hicache_rules_need_hierarchical_cache() {
    let r = resolved(
        &format!("{M} --hicache-io-backend direct --hicache-mem-layout page_first"),
        "0.5.19",
        Some("b200"),
    );
    assert_eq!(value(&r, "hicache_mem_layout"), "page_first");
    let r = resolved(
        &format!("{M} --enable-hierarchical-cache --hicache-mem-layout page_first_direct"),
        "0.5.19",
        Some("b200"),
    );
    assert_eq!(value(&r, "hicache_io_backend"), "direct");
}

#[test]
fn fa3_decode_switches_hicache_io_before_0_5_14() {
    let c = format!(
        "{M} --enable-hierarchical-cache --decode-attention-backend fa3 --hicache-mem-layout page_first"
    );
    let r = resolved(&c, "0.5.13", Some("h200"));
    assert_eq!(value(&r, "hicache_io_backend"), "direct");
    assert_eq!(value(&r, "hicache_mem_layout"), "page_first_direct");
    let r = resolved(&c, "0.5.14", Some("h200"));
    assert_eq!(value(&r, "hicache_io_backend"), "kernel");
}

#[test]
fn speculative_names_are_upper_cased_and_nextn_is_eagle() {
    let r = resolved(
        &format!(
            "{M} --speculative-algorithm nextn --speculative-num-steps 2 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8"
        ),
        "0.5.19",
        None,
    );
    assert_eq!(value(&r, "speculative_algorithm"), "EAGLE");
    // topk 1 overrides a user-given draft token count.
    assert_eq!(value(&r, "speculative_num_draft_tokens"), 3);
}

#[test]
fn speculative_defaults_depend_on_the_model() {
    let r = resolved(
        &format!("{M} --speculative-algorithm EAGLE"),
        "0.5.19",
        None,
    );
    assert!(is_unknown(&r, "speculative_num_steps"));
    assert!(is_unknown(&r, "speculative_num_draft_tokens"));
    let r = resolved(
        &format!("{M} --speculative-algorithm STANDALONE"),
        "0.5.19",
        None,
    );
    assert_eq!(value(&r, "speculative_num_draft_tokens"), 4);
}

#[test]
fn dp_attention_divides_chunked_prefill() {
    let r = resolved(
        &format!("{M} --tp 8 --dp 4 --enable-dp-attention --chunked-prefill-size 8192"),
        "0.5.19",
        None,
    );
    assert_eq!(value(&r, "chunked_prefill_size"), 2048);
    // dp 1 turns DP attention off.
    let r = resolved(
        &format!("{M} --tp 8 --enable-dp-attention --chunked-prefill-size 8192"),
        "0.5.19",
        None,
    );
    assert_eq!(value(&r, "enable_dp_attention"), false);
    assert_eq!(value(&r, "chunked_prefill_size"), 8192);
    // Unset chunked prefill stays unknown.
    let r = resolved(
        &format!("{M} --tp 8 --dp 4 --enable-dp-attention"),
        "0.5.19",
        None,
    );
    assert!(is_unknown(&r, "chunked_prefill_size"));
}

#[test]
fn dp_attention_becomes_attn_dp_size_in_0_5_23() {
    let r = resolved(
        &format!("{M} --tp 8 --dp 4 --enable-dp-attention --chunked-prefill-size 8192"),
        "0.5.23",
        None,
    );
    assert_eq!(value(&r, "attn_dp_size"), 4);
    assert_eq!(value(&r, "dp_size"), 1);
    assert_eq!(value(&r, "enable_dp_attention"), false);
    assert_eq!(value(&r, "chunked_prefill_size"), 2048);
}

#[test]
fn a2a_backends_span_ep() {
    let r = resolved(
        &format!("{M} --tp 8 --moe-a2a-backend deepep"),
        "0.5.19",
        None,
    );
    assert_eq!(value(&r, "ep_size"), 8);
    let r = resolved(
        &format!("{M} --tp 8 --moe-a2a-backend pplx"),
        "0.5.17",
        None,
    );
    assert_eq!(value(&r, "ep_size"), 8);
}

#[test]
fn page_size_forced_by_attention_backend() {
    let r = resolved(
        &format!("{M} --attention-backend flashmla --page-size 16"),
        "0.5.19",
        Some("h200"),
    );
    assert_eq!(value(&r, "page_size"), 64);
    let r = resolved(
        &format!("{M} --attention-backend fa4"),
        "0.5.19",
        Some("b200"),
    );
    assert_eq!(value(&r, "page_size"), 128);
    let r = resolved(
        &format!("{M} --attention-backend triton"),
        "0.5.19",
        Some("b200"),
    );
    assert_eq!(value(&r, "page_size"), 1);
}

#[test]
fn page_size_depends_on_auto_backend_on_cuda_only() {
    // CUDA auto-selection may pick a backend that forces the page size.
    let r = resolved(M, "0.5.19", Some("b200"));
    assert!(is_unknown(&r, "attention_backend"));
    assert!(is_unknown(&r, "page_size"));
    // ROCm picks aiter or triton, neither forces a page size.
    let r = resolved(M, "0.5.19", Some("mi355x"));
    assert!(is_unknown(&r, "attention_backend"));
    assert_eq!(value(&r, "page_size"), 1);
}

#[test]
fn quantization_unquant_means_from_checkpoint() {
    let r = resolved(&format!("{M} --quantization unquant"), "0.5.19", None);
    assert!(is_unknown(&r, "quantization"));
    let r = resolved(&format!("{M} --quantization fp8"), "0.5.19", None);
    assert_eq!(value(&r, "quantization"), "fp8");
}

#[test]
fn pipeline_parallel_disables_overlap() {
    let r = resolved(&format!("{M} --pp-size 2"), "0.5.19", None);
    assert_eq!(value(&r, "disable_overlap_schedule"), true);
}

#[test]
fn rocm_kv_splits_and_sampling_backend() {
    let r = resolved(
        &format!("{M} --triton-attention-num-kv-splits 4"),
        "0.5.19",
        Some("mi300x"),
    );
    assert_eq!(value(&r, "triton_attention_num_kv_splits"), 16);
    assert_eq!(value(&r, "sampling_backend"), "pytorch");
}

#[test]
fn env_reads_like_sglang() {
    let r = resolved(
        &format!("SGL_USE_AITER=True SGLANG_USE_AITER=0 ROCM_QUICK_REDUCE_QUANTIZATION=int4 {M}"),
        "0.5.19",
        None,
    );
    // SGL_* is copied over SGLANG_*; True is on; the quick-reduce mode is case-sensitive.
    assert_eq!(value(&r, "env:SGLANG_USE_AITER"), true);
    assert_eq!(value(&r, "env:ROCM_QUICK_REDUCE_QUANTIZATION"), "NONE");
    let r = resolved(M, "0.5.19", None);
    assert_eq!(value(&r, "env:SGLANG_USE_AITER"), false);
}

#[test]
fn model_identity() {
    let r = resolved("sglang serve --model-path Org/Model", "0.5.19", None);
    assert_eq!(value(&r, "model"), "org/model");
    let r = resolved("sglang serve --model-path /models/qwen", "0.5.19", None);
    assert!(is_unknown(&r, "model"));
    let r = resolved(
        "sglang serve --model-path /models/qwen --served-model-name org/qwen",
        "0.5.19",
        None,
    );
    assert_eq!(value(&r, "model"), "org/qwen");
}

#[test]
fn unknown_platform_makes_platform_rules_unknown() {
    let r = resolved(
        &format!("{M} --enable-hierarchical-cache --hicache-mem-layout page_first"),
        "0.5.15",
        None,
    );
    assert!(is_unknown(&r, "hicache_mem_layout"));
    match &r.values["hicache_mem_layout"].val {
        Val::Unknown { one_of, .. } => {
            assert_eq!(
                one_of.as_ref().unwrap(),
                &vec![json!("page_first"), json!("layer_first")]
            );
        }
        _ => unreachable!(),
    }
}

#[test]
fn compare_kinds() {
    let policy = Policy::default();
    let a = resolved(
        &format!("{M} --tp 2 --kv-cache-dtype fp8_e4m3"),
        "0.5.19",
        Some("b200"),
    );
    let b = resolved(&format!("{M} --tp-size 4"), "0.5.19", Some("b200"));
    let c = compare(&a, &b, &policy);
    let kind = |k: &str| c.findings.iter().find(|f| f.key == k).map(|f| f.kind);
    assert_eq!(kind("tp_size"), Some(Kind::Contradicts));
    // One side sets fp8, the other leaves auto (from the checkpoint): never
    // equal; missing (the equivalence is not shown), or unknown when the policy
    // relaxes it.
    assert_eq!(kind("kv_cache_dtype"), Some(Kind::Missing));
    let relaxed = Policy::default().with_unknown(Some(recipe_drift::policy::UnknownRule::Warning));
    let c2 = compare(&a, &b, &relaxed);
    assert_eq!(
        c2.findings
            .iter()
            .find(|f| f.key == "kv_cache_dtype")
            .map(|f| f.kind),
        Some(Kind::Unknown)
    );
    let d = resolved(
        &format!("{M} --enable-hierarchical-cache"),
        "0.5.19",
        Some("b200"),
    );
    let c = compare(&d, &a, &policy);
    assert_eq!(
        c.findings
            .iter()
            .find(|f| f.key == "enable_hierarchical_cache")
            .map(|f| f.kind),
        Some(Kind::Missing)
    );
    assert!(c.has_errors());
}

#[test]
fn hicache_size_makes_the_ratio_irrelevant() {
    // SGLang sizes the host pool from --hicache-size when it is > 0 and reads the
    // ratio only when it is 0: a ratio written on one side is not drift then.
    let policy = Policy::default();
    let base = format!("{M} --enable-hierarchical-cache --hicache-size 180");
    let a = resolved(&base, "0.5.19", Some("mi355x"));
    let b = resolved(
        &format!("{base} --hicache-ratio 1.5"),
        "0.5.19",
        Some("mi355x"),
    );
    assert!(b.values["hicache_ratio"].inactive.is_some());
    let c = compare(&a, &b, &policy);
    assert!(
        !c.findings.iter().any(|f| f.key == "hicache_ratio"),
        "{:?}",
        c.findings
    );
    // Without a size the ratio decides the host pool: still compared.
    let base = format!("{M} --enable-hierarchical-cache");
    let a = resolved(&base, "0.5.19", Some("mi355x"));
    let b = resolved(
        &format!("{base} --hicache-ratio 1.5"),
        "0.5.19",
        Some("mi355x"),
    );
    let c = compare(&a, &b, &policy);
    assert!(c.findings.iter().any(|f| f.key == "hicache_ratio"));
}

#[test]
fn ngram_topk_comes_from_the_bfs_breadth() {
    let a = resolved(
        &format!("{M} --speculative-algorithm NGRAM --speculative-eagle-topk 4"),
        "0.5.12",
        Some("b200"),
    );
    assert_eq!(value(&a, "speculative_eagle_topk"), 10);
    let b = resolved(
        &format!("{M} --speculative-algorithm NGRAM"),
        "0.5.12",
        Some("b200"),
    );
    let c = compare(&a, &b, &Policy::default());
    assert!(
        !c.findings
            .iter()
            .any(|f| f.key == "speculative_eagle_topk" && f.kind != Kind::Equivalent),
        "{:?}",
        c.findings
    );
}
