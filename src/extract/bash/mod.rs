//! Static bash evaluation for recipe scripts: walks `brush-parser`'s AST with the
//! script's env contract and reports the server launches as bash would run them,
//! without ever executing anything.
//!
//! Conditions on unknown values are never decided: both branches are evaluated and
//! whatever differs between them becomes unknown, with the reason; a launch inside
//! such a branch says which condition it depends on. External commands (downloads,
//! installs, waits) are side effects: they are skipped and assumed to succeed.

pub mod expand;
mod word_parser;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use brush_parser::ast::{
    self, AndOr, AssignmentName, AssignmentValue, BinaryPredicate, Command,
    CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr, UnaryPredicate,
};
use brush_parser::{Parser, ParserOptions, SourcePosition};

use self::expand::{Field, Val, expand_fields, expand_string, glob_match};
use crate::error::Error;
use crate::launch::{Context, EnvVar, Launch, Provenance, Token};
use crate::source::{Files, LocalFiles, Location, RemoteRef, Source};

/// The shell state: variables (scalars are one-element arrays), exports, functions.
#[derive(Debug, Clone, Default)]
pub struct State {
    vars: BTreeMap<String, Vec<Val>>,
    /// Where each element of a variable's value was written.
    spans: BTreeMap<String, Vec<Option<expand::Range>>>,
    exported: BTreeSet<String>,
    /// Where each variable was last assigned (`NAME=value`), for env reports.
    assigned: BTreeMap<String, expand::Range>,
    /// Positional parameters (`$1`...), inside functions.
    pub positional: Vec<Val>,
    /// `$0`: the script's path as given.
    pub script: String,
    /// The environment is complete (a benchmark's env contract): a variable that
    /// is not set expands to nothing, as in bash, instead of being unknown.
    pub complete_env: bool,
    functions: BTreeMap<String, Arc<ast::FunctionDefinition>>,
}

impl State {
    /// A variable's values (`None` when unset).
    pub fn get(&self, name: &str) -> Option<Vec<Val>> {
        self.vars.get(name).cloned()
    }

    /// Sets a scalar.
    pub fn set_scalar(&mut self, name: &str, v: Val) {
        self.vars.insert(name.to_string(), vec![v]);
        self.spans.remove(name);
        self.assigned.remove(name);
    }

    /// Where each element of a variable's value was written.
    pub fn spans_of(&self, name: &str) -> Vec<Option<expand::Range>> {
        self.spans.get(name).cloned().unwrap_or_default()
    }
}

/// Exit status of a command, statically.
#[derive(Debug, Clone, PartialEq)]
enum Status {
    Ok,
    Fail,
    Unknown(String),
}

fn status_of(b: bool) -> Status {
    if b { Status::Ok } else { Status::Fail }
}

/// What evaluating a script found.
#[derive(Debug, Default)]
pub struct Evaluation {
    /// Server launches, in order.
    pub launches: Vec<Launch>,
    /// Launches of engines recipe-drift does not resolve (`trtllm-serve`, ...), with
    /// where they are.
    pub unsupported: Vec<String>,
}

const STEP_LIMIT: usize = 200_000;

/// Commands and harness functions that only have side effects: skipped, and
/// assumed to succeed.
const SIDE_EFFECTS: &[&str] = &[
    "check_env_vars",
    "wait_for_server_ready",
    "wait_for_ready",
    "run_benchmark_serving",
    "start_gpu_monitor",
    "stop_gpu_monitor",
    "wait_for_amd_gpu_clean",
    "run_eval",
    "append_lm_eval_summary",
    "compute_eval_context_length",
    "write_command",
    "append_command",
    "stop_background_process_tree",
    "resolve_trace_source",
    "install_agentic_deps",
    "build_replay_cmd",
    "run_agentic_replay_and_write_outputs",
    "agentic_pip_install",
    "hf",
    "huggingface-cli",
    "pip",
    "nvidia-smi",
    "rocm-smi",
    "amd-smi",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "ln",
    "touch",
    "chmod",
    "echo",
    "printf",
    "tee",
    "cat",
    "sleep",
    "wait",
    "kill",
    "trap",
    "cd",
    "set",
    "shift",
    "ulimit",
];

struct Interp<'a> {
    source: &'a Arc<Source>,
    /// Where `bash other.sh` delegations are read from (disk, or a remote root).
    files: &'a dyn Files,
    char_to_byte: Vec<usize>,
    st: State,
    out: Evaluation,
    /// Reasons of the unknown conditions the current code runs under.
    conditions: Vec<String>,
    stopped: bool,
    returning: bool,
    /// `break` / `continue` seen inside a loop body.
    breaking: bool,
    continuing: bool,
    steps: usize,
    depth: usize,
    /// How many `bash other.sh` delegations led here.
    level: usize,
    /// Inside `$(...)`: the output written so far.
    capture: Option<String>,
    /// Inside `$(...)`: why the output is not knowable, if it is not.
    capture_unknown: Option<String>,
}

/// Evaluates a script with its environment (the benchmark's env contract).
pub fn evaluate(source: &Arc<Source>, env: &BTreeMap<String, String>) -> Result<Evaluation, Error> {
    evaluate_at(source, env, &BTreeMap::new(), 0, false, &LocalFiles)
}

/// Like [`evaluate`], reading the scripts it delegates to (`bash other.sh`)
/// through `files` (a remote script's siblings are remote too).
pub fn evaluate_in(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Evaluation, Error> {
    evaluate_at(source, env, &BTreeMap::new(), 0, false, files)
}

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
fn parse_guarded(source: &Arc<Source>) -> Result<ast::Program, Error> {
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
    let at = format!("{}:1:1", source.origin.label());
    let parsed = match rx.recv_timeout(PARSE_TIME_LIMIT) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            return Err(Error::Input {
                at,
                message: "bash syntax error: the parser cannot read this script".into(),
            });
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            return Err(Error::Input {
                at,
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
            at: format!("{}:{line}:{col}", source.origin.label()),
            message: format!("bash syntax error: {e}"),
        }
    })
}

/// Like [`evaluate`], with environment variables whose value is not knowable
/// (name -> reason), such as a machine's DRAM size.
/// The environment is then complete: variables it does not set are unset.
pub fn evaluate_with_unknowns(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
) -> Result<Evaluation, Error> {
    evaluate_at(source, env, unknown, 0, true, &LocalFiles)
}

