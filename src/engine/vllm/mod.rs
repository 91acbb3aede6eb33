//! vLLM: per-release schemas (`schemas/*.json`, generated from the real parser
//! by `scripts/vllm_schema.py`) and the argument preprocessing of
//! `FlexibleArgumentParser`.
//!
//! Parsing with the schemas and resolution (rules, canonical keys shared with
//! SGLang) are not built yet: `resolve` of a vLLM launch says so.

pub mod preprocess;
pub mod types;

use std::str::FromStr;
use std::sync::OnceLock;

use pep440_rs::Version;
use serde::Deserialize;

use crate::engine::argparse::{ArgParser, Namespace, OptionSpec};

/// The bundled schema files: `(version, json)`.
const SCHEMAS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/vllm_schemas.rs"));

/// One bundled vLLM release.
#[derive(Debug)]
pub struct Release {
    /// Its version.
    pub version: Version,
    /// The version as written in the file name.
    pub name: String,
    /// The `vllm serve` parser (options after `serve`).
    pub parser: ArgParser,
    /// The preprocessing `FlexibleArgumentParser` applies first.
    pub steps: preprocess::Steps,
}

#[derive(Deserialize)]
struct SchemaFile {
    version: String,
    allow_abbrev: bool,
    #[serde(default)]
    preprocess: preprocess::Steps,
    options: Vec<OptionSpec>,
}

/// Every bundled release, oldest first; parsed on first use.
pub fn releases() -> &'static [Release] {
    static R: OnceLock<Vec<Release>> = OnceLock::new();
    R.get_or_init(|| load().unwrap_or_else(|e| panic!("bundled vLLM data is invalid: {e}")))
}

fn load() -> Result<Vec<Release>, String> {
    let mut out = Vec::new();
    for (name, text) in SCHEMAS {
        let file: SchemaFile =
            serde_json::from_str(text).map_err(|e| format!("vllm schemas/{name}.json: {e}"))?;
        let version = Version::from_str(&file.version).map_err(|e| e.to_string())?;
        let parser =
            ArgParser::new(file.options, file.allow_abbrev)?.with_converter(types::convert);
        out.push(Release {
            version,
            name: name.to_string(),
            parser,
            steps: file.preprocess,
        });
    }
    out.sort_by(|a, b| a.version.cmp(&b.version));
    Ok(out)
}

/// Why `vllm serve ARGV` does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// vLLM refuses it (argparse or the preprocessing), with the message.
    Error(String),
    /// `--config FILE`: its options are not read from the text.
    ConfigFile(String),
}

/// Parses the arguments after `vllm serve` as a release does: preprocessing,
/// then argparse.
pub fn parse(release: &Release, argv: &[String]) -> Result<Namespace, ParseFailure> {
    let args = preprocess::preprocess(argv, &release.steps).map_err(|r| match r {
        preprocess::Refusal::Error(m) => ParseFailure::Error(m),
        preprocess::Refusal::ConfigFile(f) => ParseFailure::ConfigFile(f),
    })?;
    release
        .parser
        .parse(&args)
        .map_err(|e| ParseFailure::Error(e.message))
}

/// Picks the release for a requested version: exact, else the nearest lower one.
pub fn pick_release(
    requested: Option<(&str, &str)>,
) -> Result<(&'static Release, crate::resolve::VersionUsed), crate::error::Error> {
    super::pick_release("vllm", releases(), requested)
}

impl super::Bundled for Release {
    fn version(&self) -> &Version {
        &self.version
    }
    fn name(&self) -> &str {
        &self.name
    }
}
