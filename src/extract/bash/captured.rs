//! Commands inside `$(...)` whose output can be known (`echo`, `printf`,
//! `seq`, `cd`, `pwd`, `realpath`, `readlink`, `dirname`, `basename`), and
//! the working folder as `pwd` prints it.

use super::capture::{printf, seq};
use super::expand::{Field, Val, expand_fields};
use super::{Interp, Status};
use crate::error::Error;

use brush_parser::ast;

/// Text filters whose output is known from a known input (a pipeline's
/// earlier stage): `tr SET1 SET2` (single characters and `\n`), `sort` /
/// `sort -n`, `head -N` / `tail -N` (also `-n N`).
pub(super) const FILTERS: &[&str] = &["tr", "sort", "head", "tail"];

/// The output of a text filter on `input`; `None` for options not modeled.
fn filter(head: &str, args: &[String], input: &str) -> Option<String> {
    let lines = || -> Vec<&str> {
        let mut l: Vec<&str> = input.split('\n').collect();
        if input.ends_with('\n') || input.is_empty() {
            l.pop();
        }
        l
    };
    let joined = |l: Vec<&str>| -> String { l.iter().map(|x| format!("{x}\n")).collect() };
    match head {
        "tr" => {
            let set = |a: &str| -> Option<char> {
                match a {
                    "\\n" => Some('\n'),
                    _ if a.chars().count() == 1 => a.chars().next(),
                    _ => None,
                }
            };
            let [from, to] = args else { return None };
            let (f, t) = (set(from)?, set(to)?);
            Some(input.chars().map(|c| if c == f { t } else { c }).collect())
        }
        "sort" => {
            let mut l = lines();
            match args {
                [] => l.sort(),
                [n] if n == "-n" => {
                    // Numeric order: a line's leading number (none is 0);
                    // ties keep the whole-line order, as sort's last resort.
                    let key = |s: &str| -> Option<f64> {
                        let t = s.trim_start();
                        let end = t
                            .char_indices()
                            .find(|&(i, c)| {
                                !(c.is_ascii_digit() || c == '.' || (i == 0 && c == '-'))
                            })
                            .map_or(t.len(), |(i, _)| i);
                        if end == 0 {
                            return Some(0.0);
                        }
                        t[..end].parse().ok()
                    };
                    if l.iter().any(|s| key(s).is_none()) {
                        return None;
                    }
                    l.sort_by(|a, b| {
                        key(a)
                            .partial_cmp(&key(b))
                            .unwrap_or(std::cmp::Ordering::Equal)
                            .then(a.cmp(b))
                    });
                }
                _ => return None,
            }
            Some(joined(l))
        }
        "head" | "tail" => {
            let n: usize = match args {
                [] => 10,
                [a] => a.strip_prefix('-')?.parse().ok()?,
                [o, a] if o == "-n" => a.parse().ok()?,
                _ => return None,
            };
            let l = lines();
            let l = if head == "head" {
                l.into_iter().take(n).collect()
            } else {
                let skip = l.len().saturating_sub(n);
                l.into_iter().skip(skip).collect()
            };
            Some(joined(l))
        }
        _ => None,
    }
}

