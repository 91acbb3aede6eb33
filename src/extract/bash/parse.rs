//! Parsing with brush-parser, guarded: inputs that would take the parser
//! exponential time, unbounded memory or unbounded stack are refused first,
//! and the parser runs on its own thread, with a large stack and a time limit.
//!
//! brush-parser is a recursive-descent (PEG) parser: its stack grows with the
//! nesting of the script (about 15 KiB per level of `if` in a debug build).
//! [`nesting_too_deep`] bounds that nesting, on the parser's own tokens,
//! between tokenizing and parsing, to the nesting budget (100, at most 1,000),
//! and the parser thread's stack ([`PARSER_STACK`], 256 MiB, reserved and
//! touched only as used) holds over 10,000 levels: the bound fits with a wide
//! margin, whatever the build.

use std::sync::Arc;

use brush_parser::ast;
use brush_parser::{Parser, ParserOptions, Token};

use super::budget::fixed::{MAX_EXPANSION_DEPTH, MAX_PAREN_DEPTH, MAX_PAREN_RUN, PARSE_TIME};
use crate::error::Error;
use crate::span::Source;

/// The characters of `text` the parser reads as code, with their byte
/// offsets: comments (`#` starting a word, to the end of the line),
/// single-quoted and `$'...'` text, and backslash-escaped characters are left
/// out, as nothing in them nests. A here-document's body is scanned as code
/// (an apostrophe there may hide what follows it from these guards; the
/// parser's time budget still bounds it).
fn code_chars(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut it = text.char_indices().peekable();
    let mut double = false;
    let mut prev = '\n';
    std::iter::from_fn(move || {
        loop {
            let (i, c) = it.next()?;
            let before = prev;
            prev = c;
            match c {
                '\\' => {
                    // The escaped character is literal.
                    if let Some(&(_, n)) = it.peek() {
                        prev = n;
                        it.next();
                    }
                }
                '"' => {
                    double = !double;
                    return Some((i, c));
                }
                '\'' if !double => {
                    // To the closing quote (`$'...'` also honours `\'`).
                    let ansi = before == '$';
                    while let Some((_, q)) = it.next() {
                        if ansi && q == '\\' {
                            it.next();
                        } else if q == '\'' {
                            break;
                        }
                    }
                    prev = '\'';
                }
                '#' if !double
                    && (before.is_whitespace()
                        || matches!(before, ';' | '&' | '|' | '(' | ')' | '<' | '>')) =>
                {
                    // A comment, to the end of the line.
                    for (_, q) in it.by_ref() {
                        if q == '\n' {
                            break;
                        }
                    }
                    prev = '\n';
                }
                _ => return Some((i, c)),
            }
        }
    })
}

