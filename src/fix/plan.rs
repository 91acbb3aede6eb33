//! A run's fixes gathered per file: the edits a run applies (safe ones, and
//! unsafe ones with `--unsafe-fixes`), the same edit made by several findings
//! once, edits that disagree on one place left out with the reason; printed
//! as a unified diff (`check --diff`) or written (`check --fix`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Error;
use crate::finding::{Applicability, Fix};
use crate::span::Origin;

/// The fixes of a run, per file, ready to be shown or written.
#[derive(Debug, Default)]
pub struct Plan {
    /// Each file (by its canonical path, so two spellings of one file are
    /// one): its text as it was read, and its edits by byte range.
    files: BTreeMap<PathBuf, FileEdits>,
    /// Fixes left unapplied because they need `--unsafe-fixes`.
    pub unsafe_left: usize,
    /// Fixes that cannot be made, each with its place and reason.
    pub not_fixable: usize,
    /// Places where findings ask for different replacements: not changed.
    pub conflicts: Vec<String>,
}

#[derive(Debug)]
struct FileEdits {
    /// The path as the inputs name it (the diff's and messages' name).
    shown: PathBuf,
    text: Arc<str>,
    /// (start, end) -> the replacements asked for there.
    edits: BTreeMap<(usize, usize), Vec<String>>,
}

impl Plan {
    /// Gathers `fixes`: each that applies (`unsafe_fixes` also takes the
    /// unsafe ones) adds its edits; the others are counted.
    pub fn new<'a>(fixes: impl IntoIterator<Item = &'a Fix>, unsafe_fixes: bool) -> Plan {
        let fixes: Vec<&Fix> = fixes.into_iter().collect();
        let mut plan = Plan::default();
        for &fix in &fixes {
            if !fix.applies(unsafe_fixes) && !drifts_alike(fix, &fixes) {
                match fix.applicability {
                    Applicability::Unsafe { .. } => plan.unsafe_left += 1,
                    _ => plan.not_fixable += 1,
                }
                continue;
            }
            for e in &fix.edits {
                let Origin::File(path) = e.span.origin() else {
                    continue;
                };
                let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                let file = plan.files.entry(key).or_insert_with(|| FileEdits {
                    shown: path.clone(),
                    text: Arc::from(e.span.source().text()),
                    edits: BTreeMap::new(),
                });
                let asked = file.edits.entry((e.span.start, e.span.end)).or_default();
                if !asked.contains(&e.replacement) {
                    asked.push(e.replacement.clone());
                }
            }
        }
        plan.drop_conflicts();
        plan
    }

    /// Leaves out the places asked for two different replacements, and
    /// edits that overlap an earlier one, each with the reason.
    fn drop_conflicts(&mut self) {
        for file in self.files.values_mut() {
            let mut end = 0;
            let text = file.text.clone();
            let path = file.shown.clone();
            file.edits.retain(|&(s, e), asked| {
                let at = format!("{}:{}", path.display(), line_of(&text, s));
                let keep = if asked.len() > 1 {
                    self.conflicts.push(format!(
                        "{at}: the findings here ask for different values ({}); not changed",
                        asked.join(", ")
                    ));
                    false
                } else if s < end {
                    self.conflicts
                        .push(format!("{at}: this edit overlaps another one; not changed"));
                    false
                } else {
                    true
                };
                if keep {
                    end = e;
                }
                keep
            });
        }
        self.files.retain(|_, f| !f.edits.is_empty());
    }

    /// How many edits the plan makes.
    pub fn edits(&self) -> usize {
        self.files.values().map(|f| f.edits.len()).sum()
    }

    /// How many files the plan changes.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// Each file's path, its text as read and its text fixed, in path order.
    fn changed(&self) -> impl Iterator<Item = (&PathBuf, &str, String)> {
        self.files.values().map(|f| {
            let mut out = String::with_capacity(f.text.len());
            let mut at = 0;
            for (&(s, e), asked) in &f.edits {
                out.push_str(&f.text[at..s]);
                out.push_str(&asked[0]);
                at = e;
            }
            out.push_str(&f.text[at..]);
            (&f.shown, &*f.text, out)
        })
    }

    /// The fixed texts as an overlay: each changed file's text with the
    /// plan's edits made, standing in for the file (nothing is written).
    pub fn overlay(&self) -> crate::extract::jsx::page::Overlay {
        crate::extract::jsx::page::Overlay(
            self.changed()
                .map(|(path, _, new)| {
                    let origin = Origin::File(path.clone());
                    (
                        path.clone(),
                        Arc::new(crate::span::Source::new(origin, new)),
                    )
                })
                .collect(),
        )
    }

    /// The plan as a unified diff (`--- a/PATH`, `+++ b/PATH`, three lines of
    /// context), files in path order; empty when it changes nothing.
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for (path, old, new) in self.changed() {
            let p = crate::span::path_label(path);
            let diff = similar::TextDiff::from_lines(old, &new);
            out.push_str(
                &diff
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{p}"), &format!("b/{p}"))
                    .to_string(),
            );
        }
        out
    }

    /// Writes every changed file. A file whose text changed since the run
    /// read it is not written (an error naming it): nothing is written over
    /// a change the run did not see.
    pub fn write(&self) -> Result<(), Error> {
        let mut changed = Vec::new();
        for (path, old, new) in self.changed() {
            let now = std::fs::read_to_string(path).map_err(|e| {
                Error::usage(format!("{}: cannot read it to fix it: {e}", path.display()))
            })?;
            if now != old {
                return Err(Error::usage(format!(
                    "{}: changed since the run read it; nothing was fixed",
                    path.display()
                )));
            }
            changed.push((path, new));
        }
        for (path, new) in changed {
            std::fs::write(path, new).map_err(|e| {
                Error::usage(format!("{}: cannot write the fix: {e}", path.display()))
            })?;
        }
        Ok(())
    }

    /// One line on what the plan does and leaves (`fixed 2 findings in 1
    /// file; 1 more fix needs --unsafe-fixes`), `verb` saying what is done
    /// with the edits (`fixed`, `would fix`); the conflicts on lines of their own.
    pub fn summary(&self, verb: &str) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut line = format!(
            "{verb} {} in {}",
            plural(self.edits(), "value", "values"),
            plural(self.files(), "file", "files")
        );
        if self.unsafe_left > 0 {
            line.push_str(&format!(
                "; {} --unsafe-fixes",
                plural(self.unsafe_left, "fix needs", "fixes need")
            ));
        }
        if self.not_fixable > 0 {
            line.push_str(&format!(
                "; {} not fixable automatically (the report says why)",
                plural(self.not_fixable, "finding is", "findings are")
            ));
        }
        line.push('\n');
        for c in &self.conflicts {
            line.push_str(c);
            line.push('\n');
        }
        line
    }
}

/// Whether every other state a generator literal's fix changes
/// ([`Fix::shared`]) has a finding with this same fix: they all drift the
/// same way, so the edit changes only drifting values (safe).
fn drifts_alike(fix: &Fix, all: &[&Fix]) -> bool {
    let Some(shared) = &fix.shared else {
        return false;
    };
    let same = |other: &Fix| other.edits == fix.edits;
    !fix.edits.is_empty()
        && shared.others.iter().all(|state| {
            all.iter()
                .any(|o| same(o) && o.shared.as_ref().is_some_and(|s| s.own == *state))
        })
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
