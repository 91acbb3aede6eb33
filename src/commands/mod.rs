//! The commands: one small file per command. Each turns its parsed arguments
//! into an [`Output`] (text and exit code) by calling the pipeline (extract ->
//! resolve -> compare, in `crate::link`) and a renderer in `crate::report`.

mod check;
mod compare;
mod discover;
mod explain;
mod extract;
mod resolve;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command, FilesArgs, RemoteArgs};
use crate::error::Error;
use crate::fetch::{FetchOptions, Fetcher};
use crate::link::{LinkReport, Status};
use crate::policy::Policy;
use crate::report::{self, ReportFormat};

/// What a command prints and its exit code (0 or 1).
pub struct Output {
    /// Exit code: 0 no MAJOR drift, 1 MAJOR drift.
    pub code: u8,
    /// Text for standard output.
    pub stdout: String,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<Output, Error> {
    let mut budget = crate::extract::bash::configured_budget();
    for setting in &cli.bash_budget {
        budget = budget.with(setting).map_err(Error::usage)?;
    }
    crate::extract::bash::configure_budget(budget);
    crate::extract::jsx::configure_time_limits(
        std::time::Duration::from_millis(cli.js.js_time_limit),
        // Zero: not given (the built-in budget, see `jsx::total_time_configured`).
        std::time::Duration::from_millis(cli.js.js_total_time_limit.unwrap_or(0)),
    );
    crate::extract::configure_launch_budget(
        usize::try_from(cli.launches.max_launches).unwrap_or(usize::MAX),
        usize::try_from(cli.launches.max_launch_words).unwrap_or(usize::MAX),
    );
    // The token sent to GitHub is a secret of the run, whatever echoes it.
    if let Ok(token) = std::env::var("GITHUB_TOKEN") {
        crate::secret::note(&token);
    }
    let files = cli.files;
    // Every local read of the run stays inside the roots set here: the
    // repositories of what the user named (a config sets its own, in `check`).
    let named: Vec<PathBuf> = match &cli.command {
        Command::Compare(a) => [Some(&a.docs), Some(&a.recipe), a.docs_root.as_ref()]
            .into_iter()
            .flatten()
            .cloned()
            .collect(),
        Command::Extract(a) => [a.file.as_ref(), a.inferencex.as_ref(), a.docs_root.as_ref()]
            .into_iter()
            .flatten()
            .cloned()
            .collect(),
        Command::Discover(a) => [Some(&a.root), a.docs_root.as_ref(), a.recipes_root.as_ref()]
            .into_iter()
            .flatten()
            .cloned()
            .collect(),
        // The JavaScript worker reads nothing but its standard input: no roots.
        Command::Check(_) | Command::JsWorker => Vec::new(),
        Command::Resolve(_) | Command::Explain(_) => vec![PathBuf::from(".")],
    };
    if !matches!(cli.command, Command::Check(_)) {
        confine(&files, &named)?;
    }
    match cli.command {
        Command::Compare(args) => compare::run(args),
        Command::Check(args) => check::run(args, &files),
        Command::Extract(args) => extract::run(args),
        Command::Resolve(args) => resolve::run(args),
        Command::Discover(args) => discover::run(args),
        Command::Explain(args) => explain::run(args),
        Command::JsWorker => Ok(Output {
            code: crate::extract::jsx::worker::serve(),
            stdout: String::new(),
        }),
    }
}

/// Confines the run's local reads: to `--root` when given, else to the
/// repository (git top level, else folder) of each local path the user named.
/// Remote references name no local root.
pub(crate) fn confine(files: &FilesArgs, named: &[PathBuf]) -> Result<(), Error> {
    let roots: Vec<PathBuf> = if files.root.is_empty() {
        named
            .iter()
            .filter(|p| crate::files::RemoteRef::parse(&p.to_string_lossy()).is_none())
            .map(|p| crate::files::repository_root(p))
            .collect()
    } else {
        files.root.clone()
    };
    crate::files::confine(&roots, files.max_file_bytes)
}

/// The fetcher for remote files: the hosts the user allowed (`--allow-host`,
/// trusted) and a config's `allow-hosts` (public DNS names only).
pub(crate) fn fetcher(args: &RemoteArgs, config_hosts: &[String]) -> Fetcher {
    Fetcher::new(fetch_options(args, config_hosts))
}

fn fetch_options(args: &RemoteArgs, config_hosts: &[String]) -> FetchOptions {
    FetchOptions {
        cache_dir: args.cache_dir.clone(),
        offline: args.offline,
        allow_hosts: args.allow_hosts.clone(),
        config_hosts: config_hosts.to_vec(),
        ..FetchOptions::default()
    }
}

/// `RECIPE_DRIFT_NO_CHECKPOINT_FACTS` set (not empty, not `0`): the same as
/// `--no-checkpoint-facts` (the test suite sets it in `.cargo/config.toml`, so
/// no test reads the real Hub).
fn no_checkpoint_facts_env() -> bool {
    std::env::var_os("RECIPE_DRIFT_NO_CHECKPOINT_FACTS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The run's checkpoint facts: a config's `checkpoints:` (from `config`), then
/// local model folders and the Hub unless `--no-checkpoint-facts`.
pub(crate) fn checkpoints(
    args: &RemoteArgs,
    config_hosts: &[String],
    by_hand: &[crate::checkpoint::CheckpointSpec],
    config: Option<&Path>,
) -> Result<std::sync::Arc<dyn crate::resolved::FactSource>, Error> {
    let src = crate::checkpoint::Checkpoints::new(crate::checkpoint::Lookup {
        by_hand: by_hand.to_vec(),
        config: config.map(|p| p.display().to_string()),
        hub: !(args.no_checkpoint_facts || no_checkpoint_facts_env()),
        fetch: Some(fetch_options(args, config_hosts)),
        max: args.max_checkpoints,
    })?;
    Ok(src)
}

/// Renders the reports; with `--format github` and `$GITHUB_STEP_SUMMARY` set,
/// also appends the Markdown summary to that file (exit 2 if it cannot).
pub(crate) fn emit(
    reports: &[LinkReport],
    failures: &[report::Failure],
    skipped: &[report::Skipped],
    waivers: &[crate::waiver::Outcome],
    format: ReportFormat,
    policy: &Policy,
) -> Result<Output, Error> {
    let text = report::render(format, reports, failures, skipped, waivers, policy);
    if format == ReportFormat::Github
        && let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
    {
        let summary = crate::secret::sanitize(&report::markdown::render(
            reports, failures, skipped, waivers, policy,
        ));
        append(Path::new(&path), &summary).map_err(|e| {
            Error::usage(format!(
                "cannot append the job summary to {} ($GITHUB_STEP_SUMMARY): {e}",
                Path::new(&path).display()
            ))
        })?;
    }
    let drift = reports.iter().any(|l| l.status() == Status::Drift);
    Ok(Output {
        code: if drift { 1 } else { 0 },
        stdout: text,
    })
}

/// Appends `text` to a file, creating it if needed; a blank line separates it from
/// what the file already holds.
fn append(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let sep = if f.metadata()?.len() > 0 { "\n" } else { "" };
    f.write_all(format!("{sep}{text}").as_bytes())?;
    f.flush()
}

/// The context flags as the link layer takes them.
pub(crate) fn overrides(ctx: &crate::cli::ContextArgs) -> crate::link::Overrides {
    crate::link::Overrides {
        engine_version: ctx.engine_version.clone(),
        hardware: ctx.hardware.clone(),
        platform: ctx.platform.clone(),
        origin: None,
        checkpoints: None,
    }
}

/// Parses `K=V` flags.
pub fn parse_kv(items: &[String]) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    for it in items {
        match it.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                out.insert(k.to_string(), v.to_string());
            }
            _ => return Err(Error::usage(format!("expected K=V, got {it:?}"))),
        }
    }
    Ok(out)
}
