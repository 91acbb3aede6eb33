//! Resolver rules as data: an ordered YAML list per engine, applied after parsing.
//!
//! ```yaml
//! keys:                              # optional: keys rules read beyond the key table
//!   compilation_config.level: "a sub-key of --compilation-config, present when written"
//! rules:
//!   - id: hicache-page-first-direct-io
//!     versions: ">=0.5.12"          # PEP 440 specifiers (optional)
//!     platforms: [rocm]             # optional; unknown platform -> unknown result
//!     when:                          # all must hold
//!       hicache_mem_layout: {in: [page_first]}
//!     any:                           # optional; at least one map must hold
//!       - {enable_hierarchical_cache: true}
//!       - {disaggregation_decode_enable_offload_kvcache: true}
//!     set:   {hicache_mem_layout: page_first_direct}
//!     unknown: {key: "reason"}      # or {key: {reason: "...", one_of: [a, b]}}
//!     inactive: ["hicache_*"]       # key globs that have no effect when the rule holds
//!     error: "message"              # the engine refuses to start
//!     reference: "sglang 0.5.19 server_args.py ..."
//!     note: "short explanation"     # optional
//!     examples:                      # at least one; checked by the rule-example test
//!       - argv: [--enable-hierarchical-cache, --hicache-mem-layout, page_first]
//!         version: "0.5.19"         # optional (default: the newest bundled release)
//!         platform: cuda            # optional (default: unknown)
//!         env: {SGLANG_USE_AITER: "1"}   # optional
//!         checkpoint: {quant_method: fp8}   # optional: checkpoint facts (others absent)
//!         expect: {hicache_mem_layout: page_first_direct}  # known values after resolution
//!         unknown: [chunked_prefill_size]                 # keys that are unknown
//!         one_of: {attention_backend: [aiter, triton]}    # unknown, with exactly this set
//!         inactive: [hicache_io_backend]                  # keys marked as having no effect
//!         error: "mutually exclusive"                     # a startup error containing this
//! ```
//!
//! Conditions (`when`, `any`): a plain scalar (Python `==`), `{eq: v}` (any value,
//! also a literal list or mapping), `{in: [..]}`, `{not_in: [..]}`, `{not: v}`,
//! `{gt|ge|lt|le: number}`, `{contains_ci: text}`, `{starts_with: text}`, `{set: true|false}` (written on
//! the command line or in env). A plain list is not a condition (write `in` or `eq`).
//! A condition on an unknown value is decided over the value's `one_of` set when it
//! has one; otherwise the rule's outcome is unknown, never guessed.
//!
//! Values (`set`): a plain scalar or list, `{literal: v}` (any value, also a
//! mapping), `{copy: k}`, `{upper: k}`, `{lower: k}`, `{snake: k}` (lower, `-` ->
//! `_`), `{int: k}` (a string parsed as a Python int), `{add: [a, b]}`,
//! `{floordiv: [a, b]}`, `{mul: [a, b, ...]}`, where each operand is a key or an
//! integer. Arithmetic on a value that is not an integer (or a division by zero)
//! gives an unknown value with the reason, never a number.
//!
//! Checkpoint facts are context keys `checkpoint.NAME` (`crate::resolved::CHECKPOINT_KEYS`):
//! a fact the checkpoint does not state is `None`; without facts each is unknown
//! with the reason, so a rule reading one gives an unknown result. Facts are
//! loaded only when a rule whose other `when` conditions hold reads one, and a
//! rule hit records the facts it read (`RuleHit::facts`).
//!
//! Any other operator, or an operand of the wrong type, is a load error naming the
//! file, line, column and rule id. Rules never create a key the release does not
//! have; the keys a rule reads or writes must exist in every release its
//! `versions` range covers (the engine's key table, the context keys, `env:` keys
//! of variables the release reads, and the file's `keys:` declarations).

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::engine::argparse::py_eq;
use crate::launch::Platform;
use crate::resolved::{Entry, FactError, RuleHit, StartupError, Val, ValueSource};

