//! What vLLM's `FlexibleArgumentParser` does to the arguments of `vllm serve`
//! before argparse sees them, step by step, each step switched by the
//! release's schema (`preprocess` in `schemas/<version>.json`):
//!
//! 1. `--model X` / `--model=X` (the first, exact spelling) moves to the front
//!    as the positional model;
//! 2. with no positional model, `--served-model-name` is an error;
//! 3. `--config FILE` (not read here: reported as such);
//! 4. underscores become dashes in option names, up to the first `.`;
//! 5. `-O3`, `-O=3`, `-O 3` become `--optimization-level 3`;
//! 6. dotted keys (`--compilation-config.mode 3`, `-cc.mode=3`, `--x.list+ a,b`)
//!    merge into one JSON object per head option, appended at the end.

use serde::Deserialize;
use serde_json::{Map, Value};

/// The preprocessing switches of one release.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Steps {
    /// Step 1.
    #[serde(default)]
    pub model_option_moved: bool,
    /// Step 2.
    #[serde(default)]
    pub served_model_name_check: bool,
    /// Step 3.
    #[serde(default)]
    pub config_file: bool,
    /// Step 4.
    #[serde(default)]
    pub underscores: bool,
    /// Step 5.
    #[serde(default)]
    pub optimization_flag: bool,
    /// Step 6.
    #[serde(default)]
    pub dotted_json: bool,
    /// `--key.sub+ a,b` gives the list `["a", "b"]`.
    #[serde(default)]
    pub dotted_list_plus: bool,
    /// What a dotted value that is not JSON becomes: `string`, or
    /// `human_readable_int_then_string`.
    #[serde(default)]
    pub dotted_value_fallback: Option<String>,
}

/// Why preprocessing stopped (vLLM raises, so `vllm serve` does not start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// An error vLLM reports, with its text.
    Error(String),
    /// `--config FILE`: the file's options are not read from the text.
    ConfigFile(String),
}

/// Applies a release's preprocessing to the arguments after `vllm serve`.
pub fn preprocess(argv: &[String], steps: &Steps) -> Result<Vec<String>, Refusal> {
    preprocess_traced(argv, steps).map(|args| args.into_iter().map(|a| a.text).collect())
}

/// One argument after preprocessing, with the indexes of the input words it
/// comes from (several for a merged dotted JSON, none never).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traced {
    /// The argument as argparse sees it.
    pub text: String,
    /// Indexes into the input argv.
    pub from: Vec<usize>,
}

/// [`preprocess`], keeping for each resulting argument the input words behind it.
pub fn preprocess_traced(argv: &[String], steps: &Steps) -> Result<Vec<Traced>, Refusal> {
    let mut args: Vec<Traced> = argv
        .iter()
        .enumerate()
        .map(|(i, a)| Traced {
            text: a.clone(),
            from: vec![i],
        })
        .collect();
    if steps.model_option_moved
        && let Some(i) = args.iter().position(|a| full_match(&a.text, "--model"))
    {
        let model = if args[i].text == "--model" {
            if i + 1 >= args.len() {
                return Err(Refusal::Error("IndexError: list index out of range".into()));
            }
            let mut m = args.remove(i + 1);
            let opt = args.remove(i);
            m.from = vec![opt.from[0], m.from[0]];
            m
        } else {
            let a = args.remove(i);
            Traced {
                text: a.text["--model=".len()..].to_string(),
                from: a.from,
            }
        };
        args.insert(0, model);
    }
    if steps.served_model_name_check
        && args.first().is_some_and(|a| a.text.starts_with('-'))
        && !args.iter().any(|a| full_match(&a.text, "--config"))
        && args.iter().any(|a| is_served_model_name(&a.text))
    {
        return Err(Refusal::Error(
            "ValueError: `model` should be provided as the first positional argument when using `vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.".into(),
        ));
    }
    if steps.config_file
        && let Some(i) = args.iter().position(|a| a.text == "--config")
    {
        if args.iter().filter(|a| a.text == "--config").count() > 1 {
            return Err(Refusal::Error(
                "AssertionError: More than one config file specified!".into(),
            ));
        }
        let Some(file) = args.get(i + 1).map(|a| a.text.clone()) else {
            return Err(Refusal::Error(
                "ValueError: No config file specified! Please check your command-line arguments."
                    .into(),
            ));
        };
        let ext = file.rsplit('.').next().unwrap_or_default();
        if ext != "yaml" && ext != "yml" {
            return Err(Refusal::Error(format!(
                "ValueError: Config file must be of a yaml/yml type. {ext} supplied"
            )));
        }
        return Err(Refusal::ConfigFile(file));
    }
    if steps.underscores {
        for a in &mut args {
            a.text = dashes_in_name(&a.text);
        }
    }
    if steps.optimization_flag {
        args = optimization_flags(args);
    }
    if steps.dotted_json {
        args = dotted(args, steps)?;
    }
    Ok(args)
}

