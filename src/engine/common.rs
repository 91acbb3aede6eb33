//! What every engine's resolver does alike: the launch context (hardware,
//! platform, requested version), entries for written options and env vars,
//! the model's identity and placeholders for values the text cannot know.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::engine::argparse::{ArgParser, Namespace, OptionSpec, ParseError, ParseErrorKind};
use crate::engine::release_lines::{self, Placement};
use crate::engine::rules::EnvSpec;
use crate::launch::{EnvVar, Known, Launch, Platform, Provenance, Token};
use crate::resolved::{Entry, ResolveOptions, SetAside, Val, ValueSource, VersionUsed};
use crate::span::Span;

/// Hardware and platform of a launch: recipe-drift's options first, then the
/// launch's own context, then the platform the hardware implies.
pub fn context(
    launch: &Launch,
    opts: &ResolveOptions,
) -> (Option<Known<String>>, Option<Known<Platform>>) {
    let hardware = opts
        .hardware
        .as_ref()
        .map(|h| Known {
            value: h.clone(),
            from: opts.from("hardware"),
        })
        .or_else(|| launch.context.hardware.clone());
    let platform = opts
        .platform
        .map(|p| Known {
            value: p,
            from: opts.from("platform"),
        })
        .or_else(|| launch.context.platform.clone())
        .or_else(|| {
            hardware.as_ref().and_then(|h| {
                crate::hardware::platform_of(&h.value).map(|p| Known {
                    value: p,
                    from: format!("hardware {} ({})", h.value, h.from),
                })
            })
        });
    (hardware, platform)
}

/// The engine version asked for, with where it came from: `--engine-version`,
/// else the launch's context (image tag, config).
pub fn requested_version(launch: &Launch, opts: &ResolveOptions) -> Option<(String, String)> {
    match (&opts.engine_version, &launch.context.engine_version) {
        (Some(v), _) => Some((v.clone(), opts.from("engine-version"))),
        (None, Some(k)) => Some((k.value.clone(), k.from.clone())),
        _ => None,
    }
}

