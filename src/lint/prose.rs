//! `prose-value`: a page's text (inline code in its paragraphs, lists and
//! tables) names a MAJOR option with a value that neither the page's
//! generators (in any state) nor its code blocks print for it. The seed's
//! page said "`--hicache-io-backend direct`" in its prose beside the
//! generator it describes; when the generator changes, the prose has to.
//!
//! [`mentions`] reads the options a text names with a value, [`printed`]
//! the values the page's launches give each MAJOR key; `check --fix`
//! uses both to carry a value it fixes into the page's prose
//! (`fix::prose`), `lint-docs` to report prose no launch backs.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use pulldown_cmark::{Event, Options, Parser};

use super::{Generator, Hit};
use crate::finding::{Applicability, Edit, Finding, Fix};
use crate::launch::Launch;
use crate::policy::{Class, Policy};
use crate::span::{Source, Span};

/// One option a page's text names with a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The option as written (`--hicache-io-backend`).
    pub option: String,
    /// The value, quotes removed.
    pub value: String,
    /// Where the value is written (quotes excluded).
    pub at: Span,
}

/// The options named with a value (`--flag value`, `--flag=value`) in the
/// inline code of a Markdown or MDX text, outside code blocks.
pub fn mentions(page: &Arc<Source>) -> Vec<Mention> {
    let text = &page.text;
    let mut out = Vec::new();
    let parser = Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter();
    for (event, range) in parser {
        let Event::Code(code) = event else { continue };
        let Some(k) = text[range.clone()].find(&*code) else {
            continue;
        };
        let start = range.start + k;
        let words = words(&code);
        for (i, (w, r)) in words.iter().enumerate() {
            if !w.starts_with("--") || w.len() < 3 {
                continue;
            }
            let (option, value, at) = match w.split_once('=') {
                Some((o, v)) => (o, v, r.start + o.len() + 1..r.end),
                None => match words.get(i + 1) {
                    Some((v, vr)) if !v.starts_with('-') => (w.as_str(), v.as_str(), vr.clone()),
                    _ => continue,
                },
            };
            let (value, at) = unquoted(value, at);
            if value.is_empty() {
                continue;
            }
            out.push(Mention {
                option: option.to_string(),
                value: value.to_string(),
                at: page.span(start + at.start, start + at.end),
            });
        }
    }
    out
}

