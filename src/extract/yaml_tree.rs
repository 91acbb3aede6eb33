//! A YAML text as a small tree with spans: serde-saphyr's spanned values
//! (under its default anti-DoS budget: depth, nodes, events, aliases) lowered
//! to [`Node`]s, mappings kept in document order. Integers are exact (YAML
//! allows any size; beyond `i128` they are read as floats), floats stay
//! floats. The InferenceX master configs, vLLM `--config` files and the vLLM
//! recipes read it, each with its own [`Options`]: the first two are read by
//! PyYAML, whose YAML 1.1 resolver types plain scalars differently from YAML
//! 1.2 ([`Schema::PyYaml11`]: `010` is 8, `0o10` and `1e3` are strings,
//! `1_000` is 1000, `1:20` is 80, `y` is a string).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::error::Error;
use crate::files::{LineEndings, check_line_endings};
use crate::span::{Source, Span};

/// A YAML value with where it is written.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// Where the value is placed (see [`Place`]).
    pub(crate) span: Span,
    /// The value.
    pub(crate) val: Val,
}

/// A YAML value.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    Null,
    Bool(bool),
    /// An integer, exactly.
    Int(i128),
    /// A float, or an integer beyond `i128`.
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in document order: key, key span, value.
    Map(Vec<(String, Span, Node)>),
}

/// Where a value reached through an alias (`*a`) is placed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Place {
    /// Where it is written (at its anchor).
    Defined,
    /// Where the alias is.
    Referenced,
}

/// Which reader's rules type plain scalars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Schema {
    /// YAML 1.2 core, as js-yaml reads it: only `true`/`false` are booleans.
    Core12,
    /// PyYAML's `yaml.safe_load` (YAML 1.1 implicit resolvers), as Python
    /// programs read it: see [`pyyaml_scalar`].
    PyYaml11,
}

/// How a format reads its YAML.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    /// The reader whose typing of plain scalars the format follows.
    pub(crate) schema: Schema,
    /// Where values reached through an alias are placed.
    pub(crate) place: Place,
    /// The most entries one mapping may hold, with what such mappings are
    /// called in the error (`a recipe's mappings`); `None`: no such budget.
    pub(crate) max_map_entries: Option<(usize, &'static str)>,
    /// The name of a mapping key; `None` refuses the key (not a scalar, or a
    /// scalar the format does not take as a key).
    pub(crate) key_name: fn(&Node) -> Option<String>,
}

