//! The rest of a refused command: a reviewer who meets a word the release
//! refuses reports it and reads on. [`resolve_rest`] sets the refused word's
//! option aside (the option and the values written after it), resolves what
//! remains, and returns that with each refusal as a startup error at its word
//! and the keys the set-aside words would have set as unknown. A refusal that
//! names no single written word of the command (a check over the whole argv,
//! a word of a `--config` file, a word that an expansion shares with others)
//! stays a refusal of the whole command.
//!
//! A docs placeholder the parser cannot place (`sglang serve --model-path M
//! <other args>`: a word that stands for arguments the reader writes) is set
//! aside the same way, without a refusal: the command is then open
//! ([`Resolved::args_open`]), and every option it does not write is unknown,
//! left to the reader, rather than at its default.

use crate::error::Error;
use crate::launch::{Launch, Provenance, Token};
use crate::resolved::{
    Entry, ResolveOptions, Resolved, StartupError, Val, ValueSource, args_open_reason,
};

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
    let mut placeholders: Vec<String> = Vec::new();
    // Whether the required options were filled in as left to the reader
    // (once: a second such refusal stands).
    let mut filled_required = false;
    // A placeholder whose words name arguments (`<use args below>`) stands
    // for them wherever it is, even where the parser would take it as a
    // value (`sglang serve <use args below>` is no model).
    strip_wrapper_options(&mut current);
    current.argv.retain(|t| {
        let stands_for_args = t.is_placeholder() && names_arguments(&t.text);
        if stands_for_args {
            placeholders.push(format!("the placeholder `{}` at {}", t.text, t.span));
        }
        !stands_for_args
    });
    loop {
        let refusal = match super::resolve_outcome(&current, opts) {
            Ok(mut r) => {
                mark_refused(&mut r, &refusals);
                if !placeholders.is_empty() {
                    open_args(&mut r, &placeholders.join(", "));
                }
                return Ok(r);
            }
            Err(ResolveError::Refused(refusal)) => refusal,
            Err(ResolveError::Failed(Error::Input { span, message })) => {
                let at = current
                    .argv
                    .iter()
                    .position(|t| t.span == span && t.is_placeholder());
                match at {
                    Some(i) if refusals.len() + placeholders.len() < MAX_SET_ASIDE => {
                        let t = current.argv.remove(i);
                        placeholders.push(format!("the placeholder `{}` at {}", t.text, t.span));
                        continue;
                    }
                    _ => return Err(ResolveError::Failed(Error::Input { span, message })),
                }
            }
            Err(e) => return Err(e),
        };
        // An open command leaves its required options to the reader too.
        if !placeholders.is_empty()
            && !filled_required
            && let Some(names) = required_options(&refusal.message)
        {
            filled_required = true;
            let reason = args_open_reason(&placeholders.join(", "));
            for name in names {
                let word = |text: &str, provenance| Token {
                    text: text.to_string(),
                    span: refusal.span.clone(),
                    provenance,
                    written_at: None,
                };
                if name.starts_with('-') {
                    current.argv.push(word(&name, Provenance::Literal));
                }
                let value = format!("<{}>", name.trim_start_matches('-'));
                current.argv.push(word(
                    &value,
                    Provenance::Unknown {
                        reason: reason.clone(),
                    },
                ));
            }
            continue;
        }
        if refusals.len() >= MAX_SET_ASIDE {
            return Err(ResolveError::Refused(first_or(refusals, refusal)));
        }
        let Some((keys, written)) = set_aside(&mut current, &refusal, engine) else {
            return Err(ResolveError::Refused(first_or(refusals, refusal)));
        };
        refusals.push((*refusal, keys, written));
    }
}

