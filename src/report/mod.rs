//! Reports: one module per output format.

pub mod human;
pub mod json;

use serde::Serialize;

use crate::compare::Comparison;
use crate::launch::Launch;
use crate::policy::{Class, Policy};
use crate::resolve::{Resolved, display_value};

/// One side of a compared link.
#[derive(Debug, Clone, Serialize)]
pub struct SideReport {
    /// The launch as extracted.
    pub launch: Launch,
    /// The launch after the resolver.
    pub resolved: Resolved,
}

/// The result of comparing one link.
#[derive(Debug, Clone, Serialize)]
pub struct LinkReport {
    /// The link's name.
    pub name: String,
    /// The docs side.
    pub docs: SideReport,
    /// The recipe side.
    pub recipe: SideReport,
    /// Findings.
    pub comparison: Comparison,
}

/// A link that could not be compared (bad input on one side).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Failure {
    /// The link's name.
    pub name: String,
    /// The error, with its `file:line:col`.
    pub error: String,
}

/// A link that was not run, with the reason (`check FILES...`, `--changed-from`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    /// The link's name.
    pub name: String,
    /// Why it was not run.
    pub reason: String,
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Annotated text for people.
    Human,
    /// Versioned JSON.
    Json,
}

/// The normalised command of one side: every non-ignored key the text decides
/// (written, from context, or changed by a rule) to a known value, plus the keys of
/// findings, sorted, one per line.
pub fn normalized(side: &SideReport, policy: &Policy, extra_keys: &[&str]) -> String {
    let mut env_lines = Vec::new();
    let mut arg_lines = Vec::new();
    for (key, e) in &side.resolved.values {
        // The engine heads the command below.
        if policy.class(key) == Class::Ignore || e.inactive.is_some() || key == "engine" {
            continue;
        }
        // Unknowns are listed only where they matter (in a finding).
        let set = (e.is_explicit() || !e.rules.is_empty()) && e.val.value().is_some();
        if !set && !extra_keys.contains(&key.as_str()) {
            continue;
        }
        let v = e.val.display();
        if let Some(name) = key.strip_prefix("env:") {
            env_lines.push(format!("{name}={v}"));
        } else if key == "model" || key == "hardware" {
            arg_lines.push(format!("# {key}: {v}"));
        } else {
            // Dashes in the option's name, not in a JSON sub-key (vLLM's dotted form).
            let opt = match key.split_once('.') {
                Some((head, sub)) => format!("{}.{sub}", head.replace('_', "-")),
                None => key.replace('_', "-"),
            };
            arg_lines.push(match e.val.value() {
                Some(serde_json::Value::Bool(true)) => format!("--{opt}"),
                Some(serde_json::Value::Bool(false)) => format!("--{opt}=false"),
                Some(serde_json::Value::Null) => format!("--{opt} (unset)"),
                _ => format!("--{opt} {v}"),
            });
        }
    }
    let mut out = String::new();
    for l in env_lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(&format!(
        "{} {}\n",
        side.resolved.engine, side.resolved.version.version
    ));
    for l in arg_lines {
        out.push_str("  ");
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Keys that appear in findings (shown in both normalised commands).
pub fn finding_keys(c: &Comparison) -> Vec<&str> {
    c.findings.iter().map(|f| f.key.as_str()).collect()
}

/// A value for messages.
pub fn show(v: &serde_json::Value) -> String {
    display_value(v)
}
