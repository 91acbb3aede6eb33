//! `extract --options`: each option of a generator with its values, its
//! default and whether it is shown initially, without exploring every state.
//!
//! The initial state gives the options shown, their defaults (what it
//! selects) and their items ([`Renderer::choices`]). Then one render per
//! value: each other enabled value of each option shown is clicked from the
//! initial state, which tells the options a click shows and those it hides;
//! each other value of an option a click shows is clicked after that click
//! (two clicks deep), all within [`HINT_STATES`] renders. An option that
//! needs two clicks on initial options to appear is not listed; nor is one
//! past the budget or behind a click that fails, and then the listing says so.

use super::{Bundle, HINT_STATES, Offered, Renderer};
use crate::error::Error;
use crate::span::Span;

/// When an option is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// In the initial state, and after every click tried.
    Initially,
    /// In the initial state, but not after these clicks (`model=small`).
    HiddenAfter(String),
    /// Only after clicks: the clicks that show it (`model=large|medium`,
    /// `model=large and offload=hicache`), alternatives joined by `or`.
    After(String),
}

/// One option of a generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionInfo {
    /// The option's key (the control's `name`).
    pub key: String,
    /// Its items as the first state showing it offers them (an empty list: a
    /// text input).
    pub values: Vec<Offered>,
    /// The value the first state showing it selects.
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
    /// The options: the initial ones in control order, then the others in
    /// the order clicks show them.
    pub options: Vec<OptionInfo>,
    /// Why options shown only after clicks may be missing (the render budget,
    /// a click that fails), if so.
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

/// Clicks from the initial state (`key`, `value`), in order.
type Clicks = Vec<(String, String)>;

/// The clicks tried so far and what they showed.
struct Probe<'r, 'b> {
    renderer: &'r Renderer<'b>,
    target: usize,
    renders: usize,
    incomplete: Option<String>,
    options: Vec<OptionInfo>,
    /// Per option shown only after clicks: the click paths that show it.
    shown_by: Vec<(String, Vec<Clicks>)>,
    /// Per initial option: the click paths that hide it.
    hidden_by: Vec<(String, Vec<Clicks>)>,
}

impl Probe<'_, '_> {
    /// Clicks each other enabled value of option `key` after `path`; returns
    /// the options each click showed first.
    fn click_values(
        &mut self,
        path: &Clicks,
        key: &str,
        initial: &[String],
    ) -> Vec<(String, Clicks)> {
        let Some(o) = self.options.iter().find(|o| o.key == key) else {
            return Vec::new();
        };
        let current = o.default.clone();
        let values: Vec<String> = o
            .values
            .iter()
            .filter(|i| !i.disabled && Some(&i.value) != current.as_ref())
            .map(|i| i.value.clone())
            .collect();
        let mut found = Vec::new();
        for value in values {
            if self.renders >= HINT_STATES {
                self.incomplete
                    .get_or_insert_with(|| format!("the budget of {HINT_STATES} renders ran out"));
                return found;
            }
            self.renders += 1;
            let mut clicks = path.clone();
            clicks.push((key.to_string(), value));
            let selection = match self.renderer.select_some(self.target, &clicks, true) {
                Ok((view, unmatched, _)) if unmatched.is_empty() => view.selection,
                Ok(_) => continue,
                Err(e) => {
                    self.incomplete
                        .get_or_insert_with(|| e.message().to_string());
                    continue;
                }
            };
            for k in initial {
                if !selection.iter().any(|(sk, _)| sk == k) {
                    note(&mut self.hidden_by, k, &clicks);
                }
            }
            for (k, v) in &selection {
                if initial.contains(k) {
                    continue;
                }
                note(&mut self.shown_by, k, &clicks);
                if self.options.iter().any(|o| &o.key == k) {
                    continue;
                }
                let values = match self.renderer.choices(self.target, &clicks, k) {
                    Ok(Some(items)) => items,
                    _ => Vec::new(),
                };
                self.options.push(OptionInfo {
                    key: k.clone(),
                    values,
                    default: Some(v.clone()),
                    shown: Shown::After(String::new()),
                });
                found.push((k.clone(), clicks.clone()));
            }
        }
        found
    }
}

