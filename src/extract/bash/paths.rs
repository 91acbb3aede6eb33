//! The script's files as bash would see them: the working folder (`cd`
//! with `-L`/`-P`, `set -P`, `$CDPATH`, `cd -`, a `cd` to a folder that is
//! not there, `pushd` / `popd`, `pwd -P`), and the paths the script writes,
//! removes or moves (redirections, `cp`, `mv`, `rm`, `sed -i`, ...), whose
//! later reads (`source`, `bash FILE`, `--config FILE`, `--env-file FILE`)
//! are not knowable: the committed content is not what the command reads.

use std::path::{Path, PathBuf};

use brush_parser::ast;

use super::expand::Val;
use super::{Interp, Status};
use crate::error::Error;
use crate::launch::{WorkDir, logical_join};

/// Commands that change the files named by their operands, and which of
/// their operands they change: every operand that is not an option.
const CHANGES_OPERANDS: &[&str] = &["mv", "rm", "truncate", "tee", "rmdir", "unlink"];

/// Commands that change the file (or folder) named by their last operand.
const CHANGES_LAST: &[&str] = &["cp", "ln", "install", "rsync"];

/// Options of file-writing commands whose value is the path written.
const WRITES_OPTION: &[(&str, &[&str])] = &[
    ("curl", &["-o", "--output"]),
    ("wget", &["-O", "--output-document"]),
    ("hf", &["--local-dir"]),
    ("huggingface-cli", &["--local-dir"]),
];

/// Programs that read the files they name and write none of them (their
/// output goes to standard output, which redirections account for): the
/// operands of every other program recipe-drift does not model may be
/// files it writes ([`Interp::note_unmodelled_writes`]).
const READS_ONLY: &[&str] = &[
    "awk",
    "basename",
    "cmp",
    "cut",
    "df",
    "diff",
    "dirname",
    "du",
    "egrep",
    "fgrep",
    "file",
    "find",
    "free",
    "grep",
    "head",
    "hostname",
    "id",
    "jq",
    "less",
    "ls",
    "lscpu",
    "md5sum",
    "more",
    "nproc",
    "numfmt",
    "pgrep",
    "ps",
    "pwd",
    "realpath",
    "readlink",
    "seq",
    "sha256sum",
    "stat",
    "tail",
    "test",
    "tr",
    "uname",
    "uniq",
    "wc",
    "which",
    "whoami",
    "xargs",
    "[",
];

