//! `recipe-drift lock`: runs what `check` runs for a config (and asks for the
//! models named), records every checkpoint the resolvers ask for, and writes
//! the facts read from the Hub into the lock file, which `check` and
//! `compare` read first (`crate::checkpoint::lock`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::Output;
use crate::checkpoint::lock::{self, LOCK_FILE, Lock, Recorder};
use crate::cli::{FilesArgs, LockArgs, RemoteArgs};
use crate::error::Error;
use crate::manifest::Manifest;
use crate::resolved::FactSource;

/// While `lock` runs `check`: the recorder every fact source of the run is
/// wrapped in (and no lock file is read, so the facts are read afresh).
static RECORDING: Mutex<Option<Arc<Recorder>>> = Mutex::new(None);

/// The fact source of a run while `lock` records it, else `None`.
pub(super) fn recording(
    args: &RemoteArgs,
    config_hosts: &[String],
    by_hand: &[crate::checkpoint::CheckpointSpec],
    config: Option<&Path>,
) -> Result<Option<Arc<dyn FactSource>>, Error> {
    let Some(recorder) = RECORDING.lock().ok().and_then(|r| r.clone()) else {
        return Ok(None);
    };
    let inner = super::fact_source(args, config_hosts, by_hand, config, None)?;
    recorder.wrap(inner);
    Ok(Some(recorder))
}

/// Writes the lock file.
pub(super) fn run(args: LockArgs, jail: &FilesArgs) -> Result<Output, Error> {
    let LockArgs {
        config,
        no_config,
        output,
        cache_dir,
        offline,
        allow_hosts,
        max_checkpoints,
        models,
        docs_root,
        recipes_root,
        inferencex,
    } = args;
    let pairing = inferencex.map(|inferencex| super::pairing::Roots {
        docs: docs_root,
        recipes: recipes_root,
        inferencex,
    });
    if super::no_checkpoint_facts_env() {
        return Err(Error::usage(
            "lock: checkpoint facts are off (RECIPE_DRIFT_NO_CHECKPOINT_FACTS is set), and `lock` \
             reads them from the Hub; unset it",
        ));
    }
    for m in &models {
        if !lock::is_hub_model(m) {
            return Err(Error::usage(format!(
                "lock: {m:?} is not a Hugging Face Hub model id (org/name or org/name@revision)"
            )));
        }
    }
    let config = Manifest::locate(config.as_deref(), no_config)?;
    super::set_project_root(config.as_deref());
    if config.is_none() && models.is_empty() && pairing.is_none() {
        return Err(Error::usage(format!(
            "lock: no config file, no pairing and no model: pass --config FILE, --docs-root DIR \
             --inferencex ROOT or MODEL..., set ${}, or add {} here or in a parent folder",
            crate::manifest::CONFIG_ENV,
            Manifest::names_listed()
        )));
    }
    let remote = RemoteArgs {
        cache_dir,
        offline,
        allow_hosts,
        no_checkpoint_facts: false,
        max_checkpoints,
    };
    let recorder = Recorder::new();
    if config.is_some() || pairing.is_some() {
        run_check(
            config.as_deref(),
            pairing.as_ref(),
            &remote,
            jail,
            &recorder,
        )?;
    } else {
        super::confine(jail, &[PathBuf::from(".")])?;
    }
    if !models.is_empty() {
        let (hosts, by_hand) = match &config {
            Some(p) => {
                let (m, _) = Manifest::read(p)?;
                (m.allow_hosts, m.checkpoints)
            }
            None => (Vec::new(), Vec::new()),
        };
        recorder.wrap(super::fact_source(
            &remote,
            &hosts,
            &by_hand,
            config.as_deref(),
            None,
        )?);
        for m in &models {
            recorder.facts(m, None).map_err(|e| Error::Remote {
                location: e.location,
                message: e.message,
            })?;
        }
    }
    let (locked, not) = recorder.outcome();
    // A model named on the command line that cannot be locked is an error.
    let named_failures: Vec<Error> = not
        .iter()
        .filter(|n| {
            models.iter().any(|m| {
                let (model, rev) = lock::split_pin(m, None);
                n.label
                    .eq_ignore_ascii_case(&format!("{model}@{}", rev.unwrap_or("main")))
            })
        })
        .map(|n| Error::usage(format!("lock: cannot lock {}: {}", n.label, n.reason)))
        .collect();
    Error::all(named_failures)?;
    let out = output.unwrap_or_else(|| match &config {
        Some(c) => Lock::beside(c),
        None => PathBuf::from(LOCK_FILE),
    });
    let text = lock::render(&locked);
    write(&out, &text)?;
    let mut report = format!(
        "locked the facts of {} checkpoint{} into {}\n",
        locked.len(),
        if locked.len() == 1 { "" } else { "s" },
        out.display()
    );
    for l in &locked {
        let from: Vec<&str> = l.facts.keys().map(String::as_str).collect();
        report.push_str(&format!(
            "  {}@{}: from {}\n",
            l.model,
            l.revision,
            from.join(", ")
        ));
    }
    for n in &not {
        report.push_str(&format!("not locked: {}: {}\n", n.label, n.reason));
    }
    Ok(Output {
        code: 0,
        stdout: report,
        for_people: true,
        report: None,
    })
}