/// Adds a click path to a key's list.
fn note(list: &mut Vec<(String, Vec<Clicks>)>, key: &str, clicks: &Clicks) {
    match list.iter_mut().find(|(k, _)| k == key) {
        Some((_, paths)) => {
            if !paths.contains(clicks) {
                paths.push(clicks.clone());
            }
        }
        None => list.push((key.to_string(), vec![clicks.clone()])),
    }
}

fn target_options(
    bundle: &Bundle,
    renderer: &Renderer<'_>,
    target: usize,
) -> Result<GeneratorOptions, Error> {
    let first = renderer.select(target, &[])?;
    let mut probe = Probe {
        renderer,
        target,
        renders: 0,
        incomplete: None,
        options: Vec::new(),
        shown_by: Vec::new(),
        hidden_by: Vec::new(),
    };
    for (key, value) in &first.selection {
        let values = renderer.choices(target, &[], key)?.unwrap_or_default();
        probe.options.push(OptionInfo {
            key: key.clone(),
            values,
            default: Some(value.clone()),
            shown: Shown::Initially,
        });
    }
    let initial: Vec<String> = first.selection.iter().map(|(k, _)| k.clone()).collect();
    let mut revealed = Vec::new();
    for key in &initial {
        revealed.extend(probe.click_values(&Vec::new(), key, &initial));
    }
    // One click deeper, on the options a first click showed.
    for (key, path) in revealed {
        probe.click_values(&path, &key, &initial);
    }
    let Probe {
        mut options,
        shown_by,
        hidden_by,
        incomplete,
        ..
    } = probe;
    for o in &mut options {
        if let Some((_, paths)) = shown_by.iter().find(|(k, _)| *k == o.key) {
            o.shown = Shown::After(condition(paths));
        } else if let Some((_, paths)) = hidden_by.iter().find(|(k, _)| *k == o.key) {
            o.shown = Shown::HiddenAfter(condition(paths));
        }
    }
    let t = &bundle.targets[target];
    Ok(GeneratorOptions {
        name: t.name.clone(),
        at: t.at.clone(),
        options,
        incomplete,
    })
}

/// The click paths that show (or hide) an option, as a condition: the
/// shortest paths only (a longer one that holds a shorter one says nothing
/// more), one-click paths on the same option merged (`model=large|medium`),
/// alternatives joined by `or`, clicks of one path by `and`.
fn condition(paths: &[Clicks]) -> String {
    let minimal: Vec<&Clicks> = paths
        .iter()
        .filter(|p| {
            !paths
                .iter()
                .any(|q| q.len() < p.len() && q.iter().all(|c| p.contains(c)))
        })
        .collect();
    let mut singles: Vec<(String, Vec<String>)> = Vec::new();
    let mut longer: Vec<String> = Vec::new();
    for p in minimal {
        if let [(k, v)] = p.as_slice() {
            match singles.iter_mut().find(|(sk, _)| sk == k) {
                Some((_, vs)) => vs.push(v.clone()),
                None => singles.push((k.clone(), vec![v.clone()])),
            }
        } else {
            let text: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
            longer.push(text.join(" and "));
        }
    }
    let mut alternatives: Vec<String> = singles
        .into_iter()
        .map(|(k, vs)| format!("{k}={}", vs.join("|")))
        .collect();
    alternatives.extend(longer);
    alternatives.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::condition;

    fn path(clicks: &[(&str, &str)]) -> Vec<(String, String)> {
        clicks
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_condition_is_the_shortest_click_paths_merged_per_option() {
        let paths = [
            path(&[("model", "large")]),
            path(&[("model", "medium")]),
            path(&[("model", "large"), ("hw", "b200")]),
            path(&[("hw", "mi300x"), ("quant", "fp8")]),
        ];
        assert_eq!(
            condition(&paths),
            "model=large|medium or hw=mi300x and quant=fp8"
        );
    }
}
