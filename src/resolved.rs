//! The resolved types that engines produce and `compare` reads: what the engine
//! would run with, key by key, with provenance. A leaf: it imports no engine.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::launch::{Engine, Known, Platform};
use crate::span::Span;

/// A resolved value: known, or unknown with the reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Val {
    /// Known from the text.
    Known {
        /// The value (JSON-typed as the engine holds it).
        value: Value,
    },
    /// Cannot be known from the text.
    Unknown {
        /// Why (needs the GPU, the checkpoint, an unknown platform, ...).
        reason: String,
        /// The values it can take, when the engine picks from a known set.
        #[serde(skip_serializing_if = "Option::is_none")]
        one_of: Option<Vec<Value>>,
    },
}

impl Val {
    /// A known value.
    pub fn known(value: Value) -> Val {
        Val::Known { value }
    }

    /// An unknown value with a reason.
    pub fn unknown(reason: impl Into<String>) -> Val {
        Val::Unknown {
            reason: reason.into(),
            one_of: None,
        }
    }

    /// The known value, if any.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Val::Known { value } => Some(value),
            Val::Unknown { .. } => None,
        }
    }

    /// The value as the engine would print it on a command line.
    pub fn display(&self) -> String {
        match self {
            Val::Known { value } => display_value(value),
            Val::Unknown { reason, .. } => format!("unknown ({reason})"),
        }
    }
}

/// A JSON value printed like a command-line value (`true`, `0.8`, `page_first`, `[1, 2]`).
pub fn display_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "None".to_string(),
        Value::Array(items) => items
            .iter()
            .map(display_value)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// Where a resolved value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueSource {
    /// Set on the command line.
    Cli,
    /// Set by an environment variable.
    Env,
    /// The release's default.
    Default,
    /// Changed by a resolver rule (see `rules`).
    Rule,
    /// From the launch context (image, runner, `--hardware`).
    Context,
    /// Not knowable from the text.
    Unknown,
}

/// One rule that touched a value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleHit {
    /// The rule's id.
    pub id: String,
    /// The value before the rule.
    pub before: Val,
    /// The value after the rule.
    pub after: Val,
    /// The upstream reference of the rule.
    pub reference: String,
    /// The checkpoint facts the rule's conditions read, each as
    /// `checkpoint.KEY = VALUE (from WHERE)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
}

/// One resolved key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// The final value.
    #[serde(flatten)]
    pub val: Val,
    /// Where the value (before rules) came from.
    pub source: ValueSource,
    /// The engine's name for it in this release (destination or env var).
    pub name: String,
    /// The words that set it (option and values), if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<Span>,
    /// How it was written (`--tp 2`, `SGLANG_USE_AITER=1`), if written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
    /// Rules that changed it, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleHit>,
    /// The rule that makes this key have no effect (HiCache settings without the
    /// hierarchical cache, speculative sizes without an algorithm).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inactive: Option<String>,
    /// Why a written setting does nothing in this release (an env var the
    /// release no longer reads): reported as a finding of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_effect: Option<String>,
}

impl Entry {
    /// Whether the text decides this key: it sets it, or a rule changed it, to
    /// a known value (what a normalised command lists on its own).
    pub fn is_decided(&self) -> bool {
        (self.is_explicit() || !self.rules.is_empty()) && self.val.value().is_some()
    }

    /// Whether the text sets this key itself (CLI, env or context), as opposed to defaults.
    pub fn is_explicit(&self) -> bool {
        matches!(
            self.source,
            ValueSource::Cli | ValueSource::Env | ValueSource::Context
        )
    }
}

/// The engine release used to resolve a launch, and why that one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionUsed {
    /// The release whose schema and rules were used.
    pub version: String,
    /// The version asked for (from flag, image or default), if different.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    /// Where the version came from.
    pub from: String,
    /// Set when the command may run a release newer than every bundled one
    /// (it asks for one, or runs a `latest` image): the newest bundled release
    /// was used, and what it does not know is set aside, not refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer: Option<Newer>,
}

