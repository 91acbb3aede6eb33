//! Resolver rules as data: an ordered YAML list per engine, applied after parsing.
//!
//! ```yaml
//! rules:
//!   - id: hicache-page-first-direct-io
//!     versions: ">=0.5.12"          # PEP 440 specifiers (optional)
//!     platforms: [rocm]             # optional; unknown platform -> unknown result
//!     when:                          # all must hold
//!       enable_hierarchical_cache: true
//!       hicache_mem_layout: {in: [page_first]}
//!     set:   {hicache_mem_layout: page_first_direct}   # literal, {copy: k}, {add: [k, 1]}, {floordiv: [k, k2]}
//!     unknown: {key: "reason"}      # the value cannot be known from text
//!     error: "message"              # the engine refuses to start
//!     reference: "sglang 0.5.19 server_args.py ..."
//! ```
//!
//! Conditions: a plain value (Python `==`), `{in: [..]}`, `{not_in: [..]}`, `{not: v}`,
//! `{gt|ge|lt|le: n}`, `{set: true|false}` (written on the command line or in env).
//! A condition on an unknown value makes the rule's outcome unknown, never guessed.

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use serde::Deserialize;
use serde_json::Value;

use crate::engine::argparse::py_eq;
use crate::launch::Platform;
use crate::resolve::{Entry, RuleHit, Source, StartupError, Val};

/// One rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Stable id, named in reports.
    pub id: String,
    /// PEP 440 specifiers of the releases that have it.
    #[serde(default)]
    pub versions: Option<String>,
    /// Platforms it runs on (absent: all).
    #[serde(default)]
    pub platforms: Option<Vec<String>>,
    /// Conditions on resolved keys.
    #[serde(default)]
    pub when: BTreeMap<String, Value>,
    /// New values.
    #[serde(default)]
    pub set: BTreeMap<String, Value>,
    /// Keys that become unknown, with the reason.
    #[serde(default)]
    pub unknown: BTreeMap<String, String>,
    /// A startup error the engine raises.
    #[serde(default)]
    pub error: Option<String>,
    /// Upstream reference (file, function, PR).
    pub reference: String,
    /// A short human explanation.
    #[serde(default)]
    pub note: Option<String>,
}

/// An environment variable the engine reads, and how.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    /// `bool`, `int`, `upper` (case-insensitive name) or `str`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The engine's value when unset.
    #[serde(default)]
    pub default: Option<Value>,
    /// Where it is read upstream.
    pub reference: String,
}

/// A parsed rule file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// Environment variables the engine reads (kernel selection and the like).
    #[serde(default)]
    pub env: BTreeMap<String, EnvSpec>,
    /// Rules in order of application.
    pub rules: Vec<Rule>,
}

impl RuleFile {
    /// Parses a rule file and checks its version specifiers.
    pub fn parse(text: &str, name: &str) -> Result<RuleFile, String> {
        let file: RuleFile = serde_saphyr::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        for r in &file.rules {
            if let Some(v) = &r.versions {
                VersionSpecifiers::from_str(v)
                    .map_err(|e| format!("{name}: rule {}: bad versions {v:?}: {e}", r.id))?;
            }
            for p in r.platforms.iter().flatten() {
                if Platform::parse(p).is_none() {
                    return Err(format!("{name}: rule {}: unknown platform {p:?}", r.id));
                }
            }
        }
        Ok(file)
    }
}

impl Rule {
    /// Whether the rule exists in a release.
    pub fn in_version(&self, version: &Version) -> bool {
        match &self.versions {
            None => true,
            Some(s) => VersionSpecifiers::from_str(s)
                .map(|spec| spec.contains(version))
                .unwrap_or(false),
        }
    }
}

enum Tri {
    True,
    False,
    Unknown(String),
}

