//! The file layer: where a file is (a path or a remote reference), and how it
//! is read ([`Files`]: on disk, or through `crate::fetch` from the network).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Error;
use crate::span::{Origin, Source, Span};

impl Source {
    /// Reads a file; a missing or unreadable file is an input error naming the path.
    pub fn read(path: &Path) -> Result<Arc<Source>, Error> {
        match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
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
                    Err(Error::input(src.span(at, at), "file is not valid UTF-8"))
                }
            },
            Err(e) => Err(Error::Input {
                span: Span::of_path(path),
                message: format!("cannot read file: {}", io_reason(&e)),
            }),
        }
    }
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
            Location::Path(p) => Ok(p.is_file()),
            Location::Remote(r) => Err(Self::no_remote(r)),
        }
    }

    fn list(&self, dir: &Location) -> Result<Vec<String>, Error> {
        let d = match dir {
            Location::Path(d) => d,
            Location::Remote(r) => return Err(Self::no_remote(r)),
        };
        let mut names: Vec<String> = std::fs::read_dir(d)
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

/// A short reason for an I/O error, without the OS error number.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => e.to_string(),
    }
}