impl Interp<'_> {
    /// The folder the script's relative paths start from on this machine
    /// (its file's folder); `None` when the script is not a local file.
    pub(super) fn start_folder(&self) -> Option<PathBuf> {
        match &self.script.origin {
            crate::span::Origin::File(p) => Some(p.parent().unwrap_or(Path::new("")).to_path_buf()),
            _ => self.st.script_dir.clone(),
        }
    }

    /// The working folder as [`logical_join`] takes it (`""`: where the
    /// script starts); `Err`: why it is not knowable.
    pub(super) fn cwd_text(&self) -> Result<String, String> {
        match &self.st.cwd {
            None => Ok(String::new()),
            Some(Val::Known(d)) => Ok(d.clone()),
            Some(Val::Unknown(r)) => Err(r.clone()),
        }
    }

    /// The working folder a launch starts in.
    pub(super) fn workdir(&self) -> WorkDir {
        match &self.st.cwd {
            None => WorkDir::Start,
            Some(Val::Known(d)) => WorkDir::Known(d.clone()),
            Some(Val::Unknown(r)) => WorkDir::Unknown(r.clone()),
        }
    }

    /// Whether the folder `key` (a [`logical_join`] path) is there: in the
    /// repository, or made by the script. `None`: not knowable here (the
    /// script is not a local file).
    fn folder_there(&self, key: &str) -> Option<bool> {
        let start = self.start_folder()?;
        if self.st.touched.paths.contains_key(key) {
            return Some(true);
        }
        Some(
            crate::launch::WorkDir::Known(key.to_string())
                .candidates(&start)
                .iter()
                .any(|p| crate::files::probe(p) == crate::files::Probe::Dir),
        )
    }

    /// The physical folder (symbolic links resolved) `dir` leads to from the
    /// working folder, as a [`logical_join`] path relative to where the
    /// script starts when inside it; `Err` when it is not knowable.
    fn physical(&self, cur: &str, dir: &str) -> Result<String, String> {
        let start = self
            .start_folder()
            .ok_or("the script is not a local file, so its folders are not known")?;
        let outside = || "the folder leads outside the repository (never resolved)".to_string();
        let real = |p: &Path| crate::files::admit(p).map_err(|_| outside());
        let canon_start = real(&start)?;
        let mut at = if dir.starts_with('/') {
            PathBuf::from("/")
        } else {
            let here = if cur.is_empty() {
                WorkDir::Start
            } else {
                WorkDir::Known(cur.to_string())
            };
            let here = here
                .candidates(&start)
                .into_iter()
                .find(|p| crate::files::probe(p) == crate::files::Probe::Dir)
                .ok_or("the working folder is not in the repository")?;
            real(&here)?
        };
        for c in dir.split('/') {
            match c {
                "" | "." => {}
                ".." => {
                    at.pop();
                }
                name => at = real(&at.join(name))?,
            }
        }
        if crate::files::probe(&at) != crate::files::Probe::Dir {
            return Err(format!("no folder {dir} in the repository"));
        }
        Ok(match at.strip_prefix(&canon_start) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => at.display().to_string(),
        })
    }

    /// `cd [-L|-P] [-e] [-@] [DIR]`: the working folder, as bash finds it:
    /// `$CDPATH` searched for a name that does not start with `/`, `.` or
    /// `..`, `cd -` goes to `$OLDPWD`, `-P` (or `set -P`) resolves symbolic
    /// links. A folder that is not in the repository makes it unknown (bash
    /// stays where it was unless a command that is not evaluated made it),
    /// and so does one that is not knowable.
    pub(super) fn cd(&mut self, args: &[Val]) -> Status {
        let mut physical = self.st.physical;
        let mut operands = Vec::new();
        let mut options = true;
        for a in args {
            match a {
                Val::Known(t) if options && t == "--" => options = false,
                Val::Known(t) if options && t.starts_with('-') && t.len() > 1 => {
                    for c in t[1..].chars() {
                        match c {
                            'L' => physical = false,
                            'P' => physical = true,
                            'e' | '@' => {}
                            // "invalid option": nothing changes.
                            _ => return Status::Fail,
                        }
                    }
                }
                other => {
                    options = false;
                    operands.push(other.clone());
                }
            }
        }
        if operands.len() > 1 {
            // "too many arguments".
            return Status::Fail;
        }
        let before = self.st.cwd.clone();
        let target = match operands.first() {
            None => Err("`cd` to the home folder, which is not knowable".to_string()),
            Some(Val::Known(d)) if d == "-" => match &self.st.oldpwd {
                None => {
                    if self.st.get("OLDPWD").is_none() {
                        // "OLDPWD not set".
                        return Status::Fail;
                    }
                    Err("`cd -` goes to $OLDPWD, which the script did not set by `cd`".into())
                }
                Some(None) => Ok((".".to_string(), true)),
                Some(Some(Val::Known(d))) => Ok((d.clone(), true)),
                Some(Some(Val::Unknown(r))) => Err(r.clone()),
            },
            Some(Val::Known(d)) => Ok((d.clone(), false)),
            Some(Val::Unknown(r)) => Err(format!("`cd` to a folder that is not knowable: {r}")),
        };
        let new = target.and_then(|(dir, from_old)| {
            // `cd -` goes to a folder named from the start; an absolute
            // folder needs no working folder.
            let cur = if from_old || dir.starts_with('/') {
                String::new()
            } else {
                self.cwd_text()?
            };
            let dir = if from_old { dir } else { self.cdpath(&cur, &dir)? };
            if physical {
                return self.physical(&cur, &dir);
            }
            let key = logical_join(&cur, &dir);
            match self.folder_there(&key) {
                Some(false) => Err(format!(
                    "`cd {dir}`: there is no folder {key} in the repository (bash stays where it was, unless a command that is not evaluated makes it)"
                )),
                _ => Ok(key),
            }
        });
        let status = match &new {
            Ok(_) => Status::Ok,
            Err(r) => Status::Unknown(r.clone()),
        };
        self.st.cwd = Some(match new {
            Ok(k) => Val::Known(k),
            Err(r) => Val::Unknown(r),
        });
        self.st.oldpwd = Some(before);
        status
    }

    /// `$CDPATH` for `cd DIR`: the first of its folders holding DIR (an
    /// empty entry is the working folder), else DIR itself.
    fn cdpath(&self, cur: &str, dir: &str) -> Result<String, String> {
        let first = dir.split('/').next().unwrap_or("");
        if dir.starts_with('/') || first == "." || first == ".." {
            return Ok(dir.to_string());
        }
        match self.st.get("CDPATH").and_then(|v| v.into_iter().next()) {
            None => Ok(dir.to_string()),
            Some(Val::Unknown(r)) => {
                Err(format!("`cd` searches $CDPATH, which is not knowable: {r}"))
            }
            Some(Val::Known(path)) => {
                for entry in path.split(':') {
                    let candidate = if entry.is_empty() {
                        dir.to_string()
                    } else {
                        format!("{}/{dir}", entry.trim_end_matches('/'))
                    };
                    match self.folder_there(&logical_join(cur, &candidate)) {
                        Some(true) => return Ok(candidate),
                        Some(false) => {}
                        None => {
                            return Err(
                                "`cd` searches $CDPATH, and the script's folders are not known"
                                    .into(),
                            );
                        }
                    }
                }
                Ok(dir.to_string())
            }
        }
    }

    /// `pushd DIR` (a `cd` that keeps the folder it leaves on a stack) and
    /// `popd` (back to the top of the stack). Other forms (`pushd` alone,
    /// `+N`, `-N`) make the working folder unknown.
    pub(super) fn pushd_popd(&mut self, builtin: &str, args: &[Val]) -> Status {
        let operands: Vec<&Val> = args
            .iter()
            .filter(|a| !matches!(a, Val::Known(t) if t == "--"))
            .collect();
        let simple = match builtin {
            "pushd" => matches!(operands.as_slice(), [Val::Known(t)] if !t.starts_with(['+', '-'])),
            _ => operands.is_empty(),
        };
        if !simple {
            let reason = format!("`{builtin}` with these operands is not evaluated");
            self.st.cwd = Some(Val::Unknown(reason.clone()));
            self.st.dirstack = vec![Some(Val::Unknown(reason.clone()))];
            return Status::Unknown(reason);
        }
        if builtin == "pushd" {
            let here = self.st.cwd.clone();
            let status = self.cd(&[operands[0].clone()]);
            if status != Status::Fail {
                self.st.dirstack.push(here);
            }
            return status;
        }
        match self.st.dirstack.pop() {
            // "directory stack empty".
            None => Status::Fail,
            Some(top) => {
                self.st.oldpwd = Some(self.st.cwd.clone());
                let status = match &top {
                    Some(Val::Unknown(r)) => Status::Unknown(r.clone()),
                    _ => Status::Ok,
                };
                self.st.cwd = top;
                status
            }
        }
    }

    /// `pwd -P`: the physical working folder, symbolic links resolved.
    pub(super) fn pwd_physical(&self) -> Result<String, String> {
        let cur = self.cwd_text()?;
        let rel = self.physical("", if cur.is_empty() { "." } else { &cur })?;
        let start = self
            .start_folder()
            .ok_or("the script is not a local file, so its folders are not known")?;
        let canon = crate::files::admit(&start).map_err(|e| e.to_string())?;
        Ok(if rel.starts_with('/') {
            rel
        } else {
            logical_join(&canon.display().to_string(), &rel)
        })
    }

    /// Records that the command at `at` changed `target` (`verb`: "written",
    /// "removed or moved"): a later read of it is not knowable.
    pub(super) fn note_changed(&mut self, target: &Val, verb: &str, at: usize) {
        let pos = self.source.line_col(at);
        let reason = format!(
            "{verb} by the script at {}:{}:{}",
            self.source.origin.label(),
            pos.line,
            pos.col
        );
        let key = match target {
            Val::Known(t) if t.starts_with("/dev/") || t.is_empty() => return,
            Val::Known(t) => match self.cwd_text() {
                Ok(cur) => logical_join(&cur, t),
                Err(_) if t.starts_with('/') => logical_join("", t),
                Err(r) => {
                    self.st.touched.mark_anywhere(|| format!(
                        "a file may have been {reason}, from a working folder that is not knowable ({r})"
                    ));
                    return;
                }
            },
            Val::Unknown(r) => {
                self.st.touched.mark_anywhere(|| {
                    format!("a file whose path is not knowable ({r}) was {reason}")
                });
                return;
            }
        };
        // A text written before is no longer what is there.
        self.st.touched.mark(key, reason);
    }

    /// Why reading `target` now would not give its committed content, if it
    /// would not: the script wrote, removed or moved it (or a folder above
    /// it) before.
    pub(super) fn changed(&self, target: &str) -> Option<String> {
        let key = match self.cwd_text() {
            Ok(cur) => logical_join(&cur, target),
            Err(_) => logical_join("", target),
        };
        self.st
            .touched
            .changed(&key)
            .map(|r| format!("{target} may not hold what is committed: it was {r}"))
    }

    /// `cat > FILE <<EOF ... EOF` (one output redirection, no operands):
    /// FILE's whole text is the here-document's, expanded as the child
    /// expands it (on a copy of the state: its assignments do not happen
    /// here). Call after [`Self::note_redirects`].
    pub(super) fn note_written_text(&mut self, sc: &ast::SimpleCommand, at: usize) {
        if sc.word_or_name.as_ref().map(|w| w.value.as_str()) != Some("cat") {
            return;
        }
        let items: Vec<&ast::CommandPrefixOrSuffixItem> = sc
            .prefix
            .iter()
            .flat_map(|p| p.0.iter())
            .chain(sc.suffix.iter().flat_map(|s| s.0.iter()))
            .collect();
        let (mut target, mut doc) = (None, None);
        for it in items {
            match it {
                ast::CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::File(
                    None | Some(1),
                    ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber,
                    ast::IoFileRedirectTarget::Filename(w),
                )) if target.is_none() => target = Some(w),
                ast::CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereDocument(
                    None | Some(0),
                    d,
                )) if doc.is_none() => doc = Some(d),
                _ => return,
            }
        }
        let (Some(w), Some(d)) = (target, doc) else {
            return;
        };
        let mut copy = self.st.clone();
        let Ok(Val::Known(path)) = super::expand::expand_string(&mut copy, &w.value) else {
            return;
        };
        let text = if d.requires_expansion {
            match super::expand::expand_string(
                &mut copy,
                &super::launch::heredoc_as_double_quoted(&d.doc.value),
            ) {
                Ok(Val::Known(t)) => t,
                _ => return,
            }
        } else {
            d.doc.value.clone()
        };
        let Ok(cur) = self.cwd_text() else {
            return;
        };
        let key = logical_join(&cur, &path);
        let pos = self.source.line_col(at);
        let from = format!("{}:{}:{}", self.source.origin.label(), pos.line, pos.col);
        if self.condition().is_none() {
            self.st.touched.set_text(key, text, from);
        }
    }

    /// The whole text the script wrote at `target` (`cat > FILE <<EOF`) and
    /// where, when it is knowable and nothing changed it since.
    pub(super) fn written_text(&self, target: &str) -> Option<(String, String)> {
        let cur = self.cwd_text().ok()?;
        self.st
            .touched
            .text(&logical_join(&cur, target))
            .map(|(t, w)| (t.to_string(), w.to_string()))
    }

    /// The paths a simple command's or a compound command's redirections
    /// write (`> f`, `>> f`, `<> f`, `>| f`, `&> f`); a process substitution
    /// (`< <(...)`, `> >(...)`) is evaluated for the files it changes.
    pub(super) fn note_redirects<'r>(
        &mut self,
        redirects: impl Iterator<Item = &'r ast::IoRedirect>,
        at: usize,
    ) -> Result<(), Error> {
        for r in redirects {
            if let ast::IoRedirect::File(
                _,
                _,
                ast::IoFileRedirectTarget::ProcessSubstitution(_, sub),
            ) = r
            {
                self.process_substitution(sub)?;
                continue;
            }
            let w = match r {
                ast::IoRedirect::File(
                    _,
                    ast::IoFileRedirectKind::Write
                    | ast::IoFileRedirectKind::Append
                    | ast::IoFileRedirectKind::ReadAndWrite
                    | ast::IoFileRedirectKind::Clobber,
                    ast::IoFileRedirectTarget::Filename(w),
                ) => w,
                ast::IoRedirect::OutputAndError(w, _) => w,
                _ => continue,
            };
            let v = self.str_of(w)?;
            self.note_changed(&v, "written", at);
        }
        Ok(())
    }

    /// A program recipe-drift does not model (`python gen.py --out cfg.yaml`,
    /// `yq -i ... cfg.yaml`, `git clone URL dir`) may write any file it
    /// names: each known operand that looks like a path (it holds a `/` or a
    /// file extension; the value of `--opt=PATH` too) is recorded as possibly
    /// written, so a later `source`, `--config` or `--env-file` of it is not
    /// knowable. Files it writes without naming them are not seen; operands
    /// that are not knowable are not taken as paths (that would make every
    /// later read unknown); programs in [`READS_ONLY`] write nothing.
    pub(super) fn note_unmodelled_writes(&mut self, words: &[Val], at: usize) {
        // The program after its wrappers (`timeout 60 python3 gen.py`).
        let known: Vec<&str> = words
            .iter()
            .map_while(|w| match w {
                Val::Known(t) => Some(t.as_str()),
                Val::Unknown(_) => None,
            })
            .collect();
        let mut i = 0;
        while i < known.len() {
            match known[i] {
                "exec" | "command" | "builtin" => i += 1,
                _ => match crate::launch::read_wrapper(&known[i..]) {
                    Some((_, used)) if used.len > 0 => i += used.len,
                    _ => break,
                },
            }
        }
        let words = &words[i.min(words.len())..];
        let Some(Val::Known(head)) = words.first() else {
            return;
        };
        let name = head.rsplit('/').next().unwrap_or("");
        // A shell's script is evaluated (or refused) with its own writes.
        if READS_ONLY.contains(&name)
            || super::launch::SHELLS.contains(&name)
            || name.ends_with(".sh")
        {
            return;
        }
        let verb = format!(
            "possibly written by `{name}` (a program recipe-drift does not model, which names it), run"
        );
        for w in &words[1..] {
            let Val::Known(t) = w else { continue };
            let path = match t.split_once('=') {
                Some((opt, v)) if opt.starts_with('-') => v,
                _ if t.starts_with('-') => continue,
                _ => t.as_str(),
            };
            if looks_like_path(path) {
                self.note_changed(&Val::Known(path.to_string()), &verb, at);
            }
        }
    }

    /// The files a command that is run (never evaluated) changes: the
    /// operands of `cp`, `mv`, `rm`, `tee`, ... (sources of `mv` included:
    /// they are gone), the files of `sed -i`, `curl -o FILE`, `wget -O
    /// FILE`, `--local-dir DIR`.
    pub(super) fn note_command_writes(&mut self, words: &[Val], at: usize) {
        let Some(Val::Known(head)) = words.first() else {
            return;
        };
        let head = head.rsplit('/').next().unwrap_or("").to_string();
        let operands = || {
            words[1..]
                .iter()
                .filter(|w| !matches!(w, Val::Known(t) if t.starts_with('-')))
                .cloned()
                .collect::<Vec<_>>()
        };
        if CHANGES_OPERANDS.contains(&head.as_str()) {
            let verb = match head.as_str() {
                "rm" | "rmdir" | "unlink" => "removed",
                "mv" => "moved",
                _ => "written",
            };
            for w in operands() {
                self.note_changed(&w, verb, at);
            }
            return;
        }
        if CHANGES_LAST.contains(&head.as_str()) {
            if let Some(w) = operands().last() {
                self.note_changed(w, "written", at);
            }
            return;
        }
        if head == "mkdir" {
            // A folder that was not there: what is read under it is new.
            for w in operands() {
                let new = match &w {
                    Val::Known(t) => {
                        self.cwd_text()
                            .ok()
                            .and_then(|cur| self.folder_there(&logical_join(&cur, t)))
                            != Some(true)
                    }
                    Val::Unknown(_) => false,
                };
                if new {
                    self.note_changed(&w, "created", at);
                }
            }
            return;
        }
        if head == "sed"
            && words[1..]
                .iter()
                .any(|w| matches!(w, Val::Known(t) if t.starts_with("-i") || t.starts_with("--in-place") || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))))
        {
            // Every operand but the script (the first, without `-e`/`-f`).
            for w in operands().into_iter().skip(1) {
                self.note_changed(&w, "edited in place", at);
            }
            return;
        }
        if let Some((_, opts)) = WRITES_OPTION.iter().find(|(n, _)| *n == head) {
            for (k, w) in words.iter().enumerate() {
                let Val::Known(t) = w else { continue };
                for o in opts.iter() {
                    if t == o {
                        if let Some(v) = words.get(k + 1) {
                            self.note_changed(v, "written", at);
                        }
                    } else if let Some(v) = t.strip_prefix(&format!("{o}=")) {
                        self.note_changed(&Val::Known(v.to_string()), "written", at);
                    }
                }
            }
        }
    }
}

