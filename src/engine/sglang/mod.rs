//! SGLang: bundled option tables per release, argparse parsing, and the resolver
//! rules of `rules.yaml`.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::OnceLock;

use pep440_rs::Version;
use serde::Deserialize;
use serde_json::Value;

use crate::engine::argparse::{ArgParser, OptionSpec, ParseErrorKind};
use crate::engine::common;
use crate::engine::rules::{self, EnvSpec, RuleFile};
use crate::engine::{KeyError, ParseFailure, RawParse};
use crate::error::Error;
use crate::launch::{Launch, Provenance};
use crate::resolved::{Entry, ResolveOptions, Resolved, ValueSource, VersionUsed};

mod actions;
mod explain;

const SCHEMAS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/sglang_schemas.rs"));
const RULES: &str = include_str!("rules.yaml");

/// An exported option table (`schemas/<version>.json`).
#[derive(Debug, Deserialize)]
struct SchemaFile {
    version: String,
    #[serde(default)]
    help: bool,
    #[serde(default)]
    serve_positional_model: bool,
    #[serde(default = "yes")]
    allow_abbrev: bool,
    options: Vec<OptionSpec>,
}

fn yes() -> bool {
    true
}

/// One bundled release.
#[derive(Debug)]
pub struct Release {
    /// Its version.
    pub version: Version,
    /// Its version as written in the schema file name.
    pub name: String,
    /// Its parser.
    pub parser: ArgParser,
    /// Canonical key of each action (same order as `parser.actions`).
    pub keys: Vec<String>,
    /// `sglang serve MODEL` rewrites a leading positional to `--model-path MODEL`.
    pub serve_positional_model: bool,
    defaults: OnceLock<BTreeMap<String, Entry>>,
}

impl Release {
    /// Every key at this release's default, as resolution starts from it.
    pub fn defaults(&self) -> &BTreeMap<String, Entry> {
        self.defaults
            .get_or_init(|| crate::engine::common::defaults(&self.parser, &self.keys))
    }
}

/// The bundled data, loaded once.
pub struct Bundle {
    /// Releases, oldest first.
    pub releases: Vec<Release>,
    /// Resolver rules, in order.
    pub rules: Vec<rules::Rule>,
    /// Known environment variables.
    pub env: BTreeMap<String, EnvSpec>,
    /// Keys the rule file declares that rules create.
    pub rule_keys: BTreeMap<String, String>,
}

/// The bundled SGLang data (schemas, rules); parsed on first use.
pub fn bundle() -> &'static Bundle {
    static B: OnceLock<Bundle> = OnceLock::new();
    B.get_or_init(|| load().unwrap_or_else(|e| panic!("bundled SGLang data is invalid: {e}")))
}

fn load() -> Result<Bundle, String> {
    let mut releases = Vec::new();
    for (name, text) in SCHEMAS {
        let file: SchemaFile =
            serde_json::from_str(text).map_err(|e| format!("schemas/{name}.json: {e}"))?;
        let version = Version::from_str(&file.version).map_err(|e| e.to_string())?;
        let mut options = file.options;
        if file.help {
            options.insert(0, OptionSpec::help());
        }
        let parser = ArgParser::new(options, file.allow_abbrev)?.with_actions(actions::ACTIONS);
        releases.push(Release {
            version,
            name: name.to_string(),
            parser,
            keys: vec![],
            serve_positional_model: file.serve_positional_model,
            defaults: OnceLock::new(),
        });
    }
    releases.sort_by(|a, b| a.version.cmp(&b.version));
    assign_keys(&mut releases);
    let file = RuleFile::parse(RULES, "sglang rules.yaml")?;
    Ok(Bundle {
        releases,
        rules: file.rules,
        env: file.env,
        rule_keys: file.keys,
    })
}

