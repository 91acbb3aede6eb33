//! AMD `sglang-disagg` entries of InferenceX, role by role, against what real
//! bash builds: `tests/data/amd_disagg_rendered.json` holds each role's
//! command as InferenceX's own `DRY_RUN=1` path printed it under real bash
//! with stubbed cluster commands (`scripts/amd_disagg_dryrun.py`, at the
//! InferenceX commit it names). InferenceX's scripts are not in this
//! repository: the comparison runs when `INFERENCEX_ROOT` names a checkout
//! at that commit (every point under `CI=true`, every third otherwise), and
//! says it did not otherwise.

use std::collections::BTreeMap;

use recipe_drift::extract::inferencex;
use recipe_drift::launch::{Launch, Provenance, Role};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn facts() -> Value {
    let text =
        std::fs::read_to_string(format!("{ROOT}/tests/data/amd_disagg_rendered.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A launch's words (launcher and argv) and its env prefix.
fn words(l: &Launch) -> (Vec<String>, BTreeMap<String, String>) {
    let argv = l
        .launcher
        .iter()
        .chain(&l.argv)
        .map(|t| t.text.clone())
        .collect();
    let env = l
        .env
        .iter()
        .map(|e| (e.name.clone(), e.value.clone()))
        .collect();
    (argv, env)
}

#[test]
fn the_facts_cover_every_entry_and_role() {
    let f = facts();
    let entries = f["entries"].as_object().unwrap();
    assert_eq!(entries.len(), 10);
    let points: usize = entries.values().map(|v| v.as_array().unwrap().len()).sum();
    assert_eq!(points, 36);
    for (key, pts) in entries {
        for p in pts.as_array().unwrap() {
            for role in ["prefill", "decode"] {
                let argv = p["roles"][role]["argv"].as_array();
                assert!(argv.is_some_and(|a| a.len() > 5), "{key} {role}: {p}");
            }
        }
    }
}

#[test]
fn amd_disagg_roles_are_what_real_bash_builds() {
    let Ok(root) = std::env::var("INFERENCEX_ROOT") else {
        eprintln!("SKIPPED: INFERENCEX_ROOT is not set, so the real-bash facts are not compared");
        return;
    };
    let every = if std::env::var("CI").is_ok_and(|v| v == "true") {
        1
    } else {
        3
    };
    let f = facts();
    let (mut compared, mut exact, mut unknown) = (0, 0, 0);
    for (key, pts) in f["entries"].as_object().unwrap() {
        let e = inferencex::expand(std::path::Path::new(&root), key, &BTreeMap::new()).unwrap();
        assert_eq!(e.points.len(), pts.as_array().unwrap().len(), "{key}");
        for (i, (ours, fact)) in e.points.iter().zip(pts.as_array().unwrap()).enumerate() {
            if i % every != 0 {
                continue;
            }
            for (role, name) in [(Role::Prefill, "prefill"), (Role::Decode, "decode")] {
                compared += 1;
                let Some(l) = ours.launches.iter().find(|l| l.role == role) else {
                    // Not knowable: it must say why.
                    assert!(
                        ours.unknown.iter().any(|u| u.starts_with(name)),
                        "{key}[{i}] {name}: no launch and no reason"
                    );
                    unknown += 1;
                    continue;
                };
                let (argv, env) = words(l);
                let want: Vec<String> = fact["roles"][name]["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(argv, want, "{key}[{i}] {name}");
                for kv in fact["roles"][name]["env"].as_array().unwrap() {
                    let (k, v) = kv.as_str().unwrap().split_once('=').unwrap();
                    assert_eq!(
                        env.get(k).map(String::as_str),
                        Some(v),
                        "{key}[{i}] {name} {k}"
                    );
                }
                // Runtime values are unknown tokens, never compared as text.
                for t in l.argv.iter().filter(|t| t.text.contains("__cluster_")) {
                    assert!(matches!(t.provenance, Provenance::Unknown { .. }), "{t:?}");
                }
                exact += 1;
            }
        }
    }
    eprintln!("{compared} roles compared: {exact} exact, {unknown} unknown");
    assert!(exact * 10 >= compared * 9, "{exact} of {compared} exact");
}
