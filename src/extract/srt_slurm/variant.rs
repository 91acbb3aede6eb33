//! One job of an srt-slurm recipe: the whole file, or `base:` with one
//! `override_<sfx>` or one `zip_override_<sfx>[i]` merged over it, as srtctl
//! picks it (`srtctl apply -f FILE:SELECTOR`).
//!
//! The rules are srtctl's (`generate_override_configs`, `deep_merge`,
//! `expand_zip_override`): a mapping merges into a mapping key by key, a
//! `null` deletes the key, anything else (lists included) replaces; a zip
//! group's list leaves are its dimension (length-1 lists broadcast, the other
//! lengths must agree), variant `i` takes item `i` of each.

use crate::error::Error;
use crate::extract::yaml_tree::{Node, Val};
use crate::span::Span;

/// The job a selector picks from a recipe document, or why it picks none.
pub(super) fn select(doc: &Node, selector: Option<&str>) -> Result<Node, Error> {
    if !doc.has_key("base") {
        if let Some(s) = selector {
            return Err(Error::input(
                doc.span.clone(),
                format!(
                    "selector `{s}` needs a recipe with `base:` and its overrides; this one has no `base:`"
                ),
            ));
        }
        return Ok(doc.clone());
    }
    let base = doc.get("base").filter(|b| b.is_map()).ok_or_else(|| {
        Error::input(
            doc.key_span("base").unwrap_or_else(|| doc.span.clone()),
            "`base` must be a mapping",
        )
    })?;
    let mut overrides: Vec<&str> = doc
        .keys()
        .into_iter()
        .filter(|k| k.starts_with("override_"))
        .collect();
    let mut zips: Vec<&str> = doc
        .keys()
        .into_iter()
        .filter(|k| k.starts_with("zip_override_"))
        .collect();
    overrides.sort_unstable();
    zips.sort_unstable();
    let available = || {
        let mut v: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        v.extend(zips.iter().map(|z| format!("{z}[i]")));
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join(", ")
        }
    };
    let Some(selector) = selector else {
        return Err(Error::input(
            doc.span.clone(),
            format!(
                "a recipe with `base:` runs one job per variant when no selector is given ({}); name one as FILE:SELECTOR",
                available()
            ),
        ));
    };
    if selector == "base" {
        return Ok(base.clone());
    }
    if selector.contains(['*', '?']) {
        return Err(Error::input(
            doc.span.clone(),
            format!("selector `{selector}` is a pattern: it picks several jobs, not one"),
        ));
    }
    if let Some((group, index)) = zip_selector(selector) {
        let zip = doc.get(group).ok_or_else(|| {
            Error::input(
                doc.span.clone(),
                format!("no `{group}` in this recipe (it has: {})", available()),
            )
        })?;
        let n = zip_length(zip)?;
        if index >= n {
            return Err(Error::input(
                zip.span.clone(),
                format!("`{group}[{index}]` is out of range: the group has {n} variants"),
            ));
        }
        return Ok(merge(base, &slice(zip, index)));
    }
    if selector.starts_with("zip_override_") {
        return Err(Error::input(
            doc.span.clone(),
            format!(
                "selector `{selector}` names a whole zip group: name one variant as `{selector}[i]`"
            ),
        ));
    }
    match doc.entries().iter().rev().find(|(k, _, _)| k == selector) {
        Some((_, key, o)) if selector.starts_with("override_") => {
            if !o.is_map() {
                // srtctl's `deep_merge(base, override)` calls `.items()` on it.
                let ty = python_type(&o.val);
                let at = if matches!(o.val, Val::Null) {
                    key
                } else {
                    &o.span
                };
                return Err(Error::input(
                    at.clone(),
                    format!(
                        "`{selector}` is {ty}, not a mapping: srtctl merges an override into `base` key by key and stops here ('{}' object has no attribute 'items')",
                        ty.rsplit(' ').next().unwrap_or(ty)
                    ),
                ));
            }
            Ok(merge(base, o))
        }
        _ => Err(Error::input(
            doc.span.clone(),
            format!("no `{selector}` in this recipe (it has: {})", available()),
        )),
    }
}

/// `zip_override_<name>[N]`, as srtctl's pattern `(zip_override_[\w-]+)\[(\d+)\]` reads it.
fn zip_selector(s: &str) -> Option<(&str, usize)> {
    let (group, rest) = s.split_once('[')?;
    let digits = rest.strip_suffix(']')?;
    let name = group.strip_prefix("zip_override_")?;
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    if name.is_empty() || !name.chars().all(word) || digits.is_empty() {
        return None;
    }
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // An index beyond usize is out of range of any group.
    Some((group, digits.parse().unwrap_or(usize::MAX)))
}