/// `^NAME(=.+|$)`: the option alone, or with `=` and a non-empty value.
fn full_match(a: &str, name: &str) -> bool {
    a == name
        || a.strip_prefix(name)
            .and_then(|r| r.strip_prefix('='))
            .is_some_and(|v| !v.is_empty())
}

/// `^--served[-_]model[-_]name(=.+|$)`.
fn is_served_model_name(a: &str) -> bool {
    let (name, value) = match a.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (a, None),
    };
    name.len() == "--served-model-name".len()
        && name.replace('_', "-") == "--served-model-name"
        && name.starts_with("--served")
        && value.is_none_or(|v| !v.is_empty())
}

/// `--max_model_len=1` -> `--max-model-len=1`; `--a_b.c_d` -> `--a-b.c_d`.
fn dashes_in_name(a: &str) -> String {
    if !a.starts_with("--") {
        return a.to_string();
    }
    let (name, rest) = match a.find('=') {
        Some(i) => (&a[..i], &a[i..]),
        None => (a, ""),
    };
    let body = &name[2..];
    let (head, tail) = match body.find('.') {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    format!("--{}{tail}{rest}", head.replace('_', "-"))
}

fn optimization_flags(args: Vec<Traced>) -> Vec<Traced> {
    let mut out = Vec::with_capacity(args.len() + 1);
    let mut iter = args.into_iter().peekable();
    let level = |from: &[usize]| Traced {
        text: "--optimization-level".to_string(),
        from: from.to_vec(),
    };
    while let Some(a) = iter.next() {
        if a.text == "-O" {
            if iter
                .peek()
                .is_some_and(|n| matches!(n.text.as_str(), "0" | "1" | "2" | "3"))
            {
                out.push(level(&a.from));
            } else {
                out.push(a);
            }
        } else if let Some(rest) = a.text.strip_prefix("-O") {
            out.push(level(&a.from));
            out.push(Traced {
                text: rest.strip_prefix('=').unwrap_or(rest).to_string(),
                from: a.from,
            });
        } else {
            out.push(a);
        }
    }
    out
}

/// Step 6: dotted keys merged into one JSON object per head, appended at the end.
fn dotted(args: Vec<Traced>, steps: &Steps) -> Result<Vec<Traced>, Refusal> {
    let mut out = Vec::with_capacity(args.len());
    let mut heads: Vec<(String, Value, Vec<usize>)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i].text;
        let dotted_arg = a.starts_with('-') && a.contains('.');
        if !dotted_arg {
            out.push(args[i].clone());
            i += 1;
            continue;
        }
        let mut from = args[i].from.clone();
        let (key, value) = match a.split_once('=') {
            Some((k, v)) => {
                if !k.contains('.') {
                    out.push(args[i].clone());
                    i += 1;
                    continue;
                }
                (k.to_string(), v.to_string())
            }
            None => {
                let Some(v) = args.get(i + 1) else {
                    return Err(Refusal::Error("IndexError: list index out of range".into()));
                };
                from.extend(v.from.iter().copied());
                i += 1;
                (a.clone(), v.text.clone())
            }
        };
        i += 1;
        let (key, value) = match key.strip_suffix('+') {
            Some(k) if steps.dotted_list_plus => {
                let items: Vec<Value> = value.split(',').map(|s| Value::String(s.into())).collect();
                (k.to_string(), Value::Array(items).to_string())
            }
            _ => (key, value),
        };
        let mut parts = key.split('.');
        let head = parts.next().unwrap_or_default().to_string();
        let subs: Vec<&str> = parts.collect();
        let parsed = parse_value(&value, steps);
        let mut nested = parsed;
        for k in subs.iter().rev() {
            let mut m = Map::new();
            m.insert((*k).to_string(), nested);
            nested = Value::Object(m);
        }
        match heads.iter_mut().find(|(h, _, _)| *h == head) {
            Some((_, v, f)) => {
                merge(v, nested);
                f.extend(from);
            }
            None => heads.push((head, nested, from)),
        }
    }
    for (head, v, from) in heads {
        out.push(Traced {
            text: head,
            from: from.clone(),
        });
        out.push(Traced {
            text: python_json_dumps(&v),
            from,
        });
    }
    Ok(out)
}

