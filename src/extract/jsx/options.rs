//! `extract --options`: each option of a generator with its values, its
//! default and whether it is shown initially, without a full exploration.
//!
//! The initial state gives the options shown, their defaults (what it
//! selects) and their items ([`Renderer::choices`]). Options shown only after
//! clicks are found by a bounded exploration ([`HINT_STATES`] states, as
//! [`Renderer`] does to say why an option is hidden); past that budget the
//! listing says it may be incomplete.

use super::{Bundle, HINT_STATES, Offered, Renderer, View};
use crate::error::Error;
use crate::span::Span;

/// When an option is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// In the initial state.
    Initially,
    /// Only after clicks; when the states showing it share values of other
    /// options that not every state has (`model=large`), they are listed.
    After(Option<String>),
}

/// One option of a generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionInfo {
    /// The option's key (the control's `name`).
    pub key: String,
    /// Its items as a state showing it offers them (an empty list: a text
    /// input). For an option shown only after clicks whose items cannot be
    /// read from such a state, the values its states select, without labels.
    pub values: Vec<Offered>,
    /// The value the state that shows it first selects.
    pub default: Option<String>,
    /// When it is shown.
    pub shown: Shown,
}

/// The options of one generator.
#[derive(Debug, Clone)]
pub struct GeneratorOptions {
    /// The component's name.
    pub name: String,
    /// Where it is defined or used.
    pub at: Span,
    /// The options, initial ones first (in control order), then the others
    /// in the order exploration finds them.
    pub options: Vec<OptionInfo>,
    /// Why the options shown only after clicks may be missing (the
    /// exploration's budget or error), if so.
    pub incomplete: Option<String>,
}

/// The options of every generator of a bundle.
pub fn options_of(
    bundle: &Bundle,
    renderer: &Renderer<'_>,
) -> Result<Vec<GeneratorOptions>, Error> {
    (0..bundle.targets.len())
        .map(|t| target_options(bundle, renderer, t))
        .collect()
}

fn target_options(
    bundle: &Bundle,
    renderer: &Renderer<'_>,
    target: usize,
) -> Result<GeneratorOptions, Error> {
    let first = renderer.select(target, &[])?;
    let mut options = Vec::new();
    for (key, value) in &first.selection {
        let values = renderer.choices(target, &[], key)?.unwrap_or_default();
        options.push(OptionInfo {
            key: key.clone(),
            values,
            default: Some(value.clone()),
            shown: Shown::Initially,
        });
    }
    let (views, incomplete) = match renderer.explore(target, HINT_STATES) {
        Ok(views) => (views, None),
        Err(e) => (Vec::new(), Some(e.message().to_string())),
    };
    for key in later_keys(&first, &views) {
        let showing: Vec<&View> = views
            .iter()
            .filter(|v| v.selection.iter().any(|(k, _)| *k == key))
            .collect();
        let seen = selected_values(&showing, &key);
        let prefix: Vec<(String, String)> = showing[0]
            .selection
            .iter()
            .filter(|(k, _)| *k != key)
            .cloned()
            .collect();
        // The items a state showing it offers; reaching that state by
        // clicking its selection in control order may fail (click order
        // matters in some generators): then the values its states select.
        let values = match renderer.choices(target, &prefix, &key) {
            Ok(Some(items)) if !items.is_empty() => items,
            _ => seen
                .iter()
                .map(|v| Offered {
                    value: v.clone(),
                    label: String::new(),
                    disabled: false,
                })
                .collect(),
        };
        options.push(OptionInfo {
            default: seen.first().cloned(),
            shown: Shown::After(condition(&views, &showing, &key)),
            key,
            values,
        });
    }
    let t = &bundle.targets[target];
    Ok(GeneratorOptions {
        name: t.name.clone(),
        at: t.at.clone(),
        options,
        incomplete,
    })
}

/// Keys some explored state shows and the initial one does not, in the order
/// found.
fn later_keys(first: &View, views: &[View]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in views {
        for (k, _) in &v.selection {
            if !first.selection.iter().any(|(f, _)| f == k) && !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    out
}

/// The values of `key` the states select, each once, in order.
fn selected_values(views: &[&View], key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in views {
        if let Some((_, val)) = v.selection.iter().find(|(k, _)| k == key)
            && !out.contains(val)
        {
            out.push(val.clone());
        }
    }
    out
}

/// The values of other options that every state showing `key` has and not
/// every state has (`model=large and hardware=mi300x|h100`), if any.
fn condition(all: &[View], showing: &[&View], key: &str) -> Option<String> {
    let mut keys: Vec<&str> = Vec::new();
    for v in all {
        for (k, _) in &v.selection {
            if k != key && !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let values = |vs: &[&View], k: &str| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for v in vs {
            let val = v
                .selection
                .iter()
                .find(|(kk, _)| kk == k)
                .map(|(_, x)| x.clone())
                .unwrap_or_else(|| "(hidden)".into());
            if !out.contains(&val) {
                out.push(val);
            }
        }
        out
    };
    let every: Vec<&View> = all.iter().collect();
    let when: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let (a, s) = (values(&every, k), values(showing, k));
            (s.len() < a.len()).then(|| format!("{k}={}", s.join("|")))
        })
        .collect();
    (!when.is_empty()).then(|| when.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(sel: &[(&str, &str)]) -> View {
        View {
            target: 0,
            selection: sel
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            commands: vec![],
            path: vec![],
        }
    }

    #[test]
    fn a_later_option_is_conditional_on_what_its_states_share() {
        let all = [
            view(&[("model", "small"), ("hw", "a")]),
            view(&[("model", "large"), ("hw", "a"), ("offload", "none")]),
            view(&[("model", "large"), ("hw", "b"), ("offload", "hicache")]),
        ];
        assert_eq!(later_keys(&all[0], &all), vec!["offload".to_string()]);
        let showing: Vec<&View> = all[1..].iter().collect();
        assert_eq!(
            condition(&all, &showing, "offload"),
            Some("model=large".to_string())
        );
        assert_eq!(
            selected_values(&showing, "offload"),
            vec!["none", "hicache"]
        );
    }
}
