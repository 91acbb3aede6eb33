//! Markdown and MDX pages: the serve commands in their fenced code blocks.
//!
//! Blocks labelled `bash`, `sh`, `shell`, `zsh` or `console` are read as shell text;
//! unlabelled and indented blocks are read only when they contain a launcher. `export`
//! lines in a block reach the commands after them in the same block only.
//!
//! What is a code block is decided by pulldown-cmark (CommonMark). An `.mdx` page is
//! read the way MDX reads it: MDX has no indented code and no HTML blocks, JSX tags
//! are containers whose children are Markdown. pulldown-cmark reads a view of the
//! page in which every line is dedented and the JSX tags a line starts with are left
//! out (so `<Tabs>` does not open an HTML block that hides the fences after it, a
//! fence indented inside `<Tab>` is a fence, and in `<Tip>Use `x`</Tip>` the code
//! span is code); positions are mapped back to the page. MDX comments (`{/* ... */}`,
//! `<!-- ... -->`), ESM blocks (to the blank line where they parse as JavaScript)
//! and JSX tags that span lines (their attribute values) hold no Markdown, a fence
//! neither: the page is read again with them blanked. A byte-order mark is skipped; a
//! bare carriage return (CR-only line endings) is an error, since spans count lines
//! by LF.
//!
//! A block's text is what the parser gives as its text, piece by piece: the
//! container markup of its lines (`> ` of a blockquote or a GitHub alert, a list
//! item's indentation) is no part of it. The shell reader steps over that markup
//! at every line start (so a `> --tp 4` continuation line is `--tp 4`, not a
//! redirection), and reads a copy of the page in which it is blanked to spaces,
//! so every position is still the page's. A block the page does not show as a
//! code block is an error at its fence when it would be read. On a `.md` page,
//! which blocks are shown is what the HTML tree of the page's rendering says
//! (`rendered`: html5ever builds it as a browser does): a block inside an
//! element whose content a browser does not show as markup (`<script>`,
//! `<textarea>`, ... left open before it; GitHub's tag filter escapes those
//! tags and shows the text, so no reading is right for both), in a comment, in
//! a `<select>`, or under an element that hides it; GFM footnote definitions
//! nothing references are not rendered at all. On an MDX page, a block inside
//! a JSX element that hides it or inside a `{...}` expression (JavaScript,
//! rendered or not as the code decides).

use std::sync::Arc;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::shared::Extracted;
use super::shared::launches_only;
use super::shell_text::{Block, Vars, extract_block};
use super::visibility;
use mdx::{esm_blocks, mdx_comments, mdx_expressions};

mod depth;
mod mdx;
mod rendered;
use crate::error::Error;
use crate::files::{LineEndings, check_line_endings};
use crate::launch::Launch;
use crate::span::{Origin, Source};

const SHELL_LANGS: &[&str] = &["bash", "sh", "shell", "zsh", "console", "shell-session"];

/// One code block of a page.
#[derive(Debug, Clone)]
pub(crate) struct CodeBlock {
    /// The info string's first word, lower-cased; `None` for an unlabelled or
    /// indented block.
    pub(crate) lang: Option<String>,
    /// Byte range of its content in the page.
    pub(crate) content: (usize, usize),
    /// A raw-HTML `<pre>` block: its text is what a browser shows only when
    /// it holds no markup or character references (else it is not read).
    pub(crate) html: bool,
    /// Where the block starts on the page (its fence, or its first line).
    pub(crate) at: usize,
    /// The text a reader sees: the code block's text as the parser gives it,
    /// without the container markup (`> `, list indentation) of its lines.
    pub(crate) shown: String,
    /// The container markup inside `content`, as sorted byte ranges (one per
    /// line that has some): what `shown` leaves out.
    pub(crate) containers: Vec<(usize, usize)>,
    /// Set when the block lies where the page does not show it as a code
    /// block: inside a raw-text element (`<script>`, ...) left open before
    /// it, or (MDX) inside a `{...}` expression: the opener's offset and a
    /// description of it.
    pub(crate) hidden: Option<(usize, String)>,
}

impl CodeBlock {
    /// Adds a page range of the block's text (while it is read).
    fn push_piece(&mut self, piece: (usize, usize)) {
        self.containers.push(piece);
        self.content = (self.content.0.min(piece.0), piece.1);
    }
}

/// What a page's Markdown structure says: its code blocks, and every byte
/// range that is code, front matter or (MDX) a comment (not prose, so no JSX
/// is looked for there).
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    /// Code blocks with content, in page order.
    pub(crate) code: Vec<CodeBlock>,
    /// Code blocks, inline code spans, front matter and MDX comments, as
    /// sorted byte ranges.
    pub(crate) excluded: Vec<(usize, usize)>,
    /// MDX: the ESM blocks (`import`/`export` at a line start to the blank
    /// line where the block parses as JavaScript), as sorted byte ranges
    /// (also in `excluded`).
    pub(crate) esm: Vec<(usize, usize)>,
    /// `.md`: the GFM footnote definitions that nothing references, as
    /// sorted byte ranges: GFM renders none of them, so nothing in them is
    /// on the page.
    unrendered: Vec<(usize, usize)>,
}

/// The most times an MDX page is read again with what MDX does not read as
/// Markdown blanked (each reading may find more; real pages need two).
const MAX_MDX_READINGS: usize = 4;

/// Sorted, merged byte ranges.
fn merged(ranges: impl Iterator<Item = (usize, usize)>) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = ranges.filter(|r| r.0 < r.1).collect();
    v.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(v.len());
    for r in v {
        match out.last_mut() {
            Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
            _ => out.push(r),
        }
    }
    out
}

/// Whether a source is an MDX page (by its file name).
pub(crate) fn is_mdx(source: &Source) -> bool {
    let name = match &source.origin {
        Origin::File(p) | Origin::Rendered { file: p, .. } => p.to_string_lossy().into_owned(),
        Origin::Url(u) => u.split(['?', '#']).next().unwrap_or(u).to_string(),
        Origin::Inline(_) => return false,
    };
    name.to_ascii_lowercase().ends_with(".mdx")
}

