//! Engines: `trait Engine` and its registry, one folder per engine with its
//! bundled schemas and rules, plus the shared argparse re-implementation and
//! rule evaluator.
//!
//! Commands reach an engine only through [`Engine`]: [`registry`] lists them,
//! [`by_name`] finds one by the name a launch carries (`crate::launch::Engine`,
//! from the launcher table), and [`resolve`] resolves a launch with its engine.

pub mod argparse;
pub(crate) mod common;
pub(crate) mod explain;
pub mod pyjson;
pub(crate) mod release_lines;
mod rest;
pub(crate) mod rules;
pub mod sglang;
pub(crate) mod types;
pub mod vllm;

pub use rest::resolve_rest;

use std::collections::BTreeSet;
use std::str::FromStr;

use pep440_rs::Version;

use crate::error::Error;
use crate::launch::{Known, Launch, Platform};
use crate::resolved::{
    Entry, ResolveOptions, Resolved, StartupError, Val, ValueSource, VersionUsed,
};
use crate::span::Span;

/// A bundled release of an engine: its version and its file name.
pub trait Bundled {
    /// The release's version.
    fn version(&self) -> &Version;
    /// The version as written in the schema's file name.
    fn name(&self) -> &str;
    /// The release as the newer-than-bundled rule reads it.
    fn as_bundled(&self) -> common::Bundled<'_>;
}

/// Picks the release for a requested version (`(text, where it came from)`):
/// exact, else the nearest lower bundled one (and says so), else the newest
/// when none is requested. A version newer than every bundled release gets the
/// newest, marked [`Newer::Version`](crate::resolved::Newer). Releases are
/// oldest first.
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
                newer: None,
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
                newer: None,
            },
        )),
        Some(r) if std::ptr::eq(r, newest) => Ok((
            r,
            VersionUsed {
                version: r.name().to_string(),
                requested: Some(text.to_string()),
                from: format!(
                    "{from}; {text} is newer than every bundled release, the newest ({}) used",
                    r.name()
                ),
                newer: Some(crate::resolved::Newer::Version {
                    from: from.to_string(),
                }),
            },
        )),
        Some(r) => Ok((
            r,
            VersionUsed {
                version: r.name().to_string(),
                requested: Some(text.to_string()),
                from: format!("{from}; {text} is not bundled, nearest lower bundled release used"),
                newer: None,
            },
        )),
        None => Err(Error::usage(format!(
            "{engine} {text} ({from}) is older than every bundled release (oldest: {})",
            releases[0].name()
        ))),
    }
}

/// Whether an image is a nightly or dated development build (its tag has the
/// word `nightly` or `dev`, without a version): it names a release line, not
/// a release (see `release_lines`).
pub fn is_development_image(image: &str) -> bool {
    common::image_tag(image)
        .and_then(release_lines::dev_tag)
        .is_some()
        && crate::launch::Context::from_image(image, "")
            .engine_version
            .is_none()
}

/// A serving engine recipe-drift resolves: what its releases parse and resolve,
/// which keys it has, and what `explain` says about them.
pub trait Engine: Sync {
    /// The engine's registry name (`sglang`), as launches and `--engine` name it.
    fn name(&self) -> &'static str;

    /// Parses an argv exactly as a release's argparse would (`resolve --raw`):
    /// the release used and every destination with its value, or why it does
    /// not parse (with the index of the offending word when known).
    fn parse_raw(
        &self,
        requested: Option<(&str, &str)>,
        argv: &[String],
    ) -> Result<RawParse, ParseFailure>;

    /// Resolves a launch: parse, env, defaults and the engine's rules. An argv
    /// the release itself refuses is [`ResolveError::Refused`], not an error
    /// of recipe-drift's input.
    fn resolve(&self, launch: &Launch, opts: &ResolveOptions) -> Result<Resolved, ResolveError>;

    /// The canonical key for a name (a key, a destination, an option string or,
    /// where the engine's parser allows it, a unique prefix).
    fn key(&self, name: &str) -> Result<String, KeyError>;

    /// Every canonical key of every bundled release (options, env vars,
    /// context), built once per process.
    fn keys(&self) -> &'static BTreeSet<String>;