fn parse_value(value: &str, steps: &Steps) -> Value {
    if let Some(v) = crate::engine::pyjson::loads(value) {
        return v;
    }
    if steps.dotted_value_fallback.as_deref() == Some("human_readable_int_then_string")
        && let Ok(n) = human_readable_int(value)
    {
        return Value::from(n);
    }
    Value::String(value.to_string())
}

/// Merges `b` into `a`: objects key by key, lists concatenated, else replaced.
fn merge(a: &mut Value, b: Value) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in y {
                match x.get_mut(&k) {
                    Some(old) => merge(old, v),
                    None => {
                        x.insert(k, v);
                    }
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => x.extend(y),
        (a, b) => *a = b,
    }
}

/// JSON as Python's `json.dumps` writes it (`", "` and `": "` separators,
/// non-ASCII escaped), so the appended argument reads as vLLM's does.
pub fn python_json_dumps(v: &Value) -> String {
    fn s(out: &mut String, v: &Value) {
        match v {
            Value::Object(m) => {
                out.push('{');
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    string(out, k);
                    out.push_str(": ");
                    s(out, x);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    s(out, x);
                }
                out.push(']');
            }
            Value::String(t) => string(out, t),
            other => out.push_str(&other.to_string()),
        }
    }
    fn string(out: &mut String, t: &str) {
        out.push('"');
        for c in t.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{u:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    let mut out = String::new();
    s(&mut out, v);
    out
}

/// vLLM's `human_readable_int`: `1k` = 1000, `1K` = 1024, `1.5m` = 1,500,000;
/// a decimal with a binary suffix is an error; else a Python `int`.
pub fn human_readable_int(s: &str) -> Result<i64, String> {
    let t = s.trim();
    if let Some(last) = t.chars().last()
        && "kKmMgGtT".contains(last)
    {
        let number = &t[..t.len() - 1];
        let valid = !number.is_empty()
            && number.split_once('.').map_or(
                number.chars().all(|c| c.is_ascii_digit()),
                |(a, b)| {
                    !a.is_empty()
                        && !b.is_empty()
                        && a.chars().all(|c| c.is_ascii_digit())
                        && b.chars().all(|c| c.is_ascii_digit())
                },
            );
        if valid {
            let pow = match last.to_ascii_lowercase() {
                'k' => 1,
                'm' => 2,
                'g' => 3,
                _ => 4,
            };
            if last.is_ascii_lowercase() {
                let f: f64 = number.parse().map_err(|_| invalid(s))?;
                let v = f * 10f64.powi(3 * pow);
                if !v.is_finite() || v.abs() >= 9.2e18 {
                    return Err(invalid(s));
                }
                return Ok(v.trunc() as i64);
            }
            if number.contains('.') {
                return Err(format!(
                    "Decimals are not allowed with binary suffixes like {last}. Did you mean to use {number}{} instead?",
                    last.to_ascii_lowercase()
                ));
            }
            let n: i64 = number.parse().map_err(|_| invalid(s))?;
            return n.checked_mul(1i64 << (10 * pow)).ok_or_else(|| invalid(s));
        }
    }
    crate::engine::types::py_int(t).ok_or_else(|| invalid(s))
}

fn invalid(s: &str) -> String {
    format!(
        "invalid human_readable_int value: {}",
        crate::engine::types::py_str_repr(s)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Steps {
        Steps {
            model_option_moved: true,
            served_model_name_check: true,
            config_file: true,
            underscores: true,
            optimization_flag: true,
            dotted_json: true,
            dotted_list_plus: true,
            dotted_value_fallback: Some("human_readable_int_then_string".into()),
        }
    }

    fn run(args: &[&str]) -> Result<Vec<String>, Refusal> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        preprocess(&v, &all())
    }

    #[test]
    fn model_moves_to_the_front() {
        assert_eq!(
            run(&["--tp", "2", "--model", "m/x"]).unwrap(),
            ["m/x", "--tp", "2"]
        );
        assert_eq!(
            run(&["--model=m/x", "-tp", "2"]).unwrap(),
            ["m/x", "-tp", "2"]
        );
        assert!(matches!(run(&["--model"]), Err(Refusal::Error(_))));
    }

    #[test]
    fn served_model_name_needs_a_positional_model() {
        assert!(matches!(
            run(&["--tp", "2", "--served_model_name", "x"]),
            Err(Refusal::Error(m)) if m.contains("first positional argument")
        ));
        assert!(run(&["m", "--served-model-name", "x"]).is_ok());
    }

    #[test]
    fn underscores_up_to_the_first_dot() {
        assert_eq!(
            run(&[
                "m",
                "--max_model_len=1k",
                "--attention_config.flash_attn_version",
                "3"
            ])
            .unwrap(),
            [
                "m",
                "--max-model-len=1k",
                "--attention-config",
                "{\"flash_attn_version\": 3}"
            ]
        );
    }

    #[test]
    fn optimization_levels() {
        assert_eq!(
            run(&["m", "-O3"]).unwrap(),
            ["m", "--optimization-level", "3"]
        );
        assert_eq!(
            run(&["m", "-O=2"]).unwrap(),
            ["m", "--optimization-level", "2"]
        );
        assert_eq!(
            run(&["m", "-O", "1"]).unwrap(),
            ["m", "--optimization-level", "1"]
        );
        assert_eq!(run(&["m", "-O", "x"]).unwrap(), ["m", "-O", "x"]);
    }

    #[test]
    fn dotted_keys_merge_and_go_last() {
        assert_eq!(
            run(&[
                "m",
                "--compilation-config.cudagraph_mode",
                "FULL",
                "--tp",
                "2",
                "--compilation-config.pass_config.fuse=true",
                "-cc.sizes+",
                "1,2",
            ])
            .unwrap(),
            [
                "m",
                "--tp",
                "2",
                "--compilation-config",
                "{\"cudagraph_mode\": \"FULL\", \"pass_config\": {\"fuse\": true}}",
                "-cc",
                "{\"sizes\": [\"1\", \"2\"]}",
            ]
        );
        // A value that is not JSON: a human-readable int, else the string.
        assert_eq!(
            run(&["m", "--x.size", "2k", "--x.name", "abc"]).unwrap(),
            ["m", "--x", "{\"size\": 2000, \"name\": \"abc\"}"]
        );
    }

    #[test]
    fn config_files_are_reported() {
        assert_eq!(
            run(&["m", "--config", "c.yaml"]),
            Err(Refusal::ConfigFile("c.yaml".into()))
        );
    }

    #[test]
    fn human_readable_ints() {
        assert_eq!(human_readable_int("1k"), Ok(1000));
        assert_eq!(human_readable_int("1K"), Ok(1024));
        assert_eq!(human_readable_int("1.5m"), Ok(1_500_000));
        assert_eq!(human_readable_int("0.3k"), Ok(300));
        assert_eq!(human_readable_int(" 32768 "), Ok(32768));
        assert!(
            human_readable_int("1.5K")
                .unwrap_err()
                .contains("Decimals are not allowed")
        );
        assert!(human_readable_int("abc").is_err());
    }
}
