//! `Resolved` x `Resolved` -> `Finding`s under a policy.

use serde::Serialize;
use serde_json::Value;

use crate::engine::argparse::py_eq;
use crate::policy::{Class, Policy};
use crate::resolve::{Entry, Resolved, RuleHit, Source, Val};
use crate::source::Span;

/// What kind of difference a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Both sides set the key, to different values.
    Contradicts,
    /// One side sets a value the other leaves at a different default.
    Missing,
    /// Cannot be decided from the text.
    Unknown,
    /// Written differently, same after resolution.
    Equivalent,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// MAJOR drift: fails the check.
    Error,
    /// MAJOR key that cannot be decided.
    Warning,
    /// Minor drift or an equivalence.
    Info,
}

/// One side of a finding.
#[derive(Debug, Clone, Serialize)]
pub struct SideValue {
    /// The resolved value.
    #[serde(flatten)]
    pub val: Val,
    /// Where it came from.
    pub source: Source,
    /// How it was written, if written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
    /// Where it was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<Span>,
    /// Rules that changed it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleHit>,
}

impl SideValue {
    fn from(e: Option<&Entry>) -> SideValue {
        match e {
            Some(e) => SideValue {
                val: e.val.clone(),
                source: e.source,
                written: e.written.clone(),
                spans: e.spans.clone(),
                rules: e.rules.clone(),
            },
            None => SideValue {
                val: Val::known(Value::Null),
                source: Source::Default,
                written: None,
                spans: vec![],
                rules: vec![],
            },
        }
    }

    /// Whether the text decides this value (written, from context, or via a rule).
    pub fn is_set(&self) -> bool {
        matches!(self.source, Source::Cli | Source::Env | Source::Context) || !self.rules.is_empty()
    }
}

/// One difference (or equivalence) between the two sides.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Canonical key.
    pub key: String,
    /// Kind of difference.
    pub kind: Kind,
    /// The key's policy class.
    pub class: Class,
    /// Severity.
    pub severity: Severity,
    /// The docs side.
    pub docs: SideValue,
    /// The recipe side.
    pub recipe: SideValue,
}

/// Keys unknown on both sides for the same reason: the same inputs decide them alike.
#[derive(Debug, Clone, Serialize)]
pub struct SharedUnknown {
    /// Canonical key.
    pub key: String,
    /// The shared reason.
    pub reason: String,
}

/// The comparison of two resolved launches.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Findings, most severe first, then by key.
    pub findings: Vec<Finding>,
    /// MAJOR keys unknown on both sides for the same reason.
    pub shared_unknowns: Vec<SharedUnknown>,
}

impl Comparison {
    /// Whether any finding is an error (MAJOR drift).
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Compares docs and recipe under a policy.
pub fn compare(docs: &Resolved, recipe: &Resolved, policy: &Policy) -> Comparison {
    let mut keys: Vec<&String> = docs.values.keys().chain(recipe.values.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut findings = Vec::new();
    let mut shared_unknowns = Vec::new();
    for key in keys {
        let class = policy.class(key);
        if class == Class::Ignore {
            continue;
        }
        let d = SideValue::from(docs.values.get(key));
        let r = SideValue::from(recipe.values.get(key));
        let kind = match (&d.val, &r.val) {
            (Val::Known { value: a }, Val::Known { value: b }) => {
                if values_equal(a, b) {
                    let text = |s: &SideValue| s.written.clone().unwrap_or_default();
                    let differs = text(&d) != text(&r) || d.source != r.source;
                    if (d.is_set() || r.is_set()) && differs {
                        Kind::Equivalent
                    } else {
                        continue;
                    }
                } else if d.is_set() && r.is_set() || !d.is_set() && !r.is_set() {
                    Kind::Contradicts
                } else {
                    Kind::Missing
                }
            }
            (Val::Unknown { reason: a, .. }, Val::Unknown { reason: b, .. }) if a == b => {
                if class == Class::Major {
                    shared_unknowns.push(SharedUnknown {
                        key: key.clone(),
                        reason: a.clone(),
                    });
                }
                continue;
            }
            _ => Kind::Unknown,
        };
        let severity = match (kind, class) {
            (Kind::Equivalent, _) => Severity::Info,
            (Kind::Unknown, Class::Major) => Severity::Warning,
            (_, Class::Major) => Severity::Error,
            _ => Severity::Info,
        };
        findings.push(Finding {
            key: key.clone(),
            kind,
            class,
            severity,
            docs: d,
            recipe: r,
        });
    }
    findings.sort_by(|a, b| (a.severity, a.kind, &a.key).cmp(&(b.severity, b.kind, &b.key)));
    Comparison {
        findings,
        shared_unknowns,
    }
}

/// Equality after resolution: numbers by value, lists element-wise.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        _ => py_eq(a, b),
    }
}
