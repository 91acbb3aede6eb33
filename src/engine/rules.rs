//! Resolver rules as data: an ordered YAML list per engine, applied after parsing.
//!
//! ```yaml
//! rules:
//!   - id: hicache-page-first-direct-io
//!     versions: ">=0.5.12"          # PEP 440 specifiers (optional)
//!     platforms: [rocm]             # optional; unknown platform -> unknown result
//!     when:                          # all must hold
//!       hicache_mem_layout: {in: [page_first]}
//!     any:                           # optional; at least one map must hold
//!       - {enable_hierarchical_cache: true}
//!       - {disaggregation_decode_enable_offload_kvcache: true}
//!     set:   {hicache_mem_layout: page_first_direct}   # literal, {copy: k}, {upper: k},
//!                                                      # {lower: k}, {snake: k} (lower, - -> _),
//!                                                      # {add: [k, 1]}, {floordiv: [k, k2]},
//!                                                      # {mul: [k, k2, ...]}, {int: k}
//!     unknown: {key: "reason"}      # or {key: {reason: "...", one_of: [a, b]}}
//!     error: "message"              # the engine refuses to start
//!     reference: "sglang 0.5.19 server_args.py ..."
//! ```
//!
//! Conditions: a plain value (Python `==`), `{in: [..]}`, `{not_in: [..]}`, `{not: v}`,
//! `{gt|ge|lt|le: n}`, `{contains_ci: text}`, `{set: true|false}` (written on the
//! command line or in env).
//! A condition on an unknown value is decided over the value's `one_of` set when it
//! has one; otherwise the rule's outcome is unknown, never guessed.

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use serde::Deserialize;
use serde_json::Value;

use crate::engine::argparse::py_eq;
use crate::launch::Platform;
use crate::resolved::{Entry, RuleHit, StartupError, Val};

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
    /// Conditions on resolved keys; all must hold.
    #[serde(default)]
    pub when: BTreeMap<String, Value>,
    /// Alternative condition maps; at least one must hold (absent: no constraint).
    #[serde(default)]
    pub any: Vec<BTreeMap<String, Value>>,
    /// New values.
    #[serde(default)]
    pub set: BTreeMap<String, Value>,
    /// Keys that become unknown: a reason, or `{reason, one_of}`.
    #[serde(default)]
    pub unknown: BTreeMap<String, Value>,
    /// Key patterns (`*` globs) that have no effect when the rule holds; the keys
    /// the rule's own conditions read are never included.
    #[serde(default)]
    pub inactive: Vec<String>,
    /// A startup error the engine raises.
    #[serde(default)]
    pub error: Option<String>,
    /// Upstream reference (file, function, PR).
    pub reference: String,
    /// A short human explanation.
    #[serde(default)]
    pub note: Option<String>,
    /// `versions`, parsed once.
    #[serde(skip)]
    specifiers: Option<VersionSpecifiers>,
    /// `platforms`, parsed once.
    #[serde(skip)]
    platform_set: Option<Vec<Platform>>,
}

/// An environment variable the engine reads, and how.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    /// `bool` (`1`/`true` in any case are on), `int`, `enum` (with `choices`) or `str`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The engine's value when unset.
    #[serde(default)]
    pub default: Option<Value>,
    /// Accepted values of an `enum` (case-sensitive); anything else reads as `default`.
    #[serde(default)]
    pub choices: Option<Vec<String>>,
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
    /// Parses a rule file and checks its version specifiers and platforms.
    pub fn parse(text: &str, name: &str) -> Result<RuleFile, String> {
        let mut file: RuleFile =
            serde_saphyr::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        for r in &mut file.rules {
            if let Some(v) = &r.versions {
                r.specifiers = Some(
                    VersionSpecifiers::from_str(v)
                        .map_err(|e| format!("{name}: rule {}: bad versions {v:?}: {e}", r.id))?,
                );
            }
            if let Some(ps) = &r.platforms {
                let mut set = Vec::new();
                for p in ps {
                    set.push(
                        Platform::parse(p).ok_or_else(|| {
                            format!("{name}: rule {}: unknown platform {p:?}", r.id)
                        })?,
                    );
                }
                r.platform_set = Some(set);
            }
        }
        Ok(file)
    }
}

