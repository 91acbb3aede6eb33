//! Release lines: each bundled release's date and tagged commit, per engine
//! (`releases.yaml`, written by `scripts/release_lines.py`), and where a
//! nightly or dated development image falls among them.
//!
//! A development image's tag (`nightly-dev-cu13-20260815-0abe6a85`,
//! `dev-nightly-0820`, `nightly-5e35a6f4…`) is read by [`dev_tag`]; [`place`]
//! puts it after the release it was built from: the tagged commit of a bundled
//! release is that release; a date is at or after the last release published
//! on or before it; a commit the table does not hold cannot be placed.

use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

const TABLE: &str = include_str!("releases.yaml");
const DEV_COMMITS: &str = include_str!("dev_commits.yaml");

/// A day, as a tag or the table writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// The day, if it exists (years 1900 to 2999: a tag's eight digits
    /// outside them are not a date).
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        ((1900..3000).contains(&year) && (1..=days).contains(&day)).then_some(Date {
            year,
            month,
            day,
        })
    }

    /// `YYYY-MM-DD`.
    fn parse(text: &str) -> Option<Date> {
        let mut parts = text.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        Date::new(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A bundled release of an engine: its version, the day it was published on
/// PyPI, and the commit its git tag points at (when known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The version, as the schema's file name writes it (`0.5.17`).
    pub version: String,
    /// The UTC day of its first upload to PyPI.
    pub date: Date,
    /// The full commit of its tag `v<version>`, if known.
    pub commit: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    version: String,
    date: String,
    commit: Option<String>,
}

/// The table, per engine in name order.
fn table() -> &'static [(String, Vec<Line>)] {
    static T: OnceLock<Vec<(String, Vec<Line>)>> = OnceLock::new();
    T.get_or_init(|| {
        let rows: std::collections::BTreeMap<String, Vec<Row>> =
            serde_saphyr::from_str(TABLE).expect("bundled releases.yaml is valid");
        rows.into_iter()
            .map(|(engine, rows)| {
                let lines = rows
                    .into_iter()
                    .map(|r| Line {
                        date: Date::parse(&r.date).expect("releases.yaml dates are YYYY-MM-DD"),
                        version: r.version,
                        commit: r.commit,
                    })
                    .collect();
                (engine, lines)
            })
            .collect()
    })
}

/// The bundled releases of an engine (`sglang`, `vllm`), oldest first; empty
/// for an engine the table does not list.
pub fn lines(engine: &str) -> &'static [Line] {
    table()
        .iter()
        .find(|(e, _)| e == engine)
        .map_or(&[], |(_, l)| l.as_slice())
}

/// A development commit placed in the engine's history
/// (`dev_commits.yaml`, from a checkout): the bundled release it follows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DevCommit {
    /// The full commit.
    pub commit: String,
    /// The UTC day it was committed (`YYYY-MM-DD`).
    pub date: String,
    /// The newest bundled release whose tag is its ancestor (`None`: older
    /// than every bundled release).
    pub after: Option<String>,
}

/// The placed development commits of an engine (empty for one the table
/// does not list).
pub fn dev_commits(engine: &str) -> &'static [DevCommit] {
    static T: OnceLock<std::collections::BTreeMap<String, Vec<DevCommit>>> = OnceLock::new();
    T.get_or_init(|| {
        serde_saphyr::from_str(DEV_COMMITS).expect("bundled dev_commits.yaml is valid")
    })
    .get(engine)
    .map_or(&[], Vec::as_slice)
}

/// The date a development tag carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagDate {
    /// Eight digits, `YYYYMMDD`.
    Full(Date),
    /// Four digits, `MMDD`: the year is not written.
    NoYear {
        /// The month (1 to 12).
        month: u8,
        /// The day of the month.
        day: u8,
    },
}

/// What a development image's tag says: the date and the commit it was built
/// from, each if written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevTag {
    /// The first word that is a date.
    pub date: Option<TagDate>,
    /// The first word that is a commit (7 to 40 hex digits, not all digits).
    pub commit: Option<String>,
}