/// Canonical keys: an option is named by the destination it has in the newest
/// release that shares one of its option strings, so `tensor_parallel_size`
/// (0.5.12) and `tp_size` (0.5.19) are one key.
fn assign_keys(releases: &mut [Release]) {
    let n = releases.len();
    let mut all_keys = Vec::with_capacity(n);
    for i in 0..n {
        let mut keys = Vec::new();
        for a in &releases[i].parser.actions {
            let mut key = a.dest.clone();
            'outer: for newer in releases[i..].iter().rev() {
                for s in &a.option_strings {
                    if let Some(j) = newer.parser.action_for(s) {
                        key = newer.parser.actions[j].dest.clone();
                        break 'outer;
                    }
                }
            }
            keys.push(key);
        }
        all_keys.push(keys);
    }
    for (r, keys) in releases.iter_mut().zip(all_keys) {
        r.keys = keys;
    }
}

/// Picks the release for a requested version: exact, else the nearest lower one.
pub fn pick_release(
    requested: Option<(&str, &str)>,
) -> Result<(&'static Release, VersionUsed), Error> {
    super::pick_release("sglang", &bundle().releases, requested)
}

impl super::Bundled for Release {
    fn version(&self) -> &Version {
        &self.version
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn as_bundled(&self) -> super::common::Bundled<'_> {
        super::common::Bundled {
            name: &self.name,
            parser: &self.parser,
            keys: &self.keys,
        }
    }
}

/// Resolves an SGLang launch; an argv the release's parser refuses is a
/// [`super::ResolveError::Refused`].
pub fn resolve(launch: &Launch, opts: &ResolveOptions) -> Result<Resolved, super::ResolveError> {
    let b = bundle();
    let (release, version) = common::pick_for_launch("sglang", &b.releases, launch, opts)?;
    // The releases up to the one used: an option one of them knows and the
    // release used does not was removed, not added by a newer line.
    let (bundled, later) = common::bundled_split(&bundle().releases, &release.name);
    let (hardware, platform) = common::context(launch, opts);

    let (mut argv, origin) = serve_argv(launch, release);
    // Tokens as the parser sees them, each pointing back at a written word.
    let tokens: Vec<&crate::launch::Token> = origin.iter().map(|&i| &launch.argv[i]).collect();
    let unknown_reason = |i: usize| match tokens.get(i).map(|t| &t.provenance) {
        Some(Provenance::Unknown { reason }) => Some(reason.clone()),
        _ => None,
    };
    // A value that is not knowable from the text is parsed as a placeholder of the
    // right type, and its key is reported unknown.
    let mut placeholders: BTreeMap<usize, String> = BTreeMap::new();
    // A command that may run a newer release than every bundled one: the
    // words the newest bundled release does not know are set aside (a
    // warning each), and a choice it does not list keeps its written value.
    let mut set_aside = Vec::new();
    let mut kept_choices: Vec<(String, serde_json::Value)> = Vec::new();
    let ns = loop {
        match release.parser.parse(&argv) {
            Ok(ns) => break ns,
            Err(e) => {
                if let (Some(i), Some(rejected)) = (e.arg_index, &e.rejected)
                    && unknown_reason(i).is_some()
                    && !placeholders.contains_key(&i)
                {
                    let a = &release.parser.actions[rejected.0];
                    argv[i] = common::placeholder(a);
                    placeholders.insert(i, argv[i].clone());
                    continue;
                }
                if version.newer.is_some() {
                    if let Some(i) = e.arg_index
                        && !placeholders.contains_key(&i)
                        && let Some((aside, value)) = common::set_aside_choice(
                            &release.parser,
                            &release.keys,
                            &bundled,
                            &e,
                            tokens.get(i).copied(),
                        )
                    {
                        let a = &release.parser.actions[e.rejected.as_ref().expect("a choice").0];
                        if let Some(key) = &aside.key {
                            kept_choices.push((key.clone(), value));
                        }
                        set_aside.push(aside);
                        argv[i] = common::placeholder_in(&argv[i], a);
                        placeholders.insert(i, argv[i].clone());
                        continue;
                    }
                    if e.kind == ParseErrorKind::Unrecognized
                        && let Ok((ns, extras)) = release.parser.parse_known(&argv)
                        && let Some(groups) = common::set_aside_extras(
                            &release.parser,
                            &bundled,
                            &argv,
                            &extras,
                            |i| tokens.get(i).copied(),
                        )
                    {
                        set_aside.extend(groups);
                        break ns;
                    }
                }
                let removed = match (version.newer.is_some(), e.kind, e.arg_index) {
                    (true, ParseErrorKind::Unrecognized, Some(i)) => {
                        common::removed_note(&bundled, "sglang", &argv[i])
                    }
                    _ => String::new(),
                };
                let (span, mut message, knowable) = parse_error(launch, release, &argv, &tokens, e);
                message.push_str(&removed);
                message.push_str(&common::version_hint(&version, launch));
                return Err(common::refusal(
                    span, message, knowable, &version, &platform,
                ));
            }
        }
    };

    // Start from the release's defaults (built once), then apply what the argv set.
    let mut values: BTreeMap<String, Entry> = release.defaults().clone();
    common::apply_namespace(
        &release.parser,
        &release.keys,
        &ns,
        |idx| {
            let mut at: Vec<usize> = idx.iter().filter_map(|&j| origin.get(j).copied()).collect();
            at.dedup();
            at.iter().map(|&j| &launch.argv[j]).collect()
        },
        &mut values,
    );

    // Environment. SGLang copies every SGL_* variable over SGLANG_* at import; the
    // SGL_* name itself is then not read, so only the SGLANG_* key is kept.
    let mut env: BTreeMap<String, &crate::launch::EnvVar> = BTreeMap::new();
    for e in &launch.env {
        if !e.name.starts_with("SGL_") {
            env.insert(e.name.clone(), e);
        }
    }
    for e in &launch.env {
        if let Some(rest) = e.name.strip_prefix("SGL_") {
            env.insert(format!("SGLANG_{rest}"), e);
        }
    }
    common::apply_env(env, &b.env, launch.env_open.as_deref(), &mut values);
    common::keep_choices(&mut values, kept_choices);

    // Context and identity.
    values.insert(
        "model".into(),
        common::model_identity(&values, "--model-path", launch.context.checkpoint.as_ref()),
    );
    values.insert("hardware".into(), common::hardware_entry(hardware.as_ref()));

    // `--config FILE` adds options from a YAML file read at startup (the command
    // line wins): every option not written here may come from it.
    if let Some(cfg) = values
        .get("config")
        .filter(|e| e.source == ValueSource::Cli)
    {
        let file = cfg.val.display();
        common::config_file_unknowns(&mut values, &file);
    }

    let mut startup_errors = Vec::new();
    common::apply_rules(
        &b.rules,
        &release.version,
        platform.as_ref().map(|p| p.value),
        &mut values,
        &mut startup_errors,
        opts,
        launch,
    )?;
    Ok(Resolved {
        engine: launch.engine,
        version,
        platform,
        values,
        startup_errors,
        set_aside: {
            common::note_later_releases(&mut set_aside, &later);
            set_aside
        },
        unlisted: common::open_env_unlisted(launch).into_iter().collect(),
        env_open: launch.env_open.clone(),
        args_open: None,
    })
}

