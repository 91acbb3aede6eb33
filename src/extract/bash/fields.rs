//! What bash does to the text of unquoted expansions and to positional
//! parameters: splitting with `$IFS`, pathname patterns (never matched
//! against the file system: unknown), and `$N` / `$#` over the positional
//! parameters.

use super::State;
use super::expand::Val;

/// The kind of separator before a piece of split text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sep {
    /// The first piece: it continues the current field.
    None,
    /// IFS white space (space, tab, newline in `$IFS`): ends a non-empty field.
    Blank,
    /// Another `$IFS` character (with the white space around it): always ends
    /// a field, even an empty one.
    Hard,
}

/// Splits unquoted expanded text on `ifs` as bash does: runs of IFS white
/// space separate and are trimmed, each other IFS character ends a field.
pub(super) fn ifs_split<'t>(text: &'t str, ifs: &str) -> Vec<(&'t str, Sep)> {
    if ifs.is_empty() {
        return vec![(text, Sep::None)];
    }
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n') && ifs.contains(c);
    let hard = |c: char| !matches!(c, ' ' | '\t' | '\n') && ifs.contains(c);
    let mut out = Vec::new();
    let mut sep = Sep::None;
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !blank(c) && !hard(c) {
            continue;
        }
        out.push((&text[start..i], sep));
        // One separator: white space, at most one other IFS character, white space.
        let mut kind = if hard(c) { Sep::Hard } else { Sep::Blank };
        let mut end = i + c.len_utf8();
        while let Some(&(j, d)) = chars.peek() {
            if blank(d) || (hard(d) && kind == Sep::Blank) {
                if hard(d) {
                    kind = Sep::Hard;
                }
                end = j + d.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        sep = kind;
        start = end;
    }
    out.push((&text[start..], sep));
    out
}

/// Whether unquoted text is a pathname pattern bash would match against files.
pub(super) fn is_pattern(t: &str) -> bool {
    t.contains(['*', '?']) || t.find('[').is_some_and(|i| t[i + 1..].contains(']'))
}

/// Whether `reason` is [`glob_reason`]'s (the word is unknown only because
/// it is a pathname pattern).
pub(super) fn is_glob_reason(reason: &str) -> bool {
    reason.ends_with(GLOB_REASON_END)
}

/// How [`glob_reason`] ends.
const GLOB_REASON_END: &str = " is an unquoted pathname pattern: bash replaces it with the names of matching files, and files are never read (quote it, or `set -f`)";

/// Why a word with an unquoted pattern is unknown.
pub(super) fn glob_reason(t: &str) -> String {
    // A long word is shown by its start only.
    let shown: String = t.chars().take(60).collect();
    let more = if shown.len() < t.len() { "..." } else { "" };
    format!("{shown:?}{more}{GLOB_REASON_END}")
}

/// The reason the positional parameters from index `k` on are not knowable.
fn unknown_from(st: &State) -> Option<(usize, &str)> {
    st.positional.iter().enumerate().find_map(|(k, v)| match v {
        Val::Unknown(r) => Some((k, r.as_str())),
        Val::Known(_) => None,
    })
}

/// `$N` (N >= 1): `None` when unset. After an unknown element (which may be
/// any number of words) every later one is unknown.
pub(super) fn positional(st: &State, n: usize) -> Option<Vec<Val>> {
    match unknown_from(st) {
        Some((k, r)) if n > k => Some(vec![Val::Unknown(format!(
            "${n} is not knowable: the positional parameters include {r}"
        ))]),
        _ => st.positional.get(n - 1).cloned().map(|v| vec![v]),
    }
}

/// `$#`.
pub(super) fn positional_count(st: &State) -> Val {
    match unknown_from(st) {
        Some((_, r)) => Val::Unknown(format!(
            "$# is not knowable: the positional parameters include {r}"
        )),
        None => Val::Known(st.positional.len().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(t: &str, ifs: &str) -> Vec<(String, Sep)> {
        ifs_split(t, ifs)
            .into_iter()
            .map(|(p, s)| (p.to_string(), s))
            .collect()
    }

    #[test]
    fn ifs_separators() {
        use Sep::*;
        assert_eq!(
            split("a  b", " \t\n"),
            [("a".into(), None), ("b".into(), Blank)]
        );
        assert_eq!(
            split("a,,b", ","),
            [("a".into(), None), ("".into(), Hard), ("b".into(), Hard)]
        );
        assert_eq!(
            split(" a , b ", ", "),
            [
                ("".into(), None),
                ("a".into(), Blank),
                ("b".into(), Hard),
                ("".into(), Blank)
            ]
        );
        assert_eq!(split("a b", ""), [("a b".into(), None)]);
    }

    #[test]
    fn patterns() {
        assert!(is_pattern("*.sh") && is_pattern("a?") && is_pattern("[ab]"));
        assert!(!is_pattern("[") && !is_pattern("]") && !is_pattern("a=b"));
    }
}