/// What serde-saphyr hands us: values wrapped with their locations.
enum Raw {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Raw, E> {
                Ok(Raw::Null)
            }
            fn visit_none<E>(self) -> Result<Raw, E> {
                Ok(Raw::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Raw, D2::Error> {
                Raw::deserialize(d)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Raw, E> {
                Ok(Raw::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Raw, E> {
                Ok(Raw::Int(n.into()))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Raw, E> {
                Ok(Raw::Int(n.into()))
            }
            fn visit_i128<E>(self, n: i128) -> Result<Raw, E> {
                Ok(Raw::Int(n))
            }
            fn visit_u128<E>(self, n: u128) -> Result<Raw, E> {
                Ok(i128::try_from(n).map_or(Raw::Float(n as f64), Raw::Int))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Raw, E> {
                Ok(Raw::Float(n))
            }
            fn visit_str<E>(self, s: &str) -> Result<Raw, E> {
                Ok(Raw::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Raw, E> {
                Ok(Raw::Str(s))
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Raw, E> {
                Ok(Raw::Str(String::from_utf8_lossy(b).into_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Raw, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Raw::Seq(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Raw, A::Error> {
                let mut v = Vec::new();
                while let Some(kv) = a.next_entry()? {
                    v.push(kv);
                }
                Ok(Raw::Map(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Parses a YAML text into a spanned tree; syntax errors, serde-saphyr's
/// budget breaches and refused keys are `file:line:col`.
pub(crate) fn parse(source: &Source, options: &Options) -> Result<Node, Error> {
    check_line_endings(source, LineEndings::Text)?;
    let saphyr = serde_saphyr::options! {
        strict_booleans: options.schema == Schema::Core12,
        // PyYAML reads `.inf` and `.nan` (typed again below).
        non_finite_float_policy: if options.schema == Schema::Core12 {
            serde_saphyr::options::NonFiniteFloatPolicy::Reject
        } else {
            serde_saphyr::options::NonFiniteFloatPolicy::PassThrough
        },
        with_snippet: false,
    };
    let raw: Spanned<Raw> = serde_saphyr::from_str_with_options(&source.text, saphyr)
        .map_err(|e| Error::yaml(source, &e))?;
    lower(raw, source, options)
}

fn lower(raw: Spanned<Raw>, source: &Source, options: &Options) -> Result<Node, Error> {
    let span = source.yaml_span(match options.place {
        Place::Defined => &raw.defined,
        Place::Referenced => &raw.referenced,
    });
    // PyYAML types a plain scalar by its text: re-read the text of every
    // plain scalar (at its definition, not at an alias).
    if options.schema == Schema::PyYaml11
        && matches!(
            raw.value,
            Raw::Null | Raw::Bool(_) | Raw::Int(_) | Raw::Float(_) | Raw::Str(_)
        )
    {
        let written = source.yaml_span(&raw.defined);
        let text = &source.text[written.start..written.end];
        if let Some(typed) = pyyaml_scalar(text) {
            let val = typed.map_err(|why| Error::input(written.clone(), why))?;
            return Ok(Node { span, val });
        }
    }
    let val = match raw.value {
        Raw::Null => Val::Null,
        Raw::Bool(b) => Val::Bool(b),
        Raw::Int(n) => Val::Int(n),
        Raw::Float(n) => Val::Float(n),
        Raw::Str(s) => Val::Str(s),
        Raw::Seq(items) => Val::Seq(
            items
                .into_iter()
                .map(|i| lower(i, source, options))
                .collect::<Result<_, _>>()?,
        ),
        Raw::Map(entries) => {
            if let Some((max, what)) = options.max_map_entries
                && entries.len() > max
            {
                return Err(Error::input(
                    span,
                    format!(
                        "a mapping of {} entries; {what} hold at most {max} (the budget that keeps key lookups cheap)",
                        entries.len()
                    ),
                ));
            }
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = lower(k, source, options)?;
                let Some(name) = (options.key_name)(&key) else {
                    return Err(Error::input(key.span, "a mapping key must be a scalar"));
                };
                out.push((name, key.span, lower(v, source, options)?));
            }
            Val::Map(out)
        }
    };
    Ok(Node { span, val })
}

/// What PyYAML's `safe_load` makes of a scalar written as `text` (its source
/// text, quotes included), following `yaml/resolver.py` (the implicit
/// resolvers of bool, float, int and null) and `yaml/constructor.py`
/// (`construct_yaml_int`, `construct_yaml_float`): `None` for a quoted,
/// block, tagged or multi-line scalar and for plain text no resolver takes
/// (a string, as serde-saphyr reads it); `Some(Err)` for a spelling PyYAML
/// fails on (`0b_`).
pub(crate) fn pyyaml_scalar(text: &str) -> Option<Result<Val, String>> {
    let first = text.chars().next()?;
    if matches!(first, '"' | '\'' | '|' | '>' | '!' | '&' | '*') || text.contains('\n') {
        return None;
    }
    let t = text.trim_end();
    let all = |s: &str, f: fn(char) -> bool| !s.is_empty() && s.chars().all(f);
    let digits_ = |c: char| c.is_ascii_digit() || c == '_';
    // bool
    if matches!(
        t,
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    ) {
        let yes = matches!(
            t,
            "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON"
        );
        return Some(Ok(Val::Bool(yes)));
    }
    // null (an empty plain scalar has no text here: serde-saphyr's null)
    if matches!(t, "~" | "null" | "Null" | "NULL") {
        return Some(Ok(Val::Null));
    }
    let (sign, body) = match t.strip_prefix(['-', '+']) {
        Some(rest) => (if t.starts_with('-') { -1 } else { 1 }, rest),
        None => (1, t),
    };
    // Sexagesimal parts: `[0-5]?[0-9]` each.
    let sexa_part = |p: &str| {
        p.len() <= 2 && all(p, |c| c.is_ascii_digit()) && (p.len() < 2 || p.as_bytes()[0] <= b'5')
    };
    // float: [-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)? | \.[0-9][0-9_]*(exp)?
    //        | [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)
    let exp_ok = |e: &str| {
        e.is_empty()
            || (e.len() >= 3
                && matches!(e.as_bytes()[0], b'e' | b'E')
                && matches!(e.as_bytes()[1], b'-' | b'+')
                && all(&e[2..], |c| c.is_ascii_digit()))
    };
    let is_float = {
        if matches!(body, ".inf" | ".Inf" | ".INF") || matches!(t, ".nan" | ".NaN" | ".NAN") {
            true
        } else if let Some(dot) = body.find('.') {
            let (int_part, rest) = (&body[..dot], &body[dot + 1..]);
            let frac_end = rest.find(['e', 'E']).unwrap_or(rest.len());
            let (frac, exp) = (&rest[..frac_end], &rest[frac_end..]);
            let frac_ok = frac.chars().all(digits_);
            if int_part.contains(':') {
                let mut parts = int_part.split(':');
                let head = parts.next().unwrap_or("");
                exp.is_empty()
                    && frac_ok
                    && head.starts_with(|c: char| c.is_ascii_digit())
                    && all(head, digits_)
                    && parts.all(sexa_part)
            } else if int_part.is_empty() {
                sign == 1
                    && !t.starts_with('+')
                    && frac.starts_with(|c: char| c.is_ascii_digit())
                    && frac_ok
                    && exp_ok(exp)
            } else {
                int_part.starts_with(|c: char| c.is_ascii_digit())
                    && all(int_part, digits_)
                    && frac_ok
                    && exp_ok(exp)
            }
        } else {
            false
        }
    };
    if is_float {
        let v = body.replace('_', "").to_ascii_lowercase();
        let x = if v == ".inf" {
            f64::INFINITY
        } else if v == ".nan" {
            f64::NAN
        } else if v.contains(':') {
            let mut total = 0.0f64;
            for p in v.split(':') {
                total = total * 60.0 + p.parse::<f64>().unwrap_or(0.0);
            }
            total
        } else {
            match v.parse::<f64>() {
                Ok(x) => x,
                Err(_) => return Some(Err(format!("PyYAML cannot read {t:?} as a float"))),
            }
        };
        return Some(Ok(Val::Float(f64::from(sign) * x)));
    }
    // int: [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
    //      | [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+
    let (radix, digits) = if let Some(b) = body.strip_prefix("0b") {
        (all(b, |c| matches!(c, '0' | '1' | '_')).then_some(2), b)
    } else if let Some(x) = body.strip_prefix("0x") {
        (
            all(x, |c| c.is_ascii_hexdigit() || c == '_').then_some(16),
            x,
        )
    } else if body == "0" {
        (Some(10), body)
    } else if let Some(o) = body.strip_prefix('0') {
        // The leading 0 is kept: `0_` is 0, as PyYAML reads it.
        (all(o, |c| matches!(c, '0'..='7' | '_')).then_some(8), body)
    } else if body.contains(':') {
        let mut parts = body.split(':');
        let head = parts.next().unwrap_or("");
        let ok = head.starts_with(|c: char| matches!(c, '1'..='9'))
            && all(head, digits_)
            && parts.all(sexa_part);
        (ok.then_some(60), body)
    } else {
        let ok = body.starts_with(|c: char| matches!(c, '1'..='9')) && all(body, digits_);
        (ok.then_some(10), body)
    };
    let Some(radix) = radix else {
        // Plain text no resolver takes: a string (`y`, `n`, `0o10`, `1e3`).
        return Some(Ok(Val::Str(t.to_string())));
    };
    let clean = digits.replace('_', "");
    let parsed = if radix == 60 {
        clean.split(':').try_fold(0i128, |acc, p| {
            acc.checked_mul(60)?.checked_add(p.parse::<i128>().ok()?)
        })
    } else if clean.is_empty() {
        return Some(Err(format!(
            "PyYAML cannot read {t:?} as an integer (no digits)"
        )));
    } else {
        i128::from_str_radix(&clean, radix).ok()
    };
    Some(match parsed {
        Some(n) => Ok(Val::Int(i128::from(sign) * n)),
        None => Err(format!(
            "the integer {t:?} is too large to read exactly (beyond 128 bits)"
        )),
    })
}

impl Node {
    /// The value as JSON (mappings in document order): an integer beyond 64
    /// bits or a non-finite float, which JSON cannot hold, is an error at it.
    pub(crate) fn to_json(&self) -> Result<serde_json::Value, Error> {
        use serde_json::Value;
        Ok(match &self.val {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Int(n) => {
                if let Ok(i) = i64::try_from(*n) {
                    Value::from(i)
                } else if let Ok(u) = u64::try_from(*n) {
                    Value::from(u)
                } else {
                    return Err(Error::input(
                        self.span.clone(),
                        format!("the integer {n} is beyond 64 bits, which is not read"),
                    ));
                }
            }
            Val::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => Value::Number(n),
                None => {
                    return Err(Error::input(
                        self.span.clone(),
                        "a non-finite float (.inf, .nan) is not read here",
                    ));
                }
            },
            Val::Str(s) => Value::String(s.clone()),
            Val::Seq(items) => {
                Value::Array(items.iter().map(Node::to_json).collect::<Result<_, _>>()?)
            }
            Val::Map(entries) => {
                let mut m = serde_json::Map::new();
                for (k, _, v) in entries {
                    m.insert(k.clone(), v.to_json()?);
                }
                Value::Object(m)
            }
        })
    }

    /// The entry of a key of a mapping (the last one when it is repeated).
    fn entry(&self, key: &str) -> Option<&(String, Span, Node)> {
        self.entries().iter().rev().find(|(k, _, _)| k == key)
    }

    /// The value under a key of a mapping; `None` when absent, null, or when
    /// this is not a mapping.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key)
            .map(|(_, _, v)| v)
            .filter(|v| !matches!(v.val, Val::Null))
    }

    /// The span of a key of a mapping.
    pub(crate) fn key_span(&self, key: &str) -> Option<Span> {
        self.entry(key).map(|(_, s, _)| s.clone())
    }

    /// The value under a path of keys (see [`Node::get`]).
    pub(crate) fn path(&self, keys: &[&str]) -> Option<&Node> {
        let mut n = self;
        for k in keys {
            n = n.get(k)?;
        }
        Some(n)
    }

    /// A mapping's entries (none when this is not a mapping).
    pub(crate) fn entries(&self) -> &[(String, Span, Node)] {
        match &self.val {
            Val::Map(m) => m,
            _ => &[],
        }
    }

    /// A mapping's keys in document order.
    pub(crate) fn keys(&self) -> Vec<&str> {
        self.entries().iter().map(|(k, _, _)| k.as_str()).collect()
    }

    /// Whether a mapping has a key (even with a null value).
    pub(crate) fn has_key(&self, key: &str) -> bool {
        self.entries().iter().any(|(k, _, _)| k == key)
    }

    /// A sequence's items (none when this is not a sequence).
    pub(crate) fn items(&self) -> &[Node] {
        match &self.val {
            Val::Seq(s) => s,
            _ => &[],
        }
    }

    /// The text of a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.val {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Whether this is a mapping.
    pub(crate) fn is_map(&self) -> bool {
        matches!(self.val, Val::Map(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn parse_text(text: &str, place: Place) -> Node {
        let source = Source::new(Origin::Inline("t.yaml".into()), text.to_string());
        let options = Options {
            schema: Schema::PyYaml11,
            place,
            max_map_entries: None,
            key_name: |n| match &n.val {
                Val::Str(s) => Some(s.clone()),
                Val::Int(i) => Some(i.to_string()),
                _ => None,
            },
        };
        parse(&source, &options).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn integers_are_exact_and_floats_stay_floats() {
        let n = parse_text(
            "a: 18446744073709551615\nb: 1.0\nc: 9007199254740993\n",
            Place::Defined,
        );
        assert!(matches!(n.get("a").unwrap().val, Val::Int(i) if i == u64::MAX as i128));
        assert!(matches!(
            n.get("c").unwrap().val,
            Val::Int(9007199254740993)
        ));
        assert!(matches!(n.get("b").unwrap().val, Val::Float(f) if f == 1.0));
    }

    /// PyYAML's typing of plain scalars (checked against PyYAML 6's
    /// `yaml.safe_load`: `python3 -c 'import yaml; print(repr(yaml.safe_load(...)))'`).
    #[test]
    fn plain_scalars_are_typed_as_pyyaml_types_them() {
        let n = parse_text(
            "a: 010\nb: 0o10\nc: 1e3\nd: 1.0e+3\ne: 1_000\nf: 1:20\ng: 0x1F\nh: 0b101\ni: y\nj: on\nk: '010'\nl: 08\nm: .5\nn: -0\no: +7\np: 1:20.5\nq: ~\nr: \"on\"\ns: 1.\nt: .inf\nv: n\nw: -.inf\nx: +.5\n",
            Place::Defined,
        );
        let int = |k: &str| match n.get(k).map(|x| &x.val) {
            Some(Val::Int(i)) => Some(*i),
            _ => None,
        };
        let float = |k: &str| match n.get(k).map(|x| &x.val) {
            Some(Val::Float(f)) => Some(*f),
            _ => None,
        };
        let string = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_string);
        assert_eq!(string("v").as_deref(), Some("n"));
        assert_eq!(float("w"), Some(f64::NEG_INFINITY));
        assert_eq!(string("x").as_deref(), Some("+.5"));
        assert_eq!(int("a"), Some(8));
        assert_eq!(string("b").as_deref(), Some("0o10"));
        assert_eq!(string("c").as_deref(), Some("1e3"));
        assert_eq!(float("d"), Some(1000.0));
        assert_eq!(int("e"), Some(1000));
        assert_eq!(int("f"), Some(80));
        assert_eq!(int("g"), Some(31));
        assert_eq!(int("h"), Some(5));
        assert_eq!(string("i").as_deref(), Some("y"));
        assert!(matches!(n.get("j").unwrap().val, Val::Bool(true)));
        assert_eq!(string("k").as_deref(), Some("010"));
        assert_eq!(string("l").as_deref(), Some("08"));
        assert_eq!(float("m"), Some(0.5));
        assert_eq!(int("n"), Some(0));
        assert_eq!(int("o"), Some(7));
        assert_eq!(float("p"), Some(80.5));
        assert!(n.get("q").is_none());
        assert_eq!(string("r").as_deref(), Some("on"));
        assert_eq!(float("s"), Some(1.0));
        assert_eq!(float("t"), Some(f64::INFINITY));
    }

    /// Every spelling of `tests/data/pyyaml_scalars.json` (PyYAML's own
    /// reading of `v: TEXT`, recorded once) is typed and valued alike.
    #[test]
    fn plain_scalars_match_the_recorded_pyyaml_readings() {
        let data: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/data/pyyaml_scalars.json")).unwrap();
        let rows = data["rows"].as_array().unwrap();
        assert!(rows.len() > 150);
        for row in rows {
            let text = row[0].as_str().unwrap();
            let kind = row[1].as_str().unwrap();
            let source = Source::new(Origin::Inline("t.yaml".into()), format!("v: {text}\n"));
            let options = Options {
                schema: Schema::PyYaml11,
                place: Place::Defined,
                max_map_entries: None,
                key_name: |n| n.as_str().map(str::to_string),
            };
            let got = parse(&source, &options);
            let ok = match (kind, got.as_ref().map(|n| &n.entries()[0].2.val)) {
                ("error", Err(_)) => true,
                ("bool", Ok(Val::Bool(b))) => Some(*b) == row[2].as_bool(),
                ("null", Ok(Val::Null)) => true,
                ("int", Ok(Val::Int(i))) => Some(i.to_string().as_str()) == row[2].as_str(),
                ("float", Ok(Val::Float(f))) => {
                    let want: f64 = match row[2].as_str().unwrap() {
                        "inf" => f64::INFINITY,
                        "-inf" => f64::NEG_INFINITY,
                        "nan" => f64::NAN,
                        x => x.parse().unwrap(),
                    };
                    (want.is_nan() && f.is_nan()) || want == *f
                }
                ("str", Ok(Val::Str(s))) => Some(s.as_str()) == row[2].as_str(),
                // A timestamp (a `datetime.date` in Python) is kept as its text.
                ("other", Ok(Val::Str(s))) => Some(s.as_str()) == row[2].as_str(),
                _ => false,
            };
            assert!(
                ok,
                "{text:?}: PyYAML {kind} {}, here {:?}",
                row[2],
                got.map(|n| n.entries()[0].2.val.clone())
            );
        }
    }

    #[test]
    fn aliases_are_placed_as_asked() {
        let text = "a: &x 1\nb: *x\n";
        let defined = parse_text(text, Place::Defined);
        assert_eq!(defined.get("b").unwrap().span.pos.line, 1);
        let referenced = parse_text(text, Place::Referenced);
        assert_eq!(referenced.get("b").unwrap().span.pos.line, 2);
    }

    #[test]
    fn budget_and_refused_keys_are_positioned() {
        let source = Source::new(
            Origin::Inline("t.yaml".into()),
            "x:\n  a: 1\n  b: 2\n  c: 3\n".into(),
        );
        let mut options = Options {
            schema: Schema::PyYaml11,
            place: Place::Defined,
            max_map_entries: Some((2, "these mappings")),
            key_name: |n| n.as_str().map(str::to_string),
        };
        let e = parse(&source, &options).unwrap_err().to_string();
        assert!(e.contains("<t.yaml>:2:3") && e.contains("at most 2"), "{e}");
        options.key_name = |_| None;
        let e = parse(&source, &options).unwrap_err().to_string();
        assert!(
            e.contains("<t.yaml>:1:1") && e.contains("mapping key"),
            "{e}"
        );
    }
}
