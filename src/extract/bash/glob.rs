//! Shell patterns (`*`, `?`, `[...]`, `\x`, literal text) matched in linear
//! time: a pattern compiles to a list of atoms, and matching simulates all of
//! its positions at once over the text (a Thompson NFA), so the work is at
//! most text length times pattern length whatever the pattern, instead of the
//! exponential backtracking of a naive matcher on many `*`. The work is
//! counted against the matching budget.

use super::budget;

/// One element of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Atom {
    /// One given character.
    Lit(char),
    /// `?`: any one character.
    Any,
    /// `[...]`: one character of a set (ranges inclusive), or not of it.
    Class { neg: bool, set: Vec<(char, char)> },
    /// `*`: any run of characters.
    Star,
}

impl Atom {
    fn accepts(&self, c: char) -> bool {
        match self {
            Atom::Lit(l) => *l == c,
            Atom::Any => true,
            Atom::Class { neg, set } => set.iter().any(|&(a, b)| a <= c && c <= b) != *neg,
            Atom::Star => true,
        }
    }
}

/// A compiled shell pattern.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    atoms: Vec<Atom>,
}

impl Glob {
    /// Compiles a pattern. A `[` without a closing `]` is a literal `[`;
    /// `[!...]` and `[^...]` negate; consecutive `*` are one.
    pub(crate) fn new(p: &str) -> Glob {
        let p: Vec<char> = p.chars().collect();
        let mut atoms = Vec::new();
        let mut i = 0;
        while i < p.len() {
            match p[i] {
                '*' => {
                    if atoms.last() != Some(&Atom::Star) {
                        atoms.push(Atom::Star);
                    }
                    i += 1;
                }
                '?' => {
                    atoms.push(Atom::Any);
                    i += 1;
                }
                '[' => match p[i + 1..].iter().position(|&c| c == ']') {
                    None => {
                        atoms.push(Atom::Lit('['));
                        i += 1;
                    }
                    Some(len) => {
                        let mut set = &p[i + 1..i + 1 + len];
                        let neg = matches!(set.first(), Some('!' | '^'));
                        if neg {
                            set = &set[1..];
                        }
                        let mut ranges = Vec::new();
                        let mut j = 0;
                        while j < set.len() {
                            if j + 2 < set.len() && set[j + 1] == '-' {
                                ranges.push((set[j], set[j + 2]));
                                j += 3;
                            } else {
                                ranges.push((set[j], set[j]));
                                j += 1;
                            }
                        }
                        atoms.push(Atom::Class { neg, set: ranges });
                        i += len + 2;
                    }
                },
                '\\' if i + 1 < p.len() => {
                    atoms.push(Atom::Lit(p[i + 1]));
                    i += 2;
                }
                c => {
                    atoms.push(Atom::Lit(c));
                    i += 1;
                }
            }
        }
        Glob { atoms }
    }

    /// The same pattern read backwards (for suffixes).
    fn reversed(&self) -> Glob {
        Glob {
            atoms: self.atoms.iter().rev().cloned().collect(),
        }
    }

    /// Charges the work of one pass over `n` characters.
    fn charge(&self, n: usize) -> Result<(), String> {
        budget::work((n + 1).saturating_mul(self.atoms.len() + 1))
    }

    /// Adds the positions reachable without reading (past a `*`).
    fn close<T: Copy + Ord>(&self, set: &mut [Option<T>]) {
        for i in 0..self.atoms.len() {
            if let (Some(v), Atom::Star) = (set[i], &self.atoms[i]) {
                set[i + 1] = Some(set[i + 1].map_or(v, |w| w.min(v)));
            }
        }
    }

    /// The positions after reading `c` from `set`.
    fn advance<T: Copy + Ord>(&self, set: &[Option<T>], c: char) -> Vec<Option<T>> {
        let mut next: Vec<Option<T>> = vec![None; set.len()];
        for (i, a) in self.atoms.iter().enumerate() {
            let Some(v) = set[i] else { continue };
            if !a.accepts(c) {
                continue;
            }
            let to = if *a == Atom::Star { i } else { i + 1 };
            next[to] = Some(next[to].map_or(v, |w: T| w.min(v)));
        }
        self.close(&mut next);
        next
    }

