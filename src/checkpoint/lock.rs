//! The lock file of checkpoint facts (issue 23 §3): the facts a run read from
//! the Hugging Face Hub, written by `recipe-drift lock` so that later runs
//! (CI, `--offline`) use the same facts and give the same verdict.
//!
//! The file (`.recipe-drift.lock.yaml` beside the config) is written with
//! deterministic bytes: a comment and `version:` first, then the checkpoints
//! sorted by model and revision, each with its facts grouped by the file they
//! were read from (sorted by that address), the keys of each group sorted.
//! Every scalar is written as a JSON literal (a YAML 1.2 flow scalar), so no
//! value can change the file's structure. Read with serde-saphyr: malformed
//! YAML, an unknown field, an unknown fact key or another version is an input
//! error at its `file:line:col`.
//!
//! [`Recorder`] wraps the run's fact source and keeps every checkpoint the
//! resolvers asked for; [`Recorder::outcome`] sorts them into the ones to
//! lock (read from the Hub) and the others, with the reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::error::Error;
use crate::resolved::{CHECKPOINT_KEYS, Entry, FactError, FactSource, Val, ValueSource};
use crate::span::Source;

/// The lock file's name, beside the config file.
pub const LOCK_FILE: &str = ".recipe-drift.lock.yaml";

/// The version of the lock file format this release reads and writes.
pub const LOCK_VERSION: u64 = 1;

/// The revision a launch without `--revision` (or a pin) reads: the Hub's.
const MAIN: &str = "main";

/// One locked checkpoint: its model and revision, and its facts
/// (`checkpoint.*` key -> value) grouped by the file they were read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Locked {
    /// The model id as launches name it (`org/name`).
    pub model: String,
    /// The revision the facts hold for (`main` when none was given).
    pub revision: String,
    /// Where each group of facts was read from -> the facts read there.
    pub facts: BTreeMap<String, Facts>,
}

/// The facts read from one file: known values, and unknown ones with the reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// Known values (JSON-typed; `null`: the checkpoint does not state it).
    pub values: BTreeMap<String, Value>,
    /// Facts that were unknown although the file was read, with the reason.
    pub unknown: BTreeMap<String, String>,
}

/// A lock file as read: where it is, and its checkpoints.
#[derive(Debug, Clone, Default)]
pub struct Lock {
    /// The lock file as named in messages and provenance.
    pub path: String,
    /// The checkpoints it holds.
    pub checkpoints: Vec<Locked>,
}

/// `org/name@rev` with no other revision: the model and that pinned revision.
/// Else the model and the revision as given.
pub fn split_pin<'a>(model: &'a str, revision: Option<&'a str>) -> (&'a str, Option<&'a str>) {
    match model.split_once('@') {
        Some((m, r)) if revision.is_none() && !r.is_empty() => (m, Some(r)),
        _ => (model, revision),
    }
}

/// Whether `id` names a model on the Hub (`org/name`, optionally `@rev`).
pub fn is_hub_model(id: &str) -> bool {
    crate::engine::common::is_hf_id(split_pin(id, None).0)
}

impl Lock {
    /// The lock file beside a config file.
    pub fn beside(config: &Path) -> std::path::PathBuf {
        config
            .parent()
            .map(|p| p.join(LOCK_FILE))
            .unwrap_or_else(|| LOCK_FILE.into())
    }

    /// Reads the lock file beside `config` if there is one (`None` when the
    /// file does not exist).
    pub fn read_beside(config: &Path) -> Result<Option<Lock>, Error> {
        let path = Lock::beside(config);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        Lock::read(&path).map(Some)
    }

    /// Reads the lock file of a run with no config: `.recipe-drift.lock.yaml`
    /// in the current folder, where `lock` writes it then (`None` when there
    /// is none).
    pub fn read_here() -> Result<Option<Lock>, Error> {
        let path = Path::new(LOCK_FILE);
        if std::fs::symlink_metadata(path).is_err() {
            return Ok(None);
        }
        Lock::read(path).map(Some)
    }

