//! Where a value a generator prints is written: the string literal (or
//! template text) of the generator's own files that printed it.
//!
//! A printed command is built by running the generator, so the text that
//! reached it is found by cause, not by likeness: each literal of the
//! generator's module files that holds the value as a word is changed to the
//! new value (in an [`Overlay`], nothing is written) and the generator is
//! explored again. The literal that printed the value is the one whose change
//! turns the state's command into the same command with only that value
//! replaced; every other state whose commands change with it prints it too.
//! A value no literal holds whole (spliced by `+` or a template from
//! several pieces, or computed) is traced to the expression that splices a
//! literal into it, when one does.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BinaryExpression, BinaryOperator, CallExpression, StringLiteral, TemplateLiteral,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::SourceType;

use super::page::Overlay;
use super::{Bundle, Exploration, Explore, Limits, view_label};
use crate::error::Error;
use crate::span::{Source, Span};

/// The explorations of edited generators tried so far in this run, by
/// (rendered file, edited file, byte range, text put there): findings of
/// several states that print one literal try it once.
static TRIED: std::sync::LazyLock<std::sync::Mutex<TriedMap>> =
    std::sync::LazyLock::new(Default::default);

type TriedMap =
    std::collections::HashMap<(PathBuf, PathBuf, usize, usize, String), Arc<Vec<(String, String)>>>;

/// The most literals tried for one value: each try explores the generator
/// again, so the cost is bounded by this many explorations.
pub const MAX_TRIES: usize = 12;

/// One string literal or template text of a module file.
#[derive(Debug, Clone)]
pub struct Literal {
    /// Its file.
    pub source: Arc<Source>,
    /// The byte range of its text in the file, quotes excluded.
    pub range: Range<usize>,
    /// The quote it is written in: `'`, `"` or `` ` ``.
    pub quote: char,
    /// Its value, escapes decoded.
    pub value: String,
    /// The expression that splices it with other values (a `+`, a template
    /// with substitutions, a call), when it is inside one: its byte range.
    pub splice: Option<Range<usize>>,
}

impl Literal {
    /// Whether its text is written as it reads (no escapes), so that a byte
    /// of the value is a byte of the file.
    fn plain(&self) -> bool {
        self.source.text.get(self.range.clone()) == Some(self.value.as_str())
    }
}

/// Every string literal and template text of a JavaScript (JSX) module.
pub fn literals(source: &Arc<Source>) -> Vec<Literal> {
    let allocator = Allocator::default();
    let parsed = Parser::new(
        &allocator,
        &source.text,
        SourceType::jsx().with_module(true),
    )
    .parse();
    if parsed.panicked {
        return Vec::new();
    }
    let mut found = Found {
        source: source.clone(),
        splices: Vec::new(),
        out: Vec::new(),
    };
    found.visit_program(&parsed.program);
    found.out
}

/// The visitor [`literals`] uses: the splicing expressions around the
/// current node, innermost last.
struct Found {
    source: Arc<Source>,
    splices: Vec<Range<usize>>,
    out: Vec<Literal>,
}

impl Found {
    fn inside(&mut self, span: oxc_span::Span, f: impl FnOnce(&mut Self)) {
        self.splices.push(span.start as usize..span.end as usize);
        f(self);
        self.splices.pop();
    }
}

impl<'a> Visit<'a> for Found {
    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        if it.operator == BinaryOperator::Addition {
            self.inside(it.span, |me| walk::walk_binary_expression(me, it));
        } else {
            walk::walk_binary_expression(self, it);
        }
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.inside(it.span, |me| walk::walk_call_expression(me, it));
    }

    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        let (s, e) = (it.span.start as usize, it.span.end as usize);
        let quote = self.source.text[s..].chars().next().unwrap_or('"');
        if e > s + 1 && matches!(quote, '\'' | '"') {
            self.out.push(Literal {
                source: self.source.clone(),
                range: s + 1..e - 1,
                quote,
                value: it.value.to_string(),
                splice: self.splices.last().cloned(),
            });
        }
    }

    fn visit_template_literal(&mut self, it: &TemplateLiteral<'a>) {
        let spliced = !it.expressions.is_empty();
        if spliced {
            self.splices
                .push(it.span.start as usize..it.span.end as usize);
        }
        for q in &it.quasis {
            self.out.push(Literal {
                source: self.source.clone(),
                range: q.span.start as usize..q.span.end as usize,
                quote: '`',
                value: q
                    .value
                    .cooked
                    .as_ref()
                    .map_or_else(|| q.value.raw.to_string(), |c| c.to_string()),
                splice: self.splices.last().cloned(),
            });
        }
        for e in &it.expressions {
            self.visit_expression(e);
        }
        if spliced {
            self.splices.pop();
        }
    }
}

