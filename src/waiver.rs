//! Waivers: a divergence accepted on purpose, named in the config with a reason
//! and an expiry date.
//!
//! ```yaml
//! waivers:
//!   - {link: "qwen3.5 mi355x", key: page_size, reason: "...", until: 2027-01-31}
//! ```
//!
//! Waivers are a filter over a link's findings ([`filter`]): `compare` makes the
//! findings with the severities policy gives them, and a waiver in force
//! suppresses the findings on its key (the reports show them as information,
//! marked waived, with the reason). From the day after `until` a waiver no longer
//! applies, and the expired waiver is itself an error. A waiver that matches no
//! finding is reported as unused. `check --no-waivers` ignores them all.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::compare::{Comparison, Difference};
use crate::error::Error;
use crate::finding::Severity;

/// One waiver as written in the config.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
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
    /// For an inline suppression (never in a config): where its marker is
    /// (`file:line:col`); it does not expire.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub at: Option<String>,
}

/// The last day of an inline suppression, which never expires.
pub const NEVER: &str = "9999-12-31";

impl Waiver {
    /// How a finding it suppresses is marked: `waived until DATE: reason`,
    /// or `suppressed at FILE:LINE:COL: reason` for an inline suppression.
    pub fn mark(&self) -> String {
        self.waived().mark()
    }

    /// The mark a finding it silences carries.
    pub fn waived(&self) -> crate::finding::Waived {
        crate::finding::Waived {
            reason: self.reason.clone(),
            until: self.until.clone(),
            at: self.at.clone(),
        }
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// In force, and it suppressed at least one finding.
    Applied,
    /// In force, but it matched no finding.
    Unused,
    /// Past its `until` date: it suppresses nothing and fails the check.
    Expired,
}

/// What became of a waiver in one run.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The waiver.
    #[serde(flatten)]
    pub waiver: Waiver,
    /// Applied, unused or expired.
    pub status: Status,
    /// How many findings it suppressed.
    pub waived: usize,
}

impl Outcome {
    /// Whether this outcome fails the check (an expired waiver).
    pub fn is_error(&self) -> bool {
        self.status == Status::Expired
    }
}

/// The waivers past their date: errors of the run, whether or not their link
/// runs (a skipped link's waiver expires all the same).
pub fn expired(waivers: &[Waiver], today: Date) -> Vec<Outcome> {
    waivers
        .iter()
        .filter(|w| Date::parse(&w.until).is_some_and(|u| u < today))
        .map(|w| Outcome {
            waiver: w.clone(),
            status: Status::Expired,
            waived: 0,
        })
        .collect()
}

/// One comparison's findings sorted by the waivers: each finding is applied (it
/// counts as `compare` made it) or suppressed by a waiver. Findings are named by
/// their index in [`Comparison::findings`]; without waivers every finding applies.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Filtered {
    /// The suppressed findings' indices, with the waiver that suppressed each.
    suppressed: BTreeMap<usize, Waiver>,
}

/// A finding as the filter left it: the finding and the waiver that suppressed it,
/// if one did.
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a> {
    /// The finding, as `compare` made it.
    pub finding: &'a Difference,
    /// The waiver that suppressed it, if any.
    pub waiver: Option<&'a Waiver>,
}

impl Judged<'_> {
    /// The severity it counts with: information when suppressed, else its own.
    pub fn severity(&self) -> Severity {
        match self.waiver {
            Some(_) => Severity::Info,
            None => self.finding.severity,
        }
    }
}

impl Filtered {
    /// Adds `other`'s suppressions of findings this one does not suppress yet
    /// (a config waiver stays the one that names a finding).
    pub fn add(&mut self, other: Filtered) {
        for (i, w) in other.suppressed {
            self.suppressed.entry(i).or_insert(w);
        }
    }

    /// Every finding of `c` in `compare`'s order, each with its waiver if suppressed.
    pub fn judged<'a>(&'a self, c: &'a Comparison) -> impl Iterator<Item = Judged<'a>> + 'a {
        c.findings.iter().enumerate().map(|(i, f)| Judged {
            finding: f,
            waiver: self.suppressed.get(&i),
        })
    }

    /// The findings of `c` that still count.
    pub fn applied<'a>(&'a self, c: &'a Comparison) -> impl Iterator<Item = &'a Difference> + 'a {
        self.judged(c)
            .filter(|j| j.waiver.is_none())
            .map(|j| j.finding)
    }
}

/// Sorts the findings of one link's comparisons (one per group of matrix points)
/// by that link's waivers still in force on `today`: a finding on a waiver's key is
/// suppressed by it. Returns each comparison's result and an outcome per waiver in
/// force (applied or unused; expired ones are [`expired`]'s).
pub fn filter<'c>(
    link: &str,
    comparisons: impl IntoIterator<Item = &'c Comparison>,
    waivers: &[Waiver],
    today: Date,
) -> (Vec<Filtered>, Vec<Outcome>) {
    let in_force: Vec<&Waiver> = waivers
        .iter()
        .filter(|w| w.link == link)
        .filter(|w| {
            let until = Date::parse(&w.until).expect("validated when the config was read");
            until >= today
        })
        .collect();
    let mut counts = vec![0usize; in_force.len()];
    let mut out = Vec::new();
    for c in comparisons {
        let mut filtered = Filtered::default();
        for (i, f) in c.findings.iter().enumerate() {
            // Every waiver on the key counts the finding; the config's last one names it.
            for (n, w) in in_force.iter().enumerate().filter(|(_, w)| w.key == f.key) {
                counts[n] += 1;
                filtered.suppressed.insert(i, (*w).clone());
            }
        }
        out.push(filtered);
    }
    let outcomes = in_force
        .iter()
        .zip(counts)
        .map(|(w, n)| Outcome {
            waiver: (*w).clone(),
            status: if n > 0 {
                Status::Applied
            } else {
                Status::Unused
            },
            waived: n,
        })
        .collect();
    (out, outcomes)
}