    /// Reads a lock file through the confined file layer. Malformed YAML, an
    /// unknown field, an unknown fact key, a duplicate checkpoint or another
    /// version is an input error at its position.
    pub fn read(path: &Path) -> Result<Lock, Error> {
        let source = Source::read(path)?;
        crate::files::check_line_endings(&source, crate::files::LineEndings::Text)?;
        let raw: RawLock =
            serde_saphyr::from_str(&source.text).map_err(|e| Error::yaml(&source, &e))?;
        let at = |s: &serde_saphyr::Location| source.yaml_span(s);
        let name = path.display().to_string();
        if raw.version.value != LOCK_VERSION {
            return Err(Error::input(
                at(&raw.version.referenced),
                format!(
                    "lock file version {} is not {LOCK_VERSION}, the version this release reads; \
                     run `recipe-drift lock` to write it again",
                    raw.version.value
                ),
            ));
        }
        let mut errors = Vec::new();
        let mut checkpoints: Vec<Locked> = Vec::new();
        for c in raw.checkpoints {
            let model = c.model.value.clone();
            let revision = c.revision.value.clone();
            if !is_hub_model(&model) || model.contains('@') {
                errors.push(Error::input(
                    at(&c.model.referenced),
                    format!("lock file: {model:?} is not a Hub model id (org/name)"),
                ));
            }
            if checkpoints
                .iter()
                .any(|o| o.model.eq_ignore_ascii_case(&model) && o.revision == revision)
            {
                errors.push(Error::input(
                    at(&c.model.referenced),
                    format!("lock file: {model}@{revision} is locked twice"),
                ));
            }
            let mut facts: BTreeMap<String, Facts> = BTreeMap::new();
            let mut seen: Vec<String> = Vec::new();
            for g in c.facts {
                let group = facts.entry(g.from.value.clone()).or_default();
                let unknown = g
                    .unknown
                    .into_iter()
                    .map(|(k, v)| (k, Err(v.value), v.referenced));
                let known = g
                    .values
                    .into_iter()
                    .map(|(k, v)| (k, Ok(v.value), v.referenced));
                for (key, value, loc) in known.chain(unknown) {
                    if !CHECKPOINT_KEYS.iter().any(|(k, _)| *k == key) {
                        errors.push(Error::input(
                            at(&loc),
                            format!("lock file: {key:?} is not a checkpoint fact of this release"),
                        ));
                    } else if seen.contains(&key) {
                        errors.push(Error::input(
                            at(&loc),
                            format!("lock file: {key} is given twice for {model}@{revision}"),
                        ));
                    } else {
                        seen.push(key.clone());
                        match value {
                            Ok(v) => group.values.insert(key, v),
                            Err(reason) => group.unknown.insert(key, reason).map(Value::String),
                        };
                    }
                }
            }
            checkpoints.push(Locked {
                model,
                revision,
                facts,
            });
        }
        Error::all(errors)?;
        Ok(Lock {
            path: name,
            checkpoints,
        })
    }
}

/// The file as written (serde-saphyr, every field checked).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLock {
    version: Spanned<u64>,
    #[serde(default)]
    checkpoints: Vec<RawLocked>,
}

/// One checkpoint as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLocked {
    model: Spanned<String>,
    revision: Spanned<String>,
    #[serde(default)]
    facts: Vec<RawGroup>,
}

/// The facts read from one file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGroup {
    from: Spanned<String>,
    #[serde(default)]
    values: BTreeMap<String, Spanned<Value>>,
    #[serde(default)]
    unknown: BTreeMap<String, Spanned<String>>,
}

/// A `checkpoint.*` entry read from `written`.
fn entry(key: &str, val: Val, written: &str) -> Entry {
    Entry {
        val,
        source: ValueSource::Context,
        name: key.to_string(),
        spans: vec![],
        written: Some(written.to_string()),
        rules: vec![],
        inactive: None,
        no_effect: None,
    }
}

