//! Loading spaces: a docs root (pages and the generators they render) and an
//! InferenceX checkout (every single-node entry's matrix points), each read
//! into deployments with their identity and shape. Loading builds no report:
//! what cannot be read is a failure (bad input) or a skip with its reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Deployment, Origin, Refusal, Side, identity_of, shape_of};
use crate::engine;
use crate::error::Error;
use crate::extract;
use crate::files::{Files, Location};
use crate::launch::Launch;
use crate::resolved::{FactSource, ResolveOptions};

/// Matrix points (their search-space fields).
type Points = Vec<BTreeMap<String, String>>;

/// The most docs files one docs root may hold (a bound on the walk).
pub const MAX_DOCS_FILES: usize = 20_000;

/// What loading needs beside the roots: the file layer, checkpoint facts and
/// the config's family overrides.
pub struct Loader<'a> {
    /// Reads every file.
    pub files: &'a dyn Files,
    /// Checkpoint facts for the resolutions that read identity and shape.
    pub checkpoints: Option<Arc<dyn FactSource>>,
    /// Checkpoint -> family, by hand (a config's `families:`).
    pub families: BTreeMap<String, String>,
    /// The most states read per generator (`check --max-states`): a
    /// generator with more is cut there ([`Loaded::cuts`]), not failed.
    pub max_states: usize,
}

/// A space read from one side's inputs.
#[derive(Default)]
pub struct Loaded {
    /// The deployments, in input order.
    pub deployments: Vec<Deployment>,
    /// Inputs that could not be read (bad input): the name and the error.
    pub failures: Vec<(String, Error)>,
    /// Inputs not read, each with the reason (out of scope, another engine).
    pub skipped: Vec<(String, String)>,
    /// Generators with more states than the state budget: their first
    /// states (breadth-first, the same on every run) are among the
    /// deployments, the rest were not read. Pairing reports each as a
    /// finding of its own (`state-budget`).
    pub cuts: Vec<extract::Cut>,
}

impl Loader<'_> {
    /// Resolves a launch on its own context, for its identity and shape.
    fn deployment(&self, side: Side, origin: Origin, launch: Launch) -> Result<Deployment, Error> {
        let opts = ResolveOptions {
            checkpoints: self.checkpoints.clone(),
            ..ResolveOptions::default()
        };
        // A refused word is set aside and the rest read (`resolve_rest`);
        // only a command refused whole has nothing to read.
        let (resolved, refused) = match engine::resolve_rest(&launch, &opts) {
            Ok(r) => (r, false),
            Err(engine::ResolveError::Refused(r)) => (r.resolved(launch.engine), true),
            Err(engine::ResolveError::Failed(e)) => return Err(e),
        };
        let mut identity = identity_of(&launch, &resolved, &self.families);
        identity.partial = resolved.args_open.clone();
        // Pairing reports what its release refuses (`startup-error`); a
        // command refused whole starts no server, so it is not paired.
        let refusal = (!resolved.startup_errors.is_empty()).then(|| Refusal {
            release: format!("{} {}", resolved.engine, resolved.version.version),
            errors: resolved.startup_errors.clone(),
        });
        if refused && let Some(r) = &refusal {
            identity.refused = Some(match r.errors.first() {
                Some(e) => format!(
                    "its command would not start under {}: {}",
                    r.release, e.message
                ),
                None => format!("its command would not start under {}", r.release),
            });
        }
        let shape = shape_of(&resolved, identity.model.as_deref());
        Ok(Deployment {
            side,
            origin,
            launch,
            identity,
            shape,
            refusal,
        })
    }

    /// The docs files under `root` a reader sees: Markdown and MDX pages
    /// (the generators they render are read through them), sorted; hidden
    /// folders and `node_modules` are not walked. A symbolic link is followed
    /// when it leads to a page or folder inside the root (each folder walked
    /// once); one that leads outside it, or nowhere, is listed as not read,
    /// with the reason (second list: name, reason), never skipped silently.
    pub fn docs_files(root: &Path) -> Result<(Vec<PathBuf>, NotRead), Error> {
        walk(root, root, &PAGES)
    }

    /// The recipes of a vllm-project/recipes checkout: every `*.yaml` under
    /// its `models/` folder (`models/<org>/<Model>.yaml`), sorted; symbolic
    /// links as for [`Loader::docs_files`]. A root without `models/` is not
    /// such a checkout (exit 2).
    pub fn recipe_files(root: &Path) -> Result<(Vec<PathBuf>, NotRead), Error> {
        let models = root.join("models");
        if !models.is_dir() {
            return Err(Error::usage(format!(
                "{}: no models/ folder: --recipes-root takes a vllm-project/recipes checkout",
                root.display()
            )));
        }
        walk(root, &models, &RECIPES)
    }
}

