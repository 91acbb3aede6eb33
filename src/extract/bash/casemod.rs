//! Case modification expansions (`${X^}`, `${X^^pat}`, `${X,}`, `${X,,pat}`,
//! `${X~}`, `${X~~pat}`), and the `${` expansions the word parser cannot
//! read.
//!
//! brush-parser has no case toggle: it reads `${Q~~}` as the text `$`
//! followed by `{Q~~}`. bash always starts an expansion at an unquoted (or
//! double-quoted) `${`, so such a `$` piece is an expansion it did not read:
//! a toggle is read as the uppercase form written at the same place (same
//! length, same positions) and toggled when evaluated; any other one is
//! unknown, with the reason.

use brush_parser::word::{WordPiece, WordPieceWithSource};

use super::glob;

/// What a case modification does to a character its pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CaseOp {
    /// `^`, `^^`.
    Upper,
    /// `,`, `,,`.
    Lower,
    /// `~`, `~~`.
    Toggle,
}

/// The `${` expansions of a word that the word parser did not read.
#[derive(Debug, Default)]
pub(super) struct Unread {
    /// Where (the `$`) each case toggle starts; the word was read again
    /// with its `~` written as `^`.
    pub(super) toggles: Vec<usize>,
    /// Where (the `$`) each other one starts, with its text.
    pub(super) others: Vec<(usize, String)>,
}

/// The `$` pieces of `pieces` (in double quotes too) that start a `${`
/// brush-parser did not read, by the index of their `$` in `raw`.
fn unread_dollars(raw: &str, pieces: &[WordPieceWithSource], out: &mut Vec<usize>) {
    for p in pieces {
        match &p.piece {
            WordPiece::Text(t)
                if t == "$" && raw.get(p.end_index..).is_some_and(|r| r.starts_with('{')) =>
            {
                out.push(p.start_index);
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => unread_dollars(raw, inner, out),
            _ => {}
        }
    }
}

/// Where the operator of the `${` at byte `dollar` of `raw` starts: after
/// `${`, an optional `!`, and the parameter (a name with an optional
/// `[subscript]`, digits, or one special parameter).
pub(super) fn operator_at(raw: &str, dollar: usize) -> Option<usize> {
    let b = raw.as_bytes();
    let mut i = dollar + 2;
    if b.get(i) == Some(&b'!') {
        i += 1;
    }
    match *b.get(i)? {
        c if c.is_ascii_alphabetic() || c == b'_' => {
            while b
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                i += 1;
            }
            if b.get(i) == Some(&b'[') {
                let mut depth = 0usize;
                loop {
                    match *b.get(i)? {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
        }
        c if c.is_ascii_digit() => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!' => i += 1,
        _ => return None,
    }
    Some(i)
}

/// The text of the `${...}` at byte `dollar` (up to its closing brace, or
/// the end of the word), for a reason.
fn expansion_text(raw: &str, dollar: usize) -> String {
    let mut depth = 0usize;
    for (i, c) in raw[dollar..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return raw[dollar..dollar + i + 1].to_string();
                }
            }
            _ => {}
        }
    }
    raw[dollar..].to_string()
}

/// Reads the `${` expansions brush-parser left as text: `Some((raw, unread))`
/// with the word to parse again (case toggles written as uppercase forms)
/// when there are any.
pub(super) fn unread(raw: &str, pieces: &[WordPieceWithSource]) -> Option<(String, Unread)> {
    let mut dollars = Vec::new();
    unread_dollars(raw, pieces, &mut dollars);
    if dollars.is_empty() {
        return None;
    }
    let mut text = raw.as_bytes().to_vec();
    let mut u = Unread::default();
    for d in dollars {
        match operator_at(raw, d) {
            Some(op) if text.get(op) == Some(&b'~') => {
                text[op] = b'^';
                if text.get(op + 1) == Some(&b'~') {
                    text[op + 1] = b'^';
                }
                u.toggles.push(d);
            }
            _ => u.others.push((d, expansion_text(raw, d))),
        }
    }
    // Only ASCII `~` became ASCII `^`: still UTF-8.
    let text = String::from_utf8(text).ok()?;
    Some((text, u))
}

/// Why a `${...}` the parser did not read is unknown.
pub(super) fn unread_reason(text: &str) -> String {
    format!(
        "`{text}` is an expansion that is not evaluated (bash refuses most such forms as a bad substitution)"
    )
}

/// `text` with its first character (`all`: every character) that matches
/// `pattern` changed by `op`. `pattern` `None` matches every character.
/// Only ASCII letters change in every locale: other text is unknown (bash
/// changes it in a UTF-8 locale and not in the C locale).
pub(super) fn modify(
    text: &str,
    op: CaseOp,
    all: bool,
    pattern: Option<&glob::Glob>,
) -> Result<String, String> {
    if !text.is_ascii() {
        return Err(format!(
            "the case change of {text:?} depends on the reader's locale (it is not ASCII)"
        ));
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        let applies = (all || i == 0)
            && match pattern {
                None => true,
                Some(g) => g.matches(c.encode_utf8(&mut [0; 4]))?,
            };
        out.push(match (applies, op) {
            (false, _) => c,
            (true, CaseOp::Upper) => c.to_ascii_uppercase(),
            (true, CaseOp::Lower) => c.to_ascii_lowercase(),
            (true, CaseOp::Toggle) if c.is_ascii_uppercase() => c.to_ascii_lowercase(),
            (true, CaseOp::Toggle) => c.to_ascii_uppercase(),
        });
    }
    Ok(out)
}
