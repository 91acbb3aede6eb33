//! Commands the evaluator records rather than runs (`recorded.yaml`): their
//! words, where they are and the unknown condition they run under, for
//! readers that need what a script names (the repository and ref a runner
//! script clones). A recorded command is taken to succeed.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::launch::Token;
use crate::span::Span;

/// One row of `recorded.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    name: String,
    words: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    recorded: Vec<Row>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        serde_saphyr::from_str(include_str!("recorded.yaml"))
            .expect("bundled recorded.yaml is valid")
    })
}

/// A command the script runs that the evaluator recorded.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The row's name (`git clone`).
    pub name: &'static str,
    /// The words after the matched ones, as the command gets them (a word
    /// that is not knowable has an unknown provenance, with the reason).
    pub args: Vec<Token>,
    /// Where the command is written.
    pub span: Span,
    /// The condition that is not knowable it runs under, if any: whether it
    /// runs at all is then not known.
    pub condition: Option<String>,
}

/// The row `words` start with: its name and how many words it matched.
pub(super) fn match_row(words: &[&str]) -> Option<(&'static str, usize)> {
    let base = words.first()?.rsplit('/').next().unwrap_or("");
    table().recorded.iter().find_map(|r| {
        let n = r.words.len();
        (words.len() >= n && base == r.words[0] && words[1..n] == r.words[1..])
            .then_some((r.name.as_str(), n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_match_their_words_exactly() {
        assert_eq!(match_row(&["git", "clone", "URL"]), Some(("git clone", 2)));
        assert_eq!(
            match_row(&["/usr/bin/git", "checkout", "v1"]),
            Some(("git checkout", 2))
        );
        assert_eq!(match_row(&["git", "-C", "d", "clone"]), None);
        assert_eq!(match_row(&["git"]), None);
        assert_eq!(match_row(&["gitx", "clone"]), None);
    }
}