/// Picks the release for a launch: the version asked for (`--engine-version`,
/// the image's tag, see [`pick_release`](super::pick_release)); else, for an
/// image tagged `latest` (`lmsysorg/sglang:latest`,
/// `vllm/vllm-openai-cpu:latest-x86_64`), the newest bundled release marked
/// [`Newer::Latest`](crate::resolved::Newer): `latest` is the newest release
/// when the text is run, which may be newer than every bundled one; for a
/// nightly or dated development image (`nightly-dev-cu13-20260815-0abe6a85`),
/// the bundled release it was built after ([`release_lines::place`]), marked
/// [`Newer::Nightly`](crate::resolved::Newer) so that what the development
/// line added is set aside with a warning rather than refused. An image dated
/// before every bundled release is an error, as an older version asked for is.
pub fn pick_for_launch<'a, R: super::Bundled>(
    engine: &str,
    releases: &'a [R],
    launch: &Launch,
    opts: &ResolveOptions,
) -> Result<(&'a R, VersionUsed), crate::error::Error> {
    let requested = requested_version(launch, opts);
    let (release, mut version) = super::pick_release(
        engine,
        releases,
        requested.as_ref().map(|(v, f)| (v.as_str(), f.as_str())),
    )?;
    let Some(img) = launch
        .context
        .image
        .as_ref()
        .filter(|_| requested.is_none())
    else {
        return Ok((release, version));
    };
    if is_latest_tag(&img.value) {
        version.from = format!(
            "the image {} ({}) names no release: `latest` may be newer than every bundled release, the newest ({}) used",
            img.value, img.from, version.version
        );
        version.newer = Some(crate::resolved::Newer::Latest {
            image: img.value.clone(),
            from: img.from.clone(),
        });
        return Ok((release, version));
    }
    let lines = release_lines::lines(engine);
    let dev = image_tag(&img.value).and_then(release_lines::dev_tag);
    let Some(tag) = dev else {
        // A custom build (`kimi-k3`), or a digest alone: it names no release.
        let reason = match image_tag(&img.value) {
            Some(t) => format!(
                "its tag {t} names no release, and is neither `latest` nor a nightly or dev build"
            ),
            None => "it is pinned by digest alone, which names no release".into(),
        };
        version.from = format!(
            "the image {} ({}) names no release: {reason}; the newest bundled release ({}) used",
            img.value, img.from, version.version
        );
        version.newer = Some(crate::resolved::Newer::Custom {
            image: img.value.clone(),
            from: img.from.clone(),
            reason,
        });
        return Ok((release, version));
    };
    let bundled_at = |i: usize| releases.iter().position(|r| r.name() == lines[i].version);
    let placement = if lines.is_empty() {
        Placement::Unplaced {
            reason: format!(
                "recipe-drift has no release dates for {engine}, so the text does not place it; it may be newer than every bundled release"
            ),
        }
    } else {
        release_lines::place(engine, lines, &tag)
    };
    let (index, reason) = match placement {
        Placement::Tagged(i) => match bundled_at(i) {
            Some(j) => {
                let r = &releases[j];
                let version = VersionUsed {
                    version: r.name().to_string(),
                    requested: None,
                    from: format!(
                        "the image {} ({}) is built from the tagged commit of {engine} {}",
                        img.value,
                        img.from,
                        r.name()
                    ),
                    newer: None,
                };
                return Ok((r, version));
            }
            None => (
                releases.len() - 1,
                "its commit is tagged for a release that is not bundled".into(),
            ),
        },
        Placement::Before { reason } => {
            return Err(crate::error::Error::usage(format!(
                "the image {} ({}) is a development build older than every bundled {engine} release: {reason}",
                img.value, img.from
            )));
        }
        Placement::After { index, reason } => match bundled_at(index) {
            Some(j) => (j, reason),
            None => (releases.len() - 1, reason),
        },
        Placement::Unplaced { reason } => (releases.len() - 1, reason),
    };
    let r = &releases[index];
    let next = releases.get(index + 1).map(|n| n.name().to_string());
    let set_aside = match &next {
        Some(_) => format!(
            "{} used, and what the development line added after it is set aside",
            r.name()
        ),
        None => format!("the newest bundled release ({}) used", r.name()),
    };
    let version = VersionUsed {
        version: r.name().to_string(),
        requested: None,
        from: format!(
            "the image {} ({}) is a development build: {reason}; {set_aside}",
            img.value, img.from
        ),
        newer: Some(crate::resolved::Newer::Nightly {
            image: img.value.clone(),
            from: img.from.clone(),
            reason,
            next,
        }),
    };
    Ok((r, version))
}

/// An image's tag (`nightly-0abe6a85` of `lmsysorg/sglang:nightly-0abe6a85`),
/// without a digest; `None` when it has none.
pub fn image_tag(image: &str) -> Option<&str> {
    let named = image.split('@').next().unwrap_or(image);
    match named.rsplit_once(':') {
        Some((_, tag)) if !tag.contains('/') && !tag.is_empty() => Some(tag),
        _ => None,
    }
}

/// Whether an image's tag is `latest` (or starts `latest-`/`latest_`, a
/// platform variant of it), or it has no tag (Docker pulls `latest`); an
/// image pinned by digest is not.
pub fn is_latest_tag(image: &str) -> bool {
    if image.contains('@') {
        return false;
    }
    match image.rsplit_once(':') {
        Some((_, tag)) if !tag.contains('/') => tag.split(['-', '_']).next() == Some("latest"),
        _ => true,
    }
}

/// For a parse error under a release nobody asked for: how to pick another.
pub fn version_hint(version: &VersionUsed, launch: &Launch) -> String {
    let custom = matches!(version.newer, Some(crate::resolved::Newer::Custom { .. }));
    if !custom && !version.from.starts_with("newest bundled release") {
        return String::new();
    }
    let image = launch
        .context
        .image
        .as_ref()
        .map(|i| format!(" (the image {} names no release)", i.value))
        .unwrap_or_default();
    format!(
        "; no engine version was given{image}, so the newest bundled release {} was used: give --engine-version, or engine-version: on a config link",
        version.version
    )
}