/// Like [`evaluate_with_unknowns`], reading delegated scripts through `files`.
pub fn evaluate_with_unknowns_in(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Evaluation, Error> {
    evaluate_at(source, env, unknown, 0, true, files)
}

fn evaluate_at(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    level: usize,
    complete_env: bool,
    files: &dyn Files,
) -> Result<Evaluation, Error> {
    let program = parse_guarded(source)?;
    let mut st = State {
        script: source.origin.label(),
        complete_env,
        ..State::default()
    };
    for (k, v) in env {
        st.set_scalar(k, Val::Known(v.clone()));
        st.exported.insert(k.clone());
    }
    for (k, reason) in unknown {
        st.set_scalar(k, Val::Unknown(reason.clone()));
        st.exported.insert(k.clone());
    }
    let mut it = Interp::new(source, st, level, None, files);
    for cc in &program.complete_commands {
        it.list(cc)?;
        if it.stopped {
            break;
        }
    }
    Ok(it.out)
}

impl<'a> Interp<'a> {
    /// A fresh interpreter over a source, with a starting state.
    fn new(
        source: &'a Arc<Source>,
        st: State,
        level: usize,
        capture: Option<String>,
        files: &'a dyn Files,
    ) -> Self {
        let mut char_to_byte: Vec<usize> = source.text.char_indices().map(|(i, _)| i).collect();
        char_to_byte.push(source.text.len());
        Interp {
            source,
            files,
            char_to_byte,
            st,
            out: Evaluation::default(),
            conditions: Vec::new(),
            stopped: false,
            returning: false,
            breaking: false,
            continuing: false,
            steps: 0,
            depth: 0,
            level,
            capture,
            capture_unknown: None,
        }
    }

    fn byte(&self, p: &SourcePosition) -> usize {
        self.char_to_byte
            .get(p.index)
            .copied()
            .unwrap_or(self.source.text.len())
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::input(self.source.span(at, at), msg)
    }

    /// Byte range of a word (the parser's start is unreliable after `\` newlines).
    fn word_range(&self, w: &ast::Word, fallback: usize) -> (usize, usize) {
        match &w.loc {
            Some(l) => {
                let end = self.byte(&l.end);
                let start = end.saturating_sub(w.value.len());
                let start = if self.source.text.is_char_boundary(start) {
                    start
                } else {
                    self.byte(&l.start)
                };
                (start, end)
            }
            None => (fallback, fallback),
        }
    }

    /// Byte ranges of the elements of an array assignment written at `start..end`
    /// (the parser gives array elements no location).
    fn array_element_ranges(&self, start: usize, end: usize) -> Vec<expand::Range> {
        let text = &self.source.text[start..end];
        let Ok(tokens) = brush_parser::tokenize_str(text) else {
            return vec![];
        };
        let base_char = self.char_to_byte.partition_point(|&b| b < start);
        let mut out = Vec::new();
        let mut inside = false;
        for t in tokens {
            match t {
                brush_parser::Token::Operator(op, _) if op == "(" => inside = true,
                brush_parser::Token::Operator(op, _) if op == ")" => break,
                brush_parser::Token::Word(w, span) if inside => {
                    let e = self
                        .char_to_byte
                        .get(base_char + span.end.index)
                        .copied()
                        .unwrap_or(end);
                    out.push((e.saturating_sub(w.len()), e));
                }
                _ => {}
            }
        }
        out
    }

    /// A reason prefixed with the line of the construct it decides.
    fn at_line(&self, at: usize, reason: &str) -> String {
        if reason.starts_with("line ") {
            return reason.to_string();
        }
        format!("line {}: {reason}", self.source.line_col(at).line)
    }

    fn tick(&mut self, at: usize) -> Result<(), Error> {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return Err(self.err(at, "the script needs too many steps to evaluate statically"));
        }
        Ok(())
    }

    fn list(&mut self, cl: &CompoundList) -> Result<Status, Error> {
        let mut last = Status::Ok;
        for item in &cl.0 {
            if self.stopped || self.returning || self.breaking || self.continuing {
                break;
            }
            last = self.and_or(&item.0)?;
        }
        Ok(last)
    }

    fn and_or(&mut self, ao: &ast::AndOrList) -> Result<Status, Error> {
        let mut status = self.pipeline(&ao.first)?;
        for next in &ao.additional {
            if self.stopped || self.returning || self.breaking || self.continuing {
                break;
            }
            let (p, want) = match next {
                AndOr::And(p) => (p, true),
                AndOr::Or(p) => (p, false),
            };
            status = match status {
                Status::Ok if want => self.pipeline(p)?,
                Status::Fail if !want => self.pipeline(p)?,
                Status::Ok | Status::Fail => status,
                Status::Unknown(r) => {
                    // Runs or not: both outcomes, merged.
                    let before = self.fork();
                    self.conditions.push(r.clone());
                    let s = self.pipeline(p)?;
                    self.conditions.pop();
                    self.join(before, &r);
                    match s {
                        Status::Unknown(_) => s,
                        _ => Status::Unknown(r),
                    }
                }
            };
        }
        Ok(status)
    }

    /// Saves the state before a branch that may or may not run.
    fn fork(&self) -> (State, bool) {
        (self.st.clone(), self.stopped)
    }

    /// Merges the state after a maybe-branch with the state before it: a variable
    /// that differs becomes unknown for `reason`.
    fn join(&mut self, (before, was_stopped): (State, bool), reason: &str) {
        let after = std::mem::replace(&mut self.st, before);
        merge_into(&mut self.st, after, reason);
        if self.stopped && !was_stopped {
            // The branch may exit: what follows runs only if it did not.
            self.stopped = false;
            self.conditions
                .push(format!("the script may have exited ({reason})"));
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) -> Result<Status, Error> {
        let mut status = Status::Ok;
        let n = p.seq.len();
        for (i, c) in p.seq.iter().enumerate() {
            if n > 1 && i + 1 < n {
                // Earlier stages run in subshells.
                let saved = self.st.clone();
                self.command(c)?;
                self.st = saved;
            } else {
                status = self.command(c)?;
            }
        }
        if p.bang {
            status = match status {
                Status::Ok => Status::Fail,
                Status::Fail => Status::Ok,
                u => u,
            };
        }
        Ok(status)
    }

    fn command(&mut self, c: &Command) -> Result<Status, Error> {
        match c {
            Command::Simple(sc) => self.simple(sc),
            Command::Function(f) => {
                self.st
                    .functions
                    .insert(f.fname.value.clone(), Arc::new(f.clone()));
                Ok(Status::Ok)
            }
            Command::ExtendedTest(t, _) => self.ext_test(&t.expr),
            Command::Compound(cc, _) => self.compound(cc),
        }
    }

    fn compound(&mut self, cc: &CompoundCommand) -> Result<Status, Error> {
        match cc {
            CompoundCommand::BraceGroup(b) => self.list(&b.list),
            CompoundCommand::Subshell(s) => {
                let saved = self.st.clone();
                let r = self.list(&s.list);
                self.st = saved;
                self.stopped = false;
                r
            }
            CompoundCommand::IfClause(i) => {
                let mut branches: Vec<(Option<&CompoundList>, &CompoundList)> =
                    vec![(Some(&i.condition), &i.then)];
                for e in i.elses.iter().flatten() {
                    branches.push((e.condition.as_ref(), &e.body));
                }
                let at = self.byte(&i.loc.start);
                self.if_chain(&branches, at)
            }
            CompoundCommand::CaseClause(c) => self.case(c),
            CompoundCommand::Arithmetic(a) => {
                let at = self.byte(&a.loc.start);
                match expand::arith_text(&mut self.st, &a.expr.value) {
                    Ok(n) => Ok(status_of(n != 0)),
                    Err(r) if r.starts_with("cannot parse") => Err(self.err(at, r)),
                    Err(r) => Ok(Status::Unknown(r)),
                }
            }
            CompoundCommand::ForClause(f) => {
                let mut values = Vec::new();
                let mut unknown = None;
                for w in f.values.iter().flatten() {
                    for fl in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(0, m))? {
                        if let Some(r) = &fl.unknown {
                            unknown.get_or_insert(r.clone());
                        }
                        values.push(fl.text);
                    }
                }
                if let Some(r) = unknown {
                    let before = self.fork();
                    self.conditions.push(r.clone());
                    self.st
                        .set_scalar(&f.variable_name, Val::Unknown(r.clone()));
                    self.list(&f.body.list)?;
                    self.conditions.pop();
                    self.join(before, &r);
                    return Ok(Status::Ok);
                }
                for v in values.into_iter().take(10_000) {
                    self.st.set_scalar(&f.variable_name, Val::Known(v));
                    if !self.turn(&f.body.list)? {
                        break;
                    }
                }
                Ok(Status::Ok)
            }
            // Loops whose number of turns depends on running commands (waiting for a
            // server): the body may run any number of times, so what it assigns
            // is unknown afterwards and what it launches is conditional.
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let kind = if matches!(cc, CompoundCommand::WhileClause(_)) {
                    "while"
                } else {
                    "until"
                };
                let reason =
                    format!("set inside a `{kind}` loop, whose turns depend on running commands");
                self.maybe_run(&w.1.list, &reason)?;
                Ok(Status::Ok)
            }
            CompoundCommand::ArithmeticForClause(f) => self.arithmetic_for(f),
            // A coprocess runs in the background with its own copy of the state.
            CompoundCommand::Coprocess(_) => Ok(Status::Ok),
        }
    }

    /// One turn of a loop body; `false` when the loop ends here (`break`,
    /// `exit`, `return`).
    fn turn(&mut self, body: &CompoundList) -> Result<bool, Error> {
        self.list(body)?;
        self.continuing = false;
        if self.breaking {
            self.breaking = false;
            return Ok(false);
        }
        Ok(!(self.stopped || self.returning))
    }

    /// Runs a body that may run or not, any number of times: afterwards every
    /// variable it changes is unknown for `reason`.
    fn maybe_run(&mut self, body: &CompoundList, reason: &str) -> Result<(), Error> {
        let before = self.fork();
        self.conditions.push(reason.to_string());
        let r = self.list(body);
        self.conditions.pop();
        self.breaking = false;
        self.continuing = false;
        self.join(before, reason);
        r.map(|_| ())
    }

    /// `for ((init; cond; step))`: evaluated turn by turn with 64-bit integers
    /// (at most 10,000 turns); an unknown bound makes the body a maybe-run.
    fn arithmetic_for(&mut self, f: &ast::ArithmeticForClauseCommand) -> Result<Status, Error> {
        let at = self.byte(&f.loc.start);
        let eval = |this: &mut Self, e: &Option<ast::UnexpandedArithmeticExpr>| match e {
            None => Ok(Ok(1)),
            Some(x) => match expand::arith_text(&mut this.st, &x.value) {
                Ok(n) => Ok(Ok(n)),
                Err(r) if r.starts_with("cannot parse") => Err(this.err(at, r)),
                Err(r) => Ok(Err(r)),
            },
        };
        let unknown = |this: &mut Self, r: String| -> Result<Status, Error> {
            this.maybe_run(
                &f.body.list,
                &format!("set inside a `for ((...))` loop whose bound is not knowable: {r}"),
            )?;
            Ok(Status::Ok)
        };
        if let Err(r) = eval(self, &f.initializer)? {
            return unknown(self, r);
        }
        let mut turns = 0;
        loop {
            match eval(self, &f.condition)? {
                Ok(0) => break,
                Ok(_) => {}
                Err(r) => return unknown(self, r),
            }
            turns += 1;
            if turns > 10_000 {
                return Err(self.err(
                    at,
                    "this `for ((...))` loop runs more than 10,000 turns; it is not evaluated",
                ));
            }
            if !self.turn(&f.body.list)? {
                break;
            }
            if let Err(r) = eval(self, &f.updater)? {
                return unknown(self, r);
            }
        }
        Ok(Status::Ok)
    }

    fn if_chain(
        &mut self,
        branches: &[(Option<&CompoundList>, &CompoundList)],
        at: usize,
    ) -> Result<Status, Error> {
        let Some(((cond, body), rest)) = branches.split_first() else {
            return Ok(Status::Ok);
        };
        let status = match cond {
            None => return self.list(body),
            Some(c) => self.list(c)?,
        };
        match status {
            Status::Ok => self.list(body),
            Status::Fail => self.if_chain(rest, at),
            Status::Unknown(r) => {
                let r = self.at_line(at, &r);
                let before = self.st.clone();
                let was_stopped = self.stopped;
                self.conditions.push(r.clone());
                let s_then = self.list(body)?;
                let then_state = std::mem::replace(&mut self.st, before);
                let then_stopped = std::mem::replace(&mut self.stopped, was_stopped);
                let s_else = self.if_chain(rest, at)?;
                self.conditions.pop();
                let else_stopped = self.stopped;
                merge_into(&mut self.st, then_state, &r);
                self.stopped = then_stopped && else_stopped;
                if then_stopped != else_stopped {
                    self.conditions
                        .push(format!("the script may have exited ({r})"));
                }
                Ok(if s_then == s_else {
                    s_then
                } else {
                    Status::Unknown(r)
                })
            }
        }
    }

    fn case(&mut self, c: &ast::CaseClauseCommand) -> Result<Status, Error> {
        let v = expand_string(&mut self.st, &c.value.value).map_err(|m| self.err(0, m))?;
        let Val::Known(subject) = v else {
            let Val::Unknown(r) = v else { unreachable!() };
            let r = self.at_line(self.byte(&c.loc.start), &r);
            // Every branch may run.
            let start = self.st.clone();
            let mut merged: Option<State> = None;
            self.conditions.push(r.clone());
            for item in &c.cases {
                self.st = start.clone();
                if let Some(cmd) = &item.cmd {
                    self.list(cmd)?;
                }
                let s = std::mem::take(&mut self.st);
                merged = Some(match merged {
                    None => s,
                    Some(mut m) => {
                        merge_into(&mut m, s, &r);
                        m
                    }
                });
            }
            self.conditions.pop();
            let mut result = start;
            if let Some(m) = merged {
                merge_into(&mut result, m, &r);
            }
            self.st = result;
            return Ok(Status::Unknown(r));
        };
        for item in &c.cases {
            for p in &item.patterns {
                let pat = expand_string(&mut self.st, &p.value).map_err(|m| self.err(0, m))?;
                match pat {
                    Val::Known(pat) if glob_match(&pat, &subject) => {
                        return match &item.cmd {
                            Some(cmd) => self.list(cmd),
                            None => Ok(Status::Ok),
                        };
                    }
                    Val::Known(_) => {}
                    Val::Unknown(r) => {
                        return Err(self.err(0, format!("a case pattern is not knowable: {r}")));
                    }
                }
            }
        }
        Ok(Status::Ok)
    }

    fn str_of(&mut self, w: &ast::Word) -> Result<Val, Error> {
        expand_string(&mut self.st, &w.value).map_err(|m| {
            let at = w.loc.as_ref().map(|l| self.byte(&l.start)).unwrap_or(0);
            self.err(at, m)
        })
    }

    fn ext_test(&mut self, e: &ExtendedTestExpr) -> Result<Status, Error> {
        Ok(match e {
            ExtendedTestExpr::And(a, b) => match self.ext_test(a)? {
                Status::Fail => Status::Fail,
                Status::Ok => self.ext_test(b)?,
                u => match self.ext_test(b)? {
                    Status::Fail => Status::Fail,
                    _ => u,
                },
            },
            ExtendedTestExpr::Or(a, b) => match self.ext_test(a)? {
                Status::Ok => Status::Ok,
                Status::Fail => self.ext_test(b)?,
                u => match self.ext_test(b)? {
                    Status::Ok => Status::Ok,
                    _ => u,
                },
            },
            ExtendedTestExpr::Not(a) => match self.ext_test(a)? {
                Status::Ok => Status::Fail,
                Status::Fail => Status::Ok,
                u => u,
            },
            ExtendedTestExpr::Parenthesized(a) => self.ext_test(a)?,
            ExtendedTestExpr::UnaryTest(pred, w) => {
                let v = self.str_of(w)?;
                unary_test(pred, &v)
            }
            ExtendedTestExpr::BinaryTest(pred, a, b) => {
                let l = self.str_of(a)?;
                let r = self.str_of(b)?;
                binary_test(pred, &l, &r)
            }
        })
    }

    fn simple(&mut self, sc: &ast::SimpleCommand) -> Result<Status, Error> {
        let mut assigns: Vec<&ast::Assignment> = Vec::new();
        for it in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            if let CommandPrefixOrSuffixItem::AssignmentWord(a, _) = it {
                assigns.push(a);
            }
        }
        let at = sc
            .word_or_name
            .as_ref()
            .and_then(|w| w.loc.as_ref())
            .map(|l| self.byte(&l.start))
            .or_else(|| assigns.first().map(|a| self.byte(&a.loc.start)))
            .unwrap_or(0);
        self.tick(at)?;
        let Some(name_word) = &sc.word_or_name else {
            for a in assigns {
                self.assign(a, false)?;
            }
            return Ok(Status::Ok);
        };
        // Command words, each with its range in the source.
        let mut raw: Vec<(&ast::Word, Option<&ast::Assignment>)> = vec![(name_word, None)];
        for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match it {
                CommandPrefixOrSuffixItem::Word(w) => raw.push((w, None)),
                CommandPrefixOrSuffixItem::AssignmentWord(a, w) => raw.push((w, Some(a))),
                _ => {}
            }
        }
        let name = self.str_of(name_word)?;
        let builtin = match &name {
            Val::Known(n) => n.clone(),
            Val::Unknown(_) => String::new(),
        };
        match builtin.as_str() {
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let export = builtin == "export"
                    || raw
                        .iter()
                        .skip(1)
                        .any(|(w, _)| w.value.starts_with('-') && w.value.contains('x'));
                for (w, a) in raw.iter().skip(1) {
                    match a {
                        Some(a) => self.assign(a, export)?,
                        None if export && !w.value.starts_with('-') => {
                            self.st.exported.insert(w.value.clone());
                        }
                        None => {}
                    }
                }
                return Ok(Status::Ok);
            }
            "unset" => {
                for (w, _) in raw.iter().skip(1) {
                    if !w.value.starts_with('-') {
                        self.st.vars.remove(&w.value);
                        self.st.exported.remove(&w.value);
                    }
                }
                return Ok(Status::Ok);
            }
            "exit" => {
                if self.conditions.is_empty() || self.depth == 0 {
                    self.stopped = true;
                }
                return Ok(Status::Ok);
            }
            "return" => {
                self.returning = true;
                return Ok(Status::Ok);
            }
            "break" => {
                self.breaking = true;
                return Ok(Status::Ok);
            }
            "continue" => {
                self.continuing = true;
                return Ok(Status::Ok);
            }
            _ if self.capture.is_some()
                && !matches!(builtin.as_str(), "true" | ":" | "false" | "[" | "test")
                && !self.st.functions.contains_key(&builtin) =>
            {
                return self.captured_command(&raw, at);
            }
            ":" | "true" => {
                // Arguments are still expanded: `: "${X:=default}"` assigns.
                for (w, _) in raw.iter().skip(1) {
                    let range = self.word_range(w, at);
                    expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))?;
                }
                return Ok(Status::Ok);
            }
            "set" | "trap" | "echo" | "printf" | "cd" | "sleep" | "wait" | "kill" | "mkdir"
            | "rm" | "cp" | "mv" | "cat" | "tee" | "pip" | "hf" | "huggingface-cli"
            | "nvidia-smi" | "rocm-smi" | "amd-smi" => {
                return Ok(Status::Ok);
            }
            "false" => return Ok(Status::Fail),
            "source" | "." => return Ok(self.source_file(&raw)),
            _ => {}
        }
        // Expand every word.
        let mut fields: Vec<(Field, (usize, usize), Option<String>)> = Vec::new();
        for (w, _) in &raw {
            let range = self.word_range(w, at);
            let var = first_var(&w.value);
            for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))? {
                let r = f.span.unwrap_or(range);
                fields.push((f, r, var.clone()));
            }
        }
        let Some(first) = fields.first() else {
            return Ok(Status::Ok);
        };
        let head = first.0.text.clone();
        match head.as_str() {
            "[" | "test" => {
                let mut args: Vec<Val> = fields[1..]
                    .iter()
                    .map(|(f, _, _)| match &f.unknown {
                        Some(r) => Val::Unknown(r.clone()),
                        None => Val::Known(f.text.clone()),
                    })
                    .collect();
                if head == "[" && args.last() == Some(&Val::Known("]".into())) {
                    args.pop();
                }
                return Ok(test_args(&args));
            }
            "require_agentic_kv_offload_backend"
            | "require_agentic_kv_offload_none"
            | "agentic_kv_offload_enabled" => {
                let arg = fields
                    .get(1)
                    .map(|(f, _, _)| f.text.clone())
                    .unwrap_or_default();
                return Ok(self.harness_gate(&head, &arg));
            }
            "setup_eval_context" => {
                self.st.set_scalar(
                    "EVAL_MAX_MODEL_LEN",
                    Val::Unknown("set by setup_eval_context from the model config".into()),
                );
                self.st.exported.insert("EVAL_MAX_MODEL_LEN".into());
                return Ok(Status::Ok);
            }
            _ => {}
        }
        if let Some(f) = self.st.functions.get(&head).cloned() {
            return self.call(
                &f,
                &fields[1..]
                    .iter()
                    .map(|(f, _, _)| match &f.unknown {
                        Some(r) => Val::Unknown(r.clone()),
                        None => Val::Known(f.text.clone()),
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let before = self.out.launches.len() + self.out.unsupported.len();
        self.maybe_launch(&assigns, &fields, at)?;
        if self.out.launches.len() + self.out.unsupported.len() > before
            || SIDE_EFFECTS.contains(&head.as_str())
        {
            return Ok(Status::Ok);
        }
        // Another program: what it does is not evaluated, and neither is whether it
        // succeeds (which matters only where it is used as a condition).
        Ok(Status::Unknown(format!(
            "the exit status of `{}` is not knowable (commands are never run)",
            head.rsplit('/').next().unwrap_or(&head)
        )))
    }

    /// A command inside `$(...)`: its output, when it is one we can know.
    fn captured_command(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let mut args: Vec<String> = Vec::new();
        for (w, _) in raw {
            for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(at, m))? {
                if let Some(r) = f.unknown {
                    self.capture_unknown.get_or_insert(r);
                    return Ok(Status::Ok);
                }
                args.push(f.text);
            }
        }
        let head = args.first().cloned().unwrap_or_default();
        let out: Option<String> = match head.as_str() {
            "echo" => {
                let mut rest = &args[1..];
                let mut newline = true;
                while let Some(flag) = rest
                    .first()
                    .filter(|a| matches!(a.as_str(), "-n" | "-e" | "-E"))
                {
                    if flag == "-n" {
                        newline = false;
                    }
                    rest = &rest[1..];
                }
                Some(rest.join(" ") + if newline { "\n" } else { "" })
            }
            "printf" => args.get(1).and_then(|fmt| printf(fmt, &args[2..])),
            "seq" => seq(&args[1..]),
            "dirname" => args.get(1).map(|p| {
                let d = std::path::Path::new(p)
                    .parent()
                    .map(|d| d.display().to_string())
                    .filter(|d| !d.is_empty())
                    .unwrap_or_else(|| ".".into());
                d + "\n"
            }),
            "basename" => args.get(1).map(|p| {
                let b = p
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_string();
                let b = match args.get(2) {
                    Some(suffix) if b.ends_with(suffix.as_str()) && b != *suffix => {
                        b[..b.len() - suffix.len()].to_string()
                    }
                    _ => b,
                };
                b + "\n"
            }),
            _ => None,
        };
        match out {
            Some(o) => {
                if let Some(c) = self.conditions.last() {
                    self.capture_unknown.get_or_insert(format!(
                        "the output depends on a condition that is not knowable: {c}"
                    ));
                }
                if let Some(buf) = &mut self.capture {
                    buf.push_str(&o);
                }
            }
            None => {
                self.capture_unknown.get_or_insert(format!(
                    "the output of `{}` is not knowable (commands are never run)",
                    args.join(" ")
                ));
            }
        }
        Ok(Status::Ok)
    }

    fn source_file(&mut self, raw: &[(&ast::Word, Option<&ast::Assignment>)]) -> Status {
        let file = raw.get(1).map(|(w, _)| w.value.clone()).unwrap_or_default();
        if file.contains("benchmark_lib.sh") {
            // Modeled: the harness library exports a default port.
            if !self.st.vars.contains_key("PORT") {
                self.st.set_scalar("PORT", Val::Known("8888".into()));
            }
            self.st.exported.insert("PORT".into());
        }
        Status::Ok
    }

    fn harness_gate(&mut self, func: &str, backend: &str) -> Status {
        let get = |st: &State, n: &str| st.get(n).and_then(|v| v.into_iter().next());
        let offload = get(&self.st, "KV_OFFLOADING");
        let Some(Val::Known(offload)) = offload else {
            return Status::Unknown(format!(
                "{func} depends on KV_OFFLOADING, which is not set (give it with --env)"
            ));
        };
        match func {
            "agentic_kv_offload_enabled" => status_of(offload != "none"),
            "require_agentic_kv_offload_none" => {
                if offload != "none" {
                    self.stopped = true;
                }
                Status::Ok
            }
            _ => {
                if offload == "none" {
                    return Status::Fail;
                }
                let name = get(&self.st, "KV_OFFLOAD_BACKEND");
                let dram = get(&self.st, "TOTAL_CPU_DRAM_GB");
                match (name, dram) {
                    (Some(Val::Known(n)), Some(Val::Known(d)))
                        if offload == "dram"
                            && n == backend
                            && d.parse::<u64>().is_ok_and(|x| x > 0) =>
                    {
                        Status::Ok
                    }
                    // The runner sets the DRAM size from the machine: a positive
                    // integer by contract, its value unknown.
                    (Some(Val::Known(n)), Some(Val::Unknown(_)))
                        if offload == "dram" && n == backend =>
                    {
                        Status::Ok
                    }
                    (Some(Val::Known(_)), Some(Val::Known(_))) => {
                        self.stopped = true;
                        Status::Fail
                    }
                    _ => Status::Unknown(format!(
                        "{func} depends on KV_OFFLOAD_BACKEND/TOTAL_CPU_DRAM_GB, which are not set"
                    )),
                }
            }
        }
    }

    fn call(&mut self, f: &ast::FunctionDefinition, args: &[Val]) -> Result<Status, Error> {
        if self.depth > 50 {
            return Err(self.err(0, "functions recurse too deeply to evaluate statically"));
        }
        let saved = std::mem::replace(&mut self.st.positional, args.to_vec());
        self.depth += 1;
        let r = self.compound(&f.body.0);
        self.depth -= 1;
        self.returning = false;
        self.st.positional = saved;
        r
    }

    fn assign(&mut self, a: &ast::Assignment, export: bool) -> Result<(), Error> {
        let name = match &a.name {
            AssignmentName::VariableName(n) => n.clone(),
            AssignmentName::ArrayElementName(n, _) => {
                let at = self.byte(&a.loc.start);
                return Err(self.err(
                    at,
                    format!("assignment to an element of array {n} is not evaluated"),
                ));
            }
        };
        let at = self.byte(&a.loc.start);
        let end = self.byte(&a.loc.end);
        let (new, new_spans): (Vec<Val>, Vec<Option<expand::Range>>) = match &a.value {
            AssignmentValue::Scalar(w) => {
                let (v, span) = expand::expand_string_spanned(&mut self.st, &w.value)
                    .map_err(|m| self.err(at, m))?;
                // The value word has no location: it ends where the assignment ends.
                let written = (end.saturating_sub(w.value.len()), end);
                (vec![v], vec![Some(span.unwrap_or(written))])
            }
            AssignmentValue::Array(items) => {
                let element_ranges = self.array_element_ranges(at, end);
                let mut out = Vec::new();
                let mut spans = Vec::new();
                for (k, (_, w)) in items.iter().enumerate() {
                    let written = element_ranges.get(k).copied();
                    for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(at, m))? {
                        spans.push(f.span.or(written));
                        out.push(match f.unknown {
                            Some(r) => Val::Unknown(r),
                            None => Val::Known(f.text),
                        });
                    }
                }
                (out, spans)
            }
        };
        let mut spans = if a.append {
            self.st.spans_of(&name)
        } else {
            Vec::new()
        };
        let scalar_append = a.append && matches!(a.value, AssignmentValue::Scalar(_));
        if scalar_append {
            spans = vec![None];
        } else {
            let len = self.st.get(&name).map(|v| v.len()).unwrap_or(0);
            if a.append {
                spans.resize(len, None);
            }
            spans.extend(new_spans);
        }
        let value = if a.append {
            let mut cur = self.st.get(&name).unwrap_or_default();
            match (&a.value, cur.last_mut(), new.first()) {
                (AssignmentValue::Scalar(_), Some(Val::Known(c)), Some(Val::Known(n))) => {
                    c.push_str(n);
                    cur
                }
                (AssignmentValue::Scalar(_), Some(_), Some(u)) => vec![u.clone()],
                _ => {
                    cur.extend(new);
                    cur
                }
            }
        } else {
            new
        };
        self.st.vars.insert(name.clone(), value);
        self.st.spans.insert(name.clone(), spans);
        self.st.assigned.insert(name.clone(), (at, end));
        if export {
            self.st.exported.insert(name);
        }
        Ok(())
    }

    /// Evaluates a script run with `bash FILE`, relative to this script's folder,
    /// with the variables exported here plus `env K=V`.
    fn delegate(
        &mut self,
        target: &str,
        extra_env: &[(String, String, (usize, usize))],
        at: (usize, usize),
    ) -> Result<(), Error> {
        let Some(me) = Location::of_origin(&self.source.origin) else {
            return Err(self.err(
                at.0,
                format!("cannot locate {target}: this text is not a file"),
            ));
        };
        if self.level >= 8 {
            return Err(self.err(at.0, "scripts delegate to each other too deeply"));
        }
        let path = match (RemoteRef::parse(target), &me) {
            (Some(Ok(r)), _) => Location::Remote(r),
            (Some(Err(m)), _) => return Err(self.err(at.0, format!("`bash {target}`: {m}"))),
            (None, Location::Path(_)) => {
                let direct = std::path::PathBuf::from(target);
                if direct.is_file() {
                    Location::Path(direct)
                } else {
                    me.parent().join(target)
                }
            }
            // A remote script's siblings are remote: never a file on this disk.
            (None, Location::Remote(_)) => me.parent().join(target),
        };
        let source = self
            .files
            .read(&path)
            .map_err(|e| self.err(at.0, format!("`bash {target}`: {e}")))?;
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        for name in &self.st.exported {
            if let Some(Val::Known(v)) = self.st.get(name).and_then(|v| v.into_iter().next()) {
                env.insert(name.clone(), v);
            }
        }
        for (k, v, _) in extra_env {
            env.insert(k.clone(), v.clone());
        }
        let inner = evaluate_at(
            &source,
            &env,
            &BTreeMap::new(),
            self.level + 1,
            self.st.complete_env,
            self.files,
        )?;
        self.out.launches.extend(inner.launches);
        self.out.unsupported.extend(inner.unsupported);
        Ok(())
    }

    fn maybe_launch(
        &mut self,
        assigns: &[&ast::Assignment],
        fields: &[(Field, (usize, usize), Option<String>)],
        at: usize,
    ) -> Result<(), Error> {
        // Wrappers: exec, nohup, env K=V.
        let mut i = 0;
        let mut extra_env: Vec<(String, String, (usize, usize))> = Vec::new();
        let mut docker: Option<Vec<(String, (usize, usize))>> = None;
        let mut context = Context::default();
        loop {
            let Some((f, range, _)) = fields.get(i) else {
                return Ok(());
            };
            match f.text.as_str() {
                "exec" | "nohup" | "time" | "command" | "setsid" => i += 1,
                "sudo" | "uv" | "numactl" | "taskset" | "timeout" => {
                    // sudo [-E], uv run [opts], numactl/taskset/timeout [opts] ARG
                    let takes_arg = matches!(f.text.as_str(), "taskset" | "timeout");
                    i += 1;
                    if f.text == "uv" && fields.get(i).is_some_and(|(f, _, _)| f.text == "run") {
                        i += 1;
                    }
                    while fields
                        .get(i)
                        .is_some_and(|(f, _, _)| f.text.starts_with('-'))
                    {
                        i += 1;
                    }
                    if takes_arg {
                        i += 1;
                    }
                }
                "docker" | "podman"
                    if fields.get(i + 1).is_some_and(|(f, _, _)| f.text == "run") =>
                {
                    // Only `-e` reaches the container; the image gives version and platform.
                    let texts: Vec<&str> = fields[i + 2..]
                        .iter()
                        .map(|(f, _, _)| f.text.as_str())
                        .collect();
                    let parsed = crate::extract::command::docker_run_options(&texts);
                    docker = Some(
                        parsed
                            .env
                            .into_iter()
                            .map(|(v, at)| (v, fields[i + 2 + at].1))
                            .collect(),
                    );
                    i = match parsed.image {
                        Some(img) => i + 2 + img,
                        None => fields.len(),
                    };
                    if let Some((img, range, _)) = fields.get(i) {
                        let from = format!(
                            "image {} at {}",
                            img.text,
                            self.source.span(range.0, range.1)
                        );
                        context = Context::from_image(&img.text, &from);
                        i += 1;
                    }
                }
                "env" => {
                    i += 1;
                    while let Some((f, range, _)) = fields.get(i) {
                        match f.text.split_once('=') {
                            Some((k, v)) if !k.is_empty() && !k.starts_with('-') => {
                                extra_env.push((k.to_string(), v.to_string(), *range));
                                i += 1;
                            }
                            _ if f.text.starts_with('-') => i += 1,
                            _ => break,
                        }
                    }
                }
                _ => {
                    let _ = range;
                    break;
                }
            }
        }
        let words: Vec<&str> = fields[i..]
            .iter()
            .map(|(f, _, _)| f.text.as_str())
            .collect();
        let unknown_head = fields[i].0.unknown.is_some();
        let base = |s: &str| s.rsplit('/').next().unwrap_or("").to_string();
        let head = base(words[0]);
        // `bash other.sh` / `exec env K=V bash other.sh`: delegation to another script.
        if matches!(head.as_str(), "bash" | "sh")
            && let Some(target) = words.get(1)
            && target.ends_with(".sh")
        {
            if let Some(r) = &fields[i + 1].0.unknown {
                return Err(self.err(
                    fields[i + 1].1.0,
                    format!("cannot know which script `{head}` runs: {r}"),
                ));
            }
            return self.delegate(target, &extra_env, fields[i + 1].1);
        }
        let is_python = head.starts_with("python") || unknown_head;
        let Some(detected) = crate::launch::detect_launcher(&words, is_python) else {
            return Ok(());
        };
        let len = detected.len;
        let engine = match detected.starts {
            crate::launch::Starts::Engine(e) => e,
            crate::launch::Starts::Unsupported(name) => {
                let span = self.source.span(fields[i].1.0, fields[i].1.0);
                self.out.unsupported.push(format!(
                    "{span}: `{}` starts {name}, an engine recipe-drift does not resolve",
                    words[..len].join(" ")
                ));
                return Ok(());
            }
        };
        let token = |(f, (s, e), var): &(Field, (usize, usize), Option<String>)| Token {
            text: f.text.clone(),
            span: self.source.span(*s, *e),
            provenance: match (&f.unknown, var) {
                (Some(r), _) => Provenance::Unknown { reason: r.clone() },
                (None, Some(v)) => Provenance::Var { name: v.clone() },
                (None, None) => Provenance::Literal,
            },
        };
        let launcher: Vec<Token> = fields[i..i + len].iter().map(token).collect();
        let argv: Vec<Token> = fields[i + len..].iter().map(token).collect();
        let span_end = fields.last().map(|(_, r, _)| r.1).unwrap_or(at);
        let whole = self.source.span(at, span_end.max(at));
        // Environment: exported variables, then prefix assignments and `env K=V`;
        // inside `docker run`, only its `-e` variables.
        let mut env: Vec<EnvVar> = Vec::new();
        for name in &self.st.exported {
            if let Some(v) = self.st.get(name).and_then(|v| v.into_iter().next()) {
                // Where it was assigned (`export X=1`), else the launch.
                let span = match self.st.assigned.get(name) {
                    Some((s, e)) => self.source.span(*s, *e),
                    None => whole.clone(),
                };
                env.push(env_var(name, &v, span));
            }
        }
        for a in assigns {
            if let AssignmentName::VariableName(n) = &a.name
                && let AssignmentValue::Scalar(w) = &a.value
            {
                let s = self.byte(&a.loc.start);
                let v = expand_string(&mut self.st, &w.value).map_err(|m| self.err(s, m))?;
                env.retain(|e| &e.name != n);
                env.push(env_var(n, &v, self.source.span(s, self.byte(&a.loc.end))));
            }
        }
        if let Some(vars) = docker {
            let host = std::mem::take(&mut env);
            for (item, (s, e)) in vars {
                let span = self.source.span(s, e);
                match item.split_once('=') {
                    Some((k, v)) => {
                        env.retain(|x| x.name != k);
                        env.push(env_var(k, &Val::Known(v.to_string()), span));
                    }
                    None => {
                        let v = host
                            .iter()
                            .find(|h| h.name == item)
                            .map(|h| match &h.provenance {
                                Provenance::Unknown { reason } => Val::Unknown(reason.clone()),
                                _ => Val::Known(h.value.clone()),
                            })
                            .unwrap_or_else(|| {
                                Val::Unknown(format!(
                                    "`-e {item}` passes the host's {item}, which the script does not export (give it with --env {item}=...)"
                                ))
                            });
                        env.retain(|x| x.name != item);
                        env.push(env_var(&item, &v, span));
                    }
                }
            }
        }
        for (k, v, (s, e)) in extra_env {
            env.retain(|x| x.name != k);
            env.push(env_var(&k, &Val::Known(v), self.source.span(s, e)));
        }
        let mut launch = Launch {
            engine,
            launcher,
            argv,
            env,
            context,
            span: whole,
            source: self.source.clone(),
        };
        if let Some(r) = self.conditions.last() {
            // The whole launch depends on an unknown condition: its launcher says so.
            launch.launcher[0].provenance = Provenance::Unknown {
                reason: format!(
                    "this launch runs only under a condition that is not knowable: {r}"
                ),
            };
        }
        self.out.launches.push(launch);
        Ok(())
    }
}

