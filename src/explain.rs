//! `recipe-drift explain KEY...`: a key's policy class, and for each engine
//! that has it: option strings and defaults per release (equal neighbours
//! merged), env var facts, and the resolver rules that read or write it.

use std::fmt::Write;

use crate::engine::argparse::OptionSpec;
use crate::engine::rules::Rule;
use crate::engine::{sglang, vllm};
use crate::error::Error;
use crate::policy::{Class, Policy};
use crate::report;

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
        sglang_part(&mut out, &key);
        vllm_part(&mut out, &key);
        out.push('\n');
    }
    Ok(out)
}

/// The canonical key for a name, in SGLang's tables first, then vLLM's.
fn canonical(k: &str) -> Result<String, Error> {
    if k.starts_with("env:") {
        return Ok(k.to_string());
    }
    if sglang::bundle().env.contains_key(k) || vllm::data().env_releases.contains_key(k) {
        return Ok(format!("env:{k}"));
    }
    match sglang::key_for(k) {
        Ok(key) => Ok(key),
        Err(sglang_reason) => vllm::key_for(k).ok_or_else(|| {
            Error::usage(format!(
                "explain: {sglang_reason}; no bundled vllm release has it either"
            ))
        }),
    }
}

/// One row per release: (release, description, default); equal neighbours merged.
fn merged_rows(rows: impl Iterator<Item = (String, Option<(String, String)>)>) -> Vec<String> {
    let mut merged: Vec<(String, String, String)> = Vec::new();
    for (name, desc) in rows {
        let (d, def) = desc.unwrap_or_else(|| ("absent".into(), String::new()));
        match merged.last_mut() {
            Some(last) if last.1 == d && last.2 == def => {
                last.0 = format!("{}..{name}", last.0.split("..").next().unwrap_or_default());
            }
            _ => merged.push((name, d, def)),
        }
    }
    if merged.iter().all(|r| r.1 == "absent") {
        return Vec::new();
    }
    merged
        .into_iter()
        .map(|(v, d, def)| format!("{v}: {d} {def}").trim_end().to_string())
        .collect()
}

fn describe(a: &OptionSpec) -> (String, String) {
    let mut d = format!(
        "{} (dest {}, {}",
        a.option_strings.join(", "),
        a.dest,
        a.action
    );
    if let Some(c) = &a.choices {
        d.push_str(&format!(
            ", choices {}",
            c.iter().map(report::show).collect::<Vec<_>>().join("|")
        ));
    }
    d.push(')');
    (d, format!("default {}", report::show(&a.default)))
}

fn rules_part(out: &mut String, engine: &str, rules: &[Rule], key: &str) {
    for rule in rules.iter().filter(|r| r.touches(key)) {
        let _ = writeln!(
            out,
            "  {engine} rule {} [{}{}]{}\n    ref: {}",
            rule.id,
            rule.versions.as_deref().unwrap_or("all releases"),
            rule.platforms
                .as_ref()
                .map(|p| format!(", {}", p.join("/")))
                .unwrap_or_default(),
            rule.note
                .as_deref()
                .map(|n| format!(": {n}"))
                .unwrap_or_default(),
            rule.reference
        );
    }
}

fn sglang_part(out: &mut String, key: &str) {
    let b = sglang::bundle();
    if let Some(name) = key.strip_prefix("env:")
        && let Some(spec) = b.env.get(name)
    {
        let _ = writeln!(
            out,
            "  sglang env var, type {}, default {} ({})",
            spec.kind,
            spec.default
                .as_ref()
                .map(report::show)
                .unwrap_or("unset".into()),
            spec.reference
        );
    }
    let rows = merged_rows(b.releases.iter().map(|r| {
        let desc = r
            .keys
            .iter()
            .position(|x| x == key)
            .map(|i| describe(&r.parser.actions[i]));
        (r.name.clone(), desc)
    }));
    let has = !rows.is_empty()
        || key
            .strip_prefix("env:")
            .is_some_and(|n| b.env.contains_key(n));
    for row in rows {
        let _ = writeln!(out, "  sglang {row}");
    }
    if has {
        rules_part(out, "sglang", &b.rules, key);
    }
}

fn vllm_part(out: &mut String, key: &str) {
    let releases = vllm::releases();
    let mut has = false;
    if let Some(name) = key.strip_prefix("env:") {
        let rows = merged_rows(releases.iter().map(|r| {
            let desc = r.env.get(name).map(|spec| {
                (
                    format!("env var, type {}", spec.kind),
                    format!(
                        "default {}",
                        spec.default
                            .as_ref()
                            .map(report::show)
                            .unwrap_or("unset".into())
                    ),
                )
            });
            (r.name.clone(), desc)
        }));
        has |= !rows.is_empty();
        for row in rows {
            let _ = writeln!(out, "  vllm {row}");
        }
    }
    let head = key.split('.').next().unwrap_or(key);
    let field = key.strip_prefix(&format!("{head}."));
    let rows = merged_rows(releases.iter().map(|r| {
        let desc = r.keys.iter().position(|x| x == head).and_then(|i| {
            let a = &r.parser.actions[i];
            match field {
                None => Some(describe(a)),
                Some(f) => {
                    let has = a
                        .extra
                        .get("type_params")
                        .and_then(|p| p.get("fields"))
                        .and_then(|v| v.as_array())
                        .is_none_or(|fields| fields.iter().any(|x| x == f));
                    has.then(|| {
                        (
                            format!("field {f} of {}", a.option_strings.join(", ")),
                            String::new(),
                        )
                    })
                }
            }
        });
        (r.name.clone(), desc)
    }));
    has |= !rows.is_empty() || vllm::data().keys.derived.contains_key(key);
    for row in rows {
        let _ = writeln!(out, "  vllm {row}");
    }
    if has {
        rules_part(out, "vllm", &vllm::data().rules, key);
    }
}