/// The text pulldown-cmark reads, and where each of its lines starts on the page.
struct View {
    /// Whether lines were dedented (MDX).
    dedented: bool,
    text: String,
    /// (offset in the view, offset on the page) of each line start, ascending.
    lines: Vec<(usize, usize)>,
}

impl View {
    /// The page as CommonMark reads it from `base` (after a BOM); for MDX,
    /// dedented, with the JSX tags a line starts with left out: a line of
    /// tags only is blank, and the text after them on their line is read as
    /// Markdown (`<Tip>Use `x`</Tip>`: its code span is code). Lines inside a
    /// fence (one that starts a line) keep their tags: they are code.
    fn new(text: &str, base: usize, mdx: bool) -> View {
        if !mdx {
            return View {
                dedented: false,
                text: text[base..].to_string(),
                lines: vec![(0, base)],
            };
        }
        let mut view = String::with_capacity(text.len() - base);
        let mut lines = Vec::new();
        let mut at = base;
        // The fence open at this line (its character, its length and the
        // blanks before it on its line): a fenced line is code, so no tag is
        // left out of it, and it is dedented by the fence's blanks at most,
        // so a fence in a list item (`- ```bash`) keeps its lines in the item.
        let mut fence: Option<(u8, usize, usize)> = None;
        let run = |s: &str, c: u8| s.bytes().take_while(|&b| b == c).count();
        for line in text[base..].split_inclusive('\n') {
            let mut body = line.trim_start_matches([' ', '\t']);
            let mut indent = line.len() - body.len();
            let code = past_markers(body);
            if let Some((c, n, blanks)) = fence {
                indent = indent.min(blanks);
                body = &line[indent..];
                let k = run(code, c);
                if k >= n && code[k..].trim().is_empty() {
                    fence = None;
                }
            } else if let Some(c) = [b'`', b'~'].into_iter().find(|&c| run(code, c) >= 3) {
                let n = run(code, c);
                if c == b'~' || !code[n..].contains('`') {
                    fence = Some((c, n, indent));
                }
            } else if starts_jsx_tag(body) {
                let rest = leading_tags_end(body).map_or("", |k| &body[k..]);
                if rest.trim().is_empty() {
                    body = if body.ends_with('\n') { "\n" } else { "" };
                } else {
                    indent = line.len() - rest.len();
                    body = rest;
                }
            }
            lines.push((view.len(), at + indent));
            view.push_str(body);
            at += line.len();
        }
        View {
            dedented: true,
            text: view,
            lines,
        }
    }

    /// The page offset of a view offset.
    fn page(&self, v: usize) -> usize {
        let i = match self.lines.binary_search_by_key(&v, |l| l.0) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        self.lines[i].1 + (v - self.lines[i].0)
    }

    /// The page range of a view range.
    fn range(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.page(start);
        let e = if end > start {
            self.page(end - 1) + 1
        } else {
            s
        };
        (s, e.max(s))
    }
}

/// A line after the container markers it starts with (`> `, `- `, `* `, `+ `,
/// `1. `, `1) ` and blanks), where a fence in a quote or a list item starts.
fn past_markers(line: &str) -> &str {
    let mut rest = line;
    loop {
        let t = rest.trim_start_matches([' ', '\t']);
        let b = t.as_bytes();
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let marker = match b.first() {
            Some(b'>') => 1,
            Some(b'-' | b'*' | b'+') if matches!(b.get(1), Some(b' ' | b'\t')) => 1,
            Some(c)
                if c.is_ascii_digit()
                    && digits <= 9
                    && matches!(b.get(digits), Some(b'.' | b')'))
                    && matches!(b.get(digits + 1), Some(b' ' | b'\t')) =>
            {
                digits + 1
            }
            _ => return t,
        };
        rest = &t[marker..];
    }
}

