//! Source texts and positions: every token recipe-drift reports points back to a
//! file, a line and a column. A leaf: texts are read by `crate::files`.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde::Serialize;

/// The project root file labels are relative to, absolute; `None`: the
/// current folder. Set once per run by the command ([`set_label_root`]).
static LABEL_ROOT: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Sets the project root of the run's file labels: the config file's
/// repository, or (`None`) the current folder when no config is used.
pub fn set_label_root(root: Option<&Path>) {
    let root = root.map(absolute);
    *LABEL_ROOT.write().unwrap_or_else(|e| e.into_inner()) = root;
}

/// `path` made absolute against the current folder, `.` and `..` applied
/// lexically (symbolic links are not followed).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// How reports name a file: its path from the project root (the config
/// file's repository, else the current folder) with `/` separators, so that a run
/// prints the same bytes whatever folder it starts in. A file outside the
/// root is reached with `..` from it while the two share a folder below the
/// file system's root (a config's `../recipes/x.sh`); one that shares none
/// (another disk, `/tmp`) keeps its absolute path. The one place a file's
/// label is made.
pub fn path_label(path: &Path) -> String {
    let root = LABEL_ROOT
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(|| absolute(Path::new(".")));
    label_under(&root, path)
}

/// [`path_label`] under the project root `root` (absolute).
fn label_under(root: &Path, path: &Path) -> String {
    let abs = absolute(path);
    let (from, to): (Vec<Component>, Vec<Component>) =
        (root.components().collect(), abs.components().collect());
    let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    // Only the file system's root (or a drive) in common: the absolute path.
    let roots = from
        .iter()
        .take_while(|c| !matches!(c, Component::Normal(_)))
        .count();
    if shared <= roots {
        return abs.display().to_string().replace('\\', "/");
    }
    let mut words: Vec<String> = vec!["..".to_string(); from.len() - shared];
    words.extend(
        to[shared..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if words.is_empty() {
        return ".".to_string();
    }
    words.join("/")
}

#[cfg(test)]
mod label_tests {
    use super::*;

    #[test]
    fn a_label_is_the_path_from_the_project_root_whatever_the_path_was_given_as() {
        let cwd = std::env::current_dir().unwrap();
        let root = cwd.join("proj");
        // The same file named from the root, from elsewhere and absolutely.
        for given in [
            cwd.join("proj/docs/a.md"),
            PathBuf::from("proj/docs/a.md"),
            PathBuf::from("proj/./sub/../docs/a.md"),
        ] {
            assert_eq!(label_under(&root, &given), "docs/a.md", "{given:?}");
        }
        // Beside the root: reached with `..`; under no shared folder: absolute.
        assert_eq!(label_under(&root, Path::new("other/b.sh")), "../other/b.sh");
        if cfg!(unix) && !cwd.starts_with("/far-away-folder") {
            let far = Path::new("/far-away-folder/c.sh");
            assert_eq!(label_under(&root, far), "/far-away-folder/c.sh");
        }
        assert_eq!(
            label_under(&cwd, Path::new("./proj/docs/a.md")),
            "proj/docs/a.md"
        );
    }
}

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
            Origin::File(p) => path_label(p),
            Origin::Inline(l) => format!("<{l}>"),
            Origin::Url(u) => u.clone(),
            Origin::Rendered { file, view } => format!("{} [{view}]", path_label(file)),
        }
    }
}

/// A loaded text plus its origin, with a line index for offset -> line:col.
#[derive(Debug)]
pub struct Source {
    /// Where the text came from.
    pub origin: Origin,
    /// The whole text.
    pub text: Arc<str>,
    /// The entry of the source map every span of this source points to.
    file: Arc<SourceFile>,
    /// Where each piece of `text` lies in the entry's text, as (offset in
    /// `text`, offset in the entry's text), sorted: empty for a plain text
    /// (the same offsets), else a window ([`Source::window`]).
    pieces: Arc<[(usize, usize)]>,
}

/// One entry of the source map: a loaded text with its origin, label and line
/// index. Every [`Span`] holds its source's entry, so any report can show the
/// lines of any file a value came from (the launch's own file, a sourced
/// script, a `--config` YAML), and line:col is computed from the index.
pub struct SourceFile {
    origin: Origin,
    label: Arc<str>,
    text: Arc<str>,
    line_starts: Vec<usize>,
    /// The character index of every [`CHAR_STRIDE`]-th byte boundary (the
    /// first char boundary at or after `i * CHAR_STRIDE`), so a column is
    /// found in bounded time however long the line.
    char_marks: Vec<(usize, usize)>,
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The text is left out: a span's debug form names its file only.
        write!(f, "SourceFile({:?})", self.origin)
    }
}

/// Two entries are the same source when they have the same origin.
impl PartialEq for SourceFile {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other) || self.origin == other.origin
    }
}

impl Eq for SourceFile {}

/// Bytes between two entries of a source's character index: a column costs at
/// most this many bytes of counting, so a file of one long line stays linear.
const CHAR_STRIDE: usize = 512;

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column number, in characters.
    pub col: usize,
}