fn env_var(name: &str, v: &Val, span: crate::source::Span) -> EnvVar {
    EnvVar {
        name: name.to_string(),
        value: v.text().to_string(),
        span,
        provenance: match v {
            Val::Known(_) => Provenance::Var {
                name: name.to_string(),
            },
            Val::Unknown(r) => Provenance::Unknown { reason: r.clone() },
        },
    }
}

/// The first variable a word expands, for provenance.
fn first_var(raw: &str) -> Option<String> {
    let i = raw.find('$')?;
    let rest = raw[i + 1..].trim_start_matches('{');
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Merges `other` into `into`: variables that differ become unknown for `reason`.
fn merge_into(into: &mut State, other: State, reason: &str) {
    let names: BTreeSet<String> = into.vars.keys().chain(other.vars.keys()).cloned().collect();
    for n in names {
        let a = into.vars.get(&n);
        let b = other.vars.get(&n);
        if a != b {
            into.vars.insert(
                n,
                vec![Val::Unknown(format!(
                    "depends on a condition that is not knowable: {reason}"
                ))],
            );
        }
    }
    into.exported.extend(other.exported);
    for (n, at) in other.assigned {
        into.assigned.entry(n).or_insert(at);
    }
    for (k, f) in other.functions {
        into.functions.entry(k).or_insert(f);
    }
}

/// `$(...)`: the inner commands are evaluated in a subshell whose output is
/// captured; `echo`, `printf`, `seq`, `dirname`, `basename` and `cat` of a heredoc
/// write known text, anything else makes the output unknown.
pub(crate) fn command_substitution(st: &mut State, cmd: &str) -> Option<Val> {
    let source = Arc::new(Source::new(
        crate::source::Origin::Inline("$(...)".into()),
        cmd.to_string(),
    ));
    let program = parse_guarded(&source).ok()?;
    // `cat <<EOF ... EOF`: the heredoc body, expanded unless its tag is quoted.
    if let Some(v) = heredoc_cat(st, &program) {
        return Some(v);
    }
    let mut it = Interp::new(&source, st.clone(), 0, Some(String::new()), &LocalFiles);
    for cc in &program.complete_commands {
        if it.list(cc).is_err() {
            return None;
        }
        if it.stopped {
            break;
        }
    }
    if let Some(r) = it.capture_unknown {
        return Some(Val::Unknown(r));
    }
    let out = it.capture.unwrap_or_default();
    Some(Val::Known(out.trim_end_matches('\n').to_string()))
}

fn heredoc_cat(st: &mut State, program: &ast::Program) -> Option<Val> {
    let [cc] = program.complete_commands.as_slice() else {
        return None;
    };
    let [item] = cc.0.as_slice() else {
        return None;
    };
    if !item.0.additional.is_empty() || item.0.first.seq.len() != 1 {
        return None;
    }
    let Command::Simple(sc) = &item.0.first.seq[0] else {
        return None;
    };
    if sc.word_or_name.as_ref()?.value != "cat" {
        return None;
    }
    for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
        if let CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereDocument(_, h)) = it {
            if !h.requires_expansion {
                return Some(Val::Known(h.doc.value.trim_end_matches('\n').to_string()));
            }
            let body = format!(
                "\"{}\"",
                h.doc.value.replace('\\', "\\\\").replace('"', "\\\"")
            );
            return expand_string(st, &body).ok().map(|v| match v {
                Val::Known(t) => Val::Known(t.trim_end_matches('\n').to_string()),
                u => u,
            });
        }
    }
    None
}

