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

/// Options of `cp`, `mv`, `ln`, `install`, `rsync` whose value is the next
/// word (not an operand).
const VALUE_OPTIONS: &[&str] = &[
    "-S", "-m", "-o", "-g", "-e", "--suffix", "--mode", "--owner", "--group",
];

/// `find` actions that change files or run programs: with one, `find` is an
/// unmodelled program (every operand may be written); without, it reads.
const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// The awk programs: they read unless their program prints to a file
/// (`print > "f"`), into a command (`|`) or runs one (`system()`).
const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];

/// `xargs` options whose value is the next word.
const XARGS_VALUES: &[&str] = &[
    "-n",
    "-I",
    "-i",
    "-d",
    "-L",
    "-l",
    "-P",
    "-s",
    "-E",
    "-e",
    "-a",
    "--arg-file",
    "--delimiter",
    "--max-args",
    "--max-procs",
];

/// Programs that run code or apply changes the text does not show (inline
/// code, patches, archives, another branch): (program, what makes it so: an
/// option or subcommand among its words; `""`: no script operand, so the
/// code comes from standard input; `"*"`: always). Any file may have
/// changed.
const RUNS_HIDDEN: &[(&str, &[&str])] = &[
    ("python", &["-c", "-", ""]),
    ("perl", &["-e", "-E", "-i", "-pi", "-", ""]),
    ("ruby", &["-e", "-", ""]),
    ("node", &["-e", "-p", "--eval", "--print", "-"]),
    (
        "git",
        &[
            "apply",
            "am",
            "pull",
            "merge",
            "rebase",
            "cherry-pick",
            "revert",
            "stash",
            "reset",
            "checkout",
            "restore",
            "switch",
        ],
    ),
    ("patch", &[""]),
    ("unzip", &["*"]),
];

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
/// files it writes ([`Interp::note_unmodelled_writes`]). Not here: `awk`
/// (`print > FILE`, `system()`), `find` with an action, `xargs` (runs a
/// command), `uniq` (its second operand is its output), `sed` with `w`.
const READS_ONLY: &[&str] = &[
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
    "wc",
    "which",
    "whoami",
    "[",
];

/// Folders resolved by [`Interp::key_of`] on this thread: the start folder,
/// and folder -> its physical key (`None`: not in the repository).
/// Committed folders do not change while recipe-drift runs.
type PhysicalCache = (PathBuf, std::collections::HashMap<String, Option<String>>);

thread_local! {
    static PHYSICAL: std::cell::RefCell<PhysicalCache> = std::cell::RefCell::default();
}