/// The release's refusal of an argv: a [`Refusal`](super::Refusal) when the
/// refused word is knowable from the text; otherwise an input error (whether
/// the engine refuses the command depends on a word the text does not give).
pub fn refusal(
    span: Span,
    message: String,
    knowable: bool,
    version: &VersionUsed,
    platform: &Option<Known<Platform>>,
) -> super::ResolveError {
    if !knowable {
        return super::ResolveError::Failed(crate::error::Error::input(span, message));
    }
    super::ResolveError::Refused(Box::new(super::Refusal {
        span,
        message,
        version: version.clone(),
        platform: platform.clone(),
    }))
}

/// An entry for a value set on the command line by these written words.
pub fn written_entry(name: &str, value: Value, words: &[&Token]) -> Entry {
    // A composed word is placed where it is written (its YAML scalar).
    let mut spans: Vec<Span> = words
        .iter()
        .map(|t| t.written_at.as_ref().unwrap_or(&t.span).clone())
        .collect();
    spans.dedup();
    let mut written: Vec<String> = words
        .iter()
        .map(|t| shell_words::quote(&t.text).into_owned())
        .collect();
    written.dedup();
    let why = words.iter().find_map(|t| match &t.provenance {
        Provenance::Unknown { reason } => Some(reason.clone()),
        _ => None,
    });
    Entry {
        val: match why {
            Some(reason) => Val::unknown(reason),
            None => Val::known(value),
        },
        source: ValueSource::Cli,
        name: name.to_string(),
        spans,
        written: Some(written.join(" ")),
        rules: vec![],
        inactive: None,
        no_effect: None,
    }
}

/// An entry at a default value.
pub fn default_entry(name: &str, value: Value) -> Entry {
    Entry {
        val: Val::known(value),
        source: ValueSource::Default,
        name: name.to_string(),
        spans: vec![],
        written: None,
        rules: vec![],
        inactive: None,
        no_effect: None,
    }
}

/// Every key at a parser's defaults (the first action of each key wins), as
/// resolution starts from them. `keys[i]` is the canonical key of action `i`.
pub fn defaults(
    parser: &crate::engine::argparse::ArgParser,
    keys: &[String],
) -> BTreeMap<String, Entry> {
    let ns = parser.defaults();
    let mut out = BTreeMap::new();
    for (i, a) in parser.actions.iter().enumerate() {
        if out.contains_key(&keys[i]) {
            continue;
        }
        if let Some(v) = parser.dest_id(i).and_then(|d| ns.get_id(d)) {
            out.insert(keys[i].clone(), default_entry(&a.dest, v.clone()));
        }
    }
    out
}

/// Fills `values` from a parse: options the argv set become CLI entries (their
/// words found by `words(parser_index)`), defaults converted after parsing are
/// updated. `keys[i]` is the canonical key of action `i`.
pub fn apply_namespace<'t>(
    parser: &crate::engine::argparse::ArgParser,
    keys: &[String],
    ns: &Namespace,
    words: impl Fn(&[usize]) -> Vec<&'t Token>,
    values: &mut BTreeMap<String, Entry>,
) {
    for (i, a) in parser.actions.iter().enumerate() {
        let key = &keys[i];
        let Some(v) = parser.dest_id(i).and_then(|d| ns.get_id(d)) else {
            continue;
        };
        match ns.set_by.get(&a.dest) {
            Some(sb) if values.get(key).is_none_or(|e| e.source != ValueSource::Cli) => {
                let mut idx = vec![sb.arg_index];
                idx.extend(sb.value_indexes.iter().filter(|&&j| j != sb.arg_index));
                let toks = words(&idx);
                values.insert(key.clone(), written_entry(&a.dest, v.clone(), &toks));
            }
            Some(_) => {}
            None => {
                // A string default converted by its type after parsing.
                if let Some(e) = values.get_mut(key)
                    && e.source == ValueSource::Default
                    && e.val.value() != Some(v)
                {
                    e.val = Val::known(v.clone());
                }
            }
        }
    }
}