/// A condition on one key's resolved value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    /// Equal (Python `==`) to this value.
    Eq(Value),
    /// Equal to one of these.
    In(Vec<Value>),
    /// Equal to none of these.
    NotIn(Vec<Value>),
    /// Not equal to this value.
    Not(Value),
    /// A number greater than this.
    Gt(f64),
    /// A number greater than or equal to this.
    Ge(f64),
    /// A number less than this.
    Lt(f64),
    /// A number less than or equal to this.
    Le(f64),
    /// A string containing this text, ignoring case.
    ContainsCi(String),
    /// A string starting with this text (Python `str.startswith`).
    StartsWith(String),
    /// Written on the command line or in env (`true`), or not (`false`).
    Set(bool),
}

const COND_OPS: &str = "eq, in, not_in, not, gt, ge, lt, le, contains_ci, starts_with, set";

impl Cond {
    fn from_value(v: Value) -> Result<Cond, String> {
        match v {
            Value::Array(_) => Err(format!(
                "a list is not a condition: write {{in: {v}}} or {{eq: {v}}}"
            )),
            Value::Object(m) => {
                if m.len() != 1 {
                    return Err(format!(
                        "a condition is a value or a mapping with one operator ({COND_OPS}); \
                         for a literal mapping write {{eq: {}}}",
                        Value::Object(m)
                    ));
                }
                let (op, arg) = m.into_iter().next().expect("one entry");
                let list = |arg: Value| match arg {
                    Value::Array(a) => Ok(a),
                    other => Err(format!("`{op}` takes a list, not {other}")),
                };
                let num = |arg: &Value| {
                    arg.as_f64()
                        .ok_or_else(|| format!("`{op}` takes a number, not {arg}"))
                };
                Ok(match op.as_str() {
                    "eq" => Cond::Eq(arg),
                    "in" => Cond::In(list(arg)?),
                    "not_in" => Cond::NotIn(list(arg)?),
                    "not" => Cond::Not(arg),
                    "gt" => Cond::Gt(num(&arg)?),
                    "ge" => Cond::Ge(num(&arg)?),
                    "lt" => Cond::Lt(num(&arg)?),
                    "le" => Cond::Le(num(&arg)?),
                    "contains_ci" => match arg {
                        Value::String(s) => Cond::ContainsCi(s),
                        other => return Err(format!("`contains_ci` takes a string, not {other}")),
                    },
                    "starts_with" => match arg {
                        Value::String(s) => Cond::StartsWith(s),
                        other => return Err(format!("`starts_with` takes a string, not {other}")),
                    },
                    "set" => match arg {
                        Value::Bool(b) => Cond::Set(b),
                        other => return Err(format!("`set` takes true or false, not {other}")),
                    },
                    _ => {
                        return Err(format!(
                            "unknown condition operator `{op}` (expected one of {COND_OPS})"
                        ));
                    }
                })
            }
            scalar => Ok(Cond::Eq(scalar)),
        }
    }

    /// Whether a known value satisfies the condition (`Set` is decided by the caller).
    fn test(&self, v: &Value) -> bool {
        let num = v.as_f64();
        match self {
            Cond::Eq(x) => py_eq(x, v),
            Cond::In(xs) => xs.iter().any(|c| py_eq(c, v)),
            Cond::NotIn(xs) => !xs.iter().any(|c| py_eq(c, v)),
            Cond::Not(x) => !py_eq(x, v),
            Cond::Gt(n) => num.is_some_and(|a| a > *n),
            Cond::Ge(n) => num.is_some_and(|a| a >= *n),
            Cond::Lt(n) => num.is_some_and(|a| a < *n),
            Cond::Le(n) => num.is_some_and(|a| a <= *n),
            Cond::ContainsCi(needle) => v
                .as_str()
                .is_some_and(|s| s.to_lowercase().contains(&needle.to_lowercase())),
            Cond::StartsWith(prefix) => v.as_str().is_some_and(|s| s.starts_with(prefix.as_str())),
            Cond::Set(_) => false,
        }
    }
}

impl<'de> Deserialize<'de> for Cond {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Cond::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// An operand of arithmetic: a key's value or an integer.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// The resolved value of a key.
    Key(String),
    /// An integer.
    Int(i64),
}

/// A new value for a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// This value.
    Literal(Value),
    /// The value of another key.
    Copy(String),
    /// A key's string value upper-cased.
    Upper(String),
    /// A key's string value lower-cased.
    Lower(String),
    /// A key's string value lower-cased with `-` replaced by `_`.
    Snake(String),
    /// A key's string value parsed as a Python int.
    Int(String),
    /// The sum of two integers.
    Add(Operand, Operand),
    /// Python `//` of two integers.
    FloorDiv(Operand, Operand),
    /// The product of integers.
    Mul(Vec<Operand>),
}

