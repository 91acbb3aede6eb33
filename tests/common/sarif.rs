//! The official SARIF 2.1.0 schema (OASIS; see tests/data/NOTICE.md), for
//! the tests that validate recipe-drift's SARIF output.

/// A validator of the schema, formats (`uri`, `uri-reference`,
/// `date-time`) checked too.
pub fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"),
    )
    .unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

/// Fails with every schema error of `out` (a SARIF log as JSON text).
pub fn assert_valid(out: &str) {
    let doc: serde_json::Value = serde_json::from_str(out).unwrap();
    let errors: Vec<String> = validator()
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF: {errors:#?}\n{out}");
}
