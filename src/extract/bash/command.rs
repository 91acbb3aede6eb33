//! Simple commands: builtins (`export`, `unset`, `exit`, `:`, `[`, ...),
//! assignments, function calls, commands inside `$(...)`, and the side-effect
//! commands that are skipped.

use std::collections::BTreeMap;
use std::sync::Arc;

use brush_parser::ast::{self, AssignmentName, AssignmentValue, CommandPrefixOrSuffixItem};

use super::capture::printf;
use super::conditions::test_args;
use super::expand::{self, Field, Val, expand_fields};
use super::{Interp, Status, status_of};
use crate::error::Error;

/// The word bash passes for a process substitution (`<(...)`): the path of
/// a pipe, whose text comes from commands that are not run.
pub(super) const PROCESS_SUBSTITUTION: &str = "/dev/fd/63";

/// The builtins of bash a script uses: a here-document given to one is
/// expanded in the script's own shell.
const BUILTINS: &[&str] = &[
    ":", ".", "[", "alias", "break", "builtin", "cd", "command", "continue", "declare", "echo",
    "eval", "exec", "exit", "export", "false", "getopts", "hash", "kill", "let", "local", "popd",
    "printf", "pushd", "pwd", "readonly", "return", "set", "shift", "shopt", "source", "test",
    "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
];

/// How deeply `eval` may run `eval`.
const EVAL_DEPTH: usize = 16;

/// Commands that only have side effects: skipped, and assumed to succeed (a
/// harness adds its own functions, [`super::Harness::side_effect`]).
pub(super) const SIDE_EFFECTS: &[&str] = &[
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
    "cd",
    "ulimit",
];

/// bash 5.2's builtins (`compgen -b`): what `builtin NAME` can run.
const BASH_BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

