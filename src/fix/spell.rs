//! A value inside its written word, and a replacement spelled in the same
//! quoting: `direct` stays bare, `'direct'` keeps its single quotes, the
//! value of `--flag=value` is what follows the `=`.

use std::ops::Range;
use std::path::Path;

/// How a written value is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// No quotes.
    Bare,
    /// `'value'`.
    Single,
    /// `"value"`.
    Double,
}

/// The language a value is written in, which decides how a bare value that
/// needs quotes is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// A shell word (a Markdown block, a command file, a script).
    Shell,
    /// A YAML scalar (a vLLM recipe).
    Yaml,
}

impl Syntax {
    /// The syntax of a file, by its extension.
    pub fn of(path: &Path) -> Syntax {
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => Syntax::Yaml,
            _ => Syntax::Shell,
        }
    }
}

/// The byte range of `value` inside the written word `raw`, and its quoting:
/// the whole word (`direct`, `'direct'`, `"direct"`), or with `after_eq` what
/// follows the first `=` (`--flag=direct`, `--flag='direct'`,
/// `"--flag=direct"`). `None` when the value is not written there as it
/// reads (escapes, pieces of several quotings).
pub fn value_in(raw: &str, after_eq: bool, value: &str) -> Option<(Range<usize>, Quote)> {
    let (mut lo, mut hi, mut quote) = (0, raw.len(), Quote::Bare);
    if let Some(q) = enclosing(raw) {
        (lo, hi, quote) = (1, raw.len() - 1, q);
    }
    if after_eq {
        lo += raw[lo..hi].find('=')? + 1;
        if quote == Quote::Bare
            && let Some(q) = enclosing(&raw[lo..hi])
        {
            (lo, hi, quote) = (lo + 1, hi - 1, q);
        }
    }
    (raw[lo..hi] == *value && (quote != Quote::Bare || !value.contains(['\'', '"', '\\'])))
        .then_some((lo..hi, quote))
}

/// The quotes that enclose the whole of `s`, when nothing inside ends them.
fn enclosing(s: &str) -> Option<Quote> {
    let q = match (s.chars().next(), s.chars().last()) {
        (Some('\''), Some('\'')) => Quote::Single,
        (Some('"'), Some('"')) => Quote::Double,
        _ => return None,
    };
    let inner = s.get(1..s.len().checked_sub(1)?)?;
    let ends = match q {
        Quote::Single => inner.contains('\''),
        _ => inner.contains(['"', '\\']),
    };
    (s.len() >= 2 && !ends).then_some(q)
}

/// `new` spelled to stand where a value quoted `quote` stood, in `syntax`;
/// an error when it cannot be written inside those quotes.
pub fn spell(new: &str, quote: Quote, syntax: Syntax) -> Result<String, String> {
    let fits = match quote {
        Quote::Single => !new.contains('\''),
        Quote::Double => !new.contains(['"', '\\', '$', '`']),
        Quote::Bare => true,
    };
    if !fits {
        return Err(format!(
            "the recipe's value {new} cannot be written inside the docs value's quotes"
        ));
    }
    if quote != Quote::Bare || is_plain(new, syntax) {
        return Ok(new.to_string());
    }
    match syntax {
        Syntax::Shell => Ok(shell_words::quote(new).into_owned()),
        // A YAML file's word may be a scalar or a shell word of a guide's
        // block: the two quote differently, so neither is guessed.
        Syntax::Yaml => Err(format!(
            "the recipe's value {new} needs quotes, which differ between a YAML scalar and a guide's shell block; not written automatically"
        )),
    }
}

/// Whether a value reads as itself unquoted.
fn is_plain(s: &str, syntax: Syntax) -> bool {
    let extra: &[char] = match syntax {
        Syntax::Shell => &['-', '_', '.', '/', ':', '+', ',', '@', '%', '='],
        Syntax::Yaml => &['-', '_', '.', '/', '+'],
    };
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}
