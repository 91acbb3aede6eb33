//! The decoder and printer on small data modules of our own, shaped as the
//! generated ones are.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;

/// A data module: one disaggregated cell (prefill + decode, HiCache
/// measured, Dynamo submitted, SGLang router derived through `from` + `diff`),
/// a second point patching the decode worker, and Mooncake settings.
pub(super) const MODULE: &str = r#"// GENERATED for a test — not by hand.
export const agentx = {
 "model": "Demo",
 "hardware": [{"id": "gb300", "label": "GB300"}],
 "checkpoints": [{"id": "org/Demo-FP4", "precision": "fp4"}],
 "envs": [{"ZED": "1", "ALPHA": "x y"}],
 "kvMooncake": {
  "donor": "demo-donor", "donorHardware": "gb300",
  "master": {
   "dynamo": {"kind": "mooncake-master", "cmd": "mooncake_master", "env": {}, "args": [["--port", "8700"]]},
   "sglang": {"kind": "mooncake-master", "cmd": "mooncake_master", "env": {}, "args": [["--port", "8700"]]}
  },
  "args": [["--enable-unified-cache-external-linker"], ["--unified-cache-external-linker-backend", "mooncake"]],
  "env": {"MOONCAKE_MASTER": "$MOONCAKE_MASTER_IP:8700", "MOONCAKE_PROTOCOL": "rdma"},
  "decode_env": {"MOONCAKE_MASTER": "$MOONCAKE_MASTER_IP:8700"}
 },
 "files": {},
 "cells": [
  {
   "id": "demo-fp4-gb300-dynamo-sglang-agentic-disagg#0",
   "hw": "gb300", "ckpt": "org/Demo-FP4", "label": "1P1D", "detail": "d", "gpus": 8,
   "configKey": "demo-fp4-gb300-dynamo-sglang-agentic-disagg",
   "image": "lmsysorg/sglang:v0.5.19-cu130", "submitted": "dynamo",
   "setup": [], "disclosures": [],
   "kv": {"available": ["none", "hicache", "mooncake"], "unavailable": {},
          "hicache": {"args": [["--enable-hierarchical-cache"], ["--hicache-io-backend", "kernel"]], "donor": "x", "donorHardware": "gb300"}},
   "points": [
    {"concs": [4], "kv": "hicache", "status": "verified"},
    {"concs": [8], "kv": "hicache", "status": "verified",
     "patch": {"dynamo": [null, null, {"args": {"--max-running-requests": ["64"], "--chunked-prefill-size": null}}],
               "sglang": [null, {"args": {"--max-running-requests": ["64"]}}, null]}}
   ],
   "routers": {
    "dynamo": {"install": [], "files": [], "blocks": [
     {"kind": "etcd", "cmd": "etcd", "env": {}, "args": [["--data-dir", "/tmp/etcd"]]},
     {"kind": "worker", "role": "prefill", "workers": 1, "nodes_per_worker": 1,
      "cmd": "python3 -m dynamo.sglang", "envRef": 0,
      "args": [["--tp-size", "4"], ["--model-path", "org/Demo-FP4"], ["--disaggregation-mode", "prefill"],
               ["--enable-hierarchical-cache"], ["--hicache-io-backend", "kernel"], ["--chunked-prefill-size", "16384"]]},
     {"kind": "worker", "role": "decode", "workers": 1, "nodes_per_worker": 1,
      "cmd": "python3 -m dynamo.sglang", "env": {"B": "2", "A": "1"},
      "args": [["--model-path", "org/Demo-FP4"], ["--disaggregation-mode", "decode"], ["--tp-size", "4"],
               ["--chunked-prefill-size", "16384"], ["--dist-init-addr", "$DECODE_HEAD_IP:5000"]]}
    ]},
    "sglang": {"install": [], "files": [], "blocks": [
     {"from": 1, "cmd": "python3 -m sglang.launch_server", "diff": {"args": {"--port": ["30001"]}, "env": {"ZED": null}}},
     {"from": 2, "cmd": "python3 -m sglang.launch_server", "diff": {"args": {"--dist-init-addr": null}}},
     {"kind": "sglang-router", "cmd": "python3 -m sglang_router.launch_router", "env": {}, "args": [["--pd-disaggregation"]]}
    ]}
   }
  }
 ]
};
"#;

fn source(text: &str) -> Arc<Source> {
    Arc::new(Source::new(
        Origin::File("docs/src/snippets/agentx/Org/demo.jsx".into()),
        text.to_string(),
    ))
}

/// The printed blocks of a state (every block, as the page prints them).
pub(super) fn printed(text: &str, ci: usize, pi: usize, router: &str, kv: &str) -> Vec<String> {
    let src = source(text);
    let root = data::parse(&src).expect("parses");
    let d = decode::Decoder::new(&root).expect("cells");
    d.blocks_for(ci, pi, router, kv)
        .expect("decodes")
        .iter()
        .map(|b| format::print(b).text)
        .collect()
}

#[test]
fn a_from_block_takes_the_submitted_routers_block_with_its_diff() {
    let blocks = printed(MODULE, 0, 0, "sglang", "hicache");
    // The prefill worker: envRef resolved (sorted), `ZED` deleted by the
    // diff, `--port` added and the arguments sorted lead flags first.
    assert_eq!(
        blocks[0],
        "ALPHA='x y' \\\npython3 -m sglang.launch_server \\\n  --model-path org/Demo-FP4 \\\n  --port 30001 \\\n  --disaggregation-mode prefill \\\n  --chunked-prefill-size 16384 \\\n  --enable-hierarchical-cache \\\n  --hicache-io-backend kernel \\\n  --tp-size 4"
    );
    // The decode worker: `null` deletes the argument; its env is sorted.
    assert_eq!(
        blocks[1],
        "A=1 \\\nB=2 \\\npython3 -m sglang.launch_server \\\n  --model-path org/Demo-FP4 \\\n  --disaggregation-mode decode \\\n  --chunked-prefill-size 16384 \\\n  --tp-size 4"
    );
}