/// Env entries for the variables that reach the server (`env:NAME`), then the
/// defaults of the known ones that are not set; when the environment is open
/// (`open`: code that was not evaluated may have exported anything, see
/// [`Launch::env_open`](crate::launch::Launch::env_open)), those are unknown
/// with that reason instead of their defaults.
pub fn apply_env<'a>(
    env: impl IntoIterator<Item = (String, &'a EnvVar)>,
    specs: &BTreeMap<String, EnvSpec>,
    open: Option<&str>,
    values: &mut BTreeMap<String, Entry>,
) {
    for (name, e) in env {
        let spec = specs.get(&name);
        values.insert(
            format!("env:{name}"),
            Entry {
                val: match &e.provenance {
                    Provenance::Unknown { reason } => Val::unknown(reason.clone()),
                    _ => Val::known(env_value(spec, &e.value)),
                },
                source: ValueSource::Env,
                name,
                spans: vec![e.span.clone()],
                written: Some(format!("{}={}", e.name, e.value)),
                rules: vec![],
                inactive: None,
                no_effect: None,
            },
        );
    }
    for (name, spec) in specs {
        let key = format!("env:{name}");
        if values.contains_key(&key) {
            continue;
        }
        match (open, &spec.default) {
            (Some(reason), _) => {
                values.insert(
                    key,
                    Entry {
                        val: Val::unknown(format!(
                            "{name} is not set by the command, but {reason} may have exported it"
                        )),
                        source: ValueSource::Unknown,
                        ..default_entry(name, Value::Null)
                    },
                );
            }
            (None, Some(d)) => {
                values.insert(key, default_entry(name, d.clone()));
            }
            (None, None) => {}
        }
    }
}

/// The `unlisted` entry of an open environment: every `env:` key the launch
/// does not set is unknown, with the reason
/// ([`Launch::env_open`](crate::launch::Launch::env_open)).
pub fn open_env_unlisted(launch: &crate::launch::Launch) -> Option<(String, String)> {
    launch.env_open.as_ref().map(|reason| {
        (
            "env:".to_string(),
            format!("the variable is not set by the command, but {reason} may have exported it"),
        )
    })
}

/// Normalises an env value the way the engine reads it: booleans are on for `1` or
/// `true` in any case; enums outside their choices read as the default.
pub fn env_value(spec: Option<&EnvSpec>, value: &str) -> Value {
    let Some(spec) = spec else {
        return Value::String(value.to_string());
    };
    match spec.kind.as_str() {
        "bool" => match value.to_ascii_lowercase().as_str() {
            "1" | "true" => Value::Bool(true),
            "0" | "false" | "" => Value::Bool(false),
            _ => Value::String(value.to_string()),
        },
        "int" => crate::engine::types::py_int(value)
            .map(Value::from)
            .unwrap_or_else(|| Value::String(value.to_string())),
        "lower" => Value::String(value.to_ascii_lowercase()),
        "upper" => Value::String(value.to_ascii_uppercase()),
        "enum" => match &spec.choices {
            Some(c) if c.iter().any(|x| x == value) => Value::String(value.to_string()),
            _ => spec.default.clone().unwrap_or(Value::Null),
        },
        _ => Value::String(value.to_string()),
    }
}

/// The `hardware` entry: the SKU from the context, or unknown.
pub fn hardware_entry(hardware: Option<&Known<String>>) -> Entry {
    match hardware {
        Some(h) => Entry {
            val: Val::known(Value::String(h.value.to_ascii_lowercase())),
            source: ValueSource::Context,
            name: "hardware".into(),
            spans: vec![],
            written: Some(format!("{} ({})", h.value, h.from)),
            rules: vec![],
            inactive: None,
            no_effect: None,
        },
        None => Entry {
            val: Val::unknown("no hardware given (use --hardware, or hardware: on the link)"),
            source: ValueSource::Unknown,
            name: "hardware".into(),
            spans: vec![],
            written: None,
            rules: vec![],
            inactive: None,
            no_effect: None,
        },
    }
}

