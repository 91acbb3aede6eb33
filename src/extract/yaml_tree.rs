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
    /// The name of a key of a mapping nested in another mapping or in a
    /// list (vLLM's config: `json.dumps` writes those, `true` not `True`);
    /// `None`: `key_name` at every depth.
    pub(crate) inner_key_name: Option<fn(&Node) -> Option<String>>,
}

impl Options {
    /// The options for the values inside a collection.
    fn nested(&self) -> Options {
        Options {
            key_name: self.inner_key_name.unwrap_or(self.key_name),
            ..*self
        }
    }
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
    // PyYAML's line breaks and tabs: the text read is what PyYAML's
    // scanner reads (same offsets), or an error.
    let rewritten;
    let source = match options.schema {
        Schema::PyYaml11 => match pyyaml_text::pyyaml_text(source)? {
            Some(text) => {
                rewritten = source.window(source.origin.clone(), vec![(0, 0)], text);
                &rewritten
            }
            None => source,
        },
        Schema::Core12 => source,
    };
    let saphyr = serde_saphyr::options! {
        strict_booleans: options.schema == Schema::Core12,
        // PyYAML reads `.inf` and `.nan` (typed again below).
        non_finite_float_policy: if options.schema == Schema::Core12 {
            serde_saphyr::options::NonFiniteFloatPolicy::Reject
        } else {
            serde_saphyr::options::NonFiniteFloatPolicy::PassThrough
        },
        with_snippet: false,
        // Repeated keys reach the tree, which keeps the last (PyYAML) or
        // refuses them (js-yaml).
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::PassThrough,
        // js-yaml merges `<<` as serde-saphyr does (the first merged value
        // of a key wins); PyYAML's merges are the tree's (see `lower`).
        merge_keys: if options.schema == Schema::PyYaml11 {
            serde_saphyr::options::MergeKeyPolicy::AsOrdinary
        } else {
            serde_saphyr::options::MergeKeyPolicy::Merge
        },
    };
    // Explicit tags are read here (serde-saphyr would type some of them its
    // own way, or fail on them): the text it parses has them blanked out.
    let (text, tags) = match scan_tags(source)? {
        Some((text, tags)) => (std::borrow::Cow::Owned(text), tags),
        None => (std::borrow::Cow::Borrowed(&*source.text), Tags::default()),
    };
    let raw: Spanned<Raw> =
        serde_saphyr::from_str_with_options(&text, saphyr).map_err(|e| Error::yaml(source, &e))?;
    lower(raw, source, options, &tags)
}

fn lower(
    raw: Spanned<Raw>,
    source: &Source,
    options: &Options,
    tags: &Tags,
) -> Result<Node, Error> {
    let span = source.yaml_span(match options.place {
        Place::Defined => &raw.defined,
        Place::Referenced => &raw.referenced,
    });
    // A scalar with an explicit tag is what the tag makes of its value.
    if matches!(
        raw.value,
        Raw::Null | Raw::Bool(_) | Raw::Int(_) | Raw::Float(_) | Raw::Str(_)
    ) && let Some(t) = tags.scalars.get(&source.yaml_span(&raw.defined).start)
    {
        let val = tagged_scalar(t, options.schema)?;
        return Ok(Node { span, val });
    }
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
                .map(|i| lower(i, source, &options.nested(), tags))
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
            let pairs = flatten(entries, source, options, tags)?;
            let mut out: Vec<(String, Span, Node)> = Vec::with_capacity(pairs.len());
            let mut index: std::collections::HashMap<String, usize> =
                std::collections::HashMap::with_capacity(pairs.len());
            for (name, key_span, value, _) in pairs {
                match index.get(&name) {
                    // A repeated key: PyYAML keeps the last value at the
                    // first key's place in the dict; js-yaml (the recipes
                    // site) refuses it.
                    Some(&i) if options.schema == Schema::PyYaml11 => {
                        out[i] = (name, key_span, value);
                    }
                    Some(_) => {
                        return Err(Error::input(
                            key_span,
                            format!(
                                "invalid YAML: the mapping key {name:?} is repeated (js-yaml refuses a repeated key)"
                            ),
                        ));
                    }
                    None => {
                        index.insert(name.clone(), out.len());
                        out.push((name, key_span, value));
                    }
                }
            }
            Val::Map(out)
        }
    };
    Ok(Node { span, val })
}

