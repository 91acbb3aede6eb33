//! The explored states of a file's generators, kept in the cache folder and
//! keyed by everything that decides them: the tool's version and the
//! explorer's source (a fingerprint from build.rs), the headless
//! React and prelude it runs, the bundle's code (the generator and every
//! module it imports, as transformed) and the exploration's options. An
//! unchanged generator is read back instead of explored again.
//!
//! Entries are written as the fetch cache writes (a new file created
//! exclusively, then renamed) and read with a size cap; an entry that cannot
//! be read or does not fit the bundle is ignored (the file is explored).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Bundle, Checkboxes, Control, Crash, Exploration, Explore, Limits, View};

/// The folder entries go to (`None`: no cache), for the rest of the run.
static DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The sub-folder of the cache folder that holds explored graphs.
const SUBDIR: &str = "jsx-graphs";

/// The largest entry read back (an exploration's renders are capped at
/// [`super::MAX_RENDERED_BYTES`]; its JSON adds the bookkeeping).
const MAX_ENTRY_BYTES: u64 = (super::MAX_RENDERED_BYTES as u64) * 2;

/// Sets the cache folder explorations are kept in (the run's `--cache-dir`,
/// or the platform cache folder); `None` turns the cache off.
pub fn set_cache_dir(dir: Option<PathBuf>) {
    if let Ok(mut d) = DIR.lock() {
        *d = dir.map(|d| d.join(SUBDIR));
    }
}

fn dir() -> Option<PathBuf> {
    DIR.lock().ok().and_then(|d| d.clone())
}

/// The key of a bundle's exploration with these options and limits (an
/// exploration that fits some limits may not fit others: each setting has
/// its own entries).
pub(crate) fn key(bundle: &Bundle, opts: &Explore, limits: &Limits) -> String {
    let mut h = Sha256::new();
    for part in [
        env!("CARGO_PKG_VERSION"),
        // The explorer's own code (build.rs): a development build with the
        // same version number but other code never reads these entries.
        env!("RECIPE_DRIFT_EXPLORER"),
        include_str!("react.js"),
        include_str!("prelude.js"),
        &bundle.code,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let checkboxes = match opts.checkboxes {
        Checkboxes::All => "all",
        Checkboxes::Each => "each",
    };
    h.update(
        format!(
            "{}/{}/{checkboxes}/{}/{:?}/{:?}/{:?}/{}/{}/{}",
            opts.max_states,
            opts.cut,
            opts.controls,
            opts.time_limit,
            limits.time,
            limits.total,
            limits.memory,
            limits.stack,
            limits.states
        )
        .as_bytes(),
    );
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// One view as kept.
#[derive(Serialize, Deserialize)]
struct ViewEntry {
    target: usize,
    selection: Vec<(String, String)>,
    commands: Vec<String>,
    path: Vec<(usize, String)>,
    clicked: Vec<String>,
    controls: Vec<Control>,
    #[serde(default)]
    copied: Vec<String>,
    #[serde(default)]
    page_blocks: Vec<usize>,
}

/// One crash path as kept (its place in the file is found again from the
/// bundle position).
#[derive(Serialize, Deserialize)]
struct CrashEntry {
    target: usize,
    path: Vec<(usize, String)>,
    selection: Vec<(String, String)>,
    message: String,
    bundle_at: Option<(u32, u32)>,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    views: Vec<Vec<ViewEntry>>,
    crashes: Vec<Vec<CrashEntry>>,
    /// Per target, the states kept when the state budget cut its
    /// exploration ([`Exploration::cut`]).
    #[serde(default)]
    cut: Vec<Option<usize>>,
}

/// The explorations kept for `key`, when there is a readable entry that fits
/// the bundle (one per target, every view and crash naming its target).
pub(crate) fn load(key: &str, bundle: &Bundle) -> Option<Vec<Exploration>> {
    let path = dir()?.join(format!("{key}.json"));
    let text = crate::fetch::read_cache_file(&path, MAX_ENTRY_BYTES)?;
    let entry: Entry = serde_json::from_str(&text).ok()?;
    let n = bundle.targets.len();
    if entry.views.len() != n || entry.crashes.len() != n || entry.cut.len() != n {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for (t, ((views, crashes), cut)) in entry
        .views
        .into_iter()
        .zip(entry.crashes)
        .zip(entry.cut)
        .enumerate()
    {
        if views.is_empty()
            || views.iter().any(|v| v.target != t)
            || crashes.iter().any(|c| c.target != t)
        {
            return None;
        }
        out.push(Exploration {
            views: views
                .into_iter()
                .map(|v| View {
                    target: v.target,
                    selection: v.selection,
                    commands: v.commands,
                    path: v.path,
                    clicked: v.clicked,
                    controls: v.controls,
                    copied: v.copied,
                    page_blocks: v.page_blocks,
                })
                .collect(),
            crashes: crashes
                .into_iter()
                .map(|c| Crash {
                    target: c.target,
                    path: c.path,
                    selection: c.selection,
                    message: c.message,
                    at: c.bundle_at.and_then(|(l, col)| bundle.source_at(l, col)),
                    bundle_at: c.bundle_at,
                })
                .collect(),
            cut,
        });
    }
    Some(out)
}

/// Keeps explorations under `key`; a cache that cannot be written only costs
/// exploring again next time.
pub(crate) fn store(key: &str, found: &[Exploration]) {
    let Some(dir) = dir() else { return };
    let entry = Entry {
        views: found
            .iter()
            .map(|e| {
                e.views
                    .iter()
                    .map(|v| ViewEntry {
                        target: v.target,
                        selection: v.selection.clone(),
                        commands: v.commands.clone(),
                        path: v.path.clone(),
                        clicked: v.clicked.clone(),
                        controls: v.controls.clone(),
                        copied: v.copied.clone(),
                        page_blocks: v.page_blocks.clone(),
                    })
                    .collect()
            })
            .collect(),
        crashes: found
            .iter()
            .map(|e| {
                e.crashes
                    .iter()
                    .map(|c| CrashEntry {
                        target: c.target,
                        path: c.path.clone(),
                        selection: c.selection.clone(),
                        message: c.message.clone(),
                        bundle_at: c.bundle_at,
                    })
                    .collect()
            })
            .collect(),
        cut: found.iter().map(|e| e.cut).collect(),
    };
    let Ok(text) = serde_json::to_string(&entry) else {
        return;
    };
    if text.len() as u64 > MAX_ENTRY_BYTES || create_dir(&dir).is_err() {
        return;
    }
    let _ = crate::fetch::write_cache_file(&dir.join(format!("{key}.json")), &text);
}

/// Creates the cache folder (and its parents) when missing.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}
