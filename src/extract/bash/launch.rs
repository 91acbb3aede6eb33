//! Launch recognition: wrappers (`exec`, `env K=V`, `docker run`, ...),
//! delegation to another script (`bash other.sh`), and the `sglang serve` /
//! `vllm serve` command lines with their environment.

use std::collections::BTreeMap;

use brush_parser::ast::{self, AssignmentName, AssignmentValue};

use super::Interp;
use super::environ::{EnvMods, Operand};
use super::evaluate_at;
use super::expand::{Field, Val, expand_string};
use crate::error::Error;
use crate::launch::{Context, EnvVar, Launch, Provenance, Token};

/// How a child shell (`bash FILE`, `bash -c TEXT`) starts: its `set`
/// options from its command line and its `$0`.
#[derive(Debug, Default, Clone)]
pub(super) struct Shell {
    /// `-e`, `-u`, `-f`, `-o NAME` (on) and their `+` forms (off).
    pub options: Vec<(String, bool)>,
    /// `$0` (`bash -c TEXT NAME`), else the script's name.
    pub zero: Option<Val>,
    /// The file relative paths are found beside, when the script is not a
    /// file (`bash -c TEXT`, a script on standard input): the caller's.
    pub script: Option<std::sync::Arc<crate::span::Source>>,
    /// A non-interactive bash (not `sh`, `--posix` or `-p`): it sources the
    /// file its `BASH_ENV` names before its script.
    pub reads_bash_env: bool,
    /// Startup files outside the text run first (`bash -l`: the profile
    /// files; `bash -i`: the rc file; a `BASH_ENV` that is not knowable):
    /// every variable of the child is unknown, with this as the cause.
    pub open: Option<String>,
    /// The file to source before the script (a known `BASH_ENV`).
    pub startup: Option<String>,
    /// Run by `sh` or `dash` (a command or a `#!/bin/sh` line), which may not
    /// be bash: why (`environ::BASH_ONLY`).
    pub sh: Option<String>,
    /// The files the caller changed before it runs the script, keyed from
    /// the folder the script starts in.
    pub written: crate::launch::Written,
    /// Variables the shell starts with, set after the environment
    /// ([`super::evaluate_text`]).
    pub preset: Vec<super::Preset>,
    /// Give the variables as the text leaves them ([`Evaluation::vars`](super::Evaluation)).
    pub keep_vars: bool,
}

/// What a command reads on standard input, for `bash` with no script operand
/// (`bash < x.sh`, `echo CMD | bash`, `bash <<< CMD`).
#[derive(Debug, Clone)]
pub(super) enum Input {
    /// `< FILE`: the word naming the file and where it is written (expanded
    /// only when a shell reads it).
    File(ast::Word, usize),
    /// A here-string (expanded only when a shell reads it).
    HereString(ast::Word),
    /// A here-document whose body is expanded (an unquoted delimiter),
    /// expanded only when a shell reads it.
    HereDoc(String),
    /// A quoted here-document or a pipe: the text.
    Text(Val),
}

/// The shells whose `FILE` / `-c TEXT` / standard input is evaluated as a script.
pub(super) const SHELLS: &[&str] = &["bash", "sh", "dash"];

