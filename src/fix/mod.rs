//! Fixes: where a drifting docs value is written, and the edit that makes it
//! say what the recipe runs. [`for_key`] builds a key finding's
//! [`Fix`](crate::finding::Fix) from the written spans its two sides keep;
//! `spell` finds the value inside its written word and spells the
//! replacement in the same quoting; `generator` traces a value a generator
//! prints to the JavaScript literal that printed it; `plan` gathers a run's fixes per file,
//! prints them as a unified diff or writes them.

mod generator;
pub mod plan;
pub mod prose;
mod spell;

use crate::finding::{Applicability, Change, Edit, Fix, KeyValues, Kind, SideValue};
use crate::policy::Class;
use crate::resolved::ValueSource;
use crate::span::Origin;

pub use plan::Plan;
use spell::{Syntax, spell, value_in};

/// Whether a value a generator prints is traced to the literal that printed
/// it (see `generator`): each trace explores the generator again once per
/// candidate literal, so a run turns it on only when it gathers fixes
/// (`check --diff`, `--fix`) or writes a format that carries them (JSON,
/// SARIF). Off, the finding's fix says how to get it traced.
static TRACE_GENERATORS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns tracing generator values to their literals on or off for the
/// process (see [`TRACE_GENERATORS`]).
pub fn set_trace_generators(on: bool) {
    TRACE_GENERATORS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// The fix of a key finding: for a MAJOR contradiction no waiver or inline
/// suppression covers, the edit of the docs value's written token into the
/// recipe's value (or why none can be made); `None` for every other finding.
pub fn for_key(k: &KeyValues) -> Option<Fix> {
    if k.kind != Kind::Contradicts || k.class != Class::Major || k.waiver.is_some() {
        return None;
    }
    let mut fix = docs_fix(&k.docs, &k.recipe).unwrap_or_else(Fix::not_fixable);
    if !fix.edits.is_empty() {
        fix.change = change(k);
    }
    Some(fix)
}

/// The value a key's fix changes, and the docs file that shows it.
fn change(k: &KeyValues) -> Option<Change> {
    let old = written_value(&k.docs).ok()?.value;
    let new = written_value(&k.recipe).ok()?.value;
    let file = match k.docs.spans.last()?.origin() {
        Origin::File(p) | Origin::Rendered { file: p, .. } => p.clone(),
        _ => return None,
    };
    Some(Change {
        key: k.key.clone(),
        old,
        new,
        file,
    })
}

/// The edit of the docs side's written value into the recipe side's, or why
/// there is none.
fn docs_fix(docs: &SideValue, recipe: &SideValue) -> Result<Fix, String> {
    let new = written_value(recipe).map_err(|why| format!("the recipe side {why}"))?;
    let old = written_value(docs).map_err(|why| format!("the docs side {why}"))?;
    if docs.source != recipe.source {
        return Err(format!(
            "the docs side sets it {} and the recipe side {}: the value cannot be copied across",
            source_words(&docs.source),
            source_words(&recipe.source)
        ));
    }
    if old.value.starts_with(['{', '[']) {
        return Err(format!(
            "the docs write {} as a JSON value whose field differs: editing inside JSON is not built yet",
            old.value
        ));
    }
    let after_eq = old.after_eq;
    let word = docs
        .spans
        .last()
        .filter(|_| docs.spans.len() == old.words || after_eq)
        .ok_or_else(|| "the docs value has no written place of its own".to_string())?;
    let path = match word.origin() {
        Origin::File(p) => p,
        Origin::Rendered { file, view } if Syntax::of(file) == Syntax::Yaml => {
            return Err(format!(
                "the docs value is composed from the vLLM recipe {} ({view}); tracing a composed word to its YAML value is not built yet",
                file.display()
            ));
        }
        Origin::Rendered { file, view } => {
            let raw = word.text();
            let (range, quote) = value_in(raw, after_eq, &old.value).ok_or_else(|| {
                format!(
                    "the docs value is printed as {raw} at {word}, not as one plain or quoted word"
                )
            })?;
            let replacement = spell(&new.value, quote, Syntax::Shell)?;
            if !TRACE_GENERATORS.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(format!(
                    "the docs value is printed by the generator {} ({view}); not traced to the literal that printed it in this run: `check --diff`, `--fix`, `--format json` or `--format sarif` trace it (each trace explores the generator again)",
                    file.display()
                ));
            }
            let at = word.start + range.start..word.start + range.end;
            let mut fix = generator::fix(file, view, word, at, &replacement)?;
            if let (Some(rule), Applicability::Safe) = (recipe.rules.first(), &fix.applicability) {
                fix.applicability = Applicability::Unsafe {
                    why: recipe_rule_why(&rule.id),
                };
            }
            return Ok(fix);
        }
        Origin::Url(u) => return Err(format!("the docs value is written in a remote file ({u})")),
        Origin::Inline(_) => return Err("the docs value is not written in a file".to_string()),
    };
    let raw = word.text();
    if raw.contains(['$', '`']) {
        return Err(format!(
            "the docs value comes from the expansion {raw} at {word}: change it where that is set"
        ));
    }
    let (range, quote) = value_in(raw, after_eq, &old.value).ok_or_else(|| {
        format!("the docs value is written as {raw} at {word}, not as one plain or quoted word")
    })?;
    let syntax = Syntax::of(path);
    let replacement = spell(&new.value, quote, syntax)?;
    if raw[range.clone()] == replacement {
        let rule = docs.rules.first().map_or(String::new(), |r| {
            format!(
                " (rule {}, from the other settings of the docs command)",
                r.id
            )
        });
        return Err(format!(
            "the docs already write the recipe's value {replacement} at {word}; it resolves differently{rule}"
        ));
    }
    let span = word.of_range(word.start + range.start, word.start + range.end);
    let applicability = match (syntax, recipe.rules.first()) {
        (Syntax::Yaml, _) => Applicability::Unsafe {
            why: "a vLLM recipe YAML value can reach other selections of the recipe (variants, hardware overrides, strategies), which are not traced to it yet".to_string(),
        },
        _ if !after_eq && !follows_option(docs, word) => Applicability::Unsafe {
            why: format!(
                "the value is written at {word}, away from its option (a variable's assignment the command reads): other commands or options may read it too"
            ),
        },
        (_, Some(rule)) => Applicability::Unsafe {
            why: recipe_rule_why(&rule.id),
        },
        (Syntax::Shell, None) => Applicability::Safe,
    };
    Ok(Fix {
        title: format!("replace {} with {replacement} at {span}", &raw[range]),
        edits: vec![Edit { span, replacement }],
        applicability,
        shared: None,
        change: None,
    })
}