/// Why a command may run a release newer than every bundled one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum Newer {
    /// It asks for a version newer than the newest bundled release.
    Version {
        /// Where the version came from (`--engine-version`, an image tag).
        from: String,
    },
    /// It runs an image tagged `latest` (the newest release when the text is
    /// run), or an untagged one, which names no release.
    Latest {
        /// The image (`lmsysorg/sglang:latest`).
        image: String,
        /// Where the image is written.
        from: String,
    },
    /// It runs an image whose tag names no release and is neither `latest`
    /// nor a development build (`vllm/vllm-openai:kimi-k3`, a custom build),
    /// or one pinned by digest alone: it may run any release, or the
    /// development line after the newest.
    Custom {
        /// The image.
        image: String,
        /// Where the image is written.
        from: String,
        /// Why it names no release, in words (`its tag kimi-k3 names no
        /// release, and is neither latest nor a nightly or dev build`).
        reason: String,
    },
    /// It runs a nightly or dated development image
    /// (`lmsysorg/sglang:nightly-dev-cu13-20260815-0abe6a85`), built from the
    /// development line after the release used (the one its date places it
    /// after, or the newest bundled one when its text does not place it).
    Nightly {
        /// The image.
        image: String,
        /// Where the image is written.
        from: String,
        /// Why that release, in words (`it is dated 2026-08-15, after sglang
        /// 0.5.17 (2026-08-08) and before 0.5.18 (2026-08-21)`).
        reason: String,
        /// The bundled release after the one used, if any (the development
        /// line may have added what it added).
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
}

impl VersionUsed {
    /// What the command may run instead of the release used, in words:
    /// `0.5.24` or `lmsysorg/sglang:latest`; `None` when the release used
    /// is the one asked for (or the nearest lower one).
    pub fn newer_words(&self) -> Option<String> {
        match self.newer.as_ref()? {
            Newer::Version { .. } => self.requested.clone(),
            Newer::Latest { image, .. }
            | Newer::Custom { image, .. }
            | Newer::Nightly { image, .. } => Some(image.clone()),
        }
    }

    /// What the release used is, in the `newer-release` sentences: the newest
    /// bundled release, or, for a development image its date places between
    /// two bundled releases, the one before it.
    pub fn used_words(&self) -> &'static str {
        match &self.newer {
            Some(Newer::Nightly { next: Some(_), .. }) => "the last release before the image",
            _ => "the newest bundled release",
        }
    }

    /// The `newer-release` finding's sentence for a side (`docs`), when the
    /// command may run a release newer than every bundled one; `with_from`
    /// adds where the version came from (`lint-docs` leaves it out, so the
    /// states of a generator share one finding).
    pub fn newer_sentence(&self, engine: &str, side: &str, with_from: bool) -> Option<String> {
        let used = &self.version;
        let at = |from: &str| {
            if with_from {
                format!(" ({from})")
            } else {
                String::new()
            }
        };
        match self.newer.as_ref()? {
            Newer::Version { from } => Some(format!(
                "the {side} command asks for {engine} {}{}, newer than every bundled release: it was judged with {used}, the newest bundled release",
                self.requested.as_deref().unwrap_or("?"),
                at(from)
            )),
            Newer::Latest { image, from } => Some(format!(
                "the {side} command runs the image {image}{}, which names no release and may be newer than every bundled one: it was judged with {engine} {used}, the newest bundled release",
                at(from)
            )),
            Newer::Custom {
                image,
                from,
                reason,
            } => Some(format!(
                "the {side} command runs the image {image}{}: {reason}, so it may be newer than every bundled one: it was judged with {engine} {used}, the newest bundled release",
                at(from)
            )),
            Newer::Nightly {
                image,
                from,
                reason,
                ..
            } => Some(format!(
                "the {side} command runs the development image {image}{}: {reason}; it was judged with {engine} {used}, {}",
                at(from),
                self.used_words()
            )),
        }
    }
}

/// Words of a command that the release used does not know, set aside because
/// the command may run a newer release that accepts them (see
/// [`VersionUsed::newer`]); the rest of the command is resolved without them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetAside {
    /// The words as written (an unknown option and the values argparse leaves
    /// with it, or an option and a choice the release does not list).
    pub words: Vec<String>,
    /// Where they are written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<crate::span::Span>,
    /// Why the release used refuses them (its parser's message).
    pub refusal: String,
    /// Known options or choices the words are near (a typo is possible too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near: Option<String>,
    /// The key whose written value was kept though the release does not list
    /// it (a choice), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Under a development image placed before a bundled release: the first
    /// later bundled release that knows the option (the line added it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_to: Option<String>,
}