/// Reads a tag (`nightly-dev-cu13-20260815-0abe6a85`) as a development build:
/// `None` unless one of its words (split at `-`, `_`) is `nightly` or `dev`.
pub fn dev_tag(tag: &str) -> Option<DevTag> {
    let tag = tag.to_ascii_lowercase();
    let words: Vec<&str> = tag.split(['-', '_']).collect();
    if !words.iter().any(|w| *w == "nightly" || *w == "dev") {
        return None;
    }
    let mut out = DevTag {
        date: None,
        commit: None,
    };
    for w in words {
        let digits = w.bytes().all(|b| b.is_ascii_digit());
        if digits && out.date.is_none() {
            out.date = date_word(w);
        } else if !digits
            && out.commit.is_none()
            && (7..=40).contains(&w.len())
            && w.bytes().all(|b| b.is_ascii_hexdigit())
        {
            out.commit = Some(w.to_string());
        }
    }
    Some(out)
}

/// `YYYYMMDD` or `MMDD`, when it is a day.
fn date_word(w: &str) -> Option<TagDate> {
    let n = |r: std::ops::Range<usize>| w[r].parse::<u16>().ok();
    match w.len() {
        8 => Date::new(n(0..4)?, n(4..6)? as u8, n(6..8)? as u8).map(TagDate::Full),
        4 => {
            let (month, day) = (n(0..2)? as u8, n(2..4)? as u8);
            // Valid in some year (a leap year for 0229).
            Date::new(2000, month, day).map(|_| TagDate::NoYear { month, day })
        }
        _ => None,
    }
}

/// Where a development image falls among an engine's bundled releases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Its commit is the tagged commit of the release at this index.
    Tagged(usize),
    /// Built after the release at this index (the last one published on or
    /// before its date), from the development line that followed it.
    After {
        /// The index of the release in the table.
        index: usize,
        /// Why, in words (`it is dated 2026-08-15, after …`).
        reason: String,
    },
    /// Dated before the oldest bundled release.
    Before {
        /// Why, in words.
        reason: String,
    },
    /// Its text does not place it (an unknown commit, no date, a date with no
    /// year that fits no single year): it may be newer than every bundled
    /// release.
    Unplaced {
        /// Why, in words.
        reason: String,
    },
}

/// Places a development tag among the releases of `engine` (`lines`, oldest
/// first, not empty). A tagged commit wins over a date; a date with no year
/// is read in the one year that puts it between the oldest and the newest
/// release's days, and is unplaced when no year or more than one does.
pub fn place(engine: &str, lines: &[Line], tag: &DevTag) -> Placement {
    place_among(engine, lines, dev_commits(engine), tag)
}