    /// Whether some bundled release reads this environment variable.
    fn reads_env(&self, name: &str) -> bool;

    /// `explain`'s lines for a canonical key (empty when the engine has none).
    fn explain(&self, key: &str) -> Vec<String>;

    /// The resolver rules, in order of application (`rules.yaml`).
    fn rules(&self) -> &'static [rules::Rule];

    /// Keys the rule file declares that rules create (`keys:`), with why.
    fn declared_rule_keys(&self) -> &'static std::collections::BTreeMap<String, String>;

    /// The bundled releases' names, oldest first (`0.5.19`).
    fn release_names(&self) -> Vec<String>;

    /// Per bundled release (oldest first): its version, name, and the keys it
    /// resolves before rules (options, sub-keys, context and env keys). Rules may
    /// read and write only these and the declared keys.
    fn release_keys(&self) -> Vec<ReleaseKeys>;
}

/// The keys a bundled release resolves before its rules.
#[derive(Debug, Clone)]
pub struct ReleaseKeys {
    /// The release's version.
    pub version: Version,
    /// The release's name (`0.5.19`).
    pub name: String,
    /// Its keys.
    pub keys: BTreeSet<String>,
}

/// Keys every engine resolves from the launch context.
pub const CONTEXT_KEYS: &[&str] = &["model", "hardware", "engine"];

/// `resolve --raw`: a release's parse of an argv.
#[derive(Debug, Clone)]
pub struct RawParse {
    /// The release used.
    pub version: VersionUsed,
    /// Every destination with its value (defaults included), in parser order.
    pub namespace: serde_json::Map<String, serde_json::Value>,
}

/// Why an argv does not parse.
#[derive(Debug)]
pub enum ParseFailure {
    /// The release could not be picked (bad or too old version).
    Release(Error),
    /// The release refuses the argv, with its message and the offending word.
    Refused {
        /// The release's name.
        release: String,
        /// The engine's message.
        message: String,
        /// The index of the offending argv word, when known.
        arg_index: Option<usize>,
    },
}

/// Why a name is not a key of an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// An option prefix that several options share in a release.
    Ambiguous {
        /// The engine.
        engine: &'static str,
        /// The prefix, as an option string.
        option: String,
        /// The release where it is ambiguous.
        release: String,
        /// The option strings it could be.
        candidates: Vec<String>,
    },
    /// No bundled release has it.
    Unknown {
        /// The engine.
        engine: &'static str,
        /// The name asked for.
        name: String,
        /// Near keys (`did you mean`), best first.
        suggestions: Vec<String>,
    },
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Ambiguous {
                engine,
                option,
                release,
                candidates,
            } => write!(
                f,
                "{option} is ambiguous in {engine} {release}: it could be {}",
                candidates.join(", ")
            ),
            KeyError::Unknown {
                engine,
                name,
                suggestions,
            } if suggestions.is_empty() => {
                write!(
                    f,
                    "no bundled {engine} release has an option or key {name:?}"
                )
            }
            KeyError::Unknown {
                engine,
                name,
                suggestions,
            } => write!(
                f,
                "no bundled {engine} release has an option or key {name:?} (did you mean {}?)",
                suggestions.join(", ")
            ),
        }
    }
}

/// Every engine recipe-drift resolves, in a fixed order (reports and `explain`
/// list engines in this order).
pub fn registry() -> &'static [&'static dyn Engine] {
    &[&sglang::Sglang, &vllm::Vllm]
}

/// The engine of a name, if registered.
pub fn by_name(name: &str) -> Option<&'static dyn Engine> {
    registry().iter().copied().find(|e| e.name() == name)
}

/// Every canonical key of every registered engine, plus `engine`.
pub fn all_keys() -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = registry()
        .iter()
        .flat_map(|e| e.keys().iter().cloned())
        .collect();
    keys.insert("engine".into());
    keys
}

/// A command the engine release itself refuses before it starts: its parser
/// rejects a word (an unknown option, an ambiguous prefix, a value not among
/// the choices or not of the option's type) or its CLI's own argv checks do.
/// This is a finding about the text that writes the command (exit 1), not an
/// error of recipe-drift's input (exit 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The refused word, or the launch when the release names no word.
    pub span: Span,
    /// The release's message, with recipe-drift's hints (`did you mean`).
    pub message: String,
    /// The release that refuses.
    pub version: VersionUsed,
    /// The platform, if known.
    pub platform: Option<Known<Platform>>,
}