/// The end of an opening tag whose attributes start at `i`: `(after "/>", true)`
/// for a self-closing tag, `(after ">", false)` otherwise; `None` when it never
/// ends. Quotes and `{...}` expressions (with their strings) are skipped.
pub(crate) fn open_tag_end(bytes: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if depth > 0 {
            match c {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                b'\'' | b'"' | b'`' => quote = Some(c),
                _ => {}
            }
        } else {
            match c {
                b'{' => depth += 1,
                b'"' | b'\'' => quote = Some(c),
                b'/' if bytes.get(i + 1) == Some(&b'>') => return Some((i + 2, true)),
                b'>' => return Some((i + 1, false)),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The end of the JSX/HTML tags a (dedented) line starts with (`<Tip>`,
/// `<Tabs><Tab title="a">`, `</Tab>`), when they end on the line.
fn leading_tags_end(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while starts_jsx_tag(&line[i..]) {
        let name = i + 1 + usize::from(bytes[i + 1] == b'/');
        let (end, _) = open_tag_end(bytes, name)?;
        i = end + line[end..].len() - line[end..].trim_start_matches([' ', '\t']).len();
    }
    Some(i)
}

/// Whether a (dedented) line starts with a JSX/HTML tag: `<` then a letter,
/// `/` or `>`.
pub(crate) fn starts_jsx_tag(line: &str) -> bool {
    let mut c = line.chars();
    c.next() == Some('<')
        && c.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '>')
}

/// The code blocks and code ranges of a page (see the module doc).
pub(crate) fn blocks(source: &Source) -> Result<Blocks, Error> {
    blocks_as(source, is_mdx(source))
}

/// [`blocks`], read as MDX or as CommonMark.
pub(crate) fn blocks_as(source: &Source, mdx: bool) -> Result<Blocks, Error> {
    let text = &source.text;
    check_line_endings(source, LineEndings::Text)?;
    depth::check(source)?;
    let base = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let view = View::new(text, base, mdx);
    let mut out = read_view(&view, text);
    if mdx {
        // What MDX does not read as Markdown, a fence in it included: its
        // comments (hidden), its ESM blocks (JavaScript) and the tags that
        // span lines (an attribute value is a string): the page is read
        // again with them blanked. They are looked for outside the code
        // found by the reading before, until the reading no longer changes
        // (a fence in an ESM comment is code to the first reading only).
        let code = out.excluded.clone();
        let mut code = code;
        let mut masks: Vec<(usize, usize)> = Vec::new();
        for _ in 0..MAX_MDX_READINGS {
            let comments = mdx_comments(source, base, &code)?;
            let skip = merged(code.iter().chain(&comments).copied());
            let esm = esm_blocks(source, base, &skip)?;
            let skip = merged(skip.into_iter().chain(esm.iter().copied()));
            let (_, tags) = mdx_expressions(text, base, &skip);
            let now = merged(comments.iter().chain(&esm).chain(&tags).copied());
            if now == masks {
                break;
            }
            masks = now;
            let mut masked = text.as_bytes().to_vec();
            for &(s, e) in &masks {
                for b in &mut masked[s..e] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
            }
            let masked = String::from_utf8(masked).expect("whole ranges blanked with spaces");
            out = read_view(&View::new(&masked, base, mdx), &masked);
            code = out.excluded.clone();
            out.excluded.extend(comments);
            out.excluded.extend(esm.iter().copied());
            out.excluded = merged(out.excluded.into_iter());
            out.esm = esm;
        }
    }
    // Raw-HTML `<pre>` elements, wherever a browser (or MDX) shows them: in an
    // HTML block, in a paragraph, several on a line; never inside code or a
    // comment. One in a raw-text element (`<script>`, ...) is marked hidden
    // below.
    out.code.extend(html_pre(text, base, &out.excluded, mdx));
    out.code.sort_by_key(|b| b.content);
    if mdx {
        mdx::check_rendered_commands(source, base, &out)?;
    }
    // Nothing in a footnote definition GFM does not render is on the page.
    let unrendered = merged(out.unrendered.iter().copied());
    out.code.retain(|b| {
        let i = unrendered.partition_point(|r| r.0 <= b.at);
        i == 0 || b.at >= unrendered[i - 1].1
    });
    if !mdx {
        // A `.md` page: what the HTML tree of its rendering shows.
        let hidden = rendered::hidden(&view, text, options(&view), &out.code);
        for (block, hidden) in out.code.iter_mut().zip(hidden) {
            block.hidden = hidden;
        }
        drop_pre_around_blocks(&mut out.code, text);
        return Ok(out);
    }
    // Where a code block of an MDX page is not shown as one: inside a
    // raw-text element left open before it, or inside a `{...}` expression.
    let live = outside(&out.excluded, base, text.len());
    let mut hiding = raw_text_regions(text, &live);
    hiding.extend(mdx_expressions(text, base, &out.excluded).0);
    hiding.sort_by_key(|r| r.0);
    // For each region (sorted by start), the one reaching furthest among it
    // and those before it: regions of the two kinds may nest.
    let mut furthest: Vec<usize> = Vec::with_capacity(hiding.len());
    for (k, r) in hiding.iter().enumerate() {
        let best = match furthest.last() {
            Some(&f) if hiding[f].1 >= r.1 => f,
            _ => k,
        };
        furthest.push(best);
    }
    for block in &mut out.code {
        let i = hiding.partition_point(|r| r.0 <= block.at);
        if let Some((open, end, what)) = i.checked_sub(1).map(|i| &hiding[furthest[i]])
            && block.at < *end
        {
            block.hidden = Some((*open, what.clone()));
        }
    }
    Ok(out)
}

/// Where a dedented code line's text starts when the indentation beyond the
/// fence's is kept: `start` is where the view's text of the line starts on
/// the page, `fence` where the fence starts. Only a line (and a fence) with
/// nothing but blanks before it on the page is re-indented.
fn kept_indent(page: &str, fence: Option<usize>, start: usize) -> usize {
    match (fence, line_indent(page, start)) {
        (Some(f), Some((line, n))) if n > f => line + f,
        _ => start,
    }
}

/// The start of the line holding `at` and the width of the blanks before
/// `at` on it, when there is nothing else before it.
fn line_indent(page: &str, at: usize) -> Option<(usize, usize)> {
    let before = &page.as_bytes()[..at];
    let blanks = before
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let line = at - blanks;
    (line == 0 || before[line - 1] == b'\n').then_some((line, blanks))
}

/// The container markup between the text pieces of a code block (sorted page
/// ranges): on each line that starts inside a gap between two pieces, the
/// gap's bytes from that line start to the line's end (a CR of a CRLF line
/// ending is no markup).
fn gaps(page: &str, pieces: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let bytes = page.as_bytes();
    let mut out = Vec::new();
    for w in pieces.windows(2) {
        let (mut p, end) = (w[0].1, w[1].0);
        while p < end {
            if p > 0 && bytes[p - 1] == b'\n' {
                let stop = bytes[p..end]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(end, |k| p + k);
                if stop > p {
                    out.push((p, stop));
                }
                p = stop.max(p + 1);
            } else {
                p += 1;
            }
        }
    }
    out
}

/// Elements in which a fence a Markdown renderer turns into `<pre><code>` is
/// not shown as a code block by a browser: the raw-text and RCDATA elements
/// (`<script>`, `<style>`, `<textarea>`, `<title>`, `<xmp>`, `<iframe>`,
/// `<noembed>`, `<noframes>`, `<noscript>`), `<plaintext>` and `<template>`.
/// GitHub's tag filter escapes most of them, so there the text is shown.
const HIDING_ELEMENTS: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
    "template",
];

/// The byte ranges of a page where an element of [`HIDING_ELEMENTS`] or an
/// HTML comment is open: from its opening tag to its closing tag (`-->`), or
/// to the end of the page. Both are looked for in `live` only (sorted byte
/// ranges): on a `.md` page, the raw HTML the renderer passes through as it is
/// (HTML blocks and inline HTML), since a tag or a `-->` anywhere else is
/// escaped (shown as text, closing nothing); on an MDX page, all but code,
/// front matter and comments. Linear.
fn raw_text_regions(text: &str, live: &[(usize, usize)]) -> Vec<(usize, usize, String)> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut out = Vec::new();
    let mut r = 0;
    let mut i = 0;
    while r < live.len() {
        let (s, e) = live[r];
        i = i.max(s);
        if i >= e {
            r += 1;
            continue;
        }
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let (close, what) = if lower[i..].starts_with("<!--") {
            ("-->".to_string(), "HTML comment `<!--`".to_string())
        } else if let Some(name) = HIDING_ELEMENTS.iter().find(|n| opens_tag(b, i, n)) {
            (format!("</{name}"), format!("`<{name}>` element"))
        } else if let Some((name, tag_end, what)) = not_rendered(text, &lower, i) {
            // An element a browser does not render: to its balancing end tag
            // (what is inside is hidden with it: not looked at again, so
            // each byte is scanned once).
            let end = balanced_end(&lower, live, r, tag_end, &name);
            out.push((i, end, what));
            i = end + 1;
            continue;
        } else {
            i += 1;
            continue;
        };
        // The end: the first `</name` (`-->`) in `live` after the opener.
        let from = i + 2;
        let end = loop {
            let Some(&(s, e)) = live.get(r) else {
                break b.len();
            };
            let s = s.max(from).min(e);
            if let Some(k) = lower[s..e].find(&close) {
                break s + k;
            }
            r += 1;
        };
        out.push((i, end, what));
        i = end + 1;
    }
    out
}

/// The longest opening tag looked at for its attributes (bounds the work per
/// `<` on hostile pages).
const MAX_TAG: usize = 2048;

/// The void elements of HTML: a start tag with no content, `/>` or not.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// An element opened at `i` on an MDX page whose content a browser does not
/// render, as [`visibility::element_hides`] decides from its attributes as
/// React writes a JSX element's props (`hidden={false}` is left out, a
/// spread of an object literal gives its props, a style object's last
/// `display` wins, literals added with `+` are computed). An MDX element
/// whose visibility depends on a value not computed here (`{...props}`,
/// `style={s}`) is said as such. Its name (lower-cased), where its opening
/// tag ends, and how messages name it. A self-closing JSX tag (or a void
/// HTML element) has no content; a capitalized JSX tag is a component.
fn not_rendered(text: &str, lower: &str, i: usize) -> Option<(String, usize, String)> {
    let b = lower.as_bytes();
    let name_len = b[i + 1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    if name_len == 0 || !b[i + 1].is_ascii_alphabetic() {
        return None;
    }
    if !text.as_bytes()[i + 1].is_ascii_lowercase() {
        return None;
    }
    let name = &lower[i + 1..i + 1 + name_len];
    // The opening tag's end, looked for within `MAX_TAG` bytes.
    let from = i + 1 + name_len;
    let (end, self_closing) = open_tag_end(&b[..(from + MAX_TAG).min(b.len())], from)?;
    if VOID.contains(&name) || self_closing {
        return None;
    }
    let found = |attrs: Vec<(String, String)>| {
        let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        visibility::block_hides(name, &get)
    };
    // Attributes that cannot decide (no name that does, no expression) are
    // not parsed: most tags on a page.
    let deciding = ["hidden", "style", "class", "open", "popover", "{"];
    let what = if !deciding.iter().any(|k| lower[from..end].contains(k)) {
        found(Vec::new())
    } else {
        match visibility::jsx_attributes(&text[i..end]) {
            Ok(Some(attrs)) => found(attrs),
            Ok(None) => None,
            Err(why) => Some(format!(
                "`<{name}>` element whose visibility depends on {why}, which recipe-drift does not compute,"
            )),
        }
    }?;
    Some((name.to_string(), end, what))
}

/// Where the element `name` whose opening tag ends at `from` ends: at its
/// balancing `</name` in the live ranges (`live[r..]`: nested elements of the
/// same name counted), or the end of the text.
fn balanced_end(lower: &str, live: &[(usize, usize)], r: usize, from: usize, name: &str) -> usize {
    let b = lower.as_bytes();
    let close = format!("</{name}");
    let mut depth = 1usize;
    for &(s, e) in &live[r..] {
        let mut k = s.max(from);
        while k < e {
            if b[k] == b'<' {
                if lower[k..].starts_with(&close)
                    && matches!(
                        b.get(k + close.len()),
                        Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')
                    )
                {
                    depth -= 1;
                    if depth == 0 {
                        return k;
                    }
                } else if opens_tag(b, k, name) {
                    depth += 1;
                }
            }
            k += 1;
        }
    }
    b.len()
}

/// The complement of `excluded` (sorted, not overlapping) in `from..len`.
fn outside(excluded: &[(usize, usize)], from: usize, len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = from;
    for &(s, e) in excluded {
        if s > at {
            out.push((at, s.min(len)));
        }
        at = at.max(e);
    }
    if at < len {
        out.push((at, len));
    }
    out
}

/// Whether `lower[i..]` opens the tag `name` (`<name` then `>`, `/` or space).
fn opens_tag(lower: &[u8], i: usize, name: &str) -> bool {
    let n = name.len();
    lower.get(i) == Some(&b'<')
        && lower.get(i + 1..i + 1 + n) == Some(name.as_bytes())
        && matches!(
            lower.get(i + 1 + n),
            Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
        )
}

/// A raw-HTML `<pre>` that the rendered page does not show as written
/// because Markdown code blocks are inside it (`x <pre>`, then a fence): the
/// renderer turns them into `<pre>` elements nested in it, and a browser
/// shows their text there, which those blocks read. The outer block is
/// dropped when its text outside them names no launcher (there is no other
/// command to read in it); otherwise it stays, refused as not shown.
fn drop_pre_around_blocks(code: &mut Vec<CodeBlock>, text: &str) {
    let nested: Vec<(usize, usize)> = code
        .iter()
        .filter(|b| !b.html)
        .map(|b| (b.at, b.content.1))
        .collect();
    code.retain(|b| {
        if !b.html || b.hidden.is_none() {
            return true;
        }
        let (start, end) = b.content;
        let inside: Vec<&(usize, usize)> = nested
            .iter()
            .filter(|(s, e)| *s >= start && *e <= end)
            .collect();
        if inside.is_empty() {
            return true;
        }
        let mut rest = String::new();
        let mut at = start;
        for (s, e) in inside {
            rest.push_str(&text[at..*s]);
            at = *e;
        }
        rest.push_str(&text[at..end]);
        names_a_launcher(&rest)
    });
}

/// The raw-HTML `<pre>` elements of a page outside `excluded` (code, front
/// matter, MDX comments), as unlabelled blocks of their shown text (inside a
/// `<code>` element directly in the `<pre>`, if any; a newline right after
/// the opening tag is not shown). HTML comments are skipped; a `<pre>` in a
/// raw-text element (`<script>`, ...) is found, and marked hidden later, since
/// GitHub's tag filter shows it; a `<pre>` with no end runs to the end of the
/// page, as a browser shows it; in MDX a self-closing `<pre />` is empty.
/// Linear: each byte is looked at a bounded number of times.
fn html_pre(text: &str, base: usize, excluded: &[(usize, usize)], mdx: bool) -> Vec<CodeBlock> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let find = |from: usize, needle: &str| lower[from..].find(needle).map(|k| from + k);
    let mut out = Vec::new();
    let mut x = 0;
    let mut i = base;
    while i < b.len() {
        if let Some(next) = past_ranges(excluded, &mut x, i) {
            i = next;
            continue;
        }
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if lower[i..].starts_with("<!--") {
            i = find(i + 4, "-->").map_or(b.len(), |e| e + 3);
            continue;
        }
        if !opens_tag(b, i, "pre") {
            i += 1;
            continue;
        }
        let Some(open_end) = find(i, ">") else { break };
        // MDX (JSX): `<pre />` is an empty element, closed where it opens
        // (HTML ignores the slash: there the `<pre>` stays open).
        if mdx && b[..open_end].ends_with(b"/") {
            i = open_end + 1;
            continue;
        }
        let mut start = open_end + 1;
        let close = find(start, "</pre").unwrap_or(b.len());
        let mut end = close;
        let inner = &lower[start..end];
        if inner.trim_start().starts_with("<code")
            && inner.trim_end().ends_with("</code>")
            && let Some(c) = find(start, "<code")
            && let Some(ce) = find(c, ">")
            && let Some(cc) = lower[..end].rfind("</code>")
            && cc > ce
        {
            start = ce + 1;
            end = cc;
        }
        if text[start..end].starts_with("\r\n") {
            start += 2;
        } else if text[start..end].starts_with('\n') {
            start += 1;
        }
        out.push(CodeBlock {
            lang: None,
            content: (start, end.max(start)),
            html: true,
            at: i,
            shown: text[start..end.max(start)].to_string(),
            containers: Vec::new(),
            hidden: None,
        });
        i = find(close, ">").map_or(b.len(), |e| e + 1);
    }
    out
}

/// The extensions a view is read with: a `.md` page is read as
/// GitHub-flavoured Markdown (a fence in a footnote is a fence); MDX without
/// plugins has no GFM.
fn options(view: &View) -> Options {
    let mut options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    if !view.dedented {
        options |= Options::ENABLE_GFM
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS;
    }
    options
}

/// The code blocks and code ranges pulldown-cmark finds in a view of `page`.
fn read_view(view: &View, page: &str) -> Blocks {
    let mut out = Blocks::default();
    // Inside a code block: the block so far (its `content` is the page range
    // of its text so far, `containers` the page ranges of its text pieces).
    let mut open: Option<CodeBlock> = None;
    // The blanks before the open block's fence on its line (MDX re-indents).
    let mut fence_indent: Option<usize> = None;
    let options = options(view);
    // The footnotes referenced anywhere (a reference inside a definition
    // nothing references counts too, as micromark counts it): the other
    // definitions are not rendered.
    let referenced: std::collections::BTreeSet<String> = Parser::new_ext(&view.text, options)
        .filter_map(|e| match e {
            Event::FootnoteReference(label) => Some(footnote_label(&label)),
            _ => None,
        })
        .collect();
    for (event, range) in Parser::new_ext(&view.text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::FootnoteDefinition(label))
                if !referenced.contains(&footnote_label(&label)) =>
            {
                out.unrendered.push(view.range(range.start, range.end));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match &kind {
                    CodeBlockKind::Fenced(info) => Some(
                        info.split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                            .next()
                            .unwrap_or("")
                            .to_ascii_lowercase(),
                    )
                    .filter(|l| !l.is_empty()),
                    CodeBlockKind::Indented => None,
                };
                let (at, _) = view.range(range.start, range.end);
                fence_indent = line_indent(page, at).map(|(_, n)| n);
                out.excluded.push(view.range(range.start, range.end));
                open = Some(CodeBlock {
                    lang,
                    content: (usize::MAX, 0),
                    html: false,
                    at,
                    shown: String::new(),
                    containers: Vec::new(),
                    hidden: None,
                });
            }
            Event::Text(text) if open.is_some() => {
                if let Some(block) = &mut open {
                    // The text of one line or more (a partly used tab's
                    // columns are an empty piece of spaces). In a dedented
                    // (MDX) view, each line is a piece of its own, whose
                    // indentation beyond the fence's is kept, as MDX keeps it.
                    let whole = &view.text[range.clone()];
                    if range.end == range.start || !view.dedented || whole != &*text {
                        block.shown.push_str(&text);
                        if range.end > range.start {
                            block.push_piece(view.range(range.start, range.end));
                        }
                    } else {
                        let mut at = range.start;
                        for line in whole.split_inclusive('\n') {
                            let mut piece = view.range(at, at + line.len());
                            let kept = kept_indent(page, fence_indent, piece.0);
                            block.shown.push_str(&page[kept..piece.0]);
                            block.shown.push_str(line);
                            piece.0 = kept;
                            block.push_piece(piece);
                            at += line.len();
                        }
                    }
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(mut block) = open.take()
                    && block.content.0 <= block.content.1
                {
                    block.containers = gaps(page, &block.containers);
                    out.code.push(block);
                }
            }
            Event::Code(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                out.excluded.push(view.range(range.start, range.end));
            }
            Event::Start(Tag::MetadataBlock(_)) => {
                out.excluded.push(view.range(range.start, range.end));
            }
            _ => {}
        }
    }
    out.excluded.sort();
    out
}

