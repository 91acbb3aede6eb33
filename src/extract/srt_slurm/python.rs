//! Python's `str()` and `repr()` of the values PyYAML reads from a recipe:
//! srtctl writes a flag's value with `str(value)`, so a float is its shortest
//! repr (`0.9`, `1e-05`, `1e+16`), a boolean in a list is `True`, a mapping is
//! `{'key': 'value'}`.

use crate::extract::yaml_tree::{Node, Val};

/// `str(value)`.
pub(super) fn str_of(n: &Node) -> String {
    match &n.val {
        Val::Str(s) => s.clone(),
        _ => repr(n),
    }
}

/// `repr(value)`.
pub(super) fn repr(n: &Node) -> String {
    match &n.val {
        Val::Null => "None".into(),
        Val::Bool(true) => "True".into(),
        Val::Bool(false) => "False".into(),
        Val::Int(i) => i.to_string(),
        Val::Float(f) => float_repr(*f),
        Val::Str(s) => str_repr(s),
        Val::Seq(items) => {
            let inner: Vec<String> = items.iter().map(repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Val::Map(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, _, v)| format!("{}: {}", str_repr(k), repr(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python's `repr(float)`: the shortest digits that read back, fixed between
/// 1e-4 and 1e16, else `d.ddde+XX`.
pub(super) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` writes the shortest round-trip digits: `1.5e20`, `1e-5`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if f == 0.0 || (-4..16).contains(&exp) {
        let fixed = format!("{f}");
        if fixed.contains('.') {
            fixed
        } else {
            format!("{fixed}.0")
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    }
}

/// Python's `repr(str)`: single quotes unless the text holds a single quote
/// and no double one; backslash, quote and control characters escaped.
fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::float_repr;

    #[test]
    fn floats_read_as_python_writes_them() {
        for (f, want) in [
            (0.9, "0.9"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1.5e20, "1.5e+20"),
            (123456789012345.0, "123456789012345.0"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(float_repr(f), want, "{f}");
        }
    }
}
