//! The parts of an MDX page that are not Markdown, as `@mdx-js/mdx` 3 reads
//! them: its ESM blocks (parsed with oxc to find where MDX ends them), its
//! `{...}` expressions, its comments and its JSX tags that span lines. The
//! page reader ([`super`]) blanks or marks them.

use super::{past_ranges, starts_jsx_tag};
use crate::error::Error;
use crate::span::Source;

/// The most blank lines an ESM block is tried at (parsed as JavaScript up to
/// each): real blocks parse at the first.
const MAX_ESM_TRIES: usize = 64;

/// The most bytes parsed to find where one ESM block ends (its text up to
/// each blank line tried, summed): bounds the work on a block that does not
/// parse for long.
const MAX_ESM_PARSED: usize = 1 << 20;

/// The ESM blocks of an MDX page, outside `skip` (code, comments: sorted,
/// merged): a line that starts with `import` or `export` (and a space, `{`
/// or `*`), not indented, and does not continue a paragraph, to the first
/// blank line where what it holds parses as a JavaScript module (MDX's
/// rule: a `/*` comment or a string may hold blank lines and fences). A
/// block that never parses is an error at its start (MDX fails on the page).
pub(super) fn esm_blocks(
    source: &Source,
    base: usize,
    skip: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, Error> {
    let text = &*source.text;
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut x = 0;
    let mut i = base;
    while i < bytes.len() {
        if let Some(next) = past_ranges(skip, &mut x, i) {
            i = next;
            continue;
        }
        let line_start = i == base || bytes[i - 1] == b'\n';
        if line_start && is_esm_start(&bytes[i..]) && !continues_paragraph(text, i, skip) {
            let end = esm_end(source, i)?;
            out.push((i, end));
            i = end.max(i + 1);
            continue;
        }
        i = match bytes[i..].iter().position(|&b| b == b'\n') {
            Some(k) => i + k + 1,
            None => bytes.len(),
        };
    }
    Ok(out)
}

/// Whether the line at `i` continues a paragraph (the line before it is
/// prose), where MDX does not start ESM: `you can\nimport the weights` is text.
fn continues_paragraph(text: &str, i: usize, excluded: &[(usize, usize)]) -> bool {
    let before = text[..i].strip_suffix('\n').unwrap_or(&text[..i]);
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    let prev = before[start..].trim_start_matches('\u{feff}').trim();
    let k = excluded.partition_point(|r| r.0 <= start);
    let in_code = k > 0 && start < excluded[k - 1].1;
    !(prev.is_empty() || in_code || prev.starts_with('#') || starts_jsx_tag(prev))
}

/// Whether a line starts an ESM statement (`import`/`export` and a space,
/// `{` or `*`), as MDX reads them: at the start of a line, not indented.
fn is_esm_start(line: &[u8]) -> bool {
    ["import", "export"].iter().any(|k| {
        line.starts_with(k.as_bytes())
            && line
                .get(k.len())
                .is_some_and(|c| matches!(c, b' ' | b'\t' | b'{' | b'*'))
    })
}

/// The end of an ESM block starting at `start`: the start of the first blank
/// line after it where the block parses as a JavaScript module (with JSX),
/// or the end of the page when it parses there.
fn esm_end(source: &Source, start: usize) -> Result<usize, Error> {
    let text = &*source.text;
    let mut at = start;
    let mut tries = 0;
    let mut parsed = 0usize;
    for line in text[start..].split_inclusive('\n') {
        if at > start && line.trim().is_empty() {
            parsed += at - start;
            if parsed > MAX_ESM_PARSED {
                tries = MAX_ESM_TRIES;
                break;
            }
            if parses_as_module(&text[start..at]).is_ok() {
                return Ok(at);
            }
            tries += 1;
            if tries == MAX_ESM_TRIES {
                break;
            }
        }
        at += line.len();
    }
    if tries < MAX_ESM_TRIES
        && parsed + (text.len() - start) <= MAX_ESM_PARSED
        && parses_as_module(&text[start..]).is_ok()
    {
        return Ok(text.len());
    }
    // The error: the block's first syntax error up to its first blank line,
    // where it is on the page.
    let first = text[start..]
        .split_inclusive('\n')
        .scan(start, |at, line| {
            let here = *at;
            *at += line.len();
            Some((here, line))
        })
        .find(|(at, line)| *at > start && line.trim().is_empty())
        .map_or(text.len(), |(at, _)| at);
    let (at, why) = match (first - start <= MAX_ESM_PARSED)
        .then(|| parses_as_module(&text[start..first]))
    {
        Some(Err(Some((k, why)))) => (start + k, why),
        _ => (
            start,
            format!(
                "it does not parse as JavaScript at any blank line (tried at up to {MAX_ESM_TRIES}, {} MiB in all)",
                MAX_ESM_PARSED >> 20
            ),
        ),
    };
    Err(Error::input(
        source.span(at, at),
        format!(
            "JSX syntax error in an ESM block: {why} (MDX reads the block to the first blank line where it parses, and fails on the page when there is none)"
        ),
    ))
}

/// The deepest bracket nesting parsed in an ESM block (oxc's parser
/// recurses; real blocks nest a few levels).
const MAX_ESM_NESTING: usize = 256;

/// Whether a text parses as a JavaScript module with JSX (oxc), with no
/// error; else its first error (offset and message) when oxc gives one.
fn parses_as_module(code: &str) -> Result<(), Option<(usize, String)>> {
    let mut depth = 0usize;
    for b in code.bytes() {
        match b {
            b'{' | b'(' | b'[' => {
                depth += 1;
                if depth > MAX_ESM_NESTING {
                    return Err(None);
                }
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    stacker::maybe_grow(4 << 20, 16 << 20, || {
        let allocator = oxc_allocator::Allocator::default();
        let source_type = oxc_span::SourceType::jsx().with_module(true);
        let parsed = oxc_parser::Parser::new(&allocator, code, source_type).parse();
        match parsed.diagnostics.errors().next() {
            Some(e) => Err(Some((
                e.labels
                    .first()
                    .map_or(0, |l| l.offset() as usize)
                    .min(code.len()),
                e.message.to_string(),
            ))),
            None if parsed.panicked => Err(None),
            None => Ok(()),
        }
    })
}

/// Where the expression opened by the `{` at `open` ends (after its `}`; the
/// end of the text when it never does). MDX ends it at the first balancing
/// `}` where the text parses as JavaScript, so a `}` in a string does not end
/// it (`{'}' && ...}`), while an apostrophe in JSX text inside it
/// (`<p>Don't</p>`) starts no string. Neither reading alone is MDX's: the
/// caller takes the further of both, counting every brace (`js` false) and
/// counting braces outside JavaScript strings, template literals and comments
/// (`js` true; a `'` or `"` string ends at its line's end). A fence inside
/// the longer range is then an error rather than a command read by mistake.
fn expression_end(b: &[u8], open: usize, js: bool) -> usize {
    let mut depth = 0usize;
    let mut j = open;
    // The last byte that is not a blank: a `/` after an operator or an
    // opening bracket starts a regular expression (`{/}/.test(x) && ...}`),
    // whose `}` ends nothing; after a value it is a division, after `<` a
    // JSX closing tag, after `>` JSX text.
    let mut prev = b'{';
    while j < b.len() {
        let c = b[j];
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            q @ (b'\'' | b'"' | b'`') if js => {
                j += 1;
                while j < b.len() && b[j] != q && (q == b'`' || b[j] != b'\n') {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if js && b.get(j + 1) == Some(&b'/') => {
                j = b[j..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |k| j + k);
            }
            b'/' if js && b.get(j + 1) == Some(&b'*') => {
                j = b[j + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |k| j + 2 + k + 1);
            }
            b'/' if js && b"{([,=:!&|?;+-*%~^".contains(&prev) => {
                // A regular expression literal: to its closing `/` (a `/`
                // in a class `[...]` or escaped ends nothing), on its line.
                j += 1;
                let mut class = false;
                while j < b.len() && b[j] != b'\n' && (class || b[j] != b'/') {
                    match b[j] {
                        b'\\' => j += 1,
                        b'[' => class = true,
                        b']' => class = false,
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        }
        j += 1;
    }
    b.len()
}

/// The `{...}` expressions of an MDX page, as byte ranges: a `{` outside
/// `excluded` (code, front matter, comments) and not escaped (`\{`) to the
/// `}` that balances it (see [`expression_end`]), or to the end of the page.
/// What is inside is JavaScript: a fence there is JSX text, shown or not as
/// the code decides. A quoted attribute value of a JSX tag is text, not an
/// expression. Second, the JSX tags that span lines (from `<` to their `>`):
/// what their attributes hold is no Markdown (a fence in a multi-line
/// `title="..."` is a string). Linear in the page plus the expressions'
/// lengths.
#[allow(clippy::type_complexity)]
pub(super) fn mdx_expressions(
    text: &str,
    base: usize,
    excluded: &[(usize, usize)],
) -> (Vec<(usize, usize, String)>, Vec<(usize, usize)>) {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut tags = Vec::new();
    let mut x = 0;
    let mut i = base;
    let mut quote: Option<u8> = None; // inside a tag's quoted attribute value
    let mut in_tag = false;
    let mut tag_start = 0;
    while i < b.len() {
        if let Some(next) = past_ranges(excluded, &mut x, i) {
            i = next;
            continue;
        }
        let c = b[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'\\' if !in_tag => i += 2,
            b'<' if !in_tag
                && b.get(i + 1)
                    .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'/') =>
            {
                in_tag = true;
                tag_start = i;
                i += 1;
            }
            b'"' | b'\'' if in_tag => {
                quote = Some(c);
                i += 1;
            }
            b'>' if in_tag => {
                in_tag = false;
                if b[tag_start..i].contains(&b'\n') {
                    tags.push((tag_start, i + 1));
                }
                i += 1;
            }
            b'{' => {
                let end = expression_end(b, i, false).max(expression_end(b, i, true));
                out.push((i, end, "MDX expression `{`".to_string()));
                i = end;
            }
            _ => i += 1,
        }
    }
    (out, tags)
}

/// The comments of an MDX page outside its code (`code`: sorted ranges), as
/// byte ranges in page order: an expression that holds only comments
/// (`{/* ... */}`, `{// ...}`, the whole expression), the comments that
/// start an expression (`{/* ... */ x}`, the comments), and HTML comments
/// (`<!-- ... -->`). React renders none of them, so no tag or fence in them
/// is read. Linear: every byte is looked at once. A comment that never ends
/// is an error at its start.
pub(super) fn mdx_comments(
    source: &Source,
    base: usize,
    code: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, Error> {
    let bytes = source.text.as_bytes();
    let never_closed = |at: usize, what: &str, end: &str| {
        Error::input(
            source.span(at, at + what.len()),
            format!("a comment `{what}` is never closed: no `{end}` after it"),
        )
    };
    let find = |from: usize, needle: &[u8]| {
        bytes[from.min(bytes.len())..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|p| from + p)
    };
    let mut out = Vec::new();
    let mut x = 0; // next code range
    let mut i = base;
    while i < bytes.len() {
        if let Some(next) = past_ranges(code, &mut x, i) {
            i = next;
            continue;
        }
        if bytes[i] == b'{' {
            // Whitespace and comments after the brace.
            let mut j = i + 1;
            let mut commented = false;
            loop {
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                if bytes[j..].starts_with(b"/*") {
                    let end = find(j + 2, b"*/").ok_or_else(|| never_closed(j, "/*", "*/"))?;
                    j = end + 2;
                    commented = true;
                } else if bytes[j..].starts_with(b"//") {
                    j = find(j + 2, b"\n").unwrap_or(bytes.len());
                    commented = true;
                } else {
                    break;
                }
            }
            if commented && bytes.get(j) == Some(&b'}') {
                out.push((i, j + 1));
                i = j + 1;
            } else {
                if commented {
                    out.push((i + 1, j));
                }
                i = j.max(i + 1);
            }
        } else if bytes[i..].starts_with(b"<!--") {
            let end = find(i + 4, b"-->").ok_or_else(|| never_closed(i, "<!--", "-->"))?;
            out.push((i, end + 3));
            i = end + 3;
        } else {
            i += 1;
        }
    }
    Ok(out)
}

/// Refuses an MDX page whose `{...}` expressions may render a serve command
/// recipe-drift does not read (it never evaluates the page's JavaScript): an
/// expression whose text names a launcher, or any expression when the page's
/// ESM names one (`export const C = <pre>sglang serve ...</pre>` then `{C}`),
/// where it is shown as a block: an expression on lines of its own, inside
/// a raw `<pre>`, or in the attributes of a `<pre>` / `<code>` tag
/// (`dangerouslySetInnerHTML`). Expressions of a capitalized component's tag
/// are the component renderer's. The error is at the expression.
pub(super) fn check_rendered_commands(
    source: &Source,
    base: usize,
    blocks: &super::Blocks,
) -> Result<(), Error> {
    let text = &source.text;
    let b = text.as_bytes();
    let esm_names = blocks
        .esm
        .iter()
        .any(|&(s, e)| super::names_a_launcher(&text[s..e.min(text.len())]));
    let (expressions, _) = mdx_expressions(text, base, &blocks.excluded);
    for (s, e, _) in expressions {
        let e = e.min(text.len());
        // A code block in the expression is reported at the block itself
        // (hidden: see `CodeBlock::hidden`).
        let holds_block = blocks.code.iter().any(|c| s <= c.at && c.at < e);
        let names = super::names_a_launcher(&text[s..e]);
        if holds_block || (!names && !esm_names) {
            continue;
        }
        // The tag the expression is an attribute of, if any: the nearest
        // `<` before it with no `>` between.
        let tag = b[..s]
            .iter()
            .rposition(|&c| c == b'<' || c == b'>')
            .filter(|&k| b[k] == b'<')
            .map(|k| {
                let name: String = text[k + 1..s]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
                    .collect();
                name
            });
        let shown_as_block = match tag.as_deref() {
            Some(t) if t.starts_with(|c: char| c.is_ascii_uppercase()) => false,
            Some(t) => matches!(t.to_ascii_lowercase().as_str(), "pre" | "code"),
            None => {
                let line_start = b[..s]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |k| k + 1);
                let line_end = b[e..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |k| e + k);
                let own_lines =
                    text[line_start..s].trim().is_empty() && text[e..line_end].trim().is_empty();
                let in_pre = blocks
                    .code
                    .iter()
                    .any(|c| c.html && c.content.0 <= s && s < c.content.1);
                own_lines || in_pre
            }
        };
        if shown_as_block {
            let why = if names {
                "its text names a serve command"
            } else {
                "the page's ESM (`export ...`) names a serve command"
            };
            return Err(Error::input(
                source.span(s, s + 1),
                format!(
                    "this MDX expression may render a command ({why}), which recipe-drift does not evaluate; write the command in a fenced code block"
                ),
            ));
        }
    }
    Ok(())
}
