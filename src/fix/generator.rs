//! Fixes of values a generator prints: the edit of the JavaScript string
//! literal (or template text) that printed the drifting value, found by
//! `extract::jsx::provenance`, spelled inside the literal's own quotes.
//! Safe when no other state prints that literal; otherwise unsafe, naming
//! the states, unless the run finds the same fix in each of them
//! ([`super::Plan`] checks that).

use std::ops::Range;
use std::path::Path;

use crate::extract::jsx::{self, provenance::Traced};
use crate::finding::{Applicability, Edit, Fix, Shared};
use crate::span::Span;

/// The fix of the value at `range` of the printed command `word` belongs
/// to (a span of a rendered view of the generators of `file`, named
/// `view`), made to print `new` (already spelled for the shell).
pub(super) fn fix(
    file: &Path,
    view: &str,
    word: &Span,
    range: Range<usize>,
    new: &str,
) -> Result<Fix, String> {
    let command = word.source().text();
    let old = command.get(range.clone()).unwrap_or_default().to_string();
    let docs_root = jsx::find_docs_root(file);
    let traced = jsx::provenance::trace(file, docs_root.as_deref(), view, command, range, new)
        .map_err(|e| {
            format!("the docs value is printed by the generator {} ({view}), which could not be explored again to find where it is written: {e}", file.display())
        })?
        .ok_or_else(|| {
            format!(
                "the docs value is printed by the generator {} ({view}), a state not found when the generator is explored again",
                file.display()
            )
        })?;
    let (at, quote, others, reshapes) = match traced {
        Traced::Literal {
            at,
            quote,
            others,
            reshapes,
        } => (at, quote, others, reshapes),
        Traced::Spliced { literal, expr, at } => {
            return Err(format!(
                "the value comes from `{expr}` at {}:{}, which splices the literal at {literal} into it: change it there by hand",
                at.file, at.pos.line
            ));
        }
        Traced::Untraced { why } => {
            return Err(format!(
                "the docs value is printed by the generator {} ({view}); no literal was found to print it, and exploring the generator with a literal changed failed: {why}",
                file.display()
            ));
        }
        Traced::Computed { files } => {
            let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            return Err(format!(
                "no string literal of the generator's files ({}) holds {old}, whole or in part: the value is computed",
                files.join(", ")
            ));
        }
    };
    let replacement = in_quotes(new, quote)?;
    let applicability = if reshapes {
        Applicability::Unsafe {
            why: format!("changing the literal at {at} changes which states the generator shows"),
        }
    } else if others.is_empty() {
        Applicability::Safe
    } else {
        Applicability::Unsafe {
            why: format!(
                "the literal at {at} is printed by {} other state{} too, which change{} with it: {}; a run that finds this same fix in each of them applies it as safe",
                others.len(),
                if others.len() == 1 { "" } else { "s" },
                if others.len() == 1 { "s" } else { "" },
                others.join("; ")
            ),
        }
    };
    let shared = (!others.is_empty() && !reshapes).then(|| Shared {
        own: word.file.to_string(),
        others: others
            .iter()
            .map(|o| format!("{} [{o}]", file.display()))
            .collect(),
    });
    Ok(Fix {
        title: format!("replace {old} with {replacement} in the generator's literal at {at}"),
        edits: vec![Edit {
            span: at,
            replacement,
        }],
        applicability,
        shared,
        change: None,
    })
}

/// `new` as it is written inside a JavaScript literal quoted `quote`: as
/// it is when nothing in it ends the literal or reads as an escape or a
/// substitution.
fn in_quotes(new: &str, quote: char) -> Result<String, String> {
    let breaks = new.contains(['\\', '\n', '\r', quote]) || (quote == '`' && new.contains("${"));
    if breaks {
        return Err(format!(
            "the recipe's value {new} would need escapes inside the generator's {quote}-quoted literal; not written automatically"
        ));
    }
    Ok(new.to_string())
}