const EFFECT_OPS: &str = "literal, copy, upper, lower, snake, int, add, floordiv, mul";

impl Effect {
    fn from_value(v: Value) -> Result<Effect, String> {
        let Value::Object(m) = v else {
            return Ok(Effect::Literal(v));
        };
        if m.len() != 1 {
            return Err(format!(
                "a value is a scalar, a list or a mapping with one operator ({EFFECT_OPS}); \
                 for a literal mapping write {{literal: {}}}",
                Value::Object(m)
            ));
        }
        let (op, arg) = m.into_iter().next().expect("one entry");
        let key = |arg: Value| match arg {
            Value::String(k) => Ok(k),
            other => Err(format!("`{op}` takes a key, not {other}")),
        };
        let operands = |arg: Value| -> Result<Vec<Operand>, String> {
            let Value::Array(a) = arg else {
                return Err(format!(
                    "`{op}` takes a list of keys and integers, not {arg}"
                ));
            };
            a.into_iter()
                .map(|x| match x {
                    Value::String(k) => Ok(Operand::Key(k)),
                    Value::Number(n) if n.as_i64().is_some() => {
                        Ok(Operand::Int(n.as_i64().expect("checked")))
                    }
                    other => Err(format!("`{op}` operands are keys or integers, not {other}")),
                })
                .collect()
        };
        let pair = |arg: Value| -> Result<(Operand, Operand), String> {
            let mut a = operands(arg)?;
            if a.len() != 2 {
                return Err(format!("`{op}` takes two operands, not {}", a.len()));
            }
            let b = a.pop().expect("two");
            Ok((a.pop().expect("two"), b))
        };
        Ok(match op.as_str() {
            "literal" => Effect::Literal(arg),
            "copy" => Effect::Copy(key(arg)?),
            "upper" => Effect::Upper(key(arg)?),
            "lower" => Effect::Lower(key(arg)?),
            "snake" => Effect::Snake(key(arg)?),
            "int" => Effect::Int(key(arg)?),
            "add" => {
                let (a, b) = pair(arg)?;
                Effect::Add(a, b)
            }
            "floordiv" => {
                let (a, b) = pair(arg)?;
                Effect::FloorDiv(a, b)
            }
            "mul" => {
                let a = operands(arg)?;
                if a.is_empty() {
                    return Err("`mul` takes at least one operand".into());
                }
                Effect::Mul(a)
            }
            _ => {
                return Err(format!(
                    "unknown value operator `{op}` (expected one of {EFFECT_OPS})"
                ));
            }
        })
    }

