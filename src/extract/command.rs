//! Plain command lines: shell words with positions, env prefixes, `export` lines,
//! `docker run` wrappers and the engine launchers.
//!
//! The word splitting follows POSIX shell quoting like `shell-words` does (single
//! quotes, double quotes with `\` escapes, backslash escapes, `\`-newline
//! continuations, `#` comments) but keeps the byte span of every word, which
//! `shell-words` does not expose. Nothing is executed; `$VAR` expands only from
//! variables assigned earlier in the same text.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::Error;
use crate::launch::{Context, Engine, EnvVar, Known, Launch, Platform, Provenance, Token};
use crate::source::Source;

/// A shell word before launch detection.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    start: usize,
    end: usize,
    provenance: Provenance,
    /// `NAME=value` written with an unquoted name.
    assignment: Option<(String, String)>,
}

/// Shell variables assigned so far in a text, and which of them are exported.
#[derive(Debug, Default, Clone)]
pub struct ShellState {
    vars: BTreeMap<String, String>,
    exported: Vec<(String, usize, usize)>,
}

impl ShellState {
    /// A state with variables already set (not exported), like a script's inputs.
    pub fn with_vars(vars: &BTreeMap<String, String>) -> ShellState {
        ShellState {
            vars: vars.clone(),
            exported: Vec::new(),
        }
    }
}

/// Extracts every launch from `source.text[start..end]` read as shell text.
pub fn extract_range(
    source: &Arc<Source>,
    start: usize,
    end: usize,
    state: &mut ShellState,
) -> Result<Vec<Launch>, Error> {
    let mut lexer = Lexer {
        source,
        text: &source.text[..end],
        pos: start,
        at_line_start: true,
    };
    let mut launches = Vec::new();
    while let Some(words) = lexer.next_command(&state.vars)? {
        if let Some(launch) = run_command(source, words, state)? {
            launches.push(launch);
        }
    }
    Ok(launches)
}

/// Extracts every launch of a whole shell text (a `.sh`/`.txt` command file).
pub fn extract(
    source: &Arc<Source>,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    let mut state = ShellState::with_vars(vars);
    extract_range(source, 0, source.text.len(), &mut state)
}

/// Applies one simple command to the shell state; returns a launch if it starts a server.
fn run_command(
    source: &Arc<Source>,
    words: Vec<Word>,
    state: &mut ShellState,
) -> Result<Option<Launch>, Error> {
    let mut i = 0;
    let all_start = words.first().map(|w| w.start).unwrap_or(0);
    let mut env: Vec<EnvVar> = exported_env(source, state);
    // Leading assignments: env for this command, or shell variables if nothing follows.
    let mut prefix = Vec::new();
    while i < words.len() {
        match &words[i].assignment {
            Some(a) => prefix.push((a.clone(), words[i].start, words[i].end)),
            None => break,
        }
        i += 1;
    }
    if i == words.len() {
        for ((name, value), _, _) in prefix {
            state.vars.insert(name, value);
        }
        return Ok(None);
    }
    for ((name, value), s, e) in prefix {
        push_env(&mut env, source, name, value, s, e);
    }
    let rest = &words[i..];
    match rest[0].text.as_str() {
        "export" => {
            for w in &rest[1..] {
                if let Some((name, value)) = &w.assignment {
                    state.vars.insert(name.clone(), value.clone());
                    mark_exported(state, name, w.start, w.end);
                } else if !w.text.starts_with('-') && state.vars.contains_key(&w.text) {
                    mark_exported(state, &w.text, w.start, w.end);
                }
            }
            return Ok(None);
        }
        "unset" => {
            for w in &rest[1..] {
                state.vars.remove(&w.text);
                state.exported.retain(|(n, _, _)| n != &w.text);
            }
            return Ok(None);
        }
        _ => {}
    }
    let mut context = Context::default();
    let words = unwrap_wrappers(source, rest, &mut env, &mut context);
    let Some((engine, launcher_len)) = detect_launcher(words) else {
        return Ok(None);
    };
    let to_token = |w: &Word| Token {
        text: w.text.clone(),
        span: source.span(w.start, w.end),
        provenance: w.provenance.clone(),
    };
    let first = words.first().map(|w| w.start).unwrap_or(0).min(all_start);
    let last = words.last().map(|w| w.end).unwrap_or(first);
    Ok(Some(Launch {
        engine,
        launcher: words[..launcher_len].iter().map(to_token).collect(),
        argv: words[launcher_len..].iter().map(to_token).collect(),
        env,
        context,
        span: source.span(first, last),
        source: source.clone(),
    }))
}

