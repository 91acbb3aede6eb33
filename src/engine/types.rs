//! Type converters of argparse options, reproduced from Python semantics.
//!
//! Each converter has a name in the exported schemas (`int`, `float`, `json`, ...).
//! Their error messages follow argparse's `invalid <type> value: '<arg>'`.

use serde_json::Value;

/// Converts `s` with the named converter; `Err` carries an argparse-style message.
pub fn convert(kind: &str, s: &str) -> Result<Value, String> {
    match kind {
        "str" => Ok(Value::String(s.to_string())),
        "int" => py_int(s)
            .map(Value::from)
            .ok_or_else(|| format!("invalid int value: '{s}'")),
        "float" => py_float(s).ok_or_else(|| format!("invalid float value: '{s}'")),
        "json" | "json.loads" | "loads" => {
            serde_json::from_str::<Value>(s).map_err(|_| format!("invalid loads value: '{s}'"))
        }
        other => Err(format!(
            "recipe-drift does not know the type converter '{other}'"
        )),
    }
}

/// Python `int(s)` for base 10: surrounding whitespace, sign, `_` between digits.
pub fn py_int(s: &str) -> Option<i64> {
    let t = s.trim_matches(is_py_space);
    let (neg, digits) = match t.as_bytes().first()? {
        b'+' => (false, &t[1..]),
        b'-' => (true, &t[1..]),
        _ => (false, t),
    };
    let clean = strip_underscores(digits)?;
    if clean.is_empty() || !clean.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i64 = clean.parse().ok()?;
    Some(if neg { -v } else { v })
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
    serde_json::Number::from_f64(v).map(Value::Number)
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
    fn floats_follow_python() {
        assert_eq!(py_float("0.80"), py_float("0.8"));
        assert_eq!(py_float("1e-3"), Some(Value::from(0.001)));
        assert_eq!(py_float("1_0.5"), Some(Value::from(10.5)));
        assert_eq!(py_float("abc"), None);
        assert_eq!(py_float(".5"), Some(Value::from(0.5)));
    }
}