/// A footnote label as GFM matches it: case-folded, blanks collapsed.
fn footnote_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Where a scan at `i` goes on when `i` is inside one of `ranges` (sorted,
/// not overlapping): past that range; `None` outside them. `x`, the index of
/// the next range, is kept by the caller so that a whole scan is linear.
pub(crate) fn past_ranges(ranges: &[(usize, usize)], x: &mut usize, i: usize) -> Option<usize> {
    while *x < ranges.len() && ranges[*x].1 <= i {
        *x += 1;
    }
    (*x < ranges.len() && ranges[*x].0 <= i).then(|| ranges[*x].1.max(i + 1))
}

/// Extracts the launches of every shell code block of a Markdown/MDX page.
///
/// Each block starts from the shell state left by the earlier blocks that start no
/// server (an "Environment" block of `export`s before a "Launch" block); a block
/// that starts a server keeps its own `export`s to itself.
pub fn extract_all(
    source: &Arc<Source>,
    vars: &std::collections::BTreeMap<String, String>,
) -> Result<Extracted, Error> {
    extract_shown(source, vars, &[])
}

/// [`extract_all`], leaving out the blocks that start at `unshown` (page
/// offsets): blocks in a component's children that the component does not
/// show (see `jsx::Bundle::page_blocks`). They are not read at all, so
/// their `export`s reach no later block either.
pub(crate) fn extract_shown(
    source: &Arc<Source>,
    vars: &std::collections::BTreeMap<String, String>,
    unshown: &[usize],
) -> Result<Extracted, Error> {
    let mut launches = Extracted::default();
    let Blocks { code, excluded, .. } = blocks(source)?;
    // The variables an Environment block leaves reach the later blocks of
    // its own component element (`<Tab>`: tabs are alternatives, a reader
    // on one does not run another's blocks), and of the elements inside it;
    // a block outside any element reaches the rest of the page. Innermost
    // scope last.
    let scopes = if is_mdx(source) {
        component_scopes(source.text.as_bytes(), &excluded)
    } else {
        Vec::new()
    };
    let mut next_scope = 0;
    let mut open_scopes: Vec<(usize, usize)> = Vec::new();
    let mut envs: Vec<((usize, usize), Vars)> = vec![((0, usize::MAX), Vars::given(vars))];
    for block in code {
        if unshown.contains(&block.at) {
            continue;
        }
        while open_scopes.last().is_some_and(|s| s.1 <= block.at) {
            open_scopes.pop();
        }
        while let Some(&s) = scopes.get(next_scope).filter(|s| s.0 <= block.at) {
            next_scope += 1;
            while open_scopes.last().is_some_and(|o| o.1 <= s.0) {
                open_scopes.pop();
            }
            if block.at < s.1 {
                open_scopes.push(s);
            }
        }
        while envs.len() > 1 && envs.last().is_some_and(|(s, _)| block.at >= s.1) {
            envs.pop();
        }
        let scope = open_scopes.last().copied().unwrap_or((0, usize::MAX));
        let page_vars = envs.last().map(|(_, v)| v.clone()).unwrap_or_default();
        let (start, end) = block.content;
        if block.html && names_a_launcher(&source.text[start..end]) {
            let text = &source.text[start..end];
            if let Some(at) = text.find(['<', '&', '{', '}']) {
                return Err(Error::input(
                    source.span(start + at, start + at + 1),
                    "this raw-HTML <pre> command holds markup, a character reference or (MDX) an expression, which recipe-drift does not read; write the command in a fenced code block",
                ));
            }
        }
        let (read, console) = match block.lang.as_deref() {
            Some(lang) => (
                SHELL_LANGS.contains(&lang),
                matches!(lang, "console" | "shell-session"),
            ),
            None => (names_a_launcher(&block.shown), false),
        };
        if !read {
            continue;
        }
        if let Some((open, what)) = &block.hidden {
            return Err(hidden_error(source, &block, *open, what));
        }
        let shell = Block {
            start,
            end,
            containers: &block.containers,
            console,
        };
        let (found, changes) = extract_block(source, &shell, page_vars)?;
        if found.launches.is_empty() && found.unsupported.is_empty() {
            match envs.last_mut() {
                Some((s, v)) if *s == scope => v.apply(changes),
                _ => {
                    let mut v = envs.last().map(|(_, v)| v.clone()).unwrap_or_default();
                    v.apply(changes);
                    envs.push((scope, v));
                }
            }
        }
        launches.launches.extend(found.launches);
        launches.unsupported.extend(found.unsupported);
    }
    Ok(launches)
}

/// A component tag (a capitalized name: `<Tab`, `</Tab`, `<Foo.Bar`) at
/// `i`, which holds `<`: whether it closes, where its name starts and its
/// length.
pub(crate) fn component_tag_at(bytes: &[u8], i: usize) -> Option<(bool, usize, usize)> {
    let close = bytes.get(i + 1) == Some(&b'/');
    let from = i + 1 + usize::from(close);
    if !bytes.get(from).is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    let len = bytes[from..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'.')
        .count();
    Some((close, from, len))
}

/// MDX: the component elements of a page (`<Tab title="AMD">` ...
/// `</Tab>`: a capitalized tag and its closing tag), as page ranges from the
/// opening tag to the end of the closing one, sorted by start, found outside
/// `excluded` (code, comments). A closing tag closes the innermost open tag
/// of its name (tags that do not nest are the page's error elsewhere: here
/// the scan stops). Linear.
fn component_scopes(bytes: &[u8], excluded: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut open: Vec<(usize, &[u8])> = Vec::new();
    let mut x = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(next) = past_ranges(excluded, &mut x, i) {
            i = next;
            continue;
        }
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let Some((close, from, len)) = component_tag_at(bytes, i) else {
            i += 1;
            continue;
        };
        let name = &bytes[from..from + len];
        if close {
            let Some(gt) = bytes[from + len..].iter().position(|c| *c == b'>') else {
                break;
            };
            match open.pop() {
                Some((start, n)) if n == name => out.push((start, from + len + gt + 1)),
                _ => break,
            }
            i = from + len + gt + 1;
            continue;
        }
        let Some((end, self_closing)) = open_tag_end(bytes, from + len) else {
            break;
        };
        if !self_closing {
            open.push((i, name));
        }
        i = end;
    }
    out.sort_unstable();
    out
}

