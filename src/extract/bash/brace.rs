//! Brace expansion, the first expansion bash applies to a word: comma lists
//! (`--x{=a,=b}`, nested, empty alternatives), sequences (`{1..3}`, `{a..e}`,
//! `{01..10..3}`) and their products, in bash's order. It works on the word's
//! raw text, so quoted braces, `${...}`, `$(...)`, `$'...'` and backquotes are
//! left alone, and what it makes is expanded further as ordinary words.
//!
//! The number of words and bytes brace expansion may make in one script is
//! budgeted: a word that makes more is an error naming the budget, never a
//! partial list.

use std::sync::atomic::{AtomicUsize, Ordering};

/// At most this many words made by brace expansion in one script.
pub(super) const BRACE_WORDS: usize = 10_000;
/// At most this many bytes of text made by brace expansion in one script.
pub(super) const BRACE_BYTES: usize = 1 << 20;

/// What brace expansion has made so far in a script.
#[derive(Debug, Default)]
pub(super) struct Usage {
    words: AtomicUsize,
    bytes: AtomicUsize,
}

impl Usage {
    /// Counts the words one word made; an error past the script's budget.
    pub(super) fn add(&self, words: &[String]) -> Result<(), String> {
        let bytes: usize = words.iter().map(String::len).sum();
        let w = self.words.fetch_add(words.len(), Ordering::Relaxed) + words.len();
        let b = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if w > BRACE_WORDS || b > BRACE_BYTES {
            return Err(too_many());
        }
        Ok(())
    }
}
/// At most this many brace expressions nested in one another in one word.
pub(super) const BRACE_DEPTH: usize = 32;

/// A piece of a word: literal raw text, or alternatives.
#[derive(Debug)]
enum Node {
    Lit(String),
    Alt(Vec<Vec<Node>>),
}

/// A matched `{` at the top level of the word: its `}` and its top-level commas.
#[derive(Debug, Clone)]
struct Group {
    close: usize,
    commas: Vec<usize>,
}

/// What the scanner is inside of.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ctx {
    Top,
    Double,
    Param(usize),
    Command(usize),
    Backquote,
}

/// The words a raw word expands to (the word itself when it has no brace
/// expression), or an error naming the budget it exceeds.
pub(super) fn expand(raw: &str) -> Result<Vec<String>, String> {
    if !raw.contains('{') {
        return Ok(vec![raw.to_string()]);
    }
    let cs: Vec<char> = raw.chars().collect();
    let groups = scan(&cs);
    if groups.iter().all(Option::is_none) {
        return Ok(vec![raw.to_string()]);
    }
    let nodes = parse(&cs, &groups, 0, cs.len(), 0)?;
    words(&nodes)
}

