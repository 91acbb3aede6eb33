//! Shell patterns matched in linear time: `*`, `?`, `[...]` (ranges, `[!..]`
//! / `[^..]`, a leading `]`, POSIX classes such as `[[:digit:]]`), `\x`,
//! literal text, and with `extglob` the groups `@(a|b)`, `?(..)`, `*(..)`,
//! `+(..)` and a `!(..)` that is the whole pattern. A pattern parses to a
//! tree, compiles to a Thompson NFA, and matching simulates all of its
//! states at once over the text, so the work is at most text length times
//! pattern length whatever the pattern, instead of the exponential
//! backtracking of a naive matcher on many `*`. The work is counted against
//! the matching budget. What is not evaluated (a `!(..)` inside a pattern,
//! an unknown character class) is an error with the reason, which callers
//! make an unknown value.

use super::budget;

/// How a pattern is read and matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// `shopt -s extglob` (always on in `[[ == ]]`): `@(..)`, `!(..)`, ...
    pub(crate) extglob: bool,
    /// `shopt -s nocasematch`: letters match either case.
    pub(crate) nocase: bool,
}

/// Which characters one step of a pattern accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Matcher {
    /// One given character.
    Lit(char),
    /// Any one character (`?`, and each character of `*`).
    Any,
    /// `[...]`: one character of a set (ranges inclusive, named classes), or
    /// not of it.
    Class {
        neg: bool,
        set: Vec<(char, char)>,
        named: Vec<Named>,
    },
}

/// The POSIX character classes (`[:alpha:]`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Word,
    Xdigit,
}

impl Named {
    fn parse(name: &str) -> Option<Named> {
        Some(match name {
            "alnum" => Named::Alnum,
            "alpha" => Named::Alpha,
            "blank" => Named::Blank,
            "cntrl" => Named::Cntrl,
            "digit" => Named::Digit,
            "graph" => Named::Graph,
            "lower" => Named::Lower,
            "print" => Named::Print,
            "punct" => Named::Punct,
            "space" => Named::Space,
            "upper" => Named::Upper,
            "word" => Named::Word,
            "xdigit" => Named::Xdigit,
            _ => return None,
        })
    }

    /// Whether `c` is in the class (ASCII, as in the C locale).
    fn has(self, c: char) -> bool {
        match self {
            Named::Alnum => c.is_ascii_alphanumeric(),
            Named::Alpha => c.is_ascii_alphabetic(),
            Named::Blank => c == ' ' || c == '\t',
            Named::Cntrl => c.is_ascii_control(),
            Named::Digit => c.is_ascii_digit(),
            Named::Graph => c.is_ascii_graphic(),
            Named::Lower => c.is_ascii_lowercase(),
            Named::Print => c.is_ascii_graphic() || c == ' ',
            Named::Punct => c.is_ascii_punctuation(),
            Named::Space => c.is_ascii_whitespace() || c == '\u{b}',
            Named::Upper => c.is_ascii_uppercase(),
            Named::Word => c.is_ascii_alphanumeric() || c == '_',
            Named::Xdigit => c.is_ascii_hexdigit(),
        }
    }
}

impl Matcher {
    /// Whether `c` is a member (of a class: before negation).
    fn member(&self, c: char) -> bool {
        match self {
            Matcher::Lit(l) => *l == c,
            Matcher::Any => true,
            Matcher::Class { set, named, .. } => {
                set.iter().any(|&(a, b)| a <= c && c <= b) || named.iter().any(|n| n.has(c))
            }
        }
    }

    /// Whether one step reads `c`; with `nocase`, a letter of either case.
    fn accepts(&self, c: char, nocase: bool) -> bool {
        let mut member = self.member(c);
        if nocase && !member {
            let other: Vec<char> = if c.is_lowercase() {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            if let [o] = other.as_slice() {
                member = self.member(*o);
            }
        }
        match self {
            Matcher::Class { neg, .. } => member != *neg,
            _ => member,
        }
    }
}

/// A parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    /// One character.
    One(Matcher),
    /// `*`: any run of characters.
    Run,
    /// Items one after the other.
    Seq(Vec<Node>),
    /// Any one of the alternatives (`@(a|b)`).
    Alt(Vec<Node>),
    /// `?(..)`: zero or one.
    Opt(Box<Node>),
    /// `*(..)`: zero or more.
    Many(Box<Node>),
    /// `+(..)`: one or more.
    Some(Box<Node>),
    /// `!(..)`: anything the group does not match.
    Not(Box<Node>),
}

