//! What `explain` shows of an engine, shared by the engines' own `explain`
//! parts: release rows with equal neighbours merged, option descriptions, and
//! the rules that read or write a key.

use std::fmt::Write;

use crate::engine::argparse::OptionSpec;
use crate::engine::rules::Rule;
use crate::resolved::display_value;

/// One row per release: (release, description, default); equal neighbours merged.
pub(crate) fn merged_rows(
    rows: impl Iterator<Item = (String, Option<(String, String)>)>,
) -> Vec<String> {
    let mut merged: Vec<(String, String, String)> = Vec::new();
    for (name, desc) in rows {
        let (d, def) = desc.unwrap_or_else(|| ("absent".into(), String::new()));
        match merged.last_mut() {
            Some(last) if last.1 == d && last.2 == def => {
                last.0 = format!("{}..{name}", last.0.split("..").next().unwrap_or_default());
            }
            _ => merged.push((name, d, def)),
        }
    }
    if merged.iter().all(|r| r.1 == "absent") {
        return Vec::new();
    }
    merged
        .into_iter()
        .map(|(v, d, def)| format!("{v}: {d} {def}").trim_end().to_string())
        .collect()
}

/// An option's strings, destination, action and choices, and its default.
pub(crate) fn describe(a: &OptionSpec) -> (String, String) {
    let mut d = format!(
        "{} (dest {}, {}",
        a.option_strings.join(", "),
        a.dest,
        a.action
    );
    if let Some(c) = &a.choices {
        d.push_str(&format!(
            ", choices {}",
            c.iter().map(display_value).collect::<Vec<_>>().join("|")
        ));
    }
    d.push(')');
    (d, format!("default {}", display_value(&a.default)))
}

/// The rules of an engine that read or write a key, one entry each.
pub(crate) fn rules_part(out: &mut String, engine: &str, rules: &[Rule], key: &str) {
    for rule in rules.iter().filter(|r| r.touches(key)) {
        let _ = writeln!(
            out,
            "  {engine} rule {} [{}{}]{}\n    ref: {}",
            rule.id,
            rule.versions.as_deref().unwrap_or("all releases"),
            rule.platforms
                .as_ref()
                .map(|p| format!(", {}", p.join("/")))
                .unwrap_or_default(),
            rule.note
                .as_deref()
                .map(|n| format!(": {n}"))
                .unwrap_or_default(),
            rule.reference
        );
        let facts: Vec<&str> = rule
            .keys()
            .into_iter()
            .filter(|k| crate::engine::rules::is_fact(k))
            .collect();
        if !facts.is_empty() {
            let _ = writeln!(out, "    reads checkpoint facts: {}", facts.join(", "));
        }
    }
}
