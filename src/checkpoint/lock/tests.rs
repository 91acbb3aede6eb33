//! The lock file: deterministic bytes, a round trip through the reader, and
//! errors at their positions.

use serde_json::json;

use super::*;
use crate::checkpoint::{CheckpointFacts, KvScheme, QuantFacts, QuantSource};

fn facts() -> CheckpointFacts {
    CheckpointFacts {
        architectures: vec!["DeepseekV3ForCausalLM".into()],
        model_type: Some("deepseek_v3".into()),
        dtype: Some("bfloat16".into()),
        kv_lora_rank: Some(512),
        quantization: Some(QuantFacts {
            source: QuantSource::HfQuantConfig,
            producer: Some("modelopt".into()),
            quant_algo: Some("NVFP4".into()),
            kv_cache_quant_algo: Some("FP8".into()),
            kv_cache_scheme: Some(KvScheme {
                kind: Some("float".into()),
                num_bits: Some(8),
                dynamic: Some(false),
                ..KvScheme::default()
            }),
            ..QuantFacts::default()
        }),
        ..CheckpointFacts::default()
    }
}

/// A fact source answering every model with `facts()` read from the Hub.
#[derive(Debug)]
struct Hub;

impl FactSource for Hub {
    fn facts(&self, m: &str, r: Option<&str>) -> Result<BTreeMap<String, Entry>, FactError> {
        let (m, r) = split_pin(m, r);
        let base = format!("https://hub.example/{m}/resolve/{}", r.unwrap_or("main"));
        if m.starts_with("gone/") {
            return Ok(crate::resolved::unknown_facts("404"));
        }
        Ok(facts().entries(
            &format!("{base}/config.json"),
            &format!("{base}/hf_quant_config.json"),
        ))
    }
}

fn recorded(models: &[(&str, Option<&str>)]) -> (Vec<Locked>, Vec<NotLocked>) {
    let r = Recorder::new();
    r.wrap(Arc::new(Hub));
    for (m, rev) in models {
        r.facts(m, *rev).unwrap();
    }
    r.outcome()
}

fn read_text(text: &str) -> Result<Lock, Error> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(LOCK_FILE);
    std::fs::write(&p, text).unwrap();
    Lock::read(&p)
}

#[test]
fn the_same_facts_give_the_same_bytes_in_any_order() {
    let (a, not) = recorded(&[("org/b", None), ("org/a@v1", None), ("gone/x", None)]);
    let (b, _) = recorded(&[("gone/x", None), ("org/a", Some("v1")), ("org/b", None)]);
    assert_eq!(render(&a), render(&b));
    assert_eq!(not.len(), 1);
    assert_eq!(not[0].label, "gone/x@main");
    let text = render(&a);
    assert!(text.contains("version: 1\n"), "{text}");
    let a_at = text.find("\"org/a\"").unwrap();
    let b_at = text.find("\"org/b\"").unwrap();
    assert!(a_at < b_at, "{text}");
    assert!(text.contains("    revision: \"v1\"\n"), "{text}");
    assert!(
        text.contains("          checkpoint.kv_cache_quant_algo: \"FP8\"\n"),
        "{text}"
    );
}

#[test]
fn what_is_written_reads_back_as_the_same_facts() {
    let (locked, _) = recorded(&[("org/a", None)]);
    let lock = read_text(&render(&locked)).unwrap();
    assert_eq!(lock.checkpoints, locked);
    let online = Hub.facts("org/a", None).unwrap();
    let back = lock.facts("ORG/a", None).unwrap();
    assert_eq!(back.len(), online.len());
    for (k, e) in &online {
        assert_eq!(back[k].val, e.val, "{k}");
        let w = back[k].written.as_deref().unwrap();
        assert!(w.contains(LOCK_FILE), "{w}");
        assert!(w.contains(e.written.as_deref().unwrap()), "{w}");
    }
    assert_eq!(
        back["checkpoint.kv_cache_scheme"].val,
        Val::known(
            json!({"type": "float", "num_bits": 8, "dynamic": false, "strategy": null, "symmetric": null})
        )
    );
    // Another revision is not locked.
    assert!(lock.facts("org/a", Some("v2")).is_none());
}

#[test]
fn facts_by_hand_and_local_folders_are_not_locked() {
    #[derive(Debug)]
    struct ByHand;
    impl FactSource for ByHand {
        fn facts(&self, _: &str, _: Option<&str>) -> Result<BTreeMap<String, Entry>, FactError> {
            let from = "`checkpoints:` org/a in c.yaml";
            Ok(facts().entries(from, from))
        }
    }
    let r = Recorder::new();
    r.wrap(Arc::new(ByHand));
    r.facts("org/a", None).unwrap();
    r.facts("./models/x", None).unwrap();
    let (locked, not) = r.outcome();
    assert!(locked.is_empty());
    assert_eq!(not.len(), 2);
    assert!(
        not.iter().all(|n| n.reason.contains("on every run")),
        "{not:?}"
    );
}

#[test]
fn a_bad_lock_file_is_an_error_at_its_position() {
    let ok =
        "version: 1\ncheckpoints:\n  - model: \"org/a\"\n    revision: \"main\"\n    facts: []\n";
    assert!(read_text(ok).is_ok());
    for (text, at, words) in [
        ("version: 2\ncheckpoints: []\n", ":1:", "version 2"),
        ("version: 1\ncheckpoints: [\n", ":", "invalid YAML"),
        ("version: 1\nextra: 1\n", ":2:", "extra"),
        (
            "version: 1\ncheckpoints:\n  - model: \"org/a\"\n    revision: \"main\"\n    facts:\n      - from: \"u\"\n        values:\n          checkpoint.nope: 1\n",
            ":8:",
            "checkpoint.nope",
        ),
        (
            "version: 1\ncheckpoints:\n  - model: \"org/a\"\n    revision: \"main\"\n  - model: \"org/A\"\n    revision: \"main\"\n",
            ":5:",
            "locked twice",
        ),
        (
            "version: 1\ncheckpoints:\n  - model: \"./models/a\"\n    revision: \"main\"\n",
            ":3:",
            "not a Hub model id",
        ),
    ] {
        let e = read_text(text).unwrap_err().to_string();
        assert!(e.contains(&format!("{LOCK_FILE}{at}")), "{text}: {e}");
        assert!(e.contains(words), "{text}: {e}");
    }
}
