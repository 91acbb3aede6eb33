//! Parsing with brush-parser, guarded: inputs that would take the parser
//! exponential time, unbounded memory or unbounded stack are refused first,
//! and the parser runs on its own thread, with a large stack and a time limit.
//!
//! brush-parser is a recursive-descent (PEG) parser: its stack grows with the
//! nesting of the script (about 15 KiB per level of `if` in a debug build).
//! [`nesting_too_deep`] bounds that nesting before parsing to the nesting
//! budget (100), and the parser thread's stack ([`PARSER_STACK`], 256 MiB,
//! reserved and touched only as used) holds over 10,000 levels: the bound fits
//! with a wide margin, whatever the build.

use std::sync::Arc;

use brush_parser::ast;
use brush_parser::{Parser, ParserOptions};

use crate::error::Error;
use crate::span::Source;

/// Runs of `(` longer than this are refused before parsing: the parser's
/// backtracking over `((` (arithmetic or nested subshells) is exponential in it.
const MAX_PAREN_RUN: usize = 12;

/// Unclosed `(` deeper than this are refused too (real scripts stay below 8).
const MAX_PAREN_DEPTH: usize = 16;

/// `${...}` nested deeper than this are refused: the word parser's backtracking
/// is exponential in it (found by fuzzing). Real scripts nest at most two.
pub(crate) const MAX_EXPANSION_DEPTH: usize = 3;

/// The byte offset where `${` nesting first exceeds [`MAX_EXPANSION_DEPTH`].
pub(crate) fn expansion_too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut prev = '\0';
    for (i, c) in text.char_indices() {
        if c == '{' && prev == '$' {
            depth += 1;
            if depth > MAX_EXPANSION_DEPTH {
                return Some(i);
            }
        } else if c == '}' {
            depth = depth.saturating_sub(1);
        }
        prev = c;
    }
    None
}

/// The byte offset of a here-document or here-string operator (`<<`, `<<-`,
/// `<<<`; a run of `<` is read greedily, `<<<` first, as bash does) that is not
/// followed by a word on the same line. bash rejects these; brush-parser loops
/// on some of them inside `$(`, allocating without bound (found by fuzzing).
pub(crate) fn heredoc_without_word(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let at = i;
        while i < b.len() && b[i] == b'<' {
            i += 1;
        }
        let run = i - at;
        if run < 2 {
            continue;
        }
        // The first operator of the run; what follows it must start a word.
        let mut j = at + run.min(3);
        if run == 2 && b.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(b.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        let starts_word = !matches!(
            b.get(j),
            None | Some(b'\n' | b'\r' | b'#' | b'<' | b'>' | b'|' | b'&' | b';' | b'(' | b')')
        );
        if !starts_word {
            return Some(at);
        }
    }
    None
}

/// The stack of the parser threads (script and word parsers).
pub(crate) const PARSER_STACK: usize = 256 << 20;

/// An open construct, for [`nesting_too_deep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `if`, `case`, `for`, `select`, `while`, `until`.
    Keyword,
    /// `{ ... }`.
    Brace,
    /// `( ... )`, `$( ... )`.
    Paren,
    /// `[[ ... ]]`.
    Test,
}