impl Lock {
    /// The locked facts of a model (already split from a pin) at a revision
    /// (`None`: `main`), each naming the lock file and where it was read from;
    /// `None` when the lock does not hold that checkpoint.
    pub fn facts(&self, model: &str, revision: Option<&str>) -> Option<BTreeMap<String, Entry>> {
        let rev = revision.unwrap_or(MAIN);
        let c = self
            .checkpoints
            .iter()
            .find(|c| c.model.eq_ignore_ascii_case(model) && c.revision == rev)?;
        // A key the file lacks (written by an older release): unknown, saying so.
        let mut out = crate::resolved::unknown_facts(&format!(
            "depends on the checkpoint of {model}, whose locked facts in {} lack this one; \
             run `recipe-drift lock` again",
            self.path
        ));
        for (from, f) in &c.facts {
            let written = format!("{}, locked from {from}", self.path);
            for (k, v) in &f.values {
                out.insert(k.clone(), entry(k, Val::known(v.clone()), &written));
            }
            for (k, why) in &f.unknown {
                out.insert(k.clone(), entry(k, Val::unknown(why.clone()), &written));
            }
        }
        Some(out)
    }
}

/// A value as one YAML flow node: JSON literals (strings JSON-quoted), with
/// `, ` and `: ` between items so every YAML 1.2 reader takes it.
fn flow(v: &Value) -> String {
    match v {
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", quoted(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A string as a JSON (and YAML double-quoted) literal.
fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// The text of a lock file holding `checkpoints`: the same bytes for the same
/// facts (checkpoints sorted by model and revision, groups by address, keys
/// sorted), credential-like secrets of the run masked.
pub fn render(checkpoints: &[Locked]) -> String {
    let mut sorted: Vec<&Locked> = checkpoints.iter().collect();
    sorted.sort_by(|a, b| (&a.model, &a.revision).cmp(&(&b.model, &b.revision)));
    let mut out = String::from(
        "# recipe-drift lock file: the checkpoint facts a run read from the Hugging Face Hub.\n\
         # Written by `recipe-drift lock`; `check` and `compare` read it before the Hub.\n",
    );
    out.push_str(&format!("version: {LOCK_VERSION}\n"));
    if sorted.is_empty() {
        out.push_str("checkpoints: []\n");
    } else {
        out.push_str("checkpoints:\n");
    }
    for c in sorted {
        out.push_str(&format!("  - model: {}\n", quoted(&c.model)));
        out.push_str(&format!("    revision: {}\n", quoted(&c.revision)));
        if c.facts.is_empty() {
            out.push_str("    facts: []\n");
            continue;
        }
        out.push_str("    facts:\n");
        for (from, f) in &c.facts {
            out.push_str(&format!("      - from: {}\n", quoted(from)));
            for (name, items) in [
                (
                    "values",
                    f.values
                        .iter()
                        .map(|(k, v)| (k, flow(v)))
                        .collect::<Vec<_>>(),
                ),
                (
                    "unknown",
                    f.unknown.iter().map(|(k, r)| (k, quoted(r))).collect(),
                ),
            ] {
                if items.is_empty() {
                    continue;
                }
                out.push_str(&format!("        {name}:\n"));
                for (k, v) in items {
                    out.push_str(&format!("          {k}: {v}\n"));
                }
            }
        }
    }
    crate::secret::mask(&out)
}

/// An address without the user name and password a URL may carry.
fn public(from: &str) -> String {
    match reqwest::Url::parse(from) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        _ => from.to_string(),
    }
}

/// One checkpoint a run asked for, by model and revision.
type Asked = BTreeMap<(String, String), Result<BTreeMap<String, Entry>, FactError>>;

/// A fact source that keeps every checkpoint the resolvers ask the inner
/// source for, and what it answered.
#[derive(Debug, Default)]
pub struct Recorder {
    inner: Mutex<Option<Arc<dyn FactSource>>>,
    asked: Mutex<Asked>,
}

/// A checkpoint the run asked for that is not locked, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct NotLocked {
    /// The model (`org/name@rev` for a Hub model, else the path).
    pub label: String,
    /// Why it is not locked.
    pub reason: String,
}

