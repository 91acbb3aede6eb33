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
    // The first world afresh, for replaying a state only the second reached.
    let mut first: Option<Result<Renderer, Error>> = None;
    for (t, found) in all.iter_mut().enumerate() {
        let Ok(ours) = found else { continue };
        let theirs = match &other {
            Ok(r) => r.explore_with(t, &quiet, &mut |_| {}),
            Err(e) => Err(e.clone()),
        };
        let why = match (theirs, &other) {
            (Ok(theirs), Ok(other)) => {
                let mut replays = 0usize;
                let mut replay = |world: usize, path: &[(usize, String)]| {
                    replays += 1;
                    if replays > MAX_REPLAYS {
                        return Err(format!(
                            "more than {MAX_REPLAYS} of its states are reached by other clicks there"
                        ));
                    }
                    let r = if world == 1 {
                        other
                    } else {
                        match first.get_or_insert_with(|| Renderer::in_world(bundle, limits, 0)) {
                            Ok(r) => r,
                            Err(e) => return Err(format!("it fails here: {}", message_of(e))),
                        }
                    };
                    r.replay(t, path)
                        .map_err(|e| format!("it fails there: {}", message_of(&e)))
                };
                differs(
                    &ours.views,
                    &theirs.views,
                    ours.cut.or(theirs.cut).is_some(),
                    &mut replay,
                )
            }
            (Err(e), _) => Some(format!("it fails there: {}", message_of(&e))),
            (Ok(_), Err(e)) => Some(format!("it fails there: {}", message_of(e))),
        };
        if let Some(why) = why {
            *found = Err(error(bundle, t, reads, &why));
        }
    }
}

/// The most states of one target replayed in the other browser (states the
/// two explorations reached by different clicks, or with different commands).
const MAX_REPLAYS: usize = 256;

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
            Ok((theirs, _, _)) => command_difference(&view.commands, &theirs.commands)
                .map(|d| format!("{} prints {d}", state_name(&view.selection_label())))
                .or_else(|| {
                    (view.copied != theirs.copied).then(|| {
                        format!(
                            "{} copies another text when a button is clicked",
                            state_name(&view.selection_label())
                        )
                    })
                }),
            Err(e) => Some(format!("it fails there: {}", message_of(&e))),
        };
        if let Some(why) = why {
            return Err(error(bundle, t, reads, &why));
        }
    }
    Ok(())
}

/// The first difference between the states of the two worlds. A state of
/// one world is the same state in the other when the other has a state
/// with its commands reached by the same clicks (its path), or shown with
/// the same selection and buttons clicked (its label), or when the same
/// clicks replayed there give its commands (`replay(world, path)`: the
/// commands, `None` when a control on the path is not there). Neither
/// labels nor paths alone name a state across browsers: two controls may
/// share a label, and a layout (a phone's) may order the controls another
/// way. A state with none of these, or whose match prints another command,
/// is the difference. `partial`: an exploration was cut, so a state one
/// world did not reach is no difference.
fn differs(ours: &[View], theirs: &[View], partial: bool, replay: &mut Replay) -> Option<String> {
    let (ours_at, theirs_at) = (Index::of(ours), Index::of(theirs));
    // The first difference of `v` (of world `mine`) from the views `there`
    // of the other world, indexed by `at`.
    let mut first_difference =
        |v: &View, mine: usize, there: &[View], at: &Index| -> Option<String> {
            let label = v.selection_label();
            let same = |cmds: &[String]| command_difference(&v.commands, cmds).is_none();
            let by_path = at.by_path.get(v.path.as_slice()).map(|&i| &there[i]);
            if let Some(w) = by_path.filter(|w| same(&w.commands)) {
                if v.copied != w.copied {
                    return Some(format!(
                        "{} copies another text when a button is clicked",
                        state_name(&label)
                    ));
                }
                return None;
            }
            let labelled: Vec<&View> = at
                .by_label
                .get(&label)
                .into_iter()
                .flatten()
                .map(|&i| &there[i])
                .collect();
            if labelled.iter().any(|w| same(&w.commands)) {
                return None;
            }
            let replayed = match replay(1 - mine, &v.path) {
                Err(e) => return Some(e),
                Ok(r) => r,
            };
            let other = match &replayed {
                Some(cmds) if same(cmds) => return None,
                Some(cmds) => Some(cmds.as_slice()),
                None => by_path
                    .or(labelled.first().copied())
                    .map(|w| w.commands.as_slice()),
            };
            match other {
                Some(cmds) => {
                    let d = if mine == 0 {
                        command_difference(&v.commands, cmds)
                    } else {
                        command_difference(cmds, &v.commands)
                    };
                    d.map(|d| format!("{} prints {d}", state_name(&label)))
                }
                None if partial => None,
                None if mine == 0 => Some(format!("{} is not reachable there", state_name(&label))),
                None => Some(format!("{} is reachable only there", state_name(&label))),
            }
        };
    for v in ours {
        if let Some(d) = first_difference(v, 0, theirs, &theirs_at) {
            return Some(d);
        }
    }
    if partial {
        return None;
    }
    theirs
        .iter()
        .filter(|w| !ours_at.by_path.contains_key(w.path.as_slice()))
        .find_map(|w| first_difference(w, 1, ours, &ours_at))
}

/// Replays a path in a world (0 or 1): the commands of the state it
/// reaches, `None` when a control on it is not there, or why it could not.
type Replay<'a> = dyn FnMut(usize, &[(usize, String)]) -> Result<Option<Vec<String>>, String> + 'a;

/// The states of one world by their path and by their label.
struct Index<'v> {
    by_path: std::collections::HashMap<&'v [(usize, String)], usize>,
    by_label: std::collections::HashMap<String, Vec<usize>>,
}

impl<'v> Index<'v> {
    fn of(views: &'v [View]) -> Self {
        let mut at = Index {
            by_path: Default::default(),
            by_label: Default::default(),
        };
        for (i, v) in views.iter().enumerate() {
            at.by_path.insert(v.path.as_slice(), i);
            at.by_label.entry(v.selection_label()).or_default().push(i);
        }
        at
    }
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
