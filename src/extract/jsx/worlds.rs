//! Commands that depend on the reader's browser.
//!
//! The sandbox's browser is one fixed world (`prelude.js`): a fixed clock, a
//! seeded random sequence, a desktop window, an https page opened directly,
//! no media query matching. A generator that computes its command from any
//! of these (`new Date()`, `Math.random()`, `window.innerWidth`,
//! `navigator.*`, `location.*`, `document.referrer`, `document.cookie`,
//! `matchMedia(..).matches`, `crypto`, `performance.now()`) prints what one
//! reader sees, not what every reader sees. The prelude records each read of
//! such a source; when the file read any, it is explored again in a second
//! world where each has a clearly different value (another date, the mirrored
//! random sequence, a phone, an http page reached from a search engine,
//! every media query matching). A state whose commands differ between the
//! two worlds (or that only one world reaches) is not one command: an input
//! error at the component naming the sources read. A file that read none is
//! explored once.

use super::{Bundle, Error, Exploration, Explore, Limits, Renderer, View};

/// How the second world differs, as messages say it.
pub const OTHER_WORLD: &str = "another date and time, the mirrored random sequence, a phone's window and navigator, an http page reached from a search engine, with cookies, every media query matching";

/// The most sources a message names.
const NAMED: usize = 8;

/// Checks each explored target of `bundle` against the same exploration in
/// the second world, when `reads` (the sources the first world read) is not
/// empty: a target whose states differ becomes its error.
pub fn check_explorations(
    bundle: &Bundle,
    limits: Limits,
    opts: &Explore,
    reads: &[String],
    all: &mut [Result<Exploration, Error>],
) {
    if reads.is_empty() || all.iter().all(Result::is_err) {
        return;
    }
    let quiet = Explore {
        progress: false,
        ..*opts
    };
    let other = Renderer::in_world(bundle, limits, 1);
    for (t, found) in all.iter_mut().enumerate() {
        let Ok(ours) = found else { continue };
        let theirs = match &other {
            Ok(r) => r.explore_with(t, &quiet, &mut |_| {}),
            Err(e) => Err(e.clone()),
        };
        let why = match theirs {
            Ok(theirs) => differs(
                &ours.views,
                &theirs.views,
                ours.cut.or(theirs.cut).is_some(),
            ),
            Err(e) => Some(format!("it fails there: {}", message_of(&e))),
        };
        if let Some(why) = why {
            *found = Err(error(bundle, t, reads, &why));
        }
    }
}

/// Checks the selected views of `bundle` (one per target, as
/// [`Renderer::select_some`] made them with `select`) against the same
/// selection in the second world, when `reads` is not empty.
pub fn check_selected(
    bundle: &Bundle,
    limits: Limits,
    reads: &[String],
    select: &[(String, String)],
    lenient: bool,
    views: &[View],
) -> Result<(), Error> {
    if reads.is_empty() {
        return Ok(());
    }
    let other = Renderer::in_world(bundle, limits, 1).map_err(|e| {
        error(
            bundle,
            0,
            reads,
            &format!("it fails there: {}", message_of(&e)),
        )
    })?;
    for view in views {
        let t = view.target;
        let why = match other.select_some(t, select, lenient) {
            Ok((theirs, _, _)) => differs(std::slice::from_ref(view), &[theirs], false),
            Err(e) => Some(format!("it fails there: {}", message_of(&e))),
        };
        if let Some(why) = why {
            return Err(error(bundle, t, reads, &why));
        }
    }
    Ok(())
}

/// The first difference between the states of the two worlds (matched by
/// their selection and the buttons clicked): a state only one reaches, or
/// one whose commands differ. `partial`: an exploration was cut, so only the
/// states both reached are compared.
fn differs(ours: &[View], theirs: &[View], partial: bool) -> Option<String> {
    let find = |views: &[View], label: &str| -> Option<usize> {
        views.iter().position(|v| v.selection_label() == label)
    };
    for v in ours {
        let label = v.selection_label();
        match find(theirs, &label) {
            None if !partial => {
                return Some(format!("{} is not reachable there", state_name(&label)));
            }
            None => {}
            Some(i) => {
                if let Some(d) = command_difference(&v.commands, &theirs[i].commands) {
                    return Some(format!("{} prints {d}", state_name(&label)));
                }
                if v.copied != theirs[i].copied {
                    return Some(format!(
                        "{} copies another text when a button is clicked",
                        state_name(&label)
                    ));
                }
            }
        }
    }
    if !partial
        && let Some(w) = theirs
            .iter()
            .find(|w| find(ours, &w.selection_label()).is_none())
    {
        return Some(format!(
            "{} is reachable only there",
            state_name(&w.selection_label())
        ));
    }
    None
}

