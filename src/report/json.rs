//! Versioned JSON output.

use serde::Serialize;
use serde_json::json;

use super::{LinkReport, Status, finding_keys, normalized};
use crate::finding::{Kind, Severity, SideValue};
use crate::policy::{Class, Policy};
use crate::waiver::Judged;

/// The JSON schema version of `compare`/`check` output.
pub const SCHEMA_VERSION: u32 = 1;

/// One link as the document lists it, masked and pretty-printed (two-space
/// indent, at the top level).
pub fn link(l: &LinkReport, policy: &Policy) -> String {
    let keys = finding_keys(&l.comparison);
    let side = |s: &super::SideReport| {
        let mut side = json!({
            "file": s.launch.span.file.as_ref(),
            "line": s.launch.span.pos.line,
            "col": s.launch.span.pos.col,
            "engine": s.resolved.engine,
            "launcher": s.launch.launcher_text(),
            "version": s.resolved.version,
            "platform": s.resolved.platform,
            "startup_errors": s.resolved.startup_errors,
            "normalized": normalized(s, policy, &keys).lines().collect::<Vec<_>>(),
        });
        // Defects of the command's text (each an error of its own).
        if !s.launch.defects.is_empty() {
            side["defects"] = json!(s.launch.defects);
        }
        side
    };
    let mut link = json!({
        "name": l.name,
        "status": l.status(),
        "docs": side(&l.docs),
        "recipe": side(&l.recipe),
        "findings": l.findings().map(FindingOut::from).collect::<Vec<_>>(),
        "shared_unknowns": l.comparison.shared_unknowns,
    });
    if let Some(pair) = &l.pair {
        link["pair"] = json!(pair);
    }
    pretty(link)
}

/// A value masked and pretty-printed.
fn pretty(mut v: serde_json::Value) -> String {
    super::mask_json(&mut v);
    serde_json::to_string_pretty(&v).expect("serializable")
}

/// The document: the links as written by [`link`], the links that could not
/// be compared (`status: error`), the links not run (`status: skipped`, with
/// the reason; the summary counts them as `skipped`), the coverage findings
/// and what became of the config's waivers (`waivers`, when any), then the
/// summary. The links are printed text already: the run never holds the
/// whole document as a tree (a 10,000-pair run prints ~50 MB).
pub fn finish(
    links: impl Iterator<Item = String>,
    rest: &super::Rest,
    doc: &mut super::sink::Sink,
) {
    let super::Rest {
        tally,
        failures,
        skipped,
        coverage,
        waivers,
    } = *rest;
    let tail: Vec<String> = failures
        .iter()
        .map(|f| {
            pretty(json!({"name": f.name, "status": Status::Error, "error": f.error.to_string()}))
        })
        .chain(skipped.iter().map(|s| {
            pretty(json!({"name": s.name, "status": Status::Skipped, "reason": s.reason}))
        }))
        .collect();
    let mut summary = json!({
        "links": tally.links + failures.len(),
        "drift": tally.drift,
        "errors": tally.judged(Severity::Error),
        "warnings": tally.judged(Severity::Warning),
        "infos": tally.judged(Severity::Info),
    });
    summary["failed"] = json!(failures.len());
    if !waivers.is_empty() {
        summary["expired_waivers"] = json!(waivers.iter().filter(|w| w.is_error()).count());
    }
    if !skipped.is_empty() {
        summary["skipped"] = json!(skipped.len());
    }
    if !coverage.is_empty() {
        let count = |k: &str| coverage.iter().filter(|c| c.kind == k).count();
        summary["coverage"] = json!({
            crate::pair::DOCS_UNPAIRED: count(crate::pair::DOCS_UNPAIRED),
            crate::pair::RECIPE_UNPAIRED: count(crate::pair::RECIPE_UNPAIRED),
        });
    }
    let mut coverage = serde_json::Value::Array(
        coverage
            .iter()
            .map(|c| {
                let mut v = json!(c);
                v["id"] = json!(crate::finding::kind_info(c.kind).map_or("", |k| k.id.as_str()));
                v
            })
            .collect(),
    );
    super::mask_json(&mut coverage);
    let mut waivers = json!(waivers);
    super::mask_json(&mut waivers);
    // The document, as serde_json's pretty printer lays it out (two-space
    // indent), with the links already printed.
    doc.push_str("{\n");
    let field = |doc: &mut super::sink::Sink, name: &str, text: &str| {
        let _ = std::fmt::Write::write_fmt(doc, format_args!("  {name:?}: "));
        indent_into(doc, text, "  ");
        doc.push_str(",\n");
    };
    field(doc, "schema_version", &SCHEMA_VERSION.to_string());
    field(doc, "tool", "\"recipe-drift\"");
    let mut first = true;
    let mut item = |doc: &mut super::sink::Sink, link: &str| {
        doc.push_str(if first { "  \"links\": [\n" } else { ",\n" });
        first = false;
        doc.push_str("    ");
        indent_into(doc, link, "    ");
    };
    for link in links {
        item(doc, &link);
    }
    for link in &tail {
        item(doc, link);
    }
    if first {
        field(doc, "links", "[]");
    } else {
        doc.push_str("\n  ],\n");
    }
    for (name, part) in [("coverage", &coverage), ("waivers", &waivers)] {
        if part.as_array().is_some_and(|a| !a.is_empty()) {
            field(
                doc,
                name,
                &serde_json::to_string_pretty(part).expect("serializable"),
            );
        }
    }
    doc.push_str("  \"summary\": ");
    indent_into(
        doc,
        &serde_json::to_string_pretty(&summary).expect("serializable"),
        "  ",
    );
    doc.push_str("\n}\n");
}

/// Appends `text` with every line after the first indented by `indent`
/// (a pretty-printed value nested one level deeper; JSON strings hold no
/// raw newline, so lines are the printer's own).
fn indent_into(doc: &mut super::sink::Sink, text: &str, indent: &str) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            doc.push('\n');
            doc.push_str(indent);
        }
        doc.push_str(line);
    }
}

/// A finding as the JSON output has it: the severity it counts with (information
/// when a waiver suppressed it) and the waiver's mark.
#[derive(Serialize)]
struct FindingOut<'a> {
    key: &'a str,
    /// The kind's stable rule id (`RD001`).
    id: &'static str,
    kind: Kind,
    class: Class,
    severity: Severity,
    docs: &'a SideValue,
    recipe: &'a SideValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    waived: Option<Waived<'a>>,
}

/// The mark of a suppressed finding.
#[derive(Serialize)]
struct Waived<'a> {
    reason: &'a str,
    until: &'a str,
    /// An inline suppression's place.
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<&'a str>,
}

impl<'a> From<Judged<'a>> for FindingOut<'a> {
    fn from(j: Judged<'a>) -> Self {
        let f = j.finding;
        FindingOut {
            key: &f.key,
            id: crate::finding::kind_info(f.kind.name()).map_or("", |k| k.id.as_str()),
            kind: f.kind,
            class: f.class,
            severity: j.severity(),
            docs: &f.docs,
            recipe: &f.recipe,
            waived: j.waiver.map(|w| Waived {
                reason: &w.reason,
                until: &w.until,
                at: w.at.as_deref(),
            }),
        }
    }
}