#[test]
fn a_full_block_keeps_its_written_order_and_a_later_point_is_patched() {
    let first = printed(MODULE, 0, 0, "dynamo", "hicache");
    assert!(first[2].contains("--tp-size 4 \\\n  --chunked-prefill-size 16384 \\\n  --dist-init-addr \"$DECODE_HEAD_IP:5000\""), "{}", first[2]);
    let second = printed(MODULE, 0, 1, "dynamo", "hicache");
    assert!(
        second[2].contains("--max-running-requests 64"),
        "{}",
        second[2]
    );
    assert!(
        !second[2].contains("--chunked-prefill-size"),
        "{}",
        second[2]
    );
    // Patched blocks are sorted; the prefill worker is untouched.
    assert_eq!(first[1], second[1]);
}

#[test]
fn another_kv_tier_moves_the_cache_flags_on_the_cache_holding_roles() {
    let none = printed(MODULE, 0, 0, "dynamo", "none");
    assert!(!none[1].contains("hicache"), "{}", none[1]);
    let mc = printed(MODULE, 0, 0, "dynamo", "mooncake");
    // Mooncake's master comes before the first worker.
    assert!(mc[1].starts_with("mooncake_master"), "{}", mc[1]);
    assert!(
        mc[2].contains("--unified-cache-external-linker-backend mooncake"),
        "{}",
        mc[2]
    );
    assert!(mc[2].contains("MOONCAKE_PROTOCOL=rdma"), "{}", mc[2]);
    // The decode worker gets the store client's environment only.
    assert!(
        mc[3].contains("MOONCAKE_MASTER=\"$MOONCAKE_MASTER_IP:8700\""),
        "{}",
        mc[3]
    );
    assert!(!mc[3].contains("external-linker"), "{}", mc[3]);
}

#[test]
fn every_state_names_its_entry_and_its_workers_roles() {
    let states = states(&source(MODULE), &BTreeMap::new()).expect("reads");
    // 2 points x 3 tiers x 2 routers.
    assert_eq!(states.len(), 12);
    let s = &states[0];
    assert_eq!(
        s.entry.as_deref(),
        Some("demo-fp4-gb300-dynamo-sglang-agentic-disagg")
    );
    assert!(s.error.is_none(), "{:?}", s.error);
    let roles: Vec<Role> = s.launches.iter().map(|l| l.role).collect();
    assert_eq!(roles, vec![Role::Prefill, Role::Decode]);
    let l = &s.launches[0];
    assert_eq!(
        l.context.hardware.as_ref().map(|h| h.value.as_str()),
        Some("gb300")
    );
    // A word is placed where the data module writes it.
    let tp = l
        .argv
        .iter()
        .find(|t| t.text == "--tp-size")
        .expect("--tp-size");
    let at = tp.written_at.as_ref().expect("placed in the module");
    assert_eq!(at.pos.line, 38);
}

#[test]
fn a_reference_out_of_range_is_an_input_error_of_that_state() {
    let bad = MODULE.replace("{\"from\": 2,", "{\"from\": 7,");
    let states = states(&source(&bad), &BTreeMap::new()).expect("reads");
    let e = states
        .iter()
        .find(|s| {
            s.selection
                .iter()
                .any(|(k, v)| k == "router" && v == "sglang")
        })
        .and_then(|s| s.error.as_ref())
        .expect("the sglang router's states fail");
    assert!(e.to_string().contains("no block 7"), "{e}");
}

#[test]
fn a_chain_of_references_is_decoded_once_per_router() {
    // Cell k's router has four blocks, each a `ref` to a block of cell k-1:
    // without the component's memo, 4^30 materializations.
    let mut cells = vec![r#"{"id": "c0", "hw": "h", "submitted": "r", "points": [{"concs": [1], "kv": "none"}], "kv": {"available": []}, "routers": {"r": {"blocks": [{"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "args": [["--tp-size", "1"]]}, {"kind": "etcd", "cmd": "etcd", "args": []}, {"kind": "etcd", "cmd": "etcd", "args": []}, {"kind": "etcd", "cmd": "etcd", "args": []}]}}}"#.to_string()];
    for k in 1..30 {
        let refs: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"ref": [{}, "r", {i}]}}"#, k - 1))
            .collect();
        cells.push(format!(
            r#"{{"id": "c{k}", "hw": "h", "submitted": "r", "points": [{{"concs": [1], "kv": "none"}}], "kv": {{"available": []}}, "routers": {{"r": {{"blocks": [{}]}}}}}}"#,
            refs.join(", ")
        ));
    }
    let module = format!(
        "export const agentx = {{\"hardware\": [{{\"id\": \"h\"}}], \"envs\": [], \"cells\": [{}]}};\n",
        cells.join(",\n")
    );
    let started = std::time::Instant::now();
    let blocks = printed(&module, 29, 0, "r", "none");
    assert_eq!(
        blocks[0],
        "python3 -m sglang.launch_server \\\n  --tp-size 1"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}
