//! Differential test: our headless React (QuickJS) against real React 18.
//!
//! Each cookbook fixture (and each explorer stress generator in
//! `fixtures/explorer/`) is bundled by recipe-drift; the same bundle is explored
//! by `tests/react_oracle/oracle.mjs` with `react` + `react-test-renderer` from
//! npm (installed by `.ci/run` with `npm ci`). Both must reach the same states,
//! in the same breadth-first order, with the same selections and commands.
//! Without node or the npm packages the test says so and passes, except under
//! CI (`CI` set), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use recipe_drift::extract::jsx;
use serde_json::Value;

/// Every generator and page of the cookbook fixtures.
fn fixtures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                let page = p.extension().is_some_and(|e| e == "mdx");
                let generator = p.extension().is_some_and(|e| e == "jsx")
                    && p.components()
                        .any(|c| c.as_os_str() == "autoregressive" || c.as_os_str() == "agentx");
                if page || generator {
                    out.push(p);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("fixtures/cookbook"), &mut out);
    // Generators written to stress the explorer's memos (effects, cleanups,
    // refs, child components).
    let mut stress: Vec<PathBuf> = std::fs::read_dir("fixtures/explorer")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsx"))
        .collect();
    stress.sort();
    out.extend(stress);
    out.extend(generated());
    out
}

/// Extra generators written by the tests' build of the large benchmark fixture.
fn generated() -> Vec<PathBuf> {
    let p = PathBuf::from("fixtures/jsx/radio-grid.jsx");
    if p.exists() { vec![p] } else { vec![] }
}

fn oracle_ready() -> bool {
    let modules = Path::new("tests/react_oracle/node_modules/react-test-renderer");
    let node = Command::new("node").arg("--version").output().is_ok();
    if node && modules.is_dir() {
        return true;
    }
    let why = if node {
        "the npm packages are missing (run `npm ci --prefix tests/react_oracle`)"
    } else {
        "node is not installed"
    };
    if std::env::var_os("CI").is_some() {
        panic!("the React differential test cannot run under CI: {why}");
    }
    eprintln!("SKIPPED react_differential: {why}");
    false
}

/// Our states per target, in the oracle's JSON shape.
fn ours(file: &Path) -> (String, Value) {
    jsx::set_worker_program(env!("CARGO_BIN_EXE_recipe-drift").into());
    let opts = jsx::Explore {
        time_limit: None,
        ..jsx::Explore::default()
    };
    // A correctness test on a shared machine: the large fixtures get time.
    let limits = jsx::Limits {
        total: std::time::Duration::from_secs(900),
        ..jsx::Limits::default()
    };
    let (bundle, found) = jsx::explore_file_with(file, None, &[], limits, opts)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let targets: Vec<Value> = bundle
        .targets
        .iter()
        .zip(&found)
        .map(|(t, ex)| {
            let crashes: Vec<Value> = ex
                .crashes
                .iter()
                .map(|c| serde_json::json!(c.path))
                .collect();
            let states: Vec<Value> = ex
                .views
                .iter()
                .map(|v| {
                    serde_json::json!({
                        "path": v.path,
                        "selection": v.selection,
                        "commands": v.commands,
                    })
                })
                .collect();
            serde_json::json!({"name": t.name, "states": states, "crashes": crashes})
        })
        .collect();
    (bundle.code, serde_json::json!({ "targets": targets }))
}

fn theirs(code: &str, dir: &Path, name: &str) -> Value {
    let path = dir.join(format!("{name}.js"));
    std::fs::write(&path, code).unwrap();
    let out = Command::new("node")
        .arg("tests/react_oracle/oracle.mjs")
        .arg(&path)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("oracle output for {name} is not JSON ({e}): {text}"));
    assert!(
        out.status.success() && v.get("error").is_none(),
        "oracle failed on {name}: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

#[test]
fn headless_react_matches_real_react_on_every_fixture() {
    if !oracle_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = fixtures();
    assert!(files.len() >= 8, "fixtures: {files:?}");
    let mut total = 0;
    for (i, f) in files.iter().enumerate() {
        let (code, mine) = ours(f);
        let real = theirs(&code, dir.path(), &format!("b{i}"));
        let m = &mine["targets"];
        let r = &real["targets"];
        assert_eq!(
            m.as_array().unwrap().len(),
            r.as_array().unwrap().len(),
            "{}: number of components",
            f.display()
        );
        for (mt, rt) in m.as_array().unwrap().iter().zip(r.as_array().unwrap()) {
            assert_eq!(mt["name"], rt["name"], "{}", f.display());
            let ms = mt["states"].as_array().unwrap();
            let rs = rt["states"].as_array().unwrap();
            for (k, (a, b)) in ms.iter().zip(rs).enumerate() {
                assert_eq!(a, b, "{}: state {k} differs", f.display());
            }
            assert_eq!(ms.len(), rs.len(), "{}: number of states", f.display());
            // Crash paths: the same clicks (the messages are each engine's own).
            let rc: Vec<&Value> = rt["crashes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| &c["path"])
                .collect();
            let mc: Vec<&Value> = mt["crashes"].as_array().unwrap().iter().collect();
            assert_eq!(mc, rc, "{}: crash paths", f.display());
            total += ms.len();
        }
    }
    assert!(total > 100, "only {total} states compared");
}