impl Interp<'_> {
    pub(super) fn simple(&mut self, sc: &ast::SimpleCommand) -> Result<Status, Error> {
        self.assumed = None;
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
            // Its status is that of the last `$(...)` in it (0 without one).
            self.st.subst_status = None;
            for a in assigns {
                if !self.assign(a, false)? {
                    // An assignment statement to a readonly variable aborts the
                    // top-level command it is part of (bash goes on with the
                    // next one), or under `set -e` the script.
                    self.stopped = true;
                    self.abort_only = !self.st.errexit;
                    return Ok(Status::Fail);
                }
            }
            if let Some(s) = self.nounset_check(at) {
                return Ok(s);
            }
            return Ok(self.st.subst_status.take().unwrap_or(Status::Ok));
        };
        // `shopt -s expand_aliases`: an alias runs as its text.
        if let Some((alias, text)) = self.alias_text(sc) {
            return self.run_alias(alias, text, at);
        }
        // A prefix assignment to a readonly variable is refused; under
        // `set -e` that ends the script (in any context, as bash 5.2 does;
        // a `$(...)` does not inherit `set -e`), otherwise the command runs
        // without it.
        if self.st.errexit
            && self.capture.is_none()
            && assigns.iter().any(|a| match &a.name {
                AssignmentName::VariableName(n) | AssignmentName::ArrayElementName(n, _) => {
                    self.st.is_readonly(n)
                }
            })
        {
            (self.stopped, self.abort_only) = (true, false);
            return Ok(Status::Fail);
        }
        // Command words, each with its range in the source.
        // A process substitution (`<(...)`, `>(...)`) is a word too: bash
        // passes the path of a pipe (`/dev/fd/63`), whose text is not a file
        // in the repository.
        use brush_parser::ast::SourceLocation;
        let pipes: Vec<ast::Word> = sc
            .suffix
            .iter()
            .flat_map(|s| s.0.iter())
            .filter_map(|it| match it {
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, c) => Some(ast::Word {
                    value: PROCESS_SUBSTITUTION.into(),
                    loc: c.location(),
                }),
                _ => None,
            })
            .collect();
        let mut pipes = pipes.iter();
        let mut raw: Vec<(&ast::Word, Option<&ast::Assignment>)> = vec![(name_word, None)];
        for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match it {
                // `{NAME}>file`: a redirection, not a word.
                CommandPrefixOrSuffixItem::Word(w) if self.named_fd_word(w, at) => {}
                CommandPrefixOrSuffixItem::Word(w) => raw.push((w, None)),
                CommandPrefixOrSuffixItem::AssignmentWord(a, w) => raw.push((w, Some(a))),
                CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                    if let Some(w) = pipes.next() {
                        raw.push((w, None));
                    }
                }
                _ => {}
            }
        }
        // `command NAME` / `builtin NAME`: NAME, never a function of that
        // name; `builtin` runs only bash's builtins (`builtin sglang` fails:
        // "not a shell builtin").
        let mut skip_functions = false;
        // A command word that runs something when expanded (`$(...)`,
        // backquotes, `$((i++))`): expanded once, for its name and its words.
        let mut once: Vec<(*const ast::Word, Vec<Field>)> = Vec::new();
        let builtin = loop {
            let name = match self.command_name(raw[0].0, &mut once)? {
                Val::Known(n) => n,
                Val::Unknown(_) => String::new(),
            };
            if !matches!(name.as_str(), "command" | "builtin") || raw.len() < 2 {
                break name;
            }
            match (name.as_str(), raw[1].0.value.as_str()) {
                ("command", "-v" | "-V") => {
                    let reason = format!(
                        "`{name} {}` looks a command up on this machine, which is not knowable",
                        raw[1].0.value
                    );
                    if self.capture.is_some() {
                        self.capture_unknown.get_or_insert(reason.clone());
                    }
                    return Ok(Status::Unknown(reason));
                }
                ("command", "-p") | (_, "--") => {
                    raw.remove(1);
                }
                // "invalid option": nothing runs.
                ("builtin", o) if o.starts_with('-') && o.len() > 1 => return Ok(Status::Fail),
                _ => {}
            }
            raw.remove(0);
            skip_functions = true;
            if name == "builtin"
                && let Some((w, _)) = raw.first()
                && let Val::Known(n) = self.command_name(w, &mut once)?
                && !BASH_BUILTINS.contains(&n.as_str())
            {
                return Ok(Status::Fail);
            }
            if raw.is_empty() {
                break String::new();
            }
        };
        if raw.is_empty() {
            return Ok(Status::Ok);
        }
        // A function of the script shadows a builtin of that name.
        let function = !skip_functions && self.st.functions.contains_key(&builtin);
        // A here-document given to a builtin or a function is expanded in
        // this shell (for another program, in the child): its assignments
        // (`${TP:=4}`) happen here. `read` and `mapfile` read it below.
        if (function || BUILTINS.contains(&builtin.as_str()))
            && !matches!(builtin.as_str(), "read" | "mapfile" | "readarray")
        {
            self.heredoc_effects(sc, at)?;
        }
        if !function && let Some(s) = self.bash_only(&builtin, at) {
            return Ok(s);
        }
        match builtin.as_str() {
            _ if function => {}
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                return self.declare(&builtin, &raw, &assigns);
            }
            "unset" => return self.unset(&raw, at),
            "shopt" => return self.shopt(&raw, at),
            "alias" | "unalias" => return self.alias(&builtin, &raw, at),
            "trap" => return self.trap(&raw, at),
            "exit" | "return" => {
                // `exit N` / `return N`, or the status of the last command.
                let status = match raw.get(1) {
                    None => self.last_status.clone(),
                    Some((w, _)) => match self.str_of(w)? {
                        Val::Known(n) => match n.trim().parse::<i64>() {
                            Ok(n) => status_of(n % 256 == 0),
                            Err(_) => Status::Fail,
                        },
                        Val::Unknown(r) => Status::Unknown(r),
                    },
                };
                if builtin == "exit" {
                    // Under a condition that is not knowable, the branch's join
                    // makes what follows conditional.
                    self.stopped = true;
                    self.abort_only = false;
                } else if self.depth == 0 && self.sourcing == 0 {
                    // `return` outside a function: an error, nothing happens.
                    return Ok(Status::Fail);
                } else {
                    self.returning = true;
                }
                return Ok(status);
            }
            "break" | "continue" => {
                // Outside a loop (a function's caller's loop counts as
                // outside): an error, and nothing happens.
                if self.loops == 0 {
                    return Ok(Status::Fail);
                }
                // `break N` / `continue N`: N enclosing loops.
                let levels = match raw.get(1) {
                    None => 1,
                    Some((w, _)) => match self.str_of(w)? {
                        Val::Known(n) => match n.trim().parse::<usize>() {
                            Ok(n) if n >= 1 => n,
                            _ => return Ok(Status::Fail),
                        },
                        Val::Unknown(r) => {
                            return Err(self.err(
                                at,
                                format!("cannot know how many loops `{builtin}` leaves: {r}"),
                            ));
                        }
                    },
                };
                self.jump_levels = levels.min(self.loops) - 1;
                if builtin == "break" {
                    self.breaking = true;
                } else {
                    self.continuing = true;
                }
                return Ok(Status::Ok);
            }
            _ if self.capture.is_some()
                && !matches!(builtin.as_str(), "true" | ":" | "false" | "[" | "test")
                && !self.st.functions.contains_key(&builtin) =>
            {
                return self.captured_command(sc, &assigns, &raw, at);
            }
            ":" | "true" => {
                // Arguments are still expanded: `: "${X:=default}"` assigns.
                for (w, _) in raw.iter().skip(1) {
                    let range = self.word_range(w, at);
                    expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))?;
                }
                return Ok(Status::Ok);
            }
            "set" | "shift" => return self.set_or_shift(&builtin, &raw, at),
            "getopts" => return self.getopts(&raw, at),
            "read" | "mapfile" | "readarray" | "let" => {
                return self.assigning_builtin(&builtin, sc, &raw, at);
            }
            "printf" if raw.get(1).is_some_and(|(w, _)| w.value == "-v") => {
                return self.assigning_builtin(&builtin, sc, &raw, at);
            }
            "cd" | "pushd" | "popd" => {
                let args = self.args_of(&raw, at)?;
                if let Some(s) = self.nounset_check(at) {
                    return Ok(s);
                }
                // The working folder is modelled: the status is cd's own
                // (known, failed, or unknown with the reason).
                return Ok(if builtin == "cd" {
                    self.cd(&args)
                } else {
                    self.pushd_popd(&builtin, &args)
                });
            }
            "echo" | "printf" | "sleep" | "wait" | "kill" | "mkdir" | "rm" | "cp" | "mv"
            | "cat" | "tee" | "pip" | "hf" | "huggingface-cli" | "nvidia-smi" | "rocm-smi"
            | "amd-smi" => {
                // Their words are expanded (`${X:=v}` assigns, `set -u`
                // ends the script), their effects skipped; the files they
                // change are noted.
                let args = self.args_of(&raw, at)?;
                if let Some(s) = self.nounset_check(at) {
                    return Ok(s);
                }
                // Taken to succeed; `$?` says it is not knowable (`echo`
                // and `printf` write and succeed).
                if !matches!(builtin.as_str(), "echo" | "printf") {
                    self.assumed = Some(builtin.clone());
                }
                let mut words = vec![Val::Known(builtin.clone())];
                words.extend(args);
                self.note_command_writes(&words, at);
                return Ok(Status::Ok);
            }
            "false" => return Ok(Status::Fail),
            "source" | "." => return self.source_file(&raw, at),
            _ => {}
        }
        // Expand every word.
        let mut fields: Vec<(Field, (usize, usize), Option<String>)> = Vec::new();
        for (w, _) in &raw {
            let range = self.word_range(w, at);
            let var = first_var(&w.value);
            let expanded = match once.iter().position(|(p, _)| std::ptr::eq(*p, *w)) {
                Some(k) => once.swap_remove(k).1,
                None => expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))?,
            };
            for f in expanded {
                let r = f.span.unwrap_or(range);
                fields.push((f, r, var.clone()));
            }
        }
        if let Some(s) = self.nounset_check(at) {
            return Ok(s);
        }
        let Some(first) = fields.first() else {
            return Ok(Status::Ok);
        };
        let head = first.0.text.clone();
        // A function the harness models (before the script's own definitions).
        let args: Vec<String> = fields[1..].iter().map(|(f, _, _)| f.text.clone()).collect();
        let st = &self.st;
        let var = |n: &str| st.read(n).and_then(|v| v.into_iter().next());
        if let Some(call) = self.st.harness().call(&head, &args, &var) {
            for (name, v) in call.exports {
                self.st.set_scalar(&name, v);
                self.st.exported.insert(name);
            }
            if call.exits {
                (self.stopped, self.abort_only) = (true, false);
            }
            return Ok(call.status);
        }
        // A function of the script (a builtin's or a launcher's name too),
        // unless `command` / `builtin` skips functions.
        if !skip_functions && let Some(f) = self.st.functions.get(&head).cloned() {
            let args: Vec<Val> = fields[1..].iter().map(|(f, _, _)| f.val()).collect();
            return self.with_prefix(&assigns, |this| this.call(&f, &args, at));
        }
        match head.as_str() {
            "[" | "test" => {
                // `[ -v 'a[T=4]' ]`: bash evaluates the subscript.
                for k in 1..fields.len().saturating_sub(1) {
                    if fields[k].0.text == "-v" && fields[k].0.unknown.is_none() {
                        let name = fields[k + 1].0.text.clone();
                        expand::name_subscript_effects(&mut self.st, &name)
                            .map_err(|m| self.err(at, m))?;
                    }
                }
                let mut args: Vec<Val> = fields[1..].iter().map(|(f, _, _)| f.val()).collect();
                if head == "[" && args.last() == Some(&Val::Known("]".into())) {
                    args.pop();
                }
                return Ok(test_args(&args));
            }
            _ => {}
        }
        if head == "eval" {
            return self.eval_with(&assigns, &fields[1..], at);
        }
        // `exec CMD`: CMD replaces the shell (a launch, or anything else), so
        // nothing after it runs; `exec` alone (redirections only) changes nothing.
        let input = self.input_of(sc, at);
        if head == "exec" && fields.len() > 1 {
            self.maybe_launch(&assigns, &fields, at, input)?;
            match &fields[1].0.unknown {
                None => (self.stopped, self.abort_only) = (true, false),
                Some(r) => {
                    let line = self.source.line_col(at).line;
                    self.conditions.push(format!(
                        "the script may have ended at the `exec` on line {line}, whose command is not knowable: {r}"
                    ));
                }
            }
            return Ok(Status::Ok);
        }
        let words: Vec<Val> = fields.iter().map(|(f, _, _)| f.val()).collect();
        self.note_command_writes(&words, at);
        let made = |out: &super::Evaluation| {
            out.launches.len() + out.unsupported.len() + out.auxiliary.len() + out.recorded.len()
        };
        let before = made(&self.out);
        let launches = self.out.launches.len();
        let recorded = self.out.recorded.len();
        self.maybe_launch(&assigns, &fields, at, input)?;
        super::budget::launched(&self.out.launches[launches..]).map_err(|m| self.err(at, m))?;
        // A recorded command (`git checkout`) is taken to succeed, and is
        // still the program it is: the files it may write are noted.
        if self.out.recorded.len() > recorded {
            self.note_unmodelled_writes(&words, at);
        }
        if made(&self.out) > before
            || SIDE_EFFECTS.contains(&head.as_str())
            || self.st.harness().side_effect(&head)
        {
            self.assumed = Some(head.rsplit('/').next().unwrap_or(&head).to_string());
            return Ok(Status::Ok);
        }
        // Another program: what it does is not evaluated, and neither is whether it
        // succeeds (which matters only where it is used as a condition). It may
        // write the files it names.
        self.note_unmodelled_writes(&words, at);
        Ok(Status::Unknown(format!(
            "the exit status of `{}` is not knowable (commands are never run)",
            head.rsplit('/').next().unwrap_or(&head)
        )))
    }

    /// The command name word `w` gives (its first field, as bash takes it).
    /// A word that runs something when expanded is expanded once: its
    /// fields are kept in `once` for the command's words.
    fn command_name(
        &mut self,
        w: &ast::Word,
        once: &mut Vec<(*const ast::Word, Vec<Field>)>,
    ) -> Result<Val, Error> {
        if !w.value.contains("$(") && !w.value.contains('`') {
            return self.str_of(w);
        }
        let first = |fields: &[Field]| {
            fields
                .first()
                .map_or_else(|| Val::Known(String::new()), Field::val)
        };
        if let Some((_, fields)) = once.iter().find(|(p, _)| std::ptr::eq(*p, w)) {
            return Ok(first(fields));
        }
        let at = w.loc.as_ref().map(|l| self.byte(&l.start)).unwrap_or(0);
        let fields = expand_fields(&mut self.st, &w.value).map_err(|m| self.err(at, m))?;
        let name = first(&fields);
        once.push((w as *const ast::Word, fields));
        Ok(name)
    }

    /// Expands the here-documents of a command run in this shell (a
    /// builtin, a function) for what their expansion assigns.
    fn heredoc_effects(&mut self, sc: &ast::SimpleCommand, at: usize) -> Result<(), Error> {
        let items = sc.prefix.iter().flat_map(|p| p.0.iter());
        for it in items.chain(sc.suffix.iter().flat_map(|s| s.0.iter())) {
            if let CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereDocument(_, doc)) = it
                && doc.requires_expansion
            {
                expand::expand_string(
                    &mut self.st,
                    &super::launch::heredoc_as_double_quoted(&doc.doc.value),
                )
                .map_err(|m| self.err(at, m))?;
            }
        }
        Ok(())
    }

    fn call(&mut self, f: &super::Function, args: &[Val], at: usize) -> Result<Status, Error> {
        let _call = super::budget::enter_call().map_err(|m| self.err(at, m))?;
        let saved = std::mem::replace(&mut self.st.positional, args.to_vec());
        let flow = self.flow.len();
        self.depth += 1;
        self.frames.push(Vec::new());
        self.frame_options.push(None);
        // The caller's loops are not the function's: `break` there is an error.
        let loops = std::mem::replace(&mut self.loops, 0);
        let trap = self.st.return_trap.clone();
        self.st.funcname.push((f.def.fname.value.clone(), true));
        // `f() { ...; } >&2`: its redirections apply to each call.
        let redirects = f.def.body.1.iter().flat_map(|l| l.0.iter());
        let r = self.with_stdout(redirects, |this| {
            this.in_shell(&f.source, Some(f.index.clone()), |it| {
                it.compound(&f.def.body.0)
            })
        });
        let r = match r {
            Ok(s) => self.run_return_trap(&trap, true, at).map(|_| s),
            e => e,
        };
        self.loops = loops;
        self.st.funcname.pop();
        // Its `local`s end with it.
        for (name, s) in self.frames.pop().unwrap_or_default().into_iter().rev() {
            self.st.restore(name, s);
        }
        // `local -`: its `set` options end with it.
        if let Some(Some(o)) = self.frame_options.pop() {
            self.st.restore_options(o);
        }
        self.depth -= 1;
        self.returning = false;
        // A `return` that may have run concerns this function only.
        self.flow.truncate(flow);
        self.st.positional = saved;
        r
    }

    /// Assigns `NAME=value` / `NAME+=value` / `NAME=(...)`; `false` (and no
    /// change) when NAME is readonly.
    pub(super) fn assign(&mut self, a: &ast::Assignment, export: bool) -> Result<bool, Error> {
        let name = match &a.name {
            AssignmentName::VariableName(n) => n.clone(),
            AssignmentName::ArrayElementName(n, index) => {
                return self.assign_element(a, n, index, export);
            }
        };
        let at = self.byte(&a.loc.start);
        let end = self.byte(&a.loc.end);
        if self.st.is_readonly(&name) {
            return Ok(false);
        }
        let name = self.st.resolve(&name).map_err(|r| {
            self.err(
                at,
                format!("cannot know which variable this assignment sets: {r}"),
            )
        })?;
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
                // `([K]=V ...)`: keyed elements land at their (arithmetic)
                // index, the next unkeyed one after it.
                let mut keyed: Option<BTreeMap<usize, (Val, Option<expand::Range>)>> = None;
                let mut next = 0usize;
                // An index that is not knowable: the whole array is not.
                let mut whole: Option<String> = None;
                for (k, (key, w)) in items.iter().enumerate() {
                    let written = element_ranges.get(k).copied();
                    if let Some(key) = key {
                        let map = keyed.get_or_insert_with(|| {
                            out.drain(..).zip(spans.drain(..)).enumerate().collect()
                        });
                        let index = match expand::expand_string(&mut self.st, &key.value)
                            .map_err(|m| self.err(at, m))?
                        {
                            Val::Known(t) => expand::arith_text(&mut self.st, &t),
                            Val::Unknown(r) => Err(r),
                        };
                        let index = match index {
                            Ok(i) if (0..=MAX_ARRAY_KEY).contains(&i) => i as usize,
                            Ok(i) => {
                                whole = Some(format!(
                                    "${name}: array index {i} is not evaluated (only 0 to {MAX_ARRAY_KEY})"
                                ));
                                break;
                            }
                            Err(r) if super::budget::tripped().is_some() => {
                                return Err(self.err(at, r));
                            }
                            Err(r) => {
                                whole = Some(format!(
                                    "${name}: cannot know the index [{}]: {r}",
                                    key.value
                                ));
                                break;
                            }
                        };
                        let v = expand::expand_string(&mut self.st, &w.value)
                            .map_err(|m| self.err(at, m))?;
                        map.insert(index, (v, written));
                        next = index + 1;
                        continue;
                    }
                    for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(at, m))? {
                        let v = match f.unknown {
                            Some(r) => Val::Unknown(r),
                            None => Val::Known(f.text),
                        };
                        match &mut keyed {
                            Some(map) => {
                                map.insert(next, (v, f.span.or(written)));
                                next += 1;
                            }
                            None => {
                                spans.push(f.span.or(written));
                                out.push(v);
                            }
                        }
                    }
                }
                if let Some(r) = whole {
                    out = vec![Val::Unknown(r)];
                    spans = vec![None];
                } else if let Some(map) = keyed {
                    // Arrays are kept dense: an index not set is unknown (a
                    // sparse array's elements would shift otherwise).
                    let len = map.keys().next_back().map_or(0, |k| k + 1);
                    super::budget::built(len.saturating_mul(64)).map_err(|m| self.err(at, m))?;
                    let mut map = map;
                    for i in 0..len {
                        let (v, span) = map
                            .remove(&i)
                            .unwrap_or_else(|| (Val::Unknown(expand::sparse_hole(&name, i)), None));
                        out.push(v);
                        spans.push(span);
                    }
                }
                (out, spans)
            }
        };
        let scalar = matches!(a.value, AssignmentValue::Scalar(_));
        let cur = self.st.get(&name).unwrap_or_default();
        let mut spans = if a.append || (scalar && cur.len() > 1) {
            self.st.spans_of(&name)
        } else {
            Vec::new()
        };
        let integer = self.st.integers.contains(&name) && scalar;
        let value = if scalar {
            // A scalar is bash's element 0 of an array: `A=x` replaces it,
            // `A+=x` appends to it (`declare -i`: adds to it); the other
            // elements stay.
            let n = new.into_iter().next().unwrap_or(Val::Known(String::new()));
            let element = if integer {
                let expr = match (a.append, cur.first(), &n) {
                    (_, _, Val::Unknown(r)) | (true, Some(Val::Unknown(r)), _) => Err(r.clone()),
                    (true, Some(Val::Known(c)), Val::Known(n)) if !c.trim().is_empty() => {
                        Ok(format!("({c}) + ({n})"))
                    }
                    (_, _, Val::Known(n)) => Ok(n.clone()),
                };
                match expr.and_then(|e| expand::arith_text(&mut self.st, &e)) {
                    Ok(n) => Val::Known(n.to_string()),
                    Err(r) => Val::Unknown(format!("${name} is an integer (declare -i): {r}")),
                }
            } else {
                match (a.append, cur.first(), n) {
                    (true, Some(Val::Known(c)), Val::Known(n)) => Val::Known(format!("{c}{n}")),
                    // Text appended to an unknown value is unknown.
                    (true, Some(Val::Unknown(r)), _) => Val::Unknown(r.clone()),
                    (_, _, n) => n,
                }
            };
            let span = if a.append {
                None
            } else {
                new_spans.into_iter().next().flatten()
            };
            spans.resize(cur.len().max(1), None);
            spans[0] = span;
            let mut cur = cur;
            match cur.first_mut() {
                Some(first) => *first = element,
                None => cur.push(element),
            }
            cur
        } else {
            if a.append {
                spans.resize(cur.len(), None);
            }
            spans.extend(new_spans);
            if a.append {
                let mut cur = cur;
                cur.extend(new);
                cur
            } else {
                new
            }
        };
        let value = match self.st.cases.get(&name) {
            Some(&case) => value
                .into_iter()
                .map(|v| convert_case(&name, case, v))
                .collect(),
            None => value,
        };
        super::note_secret(&name, &value);
        self.st.vars.insert(name.clone(), Arc::new(value));
        self.st.spans.insert(name.clone(), Arc::new(spans));
        self.st.assigned.insert(name.clone(), (at, end));
        self.st.note_written(&name);
        if export {
            self.st.exported.insert(name);
        }
        Ok(true)
    }

    /// `NAME[INDEX]=value` / `NAME[INDEX]+=value`: one element of an indexed
    /// array (a scalar is its element 0); `false` (and no change) when NAME
    /// is readonly. An index that is not knowable makes the whole array
    /// unknown; elements below a new index that are not set are unknown (arrays
    /// are kept dense, as `NAME=([K]=V)` keeps them).
    fn assign_element(
        &mut self,
        a: &ast::Assignment,
        name: &str,
        index: &str,
        export: bool,
    ) -> Result<bool, Error> {
        let at = self.byte(&a.loc.start);
        let end = self.byte(&a.loc.end);
        let AssignmentValue::Scalar(w) = &a.value else {
            return Err(self.err(
                at,
                format!("{name}[{index}]=(...): an array element cannot be assigned a list"),
            ));
        };
        if self.st.is_readonly(name) {
            return Ok(false);
        }
        let name = self.st.resolve(name).map_err(|r| {
            self.err(
                at,
                format!("cannot know which variable this assignment sets: {r}"),
            )
        })?;
        if self.st.namerefs.contains_key(&name) || self.st.cases.contains_key(&name) {
            return Err(self.err(
                at,
                format!("assignment to an element of {name} (a reference or a case-changing variable) is not evaluated"),
            ));
        }
        let mut cur = self.st.get(&name).unwrap_or_default();
        let mut spans = self.st.spans_of(&name);
        spans.resize(cur.len(), None);
        let key = expand::expand_string(&mut self.st, index).map_err(|m| self.err(at, m))?;
        let i = match key {
            Val::Known(t) => expand::arith_text(&mut self.st, &t),
            Val::Unknown(r) => Err(r),
        };
        let i = match i {
            Ok(i) if i < 0 && i.unsigned_abs() as usize <= cur.len() => {
                Ok(cur.len() - i.unsigned_abs() as usize)
            }
            Ok(i) if (0..=MAX_ARRAY_KEY).contains(&i) => Ok(i as usize),
            Ok(i) => Err(format!(
                "array index {i} is not evaluated (only 0 to {MAX_ARRAY_KEY})"
            )),
            Err(r) if super::budget::tripped().is_some() => return Err(self.err(at, r)),
            Err(r) => Err(format!("cannot know the index [{index}]: {r}")),
        };
        let (v, span) =
            expand::expand_string_spanned(&mut self.st, &w.value).map_err(|m| self.err(at, m))?;
        let written = (end.saturating_sub(w.value.len()), end);
        let integer = self.st.integers.contains(&name);
        match i {
            Err(r) => {
                cur = vec![Val::Unknown(format!("${name}: {r}"))];
                spans = vec![None];
            }
            Ok(i) => {
                super::budget::built((i + 1).saturating_mul(64)).map_err(|m| self.err(at, m))?;
                while cur.len() <= i {
                    cur.push(Val::Unknown(expand::sparse_hole(&name, cur.len())));
                    spans.push(None);
                }
                let was_set =
                    !matches!(&cur[i], Val::Unknown(r) if *r == expand::sparse_hole(&name, i));
                let new = if integer {
                    let expr = match (&v, a.append && was_set, &cur[i]) {
                        (Val::Unknown(r), _, _) | (_, true, Val::Unknown(r)) => Err(r.clone()),
                        (Val::Known(n), true, Val::Known(c)) if !c.trim().is_empty() => {
                            Ok(format!("({c}) + ({n})"))
                        }
                        (Val::Known(n), _, _) => Ok(n.clone()),
                    };
                    match expr.and_then(|e| expand::arith_text(&mut self.st, &e)) {
                        Ok(n) => Val::Known(n.to_string()),
                        Err(r) => Val::Unknown(format!("${name} is an integer (declare -i): {r}")),
                    }
                } else if a.append && was_set {
                    match (&cur[i], &v) {
                        (Val::Known(c), Val::Known(n)) => Val::Known(format!("{c}{n}")),
                        (Val::Unknown(r), _) | (_, Val::Unknown(r)) => Val::Unknown(r.clone()),
                    }
                } else {
                    v
                };
                cur[i] = new;
                spans[i] = if a.append {
                    None
                } else {
                    Some(span.unwrap_or(written))
                };
            }
        }
        super::note_secret(&name, &cur);
        self.st.vars.insert(name.clone(), Arc::new(cur));
        self.st.spans.insert(name.clone(), Arc::new(spans));
        self.st.assigned.insert(name.clone(), (at, end));
        self.st.note_written(&name);
        if export {
            self.st.exported.insert(name);
        }
        Ok(true)
    }

    /// `X=1 eval ARGS...`: the prefix assignments hold (exported) while the
    /// text runs, and end with it, as in bash.
    fn eval_with(
        &mut self,
        assigns: &[&ast::Assignment],
        args: &[(Field, (usize, usize), Option<String>)],
        at: usize,
    ) -> Result<Status, Error> {
        self.with_prefix(assigns, |this| this.eval(args, at))
    }

    /// Runs `run` (an `eval`, a function of the script) with a command's
    /// prefix assignments (`X=1 f`): they hold, exported, while it runs
    /// (its launches see them in their environment), and end with it, as
    /// in bash.
    fn with_prefix(
        &mut self,
        assigns: &[&ast::Assignment],
        run: impl FnOnce(&mut Self) -> Result<Status, Error>,
    ) -> Result<Status, Error> {
        let (saved, assigned) = self.enter_prefix(assigns);
        let status = assigned.and_then(|()| run(self));
        for (n, s) in saved.into_iter().rev() {
            self.st.restore(n, s);
        }
        status
    }

    /// Starts a command's prefix assignments (bash's temporary environment):
    /// each variable they name is shadowed (its value kept, to be restored
    /// in reverse order once the command ends) and then assigned, exported,
    /// up to the first error. A prefix assignment to a readonly variable is
    /// refused ("readonly variable") and the command still runs (bash 5.2,
    /// not in POSIX mode): such a variable is not shadowed.
    pub(super) fn enter_prefix(
        &mut self,
        assigns: &[&ast::Assignment],
    ) -> (Vec<(String, super::Shadowed)>, Result<(), Error>) {
        let mut saved: Vec<(String, super::Shadowed)> = Vec::new();
        for a in assigns {
            let AssignmentName::VariableName(n) = &a.name else {
                continue;
            };
            let Ok(n) = self.st.resolve(n) else {
                continue;
            };
            if self.st.is_readonly(&n) || saved.iter().any(|(k, _)| *k == n) {
                continue;
            }
            let shadowed = self.st.shadow(&n, true);
            saved.push((n, shadowed));
        }
        for a in assigns {
            if let Err(e) = self.assign(a, true) {
                return (saved, Err(e));
            }
        }
        (saved, Ok(()))
    }

    /// `eval ARGS...`: the arguments joined with spaces are parsed and run as
    /// code here, with this state and these conditions; what it launches is
    /// placed in the eval'd text (`<FILE:LINE:COL eval>`). Text that is not
    /// knowable is code that is not read ([`Interp::not_read`]).
    fn eval(
        &mut self,
        args: &[(Field, (usize, usize), Option<String>)],
        at: usize,
    ) -> Result<Status, Error> {
        let mut words = Vec::new();
        for (f, _, _) in args {
            if let Some(r) = &f.unknown {
                // `eval "$(conda shell.bash hook)"`: as a `source` of a
                // file that is not read.
                let what = format!("text that is not knowable ({})", expand::brief(r));
                return Ok(self.not_read(at, "eval", &what, "text"));
            }
            words.push(f.text.as_str());
        }
        self.run_text(words.join(" "), "eval", at)
    }

    /// Parses `text` and runs it here, with this state and these conditions
    /// (`eval`, an alias's expansion, an EXIT trap); what it launches is
    /// placed in the text (`<FILE:LINE:COL WHAT>`). The eval depth budget
    /// bounds how deeply such texts run each other.
    pub(super) fn run_text(
        &mut self,
        text: String,
        what: &str,
        at: usize,
    ) -> Result<Status, Error> {
        if self.evals >= EVAL_DEPTH {
            return Err(self.err(
                at,
                format!(
                    "`eval`, aliases and traps nested more than {EVAL_DEPTH} deep (the eval depth budget)"
                ),
            ));
        }
        let label = format!("{} {what}", self.source.place(at));
        let source = std::sync::Arc::new(crate::span::Source::new(
            crate::span::Origin::Inline(label),
            text,
        ));
        let program = super::capture::program_of(&source)?;
        self.evals += 1;
        let r = self.in_shell(&source, None, |it| it.run_program(&program));
        self.evals -= 1;
        r
    }

    /// Builtins that write variables: `read` (known from a here-string, else
    /// unknown: standard input is not knowable), `mapfile` / `readarray`
    /// (unknown), `let` (arithmetic) and `printf -v`.
    fn assigning_builtin(
        &mut self,
        builtin: &str,
        sc: &ast::SimpleCommand,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let mut args: Vec<Val> = Vec::new();
        // The word each argument came from.
        let mut written: Vec<&str> = Vec::new();
        for (w, _) in raw.iter().skip(1) {
            let range = self.word_range(w, at);
            for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))? {
                written.push(&w.value);
                args.push(match f.unknown {
                    Some(r) => Val::Unknown(r),
                    None => Val::Known(f.text),
                });
            }
        }
        // A name with a subscript (`printf -v 'a[T=4]'`, `read 'a[i++]'`):
        // bash evaluates the subscript, with its assignments.
        if builtin != "let" {
            for a in &args {
                if let Val::Known(t) = a
                    && !t.starts_with('-')
                    && t.contains('[')
                {
                    expand::name_subscript_effects(&mut self.st, t).map_err(|m| self.err(at, m))?;
                }
            }
        }
        // `array`: the whole array is assigned (`read -a`, `mapfile`); else
        // the one value is a scalar, bash's element 0 of an array.
        let set = |this: &mut Self, name: &str, vals: Vec<Val>, array: bool| -> bool {
            if this.st.is_readonly(name) {
                return false;
            }
            let name = this.st.resolve(name).unwrap_or_else(|_| name.to_string());
            super::note_secret(&name, &vals);
            let vals = match (array, <[Val; 1]>::try_from(vals)) {
                (false, Ok([v])) => this.st.scalar_assigned(&name, v),
                (_, Ok(one)) => one.to_vec(),
                (_, Err(vals)) => vals,
            };
            this.st.vars.insert(name.clone(), Arc::new(vals));
            this.st.spans.remove(&name);
            this.st.assigned.insert(name.clone(), (at, at));
            this.st.note_written(&name);
            true
        };
        match builtin {
            "let" => {
                let mut status = Status::Ok;
                for (a, w) in args.iter().zip(&written) {
                    status = match a {
                        Val::Known(e) => match expand::arith_text(&mut self.st, e) {
                            Ok(n) => status_of(n != 0),
                            Err(r) if r.starts_with("cannot parse") => {
                                return Err(self.err(at, r));
                            }
                            Err(r) => Status::Unknown(r),
                        },
                        Val::Unknown(r) => {
                            // What it assigns, from the word as written.
                            expand::unknown_assignments(&mut self.st, w, r);
                            Status::Unknown(r.clone())
                        }
                    };
                }
                Ok(status)
            }
            "printf" => {
                // printf -v NAME FORMAT ARGS...
                if let (Some(Val::Unknown(r)), Some(_)) = (args.get(1), args.get(2)) {
                    // Any variable may be the one it sets.
                    let line = self.source.line_col(at).line;
                    self.st.clobber(&format!(
                        "the `printf -v` on line {line}, whose variable name is not knowable ({})",
                        expand::brief(r)
                    ));
                    return Ok(Status::Unknown(r.clone()));
                }
                let (Some(Val::Known(name)), Some(fmt)) = (args.get(1), args.get(2)) else {
                    return Ok(Status::Fail);
                };
                let name = name.clone();
                let texts: Option<Vec<String>> = args[3..]
                    .iter()
                    .map(|v| match v {
                        Val::Known(t) => Some(t.clone()),
                        Val::Unknown(_) => None,
                    })
                    .collect();
                let v = match (fmt, texts) {
                    (Val::Known(f), Some(t)) => match printf(f, &t) {
                        Some(out) => Val::Known(out),
                        None => Val::Unknown(format!(
                            "`printf -v {name}` with format {f:?} is not evaluated"
                        )),
                    },
                    _ => Val::Unknown(format!(
                        "`printf -v {name}` prints a value that is not knowable"
                    )),
                };
                Ok(if set(self, &name, vec![v], false) {
                    Status::Ok
                } else {
                    Status::Fail
                })
            }
            _ => {
                // read [-r] [-a ARRAY] [opts] NAME... / mapfile [opts] [ARRAY]
                // Options bundle (`-rd,`); one taking a value takes the rest
                // of its word, else the next word.
                let with_value = if builtin == "read" {
                    "adinNptu"
                } else {
                    "dnOsuCc"
                };
                let mut names: Vec<String> = Vec::new();
                let mut array: Option<String> = None;
                let mut raw_mode = false;
                let mut delim = Some('\n');
                let mut count: Option<(String, bool)> = None;
                let mut from_fd = false;
                let mut i = 0;
                let mut options = true;
                while let Some(a) = args.get(i) {
                    let Val::Known(t) = a else {
                        return Err(
                            self.err(at, format!("cannot know which variables `{builtin}` sets"))
                        );
                    };
                    i += 1;
                    if options && t == "--" {
                        options = false;
                        continue;
                    }
                    if !(options && t.starts_with('-') && t.len() > 1) {
                        options = false;
                        names.push(t.clone());
                        continue;
                    }
                    for (k, c) in t.char_indices().skip(1) {
                        if c == 'r' {
                            raw_mode = true;
                        }
                        if !with_value.contains(c) {
                            continue;
                        }
                        let value = if k + 1 < t.len() {
                            Val::Known(t[k + 1..].to_string())
                        } else {
                            i += 1;
                            args.get(i - 1)
                                .cloned()
                                .unwrap_or(Val::Known(String::new()))
                        };
                        let Val::Known(v) = value else {
                            return Err(
                                self.err(at, format!("cannot know the option -{c} of `{builtin}`"))
                            );
                        };
                        match c {
                            'a' => array = Some(v),
                            'd' => delim = v.chars().next(),
                            'n' | 'N' => count = Some((v, c == 'N')),
                            'u' => from_fd = true,
                            _ => {}
                        }
                        break;
                    }
                }
                if builtin != "read" {
                    let name = names.first().cloned().unwrap_or_else(|| "MAPFILE".into());
                    let reason = format!("`{builtin}` reads standard input, which is not knowable");
                    set(self, &name, vec![Val::Unknown(reason)], true);
                    return Ok(Status::Unknown(format!(
                        "the status of `{builtin}` is not knowable"
                    )));
                }
                // A here-string gives the input (with a newline added), else a pipe.
                let mut input: Option<Val> = self.stdin.take();
                for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
                    if let CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereString(
                        _,
                        w,
                    )) = it
                    {
                        input = Some(match self.str_of(w)? {
                            Val::Known(t) => Val::Known(t + "\n"),
                            u => u,
                        });
                    }
                    if let CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereDocument(
                        _,
                        doc,
                    )) = it
                    {
                        input = Some(if doc.requires_expansion {
                            expand::expand_string(
                                &mut self.st,
                                &super::launch::heredoc_as_double_quoted(&doc.doc.value),
                            )
                            .map_err(|m| self.err(at, m))?
                        } else {
                            Val::Known(doc.doc.value.clone())
                        });
                    }
                }
                if from_fd {
                    input = None;
                }
                let count = match count {
                    None => Ok(None),
                    Some((n, exact)) => n
                        .trim()
                        .parse::<usize>()
                        .map(|n| Some((n, exact)))
                        .map_err(|_| ()),
                };
                // `IFS=, read ...`: the prefix assignment is read's IFS.
                let mut ifs = self.st.ifs();
                for it in sc.prefix.iter().flat_map(|p| p.0.iter()) {
                    if let CommandPrefixOrSuffixItem::AssignmentWord(a, _) = it
                        && matches!(&a.name, AssignmentName::VariableName(n) if n == "IFS")
                        && let AssignmentValue::Scalar(w) = &a.value
                    {
                        ifs = match self.str_of(w)? {
                            Val::Known(t) => Ok(t),
                            Val::Unknown(r) => Err(r),
                        };
                    }
                }
                let known = match (input, ifs, count) {
                    (Some(Val::Known(t)), Ok(ifs), Ok(count)) if raw_mode || !t.contains('\\') => {
                        Some((t, ifs, count))
                    }
                    _ => None,
                };
                if names.is_empty() && array.is_none() {
                    names.push("REPLY".into());
                }
                let Some((text, ifs, count)) = known else {
                    let reason = format!("`{builtin}` reads standard input, which is not knowable");
                    if let Some(n) = &array {
                        set(self, n, vec![Val::Unknown(reason.clone())], true);
                    }
                    for n in &names {
                        set(self, n, vec![Val::Unknown(reason.clone())], false);
                    }
                    return Ok(Status::Unknown(format!(
                        "the status of `{builtin}` is not knowable"
                    )));
                };
                // The input up to the delimiter (`-d`, a newline by default;
                // `-d ''` reads to the end) or N characters (`-n N`; `-N N`
                // ignores the delimiter). Reaching the end first fails.
                let mut line = String::new();
                let mut complete = false;
                for c in text.chars() {
                    if count.is_some_and(|(n, _)| line.chars().count() >= n) {
                        complete = true;
                        break;
                    }
                    if Some(c) == delim && !count.is_some_and(|(_, exact)| exact) {
                        complete = true;
                        break;
                    }
                    line.push(c);
                }
                if count.is_some_and(|(n, _)| line.chars().count() >= n) {
                    complete = true;
                }
                let words = split_like_read(&line, &ifs);
                let mut ok = true;
                if let Some(a) = array {
                    ok &= set(self, &a, words.into_iter().map(Val::Known).collect(), true);
                } else if names.len() == 1 {
                    let blank: &[char] = &[' ', '\t', '\n'];
                    let trimmed = line
                        .trim_matches(|c: char| blank.contains(&c) && ifs.contains(c))
                        .to_string();
                    ok &= set(self, &names[0], vec![Val::Known(trimmed)], false);
                } else if ifs.chars().all(|c| matches!(c, ' ' | '\t' | '\n')) {
                    // The last name takes the rest of the line.
                    let mut rest = line.trim_start_matches(|c: char| ifs.contains(c));
                    for (k, n) in names.iter().enumerate() {
                        let v = if k + 1 == names.len() {
                            rest.trim_end_matches(|c: char| ifs.contains(c)).to_string()
                        } else {
                            let end = rest.find(|c: char| ifs.contains(c)).unwrap_or(rest.len());
                            let w = rest[..end].to_string();
                            rest = rest[end..].trim_start_matches(|c: char| ifs.contains(c));
                            w
                        };
                        ok &= set(self, n, vec![Val::Known(v)], false);
                    }
                } else {
                    let reason =
                        format!("`{builtin}` into several names with this $IFS is not evaluated");
                    for n in &names {
                        set(self, n, vec![Val::Unknown(reason.clone())], false);
                    }
                }
                Ok(if ok && complete {
                    Status::Ok
                } else {
                    Status::Fail
                })
            }
        }
    }

    /// `set` (options `-e`, `-f`, `-u` and their `-o` names, `-o pipefail`; `set -- ARGS` and `set
    /// ARGS` replace the positional parameters) and `shift [N]`.
    fn set_or_shift(
        &mut self,
        builtin: &str,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let mut args: Vec<Field> = Vec::new();
        for (w, _) in raw.iter().skip(1) {
            let range = self.word_range(w, at);
            args.extend(expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))?);
        }
        let val = |f: &Field| f.val();
        if builtin == "shift" {
            let n = match args.first() {
                None => Val::Known("1".into()),
                Some(f) => val(f),
            };
            let pos = &mut self.st.positional;
            let first_unknown = pos.iter().position(|v| matches!(v, Val::Unknown(_)));
            return Ok(match n {
                Val::Unknown(r) => {
                    *pos = vec![Val::Unknown(format!(
                        "`shift` by a count that is not knowable: {r}"
                    ))];
                    Status::Unknown(r)
                }
                Val::Known(t) => match t.trim().parse::<usize>() {
                    Err(_) => Status::Fail,
                    Ok(n) => match first_unknown {
                        Some(k) if n > k => {
                            let Val::Unknown(r) = pos[k].clone() else {
                                unreachable!()
                            };
                            *pos = vec![Val::Unknown(r)];
                            Status::Ok
                        }
                        _ if n > pos.len() => Status::Fail,
                        _ => {
                            pos.drain(..n);
                            Status::Ok
                        }
                    },
                },
            });
        }
        let mut i = 0;
        while let Some(f) = args.get(i) {
            if f.unknown.is_some() {
                break;
            }
            let t = f.text.as_str();
            if t == "--" {
                i += 1;
                self.st.positional = args[i..].iter().map(val).collect();
                return Ok(Status::Ok);
            }
            let Some(on) = (match t.chars().next() {
                Some('-') => Some(true),
                Some('+') => Some(false),
                _ => None,
            }) else {
                break;
            };
            if t == "-" {
                // `set -`: the rest are positional parameters.
                i += 1;
                self.st.positional = args[i..].iter().map(val).collect();
                return Ok(Status::Ok);
            }
            i += 1;
            for c in t[1..].chars() {
                match c {
                    'a' => self.st.allexport = on,
                    'e' => self.st.errexit = on,
                    'f' => self.st.noglob = on,
                    'u' => self.st.nounset = on,
                    'P' => self.st.physical = on,
                    'C' => self.st.noclobber = on,
                    'o' => {
                        let name = args.get(i).map(|f| f.text.clone()).unwrap_or_default();
                        i += 1;
                        self.set_option(&name, on);
                    }
                    _ => {}
                }
            }
        }
        if i < args.len() {
            self.st.positional = args[i..].iter().map(val).collect();
        }
        Ok(Status::Ok)
    }
}

