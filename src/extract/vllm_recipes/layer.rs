//! Layers: where a composed word or environment variable came from, and the
//! site's `args.push(...)` / `Object.assign(env, ...)` over YAML values.

use serde::Serialize;

use super::yaml::{Node, Val};
use crate::error::Error;
use crate::span::Span;

/// Where an argument or environment variable of a composed command came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Layer {
    /// The layer in the site's order, as a YAML path (`variants.fp8.extra_args`,
    /// `hardware_overrides.blackwell.extra_args`, `strategy single_node_tep`,
    /// `parallel size`, ...).
    pub name: String,
    /// Where the word is written (the model YAML or a strategy YAML); `None`
    /// for words the site synthesizes (the parallel size, the model id default).
    pub span: Option<Span>,
    /// For synthesized words: how the value was decided.
    pub why: Option<String>,
}

impl Layer {
    pub(super) fn at(name: impl Into<String>, span: Span) -> Layer {
        Layer {
            name: name.into(),
            span: Some(span),
            why: None,
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) layer: Layer,
}

/// Pushes the words of an argument list (`args.push(...list)`).
///
/// The site drops falsy words (`""`, `null`, `0`, `false`) and crashes on any
/// other non-string; a non-list would be spread character by character. Both
/// are input errors here.
pub(super) fn push_args(
    node: Option<&Node>,
    layer: &str,
    out: &mut Vec<Word>,
) -> Result<(), Error> {
    let Some(node) = node else { return Ok(()) };
    if !node.truthy() {
        return Ok(());
    }
    let Val::Seq(items) = &node.val else {
        return Err(Error::input(
            node.span.clone(),
            format!("`{layer}` must be a list of strings"),
        ));
    };
    for item in items {
        match &item.val {
            Val::Str(s) if s.is_empty() => {}
            Val::Str(s) => out.push(Word {
                text: s.clone(),
                layer: Layer::at(layer, item.span.clone()),
            }),
            _ if !item.truthy() => {}
            _ => {
                return Err(Error::input(
                    item.span.clone(),
                    format!(
                        "an argument in `{layer}` must be a string (quote it); the site cannot render {}",
                        item.scalar_string()
                            .unwrap_or_else(|| "a nested value".into())
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// One environment variable of a composed command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvEntry {
    /// Variable name.
    pub name: String,
    /// Its value, as the site prints it.
    pub value: String,
    /// The layer that set the value last.
    pub layer: Layer,
}

/// `Object.assign(env, map)`: a new key is appended, an existing key keeps its
/// place and takes the new value.
pub(super) fn assign_env(
    node: Option<&Node>,
    layer: &str,
    env: &mut Vec<EnvEntry>,
) -> Result<(), Error> {
    let Some(node) = node else { return Ok(()) };
    if !node.truthy() {
        return Ok(());
    }
    let Val::Map(entries) = &node.val else {
        return Err(Error::input(
            node.span.clone(),
            format!("`{layer}` must be a mapping of NAME: value"),
        ));
    };
    for (name, key_span, value) in entries {
        let Some(text) = value.scalar_string() else {
            return Err(Error::input(
                value.span.clone(),
                format!("environment variable {name} in `{layer}` must have a scalar value"),
            ));
        };
        let span = if matches!(value.val, Val::Null) {
            key_span.clone()
        } else {
            value.span.clone()
        };
        set_env(env, name, text, Layer::at(layer, span));
    }
    Ok(())
}

pub(super) fn set_env(env: &mut Vec<EnvEntry>, name: &str, value: String, layer: Layer) {
    match env.iter_mut().find(|e| e.name == name) {
        Some(e) => {
            e.value = value;
            e.layer = layer;
        }
        None => env.push(EnvEntry {
            name: name.to_string(),
            value,
            layer,
        }),
    }
}