/// The byte offset where `${` nesting first exceeds [`MAX_EXPANSION_DEPTH`]
/// in the code of `text` ([`code_chars`]).
pub(crate) fn expansion_too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut prev = '\0';
    for (i, c) in code_chars(text) {
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

/// A parse request: the script's text and the nesting budget.
type Request = (Arc<str>, usize);

/// What the parser thread answers: its result, or the panic it caught.
type Reply = std::thread::Result<Parsed>;

/// The script parser's thread, kept and reused by the thread that asks (one
/// per worker of the run, not one per script: a page of 280,000 code blocks
/// starts one). A parse that does not answer within [`PARSE_TIME`] abandons
/// the thread (it is left to finish on its own, its channel closed), and the
/// next parse starts a new one, so each parse still gets the whole budget.
struct ScriptWorker {
    requests: std::sync::mpsc::Sender<Request>,
    replies: std::sync::mpsc::Receiver<Reply>,
    /// The parser thread's id (tests check that it is reused).
    #[cfg_attr(not(test), allow(dead_code))]
    thread: std::thread::ThreadId,
}

thread_local! {
    static SCRIPT_WORKER: std::cell::RefCell<Option<ScriptWorker>> =
        const { std::cell::RefCell::new(None) };
}

impl ScriptWorker {
    fn spawn() -> std::io::Result<ScriptWorker> {
        let (req_tx, req_rx) = std::sync::mpsc::channel::<Request>();
        let (rep_tx, rep_rx) = std::sync::mpsc::channel::<Reply>();
        quiet_parser_panics();
        let handle = std::thread::Builder::new()
            .name(PARSER_THREAD.into())
            .stack_size(PARSER_STACK)
            .spawn(move || {
                for (text, max) in req_rx {
                    // brush-parser can panic on some malformed input (found
                    // by fuzzing): that is a parse failure of this script,
                    // not of the tool, and the thread serves the next one.
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        parse_bounded(&text, max)
                    }));
                    if rep_tx.send(r).is_err() {
                        break;
                    }
                }
            })?;
        Ok(ScriptWorker {
            requests: req_tx,
            replies: rep_rx,
            thread: handle.thread().id(),
        })
    }

    /// Parses `text` on this thread's parser thread (started when there is
    /// none), waiting at most [`PARSE_TIME`].
    fn request(
        text: Arc<str>,
        max: usize,
    ) -> std::io::Result<Result<Reply, std::sync::mpsc::RecvTimeoutError>> {
        SCRIPT_WORKER.with(|w| {
            let mut slot = w.borrow_mut();
            let mut request = Some((text, max));
            // A thread that stopped (it cannot: it outlives its channel) is
            // replaced once.
            for _ in 0..2 {
                if slot.is_none() {
                    *slot = Some(ScriptWorker::spawn()?);
                }
                let worker = slot.as_ref().expect("worker just set");
                match worker.requests.send(request.take().expect("one request")) {
                    Ok(()) => {
                        let reply = worker.replies.recv_timeout(PARSE_TIME);
                        if reply.is_err() {
                            // Still parsing at the limit, or gone: never
                            // asked again.
                            *slot = None;
                        }
                        return Ok(reply);
                    }
                    Err(std::sync::mpsc::SendError(back)) => {
                        request = Some(back);
                        *slot = None;
                    }
                }
            }
            Ok(Err(std::sync::mpsc::RecvTimeoutError::Disconnected))
        })
    }
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
    /// `( ... )`, and each `(` of `((`.
    Paren,
    /// `[[ ... ]]`.
    Test,
}