impl Interp<'_> {
    /// The launcher's name when a command's expanded words start a server
    /// (or another process recipe-drift names: an engine it does not
    /// resolve, the router), which bash starts inside `$(...)` as anywhere.
    fn captured_launcher(
        &self,
        fields: &[(Field, (usize, usize), Option<String>)],
    ) -> Option<String> {
        let words: Vec<&str> = fields.iter().map(|(f, _, _)| f.text.as_str()).collect();
        let head = fields.first()?;
        let base = head.0.text.rsplit('/').next().unwrap_or("").to_string();
        let python = base.starts_with("python") || head.0.unknown.is_some();
        crate::launch::detect_launcher(&words, python).map(|_| base)
    }

    /// A command inside `$(...)`: its output, when it is one we can know.
    /// A command run inside `$(...)` or `<(...)`: its words are expanded;
    /// a server launcher is a launch, as it is outside (bash runs it, and
    /// its output is not knowable); a command whose output is modelled
    /// writes that output; anything else makes the output unknown.
    pub(super) fn captured_command(
        &mut self,
        sc: &ast::SimpleCommand,
        assigns: &[&ast::Assignment],
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let mut fields: Vec<(Field, (usize, usize), Option<String>)> = Vec::new();
        for (w, _) in raw {
            let range = self.word_range(w, at);
            let var = super::command::first_var(&w.value);
            for f in expand_fields(&mut self.st, &w.value).map_err(|m| self.err(range.0, m))? {
                let r = f.span.unwrap_or(range);
                fields.push((f, r, var.clone()));
            }
        }
        let words: Vec<Val> = fields.iter().map(|(f, _, _)| f.val()).collect();
        if let Some(head) = self.captured_launcher(&fields) {
            self.capture_unknown.get_or_insert(format!(
                "the output of `{head}` (a process it starts) is not knowable"
            ));
            let input = self.input_of(sc, at);
            let launches = self.out.launches.len();
            self.maybe_launch(assigns, &fields, at, input)?;
            super::budget::launched(&self.out.launches[launches..]).map_err(|m| self.err(at, m))?;
            self.assumed = Some(head);
            return Ok(Status::Ok);
        }
        if let Some(r) = words.iter().find_map(|w| match w {
            Val::Unknown(r) => Some(r.clone()),
            Val::Known(_) => None,
        }) {
            self.capture_unknown.get_or_insert(r);
            self.note_captured_writes(&words, at);
            return Ok(Status::Ok);
        }
        let args: Vec<String> = words
            .iter()
            .map(|w| match w {
                Val::Known(t) | Val::Unknown(t) => t.clone(),
            })
            .collect();
        let head = args.first().cloned().unwrap_or_default();
        // A command whose output the harness models.
        let st = &self.st;
        let var = |n: &str| st.read(n).and_then(|v| v.into_iter().next());
        let modeled = self.st.harness().output(&args, &var);
        if let Some(Err(r)) = modeled {
            self.capture_unknown.get_or_insert(r);
            return Ok(Status::Ok);
        }
        let out: Option<String> = match head.as_str() {
            _ if modeled.is_some() => modeled.and_then(Result::ok),
            "echo" => echo(&args[1..]),
            "printf" => args.get(1).and_then(|fmt| printf(fmt, &args[2..])),
            "seq" => seq(&args[1..]),
            // The working folder as the script named it (see `cd`).
            "cd" => {
                let vals: Vec<Val> = args[1..].iter().cloned().map(Val::Known).collect();
                self.cd(&vals);
                Some(String::new())
            }
            // `pwd -P`: symbolic links resolved.
            "pwd"
                if args[1..]
                    .iter()
                    .rev()
                    .find(|a| *a == "-P" || *a == "-L")
                    .is_some_and(|a| a == "-P")
                    || (self.st.physical && !args[1..].iter().any(|a| a == "-L")) =>
            {
                match self.pwd_physical() {
                    Ok(d) => Some(format!("{d}\n")),
                    Err(r) => {
                        self.capture_unknown
                            .get_or_insert(format!("the output of `pwd -P` is not knowable: {r}"));
                        return Ok(Status::Ok);
                    }
                }
            }
            // bash prints the absolute, logical path of the working folder.
            "pwd" => match self.working_folder() {
                Ok(d) => Some(format!("{d}\n")),
                Err(r) => {
                    self.capture_unknown
                        .get_or_insert(format!("the output of `pwd` is not knowable: {r}"));
                    return Ok(Status::Ok);
                }
            },
            // The canonical path of a file inside the repository (symlinks
            // resolved, as the confined layer resolves them); anything else,
            // or an option other than `-f`/`-e`/`-m` for readlink, is unknown.
            "realpath" | "readlink" => {
                let (opts, paths): (Vec<&String>, Vec<&String>) = args[1..]
                    .iter()
                    .partition(|a| a.starts_with('-') && a.len() > 1);
                let ok_opts = if head == "readlink" {
                    !opts.is_empty()
                        && opts
                            .iter()
                            .all(|o| matches!(o.as_str(), "-f" | "-e" | "-m"))
                } else {
                    opts.is_empty()
                };
                match (ok_opts, paths.as_slice()) {
                    (true, [p]) => match self.real_path_of(p) {
                        Ok(r) => Some(format!("{r}\n")),
                        Err(r) => {
                            self.capture_unknown.get_or_insert(format!(
                                "the output of `{}` is not knowable: {r}",
                                args.join(" ")
                            ));
                            return Ok(Status::Ok);
                        }
                    },
                    _ => None,
                }
            }
            // `exec` with redirections only writes nothing (where it moves
            // the output is looked at before it runs).
            "exec" if args.len() == 1 => Some(String::new()),
            _ if FILTERS.contains(&head.as_str()) => match &self.stdin {
                Some(Val::Known(input)) => filter(&head, &args[1..], input),
                Some(Val::Unknown(r)) => {
                    self.capture_unknown
                        .get_or_insert(format!("the input of `{head}` is not knowable: {r}"));
                    return Ok(Status::Ok);
                }
                None => None,
            },
            "dirname" => dirname(&args[1..]),
            "basename" => basename(&args[1..]),
            _ => None,
        };
        match out {
            Some(o) => {
                if let Some(c) = self.condition() {
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
                self.note_captured_writes(&words, at);
            }
        }
        Ok(Status::Ok)
    }

    /// The files a command run inside `$(...)` changes (its output is
    /// captured; what it writes stays written).
    fn note_captured_writes(&mut self, words: &[Val], at: usize) {
        self.note_command_writes(words, at);
        let head = match words.first() {
            Some(Val::Known(h)) => h.rsplit('/').next().unwrap_or(h),
            _ => "",
        };
        if !super::command::SIDE_EFFECTS.contains(&head) {
            self.note_unmodelled_writes(words, at);
        }
    }

    /// The absolute, logical working folder, as `pwd` prints it: a folder
    /// named relatively is joined to the folder the script starts in (the
    /// repository's top level, where InferenceX's runner starts its scripts,
    /// as located on this machine). `Err`: why it is not knowable.
    fn working_folder(&self) -> Result<String, String> {
        match &self.st.cwd {
            Some(Val::Unknown(r)) => Err(r.clone()),
            Some(Val::Known(d)) if d.starts_with('/') => Ok(logical(d)),
            rel => {
                let rel = match rel {
                    Some(Val::Known(d)) => d.as_str(),
                    _ => ".",
                };
                match &self.st.start_dir {
                    Some(start) => Ok(logical(&format!("{start}/{rel}"))),
                    None => Err(
                        "the script is not a local file, so the folder it starts in is not known"
                            .into(),
                    ),
                }
            }
        }
    }

    /// `realpath P` / `readlink -f P`: the canonical path of an existing file
    /// or folder inside the repository; outside it (or missing) not knowable.
    fn real_path_of(&self, p: &str) -> Result<String, String> {
        let abs = if p.starts_with('/') {
            p.to_string()
        } else {
            format!("{}/{p}", self.working_folder()?)
        };
        let path = std::path::Path::new(&abs);
        if crate::files::probe(path) == crate::files::Probe::Absent {
            return Err(
                "the path is not a file or folder inside the repository (paths outside it are never resolved)"
                    .into(),
            );
        }
        crate::files::admit(path)
            .map(|r| r.display().to_string())
            .map_err(|_| "the path leads outside the repository".into())
    }
}

