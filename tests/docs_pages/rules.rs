//! The resolver rules of each engine, one page each
//! (`docs/src/rules/ENGINE.md`), from `src/engine/ENGINE/rules.yaml`: what a
//! rule reads and does, the upstream code it follows, and its examples (the
//! commands `cargo test --lib engine::rules` resolves, with the outcome it
//! checks).

use std::fmt::Write;

use serde_json::Value;

use super::{CODE_COLUMNS, inline, yaml};

/// The engines whose rules have a page: (name shown, folder, launcher).
pub const ENGINES: [(&str, &str, &str); 2] = [
    ("SGLang", "sglang", "sglang serve"),
    ("vLLM", "vllm", "vllm serve"),
];

/// How a condition's operator reads (`src/engine/rules.rs`, `Cond`).
const CONDITIONS: [(&str, &str); 11] = [
    ("eq", "is"),
    ("in", "is one of"),
    ("not_in", "is none of"),
    ("not", "is not"),
    ("gt", "is greater than"),
    ("ge", "is at least"),
    ("lt", "is less than"),
    ("le", "is at most"),
    ("contains_ci", "contains (any case)"),
    ("starts_with", "starts with"),
    ("set", "is written on the command line or in env:"),
];

/// `` `key` is `v` ``, `` `key` is not set ``, `` `key` is one of `a`, `b` ``.
fn condition(key: &str, cond: &Value) -> String {
    let value = |v: &Value| match v {
        Value::Array(a) => a
            .iter()
            .map(|x| format!("`{}`", inline(x)))
            .collect::<Vec<_>>()
            .join(", "),
        other => format!("`{}`", inline(other)),
    };
    match cond {
        Value::Null => format!("`{key}` is not set"),
        Value::Object(m) if m.len() == 1 => {
            let (op, arg) = m.iter().next().unwrap();
            match CONDITIONS.iter().find(|(o, _)| o == op) {
                Some((_, words)) => format!("`{key}` {words} {}", value(arg)),
                None => format!("`{key}` {}", value(cond)),
            }
        }
        other => format!("`{key}` is {}", value(other)),
    }
}

/// The conditions of a map, joined with `and`.
fn conditions(map: &Value) -> String {
    map.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| condition(k, v))
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .unwrap_or_default()
}

/// How an effect that reads another key reads (`src/engine/rules.rs`,
/// `Effect`): `{}` is the key it reads.
const EFFECTS: [(&str, &str); 5] = [
    ("copy", "the value of `{}`"),
    ("upper", "`{}` upper-cased"),
    ("lower", "`{}` lower-cased"),
    ("snake", "`{}` lower-cased with `-` as `_`"),
    ("int", "`{}` read as an integer"),
];

/// One effect's value as words: a literal, or what it computes.
fn effect(v: &Value) -> String {
    if let Value::Object(m) = v
        && m.len() == 1
    {
        let (op, arg) = m.iter().next().unwrap();
        if let (Some((_, words)), Value::String(key)) = (EFFECTS.iter().find(|(o, _)| o == op), arg)
        {
            return words.replace("{}", key);
        }
    }
    format!("`{}`", inline(v))
}

