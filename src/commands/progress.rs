//! Progress of long runs on stderr (`indicatif`): shown only when asked for
//! by nobody's `--no-progress`, when stderr is a terminal, and never under CI,
//! so logs and captured output never hold it.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Environment variables whose presence (non-empty) means a CI run.
const CI_VARS: &[&str] = &["CI", "GITHUB_ACTIONS"];

/// Set by a command given `--no-progress` (`check`, `extract`): no progress
/// at all in this run, remote fetches included.
static SUPPRESSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records this run's `--no-progress`.
pub(super) fn suppress(no_progress: bool) {
    if no_progress {
        SUPPRESSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether `--no-progress` was given in this run.
pub(super) fn suppressed() -> bool {
    SUPPRESSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether a run may show progress: not `--no-progress`, stderr a terminal,
/// not under CI.
pub(super) fn wanted(no_progress: bool) -> bool {
    let ci = CI_VARS
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    decide(no_progress, std::io::stderr().is_terminal(), ci)
}

fn decide(no_progress: bool, stderr_is_terminal: bool, ci: bool) -> bool {
    !no_progress && stderr_is_terminal && !ci
}

/// A bar over `total` links on stderr (`checking 3/10 links: NAME`), or
/// `None` when progress is not wanted. It is cleared when dropped or done.
pub(super) struct Links(Option<ProgressBar>);

impl Links {
    /// Starts the bar when `show`.
    pub(super) fn new(total: usize, show: bool) -> Links {
        Links(show.then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("checking {pos}/{len} links: {wide_msg} [{elapsed}]")
            {
                bar.set_style(style);
            }
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            bar
        }))
    }

    /// The link now being run.
    pub(super) fn start(&self, name: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(crate::secret::value(name));
        }
    }

    /// One link done.
    pub(super) fn done(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }
}

impl Drop for Links {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::decide;

    #[test]
    fn progress_only_on_a_terminal_outside_ci_unless_disabled() {
        // (--no-progress, stderr a terminal, CI) -> shown
        for (no_progress, tty, ci, shown) in [
            (false, true, false, true),
            (true, true, false, false),
            (false, false, false, false),
            (false, true, true, false),
            (true, false, true, false),
        ] {
            assert_eq!(
                decide(no_progress, tty, ci),
                shown,
                "{no_progress} {tty} {ci}"
            );
        }
    }
}