/// Where a printed value came from.
#[derive(Debug, Clone)]
pub enum Traced {
    /// One literal printed it whole.
    Literal {
        /// The value's bytes inside the literal, in its file.
        at: Span,
        /// The literal's quote (`'`, `"` or `` ` ``).
        quote: char,
        /// The other states whose commands change with it (their labels,
        /// as [`view_label`] names them), in discovery order.
        others: Vec<String>,
        /// Whether changing it changes which states the generator shows.
        reshapes: bool,
    },
    /// A literal is spliced into the value by an expression.
    Spliced {
        /// The literal.
        literal: Span,
        /// The splicing expression's text, on one line, shortened.
        expr: String,
        /// Where the expression starts.
        at: Span,
    },
    /// Exploring an edited generator failed (a budget, an edit that breaks
    /// it), so where the value comes from is not known.
    Untraced {
        /// The first failure.
        why: String,
    },
    /// No literal of the generator's files holds it, whole or in part.
    Computed {
        /// The module files searched.
        files: Vec<PathBuf>,
    },
}

/// The printed value at `range` of the command `command` of the state
/// `state` (a [`view_label`]) of the generators of `file`: the literal that
/// printed it, found by changing each literal that holds `old` as a word to
/// `new` and exploring again (at most [`MAX_TRIES`] tries). `Ok(None)` when
/// the state is not among those explored.
pub fn trace(
    file: &Path,
    docs_root: Option<&Path>,
    state: &str,
    command: &str,
    range: Range<usize>,
    new: &str,
) -> Result<Option<Traced>, Error> {
    let limits = Limits::default();
    let opts = Explore {
        cut: true,
        flags: super::Flags::CHECK,
        ..Explore::default()
    };
    let (before, modules) = explored(file, docs_root, limits, opts)?;
    let before = &*before;
    let failed: std::cell::RefCell<Option<String>> = Default::default();
    if !before
        .iter()
        .any(|(label, text)| label == state && text == command)
    {
        return Ok(None);
    }
    let Some(old) = command.get(range.clone()) else {
        return Ok(None);
    };
    let expected = format!("{}{new}{}", &command[..range.start], &command[range.end..]);
    let all: Vec<Literal> = modules.iter().flat_map(literals).collect();
    let explore_with = |lit: &Literal, at: Range<usize>, with: &str| {
        let path = match &lit.source.origin {
            crate::span::Origin::File(p) => p.clone(),
            _ => return None,
        };
        let key = (
            file.to_path_buf(),
            path.clone(),
            at.start,
            at.end,
            with.to_string(),
        );
        if let Some(found) = TRIED.lock().ok()?.get(&key) {
            return Some(found.clone());
        }
        let mut text = lit.source.text.to_string();
        text.replace_range(at, with);
        let edited = Arc::new(Source::new(lit.source.origin.clone(), text));
        let overlay = Overlay(vec![(path, edited)]);
        let found = match super::explore_file_overlaid(file, docs_root, &[], limits, opts, overlay)
        {
            Ok((b, each)) => {
                if let Some(Err(e)) = each.iter().find(|e| e.is_err()) {
                    failed.borrow_mut().get_or_insert_with(|| e.to_string());
                }
                Arc::new(states(&b, &each))
            }
            Err(e) => {
                failed.borrow_mut().get_or_insert_with(|| e.to_string());
                return None;
            }
        };
        TRIED.lock().ok()?.insert(key, found.clone());
        Some(found)
    };
    // Literals that hold the value as a word, written as it reads.
    let whole = all.iter().filter(|l| l.plain()).flat_map(|l| {
        words_at(&l.value, old).map(move |k| (l, l.range.start + k..l.range.start + k + old.len()))
    });
    for (lit, at) in whole.take(MAX_TRIES) {
        let Some(after) = explore_with(lit, at.clone(), new) else {
            continue;
        };
        if !after
            .iter()
            .any(|(label, text)| label == state && *text == expected)
        {
            continue;
        }
        let labels = |v: &[(String, String)]| v.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>();
        let reshapes = labels(before) != labels(&after);
        let mut others: Vec<String> = Vec::new();
        for ((label, was), (_, now)) in before.iter().zip(after.iter()) {
            if label != state && was != now && !others.contains(label) {
                others.push(label.clone());
            }
        }
        return Ok(Some(Traced::Literal {
            at: lit.source.span(at.start, at.end),
            quote: lit.quote,
            others,
            reshapes,
        }));
    }
    // Literals that hold a piece of the value, inside a splicing expression:
    // the first whose change changes the value is named with its expression.
    let pieces = all.iter().filter(|l| {
        l.plain() && l.splice.is_some() && l.value.len() >= 2 && old.contains(l.value.trim())
    });
    for lit in pieces.take(MAX_TRIES) {
        let mark = format!("{}\u{2063}", lit.value);
        let Some(after) = explore_with(lit, lit.range.clone(), &mark) else {
            continue;
        };
        let changed = after.iter().any(|(label, text)| {
            label == state
                && text != command
                && text.get(..range.start) == command.get(..range.start)
        });
        if changed && let Some(splice) = &lit.splice {
            let text = &lit.source.text[splice.clone()];
            return Ok(Some(Traced::Spliced {
                literal: lit.source.span(lit.range.start, lit.range.end),
                expr: shorten(text),
                at: lit.source.span(splice.start, splice.start),
            }));
        }
    }
    if let Some(why) = failed.into_inner() {
        return Ok(Some(Traced::Untraced { why }));
    }
    Ok(Some(Traced::Computed {
        files: modules
            .iter()
            .filter_map(|s| match &s.origin {
                crate::span::Origin::File(p) => Some(p.clone()),
                _ => None,
            })
            .collect(),
    }))
}