/// The byte offset where the nesting of compound commands first exceeds
/// `max`: `if`/`case`/`for`/`select`/`while`/`until` (reserved words in
/// command position, as bash reads them), `{ }`, `( )` and `[[ ]]`, where each
/// `&&`, `||`, `!` and `(` inside `[[ ]]` counts as one more level (the parser
/// nests them too). Quotes, comments and here-document bodies are skipped. A
/// cheap linear scan, so that the recursive parser never sees more nesting
/// than its stack holds.
pub(crate) fn nesting_too_deep(text: &str, max: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut frames: Vec<(Open, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut command_position = true;
    let mut after_function = false;
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    let open = |frames: &mut Vec<(Open, usize)>, depth: &mut usize, kind: Open, at: usize| {
        frames.push((kind, 1));
        *depth += 1;
        (*depth > max).then_some(at)
    };
    // Inside `[[ ]]`: one more level for the innermost test; false elsewhere.
    let deepen = |frames: &mut Vec<(Open, usize)>, depth: &mut usize| match frames.last_mut() {
        Some((Open::Test, w)) => {
            *w += 1;
            *depth += 1;
            true
        }
        _ => false,
    };
    let close = |frames: &mut Vec<(Open, usize)>, depth: &mut usize, kind: Open| {
        if let Some(&(k, w)) = frames.last()
            && k == kind
        {
            frames.pop();
            *depth -= w;
        }
    };
    let is_meta = |c: u8| {
        matches!(
            c,
            b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
        )
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' => {
                i += 1;
                command_position = true;
                // Here-document bodies start on the next line: skipped whole.
                for (tag, strip) in std::mem::take(&mut heredocs) {
                    while i < b.len() {
                        let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                        let line = &text[i..end];
                        let line = if strip {
                            line.trim_start_matches('\t')
                        } else {
                            line
                        };
                        i = (end + 1).min(b.len());
                        if line == tag {
                            break;
                        }
                    }
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b';' | b'&' | b'|' => {
                let pair = b.get(i + 1) == Some(&c);
                if pair && c != b';' && deepen(&mut frames, &mut depth) && depth > max {
                    return Some(i);
                }
                i += if pair { 2 } else { 1 };
                command_position = true;
            }
            b'(' => {
                if deepen(&mut frames, &mut depth) {
                    if depth > max {
                        return Some(i);
                    }
                } else if let Some(at) = open(&mut frames, &mut depth, Open::Paren, i) {
                    return Some(at);
                }
                i += 1;
                command_position = true;
            }
            b')' => {
                close(&mut frames, &mut depth, Open::Paren);
                i += 1;
                command_position = true;
            }
            b'<' | b'>' => {
                if text[i..].starts_with("<<") && !text[i..].starts_with("<<<") {
                    // `<<TAG` / `<<-TAG`: the body is text, not code.
                    let mut j = i + 2;
                    let strip = b.get(j) == Some(&b'-');
                    if strip {
                        j += 1;
                    }
                    while matches!(b.get(j), Some(b' ' | b'\t')) {
                        j += 1;
                    }
                    let start = j;
                    while j < b.len() && !is_meta(b[j]) {
                        j += 1;
                    }
                    let tag: String = text[start..j]
                        .chars()
                        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                        .collect();
                    if !tag.is_empty() {
                        heredocs.push((tag, strip));
                    }
                    i = j;
                } else {
                    i += 1;
                }
                command_position = false;
            }
            _ => {
                // A word: quotes and escapes are part of it.
                let start = i;
                while i < b.len() && !is_meta(b[i]) {
                    match b[i] {
                        b'\\' => i += 2,
                        b'\'' => {
                            i += 1;
                            while i < b.len() && b[i] != b'\'' {
                                i += 1;
                            }
                            i += 1;
                        }
                        b'"' => {
                            i += 1;
                            while i < b.len() && b[i] != b'"' {
                                i += if b[i] == b'\\' { 2 } else { 1 };
                            }
                            i += 1;
                        }
                        b'`' => {
                            i += 1;
                            while i < b.len() && b[i] != b'`' {
                                i += if b[i] == b'\\' { 2 } else { 1 };
                            }
                            i += 1;
                        }
                        b'$' if b.get(i + 1) == Some(&b'(') => break,
                        _ => i += 1,
                    }
                }
                i = i.min(b.len());
                if i == start {
                    // `$(`: the `$` alone; the `(` opens next.
                    i += 1;
                    continue;
                }
                let word = &text[start..i];
                let in_test = matches!(frames.last(), Some((Open::Test, _)));
                if in_test {
                    match word {
                        "]]" => close(&mut frames, &mut depth, Open::Test),
                        "!" if deepen(&mut frames, &mut depth) && depth > max => {
                            return Some(start);
                        }
                        _ => {}
                    }
                    continue;
                }
                if after_function {
                    // `function NAME {`: the body follows the name.
                    after_function = false;
                    command_position = true;
                    continue;
                }
                if !command_position {
                    continue;
                }
                command_position = false;
                let kind = match word {
                    "if" | "while" | "until" => {
                        command_position = true;
                        Some(Open::Keyword)
                    }
                    "case" | "for" | "select" => Some(Open::Keyword),
                    "{" => {
                        command_position = true;
                        Some(Open::Brace)
                    }
                    "[[" => Some(Open::Test),
                    "fi" | "done" | "esac" => {
                        close(&mut frames, &mut depth, Open::Keyword);
                        None
                    }
                    "}" => {
                        close(&mut frames, &mut depth, Open::Brace);
                        None
                    }
                    "then" | "do" | "else" | "elif" | "!" | "time" => {
                        command_position = true;
                        None
                    }
                    "function" => {
                        after_function = true;
                        None
                    }
                    // `NAME=value cmd`: the command comes after.
                    w if w.contains('=') && !w.starts_with('=') => {
                        command_position = true;
                        None
                    }
                    _ => None,
                };
                if let Some(k) = kind
                    && let Some(at) = open(&mut frames, &mut depth, k, start)
                {
                    return Some(at);
                }
            }
        }
    }
    None
}

/// The name of the thread the parser runs on.
pub(crate) const PARSER_THREAD: &str = "bash-parser";

/// Installs (once) a panic hook that keeps panics of the parser thread quiet
/// (they are reported as parse errors) and passes every other panic on.
pub(crate) fn quiet_parser_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some(PARSER_THREAD) {
                previous(info);
            }
        }));
    });
}

