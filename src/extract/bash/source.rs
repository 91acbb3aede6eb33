//! Code that runs in the current shell from another text: `source FILE` / `.
//! FILE` (read through the confined file layer), `eval TEXT`, and the bodies
//! of functions defined in another text. One mechanism ([`Interp::in_shell`])
//! runs them all: the same variables, functions, options, conditions and
//! jumps, with positions placed in the text the code was written in.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use brush_parser::ast;

use super::expand::{Val, expand_fields};
use super::{Flow, Interp, Status};
use crate::error::Error;
use crate::files::{Location, RemoteRef};
use crate::span::Source;

/// A file `source` read: its text, character index and program (once
/// parsed).
#[derive(Clone)]
struct Sourced {
    source: Arc<Source>,
    index: Arc<Vec<usize>>,
    program: Option<Arc<ast::Program>>,
}

thread_local! {
    /// The files `source` read in the evaluation running on this thread (its
    /// id, and the texts by location).
    static READ: RefCell<(u64, HashMap<String, Sourced>)> = RefCell::new((0, HashMap::new()));
}

impl Interp<'_> {
    /// Runs `f` over `source` (with its character index, when known) in this
    /// shell: it takes this interpreter's state, conditions, jumps and
    /// output, and gives them back, whatever `f` returns.
    pub(super) fn in_shell<R>(
        &mut self,
        source: &Arc<Source>,
        index: Option<Arc<Vec<usize>>>,
        f: impl FnOnce(&mut Interp<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        if Arc::ptr_eq(source, self.source) {
            return f(self);
        }
        let st = std::mem::take(&mut self.st);
        let index = index.unwrap_or_else(|| super::walk::index_of(source));
        let mut child = Interp::with_index(
            source,
            index,
            st,
            self.level,
            self.capture.take(),
            self.files,
        );
        child.script = self.script.clone();
        // `${BASH_SOURCE[0]}` there: a file's own name (an `eval` keeps the
        // file it runs in).
        let file = child.st.file.clone();
        if matches!(
            source.origin,
            crate::span::Origin::File(_) | crate::span::Origin::Url(_)
        ) {
            child.st.file = Some(source.origin.label());
        }
        child.conditions = std::mem::take(&mut self.conditions);
        child.flow = std::mem::take(&mut self.flow);
        child.frames = std::mem::take(&mut self.frames);
        child.frame_options = std::mem::take(&mut self.frame_options);
        child.capture_unknown = self.capture_unknown.take();
        child.depth = self.depth;
        child.loops = self.loops;
        child.errexit_ignored = self.errexit_ignored;
        child.evals = self.evals;
        child.sourcing = self.sourcing;
        child.last_status = self.last_status.clone();
        child.aliasing = std::mem::take(&mut self.aliasing);
        let result = f(&mut child);
        self.st = std::mem::take(&mut child.st);
        self.st.here = Some(self.source.clone());
        self.st.file = file;
        self.conditions = std::mem::take(&mut child.conditions);
        self.flow = std::mem::take(&mut child.flow);
        self.frames = std::mem::take(&mut child.frames);
        self.frame_options = std::mem::take(&mut child.frame_options);
        self.capture = child.capture.take();
        self.capture_unknown = child.capture_unknown.take();
        self.aliasing = std::mem::take(&mut child.aliasing);
        (self.stopped, self.abort_only) = (child.stopped, child.abort_only);
        [self.breaking, self.continuing, self.returning] =
            [child.breaking, child.continuing, child.returning];
        self.jump_levels = child.jump_levels;
        self.maybe_broke = child.maybe_broke.take();
        self.last_status = child.last_status.clone();
        let base = self.out.launches.len();
        self.out
            .unread
            .extend(child.out.unread.drain(..).map(|(n, note)| (n + base, note)));
        self.out.launches.append(&mut child.out.launches);
        self.out.unsupported.append(&mut child.out.unsupported);
        self.out.auxiliary.append(&mut child.out.auxiliary);
        self.out.recorded.append(&mut child.out.recorded);
        result
    }

    /// Runs the commands of a program until one ends it (`exit`, `return`,
    /// `break`, `continue`); the status of the last.
    pub(super) fn run_program(&mut self, program: &ast::Program) -> Result<Status, Error> {
        let mut status = Status::Ok;
        for cc in &program.complete_commands {
            self.reading_end = {
                use brush_parser::ast::SourceLocation;
                cc.location().map(|l| self.byte(&l.end)).unwrap_or(0)
            };
            status = self.list(cc)?;
            if self.stopped || self.returning || self.breaking || self.continuing {
                break;
            }
        }
        Ok(status)
    }

    /// Where a file named in this script is (`bash FILE`, `source FILE`): a
    /// remote reference, else the path as written when it is a readable file
    /// inside the root, else the path relative to the folder of the script
    /// being run (a sourced file runs in its shell, with its working
    /// folder). The
    /// existence checks go through the confined layer: a path outside the
    /// root is not readable, whether or not a file is there.
    pub(super) fn locate(&self, target: &str) -> Result<Location, String> {
        let Some(me) = Location::of_origin(&self.script.origin) else {
            return Err("this text is not a file".into());
        };
        // After `cd DIR`, a relative path is found from DIR.
        let joined;
        let target = match &self.st.cwd {
            _ if target.starts_with('/') || RemoteRef::parse(target).is_some() => target,
            None => target,
            Some(Val::Known(dir)) => {
                joined = format!("{}/{target}", dir.trim_end_matches('/'));
                joined.as_str()
            }
            Some(Val::Unknown(r)) => {
                return Err(format!("the working folder is not knowable ({r})"));
            }
        };
        Ok(match (RemoteRef::parse(target), &me) {
            (Some(Ok(r)), _) => Location::Remote(r),
            (Some(Err(m)), _) => return Err(m),
            (None, Location::Path(_)) => {
                let direct = Location::Path(PathBuf::from(target));
                let here = self.files.is_file(&direct);
                if matches!(here, Ok(true)) {
                    return Ok(direct);
                }
                let beside = me.parent().join(target);
                // A refused path stays refused (its read says so) unless the
                // script's folder has the file: the answer never depends on
                // whether a file outside the root exists.
                if here.is_ok() || matches!(self.files.is_file(&beside), Ok(true)) {
                    beside
                } else {
                    direct
                }
            }
            // A remote script's siblings are remote: never a file on this disk.
            (None, Location::Remote(_)) => me.parent().join(target),
        })
    }

    /// `source FILE ARGS...` / `. FILE ARGS...`: a harness library (the
    /// harness recognises it by its path as written) exports what the harness
    /// says; any other file is read through the confined file layer and run
    /// in this shell, with `ARGS` as the positional parameters while it runs.
    /// A file that cannot be read makes what follows conditional, with the
    /// file and the reason.
    pub(super) fn source_file(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let Some((word, _)) = raw.get(1) else {
            // "filename argument required".
            return Ok(Status::Fail);
        };
        if let Some(exports) = self.st.harness().sourced(&word.value) {
            for (name, default) in exports {
                if !self.st.vars.contains_key(&name) {
                    self.st.set_scalar(&name, Val::Known(default));
                }
                self.st.exported.insert(name);
            }
            return Ok(Status::Ok);
        }
        let mut fields = Vec::new();
        for (w, _) in raw.iter().skip(1) {
            let range = self.word_range(w, at);
            fields.extend(expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))?);
        }
        let Some(file) = fields.first() else {
            return Ok(Status::Fail);
        };
        if let Some(r) = &file.unknown {
            let what = format!("a file whose path is not knowable ({r})");
            return Ok(self.not_sourced(at, &what));
        }
        let target = file.text.clone();
        let (source, index, program, _call) = match self.written_text(&target) {
            // `cat > gen.sh <<EOF ... EOF`: the text the script wrote.
            Some((text, from)) => {
                super::budget::built(text.len()).map_err(|m| self.err(at, m))?;
                let source = Arc::new(Source::new(
                    crate::span::Origin::Inline(format!("{target} as written at {from}")),
                    text,
                ));
                let call = super::budget::enter_call().map_err(|m| self.err(at, m))?;
                let program = super::capture::program_of(&source)?;
                let index = super::walk::index_of(&source);
                (source, index, program, call)
            }
            None => {
                if let Some(why) = self.source_lookup(&target) {
                    let what = format!("{target}, which is not read ({why})");
                    return Ok(self.not_sourced(at, &what));
                }
                let read = self
                    .locate(&target)
                    .and_then(|loc| self.read_cached(&loc).map(|r| (loc, r)));
                let (loc, read) = match read {
                    Ok(r) => r,
                    Err(why) => {
                        // A path outside the root is refused, as every read
                        // is (whether or not a file is there).
                        if let Ok(Location::Path(p)) = self.locate(&target)
                            && let Err(e) = crate::files::admit(&p)
                        {
                            return Err(self.err(at, format!("`source {target}`: {}", plain(&e))));
                        }
                        let what = format!("{target}, which is not read ({why})");
                        return Ok(self.not_sourced(at, &what));
                    }
                };
                let call = super::budget::enter_call().map_err(|m| self.err(at, m))?;
                let program = match &read.program {
                    Some(p) => p.clone(),
                    None => {
                        let p = super::capture::program_of(&read.source)?;
                        let key = loc.display();
                        READ.with(|c| {
                            if let Some(e) = c.borrow_mut().1.get_mut(&key) {
                                e.program = Some(p.clone());
                            }
                        });
                        p
                    }
                };
                (read.source.clone(), read.index.clone(), program, call)
            }
        };
        let args: Option<Vec<Val>> =
            (fields.len() > 1).then(|| fields[1..].iter().map(|f| f.val()).collect());
        let saved = args.map(|a| std::mem::replace(&mut self.st.positional, a));
        let flow = self.flow.len();
        self.sourcing += 1;
        self.st.funcname.push(("source".into(), false));
        let r = self.in_shell(&source, Some(index), |it| it.run_program(&program));
        self.st.funcname.pop();
        self.sourcing -= 1;
        // A `return` there ends the sourced file only.
        self.returning = false;
        let r = match r {
            Ok(s) => self.run_return_trap(&None, false, at).map(|_| s),
            e => e,
        };
        let tail = self.flow.split_off(flow.min(self.flow.len()));
        self.flow
            .extend(tail.into_iter().filter(|(f, _, _)| *f != Flow::Return));
        if let Some(p) = saved {
            self.st.positional = p;
        }
        r
    }

    /// Why `source TARGET` would not read TARGET as committed, if it would
    /// not: a process substitution (`<(...)`), a file the script wrote,
    /// removed or moved before, or a name without a slash that bash looks
    /// up in `$PATH` first when the script changed `$PATH` (a `$PATH` the
    /// script did not set holds the machine's program folders, not the
    /// repository's files).
    fn source_lookup(&self, target: &str) -> Option<String> {
        if target.starts_with("/dev/fd/") || target.starts_with("/proc/") {
            return Some(
                "a process substitution or a descriptor, whose text is not knowable".into(),
            );
        }
        if let Some(r) = self.changed(target) {
            return Some(r);
        }
        if target.contains('/') || !self.st.assigned.contains_key("PATH") {
            return None;
        }
        match self.st.get("PATH").and_then(|v| v.into_iter().next()) {
            Some(Val::Known(path)) => {
                let cur = self.cwd_text().unwrap_or_default();
                for entry in path.split(':').filter(|e| !e.starts_with('/')) {
                    let candidate = crate::launch::logical_join(entry, target);
                    let key = crate::launch::logical_join(&cur, &candidate);
                    if let Ok(loc) = self.locate(&key)
                        && matches!(self.files.is_file(&loc), Ok(true))
                        && key != crate::launch::logical_join(&cur, target)
                    {
                        return Some(format!(
                            "bash finds {target} in $PATH first, as {candidate}, which is not evaluated"
                        ));
                    }
                }
                None
            }
            Some(Val::Unknown(r)) => Some(format!(
                "a name without a slash is looked up in $PATH first, and $PATH is not knowable: {r}"
            )),
            None => None,
        }
    }

    /// A file read for `source`, once per evaluation (a loop may source it
    /// many times): its bytes count against the built-bytes budget when read.
    fn read_cached(&self, loc: &Location) -> Result<Sourced, String> {
        let key = loc.display();
        let evaluation = super::budget::evaluation();
        let hit = READ.with(|c| {
            let mut c = c.borrow_mut();
            if c.0 != evaluation {
                *c = (evaluation, HashMap::new());
            }
            c.1.get(&key).cloned()
        });
        if let Some(s) = hit {
            return Ok(s);
        }
        let source = self.files.read(loc).map_err(|e| plain(&e))?;
        super::budget::built(source.text.len())?;
        let read = Sourced {
            index: super::walk::index_of(&source),
            source,
            program: None,
        };
        READ.with(|c| c.borrow_mut().1.insert(key, read.clone()));
        Ok(read)
    }

    /// A `source` whose file is not read: the file may set any variable,
    /// define any function, or exit. Every variable it could set is unknown
    /// from here on, and what follows runs under a condition naming it.
    fn not_sourced(&mut self, at: usize, what: &str) -> Status {
        self.not_read(at, "source", what, "file")
    }

    /// Code run in this shell that is not read (`cmd` of `what`: a `source`
    /// of a file that is not read, an `eval` of text that is not knowable):
    /// it may set or export any variable, define any function, exit, or
    /// start a server. Every variable it could set is unknown from here on,
    /// what follows runs under a condition naming it, and, unless a launch
    /// follows it, it is listed with the unsupported launches.
    pub(super) fn not_read(&mut self, at: usize, cmd: &str, what: &str, kind: &str) -> Status {
        let line = self.source.line_col(at).line;
        self.st
            .clobber(&format!("the `{cmd}` of {what} on line {line}"));
        let reason = format!(
            "line {line}: `{cmd}` of {what}: what follows depends on what that {kind} does"
        );
        self.conditions.push(reason.clone());
        let span = self.source.span(at, at);
        let note = format!(
            "{span}: `{cmd}` runs code recipe-drift cannot read ({what}), which may start a server: {}",
            crate::launch::NOT_MODELLED
        );
        self.out.unread.push((self.out.launches.len(), note));
        Status::Unknown(reason)
    }
}

/// An error's message without its position (the caller places it).
fn plain(e: &Error) -> String {
    match e {
        Error::Input { message, .. } => message.clone(),
        other => other.to_string(),
    }
}