/// What a walk collects, and how its messages name it.
struct Walk {
    /// Whether a file is collected.
    wanted: fn(&Path) -> bool,
    /// What the files are (`pages`).
    what: &'static str,
    /// What the root is (`the docs root`).
    root: &'static str,
}

const PAGES: Walk = Walk {
    wanted: is_page,
    what: "pages",
    root: "the docs root",
};

const RECIPES: Walk = Walk {
    wanted: is_recipe,
    what: "recipe files",
    root: "the recipes root",
};

/// The files under `start` that `walk` wants (see [`Loader::docs_files`]),
/// symbolic links followed only inside `root`.
fn walk(root: &Path, start: &Path, walk: &Walk) -> Result<(Vec<PathBuf>, NotRead), Error> {
    {
        let canonical_root = std::fs::canonicalize(root).map_err(|e| {
            Error::usage(format!("{}: cannot read the folder: {e}", root.display()))
        })?;
        // (canonical path, path, reached through a link) of every page.
        let mut found: Vec<(PathBuf, PathBuf, bool)> = Vec::new();
        let mut not_read = Vec::new();
        let mut walked = std::collections::BTreeSet::new();
        walked.insert(canonical_root.clone());
        // Linked folders are walked after the real ones, and only when the
        // real walk did not reach them.
        let mut linked_dirs: Vec<(PathBuf, PathBuf)> = Vec::new();
        let mut stack = vec![(start.to_path_buf(), false)];
        while let Some((dir, via_link)) = stack.pop().or_else(|| {
            while let Some((path, target)) = linked_dirs.pop() {
                if walked.insert(target) {
                    return Some((path, true));
                }
            }
            None
        }) {
            let entries = std::fs::read_dir(&dir).map_err(|e| {
                Error::usage(format!("{}: cannot read the folder: {e}", dir.display()))
            })?;
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let hidden = name.starts_with('.') || name == "node_modules";
                if kind.is_symlink() {
                    let target = match std::fs::canonicalize(&path) {
                        Ok(t) => t,
                        Err(e) => {
                            if (walk.wanted)(&path) {
                                not_read.push((
                                    path.display().to_string(),
                                    format!("a symbolic link that leads nowhere: {e}"),
                                ));
                            }
                            continue;
                        }
                    };
                    let is_dir = target.is_dir();
                    if !is_dir && !(walk.wanted)(&path) || is_dir && hidden {
                        continue;
                    }
                    if !target.starts_with(&canonical_root) {
                        not_read.push((
                            path.display().to_string(),
                            format!(
                                "a symbolic link to {}, outside {}",
                                target.display(),
                                walk.root
                            ),
                        ));
                    } else if is_dir {
                        linked_dirs.push((path, target));
                    } else if target.is_file() {
                        found.push((target, path, true));
                    }
                } else if kind.is_dir() {
                    if !hidden {
                        if let Ok(t) = std::fs::canonicalize(&path) {
                            walked.insert(t);
                        }
                        stack.push((path, via_link));
                    }
                } else if kind.is_file() && (walk.wanted)(&path) {
                    let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                    found.push((canonical, path, via_link));
                }
                if found.len() > MAX_DOCS_FILES {
                    return Err(Error::usage(format!(
                        "{}: more than {MAX_DOCS_FILES} {} under {}; give the files to check as FILES",
                        root.display(),
                        walk.what,
                        walk.root
                    )));
                }
            }
        }
        // A page reached by several paths is read once, at its own path when
        // the walk met it there.
        found.sort_by(|a, b| (&a.0, a.2, &a.1).cmp(&(&b.0, b.2, &b.1)));
        found.dedup_by(|a, b| a.0 == b.0);
        let mut out: Vec<PathBuf> = found.into_iter().map(|(_, p, _)| p).collect();
        out.sort();
        not_read.sort();
        Ok((out, not_read))
    }
}