/// The folder a shell running `script` starts its relative paths from: the
/// script file's folder (`None` for text that is not a local file).
pub(super) fn start_of(script: &crate::span::Source) -> Option<PathBuf> {
    match &script.origin {
        crate::span::Origin::File(p) => Some(p.parent().unwrap_or(Path::new("")).to_path_buf()),
        _ => None,
    }
}

/// `written` (keys relative to the folder `from`) with its keys relative to
/// the folder `to`; a key outside `to` becomes absolute. Unchanged when
/// either folder is not known or both are the same.
pub(super) fn rebase(
    written: &crate::launch::Written,
    from: Option<&Path>,
    to: Option<&Path>,
) -> crate::launch::Written {
    let (Some(from), Some(to)) = (from, to) else {
        return written.clone();
    };
    let absolute = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let (from, to) = (absolute(from), absolute(to));
    if from == to {
        return written.clone();
    }
    let key = |k: &str| {
        let abs = logical_join(&from, k);
        relative_to(&abs, &to).unwrap_or(abs)
    };
    crate::launch::Written {
        paths: std::sync::Arc::new(
            written
                .paths
                .iter()
                .map(|(k, r)| (key(k), r.clone()))
                .collect(),
        ),
        anywhere: written.anywhere.clone(),
        texts: std::sync::Arc::new(
            written
                .texts
                .iter()
                .map(|(k, t)| (key(k), t.clone()))
                .collect(),
        ),
    }
}

/// `abs` relative to the absolute folder `folder` (`.` for the folder
/// itself), when it is inside it.
fn relative_to(abs: &str, folder: &str) -> Option<String> {
    let folder = folder.trim_end_matches('/');
    if abs == folder {
        return Some(".".into());
    }
    abs.strip_prefix(folder)?
        .strip_prefix('/')
        .map(str::to_string)
}

/// Whether a word looks like a file path: not a URL or a number, and it
/// holds a `/` or ends in a file extension (`cfg.yaml`, `./run`, `out/`).
fn looks_like_path(word: &str) -> bool {
    if word.is_empty() || word.contains("://") || word.parse::<f64>().is_ok() {
        return false;
    }
    if word.contains('/') {
        return true;
    }
    match word.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        }
        None => false,
    }
}