/// `printf FORMAT ARGS...` for `%s`, `%d`, `%f` (with width and precision), `%%`
/// and backslash escapes; the format is reused while arguments remain, as in bash.
fn printf(fmt: &str, args: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut i = 0;
    loop {
        let mut chars = fmt.chars().peekable();
        let mut used = 0;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('\\') => out.push('\\'),
                    Some(o) => {
                        out.push('\\');
                        out.push(o);
                    }
                    None => out.push('\\'),
                },
                '%' => {
                    // %[flags][width][.precision]conversion
                    let mut spec = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | ' ' | '#') {
                            spec.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    let conv = chars.next()?;
                    if conv == '%' {
                        out.push('%');
                        continue;
                    }
                    let left = spec.starts_with('-');
                    let zero = spec.trim_start_matches('-').starts_with('0');
                    let body = spec.trim_start_matches(['-', '+', ' ', '#', '0']);
                    let (width, prec) = match body.split_once('.') {
                        Some((w, p)) => (
                            w.parse::<usize>().unwrap_or(0),
                            Some(p.parse::<usize>().unwrap_or(0)),
                        ),
                        None => (body.parse::<usize>().unwrap_or(0), None),
                    };
                    let arg = args.get(i).map(String::as_str);
                    i += 1;
                    used += 1;
                    let text = match conv {
                        's' => {
                            let a = arg.unwrap_or("");
                            match prec {
                                Some(p) => a.chars().take(p).collect(),
                                None => a.to_string(),
                            }
                        }
                        'd' | 'i' => arg.unwrap_or("0").trim().parse::<i64>().ok()?.to_string(),
                        'f' => {
                            let v: f64 = arg.unwrap_or("0").trim().parse().ok()?;
                            format!("{:.*}", prec.unwrap_or(6), v)
                        }
                        _ => return None,
                    };
                    let pad = width.saturating_sub(text.chars().count());
                    if left {
                        out.push_str(&text);
                        out.push_str(&" ".repeat(pad));
                    } else if zero && conv != 's' {
                        out.push_str(&"0".repeat(pad));
                        out.push_str(&text);
                    } else {
                        out.push_str(&" ".repeat(pad));
                        out.push_str(&text);
                    }
                }
                c => out.push(c),
            }
        }
        if used == 0 || i >= args.len() {
            break;
        }
    }
    Some(out)
}