/// The model's identity: an HF id in `model_path`, else `served_model_name`
/// when the path is local, else the checkpoint the launch's context says the
/// local path holds. `path_option` names the option in messages.
pub fn model_identity(
    values: &BTreeMap<String, Entry>,
    path_option: &str,
    checkpoint: Option<&Known<String>>,
) -> Entry {
    let pick = |k: &str| {
        values.get(k).and_then(|e| {
            if e.source != ValueSource::Cli {
                return None;
            }
            match e.val.value() {
                Some(Value::String(s)) => Some((s.clone(), e)),
                Some(Value::Array(a)) => a
                    .first()
                    .and_then(|v| v.as_str())
                    .map(|s| (s.to_string(), e)),
                _ => None,
            }
        })
    };
    let unknown = |reason: String| Entry {
        val: Val::unknown(reason),
        source: ValueSource::Unknown,
        name: "model".into(),
        spans: vec![],
        written: None,
        rules: vec![],
        inactive: None,
        no_effect: None,
    };
    let known = |name: &str, key: &str, e: &Entry| Entry {
        val: Val::known(Value::String(name.to_ascii_lowercase())),
        source: ValueSource::Cli,
        name: key.into(),
        spans: e.spans.clone(),
        written: e.written.clone(),
        rules: vec![],
        inactive: None,
        no_effect: None,
    };
    let served = || pick("served_model_name").filter(|(_, s)| s.val.value().is_some());
    // An HF id names the model; --served-model-name is only an API alias then.
    // A local path, or a path the text does not know, is named by the served
    // name when there is one.
    let path_entry = values
        .get("model_path")
        .filter(|e| e.source == ValueSource::Cli);
    if let Some(e) = path_entry {
        if let Val::Unknown { reason, .. } = &e.val {
            return match served() {
                Some((name, s)) => known(&name, &s.name, s),
                None => unknown(format!(
                    "the model path is not knowable from the text ({reason}) and there is no --served-model-name"
                )),
            };
        }
        if let Some((path, e)) = pick("model_path") {
            if is_hf_id(&path) {
                return known(&path, &e.name, e);
            }
            return match (served(), checkpoint) {
                (Some((name, s)), _) => known(&name, &s.name, s),
                (None, Some(c)) => Entry {
                    val: Val::known(Value::String(c.value.to_ascii_lowercase())),
                    source: ValueSource::Context,
                    name: e.name.clone(),
                    spans: e.spans.clone(),
                    written: Some(format!("{path} holds {} ({})", c.value, c.from)),
                    rules: vec![],
                    inactive: None,
                    no_effect: None,
                },
                (None, None) => unknown(format!(
                    "the model path {path:?} is a local path; its identity needs --served-model-name"
                )),
            };
        }
    }
    unknown(format!("no {path_option} or --served-model-name"))
}

pub use crate::launch::is_hf_id;

/// Where a relative local model path (`./m`, `models/m`) is, seen from the
/// launch's working folder (the folder of the file the command is written in,
/// after the script's `cd`s): the first candidate folder holding
/// `MODEL/config.json`, else the first candidate; `Err` with the reason when
/// the working folder is not knowable. A command with no file (`resolve --
/// ARGV`) names it from where recipe-drift runs, as the user typed it.
fn local_model_path(launch: &crate::launch::Launch, model: &str) -> Result<String, String> {
    use crate::span::Origin;
    let file = match &launch.source.origin {
        Origin::File(p) | Origin::Rendered { file: p, .. } => p,
        Origin::Inline(_) | Origin::Url(_) => return Ok(model.to_string()),
    };
    let dir = file.parent().unwrap_or(std::path::Path::new(""));
    let candidates = launch.cwd.candidates(dir);
    if let crate::launch::WorkDir::Unknown(why) = &launch.cwd {
        return Err(format!(
            "the local model path {model:?} is relative to the launch's working folder, which is not knowable ({why}); state its facts in the config's `checkpoints:`"
        ));
    }
    let joined: Vec<std::path::PathBuf> = candidates.iter().map(|c| c.join(model)).collect();
    let found = joined
        .iter()
        .find(|p| crate::files::probe(&p.join("config.json")) == crate::files::Probe::File)
        .or(joined.first());
    Ok(found.map_or_else(|| model.to_string(), |p| p.display().to_string()))
}

