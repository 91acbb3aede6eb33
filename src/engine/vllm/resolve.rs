//! Resolves a vLLM launch: the release's preprocessing and parser, canonical
//! keys (`keys.yaml`), JSON options key by key, env vars by the release's
//! `envs.py`, then the rules of `rules.yaml`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::config;
use super::preprocess::{self, Refusal, Traced};
use super::{Release, data, newer_fields};
use crate::engine::common;

use crate::engine::ResolveError;
use crate::launch::{Launch, Provenance, Token};
use crate::resolved::{Entry, ResolveOptions, Resolved, Val, ValueSource};

/// Resolves a vLLM launch; an argv the release refuses (its preprocessing,
/// parser or pydantic's check of a typed JSON option) is a
/// [`ResolveError::Refused`].
pub fn resolve(launch: &Launch, opts: &ResolveOptions) -> Result<Resolved, ResolveError> {
    let (release, version) = common::pick_for_launch("vllm", super::releases(), launch, opts)?;
    // The releases up to the one used: an option one of them knows and the
    // release used does not was removed, not added by a newer line.
    let (bundled, later) = common::bundled_split(super::releases(), &release.name);
    let (hardware, platform) = common::context(launch, opts);
    let serve = launch.launcher.last().is_some_and(|t| t.text == "serve");

    // The words after the launcher, each with the token behind it. `--config
    // FILE` is replaced by the file's options when it can be read (next to the
    // file holding the command); otherwise it is taken out and every option it
    // could set is unknown.
    let mut tokens: Vec<Token> = launch.argv.clone();
    let mut words: Vec<String> = tokens.iter().map(|t| t.text.clone()).collect();
    let mut steps = steps_for(release, serve);
    let mut config_file: Option<String> = None;
    let mut placeholders: BTreeMap<usize, String> = BTreeMap::new();
    let mut set_aside = Vec::new();
    let mut kept_choices: Vec<(String, serde_json::Value)> = Vec::new();
    // Config values rewritten without the fields a newer release may have
    // (the traced argument's words, its text, the text used), and those
    // fields with their written values and words.
    let mut rewrites: Vec<(Vec<usize>, String, String)> = Vec::new();
    let mut kept_fields: Vec<(String, String, Value, Vec<Token>)> = Vec::new();
    let (traced, ns) = loop {
        let traced = match preprocess::preprocess_traced(&words, &steps) {
            Ok(mut t) => {
                for (from, was, now) in &rewrites {
                    for a in t.iter_mut().filter(|a| &a.from == from && &a.text == was) {
                        a.text = now.clone();
                    }
                }
                t
            }
            Err(Refusal::ConfigFile(file)) => {
                let at = words.iter().position(|w| w == "--config").unwrap_or(0);
                let file_token = tokens[(at + 1).min(tokens.len() - 1)].clone();
                let config_tokens = match config::read(launch, &file_token, &file)? {
                    config::Outcome::Read(t) => t,
                    config::Outcome::NotRead(reason) => {
                        config_file = Some(format!("{file} ({reason})"));
                        Vec::new()
                    }
                };
                tokens.drain(at..(at + 2).min(tokens.len()));
                if serve && steps.model_option_moved {
                    tokens = config::move_model(tokens);
                }
                // CLI > config > defaults: the file's options go first (after a
                // positional model), so the command line's later ones win.
                let model_first = serve && tokens.first().is_some_and(|t| !t.text.starts_with('-'));
                if serve
                    && !model_first
                    && !config_tokens.iter().any(|t| t.text == "--model")
                    && config_file.is_none()
                {
                    return Err(common::refusal(
                        file_token.span.clone(),
                        format!(
                            "vllm {}: ValueError: No model specified! Please specify model either as a positional argument or in a config file.",
                            release.name
                        ),
                        true,
                        &version,
                        &platform,
                    ));
                }
                let at = usize::from(model_first);
                tokens.splice(at..at, config_tokens);
                words = tokens.iter().map(|t| t.text.clone()).collect();
                steps.config_file = false;
                steps.model_option_moved = false;
                continue;
            }
            Err(Refusal::Error(m)) => {
                return Err(common::refusal(
                    launch.span.clone(),
                    format!(
                        "vllm {}: {m}{}",
                        release.name,
                        common::version_hint(&version, launch)
                    ),
                    !launch
                        .argv
                        .iter()
                        .any(|t| matches!(t.provenance, Provenance::Unknown { .. })),
                    &version,
                    &platform,
                ));
            }
        };
        let args: Vec<String> = traced.iter().map(|t| t.text.clone()).collect();
        match release.parser.parse(&args) {
            Ok(ns) => break (traced, ns),
            Err(e) => {
                let word = e
                    .arg_index
                    .and_then(|i| traced.get(i))
                    .and_then(|t| t.from.last().copied());
                let token = word.map(|w| &tokens[w]);
                if let (Some(w), Some(rejected), Some(t)) = (word, &e.rejected, token)
                    && matches!(t.provenance, Provenance::Unknown { .. })
                    && !placeholders.contains_key(&w)
                {
                    let a = &release.parser.actions[rejected.0];
                    words[w] = common::placeholder(a);
                    placeholders.insert(w, words[w].clone());
                    continue;
                }
                // A command that may run a newer release than every bundled
                // one: what the newest bundled release does not know is set
                // aside (a warning each); a choice it does not list keeps
                // its written value.
                if version.newer.is_some() {
                    if let Some(w) = word
                        && !placeholders.contains_key(&w)
                        && let Some((aside, value)) = common::set_aside_choice(
                            &release.parser,
                            &release.keys,
                            &bundled,
                            &e,
                            token,
                        )
                    {
                        let a = &release.parser.actions[e.rejected.as_ref().expect("a choice").0];
                        if let Some(key) = &aside.key {
                            kept_choices.push((key.clone(), value));
                        }
                        set_aside.push(aside);
                        words[w] = common::placeholder_in(&words[w], a);
                        placeholders.insert(w, words[w].clone());
                        continue;
                    }
                    // A config value refused only for fields its class does
                    // not have, none of which a release up to this one had.
                    if let Some(arg) = e.arg_index.and_then(|i| traced.get(i))
                        && let Some(t) =
                            newer_fields::typed(&release.parser, &release.keys, &bundled, &e)
                        && let newer_fields::Fields::New(fields) = &t.fields
                        && let Some(head) = arg.text.strip_suffix(t.refused.as_str())
                    {
                        let at = e.rejected.as_ref().expect("a config value").0;
                        let (key, dest) = (&release.keys[at], &release.parser.actions[at].dest);
                        let written: Vec<&Token> = arg.from.iter().map(|&w| &tokens[w]).collect();
                        let asides: Option<Vec<_>> = fields
                            .iter()
                            .map(|(field, _)| {
                                let words = newer_fields::field_words(&written, field);
                                newer_fields::aside(
                                    key,
                                    field,
                                    &words,
                                    e.message.clone(),
                                    newer_fields::first_listing(&later, key, field),
                                )
                            })
                            .collect();
                        if let Some(asides) = asides {
                            for (field, value) in fields {
                                let words = newer_fields::field_words(&written, field);
                                kept_fields.push((
                                    format!("{key}.{field}"),
                                    dest.clone(),
                                    value.clone(),
                                    words.into_iter().cloned().collect(),
                                ));
                            }
                            set_aside.extend(asides);
                            rewrites.push((
                                arg.from.clone(),
                                arg.text.clone(),
                                format!("{head}{}", t.kept),
                            ));
                            continue;
                        }
                    }
                    if e.kind == crate::engine::argparse::ParseErrorKind::Unrecognized
                        && let Ok((ns, extras)) = release.parser.parse_known(&args)
                        && let Some(groups) = common::set_aside_extras(
                            &release.parser,
                            &bundled,
                            &args,
                            &extras,
                            |i| {
                                traced
                                    .get(i)
                                    .and_then(|t| t.from.last())
                                    .map(|&w| &tokens[w])
                            },
                        )
                    {
                        set_aside.extend(groups);
                        break (traced, ns);
                    }
                }
                let removed = match (version.newer.is_some(), e.kind, e.arg_index) {
                    (true, crate::engine::argparse::ParseErrorKind::Unrecognized, Some(i)) => {
                        common::removed_note(&bundled, "vllm", &args[i])
                    }
                    (true, crate::engine::argparse::ParseErrorKind::InvalidValue, _) => {
                        match newer_fields::typed(&release.parser, &release.keys, &bundled, &e) {
                            Some(newer_fields::Typed {
                                fields: newer_fields::Fields::Removed(note),
                                ..
                            }) => note,
                            _ => String::new(),
                        }
                    }
                    _ => String::new(),
                };
                let mut msg = format!("vllm {}: {}", release.name, e.message);
                if e.kind == crate::engine::argparse::ParseErrorKind::Unrecognized
                    && token.is_some_and(|t| t.provenance == Provenance::Literal)
                    && let Some(s) = e
                        .arg_index
                        .and_then(|i| args.get(i))
                        .and_then(|w| common::did_you_mean(&release.parser, w))
                {
                    msg.push_str(&format!(" (did you mean {s}?)"));
                }
                let knowable = !matches!(
                    token.map(|t| &t.provenance),
                    Some(Provenance::Unknown { .. })
                );
                if let Some(Provenance::Unknown { reason }) = token.map(|t| &t.provenance) {
                    msg.push_str(&format!(
                        "; `{}` is not knowable from the text: {reason}",
                        token.map(|t| t.text.as_str()).unwrap_or_default()
                    ));
                }
                msg.push_str(&removed);
                msg.push_str(&common::version_hint(&version, launch));
                let span = token
                    .map(|t| t.span.clone())
                    .unwrap_or_else(|| launch.span.clone());
                return Err(common::refusal(span, msg, knowable, &version, &platform));
            }
        }
    };

    // Start from the release's defaults, then what the argv set.
    let mut values: BTreeMap<String, Entry> = release.defaults().clone();
    let tokens_of = |idx: &[usize]| -> Vec<&Token> {
        let mut at: Vec<usize> = idx
            .iter()
            .filter_map(|&j| traced.get(j))
            .flat_map(|t: &Traced| t.from.iter().copied())
            .collect();
        at.sort_unstable();
        at.dedup();
        at.iter().map(|&j| &tokens[j]).collect()
    };
    common::apply_namespace(&release.parser, &release.keys, &ns, tokens_of, &mut values);
    common::keep_choices(&mut values, kept_choices);

    // `vllm serve` with no model runs the release's default model.
    let mut unlisted: BTreeMap<String, String> =
        common::open_env_unlisted(launch).into_iter().collect();
    let mut startup_errors = Vec::new();
    let mut newer = NewerFields {
        on: version.newer.is_some(),
        upto: bundled.iter().map(|b| b.name).collect(),
        later: later.iter().map(|b| b.name).collect(),
        set_aside: Vec::new(),
    };
    flatten_json(
        &tokens,
        release,
        &mut values,
        &mut unlisted,
        &mut startup_errors,
        &mut newer,
    )
    .map_err(|(span, m)| {
        common::refusal(
            span.unwrap_or_else(|| launch.span.clone()),
            format!(
                "vllm {}: {m}{}",
                release.name,
                common::version_hint(&version, launch)
            ),
            true,
            &version,
            &platform,
        )
    })?;
    set_aside.append(&mut newer.set_aside);
    // The fields set aside keep their written values (a leaf key each).
    for (key, dest, value, words) in &kept_fields {
        let words: Vec<&Token> = words.iter().collect();
        let mut leaves = Vec::new();
        leaves_of(value, String::new(), &mut leaves);
        if leaves.is_empty() || !value.is_object() {
            leaves = vec![(String::new(), value.clone())];
        }
        for (path, v) in leaves {
            let sub = if path.is_empty() {
                key.clone()
            } else {
                format!("{key}.{path}")
            };
            values.insert(sub, common::written_entry(dest, v, &words));
        }
    }
    for (key, v) in &data().keys.derived {
        values
            .entry(key.clone())
            .or_insert_with(|| common::default_entry(key, v.clone()));
    }

    // Environment: every variable that reaches the server; a `VLLM_*` name this
    // release does not read does nothing.
    common::apply_env(
        launch.env.iter().map(|e| (e.name.clone(), e)),
        &release.env,
        launch.env_open.as_deref(),
        &mut values,
    );
    for e in &launch.env {
        if e.name.starts_with("VLLM_")
            && !release.env.contains_key(&e.name)
            && !data().keys.env_read_elsewhere.contains(&e.name)
            && let Some(entry) = values.get_mut(&format!("env:{}", e.name))
        {
            entry.no_effect = Some(no_effect_reason(&e.name, release));
        }
    }

    let mut identity = common::model_identity(&values, "model", launch.context.checkpoint.as_ref());
    if let Some(m) = values.get("model_path")
        && m.source == ValueSource::Default
        && let Some(Value::String(name)) = m.val.value()
    {
        identity = Entry {
            val: Val::known(Value::String(name.to_ascii_lowercase())),
            name: m.name.clone(),
            ..common::default_entry("model", Value::Null)
        };
    }
    values.insert("model".into(), identity);
    values.insert("hardware".into(), common::hardware_entry(hardware.as_ref()));
    if let Some(file) = &config_file {
        common::config_file_unknowns(&mut values, file);
    }

    common::apply_rules(
        &data().rules,
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
        unlisted,
        env_open: launch.env_open.clone(),
        args_open: None,
    })
}