/// `echo [-neE]... ARGS` (flags may be bundled, as `-ne`; `xpg_echo` off):
/// the output, `None` where an escape is not evaluated.
fn echo(args: &[String]) -> Option<String> {
    let mut rest = args;
    let (mut newline, mut escapes) = (true, false);
    while let Some(flag) = rest
        .first()
        .and_then(|a| a.strip_prefix('-'))
        .filter(|f| !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E')))
    {
        for c in flag.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = &rest[1..];
    }
    let text = rest.join(" ");
    if !escapes {
        return Some(text + if newline { "\n" } else { "" });
    }
    match super::escapes::decode(&text, super::escapes::Mode::Echo).ok()? {
        (t, true) => Some(t),
        (t, false) => Some(t + if newline { "\n" } else { "" }),
    }
}

/// The first variable a word expands, for provenance.
/// An absolute path as bash's `cd` keeps it (logically): `.` components
/// dropped, `..` removing the component before it, repeated `/` folded.
fn logical(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `dirname NAME...` as coreutils: each name's folder (`/` for `/`, `.` for
/// a name without a slash), one a line. `None` for options.
fn dirname(args: &[String]) -> Option<String> {
    if args.is_empty() || args.iter().any(|a| a.starts_with('-') && a != "-") {
        return None;
    }
    let mut out = String::new();
    for p in args {
        let t = p.trim_end_matches('/');
        let d = match t.rfind('/') {
            _ if t.is_empty() && p.starts_with('/') => "/",
            None => ".",
            Some(i) => match t[..i].trim_end_matches('/') {
                "" => "/",
                d => d,
            },
        };
        out.push_str(d);
        out.push('\n');
    }
    Some(out)
}

/// `basename NAME [SUFFIX]`, `basename -a NAME...`, `basename -s SUFFIX
/// NAME...` as coreutils (a suffix is removed unless it is the whole name).
/// `None` for other options.
fn basename(args: &[String]) -> Option<String> {
    let mut rest = args;
    let (mut all, mut suffix) = (false, None);
    while let Some(a) = rest.first() {
        match a.as_str() {
            "-a" | "--multiple" => {
                all = true;
                rest = &rest[1..];
            }
            "-s" => {
                suffix = Some(rest.get(1)?.clone());
                all = true;
                rest = &rest[2..];
            }
            "--" => {
                rest = &rest[1..];
                break;
            }
            o if o.starts_with('-') && o.len() > 1 => return None,
            _ => break,
        }
    }
    let names: &[String] = match (all, rest) {
        (true, names) if !names.is_empty() => names,
        (false, [name]) => std::slice::from_ref(name),
        (false, [name, s]) => {
            suffix = Some(s.clone());
            std::slice::from_ref(name)
        }
        _ => return None,
    };
    let mut out = String::new();
    for p in names {
        let t = p.trim_end_matches('/');
        let b = if t.is_empty() && p.starts_with('/') {
            "/"
        } else {
            t.rsplit('/').next().unwrap_or("")
        };
        let b = match &suffix {
            Some(s) if b.ends_with(s.as_str()) && b != s => &b[..b.len() - s.len()],
            _ => b,
        };
        out.push_str(b);
        out.push('\n');
    }
    Some(out)
}
