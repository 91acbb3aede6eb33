//! The rest of a refused command: a reviewer who meets a word the release
//! refuses reports it and reads on. [`resolve_rest`] sets the refused word's
//! option aside (the option and the values written after it), resolves what
//! remains, and returns that with each refusal as a startup error at its word
//! and the keys the set-aside words would have set as unknown. A refusal that
//! names no single written word of the command (a check over the whole argv,
//! a word of a `--config` file, a word that an expansion shares with others)
//! stays a refusal of the whole command.

use crate::launch::{Launch, Token};
use crate::resolved::{Entry, ResolveOptions, Resolved, StartupError, Val, ValueSource};

use super::{Engine, PARSER_RULE, Refusal, ResolveError};

/// At most this many words are set aside before the command counts as
/// refused whole (each costs one more resolution).
const MAX_SET_ASIDE: usize = 16;

/// Resolves a launch, setting refused options aside and reading on (see the
/// module doc). `Err(Refused)` only when a refusal cannot be set aside: then
/// nothing of the command is read.
pub fn resolve_rest(launch: &Launch, opts: &ResolveOptions) -> Result<Resolved, ResolveError> {
    let Some(engine) = super::by_name(launch.engine.name()) else {
        return super::resolve_outcome(launch, opts);
    };
    let mut current = launch.clone();
    let mut refusals: Vec<(Refusal, Vec<String>, String)> = Vec::new();
    loop {
        let refusal = match super::resolve_outcome(&current, opts) {
            Ok(mut r) => {
                mark_refused(&mut r, &refusals);
                return Ok(r);
            }
            Err(ResolveError::Refused(refusal)) => refusal,
            Err(e) => return Err(e),
        };
        if refusals.len() >= MAX_SET_ASIDE {
            return Err(ResolveError::Refused(first_or(refusals, refusal)));
        }
        let Some((keys, written)) = set_aside(&mut current, &refusal, engine) else {
            return Err(ResolveError::Refused(first_or(refusals, refusal)));
        };
        refusals.push((*refusal, keys, written));
    }
}

/// The first refusal met (the one a reader meets first), else this one.
fn first_or(refusals: Vec<(Refusal, Vec<String>, String)>, last: Box<Refusal>) -> Box<Refusal> {
    refusals
        .into_iter()
        .next()
        .map(|(r, _, _)| Box::new(r))
        .unwrap_or(last)
}

/// Removes the refused word's option from the launch: the words from the
/// option (the refused word, or the nearest option word before a refused
/// value) up to the next option word; or the environment assignment the
/// refusal is at. Returns the keys those words set (the option's key, its
/// sub-keys, or every option an ambiguous prefix could be) and how they were
/// written, or `None` when the refusal is not at exactly one written word.
fn set_aside(
    launch: &mut Launch,
    refusal: &Refusal,
    engine: &dyn Engine,
) -> Option<(Vec<String>, String)> {
    let at: Vec<usize> = (launch.argv.iter().enumerate())
        .filter(|(_, t)| t.span == refusal.span)
        .map(|(i, _)| i)
        .collect();
    if at.is_empty() {
        let i = launch.env.iter().position(|e| e.span == refusal.span)?;
        let var = launch.env.remove(i);
        let written = format!("{}={}", var.name, var.value);
        return Some((vec![var.name], written));
    }
    let [i] = at[..] else { return None };
    let is_option = |t: &Token| t.text.starts_with('-') && t.text.len() > 1;
    let start = (0..=i)
        .rev()
        .find(|&j| is_option(&launch.argv[j]))
        .unwrap_or(i);
    let end = (i + 1..launch.argv.len())
        .find(|&j| is_option(&launch.argv[j]))
        .unwrap_or(launch.argv.len());
    let words: Vec<Token> = launch.argv.drain(start..end).collect();
    let written = words
        .iter()
        .map(|t| shell_words::quote(&t.text).into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let option = words[0].text.split('=').next().unwrap_or_default();
    let keys = if is_option(&words[0]) {
        keys_of(engine, option)
    } else {
        Vec::new()
    };
    Some((keys, written))
}

/// The canonical keys an option word names in some bundled release: its
/// key, or each key an ambiguous prefix could be.
fn keys_of(engine: &dyn Engine, option: &str) -> Vec<String> {
    match engine.key(option) {
        Ok(k) => vec![k],
        Err(super::KeyError::Ambiguous { candidates, .. }) => candidates
            .iter()
            .filter_map(|c| engine.key(c).ok())
            .collect(),
        Err(super::KeyError::Unknown { .. }) => Vec::new(),
    }
}

/// Records each refusal as a startup error at its word, first met first, and
/// makes the keys its words would have set (and their sub-keys) unknown.
fn mark_refused(r: &mut Resolved, refusals: &[(Refusal, Vec<String>, String)]) {
    let errors = refusals.iter().map(|(refusal, _, _)| StartupError {
        rule: PARSER_RULE.into(),
        message: refusal.message.clone(),
        reference: format!(
            "the argument parser of {} {}",
            r.engine, refusal.version.version
        ),
        span: Some(refusal.span.clone()),
    });
    let mut all: Vec<StartupError> = errors.collect();
    all.append(&mut r.startup_errors);
    r.startup_errors = all;
    for (refusal, keys, written) in refusals {
        let reason = format!("`{written}` is refused by the release, so what it sets is not known");
        for key in keys {
            let prefix = format!("{key}.");
            let hit: Vec<String> = (r.values.keys())
                .filter(|k| *k == key || k.starts_with(&prefix))
                .cloned()
                .collect();
            let names = if hit.is_empty() {
                vec![key.clone()]
            } else {
                hit
            };
            for k in names {
                let name = r
                    .values
                    .get(&k)
                    .map_or_else(|| k.clone(), |e| e.name.clone());
                r.values.insert(
                    k,
                    Entry {
                        val: Val::unknown(reason.clone()),
                        source: ValueSource::Unknown,
                        name,
                        spans: vec![refusal.span.clone()],
                        written: Some(written.clone()),
                        rules: vec![],
                        inactive: None,
                        no_effect: None,
                    },
                );
            }
        }
    }
}
