//! vLLM's argument type converters, by the kind names of its schemas
//! (`type_kinds` in `schemas/<version>.json` says what each does).

use serde_json::{Map, Value};

use super::preprocess::human_readable_int;
use crate::engine::argparse::OptionSpec;
use crate::engine::types::{py_float, py_int, py_str_repr};

/// Converts one argument string with a vLLM option's type.
pub fn convert(a: &OptionSpec, s: &str) -> Result<Value, String> {
    let kind = a.type_kind.as_deref().unwrap_or("str");
    let params = a.extra.get("type_params");
    convert_kind(kind, s, params, 0)
}

/// The `i`-th entry of `return_type_reprs` (what vLLM's error names).
fn repr(params: Option<&Value>, i: usize) -> String {
    params
        .and_then(|p| p.get("return_type_reprs"))
        .and_then(Value::as_array)
        .and_then(|r| r.get(i).or(r.last()))
        .and_then(Value::as_str)
        .unwrap_or("<unknown>")
        .to_string()
}

fn convert_kind(
    kind: &str,
    s: &str,
    params: Option<&Value>,
    depth: usize,
) -> Result<Value, String> {
    if let Some(inner) = kind.strip_prefix("optional_") {
        if s.is_empty() || s == "None" {
            return Ok(Value::Null);
        }
        // optional_type(K) parses with parse_type(K).
        return parse_wrapped(inner, s, params, depth);
    }
    if let Some(inner) = kind.strip_prefix("parse_") {
        return parse_wrapped(inner, s, params, depth);
    }
    base(kind, s, params).map_err(|e| match e {
        Failure::Value => invalid(callable_name(kind), s),
        Failure::Message(m) => m,
    })
}

/// The name argparse gives a type callable in "invalid NAME value" messages.
fn callable_name(kind: &str) -> &str {
    match kind {
        "json" => "loads",
        "config" => "parse_dataclass",
        "reasoning_parser" => "parse_reasoning_parser",
        "lower_underscore" | "device_ids" => "<lambda>",
        other => other,
    }
}

/// `parse_type(K)`: a ValueError of K becomes "Value s cannot be converted to K."
fn parse_wrapped(
    inner: &str,
    s: &str,
    params: Option<&Value>,
    depth: usize,
) -> Result<Value, String> {
    if inner.starts_with("optional_") || inner.starts_with("parse_") {
        return convert_kind(inner, s, params, depth + 1);
    }
    base(inner, s, params).map_err(|e| match e {
        Failure::Value => format!("Value {s} cannot be converted to {}.", repr(params, depth)),
        Failure::Message(m) => m,
    })
}

/// Why a base converter failed.
enum Failure {
    /// A Python ValueError (argparse names the type in its message).
    Value,
    /// A message of its own (an ArgumentTypeError).
    Message(String),
}

fn base(kind: &str, s: &str, params: Option<&Value>) -> Result<Value, Failure> {
    match kind {
        "str" => Ok(Value::String(s.to_string())),
        "int" => py_int(s).map(Value::from).ok_or(Failure::Value),
        "float" => py_float(s).ok_or(Failure::Value),
        "json" => json_loads(s).ok_or(Failure::Value),
        "human_readable_int" => human_readable_int(s).map(Value::from).map_err(hri_failure),
        "human_readable_int_or_auto" => {
            let t = s.trim();
            if t == "-1" || t.eq_ignore_ascii_case("auto") {
                Ok(Value::from(-1))
            } else {
                human_readable_int(t).map(Value::from).map_err(hri_failure)
            }
        }
        "lower_underscore" => Ok(Value::String(s.to_lowercase().replace('-', "_"))),
        "reasoning_parser" => Ok(Value::String(if s.eq_ignore_ascii_case("none") {
            String::new()
        } else {
            s.to_string()
        })),
        "device_ids" => Ok(Value::Array(
            s.split(',')
                .map(|p| {
                    let p = p.trim();
                    if !p.is_empty() && p.chars().all(|c| c.is_numeric()) {
                        py_int(p)
                            .map(Value::from)
                            .unwrap_or(Value::String(p.into()))
                    } else {
                        Value::String(p.to_string())
                    }
                })
                .collect(),
        )),
        "union_dict_and_str" => {
            let t = s.trim();
            if !(t.starts_with('{') && t.ends_with('}')) {
                return Ok(Value::String(s.to_string()));
            }
            json_loads(s).ok_or_else(|| {
                Failure::Message(format!(
                    "Value {s} cannot be converted to <function loads at 0x...>."
                ))
            })
        }
        "config" => config(s, params),
        other => Err(Failure::Message(format!(
            "recipe-drift does not know the vLLM type converter '{other}'"
        ))),
    }
}

fn hri_failure(m: String) -> Failure {
    if m.starts_with("invalid human_readable_int value") {
        Failure::Value
    } else {
        Failure::Message(m)
    }
}

/// Python `json.loads` (surrounding whitespace allowed).
fn json_loads(s: &str) -> Option<Value> {
    crate::engine::pyjson::loads(s)
}

/// A vLLM config class from JSON: numbers like `2k` expanded, an object
/// required, unknown top-level keys refused when the class forbids them. The
/// field types are checked after parsing, per release (`fields.rs`).
fn config(s: &str, params: Option<&Value>) -> Result<Value, Failure> {
    let obj = config_object(s, params).ok_or(Failure::Value)?;
    let forbid = params.and_then(|p| p.get("extra")).and_then(Value::as_str) == Some("forbid");
    if forbid
        && let Some(fields) = params
            .and_then(|p| p.get("fields"))
            .and_then(Value::as_array)
    {
        for k in obj.keys() {
            if !fields.iter().any(|f| f.as_str() == Some(k)) {
                return Err(Failure::Value);
            }
        }
    }
    let class = params
        .and_then(|p| p.get("class"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut m = Map::new();
    m.insert("$config".into(), class);
    m.insert("input".into(), Value::Object(obj));
    Ok(Value::Object(m))
}

/// The JSON object of a config option's value as its converter reads it
/// (numbers like `2k` expanded when the option does), before the class's
/// fields are checked; `None` when it is not an object.
pub fn config_object(s: &str, params: Option<&Value>) -> Option<Map<String, Value>> {
    let expand = params
        .and_then(|p| p.get("expand_numbers"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let text = if expand {
        expand_numbers(s)
    } else {
        s.to_string()
    };
    match json_loads(&text)? {
        Value::Object(obj) => Some(obj),
        _ => None,
    }
}

/// Outside double-quoted strings, `\b\d+(\.\d+)?[kKmMgGtT]\b` becomes its integer.
fn expand_numbers(s: &str) -> String {
    let re = regex::Regex::new(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b").expect("valid regex");
    let mut out = String::with_capacity(s.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut chunk = String::new();
    let flush = |chunk: &mut String, out: &mut String| {
        out.push_str(&re.replace_all(chunk, |c: &regex::Captures| {
            human_readable_int(&c[0])
                .map(|n| n.to_string())
                .unwrap_or_else(|_| c[0].to_string())
        }));
        chunk.clear();
    };
    for c in s.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            flush(&mut chunk, &mut out);
            out.push(c);
            in_string = true;
        } else {
            chunk.push(c);
        }
    }
    flush(&mut chunk, &mut out);
    out
}

/// Python's message for a plain failure of a named type.
fn invalid(name: &str, s: &str) -> String {
    format!("invalid {name} value: {}", py_str_repr(s))
}