/// `seq [-s SEP] [FIRST [INCR]] LAST` over integers.
fn seq(args: &[String]) -> Option<String> {
    let mut sep = "\n".to_string();
    let mut rest: Vec<i64> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-s" {
            sep = args.get(i + 1)?.clone();
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("-s") {
            sep = v.to_string();
            i += 1;
            continue;
        }
        rest.push(a.trim().parse().ok()?);
        i += 1;
    }
    let (first, incr, last) = match rest.as_slice() {
        [l] => (1, 1, *l),
        [f, l] => (*f, 1, *l),
        [f, s, l] => (*f, *s, *l),
        _ => return None,
    };
    if incr == 0 || (last - first) / incr > 100_000 {
        return None;
    }
    let mut v = Vec::new();
    let mut x = first;
    while (incr > 0 && x <= last) || (incr < 0 && x >= last) {
        v.push(x.to_string());
        x += incr;
    }
    Some(v.join(&sep) + "\n")
}

fn unary_test(pred: &UnaryPredicate, v: &Val) -> Status {
    let Val::Known(t) = v else {
        let Val::Unknown(r) = v else { unreachable!() };
        return Status::Unknown(r.clone());
    };
    match pred {
        UnaryPredicate::StringHasZeroLength => status_of(t.is_empty()),
        UnaryPredicate::StringHasNonZeroLength => status_of(!t.is_empty()),
        other => Status::Unknown(format!("the test {other:?} on {t:?} needs the file system")),
    }
}

