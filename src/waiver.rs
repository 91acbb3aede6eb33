//! Waivers: a divergence accepted on purpose, named in the config with a reason
//! and an expiry date.
//!
//! ```yaml
//! waivers:
//!   - {link: "qwen3.5 mi355x", key: page_size, reason: "...", until: 2027-01-31}
//! ```
//!
//! A waiver in force turns the link's findings on that key into information
//! (marked waived, with the reason). From the day after `until` it no longer
//! applies, and the expired waiver is itself an error. A waiver that matches no
//! finding is reported as unused. `check --no-waivers` ignores them all.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::compare::Severity;
use crate::error::Error;
use crate::report::LinkReport;

/// One waiver as written in the config.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Waiver {
    /// The link's name, as in `links:`.
    pub link: String,
    /// The canonical key whose findings are accepted.
    pub key: String,
    /// Why the divergence is accepted.
    pub reason: String,
    /// The last day the waiver applies (`YYYY-MM-DD`).
    pub until: String,
}

/// A calendar date (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    year: i32,
    month: u32,
    day: u32,
}

impl Date {
    /// Parses `YYYY-MM-DD`.
    pub fn parse(s: &str) -> Option<Date> {
        let mut it = s.split('-');
        let (y, m, d) = (it.next()?, it.next()?, it.next()?);
        if it.next().is_some()
            || y.len() != 4
            || m.len() != 2
            || d.len() != 2
            || ![y, m, d]
                .iter()
                .all(|p| p.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        let date = Date {
            year: y.parse().ok()?,
            month: m.parse().ok()?,
            day: d.parse().ok()?,
        };
        let leap = (date.year % 4 == 0 && date.year % 100 != 0) || date.year % 400 == 0;
        let days = match date.month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days).contains(&date.day).then_some(date)
    }

    /// Today (UTC), or `RECIPE_DRIFT_TODAY` (`YYYY-MM-DD`) when set, for
    /// reproducible runs and tests.
    pub fn today() -> Result<Date, Error> {
        if let Ok(s) = std::env::var("RECIPE_DRIFT_TODAY") {
            return Date::parse(&s).ok_or_else(|| {
                Error::usage(format!("RECIPE_DRIFT_TODAY={s:?} is not a YYYY-MM-DD date"))
            });
        }
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Ok(Date::from_days((secs / 86_400) as i64))
    }

    /// The civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    fn from_days(z: i64) -> Date {
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// What became of a waiver in one run.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The waiver.
    #[serde(flatten)]
    pub waiver: Waiver,
    /// `applied`, `unused` or `expired`.
    pub status: &'static str,
    /// How many findings it waived.
    pub waived: usize,
}

impl Outcome {
    /// Whether this outcome fails the check (an expired waiver).
    pub fn is_error(&self) -> bool {
        self.status == "expired"
    }
}

/// The finding's mark when a waiver applies to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waived {
    /// The waiver's reason.
    pub reason: String,
    /// The last day it applies.
    pub until: String,
}

/// The waivers past their date: errors of the run, whether or not their link
/// runs (a skipped link's waiver expires all the same).
pub fn expired(waivers: &[Waiver], today: Date) -> Vec<Outcome> {
    waivers
        .iter()
        .filter(|w| Date::parse(&w.until).is_some_and(|u| u < today))
        .map(|w| Outcome {
            waiver: w.clone(),
            status: "expired",
            waived: 0,
        })
        .collect()
}

/// Applies the waivers of one link that are still in force to its reports (one per group of matrix
/// points): matching findings become information, marked waived.
pub fn apply(
    link: &str,
    reports: &mut [LinkReport],
    waivers: &[Waiver],
    today: Date,
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for w in waivers.iter().filter(|w| w.link == link) {
        let until = Date::parse(&w.until).expect("validated when the config was read");
        if until < today {
            // Reported once for the whole run by `expired`.
            continue;
        }
        let mut n = 0;
        for r in reports.iter_mut() {
            for f in r.comparison.findings.iter_mut().filter(|f| f.key == w.key) {
                f.severity = Severity::Info;
                f.waived = Some(Waived {
                    reason: w.reason.clone(),
                    until: w.until.clone(),
                });
                n += 1;
            }
        }
        out.push(Outcome {
            waiver: w.clone(),
            status: if n > 0 { "applied" } else { "unused" },
            waived: n,
        });
    }
    out
}

/// Checks each waiver: a link of the config, a known key, a reason, a date.
/// `at(i, field)` gives the config position of waiver `i`'s field, for messages.
pub fn validate(
    waivers: &[Waiver],
    link_names: &[&str],
    is_key: impl Fn(&str) -> bool,
    at: impl Fn(usize, &str) -> crate::span::Span,
) -> Result<(), Error> {
    for (i, w) in waivers.iter().enumerate() {
        let fail = |field: &str, message: String| Error::Input {
            span: at(i, field),
            message,
        };
        if !link_names.contains(&w.link.as_str()) {
            return Err(fail(
                "link",
                format!(
                    "waivers: {:?} is not the name of a link in this config",
                    w.link
                ),
            ));
        }
        if !is_key(&w.key) {
            return Err(fail(
                "key",
                format!(
                    "waivers: {:?} is not a canonical key of any bundled release; see `recipe-drift explain`",
                    w.key
                ),
            ));
        }
        if w.reason.trim().is_empty() {
            return Err(fail(
                "reason",
                format!(
                    "waivers: the waiver of {} on {:?} needs a reason",
                    w.key, w.link
                ),
            ));
        }
        if Date::parse(&w.until).is_none() {
            return Err(fail(
                "until",
                format!("waivers: until {:?} is not a YYYY-MM-DD date", w.until),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(Date::parse("2027-01-31").unwrap().to_string(), "2027-01-31");
        assert!(Date::parse("2027-02-29").is_none());
        assert!(Date::parse("2028-02-29").is_some());
        assert!(Date::parse("2027-13-01").is_none());
        assert!(Date::parse("27-01-01").is_none());
        assert!(Date::parse("2027-1-01").is_none());
        assert!(Date::parse("+027-01-01").is_none());
        assert!(Date::parse("2027-+1-01").is_none());
        assert!(Date::parse("2027-01-01") < Date::parse("2027-01-02"));
        assert_eq!(Date::from_days(0).to_string(), "1970-01-01");
        assert_eq!(Date::from_days(20_787).to_string(), "2026-11-30");
        assert_eq!(Date::from_days(11_016).to_string(), "2000-02-29");
    }
}