/// The error for a code block that would be read but lies where the page does
/// not show it as a code block (see [`CodeBlock::hidden`]).
fn hidden_error(source: &Source, block: &CodeBlock, open: usize, what: &str) -> Error {
    let why = if what.starts_with("MDX") {
        "MDX reads what is inside an expression as JavaScript, not Markdown, and whether it renders (as text) depends on the code"
    } else if what.contains("does not compute") {
        "whether a browser shows it depends on JavaScript recipe-drift does not run"
    } else if what.contains("hidden")
        || what.contains("fallback")
        || what.contains("not `open`")
        || what.contains("not rendered")
    {
        "a browser does not render it (renderers that drop the attribute or style, like GitHub's, show it): which command the page shows depends on the renderer"
    } else if what.contains("form control") {
        "a browser shows a form control there, not a code block (an HTML parser may even drop the block's `<pre>` tag)"
    } else if what.starts_with("raw HTML") {
        "a browser does not show it as a code block"
    } else if what.starts_with("HTML comment") {
        "a browser shows nothing of it (on GitHub too), though the Markdown parser renders it as a code block inside the raw comment"
    } else {
        "a browser does not show it as a code block (its content is raw text or inert), while GitHub's tag filter escapes the tag and shows the fence: which command the page shows depends on the renderer"
    };
    Error::input(
        source.span(block.at, block.at + 1),
        format!(
            "this code block is inside the {what} opened at {}: {why}; close the element or expression before the block, or move the block out of it",
            source.place(open)
        ),
    )
}

