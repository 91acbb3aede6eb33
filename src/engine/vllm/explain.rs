//! vLLM's part of `recipe-drift explain`: options, config fields and env vars
//! per release, and the rules that touch a key.

use std::fmt::Write;

use super::{data, releases};
use crate::engine::explain::{describe, merged_rows, rules_part};
use crate::resolved::display_value;

/// `explain`'s lines for a key.
pub(super) fn lines(key: &str) -> Vec<String> {
    let mut text = String::new();
    let out = &mut text;
    let releases = releases();
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
                            .map(display_value)
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
    has |= !rows.is_empty() || data().keys.derived.contains_key(key);
    for row in rows {
        let _ = writeln!(out, "  vllm {row}");
    }
    if has {
        rules_part(out, "vllm", &data().rules, key);
    }
    text.lines().map(str::to_string).collect()
}
