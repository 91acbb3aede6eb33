//! Backslash escapes as bash decodes them in `$'...'`, in a `printf` format,
//! and in `printf %b` / `echo -e` arguments.
//!
//! Text is Unicode here: an escape that makes a NUL or a byte that is not
//! UTF-8 text on its own (`\x80`, `\377`) is unknown with a reason.

/// Where the escapes are decoded: the three differ in details.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `$'...'`: `\cX` is a control character, `\'` `\"` `\?` lose the backslash.
    AnsiC,
    /// A `printf` format: `\c` stays as written.
    Format,
    /// `echo -e` and `printf %b`: `\0NNN` octal, `\c` ends all output,
    /// `\'` `\"` `\?` keep the backslash.
    Echo,
}

/// The decoded text, and whether `\c` ended the output there (echo mode).
pub fn decode(s: &str, mode: Mode) -> Result<(String, bool), String> {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
        } else if escape(&mut it, mode, &mut out)? {
            return Ok((out, true));
        }
    }
    Ok((out, false))
}

/// Decodes one escape whose backslash was just read from `it` into `out`:
/// true when it is `\c` ending the output (echo mode).
pub fn escape(
    it: &mut std::iter::Peekable<std::str::Chars<'_>>,
    mode: Mode,
    out: &mut String,
) -> Result<bool, String> {
    let Some(e) = it.next() else {
        out.push('\\');
        return Ok(false);
    };
    let simple = match e {
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'e' | 'E' => Some('\x1b'),
        'f' => Some('\x0c'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\x0b'),
        '\\' => Some('\\'),
        '\'' | '"' | '?' if mode != Mode::Echo => Some(e),
        _ => None,
    };
    if let Some(ch) = simple {
        out.push(ch);
        return Ok(false);
    }
    match e {
        '0'..='7' => {
            let more = if mode == Mode::Echo && e == '0' { 3 } else { 2 };
            let mut v = e.to_digit(8).unwrap_or(0);
            for _ in 0..more {
                match it.peek().and_then(|d| d.to_digit(8)) {
                    Some(d) => {
                        v = v * 8 + d;
                        it.next();
                    }
                    None => break,
                }
            }
            out.push(byte(v & 0xff, &format!("\\{e}..."))?);
        }
        'x' | 'u' | 'U' => {
            let max = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            // `$'\x{HH..}'` (bash 5.2, ANSI-C quotes only): every hex digit
            // up to the `}` is read, the value kept to its low byte.
            let braced = e == 'x' && mode == Mode::AnsiC && it.peek() == Some(&'{');
            if braced {
                it.next();
            }
            let max = if braced { usize::MAX } else { max };
            let mut v: u32 = 0;
            let mut n = 0;
            while n < max {
                match it.peek().and_then(|d| d.to_digit(16)) {
                    Some(d) => {
                        v = v.wrapping_mul(16).wrapping_add(d);
                        it.next();
                        n += 1;
                    }
                    None => break,
                }
            }
            if braced {
                if it.peek() == Some(&'}') {
                    it.next();
                }
                out.push(byte(v & 0xff, "\\x{...}")?);
            } else if n == 0 {
                out.push('\\');
                out.push(e);
            } else if e == 'x' {
                out.push(byte(v, "\\x")?);
            } else {
                match char::from_u32(v).filter(|&c| c != '\0') {
                    Some(c) => out.push(c),
                    None => {
                        return Err(format!(
                            "the escape \\{e}{v:X} is not a character (not evaluated)"
                        ));
                    }
                }
            }
        }
        'c' if mode == Mode::Echo => return Ok(true),
        'c' if mode == Mode::AnsiC => match it.next() {
            Some(x) if x.is_ascii() => {
                let v = if x == '?' {
                    0x7f
                } else {
                    (x.to_ascii_uppercase() as u32) & 0x1f
                };
                out.push(byte(v, "\\c")?);
            }
            Some(x) => return Err(format!("the escape \\c{x} is not evaluated")),
            None => out.push_str("\\c"),
        },
        other => {
            out.push('\\');
            out.push(other);
        }
    }
    Ok(false)
}

/// One byte as a character: ASCII only (others are not text on their own).
fn byte(v: u32, what: &str) -> Result<char, String> {
    match v {
        0 => Err(format!(
            "the escape {what} makes a NUL byte, which bash strings cannot hold (not evaluated)"
        )),
        1..=0x7f => Ok(char::from_u32(v).unwrap_or('\0')),
        _ => Err(format!(
            "the escape {what} makes the byte {v:#x}, which is not UTF-8 text on its own (not evaluated)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_bash() {
        let d = |s, m| decode(s, m).unwrap().0;
        assert_eq!(d(r"a\x41\070\u0038\U00000038", Mode::AnsiC), "aA888");
        assert_eq!(d(r"\ca\c?\e\q\x", Mode::AnsiC), "\x01\x7f\x1b\\q\\x");
        assert_eq!(d(r"\0070", Mode::Format), "\x070");
        assert_eq!(d(r"\0070\1010", Mode::Echo), "8A0");
        assert_eq!(d(r#"\"\?"#, Mode::Echo), r#"\"\?"#);
        assert_eq!(d(r#"\"\?"#, Mode::Format), r#""?"#);
        assert_eq!(decode(r"a\cb", Mode::Echo).unwrap(), ("a".into(), true));
        assert_eq!(d(r"a\cb", Mode::Format), r"a\cb");
        assert_eq!(d(r"fp\x{38}\x{4142}\x{41", Mode::AnsiC), "fp8BA");
        assert_eq!(d(r"\x{41}", Mode::Format), r"\x{41}");
        assert!(decode(r"a\x{}b", Mode::AnsiC).is_err());
        assert!(decode(r"\x80", Mode::AnsiC).is_err());
        assert!(decode(r"a\0b", Mode::AnsiC).is_err());
    }
}