/// A byte range in one source, with its resolved start position. It names its
/// source by the source's entry in the source map ([`SourceFile`]: a typed
/// [`Origin`] — a file, a URL, a rendered view, inline text — and the text),
/// so reports place it and show its lines without parsing its label.
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
    /// The source's entry in the source map.
    #[serde(skip)]
    source: Arc<SourceFile>,
    /// Whether it stands for the whole source, not a place in its text (a
    /// missing file, a folder, a file no line of which is at fault): it is
    /// printed as the file's name alone, never with a made-up `1:1`.
    #[serde(skip)]
    whole: bool,
}

impl Span {
    /// The start of a file that has no text at hand (a missing file, a folder).
    pub fn of_path(path: &Path) -> Span {
        Span::start_of(&Origin::File(path.to_path_buf()))
    }

    /// The start of a source that has no text at hand: the whole source.
    pub fn start_of(origin: &Origin) -> Span {
        Span {
            whole: true,
            ..Span::at(origin, LineCol { line: 1, col: 1 })
        }
    }

    /// Whether it stands for a whole source rather than a place in its text
    /// ([`Span::of_path`], [`Span::start_of`]).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// A position given as a line and column (a parser that reports no offset).
    pub fn at(origin: &Origin, pos: LineCol) -> Span {
        let file = SourceFile::new(origin.clone(), Arc::from(""));
        Span {
            file: file.label.clone(),
            start: 0,
            end: 0,
            pos,
            source: Arc::new(file),
            whole: false,
        }
    }

    /// The origin of the span's source.
    pub fn origin(&self) -> &Origin {
        &self.source.origin
    }

    /// The span's source (empty for a position without text at hand).
    pub fn source(&self) -> &SourceFile {
        &self.source
    }

    /// The span of another byte range `start..end` of the same source text
    /// (offsets in the source map's text, as [`Span::start`] and
    /// [`Span::end`] are).
    pub fn of_range(&self, start: usize, end: usize) -> Span {
        Span {
            file: self.file.clone(),
            start,
            end: end.max(start),
            pos: self.source.line_col(start),
            source: self.source.clone(),
            whole: false,
        }
    }

    /// The text the span covers (empty when it has no text at hand).
    pub fn text(&self) -> &str {
        self.source.text().get(self.start..self.end).unwrap_or("")
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
        if self.whole {
            return f.write_str(&self.file);
        }
        write!(f, "{}:{}:{}", self.file, self.pos.line, self.pos.col)
    }
}

impl Source {
    /// Wraps a text with its origin.
    pub fn new(origin: Origin, text: String) -> Self {
        // Every text entering the run is scanned for secrets, masked in output.
        crate::secret::note_text(&text);
        let text: Arc<str> = Arc::from(text);
        Source {
            file: Arc::new(SourceFile::new(origin.clone(), text.clone())),
            origin,
            text,
            pieces: Arc::from([]),
        }
    }

    /// A window onto part of this source's text, read through `text` and
    /// named `origin` (what reads it sees that name: a page block is not a
    /// file of its own), while spans, positions and excerpts point at this
    /// source's text. `pieces` places `text` in it: each (offset in `text`,
    /// offset in this source's text) starts a piece that runs on byte for
    /// byte up to the next (what lies between two pieces in this text, such
    /// as a blockquote's `> `, is not in `text`).
    pub(crate) fn window(
        &self,
        origin: Origin,
        pieces: Vec<(usize, usize)>,
        text: String,
    ) -> Source {
        assert!(
            pieces.first().is_some_and(|p| p.0 == 0),
            "a window's first piece starts its text"
        );
        let pieces: Vec<(usize, usize)> =
            pieces.into_iter().map(|(v, o)| (v, self.at(o))).collect();
        Source {
            origin,
            text: Arc::from(text),
            file: self.file.clone(),
            pieces: Arc::from(pieces),
        }
    }

    /// The offset in the source map's text of an offset in `text`.
    fn at(&self, offset: usize) -> usize {
        if self.pieces.is_empty() {
            return offset;
        }
        let i = self.pieces.partition_point(|p| p.0 <= offset).max(1) - 1;
        let (v, o) = self.pieces[i];
        o + offset.saturating_sub(v)
    }