/// One pass over the word: each unquoted `{` with its matching `}` and the
/// commas directly inside it.
fn scan(cs: &[char]) -> Vec<Option<Group>> {
    let mut groups: Vec<Option<Group>> = vec![None; cs.len()];
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut ctx: Vec<Ctx> = vec![Ctx::Top];
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        let here = *ctx.last().unwrap_or(&Ctx::Top);
        match here {
            Ctx::Double => match c {
                '\\' => i += 1,
                '"' => {
                    ctx.pop();
                }
                '$' if next == Some('{') => {
                    ctx.push(Ctx::Param(1));
                    i += 1;
                }
                '$' if next == Some('(') => {
                    ctx.push(Ctx::Command(1));
                    i += 1;
                }
                '`' => ctx.push(Ctx::Backquote),
                _ => {}
            },
            Ctx::Backquote => match c {
                '\\' => i += 1,
                '`' => {
                    ctx.pop();
                }
                _ => {}
            },
            Ctx::Top | Ctx::Param(_) | Ctx::Command(_) => match c {
                '\\' => i += 1,
                '\'' => {
                    // A single-quoted string ($'...' too: its \' escapes).
                    let ansi = i > 0 && cs[i - 1] == '$';
                    i += 1;
                    while i < cs.len() && cs[i] != '\'' {
                        if ansi && cs[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                '"' => ctx.push(Ctx::Double),
                '`' => ctx.push(Ctx::Backquote),
                '$' if next == Some('{') => {
                    ctx.push(Ctx::Param(1));
                    i += 1;
                }
                '$' if next == Some('(') => {
                    ctx.push(Ctx::Command(1));
                    i += 1;
                }
                '{' if here == Ctx::Top => open.push((i, Vec::new())),
                ',' if here == Ctx::Top => {
                    if let Some((_, commas)) = open.last_mut() {
                        commas.push(i);
                    }
                }
                '}' if here == Ctx::Top => {
                    if let Some((at, commas)) = open.pop() {
                        groups[at] = Some(Group { close: i, commas });
                    }
                }
                '{' => {
                    if let Some(Ctx::Param(d)) = ctx.last_mut() {
                        *d += 1;
                    }
                }
                '}' => {
                    if let Some(Ctx::Param(d)) = ctx.last_mut() {
                        *d -= 1;
                        if *d == 0 {
                            ctx.pop();
                        }
                    }
                }
                '(' => {
                    if let Some(Ctx::Command(d)) = ctx.last_mut() {
                        *d += 1;
                    }
                }
                ')' => {
                    if let Some(Ctx::Command(d)) = ctx.last_mut() {
                        *d -= 1;
                        if *d == 0 {
                            ctx.pop();
                        }
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    groups
}

/// The pieces of `cs[lo..hi]`.
fn parse(
    cs: &[char],
    groups: &[Option<Group>],
    lo: usize,
    hi: usize,
    depth: usize,
) -> Result<Vec<Node>, String> {
    let mut nodes = Vec::new();
    let mut lit = String::new();
    let mut i = lo;
    while i < hi {
        if let Some(g) = &groups[i]
            && g.close < hi
        {
            let alts = if !g.commas.is_empty() {
                if depth >= BRACE_DEPTH {
                    return Err(format!(
                        "brace expressions are nested more than {BRACE_DEPTH} deep in one word (the brace depth budget)"
                    ));
                }
                let mut bounds = vec![i];
                bounds.extend(&g.commas);
                bounds.push(g.close);
                let mut alts = Vec::new();
                for w in bounds.windows(2) {
                    alts.push(parse(cs, groups, w[0] + 1, w[1], depth + 1)?);
                }
                Some(alts)
            } else {
                let inner: String = cs[i + 1..g.close].iter().collect();
                sequence(&inner)?
                    .map(|items| items.into_iter().map(|t| vec![Node::Lit(t)]).collect())
            };
            if let Some(alts) = alts {
                nodes.push(Node::Lit(std::mem::take(&mut lit)));
                nodes.push(Node::Alt(alts));
                i = g.close + 1;
                continue;
            }
        }
        lit.push(cs[i]);
        i += 1;
    }
    nodes.push(Node::Lit(lit));
    Ok(nodes)
}

fn too_many() -> String {
    format!(
        "brace expansion makes more than {BRACE_WORDS} words or {BRACE_BYTES} bytes in this script (the brace expansion budget)"
    )
}

/// The words of a list of pieces, in bash's order (the product of the
/// alternatives, left to right).
fn words(nodes: &[Node]) -> Result<Vec<String>, String> {
    let mut out = vec![String::new()];
    let mut bytes = 0usize;
    for node in nodes {
        match node {
            Node::Lit(t) => {
                bytes += t.len() * out.len();
                if bytes > BRACE_BYTES {
                    return Err(too_many());
                }
                for w in &mut out {
                    w.push_str(t);
                }
            }
            Node::Alt(alts) => {
                let mut each: Vec<String> = Vec::new();
                for alt in alts {
                    each.extend(words(alt)?);
                    if each.len() > BRACE_WORDS {
                        return Err(too_many());
                    }
                }
                if out.len().saturating_mul(each.len()) > BRACE_WORDS {
                    return Err(too_many());
                }
                let mut next = Vec::with_capacity(out.len() * each.len());
                bytes = 0;
                for w in &out {
                    for x in &each {
                        bytes += w.len() + x.len();
                        if bytes > BRACE_BYTES {
                            return Err(too_many());
                        }
                        next.push(format!("{w}{x}"));
                    }
                }
                out = next;
            }
        }
    }
    Ok(out)
}

/// `x..y` or `x..y..step` over integers (zero-padded when an end is written
/// with a leading zero) or single letters; `None` when it is not a sequence.
fn sequence(inner: &str) -> Result<Option<Vec<String>>, String> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (x, y, step) = match parts.as_slice() {
        [x, y] => (*x, *y, None),
        [x, y, s] => (*x, *y, Some(*s)),
        _ => return Ok(None),
    };
    let step = match step {
        None => 1,
        Some(s) => match int(s) {
            Some(n) => n.unsigned_abs().max(1) as i128,
            None => return Ok(None),
        },
    };
    let (a, b, letters) = match (int(x), int(y)) {
        (Some(a), Some(b)) => (a as i128, b as i128, false),
        _ => {
            let (mut xc, mut yc) = (x.chars(), y.chars());
            match (xc.next(), xc.next(), yc.next(), yc.next()) {
                (Some(p), None, Some(q), None)
                    if p.is_ascii_alphabetic() && q.is_ascii_alphabetic() =>
                {
                    (p as i128, q as i128, true)
                }
                _ => return Ok(None),
            }
        }
    };
    let count = (a - b).abs() / step + 1;
    if count > BRACE_WORDS as i128 {
        return Err(too_many());
    }
    let padded = |s: &str| {
        let digits = s.strip_prefix('-').unwrap_or(s);
        digits.len() > 1 && digits.starts_with('0')
    };
    let width = if !letters && (padded(x) || padded(y)) {
        x.len().max(y.len())
    } else {
        0
    };
    let dir = if b >= a { step } else { -step };
    let mut items = Vec::with_capacity(count as usize);
    let mut v = a;
    for _ in 0..count {
        items.push(if letters {
            let c = char::from(v as u8);
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else if c == '\\' {
                // bash makes an empty word of it.
                "''".to_string()
            } else {
                format!("\\{c}")
            }
        } else {
            format!("{v:0width$}")
        });
        v += dir;
    }
    Ok(Some(items))
}

/// An integer as bash's brace sequences read it (an optional sign, digits).
fn int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(s: &str) -> String {
        expand(s).unwrap().join(" ")
    }

    #[test]
    fn like_bash() {
        // Each expected line is what bash 5.2 prints for `echo WORD`, before
        // quote removal.
        assert_eq!(ex("--x{=a,=b}"), "--x=a --x=b");
        assert_eq!(ex("x{a,b{c,d}}y"), "xay xbcy xbdy");
        assert_eq!(ex("{a,b}{c,d}"), "ac ad bc bd");
        assert_eq!(ex("{a}{b,c}"), "{a}b {a}c");
        assert_eq!(ex("{a,{b}"), "{a,{b}");
        assert_eq!(ex("\"{a,b}\""), "\"{a,b}\"");
        assert_eq!(ex("'{a,b}'"), "'{a,b}'");
        assert_eq!(ex("${X:-{a,b}}"), "${X:-{a,b}}");
        assert_eq!(ex("$(echo {a,b})"), "$(echo {a,b})");
        assert_eq!(ex("\\{a,b}"), "\\{a,b}");
        assert_eq!(ex("{,a}"), " a");
        assert_eq!(ex("{1..10..-3}"), "1 4 7 10");
        assert_eq!(ex("{05..1}"), "05 04 03 02 01");
        assert_eq!(ex("{-05..3}"), "-05 -04 -03 -02 -01 000 001 002 003");
        assert_eq!(ex("{a..e..2}"), "a c e");
        assert_eq!(ex("{1..3..0}"), "1 2 3");
        assert_eq!(ex("{1..a}"), "{1..a}");
        assert_eq!(ex("{}"), "{}");
        assert_eq!(ex("{\"a b\",c}"), "\"a b\" c");
        assert_eq!(ex("{a,${X},c}"), "a ${X} c");
    }

    #[test]
    fn budgets() {
        let word = "{a,b}".repeat(14);
        assert!(expand(&word).unwrap_err().contains("budget"));
        assert!(expand("{1..100000000000}").unwrap_err().contains("budget"));
        let deep = format!("{}x{}", "{a,".repeat(40), "}".repeat(40));
        assert!(expand(&deep).unwrap_err().contains("depth budget"));
        // Literal braces cost nothing.
        let flat = "{".repeat(100_000);
        assert_eq!(expand(&flat).unwrap(), [flat]);
    }
}