impl Interp<'_> {
    /// Evaluates a script run by a child shell (`bash FILE ARGS...`, `bash -c
    /// TEXT`, `bash < FILE`), with the variables exported here (unless `env -i`)
    /// plus `env K=V`, and `ARGS` as its positional parameters.
    fn run_child(
        &mut self,
        source: &std::sync::Arc<crate::span::Source>,
        args: Vec<Val>,
        mods: &EnvMods,
        shell: &Shell,
        at: usize,
    ) -> Result<(), Error> {
        let max = super::budget::fixed::MAX_DELEGATION_DEPTH;
        if self.level >= max {
            return Err(self.err(
                at,
                format!(
                    "scripts delegate to each other too deeply (more than {max} `bash other.sh`)"
                ),
            ));
        }
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        let mut unknown: BTreeMap<String, String> = BTreeMap::new();
        for name in self.st.exported.iter().filter(|n| mods.passes(n)) {
            match self.exported_value(name) {
                Some(Val::Known(v)) => {
                    env.insert(name.clone(), v);
                }
                Some(Val::Unknown(r)) => {
                    unknown.insert(name.clone(), r);
                }
                None => {}
            }
        }
        for k in &mods.unset {
            env.remove(k);
            unknown.remove(k);
        }
        for (k, v) in &mods.prefix {
            env.remove(k);
            unknown.remove(k);
            match v {
                Val::Known(t) => env.insert(k.clone(), t.clone()),
                Val::Unknown(r) => unknown.insert(k.clone(), r.clone()),
            };
        }
        for (k, v, _) in &mods.set {
            env.remove(k);
            unknown.remove(k);
            match v {
                Val::Known(t) => env.insert(k.clone(), t.clone()),
                Val::Unknown(r) => unknown.insert(k.clone(), r.clone()),
            };
        }
        for (k, v, _) in &mods.fallback {
            if !env.contains_key(k) && !unknown.contains_key(k) {
                match v {
                    Val::Known(t) => env.insert(k.clone(), t.clone()),
                    Val::Unknown(r) => unknown.insert(k.clone(), r.clone()),
                };
            }
        }
        let mut shell = shell.clone();
        if shell.reads_bash_env && shell.open.is_none() {
            match (env.get("BASH_ENV"), unknown.get("BASH_ENV")) {
                (Some(p), _) if p.contains(['$', '`']) => {
                    shell.open = Some(format!(
                        "the `BASH_ENV` file {p} the child bash sources first (bash expands that value, which is not modelled)"
                    ));
                }
                (Some(p), _) if !p.is_empty() => shell.startup = Some(p.clone()),
                (None, Some(r)) => {
                    shell.open = Some(format!(
                        "the `BASH_ENV` file the child bash sources first, whose path is not knowable ({r})"
                    ));
                }
                _ => {}
            }
        }
        if let Some(why) = &shell.open {
            // Startup files outside the text run before the script: the
            // caller's variables may no longer hold what it passed.
            for (k, _) in std::mem::take(&mut env) {
                let r = format!("${k} {}{why}", super::CLOBBERED_PREFIX);
                unknown.insert(k, r);
            }
        }
        // The child sees the files this shell changed, and what it changes
        // stays changed here (its keys start from its own folder).
        let (here, there) = (
            self.start_folder(),
            super::paths::start_of(shell.script.as_deref().unwrap_or(source)),
        );
        let shell = Shell {
            written: super::paths::rebase(&self.st.touched, here.as_deref(), there.as_deref()),
            // Its variables come from the environment alone.
            preset: Vec::new(),
            keep_vars: false,
            ..shell
        };
        let inner = evaluate_at(
            source,
            args,
            &env,
            &unknown,
            self.level + 1,
            self.st.complete_env,
            self.files,
            self.st.harness(),
            &shell,
            shell
                .open
                .as_ref()
                .or(mods.open.as_ref())
                .map(|why| format!("{}{why}", super::CLOBBERED_PREFIX))
                .or_else(|| self.st.clobbered.clone().filter(|_| !mods.clear)),
        )?;
        self.st.touched = super::paths::rebase(&inner.written, there.as_deref(), here.as_deref());
        let mut launches = inner.launches;
        if let Some(r) = self.condition() {
            // The child runs only under a condition that is not knowable.
            for l in &mut launches {
                if !matches!(l.launcher[0].provenance, Provenance::Unknown { .. }) {
                    l.launcher[0].provenance = Provenance::Unknown {
                        reason: format!(
                            "this launch runs only under a condition that is not knowable: {r}"
                        ),
                    };
                }
            }
        }
        self.out.launches.extend(launches);
        let mut recorded = inner.recorded;
        if let Some(r) = self.recorded_condition() {
            for c in recorded.iter_mut().filter(|c| c.condition.is_none()) {
                c.condition = Some(r.clone());
            }
        }
        self.out.recorded.extend(recorded);
        self.out.unsupported.extend(inner.unsupported);
        self.out.auxiliary.extend(inner.auxiliary);
        self.out.read.extend(inner.read);
        Ok(())
    }

    /// Reads a script file named in this script (`bash FILE`, `./FILE`, `bash <
    /// FILE`) through the confined file layer.
    pub(super) fn read_script(
        &self,
        what: &str,
        target: &str,
        at: usize,
    ) -> Result<std::sync::Arc<crate::span::Source>, Error> {
        let path = self
            .locate(target)
            .map_err(|m| self.err(at, format!("`{what}`: {m}")))?;
        self.files
            .read(&path)
            .map_err(|e| self.err(at, format!("`{what}`: {e}")))
    }

    /// A shell run as a command: `bash [OPTIONS] FILE ARGS...`, `bash -c TEXT
    /// [NAME ARGS...]`, or `bash` reading its script from standard input. Its
    /// script is evaluated as a child; what cannot be known is reported as an
    /// unsupported launch with the reason, never dropped.
    fn shell(
        &mut self,
        fields: &[(Field, (usize, usize), Option<String>)],
        mods: &EnvMods,
        input: Option<Input>,
    ) -> Result<(), Error> {
        let head = fields[0]
            .0
            .text
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string();
        let at = fields[0].1.0;
        let val = |f: &Field| f.val();
        let mut shell = Shell::default();
        let (mut command, mut stdin, mut noexec, mut short) = (false, false, false, false);
        // Startup: `-l` / `--login`, `-i`, `--norc`, `--noprofile`, `--rcfile
        // FILE`, `--posix`, `-p` (privileged: no `BASH_ENV`).
        let (mut login, mut interactive, mut norc, mut noprofile) = (false, false, false, false);
        let (mut posix, mut privileged, mut rcfile) = (head != "bash", false, None);
        let mut j = 1;
        while let Some((f, range, _)) = fields.get(j) {
            if let Some(r) = &f.unknown {
                return Err(self.err(
                    range.0,
                    format!("cannot know which script `{head}` runs: {r}"),
                ));
            }
            let t = f.text.as_str();
            if t == "--" || t == "-" {
                j += 1;
                break;
            }
            if let Some(long) = t.strip_prefix("--") {
                if short {
                    // Long options come first: bash refuses one after a
                    // short option and runs nothing.
                    return Ok(());
                }
                match long {
                    "rcfile" | "init-file" => {
                        j += 1;
                        rcfile = fields.get(j).map(|(f, _, _)| f.text.clone());
                    }
                    "norc" => norc = true,
                    "noprofile" => noprofile = true,
                    "login" => login = true,
                    "posix" => posix = true,
                    "verbose" | "noediting" | "restricted" | "debugger" => {}
                    "pretty-print" | "dump-strings" | "dump-po-strings" | "help" | "version" => {
                        noexec = true
                    }
                    _ => {
                        return self.unsupported_shell(
                            &head,
                            &format!("its option `{t}` is not modelled"),
                            at,
                        );
                    }
                }
                j += 1;
                continue;
            }
            let on = t.starts_with('-');
            if !(on || t.starts_with('+')) || t.len() < 2 {
                break;
            }
            short = true;
            for c in t[1..].chars() {
                match c {
                    'c' => command = true,
                    's' => stdin = true,
                    'n' => noexec = on,
                    'e' => shell.options.push(("errexit".into(), on)),
                    'u' => shell.options.push(("nounset".into(), on)),
                    'f' => shell.options.push(("noglob".into(), on)),
                    'a' => shell.options.push(("allexport".into(), on)),
                    'l' => login = on,
                    'i' => interactive = on,
                    'p' => privileged = on,
                    'o' | 'O' => {
                        j += 1;
                        if let Some((f, _, _)) = fields.get(j)
                            && c == 'o'
                        {
                            shell.options.push((f.text.clone(), on));
                        }
                    }
                    'x' | 'v' | 'r' | 'h' | 'B' | 'H' | 'm' | 'b' | 'k' | 't' | 'C' | 'E' | 'T'
                    | 'P' => {}
                    _ => {
                        return self.unsupported_shell(
                            &head,
                            &format!("its option `{t}` is not modelled"),
                            at,
                        );
                    }
                }
            }
            j += 1;
        }
        if noexec {
            // `bash -n FILE` reads it and runs nothing.
            return Ok(());
        }
        shell.open = if login && !noprofile {
            Some(format!(
                "the profile files a login `{head}` reads first (/etc/profile, ~/.bash_profile, ~/.profile: outside the text)"
            ))
        } else if interactive && !norc {
            let rc = match (&rcfile, head.as_str()) {
                (Some(f), _) => f.clone(),
                (None, "bash") => "~/.bashrc".to_string(),
                (None, _) => "$ENV".to_string(),
            };
            Some(format!(
                "the rc file an interactive `{head}` reads first ({rc}: outside the text)"
            ))
        } else {
            None
        };
        shell.reads_bash_env = !posix && !privileged && !interactive;
        shell.sh = match head.as_str() {
            "sh" => Some(
                "`sh`, which may be dash or another POSIX shell rather than bash (what /bin/sh is depends on the machine)"
                    .to_string(),
            ),
            "dash" => Some("`dash`, a POSIX shell that is not bash".to_string()),
            _ => None,
        };
        if command {
            let Some((f, range, _)) = fields.get(j) else {
                return Ok(());
            };
            if let Some(r) = &f.unknown {
                return Err(self.err(
                    range.0,
                    format!("cannot know the commands `{head} -c` runs: {r}"),
                ));
            }
            let label = format!("{} {head} -c", self.source.place(range.0));
            let source = std::sync::Arc::new(crate::span::Source::new(
                crate::span::Origin::Inline(label),
                f.text.clone(),
            ));
            shell.zero = Some(
                fields
                    .get(j + 1)
                    .map_or_else(|| Val::Known(head.clone()), |(f, _, _)| val(f)),
            );
            shell.script = Some(self.script.clone());
            let args = fields.iter().skip(j + 2).map(|(f, _, _)| val(f)).collect();
            return self.run_child(&source, args, mods, &shell, range.0);
        }
        if !stdin && let Some((f, range, _)) = fields.get(j) {
            let target = f.text.clone();
            if target.starts_with("/dev/fd/") {
                return self.unsupported_shell(
                    &head,
                    "its script comes from a process substitution, whose text is not knowable",
                    range.0,
                );
            }
            if let Some(r) = self.changed(&target) {
                return self.unsupported_shell(&head, &r, range.0);
            }
            if let Some(why) = self.no_folder() {
                return self.unsupported_shell(&head, &why, range.0);
            }
            let source = self.read_script(&format!("{head} {target}"), &target, range.0)?;
            let args = fields[j + 1..].iter().map(|(f, _, _)| val(f)).collect();
            return self.run_child(&source, args, mods, &shell, range.0);
        }
        // The script comes from standard input.
        let args = fields[j..].iter().map(|(f, _, _)| val(f)).collect();
        let input = match input {
            Some(Input::File(w, at)) => Some((Some(at), self.str_of(&w)?)),
            Some(Input::HereString(w)) => Some((
                None,
                match self.str_of(&w)? {
                    Val::Known(t) => Val::Known(t + "\n"),
                    u => u,
                },
            )),
            Some(Input::HereDoc(body)) => {
                let v = expand_string(&mut self.st, &heredoc_as_double_quoted(&body))
                    .map_err(|m| self.err(at, m))?;
                Some((None, v))
            }
            Some(Input::Text(v)) => Some((None, v)),
            None => None,
        };
        let source = match input {
            Some((Some(at), Val::Known(target))) => {
                if let Some(r) = self.changed(&target) {
                    return self.unsupported_shell(&head, &r, at);
                }
                if let Some(why) = self.no_folder() {
                    return self.unsupported_shell(&head, &why, at);
                }
                shell.zero = Some(Val::Known(head.clone()));
                self.read_script(&format!("{head} < {target}"), &target, at)?
            }
            Some((None, Val::Known(text))) => {
                shell.zero = Some(Val::Known(head.clone()));
                shell.script = Some(self.script.clone());
                std::sync::Arc::new(crate::span::Source::new(
                    crate::span::Origin::Inline(format!("{} {head} stdin", self.source.place(at))),
                    text,
                ))
            }
            Some((_, Val::Unknown(r))) => {
                return self.unsupported_shell(
                    &head,
                    &format!("its script comes from standard input: {r}"),
                    at,
                );
            }
            None => {
                return self.unsupported_shell(
                    &head,
                    "its script comes from standard input (a pipe or the caller's input), which is not knowable",
                    at,
                );
            }
        };
        self.run_child(&source, args, mods, &shell, at)
    }

    /// The value an exported variable gives the environment of a command:
    /// its value, or, for a function's `local` declared without one, the
    /// value of the variable it shadows (bash skips a variable that is not
    /// set and exports the one below it).
    pub(super) fn exported_value(&self, name: &str) -> Option<Val> {
        if let Some(v) = self.st.get(name).and_then(|v| v.into_iter().next()) {
            return Some(v);
        }
        for frame in self.frames.iter().rev() {
            for (n, s) in frame.iter().rev() {
                if n == name {
                    match (&s.value, s.exported) {
                        (Some(v), true) => return v.first().cloned(),
                        (Some(_), false) => return None,
                        (None, _) => {}
                    }
                }
            }
        }
        None
    }

    /// A command's prefix assignments (`X=1 CMD`), expanded, for the
    /// environment of a child shell.
    fn prefix_values(&mut self, assigns: &[&ast::Assignment]) -> Result<Vec<(String, Val)>, Error> {
        let mut out = Vec::new();
        for a in assigns {
            if let AssignmentName::VariableName(n) = &a.name
                && let AssignmentValue::Scalar(w) = &a.value
                && !self.st.is_readonly(n)
            {
                let s = self.byte(&a.loc.start);
                let v = expand_string(&mut self.st, &w.value).map_err(|m| self.err(s, m))?;
                out.push((n.clone(), v));
            }
        }
        Ok(out)
    }

    /// Why a script path named in this text cannot be read, when the text
    /// is no file (a page's block, a generator's printed command): its
    /// relative paths have no folder, and the files it names are the reader's,
    /// not the docs repository's.
    fn no_folder(&self) -> Option<String> {
        if crate::files::Location::of_origin(&self.script.origin).is_some() {
            return None;
        }
        let text = match &self.script.origin {
            crate::span::Origin::Inline(what) => what.clone(),
            _ => self.script.label().to_string(),
        };
        Some(format!(
            "it is named in the {text}, not in a script file, and the paths such text names are not read"
        ))
    }

    /// Reports a shell command whose script is not evaluated (an option it
    /// does not model, standard input that is not knowable): it may start a
    /// server, so it is listed with the unsupported launches.
    fn unsupported_shell(&mut self, head: &str, why: &str, at: usize) -> Result<(), Error> {
        let span = self.source.span(at, at);
        self.out.unsupported.push(format!(
            "{span}: `{head}` runs a script recipe-drift cannot read ({why}), which may start a server: {}",
            crate::launch::NOT_MODELLED
        ));
        Ok(())
    }

    /// Reports an `env` command whose command words are not knowable (its
    /// `-S` string): it may start a server.
    fn unsupported_env(&mut self, why: &str, at: usize) -> Result<(), Error> {
        let span = self.source.span(at, at);
        self.out.unsupported.push(format!(
            "{span}: `env` runs a command recipe-drift cannot read ({why}), which may start a server: {}",
            crate::launch::NOT_MODELLED
        ));
        Ok(())
    }

    /// A command that does not start with a launcher: a shell script inside
    /// the root run by its path (`./serve.sh`, `scripts/serve`) runs as `bash
    /// FILE` does; a command that runs a launcher through a program neither
    /// table models (`srun ... sglang serve`) is reported as unsupported.
    fn not_a_launcher(
        &mut self,
        fields: &[(Field, (usize, usize), Option<String>)],
        mods: &EnvMods,
    ) -> Result<(), Error> {
        let (f, range, _) = &fields[0];
        if f.unknown.is_none()
            && f.text.contains('/')
            && let Some(r) = self.changed(&f.text)
        {
            let head = f.text.clone();
            return self.unsupported_shell(&head, &r, range.0);
        }
        if f.unknown.is_none()
            && f.text.contains('/')
            && let Ok(path) = self.locate(&f.text)
        {
            match self.files.is_file(&path) {
                Ok(true) => {
                    let source = match self.files.read(&path) {
                        Ok(s) => s,
                        // A program (an ELF binary) rather than a script: listed,
                        // not evaluated.
                        Err(Error::Input { message, span })
                            if message == crate::files::NOT_UTF8 =>
                        {
                            self.out.unsupported.push(format!(
                                "{}: `{}` is not a text script ({message} at byte {}): what it runs is not evaluated",
                                self.source.span(range.0, range.0),
                                f.text,
                                span.start
                            ));
                            return Ok(());
                        }
                        Err(e) => return Err(self.err(range.0, format!("`{}`: {e}", f.text))),
                    };
                    let Some(shebang) = shell_of(&source.text) else {
                        // Another interpreter's script: not evaluated.
                        return Ok(());
                    };
                    if let Some(words) = shebang {
                        // `#!/bin/sh`, `#!/bin/bash -a`: that shell, with the
                        // line's option, runs the file.
                        let word = |text: String| {
                            let f = Field {
                                text,
                                unknown: None,
                                span: None,
                            };
                            (f, *range, None)
                        };
                        let mut run: Vec<_> = words.into_iter().map(word).collect();
                        run.push(word(f.text.clone()));
                        run.extend(fields[1..].iter().cloned());
                        return self.shell(&run, mods, None);
                    }
                    let args = fields[1..].iter().map(|(f, _, _)| f.val()).collect();
                    return self.run_child(&source, args, mods, &Shell::default(), range.0);
                }
                // A file named inside the root that the confined layer refuses.
                Err(e) if !f.text.starts_with('/') => {
                    return Err(self.err(range.0, format!("`{}`: {e}", f.text)));
                }
                _ => {}
            }
        }
        let words: Vec<&str> = fields.iter().map(|(f, _, _)| f.text.as_str()).collect();
        if let Some((j, d)) = crate::launch::launcher_inside(&words) {
            let name = match d.starts {
                crate::launch::Starts::Engine(e) => e.name(),
                crate::launch::Starts::Unsupported(n) | crate::launch::Starts::Auxiliary(n) => n,
            };
            let span = self.source.span(range.0, range.0);
            self.out.unsupported.push(format!(
                "{span}: `{}` runs `{}` ({name}) through a program that is not modelled: {}",
                words[0].rsplit('/').next().unwrap_or(""),
                words[j..j + d.len].join(" "),
                crate::launch::NOT_MODELLED,
            ));
        } else if let Some(starts) =
            crate::launch::python_code_starts(&words, &|k| fields[k].0.unknown.is_none())
        {
            let span = self.source.span(range.0, range.0);
            let what = match starts {
                Ok(s) => format!("is not evaluated and may start {}", starts_name(s)),
                Err(()) => "is not knowable".to_string(),
            };
            self.out.unsupported.push(format!(
                "{span}: `{} -c` runs Python code that {what}: {}",
                words[0].rsplit('/').next().unwrap_or(""),
                crate::launch::NOT_MODELLED,
            ));
        }
        Ok(())
    }

    /// What a simple command reads on standard input: its last `< FILE`,
    /// here-string or here-document, else the pipe into it.
    pub(super) fn input_of(&self, sc: &ast::SimpleCommand, at: usize) -> Option<Input> {
        let mut input = match &self.stdin_file {
            Some((w, at)) => Some(Input::File(w.clone(), *at)),
            None => self.stdin.clone().map(Input::Text),
        };
        let items = sc.prefix.iter().flat_map(|p| p.0.iter());
        for it in items.chain(sc.suffix.iter().flat_map(|s| s.0.iter())) {
            let ast::CommandPrefixOrSuffixItem::IoRedirect(r) = it else {
                continue;
            };
            input = match r {
                ast::IoRedirect::File(
                    None | Some(0),
                    ast::IoFileRedirectKind::Read,
                    ast::IoFileRedirectTarget::Filename(w),
                ) => Some(Input::File(w.clone(), self.word_range(w, at).0)),
                // `< <(cat FILE)`: that file; another process substitution
                // writes what is not knowable.
                ast::IoRedirect::File(
                    None | Some(0),
                    ast::IoFileRedirectKind::Read,
                    ast::IoFileRedirectTarget::ProcessSubstitution(
                        ast::ProcessSubstitutionKind::Read,
                        sub,
                    ),
                ) => Some(match single_command(&sub.list).and_then(super::walk::cat_operand) {
                    Some(w) => {
                        let at = self.word_range(&w, at).0;
                        Input::File(w, at)
                    }
                    None => Input::Text(Val::Unknown(
                        "it is the output of a process substitution `<(...)`, which is not evaluated"
                            .into(),
                    )),
                }),
                ast::IoRedirect::HereString(None | Some(0), w) => {
                    Some(Input::HereString(w.clone()))
                }
                ast::IoRedirect::HereDocument(None | Some(0), doc) => {
                    Some(if doc.requires_expansion {
                        Input::HereDoc(doc.doc.value.clone())
                    } else {
                        Input::Text(Val::Known(doc.doc.value.clone()))
                    })
                }
                _ => continue,
            };
        }
        input
    }

    pub(super) fn maybe_launch(
        &mut self,
        assigns: &[&ast::Assignment],
        fields: &[(Field, (usize, usize), Option<String>)],
        at: usize,
        input: Option<Input>,
    ) -> Result<(), Error> {
        // Wrappers: exec, env, docker run, and the rows of the wrapper table.
        let mut fields = fields.to_vec();
        let mut i = 0;
        let mut mods = EnvMods::default();
        // `docker run`: its `-e` / `--env-file` variables (the word, whether
        // it is knowable, where), and why the container's other variables
        // are not knowable (the image's `ENV` lines, an env file not read).
        let mut docker: Option<(Vec<Operand>, String)> = None;
        let mut context = Context::default();
        loop {
            let Some((f, _, _)) = fields.get(i) else {
                return Ok(());
            };
            match f.text.as_str() {
                // `exec [-cl] [-a NAME] CMD`: its options come before the command.
                "exec" => {
                    i += 1;
                    while let Some((f, _, _)) = fields.get(i)
                        && f.text.starts_with('-')
                    {
                        if f.text == "-c" {
                            // A clean environment, as `env -i`.
                            mods = EnvMods {
                                clear: true,
                                ..EnvMods::default()
                            };
                        }
                        let takes_name = f.text == "-a";
                        i += if takes_name { 2 } else { 1 };
                    }
                }
                "docker" | "podman"
                    if fields.get(i + 1).is_some_and(|(f, _, _)| f.text == "run") =>
                {
                    // Only `-e` / `--env-file` reach the container; the image
                    // gives version and platform.
                    let texts: Vec<&str> = fields[i + 2..]
                        .iter()
                        .map(|(f, _, _)| f.text.as_str())
                        .collect();
                    let parsed = crate::extract::shared::docker_run_options(&texts);
                    let mut vars = Vec::new();
                    let mut unread: Option<String> = None;
                    for (file, k) in &parsed.env_files {
                        let (f, range, _) = &fields[i + 2 + k];
                        let range = *range;
                        if let Some(r) = self.changed(file) {
                            let span = self.source.span(range.0, range.0);
                            self.out.unsupported.push(format!(
                                "{span}: `--env-file {file}`: {r}; what the container runs with is not knowable: {}",
                                crate::launch::NOT_MODELLED
                            ));
                            return Ok(());
                        }
                        if let Some(r) = &f.unknown {
                            // Its path is not knowable: not read (never with
                            // the unknown part taken as empty).
                            unread.get_or_insert_with(|| {
                                format!(
                                    "`--env-file` at {}, whose path is not knowable ({r}),",
                                    self.source.span(range.0, range.1)
                                )
                            });
                            continue;
                        }
                        for line in self.docker_env_file(file, range.0)? {
                            let line = Field {
                                text: line,
                                unknown: None,
                                span: None,
                            };
                            vars.push((line, range));
                        }
                    }
                    for (v, at) in parsed.env {
                        let (f, range, _) = &fields[i + 2 + at];
                        let mut f = f.clone();
                        f.text = v;
                        vars.push((f, *range));
                    }
                    let entrypoint = parsed
                        .entrypoint
                        .map(|k| fields[i + 2 + k].clone())
                        .filter(|(f, _, _)| !f.text.is_empty());
                    i = match parsed.image {
                        Some(img) => i + 2 + img,
                        None => fields.len(),
                    };
                    let image = fields.get(i).map_or_else(
                        || "the image".to_string(),
                        |(img, _, _)| format!("the image `{}`", img.text),
                    );
                    let why = unread
                        .unwrap_or_else(|| format!("{image}'s `ENV` lines (not in the text)"));
                    docker = Some((vars, why));
                    if let Some((img, range, _)) = fields.get(i) {
                        let from = format!(
                            "image {} at {}",
                            img.text,
                            self.source.span(range.0, range.1)
                        );
                        context = Context::from_image(&img.text, &from);
                        i += 1;
                        // `--entrypoint PROGRAM IMAGE ARGS`: PROGRAM ARGS runs.
                        if let Some(e) = entrypoint {
                            fields.insert(i, e);
                        }
                    }
                }
                "env" => {
                    i += 1;
                    while let Some((f, range, _)) = fields.get(i) {
                        let t = f.text.as_str();
                        match t.split_once('=') {
                            _ if matches!(t, "-i" | "-" | "--ignore-environment")
                                || (t.starts_with('-')
                                    && !t.starts_with("--")
                                    && t[1..].chars().all(|c| "i0v".contains(c))
                                    && t.contains('i')) =>
                            {
                                mods.clear = true;
                                mods.keep.clear();
                                mods.set.clear();
                                mods.fallback.clear();
                                mods.open = None;
                                i += 1;
                            }
                            _ if matches!(t, "-u" | "--unset" | "-C" | "--chdir") => {
                                if let Some((n, _, _)) = fields.get(i + 1)
                                    && matches!(t, "-u" | "--unset")
                                {
                                    mods.set.retain(|(k, _, _)| *k != n.text);
                                    mods.unset.push(n.text.clone());
                                }
                                i += 2;
                            }
                            Some(("--unset", n)) => {
                                mods.set.retain(|(k, _, _)| k != n);
                                mods.unset.push(n.to_string());
                                i += 1;
                            }
                            // `-uNAME`: the name attached.
                            None if t.len() > 2 && t.starts_with("-u") => {
                                let n = &t[2..];
                                mods.set.retain(|(k, _, _)| k != n);
                                mods.unset.push(n.to_string());
                                i += 1;
                            }
                            // `env -S STRING` / `-SSTRING` / `--split-string=STRING`:
                            // STRING split into words, in place of it.
                            _ if t == "-S"
                                || t == "--split-string"
                                || t.starts_with("--split-string=")
                                || (t.starts_with("-S") && t.len() > 2) =>
                            {
                                let (text, n) = match t {
                                    "-S" | "--split-string" => match fields.get(i + 1) {
                                        Some((f, _, _)) => (f, 2),
                                        None => break,
                                    },
                                    _ => (f, 1),
                                };
                                let string =
                                    if let Some(s) = text.text.strip_prefix("--split-string=") {
                                        s.to_string()
                                    } else if n == 1 {
                                        text.text[2..].to_string()
                                    } else {
                                        text.text.clone()
                                    };
                                let words = match (&text.unknown, split_string(&string)) {
                                    (None, Some(w)) => w,
                                    (Some(r), _) => {
                                        return self.unsupported_env(
                                            &format!("its `-S` string is not knowable: {r}"),
                                            range.0,
                                        );
                                    }
                                    (None, None) => {
                                        return self.unsupported_env(
                                            "its `-S` string uses escapes, `$` or `#`, which are not modelled",
                                            range.0,
                                        );
                                    }
                                };
                                let range = *range;
                                let var = fields[i].2.clone();
                                let new: Vec<_> = words
                                    .into_iter()
                                    .map(|w| {
                                        (
                                            Field {
                                                text: w,
                                                unknown: None,
                                                span: None,
                                            },
                                            range,
                                            var.clone(),
                                        )
                                    })
                                    .collect();
                                fields.splice(i..i + n, new);
                            }
                            Some((k, _)) if !k.is_empty() && !k.starts_with('-') => {
                                let (f, range) = (f.clone(), *range);
                                if let Some((n, v)) =
                                    self.assignment_word(&f, range, "env", &mut mods)
                                {
                                    mods.set.retain(|(x, _, _)| *x != n);
                                    mods.set.push((n, v, range));
                                }
                                i += 1;
                            }
                            _ if t.starts_with('-') => i += 1,
                            _ => break,
                        }
                    }
                }
                _ => {
                    let words: Vec<&str> = fields[i..]
                        .iter()
                        .map(|(f, _, _)| f.text.as_str())
                        .collect();
                    match crate::launch::read_wrapper(&words) {
                        Some((w, used)) => {
                            self.wrapper_env(w, &used, &fields[i..], &mut mods)?;
                            i += used.len;
                        }
                        None => break,
                    }
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
        // `bash other.sh`, `sh -c TEXT`, `bash < x.sh`, `./x.sh`: a child
        // shell, whose environment has the prefix assignments (`env -i`
        // after them clears them).
        let child = SHELLS.contains(&head.as_str()) && !unknown_head;
        let is_python = head.starts_with("python") || unknown_head;
        let detected = crate::launch::detect_launcher(&words, is_python);
        if !mods.clear && (child || detected.is_none()) {
            mods.prefix = self.prefix_values(assigns)?;
        }
        if child && let Some((vars, why)) = docker.take() {
            // A shell in a container: only its `-e` variables and the
            // image's (open) reach it, not the host's.
            mods = self.container_mods(vars, why, &mods);
        }
        if child {
            return self.shell(&fields[i..], &mods, input);
        }
        let Some(detected) = detected else {
            if let Some((name, n)) = super::recorded::match_row(&words) {
                self.record(name, &fields[i + n..], at);
                return Ok(());
            }
            return self.not_a_launcher(&fields[i..], &mods);
        };
        let len = detected.len;
        // `--help` / `--version` print and exit: not a server start.
        if fields[i + len..].iter().any(|(f, _, _)| {
            f.unknown.is_none() && matches!(f.text.as_str(), "-h" | "--help" | "--version")
        }) {
            return Ok(());
        }
        let engine = match detected.starts {
            crate::launch::Starts::Engine(e) => e,
            crate::launch::Starts::Auxiliary(name) => {
                let span = self.source.span(fields[i].1.0, fields[i].1.0);
                let message = format!(
                    "{span}: `{}` starts {name}, an auxiliary process (not compared)",
                    words.join(" ")
                );
                self.out
                    .auxiliary
                    .push(crate::launch::Remark::at(span, message));
                return Ok(());
            }
            crate::launch::Starts::Unsupported(name) => {
                let span = self.source.span(fields[i].1.0, fields[i].1.0);
                self.out.unsupported.push(format!(
                    "{span}: `{}` starts {name}, an engine recipe-drift does not resolve",
                    words[..len].join(" ")
                ));
                return Ok(());
            }
        };
        // A word that is the whole value of a variable an earlier text (a
        // page's earlier block) wrote, unchanged since, is placed where that
        // value was written.
        let carried = |f: &Field, var: &Option<String>| {
            let name = var
                .as_deref()
                .filter(|_| f.span.is_none() && f.unknown.is_none())?;
            let c = self.st.carried(name)?;
            match (self.st.read(name)?.as_slice(), c.values.as_slice()) {
                ([Val::Known(t)], [Some(span)]) if *t == f.text => Some(span.clone()),
                _ => None,
            }
        };
        let token = |(f, (s, e), var): &(Field, (usize, usize), Option<String>)| Token {
            text: f.text.clone(),
            span: carried(f, var).unwrap_or_else(|| self.source.span(*s, *e)),
            provenance: match (&f.unknown, var) {
                (Some(r), _) => Provenance::Unknown { reason: r.clone() },
                (None, Some(v)) => Provenance::Var { name: v.clone() },
                (None, None) => Provenance::Literal,
            },
            written_at: None,
        };
        let launcher: Vec<Token> = fields[i..i + len].iter().map(token).collect();
        let argv: Vec<Token> = fields[i + len..].iter().map(token).collect();
        let span_end = fields.last().map(|(_, r, _)| r.1).unwrap_or(at);
        let whole = self.source.span(at, span_end.max(at));
        // Environment: exported variables, then prefix assignments and `env K=V`;
        // inside `docker run`, only its `-e` variables.
        let mut env: Vec<EnvVar> = Vec::new();
        for name in self.st.exported.iter().filter(|n| mods.passes(n)) {
            if let Some(v) = self.exported_value(name) {
                // Where it was assigned (`export X=1`, here or in an
                // earlier block of the page), else the launch.
                let span = match self.st.assigned_here(name).as_ref() {
                    Some((s, e)) => self.source.span(*s, *e),
                    None => self
                        .st
                        .carried(name)
                        .and_then(|c| c.assigned.clone())
                        .unwrap_or_else(|| whole.clone()),
                };
                env.push(env_var(name, &v, span));
            }
        }
        for a in assigns.iter() {
            if let AssignmentName::VariableName(n) = &a.name
                && mods.passes(n)
                && let AssignmentValue::Scalar(w) = &a.value
                && !self.st.is_readonly(n)
            {
                let s = self.byte(&a.loc.start);
                let v = expand_string(&mut self.st, &w.value).map_err(|m| self.err(s, m))?;
                env.retain(|e| &e.name != n);
                env.push(env_var(n, &v, self.source.span(s, self.byte(&a.loc.end))));
            }
        }
        env.retain(|e| !mods.unset.contains(&e.name));
        let mut docker_open = None;
        if let Some((vars, why)) = docker {
            docker_open = Some(why);
            let host = std::mem::take(&mut env);
            for (item, (s, e)) in vars {
                let span = self.source.span(s, e);
                if item.text.contains('=') {
                    let mut open = EnvMods::default();
                    if let Some((k, v)) =
                        self.assignment_word(&item, (s, e), "docker run -e", &mut open)
                    {
                        env.retain(|x| x.name != k);
                        env.push(env_var(&k, &v, span));
                    } else if let Some(o) = open.open {
                        docker_open = Some(o);
                    }
                    continue;
                }
                if let Some(r) = &item.unknown {
                    docker_open = Some(format!(
                        "`docker run -e` passing a variable whose name is not knowable ({r})"
                    ));
                    continue;
                }
                {
                    {
                        let item = item.text.as_str();
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
                        env.push(env_var(item, &v, span));
                    }
                }
            }
        }
        for (k, v, (s, e)) in mods.set {
            env.retain(|x| x.name != k);
            env.push(env_var(&k, &v, self.source.span(s, e)));
        }
        for (k, v, (s, e)) in mods.fallback {
            if !env.iter().any(|x| x.name == k) {
                env.push(env_var(&k, &v, self.source.span(s, e)));
            }
        }
        let mut launch = Launch {
            engine,
            launcher,
            argv,
            env,
            context,
            span: whole,
            source: self.source.clone(),
            cwd: self.workdir(),
            role: crate::launch::Role::Single,
            written: self.st.touched.clone(),
            // Code that was not evaluated may have exported any variable into
            // the shell's environment, which reaches the server unless `env
            // -i` cleared it or the server runs in a container.
            env_open: match (docker_open, mods.open, &self.st.clobbered) {
                (Some(why), _, _) | (None, Some(why), _) => Some(why),
                (None, None, Some(r)) if !mods.clear => Some(
                    r.strip_prefix(super::CLOBBERED_PREFIX)
                        .unwrap_or(r)
                        .to_string(),
                ),
                _ => None,
            },
            defects: Vec::new(),
        };
        if let Some(r) = self.condition() {
            // The whole launch depends on an unknown condition: its launcher says so.
            launch.launcher[0].provenance = Provenance::Unknown {
                reason: format!(
                    "this launch runs only under a condition that is not knowable: {r}"
                ),
            };
        }
        launch.note_env_secrets();
        self.out.launches.push(launch);
        Ok(())
    }

    /// The condition that is not knowable a recorded command runs under
    /// here. An earlier `exit` that may have run is not one: had it run,
    /// nothing after it would, so what the command names does not depend on it.
    fn recorded_condition(&self) -> Option<String> {
        self.conditions
            .iter()
            .rev()
            .find(|c| !c.starts_with(super::walk::MAY_HAVE_EXITED))
            .or_else(|| self.flow.last().map(|(_, r, _)| r))
            .cloned()
    }

    /// Records a command of `recorded.yaml` (`name`), with the words after
    /// its matched ones and the condition it runs under.
    fn record(
        &mut self,
        name: &'static str,
        args: &[(Field, (usize, usize), Option<String>)],
        at: usize,
    ) {
        let end = args.last().map_or(at, |(_, r, _)| r.1.max(at));
        let args = args
            .iter()
            .map(|(f, (s, e), var)| Token {
                text: f.text.clone(),
                span: self.source.span(*s, *e),
                provenance: match (&f.unknown, var) {
                    (Some(r), _) => Provenance::Unknown { reason: r.clone() },
                    (None, Some(v)) => Provenance::Var { name: v.clone() },
                    (None, None) => Provenance::Literal,
                },
                written_at: None,
            })
            .collect();
        let recorded = super::recorded::Recorded {
            name,
            args,
            span: self.source.span(at, end),
            condition: self.recorded_condition(),
        };
        self.out.recorded.push(recorded);
    }
}

/// A here-document body as a double-quoted word with the same expansion: a
/// `"` is literal in the body (`\"` too), a backslash escapes only `$`,
/// `` ` ``, `\` and a newline in both.
pub(super) fn heredoc_as_double_quoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 2);
    out.push('"');
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('"') => out.push_str("\\\\\\\""),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How a script file runs when executed: `Some(None)` with no `#!` line
/// (the calling bash runs it), `Some(words)` when the line names `bash`,
/// `sh` or `dash` (directly or through `env`): that shell and the line's
/// one argument (`-a`); `None` for another interpreter.
fn shell_of(text: &str) -> Option<Option<Vec<String>>> {
    let Some(line) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return Some(None);
    };
    let line = line.trim();
    let (path, arg) = line
        .split_once([' ', '\t'])
        .map_or((line, ""), |(p, a)| (p, a.trim()));
    let mut interpreter = path.rsplit('/').next().unwrap_or("");
    // The kernel passes the rest of the line as one argument.
    let mut words = vec![];
    if interpreter == "env" {
        interpreter = arg.split_whitespace().find(|w| !w.starts_with('-'))?;
    } else if !arg.is_empty() {
        words.push(arg.to_string());
    }
    SHELLS
        .contains(&interpreter)
        .then(|| Some([vec![interpreter.to_string()], words].concat()))
}

/// The one command of a list (`cat x.sh` in `<(cat x.sh)`), if it is one.
fn single_command(list: &ast::CompoundList) -> Option<&ast::Command> {
    match list.0.as_slice() {
        [ast::CompoundListItem(ao, _)] if ao.additional.is_empty() => match ao.first.seq.as_slice()
        {
            [c] if !ao.first.bang => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// What a launcher starts, by name.
fn starts_name(s: crate::launch::Starts) -> &'static str {
    match s {
        crate::launch::Starts::Engine(e) => e.name(),
        crate::launch::Starts::Unsupported(n) | crate::launch::Starts::Auxiliary(n) => n,
    }
}

/// The words of `env -S STRING` when it uses only spaces, tabs and quotes
/// (`None` for escapes, `$` or `#`, whose rules are not modelled).
fn split_string(s: &str) -> Option<Vec<String>> {
    if s.contains(['\\', '$', '#']) {
        return None;
    }
    shell_words::split(s).ok()
}

fn env_var(name: &str, v: &Val, span: crate::span::Span) -> EnvVar {
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
