//! SGLang's part of `recipe-drift explain`: options and defaults per release,
//! env vars, and the rules that touch a key.

use std::fmt::Write;

use super::bundle;
use crate::engine::explain::{describe, merged_rows, rules_part};
use crate::resolved::display_value;

/// `explain`'s lines for a key.
pub(super) fn lines(key: &str) -> Vec<String> {
    let mut text = String::new();
    let out = &mut text;
    let b = bundle();
    if let Some(name) = key.strip_prefix("env:")
        && let Some(spec) = b.env.get(name)
    {
        let _ = writeln!(
            out,
            "  sglang env var, type {}, default {} ({})",
            spec.kind,
            spec.default
                .as_ref()
                .map(display_value)
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
    text.lines().map(str::to_string).collect()
}
