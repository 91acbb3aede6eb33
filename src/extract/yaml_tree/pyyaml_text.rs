//! Where PyYAML's scanner (YAML 1.1) and serde-saphyr's (YAML 1.2) read the
//! characters of a text differently, outside the typing of scalars:
//!
//! - PyYAML counts NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH
//!   SEPARATOR (U+2029) as line breaks everywhere (`yaml/scanner.py`'s
//!   `'\r\n\x85\u2028\u2029'`): a comment, a plain scalar, an anchor end at
//!   one and what follows starts a line. YAML 1.2 reads them as content.
//! - PyYAML takes only spaces as separation and indentation: a tab outside a
//!   quoted or block scalar's content and outside a comment is `found
//!   character '\t' that cannot start any token`. YAML 1.2 takes tabs as
//!   separation in many places.
//!
//! [`pyyaml_text`] rewrites the text serde-saphyr parses so that it reads
//! what PyYAML reads (a break becomes `\n`, padded with blanks to keep every
//! offset), or refuses, at the character, what cannot be modelled so (a
//! break in a block scalar, a multi-line plain scalar joined by U+2028, a
//! tab PyYAML fails on).

use granit_parser::{ScalarStyle, Scanner, StrInput, TokenType};

use crate::error::Error;
use crate::span::Source;

/// PyYAML's line breaks that YAML 1.2 reads as content.
fn is_py_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// The most breaks rewritten in one text (each needs a scan of the text).
const MAX_BREAKS: usize = 64;

/// What a token of YAML 1.2's scanner is, as far as the reading here cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Quoted,
    Block,
    Comment,
    Other,
}

/// The tokens of a text that cover characters (byte ranges, in order), and
/// whether the scan stopped at an error before the end.
struct Scan {
    tokens: Vec<(usize, usize, Kind)>,
    failed: bool,
}

impl Scan {
    fn of(text: &str) -> Scan {
        let mut tokens = Vec::new();
        let mut failed = false;
        for t in Scanner::new(StrInput::new(text)) {
            let Ok(t) = t else {
                failed = true;
                break;
            };
            let (span, tok) = t.into_parts();
            let (Some(start), Some(end)) = (span.start.byte_offset(), span.end.byte_offset())
            else {
                failed = true;
                break;
            };
            if end <= start {
                continue;
            }
            let kind = match tok {
                TokenType::Scalar(ScalarStyle::Plain, _) => Kind::Plain,
                TokenType::Scalar(ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted, _) => {
                    Kind::Quoted
                }
                TokenType::Scalar(_, _) => Kind::Block,
                TokenType::Comment(_) => Kind::Comment,
                _ => Kind::Other,
            };
            tokens.push((start, end.min(text.len()), kind));
        }
        tokens.sort_by_key(|t| t.0);
        Scan { tokens, failed }
    }

    /// The token that holds the byte at `at`.
    fn holding(&self, at: usize) -> Option<(usize, usize, Kind)> {
        let i = self.tokens.partition_point(|t| t.0 <= at);
        let t = *self.tokens.get(i.checked_sub(1)?)?;
        (at < t.1).then_some(t)
    }

    /// Whether the tokens read tell what holds `at`: one holds it, or the
    /// scan went past it (a token holding `at`, if any, has been read).
    fn reaches(&self, at: usize) -> bool {
        !self.failed || self.holding(at).is_some() || self.tokens.last().is_some_and(|t| t.0 > at)
    }
}

/// The text serde-saphyr must parse to read `source` as PyYAML reads it
/// (see the module's comment), or `None` when that is the text itself;
/// what cannot be read so is an error at it.
pub(super) fn pyyaml_text(source: &Source) -> Result<Option<String>, Error> {
    let original = &*source.text;
    if !original.contains(['\t', '\u{85}', '\u{2028}', '\u{2029}']) {
        return Ok(None);
    }
    let refuse = |at: usize, len: usize, why: String| {
        Error::input(
            source.span(at, at + len),
            format!(
                "{why}; PyYAML reads this file differently from a YAML 1.2 reader, and recipe-drift does not guess"
            ),
        )
    };
    let mut text = original.to_string();
    let mut rewritten: Vec<(usize, char)> = Vec::new();
    let mut from = 0;
    // The scan of `text` as it is (made again after each rewrite).
    let mut scanned: Option<Scan> = None;
    while let Some((at, c)) = text[from..]
        .char_indices()
        .map(|(i, c)| (from + i, c))
        .find(|&(_, c)| is_py_break(c))
    {
        let len = c.len_utf8();
        from = at + len;
        // The text before `at` reads alike to both: YAML 1.2's tokens say
        // where the break is.
        let scan = scanned.get_or_insert_with(|| Scan::of(&text));
        if !scan.reaches(at) {
            // The rest does not scan: serde-saphyr reports the error.
            break;
        }
        let name = match c {
            '\u{85}' => "NEL (U+0085)",
            '\u{2028}' => "LINE SEPARATOR (U+2028)",
            _ => "PARAGRAPH SEPARATOR (U+2029)",
        };
        let replacement = match scan.holding(at).map(|t| t.2) {
            // In a comment, between tokens, ending a plain scalar, an
            // anchor, a tag: a line break (the blanks before it are no
            // content to either reader).
            None | Some(Kind::Plain | Kind::Comment | Kind::Other) => {
                if c == '\u{85}' {
                    " \n"
                } else {
                    "  \n"
                }
            }
            // In a quoted scalar PyYAML folds NEL as a line feed (blanks
            // around it dropped), as YAML 1.2 folds `\n` followed by
            // blanks; it keeps U+2028/U+2029 as themselves (blanks around
            // them dropped), as YAML 1.2 reads them when no blank or
            // escape is next to them.
            Some(Kind::Quoted) => {
                if c == '\u{85}' {
                    "\n "
                } else {
                    let before = text[..at].chars().next_back();
                    let after = text[at + len..].chars().next();
                    let plain_neighbour = |x: Option<char>| {
                        x.is_some_and(|x| {
                            !matches!(x, ' ' | '\t' | '\r' | '\n' | '\\') && !is_py_break(x)
                        })
                    };
                    if plain_neighbour(before) && plain_neighbour(after) {
                        continue;
                    }
                    return Err(refuse(
                        at,
                        len,
                        format!(
                            "a {name} next to a blank, a line break or an escape in a quoted string: PyYAML folds it as a line break"
                        ),
                    ));
                }
            }
            Some(Kind::Block) => {
                return Err(refuse(
                    at,
                    len,
                    format!(
                        "a {name} in a block scalar (`|`, `>`): PyYAML reads it as a line break"
                    ),
                ));
            }
        };
        if rewritten.len() == MAX_BREAKS {
            return Err(refuse(
                at,
                len,
                format!(
                    "more than {MAX_BREAKS} NEL, U+2028 or U+2029 characters, which PyYAML reads as line breaks"
                ),
            ));
        }
        text.replace_range(at..at + len, replacement);
        rewritten.push((at, c));
        scanned = None;
    }
    let scan = scanned.unwrap_or_else(|| Scan::of(&text));
    // A plain scalar that goes on past a U+2028/U+2029: PyYAML keeps the
    // break in the value, YAML 1.2 folds the `\n` to a space.
    for &(at, c) in &rewritten {
        if c != '\u{85}'
            && let Some((_, end, Kind::Plain)) = scan.holding(at)
            && end > at + c.len_utf8()
        {
            return Err(refuse(
                at,
                c.len_utf8(),
                "a plain scalar continued on the line after a U+2028 or U+2029: PyYAML keeps the separator in the value".to_string(),
            ));
        }
    }
    check_tabs(&text, &scan, source)?;
    Ok((text != original).then_some(text))
}