/// Folders kept resolved at most; past it the cache starts over.
const PHYSICAL_CACHE: usize = 4096;

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
        if self.st.touched.paths.contains_key(key) {
            return Some(true);
        }
        self.committed_folder(key)
    }

    /// Whether the folder `key` is in the repository (`None`: not knowable
    /// here).
    fn committed_folder(&self, key: &str) -> Option<bool> {
        let start = self.start_folder()?;
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

    /// The key of the file `target` names from the working folder `cur` in
    /// the touched set: its physical path (symbolic links of committed
    /// folders resolved) relative to where the script starts when it is
    /// inside it, so that `"$SCRIPT_DIR/gen.sh"`, `./gen.sh` and
    /// `link/gen.sh` are one file; else the logical path.
    fn key_of(&self, cur: &str, target: &str) -> String {
        let mut key = logical_join(cur, target);
        let Some(start) = self.start_folder() else {
            return key;
        };
        if key.starts_with('/') {
            // A path under the start folder, as `pwd` (logical) or `pwd -P`
            // (physical) names it.
            let logical = std::path::absolute(&start).ok();
            let physical = crate::files::admit(&start).ok();
            for base in [physical, logical].into_iter().flatten() {
                if let Some(rel) = relative_to(&key, &base.display().to_string()) {
                    key = rel;
                    break;
                }
            }
        }
        let Some((folder, name)) = key.rsplit_once('/') else {
            return key;
        };
        let folder = if folder.is_empty() { "/" } else { folder };
        let cached = PHYSICAL.with(|c| {
            let c = c.borrow();
            (c.0 == start).then(|| c.1.get(folder).cloned()).flatten()
        });
        let physical = match cached {
            Some(p) => p,
            None => {
                let p = self.physical("", folder).ok();
                PHYSICAL.with(|c| {
                    let mut c = c.borrow_mut();
                    if c.0 != start || c.1.len() >= PHYSICAL_CACHE {
                        *c = (start, Default::default());
                    }
                    c.1.insert(folder.to_string(), p.clone());
                });
                p
            }
        };
        match physical {
            Some(p) => logical_join(&p, name),
            None => key,
        }
    }

    /// Records that the command at `at` changed `target` (`verb`: "written",
    /// "removed or moved"): a later read of it is not knowable.
    pub(super) fn note_changed(&mut self, target: &Val, verb: &str, at: usize) {
        let reason = format!("{verb} by the script at {}", self.source.place(at));
        let key = match target {
            Val::Known(t) if t.starts_with("/dev/") || t.is_empty() => return,
            Val::Known(t) => match self.cwd_text() {
                Ok(cur) => self.key_of(&cur, t),
                Err(_) if t.starts_with('/') => self.key_of("", t),
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
            Ok(cur) => self.key_of(&cur, target),
            Err(_) => self.key_of("", target),
        };
        self.st
            .touched
            .changed(&key)
            .map(|r| format!("{target} may not hold what is committed: it was {r}"))
    }

    /// `cat > FILE <<EOF ... EOF` (one output redirection, no operands):
    /// FILE's whole text is the here-document's, expanded as the child
    /// expands it (on a copy of the state: its assignments do not happen
    /// here). Not when `cat` is a function or an alias (the file is
    /// written, its text not knowable), nor for `>` under `set -C` (bash
    /// does not overwrite a file that is there). Call after
    /// [`Self::note_redirects`].
    pub(super) fn note_written_text(&mut self, sc: &ast::SimpleCommand, at: usize) {
        if sc.word_or_name.as_ref().map(|w| w.value.as_str()) != Some("cat")
            || self.st.functions.contains_key("cat")
            || self.st.aliases.contains_key("cat")
        {
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
                    kind @ (ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber),
                    ast::IoFileRedirectTarget::Filename(w),
                )) if target.is_none() => {
                    if self.st.noclobber && matches!(kind, ast::IoFileRedirectKind::Write) {
                        return;
                    }
                    target = Some(w)
                }
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
        let key = self.key_of(&cur, &path);
        let from = self.source.place(at);
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
            .text(&self.key_of(&cur, target))
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
    /// `yq -i ... cfg.yaml`, `git clone URL dir`, `dd of=FILE`, `sort
    /// -oFILE`) may write any file it names: each known operand is recorded
    /// as possibly written (the value of `--opt=PATH`, `KEY=PATH` and a
    /// short option's attached value `-oPATH` too), so a later `source`,
    /// `--config` or `--env-file` of it is not knowable. A program whose
    /// name is not knowable (`"$PYTHON_BIN" gen.py`) is such a program. One
    /// running code or changes the text does not show ([`RUNS_HIDDEN`],
    /// `tar x`, `awk` printing to a file, `xargs CMD`, `sed` with `e`) may
    /// have written any file. Programs in [`READS_ONLY`] (and `find`
    /// without an action, `sed` without `w`) write nothing.
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
        let name = match words.first() {
            Some(Val::Known(head)) => head.rsplit('/').next().unwrap_or("").to_string(),
            Some(Val::Unknown(_)) => String::new(),
            None => return,
        };
        // A shell's script is evaluated (or refused) with its own writes.
        if READS_ONLY.contains(&name.as_str())
            || super::launch::SHELLS.contains(&name.as_str())
            || name.ends_with(".sh")
        {
            return;
        }
        let rest = &words[1..];
        let has = |o: &str| rest.iter().any(|w| matches!(w, Val::Known(t) if t == o));
        if name == "find" && !FIND_ACTIONS.iter().any(|a| has(a)) {
            return;
        }
        if name == "xargs" {
            return self.note_xargs(rest, at);
        }
        if name == "sed" {
            return self.note_sed(rest, at);
        }
        let hidden = hidden_changes(&name, rest);
        if hidden.is_none() && AWKS.contains(&name.as_str()) {
            // An awk program that neither prints to a file nor runs a command.
            return;
        }
        if let Some(why) = hidden {
            let place = self.source.place(at);
            self.st.touched.mark_anywhere(|| {
                format!(
                    "possibly changed by `{name}` at {place} ({why}, which the text does not show)"
                )
            });
        }
        let verb = if name.is_empty() {
            "possibly written by a program whose name is not knowable (it names it), run"
                .to_string()
        } else {
            format!(
                "possibly written by `{name}` (a program recipe-drift does not model, which names it), run"
            )
        };
        for w in rest {
            let Val::Known(t) = w else { continue };
            for path in operand_paths(t) {
                if !path.is_empty() && !path.contains("://") {
                    self.note_changed(&Val::Known(path.to_string()), &verb, at);
                }
            }
        }
    }

    /// `xargs [OPTIONS] CMD ARGS...`: CMD runs with operands read from its
    /// input, which are not knowable: unless CMD only reads, any file may
    /// have changed.
    fn note_xargs(&mut self, rest: &[Val], at: usize) {
        let mut k = 0;
        while let Some(Val::Known(t)) = rest.get(k) {
            if !t.starts_with('-') {
                break;
            }
            k += if XARGS_VALUES.contains(&t.as_str()) {
                2
            } else {
                1
            };
        }
        let cmd = &rest[k.min(rest.len())..];
        let name = match cmd.first() {
            None => "echo".to_string(),
            Some(Val::Known(h)) => h.rsplit('/').next().unwrap_or("").to_string(),
            Some(Val::Unknown(_)) => String::new(),
        };
        if READS_ONLY.contains(&name.as_str()) || name == "echo" {
            return;
        }
        let place = self.source.place(at);
        self.st.touched.mark_anywhere(|| {
            format!(
                "possibly changed by `xargs {name}` at {place} (it runs `{name}` on operands read from its input, which are not knowable)"
            )
        });
    }

    /// `sed` without `-i` writes the files its script names (`w FILE`,
    /// `s/a/b/w FILE`) and runs commands (`e`); a script that is not
    /// knowable (or read from a file, `-f`) may do either.
    fn note_sed(&mut self, rest: &[Val], at: usize) {
        let mut scripts: Vec<Option<&str>> = Vec::new();
        let mut explicit = false;
        let mut k = 0;
        while k < rest.len() {
            match &rest[k] {
                Val::Known(t) if t == "-e" || t == "--expression" => {
                    explicit = true;
                    scripts.push(match rest.get(k + 1) {
                        Some(Val::Known(s)) => Some(s.as_str()),
                        _ => None,
                    });
                    k += 2;
                    continue;
                }
                Val::Known(t) if t == "-f" || t == "--file" || t.starts_with("--file=") => {
                    explicit = true;
                    scripts.push(None);
                }
                Val::Known(t) if t.starts_with("--expression=") => {
                    explicit = true;
                    scripts.push(Some(&t["--expression=".len()..]));
                }
                Val::Known(t) if t.starts_with('-') => {}
                Val::Known(t) if !explicit && scripts.is_empty() => scripts.push(Some(t)),
                Val::Unknown(_) if !explicit && scripts.is_empty() => scripts.push(None),
                _ => {}
            }
            k += 1;
        }
        let verb = "written by a `sed` script's `w` command, run";
        for script in scripts {
            match script.map(sed_writes) {
                Some(Some(files)) => {
                    for f in files {
                        self.note_changed(&Val::Known(f), verb, at);
                    }
                }
                _ => {
                    let place = self.source.place(at);
                    self.st.touched.mark_anywhere(|| {
                        format!(
                            "possibly changed by `sed` at {place} (its script, which is not read here, may write files with `w` or run commands with `e`)"
                        )
                    });
                }
            }
        }
    }

    /// `cp`, `ln`, `install`, `rsync`: the last operand is written, or with
    /// `-t DIR` / `--target-directory=DIR` that folder; a folder target
    /// (`.`, `dir/`, a folder that is there) gets each source's name in it;
    /// `ln -s TARGET` alone makes `./NAME`.
    fn note_copy(&mut self, head: &str, args: &[Val], at: usize) {
        let mut operands: Vec<&Val> = Vec::new();
        let mut folder: Option<Val> = None;
        let mut k = 0;
        while k < args.len() {
            match &args[k] {
                Val::Known(t) if t == "-t" || t == "--target-directory" => {
                    folder = args.get(k + 1).cloned();
                    k += 1;
                }
                Val::Known(t) if t.starts_with("--target-directory=") => {
                    folder = Some(Val::Known(t["--target-directory=".len()..].to_string()));
                }
                Val::Known(t) if t.starts_with("-t") && !t.starts_with("--") => {
                    folder = Some(Val::Known(t[2..].to_string()));
                }
                Val::Known(t) if VALUE_OPTIONS.contains(&t.as_str()) => k += 1,
                Val::Known(t) if t.starts_with('-') && t.len() > 1 => {}
                w => operands.push(w),
            }
            k += 1;
        }
        let sources: Vec<&Val> = match (&folder, operands.len()) {
            (Some(_), _) => operands.clone(),
            // `ln -s TARGET`: a link named as TARGET's last part, here.
            (None, 1) if head == "ln" => {
                folder = Some(Val::Known(".".into()));
                operands.clone()
            }
            (None, 0) => return,
            (None, _) => {
                let last = operands.pop().cloned();
                let is_folder = match &last {
                    Some(Val::Known(t)) => {
                        t.ends_with('/')
                            || t == "."
                            || t == ".."
                            || self
                                .cwd_text()
                                .ok()
                                .and_then(|cur| self.committed_folder(&logical_join(&cur, t)))
                                == Some(true)
                    }
                    _ => false,
                };
                if !is_folder || head == "rsync" {
                    if let Some(w) = &last {
                        self.note_changed(w, "written", at);
                    }
                    return;
                }
                folder = last;
                operands
            }
        };
        let Some(folder) = folder else { return };
        for src in sources {
            let target = match (&folder, src) {
                (Val::Known(d), Val::Known(s)) => {
                    let name = s.trim_end_matches('/').rsplit('/').next().unwrap_or("");
                    Val::Known(format!("{}/{name}", d.trim_end_matches('/')))
                }
                // A name that is not knowable: anything in the folder.
                _ => folder.clone(),
            };
            self.note_changed(&target, "written", at);
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
            return self.note_copy(&head, &words[1..], at);
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
            let mut targets = Vec::new();
            for (k, w) in words.iter().enumerate() {
                let Val::Known(t) = w else { continue };
                for o in opts.iter() {
                    if t == o {
                        if let Some(v) = words.get(k + 1) {
                            targets.push(v.clone());
                        }
                    } else if let Some(v) = t.strip_prefix(&format!("{o}=")) {
                        targets.push(Val::Known(v.to_string()));
                    }
                }
            }
            for v in &targets {
                self.note_changed(v, "written", at);
            }
            if let [Val::Known(dir)] = &targets[..] {
                self.note_download(&head, words, dir, at);
            }
        }
    }

    /// `hf download REPO --local-dir DIR` (or `huggingface-cli download`):
    /// the folder holds that Hub repository's files, so a model path naming
    /// it names that checkpoint. Only a whole-repository download of a
    /// model (no file operands, no `--repo-type`, no `--include`/`--exclude`
    /// filters) is recorded.
    fn note_download(&mut self, head: &str, words: &[Val], dir: &str, at: usize) {
        if !matches!(head, "hf" | "huggingface-cli")
            || !matches!(words.get(1), Some(Val::Known(s)) if s == "download")
        {
            return;
        }
        let mut operands = Vec::new();
        let mut k = 2;
        while k < words.len() {
            let Val::Known(t) = &words[k] else { return };
            if t.starts_with("--repo-type")
                || t.starts_with("--include")
                || t.starts_with("--exclude")
            {
                return;
            }
            if t == "--local-dir" || t == "--revision" || t == "--token" || t == "--cache-dir" {
                k += 2;
                continue;
            }
            if !t.starts_with('-') {
                operands.push(t.clone());
            }
            k += 1;
        }
        let [repo] = &operands[..] else { return };
        if !crate::launch::is_hf_id(repo) {
            return;
        }
        let Ok(cur) = self.cwd_text() else { return };
        let key = self.key_of(&cur, dir);
        let key = key.trim_end_matches('/').to_string();
        let from = format!(
            "`{head} download {repo} --local-dir {dir}` at {}",
            self.source.place(at)
        );
        self.st.touched.set_download(key, repo.clone(), from);
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
        downloads: std::sync::Arc::new(
            written
                .downloads
                .iter()
                .map(|(k, d)| (key(k), d.clone()))
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

/// The paths a word given to an unmodelled program may name: the word
/// (an operand), the value of `--opt=VALUE` or `KEY=VALUE` (the word too),
/// the value attached to a short option (`-oFILE`); nothing for `-x` or
/// `--opt`.
fn operand_paths(word: &str) -> Vec<&str> {
    if let Some(long) = word.strip_prefix("--") {
        return long
            .split_once('=')
            .map(|(_, v)| vec![v])
            .unwrap_or_default();
    }
    if let Some(short) = word.strip_prefix('-') {
        // `-oFILE`: the letters after the first may be its value.
        return match short.char_indices().nth(1) {
            Some((i, _)) => vec![&short[i..]],
            None => Vec::new(),
        };
    }
    match word.split_once('=') {
        Some((_, v)) => vec![word, v],
        None => vec![word],
    }
}

/// Why `name` with the words `rest` runs code or applies changes the text
/// does not show ([`RUNS_HIDDEN`], `tar x`, `awk` writing a file or running
/// a command), if it does.
fn hidden_changes(name: &str, rest: &[Val]) -> Option<String> {
    fn known(w: &Val) -> Option<&str> {
        match w {
            Val::Known(t) => Some(t.as_str()),
            Val::Unknown(_) => None,
        }
    }
    let family = if name.starts_with("python") {
        "python"
    } else {
        name
    };
    if let Some((_, triggers)) = RUNS_HIDDEN.iter().find(|(n, _)| *n == family) {
        let operand = rest.iter().filter_map(known).find(|t| !t.starts_with('-'));
        for t in triggers.iter() {
            let hit = match *t {
                "*" => true,
                "" => {
                    operand.is_none()
                        && !rest
                            .iter()
                            .any(|w| matches!(known(w), Some("-m" | "--version" | "-V" | "--help")))
                }
                _ if t.starts_with('-') => rest.iter().any(|w| known(w) == Some(t)),
                // `git checkout REV -- PATHS`: the paths it names.
                _ if family == "git" && rest.iter().any(|w| known(w) == Some("--")) => false,
                _ => operand == Some(t),
            };
            if hit {
                return Some(match *t {
                    "*" => format!("`{name}` writes files the text does not name"),
                    "" => format!("`{name}` reads its code or changes from standard input"),
                    t => format!("`{name} {t}` runs code or applies changes"),
                });
            }
        }
    }
    match name {
        "tar" => {
            let first = rest.iter().filter_map(known).next().unwrap_or("");
            let extracts = rest.iter().filter_map(known).any(|t| {
                t == "--extract"
                    || t == "--get"
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('x'))
            }) || (!first.starts_with('-') && first.contains('x'));
            extracts.then(|| "`tar` extracts an archive".to_string())
        }
        n if AWKS.contains(&n) => {
            let program = rest
                .iter()
                .find(|w| !matches!(w, Val::Known(t) if t.starts_with('-')));
            let writes = match program {
                Some(Val::Known(p)) => p.contains('>') || p.contains('|') || p.contains("system"),
                _ => true,
            } || rest.iter().any(|w| matches!(known(w), Some(t) if t == "-i" || t.starts_with("-f") || t.starts_with("--file")));
            writes.then(|| "its program may print to a file or run a command".to_string())
        }
        _ => None,
    }
}

/// The files a `sed` script writes (`w FILE`, `W FILE`, `s/a/b/w FILE`);
/// `None` when it runs commands (`e`) or is not read as a sed script.
fn sed_writes(script: &str) -> Option<Vec<String>> {
    let c: Vec<char> = script.chars().collect();
    let mut files = Vec::new();
    let mut i = 0;
    let rest_of_line = |i: &mut usize| {
        let start = *i;
        while *i < c.len() && c[*i] != '\n' {
            *i += 1;
        }
        c[start..*i].iter().collect::<String>().trim().to_string()
    };
    // A regular expression or a part of `s`/`y` up to the unescaped `delim`.
    let part = |i: &mut usize, delim: char| -> Option<()> {
        while *i < c.len() && c[*i] != delim {
            if c[*i] == '\\' {
                *i += 1;
            }
            *i += 1;
        }
        (*i < c.len()).then(|| *i += 1)
    };
    while i < c.len() {
        // Separators and addresses.
        match c[i] {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '~' | '+' => {
                i += 1;
                continue;
            }
            d if d.is_ascii_digit() => {
                i += 1;
                continue;
            }
            '/' => {
                i += 1;
                part(&mut i, '/')?;
                continue;
            }
            '\\' => {
                let d = *c.get(i + 1)?;
                i += 2;
                part(&mut i, d)?;
                continue;
            }
            _ => {}
        }
        let cmd = c[i];
        i += 1;
        match cmd {
            's' | 'y' => {
                let d = *c.get(i)?;
                i += 1;
                part(&mut i, d)?;
                part(&mut i, d)?;
                if cmd == 'y' {
                    continue;
                }
                while i < c.len() && !matches!(c[i], ';' | '\n' | '}') {
                    match c[i] {
                        'w' => {
                            i += 1;
                            files.push(rest_of_line(&mut i));
                        }
                        'e' => return None,
                        _ => i += 1,
                    }
                }
            }
            'w' | 'W' => files.push(rest_of_line(&mut i)),
            'e' => return None,
            // Commands whose argument runs to the end of the line.
            'a' | 'i' | 'c' | 'r' | 'R' | ':' | 'b' | 't' | 'T' | 'q' | 'Q' | 'l' | 'L' | 'v' => {
                rest_of_line(&mut i);
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
            '#' => {
                rest_of_line(&mut i);
            }
            _ => return None,
        }
    }
    Some(files)
}