/// [`place`] with the engine's placed development commits given: a commit
/// the history places (one row of `dev` starts with it) wins over a date.
pub fn place_among(engine: &str, lines: &[Line], dev: &[DevCommit], tag: &DevTag) -> Placement {
    if let Some(c) = &tag.commit {
        let tagged: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].commit.as_deref().is_some_and(|f| f.starts_with(c)))
            .collect();
        if let [i] = tagged[..] {
            return Placement::Tagged(i);
        }
        let placed: Vec<&DevCommit> = dev
            .iter()
            .filter(|d| d.commit.starts_with(c.as_str()))
            .collect();
        if let [d] = placed[..] {
            let source = "its place in the engine's git history (src/engine/dev_commits.yaml)";
            match &d.after {
                Some(v) => {
                    if let Some(index) = lines.iter().position(|l| &l.version == v) {
                        let next = lines
                            .get(index + 1)
                            .map(|n| format!(" and before {} ({})", n.version, n.date))
                            .unwrap_or_else(|| ", the newest bundled release".into());
                        return Placement::After {
                            index,
                            reason: format!(
                                "its commit {c} (committed {}) follows the tag of {engine} {v}{next}: {source}",
                                d.date
                            ),
                        };
                    }
                }
                None => {
                    return Placement::Before {
                        reason: format!(
                            "its commit {c} (committed {}) follows the tag of no bundled {engine} release: {source}",
                            d.date
                        ),
                    };
                }
            }
        }
    }
    let (oldest, newest) = (&lines[0], &lines[lines.len() - 1]);
    let (date, read) = match tag.date {
        Some(TagDate::Full(d)) => (d, format!("it is dated {d}")),
        Some(TagDate::NoYear { month, day }) => {
            let fits: Vec<Date> = (oldest.date.year..=newest.date.year)
                .filter_map(|y| Date::new(y, month, day))
                .filter(|d| (oldest.date..=newest.date).contains(d))
                .collect();
            match fits[..] {
                [d] => (
                    d,
                    format!(
                        "it is dated {month:02}-{day:02} with no year, read as {d} (the only year that puts it between {engine} {} and {}, {} to {})",
                        oldest.version, newest.version, oldest.date, newest.date
                    ),
                ),
                _ => {
                    return Placement::Unplaced {
                        reason: format!(
                            "it is dated {month:02}-{day:02} with no year, and {} year puts it between {engine} {} and {} ({} to {}), so the text does not place it; it may be newer than every bundled release",
                            if fits.is_empty() {
                                "no"
                            } else {
                                "more than one"
                            },
                            oldest.version,
                            newest.version,
                            oldest.date,
                            newest.date
                        ),
                    };
                }
            }
        }
        None => {
            let what = match &tag.commit {
                Some(c) => format!(
                    "its commit {c} is not the tagged commit of a bundled release (the table of release commits holds {} of {}) nor a placed development commit (src/engine/dev_commits.yaml holds {}), so the text does not place it",
                    lines.iter().filter(|l| l.commit.is_some()).count(),
                    lines.len(),
                    dev.len()
                ),
                None => "it names no date and no commit, so the text does not place it".into(),
            };
            return Placement::Unplaced {
                reason: format!("{what}; it may be newer than every bundled release"),
            };
        }
    };
    let Some(index) = lines.iter().rposition(|l| l.date <= date) else {
        return Placement::Before {
            reason: format!(
                "{read}, before {engine} {}, the oldest bundled release ({})",
                oldest.version, oldest.date
            ),
        };
    };
    let at = &lines[index];
    let reason = match lines.get(index + 1) {
        Some(next) => format!(
            "{read}, after {engine} {} ({}) and before {} ({})",
            at.version, at.date, next.version, next.date
        ),
        None => format!(
            "{read}, after {engine} {} ({}), the newest bundled release",
            at.version, at.date
        ),
    };
    Placement::After { index, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: u16, m: u8, day: u8) -> Date {
        Date::new(y, m, day).unwrap()
    }

    fn table() -> Vec<Line> {
        [
            ("1.0.0", d(2026, 5, 16), Some("aa".repeat(20))),
            ("1.1.0", d(2026, 8, 8), None),
            (
                "1.2.0",
                d(2026, 8, 21),
                Some("0abe6a85".to_string() + &"1".repeat(32)),
            ),
        ]
        .into_iter()
        .map(|(v, date, commit)| Line {
            version: v.into(),
            date,
            commit,
        })
        .collect()
    }

    /// The tag reader's plausible releases (`launch::ENGINE_MAJORS`, a leaf
    /// module's copy) follow the table: each engine's newest major number.
    #[test]
    fn the_tag_readers_release_majors_follow_the_table() {
        let majors: Vec<(&str, u64)> = crate::launch::ENGINE_MAJORS.to_vec();
        let table: Vec<(&str, u64)> = super::table()
            .iter()
            .map(|(e, l)| {
                let v: pep440_rs::Version = l.last().unwrap().version.parse().unwrap();
                (e.as_str(), v.release()[0])
            })
            .collect();
        assert_eq!(majors, table, "update launch::ENGINE_MAJORS");
    }

    #[test]
    fn reads_the_real_tag_shapes() {
        let t = dev_tag("nightly-dev-cu13-20260815-0abe6a85").unwrap();
        assert_eq!(t.date, Some(TagDate::Full(d(2026, 8, 15))));
        assert_eq!(t.commit.as_deref(), Some("0abe6a85"));
        let t = dev_tag("dev-nightly-0820").unwrap();
        assert_eq!(t.date, Some(TagDate::NoYear { month: 8, day: 20 }));
        assert_eq!(t.commit, None);
        let t = dev_tag("nightly-5e35a6f4f9bbc217c599692157ca985c894373f7").unwrap();
        assert_eq!(t.date, None);
        assert_eq!(
            t.commit.as_deref(),
            Some("5e35a6f4f9bbc217c599692157ca985c894373f7")
        );
        let t = dev_tag("nightly-dev-x86_64-cu13.0.1-728d3ad").unwrap();
        assert_eq!((t.date, t.commit.as_deref()), (None, Some("728d3ad")));
        let t = dev_tag("NIGHTLY-dev-arm64-cu13.0.1-426E59F").unwrap();
        assert_eq!(t.commit.as_deref(), Some("426e59f"));
        // Not development builds: a release, `latest`, a custom build.
        for tag in [
            "v0.5.17-cu130",
            "latest",
            "kimi-k3",
            "minimax-m3-perf-arm64-13.0.1-7a67223",
        ] {
            assert_eq!(dev_tag(tag), None, "{tag}");
        }
    }

    #[test]
    fn hostile_tags_are_read_without_a_date_or_commit() {
        let none = Some(DevTag {
            date: None,
            commit: None,
        });
        for tag in [
            "nightly-",
            "nightly",
            "dev",
            "nightly-20261399",
            "nightly-20260230",
            "nightly-1332",
            "nightly-0000",
            "nightly-00000000",
            "nightly-99999999999999999999999999999999999999999",
            "nightly-184467440737095516161844674407370955161",
            "nightly-abcdef",
            "nightly-abcdefabcdefabcdefabcdefabcdefabcdefabcdef0",
            "nightly-\u{e9}\u{e9}\u{e9}\u{e9}",
            "nightly-\u{661}\u{662}\u{663}\u{664}",
            "nightly--__--",
        ] {
            assert_eq!(dev_tag(tag), none, "{tag}");
        }
        // A leap day exists in a year with no year written; 2027-02-29 does not.
        assert_eq!(
            dev_tag("dev-0229").unwrap().date,
            Some(TagDate::NoYear { month: 2, day: 29 })
        );
        assert_eq!(dev_tag("dev-20270229").unwrap().date, None);
        assert_eq!(
            dev_tag("dev-20280229").unwrap().date,
            Some(TagDate::Full(d(2028, 2, 29)))
        );
    }

    fn placed(tag: &str) -> Placement {
        place("x", &table(), &dev_tag(tag).unwrap())
    }

    #[test]
    fn a_date_is_placed_after_the_last_release_on_or_before_it() {
        let Placement::After { index, reason } = placed("nightly-dev-20260815-1234567") else {
            panic!()
        };
        assert_eq!(index, 1);
        assert_eq!(
            reason,
            "it is dated 2026-08-15, after x 1.1.0 (2026-08-08) and before 1.2.0 (2026-08-21)"
        );
        // The release's own day is after it.
        assert!(matches!(
            placed("nightly-20260808"),
            Placement::After { index: 1, .. }
        ));
        let Placement::After { index, reason } = placed("nightly-20261201") else {
            panic!()
        };
        assert_eq!(index, 2);
        assert!(reason.ends_with("after x 1.2.0 (2026-08-21), the newest bundled release"));
        let Placement::Before { reason } = placed("nightly-20260101") else {
            panic!()
        };
        assert_eq!(
            reason,
            "it is dated 2026-01-01, before x 1.0.0, the oldest bundled release (2026-05-16)"
        );
    }

    #[test]
    fn a_commit_the_history_places_follows_its_release() {
        let dev = |commit: &str, after: Option<&str>| DevCommit {
            commit: commit.to_string(),
            date: "2026-08-12".into(),
            after: after.map(str::to_string),
        };
        let rows = [
            dev(&("5e35a6f4".to_string() + &"0".repeat(32)), Some("1.1.0")),
            dev(&("77aa0000".to_string() + &"1".repeat(32)), None),
            dev(&("abcdef12".to_string() + &"2".repeat(32)), Some("9.9.9")),
        ];
        let at = |tag: &str| place_among("vllm", &table(), &rows, &dev_tag(tag).unwrap());
        let Placement::After { index, reason } = at("nightly-5e35a6f400") else {
            panic!()
        };
        assert_eq!(index, 1);
        assert_eq!(
            reason,
            "its commit 5e35a6f400 (committed 2026-08-12) follows the tag of vllm 1.1.0 and before 1.2.0 (2026-08-21): its place in the engine's git history (src/engine/dev_commits.yaml)"
        );
        // The history wins over a date the tag also carries.
        assert!(matches!(
            at("nightly-20260601-5e35a6f4"),
            Placement::After { index: 1, .. }
        ));
        assert!(matches!(at("nightly-77aa0000"), Placement::Before { .. }));
        // A release no longer bundled places nothing: the tag's own text decides.
        assert!(matches!(at("nightly-abcdef12"), Placement::Unplaced { .. }));
        // A tagged release commit still wins.
        assert_eq!(at("nightly-0abe6a85"), Placement::Tagged(2));
    }

    #[test]
    fn a_tagged_commit_is_its_release_even_with_a_date() {
        assert_eq!(placed("nightly-0abe6a85"), Placement::Tagged(2));
        assert_eq!(placed("nightly-20260601-0abe6a85"), Placement::Tagged(2));
        assert_eq!(
            placed(&format!("nightly-{}", "aa".repeat(20))),
            Placement::Tagged(0)
        );
        // A commit the table does not hold: the date places it, else nothing does.
        assert!(matches!(
            placed("nightly-20260601-0abe6a86"),
            Placement::After { index: 0, .. }
        ));
        let Placement::Unplaced { reason } = placed("nightly-5e35a6f4f9bbc217") else {
            panic!()
        };
        assert_eq!(
            reason,
            "its commit 5e35a6f4f9bbc217 is not the tagged commit of a bundled release (the table of release commits holds 2 of 3) nor a placed development commit (src/engine/dev_commits.yaml holds 0), so the text does not place it; it may be newer than every bundled release"
        );
        let Placement::Unplaced { reason } = placed("nightly") else {
            panic!()
        };
        assert!(reason.starts_with("it names no date and no commit"));
    }

    #[test]
    fn a_date_with_no_year_takes_the_one_year_that_fits() {
        let Placement::After { index, reason } = placed("dev-nightly-0820") else {
            panic!()
        };
        assert_eq!(index, 1);
        assert_eq!(
            reason,
            "it is dated 08-20 with no year, read as 2026-08-20 (the only year that puts it between x 1.0.0 and 1.2.0, 2026-05-16 to 2026-08-21), after x 1.1.0 (2026-08-08) and before 1.2.0 (2026-08-21)"
        );
        // Outside the releases' span in every year: not placed.
        let Placement::Unplaced { reason } = placed("dev-nightly-1201") else {
            panic!()
        };
        assert!(reason.contains("no year puts it between"), "{reason}");
        // A span longer than a year fits two years.
        let mut long = table();
        long[2].date = d(2027, 9, 1);
        let Placement::Unplaced { reason } =
            place("x", &long, &dev_tag("dev-nightly-0820").unwrap())
        else {
            panic!()
        };
        assert!(reason.contains("more than one year"), "{reason}");
    }

    #[test]
    fn the_table_lists_the_bundled_releases_oldest_first() {
        for engine in ["sglang", "vllm"] {
            let l = lines(engine);
            assert!(!l.is_empty(), "{engine}");
            assert!(l.windows(2).all(|w| w[0].date <= w[1].date), "{engine}");
            assert!(
                l.iter().all(|x| x
                    .commit
                    .as_ref()
                    .is_none_or(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))),
                "{engine}"
            );
        }
        let names = |rs: Vec<&str>| rs.into_iter().map(String::from).collect::<Vec<_>>();
        let table = |e| {
            lines(e)
                .iter()
                .map(|l| l.version.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            table("sglang"),
            names(
                crate::engine::sglang::bundle()
                    .releases
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect()
            )
        );
        assert_eq!(
            table("vllm"),
            names(
                crate::engine::vllm::releases()
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect()
            )
        );
        assert!(lines("trtllm").is_empty());
    }
}
