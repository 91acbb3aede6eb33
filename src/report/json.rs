//! Versioned JSON output.

use serde_json::json;

use super::{LinkReport, Status, finding_keys, normalized};
use crate::finding::{About, Finding, Severity};
use crate::policy::Policy;

/// The JSON schema version of `compare`/`check` output.
pub const SCHEMA_VERSION: u32 = 1;

/// One link as the document lists it, masked and pretty-printed (two-space
/// indent, at the top level).
pub fn link(l: &LinkReport, findings: &[Finding], policy: &Policy) -> String {
    let keys = finding_keys(&l.comparison);
    let side = |s: &super::SideReport, label: &str| {
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
        // A release newer than every bundled one, and the words set aside
        // (`newer-release`, at the policy's severity).
        let newer: Vec<serde_json::Value> = findings
            .iter()
            .filter(|f| {
                f.kind == crate::finding::NEWER_RELEASE
                    && matches!(&f.about, About::Command { side, .. } if *side == label)
            })
            .map(finding)
            .collect();
        if !newer.is_empty() {
            side["newer_release"] = json!(newer);
        }
        side
    };
    let mut link = json!({
        "name": l.name,
        "status": l.status(),
        "docs": side(&l.docs, "docs"),
        "recipe": side(&l.recipe, "recipe"),
        // The keys' findings: the commands' own are the sides'
        // `startup_errors`, `defects` and `newer_release`.
        "findings": findings
            .iter()
            .filter(|f| matches!(f.about, About::Key(_)))
            .map(finding)
            .collect::<Vec<_>>(),
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
/// the reason; the summary counts them as `skipped`), the coverage findings,
/// the run's other findings (`findings`: a generator the state budget cut)
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
    // The run's findings that are no link's: coverage (a deployment with no
    // partner) in `coverage`, the others (a refused or broken command no
    // pair reports, a generator the state budget cut) in `findings`.
    let (unpaired, others): (Vec<&Finding>, Vec<&Finding>) =
        coverage.iter().partition(|c| c.unpaired().is_some());
    // The counts are of the links' findings and the run's own `findings`
    // (coverage is counted in `coverage`).
    let count = |s: Severity| tally.judged(s) + others.iter().filter(|f| f.severity == s).count();
    let mut summary = json!({
        "links": tally.links + failures.len(),
        "drift": tally.drift,
        "errors": count(Severity::Error),
        "warnings": count(Severity::Warning),
        "infos": count(Severity::Info),
    });
    summary["failed"] = json!(failures.len());
    if !waivers.is_empty() {
        summary["expired_waivers"] = json!(waivers.iter().filter(|w| w.is_error()).count());
    }
    if !skipped.is_empty() {
        summary["skipped"] = json!(skipped.len());
    }
    if !unpaired.is_empty() {
        let count = |k: &str| unpaired.iter().filter(|c| c.kind == k).count();
        summary["coverage"] = json!({
            crate::pair::DOCS_UNPAIRED: count(crate::pair::DOCS_UNPAIRED),
            crate::pair::RECIPE_UNPAIRED: count(crate::pair::RECIPE_UNPAIRED),
        });
    }
    let mut coverage = serde_json::Value::Array(unpaired.into_iter().map(finding).collect());
    super::mask_json(&mut coverage);
    let mut others = serde_json::Value::Array(others.into_iter().map(finding).collect());
    super::mask_json(&mut others);
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
    for (name, part) in [
        ("coverage", &coverage),
        ("findings", &others),
        ("waivers", &waivers),
    ] {
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

/// One finding as the JSON documents list it (not masked yet): its own
/// fields per kind of check, each with the kind's stable `id` and the
/// severity it counts with (information when a waiver silenced it). A key:
/// `key`, `id`, `kind`, `class`, `severity`, both sides and the waiver's
/// mark; a deployment: `kind`, `severity`, `side`, `deployment`, `span`,
/// `identity`, `shape`, `nearest`, `message` (what is missing), `id`; a
/// generator's defect: `id`, `kind`, `severity`, `file`, `line`, `col`,
/// `generator`, `message`, `states`; a command: `id`, `kind`, `severity`,
/// `message`, `file`, `line`, `col`. Every command writes its findings
/// through this.
pub fn finding(f: &Finding) -> serde_json::Value {
    let id = f.id();
    match &f.about {
        About::Key(k) => {
            let mut v = json!({
            "key": k.key,
            "id": id,
            "kind": k.kind,
            "class": k.class,
            "severity": f.severity,
            "docs": k.docs,
            "recipe": k.recipe,
            });
            if let Some(fix) = &f.fix {
                v["fix"] = fix_json(fix);
            }
            with_waiver(v, k.waiver.as_ref())
        }
        About::Deployment(u) => {
            let mut v = json!({
                "kind": f.kind,
                "severity": f.severity,
                "side": u.side,
                "deployment": u.deployment,
                "span": f.primary,
                "identity": u.identity,
                "shape": u.shape,
            });
            if let Some(n) = &u.nearest {
                v["nearest"] = json!(n);
            }
            v["message"] = json!(u.why);
            v["id"] = json!(id);
            v
        }
        About::Generator {
            generator,
            detail,
            states,
        } => {
            let at = f.primary.as_ref();
            json!({
                "id": id,
                "kind": f.kind,
                "severity": f.severity,
                "file": at.map(|s| &*s.file),
                "line": at.map(|s| s.pos.line),
                "col": at.map(|s| s.pos.col),
                "generator": generator,
                "message": detail,
                "states": states,
            })
        }
        About::Command {
            side,
            rule,
            deployments,
            ..
        } => {
            let at = f.primary.as_ref();
            let mut v = json!({
                "id": id,
                "kind": f.kind,
                "severity": f.severity,
                "message": f.message.plain(),
                "file": at.map(|s| &*s.file),
                "line": at.map(|s| s.pos.line),
                "col": at.map(|s| s.pos.col),
            });
            // A run's finding: whose command, and the release's rule.
            if !deployments.is_empty() {
                v["side"] = json!(side);
                v["deployments"] = json!(deployments);
                if let Some((rule, reference)) = rule {
                    v["rule"] = json!({"id": rule, "reference": reference});
                }
            }
            v
        }
    }
}

/// A key's finding with the mark of the waiver that silenced it
/// (`waived`: reason, until, and an inline suppression's place).
/// A finding's fix: its applicability (`safe`, `unsafe`, `not_fixable`),
/// the reason when it is not safe, what it does and its edits (each the
/// span it replaces and the replacement).
fn fix_json(fix: &crate::finding::Fix) -> serde_json::Value {
    let mut v = json!({
        "applicability": fix.applicability.name().replace(' ', "_"),
    });
    if let Some(why) = fix.applicability.why() {
        v["why"] = json!(why);
    }
    if !fix.edits.is_empty() {
        v["title"] = json!(fix.title);
        v["edits"] = fix
            .edits
            .iter()
            .map(|e| json!({"span": e.span, "replacement": e.replacement}))
            .collect();
    }
    v
}

fn with_waiver(mut v: serde_json::Value, w: Option<&crate::finding::Waived>) -> serde_json::Value {
    if let Some(w) = w {
        let mut m = json!({"reason": w.reason, "until": w.until});
        if let Some(at) = &w.at {
            m["at"] = json!(at);
        }
        v["waived"] = m;
    }
    v
}