/// The position of the token where the nesting of compound commands first
/// exceeds `max`: `if`/`case`/`for`/`select`/`while`/`until` (reserved words
/// in command position, as the grammar reads them), `{ }`, `( )` and
/// `[[ ]]`, where each `&&`, `||`, `!` and `(` inside `[[ ]]` counts as one
/// more level (the parser nests them too). It reads brush-parser's own tokens,
/// so quotes, here-documents and `$(...)` are seen exactly as the parser sees
/// them; a word counts in command position after an operator (`;`, newline,
/// `&&`, `|`, `(`, `)`, ...) or a reserved word that starts a command list.
fn nesting_too_deep(tokens: &[Token], max: usize) -> Option<brush_parser::SourcePosition> {
    let mut frames: Vec<(Open, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut command_position = true;
    let mut after_function = false;
    for t in tokens {
        let (text, span) = match t {
            Token::Operator(o, span) => (o.as_str(), span),
            Token::Word(w, span) => (w.as_str(), span),
        };
        let at = || (*span.start).clone();
        let in_test = matches!(frames.last(), Some((Open::Test, _)));
        // One more level: a new frame, or one more inside the innermost.
        // True when the budget is exceeded.
        let deepen = |frames: &mut Vec<(Open, usize)>, depth: &mut usize, kind: Option<Open>| {
            match kind {
                Some(k) => frames.push((k, 1)),
                None => {
                    if let Some((_, w)) = frames.last_mut() {
                        *w += 1;
                    }
                }
            }
            *depth += 1;
            *depth > max
        };
        if let Token::Operator(..) = t {
            let over = match text {
                "&&" | "||" | "(" if in_test => deepen(&mut frames, &mut depth, None),
                "(" => deepen(&mut frames, &mut depth, Some(Open::Paren)),
                ")" => {
                    if let Some(&(Open::Paren, w)) = frames.last() {
                        frames.pop();
                        depth -= w;
                    }
                    false
                }
                _ => false,
            };
            if over {
                return Some(at());
            }
            // After a redirection comes its target, not a command.
            command_position = !text.contains(['<', '>']);
            continue;
        }
        if in_test {
            match text {
                "]]" => {
                    if let Some((_, w)) = frames.pop() {
                        depth -= w;
                    }
                }
                "!" if deepen(&mut frames, &mut depth, None) => return Some(at()),
                _ => {}
            }
            continue;
        }
        if after_function {
            // `function NAME`: the body follows the name.
            after_function = false;
            command_position = true;
            continue;
        }
        if !command_position {
            continue;
        }
        command_position = false;
        let opens = match text {
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
            "fi" | "done" | "esac" | "}" => {
                let kind = if text == "}" {
                    Open::Brace
                } else {
                    Open::Keyword
                };
                if let Some(&(k, w)) = frames.last()
                    && k == kind
                {
                    frames.pop();
                    depth -= w;
                }
                None
            }
            "then" | "do" | "else" | "elif" | "!" | "time" | "coproc" => {
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
        if let Some(k) = opens
            && deepen(&mut frames, &mut depth, Some(k))
        {
            return Some(at());
        }
    }
    None
}

/// What the parser thread found.
enum Parsed {
    /// The program, or brush-parser's syntax error.
    Done(Result<ast::Program, brush_parser::ParseError>),
    /// Nesting beyond the budget, where it first is.
    TooDeep(brush_parser::SourcePosition),
}

/// Tokenizes and parses a script as `Parser::parse_program` does, refusing
/// nesting beyond `max` between the two (the parser's recursion follows it).
fn parse_bounded(text: &str, max: usize) -> Parsed {
    let options = ParserOptions::default();
    match brush_parser::uncached_tokenize_str(text, &options.tokenizer_options()) {
        Ok(mut tokens) => match nesting_too_deep(&tokens, max) {
            Some(at) => Parsed::TooDeep(at),
            None => {
                select_as_for(&mut tokens);
                Parsed::Done(brush_parser::parse_tokens(&tokens, &options))
            }
        },
        // The parser's own run gives the error its position (it stops at
        // the same place, before any nesting).
        Err(_) => Parsed::Done(Parser::new(text.as_bytes(), &options).parse_program()),
    }
}

/// bash's `select NAME [in WORDS]; do BODY; done`, which brush-parser
/// does not know, read as the `for` loop of the same shape: its keyword
/// token becomes `for`, keeping its place in the text, where the evaluator
/// finds the keyword written (`select`) and runs the loop as one. A
/// `select` word is the keyword where a command starts (first, after a
/// control operator, or after a reserved word that a command follows) and
/// a name and `in`, `;`, a newline or `do` follow it, as bash reads it (a
/// case pattern `select)` or an argument `echo select x` is a word).
fn select_as_for(tokens: &mut [Token]) {
    const AFTER_OPERATORS: &[&str] = &[";", "\n", "&", "&&", "||", "|", "|&", "("];
    const AFTER_WORDS: &[&str] = &[
        "do", "then", "else", "elif", "{", "!", "if", "while", "until", "time",
    ];
    for i in 0..tokens.len() {
        let Token::Word(w, _) = &tokens[i] else {
            continue;
        };
        if w != "select" {
            continue;
        }
        let starts = match i.checked_sub(1).map(|p| &tokens[p]) {
            None => true,
            Some(Token::Operator(o, _)) => AFTER_OPERATORS.contains(&o.as_str()),
            Some(Token::Word(w, _)) => AFTER_WORDS.contains(&w.as_str()),
        };
        let named = matches!(tokens.get(i + 1), Some(Token::Word(n, _))
            if n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let then = match tokens.get(i + 2) {
            Some(Token::Word(w, _)) => w == "in" || w == "do",
            Some(Token::Operator(o, _)) => o == ";" || o == "\n",
            None => false,
        };
        if starts && named && then {
            let Token::Word(_, at) = &tokens[i] else {
                continue;
            };
            tokens[i] = Token::Word("for".into(), at.clone());
        }
    }
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

/// Why a script was not parsed: the error, and its kind.
#[derive(Debug)]
pub(super) struct ParseFailure {
    /// What kind of failure it is.
    pub(super) kind: FailureKind,
    /// The error, placed in the script.
    pub(super) error: Error,
}

/// The kinds of [`ParseFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FailureKind {
    /// A parse budget (size, nesting, parser time) was exceeded: the input is
    /// refused whatever its context.
    Budget,
    /// The text is not valid bash (or the parser could not read it).
    Syntax,
}

impl From<ParseFailure> for Error {
    fn from(f: ParseFailure) -> Error {
        f.error
    }
}

/// A failure of `kind` at `span`.
fn failure(kind: FailureKind, span: crate::span::Span, message: String) -> ParseFailure {
    ParseFailure {
        kind,
        error: Error::Input { span, message },
    }
}

/// Parses a script with brush-parser, refusing inputs that would take it
/// exponential time and bounding the time it may take. The failure says
/// whether a budget was exceeded or the text is not bash.
pub(super) fn parse_guarded(source: &Arc<Source>) -> Result<ast::Program, ParseFailure> {
    crate::files::check_line_endings(source, crate::files::LineEndings::Bash).map_err(|error| {
        ParseFailure {
            kind: FailureKind::Syntax,
            error,
        }
    })?;
    let budget = super::budget::budget();
    if source.text.len() > budget.max_script_bytes {
        let mut at = budget.max_script_bytes;
        while !source.text.is_char_boundary(at) {
            at -= 1;
        }
        return Err(failure(
            FailureKind::Budget,
            source.span(at, at),
            format!(
                "bash parse budget exceeded: the script is longer than {} KiB (script-kib budget; raise with --bash-budget script-kib=N)",
                super::budget::grouped(budget.max_script_bytes >> 10)
            ),
        ));
    }
    let mut run = 0;
    let mut depth: usize = 0;
    for (i, c) in code_chars(&source.text) {
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
            return Err(failure(
                FailureKind::Budget,
                source.span(i, i),
                format!(
                    "bash parse budget exceeded: `(` nested too deeply to parse safely (more than {MAX_PAREN_DEPTH} open, or {MAX_PAREN_RUN} in a row: a fixed guard of the parser, not a --bash-budget knob)"
                ),
            ));
        }
    }
    if let Some(at) = heredoc_without_word(&source.text) {
        // bash rejects it too; brush-parser loops on it inside `$(`, allocating
        // without bound (found by fuzzing).
        return Err(failure(
            FailureKind::Syntax,
            source.span(at, at),
            "bash syntax error: a here-document (`<<`) or here-string (`<<<`) needs a word after it"
                .into(),
        ));
    }
    if let Some(at) = expansion_too_deep(&source.text) {
        return Err(failure(
            FailureKind::Budget,
            source.span(at, at),
            format!(
                "bash parse budget exceeded: `${{` expansions nested too deeply to parse safely (more than {MAX_EXPANSION_DEPTH}: a fixed guard of the parser, not a --bash-budget knob)"
            ),
        ));
    }
    let max = budget.max_nesting;
    let reply = ScriptWorker::request(source.text.clone(), max).map_err(|e| ParseFailure {
        kind: FailureKind::Budget,
        error: Error::usage(format!("cannot start the bash parser: {e}")),
    })?;
    let at = source.span_of_line_col(crate::span::LineCol { line: 1, col: 1 });
    let parsed = match reply {
        Ok(Ok(Parsed::Done(r))) => r,
        Ok(Ok(Parsed::TooDeep(p))) => {
            return Err(failure(
                FailureKind::Budget,
                source.span_of_line_col(crate::span::LineCol {
                    line: p.line,
                    col: p.column,
                }),
                format!(
                    "bash parse budget exceeded: compound commands nested too deeply (more than {max} levels; nesting budget; raise with --bash-budget nesting=N)"
                ),
            ));
        }
        Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            return Err(failure(
                FailureKind::Syntax,
                at,
                "bash syntax error: the parser cannot read this script".into(),
            ));
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            return Err(failure(
                FailureKind::Budget,
                at,
                format!(
                    "bash parse budget exceeded: the bash parser did not finish within {} s on this script (parser time budget)",
                    PARSE_TIME.as_secs()
                ),
            ));
        }
    };
    parsed.map_err(|e| {
        use brush_parser::TokenizerError as T;
        // A quote that never closes is placed at its opening quote.
        if let brush_parser::ParseError::Tokenizing { inner, .. } = &e
            && let T::UnterminatedSingleQuote(p)
            | T::UnterminatedDoubleQuote(p)
            | T::UnterminatedAnsiCQuote(p)
            | T::UnterminatedBackquote(p) = inner
        {
            let what = match inner {
                T::UnterminatedSingleQuote(_) => "single quote",
                T::UnterminatedDoubleQuote(_) => "double quote",
                T::UnterminatedAnsiCQuote(_) => "$'...' quote",
                _ => "backquote",
            };
            return failure(
                FailureKind::Syntax,
                source.span_of_line_col(crate::span::LineCol {
                    line: p.line,
                    col: p.column,
                }),
                format!("bash syntax error: unterminated {what}"),
            );
        }
        let (line, col) = match &e {
            brush_parser::ParseError::ParsingNear(p) => (p.line, p.column),
            brush_parser::ParseError::Tokenizing {
                position: Some(p), ..
            } => (p.line, p.column),
            _ => (source.text.lines().count().max(1), 1),
        };
        failure(
            FailureKind::Syntax,
            source.span_of_line_col(crate::span::LineCol { line, col }),
            format!("bash syntax error: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One parser thread serves every script parsed on a thread (a page of
    /// many code blocks starts one, not one per block), also after a syntax
    /// error.
    #[test]
    fn the_parser_thread_is_reused_across_scripts() {
        let parse = |text: &str| {
            let source = Arc::new(Source::new(
                crate::span::Origin::Inline("reuse".into()),
                text.to_string(),
            ));
            parse_guarded(&source).is_ok()
        };
        assert!(parse("echo first\n"));
        let first = SCRIPT_WORKER.with(|w| w.borrow().as_ref().map(|w| w.thread));
        assert!(first.is_some());
        for i in 0..500 {
            assert!(parse(&format!("x{i} --tp {i}\n")));
        }
        assert!(!parse("if then fi fi (\n"));
        assert!(parse("echo last\n"));
        let last = SCRIPT_WORKER.with(|w| w.borrow().as_ref().map(|w| w.thread));
        assert_eq!(first, last);
    }

    /// The least nesting budget `text` fits.
    fn depth(text: &str) -> usize {
        let options = ParserOptions::default();
        let tokens =
            brush_parser::uncached_tokenize_str(text, &options.tokenizer_options()).unwrap();
        (0..)
            .find(|&max| nesting_too_deep(&tokens, max).is_none())
            .unwrap()
    }

    #[test]
    fn nesting_counts_what_the_grammar_nests() {
        assert_eq!(depth("echo if for while {\n"), 0);
        assert_eq!(
            depth("if a; then if b; then :; fi; fi\nif c; then :; fi\n"),
            2
        );
        assert_eq!(depth("for i in if for; do { :; }; done\n"), 2);
        assert_eq!(depth("case $x in (a) :;; b) if c; then :; fi;; esac\n"), 2);
        assert_eq!(
            depth("function f { while x; do :; done; }\nf() ( :; )\n"),
            2
        );
        assert_eq!(depth("[[ a && ( b || ! c ) ]]\n"), 5);
        assert_eq!(depth("X=1 if a; then :; fi\n"), 1);
        assert_eq!(depth("cat <<EOF\nif if if\nEOF\n"), 0);
        assert_eq!(depth("echo \"$(if a; then :; fi)\"\n"), 0);
    }

    #[test]
    fn the_recipes_of_the_fixtures_nest_shallowly() {
        let mut checked = 0;
        let mut stack = vec![std::path::PathBuf::from("fixtures")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() && !path.ends_with("bad") {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "sh") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(depth(&text) <= 8, "{}", path.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 10);
    }
}
