//! Unit tests of the srt-slurm room: job selection and rendering rules.

use std::sync::Arc;

use super::{Outcome, Rendered, read};
use crate::launch::{Provenance, Role};
use crate::span::{Origin, Source};

fn render(text: &str, selector: Option<&str>) -> Result<Rendered, crate::error::Error> {
    let source = Arc::new(Source::new(Origin::File("r.yaml".into()), text.into()));
    read(&source, selector, "r.yaml")
}

fn words(r: &Rendered, role: Role) -> Vec<String> {
    let l = r.roles.iter().find(|x| x.role == role).unwrap();
    match &l.outcome {
        Outcome::Launch { launch } => launch
            .launcher
            .iter()
            .chain(&launch.argv)
            .map(|t| t.text.clone())
            .collect(),
        other => panic!("{other:?}"),
    }
}

const SWEEP: &str = "base:
  model: {path: 'hf:org/M'}
  resources: {agg_workers: 1}
  backend:
    sglang_config:
      aggregated: {tp: 4, served-model-name: m, chunked-prefill-size: 8192, mem-fraction-static: 0.8}
override_small:
  backend:
    sglang_config:
      aggregated: {tp: 2, chunked-prefill-size: null}
zip_override_z:
  backend:
    sglang_config:
      aggregated: {tp: [1, 8], mem-fraction-static: [0.7], cuda-graph-bs: [[1, 2], [4]]}
";

#[test]
fn overrides_merge_over_base_and_null_deletes() {
    let r = render(SWEEP, Some("override_small")).unwrap();
    let w = words(&r, Role::Aggregated);
    assert_eq!(
        w[w.len() - 4..],
        ["--mem-fraction-static", "0.8", "--tp", "2"]
    );
    assert!(!w.contains(&"--chunked-prefill-size".to_string()));
    // The default frontend is dynamo; the SGLang backend is the default.
    assert_eq!(w[..3], ["python3", "-m", "dynamo.sglang"]);
}

#[test]
fn zip_variants_take_their_item_and_broadcast_single_items() {
    let r = render(SWEEP, Some("zip_override_z[1]")).unwrap();
    let w = words(&r, Role::Aggregated);
    let tail: Vec<&str> = w
        .iter()
        .map(String::as_str)
        .skip_while(|x| *x != "--chunked-prefill-size")
        .collect();
    assert_eq!(
        tail,
        [
            "--chunked-prefill-size",
            "8192",
            "--cuda-graph-bs",
            "4",
            "--mem-fraction-static",
            "0.7",
            "--tp",
            "8"
        ]
    );
    let e = render(SWEEP, Some("zip_override_z[2]")).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    let e = render(SWEEP, Some("override_missing")).unwrap_err();
    assert!(
        e.to_string().contains("override_small, zip_override_z[i]"),
        "{e}"
    );
    let e = render(SWEEP, None).unwrap_err();
    assert!(e.to_string().contains("name one as FILE:SELECTOR"), "{e}");
}

#[test]
fn a_model_alias_leaves_the_served_name_unknown() {
    let r = render(
        "model: {path: dsr1-fp8}\nresources: {prefill_workers: 1, decode_workers: 0}\n",
        None,
    )
    .unwrap();
    assert_eq!(r.roles.len(), 1);
    let Outcome::Launch { launch } = &r.roles[0].outcome else {
        panic!()
    };
    let served = &launch.argv[3];
    assert!(matches!(served.provenance, Provenance::Unknown { .. }));
    assert_eq!(launch.role, Role::Prefill);
}

#[test]
fn vllm_connectors_and_trtllm_keys() {
    let r = render(
        "model: {path: 'hf:o/m', container: 'vllm/vllm-openai:v0.20.0'}
resources: {prefill_workers: 1, decode_workers: 1}
backend:
  type: vllm
  connector: none
  vllm_config:
    prefill: {connector: nixl}
    decode: {data-parallel-rpc-port: 5, headless: true}
",
        None,
    )
    .unwrap();
    let p = words(&r, Role::Prefill);
    assert!(p.windows(2).any(|w| w
        == [
            "--kv-transfer-config",
            r#"{"kv_connector": "NixlConnector", "kv_role": "kv_both"}"#
        ]));
    let d = words(&r, Role::Decode);
    assert!(!d.iter().any(|w| w.starts_with("--kv-transfer")), "{d:?}");
    // Runtime flags a recipe writes are left out like srtctl's own.
    assert!(
        !d.iter()
            .any(|w| w == "--headless" || w == "--data-parallel-rpc-port")
    );
    let r = render(
        "model: {path: m}\nresources: {decode_workers: 1}\nbackend: {type: trtllm, trtllm_config: {decode: {a: 1}}}\n",
        None,
    )
    .unwrap();
    assert!(matches!(&r.roles[0].outcome, Outcome::Unsupported { keys, .. } if keys == &["a"]));
}