/// The explorations of unedited generators done so far in this run (their
/// states and script modules), by (file, docs root): the findings of many
/// states of one generator explore it once.
static EXPLORED: std::sync::LazyLock<std::sync::Mutex<ExploredMap>> =
    std::sync::LazyLock::new(Default::default);

type ExploredMap = std::collections::HashMap<(PathBuf, Option<PathBuf>), Explored>;

/// A generator's states (label, command text) and its script modules.
type Explored = (Arc<Vec<(String, String)>>, Arc<Vec<Arc<Source>>>);

/// Forgets the explorations kept so far (after the run wrote fixes: the
/// files they read have changed).
pub fn forget() {
    if let Ok(mut m) = EXPLORED.lock() {
        m.clear();
    }
    if let Ok(mut m) = TRIED.lock() {
        m.clear();
    }
}

/// Every state of the generators of `file` as explored, and the script
/// modules of its bundle (memoized in [`EXPLORED`]).
fn explored(
    file: &Path,
    docs_root: Option<&Path>,
    limits: Limits,
    opts: Explore,
) -> Result<Explored, Error> {
    let key = (file.to_path_buf(), docs_root.map(Path::to_path_buf));
    if let Some(found) = EXPLORED.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(found);
    }
    let (bundle, each) = super::explore_file_each(file, docs_root, &[], limits, opts)?;
    let modules: Vec<Arc<Source>> = bundle
        .modules
        .iter()
        .map(|m| m.source.clone())
        .filter(|s| is_script(s))
        .collect();
    let found = (Arc::new(states(&bundle, &each)), Arc::new(modules));
    if let Ok(mut m) = EXPLORED.lock() {
        m.insert(key, found.clone());
    }
    Ok(found)
}

/// Whether a module is a script file of the generator (not a page's text).
fn is_script(source: &Source) -> bool {
    match &source.origin {
        crate::span::Origin::File(p) => matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("jsx" | "js" | "mjs")
        ),
        _ => false,
    }
}

/// Every state's commands, each as (its label, its text), in discovery
/// order; a target that could not be explored has none.
fn states(bundle: &Bundle, each: &[Result<Exploration, Error>]) -> Vec<(String, String)> {
    each.iter()
        .flatten()
        .flat_map(|e| &e.views)
        .flat_map(|v| {
            v.commands
                .iter()
                .enumerate()
                .map(move |(i, c)| (view_label(bundle, v, i), c.clone()))
        })
        .collect()
}

/// The byte offsets where `word` stands as a word of `text`: not inside a
/// longer name (`direct` in `page_first_direct` is not one).
fn words_at<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.';
    text.match_indices(word).filter_map(move |(k, _)| {
        let before = text[..k].chars().next_back();
        let after = text[k + word.len()..].chars().next();
        (!word.is_empty() && !before.is_some_and(part) && !after.is_some_and(part)).then_some(k)
    })
}

/// An expression's text on one line, at most 80 characters.
fn shorten(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= 80 {
        return one;
    }
    let cut: String = one.chars().take(77).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn source(text: &str) -> Arc<Source> {
        Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()))
    }

    #[test]
    fn literals_keep_their_quotes_ranges_and_splicing_expression() {
        let s =
            source("const a = 'direct';\nconst b = \"x\" + y;\nconst c = `k ${z} page_first`;\n");
        let found = literals(&s);
        let seen: Vec<(&str, char, bool)> = found
            .iter()
            .map(|l| (&s.text[l.range.clone()], l.quote, l.splice.is_some()))
            .collect();
        assert_eq!(
            seen,
            [
                ("direct", '\'', false),
                ("x", '"', true),
                ("k ", '`', true),
                (" page_first", '`', true),
            ]
        );
    }

    #[test]
    fn a_word_is_not_part_of_a_longer_name() {
        let at: Vec<usize> = words_at("--io direct page_first_direct direct-x", "direct").collect();
        assert_eq!(at, [5]);
    }

    #[test]
    fn an_escaped_literal_is_not_plain() {
        let s = source("const a = 'di\\x72ect';");
        assert!(!literals(&s)[0].plain());
    }
}