fn exported_env(source: &Source, state: &ShellState) -> Vec<EnvVar> {
    state
        .exported
        .iter()
        .filter_map(|(name, s, e)| {
            state.vars.get(name).map(|v| EnvVar {
                name: name.clone(),
                value: v.clone(),
                span: source.span(*s, *e),
            })
        })
        .collect()
}

fn mark_exported(state: &mut ShellState, name: &str, start: usize, end: usize) {
    state.exported.retain(|(n, _, _)| n != name);
    state.exported.push((name.to_string(), start, end));
}

fn push_env(
    env: &mut Vec<EnvVar>,
    source: &Source,
    name: String,
    value: String,
    s: usize,
    e: usize,
) {
    env.retain(|v| v.name != name);
    env.push(EnvVar {
        name,
        value,
        span: source.span(s, e),
    });
}

/// Strips `env K=V`, `exec`, `nohup` and `docker run [opts] IMAGE` in front of a command.
fn unwrap_wrappers<'w>(
    source: &Source,
    mut words: &'w [Word],
    env: &mut Vec<EnvVar>,
    context: &mut Context,
) -> &'w [Word] {
    loop {
        let Some(first) = words.first() else {
            return words;
        };
        match first.text.as_str() {
            "exec" | "nohup" | "time" => words = &words[1..],
            "env" => {
                let mut i = 1;
                while i < words.len() {
                    if let Some((n, v)) = &words[i].assignment {
                        push_env(
                            env,
                            source,
                            n.clone(),
                            v.clone(),
                            words[i].start,
                            words[i].end,
                        );
                    } else if !words[i].text.starts_with('-') {
                        break;
                    }
                    i += 1;
                }
                words = &words[i..];
            }
            "docker" | "podman" if words.get(1).is_some_and(|w| w.text == "run") => {
                // Only `-e` reaches the container: the host's env stays outside.
                let host_env = std::mem::take(env);
                let (rest, image) = docker_run(source, &words[2..], env, &host_env);
                if let Some(img) = image {
                    let from = format!("image {} at {}", img.text, source.span(img.start, img.end));
                    context.fill_from(&Context::from_image(&img.text, &from));
                }
                words = rest;
            }
            _ => return words,
        }
    }
}

/// `docker run` options that take no value.
const DOCKER_BOOL_LONG: &[&str] = &[
    "--rm",
    "--detach",
    "--interactive",
    "--tty",
    "--privileged",
    "--init",
    "--publish-all",
    "--read-only",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--quiet",
];

/// Walks `docker run` options; returns the words after the image, and the image word.
fn docker_run<'w>(
    source: &Source,
    words: &'w [Word],
    env: &mut Vec<EnvVar>,
    host_env: &[EnvVar],
) -> (&'w [Word], Option<&'w Word>) {
    let mut i = 0;
    while i < words.len() {
        let w = &words[i].text;
        if w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') || w == "-" {
            break;
        }
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (w.clone(), None),
        };
        let takes_value = if name.starts_with("--") {
            !DOCKER_BOOL_LONG.contains(&name.as_str())
        } else {
            // Short flags: a cluster of boolean letters takes no value.
            !name[1..].chars().all(|c| "ditPq".contains(c))
        };
        let (value, value_word) = if !takes_value || inline.is_some() {
            (inline, &words[i])
        } else if i + 1 < words.len() {
            i += 1;
            (Some(words[i].text.clone()), &words[i])
        } else {
            (None, &words[i])
        };
        if name == "-e" || name == "--env" {
            match value.as_deref().map(|v| v.split_once('=').ok_or(v)) {
                Some(Ok((n, v))) => push_env(
                    env,
                    source,
                    n.to_string(),
                    v.to_string(),
                    value_word.start,
                    value_word.end,
                ),
                // `-e NAME` passes the host's value through.
                Some(Err(n)) => {
                    if let Some(h) = host_env.iter().find(|h| h.name == n) {
                        push_env(
                            env,
                            source,
                            n.to_string(),
                            h.value.clone(),
                            value_word.start,
                            value_word.end,
                        );
                    }
                }
                None => {}
            }
        }
        i += 1;
    }
    if i < words.len() {
        (&words[i + 1..], Some(&words[i]))
    } else {
        (&words[i..], None)
    }
}