/// A parse error at the word it concerns, with hints, and whether that word is
/// knowable from the text.
fn parse_error(
    launch: &Launch,
    release: &Release,
    argv: &[String],
    tokens: &[&crate::launch::Token],
    e: crate::engine::argparse::ParseError,
) -> (crate::span::Span, String, bool) {
    let token = e.arg_index.and_then(|i| tokens.get(i));
    let span = token
        .map(|t| t.span.clone())
        .unwrap_or_else(|| launch.span.clone());
    let mut msg = format!("sglang {}: {}", release.name, e.message);
    if e.kind == ParseErrorKind::Unrecognized
        && let Some(i) = e.arg_index
        && token.is_none_or(|t| t.provenance == Provenance::Literal)
        && let Some(s) = common::did_you_mean(&release.parser, &argv[i])
    {
        msg.push_str(&format!(" (did you mean {s}?)"));
    }
    if let Some(Provenance::Unknown { reason }) = token.map(|t| &t.provenance) {
        msg.push_str(&format!(
            "; `{}` is not knowable from the text: {reason}",
            argv[e.arg_index.unwrap_or(0)]
        ));
    }
    if launch.launcher.last().is_some_and(|t| t.text == "serve")
        && !release.serve_positional_model
        && argv.first().is_some_and(|w| !w.starts_with('-'))
    {
        msg.push_str(&format!(
            "; `sglang serve MODEL` takes a positional model only from 0.5.16 on, {} needs --model-path",
            release.name
        ));
    }
    if e.kind == ParseErrorKind::InvalidChoice
        && let Some(rejected) = &e.rejected
        && let Some(note) = choice_history(&release.keys[rejected.0], &rejected.1)
    {
        msg.push_str(&format!("; {note}"));
    }
    let knowable = !matches!(
        token.map(|t| &t.provenance),
        Some(Provenance::Unknown { .. })
    );
    (span, msg, knowable)
}

