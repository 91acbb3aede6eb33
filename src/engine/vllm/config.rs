//! `vllm serve --config FILE.yaml`: the file's options, as vLLM's
//! `FlexibleArgumentParser.load_config_file` turns them into arguments, each
//! word pointing at its key in the YAML file.
//!
//! The file is looked up from the launch's working folder: the folder of
//! the file holding the command, or where the script's `cd` left it (not
//! read when that is not knowable). A file the script wrote, removed or
//! moved before the launch is not read: what vLLM reads is not what is
//! committed. Absolute paths and paths leaving that folder are not read; a
//! path that is not there is reported, and the options it could set are
//! unknown.

use std::path::{Component, Path};
use std::sync::Arc;

use serde_json::Value;

use super::preprocess::python_json_dumps;
use crate::error::Error;
use crate::launch::{Launch, Provenance, Token};
use crate::span::{Origin, Source};

/// How vLLM's `yaml.safe_load` reads a config file: PyYAML's typing of plain
/// scalars, keys as Python's `str()` of the key (`1` -> `1`, `true` -> `True`).
const YAML: crate::extract::yaml_tree::Options = crate::extract::yaml_tree::Options {
    schema: crate::extract::yaml_tree::Schema::PyYaml11,
    place: crate::extract::yaml_tree::Place::Defined,
    max_map_entries: None,
    key_name: |key| match &key.val {
        crate::extract::yaml_tree::Val::Str(s) => Some(s.clone()),
        crate::extract::yaml_tree::Val::Int(n) => Some(n.to_string()),
        crate::extract::yaml_tree::Val::Bool(b) => Some(if *b { "True" } else { "False" }.into()),
        crate::extract::yaml_tree::Val::Null => Some("None".into()),
        crate::extract::yaml_tree::Val::Float(f) => Some(crate::pyrepr::float_repr(*f)),
        _ => None,
    },
    // A key inside an option's mapping value: `json.dumps` writes it.
    inner_key_name: Some(|key| match &key.val {
        crate::extract::yaml_tree::Val::Str(s) => Some(s.clone()),
        crate::extract::yaml_tree::Val::Int(n) => Some(n.to_string()),
        crate::extract::yaml_tree::Val::Bool(b) => Some(if *b { "true" } else { "false" }.into()),
        crate::extract::yaml_tree::Val::Null => Some("null".into()),
        crate::extract::yaml_tree::Val::Float(f) => Some(json_float_key(*f)),
        _ => None,
    }),
};

/// A float dict key as Python's `json.dumps` writes it: `repr`, with
/// `NaN` / `Infinity` / `-Infinity` for the values JSON has no number for.
fn json_float_key(f: f64) -> String {
    match crate::pyrepr::float_repr(f).as_str() {
        "nan" => "NaN".into(),
        "inf" => "Infinity".into(),
        "-inf" => "-Infinity".into(),
        r => r.to_string(),
    }
}

/// The largest config file read.
const MAX_BYTES: u64 = 1 << 20;

/// What became of `--config FILE`.
#[derive(Debug)]
pub enum Outcome {
    /// The file's options as argument words, in the file's order.
    Read(Vec<Token>),
    /// Not read, and why.
    NotRead(String),
}