    /// The span of a 1-based line and column (in characters) of this text,
    /// as a parser that reports no offset gives it. A plain text keeps the
    /// position alone ([`Span::at`]); a window places it in the text it is
    /// a window onto.
    pub fn span_of_line_col(&self, pos: LineCol) -> Span {
        if self.pieces.is_empty() {
            return Span::at(&self.origin, pos);
        }
        let mut at = 0;
        for _ in 1..pos.line {
            match self.text[at..].find('\n') {
                Some(i) => at += i + 1,
                None => break,
            }
        }
        let line_end = self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i);
        let col = self.text[at..line_end]
            .char_indices()
            .nth(pos.col.saturating_sub(1))
            .map_or(line_end, |(i, _)| at + i);
        self.span(col, col)
    }

    /// The label used in spans and messages.
    pub fn label(&self) -> Arc<str> {
        self.file.label.clone()
    }

    /// Line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        self.file.line_col(self.at(offset))
    }

    /// `FILE:LINE:COL` of a byte offset, as messages name a place.
    pub fn place(&self, offset: usize) -> String {
        let at = self.line_col(offset);
        format!("{}:{}:{}", self.file.label, at.line, at.col)
    }

    /// A span for a byte range.
    pub fn span(&self, start: usize, end: usize) -> Span {
        Span {
            file: self.label(),
            start: self.at(start),
            end: self.at(end).max(self.at(start)),
            pos: self.file.line_col(self.at(start)),
            source: self.file.clone(),
            whole: false,
        }
    }

    /// The whole lines that hold the byte range `start..end`: the 1-based
    /// number of the first one and their byte range (without the last
    /// newline), in the text this source's spans point at.
    pub fn lines_of(&self, start: usize, end: usize) -> (usize, std::ops::Range<usize>) {
        self.file.lines_of(self.at(start), self.at(end))
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        self.file.line_text(line)
    }
}

impl SourceFile {
    fn new(origin: Origin, text: Arc<str>) -> SourceFile {
        // The first line starts after a byte-order mark, which editors do
        // not show: columns of line 1 count from after it.
        let mut line_starts = vec![if text.starts_with('\u{feff}') { 3 } else { 0 }];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            label: Arc::from(origin.label()),
            char_marks: char_marks(&text),
            origin,
            text,
            line_starts,
        }
    }

    /// Where the text came from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The whole text (empty when the position had no text at hand).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let mut offset = offset.min(self.text.len()).max(self.line_starts[0]);
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.char_index(offset) - self.char_index(start) + 1;
        LineCol {
            line: line + 1,
            col,
        }
    }

    /// The number of characters before byte `offset` (a char boundary):
    /// the nearest mark at or before it, then counting at most
    /// [`CHAR_STRIDE`] bytes or so.
    fn char_index(&self, offset: usize) -> usize {
        let i = match self.char_marks.binary_search_by_key(&offset, |m| m.0) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let (byte, chars) = self.char_marks[i];
        chars + self.text[byte..offset].chars().count()
    }

    /// The whole lines that hold the byte range `start..end`: the 1-based
    /// number of the first one and their byte range (without the last line
    /// ending, LF or CRLF).
    pub fn lines_of(&self, start: usize, end: usize) -> (usize, std::ops::Range<usize>) {
        let first = self.line_col(start).line;
        let last = self.line_col(end.max(start)).line;
        let from = self.line_starts[first - 1];
        let mut to = self
            .line_starts
            .get(last)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        if to > from && self.text.as_bytes()[to - 1] == b'\r' && to > end.max(start) {
            to -= 1;
        }
        (first, from..to.max(from))
    }

    /// The text of a byte range as reports show it: the secret words written
    /// in it masked (`crate::secret::mask_excerpt`), whatever their spelling.
    pub fn excerpt(&self, range: std::ops::Range<usize>) -> std::borrow::Cow<'_, str> {
        match self.text.get(range.clone()) {
            Some(t) => crate::secret::mask_excerpt(&self.label, range.start, t),
            None => std::borrow::Cow::Borrowed(""),
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

/// The character index of `text` at every [`CHAR_STRIDE`] bytes (at the next
/// char boundary), starting with `(0, 0)`.
fn char_marks(text: &str) -> Vec<(usize, usize)> {
    let mut marks = vec![(0, 0)];
    let mut chars = 0;
    let mut byte = 0;
    while byte + CHAR_STRIDE < text.len() {
        let mut next = byte + CHAR_STRIDE;
        while !text.is_char_boundary(next) {
            next += 1;
        }
        chars += text[byte..next].chars().count();
        byte = next;
        marks.push((byte, chars));
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns from the character index agree with counting from the line's
    /// start, on long lines of mixed-width characters.
    #[test]
    fn columns_count_characters_on_long_lines() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(["a", "é", "漢", "🙂", " ", "\n", "\r\n"][i % 7]);
        }
        let src = Source::new(Origin::Inline("t".into()), text.clone());
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let want = text[line_start..offset].chars().count() + 1;
            assert_eq!(src.line_col(offset).col, want, "at byte {offset}");
        }
    }

    /// Line 1 starts after a byte-order mark: its columns are those an
    /// editor shows, and its text and shown lines leave the mark (and a
    /// CRLF's CR) out.
    #[test]
    fn a_byte_order_mark_is_not_a_column() {
        let src = Source::new(Origin::Inline("t".into()), "\u{feff}ab\r\ncd\n".into());
        assert_eq!(src.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(src.line_col(3), LineCol { line: 1, col: 1 });
        assert_eq!(src.line_col(4), LineCol { line: 1, col: 2 });
        assert_eq!(src.line_col(7), LineCol { line: 2, col: 1 });
        assert_eq!(src.line_text(1), "ab");
        let (line, range) = src.lines_of(3, 5);
        assert_eq!((line, &src.text[range]), (1, "ab"));
    }
}