/// The preprocessing of `vllm serve`, or of `python -m
/// vllm.entrypoints.openai.api_server` (no positional model, so no move).
fn steps_for(release: &Release, serve: bool) -> preprocess::Steps {
    let mut steps = release.steps.clone();
    if !serve {
        steps.model_option_moved = false;
        steps.served_model_name_check = false;
    }
    steps
}

/// Why an env var does nothing in a release: which bundled releases read it.
fn no_effect_reason(name: &str, release: &Release) -> String {
    let readers = data().env_releases.get(name);
    let last = readers.and_then(|r| {
        super::releases()
            .iter()
            .rev()
            .find(|x| r.contains(&x.name))
            .map(|x| x.name.clone())
    });
    match last {
        Some(v)
            if super::releases()
                .iter()
                .any(|x| x.name == v && x.version < release.version) =>
        {
            format!("vLLM {} does not read it (last read by {v})", release.name)
        }
        Some(v) => format!(
            "vLLM {} does not read it (read by {v} and other releases)",
            release.name
        ),
        None => format!(
            "vLLM {} does not read it (no bundled release from {} on reads it)",
            release.name,
            super::releases()[0].name
        ),
    }
}

/// The newer-than-bundled rule for the fields of plain JSON config options
/// (`--speculative-config`): whether the command may run a newer release, the
/// bundled releases up to the one used and after it, and the fields set aside.
struct NewerFields<'a> {
    on: bool,
    upto: Vec<&'a str>,
    later: Vec<&'a str>,
    set_aside: Vec<crate::resolved::SetAside>,
}

