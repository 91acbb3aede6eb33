//! `lint-docs` findings in every report format: human, JSON, SARIF, GitHub
//! workflow commands and Markdown. Ids, names and severities come from
//! `findings.yaml`, as for `check`.

use serde_json::{Value, json};

use super::{ReportFormat, v};
use crate::error::Error;
use crate::finding::kinds;
use crate::lint::FileLint;

/// A file that could not be linted (bad input), with the error.
#[derive(Debug, Clone)]
pub struct Failed {
    /// The file as named.
    pub file: String,
    /// Why: its span places it.
    pub error: Error,
}

/// Renders the lint of some files, and the files that could not be linted,
/// in `format`.
pub fn render(files: &[FileLint], failed: &[Failed], format: ReportFormat) -> String {
    match format {
        ReportFormat::Human => human(files, failed),
        ReportFormat::Json => json_report(files, failed),
        ReportFormat::Sarif => sarif(files, failed),
        ReportFormat::Github => github(files, failed),
        ReportFormat::Markdown => markdown(files, failed),
        ReportFormat::Concise => concise(files, failed),
    }
}

/// `error: file:line:col: cause`.
fn failed_text(f: &Failed) -> String {
    format!("error: {}", v(&f.error.to_string()))
}

/// One line per finding (`file:line:col: error[RD008 no-command] ...`), the
/// files that could not be linted, and the summary line of [`human`].
fn concise(files: &[FileLint], failed: &[Failed]) -> String {
    let mut out = String::new();
    for f in failed {
        out.push_str(&failed_text(f));
        out.push('\n');
    }
    for f in files.iter().flat_map(|f| &f.findings) {
        out.push_str(&super::concise::finding(f));
    }
    let full = human(files, failed);
    if let Some(summary) = full.lines().last() {
        out.push_str(summary);
        out.push('\n');
    }
    out
}

fn human(files: &[FileLint], failed: &[Failed]) -> String {
    let mut out = String::new();
    let mut total = 0;
    for f in failed {
        out.push_str(&failed_text(f));
        out.push('\n');
    }
    for file in files {
        for f in &file.findings {
            total += 1;
            out.push_str(&super::human::finding(f, ""));
        }
    }
    if !failed.is_empty() {
        out.push('\n');
    }
    let mut notes: Vec<String> = Vec::new();
    for n in files.iter().flat_map(|f| &f.not_checked) {
        let id = crate::finding::kind_info(n.kind)
            .map(|k| k.id.as_str())
            .unwrap_or("");
        let line = format!("note[{id} {}]: not checked: it needs {}", n.kind, n.why);
        if !notes.contains(&line) {
            notes.push(line);
        }
    }
    for n in &notes {
        out.push_str(n);
        out.push('\n');
    }
    let generators: usize = files.iter().map(|f| f.generators.len()).sum();
    let states: usize = files.iter().flat_map(|f| &f.generators).map(|g| g.2).sum();
    let not_linted = if failed.is_empty() {
        String::new()
    } else {
        format!(
            "; {} file{} not linted",
            failed.len(),
            if failed.len() == 1 { "" } else { "s" }
        )
    };
    out.push_str(&format!(
        "{} in {} file{} ({generators} generator{}, {states} state{} checked){not_linted}\n",
        match total {
            0 => "no findings".to_string(),
            1 => "1 finding".to_string(),
            n => format!("{n} findings"),
        },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if generators == 1 { "" } else { "s" },
        if states == 1 { "" } else { "s" },
    ));
    out
}

fn json_report(files: &[FileLint], failed: &[Failed]) -> String {
    let errors: Vec<Value> = failed
        .iter()
        .map(|f| {
            let at = f.error.span();
            json!({
                "file": f.file,
                "error": f.error.to_string(),
                "line": at.map(|s| s.pos.line),
                "col": at.map(|s| s.pos.col),
            })
        })
        .collect();
    let files: Vec<Value> = files
        .iter()
        .map(|file| {
            json!({
                "file": file.file,
                "generators": file.generators.iter().map(|(name, at, states)| json!({
                    "name": name,
                    "file": &*at.file,
                    "line": at.pos.line,
                    "col": at.pos.col,
                    "states": states,
                })).collect::<Vec<_>>(),
                "findings": file.findings.iter().map(super::json::finding).collect::<Vec<_>>(),
                "not_checked": file.not_checked.iter().map(|n| json!({
                    "kind": n.kind,
                    "id": crate::finding::kind_info(n.kind).map(|k| k.id.as_str()),
                    "why": n.why,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut doc =
        json!({"schema_version": 1, "command": "lint-docs", "files": files, "errors": errors});
    super::mask_json(&mut doc);
    let mut s = serde_json::to_string_pretty(&doc).expect("plain JSON");
    s.push('\n');
    s
}

fn sarif(files: &[FileLint], failed: &[Failed]) -> String {
    // Every row: `lint-docs` reports startup errors and no-effect settings of
    // the generated commands beside its own kinds.
    let mut log = super::sarif::Log::new(kinds());
    for f in files.iter().flat_map(|f| &f.findings) {
        log.finding(f);
    }
    for f in failed {
        let at = super::error_place(&f.error).map(|(p, _)| p);
        log.notification(
            "error",
            "input-error",
            format!("{} could not be linted: {}", f.file, f.error),
            at.as_ref(),
        );
    }
    let mut out = super::sink::Sink::text();
    log.finish(failed.is_empty(), std::iter::empty(), &mut out);
    out.into_text()
}

fn github(files: &[FileLint], failed: &[Failed]) -> String {
    let mut out = String::new();
    for f in failed {
        let place = super::error_place(&f.error).map(|(p, _)| p);
        out.push_str(&super::github::annotation(
            "error",
            place.as_ref(),
            "recipe-drift lint-docs: input error",
            &format!(
                "{} could not be linted: {}",
                v(&f.file),
                v(&f.error.to_string())
            ),
        ));
    }
    for f in files.iter().flat_map(|f| &f.findings) {
        out.push_str(&super::github::finding(f));
    }
    out
}

fn markdown(files: &[FileLint], failed: &[Failed]) -> String {
    use super::markdown::text;
    let total: usize = files.iter().map(|f| f.findings.len()).sum();
    let mut out = String::from("## recipe-drift lint-docs\n\n");
    for f in failed {
        out.push_str(&format!(
            "- **could not be linted**: {}\n",
            text(&v(&f.error.to_string()))
        ));
    }
    if !failed.is_empty() {
        out.push('\n');
    }
    if total == 0 {
        out.push_str("No findings.\n");
    } else {
        for f in files.iter().flat_map(|f| &f.findings) {
            out.push_str(&super::markdown::finding(f));
        }
    }
    let mut not_checked: Vec<String> = Vec::new();
    for n in files.iter().flat_map(|f| &f.not_checked) {
        let s = format!("`{}` (needs {})", n.kind, text(&n.why));
        if !not_checked.contains(&s) {
            not_checked.push(s);
        }
    }
    if !not_checked.is_empty() {
        out.push_str(&format!("\nNot checked: {}.\n", not_checked.join(", ")));
    }
    out
}
