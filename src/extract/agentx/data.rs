//! An AgentX data module (`src/snippets/agentx/<org>/<model>.jsx`, generated
//! by the cookbook's sync scripts from InferenceX's AgentX submissions) as a
//! spanned tree. The module is `export const agentx = <JSON literal>;` after
//! `//` comment lines: the literal is read as the JSON it is (a YAML 1.2 flow
//! collection, through [`yaml_tree`] and its budgets), with every value placed
//! in the module, so a finding points at the line that writes the flag. A
//! module of another shape (code, not data) is an input error: the reader
//! does not run JavaScript.

use std::sync::Arc;

use crate::error::Error;
use crate::extract::yaml_tree::{self, Node, Options, Place};
use crate::span::Source;

/// The name the data module exports (`export const agentx = {...}`).
pub const EXPORT: &str = "agentx";

/// The most entries one mapping of a data module may hold (keys are looked
/// up by a scan). Real modules have tens; a cell's points are a sequence.
const MAX_MAP_ENTRIES: usize = 4096;

/// Where the literal of a data module starts (after `export const agentx =`)
/// and ends (before the closing `;`), or `None` when `text` is not one.
fn literal_range(text: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            at += line.len();
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let rest = line.trim_start().strip_prefix("export")?;
        let rest2 = rest.trim_start().strip_prefix("const")?;
        let rest3 = rest2.trim_start().strip_prefix(EXPORT)?;
        let rest4 = rest3.trim_start().strip_prefix('=')?;
        if rest.len() == rest.trim_start().len()
            || rest2.len() == rest2.trim_start().len()
            || rest3.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return None;
        }
        let start = at + lead + (line.trim_start().len() - rest4.len());
        let body = text[start..].trim_end();
        let end = start + body.strip_suffix(';').unwrap_or(body).len();
        return (end > start).then_some((start, end));
    }
    None
}

/// Whether `text` is an AgentX data module (`export const agentx = ...`
/// after comment lines).
pub fn is_data_module(text: &str) -> bool {
    literal_range(text).is_some()
}

/// The data module's literal as a spanned tree (a mapping), placed in the
/// module: everything outside the literal is blanked to spaces (line feeds
/// kept) and the rest read as JSON.
pub(super) fn parse(source: &Arc<Source>) -> Result<Node, Error> {
    let Some((start, end)) = literal_range(&source.text) else {
        return Err(Error::input(
            source.span(0, 0),
            format!(
                "not an AgentX data module: it is `export const {EXPORT} = {{...}};` (a JSON literal) after `//` comment lines"
            ),
        ));
    };
    // JSON, not JavaScript: a value that is code (or a YAML-only form) is
    // refused where it is written.
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&source.text[start..end]) {
        let at = offset_of(&source.text[start..end], e.line(), e.column()) + start;
        return Err(Error::input(
            source.span(at, at),
            format!("the `{EXPORT}` literal of an AgentX data module is JSON: {e}"),
        ));
    }
    let blanked = blank_outside(&source.text, start, end);
    let window = source.window(source.origin.clone(), vec![(0, 0)], blanked);
    let options = Options {
        schema: yaml_tree::Schema::Core12,
        place: Place::Defined,
        max_map_entries: Some((MAX_MAP_ENTRIES, "an AgentX data module's objects")),
        key_name: Node::scalar_string,
        inner_key_name: None,
    };
    let root = yaml_tree::parse(&window, &options)?;
    if !root.is_map() {
        return Err(Error::input(
            root.span.clone(),
            format!("the `{EXPORT}` export of an AgentX data module is an object"),
        ));
    }
    Ok(root)
}

/// The byte offset of a 1-based line and column (serde_json counts bytes)
/// in `text`, clamped to it.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut at = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (at + column.saturating_sub(1))
                .min(at + l.len())
                .min(text.len());
        }
        at += l.len();
    }
    text.len()
}

/// `text` with every byte outside `start..end` a space (line feeds kept), of
/// the same byte length (`start` and `end` are character boundaries).
fn blank_outside(text: &str, start: usize, end: usize) -> String {
    let mut out = Vec::with_capacity(text.len());
    for (i, b) in text.bytes().enumerate() {
        out.push(if (start..end).contains(&i) || b == b'\n' {
            b
        } else {
            b' '
        });
    }
    String::from_utf8(out).unwrap_or_else(|_| " ".repeat(text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_of_a_data_module_is_found_after_its_comments() {
        let text = "// GENERATED — by hand\n// more\nexport const agentx = {\"a\": 1};\n";
        let (s, e) = literal_range(text).expect("a data module");
        assert_eq!(&text[s..e], " {\"a\": 1}");
        assert!(!is_data_module("export const agentxs = {};"));
        assert!(!is_data_module("export function agentx() {}"));
        assert!(!is_data_module("const x = 1;\nexport const agentx = {};"));
    }

    #[test]
    fn values_are_placed_in_the_module() {
        let text = "// c — x\nexport const agentx = {\n \"cells\": [\"--tp\"]\n};\n";
        let src = Arc::new(Source::new(
            crate::span::Origin::Inline("m.jsx".into()),
            text.to_string(),
        ));
        let root = parse(&src).expect("parses");
        let tp = &root.get("cells").expect("cells").items()[0];
        assert_eq!(tp.as_str(), Some("--tp"));
        assert_eq!((tp.span.pos.line, tp.span.pos.col), (3, 12));
    }

    #[test]
    fn code_is_refused_with_its_place() {
        let src = Arc::new(Source::new(
            crate::span::Origin::Inline("m.jsx".into()),
            "export const agentx = {\"a\": () => 1};\n".to_string(),
        ));
        let e = parse(&src).expect_err("code is not data");
        assert!(e.to_string().contains(":1:29:"), "{e}");
    }
}