impl Loader<'_> {
    /// The docs space of `files` (pages, generators, vLLM recipe YAMLs),
    /// generators' imports resolved against `docs_root`.
    pub fn docs(&self, docs_root: &Path, files: &[PathBuf]) -> Loaded {
        let mut loaded = Loaded::default();
        for file in files {
            let name = file.display().to_string();
            let at = match crate::files::location_of(file) {
                Ok(at) => at,
                Err(e) => {
                    loaded.failures.push((name, e));
                    continue;
                }
            };
            // Every selection of a page is explored, as `extract
            // --all-selections` explores it, within the same budgets; but a
            // generator with more states than the state budget is cut there
            // (the same states on every run) and its states read, not failed.
            let opts = extract::Options {
                docs_root: Some(docs_root.to_path_buf()),
                limits: extract::jsx::Limits {
                    states: self.max_states,
                    ..extract::jsx::Limits::default().exploring(extract::jsx::DEFAULT_TIME_LIMIT)
                },
                explore: extract::jsx::Explore {
                    cut: true,
                    flags: extract::jsx::Flags::CHECK,
                    ..extract::jsx::Explore::default()
                },
                ..extract::Options::default()
            };
            let every = match extract::every_selection(&at, &opts, self.files) {
                Ok(s) => s,
                Err(e) => {
                    loaded.failures.push((name, e));
                    continue;
                }
            };
            loaded.cuts.extend(every.cuts);
            for s in every.shown {
                if let Some(e) = s.error {
                    // One state a reader cannot copy is that state's input
                    // error; the file's other states are still read.
                    loaded.failures.push((name.clone(), e));
                }
                for launch in s.launches {
                    let origin = Origin {
                        file: name.clone(),
                        selection: s.selection.clone(),
                        component: s.component.clone(),
                        entry: None,
                        points: Vec::new(),
                    };
                    match self.deployment(Side::Docs, origin, launch) {
                        Ok(d) => loaded.deployments.push(d),
                        Err(e) => loaded.failures.push((name.clone(), e)),
                    }
                }
            }
        }
        loaded
    }

    /// The recipe space of an InferenceX checkout: every point of every
    /// single-node entry whose framework is an engine recipe-drift resolves,
    /// points with identical launches grouped.
    pub fn inferencex(&self, root: &Path) -> Loaded {
        let mut loaded = Loaded::default();
        let (entries, not_read) = match extract::inferencex::list_entries(root) {
            Ok(e) => e,
            Err(e) => {
                loaded.failures.push((root.display().to_string(), e));
                return loaded;
            }
        };
        for (key, _, why) in not_read {
            loaded.skipped.push((format!("entry {key}"), why));
        }
        let at = Location::Path(root.to_path_buf());
        for e in entries {
            let name = format!("entry {}", e.key);
            if e.multinode {
                loaded.skipped.push((
                    name,
                    "multi-node: its roles are not read yet (single-node entries only)".into(),
                ));
                continue;
            }
            if engine::by_name(&e.framework).is_none() {
                loaded.skipped.push((
                    name,
                    format!(
                        "framework {} is not an engine recipe-drift resolves",
                        e.framework
                    ),
                ));
                continue;
            }
            let expanded = match extract::inferencex::expand_with_env(
                &at,
                &e.key,
                &BTreeMap::new(),
                &BTreeMap::new(),
                self.files,
            ) {
                Ok(x) => x,
                // An entry the checkout cannot run (a script it names is
                // missing) is the benchmark's defect, not the docs': not
                // compared, with the cause.
                Err(err) => {
                    loaded.skipped.push((name, format!("not compared: {err}")));
                    continue;
                }
            };
            crate::engine::note_secrets(expanded.points.iter().flat_map(|p| &p.launches));
            // Points whose launches are written identically are one deployment.
            let mut groups: Vec<(String, Points, Launch)> = Vec::new();
            for p in expanded.points {
                let label: Vec<String> = p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                if p.launches.len() != 1 {
                    let why = match (p.launches.len(), p.unsupported.first()) {
                        (0, Some(u)) => u.clone(),
                        (0, None) => format!("the script {} starts no server", p.script),
                        (n, _) => format!(
                            "the script {} starts {n} servers (roles are read with multi-node deployments)",
                            p.script
                        ),
                    };
                    loaded
                        .skipped
                        .push((format!("{name} [{}]", label.join(" ")), why));
                    continue;
                }
                let launch = p.launches.into_iter().next().expect("one launch");
                let key = launch.written_key();
                match groups.iter_mut().find(|g| g.0 == key) {
                    Some(g) => g.1.push(p.fields),
                    None => groups.push((key, vec![p.fields], launch)),
                }
            }
            for (_, points, launch) in groups {
                let origin = Origin {
                    file: expanded.config.clone(),
                    selection: Vec::new(),
                    component: None,
                    entry: Some(e.key.clone()),
                    points,
                };
                match self.deployment(Side::Recipe, origin, launch) {
                    Ok(mut d) => {
                        // The entry names its checkpoint: a local MODEL_PATH
                        // does not hide it.
                        if d.identity.model.is_none() {
                            d.identity.model = Some(e.model.to_ascii_lowercase());
                            d.identity.family = Some(super::family_of(&e.model, &self.families));
                        }
                        loaded.deployments.push(d)
                    }
                    // A benchmark recipe-drift cannot resolve (a release
                    // older than every bundled one) is not the docs' input
                    // error: it is reported as not compared, with the cause.
                    Err(err) => loaded
                        .skipped
                        .push((name.clone(), format!("not compared: {err}"))),
                }
            }
        }
        loaded
    }
}

/// Paths under the docs root not read, each with the reason.
pub type NotRead = Vec<(String, String)>;

/// Whether a path names a vLLM recipe (`.yaml`, `.yml`).
fn is_recipe(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Whether a path names a docs page (`.md`, `.mdx`, `.markdown`).
fn is_page(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("md" | "mdx" | "markdown")
    )
}