/// Whether a mapping key is a merge key as PyYAML reads it: a plain `<<`
/// (its implicit resolver) or a key tagged `!!merge`; a quoted `"<<"` or a
/// `<<` with another tag is a plain key.
fn is_merge_key(key: &Spanned<Raw>, source: &Source, tags: &Tags) -> bool {
    let written = source.yaml_span(&key.defined);
    match tags.scalars.get(&written.start) {
        Some(t) => t.tag.strip_prefix(CORE) == Some("merge"),
        None => {
            matches!(&key.value, Raw::Str(s) if s == "<<")
                && source.text.get(written.start..written.end) == Some("<<")
        }
    }
}

/// What PyYAML 6.0.4's merge compares keys by: `id()` of the key's string.
/// CPython keeps one string object for each string of at most one Latin-1
/// character, so two such keys are one; any longer key is its own object,
/// one per place it is written (an alias brings the anchored key itself).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum KeyId {
    /// A string of at most one Latin-1 character.
    Shared(String),
    /// The key written at this offset.
    At(usize),
}

/// A mapping entry: its key's name and place, its value, its [`KeyId`].
type Entry = (String, Span, Node, KeyId);

/// A merged entry with its source: (which `<<` of the mapping, which item
/// of its list).
type Merged = ((usize, usize), Entry);

/// A mapping's entries as PyYAML's `flatten_mapping` (6.0.4) leaves them:
/// first what its merge keys (`<<`) bring, in document order (a list of
/// mappings item by item), a key whose [`KeyId`] an earlier merged entry
/// has skipped; then the mapping's own entries. Building the dict, a later
/// entry of a name wins. Each merged mapping is flattened first. A merge
/// value that is not a mapping or a list of mappings is an error at it, as
/// PyYAML fails on it. (PyYAML 6.0.3 and earlier took a list's items last
/// first and skipped no key: `<<: [{tp: 1}, {tp: 2}]` was tp 1 there, 2 in
/// 6.0.4.)
fn flatten(
    entries: Vec<(Spanned<Raw>, Spanned<Raw>)>,
    source: &Source,
    options: &Options,
    tags: &Tags,
) -> Result<Vec<Entry>, Error> {
    let refused = "PyYAML's safe_load fails on it (the program reading this file does not start)";
    let place = |raw: &Spanned<Raw>| {
        source.yaml_span(match options.place {
            Place::Defined => &raw.defined,
            Place::Referenced => &raw.referenced,
        })
    };
    // Every merged entry with its source: (which `<<`, which list item).
    let mut candidates: Vec<Merged> = Vec::new();
    let mut merge_keys = 0;
    let mut own = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        if options.schema == Schema::PyYaml11 && is_merge_key(&k, source, tags) {
            let group = merge_keys;
            merge_keys += 1;
            let at = place(&v);
            let items = match v.value {
                Raw::Map(_) => vec![v],
                Raw::Seq(items) => items,
                _ => {
                    return Err(Error::input(
                        at,
                        format!(
                            "a merge key (`<<`) takes a mapping or a list of mappings; {refused}"
                        ),
                    ));
                }
            };
            for (n, item) in items.into_iter().enumerate() {
                let at = place(&item);
                let Raw::Map(inner) = item.value else {
                    return Err(Error::input(
                        at,
                        format!(
                            "a list merged with `<<` holds something else than a mapping; {refused}"
                        ),
                    ));
                };
                for pair in flatten(inner, source, options, tags)? {
                    candidates.push(((group, n), pair));
                }
            }
            continue;
        }
        let written = source.yaml_span(&k.defined);
        // A plain `=` key: PyYAML's `flatten_mapping` makes it a string.
        let key = if options.schema == Schema::PyYaml11
            && !tags.scalars.contains_key(&written.start)
            && source
                .text
                .get(written.start..written.end)
                .map(str::trim_end)
                == Some("=")
        {
            Node {
                span: place(&k),
                val: Val::Str("=".into()),
            }
        } else {
            lower(k, source, options, tags)?
        };
        let Some(name) = (options.key_name)(&key) else {
            return Err(Error::input(key.span, "a mapping key must be a scalar"));
        };
        // The key node's string: a plain scalar's text, a quoted one's value.
        let raw_text = source.text.get(written.start..written.end).unwrap_or("");
        let string = if raw_text.starts_with(['"', '\'']) {
            name.as_str()
        } else {
            raw_text
        };
        let mut chars = string.chars();
        let shared = match (chars.next(), chars.next()) {
            (None, _) => true,
            (Some(c), None) => (c as u32) < 0x100,
            _ => false,
        };
        let id = if shared {
            KeyId::Shared(name.clone())
        } else {
            KeyId::At(written.start)
        };
        let value = lower(v, source, &options.nested(), tags)?;
        own.push((name, key.span, value, id));
    }
    version_independent(&candidates, &own)?;
    let mut seen: std::collections::HashSet<KeyId> = std::collections::HashSet::new();
    let mut merged: Vec<Entry> = candidates
        .into_iter()
        .filter(|(_, p)| seen.insert(p.3.clone()))
        .map(|(_, p)| p)
        .collect();
    merged.extend(own);
    Ok(merged)
}

