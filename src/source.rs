//! Source texts and positions: every token recipe-drift reports points back to a
//! file, a line and a column.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::error::Error;

/// Where a text came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Origin {
    /// A file on disk, as the user named it.
    File(PathBuf),
    /// Text given on the command line (for example `resolve -- ARGV`).
    Inline(String),
    /// Text rendered from a file: a cookbook generator's command for one selection.
    Rendered {
        /// The file that was rendered (a page or a component).
        file: PathBuf,
        /// What was rendered: the component and the selection.
        view: String,
    },
}

impl Origin {
    /// A short, stable label for messages (`path` or `<label>`).
    pub fn label(&self) -> String {
        match self {
            Origin::File(p) => p.display().to_string(),
            Origin::Inline(l) => format!("<{l}>"),
            Origin::Rendered { file, view } => format!("{} [{view}]", file.display()),
        }
    }
}

/// A loaded text plus its origin, with a line index for offset -> line:col.
#[derive(Debug)]
pub struct Source {
    /// Where the text came from.
    pub origin: Origin,
    /// The whole text.
    pub text: String,
    line_starts: Vec<usize>,
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column number, in characters.
    pub col: usize,
}

/// A byte range in one source, with its resolved start position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    /// The source's label (path or `<inline>`).
    pub file: Arc<str>,
    /// Start byte offset.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// Line and column of `start`.
    #[serde(flatten)]
    pub pos: LineCol,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.pos.line, self.pos.col)
    }
}

impl Source {
    /// Wraps a text with its origin.
    pub fn new(origin: Origin, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            origin,
            text,
            line_starts,
        }
    }

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
                at: format!("{}:1:1", path.display()),
                message: format!("cannot read file: {}", io_reason(&e)),
            }),
        }
    }

    /// The label used in spans and messages.
    pub fn label(&self) -> Arc<str> {
        Arc::from(self.origin.label())
    }

    /// Line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            col,
        }
    }

    /// A span for a byte range.
    pub fn span(&self, start: usize, end: usize) -> Span {
        Span {
            file: self.label(),
            start,
            end,
            pos: self.line_col(start),
        }
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        if line == 0 || line > self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches('\r')
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
