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
    /// Points whose servers are not known (recipe side), grouped by entry
    /// and reason: pairing reports each group as coverage.
    pub unknown: Vec<UnknownPoints>,
    /// Docs deployments with roles that can be composed again with other
    /// selections (a vLLM recipe's prefill/decode cluster): where they are
    /// read from and the `--select` pairs of each ([`super::resize`]).
    pub resizable: Vec<Resizable>,
    /// Recipe deployments whose prefill and decode workers each span a known
    /// number of nodes: the deployment's index and the nodes of one prefill
    /// worker and one decode worker ([`super::resize`]).
    pub pool_sizes: Vec<(usize, (u32, u32))>,
}

/// A docs deployment that can be composed again ([`Loaded::resizable`]).
#[derive(Debug, Clone)]
pub struct Resizable {
    /// Its index among the docs deployments.
    pub deployment: usize,
    /// The file it is read from.
    pub at: Location,
    /// The docs root the file was read under.
    pub docs_root: PathBuf,
    /// The `--select` pairs that compose it.
    pub select: Vec<(String, String)>,
}

/// Points of an entry whose servers are not known (a multi-node recipe that
/// is not in the checkout, a role that cannot be rendered): not compared,
/// and reported as coverage with the reason, never skipped silently.
#[derive(Debug, Clone)]
pub struct UnknownPoints {
    /// The InferenceX entry.
    pub entry: String,
    /// The points (their search-space fields).
    pub points: Points,
    /// Where the first point names what it runs (its `CONFIG_FILE`).
    pub at: Option<crate::span::Span>,
    /// Who the entry says it is (engine, checkpoint, hardware).
    pub identity: super::Identity,
    /// Why its servers are not known.
    pub why: String,
}

impl UnknownPoints {
    /// `entry KEY [N points: ...]`, as deployments are labelled.
    pub fn label(&self) -> String {
        let mut s = format!("entry {}", self.entry);
        if let Some(p) = super::points_label(&self.points) {
            s.push_str(&format!(" [{p}]"));
        }
        s
    }
}

/// What a deployment's servers are read with beside their launches.
pub(super) struct Servers {
    /// One launch per role, in role order.
    pub(super) launches: Vec<Launch>,
    /// The checkpoint served when the launches name a local folder only
    /// (srtctl mounts the entry's checkpoint at `/model`).
    pub(super) model: Option<String>,
    /// Its topology shape value (`single` for one server).
    pub(super) topology: Option<super::ShapeValue>,
}

