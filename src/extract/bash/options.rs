//! Builtins that change how later commands run: `shopt` (`extglob`,
//! `nocasematch`, `lastpipe`, `expand_aliases`), `alias` / `unalias`,
//! `trap` (an EXIT trap runs when the script ends, a RETURN trap when a
//! function or sourced file returns; DEBUG and ERR traps run code around
//! other commands that is not evaluated, which may set any variable and
//! makes what follows conditional) and `unset` (variables with bash's
//! dynamic scoping, array elements, functions, references).

use std::sync::Arc;

use brush_parser::ast;

use super::expand::{Val, expand_fields};
use super::{Interp, Status, status_of};
use crate::error::Error;

/// The words of a command after its name, expanded.
type Args = Vec<Val>;

impl Interp<'_> {
    /// The expanded arguments of a command (its words after the first).
    pub(super) fn args_of(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Args, Error> {
        let mut args = Vec::new();
        for (w, _) in raw.iter().skip(1) {
            let range = self.word_range(w, at);
            for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))? {
                args.push(match f.unknown {
                    Some(r) => Val::Unknown(r),
                    None => Val::Known(f.text),
                });
            }
        }
        Ok(args)
    }

    /// A builtin whose arguments are not knowable changes what it changes in
    /// a way that is not knowable: what follows runs under that condition.
    fn not_knowable(&mut self, at: usize, builtin: &str, r: &str) -> Status {
        let line = self.source.line_col(at).line;
        let reason = format!(
            "line {line}: `{builtin}` with an argument that is not knowable ({r}): what follows depends on what it changes"
        );
        self.conditions.push(reason.clone());
        Status::Unknown(reason)
    }

    /// `shopt [-s|-u|-q|-o] NAMES...`: options on (`-s`) or off (`-u`); a
    /// query's status says whether all are on. `-o` names `set -o` options.
    pub(super) fn shopt(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let args = self.args_of(raw, at)?;
        let mut set: Option<bool> = None;
        let mut set_o = false;
        let mut names = Vec::new();
        for a in &args {
            let Val::Known(t) = a else {
                let Val::Unknown(r) = a else { unreachable!() };
                return Ok(self.not_knowable(at, "shopt", r));
            };
            match t.strip_prefix('-') {
                Some(flags) if !flags.is_empty() && names.is_empty() => {
                    for c in flags.chars() {
                        match c {
                            's' => set = Some(true),
                            'u' => set = Some(false),
                            'o' => set_o = true,
                            _ => {}
                        }
                    }
                }
                _ => names.push(t.clone()),
            }
        }
        if set_o {
            return Ok(match set {
                Some(on) => {
                    for n in &names {
                        self.set_option(n, on);
                    }
                    Status::Ok
                }
                None => status_of(names.iter().all(|n| self.option_on(n))),
            });
        }
        Ok(match set {
            Some(on) => {
                for n in names {
                    if on {
                        self.st.shopt_off.remove(&n);
                        self.st.shopt.insert(n);
                    } else {
                        self.st.shopt.remove(&n);
                        self.st.shopt_off.insert(n);
                    }
                }
                Status::Ok
            }
            None => status_of(names.iter().all(|n| self.st.shopt.contains(n))),
        })
    }

    /// `set -o NAME` / `set +o NAME` for the options the evaluator models.
    pub(super) fn set_option(&mut self, name: &str, on: bool) {
        match name {
            "errexit" => self.st.errexit = on,
            "noglob" => self.st.noglob = on,
            "pipefail" => self.st.pipefail = on,
            "allexport" => self.st.allexport = on,
            "nounset" => self.st.nounset = on,
            "physical" => self.st.physical = on,
            "noclobber" => self.st.noclobber = on,
            _ => {}
        }
    }

    /// Whether a `set -o` option is on.
    fn option_on(&self, name: &str) -> bool {
        match name {
            "errexit" => self.st.errexit,
            "noglob" => self.st.noglob,
            "pipefail" => self.st.pipefail,
            "allexport" => self.st.allexport,
            "nounset" => self.st.nounset,
            "physical" => self.st.physical,
            "noclobber" => self.st.noclobber,
            _ => false,
        }
    }

    /// `alias NAME=TEXT...` defines aliases (used under `shopt -s
    /// expand_aliases`); `unalias NAME...` / `unalias -a` removes them.
    pub(super) fn alias(
        &mut self,
        builtin: &str,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let args = self.args_of(raw, at)?;
        let mut status = Status::Ok;
        for a in &args {
            let Val::Known(t) = a else {
                let Val::Unknown(r) = a else { unreachable!() };
                return Ok(self.not_knowable(at, builtin, r));
            };
            if builtin == "unalias" {
                if t == "-a" {
                    self.st.aliases.clear();
                } else if self.st.aliases.remove(t).is_none() {
                    status = Status::Fail;
                }
                continue;
            }
            match t.split_once('=') {
                Some((name, text)) if !name.is_empty() => {
                    self.st.aliases.insert(name.to_string(), text.to_string());
                    self.st
                        .alias_at
                        .insert(name.to_string(), (self.source.clone(), self.reading_end));
                }
                // `alias NAME` prints it.
                _ if self.st.aliases.contains_key(t) || t == "-p" => {}
                _ => status = Status::Fail,
            }
        }
        Ok(status)
    }

    /// The text a simple command runs as after alias expansion (`shopt -s
    /// expand_aliases` and a command word that is an alias, not quoted and
    /// not expanded inside its own text): its prefix assignments, the
    /// alias's text, and its other words as written.
    pub(super) fn alias_text(&self, sc: &ast::SimpleCommand) -> Option<(String, String)> {
        if !self.st.shopt.contains("expand_aliases") {
            return None;
        }
        let word = sc.word_or_name.as_ref()?;
        let name = &word.value;
        let text = self.st.aliases.get(name)?;
        if self.aliasing.contains(name) {
            return None;
        }
        // A command read before the alias was defined (the rest of the
        // complete command that defines it, or code above it) is not
        // expanded.
        if let Some((src, end)) = self.st.alias_at.get(name)
            && std::sync::Arc::ptr_eq(src, self.source)
            && word
                .loc
                .as_ref()
                .is_some_and(|l| self.byte(&l.start) < *end)
        {
            return None;
        }
        let mut words: Vec<&str> = Vec::new();
        for it in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match it {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w)
                | ast::CommandPrefixOrSuffixItem::Word(w) => words.push(&w.value),
                _ => {}
            }
        }
        words.push(text);
        for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match it {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w)
                | ast::CommandPrefixOrSuffixItem::Word(w) => words.push(&w.value),
                _ => {}
            }
        }
        Some((name.clone(), words.join(" ")))
    }

    /// Runs a simple command as its alias's text (see [`Self::alias_text`]).
    pub(super) fn run_alias(
        &mut self,
        name: String,
        text: String,
        at: usize,
    ) -> Result<Status, Error> {
        self.aliasing.push(name.clone());
        let r = self.run_text(text, &format!("alias {name}"), at);
        self.aliasing.pop();
        r
    }

    /// `trap CODE SIGNALS...`: an EXIT trap's code runs when the script ends
    /// (evaluated then), a RETURN trap's when a function or sourced file
    /// returns; DEBUG and ERR traps run code around other commands, which
    /// is not evaluated: it may have set any variable, and what follows
    /// runs under that condition. Other signals never arrive in a static run.
    pub(super) fn trap(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let args = self.args_of(raw, at)?;
        let mut rest = args.as_slice();
        if let Some(Val::Known(t)) = rest.first()
            && t == "--"
        {
            rest = &rest[1..];
        }
        let [code, signals @ ..] = rest else {
            return Ok(Status::Ok);
        };
        // The code as written (the first word after `trap` and `--`).
        let written = raw
            .iter()
            .skip(1)
            .map(|(w, _)| w.value.as_str())
            .find(|w| *w != "--")
            .unwrap_or_default();
        // A function of the script may do anything.
        let calls_function = written
            .trim_start_matches(['"', '\''])
            .split(|c: char| c.is_whitespace() || c == ';' || c == '"' || c == '\'')
            .next()
            .is_some_and(|f| self.st.functions.contains_key(f));
        if let Val::Known(t) = code
            && t.starts_with('-')
            && t != "-"
        {
            // `trap -l` / `trap -p`: they print.
            return Ok(Status::Ok);
        }
        let line = self.source.line_col(at).line;
        for sig in signals {
            let Val::Known(sig) = sig else {
                let Val::Unknown(r) = sig else { unreachable!() };
                return Ok(self.not_knowable(at, "trap", r));
            };
            let name = sig.to_ascii_uppercase();
            let name = name.strip_prefix("SIG").unwrap_or(&name);
            let clears = matches!(code, Val::Known(t) if t.is_empty() || t == "-");
            match name {
                "EXIT" | "0" => {
                    self.st.exit_trap = match code {
                        _ if clears => None,
                        Val::Known(t) => Some(Val::Known(t.clone())),
                        // Code that is not knowable but, as written, cannot
                        // start a server (`"kill $SERVER_PID"`): it runs
                        // after everything else, so nothing it does matters.
                        Val::Unknown(_) if !could_launch(written) && !calls_function => None,
                        Val::Unknown(r) => Some(Val::Unknown(format!(
                            "the EXIT trap set on line {line} runs code that is not knowable and may start a server: {r}"
                        ))),
                    };
                }
                "RETURN" => {
                    self.st.return_trap = match code {
                        _ if clears => None,
                        Val::Known(t) => Some(Val::Known(t.clone())),
                        Val::Unknown(r) => Some(Val::Unknown(format!(
                            "the RETURN trap set on line {line} runs code that is not knowable: {r}"
                        ))),
                    };
                }
                // `:` does nothing wherever it runs.
                "DEBUG" | "ERR" if !clears && !matches!(code, Val::Known(t) if t.trim() == ":") => {
                    let when = match name {
                        "DEBUG" => "before every command",
                        _ => "after every command that fails",
                    };
                    // The code may set or export any variable before what
                    // follows runs: as an unread `source` does.
                    self.st.clobber(&format!(
                        "the {name} trap set on line {line}, whose code runs {when} and is not evaluated"
                    ));
                    self.conditions.push(format!(
                        "line {line}: `trap ... {name}` runs code {when}, which is not evaluated: what follows depends on it"
                    ));
                }
                _ => {}
            }
        }
        Ok(Status::Ok)
    }

    /// Runs the RETURN trap as a function or a sourced file returns, when
    /// it is set (`before`: the trap before the call; a function runs only
    /// one it set itself, as functions do not inherit it). Code that is not
    /// knowable may set any variable.
    pub(super) fn run_return_trap(
        &mut self,
        before: &Option<Val>,
        function: bool,
        at: usize,
    ) -> Result<(), Error> {
        if function && self.st.return_trap == *before {
            return Ok(());
        }
        let Some(code) = self.st.return_trap.clone() else {
            return Ok(());
        };
        match code {
            Val::Known(text) => {
                let saved = (self.stopped, self.abort_only, self.returning);
                self.returning = false;
                self.run_text(text, "trap RETURN", at)?;
                if !self.stopped {
                    (self.stopped, self.abort_only, self.returning) = saved;
                }
            }
            Val::Unknown(r) => self.st.clobber(&r),
        }
        Ok(())
    }

    /// Runs the EXIT trap, if one is set, as the script ends.
    pub(super) fn run_exit_trap(&mut self) -> Result<(), Error> {
        let Some(code) = self.st.exit_trap.take() else {
            return Ok(());
        };
        let at = self.source.text.len();
        match code {
            Val::Known(text) => {
                (self.stopped, self.abort_only) = (false, false);
                [self.breaking, self.continuing, self.returning] = [false; 3];
                self.run_text(text, "trap EXIT", at)?;
            }
            Val::Unknown(r) => {
                // Nothing follows to mark: the trap's own effects are what
                // is missing.
                return Err(self.err(
                    at,
                    format!("cannot evaluate what the script does as it ends: {r}"),
                ));
            }
        }
        Ok(())
    }

    /// `unset [-v|-f|-n] NAMES...`: variables (through references), array
    /// elements (`A[i]`: the last element is removed, another makes the
    /// array unknown, as the evaluator keeps arrays dense), functions
    /// (`-f`), references themselves (`-n`). A readonly variable fails.
    pub(super) fn unset(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let mut args = Vec::new();
        for (w, _) in raw.iter().skip(1) {
            let range = self.word_range(w, at);
            args.extend(expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))?);
        }
        let mut status = Status::Ok;
        let (mut funcs, mut refs) = (false, false);
        for a in &args {
            let n = &a.text;
            if let Some(r) = &a.unknown {
                // `unset a[0]`: a pathname pattern. bash unsets what the word
                // names when no file matches it, and the variables named
                // like the files that match: which, files are never read.
                if !funcs
                    && !refs
                    && super::fields::is_pattern(n)
                    && super::fields::is_glob_reason(r)
                {
                    self.unset_maybe(n, at);
                    status = Status::Unknown(format!(
                        "`unset {n}`: the word is a pathname pattern, and files are never read"
                    ));
                    continue;
                }
                return Ok(self.not_knowable(at, "unset", r));
            }
            if let Some(flags) = n.strip_prefix('-') {
                funcs |= flags.contains('f');
                refs |= flags.contains('n');
                continue;
            }
            if funcs {
                self.st.functions.remove(n);
                continue;
            }
            if refs {
                self.st.namerefs.remove(n);
                continue;
            }
            if let Some((name, index)) = n.strip_suffix(']').and_then(|x| x.split_once('[')) {
                status = self.unset_element(name, index, at);
                continue;
            }
            if self.st.is_readonly(n) {
                status = Status::Fail;
                continue;
            }
            let target = self.st.resolve(n).unwrap_or_else(|_| n.clone());
            if !self.st.vars.contains_key(&target) && self.st.functions.contains_key(&target) {
                // No variable of that name: the function of that name is
                // unset. Where the environment is not complete, it may hold
                // a variable of that name (then that variable is unset and
                // the function stays): what follows runs on that condition.
                if !self.st.complete_env {
                    let line = self.source.line_col(at).line;
                    self.conditions.push(format!(
                        "line {line}: `unset {target}` unsets the function {target} if the environment has no variable {target}"
                    ));
                }
                self.st.functions.remove(&target);
            }
            self.unset_variable(&target);
        }
        Ok(status)
    }

    /// `unset PATTERN` (an unquoted pathname pattern): what the word names
    /// (a variable or an element) and every variable whose name the
    /// pattern matches (a file of that name would) may be unset: each is
    /// unknown from here, with the reason.
    fn unset_maybe(&mut self, pattern: &str, at: usize) {
        let line = self.source.line_col(at).line;
        let reason = format!(
            "line {line}: `unset {pattern}` unsets it only if no file in the working folder matches the pathname pattern {pattern:?} (files are never read)"
        );
        let opts = self.st.pattern_options(false, false);
        let literal = pattern.split_once('[').map_or(pattern, |(n, _)| n);
        let mut names: Vec<String> = self
            .st
            .vars
            .keys()
            .filter(|n| {
                *n == literal || super::glob::pattern_match(pattern, n, opts).unwrap_or(true)
            })
            .cloned()
            .collect();
        names.retain(|n| !self.st.is_readonly(n));
        for n in names {
            let n = self.st.resolve(&n).unwrap_or(n);
            self.st.set_whole(&n, Val::Unknown(reason.clone()));
        }
    }

    /// Unsets a variable with bash's dynamic scoping: a `local` of the
    /// function running now stays local and unset, while the variable it
    /// shadows still reaches the environment of the commands it runs when
    /// exported; a `local` of a calling function is removed, and the
    /// variable it shadowed is seen again (bash 5.2, `localvar_unset` off).
    fn unset_variable(&mut self, target: &str) {
        if target == "FUNCNAME" {
            self.st.funcname_unset = true;
        }
        let frame = self
            .frames
            .iter()
            .rposition(|f| f.iter().any(|(n, _)| n == target));
        let Some(i) = frame else {
            self.st.vars.remove(target);
            self.st.exported.remove(target);
            return;
        };
        let first = self.frames[i].iter().position(|(n, _)| n == target);
        let Some(first) = first else { return };
        if i + 1 == self.frames.len() {
            let outer = self.frames[i][first].1.clone();
            let outer_exported = outer.exported;
            self.st.vars.remove(target);
            self.st.spans.remove(target);
            // An environment report places the value where the caller set it.
            match (outer.assigned, outer.written) {
                (Some(a), w) => {
                    self.st.assigned.insert(target.to_string(), a);
                    match w {
                        Some(w) => self.st.written.insert(target.to_string(), w),
                        None => self.st.written.remove(target),
                    };
                }
                (None, _) => {
                    self.st.assigned.remove(target);
                }
            }
            if outer_exported {
                self.st.exported.insert(target.to_string());
            } else {
                self.st.exported.remove(target);
            }
            return;
        }
        let (name, shadowed) = self.frames[i].remove(first);
        self.frames[i].retain(|(n, _)| n != target);
        self.st.restore(name, shadowed);
    }

    /// `unset 'A[i]'`.
    fn unset_element(&mut self, name: &str, index: &str, at: usize) -> Status {
        if self.st.is_readonly(name) {
            return Status::Fail;
        }
        let target = self.st.resolve(name).unwrap_or_else(|_| name.to_string());
        if index == "@" || index == "*" {
            self.st.vars.remove(&target);
            return Status::Ok;
        }
        let Some(cur) = self.st.vars.get(&target).cloned() else {
            return Status::Ok;
        };
        let i = match super::expand::arith_text(&mut self.st, index) {
            Ok(i) if i < 0 => cur.len() as i64 + i,
            Ok(i) => i,
            Err(r) => {
                let line = self.source.line_col(at).line;
                self.st.set_whole(
                    &target,
                    Val::Unknown(format!(
                        "line {line}: an element of {name} is unset at an index that is not knowable: {r}"
                    )),
                );
                return Status::Ok;
            }
        };
        let len = cur.len() as i64;
        if i < 0 || i >= len {
            return Status::Ok;
        }
        let mut v = cur.as_ref().clone();
        if i + 1 == len {
            v.pop();
            self.st.vars.insert(target.clone(), Arc::new(v));
            if let Some(spans) = self.st.spans.get(&target) {
                let mut s = spans.as_ref().clone();
                s.truncate(len as usize - 1);
                self.st.spans.insert(target, Arc::new(s));
            }
        } else {
            let line = self.source.line_col(at).line;
            self.st.set_whole(
                &target,
                Val::Unknown(format!(
                    "line {line}: element {i} of {name} is unset, leaving a gap (sparse arrays are not evaluated)"
                )),
            );
        }
        Status::Ok
    }
}

/// Whether trap code as written may start a server: its first word is an
/// expansion or runs other code (`eval`, `bash`, `exec`, ...), or a word
/// names a launcher or an interpreter.
fn could_launch(written: &str) -> bool {
    let text: String = written
        .chars()
        .map(|c| {
            if matches!(c, '"' | '\'' | ';' | '&' | '|' | '(' | ')') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<&str> = text.split_whitespace().collect();
    let runs_code = |w: &str| {
        w.starts_with('$')
            || w.starts_with('`')
            || matches!(
                w.rsplit('/').next().unwrap_or(w),
                "eval" | "bash" | "sh" | "exec" | "source" | "." | "command" | "env" | "nohup"
            )
    };
    words.first().is_none_or(|w| runs_code(w))
        || words.iter().any(|w| {
            let base = w.rsplit('/').next().unwrap_or(w);
            base.starts_with("python")
                || base.starts_with("sglang")
                || base.starts_with("vllm")
                || base.contains("launch_server")
                || crate::launch::detect_launcher(&[base], false).is_some()
        })
}
