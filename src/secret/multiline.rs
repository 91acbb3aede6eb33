//! Secret values written over several lines of a YAML or JSON text, which
//! the one-line patterns of [`super::note_text`] cannot see: a block scalar
//! (`hf-token: |` or `>-`, tags and indentation indicators allowed, the value
//! on the lines below), a plain or quoted scalar continued on the next lines
//! (`hf-token:` then the value indented below; `"...` closed lines later), a
//! key in a flow collection or JSON object whose value is on the next line,
//! an alias (`hf-token: *tok`) of an anchored value (`&tok VALUE`, also a
//! block), an explicit key (`? hf-token` then `: VALUE`), and the
//! name/value pairs of a Kubernetes-style environment list (`- name:
//! HF_TOKEN` with a sibling `value:`). Each line of such a value is recorded
//! ([`super::note`]), and so is the value as YAML joins it. The value of any
//! key written over several lines is also read for URL credentials
//! ([`super::note_urls`]).
//!
//! The scan reads lines as YAML does (a value's lines are indented more than
//! its key) without parsing the document: it works on any text (a page, a
//! config, a script) and never fails. Linear in the text: a secret's lines
//! are consumed once, another key's value is joined over at most
//! [`URL_LINES`] lines, and a sibling `value:` is looked for within
//! [`SIBLING_WINDOW`] lines.

use std::collections::HashMap;

/// How many lines around a `name: SECRET_NAME` entry are searched for its
/// `value:` sibling.
const SIBLING_WINDOW: usize = 64;

/// How many lines of another key's value are joined to find a URL folded
/// over lines.
const URL_LINES: usize = 64;

/// The longest joined value recorded (bytes); its lines are recorded one by
/// one whatever its length.
const MAX_JOINED: usize = 1024;

/// One line of the text: its content (no line break) and its indentation.
struct Line<'a> {
    text: &'a str,
    indent: usize,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    text.split('\n')
        .map(|l| {
            let l = l.strip_suffix('\r').unwrap_or(l);
            Line {
                text: l,
                indent: l.len() - l.trim_start_matches(' ').len(),
            }
        })
        .collect()
}

/// A key found on a line: its name, the column where its node starts (for
/// the indentation of its value's lines), whether it sits inside a flow
/// collection (where indentation does not count), and the text after its
/// `:`.
struct Key<'a> {
    name: &'a str,
    col: usize,
    flow: bool,
    rest: &'a str,
}

/// Whether a byte can be part of a key's name.
fn key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Every `KEY:` of a line (plain, `"KEY"` or `'KEY'`), with the text after
/// its colon. A key starts the line's content (after `- ` and `? `
/// indicators) or follows `{`, `[` or `,` (a flow collection).
fn keys(line: &str) -> Vec<Key<'_>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    // The start of the node: past the indentation and sequence/explicit-key
    // indicators.
    let mut head = 0;
    loop {
        while head < b.len() && b[head] == b' ' {
            head += 1;
        }
        if head + 1 < b.len()
            && matches!(b[head], b'-' | b'?')
            && matches!(b[head + 1], b' ' | b'\t')
        {
            head += 2;
        } else {
            break;
        }
    }
    let mut i = head;
    let mut flow = false;
    // The last byte before `i` that is not a blank.
    let mut last: Option<u8> = None;
    while i < b.len() {
        let at_start = i == head;
        let after_flow = matches!(last, Some(b'{' | b'[')) || (flow && last == Some(b','));
        if at_start || after_flow {
            flow |= after_flow;
            let quote = matches!(b[i], b'"' | b'\'').then_some(b[i]);
            let start = i + usize::from(quote.is_some());
            let mut j = start;
            while j < b.len() && key_byte(b[j]) {
                j += 1;
            }
            let name_end = j;
            if quote.is_some_and(|q| b.get(j) == Some(&q)) {
                j += 1;
            } else if quote.is_some() {
                j = b.len();
            }
            while j < b.len() && matches!(b[j], b' ' | b'\t') {
                j += 1;
            }
            if name_end > start
                && b.get(j) == Some(&b':')
                && (quote.is_some() || matches!(b.get(j + 1), None | Some(b' ' | b'\t')))
            {
                out.push(Key {
                    name: &line[start..name_end],
                    col: if flow {
                        i
                    } else {
                        start - usize::from(quote.is_some())
                    },
                    flow,
                    rest: &line[j + 1..],
                });
                i = j + 1;
                last = Some(b':');
                continue;
            }
        }
        if matches!(b[i], b'{' | b'[') {
            flow = true;
        }
        if !matches!(b[i], b' ' | b'\t') {
            last = Some(b[i]);
        }
        i += 1;
    }
    out
}