impl Node {
    /// The same pattern read backwards (for suffixes).
    fn reversed(&self) -> Node {
        match self {
            Node::Seq(v) => Node::Seq(v.iter().rev().map(Node::reversed).collect()),
            Node::Alt(v) => Node::Alt(v.iter().map(Node::reversed).collect()),
            Node::Opt(n) => Node::Opt(Box::new(n.reversed())),
            Node::Many(n) => Node::Many(Box::new(n.reversed())),
            Node::Some(n) => Node::Some(Box::new(n.reversed())),
            Node::Not(n) => Node::Not(Box::new(n.reversed())),
            other => other.clone(),
        }
    }

    /// Whether a `!(..)` is inside.
    fn has_not(&self) -> bool {
        match self {
            Node::Not(_) => true,
            Node::Seq(v) | Node::Alt(v) => v.iter().any(Node::has_not),
            Node::Opt(n) | Node::Many(n) | Node::Some(n) => n.has_not(),
            _ => false,
        }
    }
}

/// Reads a pattern into a tree.
struct Reader<'p> {
    p: &'p [char],
    i: usize,
    extglob: bool,
    /// For each `(`, where its matching `)` is (computed once: linear).
    close: Vec<Option<usize>>,
    /// Whether a `]` comes after each position.
    bracket_after: Vec<bool>,
    /// How deeply the groups being read nest.
    depth: usize,
}

/// Extglob groups nested deeper than this are not evaluated (the reader and
/// the compiler recurse once per level).
const MAX_GROUP_DEPTH: usize = 64;

/// A bracket expression longer than this is not evaluated.
const MAX_BRACKET: usize = 1024;