fn binary_test(pred: &BinaryPredicate, l: &Val, r: &Val) -> Status {
    let (Val::Known(a), Val::Known(b)) = (l, r) else {
        let reason = match (l, r) {
            (Val::Unknown(x), _) | (_, Val::Unknown(x)) => x.clone(),
            _ => unreachable!(),
        };
        return Status::Unknown(reason);
    };
    let num = |s: &str| s.trim().parse::<i64>().ok();
    match pred {
        BinaryPredicate::StringExactlyMatchesPattern => status_of(glob_match(b, a)),
        BinaryPredicate::StringDoesNotExactlyMatchPattern => status_of(!glob_match(b, a)),
        BinaryPredicate::StringExactlyMatchesString => status_of(a == b),
        BinaryPredicate::StringDoesNotExactlyMatchString => status_of(a != b),
        BinaryPredicate::StringContainsSubstring => status_of(a.contains(b.as_str())),
        BinaryPredicate::LeftSortsBeforeRight => status_of(a < b),
        BinaryPredicate::LeftSortsAfterRight => status_of(a > b),
        BinaryPredicate::ArithmeticEqualTo
        | BinaryPredicate::ArithmeticNotEqualTo
        | BinaryPredicate::ArithmeticLessThan
        | BinaryPredicate::ArithmeticLessThanOrEqualTo
        | BinaryPredicate::ArithmeticGreaterThan
        | BinaryPredicate::ArithmeticGreaterThanOrEqualTo => match (num(a), num(b)) {
            (Some(x), Some(y)) => status_of(match pred {
                BinaryPredicate::ArithmeticEqualTo => x == y,
                BinaryPredicate::ArithmeticNotEqualTo => x != y,
                BinaryPredicate::ArithmeticLessThan => x < y,
                BinaryPredicate::ArithmeticLessThanOrEqualTo => x <= y,
                BinaryPredicate::ArithmeticGreaterThan => x > y,
                _ => x >= y,
            }),
            _ => Status::Unknown(format!("{a:?} or {b:?} is not an integer")),
        },
        BinaryPredicate::StringMatchesRegex => match regex::Regex::new(b) {
            Ok(re) => status_of(re.is_match(a)),
            Err(_) => Status::Unknown(format!("the regular expression {b:?} is not supported")),
        },
        _ => Status::Unknown("file tests need the file system".into()),
    }
}

