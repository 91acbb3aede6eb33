//! Versioned JSON output.

use serde::Serialize;
use serde_json::json;

use super::{Failure, LinkReport, Skipped, finding_keys, normalized};
use crate::compare::Severity;
use crate::policy::Policy;
use crate::waiver::Outcome;

/// The JSON schema version of `compare`/`check` output.
pub const SCHEMA_VERSION: u32 = 1;

/// Renders link reports, the links that could not be compared (`status:
/// error`), the links not run (`status: skipped`, with the reason; the summary
/// counts them as `skipped`) and what became of the config's waivers
/// (`waivers`, when any).
pub fn render_with_failures(
    links: &[LinkReport],
    failures: &[Failure],
    skipped: &[Skipped],
    waivers: &[Outcome],
    policy: &Policy,
) -> String {
    let mut out = Vec::new();
    for l in links {
        let keys = finding_keys(&l.comparison);
        let side = |s: &super::SideReport| {
            json!({
                "file": s.launch.span.file.as_ref(),
                "line": s.launch.span.pos.line,
                "col": s.launch.span.pos.col,
                "engine": s.resolved.engine,
                "launcher": s.launch.launcher_text(),
                "version": s.resolved.version,
                "platform": s.resolved.platform,
                "startup_errors": s.resolved.startup_errors,
                "normalized": normalized(s, policy, &keys).lines().collect::<Vec<_>>(),
            })
        };
        out.push(json!({
            "name": l.name,
            "status": status(l),
            "docs": side(&l.docs),
            "recipe": side(&l.recipe),
            "findings": l.comparison.findings,
            "shared_unknowns": l.comparison.shared_unknowns,
        }));
    }
    for f in failures {
        out.push(json!({"name": f.name, "status": "error", "error": f.error.to_string()}));
    }
    for s in skipped {
        out.push(json!({"name": s.name, "status": "skipped", "reason": s.reason}));
    }
    let mut summary = summary(links);
    summary["links"] = json!(links.len() + failures.len());
    summary["failed"] = json!(failures.len());
    if !waivers.is_empty() {
        summary["expired_waivers"] = json!(waivers.iter().filter(|w| w.is_error()).count());
    }
    if !skipped.is_empty() {
        summary["skipped"] = json!(skipped.len());
    }
    let doc = Doc {
        schema_version: SCHEMA_VERSION,
        tool: "recipe-drift",
        links: out,
        waivers: waivers.to_vec(),
        summary,
    };
    let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
    s.push('\n');
    s
}

#[derive(Serialize)]
struct Doc {
    schema_version: u32,
    tool: &'static str,
    links: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    waivers: Vec<Outcome>,
    summary: serde_json::Value,
}

/// `drift`, `unknown` or `ok`.
pub fn status(l: &LinkReport) -> &'static str {
    if l.comparison.has_errors()
        || !l.docs.resolved.startup_errors.is_empty()
        || !l.recipe.resolved.startup_errors.is_empty()
    {
        "drift"
    } else if l
        .comparison
        .findings
        .iter()
        .any(|f| f.severity == Severity::Warning)
    {
        "unknown"
    } else {
        "ok"
    }
}

fn summary(links: &[LinkReport]) -> serde_json::Value {
    let count = |s: Severity| {
        links
            .iter()
            .flat_map(|l| &l.comparison.findings)
            .filter(|f| f.severity == s)
            .count()
    };
    json!({
        "links": links.len(),
        "drift": links.iter().filter(|l| status(l) == "drift").count(),
        "errors": count(Severity::Error),
        "warnings": count(Severity::Warning),
        "infos": count(Severity::Info),
    })
}