/// The whitespace-separated words of a text, with their byte ranges.
fn words(text: &str) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((text[s..i].to_string(), s..i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// A value without the quotes that enclose it, and its range.
fn unquoted(value: &str, at: Range<usize>) -> (&str, Range<usize>) {
    for q in ['\'', '"'] {
        if value.len() >= 2 && value.starts_with(q) && value.ends_with(q) {
            return (&value[1..value.len() - 1], at.start + 1..at.end - 1);
        }
    }
    (value, at)
}

/// The canonical key an option names for the engines of `launches` (the
/// first that knows it), when that key is MAJOR.
pub fn major_key(option: &str, launches: &[&Launch]) -> Option<String> {
    let policy = Policy::default();
    let mut engines: Vec<&str> = launches.iter().map(|l| l.engine.name()).collect();
    engines.dedup();
    engines
        .into_iter()
        .filter_map(crate::engine::by_name)
        .find_map(|e| e.key(option).ok())
        .filter(|k| policy.class(k) == Class::Major)
}

/// The values each MAJOR key is written with in `launches`: key -> values,
/// in the order first seen.
pub fn printed(launches: &[&Launch]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in launches {
        let words: Vec<&str> = l.argv.iter().map(|t| t.text.as_str()).collect();
        for (i, w) in words.iter().enumerate() {
            if !w.starts_with("--") {
                continue;
            }
            let (option, value) = match w.split_once('=') {
                Some((o, v)) => (o, v),
                None => match words.get(i + 1) {
                    Some(v) if !v.starts_with('-') => (*w, *v),
                    _ => continue,
                },
            };
            if let Some(key) = major_key(option, std::slice::from_ref(l)) {
                let values = out.entry(key).or_default();
                if !values.iter().any(|v| v == value) {
                    values.push(value.to_string());
                }
            }
        }
    }
    out
}

/// The `prose-value` rule: a page's text against what its generators'
/// states and its blocks print (a rule about the page as a whole).
pub struct ProseValue;

impl super::Rule for ProseValue {
    fn kind(&self) -> &'static str {
        "prose-value"
    }

    fn check(&self, _cx: &super::Context<'_>, _g: &Generator, _out: &mut Vec<Hit>) {}

    fn check_page(&self, cx: &super::Context<'_>, generators: &[Generator]) -> Vec<Finding> {
        let Some(page) = cx.page else {
            return Vec::new();
        };
        let launches: Vec<&Launch> = generators
            .iter()
            .flat_map(|g| &g.states)
            .flat_map(|s| s.printed.iter().flatten())
            .flat_map(|p| p.launches.iter().map(|c| &c.launch))
            .chain(&page.blocks)
            .collect();
        findings(&page.source, generators, &launches)
    }
}

/// The `prose-value` findings of a page: each mention of a MAJOR option
/// whose value no launch of the page (`launches`: its generators' states and
/// its blocks) gives that option, while some give it another. The fix writes
/// the one value the page prints, when it prints one.
pub fn findings(
    page: &Arc<Source>,
    generators: &[Generator],
    launches: &[&Launch],
) -> Vec<Finding> {
    let values = printed(launches);
    let name = generators
        .iter()
        .map(|g| g.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = Vec::new();
    for m in mentions(page) {
        let Some(key) = major_key(&m.option, launches) else {
            continue;
        };
        let Some(shown) = values.get(&key) else {
            continue;
        };
        if shown.contains(&m.value) {
            continue;
        }
        let hit = Hit {
            kind: "prose-value",
            at: m.at.clone(),
            generator: name.clone(),
            message: format!(
                "the page's text names `{} {}`, which no state of its generators and none of its blocks prints ({key} is printed as {})",
                m.option,
                m.value,
                shown.join(", ")
            ),
            states: Vec::new(),
        };
        let mut finding = hit.into_finding();
        finding.fix = Some(match shown.as_slice() {
            [one] if is_plain(one) => Fix {
                title: format!("replace {} with {one} at {}", m.value, m.at),
                edits: vec![Edit {
                    span: m.at.clone(),
                    replacement: one.clone(),
                }],
                applicability: Applicability::Safe,
                shared: None,
                change: None,
            },
            [one] => Fix::not_fixable(format!(
                "the page prints {one}, which needs quoting in the text; not written automatically"
            )),
            many => Fix::not_fixable(format!(
                "the page prints several values for {key} ({}): which one the text means is not known",
                many.join(", ")
            )),
        });
        out.push(finding);
    }
    out
}

/// Whether a value reads as itself in inline code.
fn is_plain(s: &str) -> bool {
    !s.is_empty() && !s.contains(['`', ' ', '\'', '"'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    #[test]
    fn inline_code_options_are_read_with_their_value_places() {
        let text = "Text `--io direct --layout=page_first --flag` and `--q 'x'`.\n\n```bash\n--io other\n```\n\n| a |\n|---|\n| `--t 2` |\n";
        let page = Arc::new(Source::new(Origin::Inline("p".into()), text.to_string()));
        let found: Vec<(String, String, String)> = mentions(&page)
            .into_iter()
            .map(|m| (m.option, m.value, text[m.at.start..m.at.end].to_string()))
            .collect();
        let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        assert_eq!(
            found,
            [
                s("--io", "direct", "direct"),
                s("--layout", "page_first", "page_first"),
                s("--q", "x", "x"),
                s("--t", "2", "2"),
            ]
        );
    }
}