/// Recognises a launcher at the start of `words`: the engine and how many words it spans.
fn detect_launcher(words: &[Word]) -> Option<(Engine, usize)> {
    let w = |i: usize| words.get(i).map(|w| w.text.as_str()).unwrap_or("");
    let base = |s: &str| s.rsplit('/').next().unwrap_or("").to_string();
    let first = base(w(0));
    match first.as_str() {
        "sglang" if w(1) == "serve" => Some((Engine::Sglang, 2)),
        "vllm" if w(1) == "serve" => Some((Engine::Vllm, 2)),
        p if is_python(p) && w(1) == "-m" => match w(2) {
            "sglang.launch_server" => Some((Engine::Sglang, 3)),
            "vllm.entrypoints.openai.api_server" => Some((Engine::Vllm, 3)),
            _ => None,
        },
        _ => None,
    }
}

fn is_python(s: &str) -> bool {
    let rest = match s.strip_prefix("python") {
        Some(r) => r,
        None => return false,
    };
    rest.chars().all(|c| c.is_ascii_digit() || c == '.')
}

impl Context {
    /// Version and platform from a container image such as
    /// `lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915`.
    pub fn from_image(image: &str, from: &str) -> Context {
        let lower = image.to_ascii_lowercase();
        let (name, tag) = match lower.rsplit_once(':') {
            Some((n, t)) if !t.contains('/') => (n.to_string(), t.to_string()),
            _ => (lower.clone(), String::new()),
        };
        let platform = if name.contains("rocm") || tag.contains("rocm") {
            Some(Platform::Rocm)
        } else if tag.split(['-', '_']).any(|p| {
            p.strip_prefix("cu")
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        }) || tag.contains("cuda")
        {
            Some(Platform::Cuda)
        } else if tag.contains("cpu") || tag.contains("xeon") {
            Some(Platform::Cpu)
        } else {
            None
        };
        Context {
            hardware: None,
            platform: platform.map(|p| Known {
                value: p,
                from: from.to_string(),
            }),
            engine_version: version_in_tag(&tag).map(|v| Known {
                value: v,
                from: from.to_string(),
            }),
            image: Some(Known {
                value: image.to_string(),
                from: from.to_string(),
            }),
        }
    }
}

/// The first `vX.Y.Z[.postN|rcN]` in an image tag.
fn version_in_tag(tag: &str) -> Option<String> {
    for part in tag.split(['-', '_']) {
        let p = part.strip_prefix('v').unwrap_or(part);
        let nums: Vec<&str> = p.split('.').collect();
        if nums.len() >= 3
            && nums[..3]
                .iter()
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            && pep440_rs::Version::from_str_opt(p).is_some()
        {
            return Some(p.to_string());
        }
    }
    None
}

trait FromStrOpt: Sized {
    fn from_str_opt(s: &str) -> Option<Self>;
}