/// Replaces each JSON-object value by one key per leaf (`compilation_config.mode`),
/// lists the always-listed sub-keys, and records which prefixes have defaults
/// that are not bundled.
fn flatten_json(
    tokens: &[Token],
    release: &Release,
    values: &mut BTreeMap<String, Entry>,
    unlisted: &mut BTreeMap<String, String>,
    startup_errors: &mut Vec<crate::resolved::StartupError>,
    newer: &mut NewerFields<'_>,
) -> Result<(), (Option<crate::span::Span>, String)> {
    let keys = &data().keys;
    // An option whose text is not knowable: so is each of its keys.
    for (key, e) in values.iter() {
        if let (ValueSource::Cli, Val::Unknown { reason, .. }) = (e.source, &e.val) {
            unlisted.insert(format!("{key}."), reason.clone());
        }
    }
    let objects: Vec<String> = values
        .iter()
        .filter(|(_, e)| matches!(e.val.value(), Some(Value::Object(_))))
        .map(|(k, _)| k.clone())
        .collect();
    for key in objects {
        let entry = values.remove(&key).expect("listed above");
        let Some(Value::Object(obj)) = entry.val.value() else {
            continue;
        };
        let (class, input, typed) = match (obj.get("$config"), obj.get("input")) {
            (Some(Value::String(c)), Some(input)) => (Some(c.clone()), input.clone(), true),
            _ => (
                keys.json_classes.get(&key).cloned(),
                Value::Object(obj.clone()),
                false,
            ),
        };
        // pydantic's check of the config class's fields, as this release has
        // them: an option typed with its class refuses the value while parsing
        // (an input error, as argparse's); a plain JSON option is built into
        // its class when the engine starts (a startup error).
        if let Some(c) = &class
            && let Err((field, m)) = super::fields::check(&release.name, c, &input)
        {
            let message = format!("{c}.{field}: {m}");
            if typed {
                let mut e = entry.clone();
                if entry.source == ValueSource::Cli {
                    narrow_to_path(&mut e, tokens, &field);
                }
                return Err((
                    e.spans.first().cloned(),
                    format!(
                        "{message} (pydantic's validation of --{})",
                        e.name.replace('_', "-")
                    ),
                ));
            }
            startup_errors.push(crate::resolved::StartupError {
                rule: "config-class-fields".into(),
                message,
                reference: format!(
                    "vllm {} config classes (pydantic field types, src/engine/vllm/config_fields.json): {c}",
                    release.name
                ),
                span: None,
            });
        }
        // A plain JSON option's object becomes the class's keyword arguments
        // when the engine starts; the class forbids other keys.
        // Under a command that may run a newer release, a field no bundled
        // release up to the one used had is set aside (it keeps its value).
        if let Some(c) = &class
            && !typed
        {
            for field in super::fields::unknown_fields(&release.name, c, &input) {
                let message = format!("{c}.{field}: Unexpected keyword argument");
                let removed = newer
                    .upto
                    .iter()
                    .rev()
                    .find(|r| super::fields::knows(r, c, &field));
                if newer.on && removed.is_none() && entry.source == ValueSource::Cli {
                    let mut e = entry.clone();
                    narrow_to_path(&mut e, tokens, &field);
                    let written = e.written.clone().unwrap_or_default();
                    newer.set_aside.push(crate::resolved::SetAside {
                        words: vec![if written.starts_with('-') && written.contains('.') {
                            written
                        } else {
                            format!("{key}.{field}")
                        }],
                        spans: e.spans.clone(),
                        refusal: message,
                        near: None,
                        key: Some(format!("{key}.{field}")),
                        known_to: newer
                            .later
                            .iter()
                            .find(|r| super::fields::knows(r, c, &field))
                            .map(|r| r.to_string()),
                    });
                    continue;
                }
                let note = match removed.filter(|_| newer.on) {
                    Some(last) => super::newer_fields::removed_note(&field, &key, last),
                    None => String::new(),
                };
                startup_errors.push(crate::resolved::StartupError {
                    rule: "config-class-fields".into(),
                    message: format!("{message}{note}"),
                    reference: format!(
                        "vllm {} config/utils.py `config` (pydantic, extra=\"forbid\"): {c}'s fields (src/engine/vllm/config_fields.json `names`)",
                        release.name
                    ),
                    span: None,
                });
                break;
            }
        }
        // The fields as the class holds them (`"True"` for a bool is true).
        let input = match &class {
            Some(c) => super::fields::coerce(&release.name, c, &input),
            None => input,
        };
        if let Some(c) = &class {
            unlisted.insert(
                format!("{key}."),
                format!(
                    "{c}'s default for this field in vLLM {} (not bundled)",
                    release.name
                ),
            );
        }
        let mut leaves = Vec::new();
        leaves_of(&input, String::new(), &mut leaves);
        for (path, v) in leaves {
            let sub = format!("{key}.{path}");
            let mut e = entry.clone();
            e.val = Val::known(v);
            if entry.source == ValueSource::Cli {
                narrow_to_path(&mut e, tokens, &path);
            }
            values.insert(sub, e);
        }
    }
    for (sub, absent) in &keys.subkeys {
        if values.contains_key(sub) {
            continue;
        }
        let head = sub.split('.').next().unwrap_or_default();
        let Some(action) = release
            .parser
            .actions
            .iter()
            .enumerate()
            .find(|(i, _)| release.keys[*i] == head)
            .map(|(_, a)| a)
        else {
            continue;
        };
        // A config class that lists its fields and lacks this one: not in this release.
        let field = sub[head.len() + 1..].split('.').next().unwrap_or_default();
        if let Some(fields) = action
            .extra
            .get("type_params")
            .and_then(|p| p.get("fields"))
            .and_then(Value::as_array)
            && !fields.iter().any(|f| f.as_str() == Some(field))
        {
            continue;
        }
        let dest = action.dest.clone();
        let mut e = common::default_entry(&dest, absent.clone());
        if let Some(parent) = values.get(head)
            && let Val::Unknown { reason, .. } = &parent.val
        {
            // The option's text is not knowable: neither are its keys.
            e = Entry {
                val: Val::unknown(reason.clone()),
                ..parent.clone()
            };
        }
        values.insert(sub.clone(), e);
    }
    Ok(())
}

/// The leaves of a JSON object as (`a.b.c`, value); lists and scalars are leaves.
fn leaves_of(v: &Value, prefix: String, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                match x {
                    Value::Object(inner) if !inner.is_empty() => leaves_of(x, p, out),
                    _ => out.push((p, x.clone())),
                }
            }
        }
        other if !prefix.is_empty() => out.push((prefix, other.clone())),
        _ => {}
    }
}

/// Keeps the words of a dotted argument for this sub-key (`--cc.mode 3`), when the
/// option was written in the dotted form; a full JSON keeps its one word.
fn narrow_to_path(e: &mut Entry, tokens: &[Token], path: &str) {
    // A set, not `spans.contains`: tens of thousands of dotted words stay linear.
    let written: std::collections::HashSet<(&str, usize, usize)> =
        e.spans.iter().map(|s| (&*s.file, s.start, s.end)).collect();
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| written.contains(&(&*t.span.file, t.span.start, t.span.end)))
        .collect();
    let keep = super::newer_fields::dotted_field_words(&tokens, path);
    if keep.is_empty() {
        return;
    }
    *e = common::written_entry(
        &e.name,
        e.val.value().cloned().unwrap_or(Value::Null),
        &keep,
    );
}