/// Reads `--config FILE` for a launch. Bad YAML is an input error.
pub fn read(launch: &Launch, file_token: &Token, file: &str) -> Result<Outcome, Error> {
    if let Provenance::Unknown { reason } = &file_token.provenance {
        return Ok(Outcome::NotRead(format!(
            "its path is not knowable from the text: {reason}"
        )));
    }
    let base = match &launch.source.origin {
        Origin::File(p) | Origin::Rendered { file: p, .. } => {
            p.parent().map(Path::to_path_buf).unwrap_or_default()
        }
        Origin::Url(_) => {
            return Ok(Outcome::NotRead(
                "the command is in a remote file; recipe-drift reads no remote config file beside it".into(),
            ));
        }
        Origin::Inline(_) => {
            return Ok(Outcome::NotRead(
                "the command is not in a file, so the path has no folder to start from".into(),
            ));
        }
    };
    // The server opens the file from the folder the script left it in, and
    // reads what the script wrote there, not what is committed.
    let Some(folder) = launch.cwd.text() else {
        let reason = match &launch.cwd {
            crate::launch::WorkDir::Unknown(r) => r.as_str(),
            _ => "",
        };
        return Ok(Outcome::NotRead(format!(
            "the server's working folder is not knowable: {reason}"
        )));
    };
    let key = crate::launch::logical_join(folder, file);
    if let Some((text, at)) = launch.written.text(&key) {
        // `cat > cfg.yaml <<EOF`: the text the script wrote, placed as such.
        let source = Arc::new(Source::new(
            Origin::Inline(format!("{file} as written at {at}")),
            text.to_string(),
        ));
        return parse(source);
    }
    if let Some(r) = launch.written.changed(&key) {
        return Ok(Outcome::NotRead(format!(
            "{file} may not hold what is committed: it was {r}"
        )));
    }
    // The first folder holding the file, as the evaluator finds sourced
    // files (see `WorkDir::candidates`), else the first.
    let candidates = launch.cwd.candidates(&base);
    let base = candidates
        .iter()
        .find(|c| crate::files::probe(&c.join(file)) == crate::files::Probe::File)
        .or(candidates.first())
        .cloned()
        .unwrap_or(base);
    let rel = Path::new(file);
    if rel.is_absolute() {
        return Ok(Outcome::NotRead(
            "absolute paths are not read (the server's file system is not in the text)".into(),
        ));
    }
    if rel
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Ok(Outcome::NotRead(
            "paths leaving the command's folder are not read".into(),
        ));
    }
    let path = base.join(rel);
    // Confined first: a path leading outside the repository is refused
    // whether or not something exists there (the answer must not tell).
    let real = crate::files::admit(&path)
        .map_err(|e| Error::input(file_token.span.clone(), format!("--config {file}: {e}")))?;
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() && m.len() > MAX_BYTES => {
            return Err(Error::input(
                file_token.span.clone(),
                format!(
                    "--config {file}: {} is larger than {MAX_BYTES} bytes",
                    path.display()
                ),
            ));
        }
        Ok(m) if m.is_file() => {}
        _ => {
            return Ok(Outcome::NotRead(format!(
                "not found next to the command, as {}",
                path.display()
            )));
        }
    }
    // Read through the confined layer; a refusal (a symlink leading outside
    // the repository) is placed at the `--config` value.
    let source = Source::read(&path)
        .map_err(|e| Error::input(file_token.span.clone(), format!("--config {file}: {e}")))?;
    crate::files::check_line_endings(&source, crate::files::LineEndings::Text)?;
    parse(source)
}

/// The options of a config file's text.
fn parse(source: Arc<Source>) -> Result<Outcome, Error> {
    if source.text.len() as u64 > MAX_BYTES {
        return Err(Error::input(
            source.span(0, 0),
            format!("a vLLM config file is larger than {MAX_BYTES} bytes"),
        ));
    }
    // vLLM reads the file with PyYAML (`yaml.safe_load`): YAML 1.1 typing.
    let doc = crate::extract::yaml_tree::parse(&source, &YAML)?;
    match &doc.val {
        crate::extract::yaml_tree::Val::Map(entries) => tokens_of(entries),
        crate::extract::yaml_tree::Val::Null => Ok(Outcome::Read(Vec::new())),
        _ => Err(Error::input(
            source.span(0, 0),
            "a vLLM config file is a mapping of option names to values",
        )),
    }
}

/// The argument words of a config mapping, as `load_config_file` builds them:
/// `true` -> `--key`, `false` and empty lists dropped, a list -> `--key` and its
/// items, a mapping -> `--key` and its JSON, anything else -> `--key` and `str()`.
/// Each word is placed at its key as the tree holds it (for a repeated key,
/// the last one, whose value PyYAML keeps): one pass over the entries,
/// however many there are.
fn tokens_of(
    entries: &[(String, crate::span::Span, crate::extract::yaml_tree::Node)],
) -> Result<Outcome, Error> {
    let mut out = Vec::new();
    for (key, span, node) in entries {
        let value = node.to_json()?;
        let word = |text: String| Token {
            text,
            span: span.clone(),
            provenance: Provenance::Literal,
            written_at: None,
        };
        let option = format!("--{key}");
        match &value {
            Value::Bool(true) => out.push(word(option)),
            Value::Bool(false) => {}
            Value::Array(items) if items.is_empty() => {}
            Value::Array(items) => {
                out.push(word(option));
                out.extend(items.iter().map(|v| word(py_str(v))));
            }
            Value::Object(_) => {
                out.push(word(option));
                out.push(word(python_json_dumps(&value)));
            }
            other => {
                out.push(word(option));
                out.push(word(py_str(other)));
            }
        }
    }
    Ok(Outcome::Read(out))
}

/// Python's `str()` of a YAML scalar.
fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e16 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        other => python_json_dumps(other),
    }
}

/// `vllm serve`'s first step, done before the config's options are inserted:
/// `--model X` / `--model=X` (the first) moves to the front as the positional
/// model.
pub fn move_model(mut tokens: Vec<Token>) -> Vec<Token> {
    let Some(i) = tokens.iter().position(|t| {
        t.text == "--model"
            || t.text
                .strip_prefix("--model=")
                .is_some_and(|v| !v.is_empty())
    }) else {
        return tokens;
    };
    if tokens[i].text == "--model" {
        if i + 1 >= tokens.len() {
            return tokens;
        }
        let model = tokens.remove(i + 1);
        tokens.remove(i);
        tokens.insert(0, model);
    } else {
        let mut t = tokens.remove(i);
        t.text = t.text["--model=".len()..].to_string();
        tokens.insert(0, t);
    }
    tokens
}
