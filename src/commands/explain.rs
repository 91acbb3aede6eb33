//! `recipe-drift explain KEY...`: a key's policy class, and for each engine
//! that has it: option strings and defaults per release (equal neighbours
//! merged), env var facts, and the resolver rules that read or write it. A
//! finding kind, by id or name (`RD001`, `contradicts`), is explained from the
//! table of finding kinds.

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
        if let Some(kind) = finding_kind(k)? {
            explain_kind(&mut out, kind);
            continue;
        }
        let key = canonical(k)?;
        let class = match policy.class(&key) {
            Class::Major => "MAJOR",
            Class::Minor => "minor",
            Class::Ignore => "ignored",
        };
        let _ = writeln!(out, "{key}: {class}");
        if let Some(why) = policy.reason(&key) {
            let _ = writeln!(out, "  why {class}: {why}");
        }
        for e in engine::registry() {
            for line in e.explain(&key) {
                let _ = writeln!(out, "{line}");
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The row of `findings.yaml` a finding id (`RD008`, any case) or kind name
/// (`contradicts`) names; `None` for another name, an error for an id-shaped
/// name with no row.
fn finding_kind(k: &str) -> Result<Option<&'static crate::finding::KindInfo>, Error> {
    let rows = crate::finding::kinds();
    if let Some(row) = rows.iter().find(|r| r.name == k) {
        return Ok(Some(row));
    }
    let id = k.to_ascii_uppercase();
    if !(id.len() == 5 && id.starts_with("RD") && id[2..].bytes().all(|b| b.is_ascii_digit())) {
        return Ok(None);
    }
    match rows.iter().find(|r| r.id == id) {
        Some(row) => Ok(Some(row)),
        None => Err(Error::usage(format!(
            "explain: no finding kind {id}; the ids are {}..{}",
            rows[0].id,
            rows[rows.len() - 1].id
        ))),
    }
}

/// A finding kind's row: id and name, severities, help, description and its
/// example (two commands that make it, or the lint fixture that shows it).
fn explain_kind(out: &mut String, kind: &crate::finding::KindInfo) {
    let level = |s: crate::finding::Severity| match s {
        crate::finding::Severity::Error => "error",
        crate::finding::Severity::Warning => "warning",
        crate::finding::Severity::Info => "info",
    };
    let _ = writeln!(out, "{} {}: {}", kind.id, kind.name, kind.help);
    if kind.example.is_none() {
        let _ = writeln!(out, "  severity: {}", level(kind.severity));
    } else {
        let _ = writeln!(
            out,
            "  severity: {} on a MAJOR key, {} on a minor one",
            level(kind.severity),
            level(kind.minor.unwrap_or(kind.severity))
        );
    }
    let _ = writeln!(out, "  {}", kind.description);
    if let Some(ex) = &kind.example {
        let mut context = format!("engine version {}", ex.engine_version);
        if let Some(h) = &ex.hardware {
            let _ = write!(context, ", hardware {h}");
        }
        let _ = writeln!(out, "  example ({context}):");
        let _ = writeln!(out, "    docs:   {}", ex.docs);
        let _ = writeln!(out, "    recipe: {}", ex.recipe);
        if let Some(key) = &ex.key {
            let _ = writeln!(out, "    finding on: {key}");
        }
    }
    if let Some(c) = &kind.coverage {
        let _ = writeln!(
            out,
            "  example (check --docs-root fixtures/cookbook --inferencex fixtures/pairing/inferencex): a {} deployment, \"{} ...\"",
            c.side, c.says
        );
    }
    if let Some(b) = &kind.budget {
        let _ = writeln!(
            out,
            "  example (check --docs-root {} --inferencex fixtures/pairing/inferencex --max-states {} {}, or lint-docs --max-states {} {}): \"{} ...\"",
            b.docs_root, b.max_states, b.fixture, b.max_states, b.fixture, b.says
        );
    }
    if let Some(r) = &kind.roles {
        let _ = writeln!(
            out,
            "  example (check --docs-root fixtures/multinode/docs --inferencex {}): entry {}, \"... {} ...\"",
            r.inferencex, r.entry, r.says
        );
    }
    if let Some(l) = &kind.lint {
        let _ = writeln!(out, "  example (lint-docs): {}", l.fixture);
        if let Some(p) = &l.pending {
            let _ = writeln!(out, "  not checked yet: it needs {p}");
        }
    }
    out.push('\n');
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
        ..super::Output::default()
    })
}