impl SetAside {
    /// The `newer-release` finding's sentence for these words, under the
    /// release `v` (whose [`VersionUsed::newer`] is set).
    pub fn sentence(&self, engine: &str, v: &VersionUsed) -> String {
        let newer = v.newer_words().unwrap_or_else(|| "a newer release".into());
        let words = self.words.join(" ");
        let kept = match &self.key {
            Some(key) => format!(
                "{}{key} keeps the written value; {engine} {}: {}",
                self.known_to
                    .as_ref()
                    .map(|k| format!("{engine} {k} knows it; "))
                    .unwrap_or_default(),
                v.version,
                self.refusal
            ),
            None => match &self.known_to {
                Some(k) => {
                    format!("{engine} {k} knows it; set aside; the rest of the command is compared")
                }
                None => "set aside; the rest of the command is compared".into(),
            },
        };
        let near = match (&self.near, &self.key) {
            (Some(n), None) => format!("; it may also be a typo of {n}"),
            (Some(n), Some(_)) => format!("; it may also be a typo of the choice {n}"),
            _ => String::new(),
        };
        format!(
            "`{words}` is unknown to {engine} {}, {}; {newer} may accept it ({kept}){near}",
            v.version,
            v.used_words()
        )
    }
}

/// A problem the engine itself would report at startup (from a rule, or its
/// parser's refusal of a word).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StartupError {
    /// The rule's id (`parser` for a parser refusal).
    pub rule: String,
    /// The engine's message.
    pub message: String,
    /// Upstream reference.
    pub reference: String,
    /// The word it is about, when one is (a parser refusal); else the launch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<crate::span::Span>,
}

/// A launch after the engine's parser and resolver.
#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    /// The engine.
    pub engine: Engine,
    /// The release used.
    pub version: VersionUsed,
    /// Platform, if known.
    pub platform: Option<Known<Platform>>,
    /// Canonical key -> entry.
    pub values: BTreeMap<String, Entry>,
    /// Errors the engine would raise at startup.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub startup_errors: Vec<StartupError>,
    /// Words the release used does not know, set aside because the command
    /// may run a newer release (a warning each, not a startup error).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<SetAside>,
    /// Key prefixes (`compilation_config.`) whose keys not listed in `values`
    /// are at a default the bundled data does not hold, with the reason.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub unlisted: BTreeMap<String, String>,
    /// The code that may have exported any variable into the server's
    /// environment ([`Launch::env_open`](crate::launch::Launch::env_open)):
    /// `env:` keys the launch does not set are unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env_open: Option<String>,
    /// A placeholder that stands for arguments the reader writes
    /// (`<other args>`), with where it is: the options the command does not
    /// write are unknown (left to the reader), not at their defaults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args_open: Option<String>,
}

impl Resolved {
    /// The value of a key this side does not list: unknown under an
    /// `unlisted` prefix, else unset (`None`).
    pub fn absent(&self, key: &str) -> Val {
        if let Some(cause) = &self.args_open
            && !key.starts_with("env:")
        {
            return Val::unknown(args_open_reason(cause));
        }
        match self
            .unlisted
            .iter()
            .find(|(prefix, _)| key.starts_with(prefix.as_str()))
        {
            Some((_, reason)) => Val::unknown(reason.clone()),
            None => Val::known(Value::Null),
        }
    }
}

/// Why an option a command with an argument placeholder does not write is
/// unknown.
pub fn args_open_reason(cause: &str) -> String {
    format!("not written: {cause} leaves it to the reader")
}

/// Options that fill the launch context from recipe-drift's own command line.
#[derive(Debug, Clone, Default)]
pub struct ResolveOptions {
    /// `--engine-version`, overriding the image.
    pub engine_version: Option<String>,
    /// `--platform`.
    pub platform: Option<Platform>,
    /// `--hardware`.
    pub hardware: Option<String>,
    /// Where these options came from, for messages (default: the flag names).
    pub origin: Option<String>,
    /// Where checkpoint facts come from (`None`: nowhere; they stay unknown).
    pub checkpoints: Option<std::sync::Arc<dyn FactSource>>,
}