    /// The keys whose values it reads.
    pub fn reads(&self) -> Vec<&str> {
        fn of(o: &Operand) -> Option<&str> {
            match o {
                Operand::Key(k) => Some(k.as_str()),
                Operand::Int(_) => None,
            }
        }
        match self {
            Effect::Literal(_) => vec![],
            Effect::Copy(k) | Effect::Upper(k) | Effect::Lower(k) | Effect::Snake(k) => {
                vec![k.as_str()]
            }
            Effect::Int(k) => vec![k.as_str()],
            Effect::Add(a, b) | Effect::FloorDiv(a, b) => of(a).into_iter().chain(of(b)).collect(),
            Effect::Mul(xs) => xs.iter().filter_map(of).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Effect {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Effect::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// How a key becomes unknown: the reason, and the values it can take if known.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownSpec {
    /// Why it is unknown.
    pub reason: String,
    /// The values it can take, when the engine picks from a known set.
    pub one_of: Option<Vec<Value>>,
}

impl<'de> Deserialize<'de> for UnknownSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Detailed {
            reason: String,
            #[serde(default)]
            one_of: Option<Vec<Value>>,
        }
        match Value::deserialize(d)? {
            Value::String(reason) => Ok(UnknownSpec {
                reason,
                one_of: None,
            }),
            v @ Value::Object(_) => serde_json::from_value::<Detailed>(v)
                .map(|x| UnknownSpec {
                    reason: x.reason,
                    one_of: x.one_of,
                })
                .map_err(|e| D::Error::custom(format!("an unknown is {{reason, one_of}}: {e}"))),
            other => Err(D::Error::custom(format!(
                "an unknown is a reason or {{reason, one_of}}, not {other}"
            ))),
        }
    }
}

/// One example of a rule: an argv and what the resolver gives for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// The words after `sglang serve` / `vllm serve`.
    pub argv: Vec<String>,
    /// Environment variables that reach the server.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The engine release (default: the newest bundled one).
    #[serde(default)]
    pub version: Option<String>,
    /// The platform (default: unknown).
    #[serde(default)]
    pub platform: Option<String>,
    /// The hardware SKU (default: none), as `--hardware` gives it.
    #[serde(default)]
    pub hardware: Option<String>,
    /// Checkpoint facts (`kv_cache_quant_algo: FP8`, without the `checkpoint.`
    /// prefix); facts not listed are absent from the checkpoint. Without this
    /// field the example has no checkpoint facts (every fact unknown).
    #[serde(default)]
    pub checkpoint: Option<BTreeMap<String, Value>>,
    /// Keys and their known values after resolution.
    #[serde(default)]
    pub expect: BTreeMap<String, Value>,
    /// Keys that are unknown after resolution.
    #[serde(default)]
    pub unknown: Vec<String>,
    /// Keys that are unknown with exactly this set of possible values.
    #[serde(default)]
    pub one_of: BTreeMap<String, Vec<Value>>,
    /// Keys marked as having no effect.
    #[serde(default)]
    pub inactive: Vec<String>,
    /// Text of a startup error the engine raises.
    #[serde(default)]
    pub error: Option<String>,
    /// For a respelling ([`Rule::respell`]): the newer release that reads
    /// the resolution at `version`; `expect` holds after the respelling.
    #[serde(default)]
    pub respelled_as: Option<String>,
}

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
    pub when: BTreeMap<String, Cond>,
    /// Alternative condition maps; at least one must hold (absent: no constraint).
    #[serde(default)]
    pub any: Vec<BTreeMap<String, Cond>>,
    /// New values.
    #[serde(default)]
    pub set: BTreeMap<String, Effect>,
    /// Keys that become unknown.
    #[serde(default)]
    pub unknown: BTreeMap<String, UnknownSpec>,
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
    /// Argv -> resolved values that witness the rule (checked by a test).
    #[serde(default)]
    pub examples: Vec<Example>,
    /// A respelling: how the releases of `versions` read what an older
    /// release spelled another way, the deployment being the same
    /// (`--enable-dp-attention --dp-size N` is `--attn-dp-size N` from SGLang
    /// 0.5.23). Never applied in a resolve: when the two sides of a
    /// comparison run releases on either side of the rule's bound, the older
    /// side is compared as the newer release reads it ([`respell`]).
    #[serde(default)]
    pub respell: bool,
    /// `versions`, parsed once.
    #[serde(skip)]
    specifiers: Option<VersionSpecifiers>,
    /// `platforms`, parsed once.
    #[serde(skip)]
    platform_set: Option<Vec<Platform>>,
    /// The checkpoint facts (`checkpoint.*`) the rule names, listed once.
    #[serde(skip)]
    facts_read: Vec<String>,
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
    /// Keys the rules read that the key table does not list, each with why it
    /// exists (a JSON sub-key present only when written).
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
    /// Rules in order of application.
    pub rules: Vec<Rule>,
}

impl RuleFile {
    /// Parses a rule file and checks its operators, version specifiers and platforms;
    /// an error names `name:line:col` and the rule id.
    pub fn parse(text: &str, name: &str) -> Result<RuleFile, String> {
        let mut file: RuleFile =
            serde_saphyr::from_str(text).map_err(|e| load_error(text, name, &e))?;
        for r in &mut file.rules {
            r.facts_read = r
                .keys()
                .into_iter()
                .filter(|k| is_fact(k))
                .map(str::to_string)
                .collect();
            if r.respell && (r.versions.is_none() || r.error.is_some() || !r.unknown.is_empty()) {
                return Err(format!(
                    "{name}: rule {}: a respelling names the releases that read the new spelling (`versions`) and only sets values",
                    r.id
                ));
            }
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
            for p in r.examples.iter().filter_map(|x| x.platform.as_deref()) {
                if Platform::parse(p).is_none() {
                    return Err(format!(
                        "{name}: rule {}: example with unknown platform {p:?}",
                        r.id
                    ));
                }
            }
        }
        Ok(file)
    }
}