impl Loader<'_> {
    /// Resolves each role's launch on its own context, for the deployment's
    /// identity (its first role's; a refused or partial role makes it
    /// incomplete), its shape (the roles' combined), what the releases
    /// refuse and where its roles disagree on a key they must share.
    pub(super) fn deployment(
        &self,
        side: Side,
        origin: Origin,
        servers: Servers,
    ) -> Result<Deployment, Error> {
        let opts = ResolveOptions {
            checkpoints: self.checkpoints.clone(),
            ..ResolveOptions::default()
        };
        let several = servers.launches.len() > 1;
        let mut identity: Option<super::Identity> = None;
        let mut roles = Vec::new();
        let mut refusals = Vec::new();
        let mut resolutions = Vec::new();
        for launch in servers.launches {
            // A refused word is set aside and the rest read (`resolve_rest`);
            // only a command refused whole has nothing to read.
            let (resolved, refused) = match engine::resolve_rest(&launch, &opts) {
                Ok(r) => (r, false),
                Err(engine::ResolveError::Refused(r)) => (r.resolved(launch.engine), true),
                Err(engine::ResolveError::Failed(e)) => return Err(e),
            };
            let mut id = identity_of(&launch, &resolved, &self.families);
            if let Some(m) = &servers.model
                && id
                    .model
                    .as_deref()
                    .is_none_or(|x| !crate::launch::is_hf_id(x))
            {
                id.model = Some(m.to_ascii_lowercase());
                id.family = Some(super::family_of(m, &self.families));
            }
            id.partial = resolved.args_open.clone();
            // Pairing reports what its release refuses (`startup-error`); a
            // command refused whole starts no server, so it is not paired.
            let refusal = (!resolved.startup_errors.is_empty()).then(|| Refusal {
                role: launch.role,
                release: format!("{} {}", resolved.engine, resolved.version.version),
                errors: resolved.startup_errors.clone(),
            });
            if refused && let Some(r) = &refusal {
                let whose = if several {
                    format!("its {} command", launch.role)
                } else {
                    "its command".to_string()
                };
                id.refused = Some(match r.errors.first() {
                    Some(e) => {
                        format!("{whose} would not start under {}: {}", r.release, e.message)
                    }
                    None => format!("{whose} would not start under {}", r.release),
                });
            }
            let shape = shape_of(&resolved, id.model.as_deref());
            match &mut identity {
                None => identity = Some(id),
                Some(first) => {
                    first.refused = first.refused.take().or(id.refused);
                    first.partial = first.partial.take().or(id.partial);
                }
            }
            refusals.extend(refusal);
            roles.push(super::RoleServer {
                role: launch.role,
                launch,
                shape,
            });
            resolutions.push(resolved);
        }
        let identity = identity.ok_or_else(|| Error::usage("a deployment with no server"))?;
        let by_role: Vec<(
            crate::launch::Role,
            &crate::span::Span,
            &crate::resolved::Resolved,
        )> = roles
            .iter()
            .zip(&resolutions)
            .map(|(r, x)| (r.role, &r.launch.span, x))
            .collect();
        let cross_role = super::cross_role::check(&by_role);
        let shapes: Vec<(crate::launch::Role, &super::Shape)> =
            roles.iter().map(|r| (r.role, &r.shape)).collect();
        let mut shape = super::combine_shapes(&shapes);
        if let Some(t) = servers.topology {
            shape.insert(super::TOPOLOGY.into(), t);
        }
        Ok(Deployment {
            side,
            origin,
            roles,
            identity,
            shape,
            refusals,
            cross_role,
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
            let name = crate::span::path_label(file);
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
                let reselect = s.reselect;
                if let Some(e) = s.error {
                    // One state a reader cannot copy is that state's input
                    // error; the file's other states are still read.
                    loaded.failures.push((name.clone(), e));
                }
                // A state's servers with roles (a prefill and a decode
                // command) are one deployment; each other server its own.
                let (mut with_roles, single): (Vec<Launch>, Vec<Launch>) =
                    s.launches.into_iter().partition(|l| !l.role.is_single());
                with_roles.sort_by_key(|l| l.role);
                let mut groups: Vec<Servers> = single
                    .into_iter()
                    .map(|l| Servers {
                        launches: vec![l],
                        model: None,
                        topology: None,
                    })
                    .collect();
                if !with_roles.is_empty() {
                    groups.push(Servers::docs_roles(with_roles));
                }
                for servers in groups {
                    let origin = Origin {
                        file: name.clone(),
                        selection: s.selection.clone(),
                        component: s.component.clone(),
                        entry: None,
                        points: Vec::new(),
                    };
                    let has_roles = servers.launches.iter().any(|l| !l.role.is_single());
                    match self.deployment(Side::Docs, origin, servers) {
                        Ok(d) => {
                            if has_roles && !reselect.is_empty() {
                                loaded.resizable.push(Resizable {
                                    deployment: loaded.deployments.len(),
                                    at: at.clone(),
                                    docs_root: docs_root.to_path_buf(),
                                    select: reselect.clone(),
                                });
                            }
                            loaded.deployments.push(d)
                        }
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
                self.multinode(&e, &at, &mut loaded);
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
            let Some(expanded) = self.expand_entry(&at, &e.key, &name, &mut loaded) else {
                continue;
            };
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
                let servers = Servers {
                    launches: vec![launch],
                    model: None,
                    topology: None,
                };
                match self.deployment(Side::Recipe, origin, servers) {
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

    /// Every point of entry `key` with its launches (their secrets noted), or
    /// `None` with the entry listed as skipped: an entry the checkout cannot
    /// run (a script it names is missing) is the benchmark's defect, not the
    /// docs', so it is not compared, with the cause.
    fn expand_entry(
        &self,
        at: &Location,
        key: &str,
        name: &str,
        loaded: &mut Loaded,
    ) -> Option<extract::inferencex::Expanded> {
        match extract::inferencex::expand_with_env(
            at,
            key,
            &BTreeMap::new(),
            &BTreeMap::new(),
            self.files,
        ) {
            Ok(x) => {
                crate::engine::note_secrets(x.points.iter().flat_map(|p| &p.launches));
                Some(x)
            }
            Err(err) => {
                loaded
                    .skipped
                    .push((name.to_string(), format!("not compared: {err}")));
                None
            }
        }
    }

    /// The deployments of a multi-node entry: each point that runs an
    /// srt-slurm recipe in the checkout is a deployment whose roles are the
    /// recipe's workers (points with identical roles grouped); a point whose
    /// servers are not known is [`Loaded::unknown`], with the reason.
    fn multinode(&self, e: &extract::inferencex::EntrySummary, at: &Location, loaded: &mut Loaded) {
        let name = format!("entry {}", e.key);
        if !extract::inferencex::multinode::runs_srt_slurm(&e.framework) {
            loaded.skipped.push((
                name,
                format!(
                    "multi-node with framework {}: of multi-node entries only those that run srt-slurm recipes (dynamo-*) are read",
                    e.framework
                ),
            ));
            return;
        }
        let engine_name = e.framework.trim_start_matches("dynamo-");
        if engine::by_name(engine_name).is_none() {
            loaded.skipped.push((
                name,
                format!(
                    "framework {}: its workers are not an engine recipe-drift resolves",
                    e.framework
                ),
            ));
            return;
        }
        let Some(expanded) = self.expand_entry(at, &e.key, &name, loaded) else {
            return;
        };
        let identity = super::Identity {
            engine: engine_name.to_string(),
            model: Some(e.model.to_ascii_lowercase()),
            family: Some(super::family_of(&e.model, &self.families)),
            hardware: Some(
                crate::hardware::family_of(&e.sku)
                    .map(String::from)
                    .unwrap_or_else(|| e.sku.to_ascii_lowercase()),
            ),
            refused: None,
            partial: None,
        };
        // Points whose roles are written identically are one deployment.
        let mut groups: Vec<Group> = Vec::new();
        for p in expanded.points {
            let mut why: Vec<String> = p.unknown.clone();
            why.extend(p.unsupported.iter().cloned());
            if p.launches.is_empty() && why.is_empty() {
                why.push(format!("the recipe {} starts no server", p.script));
            }
            if !why.is_empty() {
                let why = why.join("; ");
                match loaded
                    .unknown
                    .iter_mut()
                    .find(|u| u.entry == e.key && u.why == why)
                {
                    Some(u) => u.points.push(p.fields),
                    None => loaded.unknown.push(UnknownPoints {
                        entry: e.key.clone(),
                        points: vec![p.fields],
                        at: p.at,
                        identity: identity.clone(),
                        why,
                    }),
                }
                continue;
            }
            let mut launches = p.launches;
            launches.sort_by_key(|l| l.role);
            let key: Vec<String> = launches
                .iter()
                .map(|l| format!("{}\u{0}{}", l.role, l.written_key()))
                .collect();
            let key = key.join("\u{1}");
            let topology = super::topology(&p.workers, "the recipe does not say its workers");
            let size = pool_size(&p.workers);
            match groups.iter_mut().find(|g| g.0 == key && g.3 == topology) {
                Some(g) => g.1.push(p.fields),
                None => groups.push((key, vec![p.fields], launches, topology, size)),
            }
        }
        for (_, points, launches, topology, size) in groups {
            let origin = Origin {
                file: expanded.config.clone(),
                selection: Vec::new(),
                component: None,
                entry: Some(e.key.clone()),
                points,
            };
            let servers = Servers {
                launches,
                model: Some(e.model.clone()),
                topology: Some(topology),
            };
            match self.deployment(Side::Recipe, origin, servers) {
                Ok(d) => {
                    if let Some(size) = size {
                        loaded.pool_sizes.push((loaded.deployments.len(), size));
                    }
                    loaded.deployments.push(d)
                }
                Err(err) => loaded
                    .skipped
                    .push((name.clone(), format!("not compared: {err}"))),
            }
        }
    }
}

impl Servers {
    /// A docs deployment's servers with roles (sorted by role): its
    /// topology is unknown, as docs do not say how many workers a role runs.
    pub(super) fn docs_roles(mut launches: Vec<Launch>) -> Servers {
        launches.sort_by_key(|l| l.role);
        Servers {
            launches,
            model: None,
            topology: Some(super::ShapeValue::Unknown {
                unknown: "the docs do not say how many workers each role runs".into(),
            }),
        }
    }
}

/// Points of a multi-node entry whose roles are written and laid out the
/// same: their launches' key, the points, the launches, the topology and the
/// pool size ([`pool_size`]).
type Group = (
    String,
    Points,
    Vec<Launch>,
    super::ShapeValue,
    Option<(u32, u32)>,
);

/// The nodes one prefill worker and one decode worker span, where the
/// recipe says both roles' workers and nodes and each role's nodes divide
/// among its workers.
fn pool_size(workers: &[extract::inferencex::RoleWorkers]) -> Option<(u32, u32)> {
    let per_worker = |role: crate::launch::Role| {
        let w = workers.iter().find(|w| w.role == role)?;
        let nodes = w.nodes?;
        (w.workers > 0 && nodes % w.workers == 0)
            .then(|| u32::try_from(nodes / w.workers).ok())
            .flatten()
    };
    Some((
        per_worker(crate::launch::Role::Prefill)?,
        per_worker(crate::launch::Role::Decode)?,
    ))
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
