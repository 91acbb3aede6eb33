//! Engines: one folder per engine with its bundled schemas and rules, plus the
//! shared argparse re-implementation and rule evaluator.

pub mod argparse;
pub mod common;
pub mod rules;
pub mod sglang;
pub mod types;
pub mod vllm;

use std::str::FromStr;

use pep440_rs::Version;

use crate::error::Error;
use crate::resolve::VersionUsed;

/// A bundled release of an engine: its version and its file name.
pub trait Bundled {
    /// The release's version.
    fn version(&self) -> &Version;
    /// The version as written in the schema's file name.
    fn name(&self) -> &str;
}

/// Picks the release for a requested version (`(text, where it came from)`):
/// exact, else the nearest lower bundled one (and says so), else the newest
/// when none is requested. Releases are oldest first.
pub fn pick_release<'a, R: Bundled>(
    engine: &str,
    releases: &'a [R],
    requested: Option<(&str, &str)>,
) -> Result<(&'a R, VersionUsed), Error> {
    let newest = releases.last().expect("at least one bundled release");
    let Some((text, from)) = requested else {
        return Ok((
            newest,
            VersionUsed {
                version: newest.name().to_string(),
                requested: None,
                from: "newest bundled release (no version given)".into(),
            },
        ));
    };
    let want = Version::from_str(text.trim_start_matches('v'))
        .map_err(|e| Error::usage(format!("invalid engine version {text:?} ({from}): {e}")))?;
    match releases.iter().rev().find(|r| *r.version() <= want) {
        Some(r) if *r.version() == want => Ok((
            r,
            VersionUsed {
                version: r.name().to_string(),
                requested: None,
                from: from.to_string(),
            },
        )),
        Some(r) => Ok((
            r,
            VersionUsed {
                version: r.name().to_string(),
                requested: Some(text.to_string()),
                from: format!("{from}; {text} is not bundled, nearest lower bundled release used"),
            },
        )),
        None => Err(Error::usage(format!(
            "{engine} {text} ({from}) is older than every bundled release (oldest: {})",
            releases[0].name()
        ))),
    }
}