    /// The lengths (in characters) of the prefixes of `t` the pattern matches.
    fn prefix_lengths(&self, t: &[char]) -> Result<Vec<usize>, String> {
        self.charge(t.len())?;
        let k = self.atoms.len();
        let mut set: Vec<Option<()>> = vec![None; k + 1];
        set[0] = Some(());
        self.close(&mut set);
        let mut out = Vec::new();
        for (i, &c) in t.iter().enumerate() {
            if set[k].is_some() {
                out.push(i);
            }
            set = self.advance(&set, c);
            if set.iter().all(Option::is_none) {
                return Ok(out);
            }
        }
        if set[k].is_some() {
            out.push(t.len());
        }
        Ok(out)
    }

    /// Whether the pattern matches all of `t`.
    pub(crate) fn matches(&self, t: &str) -> Result<bool, String> {
        let t: Vec<char> = t.chars().collect();
        Ok(self.prefix_lengths(&t)?.last() == Some(&t.len()))
    }

    /// The leftmost match in `t[from..]`, longest at that start, as a
    /// character range.
    fn leftmost_longest(&self, t: &[char], from: usize) -> Result<Option<(usize, usize)>, String> {
        self.charge(t.len() - from)?;
        let k = self.atoms.len();
        let mut set: Vec<Option<usize>> = vec![None; k + 1];
        let mut best: Option<(usize, usize)> = None;
        for pos in from..=t.len() {
            if best.is_none() && set[0].is_none() {
                set[0] = Some(pos);
                self.close(&mut set);
            }
            if let Some(s) = set[k]
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

/// Shell pattern matching of all of `t` (`case`, `[[ == ]]`). When the
/// matching budget is exceeded the answer is `false` and the budget stays
/// tripped, so the evaluation ends with that error.
pub fn glob_match(p: &str, t: &str) -> bool {
    Glob::new(p).matches(t).unwrap_or(false)
}

/// `${V#p}`, `${V##p}`, `${V%p}`, `${V%%p}`: `t` without its shortest or
/// longest prefix or suffix matching `p`.
pub(crate) fn remove_pattern(
    t: &str,
    p: &str,
    suffix: bool,
    largest: bool,
) -> Result<String, String> {
    let glob = Glob::new(p);
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
pub(crate) fn replace(t: &str, p: &str, r: &str, kind: Replace) -> Result<String, String> {
    let glob = Glob::new(p);
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
        assert_eq!(remove_pattern(t, "*/", false, false).unwrap(), "b/c.tar.gz");
        assert_eq!(remove_pattern(t, "*/", false, true).unwrap(), "c.tar.gz");
        assert_eq!(remove_pattern(t, ".*", true, false).unwrap(), "a/b/c.tar");
        assert_eq!(remove_pattern(t, ".*", true, true).unwrap(), "a/b/c");
        assert_eq!(remove_pattern(t, "x*", true, true).unwrap(), t);
        assert_eq!(remove_pattern("abc", "", false, false).unwrap(), "abc");
    }

    #[test]
    fn replacement_is_leftmost_longest() {
        assert_eq!(replace("aXbXc", "X*", "-", Replace::First).unwrap(), "a-");
        assert_eq!(replace("a.b.c", "?.", "-", Replace::All).unwrap(), "--c");
        assert_eq!(replace("abcabc", "b?", "", Replace::All).unwrap(), "aa");
        assert_eq!(replace("abc", "a*", "x", Replace::Prefix).unwrap(), "x");
        assert_eq!(replace("abc", "c", "x", Replace::Suffix).unwrap(), "abx");
        assert_eq!(replace("abc", "z", "x", Replace::Suffix).unwrap(), "abc");
        assert_eq!(replace("abc", "", "x", Replace::All).unwrap(), "abc");
    }
}