/// The rule name a parser refusal carries as a startup error.
pub const PARSER_RULE: &str = "parser";

impl Refusal {
    /// The refused side as a resolved launch: no values (the command does not
    /// start, so nothing it sets can be compared) and the refusal as its one
    /// startup error, at the refused word.
    pub fn resolved(&self, engine: crate::launch::Engine) -> Resolved {
        Resolved {
            engine,
            version: self.version.clone(),
            platform: self.platform.clone(),
            values: Default::default(),
            startup_errors: vec![StartupError {
                rule: PARSER_RULE.into(),
                message: self.message.clone(),
                reference: format!("the argument parser of {engine} {}", self.version.version),
                span: Some(self.span.clone()),
            }],
            set_aside: Vec::new(),
            unlisted: Default::default(),
            env_open: None,
            args_open: None,
        }
    }
}

/// Why a launch did not resolve.
#[derive(Debug, Clone)]
pub enum ResolveError {
    /// The engine release refuses the command (a finding).
    Refused(Box<Refusal>),
    /// recipe-drift cannot resolve it (bad version, unreadable file): exit 2.
    Failed(Error),
}

impl From<Error> for ResolveError {
    fn from(e: Error) -> Self {
        ResolveError::Failed(e)
    }
}

impl From<ResolveError> for Error {
    /// A refusal as an input error at the refused word, for callers where the
    /// argv is the user's own (`resolve -- ARGV`).
    fn from(e: ResolveError) -> Self {
        match e {
            ResolveError::Refused(r) => Error::input(r.span, r.message),
            ResolveError::Failed(e) => e,
        }
    }
}

/// Resolves a launch with its engine, a refusal as an input error (see
/// [`resolve_outcome`] to keep it apart).
pub fn resolve(launch: &Launch, opts: &ResolveOptions) -> Result<Resolved, Error> {
    resolve_outcome(launch, opts).map_err(Error::from)
}

/// The two sides of a comparison as one release reads them: when both run
/// the same engine on different bundled releases, the older side's values
/// respelled as the newer release reads them (its respelling rules,
/// [`rules::respell`]): one deployment spelled by two releases compares
/// equal. Each respelled value names the rule in its trail.
pub fn respelled<'a>(
    docs: &'a Resolved,
    recipe: &'a Resolved,
) -> (
    std::borrow::Cow<'a, Resolved>,
    std::borrow::Cow<'a, Resolved>,
) {
    use std::borrow::Cow;
    let same = (Cow::Borrowed(docs), Cow::Borrowed(recipe));
    if docs.engine != recipe.engine {
        return same;
    }
    let Some(engine) = by_name(docs.engine.name()) else {
        return same;
    };
    let version = |r: &Resolved| Version::from_str(&r.version.version).ok();
    let (Some(dv), Some(rv)) = (version(docs), version(recipe)) else {
        return same;
    };
    let again = |older: &Resolved, ov: &Version, nv: &Version| {
        rules::respell(engine.rules(), ov, nv, &older.values).map(|values| Resolved {
            values,
            ..older.clone()
        })
    };
    match dv.cmp(&rv) {
        std::cmp::Ordering::Less => match again(docs, &dv, &rv) {
            Some(d) => (Cow::Owned(d), Cow::Borrowed(recipe)),
            None => same,
        },
        std::cmp::Ordering::Greater => match again(recipe, &rv, &dv) {
            Some(r) => (Cow::Borrowed(docs), Cow::Owned(r)),
            None => same,
        },
        std::cmp::Ordering::Equal => same,
    }
}