/// The text after a key's colon with its tags (`!!str`, `!<...>`) and anchor
/// (`&a`) removed, and the anchor's name.
fn strip_properties(rest: &str) -> (&str, Option<&str>) {
    let mut r = rest.trim_start_matches([' ', '\t']);
    let mut anchor = None;
    while r.starts_with(['!', '&']) {
        let end = r.find([' ', '\t']).unwrap_or(r.len());
        if let Some(name) = r[..end].strip_prefix('&') {
            anchor = Some(name);
        }
        r = r[end..].trim_start_matches([' ', '\t']);
    }
    (r, anchor)
}

/// Whether a line holds nothing but blanks or a comment.
fn blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The lines of a value and where the scan goes on: what a key's `rest`
/// starts on line `at` holds, for a key whose node starts at column `col`.
/// Returns the value's pieces (each trimmed line) and the index of the first
/// line after the ones consumed as part of a block.
fn value_lines<'a>(
    ls: &[Line<'a>],
    at: usize,
    col: usize,
    flow: bool,
    rest: &'a str,
) -> (Vec<&'a str>, usize) {
    let (r, _) = strip_properties(rest);
    let mut pieces = Vec::new();
    let mut next = at + 1;
    let header = r
        .strip_prefix(['|', '>'])
        .filter(|h| {
            let h = h.trim_start_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
            blank(h)
        })
        .is_some();
    if header {
        // A block scalar: every line below indented more than the key's
        // node (blank lines included), consumed as content.
        while next < ls.len() && (ls[next].text.trim().is_empty() || ls[next].indent > col) {
            let t = ls[next].text.trim();
            if !t.is_empty() {
                pieces.push(t);
            }
            next += 1;
        }
        return (pieces, next);
    }
    if let Some(q) = r.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        // A quoted scalar left open on this line runs on to its closing
        // quote.
        let body = &r[1..];
        if closing_quote(body, q).is_some() {
            return (pieces, next);
        }
        pieces.push(body.trim());
        while next < ls.len() {
            let t = ls[next].text.trim();
            next += 1;
            match closing_quote(t, q) {
                Some(end) => {
                    pieces.push(t[..end].trim());
                    break;
                }
                None => pieces.push(t),
            }
        }
        return (pieces, next);
    }
    if !blank(r) {
        // A value on the key's own line: the one-line patterns' job, unless
        // it is a plain scalar continued on more-indented lines below.
        if !flow && !r.starts_with(['{', '[', '*']) {
            pieces.push(r.trim());
            while next < ls.len() && !blank(ls[next].text) && ls[next].indent > col {
                let t = ls[next].text.trim();
                if starts_node(t) {
                    break;
                }
                pieces.push(t);
                next += 1;
            }
            if pieces.len() == 1 {
                pieces.clear();
            }
        }
        return (pieces, at + 1);
    }
    // Nothing after the colon: the value is on the next lines (more
    // indented than the key's node; any indentation in a flow collection).
    let mut k = at + 1;
    while k < ls.len() && blank(ls[k].text) {
        k += 1;
    }
    let Some(first) = ls.get(k) else {
        return (pieces, next);
    };
    if !(flow || first.indent > col) {
        return (pieces, next);
    }
    let t = first.text.trim();
    if !flow && starts_node(t) {
        // A nested mapping or sequence: its own keys are read on their lines.
        return (pieces, next);
    }
    // The value starts here: read it as if it followed the colon.
    let (more, after) = value_lines(ls, k, col, flow, t);
    if more.is_empty() {
        pieces.push(t);
        return (pieces, k + 1);
    }
    pieces.extend(more);
    (pieces, after)
}