/// The checkpoint facts rules can read, as context keys (`checkpoint.NAME`),
/// each with what it holds. A fact the checkpoint does not state is `None`;
/// without facts every key is unknown with the reason.
pub const CHECKPOINT_KEYS: &[(&str, &str)] = &[
    ("checkpoint.architecture", "config.json architectures[0]"),
    ("checkpoint.model_type", "config.json model_type"),
    (
        "checkpoint.text_model_type",
        "text_config.model_type, else model_type (SGLang's hf_text_config)",
    ),
    (
        "checkpoint.dtype",
        "config.json dtype or torch_dtype, else text_config's (vLLM)",
    ),
    (
        "checkpoint.text_dtype",
        "text_config dtype or torch_dtype, else the top level's (SGLang's hf_text_config)",
    ),
    (
        "checkpoint.kv_lora_rank",
        "kv_lora_rank (text_config's when nested): the MLA latent rank",
    ),
    (
        "checkpoint.index_topk",
        "index_topk: the DSA/NSA sparse-attention flag",
    ),
    (
        "checkpoint.learnable_sink",
        "learnable_sink (DSA attention sinks)",
    ),
    (
        "checkpoint.quant_source",
        "where the quantization config is: config.json, compression_config or hf_quant_config.json",
    ),
    (
        "checkpoint.quant_method",
        "quantization_config.quant_method, lower-cased",
    ),
    ("checkpoint.producer", "producer.name (modelopt)"),
    (
        "checkpoint.quant_algo",
        "quant_algo (nested under quantization, or flat), upper-cased",
    ),
    (
        "checkpoint.kv_cache_quant_algo",
        "kv_cache_quant_algo (nested or flat), upper-cased",
    ),
    (
        "checkpoint.kv_cache_scheme",
        "kv_cache_scheme as written: a string (upper-cased) or a mapping",
    ),
    (
        "checkpoint.kv_cache_scheme.type",
        "kv_cache_scheme.type (float, int)",
    ),
    (
        "checkpoint.kv_cache_scheme.num_bits",
        "kv_cache_scheme.num_bits",
    ),
    (
        "checkpoint.kv_cache_scheme.dynamic",
        "kv_cache_scheme.dynamic",
    ),
    (
        "checkpoint.kv_cache_scheme.strategy",
        "kv_cache_scheme.strategy",
    ),
    (
        "checkpoint.kv_cache_scheme.symmetric",
        "kv_cache_scheme.symmetric",
    ),
];

/// Why checkpoint facts could not be had, aborting the resolve (exit 2).
#[derive(Debug, Clone, PartialEq)]
pub struct FactError {
    /// The URL or file that failed.
    pub location: String,
    /// The cause.
    pub message: String,
}

/// A source of checkpoint facts: a model (as the launch names it) and its
/// revision -> every [`CHECKPOINT_KEYS`] entry (unknown with the reason when
/// the facts cannot be had without an error).
pub trait FactSource: Send + Sync + std::fmt::Debug {
    /// The facts of one model.
    fn facts(
        &self,
        model: &str,
        revision: Option<&str>,
    ) -> Result<BTreeMap<String, Entry>, FactError>;

    /// The facts of one model whatever its revision (stated for every
    /// revision, such as a config's `checkpoints:` entry without one): what a
    /// launch whose revision is not knowable may use. `None` by default.
    fn facts_of_every_revision(&self, _model: &str) -> Option<BTreeMap<String, Entry>> {
        None
    }
}

/// Every checkpoint key, unknown for one reason.
pub fn unknown_facts(reason: &str) -> BTreeMap<String, Entry> {
    CHECKPOINT_KEYS
        .iter()
        .map(|(k, _)| {
            (
                k.to_string(),
                Entry {
                    val: Val::unknown(reason),
                    source: ValueSource::Unknown,
                    name: k.to_string(),
                    spans: vec![],
                    written: None,
                    rules: vec![],
                    inactive: None,
                    no_effect: None,
                },
            )
        })
        .collect()
}

impl ResolveOptions {
    /// Where an option came from: `--flag`, or the config file that set it.
    pub fn from(&self, flag: &str) -> String {
        option_origin(self.origin.as_deref(), flag)
    }
}

/// `--flag`, or `flag in FILE` when the value came from a config file.
pub fn option_origin(origin: Option<&str>, flag: &str) -> String {
    match origin {
        Some(o) => format!("{flag} in {o}"),
        None => format!("--{flag}"),
    }
}