/// Checks each waiver: a link of the config, a known key, a reason, a date.
/// `key_problem(key)` says why a key names nothing (with suggestions);
/// `at(i, field)` gives the config position of waiver `i`'s field. Every
/// error at once.
pub fn validate(
    waivers: &[Waiver],
    link_names: &[&str],
    key_problem: impl Fn(&str) -> Option<String>,
    at: impl Fn(usize, &str) -> crate::span::Span,
) -> Result<(), Error> {
    let mut errors = Vec::new();
    for (i, w) in waivers.iter().enumerate() {
        let mut fail = |field: &str, message: String| {
            errors.push(Error::Input {
                span: at(i, field),
                message,
            })
        };
        if !link_names.contains(&w.link.as_str()) {
            let near = crate::suggest::nearest(
                &w.link,
                link_names.iter().copied(),
                crate::suggest::THRESHOLD,
            )
            .map(|n| format!(" (did you mean {n:?}?)"))
            .unwrap_or_default();
            fail(
                "link",
                format!(
                    "waivers: {:?} is not the name of a link in this config{near}",
                    w.link
                ),
            );
        }
        if let Some(why) = key_problem(&w.key) {
            fail("key", format!("waivers: {why}"));
        }
        if w.reason.trim().is_empty() {
            fail(
                "reason",
                format!(
                    "waivers: the waiver of {} on {:?} needs a reason",
                    w.key, w.link
                ),
            );
        }
        if Date::parse(&w.until).is_none() {
            fail(
                "until",
                format!("waivers: until {:?} is not a YYYY-MM-DD date", w.until),
            );
        }
    }
    Error::all(errors)
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

    fn finding(key: &str, severity: Severity) -> Difference {
        let side = |v: &str| crate::finding::SideValue {
            val: crate::resolved::Val::Known {
                value: serde_json::json!(v),
            },
            source: crate::resolved::ValueSource::Cli,
            written: None,
            spans: vec![],
            rules: vec![],
            no_effect: None,
        };
        Difference {
            key: key.into(),
            kind: crate::finding::Kind::Contradicts,
            class: crate::policy::Class::Major,
            severity,
            docs: side("a"),
            recipe: side("b"),
        }
    }

    fn waiver(link: &str, key: &str, reason: &str, until: &str) -> Waiver {
        Waiver {
            link: link.into(),
            key: key.into(),
            reason: reason.into(),
            until: until.into(),
            at: None,
        }
    }

    #[test]
    fn the_filter_sorts_findings_into_applied_and_suppressed() {
        let c = Comparison {
            findings: vec![
                finding("page_size", Severity::Error),
                finding("tp_size", Severity::Error),
            ],
            shared_unknowns: vec![],
        };
        let other = Comparison {
            findings: vec![finding("page_size", Severity::Warning)],
            shared_unknowns: vec![],
        };
        let waivers = [
            waiver("l", "page_size", "accepted", "2027-01-31"),
            waiver("l", "tp_size", "old", "2026-01-31"),
            waiver("l", "dp_size", "nothing", "2027-01-31"),
            waiver("other", "tp_size", "elsewhere", "2027-01-31"),
        ];
        let today = Date::parse("2026-06-01").unwrap();
        let (filtered, outcomes) = filter("l", [&c, &other], &waivers, today);
        // The comparison itself is untouched: the severity is compare's.
        assert_eq!(c.findings[0].severity, Severity::Error);
        let applied: Vec<&str> = filtered[0].applied(&c).map(|f| f.key.as_str()).collect();
        assert_eq!(
            applied,
            ["tp_size"],
            "the expired waiver suppresses nothing"
        );
        let suppressed: Vec<(&str, &str)> = filtered[0]
            .judged(&c)
            .filter_map(|j| {
                j.waiver
                    .map(|w| (j.finding.key.as_str(), w.reason.as_str()))
            })
            .collect();
        assert_eq!(suppressed, [("page_size", "accepted")]);
        let severities: Vec<Severity> = filtered[0].judged(&c).map(|j| j.severity()).collect();
        assert_eq!(severities, [Severity::Info, Severity::Error]);
        assert_eq!(filtered[1].applied(&other).count(), 0);
        let statuses: Vec<(&str, Status, usize)> = outcomes
            .iter()
            .map(|o| (o.waiver.key.as_str(), o.status, o.waived))
            .collect();
        assert_eq!(
            statuses,
            [
                ("page_size", Status::Applied, 2),
                ("dp_size", Status::Unused, 0)
            ]
        );
        let expired = expired(&waivers, today);
        assert_eq!(expired.len(), 1);
        assert!(expired[0].is_error() && expired[0].status == Status::Expired);
        assert_eq!(
            serde_json::to_value(Status::Unused).unwrap(),
            serde_json::json!("unused")
        );
        // Without waivers every finding applies.
        assert_eq!(Filtered::default().applied(&c).count(), 2);
    }

    /// The filter sits below the reports and the link: it imports neither.
    #[test]
    fn waivers_import_neither_reports_nor_links() {
        let src = include_str!("waiver.rs");
        // Code, not comments, before the tests.
        let code: String = src[..src.find("#[cfg(test)]").unwrap()]
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        for m in ["report", "link"] {
            assert!(!code.contains(&format!("crate::{m}")), "waiver uses {m}");
        }
    }
}
