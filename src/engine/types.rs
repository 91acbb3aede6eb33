//! Type converters of argparse options, reproduced from Python semantics.
//!
//! Each converter has a name in the exported schemas (`int`, `float`, `json`, ...).
//! Their error messages follow argparse's `invalid <type> value: '<arg>'`.

use serde_json::Value;

/// Converts `s` with the named converter; `Err` carries an argparse-style message.
/// `params` are the converter's parameters recorded in the schema (`type_params`).
pub fn convert(kind: &str, s: &str, params: Option<&Value>) -> Result<Value, String> {
    match kind {
        "str" => Ok(Value::String(s.to_string())),
        "int" => py_int(s).map(Value::from).ok_or_else(|| {
            if beyond_64_bits(s) {
                format!(
                    "{} is a valid Python int, but beyond 64 bits, which recipe-drift does not represent (this is recipe-drift's limit, not the engine's)",
                    py_str_repr(s)
                )
            } else {
                format!("invalid int value: {}", py_str_repr(s))
            }
        }),
        "float" => py_float(s).ok_or_else(|| format!("invalid float value: {}", py_str_repr(s))),
        "json" => super::pyjson::loads(s)
            .ok_or_else(|| format!("invalid loads value: {}", py_str_repr(s))),
        "json_list_type" => super::pyjson::loads(s)
            .ok_or_else(|| format!("Invalid JSON list: {s}. Please provide a valid JSON list.")),
        "nullable_str" => Ok(if s.is_empty() || s == "None" {
            Value::Null
        } else {
            Value::String(s.to_string())
        }),
        "human_readable_int" => human_readable_int(s),
        "cuda_graph_backend" => {
            if s == "tc_piecewise" {
                Err(TC_PIECEWISE_REMOVED.to_string())
            } else {
                Ok(Value::String(s.to_string()))
            }
        }
        "cuda_graph_config_v1" => cuda_graph_config(s, params, false),
        "cuda_graph_config_v2" => cuda_graph_config(s, params, true),
        other => Err(format!(
            "recipe-drift does not know the type converter '{other}'"
        )),
    }
}

const TC_PIECEWISE_REMOVED: &str = "tc_piecewise was removed; select breakable, full, or disabled";

fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

pub use crate::pyrepr::str_repr as py_str_repr;

/// Python's type name of a JSON-held value.
fn py_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python tuple repr of strings.
fn py_tuple_repr(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| py_str_repr(s)).collect();
    if inner.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(", "))
    }
}

/// SGLang's `--cuda-graph-config` parser: a JSON object of phases with known keys.
fn cuda_graph_config(s: &str, params: Option<&Value>, v2: bool) -> Result<Value, String> {
    let parsed: Value = serde_json::from_str(s.trim_matches(is_json_space))
        .map_err(|e| format!("--cuda-graph-config must be JSON: {e}"))?;
    let Value::Object(map) = &parsed else {
        return Err(format!(
            "--cuda-graph-config must be a JSON object, got {}",
            py_type_name(&parsed)
        ));
    };
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let phases = strings(params.and_then(|p| p.get("phases")));
    for (phase, value) in map {
        if !phases.contains(phase) {
            return Err(format!(
                "--cuda-graph-config: unknown phase {}, expected one of {}",
                py_str_repr(phase),
                py_tuple_repr(&phases)
            ));
        }
        let Value::Object(inner) = value else {
            return Err(format!(
                "--cuda-graph-config[{}] must be a JSON object, got {}",
                py_str_repr(phase),
                py_type_name(value)
            ));
        };
        if v2 && inner.get("backend") == Some(&Value::String("tc_piecewise".into())) {
            return Err(TC_PIECEWISE_REMOVED.to_string());
        }
        let allowed = strings(
            params
                .and_then(|p| p.get("allowed_keys"))
                .and_then(|a| a.get(phase)),
        );
        for key in inner.keys() {
            if !allowed.contains(key) {
                return Err(format!(
                    "--cuda-graph-config[{}]: unknown key {}, expected one of {}",
                    py_str_repr(phase),
                    py_str_repr(key),
                    py_tuple_repr(&allowed)
                ));
            }
        }
    }
    Ok(parsed)
}