/// `word` with its value replaced by [`placeholder`]: `--opt=VALUE` keeps
/// its option, a lone value becomes the placeholder (a choice set aside).
pub fn placeholder_in(word: &str, a: &OptionSpec) -> String {
    let placeholder = placeholder(a);
    match word.split_once('=') {
        Some((opt, _)) if word.starts_with('-') => format!("{opt}={placeholder}"),
        _ => placeholder,
    }
}

/// A value of the right type for an option whose written value is unknown: the
/// first choice, `{}` for JSON and config types, `0` for numbers and device
/// ids, else `x`.
pub fn placeholder(a: &OptionSpec) -> String {
    if let Some(c) = a.choices.as_ref().and_then(|c| c.first()) {
        return crate::resolved::display_value(c);
    }
    let kind = a.type_kind.as_deref().unwrap_or("str");
    if kind.contains("json") || kind.contains("config") || kind.contains("dict") {
        "{}".into()
    } else if kind.contains("int") || kind.contains("float") || kind == "device_ids" {
        "0".into()
    } else {
        "x".into()
    }
}

/// Keys whose value `--config FILE` may set: every non-env key still at its
/// default becomes unknown (the file is read at startup).
pub fn config_file_unknowns(values: &mut BTreeMap<String, Entry>, file: &str) {
    for (key, e) in values.iter_mut() {
        if e.source == ValueSource::Default && !key.starts_with("env:") {
            e.val = Val::unknown(format!(
                "may be set by --config {file}, which is read at startup"
            ));
        }
    }
}

/// Applies an engine's rules with the launch's checkpoint facts, loaded from
/// `opts.checkpoints` only when a rule asks for one (the model as written in
/// `model_path`, and `--revision`). The `checkpoint.*` keys are context for the
/// rules, not settings: they are removed afterwards (rule hits keep the facts
/// they read). A source that fails (a network error) fails the resolve.
pub fn apply_rules(
    rules: &[crate::engine::rules::Rule],
    version: &pep440_rs::Version,
    platform: Option<Platform>,
    values: &mut BTreeMap<String, Entry>,
    errors: &mut Vec<crate::resolved::StartupError>,
    opts: &ResolveOptions,
    launch: &crate::launch::Launch,
) -> Result<(), crate::error::Error> {
    // Both engines name the model's path `model_path`.
    let path_key = "model_path";
    let written = |k: &str| match values.get(k).map(|e| &e.val) {
        Some(Val::Known {
            value: Value::String(s),
        }) => Ok(Some(s.clone())),
        Some(Val::Unknown { reason, .. }) => Err(reason.clone()),
        _ => Ok(None),
    };
    let model = written(path_key);
    // An unknown `--revision` is not `main`: its facts are unknown, unless
    // they are stated for every revision.
    let revision = written("revision");
    let mut load = || -> Result<BTreeMap<String, Entry>, crate::resolved::FactError> {
        let model = match &model {
            Ok(Some(m)) => m,
            Ok(None) => return Ok(crate::resolved::unknown_facts("no model is given")),
            Err(why) => {
                return Ok(crate::resolved::unknown_facts(&format!(
                    "the model is not knowable from the text ({why}), so neither are its checkpoint facts"
                )));
            }
        };
        // A relative local model path is a folder seen from the launch's own
        // working folder, never from where recipe-drift runs.
        let local;
        let model = if is_hf_id(model) || std::path::Path::new(model).is_absolute() {
            model
        } else {
            match local_model_path(launch, model) {
                Ok(p) => {
                    local = p;
                    &local
                }
                Err(why) => return Ok(crate::resolved::unknown_facts(&why)),
            }
        };
        match (&opts.checkpoints, &revision) {
            (Some(src), Ok(rev)) => src.facts(model, rev.as_deref()),
            (Some(src), Err(why)) => Ok(src.facts_of_every_revision(model).unwrap_or_else(|| {
                crate::resolved::unknown_facts(&format!(
                    "the revision of {model} is not knowable from the text ({why}), so neither are its checkpoint facts"
                ))
            })),
            (None, _) => Ok(crate::resolved::unknown_facts(&format!(
                "depends on the checkpoint of {model}, and no checkpoint facts are read here"
            ))),
        }
    };
    let out =
        crate::engine::rules::apply_with_facts(rules, version, platform, values, errors, &mut load);
    values.retain(|k, _| !crate::engine::rules::is_fact(k));
    out.map_err(|e| crate::error::Error::Remote {
        location: e.location,
        message: e.message,
    })
}