/// Why a fix to a value a recipe-side rule changed is unsafe.
fn recipe_rule_why(rule: &str) -> String {
    format!(
        "the recipe's value is changed by rule {rule} on its side: written on the docs side it resolves alike only where that rule applies too"
    )
}

/// Whether the value word is written right after its option in the
/// command (only blanks and line continuations between them), rather than
/// somewhere the command reads it from.
fn follows_option(side: &SideValue, value: &crate::span::Span) -> bool {
    let Some(option) = side.spans.first() else {
        return false;
    };
    let text = value.source().text();
    if option.start >= value.start || option.source() != value.source() {
        return false;
    }
    let gap = text.get(option.end..value.start).unwrap_or("x");
    gap.replace("\\\r\n", " ")
        .replace("\\\n", " ")
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// A side's written value word: the word after the option (`--flag value`)
/// or after the `=` of `--flag=value` / `NAME=value`.
struct Written {
    /// The value, quotes removed.
    value: String,
    /// Whether it is written after an `=` in the option's own word.
    after_eq: bool,
    /// How many words were written (option and value, or one).
    words: usize,
}

/// The value a side writes itself, or what keeps it from being one value.
fn written_value(side: &SideValue) -> Result<Written, String> {
    if !matches!(side.source, ValueSource::Cli | ValueSource::Env) {
        return Err(format!(
            "does not write the value itself (it comes from {})",
            source_words(&side.source)
        ));
    }
    let written = side.written.as_deref().unwrap_or("");
    let words = shell_words::split(written)
        .map_err(|_| format!("writes {written}, which is not a list of words"))?;
    match words.as_slice() {
        [_, value] => Ok(Written {
            value: value.clone(),
            after_eq: false,
            words: 2,
        }),
        [one] => match one.split_once('=') {
            Some((_, value)) => Ok(Written {
                value: value.to_string(),
                after_eq: true,
                words: 1,
            }),
            None => Err(format!("writes {one} with no value of its own")),
        },
        _ => Err(format!(
            "writes {written}: a value of several words is not fixed automatically"
        )),
    }
}

/// How a value source reads in a sentence.
fn source_words(s: &ValueSource) -> &'static str {
    match s {
        ValueSource::Cli => "on the command line",
        ValueSource::Env => "with an environment variable",
        ValueSource::Default => "the release's default",
        ValueSource::Rule => "a resolver rule",
        ValueSource::Context => "the launch's context",
        ValueSource::Unknown => "something the text does not show",
    }
}

#[cfg(test)]
mod tests;