/// Refuses a tab where PyYAML's scanner fails on it: outside a quoted
/// scalar, a block scalar's content and a comment.
fn check_tabs(text: &str, scan: &Scan, source: &Source) -> Result<(), Error> {
    for (at, _) in text.match_indices('\t') {
        if !scan.reaches(at) {
            // The rest does not scan: serde-saphyr reports the error.
            return Ok(());
        }
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let ok = match scan.holding(at) {
            Some((_, _, Kind::Quoted | Kind::Comment)) => true,
            Some((start, _, Kind::Block)) => block_tab_ok(text, start, line_start, at),
            Some((_, _, Kind::Plain | Kind::Other)) | None => false,
        };
        if !ok {
            return Err(Error::input(
                source.span(at, at + 1),
                "a tab where PyYAML's scanner takes only spaces (`found character '\\t' that cannot start any token`): PyYAML's safe_load fails on it (the program reading this file does not start)",
            ));
        }
    }
    Ok(())
}

/// Whether a tab in a block scalar's content (which starts at `start`,
/// after its first line's indentation) is content to PyYAML: at or past
/// the scalar's indentation on its line. Before it (an indentation of tabs)
/// PyYAML's scanner fails.
fn block_tab_ok(text: &str, start: usize, line_start: usize, at: usize) -> bool {
    let first_line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = start - first_line;
    at - line_start >= indent
        && text[line_start..line_start + indent]
            .bytes()
            .all(|b| b == b' ')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    /// The text rewritten; an error if it is refused here or serde-saphyr
    /// fails on it (what `parse` reports).
    fn read(text: &str) -> Result<Option<String>, String> {
        let source = Source::new(Origin::Inline("t.yaml".into()), text.to_string());
        let out = pyyaml_text(&source).map_err(|e| e.to_string())?;
        serde_saphyr::from_str::<serde_json::Value>(out.as_deref().unwrap_or(text))
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn breaks_end_comments_and_plain_scalars() {
        assert_eq!(
            read("a: 1 #\u{2028}b: 2\n").unwrap().as_deref(),
            Some("a: 1 #  \nb: 2\n")
        );
        assert_eq!(
            read("a: b\u{85}c: 2\n").unwrap().as_deref(),
            Some("a: b \nc: 2\n")
        );
        // Kept in a quoted scalar with no blank next to it.
        assert_eq!(read("a: \"1\u{2028}0\"\n").unwrap(), None);
        assert_eq!(
            read("a: \"1\u{85}0\"\n").unwrap().as_deref(),
            Some("a: \"1\n 0\"\n")
        );
        for refused in [
            "a: \"1 \u{2028} 0\"\n",
            "a: |\n  x\u{2028}  y\n",
            "a: b\u{2028}  c\n",
        ] {
            assert!(read(refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn tabs_pyyaml_fails_on_are_refused() {
        for refused in [
            "a:\t10\n",
            "a: 10\t\n",
            "a: 10\t# c\n",
            "a: 10 \t\n",
            "\ta: 1\n",
            "a: [1,\t2]\n",
            "a: b\tc\n",
            "a: 1\n\t\nb: 2\n",
            "a: |\n\tx\n",
            "a: |\n  x\n \ty\n",
            "a: |\n  x\n\ty\n",
            "a: |\n\n\tx\n",
        ] {
            assert!(read(refused).is_err(), "{refused:?}");
        }
        for read_alike in [
            "a: \"x\ty\"\n",
            "a: 1 #\tc\n",
            "a: |\n  x\t\n",
            "a: |\n  x\n  \ty\n",
            "#\tc\na: 1\n",
            "a: |\n \tx\n",
            "a: >\n  x\n   \ty\n",
        ] {
            assert_eq!(read(read_alike), Ok(None), "{read_alike:?}");
        }
    }
}