/// Runs `check` on the config, or on the pairing of a docs folder with an
/// InferenceX checkout (with the config found, if any), as the user would
/// (its output is not printed), every fact source wrapped in `recorder`. A
/// link or a page that cannot be read fails the lock (its checkpoints may not
/// have been asked for).
fn run_check(
    config: Option<&Path>,
    pairing: Option<&super::pairing::Roots>,
    remote: &RemoteArgs,
    jail: &FilesArgs,
    recorder: &Arc<Recorder>,
) -> Result<(), Error> {
    use clap::Parser as _;
    let mut argv: Vec<String> = vec!["recipe-drift".into(), "check".into()];
    if let Some(config) = config {
        argv.extend(["--config".into(), config.display().to_string()]);
    }
    if let Some(roots) = pairing {
        for (flag, root) in [
            ("--docs-root", &roots.docs),
            ("--recipes-root", &roots.recipes),
        ] {
            if let Some(root) = root {
                argv.extend([flag.into(), root.display().to_string()]);
            }
        }
        argv.extend([
            "--inferencex".into(),
            roots.inferencex.display().to_string(),
        ]);
    }
    argv.extend(
        [
            "--format",
            "concise",
            "--quiet",
            "--exit-zero",
            "--no-progress",
        ]
        .map(String::from),
    );
    if let Some(d) = &remote.cache_dir {
        argv.extend(["--cache-dir".into(), d.display().to_string()]);
    }
    if remote.offline {
        argv.push("--offline".into());
    }
    for h in &remote.allow_hosts {
        argv.extend(["--allow-host".into(), h.clone()]);
    }
    argv.extend([
        "--max-checkpoints".into(),
        remote.max_checkpoints.to_string(),
    ]);
    let cli = crate::cli::Cli::try_parse_from(&argv)
        .map_err(|e| Error::usage(format!("lock: cannot run check: {e}")))?;
    let crate::cli::Command::Check(args) = cli.command else {
        return Err(Error::usage("lock: cannot run check"));
    };
    set_recording(Some(recorder.clone()));
    let result = super::check::run(args, jail);
    set_recording(None);
    let out = result?;
    if out.code == 2 {
        return Err(Error::usage(format!(
            "lock: `check` could not compare every link of {}, so the lock would miss their \
             checkpoints; fix them first:\n{}",
            match (config, pairing) {
                (Some(c), _) => c.display().to_string(),
                (None, Some(roots)) => format!("the pairing with {}", roots.inferencex.display()),
                (None, None) => "the run".into(),
            },
            out.stdout.trim_end()
        )));
    }
    Ok(())
}

fn set_recording(r: Option<Arc<Recorder>>) {
    match RECORDING.lock() {
        Ok(mut g) => *g = r,
        Err(p) => *p.into_inner() = r,
    }
}

/// Writes the lock file inside the repository root (through the confined
/// layer's check: never through a symlink leading outside, never in `.git`).
fn write(path: &Path, text: &str) -> Result<(), Error> {
    let real = crate::files::admit(path)?;
    std::fs::write(&real, text).map_err(|e| Error::Input {
        span: crate::span::Span::of_path(path),
        message: format!(
            "cannot write the lock file: {}",
            crate::files::io_reason(&e)
        ),
    })
}