impl FromStrOpt for pep440_rs::Version {
    fn from_str_opt(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// A position-keeping shell lexer over one text.
struct Lexer<'a> {
    source: &'a Source,
    text: &'a str,
    pos: usize,
    at_line_start: bool,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn error(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::input(self.source.span(at, at), msg)
    }

    /// Returns the words of the next simple command, or `None` at the end.
    fn next_command(
        &mut self,
        vars: &BTreeMap<String, String>,
    ) -> Result<Option<Vec<Word>>, Error> {
        let mut words = Vec::new();
        loop {
            // Skip blanks and continuations.
            loop {
                match self.peek() {
                    Some(' ' | '\t' | '\r') => {
                        self.bump();
                    }
                    Some('\\') if matches!(self.peek_at(1), Some('\n')) => {
                        self.pos += 2;
                    }
                    Some('\\')
                        if matches!(self.peek_at(1), Some('\r'))
                            && matches!(self.peek_at(2), Some('\n')) =>
                    {
                        self.pos += 3;
                    }
                    _ => break,
                }
            }
            if self.at_line_start {
                self.at_line_start = false;
                // A `$ ` console prompt.
                if self.peek() == Some('$') && matches!(self.peek_at(1), Some(' ' | '\t')) {
                    self.pos += 2;
                    continue;
                }
            }
            let Some(c) = self.peek() else {
                return Ok(if words.is_empty() { None } else { Some(words) });
            };
            match c {
                '#' => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                '\n' => {
                    self.bump();
                    self.at_line_start = true;
                    if !words.is_empty() {
                        return Ok(Some(words));
                    }
                }
                ';' | '&' | '|' => {
                    self.bump();
                    if matches!(self.peek(), Some('&' | '|' | ';')) {
                        self.bump();
                    }
                    if !words.is_empty() {
                        return Ok(Some(words));
                    }
                }
                '(' | ')' | '{' | '}' if words.is_empty() => {
                    self.bump();
                }
                '>' | '<' => self.skip_redirect(vars)?,
                c if c.is_ascii_digit() && self.is_fd_redirect() => self.skip_redirect(vars)?,
                _ => words.push(self.word(vars)?),
            }
        }
    }

    fn is_fd_redirect(&self) -> bool {
        let rest = &self.text[self.pos..];
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        matches!(rest[digits..].chars().next(), Some('>' | '<'))
    }

    fn skip_redirect(&mut self, vars: &BTreeMap<String, String>) -> Result<(), Error> {
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.bump();
        }
        while matches!(self.peek(), Some('>' | '<' | '&')) {
            self.bump();
        }
        // `2>&1`: the target is a file descriptor.
        if matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '-') {
            while matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '-') {
                self.bump();
            }
            return Ok(());
        }
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
        if matches!(self.peek(), Some(c) if !"\n;&|".contains(c)) {
            self.word(vars)?;
        }
        Ok(())
    }

    /// Reads one word starting at the current position.
    fn word(&mut self, vars: &BTreeMap<String, String>) -> Result<Word, Error> {
        let start = self.pos;
        let mut text = String::new();
        let mut provenance = Provenance::Literal;
        let mut name_end: Option<usize> = None; // length of an unquoted `NAME=` prefix
        let mut all_literal_so_far = true;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' => break,
                '(' | ')' if text.is_empty() => break,
                '\\' => {
                    self.bump();
                    match self.bump() {
                        Some('\n') => {}
                        Some(c) => text.push(c),
                        None => text.push('\\'),
                    }
                    all_literal_so_far = false;
                }
                '\'' => {
                    let q = self.pos;
                    self.bump();
                    loop {
                        match self.bump() {
                            Some('\'') => break,
                            Some(c) => text.push(c),
                            None => return Err(self.error(q, "unterminated single quote")),
                        }
                    }
                    all_literal_so_far = false;
                }
                '"' => {
                    let q = self.pos;
                    self.bump();
                    loop {
                        match self.peek() {
                            Some('"') => {
                                self.bump();
                                break;
                            }
                            Some('\\') => {
                                self.bump();
                                match self.bump() {
                                    Some(c @ ('$' | '`' | '"' | '\\')) => text.push(c),
                                    Some('\n') => {}
                                    Some(c) => {
                                        text.push('\\');
                                        text.push(c);
                                    }
                                    None => return Err(self.error(q, "unterminated double quote")),
                                }
                            }
                            Some('$') => {
                                if let Some(p) = self.dollar(vars, &mut text)? {
                                    provenance = p;
                                }
                            }
                            Some(c) => {
                                self.bump();
                                text.push(c);
                            }
                            None => return Err(self.error(q, "unterminated double quote")),
                        }
                    }
                    all_literal_so_far = false;
                }
                '$' => {
                    if self.peek_at(1) == Some('\'') {
                        self.ansi_c(&mut text)?;
                    } else if let Some(p) = self.dollar(vars, &mut text)? {
                        provenance = p;
                    }
                    all_literal_so_far = false;
                }
                '=' if all_literal_so_far && name_end.is_none() && is_name(&text) => {
                    self.bump();
                    name_end = Some(text.len());
                    text.push('=');
                }
                _ => {
                    self.bump();
                    text.push(c);
                }
            }
        }
        let assignment = name_end.map(|n| (text[..n].to_string(), text[n + 1..].to_string()));
        Ok(Word {
            text,
            start,
            end: self.pos,
            provenance,
            assignment,
        })
    }

    /// `$'...'` ANSI-C quoting.
    fn ansi_c(&mut self, text: &mut String) -> Result<(), Error> {
        let q = self.pos;
        self.pos += 2;
        loop {
            match self.bump() {
                Some('\'') => return Ok(()),
                Some('\\') => match self.bump() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some('r') => text.push('\r'),
                    Some('\\') => text.push('\\'),
                    Some('\'') => text.push('\''),
                    Some('"') => text.push('"'),
                    Some(c) => {
                        text.push('\\');
                        text.push(c);
                    }
                    None => return Err(self.error(q, "unterminated $'...' quote")),
                },
                Some(c) => text.push(c),
                None => return Err(self.error(q, "unterminated $'...' quote")),
            }
        }
    }

    /// A `$` expansion; appends its text. Unknown variables stay as written.
    fn dollar(
        &mut self,
        vars: &BTreeMap<String, String>,
        text: &mut String,
    ) -> Result<Option<Provenance>, Error> {
        let start = self.pos;
        self.bump(); // '$'
        match self.peek() {
            Some('{') => {
                self.bump();
                let inner_start = self.pos;
                let mut depth = 1;
                while let Some(c) = self.bump() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if depth != 0 {
                    return Err(self.error(start, "unterminated ${...} expansion"));
                }
                let inner = &self.text[inner_start..self.pos - 1];
                let name_len = inner
                    .char_indices()
                    .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                    .map(|(i, _)| i)
                    .unwrap_or(inner.len());
                let (name, op) = inner.split_at(name_len);
                let value = vars.get(name);
                let expanded = match (op.get(..2), value) {
                    (None, Some(v)) if op.is_empty() => Some(v.clone()),
                    (Some(":-"), Some(v)) if !v.is_empty() => Some(v.clone()),
                    (Some(":-"), _) => Some(op[2..].to_string()),
                    _ if op.starts_with('-') && value.is_none() => Some(op[1..].to_string()),
                    _ if op.starts_with('-') => value.cloned(),
                    _ => None,
                };
                match expanded {
                    Some(v) => {
                        text.push_str(&v);
                        Ok(Some(Provenance::Var {
                            name: name.to_string(),
                        }))
                    }
                    None => {
                        text.push_str(&self.text[start..self.pos]);
                        Ok(None)
                    }
                }
            }
            Some('(') => {
                // Command substitution: never run; kept as written.
                let mut depth = 0;
                while let Some(c) = self.bump() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if depth != 0 {
                    return Err(self.error(start, "unterminated $(...) substitution"));
                }
                text.push_str(&self.text[start..self.pos]);
                Ok(None)
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let ns = self.pos;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
                    self.bump();
                }
                let name = &self.text[ns..self.pos];
                match vars.get(name) {
                    Some(v) => {
                        text.push_str(v);
                        Ok(Some(Provenance::Var {
                            name: name.to_string(),
                        }))
                    }
                    None => {
                        text.push_str(&self.text[start..self.pos]);
                        Ok(None)
                    }
                }
            }
            _ => {
                text.push('$');
                Ok(None)
            }
        }
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    fn launches(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
        extract(&src, &BTreeMap::new()).unwrap()
    }

    fn argv(l: &Launch) -> Vec<&str> {
        l.argv.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn continuations_comments_and_quotes() {
        let l = launches(
            "# start the server\nsglang serve \\\n  --model-path 'a/b' \\\n  --json-model-override-args '{\"x\": 1}' # trailing\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(
            argv(&l[0]),
            [
                "--model-path",
                "a/b",
                "--json-model-override-args",
                "{\"x\": 1}"
            ]
        );
        assert_eq!(l[0].argv[0].span.pos.line, 3);
        assert_eq!(l[0].argv[0].span.pos.col, 3);
    }

    #[test]
    fn env_prefixes_inline_and_on_continued_lines() {
        let l = launches(
            "A=1 \\\nB=\"two words\" \\\nsglang serve --tp 2\nC=3 python3 -m sglang.launch_server --tp 4",
        );
        assert_eq!(l.len(), 2);
        let names: Vec<_> = l[0]
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(names, [("A", "1"), ("B", "two words")]);
        assert_eq!(l[1].env[0].name, "C");
        assert_eq!(l[1].launcher_text(), "python3 -m sglang.launch_server");
    }

    #[test]
    fn exports_reach_later_commands_and_plain_assignments_do_not() {
        let l = launches(
            "export SGLANG_USE_AITER=1\nMODEL=a/b\nsglang serve --model-path $MODEL --x ${Y:-7}",
        );
        assert_eq!(l[0].env.len(), 1);
        assert_eq!(l[0].env[0].name, "SGLANG_USE_AITER");
        assert_eq!(argv(&l[0]), ["--model-path", "a/b", "--x", "7"]);
        assert_eq!(
            l[0].argv[1].provenance,
            Provenance::Var {
                name: "MODEL".into()
            }
        );
    }

    #[test]
    fn prompts_and_several_commands() {
        let l = launches(
            "$ sglang serve --tp 1\n$ vllm serve x/y -tp 2 && echo done; python -m vllm.entrypoints.openai.api_server --model m",
        );
        assert_eq!(l.len(), 3);
        assert_eq!(l[1].engine, Engine::Vllm);
        assert_eq!(l[2].engine, Engine::Vllm);
    }

    #[test]
    fn redirections_and_background_are_not_arguments() {
        let l = launches("sglang serve --tp 2 > /tmp/log 2>&1 &\n");
        assert_eq!(argv(&l[0]), ["--tp", "2"]);
    }

    #[test]
    fn docker_run_wrapper() {
        let l = launches(
            "docker run --rm -it --gpus all -v /d:/d -e X=1 --shm-size 32g lmsysorg/sglang:v0.5.17-cu130 python3 -m sglang.launch_server --tp 8",
        );
        assert_eq!(argv(&l[0]), ["--tp", "8"]);
        assert_eq!(l[0].env[0].name, "X");
        let ctx = &l[0].context;
        assert_eq!(ctx.engine_version.as_ref().unwrap().value, "0.5.17");
        assert_eq!(ctx.platform.as_ref().unwrap().value, Platform::Cuda);
    }

    #[test]
    fn image_tags() {
        let c = Context::from_image("lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915", "t");
        assert_eq!(c.engine_version.unwrap().value, "0.5.19");
        assert_eq!(c.platform.unwrap().value, Platform::Rocm);
        let c = Context::from_image("lmsysorg/sglang:v0.5.15.post1-cu129", "t");
        assert_eq!(c.engine_version.unwrap().value, "0.5.15.post1");
        let c = Context::from_image("lmsysorg/sglang:latest", "t");
        assert!(c.engine_version.is_none());
    }

    #[test]
    fn unterminated_quote_is_an_error_with_position() {
        let src = Arc::new(Source::new(
            Origin::Inline("t".into()),
            "sglang serve --x 'abc\n".into(),
        ));
        let e = extract(&src, &BTreeMap::new()).unwrap_err().to_string();
        assert_eq!(e, "<t>:1:18: unterminated single quote");
    }

    #[test]
    fn wrappers_and_ansi_c_quotes() {
        let l = launches("nohup env A=1 exec python3 -m sglang.launch_server --x $'a\\tb' &");
        assert_eq!(l[0].env[0].name, "A");
        assert_eq!(argv(&l[0]), ["--x", "a\tb"]);
    }

    #[test]
    fn docker_run_passes_host_values_only_through_dash_e() {
        let l = launches(
            "export HOST_ONLY=1 PASSED=2\ndocker run -e PASSED img:v0.5.19-cu129 sglang serve --tp 2",
        );
        let names: Vec<_> = l[0]
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(names, [("PASSED", "2")]);
    }
}