/// A YAML or type error at `name:line:col`, naming the rule it is in.
fn load_error(text: &str, name: &str, e: &serde_saphyr::Error) -> String {
    #[derive(Deserialize)]
    struct LooseRule {
        #[serde(default)]
        id: Option<String>,
    }
    #[derive(Deserialize)]
    struct LooseFile {
        #[serde(default)]
        rules: Vec<serde_saphyr::Spanned<LooseRule>>,
    }
    let Some(at) = e.location() else {
        return format!("{name}: {e}");
    };
    let rule = serde_saphyr::from_str::<LooseFile>(text)
        .ok()
        .and_then(|f| {
            f.rules
                .into_iter()
                .take_while(|r| r.referenced.line() <= at.line())
                .last()
        })
        .and_then(|r| r.value.id)
        .map(|id| format!("rule {id}: "))
        .unwrap_or_default();
    format!("{name}:{}:{}: {rule}{e}", at.line(), at.column())
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

    /// Every key the rule names: conditions, values read, keys written.
    pub fn keys(&self) -> std::collections::BTreeSet<&str> {
        let mut out: std::collections::BTreeSet<&str> = self
            .when
            .keys()
            .chain(self.any.iter().flat_map(|m| m.keys()))
            .chain(self.set.keys())
            .chain(self.unknown.keys())
            .map(String::as_str)
            .collect();
        out.extend(self.set.values().flat_map(Effect::reads));
        out
    }
}