/// Near option strings of a release's parser for an unrecognized word
/// (`--kv-cahce-dtype` -> `--kv-cache-dtype`), best first, at most three.
pub fn did_you_mean(parser: &ArgParser, arg: &str) -> Option<String> {
    let word = arg.split('=').next().unwrap_or(arg);
    if !word.starts_with("--") {
        return None;
    }
    let mut names = crate::suggest::near(
        word,
        parser.option_strings().filter(|s| s.starts_with("--")),
        crate::suggest::THRESHOLD,
    );
    names.truncate(3);
    if names.is_empty() {
        None
    } else {
        Some(names.join(", "))
    }
}

/// The words argparse leaves over (`parse_known_args`'s extras, indices into
/// `argv`) as [`SetAside`] groups, one per unknown option with the values left
/// with it, for a command that may run a release newer than `parser`'s; `None`
/// when a word is not knowable from the text (the refusal stays an error).
pub fn set_aside_extras<'t>(
    parser: &ArgParser,
    bundled: &[Bundled<'_>],
    argv: &[String],
    extras: &[usize],
    token_at: impl Fn(usize) -> Option<&'t Token>,
) -> Option<Vec<SetAside>> {
    let mut out: Vec<SetAside> = Vec::new();
    for &i in extras {
        let token = token_at(i);
        if matches!(
            token.map(|t| &t.provenance),
            Some(Provenance::Unknown { .. })
        ) {
            return None;
        }
        // An option an older bundled release knows was removed, not added:
        // the newest release is no likelier to accept it.
        if argv[i].starts_with('-') && last_knowing(bundled, &argv[i]).is_some() {
            return None;
        }
        let written = token.map_or_else(|| argv[i].clone(), |t| t.text.clone());
        let starts = argv[i].starts_with('-') || out.is_empty();
        if starts {
            out.push(SetAside {
                words: Vec::new(),
                spans: Vec::new(),
                refusal: String::new(),
                near: did_you_mean(parser, &argv[i]),
                key: None,
                known_to: None,
            });
        }
        let group = out.last_mut().expect("a group was started");
        group.words.push(written);
        if let Some(t) = token
            && group.spans.last() != Some(&t.span)
        {
            group.spans.push(t.span.clone());
        }
    }
    for g in &mut out {
        g.refusal = format!("unrecognized arguments: {}", g.words.join(" "));
    }
    Some(out)
}

