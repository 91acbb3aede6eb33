//! The statement walker: lists, `&&`/`||`, pipelines, compound commands
//! (`if`, `case`, loops, subshells) and `[[ ... ]]`, forking and merging the
//! state where a condition is not knowable.

use std::collections::BTreeSet;
use std::sync::Arc;

use brush_parser::SourcePosition;
use brush_parser::ast::{
    self, AndOr, BinaryPredicate, Command, CompoundCommand, CompoundList, ExtendedTestExpr,
    SourceLocation,
};

use super::budget;
use super::conditions::{binary_test, unary_test};
use super::expand::{self, Val, expand_fields, expand_pattern, expand_string};
use super::glob::pattern_match;
use super::{Evaluation, Flow, Interp, State, Status, status_of};
use crate::error::Error;
use crate::files::Files;

/// How the condition an `exit` that may or may not have run puts on what
/// follows it starts: nothing after it runs if it did.
pub(super) const MAY_HAVE_EXITED: &str = "the script may have exited";
use crate::span::Source;

/// Turns a `while` / `until` / `for` loop is evaluated for before it is taken
/// to possibly never end (what follows it becomes conditional): the
/// `loop-turns` budget.
fn loop_turns() -> usize {
    budget::budget().max_loop_turns
}

/// How many steps one loop may take before it is taken to possibly never end
/// (a quarter of the `steps` budget, so the rest of the script still fits).
fn loop_steps() -> usize {
    budget::budget().max_steps / 4
}

impl<'a> Interp<'a> {
    /// A fresh interpreter over a source, with a starting state.
    pub(super) fn new(
        source: &'a Arc<Source>,
        st: State,
        level: usize,
        capture: Option<String>,
        files: &'a dyn Files,
    ) -> Self {
        Self::with_index(source, index_of(source), st, level, capture, files)
    }

    /// Like [`Self::new`], with the text's character index given.
    pub(super) fn with_index(
        source: &'a Arc<Source>,
        char_to_byte: Arc<Vec<usize>>,
        st: State,
        level: usize,
        capture: Option<String>,
        files: &'a dyn Files,
    ) -> Self {
        let mut st = st;
        st.here = Some(source.clone());
        if st.start_dir.is_none()
            && let crate::span::Origin::File(path) = &source.origin
        {
            st.start_dir = Some(crate::files::repository_root(path).display().to_string());
        }
        if st.script_dir.is_none()
            && let crate::span::Origin::File(path) = &source.origin
        {
            st.script_dir = Some(
                path.parent()
                    .unwrap_or(std::path::Path::new(""))
                    .to_path_buf(),
            );
        }
        Interp {
            source,
            script: source.clone(),
            files,
            char_to_byte,
            st,
            out: Evaluation::default(),
            conditions: Vec::new(),
            flow: Vec::new(),
            maybe_broke: None,
            stopped: false,
            returning: false,
            breaking: false,
            continuing: false,
            depth: 0,
            last_status: Status::Ok,
            errexit_ignored: 0,
            abort_only: false,
            frames: Vec::new(),
            loops: 0,
            jump_levels: 0,
            evals: 0,
            stdin: None,
            stdin_file: None,
            assumed: None,
            sourcing: 0,
            aliasing: Vec::new(),
            reading_end: 0,
            frame_options: Vec::new(),
            level,
            capture,
            capture_unknown: None,
        }
    }

    pub(super) fn byte(&self, p: &SourcePosition) -> usize {
        self.char_to_byte
            .get(p.index)
            .copied()
            .unwrap_or(self.source.text.len())
    }