/// Applies rules in order to resolved values.
pub fn apply(
    rules: &[Rule],
    version: &Version,
    platform: Option<Platform>,
    values: &mut BTreeMap<String, Entry>,
    errors: &mut Vec<StartupError>,
) {
    for rule in rules {
        if !rule.in_version(version) {
            continue;
        }
        let mut unknown: Option<String> = None;
        if let Some(ps) = &rule.platforms {
            match platform {
                Some(p) if ps.iter().any(|x| Platform::parse(x) == Some(p)) => {}
                Some(_) => continue,
                None => {
                    unknown = Some(format!(
                        "rule {} applies only on {} and the platform is unknown",
                        rule.id,
                        ps.join("/")
                    ))
                }
            }
        }
        let mut holds = true;
        for (key, cond) in &rule.when {
            match eval_cond(values.get(key), cond) {
                Tri::True => {}
                Tri::False => {
                    holds = false;
                    break;
                }
                Tri::Unknown(why) => {
                    unknown.get_or_insert(format!(
                        "rule {} depends on {key}, which is unknown ({why})",
                        rule.id
                    ));
                }
            }
        }
        if !holds {
            continue;
        }
        let mut updates: Vec<(String, Val)> = Vec::new();
        for (key, effect) in &rule.set {
            let after = match &unknown {
                Some(why) => {
                    let new = eval_effect(values, effect);
                    let cur = values.get(key).map(|e| e.val.clone());
                    if cur.as_ref() == Some(&new) {
                        continue;
                    }
                    Val::Unknown {
                        reason: why.clone(),
                    }
                }
                None => eval_effect(values, effect),
            };
            updates.push((key.clone(), after));
        }
        for (key, reason) in &rule.unknown {
            updates.push((
                key.clone(),
                Val::Unknown {
                    reason: unknown.clone().unwrap_or_else(|| reason.clone()),
                },
            ));
        }
        for (key, after) in updates {
            let entry = values.entry(key.clone()).or_insert_with(|| Entry {
                val: Val::known(Value::Null),
                source: Source::Rule,
                name: key.clone(),
                spans: vec![],
                written: None,
                rules: vec![],
            });
            if entry.val == after {
                continue;
            }
            let before = std::mem::replace(&mut entry.val, after.clone());
            entry.rules.push(RuleHit {
                id: rule.id.clone(),
                before,
                after,
                reference: rule.reference.clone(),
            });
        }
        if let Some(msg) = &rule.error
            && unknown.is_none()
        {
            errors.push(StartupError {
                rule: rule.id.clone(),
                message: msg.clone(),
                reference: rule.reference.clone(),
            });
        }
    }
}

fn eval_cond(entry: Option<&Entry>, cond: &Value) -> Tri {
    let null = Val::known(Value::Null);
    let val = entry.map(|e| &e.val).unwrap_or(&null);
    let explicit = entry.is_some_and(|e| e.is_explicit());
    if let Value::Object(m) = cond
        && m.len() == 1
    {
        let (op, arg) = m.iter().next().unwrap();
        if op == "set" {
            return tri(explicit == (arg == &Value::Bool(true)));
        }
        let v = match val {
            Val::Known { value } => value,
            Val::Unknown { reason } => return Tri::Unknown(reason.clone()),
        };
        let num = |x: &Value| x.as_f64();
        return match op.as_str() {
            "in" => tri(arg
                .as_array()
                .is_some_and(|a| a.iter().any(|c| py_eq(c, v)))),
            "not_in" => tri(!arg
                .as_array()
                .is_some_and(|a| a.iter().any(|c| py_eq(c, v)))),
            "not" => tri(!py_eq(arg, v)),
            "gt" => tri(matches!((num(v), num(arg)), (Some(a), Some(b)) if a > b)),
            "ge" => tri(matches!((num(v), num(arg)), (Some(a), Some(b)) if a >= b)),
            "lt" => tri(matches!((num(v), num(arg)), (Some(a), Some(b)) if a < b)),
            "le" => tri(matches!((num(v), num(arg)), (Some(a), Some(b)) if a <= b)),
            _ => tri(py_eq(cond, v)),
        };
    }
    match val {
        Val::Known { value } => tri(py_eq(cond, value)),
        Val::Unknown { reason } => Tri::Unknown(reason.clone()),
    }
}

fn tri(b: bool) -> Tri {
    if b { Tri::True } else { Tri::False }
}

fn get(values: &BTreeMap<String, Entry>, key: &str) -> Val {
    values
        .get(key)
        .map(|e| e.val.clone())
        .unwrap_or(Val::known(Value::Null))
}

fn eval_effect(values: &BTreeMap<String, Entry>, effect: &Value) -> Val {
    if let Value::Object(m) = effect
        && m.len() == 1
    {
        let (op, arg) = m.iter().next().unwrap();
        let operand = |x: &Value| match x {
            Value::String(k) => get(values, k),
            other => Val::known(other.clone()),
        };
        match (op.as_str(), arg) {
            ("copy", Value::String(k)) => return get(values, k),
            ("add" | "floordiv", Value::Array(a)) if a.len() == 2 => {
                let (x, y) = (operand(&a[0]), operand(&a[1]));
                return match (x, y) {
                    (Val::Unknown { reason }, _) | (_, Val::Unknown { reason }) => {
                        Val::Unknown { reason }
                    }
                    (Val::Known { value: x }, Val::Known { value: y }) => {
                        match (x.as_i64(), y.as_i64()) {
                            (Some(x), Some(y)) if op == "add" => Val::known(Value::from(x + y)),
                            (Some(x), Some(y)) if y != 0 => {
                                Val::known(Value::from(x.div_euclid(y)))
                            }
                            _ => Val::known(x),
                        }
                    }
                };
            }
            _ => {}
        }
    }
    Val::known(effect.clone())
}
