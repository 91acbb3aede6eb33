//! The file layer: where a file is (a path or a remote reference), and how it
//! is read ([`Files`]: on disk, or through `crate::fetch` from the network).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::error::Error;
use crate::span::{Origin, Source, Span};

impl Source {
    /// Reads a file through the confined layer ([`admit`]): inside a root, a
    /// regular file, at most the file size cap, valid UTF-8. Every failure is
    /// an input error naming the path, never its content.
    pub fn read(path: &Path) -> Result<Arc<Source>, Error> {
        let real = admit(path)?;
        let bytes = read_capped(path, &real)?;
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Arc::new(Source::new(
                Origin::File(path.to_path_buf()),
                text,
            ))),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let src = Source::new(
                    Origin::File(path.to_path_buf()),
                    String::from_utf8_lossy(&e.into_bytes()[..at]).into_owned(),
                );
                Err(Error::input(src.span(at, at), NOT_UTF8))
            }
        }
    }
}

/// The message of a read that is not valid UTF-8 (a binary file).
pub const NOT_UTF8: &str = "file is not valid UTF-8";

/// The largest local file read, by default (8 MiB): far above any docs page,
/// script or config, far below the memory budget. `--max-file-bytes` changes it.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The roots reads are confined to, and the file size cap, for this run.
#[derive(Debug, Clone)]
struct Jail {
    /// Canonical folders; `None`: not confined (library use, unit tests).
    roots: Option<Vec<PathBuf>>,
    /// The largest file read.
    max_bytes: u64,
}

/// The run's jail. A command sets it once, before it reads anything, from the
/// roots the user chose (the config's repository, the files named on the
/// command line, `--root`); every local read checks it ([`admit`]).
static JAIL: RwLock<Jail> = RwLock::new(Jail {
    roots: None,
    max_bytes: DEFAULT_MAX_FILE_BYTES,
});

/// Confines every later local read to these folders (canonicalised; a folder
/// that does not exist is a usage error) and caps file sizes at `max_bytes`.
pub fn confine(roots: &[PathBuf], max_bytes: u64) -> Result<(), Error> {
    let mut canon = Vec::new();
    for r in roots {
        canon.push(canonical_root(r)?);
    }
    let mut jail = JAIL.write().unwrap_or_else(|p| p.into_inner());
    jail.roots = Some(canon);
    jail.max_bytes = max_bytes;
    Ok(())
}

/// Adds a root (a second repository, such as an InferenceX checkout named by
/// the config) to a confined run; nothing when the run is not confined. A
/// folder holding a root already there (`/`, `..` of the repository) would
/// widen the run to everything below it: that is an error.
pub fn add_root(root: &Path) -> Result<(), Error> {
    let canon = canonical_root(root)?;
    let mut jail = JAIL.write().unwrap_or_else(|p| p.into_inner());
    if let Some(roots) = &mut jail.roots {
        if let Some(r) = roots.iter().find(|r| r.starts_with(&canon) && **r != canon) {
            return Err(Error::usage(format!(
                "{} holds the repository root {}: a second root must be a folder of its own (--root DIR widens the run on purpose)",
                root.display(),
                r.display()
            )));
        }
        if !roots.contains(&canon) {
            roots.push(canon);
        }
    }
    Ok(())
}

fn canonical_root(r: &Path) -> Result<PathBuf, Error> {
    match r.canonicalize() {
        Ok(c) if c.is_dir() => Ok(c),
        Ok(_) => Err(Error::usage(format!("root {}: not a folder", r.display()))),
        Err(e) => Err(Error::usage(format!(
            "root {}: {}",
            r.display(),
            io_reason(&e)
        ))),
    }
}

/// The repository a path belongs to: the nearest folder at or above it
/// holding `.git` (a folder or a worktree's file), else the path's own folder
/// (the path itself when it is a folder; the folder above a `.github` one,
/// where a config may live).
pub fn repository_root(path: &Path) -> PathBuf {
    let abs = absolute(path);
    let start = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or(abs.clone())
    };
    let start = start.canonicalize().unwrap_or(start);
    let mut dir = Some(start.as_path());
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    match (start.file_name(), start.parent()) {
        (Some(n), Some(parent)) if n == ".github" => parent.to_path_buf(),
        _ => start,
    }
}

