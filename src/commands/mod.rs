//! The commands: one small file per command. Each turns its parsed arguments
//! into an [`Output`] (text and exit code) by calling the pipeline (extract ->
//! resolve -> compare, in `crate::link`) and a renderer in `crate::report`.

mod check;
mod compare;
mod completions;
mod discover;
mod explain;
mod extract;
mod lint_docs;
mod lock;
mod pairing;
mod progress;
mod resolve;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command, FilesArgs, RemoteArgs};
use crate::engine;
use crate::error::Error;
use crate::fetch::{FetchOptions, Fetcher};
use crate::link::LinkReport;
use crate::policy::Policy;
use crate::report::{self, ReportFormat};

/// What a command prints and its exit code (0 or 1).
#[derive(Default)]
pub struct Output {
    /// Exit code: 0 no MAJOR drift, 1 MAJOR drift.
    pub code: u8,
    /// Text for standard output.
    pub stdout: String,
    /// Whether the text is for people (human or concise), so `--color` may
    /// colour it.
    pub for_people: bool,
    /// A report printed after `stdout` (`check`, `compare`), assembled as
    /// it is printed.
    pub report: Option<report::Pending>,
}

impl Output {
    /// Writes the text and the report: through the one output filter
    /// (secrets masked, control characters escaped), then, when `color` and
    /// the text is for people, coloured on the report's own words only. It
    /// goes out in pieces of whole lines (the filter and the colours work
    /// line by line), so a large report is never held whole.
    pub fn print(&self, out: &mut dyn std::io::Write, color: bool) -> std::io::Result<()> {
        let mut sink = report::sink::Sink::stream(out, color && self.for_people);
        sink.push_str(&self.stdout);
        if let Some(r) = &self.report {
            r.write(&mut sink)?;
        }
        sink.finish()
    }
}

