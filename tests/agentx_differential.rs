//! The AgentX reader against the cookbook's component: our fixture data
//! module rendered by the real `_agentx.jsx` with real React 18
//! (`tests/react_oracle/agentx.mjs`), every deployment, concurrency, KV tier
//! and router clicked, each process block's printed text compared with what
//! `extract::agentx` prints for the same state.
//!
//! The component is upstream code and is not in this repository: give a
//! copy of the cookbook's `docs/src/snippets/_agentx.jsx` with
//! `RD_AGENTX_COMPONENT=PATH` (and `npm ci --prefix tests/react_oracle`).
//! Without them the test says it is skipped.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use recipe_drift::extract::{agentx, jsx};
use recipe_drift::span::{Origin, Source};
use serde_json::Value;

/// Our data modules: the docs fixture's, and one that moves KV tiers,
/// refers across cells, replaces blocks and quotes values every way.
const MODULES: [&str; 2] = [
    "fixtures/agentx/docs/src/snippets/agentx/Demo/demo.jsx",
    "fixtures/agentx/differential/tiers.jsx",
];
const PAGE: &str = "fixtures/agentx/docs/cookbook/Demo/Demo.mdx";

/// The component's path, when node, the pinned React and the component are there.
fn ready() -> Option<String> {
    let why = if Command::new("node").arg("--version").output().is_err() {
        "node is not installed"
    } else if !Path::new("tests/react_oracle/node_modules/react-test-renderer").is_dir() {
        "the npm packages are missing (run `npm ci --prefix tests/react_oracle`)"
    } else {
        match std::env::var("RD_AGENTX_COMPONENT") {
            Ok(p) if Path::new(&p).is_file() => return Some(p),
            Ok(p) => panic!("RD_AGENTX_COMPONENT={p} is not a file"),
            Err(_) => "RD_AGENTX_COMPONENT (a copy of the cookbook's _agentx.jsx) is not set",
        }
    };
    eprintln!("SKIPPED agentx_differential: {why}");
    None
}

#[test]
fn the_reader_prints_every_block_of_every_state_as_the_component_does() {
    let Some(component) = ready() else {
        return;
    };
    jsx::set_worker_program(env!("CARGO_BIN_EXE_recipe-drift").into());
    for module in MODULES {
        compare(&component, module);
    }
}

/// One data module rendered by the component and read by us.
fn compare(component: &str, module: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let snippets = root.join("src/snippets");
    std::fs::create_dir_all(snippets.join("agentx/Demo")).unwrap();
    std::fs::create_dir_all(root.join("cookbook/Demo")).unwrap();
    std::fs::copy(component, snippets.join("_agentx.jsx")).unwrap();
    std::fs::copy(module, snippets.join("agentx/Demo/demo.jsx")).unwrap();
    let page = root.join("cookbook/Demo/Demo.mdx");
    std::fs::copy(PAGE, &page).unwrap();

    let bundle = jsx::bundle(&page, Some(root)).unwrap_or_else(|e| panic!("{e}"));
    let bundle_path = root.join("bundle.js");
    std::fs::write(&bundle_path, &bundle.code).unwrap();
    let out = Command::new("node")
        .arg("tests/react_oracle/agentx.mjs")
        .arg(&bundle_path)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let theirs: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("oracle output is not JSON ({e}): {text}"));
    assert!(
        out.status.success() && theirs.get("error").is_none(),
        "{text}"
    );

    let source = Arc::new(Source::new(
        Origin::File(module.into()),
        std::fs::read_to_string(module).unwrap(),
    ));
    let ours = agentx::printed_states(&source).unwrap_or_else(|e| panic!("{e}"));
    let states = theirs["states"].as_array().unwrap();
    assert_eq!(states.len(), ours.len(), "{module}: {theirs:#}");
    for s in states {
        let get = |k: &str| s[k].as_str().unwrap().to_string();
        let (_, blocks) = ours
            .iter()
            .find(|(sel, _)| {
                ["deployment", "concurrency", "kv", "router"]
                    .iter()
                    .all(|k| sel.iter().any(|(x, v)| x == k && *v == get(k)))
            })
            .unwrap_or_else(|| panic!("{module}: no state of ours for {s:#}"));
        let want: Vec<String> = serde_json::from_value(s["blocks"].clone()).unwrap();
        assert_eq!(blocks, &want, "{module}: {s:#}");
    }
}