    pub(super) fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::input(self.source.span(at, at), msg)
    }

    /// Byte range of a word (the parser's start is unreliable after `\` newlines).
    pub(super) fn word_range(&self, w: &ast::Word, fallback: usize) -> (usize, usize) {
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
    pub(super) fn array_element_ranges(&self, start: usize, end: usize) -> Vec<expand::Range> {
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

    /// Counts one step of the evaluation against the budgets.
    pub(super) fn tick(&mut self, at: usize) -> Result<(), Error> {
        budget::step().map_err(|m| self.err(at, m))
    }

    pub(super) fn list(&mut self, cl: &CompoundList) -> Result<Status, Error> {
        budget::stack(|| self.list_inner(cl))
    }

    fn list_inner(&mut self, cl: &CompoundList) -> Result<Status, Error> {
        let mut last = Status::Ok;
        for item in &cl.0 {
            if self.stopped || self.returning || self.breaking || self.continuing {
                break;
            }
            last = match item.1 {
                ast::SeparatorOperator::Sequence => self.and_or(&item.0)?,
                ast::SeparatorOperator::Async => self.background(&item.0)?,
            };
            if self.st.aborted.is_some() || self.st.may_abort.is_some() {
                let at = item
                    .0
                    .first
                    .location()
                    .map(|l| self.byte(&l.start))
                    .unwrap_or(0);
                if let Some(s) = self.nounset_check(at) {
                    last = s;
                }
            }
        }
        Ok(last)
    }

    /// `CMD &`: runs in a subshell of its own (launches in it are launches),
    /// its status is 0, and nothing it does (assignments, `exit`, `exec`, a
    /// failure under `set -e`) reaches the script.
    fn background(&mut self, ao: &ast::AndOrList) -> Result<Status, Error> {
        self.in_background(|this| this.and_or(ao))
    }

    /// Runs `run` as a background command (`CMD &`, `coproc CMD`): in a
    /// copy of the state, nothing of which but the files written reaches
    /// the script; the status is 0.
    fn in_background(
        &mut self,
        run: impl FnOnce(&mut Self) -> Result<Status, Error>,
    ) -> Result<Status, Error> {
        let saved = (self.st.clone(), self.stopped, self.flags());
        let conditions = self.conditions.len();
        let flow = self.flow.len();
        self.errexit_ignored += 1;
        let r = run(self);
        self.errexit_ignored -= 1;
        r?;
        // Files it writes are written (when, is not knowable: a text it
        // wrote is not known to be there yet).
        let touched = std::mem::take(&mut self.st.touched);
        (self.st, self.stopped) = (saved.0, saved.1);
        let before = std::mem::replace(&mut self.st.touched, touched);
        self.st.touched.merge(&before);
        [self.breaking, self.continuing, self.returning] = saved.2;
        // `$?` after `CMD &` is 0.
        self.last_status = Status::Ok;
        self.assumed = None;
        self.conditions.truncate(conditions);
        self.flow.truncate(flow);
        Ok(Status::Ok)
    }

    fn and_or(&mut self, ao: &ast::AndOrList) -> Result<Status, Error> {
        let n = ao.additional.len();
        let mut status = self.pipeline_in_list(&ao.first, n == 0)?;
        for (k, next) in ao.additional.iter().enumerate() {
            if self.stopped || self.returning || self.breaking || self.continuing {
                break;
            }
            let last = k + 1 == n;
            let (p, want) = match next {
                AndOr::And(p) => (p, true),
                AndOr::Or(p) => (p, false),
            };
            status = match status {
                Status::Ok if want => self.pipeline_in_list(p, last)?,
                Status::Fail if !want => self.pipeline_in_list(p, last)?,
                Status::Ok | Status::Fail => status,
                Status::Unknown(r) => {
                    // Runs or not: both outcomes, merged.
                    let before = self.fork();
                    let n = self.conditions.len();
                    self.conditions.push(r.clone());
                    let s = self.pipeline_in_list(p, last)?;
                    self.conditions.remove(n);
                    self.join(before, &r);
                    match s {
                        Status::Unknown(_) => s,
                        _ => Status::Unknown(r),
                    }
                }
            };
        }
        self.last_status = status.clone();
        Ok(status)
    }

    /// One pipeline of an `&&` / `||` list. Only the `last` one is subject to
    /// `set -e` (bash ignores failures of the others): a known failure there
    /// ends the script.
    fn pipeline_in_list(&mut self, p: &ast::Pipeline, last: bool) -> Result<Status, Error> {
        if !last {
            self.errexit_ignored += 1;
        }
        let status = self.pipeline(p);
        if !last {
            self.errexit_ignored -= 1;
        }
        let status = status?;
        self.last_status = status.clone();
        if last && status == Status::Fail && self.errexit_applies(p) {
            (self.stopped, self.abort_only) = (true, false);
        }
        Ok(status)
    }

    /// Whether `set -e` ends the script when `p` fails: it is on, not ignored
    /// here (conditions, `&&`/`||` operands, functions called from them), not
    /// inside `$(...)` (which does not inherit it), not negated with `!`, and
    /// the failure is the pipeline's own (a simple command, a subshell, a test),
    /// not that of a compound command whose inner commands were checked already.
    fn errexit_applies(&self, p: &ast::Pipeline) -> bool {
        self.st.errexit
            && self.errexit_ignored == 0
            && self.capture.is_none()
            && !p.bang
            && matches!(
                p.seq.last(),
                Some(
                    Command::Simple(_)
                        | Command::ExtendedTest(..)
                        | Command::Compound(
                            CompoundCommand::Subshell(_) | CompoundCommand::Arithmetic(_),
                            _
                        )
                )
            )
    }

    /// A condition list (`if`, `while`, `until`): `set -e` does not apply in it.
    fn test_list(&mut self, c: &CompoundList) -> Result<Status, Error> {
        self.errexit_ignored += 1;
        let r = self.list(c);
        self.errexit_ignored -= 1;
        r
    }

    /// After an expansion under `set -u`: a variable that is not set ends
    /// the script (`Some`: the command does not run); one that may not be
    /// set makes what follows conditional.
    pub(super) fn nounset_check(&mut self, at: usize) -> Option<Status> {
        if let Some(r) = self.st.may_abort.take() {
            let line = self.source.line_col(at).line;
            self.conditions.push(format!(
                "line {line}: under `set -u` the script ends here unless {r}: what follows runs only if it does not"
            ));
        }
        let r = self.st.aborted.take()?;
        let _ = r;
        (self.stopped, self.abort_only) = (true, false);
        Some(Status::Fail)
    }

    /// Saves the state before a branch that may or may not run.
    fn fork(&self) -> (State, bool) {
        (self.st.clone(), self.stopped)
    }

    /// The innermost condition the current code runs under, if any.
    pub(super) fn condition(&self) -> Option<&String> {
        self.conditions
            .last()
            .or_else(|| self.flow.last().map(|(_, r, _)| r))
    }

    /// The `break` / `continue` / `return` flags.
    pub(super) fn flags(&self) -> [bool; 3] {
        [self.breaking, self.continuing, self.returning]
    }

    /// After outcomes of which one runs, not knowably which (`reason`): a
    /// jump taken in `all` of them is taken; one taken in only some of them
    /// (`taken`) is not, and what follows it runs under a condition.
    fn settle_flow(&mut self, taken: [bool; 3], all: [bool; 3], reason: &str) {
        let kinds = [
            (Flow::Break, "break"),
            (Flow::Continue, "continue"),
            (Flow::Return, "return"),
        ];
        let mut set = [false; 3];
        for (i, (flow, word)) in kinds.into_iter().enumerate() {
            set[i] = all[i];
            if taken[i] && !all[i] {
                self.flow.push((
                    flow,
                    format!("a `{word}` before this may have run ({reason})"),
                    reason.to_string(),
                ));
            }
        }
        [self.breaking, self.continuing, self.returning] = set;
    }

    /// Merges the state after a maybe-branch with the state before it: a variable
    /// that differs becomes unknown for `reason`.
    fn join(&mut self, (before, was_stopped): (State, bool), reason: &str) {
        let taken = self.flags();
        self.settle_flow(taken, [false; 3], reason);
        let after = std::mem::replace(&mut self.st, before);
        merge_into(&mut self.st, after, reason);
        if self.stopped && !was_stopped {
            // The branch may exit: what follows runs only if it did not.
            self.stopped = false;
            self.conditions
                .push(format!("{MAY_HAVE_EXITED} ({reason})"));
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) -> Result<Status, Error> {
        let n = p.seq.len();
        let was_stopped = self.stopped;
        let pipefail = self.st.pipefail;
        let mut statuses = Vec::with_capacity(n);
        // `shopt -s lastpipe`: the last command runs in this shell.
        let lastpipe = self.st.shopt.contains("lastpipe");
        // What the previous stage wrote, when it is `echo` / `printf`: the
        // standard input of the next (what `read` reads).
        let mut piped: Option<Val> = None;
        // A `cat FILE` stage gives the next the file itself (`cat x.sh |
        // bash` reads x.sh as `bash < x.sh` does).
        let mut piped_file: Option<(ast::Word, usize)> = None;
        for (k, c) in p.seq.iter().enumerate() {
            let writes = n > 1 && k + 1 < n && writes_known_text(c);
            if n > 1 {
                // A single command keeps the input it was given.
                self.stdin = piped.take();
                self.stdin_file = piped_file.take();
            }
            if n > 1 && k + 1 < n {
                piped_file = cat_operand(c).map(|w| {
                    let at = self.word_range(&w, 0).0;
                    (w, at)
                });
            }
            let saved_capture = writes.then(|| {
                (
                    self.capture.replace(String::new()),
                    self.capture_unknown.take(),
                )
            });
            let status = if n > 1 && !(lastpipe && k + 1 == n) {
                // Every stage of a pipeline runs in a subshell (bash's default,
                // without `lastpipe`): what it assigns, and its `exit` or
                // `exec`, end with it.
                let saved = (self.st.clone(), self.flags());
                let status = self.command(c);
                // The files it writes stay written.
                let touched = std::mem::take(&mut self.st.touched);
                self.st = saved.0;
                self.st.touched = touched;
                [self.breaking, self.continuing, self.returning] = saved.1;
                self.stopped = was_stopped;
                status
            } else {
                self.command(c)
            };
            if let Some((capture, unknown)) = saved_capture {
                let out = std::mem::replace(&mut self.capture, capture);
                let why = std::mem::replace(&mut self.capture_unknown, unknown);
                piped = Some(match (why, out) {
                    (Some(r), _) => Val::Unknown(r),
                    (None, o) => Val::Known(o.unwrap_or_default()),
                });
            }
            if n > 1 {
                self.stdin = None;
                self.stdin_file = None;
            }
            statuses.push(status?);
        }
        let last = statuses.pop().unwrap_or(Status::Ok);
        // `set -o pipefail`: the last failure, else the first unknown, else 0.
        let mut status = last.clone();
        if pipefail && last != Status::Fail {
            if statuses.contains(&Status::Fail) {
                status = Status::Fail;
            } else if last == Status::Ok
                && let Some(u) = statuses.into_iter().find(|s| *s != Status::Ok)
            {
                status = u;
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

    /// Runs one command; what the `$(...)` texts in it started is reported
    /// with it, under the conditions it runs under.
    fn command(&mut self, c: &Command) -> Result<Status, Error> {
        let at = c.location().map(|l| self.byte(&l.start)).unwrap_or(0);
        let outer = self.st.place.replace(self.source.place(at));
        let r = self.command_itself(c);
        self.st.place = outer;
        if let Some(found) = self.st.inside.take() {
            for mut launch in found.launches {
                if let Some(r) = self.condition()
                    && !matches!(
                        launch.launcher[0].provenance,
                        crate::launch::Provenance::Unknown { .. }
                    )
                {
                    launch.launcher[0].provenance = crate::launch::Provenance::Unknown {
                        reason: format!(
                            "this launch runs only under a condition that is not knowable: {r}"
                        ),
                    };
                }
                self.out.launches.push(launch);
            }
            self.out.unsupported.extend(found.unsupported);
            self.out.auxiliary.extend(found.auxiliary);
        }
        r
    }

    fn command_itself(&mut self, c: &Command) -> Result<Status, Error> {
        // `$?` in this command is the status of the one before it; a
        // success the evaluation only assumed is not knowable.
        self.st.last = Some(match (&self.last_status, &self.assumed) {
            (Status::Ok, Some(what)) => Status::Unknown(format!(
                "the exit status of `{what}` is not knowable (commands are never run; the evaluation goes on as if it succeeded)"
            )),
            (s, _) => s.clone(),
        });
        if !matches!(c, Command::Simple(_)) {
            // Simple commands count themselves; this counts loop turns of
            // bodies without one (`((i++))`).
            let at = c.location().map(|l| self.byte(&l.start)).unwrap_or(0);
            self.tick(at)?;
        }
        match c {
            Command::Simple(sc) => {
                // Redirections are opened before the command runs.
                let at = sc
                    .word_or_name
                    .as_ref()
                    .and_then(|w| w.loc.as_ref())
                    .map(|l| self.byte(&l.start))
                    .unwrap_or(0);
                let redirects: Vec<&ast::IoRedirect> = super::stdout::redirects_of(sc).collect();
                if !redirects.is_empty() {
                    self.note_redirects(redirects.iter().copied(), at)?;
                    self.note_written_text(sc, at);
                }
                self.process_substitution_words(sc)?;
                let exec_alone = sc.word_or_name.as_ref().is_some_and(|w| w.value == "exec")
                    && !sc
                        .suffix
                        .iter()
                        .flat_map(|s| s.0.iter())
                        .any(|it| matches!(it, ast::CommandPrefixOrSuffixItem::Word(_)));
                if exec_alone {
                    self.exec_redirects(sc);
                }
                // Where its output is read, its redirections decide whether
                // what it writes is part of it.
                self.with_stdout(redirects.into_iter(), |it| it.simple(sc))
            }
            Command::Compound(cc, Some(list)) => {
                let at = c.location().map(|l| self.byte(&l.start)).unwrap_or(0);
                self.note_redirects(list.0.iter(), at)?;
                self.with_stdout(list.0.iter(), |it| it.compound(cc))
            }
            Command::Function(f) => {
                self.st.functions.insert(
                    f.fname.value.clone(),
                    Arc::new(super::Function {
                        def: f.clone(),
                        source: self.source.clone(),
                        index: self.char_to_byte.clone(),
                    }),
                );
                Ok(Status::Ok)
            }
            Command::ExtendedTest(t, _) => match self.bash_only("[[", 0) {
                Some(s) => Ok(s),
                None => self.ext_test(&t.expr),
            },
            Command::Compound(cc, _) => self.compound(cc),
        }
    }

    pub(super) fn compound(&mut self, cc: &CompoundCommand) -> Result<Status, Error> {
        match cc {
            CompoundCommand::BraceGroup(b) => self.list(&b.list),
            CompoundCommand::Subshell(s) => {
                let saved = self.st.clone();
                let r = self.list(&s.list);
                // The files it writes stay written.
                let touched = std::mem::take(&mut self.st.touched);
                self.st = saved;
                self.st.touched = touched;
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
                    // A budget exceeded while evaluating it: that is the error.
                    Err(_) if let Some(m) = budget::tripped() => Err(self.err(at, m)),
                    Err(r) if r.starts_with("cannot parse") => Err(self.err(at, r)),
                    Err(r) => Ok(Status::Unknown(r)),
                }
            }
            CompoundCommand::ForClause(f) => {
                if self.st.is_readonly(&f.variable_name) {
                    // bash: "readonly variable", the loop does not run.
                    return Ok(Status::Fail);
                }
                let at = self.byte(&f.loc.start);
                let mut values = Vec::new();
                let mut unknown = None;
                match &f.values {
                    Some(words) => {
                        for w in words {
                            for fl in expand_fields(&mut self.st, &w.value)
                                .map_err(|m| self.err(at, m))?
                            {
                                if let Some(r) = &fl.unknown {
                                    unknown.get_or_insert(r.clone());
                                }
                                values.push(fl.text);
                            }
                        }
                    }
                    // `for NAME; do`: over the positional parameters.
                    None => {
                        for v in &self.st.positional {
                            match v {
                                Val::Known(t) => values.push(t.clone()),
                                Val::Unknown(r) => {
                                    unknown.get_or_insert(r.clone());
                                }
                            }
                        }
                    }
                }
                // `select NAME in WORDS` (read as a `for`, see the parser):
                // it prints a menu of WORDS and reads the choices from
                // standard input, which is not knowable: the body may run
                // any number of times, with NAME and REPLY unknown.
                if self.source.text[at..].starts_with("select") {
                    let line = self.source.line_col(at).line;
                    let r = format!(
                        "line {line}: the `select` loop reads its choices from standard input, which is not knowable"
                    );
                    self.st
                        .set_scalar(&f.variable_name, Val::Unknown(r.clone()));
                    self.st.set_scalar("REPLY", Val::Unknown(r.clone()));
                    self.maybe_run(&f.body.list, &r)?;
                    return Ok(Status::Ok);
                }
                if let Some(r) = unknown {
                    self.st
                        .set_scalar(&f.variable_name, Val::Unknown(r.clone()));
                    self.maybe_run(&f.body.list, &r)?;
                    return Ok(Status::Ok);
                }
                let n = values.len();
                let max = loop_turns();
                if n > max {
                    // Not evaluated turn by turn: any turn may run.
                    let line = self.source.line_col(at).line;
                    let r = format!(
                        "line {line}: the `for` loop has {n} values, more than the {max} turns a loop is evaluated for (the loop-turns budget, raised with --bash-budget loop-turns=N)"
                    );
                    self.st
                        .set_scalar(&f.variable_name, Val::Unknown(r.clone()));
                    self.maybe_run(&f.body.list, &r)?;
                    return Ok(Status::Ok);
                }
                for (k, v) in values.into_iter().enumerate() {
                    self.st.set_scalar(&f.variable_name, Val::Known(v));
                    self.maybe_broke = None;
                    if !self.turn(&f.body.list)? {
                        break;
                    }
                    if let Some(r) = self.maybe_broke.take() {
                        // The other turns may run or not.
                        if k + 1 < n {
                            self.st.set_scalar(
                                &f.variable_name,
                                Val::Unknown(format!(
                                    "the `for` loop may have ended at a `break` ({r})"
                                )),
                            );
                            self.maybe_run(&f.body.list, &r)?;
                        }
                        break;
                    }
                }
                Ok(Status::Ok)
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let until = matches!(cc, CompoundCommand::UntilClause(_));
                let at = self.byte(&w.2.start);
                self.while_loop(&w.0, &w.1.list, until, at)
            }
            CompoundCommand::ArithmeticForClause(f) => self.arithmetic_for(f),
            // `coproc [NAME] CMD`: CMD runs in the background; NAME (the
            // descriptors bash opens, `COPROC` by default) and NAME_PID are
            // not knowable.
            CompoundCommand::Coprocess(c) => {
                self.in_background(|this| this.command(&c.body))?;
                let name = c.name.as_ref().map_or("COPROC", |w| w.value.as_str());
                let line = c.location().map(|l| l.start.line).unwrap_or(0);
                for n in [name.to_string(), format!("{name}_PID")] {
                    self.st.set_scalar(
                        &n,
                        Val::Unknown(format!(
                            "${n} is set by the `coproc` on line {line} to descriptors or a process id bash picks, which are not knowable"
                        )),
                    );
                }
                Ok(Status::Ok)
            }
        }
    }

    /// One turn of a loop body; `false` when the loop ends here (`break`,
    /// `exit`, `return`).
    fn turn(&mut self, body: &CompoundList) -> Result<bool, Error> {
        let flow = self.flow.len();
        self.loops += 1;
        let r = self.list(body);
        self.loops -= 1;
        r?;
        self.end_turn(flow);
        if self.jump_levels > 0 && (self.breaking || self.continuing) {
            // `break N` / `continue N`: this loop ends, the jump goes on to
            // the enclosing one.
            self.jump_levels -= 1;
            return Ok(false);
        }
        self.continuing = false;
        if self.breaking {
            self.breaking = false;
            return Ok(false);
        }
        Ok(!(self.stopped || self.returning))
    }

    /// The end of a loop turn that started with `flow` jumps that may have run:
    /// those of this turn's `break` / `continue` end here (a `break` is kept in
    /// `maybe_broke`).
    fn end_turn(&mut self, flow: usize) {
        let tail = self.flow.split_off(flow);
        for (f, shown, r) in tail {
            match f {
                Flow::Return => self.flow.push((f, shown, r)),
                Flow::Break => self.maybe_broke = Some(r),
                Flow::Continue => {}
            }
        }
    }

    /// Runs a body that may run or not, any number of times: afterwards every
    /// variable it changes is unknown for `reason`.
    fn maybe_run(&mut self, body: &CompoundList, reason: &str) -> Result<(), Error> {
        let before = self.fork();
        let flow = self.flow.len();
        let n = self.conditions.len();
        self.conditions.push(reason.to_string());
        self.loops += 1;
        let r = self.list(body);
        self.loops -= 1;
        self.conditions.remove(n);
        self.end_turn(flow);
        self.maybe_broke = None;
        // A jump out of enclosing loops from a turn that may not run is not
        // followed (approximation: the enclosing loops go on).
        self.jump_levels = 0;
        self.breaking = false;
        self.continuing = false;
        self.join(before, reason);
        r.map(|_| ())
    }

    /// `while` / `until`, evaluated turn by turn while the condition is known.
    /// A condition that is not knowable (waiting for a server) makes the body
    /// a maybe-run, any number of times. A loop that cannot end (its condition
    /// stays true and a turn changes nothing) or does not end within the loop
    /// budget makes what follows conditional: it runs only if the loop ends.
    fn while_loop(
        &mut self,
        cond: &CompoundList,
        body: &CompoundList,
        until: bool,
        at: usize,
    ) -> Result<Status, Error> {
        let kind = if until { "until" } else { "while" };
        let line = self.source.line_col(at).line;
        let before = self.fork();
        let start_steps = budget::steps_taken();
        let mut turns = 0;
        // The state at the top of the previous turn, for the first few turns: the
        // same state twice means the loop repeats itself forever.
        let mut previous = None;
        loop {
            if turns < 4 {
                let now = (
                    self.st.vars.clone(),
                    self.st.positional.clone(),
                    self.conditions.len(),
                );
                if previous.as_ref() == Some(&now) {
                    self.conditions.push(format!(
                        "line {line}: the `{kind}` loop never ends (its condition stays {} and a turn changes nothing): what follows runs only if the script is interrupted there",
                        if until { "false" } else { "true" }
                    ));
                    return Ok(Status::Ok);
                }
                previous = Some(now);
            }
            let c = self.test_list(cond)?;
            if self.stopped || self.returning {
                return Ok(Status::Ok);
            }
            let go = match c {
                Status::Ok => !until,
                Status::Fail => until,
                Status::Unknown(_) => {
                    let reason = format!(
                        "set inside a `{kind}` loop, whose turns depend on running commands"
                    );
                    self.maybe_run(body, &reason)?;
                    return Ok(Status::Ok);
                }
            };
            if !go {
                return Ok(Status::Ok);
            }
            turns += 1;
            if turns > loop_turns() || budget::steps_taken() - start_steps > loop_steps() {
                self.may_never_end(before, kind, line);
                return Ok(Status::Ok);
            }
            self.maybe_broke = None;
            if !self.turn(body)? {
                return Ok(Status::Ok);
            }
            if let Some(r) = self.maybe_broke.take() {
                // It may end here or go on: the other turns may run or not.
                let reason = format!(
                    "set inside the `{kind}` loop on line {line}, which may end at a `break` ({r})"
                );
                self.maybe_run(body, &reason)?;
                if self.condition_list_stays(cond, until)? {
                    self.conditions.push(format!(
                        "line {line}: the `{kind}` loop ends only at a `break` that runs only if a condition that is not knowable holds ({r})"
                    ));
                }
                return Ok(Status::Ok);
            }
        }
    }

    /// Whether a loop condition is known to let the loop go on (in a copy of
    /// the state: its side effects are not kept).
    fn condition_list_stays(&mut self, cond: &CompoundList, until: bool) -> Result<bool, Error> {
        let saved = (
            self.st.clone(),
            self.stopped,
            self.flags(),
            self.conditions.len(),
        );
        let c = self.test_list(cond)?;
        (self.st, self.stopped) = (saved.0, saved.1);
        [self.breaking, self.continuing, self.returning] = saved.2;
        self.conditions.truncate(saved.3);
        Ok(c == if until { Status::Fail } else { Status::Ok })
    }

    /// A loop still running after the loop budget: it may never end. What it
    /// changed is unknown, and what follows runs only if it ends.
    fn may_never_end(&mut self, before: (State, bool), kind: &str, line: usize) {
        let reason = format!(
            "line {line}: the `{kind}` loop did not end within {} turns or {} steps (it may never end; the loop-turns and steps budgets, raised with --bash-budget)",
            loop_turns(),
            loop_steps()
        );
        self.join(before, &reason);
        self.conditions
            .push(format!("{reason}: what follows runs only if it ends"));
    }

    /// `for ((init; cond; step))`: evaluated turn by turn with 64-bit integers
    /// (the `loop-turns` budget); an unknown bound makes the body a maybe-run.
    fn arithmetic_for(&mut self, f: &ast::ArithmeticForClauseCommand) -> Result<Status, Error> {
        let at = self.byte(&f.loc.start);
        let eval = |this: &mut Self, e: &Option<ast::UnexpandedArithmeticExpr>| match e {
            None => Ok(Ok(1)),
            Some(x) => match expand::arith_text(&mut this.st, &x.value) {
                Ok(n) => Ok(Ok(n)),
                Err(r) if r.starts_with("cannot parse") || budget::tripped().is_some() => {
                    Err(this.err(at, r))
                }
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
        let before = self.fork();
        let start_steps = budget::steps_taken();
        let mut turns = 0;
        loop {
            match eval(self, &f.condition)? {
                Ok(0) => break,
                Ok(_) => {}
                Err(r) => return unknown(self, r),
            }
            turns += 1;
            if turns > loop_turns() || budget::steps_taken() - start_steps > loop_steps() {
                let line = self.source.line_col(at).line;
                self.may_never_end(before, "for ((...))", line);
                return Ok(Status::Ok);
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
            Some(c) => self.test_list(c)?,
        };
        match status {
            Status::Ok => self.list(body),
            Status::Fail => self.if_chain(rest, at),
            Status::Unknown(r) => {
                let r = self.at_line(at, &r);
                let before = self.st.clone();
                let was_stopped = self.stopped;
                let n = self.conditions.len();
                self.conditions.push(r.clone());
                let s_then = self.list(body)?;
                let then_state = std::mem::replace(&mut self.st, before);
                let then_stopped = std::mem::replace(&mut self.stopped, was_stopped);
                let then_flags = self.flags();
                [self.breaking, self.continuing, self.returning] = [false; 3];
                let s_else = self.if_chain(rest, at)?;
                self.conditions.remove(n);
                let else_flags = self.flags();
                let else_stopped = self.stopped;
                merge_into(&mut self.st, then_state, &r);
                self.stopped = then_stopped && else_stopped;
                if then_stopped != else_stopped {
                    self.conditions.push(format!("{MAY_HAVE_EXITED} ({r})"));
                }
                let taken = [0, 1, 2].map(|i| then_flags[i] || else_flags[i]);
                let all = [0, 1, 2].map(|i| then_flags[i] && else_flags[i]);
                self.settle_flow(taken, all, &r);
                Ok(if s_then == s_else {
                    s_then
                } else {
                    Status::Unknown(r)
                })
            }
        }
    }

    fn case(&mut self, c: &ast::CaseClauseCommand) -> Result<Status, Error> {
        let at = self.byte(&c.loc.start);
        let v = expand_string(&mut self.st, &c.value.value).map_err(|m| self.err(at, m))?;
        let subject = match v {
            Val::Known(s) => s,
            Val::Unknown(r) => return self.case_unknown(&c.cases, &self.at_line(at, &r)),
        };
        let opts = self.st.pattern_options(false, true);
        let mut k = 0;
        let mut status = Status::Ok;
        while let Some(item) = c.cases.get(k) {
            let mut matched = false;
            for p in &item.patterns {
                let pat = expand_pattern(&mut self.st, &p.value).map_err(|m| self.err(at, m))?;
                let test = match pat {
                    Val::Known(pat) => pattern_match(&pat, &subject, opts),
                    Val::Unknown(r) => Err(format!("a case pattern is not knowable: {r}")),
                };
                match test {
                    Ok(true) => {
                        matched = true;
                        break;
                    }
                    Ok(false) => {}
                    // Not knowable whether this item or a later one runs.
                    Err(r) => {
                        self.tick(at)?;
                        return self.case_unknown(&c.cases[k..], &self.at_line(at, &r));
                    }
                }
            }
            if !matched {
                k += 1;
                continue;
            }
            // Run this item, and the next ones while it ends with `;&`
            // (without testing their patterns); `;;&` goes on testing.
            loop {
                let item = &c.cases[k];
                if let Some(cmd) = &item.cmd {
                    status = self.list(cmd)?;
                } else {
                    status = Status::Ok;
                }
                if self.stopped || self.returning || self.breaking || self.continuing {
                    return Ok(status);
                }
                match item.post_action {
                    ast::CaseItemPostAction::ExitCase => return Ok(status),
                    ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem
                        if k + 1 < c.cases.len() =>
                    {
                        k += 1;
                    }
                    ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => {
                        return Ok(status);
                    }
                    ast::CaseItemPostAction::ContinueEvaluatingCases => {
                        k += 1;
                        break;
                    }
                }
            }
        }
        Ok(status)
    }

    /// A `case` whose choice among `items` is not knowable (`r`): every item
    /// may run, or none; an item reached by `;&` or `;;&` after the one
    /// before may start from that item's state too.
    fn case_unknown(&mut self, items: &[ast::CaseItem], r: &str) -> Result<Status, Error> {
        let start = self.st.clone();
        let was_stopped = self.stopped;
        let mut merged: Option<State> = None;
        let mut taken = [false; 3];
        let mut stopped = false;
        let n = self.conditions.len();
        self.conditions.push(r.to_string());
        let mut previous: Option<State> = None;
        for item in items {
            self.st = start.clone();
            if let Some(p) = previous.take() {
                merge_into(&mut self.st, p, r);
            }
            self.stopped = was_stopped;
            [self.breaking, self.continuing, self.returning] = [false; 3];
            if let Some(cmd) = &item.cmd {
                self.list(cmd)?;
            }
            let flags = self.flags();
            taken = [0, 1, 2].map(|i| taken[i] || flags[i]);
            stopped |= self.stopped && !was_stopped;
            if !matches!(item.post_action, ast::CaseItemPostAction::ExitCase) && !self.stopped {
                previous = Some(self.st.clone());
            }
            let s = std::mem::take(&mut self.st);
            merged = Some(match merged {
                None => s,
                Some(mut m) => {
                    merge_into(&mut m, s, r);
                    m
                }
            });
        }
        self.conditions.remove(n);
        self.stopped = was_stopped;
        if stopped {
            self.conditions.push(format!("{MAY_HAVE_EXITED} ({r})"));
        }
        self.settle_flow(taken, [false; 3], r);
        let mut result = start;
        if let Some(m) = merged {
            merge_into(&mut result, m, r);
        }
        self.st = result;
        Ok(Status::Unknown(r.to_string()))
    }

    pub(super) fn str_of(&mut self, w: &ast::Word) -> Result<Val, Error> {
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
            // Inside `[[ ]]`, the operands of -eq, -lt, ... are arithmetic
            // expressions (`010` is octal 8, `1+1` is 2), unlike in `[ ]`.
            ExtendedTestExpr::BinaryTest(pred, a, b) if is_arithmetic(pred) => {
                let l = self.str_of(a)?;
                let r = self.str_of(b)?;
                match (&l, &r) {
                    (Val::Known(x), Val::Known(y)) => {
                        match (
                            super::expand::arith_text(&mut self.st, x),
                            super::expand::arith_text(&mut self.st, y),
                        ) {
                            (Ok(p), Ok(q)) => binary_test(
                                pred,
                                &Val::Known(p.to_string()),
                                &Val::Known(q.to_string()),
                            ),
                            (Err(e), _) | (_, Err(e)) => Status::Unknown(e),
                        }
                    }
                    _ => binary_test(pred, &l, &r),
                }
            }
            // `==` / `!=` match a pattern (quoted parts literal), with
            // extglob always on and `nocasematch` applying, as in bash.
            ExtendedTestExpr::BinaryTest(
                pred @ (BinaryPredicate::StringExactlyMatchesPattern
                | BinaryPredicate::StringDoesNotExactlyMatchPattern),
                a,
                b,
            ) => {
                let l = self.str_of(a)?;
                let at = b.loc.as_ref().map(|l| self.byte(&l.start)).unwrap_or(0);
                let r = expand_pattern(&mut self.st, &b.value).map_err(|m| self.err(at, m))?;
                let want = matches!(pred, BinaryPredicate::StringExactlyMatchesPattern);
                match (l, r) {
                    (Val::Known(t), Val::Known(p)) => {
                        match pattern_match(&p, &t, self.st.pattern_options(true, true)) {
                            Ok(m) => status_of(m == want),
                            Err(r) => Status::Unknown(r),
                        }
                    }
                    (Val::Unknown(r), _) | (_, Val::Unknown(r)) => Status::Unknown(r),
                }
            }
            ExtendedTestExpr::BinaryTest(pred, a, b) => {
                let l = self.str_of(a)?;
                let r = self.str_of(b)?;
                binary_test(pred, &l, &r)
            }
        })
    }
}

/// Whether a pipeline stage is `echo` / `printf`, whose output is evaluated
/// for the next stage to read.
/// The file of a `cat FILE` command (one operand, no option, no redirection
/// or assignment): what it writes is that file.
pub(super) fn cat_operand(c: &Command) -> Option<ast::Word> {
    let Command::Simple(sc) = c else {
        return None;
    };
    if sc.word_or_name.as_ref()?.value != "cat" || sc.prefix.is_some() {
        return None;
    }
    let items: Vec<&ast::CommandPrefixOrSuffixItem> =
        sc.suffix.iter().flat_map(|s| s.0.iter()).collect();
    match items.as_slice() {
        [ast::CommandPrefixOrSuffixItem::Word(w)] if !w.value.starts_with('-') => Some(w.clone()),
        _ => None,
    }
}

fn writes_known_text(c: &Command) -> bool {
    matches!(c, Command::Simple(sc)
        if sc.word_or_name.as_ref().is_some_and(|w| matches!(w.value.as_str(), "echo" | "printf")
            || super::captured::FILTERS.contains(&w.value.as_str())))
}

/// The byte offset of each character of a text (and its length at the end).
pub(super) fn index_of(source: &Source) -> Arc<Vec<usize>> {
    let mut v: Vec<usize> = source.text.char_indices().map(|(i, _)| i).collect();
    v.push(source.text.len());
    Arc::new(v)
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
                Arc::new(vec![Val::Unknown(format!(
                    "depends on a condition that is not knowable: {reason}"
                ))]),
            );
        }
    }
    if into.exit_trap != other.exit_trap {
        into.exit_trap = Some(Val::Unknown(format!(
            "the EXIT trap depends on a condition that is not knowable: {reason}"
        )));
    }
    if into.return_trap != other.return_trap {
        into.return_trap = Some(Val::Unknown(format!(
            "the RETURN trap depends on a condition that is not knowable: {reason}"
        )));
    }
    if into.clobbered.is_none() {
        into.clobbered = other.clobbered;
    }
    if into.cwd != other.cwd {
        into.cwd = Some(Val::Unknown(format!(
            "the working folder depends on a condition that is not knowable: {reason}"
        )));
    }
    if into.dirstack != other.dirstack {
        into.dirstack = vec![Some(Val::Unknown(format!(
            "the folder stack depends on a condition that is not knowable: {reason}"
        )))];
    }
    if into.oldpwd != other.oldpwd {
        into.oldpwd = Some(Some(Val::Unknown(format!(
            "$OLDPWD depends on a condition that is not knowable: {reason}"
        ))));
    }
    into.physical |= other.physical;
    // A text written on one side only, or differently, is not knowable.
    into.touched.merge(&other.touched);
    into.exported.extend(other.exported);
    for (n, at) in other.assigned {
        if !into.assigned.contains_key(&n) {
            if let Some(w) = other.written.get(&n) {
                into.written.insert(n.clone(), w.clone());
            }
            into.assigned.insert(n, at);
        }
    }
    for (k, f) in other.functions {
        into.functions.entry(k).or_insert(f);
    }
}

/// Whether a test operator compares integers (`-eq`, `-ne`, `-lt`, `-le`,
/// `-gt`, `-ge`).
fn is_arithmetic(pred: &brush_parser::ast::BinaryPredicate) -> bool {
    use brush_parser::ast::BinaryPredicate as P;
    matches!(
        pred,
        P::ArithmeticEqualTo
            | P::ArithmeticNotEqualTo
            | P::ArithmeticLessThan
            | P::ArithmeticLessThanOrEqualTo
            | P::ArithmeticGreaterThan
            | P::ArithmeticGreaterThanOrEqualTo
    )
}