impl<'p> Reader<'p> {
    fn new(p: &'p [char], extglob: bool) -> Self {
        let mut close = vec![None; p.len()];
        let mut open: Vec<usize> = Vec::new();
        let mut j = 0;
        while j < p.len() {
            match p[j] {
                '\\' => j += 1,
                '(' => open.push(j),
                ')' => {
                    if let Some(o) = open.pop() {
                        close[o] = Some(j);
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let mut bracket_after = vec![false; p.len() + 1];
        for j in (0..p.len()).rev() {
            bracket_after[j] = p[j] == ']' || bracket_after[j + 1];
        }
        Reader {
            p,
            i: 0,
            extglob,
            close,
            bracket_after,
            depth: 0,
        }
    }

    /// Alternatives up to the end, or (inside a group) up to its `)`.
    fn alternatives(&mut self, group: bool) -> Result<Node, String> {
        let mut alts = Vec::new();
        let mut seq = Vec::new();
        while self.i < self.p.len() {
            let c = self.p[self.i];
            if group && c == ')' {
                self.i += 1;
                alts.push(Node::Seq(seq));
                return Ok(Node::Alt(alts));
            }
            if group && c == '|' {
                self.i += 1;
                alts.push(Node::Seq(std::mem::take(&mut seq)));
                continue;
            }
            seq.push(self.item()?);
        }
        alts.push(Node::Seq(seq));
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Node::Seq(Vec::new()))
        } else {
            Node::Alt(alts)
        })
    }

    /// Whether an extglob group `X(...)` with a closing `)` starts here.
    fn group_starts(&self) -> bool {
        self.extglob
            && matches!(self.p[self.i], '@' | '?' | '*' | '+' | '!')
            && self.p.get(self.i + 1) == Some(&'(')
            && self.close[self.i + 1].is_some()
    }

    fn item(&mut self) -> Result<Node, String> {
        let c = self.p[self.i];
        if self.group_starts() {
            if self.depth >= MAX_GROUP_DEPTH {
                return Err(format!(
                    "extglob groups nested more than {MAX_GROUP_DEPTH} deep are not evaluated"
                ));
            }
            self.i += 2;
            self.depth += 1;
            let inner = self.alternatives(true);
            self.depth -= 1;
            let inner = Box::new(inner?);
            return Ok(match c {
                '@' => *inner,
                '?' => Node::Opt(inner),
                '*' => Node::Many(inner),
                '+' => Node::Some(inner),
                _ => Node::Not(inner),
            });
        }
        self.i += 1;
        Ok(match c {
            '*' => Node::Run,
            '?' => Node::One(Matcher::Any),
            '[' => match self.bracket()? {
                Some(m) => Node::One(m),
                None => Node::One(Matcher::Lit('[')),
            },
            '\\' if self.i < self.p.len() => {
                self.i += 1;
                Node::One(Matcher::Lit(self.p[self.i - 1]))
            }
            c => Node::One(Matcher::Lit(c)),
        })
    }

    /// A bracket expression after its `[`; `None` (and nothing read) when it
    /// has no closing `]`: the `[` is literal.
    fn bracket(&mut self) -> Result<Option<Matcher>, String> {
        let p = self.p;
        let mut j = self.i;
        if !self.bracket_after[j] {
            return Ok(None);
        }
        let neg = matches!(p.get(j), Some('!' | '^'));
        if neg {
            j += 1;
        }
        let mut set = Vec::new();
        let mut named = Vec::new();
        let mut first = true;
        loop {
            let Some(&c) = p.get(j) else {
                return Ok(None);
            };
            if j - self.i > MAX_BRACKET {
                return Err(format!(
                    "a bracket expression longer than {MAX_BRACKET} characters is not evaluated"
                ));
            }
            if c == ']' && !first {
                j += 1;
                break;
            }
            first = false;
            if c == '[' && p.get(j + 1) == Some(&':') {
                // Class names are short: look for the `:]` nearby only.
                let rest = &p[j + 2..(j + 2 + 16).min(p.len())];
                if let Some(end) = rest.windows(2).position(|w| w == [':', ']']) {
                    let name: String = rest[..end].iter().collect();
                    match Named::parse(&name) {
                        Some(n) => named.push(n),
                        None => {
                            return Err(format!("the character class [:{name}:] is not evaluated"));
                        }
                    }
                    j += 2 + end + 2;
                    continue;
                }
            }
            let (lo, next) = match c {
                '\\' if j + 1 < p.len() => (p[j + 1], j + 2),
                c => (c, j + 1),
            };
            if p.get(next) == Some(&'-') && p.get(next + 1).is_some_and(|&e| e != ']') {
                let (hi, after) = match p[next + 1] {
                    '\\' if next + 2 < p.len() => (p[next + 2], next + 3),
                    e => (e, next + 2),
                };
                set.push((lo, hi));
                j = after;
            } else {
                set.push((lo, lo));
                j = next;
            }
        }
        self.i = j;
        Ok(Some(Matcher::Class { neg, set, named }))
    }
}

/// One state of the compiled NFA.
#[derive(Debug, Clone)]
enum State {
    /// Reads one character the matcher accepts, then goes to the next state.
    Read(Matcher, usize),
    /// Goes on to both states without reading.
    Split(usize, usize),
    /// Goes on to one state without reading (filled in when compiled).
    Jump(usize),
    /// The whole pattern has matched.
    Done,
}

/// A compiled shell pattern.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    states: Vec<State>,
    start: usize,
    nocase: bool,
    /// The pattern is `!(..)` as a whole: it matches what the group does not.
    negated: bool,
    /// The tree, for [`Glob::reversed`].
    tree: Node,
}

impl Glob {
    /// Compiles a pattern. A `[` without a closing `]` is a literal `[`;
    /// `[!...]` and `[^...]` negate; consecutive `*` are one.
    pub(crate) fn new(p: &str, opts: Options) -> Result<Glob, String> {
        let chars: Vec<char> = p.chars().collect();
        let mut reader = Reader::new(&chars, opts.extglob);
        let tree = reader.alternatives(false)?;
        let (tree, negated) = match tree {
            Node::Seq(mut v) if v.len() == 1 && matches!(v[0], Node::Not(_)) => {
                let Some(Node::Not(inner)) = v.pop() else {
                    unreachable!()
                };
                (*inner, true)
            }
            t => (t, false),
        };
        if tree.has_not() {
            return Err(format!(
                "the pattern {:?} has a `!(...)` inside it, which is not evaluated (only a whole-pattern `!(...)` is)",
                shown(p)
            ));
        }
        Ok(Glob::compile(tree, opts.nocase, negated))
    }

