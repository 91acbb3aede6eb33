//! A YAML tree with spans, read the way the site's js-yaml reads it
//! (numbers are doubles, mapping keys are strings, document order is kept).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::error::Error;
use crate::span::{Source, Span};

/// A YAML value as the site sees it after `js-yaml` (numbers are doubles,
/// mapping keys are strings, order is kept), with where it is written.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) span: Span,
    pub(super) val: Val,
}

#[derive(Debug, Clone)]
pub(super) enum Val {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in document order: key, key span, value.
    Map(Vec<(String, Span, Node)>),
}

/// What serde-saphyr hands us: values wrapped with their locations.
enum Raw {
    Null,
    Bool(bool),
    Num(f64),
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
                Ok(Raw::Num(n as f64))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Raw, E> {
                Ok(Raw::Num(n as f64))
            }
            fn visit_i128<E>(self, n: i128) -> Result<Raw, E> {
                Ok(Raw::Num(n as f64))
            }
            fn visit_u128<E>(self, n: u128) -> Result<Raw, E> {
                Ok(Raw::Num(n as f64))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Raw, E> {
                Ok(Raw::Num(n))
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

/// The most entries one mapping of a recipe may hold: keys are looked up by
/// a scan (document order matters), so this bounds every lookup. Real
/// recipes have tens.
pub const MAX_MAP_ENTRIES: usize = 1024;

/// Parses a YAML text into a spanned tree; syntax errors are `file:line:col`.
pub(super) fn parse_yaml(source: &Source) -> Result<Node, Error> {
    let options = serde_saphyr::options! {
        // js-yaml's default schema is YAML 1.2 core: `yes`/`on` are strings.
        strict_booleans: true,
        with_snippet: false,
    };
    let raw: Spanned<Raw> = serde_saphyr::from_str_with_options(&source.text, options)
        .map_err(|e| Error::yaml(source, &e))?;
    lower(raw, source)
}

fn span_of(loc: &serde_saphyr::Location, source: &Source) -> Span {
    let sp = loc.span();
    match sp.byte_offset() {
        Some(start) => {
            let mut start = (start as usize).min(source.text.len());
            while !source.text.is_char_boundary(start) {
                start -= 1;
            }
            let end = (start + sp.byte_len().unwrap_or(0) as usize).min(source.text.len());
            source.span(start, end)
        }
        None => source.span(0, 0),
    }
}

fn lower(raw: Spanned<Raw>, source: &Source) -> Result<Node, Error> {
    let span = span_of(&raw.defined, source);
    let val = match raw.value {
        Raw::Null => Val::Null,
        Raw::Bool(b) => Val::Bool(b),
        Raw::Num(n) => Val::Num(n),
        Raw::Str(s) => Val::Str(s),
        Raw::Seq(items) => Val::Seq(
            items
                .into_iter()
                .map(|i| lower(i, source))
                .collect::<Result<_, _>>()?,
        ),
        Raw::Map(entries) => {
            if entries.len() > MAX_MAP_ENTRIES {
                return Err(Error::input(
                    span,
                    format!(
                        "a mapping of {} entries; a recipe's mappings hold at most {MAX_MAP_ENTRIES} (the budget that keeps key lookups cheap)",
                        entries.len()
                    ),
                ));
            }
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = lower(k, source)?;
                let name = match key.scalar_string() {
                    Some(s) => s,
                    None => return Err(Error::input(key.span, "a mapping key must be a scalar")),
                };
                out.push((name, key.span, lower(v, source)?));
            }
            Val::Map(out)
        }
    };
    Ok(Node { span, val })
}

impl Node {
    /// `obj?.[key]`: the value under a key of a mapping; `None` when absent,
    /// null, or when this is not a mapping.
    pub(super) fn get(&self, key: &str) -> Option<&Node> {
        match &self.val {
            Val::Map(m) => m
                .iter()
                .rev()
                .find(|(k, _, _)| k == key)
                .map(|(_, _, v)| v)
                .filter(|v| !matches!(v.val, Val::Null)),
            _ => None,
        }
    }

    /// The span of a key of a mapping.
    pub(super) fn key_span(&self, key: &str) -> Option<Span> {
        match &self.val {
            Val::Map(m) => m
                .iter()
                .rev()
                .find(|(k, _, _)| k == key)
                .map(|(_, s, _)| s.clone()),
            _ => None,
        }
    }

    pub(super) fn path(&self, keys: &[&str]) -> Option<&Node> {
        let mut n = self;
        for k in keys {
            n = n.get(k)?;
        }
        Some(n)
    }

    pub(super) fn entries(&self) -> &[(String, Span, Node)] {
        match &self.val {
            Val::Map(m) => m,
            _ => &[],
        }
    }

    pub(super) fn keys(&self) -> Vec<&str> {
        self.entries().iter().map(|(k, _, _)| k.as_str()).collect()
    }

    pub(super) fn has_key(&self, key: &str) -> bool {
        self.entries().iter().any(|(k, _, _)| k == key)
    }

    pub(super) fn items(&self) -> &[Node] {
        match &self.val {
            Val::Seq(s) => s,
            _ => &[],
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match &self.val {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_num(&self) -> Option<f64> {
        match self.val {
            Val::Num(n) => Some(n),
            _ => None,
        }
    }

    pub(super) fn is_map(&self) -> bool {
        matches!(self.val, Val::Map(_))
    }

    /// JavaScript truthiness.
    pub(super) fn truthy(&self) -> bool {
        match &self.val {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Num(n) => *n != 0.0 && !n.is_nan(),
            Val::Str(s) => !s.is_empty(),
            Val::Seq(_) | Val::Map(_) => true,
        }
    }

    /// `String(value)` for a scalar; `None` for sequences and mappings.
    pub(super) fn scalar_string(&self) -> Option<String> {
        match &self.val {
            Val::Null => Some("null".into()),
            Val::Bool(b) => Some(b.to_string()),
            Val::Num(n) => Some(js_num(*n)),
            Val::Str(s) => Some(s.clone()),
            Val::Seq(_) | Val::Map(_) => None,
        }
    }

    /// `String(value)` for a truthy scalar (`a || b` chains on strings).
    pub(super) fn truthy_string(&self) -> Option<String> {
        if self.truthy() {
            self.scalar_string()
        } else {
            None
        }
    }

    /// The strings of a sequence of strings (other items are skipped).
    pub(super) fn str_list(&self) -> Vec<String> {
        self.items()
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect()
    }
}

/// `String(n)` for a JavaScript number (integers without a fraction).
pub(super) fn js_num(n: f64) -> String {
    if n.is_finite() && n == n.trunc() && n.abs() < 1e21 {
        format!("{}", n as i64)
    } else if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{n}")
    }
}
