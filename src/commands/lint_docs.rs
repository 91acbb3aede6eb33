//! `recipe-drift lint-docs FILE...`: the generator lint, file by file.

use super::Output;
use crate::cli::LintDocsArgs;
use crate::error::Error;
use crate::extract::{self, Input};
use crate::files::{LocalFiles, Location};
use crate::lint::{self, LintOptions};
use crate::manifest::SideSpec;
use crate::report::lint::Failed;

/// Lints each file; exit 1 when any finding is reported, 2 when a file could
/// not be linted (the others still are, and are reported).
pub(super) fn run(args: LintDocsArgs) -> Result<Output, Error> {
    let LintDocsArgs {
        files,
        docs_root,
        max_states,
        cache_dir,
        context,
        format,
    } = args;
    super::explored_graph_cache(cache_dir);
    let resolve = crate::link::options(&super::overrides(&context), &SideSpec::default())?;
    let max_states = usize::try_from(max_states).unwrap_or(usize::MAX);
    let opts = LintOptions {
        docs_root,
        // Linting explores every state, as `check` does: the same budget.
        limits: extract::jsx::Limits {
            states: max_states,
            ..extract::jsx::Limits::default()
        }
        .exploring(extract::jsx::DEFAULT_TIME_LIMIT),
        max_states,
        resolve,
    };
    let mut linted = Vec::new();
    let mut failed = Vec::new();
    for file in &files {
        match lint_one(file, &opts) {
            Ok(l) => linted.push(l),
            Err(error) => failed.push(Failed {
                file: crate::span::path_label(file),
                error,
            }),
        }
    }
    // As `check` does: GitHub output also appends the Markdown summary to
    // the job summary.
    if format == crate::report::ReportFormat::Github
        && let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
    {
        let summary = crate::secret::sanitize(&crate::report::lint::render(
            &linted,
            &failed,
            crate::report::ReportFormat::Markdown,
        ));
        let path = std::path::Path::new(&path);
        super::append(path, &summary).map_err(|e| {
            Error::usage(format!(
                "cannot append the job summary to {} ($GITHUB_STEP_SUMMARY): {e}",
                path.display()
            ))
        })?;
    }
    let findings = linted.iter().any(|f| !f.findings.is_empty());
    Ok(Output {
        code: if !failed.is_empty() {
            2
        } else {
            u8::from(findings)
        },
        stdout: crate::report::lint::render(&linted, &failed, format),
        for_people: matches!(
            format,
            crate::report::ReportFormat::Human | crate::report::ReportFormat::Concise
        ),
        report: None,
    })
}

/// Lints one file: a local generator or a page that renders generators.
fn lint_one(file: &std::path::Path, opts: &LintOptions) -> Result<lint::FileLint, Error> {
    let at = crate::link::location_of(file)?;
    if let Location::Remote(_) = at {
        return Err(Error::usage(format!(
            "{}: lint-docs renders generators with the files beside them; give a local checkout's path",
            file.display()
        )));
    }
    let input = Input::new(at, &LocalFiles);
    // A file that cannot be read is reported as such, whatever its kind.
    input.source()?;
    let kind = extract::extractor_for(&input).name();
    if !matches!(kind, "generator" | "generator-page") {
        return Err(Error::usage(format!(
            "{}: lint-docs reads local generators (.jsx) and pages that render them (.mdx), not a {kind} file",
            file.display()
        )));
    }
    lint::lint_file(file, opts)
}