/// Takes out of `launch` the options its launcher module reads itself (the
/// row's `own_options:` in `src/launchers.yaml`), with their values: the
/// engine never sees them.
fn strip_wrapper_options(launch: &mut Launch) {
    let words: Vec<&str> = launch.launcher.iter().map(|t| t.text.as_str()).collect();
    let Some(module) = words.windows(2).find(|w| w[0] == "-m").map(|w| w[1]) else {
        return;
    };
    let Some(own) = crate::launch::launchers()
        .iter()
        .find(|l| matches!(&l.form, crate::launch::LauncherForm::PythonModule(m) if m == module))
        .map(|l| &l.own_options)
        .filter(|o| !o.is_empty())
    else {
        return;
    };
    let mut out = Vec::with_capacity(launch.argv.len());
    let mut i = 0;
    while i < launch.argv.len() {
        let text = launch.argv[i].text.as_str();
        let (flag, attached) = match text.split_once('=') {
            Some((f, _)) => (f, true),
            None => (text, false),
        };
        match own.iter().find(|o| o.covers(flag)) {
            Some(o) => i += 1 + usize::from(o.value && !attached),
            None => {
                out.push(launch.argv[i].clone());
                i += 1;
            }
        }
    }
    launch.argv = out;
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

/// The words that make a placeholder stand for arguments rather than for
/// one value (`<other args>`, `<use args below>`, `<extra flags>`).
const ARGUMENT_WORDS: &[&str] = &[
    "arg",
    "args",
    "argument",
    "arguments",
    "flag",
    "flags",
    "option",
    "options",
    "param",
    "params",
    "parameters",
];

/// The options an argparse "the following arguments are required: A/B, C"
/// refusal names, each by its first option string.
fn required_options(message: &str) -> Option<Vec<String>> {
    let (_, list) = message.split_once("the following arguments are required: ")?;
    let names: Vec<String> = list
        .split(", ")
        .filter_map(|n| n.split('/').next())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    (!names.is_empty()).then_some(names)
}

/// Whether a placeholder's words name arguments (see [`ARGUMENT_WORDS`]).
fn names_arguments(placeholder: &str) -> bool {
    placeholder
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| ARGUMENT_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Opens a resolution whose command holds argument placeholders (`cause`
/// names them): every option it does not write (not on the command line, in
/// its environment or from the context) is unknown, left to the reader.
fn open_args(r: &mut Resolved, cause: &str) {
    let reason = args_open_reason(cause);
    for (key, e) in r.values.iter_mut() {
        if key.starts_with("env:")
            || matches!(
                e.source,
                ValueSource::Cli | ValueSource::Env | ValueSource::Context | ValueSource::Unknown
            )
        {
            continue;
        }
        e.val = Val::unknown(reason.clone());
        e.source = ValueSource::Unknown;
        e.spans.clear();
        e.rules.clear();
        e.written = None;
    }
    r.args_open = Some(cause.to_string());
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

#[cfg(test)]
mod tests {
    use super::strip_wrapper_options;
    use crate::launch::{Engine, Launch};

    /// `python3 -m dynamo.vllm` reads its own `--disaggregation-mode` and
    /// `--dyn-*` options (with their values, also attached with `=`) and
    /// hands vLLM the rest; `vllm serve` takes every word itself.
    #[test]
    fn a_wrapper_module_keeps_its_own_options() {
        let argv: Vec<String> = [
            "--model",
            "/model",
            "--disaggregation-mode",
            "prefill",
            "--dyn-reasoning-parser=deepseek_r1",
            "--dyn-tool-call-parser",
            "kimi_k2",
            "--tensor-parallel-size",
            "8",
        ]
        .map(String::from)
        .to_vec();
        let words = |l: &Launch| l.argv.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
        let mut plain = Launch::inline(Engine::parse("vllm").unwrap(), &argv, &[]);
        strip_wrapper_options(&mut plain);
        assert_eq!(words(&plain), argv);
        let mut wrapped = Launch::inline(Engine::parse("vllm").unwrap(), &argv, &[]);
        let at = wrapped.launcher[0].clone();
        wrapped.launcher = ["python3", "-m", "dynamo.vllm"]
            .map(|w| crate::launch::Token {
                text: w.to_string(),
                ..at.clone()
            })
            .to_vec();
        strip_wrapper_options(&mut wrapped);
        assert_eq!(
            words(&wrapped),
            ["--model", "/model", "--tensor-parallel-size", "8"]
        );
    }
}
