//! "Did you mean" suggestions: the known names closest to a misspelt word.

/// How similar (Jaro-Winkler) a name must be to a word to be suggested.
pub(crate) const THRESHOLD: f64 = 0.85;

/// The `names` at least `threshold` similar to `word` (Jaro-Winkler), best
/// first, equally similar ones in name order, each once.
pub(crate) fn near<'a>(
    word: &str,
    names: impl IntoIterator<Item = &'a str>,
    threshold: f64,
) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = names
        .into_iter()
        .map(|n| (strsim::jaro_winkler(word, n), n))
        .filter(|(score, _)| *score >= threshold)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by_key(|(_, n)| *n);
    scored.into_iter().map(|(_, n)| n).collect()
}

/// The one name [`near`] puts first, if any.
pub(crate) fn nearest<'a>(
    word: &str,
    names: impl IntoIterator<Item = &'a str>,
    threshold: f64,
) -> Option<&'a str> {
    near(word, names, threshold).into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::{THRESHOLD, near, nearest};

    #[test]
    fn closest_first_ties_by_name_each_once() {
        let names = [
            "--kv-cache-dtype",
            "--kv-cache-dtype",
            "--cache-dtype",
            "--tp-size",
        ];
        assert_eq!(
            near("--kv-cahce-dtype", names, THRESHOLD),
            vec!["--kv-cache-dtype", "--cache-dtype"]
        );
        assert_eq!(
            near("b", ["a", "c"], 0.0),
            vec!["a", "c"],
            "equal scores: by name"
        );
        assert_eq!(
            nearest("h100x", ["h100", "h200", "b200"], 0.8),
            Some("h100")
        );
        assert_eq!(nearest("zzz", ["h100"], THRESHOLD), None);
    }
}