/// A value the parser refuses because it is not among an option's choices,
/// as a [`SetAside`] for a command that may run a newer release (which may
/// list the choice): the key keeps the written value. `None` when the refusal
/// is of another kind or the word is not knowable from the text.
pub fn set_aside_choice(
    parser: &ArgParser,
    keys: &[String],
    bundled: &[Bundled<'_>],
    e: &ParseError,
    token: Option<&Token>,
) -> Option<(SetAside, Value)> {
    if e.kind != ParseErrorKind::InvalidChoice {
        return None;
    }
    let rejected = e.rejected.as_ref()?;
    let token = token?;
    if matches!(token.provenance, Provenance::Unknown { .. }) {
        return None;
    }
    // A choice an older bundled release lists was removed, not added.
    let key = keys.get(rejected.0)?;
    let listed = bundled.iter().any(|b| {
        b.keys.iter().enumerate().any(|(i, k)| {
            k == key
                && b.parser.actions[i].choices.as_ref().is_some_and(|c| {
                    c.iter()
                        .any(|x| crate::engine::argparse::py_eq(x, &rejected.1))
                })
        })
    });
    if listed {
        return None;
    }
    let a = &parser.actions[rejected.0];
    let shown = crate::resolved::display_value(&rejected.1);
    let choices: Vec<String> = a
        .choices
        .iter()
        .flatten()
        .map(crate::resolved::display_value)
        .collect();
    let mut near = crate::suggest::near(
        &shown,
        choices.iter().map(String::as_str),
        crate::suggest::THRESHOLD,
    );
    near.truncate(3);
    Some((
        SetAside {
            words: vec![token.text.clone()],
            spans: vec![token.span.clone()],
            refusal: e.message.clone(),
            near: (!near.is_empty()).then(|| near.join(", ")),
            key: keys.get(rejected.0).cloned(),
            known_to: None,
        },
        rejected.1.clone(),
    ))
}

/// Gives each key the choice its command wrote, which the release used does
/// not list but a newer one may (see [`set_aside_choice`]): the value was
/// parsed as a placeholder choice, so the written value replaces it.
pub fn keep_choices(values: &mut BTreeMap<String, Entry>, kept: Vec<(String, Value)>) {
    for (key, value) in kept {
        if let Some(e) = values.get_mut(&key) {
            e.val = Val::known(value);
        }
    }
}

/// A bundled release as the newer-than-bundled rule reads it: its name, parser
/// and canonical keys (oldest first in a list).
pub struct Bundled<'a> {
    /// The release's name (`0.5.18`).
    pub name: &'a str,
    /// Its parser.
    pub parser: &'a ArgParser,
    /// The canonical key of each of its actions.
    pub keys: &'a [String],
}

/// The bundled releases (oldest first) as the newer-than-bundled rule reads
/// them: those up to and including `upto`, and those after it.
pub fn bundled_split<'a, R: super::Bundled>(
    releases: &'a [R],
    upto: &str,
) -> (Vec<Bundled<'a>>, Vec<Bundled<'a>>) {
    let mut all: Vec<Bundled<'a>> = releases.iter().map(R::as_bundled).collect();
    let end = all
        .iter()
        .position(|b| b.name == upto)
        .map_or(all.len(), |i| i + 1);
    let later = all.split_off(end);
    (all, later)
}

/// The newest bundled release whose parser has this option string (the word
/// before any `=`), if any.
pub fn last_knowing<'a>(bundled: &[Bundled<'a>], word: &str) -> Option<&'a str> {
    let option = word.split('=').next().unwrap_or(word);
    bundled
        .iter()
        .rev()
        .find(|b| b.parser.action_for(option).is_some())
        .map(|b| b.name)
}

/// Notes, for each option set aside, the first of the `later` bundled
/// releases (those after the one used, oldest first) whose parser has it:
/// under a development image placed before them, the line added it.
pub fn note_later_releases(set_aside: &mut [SetAside], later: &[Bundled<'_>]) {
    for aside in set_aside.iter_mut().filter(|a| a.key.is_none()) {
        let Some(word) = aside.words.first().filter(|w| w.starts_with('-')) else {
            continue;
        };
        let option = word.split('=').next().unwrap_or(word);
        aside.known_to = later
            .iter()
            .find(|b| b.parser.action_for(option).is_some())
            .map(|b| b.name.to_string());
        // A release that has the option: not a typo of a near one.
        if aside.known_to.is_some() {
            aside.near = None;
        }
    }
}

/// For a refusal of an unknown option under a command that may run a newer
/// release: the note that an older bundled release knew it (it was removed,
/// so it is refused, not set aside), or nothing.
pub fn removed_note(bundled: &[Bundled<'_>], engine: &str, word: &str) -> String {
    match last_knowing(bundled, word) {
        Some(last) => format!(
            "; {} was removed after {engine} {last} (the newest bundled release that knows it), so a newer release is not likely to accept it",
            word.split('=').next().unwrap_or(word)
        ),
        None => String::new(),
    }
}
