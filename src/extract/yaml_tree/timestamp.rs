//! PyYAML's timestamps (`construct_yaml_timestamp`): a plain scalar such as
//! `2001-12-14 21:59:43.10 -5` is a `datetime` (a `date` without a time),
//! which a Python program prints with `str()`:
//! `2001-12-14 21:59:43.100000-05:00`.

/// `str()` of the `date` / `datetime` PyYAML builds from `t`: `None` when
/// the timestamp resolver does not take `t`; `Some(Err)` when PyYAML fails
/// on it (a day or time out of range, an offset of a day or more).
pub(super) fn python_str(t: &str) -> Option<Result<String, String>> {
    let s = Scan { t: t.as_bytes() };
    let (year, i) = s.digits(0, 4, 4)?;
    let i = s.byte(i, b'-')?;
    let (month, i) = s.digits(i, 1, 2)?;
    let i = s.byte(i, b'-')?;
    let (day, i) = s.digits(i, 1, 2)?;
    if i == t.len() {
        // The resolver takes a date only as `YYYY-MM-DD`.
        if t.len() != 10 {
            return None;
        }
        return Some(check_date(t, year, month, day).map(|()| t.to_string()));
    }
    // `T`, `t` or blanks, then `H:MM:SS`.
    let i = if matches!(t.as_bytes()[i], b'T' | b't') {
        i + 1
    } else {
        let j = s.blanks(i);
        (j > i).then_some(j)?
    };
    let (hour, i) = s.digits(i, 1, 2)?;
    let i = s.byte(i, b':')?;
    let (minute, i) = s.digits(i, 2, 2)?;
    let i = s.byte(i, b':')?;
    let (second, mut i) = s.digits(i, 2, 2)?;
    let mut micro = 0u32;
    if let Some(j) = s.byte(i, b'.') {
        let end = (j..t.len())
            .find(|&k| !t.as_bytes()[k].is_ascii_digit())
            .unwrap_or(t.len());
        // The first six digits, padded with zeros: microseconds.
        let mut frac: String = t[j..end].chars().take(6).collect();
        while frac.len() < 6 {
            frac.push('0');
        }
        micro = frac.parse().unwrap_or(0);
        i = end;
    }
    // An offset: blanks, then `Z` or `±H[H][:MM]`.
    let mut offset: Option<i64> = None;
    if i < t.len() {
        let j = s.blanks(i);
        match t.as_bytes().get(j)? {
            b'Z' if j + 1 == t.len() => offset = Some(0),
            sign @ (b'+' | b'-') => {
                let (h, k) = s.digits(j + 1, 1, 2)?;
                let (m, k) = match s.byte(k, b':') {
                    Some(k2) => s.digits(k2, 2, 2)?,
                    None => (0, k),
                };
                if k != t.len() {
                    return None;
                }
                let minutes = i64::from(h) * 60 + i64::from(m);
                offset = Some(if *sign == b'-' { -minutes } else { minutes });
            }
            _ => return None,
        }
    }
    Some(render(
        t,
        [year, month, day, hour, minute, second],
        micro,
        offset,
    ))
}

/// `str(datetime(...))`, or PyYAML's failure on values out of range.
fn render(t: &str, f: [u32; 6], micro: u32, offset: Option<i64>) -> Result<String, String> {
    let [year, month, day, hour, minute, second] = f;
    check_date(t, year, month, day)?;
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!(
            "PyYAML cannot build a time from {t:?} (hour, minute or second out of range): the program reading this file does not start"
        ));
    }
    let mut out = format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}");
    if micro != 0 {
        out.push_str(&format!(".{micro:06}"));
    }
    if let Some(m) = offset {
        if m.abs() >= 24 * 60 {
            return Err(format!(
                "PyYAML cannot build the offset of {t:?} (a day or more): the program reading this file does not start"
            ));
        }
        let sign = if m < 0 { '-' } else { '+' };
        out.push_str(&format!("{sign}{:02}:{:02}", m.abs() / 60, m.abs() % 60));
    }
    Ok(out)
}

/// Python's `date(year, month, day)` check.
fn check_date(t: &str, year: u32, month: u32, day: u32) -> Result<(), String> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    if year == 0 || day == 0 || day > days {
        return Err(format!(
            "PyYAML cannot build a date from {t:?} (year, month or day out of range): the program reading this file does not start"
        ));
    }
    Ok(())
}

/// A cursor over the bytes of a scalar.
struct Scan<'a> {
    t: &'a [u8],
}

impl Scan<'_> {
    /// `min..=max` ASCII digits at `i`, as a number, and the index after them.
    fn digits(&self, i: usize, min: usize, max: usize) -> Option<(u32, usize)> {
        let n = self.t[i.min(self.t.len())..]
            .iter()
            .take(max)
            .take_while(|b| b.is_ascii_digit())
            .count();
        if n < min {
            return None;
        }
        let v = std::str::from_utf8(&self.t[i..i + n]).ok()?.parse().ok()?;
        Some((v, i + n))
    }

    /// The index after byte `b` at `i`.
    fn byte(&self, i: usize, b: u8) -> Option<usize> {
        (self.t.get(i) == Some(&b)).then_some(i + 1)
    }

    /// The index after the spaces and tabs at `i`.
    fn blanks(&self, i: usize) -> usize {
        let mut j = i;
        while matches!(self.t.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        j
    }
}

#[cfg(test)]
mod tests {
    use super::python_str;

    #[test]
    fn timestamps_print_as_python_prints_them() {
        for (text, want) in [
            (
                "2001-12-14 21:59:43.10 -5",
                "2001-12-14 21:59:43.100000-05:00",
            ),
            (
                "2001-12-14t21:59:43.10-05:00",
                "2001-12-14 21:59:43.100000-05:00",
            ),
            ("2001-12-15T02:59:43.1Z", "2001-12-15 02:59:43.100000+00:00"),
            ("2001-12-15 2:59:43", "2001-12-15 02:59:43"),
            ("2002-12-14", "2002-12-14"),
            (
                "2001-1-2 3:04:05.1234567 +5:30",
                "2001-01-02 03:04:05.123456+05:30",
            ),
        ] {
            assert_eq!(python_str(text), Some(Ok(want.to_string())), "{text}");
        }
        for text in [
            "2001-1-2",
            "2001-12-14x",
            "2001-12-14 1:2:3",
            "20011-12-14",
            "v2001-12-14",
        ] {
            assert_eq!(python_str(text), None, "{text}");
        }
        for text in [
            "2001-02-29",
            "2001-12-14 24:00:00",
            "2001-12-14 1:00:00 +24",
        ] {
            assert!(matches!(python_str(text), Some(Err(_))), "{text}");
        }
    }
}
