//! Python's `repr()` of the scalar values both sides meet: the engines'
//! argparse messages quote strings with it, and srtctl writes a recipe's
//! floats and strings with `str()`/`repr()`. One spelling for both, so an
//! engine message and a rendered recipe flag never disagree on a quote.

/// Python's `repr(str)`: single quotes unless the text holds a single quote
/// and no double one; backslash, the quote and control characters (C0, DEL
/// and C1) escaped as Python escapes them.
pub fn str_repr(s: &str) -> String {
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

/// Python's `repr(float)`: the shortest digits that read back, fixed between
/// 1e-4 and 1e16, else `d.ddde+XX`.
pub fn float_repr(f: f64) -> String {
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

#[cfg(test)]
mod tests {
    use super::{float_repr, str_repr};

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

    #[test]
    fn strings_read_as_python_quotes_them() {
        for (s, want) in [
            ("fp8", "'fp8'"),
            ("it's", "\"it's\""),
            ("'\"", "'\\'\"'"),
            ("a\\b", "'a\\\\b'"),
            ("\u{7f}\u{85}\u{a0}", "'\\x7f\\x85\u{a0}'"),
            ("tab\there", "'tab\\there'"),
        ] {
            assert_eq!(str_repr(s), want, "{s:?}");
        }
    }
}