#[cfg(test)]
thread_local! {
    /// A rule id `apply` skips on this thread (the rule-example mutation check).
    static SKIP: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with the rule `id` left out of every rule list `apply` sees on this thread.
#[cfg(test)]
pub(crate) fn without_rule<T>(id: &str, f: impl FnOnce() -> T) -> T {
    SKIP.with(|s| *s.borrow_mut() = Some(id.to_string()));
    let out = f();
    SKIP.with(|s| *s.borrow_mut() = None);
    out
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

/// Applies rules in order to resolved values, with no checkpoint facts (the
/// `checkpoint.*` keys read as unknown).
#[cfg(test)]
pub fn apply(
    rules: &[Rule],
    version: &Version,
    platform: Option<Platform>,
    values: &mut BTreeMap<String, Entry>,
    errors: &mut Vec<StartupError>,
) {
    let mut none = || {
        Ok(crate::resolved::unknown_facts(
            "no checkpoint facts were given",
        ))
    };
    let _ = apply_with_facts(rules, version, platform, values, errors, &mut none);
}

/// Whether a key is a checkpoint fact (`checkpoint.*`).
pub fn is_fact(key: &str) -> bool {
    key.starts_with("checkpoint.")
}

/// Applies rules in order to resolved values. The checkpoint facts are loaded
/// (`load`) the first time a rule whose other conditions hold reads one, so a
/// launch whose settings need no fact never asks for them. A loading error ends
/// the resolve.
pub fn apply_with_facts(
    rules: &[Rule],
    version: &Version,
    platform: Option<Platform>,
    values: &mut BTreeMap<String, Entry>,
    errors: &mut Vec<StartupError>,
    load: &mut dyn FnMut() -> Result<BTreeMap<String, Entry>, FactError>,
) -> Result<(), FactError> {
    let mut loaded = false;
    for rule in rules {
        if !rule.in_version(version) || rule.respell {
            continue;
        }
        #[cfg(test)]
        if SKIP.with(|s| s.borrow().as_deref() == Some(rule.id.as_str())) {
            continue;
        }
        let reads_facts = &rule.facts_read;
        if !reads_facts.is_empty() && !loaded {
            let plain: BTreeMap<String, Cond> = rule
                .when
                .iter()
                .filter(|(k, _)| !is_fact(k))
                .map(|(k, c)| (k.clone(), c.clone()))
                .collect();
            if matches!(eval_map(values, &plain, &rule.id), Tri::False) {
                continue;
            }
            values.extend(load()?);
            loaded = true;
        }
        let facts: Vec<String> = reads_facts
            .iter()
            .filter_map(|k| {
                let e = values.get(k)?;
                let v = e.val.value()?;
                Some(match &e.written {
                    Some(w) => format!("{k} = {} (from {w})", crate::resolved::display_value(v)),
                    None => format!("{k} = {}", crate::resolved::display_value(v)),
                })
            })
            .collect();
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
        // Each update, with the key a copy-like effect took its value from.
        let mut updates: Vec<(String, Val, Option<&String>)> = Vec::new();
        for (key, effect) in &rule.set {
            let new = eval_effect(values, effect, &rule.id);
            let from = match effect {
                Effect::Copy(k) | Effect::Upper(k) | Effect::Lower(k) | Effect::Snake(k)
                    if unknown.is_none() =>
                {
                    Some(k)
                }
                _ => None,
            };
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
                        // Already one of a set: that set or the new value.
                        (
                            Val::Unknown {
                                one_of: Some(mut set),
                                ..
                            },
                            Val::Known { value: b },
                        ) => {
                            if !set.contains(b) {
                                set.push(b.clone());
                            }
                            Some(set)
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
            updates.push((key.clone(), after, from));
        }
        for (key, spec) in &rule.unknown {
            let after = match (&unknown, get(values, key)) {
                // Whether the rule holds is unknown, and the value already is:
                // it stays as it is (its own reason and set), rather than
                // taking the set of a rule that may not apply.
                (Some(_), cur @ Val::Unknown { .. }) => cur,
                // Whether the rule holds is unknown, and the value was known: it
                // stays or becomes one of the rule's set.
                (Some(why), Val::Known { value }) => Val::Unknown {
                    reason: why.clone(),
                    one_of: spec.one_of.as_ref().map(|extra| {
                        let mut set = vec![value];
                        for v in extra {
                            if !set.contains(v) {
                                set.push(v.clone());
                            }
                        }
                        set
                    }),
                },
                _ => Val::Unknown {
                    reason: unknown.clone().unwrap_or(spec.reason.clone()),
                    one_of: spec.one_of.clone(),
                },
            };
            updates.push((key.clone(), after, None));
        }
        for (key, after, from) in updates {
            // A value copied from what the command writes (`--attention-config
            // '{"backend": X}'` is `--attention-backend X`) is written there:
            // it compares as a written value, at the words that write it.
            let written_at = from
                .and_then(|k| values.get(k))
                .filter(|e| matches!(e.source, ValueSource::Cli | ValueSource::Env))
                .map(|e| (e.source, e.spans.clone(), e.written.clone()));
            // A rule never creates a key the release does not have.
            let Some(entry) = values.get_mut(&key) else {
                continue;
            };
            if entry.val == after {
                continue;
            }
            let before = std::mem::replace(&mut entry.val, after.clone());
            if let Some((source, spans, written)) = written_at
                && !matches!(entry.source, ValueSource::Cli | ValueSource::Env)
            {
                entry.source = source;
                entry.spans = spans;
                entry.written = written;
            }
            entry.rules.push(RuleHit {
                id: rule.id.clone(),
                before,
                after,
                reference: rule.reference.clone(),
                facts: facts.clone(),
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
                span: None,
            });
        }
    }
    Ok(())
}

fn eval_map(values: &BTreeMap<String, Entry>, conds: &BTreeMap<String, Cond>, id: &str) -> Tri {
    let mut out = Tri::True;
    // The text's own keys first: when a launch value is unknown, its reason
    // (not the checkpoint's) is the root cause to report.
    let ordered = conds
        .iter()
        .filter(|(k, _)| !is_fact(k))
        .chain(conds.iter().filter(|(k, _)| is_fact(k)));
    for (key, cond) in ordered {
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

fn eval_cond(entry: Option<&Entry>, cond: &Cond) -> Tri {
    if let Cond::Set(want) = cond {
        let explicit = entry.is_some_and(|e| e.is_explicit());
        return tri(explicit == *want);
    }
    let null = Val::known(Value::Null);
    let val = entry.map(|e| &e.val).unwrap_or(&null);
    match val {
        Val::Known { value } => tri(cond.test(value)),
        Val::Unknown { reason, one_of } => match one_of {
            Some(cands) if !cands.is_empty() => {
                let hits = cands.iter().filter(|c| cond.test(c)).count();
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

fn tri(b: bool) -> Tri {
    if b { Tri::True } else { Tri::False }
}

fn get(values: &BTreeMap<String, Entry>, key: &str) -> Val {
    values
        .get(key)
        .map(|e| e.val.clone())
        .unwrap_or(Val::known(Value::Null))
}

/// An integer operand's value, or why it has none.
fn integer(values: &BTreeMap<String, Entry>, o: &Operand, op: &str, id: &str) -> Result<i64, Val> {
    match o {
        Operand::Int(n) => Ok(*n),
        Operand::Key(k) => match get(values, k) {
            Val::Unknown { reason, .. } => Err(Val::unknown(reason)),
            Val::Known { value } => value.as_i64().ok_or_else(|| {
                Val::unknown(format!(
                    "rule {id}: `{op}` needs an integer, but {k} is {}",
                    crate::resolved::display_value(&value)
                ))
            }),
        },
    }
}

fn eval_effect(values: &BTreeMap<String, Entry>, effect: &Effect, id: &str) -> Val {
    let string_op = |k: &str, f: fn(&str) -> String| match get(values, k) {
        Val::Known {
            value: Value::String(s),
        } => Val::known(Value::String(f(&s))),
        other => other,
    };
    match effect {
        Effect::Literal(v) => Val::known(v.clone()),
        Effect::Copy(k) => get(values, k),
        Effect::Upper(k) => string_op(k, str::to_uppercase),
        Effect::Lower(k) => string_op(k, str::to_lowercase),
        Effect::Snake(k) => string_op(k, |s| s.to_lowercase().replace('-', "_")),
        Effect::Int(k) => match get(values, k) {
            Val::Known {
                value: Value::String(s),
            } => match crate::engine::types::py_int(&s) {
                Some(n) => Val::known(Value::from(n)),
                None => Val::unknown(format!(
                    "rule {id}: `int` needs an integer, but {k} is {s:?}"
                )),
            },
            other => other,
        },
        Effect::Mul(xs) => {
            let mut product: i64 = 1;
            for x in xs {
                match integer(values, x, "mul", id) {
                    Ok(n) => product = product.saturating_mul(n),
                    Err(v) => return v,
                }
            }
            Val::known(Value::from(product))
        }
        Effect::Add(a, b) | Effect::FloorDiv(a, b) => {
            let op = if matches!(effect, Effect::Add(..)) {
                "add"
            } else {
                "floordiv"
            };
            let (x, y) = match (integer(values, a, op, id), integer(values, b, op, id)) {
                (Err(v), _) | (_, Err(v)) => return v,
                (Ok(x), Ok(y)) => (x, y),
            };
            match op {
                "add" => Val::known(Value::from(x.saturating_add(y))),
                _ if y == 0 => Val::unknown(format!(
                    "rule {id}: `floordiv` by zero (the engine raises ZeroDivisionError)"
                )),
                _ => Val::known(Value::from(x.div_euclid(y))),
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// `older`'s values as a release of `newer` reads them: the respelling rules
/// ([`Rule::respell`]) that `newer` has and `older` has not, applied in
/// order; `None` when there is none (or a version does not parse).
pub fn respell(
    rules: &[Rule],
    older: &Version,
    newer: &Version,
    values: &BTreeMap<String, Entry>,
) -> Option<BTreeMap<String, Entry>> {
    if older >= newer {
        return None;
    }
    let chosen: Vec<Rule> = rules
        .iter()
        .filter(|r| r.respell && r.in_version(newer) && !r.in_version(older))
        .map(|r| Rule {
            respell: false,
            ..r.clone()
        })
        .collect();
    if chosen.is_empty() {
        return None;
    }
    let mut out = values.clone();
    // The new spelling's keys the older release does not have: created for
    // the respelling, and kept only where a rule set them.
    let mut created = Vec::new();
    for key in chosen.iter().flat_map(|r| r.set.keys()) {
        if !out.contains_key(key) {
            created.push(key.clone());
            out.insert(
                key.clone(),
                Entry {
                    val: Val::known(Value::Null),
                    source: ValueSource::Rule,
                    name: key.clone(),
                    spans: vec![],
                    written: None,
                    rules: vec![],
                    inactive: None,
                    no_effect: None,
                },
            );
        }
    }
    let mut errors = Vec::new();
    let mut none = || {
        Ok(crate::resolved::unknown_facts(
            "a respelling reads no checkpoint fact",
        ))
    };
    apply_with_facts(&chosen, newer, None, &mut out, &mut errors, &mut none).ok()?;
    for key in created {
        if out.get(&key).is_some_and(|e| e.rules.is_empty()) {
            out.remove(&key);
        }
    }
    Some(out)
}