/// Sets the project root the run's file labels are relative to
/// (`span::path_label`): the repository of the config file (the nearest
/// folder at or above it holding `.git`, else its folder; one in `.github/`
/// belongs to the folder above, see `files::repository_root`), so labels
/// are the paths GitHub annotations and SARIF viewers place in the
/// repository; else the current folder.
pub(crate) fn set_project_root(config: Option<&Path>) {
    let root = config.map(crate::files::repository_root);
    crate::span::set_label_root(root.as_deref());
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
    // Labels are relative to the current folder until a command names its
    // config (`check`, `compare`, `lock`).
    set_project_root(None);
    // Every local read of the run stays inside the roots set here: the
    // repositories of what the user named (a config sets its own, in `check`).
    // The config `compare` reads (its repository is a root too).
    let compare_config = match &cli.command {
        Command::Compare(a) => crate::manifest::Manifest::locate(a.config.as_deref(), a.no_config)?,
        _ => None,
    };
    if compare_config.is_some() {
        set_project_root(compare_config.as_deref());
    }
    let named: Vec<PathBuf> = match &cli.command {
        Command::Compare(a) => [Some(&a.docs), Some(&a.recipe), a.docs_root.as_ref()]
            .into_iter()
            .flatten()
            .chain(compare_config.as_ref())
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
        Command::LintDocs(a) => a
            .files
            .iter()
            .chain(a.docs_root.as_ref())
            .cloned()
            .collect(),
        // The JavaScript worker reads nothing but its standard input: no roots.
        Command::Check(_)
        | Command::Lock(_)
        | Command::JsWorker
        | Command::ConfigSchema
        | Command::Completions(_)
        | Command::Man(_) => Vec::new(),
        Command::Resolve(_) | Command::Explain(_) => vec![PathBuf::from(".")],
    };
    if !matches!(cli.command, Command::Check(_) | Command::Lock(_)) {
        confine(&files, &named)?;
    }
    match cli.command {
        Command::Compare(args) => compare::run(args, compare_config.as_deref()),
        Command::Check(args) => check::run(args, &files),
        Command::Lock(args) => lock::run(args, &files),
        Command::Extract(args) => extract::run(args),
        Command::Resolve(args) => resolve::run(args),
        Command::Discover(args) => discover::run(args),
        Command::Explain(args) => explain::run(args),
        Command::ConfigSchema => Ok(Output {
            code: 0,
            stdout: crate::manifest::schema_json(),
            ..Output::default()
        }),
        Command::LintDocs(args) => lint_docs::run(args),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => completions::man(args),
        Command::JsWorker => Ok(Output {
            code: crate::extract::jsx::worker::serve(),
            stdout: String::new(),
            ..Output::default()
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
    // Explored generator states are kept in the same cache folder.
    explored_graph_cache(args.cache_dir.clone());
    Fetcher::new(fetch_options(args, config_hosts))
}

/// Keeps explored generator graphs in `dir`, else in the platform cache
/// folder (as fetched files are), for the rest of the run.
pub(crate) fn explored_graph_cache(dir: Option<std::path::PathBuf>) {
    crate::extract::jsx::set_cache_dir(
        dir.or_else(|| dirs::cache_dir().map(|d| d.join("recipe-drift"))),
    );
}

fn fetch_options(args: &RemoteArgs, config_hosts: &[String]) -> FetchOptions {
    FetchOptions {
        cache_dir: args.cache_dir.clone(),
        offline: args.offline,
        allow_hosts: args.allow_hosts.clone(),
        config_hosts: config_hosts.to_vec(),
        progress: progress::wanted(progress::suppressed()),
        ..FetchOptions::default()
    }
}

/// `RECIPE_DRIFT_NO_CHECKPOINT_FACTS` set (not empty, not `0`): the same as
/// `--no-checkpoint-facts` (the test suite sets it in `.cargo/config.toml`, so
/// no test reads the real Hub).
fn no_checkpoint_facts_env() -> bool {
    std::env::var_os("RECIPE_DRIFT_NO_CHECKPOINT_FACTS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The run's checkpoint facts: a config's `checkpoints:` (from `config`),
/// then the lock file beside the config, else in the current folder
/// (`recipe-drift lock`), then local
/// model folders and the Hub unless `--no-checkpoint-facts`. A lock file that
/// cannot be read is an input error at its position.
pub(crate) fn checkpoints(
    args: &RemoteArgs,
    config_hosts: &[String],
    by_hand: &[crate::checkpoint::CheckpointSpec],
    config: Option<&Path>,
) -> Result<std::sync::Arc<dyn crate::resolved::FactSource>, Error> {
    // `recipe-drift lock` records the run's source (and reads no lock).
    if let Some(recording) = lock::recording(args, config_hosts, by_hand, config)? {
        return Ok(recording);
    }
    // Beside the config, else (a run with no config, such as a zero-config
    // pairing) in the current folder, where `lock` writes it then.
    let locked = match config {
        Some(c) => crate::checkpoint::lock::Lock::read_beside(c)?,
        None => crate::checkpoint::lock::Lock::read_here()?,
    }
    .map(std::sync::Arc::new);
    let src: std::sync::Arc<dyn crate::resolved::FactSource> =
        fact_source(args, config_hosts, by_hand, config, locked)?;
    Ok(src)
}

/// The checkpoint fact source of [`checkpoints`] with the lock file given
/// (`None`: no lock, as `recipe-drift lock` itself reads the Hub afresh).
fn fact_source(
    args: &RemoteArgs,
    config_hosts: &[String],
    by_hand: &[crate::checkpoint::CheckpointSpec],
    config: Option<&Path>,
    locked: Option<std::sync::Arc<crate::checkpoint::lock::Lock>>,
) -> Result<std::sync::Arc<crate::checkpoint::Checkpoints>, Error> {
    crate::checkpoint::Checkpoints::new(crate::checkpoint::Lookup {
        by_hand: by_hand.to_vec(),
        config: config.map(|p| p.display().to_string()),
        hub: !(args.no_checkpoint_facts || no_checkpoint_facts_env()),
        fetch: Some(fetch_options(args, config_hosts)),
        max: args.max_checkpoints,
        locked,
    })
}

/// The `--fail-on` of a command, `--exit-zero` being `--fail-on never`.
pub(crate) fn fail_on(level: report::FailOn, exit_zero: bool) -> report::FailOn {
    if exit_zero {
        report::FailOn::Never
    } else {
        level
    }
}

/// How `check` and `compare` print: the format, what fails the run, and how
/// much beside the findings.
#[derive(Clone, Copy)]
pub(crate) struct Printing {
    /// The output format.
    pub format: ReportFormat,
    /// What fails the run (exit 1).
    pub fail_on: report::FailOn,
    /// `--quiet`, `--show-equivalent` or neither.
    pub chatter: report::Chatter,
}

impl Printing {
    /// From the flags: `--format`, `--fail-on`, `--exit-zero`, `--quiet`,
    /// `--show-equivalent`.
    pub(crate) fn new(
        format: ReportFormat,
        fail_on: report::FailOn,
        exit_zero: bool,
        quiet: bool,
        show_equivalent: bool,
    ) -> Printing {
        Printing {
            format,
            fail_on: self::fail_on(fail_on, exit_zero),
            chatter: match (quiet, show_equivalent) {
                (true, _) => report::Chatter::Quiet,
                (false, true) => report::Chatter::All,
                (false, false) => report::Chatter::Full,
            },
        }
    }

    /// The writer of a run's report under this policy; with `--format github`
    /// and `$GITHUB_STEP_SUMMARY` set, it writes the Markdown summary too.
    pub(crate) fn writer<'a>(&self, policy: &'a Policy) -> report::Writer<'a> {
        report::Writer {
            format: self.format,
            policy,
            chatter: self.chatter,
            markdown_too: self.format == ReportFormat::Github && step_summary().is_some(),
        }
    }
}

/// `$GITHUB_STEP_SUMMARY`, when set and not empty.
fn step_summary() -> Option<std::ffi::OsString> {
    std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
}

/// The report of the written links, ready to print, and the exit code
/// (`fail_on`; 2 when a link could not be compared); with `--format github`
/// and `$GITHUB_STEP_SUMMARY` set, also appends the Markdown summary to that
/// file (exit 2 if it cannot).
pub(crate) fn emit(
    written: report::spool::Spool,
    failures: Vec<report::Failure>,
    skipped: Vec<report::Skipped>,
    coverage: Vec<crate::finding::Finding>,
    waivers: Vec<crate::waiver::Outcome>,
    writer: &report::Writer,
    fail_on: report::FailOn,
) -> Result<Output, Error> {
    let pending = writer.finish(written, failures, skipped, coverage, waivers)?;
    let format = writer.format;
    let for_people = matches!(format, ReportFormat::Human | ReportFormat::Concise);
    if pending.markdown_too()
        && let Some(path) = step_summary()
    {
        append_summary(Path::new(&path), &pending).map_err(|e| {
            Error::usage(format!(
                "cannot append the job summary to {} ($GITHUB_STEP_SUMMARY): {e}",
                Path::new(&path).display()
            ))
        })?;
    }
    // Links that could not be compared are input errors: exit 2 whatever
    // `--fail-on` says.
    let code = if pending.failed() {
        2
    } else {
        fail_on.code(pending.tally(), pending.coverage(), pending.waivers())
    };
    Ok(Output {
        code,
        stdout: String::new(),
        for_people,
        report: Some(pending),
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

/// Appends the Markdown body to a file (through the output filter),
/// creating it if needed; a blank line separates it from what the file
/// already holds.
fn append_summary(path: &Path, pending: &report::Pending) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    if f.metadata()?.len() > 0 {
        f.write_all(b"\n")?;
    }
    let mut buffered = std::io::BufWriter::new(&mut f);
    let mut sink = report::sink::Sink::stream(&mut buffered, false);
    pending.write_markdown(&mut sink)?;
    sink.finish()?;
    buffered.flush()
}

/// The context flags as the link layer takes them.
pub(crate) fn overrides(ctx: &crate::cli::ContextArgs) -> crate::link::Overrides {
    crate::link::Overrides {
        engine_version: ctx.engine_version.clone(),
        hardware: ctx.hardware.clone(),
        platform: ctx.platform.clone(),
        origin: None,
        checkpoints: None,
        loads: None,
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

/// Every canonical key of every engine's bundled releases.
fn known_keys() -> &'static std::collections::BTreeSet<String> {
    static KEYS: std::sync::OnceLock<std::collections::BTreeSet<String>> =
        std::sync::OnceLock::new();
    KEYS.get_or_init(engine::all_keys)
}

/// Environment variable prefixes whose every variable an engine reads is in
/// its bundled releases' tables, so another name is a typo or a variable no
/// release reads: vLLM's (`envs.json`, all of `vllm/envs.py` per release).
/// SGLang's table holds only the variables its rules model, so `SGLANG_*`
/// names cannot be checked; variables of other names (`NCCL_*`, `HF_*`, ...)
/// are read by libraries and compared as they are.
const ENGINE_ENV_PREFIXES: &[&str] = &["VLLM_"];

/// Why a policy or waiver key (`hicache_io_backend`, `env:NAME`, or a `*`
/// pattern) names nothing, with the nearest names; `None` when it is fine.
pub(crate) fn key_problem(key: &str) -> Option<String> {
    let known = known_keys();
    if let Some(name) = key.strip_prefix("env:") {
        let owned = ENGINE_ENV_PREFIXES.iter().any(|p| name.starts_with(p));
        if !owned || key.contains('*') || known.contains(key) {
            return None;
        }
        let near = nearest(key, known.iter().filter(|k| k.starts_with("env:")));
        return Some(format!(
            "is an engine's variable name that no bundled release reads{near}; see `recipe-drift explain`"
        ));
    }
    if key.contains('*') {
        if known.iter().any(|k| crate::policy::glob(key, k)) {
            return None;
        }
        return Some("matches no canonical key of any bundled release".into());
    }
    if known.contains(key) {
        return None;
    }
    let hint = engine::registry()
        .iter()
        .find_map(|en| match en.key(key) {
            Ok(k) => Some(format!(" (did you mean {k}?)")),
            Err(engine::KeyError::Unknown { suggestions, .. }) if !suggestions.is_empty() => {
                Some(format!(" (did you mean {}?)", suggestions.join(", ")))
            }
            Err(_) => None,
        })
        .unwrap_or_default();
    Some(format!(
        "is not a canonical key of any bundled release{hint}; see `recipe-drift explain`"
    ))
}

/// ` (did you mean X?)` for the closest of `names` to `word`, or nothing.
fn nearest<'a>(word: &str, names: impl Iterator<Item = &'a String>) -> String {
    crate::suggest::nearest(word, names.map(String::as_str), crate::suggest::THRESHOLD)
        .map(|n| format!(" (did you mean {n}?)"))
        .unwrap_or_default()
}

/// Applies the inline suppressions (`recipe-drift: ignore[KEY] REASON`) of
/// the files the reports' launches are written in ([`Suppressions`]) and
/// returns one outcome per suppression and key ([`merge_suppressions`]).
pub(crate) fn apply_suppressions(
    reports: &mut [LinkReport],
) -> Result<Vec<crate::waiver::Outcome>, Error> {
    let suppressions = Suppressions::default();
    let mut outcomes = Vec::new();
    for r in reports.iter_mut() {
        outcomes.extend(suppressions.apply(r)?);
    }
    Ok(merge_suppressions(outcomes))
}

/// The inline suppressions (`recipe-drift: ignore[KEY] REASON`) of the files
/// a run's launches are written in, each file scanned once; the run's
/// workers share them.
#[derive(Default)]
pub(crate) struct Suppressions {
    scanned: std::sync::Mutex<BTreeMap<String, std::sync::Arc<Vec<crate::suppress::Suppression>>>>,
}

impl Suppressions {
    /// Applies the suppressions of the files a report's launches are
    /// written in: each becomes a waiver of the report. Returns their
    /// outcomes for this report (applied when one covered a finding, else
    /// unused), to be merged in the run's order ([`merge_suppressions`]). A
    /// suppression naming no key is an error at it.
    pub(crate) fn apply(&self, r: &mut LinkReport) -> Result<Vec<crate::waiver::Outcome>, Error> {
        use crate::span::{Origin, Source};
        use crate::waiver::{self, Waiver};
        let epoch = waiver::Date::parse("1970-01-01").expect("a date");
        let mut waivers: Vec<Waiver> = Vec::new();
        for side in [&r.docs, &r.recipe] {
            let source = &side.launch.source;
            let name = match &source.origin {
                Origin::File(p) => p.display().to_string(),
                Origin::Url(u) => u.clone(),
                Origin::Rendered { file, .. } => file.display().to_string(),
                Origin::Inline(_) => continue,
            };
            let known = self.lock().get(&name).cloned();
            let found = match known {
                Some(found) => found,
                None => {
                    let text = match &source.origin {
                        Origin::Rendered { file, .. } => Source::read(file)?,
                        _ => source.clone(),
                    };
                    let found = crate::suppress::scan(&text)?;
                    for s in &found {
                        for key in &s.keys {
                            if let Some(why) = key_problem(key) {
                                return Err(Error::input(
                                    s.at.clone(),
                                    format!("inline suppression: {key:?} {why}"),
                                ));
                            }
                        }
                    }
                    self.lock()
                        .entry(name)
                        .or_insert_with(|| std::sync::Arc::new(found))
                        .clone()
                }
            };
            for s in found.iter() {
                for key in &s.keys {
                    waivers.push(Waiver {
                        link: r.name.clone(),
                        key: key.clone(),
                        reason: s.reason.clone(),
                        until: waiver::NEVER.to_string(),
                        at: Some(s.at.to_string()),
                    });
                }
            }
        }
        if waivers.is_empty() {
            return Ok(Vec::new());
        }
        let (mut filtered, found) = waiver::filter(&r.name, [&r.comparison], &waivers, epoch);
        if let Some(f) = filtered.pop() {
            r.waivers.add(f);
        }
        Ok(found)
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<
        '_,
        BTreeMap<String, std::sync::Arc<Vec<crate::suppress::Suppression>>>,
    > {
        self.scanned.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The outcomes of the reports' suppressions, in the run's order, merged:
/// one per suppression and key (its place and key), applied when it
/// covered a finding of any report, else unused; in the order first met.
pub(crate) fn merge_suppressions(
    outcomes: impl IntoIterator<Item = crate::waiver::Outcome>,
) -> Vec<crate::waiver::Outcome> {
    use crate::waiver::Status;
    let mut merged: Vec<crate::waiver::Outcome> = Vec::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for o in outcomes {
        let id = (
            o.waiver.at.clone().unwrap_or_default(),
            o.waiver.key.clone(),
        );
        match index.get(&id) {
            Some(&i) => {
                let seen = &mut merged[i];
                seen.waived += o.waived;
                if seen.waived > 0 {
                    seen.status = Status::Applied;
                }
            }
            None => {
                index.insert(id, merged.len());
                merged.push(o);
            }
        }
    }
    merged
}
