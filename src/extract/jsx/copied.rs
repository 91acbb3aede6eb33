//! What a copy button copies is a command a reader runs too.
//!
//! The prelude keeps what a click puts on the clipboard
//! (`navigator.clipboard.writeText`, `document.execCommand('copy')`); each
//! [`View::copied`] text is read as the state's shown commands are, and a
//! copied launch that no shown launch equals is an error at the component:
//! the reader who copies runs another command than the one read.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Bundle, Exploration, View};
use crate::error::Error;
use crate::extract::shell_text;
use crate::launch::Launch;
use crate::span::Source;

/// Checks every explored state's copies: a target with a state whose copy
/// button copies another command becomes that error.
pub fn check_explorations(bundle: &Bundle, all: &mut [Result<Exploration, Error>]) {
    let vars = BTreeMap::new();
    for found in all.iter_mut() {
        let Ok(ex) = found else { continue };
        let mut bad = None;
        for view in ex.views.iter().filter(|v| !v.copied.is_empty()) {
            let mut shown = Vec::new();
            for i in 0..view.commands.len() {
                let src = super::view_source(bundle, view, i);
                if let Ok(printed) = shell_text::extract_all(&src, &vars) {
                    shown.extend(printed.launches);
                }
            }
            if let Err(e) = copied_differs(bundle, view, &shown, &vars) {
                bad = Some(e);
                break;
            }
        }
        if let Some(e) = bad {
            *found = Err(e);
        }
    }
}

/// A launch's engine, launcher words, argument words and environment.
type Words<'a> = (String, Vec<&'a str>, Vec<&'a str>, Vec<(&'a str, &'a str)>);

/// What a launch runs, compared between a shown and a copied command: the
/// engine, the launcher's and the arguments' words, the environment (by
/// name).
fn launch_words(l: &Launch) -> Words<'_> {
    let mut env: Vec<(&str, &str)> = l
        .env
        .iter()
        .map(|e| (e.name.as_str(), e.value.as_str()))
        .collect();
    env.sort_unstable();
    (
        format!("{:?}", l.engine),
        l.launcher.iter().map(|t| t.text.as_str()).collect(),
        l.argv.iter().map(|t| t.text.as_str()).collect(),
        env,
    )
}

/// A copy button of `view` that copies a command whose launch differs from
/// every launch the state shows (`shown`) is an error: the reader who
/// copies runs another command than the one read. Launches are compared,
/// not texts (a copy may drop the prompt or join the lines); a copied text
/// with no launch (a URL, an install line) is not a command of the page's.
pub fn copied_differs(
    bundle: &Bundle,
    view: &View,
    shown: &[Launch],
    vars: &BTreeMap<String, String>,
) -> Result<(), Error> {
    for text in &view.copied {
        let label = format!("{} (copied)", view.selection_label());
        let src = Arc::new(Source::new(
            crate::span::Origin::Rendered {
                file: bundle.file.clone(),
                view: label,
            },
            text.clone(),
        ));
        let Ok(copied) = shell_text::extract_all(&src, vars) else {
            continue;
        };
        for c in &copied.launches {
            let words = launch_words(c);
            if shown.iter().any(|s| launch_words(s) == words) {
                continue;
            }
            let t = bundle.targets.get(view.target);
            let what = shown
                .iter()
                .find(|s| launch_words(s).0 == words.0)
                .map(|s| first_difference(&launch_words(s).2, &words.2))
                .unwrap_or_else(|| "no launch the state shows runs it".to_string());
            return Err(Error::Input {
                span: t
                    .map(|t| t.at.clone())
                    .unwrap_or_else(|| crate::span::Span::of_path(&bundle.file)),
                message: format!(
                    "<{} />{}: a copy button copies another command than the one shown ({what}): the reader who copies it runs that one",
                    t.map(|t| t.name.as_str()).unwrap_or("generator"),
                    if view.selection.is_empty() && view.clicked.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", view.selection_label())
                    },
                ),
            });
        }
    }
    Ok(())
}

/// Where two argument lists first differ, as `copied \`--tp 8\`, shown
/// \`--tp 4\``.
fn first_difference(shown: &[&str], copied: &[&str]) -> String {
    let at = shown
        .iter()
        .zip(copied)
        .position(|(a, b)| a != b)
        .unwrap_or(shown.len().min(copied.len()));
    let around = |w: &[&str]| {
        let s = w[at.saturating_sub(1).min(w.len())..(at + 1).min(w.len())].join(" ");
        let s = crate::secret::mask_command(&s);
        if s.is_empty() {
            "nothing more".to_string()
        } else {
            format!("`{}`", s.chars().take(120).collect::<String>())
        }
    };
    format!("copied {}, shown {}", around(copied), around(shown))
}
