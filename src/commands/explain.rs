//! `recipe-drift explain KEY...`: a key's policy class, and for each engine
//! that has it: option strings and defaults per release (equal neighbours
//! merged), env var facts, and the resolver rules that read or write it.

use std::fmt::Write;

use crate::engine::{self, KeyError};
use crate::error::Error;
use crate::policy::{Class, Policy};

/// Explains each key (a canonical key, an option string or prefix, a
/// destination, or `env:NAME`).
pub fn explain(keys: &[String]) -> Result<String, Error> {
    let policy = Policy::default();
    let mut out = String::new();
    for k in keys {
        let key = canonical(k)?;
        let class = match policy.class(&key) {
            Class::Major => "MAJOR",
            Class::Minor => "minor",
            Class::Ignore => "ignored",
        };
        let _ = writeln!(out, "{key}: {class}");
        for e in engine::registry() {
            for line in e.explain(&key) {
                let _ = writeln!(out, "{line}");
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The canonical key for a name, in the engines' tables in registry order: the
/// first engine that has it decides; when none has it, the first engine's reason.
fn canonical(k: &str) -> Result<String, Error> {
    if k.starts_with("env:") {
        return Ok(k.to_string());
    }
    let engines = engine::registry();
    if engines.iter().any(|e| e.reads_env(k)) {
        return Ok(format!("env:{k}"));
    }
    let mut first: Option<KeyError> = None;
    for e in engines {
        match e.key(k) {
            Ok(key) => return Ok(key),
            Err(why) => {
                first.get_or_insert(why);
            }
        }
    }
    let others: Vec<&str> = engines.iter().skip(1).map(|e| e.name()).collect();
    Err(Error::usage(format!(
        "explain: {}; no bundled {} release has it either",
        first.map(|w| w.to_string()).unwrap_or_default(),
        others.join(" or ")
    )))
}

/// Explains each key given.
pub(super) fn run(args: crate::cli::ExplainArgs) -> Result<super::Output, Error> {
    Ok(super::Output {
        code: 0,
        stdout: explain(&args.keys)?,
    })
}
