//! Where an InferenceX checkout keeps its matrix and its scripts. The
//! repository has had several layouts; each revision is read in its own.
//!
//! | since | master configs | single-node scripts |
//! | --- | --- | --- |
//! | 2026-07 (#1992) | `configs/` | `benchmarks/single_node/{fixed_seq_len,agentic}/` |
//! | 2026-06 | `.github/configs/` | `benchmarks/single_node/{fixed_seq_len,agentic}/` |
//! | 2026-02 | `.github/configs/` | `benchmarks/single_node/` (agentic: `.../agentic/`) |
//! | before | `.github/configs/` | `benchmarks/` |
//!
//! The folders are tried newest first: the first that holds a master config
//! (`*-master.yaml`) is the matrix, and the first folder that holds a script of
//! the wanted name is where it runs from.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::files::{Files, Location};

/// The folders that have held the master configs, newest first.
pub const CONFIG_DIRS: &[&str] = &["configs", ".github/configs"];

/// The folders a scenario's scripts have been in, newest first
/// (`fixed_seq_len` or `agentic`).
pub fn script_dirs(scenario: &str) -> Vec<String> {
    let mut out = vec![format!("benchmarks/single_node/{scenario}")];
    if scenario == "fixed_seq_len" {
        out.push("benchmarks/single_node".into());
        out.push("benchmarks".into());
    }
    out
}

/// Whether a file name is a master config.
pub fn is_master_config(name: &str) -> bool {
    name.ends_with("-master.yaml")
}

/// The master-config folder of a checkout on disk: the first of
/// [`CONFIG_DIRS`] that holds a master config, or an error naming them all.
pub fn config_dir(root: &Path) -> Result<PathBuf, Error> {
    for d in CONFIG_DIRS {
        let dir = root.join(d);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        if rd
            .filter_map(|e| e.ok())
            .any(|e| is_master_config(&e.file_name().to_string_lossy()))
        {
            return Ok(dir);
        }
    }
    Err(no_configs(&Location::Path(root.to_path_buf()), None))
}

/// The master-config folder of a checkout read through `files` (local or
/// remote), with the names of the master configs in it (sorted). A folder that
/// cannot be listed (absent at this revision, or a failed fetch) is skipped;
/// when none can be, the error names every folder tried and the first failure.
pub fn config_dir_in(root: &Location, files: &dyn Files) -> Result<(Location, Vec<String>), Error> {
    let mut first_err: Option<Error> = None;
    for d in CONFIG_DIRS {
        let dir = root.join(d);
        match files.list(&dir) {
            Ok(names) => {
                let mut names: Vec<String> =
                    names.into_iter().filter(|n| is_master_config(n)).collect();
                if !names.is_empty() {
                    names.sort();
                    return Ok((dir, names));
                }
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(no_configs(root, first_err))
}

fn no_configs(root: &Location, cause: Option<Error>) -> Error {
    let tried: Vec<String> = CONFIG_DIRS
        .iter()
        .map(|d| format!("{}/*-master.yaml", root.join(d).display()))
        .collect();
    let tried = format!("no {}", tried.join(" nor "));
    match (root, cause) {
        // A failed fetch stays a remote error (its own exit path), naming the
        // folders tried.
        (_, Some(Error::Remote { location, message })) => Error::Remote {
            location,
            message: format!("cannot read the master configs: {message}; {tried}"),
        },
        (Location::Path(p), cause) => Error::Input {
            span: crate::span::Span::of_path(p),
            message: format!(
                "cannot read the master configs: {tried}{}",
                match cause {
                    Some(Error::Input { message, .. }) => format!(" ({message})"),
                    Some(e) => format!(" ({e})"),
                    None => String::new(),
                }
            ),
        },
        (Location::Remote(_), cause) => Error::Usage(format!(
            "{}: cannot read the master configs: {tried}{}",
            root.display(),
            cause.map(|e| format!(" ({e})")).unwrap_or_default()
        )),
    }
}