/// `path` made absolute against the current folder, `.` and `..` applied
/// lexically ([`crate::span::absolute`]).
pub(crate) use crate::span::absolute;

/// Where a path really leads: the canonical form of its longest existing
/// ancestor plus the rest (so a path that does not exist is placed too).
fn real_path(abs: &Path) -> PathBuf {
    let mut head = abs.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    // Dangling symlinks followed so far (the kernel's ELOOP bound is 40).
    let mut hops = 0;
    loop {
        if let Ok(c) = head.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        // A dangling symlink is followed to where it points, as opening the
        // path would: a link to a missing file outside the roots is outside,
        // like a link to an existing one (else whether an outside file exists
        // would show).
        if hops < 40
            && head
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
            && let Ok(target) = std::fs::read_link(&head)
        {
            hops += 1;
            let base = head.parent().map(Path::to_path_buf).unwrap_or_default();
            head = absolute(&base.join(target));
            continue;
        }
        match (head.file_name().map(|n| n.to_os_string()), head.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                head = parent.to_path_buf();
            }
            _ => return abs.to_path_buf(),
        }
    }
}

/// The confinement check every local read and listing goes through: the path
/// (made absolute, symlinks followed) must stay inside a root of the run.
/// Returns the real path to open. The error names the path as written and the
/// root, never what the path holds.
pub fn admit(path: &Path) -> Result<PathBuf, Error> {
    let abs = absolute(path);
    let real = real_path(&abs);
    let jail = JAIL.read().unwrap_or_else(|p| p.into_inner());
    let Some(roots) = &jail.roots else {
        return Ok(real);
    };
    let inside = roots.iter().find(|r| real.starts_with(r));
    if let Some(root) = inside {
        // Git's own folder holds credentials (a CI checkout's token in
        // `.git/config`): never an input.
        let in_git = real
            .strip_prefix(root)
            .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == ".git"));
        if !in_git {
            return Ok(real);
        }
        return Err(Error::Input {
            span: Span::of_path(path),
            message: format!(
                "refused to read {}: files inside a .git folder are never read",
                path.display()
            ),
        });
    }
    let how = if roots.iter().any(|r| abs.starts_with(r)) {
        "a symlink on the way leads outside the repository root"
    } else {
        "the path leads outside the repository root"
    };
    // Each root once (the config's folder and the git top level are often one).
    let mut named: Vec<String> = Vec::new();
    for r in roots.iter().map(|r| r.display().to_string()) {
        if !named.contains(&r) {
            named.push(r);
        }
    }
    Err(Error::Input {
        span: Span::of_path(path),
        message: format!(
            "refused to read {}: {how} ({}); only files inside it are read (--root DIR widens it; {})",
            path.display(),
            named.join(", "),
            crate::error::Trouble::OutsideRoot.see()
        ),
    })
}

/// The folders an upward search from `start` visits, nearest first: `start`
/// and each folder above it, as written; a relative `start` goes on above
/// the current folder as `..`, `../..`, ... (paths in reports stay relative).
pub fn upward_folders(start: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = start.ancestors().map(Path::to_path_buf).collect();
    if start.is_relative() {
        let mut up = PathBuf::from("..");
        let cwd = absolute(Path::new("."));
        for _ in cwd.ancestors().skip(1) {
            out.push(up.clone());
            up.push("..");
        }
    }
    out
}