/// A line split into words as `read -a` does with `ifs`.
fn split_like_read(line: &str, ifs: &str) -> Vec<String> {
    use super::fields::{Sep, ifs_split};
    let mut out = Vec::new();
    let mut cur = String::new();
    for (piece, sep) in ifs_split(line, ifs) {
        match sep {
            Sep::Blank if !cur.is_empty() => out.push(std::mem::take(&mut cur)),
            Sep::Hard => out.push(std::mem::take(&mut cur)),
            _ => {}
        }
        cur.push_str(piece);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

pub(super) fn first_var(raw: &str) -> Option<String> {
    let i = raw.find('$')?;
    let rest = raw[i + 1..].trim_start_matches('{');
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The largest index a keyed array element (`([K]=V)`) may have: arrays are
/// kept dense, so this bounds their length.
const MAX_ARRAY_KEY: i64 = 4096;

/// A value assigned to a `declare -u` (upper case), `-l` (lower case) or
/// `-c` (first letter upper, the rest lower) variable. Only ASCII text is
/// converted: other letters depend on the locale (unknown).
fn convert_case(name: &str, case: char, v: Val) -> Val {
    match v {
        Val::Known(t) if t.is_ascii() => Val::Known(match case {
            'u' => t.to_ascii_uppercase(),
            'l' => t.to_ascii_lowercase(),
            _ => {
                let lower = t.to_ascii_lowercase();
                let mut cs = lower.chars();
                cs.next()
                    .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                    .unwrap_or_default()
            }
        }),
        Val::Known(_) => Val::Unknown(format!(
            "${name} changes case on assignment (declare -{case}): for text that is not ASCII that depends on the locale"
        )),
        u => u,
    }
}
