//! Python's `json.loads` and `int()` on text, as the engines (Python programs)
//! read their arguments: what serde_json or Rust's parsers accept is not what
//! Python accepts.
//!
//! - `json.loads` accepts `NaN`, `Infinity` and `-Infinity`; a number too large
//!   for a float is `inf` (`1e400`); `\ud800` (a lone surrogate) is a valid
//!   string; control characters inside strings are refused (strict mode);
//!   surrounding whitespace is ` \t\n\r` only; the last of duplicate keys wins.
//! - `int()` accepts every Unicode decimal digit (`１２`, `١٢`), `_` between
//!   digits, and surrounding Unicode whitespace.
//!
//! Values Rust's JSON cannot hold are spelled as [`crate::engine::types::py_float`]
//! spells them: the strings `NaN`, `inf` and `-inf`; a lone surrogate is kept
//! as its escape text (`\ud800`) inside the string; an integer beyond 64 bits
//! becomes the nearest float.

use serde_json::{Map, Number, Value};

/// How deep arrays and objects may nest (Python's recursion limit refuses
/// deeper documents; so do we, with the same outcome: not JSON).
pub const MAX_DEPTH: usize = 512;

/// Python `json.loads(s)`; `None` when Python raises.
pub fn loads(s: &str) -> Option<Value> {
    let mut p = Parser {
        b: s.as_bytes(),
        s,
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    (p.i == p.b.len()).then_some(v)
}

struct Parser<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        match *self.b.get(self.i)? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(Value::String),
            b'n' if self.eat("null") => Some(Value::Null),
            b't' if self.eat("true") => Some(Value::Bool(true)),
            b'f' if self.eat("false") => Some(Value::Bool(false)),
            b'N' if self.eat("NaN") => Some(Value::String("NaN".into())),
            b'I' if self.eat("Infinity") => Some(Value::String("inf".into())),
            b'-' if self.eat("-Infinity") => Some(Value::String("-inf".into())),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut m = Map::new();
        self.ws();
        if self.eat("}") {
            return Some(Value::Object(m));
        }
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let k = self.string()?;
            self.ws();
            if !self.eat(":") {
                return None;
            }
            self.ws();
            let v = self.value(depth + 1)?;
            m.insert(k, v);
            self.ws();
            if self.eat(",") {
                continue;
            }
            return self.eat("}").then_some(Value::Object(m));
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut out = Vec::new();
        self.ws();
        if self.eat("]") {
            return Some(Value::Array(out));
        }
        loop {
            self.ws();
            out.push(self.value(depth + 1)?);
            self.ws();
            if self.eat(",") {
                continue;
            }
            return self.eat("]").then_some(Value::Array(out));
        }
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`, ASCII digits.
    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.i < p.b.len() && p.b[p.i].is_ascii_digit() {
                p.i += 1;
            }
            p.i - s
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return None,
        }
        let int_end = self.i;
        let mut float = false;
        if self.b.get(self.i) == Some(&b'.')
            && self.b.get(self.i + 1).is_some_and(u8::is_ascii_digit)
        {
            self.i += 1;
            digits(self);
            float = true;
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                // Python's scanner stops before an incomplete exponent.
                self.i = save;
            } else {
                float = true;
            }
        }
        let text = &self.s[start..self.i];
        if !float {
            let t = &self.s[start..int_end];
            if let Ok(n) = t.parse::<i64>() {
                return Some(Value::from(n));
            }
            if let Ok(n) = t.parse::<u64>() {
                return Some(Value::from(n));
            }
        }
        let v: f64 = text.parse().ok()?;
        Some(match Number::from_f64(v) {
            Some(n) => Value::Number(n),
            None => Value::String(format!("{v}")),
        })
    }

    fn string(&mut self) -> Option<String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let c = self.s[self.i..].chars().next()?;
            match c {
                '"' => {
                    self.i += 1;
                    return Some(out);
                }
                '\\' => {
                    self.i += 1;
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xD800..0xDC00).contains(&hi)
                                && self.s[self.i..].starts_with("\\u")
                                && let Some(lo) = self.peek_hex4(self.i + 2)
                                && (0xDC00..0xE000).contains(&lo)
                            {
                                self.i += 6;
                                let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                                out.push(char::from_u32(cp)?);
                            } else if let Some(ch) = char::from_u32(hi) {
                                out.push(ch);
                            } else {
                                // A lone surrogate: kept as its escape text.
                                out.push_str(&format!("\\u{hi:04x}"));
                            }
                        }
                        _ => return None,
                    }
                }
                c if (c as u32) < 0x20 => return None,
                c => {
                    out.push(c);
                    self.i += c.len_utf8();
                }
            }
        }
    }

    fn peek_hex4(&self, at: usize) -> Option<u32> {
        let h = self.s.get(at..at + 4)?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    }

    fn hex4(&mut self) -> Option<u32> {
        let v = self.peek_hex4(self.i)?;
        self.i += 4;
        Some(v)
    }
}

/// The code points of the Unicode decimal digits zero (general category Nd,
/// Unicode 15.0 as in Python 3.12): each starts a run of ten digits 0..9.
const DIGIT_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950,
    0x1FBF0,
];

/// The value of a Unicode decimal digit (`str.isdecimal()` characters).
pub fn decimal_digit(c: char) -> Option<u32> {
    let cp = c as u32;
    let i = DIGIT_ZEROS.partition_point(|&z| z <= cp);
    let zero = *DIGIT_ZEROS.get(i.checked_sub(1)?)?;
    (cp - zero < 10).then_some(cp - zero)
}

/// Python `int(s)` of a text in base 10, when it fits 64 bits: Unicode
/// decimal digits, `_` between digits, a sign, surrounding whitespace.
pub fn py_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, body) = match t.chars().next()? {
        '+' => (false, &t[1..]),
        '-' => (true, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    let mut prev_digit = false;
    let mut any = false;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            // Only between digits.
            if !prev_digit || chars.peek().is_none_or(|&n| decimal_digit(n).is_none()) {
                return None;
            }
            prev_digit = false;
            continue;
        }
        let d = decimal_digit(c)?;
        v = v.checked_mul(10)?.checked_add(i64::from(d))?;
        prev_digit = true;
        any = true;
    }
    if !any {
        return None;
    }
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_as_python_reads_it() {
        assert_eq!(
            loads(" {\"a\": NaN, \"b\": [Infinity, -Infinity]}\n"),
            Some(json!({"a": "NaN", "b": ["inf", "-inf"]}))
        );
        assert_eq!(loads("1e400"), Some(json!("inf")));
        assert_eq!(loads("-1e400"), Some(json!("-inf")));
        assert_eq!(loads("\"\\ud800x\""), Some(json!("\\ud800x")));
        assert_eq!(loads("\"\\ud83d\\ude00\""), Some(json!("\u{1F600}")));
        assert_eq!(loads("{\"a\": 1, \"a\": 2}"), Some(json!({"a": 2})));
        assert_eq!(
            loads("12345678901234567890"),
            Some(json!(12345678901234567890u64))
        );
        assert_eq!(loads("2.50"), Some(json!(2.5)));
        for bad in [
            "01",
            "1.",
            ".5",
            "+1",
            "nan",
            "inf",
            "'a'",
            "\"a\tb\"",
            "[1,]",
            "{\"a\":1,}",
            "\u{a0}1",
            "1 2",
            "",
            "１",
        ] {
            assert_eq!(loads(bad), None, "{bad:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        assert_eq!(loads(&deep), None);
    }

    #[test]
    fn int_as_python_reads_it() {
        assert_eq!(py_int("１２"), Some(12));
        assert_eq!(py_int("١٢"), Some(12));
        assert_eq!(py_int(" -1_000\u{3000}"), Some(-1000));
        assert_eq!(py_int("\u{11F52}"), Some(2));
        for bad in [
            "",
            "_1",
            "1_",
            "1__0",
            "1k",
            "0x10",
            "+-1",
            "1.0",
            "9223372036854775808",
        ] {
            assert_eq!(py_int(bad), None, "{bad:?}");
        }
        assert_eq!(decimal_digit('9'), Some(9));
        assert_eq!(decimal_digit('a'), None);
        assert_eq!(decimal_digit('\u{2F}'), None);
    }
}