/// The argv as `sglang serve` hands it to argparse, with the index of the written
/// word behind each token: `--model-type X` is removed (all releases) and a leading
/// positional becomes `--model-path MODEL` (from 0.5.16). `python -m
/// sglang.launch_server` passes the argv unchanged.
fn serve_argv(launch: &Launch, release: &Release) -> (Vec<String>, Vec<usize>) {
    let words: Vec<&str> = launch.argv.iter().map(|t| t.text.as_str()).collect();
    let mut argv = Vec::new();
    let mut origin = Vec::new();
    let is_serve = launch.launcher.last().is_some_and(|t| t.text == "serve");
    if !is_serve {
        return (
            words.iter().map(|w| w.to_string()).collect(),
            (0..words.len()).collect(),
        );
    }
    let mut i = 0;
    if release.serve_positional_model && words.first().is_some_and(|w| !w.starts_with('-')) {
        argv.push("--model-path".to_string());
        origin.push(0);
    }
    while i < words.len() {
        if words[i] == "--model-type" {
            i += 2;
            continue;
        }
        if words[i].starts_with("--model-type=") {
            i += 1;
            continue;
        }
        argv.push(words[i].to_string());
        origin.push(i);
        i += 1;
    }
    (argv, origin)
}

/// For an invalid choice: which bundled releases accept that value.
fn choice_history(key: &str, value: &Value) -> Option<String> {
    let b = bundle();
    let accepting_idx: Vec<usize> =
        b.releases
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.keys.iter().enumerate().any(|(i, k)| {
                    k == key
                        && r.parser.actions[i].choices.as_ref().is_some_and(|c| {
                            c.iter().any(|x| crate::engine::argparse::py_eq(x, value))
                        })
                })
            })
            .map(|(i, _)| i)
            .collect();
    let names: Vec<&str> = accepting_idx
        .iter()
        .map(|&i| b.releases[i].name.as_str())
        .collect();
    let contiguous = accepting_idx.windows(2).all(|w| w[1] == w[0] + 1);
    let shown = crate::resolved::display_value(value);
    match names.as_slice() {
        [] => Some(format!("no bundled release accepts {shown}")),
        [one] => Some(format!("{shown} is accepted by sglang {one} only")),
        [first, .., last] if contiguous => {
            Some(format!("{shown} is accepted by sglang {first} to {last}"))
        }
        all => Some(format!("{shown} is accepted by sglang {}", all.join(", "))),
    }
}

/// Every canonical key of every bundled release, plus `model`, `hardware` and the
/// known `env:` keys.
pub fn all_keys() -> &'static std::collections::BTreeSet<String> {
    static K: OnceLock<std::collections::BTreeSet<String>> = OnceLock::new();
    K.get_or_init(collect_keys)
}

fn collect_keys() -> std::collections::BTreeSet<String> {
    let b = bundle();
    let mut keys: std::collections::BTreeSet<String> = b
        .releases
        .iter()
        .flat_map(|r| r.keys.iter().cloned())
        .collect();
    keys.insert("model".into());
    keys.insert("hardware".into());
    keys.extend(b.env.keys().map(|n| format!("env:{n}")));
    keys
}