/// Resolves a launch with its engine, and records the engine itself as the
/// `engine` key (from the launcher words). A command the release refuses is
/// [`ResolveError::Refused`].
pub fn resolve_outcome(launch: &Launch, opts: &ResolveOptions) -> Result<Resolved, ResolveError> {
    let engine = by_name(launch.engine.name()).ok_or_else(|| {
        Error::input(
            launch.span.clone(),
            format!("no engine named {} is registered", launch.engine),
        )
    })?;
    // A folder the script filled from the Hub names that checkpoint.
    let downloaded = launch.with_downloads();
    let launch = downloaded.as_ref().unwrap_or(launch);
    let mut r = engine.resolve(launch, opts)?;
    r.values.insert(
        "engine".into(),
        Entry {
            val: Val::known(serde_json::Value::String(launch.engine.name().into())),
            source: ValueSource::Context,
            name: "engine".into(),
            spans: launch.launcher.iter().map(|t| t.span.clone()).collect(),
            // Launchers of one engine are alike (`sglang serve`, `python -m ...`).
            written: None,
            rules: vec![],
            inactive: None,
            no_effect: None,
        },
    );
    Ok(r)
}

/// The options (`--api-key`) of an engine's keys that are secret by their
/// destination, built once per engine and process.
fn secret_options(e: &dyn Engine) -> &'static [String] {
    static OPTS: std::sync::OnceLock<Vec<(&'static str, Vec<String>)>> = std::sync::OnceLock::new();
    let all = OPTS.get_or_init(|| {
        registry()
            .iter()
            .map(|e| {
                let opts = e
                    .keys()
                    .iter()
                    .filter(|k| crate::secret::is_secret_dest(k))
                    .map(|k| format!("--{}", k.replace('_', "-")))
                    .collect();
                (e.name(), opts)
            })
            .collect()
    });
    all.iter()
        .find(|(name, _)| *name == e.name())
        .map_or(&[], |(_, opts)| opts.as_slice())
}

/// The launch-level secret hook: records each secret word of these launches
/// (the value of an option that is secret by its name or by the destination
/// its engine parses it into, so `--api-k` counts; a secret-named env var) as
/// a value and as the span where it is written, so source excerpts mask it
/// however it is spelled there (`crate::secret::note_written_word`).
pub fn note_secrets<'a>(launches: impl IntoIterator<Item = &'a Launch>) {
    // Whether an option name is secret, per engine: by its name, else by the
    // key the engine resolves it to (abbreviations). The engine is asked only
    // for a name that abbreviates a secret key's option, once per name.
    let mut known: std::collections::BTreeMap<(String, String), bool> = Default::default();
    let mut is_secret = |engine: &str, name: &str| -> bool {
        if crate::secret::is_secret_option(name) {
            return true;
        }
        let Some(e) = by_name(engine) else {
            return false;
        };
        let opts = secret_options(e);
        let spelled = name.replace('_', "-");
        if spelled.len() < 3 || !opts.iter().any(|o| o.starts_with(&spelled)) {
            return false;
        }
        *known
            .entry((engine.to_string(), name.to_string()))
            .or_insert_with(|| e.key(name).is_ok_and(|k| crate::secret::is_secret_dest(&k)))
    };
    let written = |t: &crate::span::Span, after_eq: bool| {
        let src = t.source();
        crate::secret::note_written_word(&t.file, src.text(), t.start, t.end, after_eq);
    };
    for launch in launches {
        let engine = launch.engine.name();
        let argv = &launch.argv;
        let mut i = 0;
        while i < argv.len() {
            let t = &argv[i];
            if t.text == "--" {
                break;
            }
            if t.text.starts_with('-') && t.text.len() > 1 {
                match t.text.split_once('=') {
                    Some((name, value)) if is_secret(engine, name) => {
                        crate::secret::note(value);
                        written(&t.span, true);
                    }
                    None if is_secret(engine, &t.text) => {
                        if let Some(v) = argv.get(i + 1) {
                            crate::secret::note(&v.text);
                            written(&v.span, false);
                            i += 1;
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        for e in &launch.env {
            if crate::secret::is_secret_env(&e.name) {
                crate::secret::note(&e.value);
                written(&e.span, true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_launcher_engine_is_registered_and_every_engine_has_a_launcher() {
        for e in crate::launch::Engine::all() {
            assert!(
                by_name(e.name()).is_some(),
                "launcher engine {e} not registered"
            );
        }
        for e in registry() {
            assert!(
                crate::launch::Engine::parse(e.name()).is_some(),
                "engine {} has no launcher in src/launchers.yaml",
                e.name()
            );
        }
    }
}
