//! A YAML text as a small tree with spans: serde-saphyr's spanned values
//! (under its default anti-DoS budget: depth, nodes, events, aliases) lowered
//! to [`Node`]s, mappings kept in document order. Integers are exact (YAML
//! allows any size; beyond `i128` they are read as floats), floats stay
//! floats. The InferenceX master configs and the vLLM recipes read it, each
//! with its own [`Options`].

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

/// How a format reads its YAML.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    /// Only `true`/`false` are booleans (YAML 1.2 core: `yes`/`on` are strings).
    pub(crate) strict_booleans: bool,
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
        strict_booleans: options.strict_booleans,
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

impl Node {
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
            strict_booleans: false,
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
            strict_booleans: false,
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