/// The canonical key for a name: a canonical key or destination of any bundled
/// release, an option string, or a unique prefix of one (`--tp`, or `tp`) in the
/// newest release that has a match. `Err` says why not (ambiguous, unknown).
pub fn key_for(name: &str) -> Result<String, KeyError> {
    let b = bundle();
    if matches!(name, "model" | "hardware") {
        return Ok(name.to_string());
    }
    for r in b.releases.iter().rev() {
        for (i, a) in r.parser.actions.iter().enumerate() {
            if a.dest == name || r.keys[i] == name || a.option_strings.iter().any(|s| s == name) {
                return Ok(r.keys[i].clone());
            }
        }
    }
    let option = if name.starts_with('-') {
        name.to_string()
    } else {
        format!("--{}", name.replace('_', "-"))
    };
    for r in b.releases.iter().rev() {
        let hits: Vec<(&str, usize)> = r
            .parser
            .option_strings()
            .filter(|s| s.starts_with(&option))
            .filter_map(|s| r.parser.action_for(s).map(|a| (s, a)))
            .collect();
        let Some(&(_, first)) = hits.first() else {
            continue;
        };
        if hits.iter().all(|&(_, h)| h == first) {
            return Ok(r.keys[first].clone());
        }
        return Err(KeyError::Ambiguous {
            engine: "sglang",
            option,
            release: r.name.clone(),
            candidates: hits.iter().map(|(s, _)| s.to_string()).collect(),
        });
    }
    let near = b
        .releases
        .last()
        .map(|r| {
            crate::suggest::near(
                name,
                r.keys.iter().map(String::as_str),
                crate::suggest::THRESHOLD,
            )
        })
        .unwrap_or_default();
    Err(KeyError::Unknown {
        engine: "sglang",
        name: name.to_string(),
        suggestions: near.iter().take(3).map(|n| n.to_string()).collect(),
    })
}

/// The SGLang engine, as the registry holds it.
pub struct Sglang;

impl super::Engine for Sglang {
    fn name(&self) -> &'static str {
        "sglang"
    }

    fn parse_raw(
        &self,
        requested: Option<(&str, &str)>,
        argv: &[String],
    ) -> Result<RawParse, ParseFailure> {
        let (release, version) = pick_release(requested).map_err(ParseFailure::Release)?;
        let ns = release
            .parser
            .parse(argv)
            .map_err(|e| ParseFailure::Refused {
                release: release.name.clone(),
                message: e.message,
                arg_index: e.arg_index,
            })?;
        Ok(RawParse {
            version,
            namespace: ns.values().into_iter().collect(),
        })
    }

    fn resolve(
        &self,
        launch: &Launch,
        opts: &ResolveOptions,
    ) -> Result<Resolved, super::ResolveError> {
        resolve(launch, opts)
    }

    fn key(&self, name: &str) -> Result<String, KeyError> {
        key_for(name)
    }

    fn keys(&self) -> &'static std::collections::BTreeSet<String> {
        all_keys()
    }

    fn reads_env(&self, name: &str) -> bool {
        bundle().env.contains_key(name)
    }

    fn explain(&self, key: &str) -> Vec<String> {
        explain::lines(key)
    }

    fn rules(&self) -> &'static [rules::Rule] {
        &bundle().rules
    }

    fn declared_rule_keys(&self) -> &'static BTreeMap<String, String> {
        &bundle().rule_keys
    }

    fn release_names(&self) -> Vec<String> {
        bundle().releases.iter().map(|r| r.name.clone()).collect()
    }

    fn release_keys(&self) -> Vec<super::ReleaseKeys> {
        let b = bundle();
        b.releases
            .iter()
            .map(|r| {
                let mut keys: std::collections::BTreeSet<String> = r.keys.iter().cloned().collect();
                keys.extend(super::CONTEXT_KEYS.iter().map(|k| k.to_string()));
                keys.extend(
                    crate::resolved::CHECKPOINT_KEYS
                        .iter()
                        .map(|(k, _)| k.to_string()),
                );
                keys.extend(b.env.keys().map(|n| format!("env:{n}")));
                super::ReleaseKeys {
                    version: r.version.clone(),
                    name: r.name.clone(),
                    keys,
                }
            })
            .collect()
    }
}