/// `[ ... ]` / `test ...` over expanded arguments.
fn test_args(args: &[Val]) -> Status {
    let k = |v: &Val| match v {
        Val::Known(t) => Some(t.clone()),
        Val::Unknown(_) => None,
    };
    let unknown = || {
        args.iter()
            .find_map(|v| match v {
                Val::Unknown(r) => Some(r.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "this test is not evaluated".into())
    };
    // -a / -o split, lowest precedence first.
    if let Some(i) = args.iter().position(|a| a == &Val::Known("-o".into())) {
        return match (test_args(&args[..i]), test_args(&args[i + 1..])) {
            (Status::Ok, _) | (_, Status::Ok) => Status::Ok,
            (Status::Fail, Status::Fail) => Status::Fail,
            (Status::Unknown(r), _) | (_, Status::Unknown(r)) => Status::Unknown(r),
        };
    }
    if let Some(i) = args.iter().position(|a| a == &Val::Known("-a".into())) {
        return match (test_args(&args[..i]), test_args(&args[i + 1..])) {
            (Status::Fail, _) | (_, Status::Fail) => Status::Fail,
            (Status::Ok, Status::Ok) => Status::Ok,
            (Status::Unknown(r), _) | (_, Status::Unknown(r)) => Status::Unknown(r),
        };
    }
    if args.first() == Some(&Val::Known("!".into())) {
        return match test_args(&args[1..]) {
            Status::Ok => Status::Fail,
            Status::Fail => Status::Ok,
            u => u,
        };
    }
    match args {
        [] => Status::Fail,
        [a] => match k(a) {
            Some(t) => status_of(!t.is_empty()),
            None => Status::Unknown(unknown()),
        },
        [op, a] => match (k(op).as_deref(), k(a)) {
            (Some("-z"), Some(t)) => status_of(t.is_empty()),
            (Some("-n"), Some(t)) => status_of(!t.is_empty()),
            (Some(_), Some(_)) => Status::Unknown("file tests need the file system".into()),
            _ => Status::Unknown(unknown()),
        },
        [a, op, b] => {
            let (Some(a), Some(op), Some(b)) = (k(a), k(op), k(b)) else {
                return Status::Unknown(unknown());
            };
            let num = |s: &str| s.trim().parse::<i64>().ok();
            match op.as_str() {
                "=" | "==" => status_of(a == b),
                "!=" => status_of(a != b),
                "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => match (num(&a), num(&b)) {
                    (Some(x), Some(y)) => status_of(match op.as_str() {
                        "-eq" => x == y,
                        "-ne" => x != y,
                        "-lt" => x < y,
                        "-le" => x <= y,
                        "-gt" => x > y,
                        _ => x >= y,
                    }),
                    _ => Status::Unknown(format!("{a:?} or {b:?} is not an integer")),
                },
                _ => Status::Unknown(format!("the test operator {op} is not evaluated")),
            }
        }
        _ => Status::Unknown("this test is not evaluated".into()),
    }
}

#[cfg(test)]
mod tests;