/// The code blocks of a page as a reader sees them, in page order, for tests
/// that compare recipe-drift's reading with real renderers: per block, its
/// language (lower-cased), its text without container markup, and, when the
/// page does not show it as a code block, what hides it (see
/// [`CodeBlock::hidden`]). Raw-HTML `<pre>` blocks give their text as written.
pub fn page_code(source: &Source) -> Result<Vec<PageCode>, Error> {
    Ok(blocks(source)?
        .code
        .into_iter()
        .map(|b| PageCode {
            lang: b.lang,
            text: b.shown,
            hidden: b
                .hidden
                .map(|(at, what)| format!("{what} at {}", source.place(at))),
        })
        .collect())
}

/// One code block of a page, as [`page_code`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageCode {
    /// The info string's first word, lower-cased (`None`: unlabelled).
    pub lang: Option<String>,
    /// The text a reader sees.
    pub text: String,
    /// What hides the block, and where (`None`: shown).
    pub hidden: Option<String>,
}

/// The launches of every shell code block of a page; a launch of an engine
/// recipe-drift does not resolve is an input error here (see [`extract_all`]).
pub fn extract(
    source: &Arc<Source>,
    vars: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    launches_only(extract_all(source, vars)?)
}

/// Whether an unlabelled code block starts a server: it contains a launcher of
/// an engine recipe-drift resolves (`vllm serve`, `sglang.launch_server`), or a
/// line of it starts with any launcher of the table (`trtllm-serve ...`), after
/// `VAR=value` prefixes and a `$ ` prompt. Unsupported launchers are matched by
/// line start only, so prose that merely mentions a word like `atom` is not shell.
fn names_a_launcher(text: &str) -> bool {
    use crate::launch::{LauncherForm, Starts, detect_launcher, launchers};
    let contained = launchers().iter().any(|l| {
        matches!(l.starts, Starts::Engine(_))
            && match &l.form {
                LauncherForm::Words(w) => text.contains(&w.join(" ")),
                LauncherForm::PythonModule(m) => text.contains(m.as_str()),
                LauncherForm::ModulePrefix(p) => text.contains(p.as_str()),
            }
    });
    contained
        || text.lines().any(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("$ ").unwrap_or(line);
            let words: Vec<&str> = line
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'))
                .take(3)
                .collect();
            detect_launcher(&words, false).is_some()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn launches(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("page".into()), text.to_string()));
        extract(&src, &Default::default()).unwrap()
    }

    #[test]
    fn component_scopes_nest_and_skip_code() {
        let page = b"<Tabs>\n<Tab a>\n`<Tab>`\n</Tab>\n<Tab b/>\n<Tab c>x</Tab>\n</Tabs>\n";
        let code = (15, 22);
        assert_eq!(
            component_scopes(page, &[code]),
            [(0, 61), (7, 29), (39, 53)]
        );
    }

    #[test]
    fn an_environment_block_reaches_what_its_element_holds() {
        let page = "\
```bash
export A=1
```

<Tabs>
<Tab title=\"x\">

```bash
export B=2
```

<Note>

```bash
sglang serve --model-path m --tp ${A:-0}${B:-0}
```

</Note>
</Tab>
<Tab title=\"y\">

```bash
sglang serve --model-path m --tp ${A:-0}${B:-0}
```

</Tab>
</Tabs>
";
        let src = Arc::new(Source::new(
            Origin::File("page.mdx".into()),
            page.to_string(),
        ));
        let l = extract(&src, &Default::default()).unwrap();
        let tp: Vec<&str> = l.iter().map(|l| l.argv[3].text.as_str()).collect();
        assert_eq!(tp, ["12", "10"]);
    }

    #[test]
    fn labelled_unlabelled_and_other_languages() {
        let page = "\
# Page

```python
# a Python block that mentions sglang serve is not shell
print('sglang serve --tp 2')
```

```
sglang serve --model-path a/b --tp 2
```

```console
$ python3 -m sglang.launch_server --model-path a/b \\
    --tp 4
INFO: server started
```

```yaml
cmd: vllm serve x
```
";
        let l = launches(page);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].argv[3].text, "2");
        assert_eq!(l[0].span.pos.line, 9);
        assert_eq!(l[1].argv.last().unwrap().text, "4");
        assert_eq!(l[1].argv.last().unwrap().span.pos.line, 14);
    }

    #[test]
    fn exports_stay_in_their_block() {
        let page = "```bash\nexport SGLANG_USE_AITER=1\nsglang serve --tp 1\n```\n\n```bash\nsglang serve --tp 2\n```\n";
        let l = launches(page);
        assert_eq!(l[0].env.len(), 1);
        assert!(l[1].env.is_empty());
    }

    #[test]
    fn mdx_with_jsx_around_blocks() {
        let page = "import { X } from '/src/snippets/x.jsx'\n\n<X />\n\n<Tabs>\n<Tab title=\"AMD\">\n\n```bash\nsglang serve --model-path a/b\n```\n\n</Tab>\n</Tabs>\n";
        let l = launches(page);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].span.pos.line, 9);
    }

    /// MDX comments hide their fences; in CommonMark `{/*` is text and an
    /// HTML comment is an HTML block, which hides them too.
    #[test]
    fn mdx_comments_hide_fences() {
        let page = "{/*\n```bash\nsglang serve --tp 1\n```\n*/}\n\n<!--\n```bash\nsglang serve --tp 2\n```\n-->\n\n```bash\nsglang serve --tp 3\n```\n";
        for (name, fences) in [("page.mdx", 1), ("page.md", 2)] {
            let src = Source::new(Origin::File(name.into()), page.to_string());
            let blocks = blocks(&src).unwrap();
            assert_eq!(blocks.code.len(), fences, "{name}");
            let (s, e) = blocks.code.last().unwrap().content;
            assert_eq!(&page[s..e], "sglang serve --tp 3\n", "{name}");
        }
    }

    /// A block's text is its page range less the container markup of its
    /// lines, which is what a reader sees (`> ` and the item's indentation
    /// gone, the block's own `> ` kept).
    #[test]
    fn container_markup_is_no_part_of_the_text() {
        let page = "> - item\n>\n>   ```console\n>   $ a \\\n>   > b\n>\n>   ```\n";
        let src = Source::new(Origin::Inline("page".into()), page.to_string());
        let code = blocks(&src).unwrap().code;
        let block = &code[0];
        assert_eq!(block.shown, "$ a \\\n> b\n\n");
        let mut read = String::new();
        let mut at = block.content.0;
        for &(s, e) in &block.containers {
            read.push_str(&page[at..s]);
            at = e;
        }
        read.push_str(&page[at..block.content.1]);
        assert_eq!(read, block.shown);
        let l = launches(
            &page
                .replace("$ a", "$ sglang serve")
                .replace("> b", "> --tp 4"),
        );
        assert_eq!(l[0].argv.last().unwrap().text, "4");
    }

    /// Pieces that stress byte offsets: multi-byte text next to every
    /// character the page, MDX and shell readers look at.
    const PIECES: &[&str] = &[
        "```bash\n",
        "```\n",
        "~~~\n",
        "    ",
        "\t",
        "\n",
        "\r\n",
        " ",
        "é",
        "日本",
        "🚀",
        "\u{feff}",
        "sglang serve ",
        "--tp ",
        "2 ",
        "\\\n",
        "\"",
        "'",
        "`",
        "$",
        "${X:-é}",
        "$(",
        ")",
        "{",
        "}",
        "<",
        ">",
        "/>",
        "</",
        "<Gen",
        "<Tab>",
        "</Tab>",
        "<Gen />",
        "<Gen>",
        "</Gen>",
        "{/* ",
        " */}",
        "{// ",
        "<!-- ",
        " -->",
        "\r",
        "import { Gen } from 'é'",
        "export X=é\n",
        "> ",
        "- ",
        "# ",
        "=",
        "é=é ",
        "&&",
        "|",
        ";",
        "#é",
        "$ ",
        "---\n",
        "> [!TIP]\n",
        "1. ",
        "   ",
        "<script>",
        "</script>",
        "<style ",
        "{false && ",
        "\\{",
        "'",
        "${",
    ];

    /// A deterministic sweep: no input built from [`PIECES`] panics the
    /// Markdown reader (as CommonMark and as MDX) or an MDX page's bundling.
    #[test]
    fn no_panic_on_mixed_non_ascii_input() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..3000 {
            let len = next() % 40;
            let text: String = (0..len).map(|_| PIECES[next() % PIECES.len()]).collect();
            for origin in [
                Origin::Inline("page".into()),
                Origin::File("page.mdx".into()),
            ] {
                let src = Arc::new(Source::new(origin, text.clone()));
                let _ = extract_all(&src, &Default::default());
                let _ = blocks_as(&src, true);
                let _ = crate::extract::jsx::page::bundle_page(
                    &src,
                    std::path::Path::new("page.mdx"),
                    None,
                    &Default::default(),
                );
            }
            let _ = crate::extract::jsx::page::has_components(&text);
        }
    }
}