/// The effects of a rule's `set`: `` `key` = `value` ``.
fn effects(map: &Value) -> String {
    map.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| match v {
                    Value::Null => format!("`{k}` unset"),
                    v => format!("`{k}` = {}", effect(v)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// A word as a shell reads it back: quoted when it holds other characters
/// than those of plain words.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Words joined into lines no wider than the page: `\` continues a command,
/// `first` opens it and later lines are indented by four spaces.
fn wrap_words(first: &str, words: &[String], continued: bool) -> String {
    let mut out = first.to_string();
    let mut len = out.chars().count();
    for w in words {
        let wl = w.chars().count();
        if len > 4 && len + 1 + wl + 2 > CODE_COLUMNS {
            out.push_str(if continued { " \\\n    " } else { "\n    " });
            len = 4;
        } else if !out.is_empty() {
            out.push(' ');
            len += 1;
        }
        out.push_str(w);
        len += wl;
    }
    out
}

/// What an example runs with, as a comment line: release, platform,
/// hardware, checkpoint facts.
fn context(ex: &Value, engine: &str) -> String {
    let mut parts = vec![match ex["version"].as_str() {
        Some(v) => format!("{engine} {v}"),
        None => format!("{engine}, the newest bundled release"),
    }];
    for f in ["platform", "hardware"] {
        if let Some(v) = ex[f].as_str() {
            parts.push(format!("{f} {v}"));
        }
    }
    match &ex["checkpoint"] {
        Value::Object(m) if m.is_empty() => {
            parts.push("a checkpoint with none of the facts".into())
        }
        Value::Object(_) => parts.push(format!("checkpoint {}", inline(&ex["checkpoint"]))),
        _ => parts.push("no checkpoint facts".into()),
    }
    let words: Vec<String> = parts.join(", ").split(' ').map(str::to_string).collect();
    wrap_words("#", &words, false).replace("\n    ", "\n#   ")
}

/// What the tests expect of an example, one line each.
fn outcome(ex: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(m) = ex["expect"].as_object() {
        out.extend(m.iter().map(|(k, v)| format!("{k} = {}", inline(v))));
    }
    if let Some(a) = ex["unknown"].as_array() {
        out.extend(a.iter().map(|k| format!("{} is unknown", inline(k))));
    }
    if let Some(m) = ex["one_of"].as_object() {
        out.extend(
            m.iter()
                .map(|(k, v)| format!("{k} is unknown, one of {}", inline(v))),
        );
    }
    if let Some(a) = ex["inactive"].as_array() {
        out.extend(a.iter().map(|k| format!("{} has no effect", inline(k))));
    }
    if let Some(e) = ex["error"].as_str() {
        out.push(format!("startup error: ...{e}..."));
    }
    if let Some(v) = ex["respelled_as"].as_str() {
        out.push(format!("(read as release {v} spells it)"));
    }
    out
}

/// One example as a `text` block's lines: the context, the command and
/// what the tests expect of it.
fn example(ex: &Value, engine: &str, launcher: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    if let Some(env) = ex["env"].as_object() {
        words.extend(
            env.iter()
                .map(|(k, v)| shell_word(&format!("{k}={}", inline(v)))),
        );
    }
    words.extend(launcher.split(' ').map(str::to_string));
    if let Some(argv) = ex["argv"].as_array() {
        words.extend(argv.iter().map(|w| shell_word(&inline(w))));
    }
    let mut out = context(ex, engine);
    out.push('\n');
    out.push_str(&wrap_words("$", &words, true));
    out.push('\n');
    for line in outcome(ex) {
        let words: Vec<String> = line.split(' ').map(str::to_string).collect();
        out.push_str(&wrap_words("->", &words, false));
        out.push('\n');
    }
    out
}

/// The page of one engine's rules.
fn engine_page(name: &str, folder: &str, launcher: &str) -> String {
    let file = format!("src/engine/{folder}/rules.yaml");
    let data = yaml(&file);
    let rules = data["rules"].as_array().unwrap();
    let mut out = format!(
        "# {name} resolver rules\n\n<!-- Generated by tests/docs.rs from {file}; do not edit \
         (RECIPE_DRIFT_BLESS=1 cargo test --test docs). -->\n\n\
         After parsing a command, recipe-drift applies these {} rules in this order (`{file}`), \
         as {name} does at startup. A rule holds for the releases and platforms it names when \
         its conditions hold; it sets keys, makes them unknown (they need the GPU or the \
         checkpoint), marks options that have no effect, or refuses the command (a startup \
         error). Each names the upstream code it follows. Its examples are commands the tests \
         resolve (`cargo test --lib engine::rules`): `->` lines are what they check.\n\n",
        rules.len()
    );
    for r in rules {
        let id = r["id"].as_str().unwrap();
        let _ = writeln!(out, "## `{id}`\n");
        let mut facts: Vec<String> = Vec::new();
        let releases = r["versions"]
            .as_str()
            .map_or("every bundled release".into(), |v| format!("`{v}`"));
        let platforms = r["platforms"]
            .as_array()
            .map_or("every platform".into(), |p| {
                p.iter().map(inline).collect::<Vec<_>>().join(", ")
            });
        facts.push(format!(
            "**Releases:** {releases}; **platforms:** {platforms}."
        ));
        let when = conditions(&r["when"]);
        if !when.is_empty() {
            facts.push(format!("**When** {when}."));
        }
        if let Some(any) = r["any"].as_array() {
            let alts: Vec<String> = any.iter().map(conditions).collect();
            facts.push(format!("**When any of:** {}.", alts.join("; or ")));
        }
        let set = effects(&r["set"]);
        if !set.is_empty() {
            facts.push(format!("**Sets** {set}."));
        }
        if let Some(m) = r["unknown"].as_object() {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| {
                    let why = v["reason"].as_str().or(v.as_str()).unwrap_or("");
                    match v["one_of"].as_array() {
                        Some(o) => {
                            format!("`{k}` ({why}; one of {})", inline(&Value::Array(o.clone())))
                        }
                        None => format!("`{k}` ({why})"),
                    }
                })
                .collect();
            facts.push(format!("**Makes unknown** {}.", items.join(", ")));
        }
        if let Some(a) = r["inactive"].as_array() {
            let keys: Vec<String> = a.iter().map(|e| format!("`{}`", inline(e))).collect();
            facts.push(format!("**No effect on** {}.", keys.join(", ")));
        }
        if let Some(e) = r["error"].as_str() {
            facts.push(format!("**Startup error:** {e}."));
        }
        if let Some(n) = r["note"].as_str() {
            facts.push(format!("**Note:** {n}"));
        }
        facts.push(format!(
            "**Upstream:** {}.",
            r["reference"].as_str().unwrap_or("")
        ));
        for f in facts {
            let _ = writeln!(out, "- {}", f.replace('\n', " "));
        }
        out.push('\n');
        let examples = r["examples"].as_array().map_or(&[][..], Vec::as_slice);
        if !examples.is_empty() {
            out.push_str("```text\n");
            let shown: Vec<String> = examples
                .iter()
                .map(|ex| example(ex, folder, launcher))
                .collect();
            out.push_str(&shown.join("\n"));
            out.push_str("```\n\n");
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Every engine's rule page: (path from the repository root, text).
pub fn pages() -> Vec<(String, String)> {
    ENGINES
        .iter()
        .map(|(name, folder, launcher)| {
            (
                format!("docs/src/rules/{folder}.md"),
                engine_page(name, folder, launcher),
            )
        })
        .collect()
}

#[test]
fn conditions_read_as_sentences() {
    let c: Value =
        serde_json::json!({"page_size": {"not": 64}, "tp_size": null, "x": {"in": [1, 2]}});
    assert_eq!(
        conditions(&c),
        "`page_size` is not `64` and `tp_size` is not set and `x` is one of `1`, `2`"
    );
}

#[test]
fn effects_read_as_what_they_compute() {
    let set: Value = serde_json::json!({"a": {"copy": "b"}, "c": 64, "d": {"mul": ["x", "y"]}});
    assert_eq!(
        effects(&set),
        "`a` = the value of `b`, `c` = `64`, `d` = `{mul: [x, y]}`"
    );
}

#[test]
fn an_example_shows_its_command_and_what_the_tests_check() {
    let ex: Value = serde_json::json!({
        "argv": ["--model-path", "m", "--speculative-config", "{\"method\": \"eagle\"}"],
        "version": "0.5.19", "platform": "rocm", "expect": {"page_size": 64},
        "unknown": ["chunked_prefill_size"]
    });
    assert_eq!(
        example(&ex, "sglang", "sglang serve"),
        "# sglang 0.5.19, platform rocm, no checkpoint facts\n\
         $ sglang serve --model-path m --speculative-config '{\"method\": \"eagle\"}'\n\
         -> page_size = 64\n-> chunked_prefill_size is unknown\n"
    );
}