    fn compile(tree: Node, nocase: bool, negated: bool) -> Glob {
        let mut states = vec![State::Done];
        let start = build(&tree, 0, &mut states);
        Glob {
            states,
            start,
            nocase,
            negated,
            tree,
        }
    }

    /// The same pattern read backwards (for suffixes).
    fn reversed(&self) -> Glob {
        Glob::compile(self.tree.reversed(), self.nocase, self.negated)
    }

    /// A pattern used for what only a positive pattern can do (removal,
    /// replacement): `Err` when it is a `!(...)`.
    fn positive(self, p: &str) -> Result<Glob, String> {
        if self.negated {
            return Err(format!(
                "the pattern {:?} is a `!(...)`, which is evaluated only as a whole match",
                shown(p)
            ));
        }
        Ok(self)
    }

    /// Charges the work of one pass over `n` characters.
    fn charge(&self, n: usize) -> Result<(), String> {
        budget::work((n + 1).saturating_mul(self.states.len() + 1))
    }

    /// Adds `s` and the states reachable from it without reading to `set`
    /// with tag `v`, where it has none yet (callers add the smallest tags
    /// first, so each state keeps the smallest).
    fn add<T: Copy>(&self, set: &mut [Option<T>], s: usize, v: T, stack: &mut Vec<usize>) {
        stack.push(s);
        while let Some(s) = stack.pop() {
            if set[s].is_some() {
                continue;
            }
            set[s] = Some(v);
            match self.states[s] {
                State::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                State::Jump(a) => stack.push(a),
                _ => {}
            }
        }
    }

    /// The states after reading `c` from `set` (tags: smallest first).
    fn advance<T: Copy + Ord>(&self, set: &[Option<T>], c: char) -> Vec<Option<T>> {
        let mut moves: Vec<(T, usize)> = Vec::new();
        for (i, st) in self.states.iter().enumerate() {
            if let (Some(v), State::Read(m, to)) = (set[i], st)
                && m.accepts(c, self.nocase)
            {
                moves.push((v, *to));
            }
        }
        moves.sort_by_key(|(v, _)| *v);
        let mut next: Vec<Option<T>> = vec![None; set.len()];
        let mut stack = Vec::new();
        for (v, to) in moves {
            self.add(&mut next, to, v, &mut stack);
        }
        next
    }

    /// The lengths (in characters) of the prefixes of `t` the pattern (as
    /// written, without a whole `!(..)`) matches.
    fn prefix_lengths(&self, t: &[char]) -> Result<Vec<usize>, String> {
        self.charge(t.len())?;
        let mut set: Vec<Option<()>> = vec![None; self.states.len()];
        self.add(&mut set, self.start, (), &mut Vec::new());
        let mut out = Vec::new();
        for (i, &c) in t.iter().enumerate() {
            if set[0].is_some() {
                out.push(i);
            }
            set = self.advance(&set, c);
            if set.iter().all(Option::is_none) {
                return Ok(out);
            }
        }
        if set[0].is_some() {
            out.push(t.len());
        }
        Ok(out)
    }

    /// Whether the pattern matches all of `t`.
    pub(crate) fn matches(&self, t: &str) -> Result<bool, String> {
        let t: Vec<char> = t.chars().collect();
        let whole = self.prefix_lengths(&t)?.last() == Some(&t.len());
        Ok(whole != self.negated)
    }

    /// The leftmost match in `t[from..]`, longest at that start, as a
    /// character range.
    fn leftmost_longest(&self, t: &[char], from: usize) -> Result<Option<(usize, usize)>, String> {
        self.charge(t.len() - from)?;
        let mut set: Vec<Option<usize>> = vec![None; self.states.len()];
        let mut best: Option<(usize, usize)> = None;
        let mut stack = Vec::new();
        for pos in from..=t.len() {
            if best.is_none() {
                // A start here has the largest tag: states reached already
                // keep their smaller one.
                self.add(&mut set, self.start, pos, &mut stack);
            }
            if let Some(s) = set[0]
                && best.is_none_or(|(bs, _)| s <= bs)
            {
                best = Some((s, pos));
            }
            if pos == t.len() {
                break;
            }
            set = self.advance(&set, t[pos]);
            if let Some((bs, _)) = best {
                // Only matches that started at the best start can still grow.
                for v in set.iter_mut() {
                    if v.is_some_and(|s| s > bs) {
                        *v = None;
                    }
                }
                if set.iter().all(Option::is_none) {
                    break;
                }
            }
        }
        Ok(best)
    }
}

