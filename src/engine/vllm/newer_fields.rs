//! Config fields a newer release may have: under a command that may run a
//! release newer than the one used ([`VersionUsed::newer`](crate::resolved::VersionUsed)),
//! a field of a config option (`-cc.new_field 1`, `-ac '{"new_field": 1}'`,
//! `--speculative-config.new_field 1`) that the release's class does not have
//! is set aside like an unknown option (a `newer-release` warning; the key
//! keeps its written value), unless a bundled release up to the one used had
//! it: then it was removed, not added, and the refusal stays.

use serde_json::{Map, Value};

use crate::engine::argparse::{ArgParser, ParseError, ParseErrorKind};
use crate::engine::common::Bundled;
use crate::launch::{Provenance, Token};
use crate::resolved::SetAside;

/// What the rule makes of the fields a config value's class does not have.
#[derive(Debug, Clone, PartialEq)]
pub enum Fields {
    /// Each is new to the line: set aside, kept with its written value.
    New(Vec<(String, Value)>),
    /// One of them a bundled release up to the one used had: the note for
    /// the refusal, naming the last release that had it.
    Removed(String),
}

/// A typed config option's value its release refuses (`extra="forbid"`)
/// only for fields its class does not list.
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    /// The refused value as written.
    pub refused: String,
    /// The value without those fields, as the converter then reads it.
    pub kept: String,
    /// Those fields.
    pub fields: Fields,
}

/// The fields a typed config action for `key` lists in a release, if any.
fn listed<'a>(b: &Bundled<'a>, key: &str) -> Option<&'a Vec<Value>> {
    let i = b.keys.iter().position(|k| k == key)?;
    b.parser.actions[i]
        .extra
        .get("type_params")?
        .get("fields")?
        .as_array()
}

fn lists(b: &Bundled<'_>, key: &str, field: &str) -> bool {
    listed(b, key).is_some_and(|f| f.iter().any(|x| x.as_str() == Some(field)))
}

/// The first of `later` (oldest first) whose action for `key` lists `field`.
pub fn first_listing(later: &[Bundled<'_>], key: &str, field: &str) -> Option<String> {
    later
        .iter()
        .find(|b| lists(b, key, field))
        .map(|b| b.name.to_string())
}

/// For argparse's refusal of a typed config option's value
/// (`invalid parse_dataclass value`): the fields the class does not list,
/// judged against `bundled` (the releases up to the one used, oldest first).
/// `None` when the refusal has another cause (not an object, a bad value of
/// a listed field, an option that is not a config).
pub fn typed(
    parser: &ArgParser,
    keys: &[String],
    bundled: &[Bundled<'_>],
    e: &ParseError,
) -> Option<Typed> {
    if e.kind != ParseErrorKind::InvalidValue {
        return None;
    }
    let rejected = e.rejected.as_ref()?;
    let Value::String(refused) = &rejected.1 else {
        return None;
    };
    let action = parser.actions.get(rejected.0)?;
    let key = keys.get(rejected.0)?;
    let params = action.extra.get("type_params")?;
    if !matches!(
        action.type_kind.as_deref(),
        Some("config" | "optional_config")
    ) || params.get("extra").and_then(Value::as_str) != Some("forbid")
    {
        return None;
    }
    let fields = params.get("fields")?.as_array()?;
    let obj = super::types::config_object(refused, Some(params))?;
    let (known, unknown): (Map<String, Value>, Map<String, Value>) = obj
        .into_iter()
        .partition(|(k, _)| fields.iter().any(|f| f.as_str() == Some(k)));
    if unknown.is_empty() {
        return None;
    }
    let kept = super::preprocess::python_json_dumps(&Value::Object(known));
    if super::types::convert(action, &kept).is_err() {
        return None;
    }
    for field in unknown.keys() {
        if let Some(last) = bundled.iter().rev().find(|b| lists(b, key, field)) {
            return Some(Typed {
                refused: refused.clone(),
                kept,
                fields: Fields::Removed(removed_note(field, key, last.name)),
            });
        }
    }
    Some(Typed {
        refused: refused.clone(),
        kept,
        fields: Fields::New(unknown.into_iter().collect()),
    })
}

/// The note for a field a bundled release up to the one used had.
pub fn removed_note(field: &str, key: &str, last: &str) -> String {
    format!(
        "; {key}.{field} was removed after vllm {last} (the newest bundled release that has it), so a newer release is not likely to accept it"
    )
}

/// The written words of one field of a config option (`-cc.field 1`, or the
/// dotted words under it), among the words behind its value; all of them
/// when it was written as one JSON word.
pub fn field_words<'t>(tokens: &[&'t Token], field: &str) -> Vec<&'t Token> {
    let keep = dotted_field_words(tokens, field);
    if keep.is_empty() {
        tokens.to_vec()
    } else {
        keep
    }
}

/// The dotted words that write one field (`-cc.field 1`, `-cc.field.sub=2`),
/// with the value word after an option written without `=`; none when the
/// field was not written in the dotted form.
pub fn dotted_field_words<'t>(tokens: &[&'t Token], field: &str) -> Vec<&'t Token> {
    let needle = format!(".{field}");
    let mut keep: Vec<&Token> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let w = t.text.as_str();
        let name = w.split('=').next().unwrap_or(w).trim_end_matches('+');
        if w.starts_with('-') && (name.ends_with(&needle) || name.contains(&format!("{needle}."))) {
            keep.push(t);
            if !w.contains('=')
                && let Some(v) = tokens.get(i + 1)
            {
                keep.push(v);
            }
        }
    }
    keep
}

/// The set-aside record of a new field, at its words.
pub fn aside(
    key: &str,
    field: &str,
    words: &[&Token],
    refusal: String,
    known_to: Option<String>,
) -> Option<SetAside> {
    if words
        .iter()
        .any(|t| matches!(t.provenance, Provenance::Unknown { .. }))
    {
        return None;
    }
    let dotted = words
        .iter()
        .any(|t| t.text.starts_with('-') && t.text.contains('.'));
    let mut spans: Vec<crate::span::Span> = words.iter().map(|t| t.span.clone()).collect();
    spans.dedup();
    Some(SetAside {
        words: if dotted {
            words.iter().map(|t| t.text.clone()).collect()
        } else {
            vec![format!("{key}.{field}")]
        },
        spans,
        refusal,
        near: None,
        key: Some(format!("{key}.{field}")),
        known_to,
    })
}