/// SGLang `human_readable_int`: plain ints, SI (`1k`) and IEC (`1Ki`) suffixes.
fn human_readable_int(s: &str) -> Result<Value, String> {
    let t = s.trim_matches(is_py_space);
    const SUFFIXES: &[(&str, u128, bool)] = &[
        ("Ki", 1 << 10, true),
        ("Mi", 1 << 20, true),
        ("Gi", 1 << 30, true),
        ("Ti", 1 << 40, true),
        ("k", 1_000, false),
        ("M", 1_000_000, false),
        ("G", 1_000_000_000, false),
        ("T", 1_000_000_000_000, false),
    ];
    for (suffix, mult, iec) in SUFFIXES {
        let Some(num) = t.strip_suffix(suffix) else {
            continue;
        };
        let (int_part, frac) = match num.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (num, None),
        };
        let digits = |x: &str| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit());
        if !digits(int_part) || frac.is_some_and(|f| !digits(f)) {
            continue;
        }
        if *iec {
            if frac.is_some() {
                let whole: u128 = int_part.parse().unwrap_or(0);
                return Err(format!(
                    "Decimals are not allowed with IEC suffixes like '{suffix}'. Use an integer IEC value such as '{whole}{suffix}', or an SI value such as '{num}{}'.",
                    &suffix[..1]
                ));
            }
            let n: u128 = int_part.parse().map_err(|_| invalid_hri(s))?;
            return i64::try_from(n * mult)
                .map(Value::from)
                .map_err(|_| invalid_hri(s));
        }
        let whole: u128 = int_part.parse().map_err(|_| invalid_hri(s))?;
        let mut v = whole * mult;
        if let Some(f) = frac {
            // int(Decimal(number) * multiplier): truncate the fraction's contribution.
            let scale = 10u128.pow(f.len().min(30) as u32);
            let fnum: u128 = f[..f.len().min(30)].parse().unwrap_or(0);
            v += fnum * mult / scale;
        }
        return i64::try_from(v)
            .map(Value::from)
            .map_err(|_| invalid_hri(s));
    }
    py_int(t).map(Value::from).ok_or_else(|| invalid_hri(t))
}

fn invalid_hri(s: &str) -> String {
    if beyond_64_bits(s) {
        return format!(
            "'{s}' is a valid Python int, but beyond 64 bits, which recipe-drift does not represent (this is recipe-drift's limit, not the engine's)"
        );
    }
    format!(
        "Invalid integer value: '{s}'. Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). Suffixes are case-sensitive."
    )
}

/// Whether `s` is a Python int that [`py_int`] cannot hold: the same text
/// with every digit made `0` is one.
fn beyond_64_bits(s: &str) -> bool {
    let zeroed: String = s
        .chars()
        .map(|c| {
            if super::pyjson::decimal_digit(c).is_some() {
                '0'
            } else {
                c
            }
        })
        .collect();
    py_int(&zeroed).is_some()
}

/// Python `int(s)` for base 10: surrounding whitespace, sign, `_` between digits,
/// any Unicode decimal digits (see [`super::pyjson::py_int`]).
pub fn py_int(s: &str) -> Option<i64> {
    super::pyjson::py_int(s)
}

/// Python `float(s)`: returns a JSON number, or a string for infinities and NaN.
pub fn py_float(s: &str) -> Option<Value> {
    let t = s.trim_matches(is_py_space);
    if t.is_empty() {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        if lower.len() - body.len() > 1 {
            return None;
        }
        let v: f64 = lower.parse().ok()?;
        return Some(Value::String(format!("{v}")));
    }
    // Underscores only between digits.
    let clean = strip_underscores(t)?;
    if !clean
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let v: f64 = clean.parse().ok()?;
    // 1e400 overflows to inf in Python as well.
    Some(match serde_json::Number::from_f64(v) {
        Some(n) => Value::Number(n),
        None => Value::String(format!("{v}")),
    })
}

fn is_py_space(c: char) -> bool {
    c.is_whitespace()
}

/// Removes `_` that sit between two digits; any other `_` makes the text invalid.
fn strip_underscores(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let ok =
                i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit();
            if !ok {
                return None;
            }
        } else {
            out.push(c as char);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_follow_python() {
        assert_eq!(py_int(" 12 "), Some(12));
        assert_eq!(py_int("1_000"), Some(1000));
        assert_eq!(py_int("+3"), Some(3));
        assert_eq!(py_int("-007"), Some(-7));
        assert_eq!(py_int("1__0"), None);
        assert_eq!(py_int("_1"), None);
        assert_eq!(py_int("1.0"), None);
        assert_eq!(py_int(""), None);
    }

    #[test]
    fn an_int_beyond_64_bits_is_our_limit_not_an_invalid_value() {
        let big = convert("int", "99999999999999999999999", None).unwrap_err();
        assert!(
            big.contains("valid Python int, but beyond 64 bits"),
            "{big}"
        );
        assert!(big.contains("recipe-drift's limit"), "{big}");
        let bad = convert("int", "9_9__9", None).unwrap_err();
        assert!(bad.starts_with("invalid int value"), "{bad}");
        let bad = convert("int", "two", None).unwrap_err();
        assert!(bad.starts_with("invalid int value"), "{bad}");
    }

    #[test]
    fn floats_follow_python() {
        assert_eq!(py_float("0.80"), py_float("0.8"));
        assert_eq!(py_float("1e-3"), Some(Value::from(0.001)));
        assert_eq!(py_float("1_0.5"), Some(Value::from(10.5)));
        assert_eq!(py_float("abc"), None);
        assert_eq!(py_float(".5"), Some(Value::from(0.5)));
    }
}