/// `the initial state` or `the state \`k=v\``.
fn state_name(label: &str) -> String {
    if label.is_empty() {
        "the initial state".to_string()
    } else {
        format!("the state `{label}`")
    }
}

/// How two states' commands differ, by their first differing word
/// (masked as printed commands are): `` `--tp 8` where this browser prints
/// `--tp 4` ``; `None` when they are the same.
fn command_difference(ours: &[String], theirs: &[String]) -> Option<String> {
    // What a reader runs, not how it is laid out: a phone's window may show
    // the plain command where a desktop shows a diff against a base, or
    // break its lines elsewhere.
    let run = |cs: &[String]| -> Vec<String> {
        cs.iter()
            .map(|c| crate::extract::shell_text::as_run(c))
            .collect()
    };
    let (ours, theirs) = (&run(ours)[..], &run(theirs)[..]);
    if ours == theirs {
        return None;
    }
    if ours.len() != theirs.len() {
        return Some(format!(
            "{} command(s) there where this browser prints {}",
            theirs.len(),
            ours.len()
        ));
    }
    let (a, b) = ours.iter().zip(theirs).find(|(a, b)| a != b)?;
    let (a, b) = (
        crate::secret::mask_command(a),
        crate::secret::mask_command(b),
    );
    let wa: Vec<&str> = a.split_whitespace().collect();
    let wb: Vec<&str> = b.split_whitespace().collect();
    let at = wa
        .iter()
        .zip(&wb)
        .position(|(x, y)| x != y)
        .unwrap_or(wa.len().min(wb.len()));
    let around = |w: &[&str]| -> String {
        let from = at.saturating_sub(1);
        let s = w[from.min(w.len())..(at + 1).min(w.len())].join(" ");
        let s: String = s.chars().take(120).collect();
        if s.is_empty() {
            "nothing more".into()
        } else {
            format!("`{s}`")
        }
    };
    Some(format!(
        "{} there where this browser prints {}",
        around(&wb),
        around(&wa)
    ))
}

/// The message of an error, without its position (it is the same file).
fn message_of(e: &Error) -> String {
    match e {
        Error::Input { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// The error at target `t`.
fn error(bundle: &Bundle, t: usize, reads: &[String], why: &str) -> Error {
    let mut named: Vec<&str> = reads.iter().take(NAMED).map(String::as_str).collect();
    let more = reads.len().saturating_sub(NAMED);
    let mut sources = named.join(", ");
    if more > 0 {
        sources.push_str(&format!(" and {more} more"));
    }
    named.clear();
    let (span, name) = match bundle.targets.get(t) {
        Some(target) => (target.at.clone(), format!("<{} />", target.name)),
        None => (
            crate::span::Span::of_path(&bundle.file),
            "the generator".to_string(),
        ),
    };
    Error::Input {
        span,
        message: format!(
            "{name} prints a command that depends on the reader's browser: it reads {sources}, and in another browser ({OTHER_WORLD}) {why}; a command every reader copies must not depend on them"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::command_difference;

    /// A command laid out another way (a diff against a base on a desktop,
    /// the plain command on a phone; lines broken elsewhere) is the same
    /// command; another word is a difference.
    #[test]
    fn layouts_of_one_command_are_the_same_command() {
        let plain = vec!["sglang serve \\\n  --tp 8 \\\n  --moe-runner-backend x".to_string()];
        let diff = vec![
            "  sglang serve \\\n+   --tp 8 \\\n-   --tp 4 \\\n+   --moe-runner-backend x"
                .to_string(),
        ];
        let one_line = vec!["sglang serve --tp 8 --moe-runner-backend x".to_string()];
        assert_eq!(command_difference(&plain, &diff), None);
        assert_eq!(command_difference(&plain, &one_line), None);
        let other = vec!["sglang serve --tp 4 --moe-runner-backend x".to_string()];
        assert_eq!(
            command_difference(&plain, &other).as_deref(),
            Some("`--tp 4` there where this browser prints `--tp 8`")
        );
    }
}