/// Compiles `node` so that it goes on to state `next`; its start state.
fn build(node: &Node, next: usize, states: &mut Vec<State>) -> usize {
    let push = |states: &mut Vec<State>, s: State| {
        states.push(s);
        states.len() - 1
    };
    match node {
        Node::One(m) => push(states, State::Read(m.clone(), next)),
        Node::Run => {
            let split = push(states, State::Jump(next));
            let read = push(states, State::Read(Matcher::Any, split));
            states[split] = State::Split(read, next);
            split
        }
        Node::Seq(v) => v.iter().rev().fold(next, |n, item| build(item, n, states)),
        Node::Alt(v) => {
            let starts: Vec<usize> = v.iter().map(|a| build(a, next, states)).collect();
            let mut start = match starts.last() {
                Some(&s) => s,
                None => next,
            };
            for &s in starts.iter().rev().skip(1) {
                start = push(states, State::Split(s, start));
            }
            start
        }
        Node::Opt(n) => {
            let inner = build(n, next, states);
            push(states, State::Split(inner, next))
        }
        Node::Many(n) => {
            let split = push(states, State::Jump(next));
            let inner = build(n, split, states);
            states[split] = State::Split(inner, next);
            split
        }
        Node::Some(n) => {
            let split = push(states, State::Jump(next));
            let inner = build(n, split, states);
            states[split] = State::Split(inner, next);
            inner
        }
        // Refused before compiling, except as the whole pattern.
        Node::Not(n) => build(n, next, states),
    }
}

/// A long pattern is shown by its start only.
fn shown(p: &str) -> String {
    let s: String = p.chars().take(60).collect();
    if s.len() < p.len() { s + "..." } else { s }
}

/// Shell pattern matching of all of `t` (`case`, `[[ == ]]`). `Err` with
/// the reason when the pattern is not evaluated (the result is unknown), or
/// when the matching budget is exceeded (the budget stays tripped, so the
/// evaluation ends with that error).
pub(crate) fn pattern_match(p: &str, t: &str, opts: Options) -> Result<bool, String> {
    Glob::new(p, opts)?.matches(t)
}

/// Whether a character is special in a pattern (escaped where it is quoted).
pub(crate) fn is_special(c: char) -> bool {
    matches!(
        c,
        '*' | '?' | '[' | ']' | '\\' | '(' | ')' | '|' | '@' | '!' | '+' | '^' | '-'
    )
}

/// `${V#p}`, `${V##p}`, `${V%p}`, `${V%%p}`: `t` without its shortest or
/// longest prefix or suffix matching `p`.
pub(crate) fn remove_pattern(
    t: &str,
    p: &str,
    suffix: bool,
    largest: bool,
    opts: Options,
) -> Result<String, String> {
    let glob = Glob::new(p, opts)?.positive(p)?;
    let mut chars: Vec<char> = t.chars().collect();
    let glob = if suffix {
        chars.reverse();
        glob.reversed()
    } else {
        glob
    };
    let lengths = glob.prefix_lengths(&chars)?;
    let cut = if largest {
        lengths.last()
    } else {
        lengths.first()
    };
    let Some(&n) = cut else {
        return Ok(t.to_string());
    };
    Ok(if suffix {
        chars[n..].iter().rev().collect()
    } else {
        chars[n..].iter().collect()
    })
}

/// Where `${V/p/r}` replaces: the pattern's kind of match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replace {
    /// `${V/p/r}`: the first (leftmost, longest) match.
    First,
    /// `${V//p/r}`: every match, left to right.
    All,
    /// `${V/#p/r}`: the longest matching prefix.
    Prefix,
    /// `${V/%p/r}`: the longest matching suffix.
    Suffix,
}

