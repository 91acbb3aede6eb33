//! Unit tests of the fix builder: where a value sits in its written word,
//! how the replacement keeps the word's quoting, and which findings get
//! which applicability.

use super::spell::{Quote, Syntax, spell, value_in};
use super::*;
use crate::finding::{KeyValues, SideValue};
use crate::resolved::Val;
use crate::span::Source;
use std::path::PathBuf;

#[test]
fn a_value_is_found_in_each_quoting() {
    assert_eq!(
        value_in("direct", false, "direct"),
        Some((0..6, Quote::Bare))
    );
    assert_eq!(
        value_in("'direct'", false, "direct"),
        Some((1..7, Quote::Single))
    );
    assert_eq!(
        value_in("\"direct\"", false, "direct"),
        Some((1..7, Quote::Double))
    );
    assert_eq!(
        value_in("--io=direct", true, "direct"),
        Some((5..11, Quote::Bare))
    );
    assert_eq!(
        value_in("--io='direct'", true, "direct"),
        Some((6..12, Quote::Single))
    );
    assert_eq!(
        value_in("\"--io=direct\"", true, "direct"),
        Some((6..12, Quote::Double))
    );
    // Escapes and pieces of several quotings are not one written value.
    assert_eq!(value_in("dir'ect'", false, "direct"), None);
    assert_eq!(value_in("dir\\ect", false, "direct"), None);
}

#[test]
fn a_replacement_keeps_the_quoting_or_quotes_what_needs_it() {
    assert_eq!(
        spell("kernel", Quote::Bare, Syntax::Shell).unwrap(),
        "kernel"
    );
    assert_eq!(spell("a b", Quote::Bare, Syntax::Shell).unwrap(), "'a b'");
    assert_eq!(spell("a b", Quote::Single, Syntax::Shell).unwrap(), "a b");
    assert!(spell("a b", Quote::Bare, Syntax::Yaml).is_err());
    assert!(spell("it's", Quote::Single, Syntax::Shell).is_err());
    assert!(spell("$x", Quote::Double, Syntax::Shell).is_err());
}