/// Why an upward search from `start` (for `taxonomy.yaml`, a docs root)
/// found nothing above a root of the run: `""` when the run is not confined
/// or every folder above `start` is readable; else a clause naming the root
/// where the search stopped, why reads stop there, and the flag that widens
/// them. It never says whether a file exists beyond the root.
pub fn search_stop_note(start: &Path) -> String {
    let abs = real_path(&absolute(start));
    let jail = JAIL.read().unwrap_or_else(|p| p.into_inner());
    let Some(roots) = &jail.roots else {
        return String::new();
    };
    let Some(root) = roots
        .iter()
        .filter(|r| abs.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
    else {
        return String::new();
    };
    if root.parent().is_none() {
        return String::new();
    }
    let why = if root.join(".git").exists() {
        "the repository root (the nearest folder with `.git`)"
    } else {
        "the folder the run was given (it has no `.git`, so no repository root above it was found)"
    };
    format!(
        "; folders above {} were not searched: reads stop at {why}; pass --root DIR to read a folder above it (a tree exported without `.git` needs this)",
        root.display()
    )
}

/// The file size cap of this run.
pub fn max_file_bytes() -> u64 {
    JAIL.read().unwrap_or_else(|p| p.into_inner()).max_bytes
}

/// Reads a regular file (`real`, admitted) of at most the size cap; errors
/// name `path` as written.
fn read_capped(path: &Path, real: &Path) -> Result<Vec<u8>, Error> {
    let fail = |message: String| Error::Input {
        span: Span::of_path(path),
        message,
    };
    let meta = std::fs::metadata(real)
        .map_err(|e| fail(format!("cannot read file: {}", io_reason(&e))))?;
    if meta.is_dir() {
        return Err(fail("cannot read file: is a directory".into()));
    }
    if !meta.is_file() {
        return Err(fail("cannot read file: not a regular file".into()));
    }
    let max = max_file_bytes();
    let too_big = || {
        fail(format!(
            "the file is larger than the file size cap of {max} bytes (--max-file-bytes)"
        ))
    };
    if meta.len() > max {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(real)
        .and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(|e| fail(format!("cannot read file: {}", io_reason(&e))))?;
    if bytes.len() as u64 > max {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Where a file is: on disk, or remote (fetched through [`crate::fetch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A path on disk.
    Path(PathBuf),
    /// A remote file or folder.
    Remote(RemoteRef),
}

/// A remote file or folder: a URL, or a file of a GitHub repository at a ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteRef {
    /// An `https://` (or, for hosts listed explicitly, `http://`) URL.
    Url(String),
    /// `github:owner/repo@ref:path` (`path` empty for the repository's root).
    Github {
        /// The repository's owner.
        owner: String,
        /// The repository's name.
        repo: String,
        /// A branch, tag or commit.
        rev: String,
        /// A `/`-separated path in the repository, without a leading `/`.
        path: String,
    },
}

impl Location {
    /// A path, or a remote reference when the text is one (`https://`,
    /// `http://`, `github:`).
    pub fn parse(text: &str) -> Result<Location, Error> {
        match RemoteRef::parse(text) {
            Some(r) => r.map(Location::Remote).map_err(Error::usage),
            None => Ok(Location::Path(PathBuf::from(text))),
        }
    }

    /// The origin a text read from this location has.
    pub fn origin(&self) -> Origin {
        match self {
            Location::Path(p) => Origin::File(p.clone()),
            Location::Remote(r) => Origin::Url(r.display()),
        }
    }

    /// The location as the user would write it.
    pub fn display(&self) -> String {
        match self {
            Location::Path(p) => p.display().to_string(),
            Location::Remote(r) => r.display(),
        }
    }

    /// A file or folder below this folder (`rel` is `/`-separated).
    pub fn join(&self, rel: &str) -> Location {
        match self {
            Location::Path(p) => Location::Path(p.join(rel)),
            Location::Remote(r) => Location::Remote(r.join(rel)),
        }
    }

    /// The folder holding this file.
    pub fn parent(&self) -> Location {
        match self {
            Location::Path(p) => Location::Path(p.parent().unwrap_or(Path::new("")).to_path_buf()),
            Location::Remote(r) => Location::Remote(r.parent()),
        }
    }

    /// The last component's name (for the input kind by extension).
    pub fn kind_path(&self) -> PathBuf {
        match self {
            Location::Path(p) => p.clone(),
            Location::Remote(r) => {
                let d = r.display();
                let last = d.rsplit(['/', ':']).next().unwrap_or("");
                PathBuf::from(last.split(['?', '#']).next().unwrap_or(""))
            }
        }
    }

    /// The location a source came from (its origin), if it is a file.
    pub fn of_origin(origin: &Origin) -> Option<Location> {
        match origin {
            Origin::File(p) => Some(Location::Path(p.clone())),
            Origin::Url(u) => RemoteRef::parse(u)
                .and_then(Result::ok)
                .map(Location::Remote),
            _ => None,
        }
    }
}

impl RemoteRef {
    /// `None` when the text is not a remote reference; an error when it looks like
    /// one but is malformed.
    pub fn parse(text: &str) -> Option<Result<RemoteRef, String>> {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("https://") || lower.starts_with("http://") {
            let ok = text.split_once("://").is_some_and(|(_, rest)| {
                !rest.is_empty() && !rest.starts_with('/') && !rest.contains(char::is_whitespace)
            });
            return Some(if ok {
                Ok(RemoteRef::Url(text.to_string()))
            } else {
                Err(format!("{text:?} is not a valid URL"))
            });
        }
        let rest = text.strip_prefix("github:")?;
        let bad = || {
            format!(
                "{text:?}: expected github:OWNER/REPO@REF:PATH (or github:OWNER/REPO@REF for a repository root)"
            )
        };
        let Some((repo_part, after)) = rest.split_once('@') else {
            return Some(Err(bad()));
        };
        let (rev, path) = match after.split_once(':') {
            Some((rev, path)) => (rev, path.trim_start_matches('/')),
            None => (after, ""),
        };
        let Some((owner, repo)) = repo_part.split_once('/') else {
            return Some(Err(bad()));
        };
        let seg_ok = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        // A ref is a branch, tag or commit name: git's rules, so it cannot climb
        // out of the repository's raw URL (`..`) or carry URL syntax.
        let rev_ok = !rev.is_empty()
            && !rev.starts_with(['/', '-'])
            && !rev.ends_with(['/', '.'])
            && !rev.contains("..")
            && !rev.contains("//")
            && !rev.split('/').any(|p| p.is_empty() || p.starts_with('.'))
            && rev
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
        let path_ok = !path.split('/').any(|p| {
            p == ".." || p.contains(['?', '#', '%', '\\']) || p.chars().any(char::is_control)
        });
        if !seg_ok(owner)
            || !seg_ok(repo)
            || matches!(owner, "." | "..")
            || matches!(repo, "." | "..")
            || !rev_ok
            || !path_ok
        {
            return Some(Err(bad()));
        }
        Some(Ok(RemoteRef::Github {
            owner: owner.into(),
            repo: repo.into(),
            rev: rev.into(),
            path: normalize_segments(path),
        }))
    }

    /// As the user writes it.
    pub fn display(&self) -> String {
        match self {
            RemoteRef::Url(u) => u.clone(),
            RemoteRef::Github {
                owner,
                repo,
                rev,
                path,
            } if path.is_empty() => format!("github:{owner}/{repo}@{rev}"),
            RemoteRef::Github {
                owner,
                repo,
                rev,
                path,
            } => format!("github:{owner}/{repo}@{rev}:{path}"),
        }
    }

    /// A file or folder below this one.
    pub fn join(&self, rel: &str) -> RemoteRef {
        match self {
            RemoteRef::Url(u) => {
                let (head, path) = split_url(u);
                RemoteRef::Url(format!(
                    "{head}/{}",
                    normalize_segments(&format!("{path}/{rel}"))
                ))
            }
            RemoteRef::Github { path, .. } => {
                let mut r = self.clone();
                if let RemoteRef::Github { path: p, .. } = &mut r {
                    *p = normalize_segments(&format!("{path}/{rel}"));
                }
                r
            }
        }
    }

    /// The folder holding this file.
    pub fn parent(&self) -> RemoteRef {
        self.join("..")
    }
}

/// `scheme://host` and the path after it (without query or fragment).
fn split_url(u: &str) -> (&str, &str) {
    let after = u.find("://").map(|i| i + 3).unwrap_or(0);
    let u = u.split(['?', '#']).next().unwrap_or(u);
    match u[after..].find('/') {
        Some(i) => (&u[..after + i], &u[after + i + 1..]),
        None => (u, ""),
    }
}

/// Drops empty and `.` segments and applies `..` to a `/`-separated path.
fn normalize_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// How recipe-drift reads files: from disk, or (through [`crate::fetch::Fetcher`])
/// from the network. An InferenceX root on disk and one on GitHub share the code
/// that reads them through this.
pub trait Files {
    /// Reads a file; a missing one is an error naming it.
    fn read(&self, at: &Location) -> Result<Arc<Source>, Error>;
    /// Whether a file exists.
    fn is_file(&self, at: &Location) -> Result<bool, Error>;
    /// The names of the files (not folders) in a folder, sorted.
    fn list(&self, dir: &Location) -> Result<Vec<String>, Error>;
}

/// The files on disk only: a remote location is an error.
pub struct LocalFiles;

impl LocalFiles {
    fn no_remote(at: &RemoteRef) -> Error {
        Error::usage(format!(
            "{}: a remote file cannot be read here (only files on disk)",
            at.display()
        ))
    }
}

impl Files for LocalFiles {
    fn read(&self, at: &Location) -> Result<Arc<Source>, Error> {
        match at {
            Location::Path(p) => Source::read(p),
            Location::Remote(r) => Err(Self::no_remote(r)),
        }
    }

    fn is_file(&self, at: &Location) -> Result<bool, Error> {
        match at {
            Location::Path(p) => is_file(p),
            Location::Remote(r) => Err(Self::no_remote(r)),
        }
    }

    fn list(&self, dir: &Location) -> Result<Vec<String>, Error> {
        let d = match dir {
            Location::Path(d) => d,
            Location::Remote(r) => return Err(Self::no_remote(r)),
        };
        let real = admit(d)?;
        let mut names: Vec<String> = std::fs::read_dir(real)
            .map_err(|e| Error::Input {
                span: Span::of_path(d),
                message: format!("cannot read the folder: {}", io_reason(&e)),
            })?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }
}

/// Whether a path is a file, checked through the confined layer: a path
/// outside the roots is the refusal error, not a quiet `false`.
pub fn is_file(path: &Path) -> Result<bool, Error> {
    Ok(admit(path)?.is_file())
}

/// What is at a path, as the confined layer lets a run see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Nothing readable: missing, or outside the roots, or inside a `.git`
    /// folder, or neither a regular file nor a folder. One answer for all of
    /// them, so a probe never tells whether something exists outside.
    Absent,
    /// A regular file inside a root.
    File,
    /// A folder inside a root.
    Dir,
}

/// The one confined existence query: what `path` is, where a path outside
/// the roots (or under `.git/`) is [`Probe::Absent`] exactly like a missing
/// one. Code that looks for an optional file (a `taxonomy.yaml` above a
/// recipe, an import's candidates) asks this, never `Path::is_file`.
pub fn probe(path: &Path) -> Probe {
    match admit(path)
        .and_then(|real| std::fs::metadata(real).map_err(|e| Error::usage(io_reason(&e))))
    {
        Ok(m) if m.is_file() => Probe::File,
        Ok(m) if m.is_dir() => Probe::Dir,
        _ => Probe::Absent,
    }
}

/// Whether `path` is a regular file inside the roots ([`probe`]).
pub fn is_readable_file(path: &Path) -> bool {
    probe(path) == Probe::File
}

/// A short reason for an I/O error, without the OS error number.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => e.to_string(),
    }
}

/// The location of a path given on the command line or in a config: a file
/// name that is not UTF-8 is refused as such (read lossily, it named a file
/// that does not exist).
pub fn location_of(path: &std::path::Path) -> Result<Location, Error> {
    match path.to_str() {
        Some(p) => Location::parse(p),
        None => Err(Error::usage(format!(
            "{}: the file name is not valid UTF-8; recipe-drift reads files whose names are UTF-8 (rename it)",
            path.to_string_lossy()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The jail is the process's: these tests never set it (other tests of
    // this binary read the crate's fixtures unconfined).

    #[test]
    fn absolute_applies_dots_lexically() {
        assert_eq!(
            absolute(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(absolute(Path::new("/a/../../x")), PathBuf::from("/x"));
    }

    #[test]
    fn real_path_places_a_missing_file_below_its_real_folder() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let canon = real.canonicalize().unwrap();
        assert_eq!(
            real_path(&dir.path().join("link/missing/x.sh")),
            canon.join("missing/x.sh")
        );
    }

    #[test]
    fn a_dangling_symlink_is_placed_where_it_points() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        std::fs::create_dir(top.join("repo")).unwrap();
        std::fs::create_dir(top.join("outside")).unwrap();
        std::os::unix::fs::symlink(top.join("outside/missing"), top.join("repo/abs")).unwrap();
        std::os::unix::fs::symlink("../outside/gone", top.join("repo/rel")).unwrap();
        std::os::unix::fs::symlink("loop", top.join("repo/loop")).unwrap();
        assert_eq!(
            real_path(&top.join("repo/abs")),
            top.join("outside/missing")
        );
        assert_eq!(real_path(&top.join("repo/rel")), top.join("outside/gone"));
        // A loop ends (at the kernel's bound) inside the folder it is in.
        assert!(real_path(&top.join("repo/loop")).starts_with(top.join("repo")));
    }

    #[test]
    fn the_repository_is_the_git_top_level_else_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        std::fs::create_dir_all(top.join(".github")).unwrap();
        assert_eq!(repository_root(&top.join("a/b/x.sh")), top.join("a/b"));
        assert_eq!(repository_root(&top.join(".github/c.yaml")), top);
        std::fs::create_dir(top.join(".git")).unwrap();
        assert_eq!(repository_root(&top.join("a/b/x.sh")), top);
        assert_eq!(repository_root(&top.join("a")), top);
    }
}

/// How a format reads a leading byte-order mark (U+FEFF) and carriage
/// returns, decided as its own tool reads them ([`check_line_endings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEndings {
    /// Markdown, MDX, YAML, JavaScript and plain command lines: a leading
    /// BOM is skipped and CRLF ends a line; a bare CR (CR-only line endings)
    /// is an error, since positions count lines by LF.
    Text,
    /// Bash: a BOM is part of the first word and a CR part of the word it
    /// ends (`--tp 8\r` passes `8\r`, `\` then CRLF continues nothing), so a
    /// script holding either does not run as written: both are errors.
    Bash,
}

/// Checks a text's byte-order mark and carriage returns as its format reads
/// them ([`LineEndings`]): the one check every reader of a format makes
/// before parsing. The error is at the first character it is about.
pub fn check_line_endings(source: &Source, format: LineEndings) -> Result<(), Error> {
    let text = &*source.text;
    if format == LineEndings::Bash && text.starts_with('\u{feff}') {
        return Err(Error::input(
            source.span(0, 3),
            "the script starts with a byte-order mark (U+FEFF), which bash reads as part of the first word, so it does not run as written; save it without the mark",
        ));
    }
    let bytes = text.as_bytes();
    let bad = match format {
        LineEndings::Text => bytes
            .iter()
            .enumerate()
            .position(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n')),
        LineEndings::Bash => bytes.iter().position(|&b| b == b'\r'),
    };
    let Some(at) = bad else {
        return Ok(());
    };
    let message = match format {
        LineEndings::Text => {
            "a carriage return that is not followed by a line feed: CR-only (classic Mac) line endings are not read; save the file with LF or CRLF line endings"
        }
        LineEndings::Bash => {
            "a carriage return (CRLF line endings?): bash reads it as part of the word before it (`--tp 8\\r` passes `8\\r`, and a `\\` before it continues no line), so the script does not run as written; save it with LF line endings"
        }
    };
    Err(Error::input(source.span(at, at + 1), message))
}
