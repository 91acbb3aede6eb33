//! Source texts and positions: every token recipe-drift reports points back to a
//! file, a line and a column. A leaf: texts are read by `crate::files`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

/// Where a text came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Origin {
    /// A file on disk, as the user named it.
    File(PathBuf),
    /// Text given on the command line (for example `resolve -- ARGV`).
    Inline(String),
    /// A remote file, as the user named it (`https://...` or
    /// `github:owner/repo@ref:path`).
    Url(String),
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
            Origin::Url(u) => u.clone(),
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
    /// The origin and its label, shared by every span of this source.
    shared: Arc<Origin>,
    label: Arc<str>,
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column number, in characters.
    pub col: usize,
}

/// A byte range in one source, with its resolved start position. It names its
/// source by the source's [`Origin`] (typed: a file, a URL, a rendered view,
/// inline text), so reports place it without parsing its label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    /// The source's label (path or `<inline>`), as printed.
    pub file: Arc<str>,
    /// Start byte offset.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// Line and column of `start`.
    #[serde(flatten)]
    pub pos: LineCol,
    /// The source's origin.
    #[serde(skip)]
    pub origin: Arc<Origin>,
}

impl Span {
    /// The start of a file that has no text at hand (a missing file, a folder).
    pub fn of_path(path: &Path) -> Span {
        Span::start_of(&Origin::File(path.to_path_buf()))
    }

    /// The start of a source that has no text at hand.
    pub fn start_of(origin: &Origin) -> Span {
        Span::at(origin, LineCol { line: 1, col: 1 })
    }

    /// A position given as a line and column (a parser that reports no offset).
    pub fn at(origin: &Origin, pos: LineCol) -> Span {
        Span {
            file: Arc::from(origin.label()),
            start: 0,
            end: 0,
            pos,
            origin: Arc::new(origin.clone()),
        }
    }
}

impl Source {
    /// The span serde-saphyr reports for a location in this text (its byte
    /// range when known; else its line and column).
    pub fn yaml_span(&self, loc: &serde_saphyr::Location) -> Span {
        let sp = loc.span();
        match sp.byte_offset() {
            Some(start) => {
                let mut start = (start as usize).min(self.text.len());
                while !self.text.is_char_boundary(start) {
                    start -= 1;
                }
                let mut end = (start + sp.byte_len().unwrap_or(0) as usize).min(self.text.len());
                while !self.text.is_char_boundary(end) {
                    end -= 1;
                }
                self.span(start, end.max(start))
            }
            None if loc.line() > 0 => Span::at(
                &self.origin,
                LineCol {
                    line: loc.line() as usize,
                    col: loc.column().max(1) as usize,
                },
            ),
            None => Span::start_of(&self.origin),
        }
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.pos.line, self.pos.col)
    }
}

impl Source {
    /// Wraps a text with its origin.
    pub fn new(origin: Origin, text: String) -> Self {
        // Every text entering the run is scanned for secrets, masked in output.
        crate::secret::note_text(&text);
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let label = Arc::from(origin.label());
        Source {
            shared: Arc::new(origin.clone()),
            label,
            origin,
            text,
            line_starts,
        }
    }

    /// The label used in spans and messages.
    pub fn label(&self) -> Arc<str> {
        self.label.clone()
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
            origin: self.shared.clone(),
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
