//! Inline suppressions: a divergence accepted where it is written, in a
//! comment of the docs or recipe file, with a reason:
//!
//! ```text
//! # recipe-drift: ignore[hicache_io_backend] the benchmark pins kernel io
//! <!-- recipe-drift: ignore[page_size, kv_cache_dtype] reason -->
//! // recipe-drift: ignore[tp_size] reason        (a generator's JavaScript)
//! ```
//!
//! The marker counts only after a comment opener on its line (`#`, `//`,
//! `/*`, `{/*`, `<!--`, or `*` inside a block comment). A suppression covers
//! its keys on every link whose docs or recipe launch is read from that file
//! (the file the command is written in: a page, a script, a generator);
//! it never expires. It becomes a waiver of the link ([`crate::waiver`]): the
//! findings it covers count as information, marked with its place and
//! reason, and a suppression that covers no finding of any link is reported
//! as unused. `--no-waivers` ignores them with the config's waivers. A marker
//! without keys or without a reason is an input error at it.

use crate::error::Error;
use crate::span::{Source, Span};

/// The text that starts a suppression.
pub const MARKER: &str = "recipe-drift: ignore";

/// One inline suppression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// The canonical keys it covers, as written.
    pub keys: Vec<String>,
    /// Why.
    pub reason: String,
    /// Where the marker is.
    pub at: Span,
}

/// Comment openers after which a marker counts (the line's text before the
/// marker, trimmed, ends with one).
const OPENERS: &[&str] = &["#", "//", "/*", "{/*", "<!--", "*"];

/// Comment closers dropped from the end of a reason.
const CLOSERS: &[&str] = &["*/}", "*/", "-->"];

/// The suppressions of a source text, in text order. Linear in the text.
pub fn scan(source: &Source) -> Result<Vec<Suppression>, Error> {
    let text = &source.text;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find(MARKER) {
        let at = from + k;
        from = at + MARKER.len();
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let before = text[line_start..at].trim_end();
        if !OPENERS.iter().any(|o| before.ends_with(o)) {
            continue;
        }
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let rest = &text[from..line_end];
        let span = source.span(at, from);
        let Some(list) = rest.strip_prefix('[') else {
            return Err(Error::input(
                span,
                "an inline suppression names its keys: `recipe-drift: ignore[KEY, ...] REASON`",
            ));
        };
        let Some(close) = list.find(']') else {
            return Err(Error::input(
                span,
                "an inline suppression's `[` is never closed",
            ));
        };
        let keys: Vec<String> = list[..close]
            .split(',')
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect();
        if keys.is_empty() {
            return Err(Error::input(span, "an inline suppression names no key"));
        }
        let mut reason = list[close + 1..].trim();
        while let Some(c) = CLOSERS.iter().find(|c| reason.ends_with(*c)) {
            reason = reason[..reason.len() - c.len()].trim_end();
        }
        if reason.is_empty() {
            return Err(Error::input(
                span,
                format!(
                    "the inline suppression of {} needs a reason after the keys",
                    keys.join(", ")
                ),
            ));
        }
        out.push(Suppression {
            keys,
            reason: reason.to_string(),
            at: span,
        });
        from = line_end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn scan_text(text: &str) -> Result<Vec<Suppression>, Error> {
        scan(&Source::new(Origin::Inline("t".into()), text.to_string()))
    }

    #[test]
    fn markers_count_in_comments_only() {
        let found = scan_text(
            "# recipe-drift: ignore[tp_size] pinned\n\
             sglang serve --tp 2  # recipe-drift: ignore[page_size, dtype] both\n\
             <!-- recipe-drift: ignore[kv_cache_dtype] docs say auto -->\n\
             {/* recipe-drift: ignore[quantization] fp4 auto-detected */}\n\
             echo \"recipe-drift: ignore[tp_size] not a comment\"\n",
        )
        .unwrap();
        let got: Vec<(Vec<&str>, &str)> = found
            .iter()
            .map(|s| {
                (
                    s.keys.iter().map(String::as_str).collect(),
                    s.reason.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (vec!["tp_size"], "pinned"),
                (vec!["page_size", "dtype"], "both"),
                (vec!["kv_cache_dtype"], "docs say auto"),
                (vec!["quantization"], "fp4 auto-detected"),
            ]
        );
        assert_eq!(found[1].at.pos.line, 2);
    }

    #[test]
    fn keys_and_a_reason_are_required() {
        for (text, words) in [
            ("# recipe-drift: ignore tp_size\n", "names its keys"),
            ("# recipe-drift: ignore[tp_size\n", "never closed"),
            ("# recipe-drift: ignore[] why\n", "names no key"),
            ("# recipe-drift: ignore[tp_size]\n", "needs a reason"),
            ("<!-- recipe-drift: ignore[tp_size] -->\n", "needs a reason"),
        ] {
            let e = scan_text(text).unwrap_err().to_string();
            assert!(e.contains(words), "{text}: {e}");
        }
    }
}
