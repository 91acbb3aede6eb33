//! Parsing with brush-parser, guarded: inputs that would take the parser
//! exponential time or unbounded memory are refused first, and the parser runs
//! on its own thread with a time limit.

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
                "`(` nested too deeply to parse safely",
            ));
        }
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
            "`${` expansions nested too deeply to parse safely",
        ));
    }
    let text = source.text.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    // The parser runs on its own thread so that a pathological input cannot
    // hang the tool; a parser still running at the limit is abandoned.
    quiet_parser_panics();
    std::thread::Builder::new()
        .name(PARSER_THREAD.into())
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
                    "the bash parser did not finish within {} s on this script",
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