/// Refuses a merged key whose value PyYAML 6.0.3 and 6.0.4 read
/// differently, since which one vLLM (or the benchmark) gets depends on
/// the PyYAML it runs with: a key the mapping does not set itself, brought
/// by several merge sources with different values. 6.0.3 keeps the last
/// `<<`'s value, of a list's items the first; 6.0.4 the first source's for
/// a one-character key ([`KeyId::Shared`]), else the last source's.
fn version_independent(candidates: &[Merged], own: &[Entry]) -> Result<(), Error> {
    let mut by_name: std::collections::BTreeMap<&str, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (i, (_, p)) in candidates.iter().enumerate() {
        by_name.entry(p.0.as_str()).or_default().push(i);
    }
    for (name, ids) in by_name {
        if ids.len() < 2 || own.iter().any(|o| o.0 == name) {
            continue;
        }
        let shared = matches!(candidates[ids[0]].1.3, KeyId::Shared(_));
        let v604 = if shared { ids[0] } else { ids[ids.len() - 1] };
        // 6.0.3: the last `<<` that brings it, of its list the first item,
        // of that item's entries the last.
        let last_group = ids.iter().map(|&i| candidates[i].0.0).max().unwrap_or(0);
        let first_item = ids
            .iter()
            .filter(|&&i| candidates[i].0.0 == last_group)
            .map(|&i| candidates[i].0.1)
            .min()
            .unwrap_or(0);
        let v603 = ids
            .iter()
            .copied()
            .filter(|&i| candidates[i].0 == (last_group, first_item))
            .max()
            .unwrap_or(v604);
        let (a, b) = (&candidates[v603].1, &candidates[v604].1);
        let (ja, jb) = (a.2.to_json().ok(), b.2.to_json().ok());
        if ja != jb {
            let shown = |j: Option<serde_json::Value>| j.map_or("?".to_string(), |j| j.to_string());
            return Err(Error::input(
                b.1.clone(),
                format!(
                    "the merge keys (`<<`) bring {name:?} more than once and PyYAML's versions disagree on which wins (6.0.3 reads {}, 6.0.4 reads {}): the value the program gets depends on the PyYAML it runs with; set {name:?} in the mapping itself",
                    shown(ja),
                    shown(jb)
                ),
            ));
        }
    }
    Ok(())
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
    // The value and merge resolvers (`=`, `<<`): safe_load has no
    // constructor for either tag in a value.
    if let Some(tag) = match t {
        "=" => Some("value"),
        "<<" => Some("merge"),
        _ => None,
    } {
        return Some(Err(format!(
            "a plain {t:?} is resolved to the tag {CORE}{tag}, which PyYAML's safe_load cannot construct (`could not determine a constructor`): the program reading this file does not start; quote it (\"{t}\") for a string"
        )));
    }
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
    // timestamp: a `date` or `datetime`, which a program prints with `str()`.
    if let Some(r) = timestamp::python_str(t) {
        return Some(r.map(Val::Str));
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

/// The explicit tags of a YAML text (`!!str 010`, `!!int "010"`), which
/// serde-saphyr's values do not carry: found with its scanner before the text
/// is parsed, each tagged scalar's value (as the scanner decoded it) kept by
/// where the scalar is written, and the tags blanked out of the text that
/// serde-saphyr then parses (so it types nothing by a tag, and offsets stay).
#[derive(Default)]
struct Tags {
    /// Tagged scalars by the byte offset of their text (or of their tag, for
    /// an empty one).
    scalars: std::collections::BTreeMap<usize, TaggedScalar>,
}

/// A scalar with an explicit tag.
struct TaggedScalar {
    /// The tag resolved (`tag:yaml.org,2002:int`, `!`, `!foo`).
    tag: String,
    /// The tag as written, for messages.
    written: String,
    /// The scalar's value as the scanner decoded it (quotes, escapes and
    /// folding applied).
    value: String,
    /// Where the tag is written.
    at: Span,
}

/// The YAML core tags' prefix (what `!!` stands for).
const CORE: &str = "tag:yaml.org,2002:";

/// Finds the tags of `source` ([`Tags`]) and the text with them blanked out;
/// `None` when the text has no tag (or does not scan: serde-saphyr then
/// reports the syntax error). A tag on a collection is a mapping or sequence
/// tag, else an error at it; a tag at the start of a line on a block
/// mapping's key is an error (blanking it would move the key).
fn scan_tags(source: &Source) -> Result<Option<(String, Tags)>, Error> {
    use granit_parser::{Scanner, StrInput, TokenType};
    let text = &source.text;
    if !text.contains('!') {
        return Ok(None);
    }
    let mut tokens = Vec::new();
    for t in Scanner::new(StrInput::new(text)) {
        match t {
            Ok(t) => tokens.push(t.into_parts()),
            Err(_) => return Ok(None),
        }
    }
    let mut handles: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    let mut blanked = text.as_bytes().to_vec();
    let mut tags = Tags::default();
    let mut flow = 0usize;
    for (i, (span, tok)) in tokens.iter().enumerate() {
        match tok {
            TokenType::FlowSequenceStart | TokenType::FlowMappingStart => flow += 1,
            TokenType::FlowSequenceEnd | TokenType::FlowMappingEnd => {
                flow = flow.saturating_sub(1);
            }
            TokenType::TagDirective(handle, prefix) => {
                handles.insert(handle.to_string(), prefix.to_string());
                continue;
            }
            _ => {}
        }
        let TokenType::Tag(handle, suffix) = tok else {
            continue;
        };
        let (Some(start), Some(end)) = (span.start.byte_offset(), span.end.byte_offset()) else {
            return Ok(None);
        };
        let (start, end) = (start.min(text.len()), end.min(text.len()));
        let at = source.span(start, end);
        let written = text[start..end].to_string();
        let tag = match handle.as_ref() {
            // A verbatim tag (`!<tag:yaml.org,2002:str>`).
            "" => suffix.to_string(),
            "!!" => format!("{}{suffix}", handles.get("!!").map_or(CORE, String::as_str)),
            h => match handles.get(h) {
                Some(prefix) => format!("{prefix}{suffix}"),
                None => format!("{h}{suffix}"),
            },
        };
        // The node the tag is on: the next token that is not an anchor.
        let next = tokens[i + 1..]
            .iter()
            .find(|(_, t)| !matches!(t, TokenType::Anchor(_)));
        // A tag that starts an implicit key of a block mapping (the
        // scanner's zero-width key token right before it): blanking it would
        // move the key's column.
        let on_block_key = flow == 0
            && i > 0
            && matches!(&tokens[i - 1], (k, TokenType::Key) if k.start.byte_offset() == k.end.byte_offset());
        let same_line = |s: &granit_parser::Span| s.start.line() == span.start.line();
        match next {
            Some((s, TokenType::Scalar(_, value))) => {
                if on_block_key {
                    return Err(Error::input(
                        at,
                        format!(
                            "a tag ({written}) on an implicit key of a block mapping is not read; write the key as `? {written} KEY` on a line of its own"
                        ),
                    ));
                }
                let Some(offset) = s.start.byte_offset() else {
                    return Ok(None);
                };
                tags.scalars.insert(
                    offset,
                    TaggedScalar {
                        tag,
                        written,
                        value: value.to_string(),
                        at,
                    },
                );
                blanked[start..end].fill(b' ');
            }
            Some((
                _,
                TokenType::FlowSequenceStart
                | TokenType::FlowMappingStart
                | TokenType::BlockSequenceStart
                | TokenType::BlockMappingStart
                | TokenType::BlockEntry,
            )) => {
                // The value of a plain `<<` merge key: PyYAML's
                // `flatten_mapping` merges it by its kind (a mapping or a list
                // of mappings) and never constructs it, so its tag is ignored.
                let merge_value = i >= 2
                    && matches!(tokens[i - 1].1, TokenType::Value)
                    && matches!(
                        &tokens[i - 2].1,
                        TokenType::Scalar(granit_parser::ScalarStyle::Plain, k) if k == "<<"
                    );
                if !merge_value
                    && !matches!(tag.strip_prefix(CORE), Some("seq" | "map"))
                    && tag != "!"
                {
                    return Err(Error::input(
                        at,
                        format!(
                            "the tag {written} on a collection: {}",
                            collection_tag(&tag)
                        ),
                    ));
                }
                blanked[start..end].fill(b' ');
            }
            // A tag on the same line as what follows it that is no node of
            // its own (a key of a compact mapping): not read.
            Some((s, TokenType::Key | TokenType::Value)) if same_line(s) => {
                return Err(Error::input(
                    at,
                    format!("a tag ({written}) before a compact mapping is not read"),
                ));
            }
            // An empty node with the one-character non-specific tag `!`:
            // null, as serde-saphyr reads the blanked text.
            _ if end - start < 2 => blanked[start..end].fill(b' '),
            // An empty node: an empty scalar, written `''` in the text
            // serde-saphyr reads.
            _ => {
                tags.scalars.insert(
                    start,
                    TaggedScalar {
                        tag,
                        written,
                        value: String::new(),
                        at,
                    },
                );
                blanked[start..end].fill(b' ');
                blanked[start..start + 2].copy_from_slice(b"''");
            }
        }
    }
    if tags.scalars.is_empty() && blanked == text.as_bytes() {
        return Ok(None);
    }
    // Only ASCII tag bytes were replaced with ASCII.
    let blanked = String::from_utf8(blanked).unwrap_or_else(|_| text.to_string());
    Ok(Some((blanked, tags)))
}

/// Why a tag on a collection is not read: PyYAML's `safe_load` builds a
/// Python value recipe-drift does not model (`!!set`, `!!omap`, `!!pairs`),
/// or has no constructor for the tag.
fn collection_tag(tag: &str) -> &'static str {
    match tag.strip_prefix(CORE) {
        Some("set" | "omap" | "pairs") => {
            "PyYAML's safe_load builds a Python set or list of pairs from it, which recipe-drift does not model"
        }
        _ => {
            "PyYAML's safe_load has no constructor for it and fails (the program reading this file does not start)"
        }
    }
}

/// What PyYAML's `safe_load` makes of a scalar with an explicit tag
/// (`yaml/constructor.py`'s `SafeConstructor`); for the YAML 1.2 reader of
/// the recipes site, only `!!str` and `!!null` are read. A value PyYAML
/// fails on, or builds as something recipe-drift does not model (bytes, a
/// date), is an error at the tag.
fn tagged_scalar(t: &TaggedScalar, schema: Schema) -> Result<Val, Error> {
    let fail =
        |why: String| Error::input(t.at.clone(), format!("{} {:?}: {why}", t.written, t.value));
    let refused = "PyYAML's safe_load fails on it (the program reading this file does not start)";
    let suffix = t.tag.strip_prefix(CORE);
    if schema == Schema::Core12 {
        return match suffix {
            Some("str") => Ok(Val::Str(t.value.clone())),
            Some("null") => Ok(Val::Null),
            _ => Err(fail(
                "an explicit tag other than !!str and !!null is not read in this file".into(),
            )),
        };
    }
    match suffix {
        Some("str") => Ok(Val::Str(t.value.clone())),
        Some("null") => Ok(Val::Null),
        Some("bool") => match t.value.to_lowercase().as_str() {
            "yes" | "true" | "on" => Ok(Val::Bool(true)),
            "no" | "false" | "off" => Ok(Val::Bool(false)),
            _ => Err(fail(format!("not a YAML 1.1 boolean; {refused}"))),
        },
        Some("int") => match construct_yaml_int(&t.value) {
            Ok(n) => Ok(Val::Int(n)),
            Err(why) => Err(fail(format!("{why}; {refused}"))),
        },
        Some("float") => match construct_yaml_float(&t.value) {
            Some(x) => Ok(Val::Float(x)),
            None => Err(fail(format!("not a float; {refused}"))),
        },
        Some("binary" | "timestamp") => Err(fail(
            "PyYAML's safe_load builds bytes or a date from it, which recipe-drift does not model"
                .into(),
        )),
        // The non-specific tag: PyYAML types the value as if it were plain,
        // quoted or not (`! "010"` is 8).
        None if t.tag == "!" => Ok(match pyyaml_scalar(&t.value) {
            _ if t.value.is_empty() => Val::Null,
            // `pyyaml_scalar` reads source text, whose trailing blanks are
            // not the value's; a value with them is no number.
            _ if t.value.trim_end() != t.value => Val::Str(t.value.clone()),
            Some(typed) => typed.map_err(fail)?,
            None => Val::Str(t.value.clone()),
        }),
        _ => Err(fail(format!(
            "PyYAML's safe_load has no constructor for the tag {} and fails (the program reading this file does not start)",
            t.tag
        ))),
    }
}

/// Python's `int(s, base)` of a text without underscores: blanks around it,
/// a sign, the base's prefix (`0b`, `0o`, `0x`, any case) for bases 2, 8 and
/// 16. ASCII digits only (Python takes any Unicode decimal digit: such a
/// text is refused, not guessed).
fn python_int(s: &str, base: u32) -> Option<i128> {
    let t = s.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let prefix = match base {
        2 => Some("0b"),
        8 => Some("0o"),
        16 => Some("0x"),
        _ => None,
    };
    let t = match prefix {
        Some(p) if t.len() >= 2 && t[..2].eq_ignore_ascii_case(p) => &t[2..],
        _ => t,
    };
    if t.is_empty() || !t.chars().all(|c| c.is_digit(base)) {
        return None;
    }
    let n = i128::from_str_radix(t, base).ok()?;
    Some(if neg { -n } else { n })
}

/// PyYAML's `construct_yaml_int` of a `!!int` scalar's value.
fn construct_yaml_int(value: &str) -> Result<i128, String> {
    let v = value.replace('_', "");
    let Some(first) = v.chars().next() else {
        return Err("an empty integer".into());
    };
    let sign = if first == '-' { -1 } else { 1 };
    let v = if matches!(first, '+' | '-') {
        &v[1..]
    } else {
        &v[..]
    };
    let bad = || "not an integer Python's int() reads".to_string();
    let n = if v == "0" {
        Some(0)
    } else if let Some(b) = v.strip_prefix("0b") {
        python_int(b, 2)
    } else if let Some(x) = v.strip_prefix("0x") {
        python_int(x, 16)
    } else if v.starts_with('0') {
        python_int(v, 8)
    } else if v.contains(':') {
        let mut total: Option<i128> = Some(0);
        for part in v.split(':') {
            total = total
                .and_then(|t| t.checked_mul(60))
                .and_then(|t| t.checked_add(python_int(part, 10)?));
        }
        total
    } else if v.is_empty() {
        return Err("an integer with no digits".into());
    } else {
        python_int(v, 10)
    };
    n.map(|n| sign * n).ok_or_else(bad)
}

/// PyYAML's `construct_yaml_float` of a `!!float` scalar's value.
fn construct_yaml_float(value: &str) -> Option<f64> {
    let v = value.replace('_', "").to_lowercase();
    let first = v.chars().next()?;
    let sign = if first == '-' { -1.0 } else { 1.0 };
    let v = if matches!(first, '+' | '-') {
        &v[1..]
    } else {
        &v[..]
    };
    // Python's float(): blanks around it, a sign, digits with an optional
    // point and exponent, `inf`, `infinity`, `nan`.
    let float = |s: &str| -> Option<f64> {
        let s = s.trim();
        let body = s.trim_start_matches(['+', '-']);
        let ok = matches!(body, "inf" | "infinity" | "nan")
            || (!body.is_empty()
                && body
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
                && body.chars().any(|c| c.is_ascii_digit()));
        if !ok || s.len() - body.len() > 1 {
            return None;
        }
        s.parse::<f64>().ok()
    };
    if v == ".inf" {
        Some(sign * f64::INFINITY)
    } else if v == ".nan" {
        Some(f64::NAN)
    } else if v.contains(':') {
        let mut total = 0.0f64;
        for part in v.split(':') {
            total = total * 60.0 + float(part)?;
        }
        Some(sign * total)
    } else {
        Some(sign * float(v)?)
    }
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

/// JavaScript's view of a tree's values, as a JS program that parsed it
/// (js-yaml, or a JSON literal in a module) sees them: numbers are doubles.
impl Node {
    /// A number as a double.
    pub(crate) fn as_num(&self) -> Option<f64> {
        match self.val {
            Val::Int(n) => Some(n as f64),
            Val::Float(n) => Some(n),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub(crate) fn truthy(&self) -> bool {
        match &self.val {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Int(n) => *n != 0,
            Val::Float(n) => *n != 0.0 && !n.is_nan(),
            Val::Str(s) => !s.is_empty(),
            Val::Seq(_) | Val::Map(_) => true,
        }
    }

    /// `String(value)` for a scalar; `None` for sequences and mappings.
    pub(crate) fn scalar_string(&self) -> Option<String> {
        match &self.val {
            Val::Null => Some("null".into()),
            Val::Bool(b) => Some(b.to_string()),
            Val::Int(_) | Val::Float(_) => self.as_num().map(js_num),
            Val::Str(s) => Some(s.clone()),
            Val::Seq(_) | Val::Map(_) => None,
        }
    }

    /// `String(value)` for a truthy scalar (`a || b` chains on strings).
    pub(crate) fn truthy_string(&self) -> Option<String> {
        if self.truthy() {
            self.scalar_string()
        } else {
            None
        }
    }

    /// The strings of a sequence of strings (other items are skipped).
    pub(crate) fn str_list(&self) -> Vec<String> {
        self.items()
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect()
    }
}

/// `String(n)` for a JavaScript number (integers without a fraction).
pub(crate) fn js_num(n: f64) -> String {
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

mod pyyaml_text;
#[cfg(test)]
mod tests;
mod timestamp;
