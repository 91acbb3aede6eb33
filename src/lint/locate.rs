//! Where an option, an item or a printed word is written in a generator's
//! files, to place a finding on its line (by text: `key:` / `name: 'key'`,
//! `id: 'value'`, the word itself outside comments).

use crate::extract::jsx::Bundle;
use crate::span::{Source, Span};

/// The first line of the bundle's files that defines option `key`.
pub fn option(bundle: &Bundle, key: &str) -> Option<Span> {
    find(bundle, |line| {
        let t = line.trim_start();
        let t = t
            .strip_prefix('\'')
            .or_else(|| t.strip_prefix('"'))
            .unwrap_or(t);
        t.strip_prefix(key).is_some_and(|r| {
            let r = r.trim_start_matches(['\'', '"']);
            r.trim_start().starts_with(':')
        })
    })
}

/// The first line of the bundle's files that defines an item with id `value`.
pub fn item(bundle: &Bundle, value: &str) -> Option<Span> {
    let quoted = [format!("'{value}'"), format!("\"{value}\"")];
    find(bundle, |line| {
        line.split("id:").skip(1).any(|rest| {
            quoted
                .iter()
                .any(|q| rest.trim_start().starts_with(q.as_str()))
        })
    })
}

/// The first line of the bundle's files, outside `//` and `/* */` comment
/// lines, that holds `word` (an option string, an env var, a printed
/// sentence); `None` for a word of fewer than 4 characters.
pub fn text(bundle: &Bundle, word: &str) -> Option<Span> {
    let word = word.trim();
    if word.chars().count() < 4 {
        return None;
    }
    find(bundle, |line| {
        let t = line.trim_start();
        !(t.starts_with("//") || t.starts_with("/*") || t.starts_with('*')) && line.contains(word)
    })
}

/// The first line (in the bundle's file order) that `hit` accepts, as a span
/// at its first non-blank character.
fn find(bundle: &Bundle, hit: impl Fn(&str) -> bool) -> Option<Span> {
    for path in &bundle.files {
        let Ok(source) = Source::read(path) else {
            continue;
        };
        let mut at = 0;
        for line in source.text.split_inclusive('\n') {
            if hit(line) {
                let indent = line.len() - line.trim_start().len();
                return Some(source.span(at + indent, at + indent));
            }
            at += line.len();
        }
    }
    None
}