/// A side's value written as `words` (each a (text, written) pair) in a file
/// `name` holding `text`.
fn side(name: &str, text: &str, words: &[&str], value: &str) -> SideValue {
    let src = Source::new(Origin::File(PathBuf::from(name)), text.to_string());
    let spans = words
        .iter()
        .map(|w| {
            let at = text.find(w).expect("the word is in the text");
            src.span(at, at + w.len())
        })
        .collect();
    let written = words
        .iter()
        .map(|w| shell_words::split(w).unwrap().join(""))
        .map(|w| shell_words::quote(&w).into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    SideValue {
        val: Val::known(serde_json::Value::String(value.into())),
        source: ValueSource::Cli,
        written: Some(written),
        spans,
        rules: Vec::new(),
        no_effect: None,
    }
}

fn key(docs: SideValue, recipe: SideValue) -> KeyValues {
    KeyValues {
        key: "hicache_io_backend".into(),
        kind: Kind::Contradicts,
        class: Class::Major,
        docs,
        recipe,
        waiver: None,
    }
}

fn recipe() -> SideValue {
    side(
        "r.sh",
        "x --hicache-io-backend kernel\n",
        &["--hicache-io-backend", "kernel"],
        "kernel",
    )
}

#[test]
fn a_quoted_page_token_is_replaced_inside_its_quotes_safely() {
    let text = "```bash\nsglang serve \\\n  --hicache-io-backend 'direct' \\\n  --tp 2\n```\n";
    let docs = side(
        "p.md",
        text,
        &["--hicache-io-backend", "'direct'"],
        "direct",
    );
    let fix = for_key(&key(docs, recipe())).expect("a fix");
    assert_eq!(fix.applicability, Applicability::Safe);
    let e = &fix.edits[0];
    assert_eq!(e.replacement, "kernel");
    assert_eq!(&text[e.span.start..e.span.end], "direct");
    assert_eq!(e.span.pos.line, 3);
}

#[test]
fn an_equals_form_keeps_its_option() {
    let text = "sglang serve --hicache-io-backend=direct\n";
    let docs = side("p.md", text, &["--hicache-io-backend=direct"], "direct");
    let fix = for_key(&key(docs, recipe())).expect("a fix");
    let e = &fix.edits[0];
    assert_eq!(&text[e.span.start..e.span.end], "direct");
    assert_eq!(e.replacement, "kernel");
}

#[test]
fn a_value_from_a_variable_is_not_fixable_and_says_where() {
    let text = "IO=direct\nsglang serve --hicache-io-backend $IO\n";
    let mut docs = side("p.md", text, &["--hicache-io-backend", "$IO"], "direct");
    docs.written = Some("--hicache-io-backend direct".into());
    let fix = for_key(&key(docs, recipe())).expect("a fix");
    let why = fix.applicability.why().unwrap();
    assert!(why.contains("$IO at p.md:2:"), "{why}");
    assert!(fix.edits.is_empty());
}

#[test]
fn a_recipe_yaml_scalar_needs_unsafe_fixes() {
    let text = "args:\n  - \"--hicache-io-backend\"\n  - \"direct\"\n";
    let docs = side(
        "m.yaml",
        text,
        &["\"--hicache-io-backend\"", "\"direct\""],
        "direct",
    );
    let fix = for_key(&key(docs, recipe())).expect("a fix");
    assert!(matches!(fix.applicability, Applicability::Unsafe { .. }));
    assert!(!fix.applies(false) && fix.applies(true));
    assert_eq!(
        &text[fix.edits[0].span.start..fix.edits[0].span.end],
        "direct"
    );
}

#[test]
fn waived_minor_and_missing_findings_get_no_fix() {
    let docs = || {
        side(
            "p.md",
            "--hicache-io-backend direct",
            &["--hicache-io-backend", "direct"],
            "direct",
        )
    };
    let mut k = key(docs(), recipe());
    k.class = Class::Minor;
    assert!(for_key(&k).is_none());
    let mut k = key(docs(), recipe());
    k.kind = Kind::Missing;
    assert!(for_key(&k).is_none());
    let mut k = key(docs(), recipe());
    k.waiver = Some(crate::finding::Waived {
        reason: "known".into(),
        until: "2099-01-01".into(),
        at: None,
    });
    assert!(for_key(&k).is_none());
}

#[test]
fn a_plan_merges_equal_edits_and_drops_disagreeing_ones() {
    let text = "sglang serve --hicache-io-backend direct\n";
    let docs = || side("p.md", text, &["--hicache-io-backend", "direct"], "direct");
    let a = for_key(&key(docs(), recipe())).unwrap();
    let plan = Plan::new([&a, &a], false);
    assert_eq!(plan.edits(), 1);
    assert!(
        plan.diff()
            .contains("+sglang serve --hicache-io-backend kernel")
    );
    let other = side("r2.sh", "x --io layer\n", &["--io", "layer"], "layer");
    let b = for_key(&key(docs(), other)).unwrap();
    let plan = Plan::new([&a, &b], false);
    assert_eq!(plan.edits(), 0);
    assert!(
        plan.conflicts[0].contains("kernel, layer"),
        "{:?}",
        plan.conflicts
    );
}

#[test]
fn a_value_written_in_a_variable_assignment_needs_unsafe_fixes() {
    let text = "IO=direct\nsglang serve --hicache-io-backend \"$IO\"\n";
    let mut docs = side("p.md", text, &["--hicache-io-backend", "direct"], "direct");
    docs.written = Some("--hicache-io-backend direct".into());
    let fix = for_key(&key(docs, recipe())).expect("a fix");
    let why = fix.applicability.why().unwrap_or_default().to_string();
    assert!(
        matches!(fix.applicability, Applicability::Unsafe { .. }),
        "{why}"
    );
    assert!(why.contains("p.md:1:4"), "{why}");
    assert_eq!(
        &text[fix.edits[0].span.start..fix.edits[0].span.end],
        "direct"
    );
}

#[test]
fn a_value_already_written_as_the_recipe_writes_it_is_not_fixable() {
    let text = "sglang serve --hicache-io-backend kernel\n";
    let mut docs = side("p.md", text, &["--hicache-io-backend", "kernel"], "direct");
    docs.written = Some("--hicache-io-backend kernel".into());
    let fix = for_key(&key(docs, recipe())).expect("a fix");
    assert!(fix.applicability.why().unwrap().contains("already write"));
}

#[test]
fn a_plan_writes_nothing_over_a_file_changed_since_it_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.md");
    let text = "sglang serve --hicache-io-backend direct\n";
    std::fs::write(&path, text).unwrap();
    let name = path.display().to_string();
    let docs = side(&name, text, &["--hicache-io-backend", "direct"], "direct");
    let fix = for_key(&key(docs, recipe())).unwrap();
    let plan = Plan::new([&fix], false);
    std::fs::write(&path, format!("{text}# edited\n")).unwrap();
    let err = plan.write().unwrap_err().to_string();
    assert!(err.contains("changed since the run read it"), "{err}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .ends_with("# edited\n")
    );
    std::fs::write(&path, text).unwrap();
    plan.write().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "sglang serve --hicache-io-backend kernel\n"
    );
}

#[test]
fn a_field_of_a_json_value_is_not_fixable() {
    let text = "vllm serve m --speculative-config '{\"num_speculative_tokens\":2}'\n";
    let docs = side(
        "p.md",
        text,
        &["--speculative-config", "'{\"num_speculative_tokens\":2}'"],
        "2",
    );
    let recipe = side(
        "r.sh",
        "x --speculative-config '{\"num_speculative_tokens\":3}'\n",
        &["--speculative-config", "'{\"num_speculative_tokens\":3}'"],
        "3",
    );
    let fix = for_key(&key(docs, recipe)).expect("a fix");
    assert!(fix.applicability.why().unwrap().contains("JSON"), "{fix:?}");
}

#[test]
fn two_spellings_of_one_file_are_one_file_of_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let path = dir.path().join("p.md");
    let text = "sglang serve --hicache-io-backend direct --hicache-mem-layout page_first_direct\n";
    std::fs::write(&path, text).unwrap();
    let io = side(
        &path.display().to_string(),
        text,
        &["--hicache-io-backend", "direct"],
        "direct",
    );
    let other = dir.path().join("sub/../p.md").display().to_string();
    let layout = side(
        &other,
        text,
        &["--hicache-mem-layout", "page_first_direct"],
        "page_first_direct",
    );
    let layout_recipe = side(
        "r.sh",
        "x --hicache-mem-layout page_first\n",
        &["--hicache-mem-layout", "page_first"],
        "page_first",
    );
    let a = for_key(&key(io, recipe())).unwrap();
    let b = for_key(&key(layout, layout_recipe)).unwrap();
    let plan = Plan::new([&a, &b], false);
    assert_eq!((plan.files(), plan.edits()), (1, 2));
    plan.write().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "sglang serve --hicache-io-backend kernel --hicache-mem-layout page_first\n"
    );
}