/// `${V/p/r}` and its forms with a shell pattern, within the value budget.
pub(crate) fn replace(
    t: &str,
    p: &str,
    r: &str,
    kind: Replace,
    opts: Options,
) -> Result<String, String> {
    let glob = Glob::new(p, opts)?.positive(p)?;
    let chars: Vec<char> = t.chars().collect();
    let mut out = String::new();
    let grow = |out: &mut String, s: &str| -> Result<(), String> {
        budget::value(out.len() + s.len())?;
        out.push_str(s);
        Ok(())
    };
    match kind {
        Replace::Prefix => match glob.prefix_lengths(&chars)?.last() {
            Some(&n) => {
                grow(&mut out, r)?;
                grow(&mut out, &chars[n..].iter().collect::<String>())?;
            }
            None => grow(&mut out, t)?,
        },
        Replace::Suffix => {
            let rev: Vec<char> = chars.iter().rev().copied().collect();
            match glob.reversed().prefix_lengths(&rev)?.last() {
                Some(&n) => {
                    grow(
                        &mut out,
                        &chars[..chars.len() - n].iter().collect::<String>(),
                    )?;
                    grow(&mut out, r)?;
                }
                None => grow(&mut out, t)?,
            }
        }
        Replace::First | Replace::All => {
            if p.is_empty() {
                return Ok(t.to_string());
            }
            let mut pos = 0;
            while pos <= chars.len() {
                let Some((s, e)) = glob.leftmost_longest(&chars, pos)? else {
                    break;
                };
                grow(&mut out, &chars[pos..s].iter().collect::<String>())?;
                if e == s {
                    // An empty match replaces nothing; step over one character.
                    if s < chars.len() {
                        grow(&mut out, &chars[s].to_string())?;
                    }
                    pos = s + 1;
                    continue;
                }
                grow(&mut out, r)?;
                pos = e;
                if kind == Replace::First {
                    break;
                }
            }
            if pos < chars.len() {
                grow(&mut out, &chars[pos..].iter().collect::<String>())?;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob_match(p: &str, t: &str) -> bool {
        pattern_match(p, t, Options::default()).unwrap()
    }

    fn ext(p: &str, t: &str) -> Result<bool, String> {
        pattern_match(
            p,
            t,
            Options {
                extglob: true,
                nocase: false,
            },
        )
    }

    /// The naive backtracking matcher, the reference on small inputs.
    fn naive(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') => (0..=t.len()).any(|i| naive(&p[1..], &t[i..])),
            Some('?') => !t.is_empty() && naive(&p[1..], &t[1..]),
            Some(&c) => t.first() == Some(&c) && naive(&p[1..], &t[1..]),
        }
    }

    #[test]
    fn matches_agree_with_backtracking_on_every_small_case() {
        let alphabet = ['a', 'b', '*', '?'];
        let mut pats = vec![String::new()];
        for _ in 0..4 {
            let mut next = pats.clone();
            for p in &pats {
                for c in alphabet {
                    next.push(format!("{p}{c}"));
                }
            }
            pats = next;
        }
        let texts = ["", "a", "b", "ab", "ba", "aab", "abab", "bbba"];
        for p in &pats {
            let pc: Vec<char> = p.chars().collect();
            for t in texts {
                let tc: Vec<char> = t.chars().collect();
                assert_eq!(glob_match(p, t), naive(&pc, &tc), "{p:?} on {t:?}");
            }
        }
    }

    #[test]
    fn classes_and_escapes() {
        assert!(glob_match("[a-c]x", "bx"));
        assert!(!glob_match("[!a-c]x", "bx"));
        assert!(glob_match("[^a]", "z"));
        assert!(glob_match("a[", "a["));
        assert!(glob_match("\\*", "*"));
        assert!(!glob_match("\\*", "x"));
        assert!(glob_match("*.sh", "run.sh"));
    }

    #[test]
    fn many_stars_are_linear() {
        let word = "a".repeat(54);
        let pat = format!("{}b", "*a".repeat(40));
        let start = std::time::Instant::now();
        assert!(!glob_match(&pat, &word));
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn removal_picks_the_shortest_or_longest() {
        let t = "a/b/c.tar.gz";
        assert_eq!(
            remove_pattern(t, "*/", false, false, Options::default()).unwrap(),
            "b/c.tar.gz"
        );
        assert_eq!(
            remove_pattern(t, "*/", false, true, Options::default()).unwrap(),
            "c.tar.gz"
        );
        assert_eq!(
            remove_pattern(t, ".*", true, false, Options::default()).unwrap(),
            "a/b/c.tar"
        );
        assert_eq!(
            remove_pattern(t, ".*", true, true, Options::default()).unwrap(),
            "a/b/c"
        );
        assert_eq!(
            remove_pattern(t, "x*", true, true, Options::default()).unwrap(),
            t
        );
        assert_eq!(
            remove_pattern("abc", "", false, false, Options::default()).unwrap(),
            "abc"
        );
    }

    #[test]
    fn replacement_is_leftmost_longest() {
        assert_eq!(
            replace("aXbXc", "X*", "-", Replace::First, Options::default()).unwrap(),
            "a-"
        );
        assert_eq!(
            replace("a.b.c", "?.", "-", Replace::All, Options::default()).unwrap(),
            "--c"
        );
        assert_eq!(
            replace("abcabc", "b?", "", Replace::All, Options::default()).unwrap(),
            "aa"
        );
        assert_eq!(
            replace("abc", "a*", "x", Replace::Prefix, Options::default()).unwrap(),
            "x"
        );
        assert_eq!(
            replace("abc", "c", "x", Replace::Suffix, Options::default()).unwrap(),
            "abx"
        );
        assert_eq!(
            replace("abc", "z", "x", Replace::Suffix, Options::default()).unwrap(),
            "abc"
        );
        assert_eq!(
            replace("abc", "", "x", Replace::All, Options::default()).unwrap(),
            "abc"
        );
    }

    #[test]
    fn brackets_read_as_bash_reads_them() {
        assert!(glob_match("[[:digit:]]", "5"));
        assert!(!glob_match("[[:digit:]]", "x"));
        assert!(glob_match("[[:alpha:]]-?", "a-b"));
        assert!(glob_match("[![:space:]]", "x"));
        assert!(glob_match("[]a]", "]"));
        assert!(glob_match("[!]a]", "b"));
        assert!(!glob_match("[!]a]", "]"));
        assert!(glob_match("[a\\]]", "]") || glob_match("[\\]]", "\\"));
        assert!(pattern_match("[[:foo:]]", "x", Options::default()).is_err());
        // Without extglob, `@(` is text.
        assert!(glob_match("@(a)", "@(a)"));
    }

    #[test]
    fn extglob_groups_are_regular_and_a_whole_negation_is_evaluated() {
        assert_eq!(ext("@(ab|c)", "ab"), Ok(true));
        assert_eq!(ext("@(ab|c)", "abc"), Ok(false));
        assert_eq!(ext("+(a)", "aaa"), Ok(true));
        assert_eq!(ext("*(a)", ""), Ok(true));
        assert_eq!(ext("x?(y)z", "xz"), Ok(true));
        assert_eq!(ext("x?(y)z", "xyyz"), Ok(false));
        assert_eq!(ext("*(ab|c)d", "abcabd"), Ok(true));
        assert_eq!(ext("+(*(a))", "aa"), Ok(true));
        assert_eq!(ext("!(x)", "abc"), Ok(true));
        assert_eq!(ext("!(x|y)", "y"), Ok(false));
        assert!(ext("a!(b)c", "axc").is_err());
        assert_eq!(ext("@(a", "@(a"), Ok(true));
        let nocase = Options {
            extglob: false,
            nocase: true,
        };
        assert_eq!(pattern_match("a*", "AB", nocase), Ok(true));
        assert_eq!(pattern_match("[a-c]", "B", nocase), Ok(true));
        assert_eq!(pattern_match("[!a]", "A", nocase), Ok(false));
    }

    #[test]
    fn hostile_patterns_stay_bounded() {
        let deep = format!("{}a{}", "@(".repeat(100_000), ")".repeat(100_000));
        assert!(ext(&deep, "a").is_err());
        // Unclosed groups and brackets are text, read in linear time.
        let start = std::time::Instant::now();
        let open = "@(".repeat(200_000);
        assert_eq!(ext(&open, "@(@("), Ok(false));
        let brackets = "[".repeat(200_000);
        assert!(!glob_match(&brackets, "[["));
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        let long = format!("[{}]", "a".repeat(2_000));
        assert!(pattern_match(&long, "a", Options::default()).is_err());
        let classes = "[[:".repeat(100_000) + "]";
        let start = std::time::Instant::now();
        let _ = pattern_match(&classes, "x", Options::default());
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn nested_extglob_groups_stay_linear() {
        let word = "a".repeat(2_000);
        let pat = format!("{}b", "+(*(a|aa))".repeat(20));
        let start = std::time::Instant::now();
        assert_eq!(ext(&pat, &word), Ok(false));
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