/// How long the parser may take on one script.
const PARSE_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Parses a script with brush-parser, refusing inputs that would take it
/// exponential time and bounding the time it may take.
pub(super) fn parse_guarded(source: &Arc<Source>) -> Result<ast::Program, Error> {
    let mut run = 0;
    let mut depth: usize = 0;
    for (i, c) in source.text.char_indices() {
        match c {
            '(' => {
                run += 1;
                depth += 1;
            }
            ')' => {
                run = 0;
                depth = depth.saturating_sub(1);
            }
            _ => run = 0,
        }
        if run > MAX_PAREN_RUN || depth > MAX_PAREN_DEPTH {
            return Err(Error::input(
                source.span(i, i),
                format!(
                    "bash parse budget exceeded: `(` nested too deeply to parse safely (more than {MAX_PAREN_DEPTH} open, or {MAX_PAREN_RUN} in a row: nesting budget)"
                ),
            ));
        }
    }
    let max = super::budget::budget().max_nesting;
    if let Some(at) = nesting_too_deep(&source.text, max) {
        return Err(Error::input(
            source.span(at, at),
            format!(
                "bash parse budget exceeded: compound commands nested too deeply (more than {max} levels; nesting budget; raise with --bash-budget nesting=N)"
            ),
        ));
    }
    if let Some(at) = heredoc_without_word(&source.text) {
        // bash rejects it too; brush-parser loops on it inside `$(`, allocating
        // without bound (found by fuzzing).
        return Err(Error::input(
            source.span(at, at),
            "bash syntax error: a here-document (`<<`) or here-string (`<<<`) needs a word after it",
        ));
    }
    if let Some(at) = expansion_too_deep(&source.text) {
        return Err(Error::input(
            source.span(at, at),
            format!(
                "bash parse budget exceeded: `${{` expansions nested too deeply to parse safely (more than {MAX_EXPANSION_DEPTH}: nesting budget)"
            ),
        ));
    }
    let text = source.text.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    // The parser runs on its own thread so that a pathological input cannot
    // hang the tool; a parser still running at the limit is abandoned.
    quiet_parser_panics();
    std::thread::Builder::new()
        .name(PARSER_THREAD.into())
        .stack_size(PARSER_STACK)
        .spawn(move || {
            // brush-parser can panic on some malformed input (found by fuzzing):
            // that is a parse failure of this script, not of the tool.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                Parser::new(text.as_bytes(), &ParserOptions::default()).parse_program()
            }));
            let _ = tx.send(r);
        })
        .map_err(|e| Error::usage(format!("cannot start the bash parser: {e}")))?;
    let at = crate::span::Span::start_of(&source.origin);
    let parsed = match rx.recv_timeout(PARSE_TIME_LIMIT) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            return Err(Error::Input {
                span: at,
                message: "bash syntax error: the parser cannot read this script".into(),
            });
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            return Err(Error::Input {
                span: at,
                message: format!(
                    "bash parse budget exceeded: the bash parser did not finish within {} s on this script (parser time budget)",
                    PARSE_TIME_LIMIT.as_secs()
                ),
            });
        }
    };
    parsed.map_err(|e| {
        let (line, col) = match &e {
            brush_parser::ParseError::ParsingNear(p) => (p.line, p.column),
            brush_parser::ParseError::Tokenizing {
                position: Some(p), ..
            } => (p.line, p.column),
            _ => (source.text.lines().count().max(1), 1),
        };
        Error::Input {
            span: crate::span::Span::at(&source.origin, crate::span::LineCol { line, col }),
            message: format!("bash syntax error: {e}"),
        }
    })
}