impl Recorder {
    /// A recorder with no fact source yet ([`Recorder::wrap`] gives one).
    pub fn new() -> Arc<Recorder> {
        Arc::new(Recorder::default())
    }

    /// Asks `inner` from now on (what was recorded is kept).
    pub fn wrap(&self, inner: Arc<dyn FactSource>) {
        match self.inner.lock() {
            Ok(mut g) => *g = Some(inner),
            Err(p) => *p.into_inner() = Some(inner),
        }
    }

    fn source(&self) -> Option<Arc<dyn FactSource>> {
        match self.inner.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// The checkpoints asked for: those whose facts were read from the Hub
    /// (to lock), and the others with the reason (unknown facts, facts by
    /// hand, local model folders), each model once (case-insensitively).
    pub fn outcome(&self) -> (Vec<Locked>, Vec<NotLocked>) {
        let asked = match self.asked.lock() {
            Ok(a) => a.clone(),
            Err(p) => p.into_inner().clone(),
        };
        let mut locked = Vec::new();
        let mut not = Vec::new();
        let mut seen: Vec<(String, String)> = Vec::new();
        for ((model, revision), answer) in asked {
            let id = (model.to_ascii_lowercase(), revision.clone());
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let hub = is_hub_model(&model);
            let label = if hub {
                format!("{model}@{revision}")
            } else {
                model.clone()
            };
            let no = |reason: String| NotLocked {
                label: label.clone(),
                reason,
            };
            let entries = match answer {
                Ok(e) => e,
                Err(e) => {
                    not.push(no(format!("{}: {}", e.location, e.message)));
                    continue;
                }
            };
            let from_hub = |e: &Entry| {
                e.source == ValueSource::Context
                    && e.written
                        .as_deref()
                        .is_some_and(|w| w.starts_with("https://") || w.starts_with("http://"))
            };
            if !hub || !entries.values().any(from_hub) {
                let reason = entries
                    .values()
                    .find_map(|e| match (&e.val, e.source) {
                        (Val::Unknown { reason, .. }, ValueSource::Unknown) => {
                            Some(format!("its facts are unknown: {reason}"))
                        }
                        _ => None,
                    })
                    .or_else(|| {
                        entries.values().find_map(|e| {
                            e.written
                                .as_ref()
                                .map(|w| format!("its facts are read from {w} on every run"))
                        })
                    })
                    .unwrap_or_else(|| "no facts were read".into());
                not.push(no(reason));
                continue;
            }
            let mut facts: BTreeMap<String, Facts> = BTreeMap::new();
            for (k, e) in &entries {
                let Some(w) = e.written.as_deref().filter(|_| from_hub(e)) else {
                    continue;
                };
                let group = facts.entry(public(w)).or_default();
                match &e.val {
                    Val::Known { value } => {
                        group.values.insert(k.clone(), value.clone());
                    }
                    Val::Unknown { reason, .. } => {
                        group.unknown.insert(k.clone(), reason.clone());
                    }
                }
            }
            locked.push(Locked {
                model,
                revision,
                facts,
            });
        }
        (locked, not)
    }
}

impl FactSource for Recorder {
    fn facts(
        &self,
        model: &str,
        revision: Option<&str>,
    ) -> Result<BTreeMap<String, Entry>, FactError> {
        let out = match self.source() {
            Some(inner) => inner.facts(model, revision),
            None => Ok(crate::resolved::unknown_facts(&format!(
                "depends on the checkpoint of {model}, and no checkpoint facts are read here"
            ))),
        };
        let (m, r) = split_pin(model, revision);
        let key = (m.to_string(), r.unwrap_or(MAIN).to_string());
        if let Ok(mut asked) = self.asked.lock() {
            asked.entry(key).or_insert_with(|| out.clone());
        }
        out
    }

    fn facts_of_every_revision(&self, model: &str) -> Option<BTreeMap<String, Entry>> {
        self.source()?.facts_of_every_revision(model)
    }
}

#[cfg(test)]
mod tests;