impl Rule {
    /// Whether the rule exists in a release.
    pub fn in_version(&self, version: &Version) -> bool {
        match (&self.specifiers, &self.versions) {
            (Some(spec), _) => spec.contains(version),
            (None, None) => true,
            (None, Some(s)) => VersionSpecifiers::from_str(s)
                .map(|spec| spec.contains(version))
                .unwrap_or(false),
        }
    }

    /// Whether the rule's conditions read a key.
    pub fn reads(&self, key: &str) -> bool {
        self.when.contains_key(key) || self.any.iter().any(|m| m.contains_key(key))
    }

    /// Whether the rule reads or writes a key.
    pub fn touches(&self, key: &str) -> bool {
        self.when.contains_key(key)
            || self.any.iter().any(|m| m.contains_key(key))
            || self.set.contains_key(key)
            || self.unknown.contains_key(key)
            || self.inactive.iter().any(|p| crate::policy::glob(p, key))
    }
}

enum Tri {
    True,
    False,
    Unknown(String),
}

fn and(a: Tri, b: impl FnOnce() -> Tri) -> Tri {
    match a {
        Tri::False => Tri::False,
        Tri::True => b(),
        Tri::Unknown(why) => match b() {
            Tri::False => Tri::False,
            _ => Tri::Unknown(why),
        },
    }
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
        let mut verdict = Tri::True;
        if let (Some(ps), Some(set)) = (&rule.platforms, &rule.platform_set) {
            match platform {
                Some(p) if set.contains(&p) => {}
                Some(_) => continue,
                None => {
                    verdict = Tri::Unknown(format!(
                        "rule {} applies only on {} and the platform is unknown",
                        rule.id,
                        ps.join("/")
                    ))
                }
            }
        }
        verdict = and(verdict, || eval_map(values, &rule.when, &rule.id));
        if !rule.any.is_empty() {
            verdict = and(verdict, || {
                let mut out = Tri::False;
                for m in &rule.any {
                    match eval_map(values, m, &rule.id) {
                        Tri::True => return Tri::True,
                        Tri::Unknown(w) => out = Tri::Unknown(w),
                        Tri::False => {}
                    }
                }
                out
            });
        }
        let unknown = match verdict {
            Tri::False => continue,
            Tri::True => None,
            Tri::Unknown(why) => Some(why),
        };
        let mut updates: Vec<(String, Val)> = Vec::new();
        for (key, effect) in &rule.set {
            let new = eval_effect(values, effect);
            let after = match &unknown {
                Some(why) => {
                    let cur = get(values, key);
                    if cur == new {
                        continue;
                    }
                    // Either unchanged or the new value.
                    let one_of = match (cur, &new) {
                        (Val::Known { value: a }, Val::Known { value: b }) => {
                            Some(vec![a, b.clone()])
                        }
                        _ => None,
                    };
                    Val::Unknown {
                        reason: why.clone(),
                        one_of,
                    }
                }
                None => new,
            };
            updates.push((key.clone(), after));
        }
        for (key, spec) in &rule.unknown {
            let (reason, one_of) = match spec {
                Value::Object(m) => (
                    m.get("reason")
                        .and_then(|r| r.as_str())
                        .unwrap_or("")
                        .to_string(),
                    m.get("one_of").and_then(|o| o.as_array()).cloned(),
                ),
                Value::String(r) => (r.clone(), None),
                other => (other.to_string(), None),
            };
            updates.push((
                key.clone(),
                Val::Unknown {
                    reason: unknown.clone().unwrap_or(reason),
                    one_of,
                },
            ));
        }
        for (key, after) in updates {
            // A rule never creates a key the release does not have.
            let Some(entry) = values.get_mut(&key) else {
                continue;
            };
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
        if unknown.is_none() && !rule.inactive.is_empty() {
            for (key, entry) in values.iter_mut() {
                if rule.inactive.iter().any(|p| crate::policy::glob(p, key)) && !rule.reads(key) {
                    entry.inactive = Some(rule.id.clone());
                }
            }
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

fn eval_map(values: &BTreeMap<String, Entry>, conds: &BTreeMap<String, Value>, id: &str) -> Tri {
    let mut out = Tri::True;
    for (key, cond) in conds {
        match eval_cond(values.get(key), cond) {
            Tri::True => {}
            Tri::False => return Tri::False,
            Tri::Unknown(why) => {
                if matches!(out, Tri::True) {
                    // Keep the root cause; do not nest one rule's reason in another's.
                    out = Tri::Unknown(if why.starts_with("rule ") || why.contains("depends on") {
                        why
                    } else {
                        format!("rule {id} depends on {key}, which is unknown: {why}")
                    });
                }
            }
        }
    }
    out
}

fn eval_cond(entry: Option<&Entry>, cond: &Value) -> Tri {
    let null = Val::known(Value::Null);
    let val = entry.map(|e| &e.val).unwrap_or(&null);
    if let Value::Object(m) = cond
        && m.len() == 1
        && m.keys().next().is_some_and(|k| k == "set")
    {
        let explicit = entry.is_some_and(|e| e.is_explicit());
        return tri(explicit == (m["set"] == Value::Bool(true)));
    }
    match val {
        Val::Known { value } => tri(test(value, cond)),
        Val::Unknown { reason, one_of } => match one_of {
            Some(cands) if !cands.is_empty() => {
                let hits = cands.iter().filter(|c| test(c, cond)).count();
                if hits == cands.len() {
                    Tri::True
                } else if hits == 0 {
                    Tri::False
                } else {
                    Tri::Unknown(reason.clone())
                }
            }
            _ => Tri::Unknown(reason.clone()),
        },
    }
}

/// Whether a known value satisfies a condition.
fn test(v: &Value, cond: &Value) -> bool {
    if let Value::Object(m) = cond
        && m.len() == 1
    {
        let (op, arg) = m.iter().next().unwrap();
        let num = |x: &Value| x.as_f64();
        let listed = || {
            arg.as_array()
                .is_some_and(|a| a.iter().any(|c| py_eq(c, v)))
        };
        match op.as_str() {
            "in" => return listed(),
            "not_in" => return !listed(),
            "not" => return !py_eq(arg, v),
            "contains_ci" => {
                return match (v.as_str(), arg.as_str()) {
                    (Some(s), Some(needle)) => s.to_lowercase().contains(&needle.to_lowercase()),
                    _ => false,
                };
            }
            "gt" => return matches!((num(v), num(arg)), (Some(a), Some(b)) if a > b),
            "ge" => return matches!((num(v), num(arg)), (Some(a), Some(b)) if a >= b),
            "lt" => return matches!((num(v), num(arg)), (Some(a), Some(b)) if a < b),
            "le" => return matches!((num(v), num(arg)), (Some(a), Some(b)) if a <= b),
            _ => {}
        }
    }
    py_eq(cond, v)
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
            ("upper" | "lower" | "snake", Value::String(k)) => {
                return match get(values, k) {
                    Val::Known {
                        value: Value::String(s),
                    } => Val::known(Value::String(match op.as_str() {
                        "upper" => s.to_uppercase(),
                        "lower" => s.to_lowercase(),
                        _ => s.to_lowercase().replace('-', "_"),
                    })),
                    other => other,
                };
            }
            ("int", Value::String(k)) => {
                return match get(values, k) {
                    Val::Known {
                        value: Value::String(s),
                    } => match crate::engine::types::py_int(&s) {
                        Some(n) => Val::known(Value::from(n)),
                        None => Val::known(Value::String(s)),
                    },
                    other => other,
                };
            }
            ("mul", Value::Array(a)) if !a.is_empty() => {
                let mut product: i64 = 1;
                for x in a {
                    match operand(x) {
                        Val::Unknown { reason, .. } => return Val::unknown(reason),
                        Val::Known { value } => match value.as_i64() {
                            Some(n) => product = product.saturating_mul(n),
                            None => return Val::known(value),
                        },
                    }
                }
                return Val::known(Value::from(product));
            }
            ("add" | "floordiv", Value::Array(a)) if a.len() == 2 => {
                return match (operand(&a[0]), operand(&a[1])) {
                    (Val::Unknown { reason, .. }, _) | (_, Val::Unknown { reason, .. }) => {
                        Val::unknown(reason)
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
