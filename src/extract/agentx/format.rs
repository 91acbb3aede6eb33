//! A block as the component prints it (`formatBlock`): preamble lines, one
//! `NAME=value \` line per environment entry, the command, then one
//! `  --flag value... \` line per argument, values quoted as `quote` does.
//! Besides the text, each argument word with the place its value is written
//! in the data module.

use super::decode::Block;
use crate::extract::yaml_tree::{Node, Val};
use crate::span::Span;

/// A printed block.
pub(super) struct Printed {
    /// The text, as the page shows it.
    pub text: String,
    /// The words after the command (flags and values, unquoted) and where
    /// each is written in the data module.
    pub words: Vec<(String, Span)>,
}

/// `String(v)` of a value.
fn js_string(n: &Node) -> String {
    match &n.val {
        Val::Seq(items) => items
            .iter()
            .map(|i| match i.val {
                Val::Null => String::new(),
                _ => js_string(i),
            })
            .collect::<Vec<_>>()
            .join(","),
        Val::Map(_) => "[object Object]".into(),
        _ => n.scalar_string().unwrap_or_default(),
    }
}

/// Whether every character of `s` is one of the shell-safe ones (plus `extra`).
fn all_safe(s: &str, extra: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c) || extra.contains(c))
}

/// `quote(v)`: bare when safe, double-quoted when it holds `$`, `{`, `}` (a
/// placeholder stays expandable), else single-quoted.
pub(super) fn quote(s: &str) -> String {
    if all_safe(s, "") {
        s.to_string()
    } else if all_safe(s, "${}") {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `formatBlock(b)`.
pub(super) fn print(b: &Block) -> Printed {
    let mut lines: Vec<String> = Vec::new();
    if let Some(p) = b.get("preamble") {
        lines.extend(p.items().iter().map(js_string));
    }
    for (k, v) in b.env() {
        lines.push(format!("{k}={} \\", quote(&js_string(&v))));
    }
    let cmd = b
        .get("cmd")
        .map(js_string)
        .unwrap_or_else(|| "undefined".into());
    let args = b.args().unwrap_or(&[]);
    let mut words = Vec::new();
    if args.is_empty() {
        lines.push(if b.kind().as_deref() == Some("nginx") {
            "nginx -c nginx.conf -g 'daemon off;'".into()
        } else {
            cmd
        });
        return Printed {
            text: lines.join("\n"),
            words,
        };
    }
    lines.push(format!("{cmd} \\"));
    for (i, a) in args.iter().enumerate() {
        let items = a.items();
        let name = items
            .first()
            .map(js_string)
            .unwrap_or_else(|| "undefined".into());
        words.push((
            name.clone(),
            items.first().map_or(a.span.clone(), |n| n.span.clone()),
        ));
        let vals: Vec<String> = items
            .iter()
            .skip(1)
            .map(|v| {
                let s = js_string(v);
                words.push((s.clone(), v.span.clone()));
                quote(&s)
            })
            .collect();
        let vals = vals.join(" ");
        lines.push(format!(
            "  {name}{}{}",
            if vals.is_empty() {
                String::new()
            } else {
                format!(" {vals}")
            },
            if i < args.len() - 1 { " \\" } else { "" }
        ));
    }
    Printed {
        text: lines.join("\n"),
        words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_as_the_component_quotes_them() {
        assert_eq!(quote("flashinfer"), "flashinfer");
        assert_eq!(quote("$PREFILL_HEAD_IP:5000"), "\"$PREFILL_HEAD_IP:5000\"");
        assert_eq!(quote("{\"a\":true}"), "'{\"a\":true}'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
    }
}
