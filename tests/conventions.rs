//! Linter conventions: finding kinds are explained by id and by name.

fn explain(args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .arg("explain")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The (id, name) rows of `src/findings.yaml`, read as text (the table the
/// binary bundles).
fn kinds() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/findings.yaml")).unwrap();
    let table: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    table["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["id"].as_str().unwrap().to_string(),
                k["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_finding_kind_is_explained_by_its_id_and_by_its_name() {
    let kinds = kinds();
    assert!(kinds.len() >= 6);
    for (id, name) in &kinds {
        for ask in [id.as_str(), &id.to_lowercase(), name.as_str()] {
            let (code, out, err) = explain(&[ask]);
            assert_eq!(code, 0, "{ask}: {err}");
            assert!(out.starts_with(&format!("{id} {name}: ")), "{ask}: {out}");
            assert!(out.contains("severity: "), "{out}");
            assert!(out.contains("example ("), "{out}");
        }
    }
    // Keys are still explained beside kinds, in the order asked.
    let (code, out, _) = explain(&["RD001", "tp"]);
    assert_eq!(code, 0);
    let kind_at = out.find("RD001 contradicts").unwrap();
    let key_at = out.find("tp_size: MAJOR").unwrap();
    assert!(kind_at < key_at, "{out}");
    // Not a kind and not a key: an error with suggestions.
    let (code, _, err) = explain(&["RD999"]);
    assert_eq!(code, 2, "{err}");
}