/// srtctl's `deep_merge`: `over` merged into a copy of `base`.
pub(super) fn merge(base: &Node, over: &Node) -> Node {
    let (Val::Map(b), Val::Map(o)) = (&base.val, &over.val) else {
        return over.clone();
    };
    let mut out: Vec<(String, Span, Node)> = b.clone();
    for (k, ks, v) in o {
        let at = out.iter().position(|(x, _, _)| x == k);
        match (&v.val, at) {
            (Val::Null, Some(i)) => {
                out.remove(i);
            }
            (Val::Null, None) => {}
            (Val::Map(_), Some(i)) if out[i].2.is_map() => {
                out[i].2 = merge(&out[i].2, v);
            }
            (_, Some(i)) => out[i].2 = v.clone(),
            (_, None) => out.push((k.clone(), ks.clone(), v.clone())),
        }
    }
    Node {
        span: base.span.clone(),
        val: Val::Map(out),
    }
}

/// The length of every list leaf of a zip group (recursively through mappings).
fn list_lengths(n: &Node, out: &mut Vec<(usize, Span)>) {
    for (_, _, v) in n.entries() {
        match &v.val {
            Val::Seq(s) => out.push((s.len(), v.span.clone())),
            Val::Map(_) => list_lengths(v, out),
            _ => {}
        }
    }
}

/// How many variants a zip group has (srtctl's `_determine_zip_length`).
fn zip_length(zip: &Node) -> Result<usize, Error> {
    if !zip.is_map() {
        return Err(Error::input(
            zip.span.clone(),
            "a zip_override group must be a mapping",
        ));
    }
    let mut lengths = Vec::new();
    list_lengths(zip, &mut lengths);
    if lengths.is_empty() {
        return Err(Error::input(
            zip.span.clone(),
            "this zip_override group has no list values: nothing to zip",
        ));
    }
    if let Some((_, at)) = lengths.iter().find(|(n, _)| *n == 0) {
        return Err(Error::input(
            at.clone(),
            "an empty list in a zip_override group: it cannot zip zero variants",
        ));
    }
    let mut n = 1;
    for (len, at) in &lengths {
        if *len == 1 {
            continue;
        }
        if n != 1 && *len != n {
            return Err(Error::input(
                at.clone(),
                format!(
                    "this list has {len} items where the group's other lists have {n}: zip lists must have the same length, or length 1"
                ),
            ));
        }
        n = *len;
    }
    Ok(n)
}

/// Variant `i` of a zip group (srtctl's `_apply_zip_slice`): each list leaf
/// replaced by its item `i` (item 0 of a length-1 list).
fn slice(zip: &Node, i: usize) -> Node {
    let entries = zip
        .entries()
        .iter()
        .map(|(k, ks, v)| {
            let v = match &v.val {
                Val::Seq(s) => s[if s.len() == 1 { 0 } else { i }].clone(),
                Val::Map(_) => slice(v, i),
                _ => v.clone(),
            };
            (k.clone(), ks.clone(), v)
        })
        .collect();
    Node {
        span: zip.span.clone(),
        val: Val::Map(entries),
    }
}

/// Repeated keys as PyYAML reads them into a dict: the first key's place,
/// the last value.
pub(super) fn dedupe(n: Node) -> Node {
    let val = match n.val {
        Val::Map(m) => {
            let mut out: Vec<(String, Span, Node)> = Vec::with_capacity(m.len());
            for (k, ks, v) in m {
                let v = dedupe(v);
                match out.iter_mut().find(|(x, _, _)| *x == k) {
                    Some(e) => e.2 = v,
                    None => out.push((k, ks, v)),
                }
            }
            Val::Map(out)
        }
        Val::Seq(s) => Val::Seq(s.into_iter().map(dedupe).collect()),
        other => other,
    };
    Node { span: n.span, val }
}

/// The Python type PyYAML reads a value as, with its article (`a list`,
/// `None`), as srtctl's errors about it name it.
pub(super) fn python_type(v: &Val) -> &'static str {
    match v {
        Val::Null => "null (NoneType)",
        Val::Bool(_) => "a bool",
        Val::Int(_) => "an int",
        Val::Float(_) => "a float",
        Val::Str(_) => "a str",
        Val::Seq(_) => "a list",
        Val::Map(_) => "a dict",
    }
}