/// Whether a trimmed line starts a mapping entry or a sequence item rather
/// than continuing a scalar.
fn starts_node(t: &str) -> bool {
    t.starts_with("- ") || t == "-" || !keys(t).is_empty()
}

/// Where a quoted scalar's closing quote is in `t` (`\"` escapes in double
/// quotes, `''` in single quotes).
fn closing_quote(t: &str, q: char) -> Option<usize> {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match (q, b[i]) {
            ('"', b'\\') => i += 1,
            ('"', b'"') => return Some(i),
            ('\'', b'\'') if b.get(i + 1) == Some(&b'\'') => i += 1,
            ('\'', b'\'') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Records a value's pieces: each one (quotes, flow punctuation and a
/// trailing comment removed) and the value joined as YAML folds it.
fn record(pieces: &[&str]) {
    let clean: Vec<&str> = pieces
        .iter()
        .map(|p| {
            let p = p.split(" #").next().unwrap_or(p);
            p.trim()
                .trim_end_matches([',', '}', ']'])
                .trim()
                .trim_matches(['"', '\''])
        })
        .filter(|p| !p.is_empty())
        .collect();
    for p in &clean {
        super::note(p);
    }
    // The joined value, when it is of a credential's size (each line is
    // recorded whatever the size; a long joined value would only slow the
    // masking matcher, which is rebuilt as secrets are recorded).
    if clean.len() > 1 && clean.iter().map(|p| p.len() + 1).sum::<usize>() <= MAX_JOINED {
        super::note(&clean.join(" "));
        super::note(&clean.join(""));
        super::note_urls(&clean.concat());
    }
}

/// Records the secret values of `text` written over several lines (see the
/// module documentation).
pub(super) fn note_multiline(text: &str) {
    let ls = lines(text);
    // Anchored values, by name: (line, column of the node, flow, rest).
    let mut anchors: HashMap<&str, (usize, usize, bool, &str)> = HashMap::new();
    let mut aliases: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < ls.len() {
        let mut next = i + 1;
        let found = keys(ls[i].text);
        for key in &found {
            let (r, anchor) = strip_properties(key.rest);
            if let Some(a) = anchor {
                anchors.insert(a, (i, key.col, key.flow, key.rest));
            }
            if key.name == "name" && super::is_secret_env(r.trim().trim_matches(['"', '\''])) {
                sibling_value(&ls, i, key.col);
            }
            let secret = super::is_secret_name(key.name);
            if let Some(alias) = r.strip_prefix('*') {
                if secret {
                    aliases.push(alias.split([' ', '\t', ',', '}', ']']).next().unwrap_or(""));
                }
                continue;
            }
            if secret {
                let (pieces, after) = value_lines(&ls, i, key.col, key.flow, key.rest);
                record(&pieces);
                next = next.max(after);
            } else {
                // Any key's value: a URL folded over lines keeps its
                // credentials secret. Its lines are read again as lines (a
                // block may hold YAML: a ConfigMap's `config.yaml: |`), so
                // only the first [`URL_LINES`] are joined.
                let end = ls.len().min(i + 1 + URL_LINES);
                let (pieces, _) = value_lines(&ls[..end], i, key.col, key.flow, key.rest);
                if pieces.len() > 1 {
                    super::note_urls(&pieces.concat());
                }
            }
        }
        // An explicit key (`? hf-token`), its value on a later `: ` line.
        let t = ls[i].text.trim_start();
        if found.is_empty()
            && let Some(name) = t.strip_prefix("? ")
            && super::is_secret_name(name.trim().trim_matches(['"', '\'']))
        {
            let col = ls[i].indent;
            if let Some(k) = (i + 1..ls.len()).find(|&k| !blank(ls[k].text))
                && ls[k].indent == col
                && let Some(rest) = ls[k].text.trim_start().strip_prefix(':')
            {
                let (pieces, after) = value_lines(&ls, k, col, false, rest);
                let (r, _) = strip_properties(rest);
                if pieces.is_empty() && !blank(r) {
                    record(&[r]);
                }
                record(&pieces);
                next = next.max(after);
            }
        }
        i = next;
    }
    // Aliases of secret keys: the anchored value is the secret.
    for alias in aliases {
        if let Some(&(at, col, flow, rest)) = anchors.get(alias) {
            let (pieces, _) = value_lines(&ls, at, col, flow, rest);
            let (r, _) = strip_properties(rest);
            if pieces.is_empty() && !blank(r) {
                record(&[r]);
            }
            record(&pieces);
        }
    }
}

/// The `value:` sibling of a `name: SECRET_NAME` entry at line `at` (a
/// Kubernetes-style environment list), looked for among the lines of the
/// same mapping within [`SIBLING_WINDOW`] lines either side.
fn sibling_value(ls: &[Line<'_>], at: usize, col: usize) {
    let in_mapping = |k: usize| !blank(ls[k].text) && ls[k].indent >= col;
    let mut candidates = Vec::new();
    // Forward, then backward, while the lines belong to the same node.
    let mut k = at + 1;
    while k < ls.len() && k <= at + SIBLING_WINDOW && (blank(ls[k].text) || in_mapping(k)) {
        candidates.push(k);
        k += 1;
    }
    let mut k = at;
    while k > 0 && at - k < SIBLING_WINDOW {
        k -= 1;
        if !(blank(ls[k].text) || ls[k].indent >= col || ls[k].text.trim_start().starts_with("- "))
        {
            break;
        }
        candidates.push(k);
        if ls[k].indent < col {
            break;
        }
    }
    for k in candidates {
        for key in keys(ls[k].text) {
            if key.name == "value" && key.col == col {
                let (pieces, _) = value_lines(ls, k, key.col, key.flow, key.rest);
                let (r, _) = strip_properties(key.rest);
                if pieces.is_empty() && !blank(r) {
                    record(&[r]);
                }
                record(&pieces);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(text: &str, probe: &str) -> String {
        note_multiline(text);
        super::super::mask_value(probe)
    }

    #[test]
    fn block_scalars_and_continued_values_are_recorded() {
        for (text, token) in [
            ("hf-token: |\n  blockTok3n01\nmodel: m\n", "blockTok3n01"),
            (
                "a:\n  api-key: >-\n    foldTok3n02\n    rest\n",
                "foldTok3n02",
            ),
            ("hf-token: !!str |2-\n   tagTok3n03\n", "tagTok3n03"),
            ("hf-token:\n  nextTok3n04\n", "nextTok3n04"),
            ("{hf-token:\n  flowTok3n05}\n", "flowTok3n05"),
            ("{\"hf_token\":\n\"jsonTok3n06\"}\n", "jsonTok3n06"),
            ("hf-token: \"dq\n  dqTok3n07\"\n", "dqTok3n07"),
            ("hf-token: 'sq\n  sqTok3n08'\n", "sqTok3n08"),
            ("base: &t aliasTok3n09\nhf-token: *t\n", "aliasTok3n09"),
            (
                "base: &t |\n  aliasBlockTok10\nhf-token: *t\n",
                "aliasBlockTok10",
            ),
            ("? hf-token\n: explicitTok11\n", "explicitTok11"),
            ("\"hf-token\": |\n  quotedKeyTok12\n", "quotedKeyTok12"),
            (
                "env:\n  - name: HF_TOKEN\n    value: envListTok13\n",
                "envListTok13",
            ),
            (
                "env:\n  - value: |\n      envListTok14\n    name: HF_TOKEN\n",
                "envListTok14",
            ),
            ("hf-token: plainTok15\n  continuedTok15\n", "continuedTok15"),
            ("{a: 1, api-key:\n  inFlowTok16}\n", "inFlowTok16"),
            (
                "url: >-\n  https://u:\n  urlFoldTok17@h/x\n",
                "urlFoldTok17",
            ),
            (
                "data:\n  config.yaml: |\n    hf-token: |\n      configMapTok18\n",
                "configMapTok18",
            ),
        ] {
            assert_eq!(masked(text, token), "*".repeat(token.len()), "{text}");
        }
    }

    #[test]
    fn other_keys_and_nested_maps_are_not_recorded() {
        let text = "hf-token:\n  path: notAToken01\nmodel: |\n  hf-token: notAToken02\nname: MODEL\nvalue: notAToken03\n";
        note_multiline(text);
        for v in ["notAToken01", "notAToken03"] {
            assert_eq!(super::super::mask_value(v), v);
        }
    }
}
