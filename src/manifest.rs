//! The config file (`.recipe-drift.yaml`): links between a docs side and a recipe
//! side, policy overrides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;
use crate::policy::ClassLists;
use crate::span::{Source, Span};

/// One side of a link.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SideSpec {
    /// A command file, bash script or Markdown/MDX page, relative to the config
    /// file, or a remote file (`https://...`, `github:OWNER/REPO@REF:PATH`).
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// An InferenceX recipe: a master-config entry expanded into matrix points.
    #[serde(default)]
    pub inferencex: Option<InferencexSpec>,
    /// Which launch of the file (1-based), when it has several.
    #[serde(default)]
    pub launch: Option<usize>,
    /// Hardware SKU for this side.
    #[serde(default)]
    pub hardware: Option<String>,
    /// Platform for this side (`cuda`, `rocm`, `cpu`).
    #[serde(default)]
    pub platform: Option<String>,
    /// Engine version for this side.
    #[serde(default)]
    pub engine_version: Option<String>,
    /// Extra environment for this side.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Generator options to click (option key -> value), for a `.jsx`
    /// generator or an `.mdx` page that renders one.
    #[serde(default)]
    pub select: BTreeMap<String, serde_json::Value>,
    /// The docs root for `/src/...` imports, relative to the config file
    /// (default: found upward from the file).
    #[serde(default)]
    pub docs_root: Option<PathBuf>,
}

impl SideSpec {
    /// The selection as `key=value` strings (YAML `2` and `"2"`, `true` and
    /// `"true"` are the same).
    pub fn select_strings(&self) -> Vec<(String, String)> {
        self.select
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect()
    }
}

/// A recipe side read from an InferenceX checkout.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InferencexSpec {
    /// The checkout's root, relative to the config file, or a repository at a
    /// ref (`github:OWNER/REPO@REF`).
    pub root: PathBuf,
    /// The master-config entry key.
    pub entry: String,
    /// Search-space fields the points must have (`tp`, `kv-offloading`, `conc`, ...).
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, serde_json::Value>,
    /// Where `where:` is written in the config (errors about it point there).
    #[serde(skip)]
    pub filter_at: Option<Span>,
    /// Where the side's `env:` is written (warnings about it point there).
    #[serde(skip)]
    pub env_at: Option<Span>,
}

impl InferencexSpec {
    /// The filter as strings (YAML `2` and `"2"`, `true` and `"true"` are the same).
    pub fn filter_strings(&self) -> BTreeMap<String, String> {
        self.filter
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect()
    }
}

/// A docs/recipe pair.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LinkSpec {
    /// Name shown in reports.
    pub name: String,
    /// The docs side.
    pub docs: SideSpec,
    /// The recipe side.
    pub recipe: SideSpec,
    /// Hardware for both sides (a side's own value wins).
    #[serde(default)]
    pub hardware: Option<String>,
    /// Engine version for both sides (a side's own value wins).
    #[serde(default)]
    pub engine_version: Option<String>,
}

/// The whole config file.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Links to check (pins beside what `check --docs-root --inferencex` pairs).
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Checkpoint -> model family, by hand, for pairing (`org/Ckpt: family`);
    /// the family is otherwise read from the checkpoint's name.
    #[serde(default)]
    pub families: BTreeMap<String, String>,
    /// Policy overrides.
    #[serde(default)]
    pub policy: ClassLists,
    /// Divergences accepted on purpose, each with a reason and an expiry date.
    #[serde(default)]
    pub waivers: Vec<crate::waiver::Waiver>,
    /// Hosts remote files may come from besides the built-in ones (`host` or
    /// `host:port`); plain `http` is allowed only for hosts listed here.
    #[serde(default, rename = "allow-hosts")]
    pub allow_hosts: Vec<String>,
    /// Checkpoint facts by hand, per model (and revision): they win over the
    /// Hub's, for private or offline models.
    #[serde(default)]
    pub checkpoints: Vec<crate::checkpoint::CheckpointSpec>,
    /// Where the entries are written, from serde-saphyr's locations.
    #[serde(skip)]
    pub positions: Positions,
}

/// Where a config's entries are written: read from serde-saphyr's own
/// locations (a second, lenient pass over the same text), for messages.
#[derive(Debug, Clone, Default)]
pub struct Positions {
    /// The file's start.
    file: Option<Span>,
    /// Each `allow-hosts:` entry.
    hosts: Vec<Span>,
    /// Each link's `name:` value.
    links: Vec<Span>,
    /// Each link's side fields that name local paths (`docs.file`,
    /// `recipe.docs-root`, ...).
    paths: Vec<BTreeMap<String, Span>>,
    /// `policy.major` / `minor` / `ignore` entries, by class then index.
    policy: BTreeMap<String, Vec<Span>>,
    /// Each waiver's fields (`link`, `key`, `reason`, `until`), and the waiver itself.
    waivers: Vec<(Span, BTreeMap<String, Span>)>,
}

impl Positions {
    fn read(source: &Source) -> Positions {
        use serde::de::IgnoredAny;
        use serde_saphyr::Spanned;
        #[derive(Deserialize, Default)]
        struct RawIx {
            #[serde(default, rename = "where")]
            filter: Option<Spanned<IgnoredAny>>,
        }
        #[derive(Deserialize, Default)]
        struct RawSide {
            #[serde(default)]
            file: Option<Spanned<IgnoredAny>>,
            #[serde(default, rename = "docs-root")]
            docs_root: Option<Spanned<IgnoredAny>>,
            #[serde(default)]
            inferencex: Option<RawIx>,
            env: Option<Spanned<IgnoredAny>>,
            hardware: Option<Spanned<IgnoredAny>>,
            platform: Option<Spanned<IgnoredAny>>,
            #[serde(rename = "engine-version")]
            engine_version: Option<Spanned<IgnoredAny>>,
        }
        #[derive(Deserialize)]
        struct RawLink {
            name: Spanned<IgnoredAny>,
            #[serde(default)]
            docs: RawSide,
            #[serde(default)]
            recipe: RawSide,
            hardware: Option<Spanned<IgnoredAny>>,
            #[serde(rename = "engine-version")]
            engine_version: Option<Spanned<IgnoredAny>>,
        }
        #[derive(Deserialize, Default)]
        struct RawPolicy {
            #[serde(default)]
            major: Vec<Spanned<IgnoredAny>>,
            #[serde(default)]
            minor: Vec<Spanned<IgnoredAny>>,
            #[serde(default)]
            ignore: Vec<Spanned<IgnoredAny>>,
        }
        #[derive(Deserialize)]
        struct Raw {
            #[serde(default)]
            links: Vec<RawLink>,
            #[serde(default)]
            policy: RawPolicy,
            #[serde(default)]
            waivers: Vec<Spanned<BTreeMap<String, Spanned<IgnoredAny>>>>,
            #[serde(default, rename = "allow-hosts")]
            allow_hosts: Vec<Spanned<IgnoredAny>>,
        }
        let file = Some(Span::start_of(&source.origin));
        let Ok(raw) = serde_saphyr::from_str::<Raw>(&source.text) else {
            return Positions {
                file,
                ..Positions::default()
            };
        };
        let at = |s: &serde_saphyr::Location| source.yaml_span(s);
        let mut policy = BTreeMap::new();
        for (class, entries) in [
            ("major", &raw.policy.major),
            ("minor", &raw.policy.minor),
            ("ignore", &raw.policy.ignore),
        ] {
            policy.insert(
                class.to_string(),
                entries.iter().map(|e| at(&e.referenced)).collect(),
            );
        }
        Positions {
            file,
            hosts: raw.allow_hosts.iter().map(|h| at(&h.referenced)).collect(),
            links: raw.links.iter().map(|l| at(&l.name.referenced)).collect(),
            paths: raw
                .links
                .iter()
                .map(|l| {
                    let mut m = BTreeMap::new();
                    for (field, v) in [
                        ("hardware", l.hardware.as_ref()),
                        ("engine-version", l.engine_version.as_ref()),
                    ] {
                        if let Some(v) = v {
                            m.insert(field.to_string(), at(&v.referenced));
                        }
                    }
                    for (role, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
                        let filter = side.inferencex.as_ref().and_then(|ix| ix.filter.as_ref());
                        for (field, v) in [
                            ("file", side.file.as_ref()),
                            ("docs-root", side.docs_root.as_ref()),
                            ("inferencex.where", filter),
                            ("env", side.env.as_ref()),
                            ("hardware", side.hardware.as_ref()),
                            ("platform", side.platform.as_ref()),
                            ("engine-version", side.engine_version.as_ref()),
                        ] {
                            if let Some(v) = v {
                                m.insert(format!("{role}.{field}"), at(&v.referenced));
                            }
                        }
                    }
                    m
                })
                .collect(),
            policy,
            waivers: raw
                .waivers
                .iter()
                .map(|w| {
                    (
                        at(&w.referenced),
                        w.value
                            .iter()
                            .map(|(k, v)| (k.clone(), at(&v.referenced)))
                            .collect(),
                    )
                })
                .collect(),
        }
    }

    fn file(&self) -> Span {
        self.file
            .clone()
            .unwrap_or_else(|| Span::start_of(&crate::span::Origin::Inline("config".into())))
    }

    /// The `name:` of link `i` (the file's start when unknown).
    pub fn link(&self, i: usize) -> Span {
        self.links.get(i).cloned().unwrap_or_else(|| self.file())
    }

    /// Field `field` (`docs.file`, ...) of link `i` (the link when unknown).
    pub fn link_field(&self, i: usize, field: &str) -> Span {
        self.paths
            .get(i)
            .and_then(|m| m.get(field))
            .cloned()
            .unwrap_or_else(|| self.link(i))
    }

    /// Entry `i` of `policy.CLASS`.
    pub fn policy_entry(&self, class: &str, i: usize) -> Span {
        self.policy
            .get(class)
            .and_then(|v| v.get(i))
            .cloned()
            .unwrap_or_else(|| self.file())
    }

    /// Field `field` of waiver `i` (the waiver itself when the field is absent).
    pub fn waiver_field(&self, i: usize, field: &str) -> Span {
        match self.waivers.get(i) {
            Some((whole, fields)) => fields.get(field).cloned().unwrap_or_else(|| whole.clone()),
            None => self.file(),
        }
    }
}

impl Manifest {
    /// Reads a config file: `Err` when it cannot be read or parsed; else the
    /// config with relative paths made relative to its folder, and every error
    /// its own checks find (names, hosts, targets, sides), in file order, so a
    /// caller can add its own checks' errors and report them all at once.
    pub fn read(path: &Path) -> Result<(Manifest, Vec<Error>), Error> {
        let source = Source::read(path)?;
        crate::files::check_line_endings(&source, crate::files::LineEndings::Text)?;
        let mut m: Manifest =
            serde_saphyr::from_str(&source.text).map_err(|e| Error::yaml(&source, &e))?;
        m.positions = Positions::read(&source);
        // Every error of the file at once, in file order.
        let mut errors = Vec::new();
        // A config file may widen the network to public DNS names only.
        for (i, host) in m.allow_hosts.iter().enumerate() {
            if let Some(why) = crate::fetch::check_config_host(host) {
                errors.push(Error::Input {
                    span: m
                        .positions
                        .hosts
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| m.positions.file()),
                    message: format!("allow-hosts: {why}"),
                });
            }
        }
        errors.extend(m.check_names());
        errors.extend(m.check_targets());
        let base = path.parent().unwrap_or(Path::new("."));
        for (i, l) in m.links.iter_mut().enumerate() {
            for (role, side) in [("docs", &mut l.docs), ("recipe", &mut l.recipe)] {
                if let Some(ix) = &mut side.inferencex
                    && !ix.filter.is_empty()
                {
                    ix.filter_at = Some(
                        m.positions
                            .link_field(i, &format!("{role}.inferencex.where")),
                    );
                }
                if let Some(ix) = &mut side.inferencex
                    && !side.env.is_empty()
                {
                    ix.env_at = Some(m.positions.link_field(i, &format!("{role}.env")));
                }
                if let Some(root) = &mut side.docs_root
                    && root.is_relative()
                {
                    *root = normalize(&base.join(&*root));
                }
                let remote =
                    |p: &Path| crate::files::RemoteRef::parse(&p.to_string_lossy()).is_some();
                match (&mut side.file, &mut side.inferencex) {
                    (Some(f), None) if remote(f) => {}
                    (None, Some(ix)) if remote(&ix.root) => {}
                    (Some(f), None) if f.is_relative() => *f = normalize(&base.join(&*f)),
                    (None, Some(ix)) if ix.root.is_relative() => {
                        ix.root = normalize(&base.join(&ix.root))
                    }
                    (Some(_), None) | (None, Some(_)) => {}
                    _ => errors.push(Error::Input {
                        span: m.positions.link(i),
                        message: format!(
                            "link {:?}: the {role} side needs exactly one of `file` or `inferencex`",
                            l.name
                        ),
                    }),
                }
            }
        }
        Ok((m, errors))
    }

    /// Link names are unique (an error at the second), and `env:` names are
    /// shell variable names (`[A-Za-z_][A-Za-z0-9_]*`, an error at the `env:`).
    fn check_names(&self) -> Vec<Error> {
        let mut errors = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (i, l) in self.links.iter().enumerate() {
            if !seen.insert(l.name.as_str()) {
                errors.push(Error::Input {
                    span: self.positions.link(i),
                    message: format!(
                        "link {:?}: a second link of this name (link names are how reports and waivers refer to links)",
                        l.name
                    ),
                });
            }
            for (role, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
                let shell_name = |n: &str| {
                    n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                };
                for bad in side.env.keys().filter(|n| !shell_name(n)) {
                    errors.push(Error::Input {
                        span: self.positions.link_field(i, &format!("{role}.env")),
                        message: format!(
                            "link {:?}: {role} env: {bad:?} is not an environment variable name (letters, digits and `_`, not starting with a digit)",
                            l.name
                        ),
                    });
                }
            }
        }
        errors
    }

    /// Each link's and side's `hardware:` is a known SKU (unless the side
    /// gives its `platform:`), `platform:` a known platform and
    /// `engine-version:` a PEP 440 version: errors at the field, with the
    /// nearest SKU when one is close.
    fn check_targets(&self) -> Vec<Error> {
        let mut errors = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            let at = |field: &str| self.positions.link_field(i, field);
            let mut fail = |field: &str, message: String| {
                errors.push(Error::Input {
                    span: at(field),
                    message: format!("link {:?}: {field}: {message}", l.name),
                })
            };
            if let Some(v) = &l.engine_version
                && let Some(why) = bad_version(v)
            {
                fail("engine-version", why);
            }
            let sides_have_platforms = l.docs.platform.is_some() && l.recipe.platform.is_some();
            if let Some(h) = &l.hardware
                && !sides_have_platforms
                && let Err(why) = crate::hardware::check_name(h)
            {
                fail("hardware", why);
            }
            for (role, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
                if let Some(p) = &side.platform
                    && crate::launch::Platform::parse(p).is_none()
                {
                    fail(
                        &format!("{role}.platform"),
                        format!("unknown platform {p:?} (cuda, rocm, cpu)"),
                    );
                }
                if let Some(v) = &side.engine_version
                    && let Some(why) = bad_version(v)
                {
                    fail(&format!("{role}.engine-version"), why);
                }
                if let Some(h) = &side.hardware
                    && side.platform.is_none()
                    && let Err(why) = crate::hardware::check_name(h)
                {
                    fail(&format!("{role}.hardware"), why);
                }
            }
        }
        errors
    }

    /// Checks the config against the run's confined file layer: each link's
    /// local `file:` and `docs-root:` must lie inside a root (an error at the
    /// field, naming the path); each local InferenceX `root:` becomes a root
    /// of its own (a checkout of another repository).
    pub fn confine(&self) -> Result<(), Error> {
        let remote = |p: &Path| crate::files::RemoteRef::parse(&p.to_string_lossy()).is_some();
        let mut errors = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            for (role, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
                if let Some(ix) = &side.inferencex
                    && !remote(&ix.root)
                    && let Err(e) = crate::files::add_root(&ix.root)
                {
                    errors.push(Error::Input {
                        span: self.positions.link(i),
                        message: format!("link {:?}: inferencex root: {}", l.name, e.message()),
                    });
                }
                for (field, path) in [("file", &side.file), ("docs-root", &side.docs_root)] {
                    if let Some(p) = path
                        && !remote(p)
                        && let Err(e) = crate::files::admit(p)
                    {
                        errors.push(Error::Input {
                            span: self.positions.link_field(i, &format!("{role}.{field}")),
                            message: format!("link {:?}: {role} {field}: {}", l.name, e.message()),
                        });
                    }
                }
            }
        }
        Error::all(errors)
    }

    /// Why link `i`'s local `file:` cannot be read (missing, a folder), as an
    /// error at the config's `file:` field, for the first side that has such
    /// a file; `None` when both can be opened (or are remote, or InferenceX).
    pub fn unreadable_file(&self, i: usize) -> Option<Error> {
        let l = self.links.get(i)?;
        [("docs", &l.docs), ("recipe", &l.recipe)]
            .into_iter()
            .find_map(|(role, side)| {
                let f = side.file.as_ref()?;
                if crate::files::RemoteRef::parse(&f.to_string_lossy()).is_some() {
                    return None;
                }
                let why = match crate::files::admit(f).map(std::fs::metadata) {
                    Err(e) => e.message().to_string(),
                    Ok(Err(e)) => crate::files::io_reason(&e),
                    Ok(Ok(m)) if m.is_dir() => "is a folder, not a file".to_string(),
                    Ok(Ok(_)) => return None,
                };
                Some(Error::Input {
                    span: self.positions.link_field(i, &format!("{role}.file")),
                    message: format!("link {:?}: {role} file {}: {why}", l.name, f.display()),
                })
            })
    }

    /// The names a config file may have in a folder, in the order tried.
    pub const NAMES: &'static [&'static str] = &[
        ".recipe-drift.yaml",
        ".github/.recipe-drift.yaml",
        ".github/recipe-drift.yaml",
    ];

    /// The names of [`Manifest::NAMES`] as messages list them (`a, b or c`).
    pub fn names_listed() -> String {
        let quoted: Vec<String> = Self::NAMES.iter().map(|n| n.to_string()).collect();
        match quoted.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// Finds the config for the current folder: [`Manifest::NAMES`] in it,
    /// then in each parent up to the repository's top level (the first folder
    /// holding `.git`), as ruff and typos search theirs. Paths are relative to
    /// the current folder when found there, else absolute.
    pub fn discover() -> Option<PathBuf> {
        if let Some(n) = Self::NAMES.iter().find(|n| Path::new(n).is_file()) {
            return Some(PathBuf::from(n));
        }
        if Path::new(".git").exists() {
            return None;
        }
        let cwd = std::env::current_dir().ok()?;
        let mut dir = cwd.parent();
        while let Some(d) = dir {
            if let Some(found) = Self::NAMES.iter().map(|n| d.join(n)).find(|p| p.is_file()) {
                return Some(found);
            }
            if d.join(".git").exists() {
                return None;
            }
            dir = d.parent();
        }
        None
    }

    /// The config a command reads: `--config FILE`, else `$RECIPE_DRIFT_CONFIG`
    /// (not empty), else [`Manifest::discover`]; none with `--no-config`. A
    /// named file that is not there is an error naming where it was named.
    pub fn locate(explicit: Option<&Path>, no_config: bool) -> Result<Option<PathBuf>, Error> {
        if no_config {
            return Ok(None);
        }
        if let Some(p) = explicit {
            return Ok(Some(p.to_path_buf()));
        }
        if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            if !p.is_file() {
                return Err(Error::usage(format!(
                    "${CONFIG_ENV} names {}, which is not a file",
                    p.display()
                )));
            }
            return Ok(Some(p));
        }
        Ok(Self::discover())
    }
}

/// The JSON Schema of the config file (draft 2020-12), from the same types
/// the config is read into, so it cannot drift from what is accepted; pretty
/// JSON with a final newline (`recipe-drift config-schema`, published as
/// `docs/config.schema.json`).
pub fn schema_json() -> String {
    let mut schema = schemars::schema_for!(Manifest);
    schema.insert(
        "title".into(),
        "recipe-drift config (.recipe-drift.yaml)".into(),
    );
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
    text.push('\n');
    text
}

/// The environment variable that names the config file when `--config` is
/// not given.
pub const CONFIG_ENV: &str = "RECIPE_DRIFT_CONFIG";

/// Why `v` is not a PEP 440 version (a leading `v` is allowed), if it is not.
fn bad_version(v: &str) -> Option<String> {
    v.trim_start_matches('v')
        .parse::<pep440_rs::Version>()
        .is_err()
        .then(|| format!("{v:?} is not a PEP 440 version (for example 0.5.19 or 0.5.15.post1)"))
}

/// Removes `.` and `dir/..` components without touching the file system.
pub fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.is_empty() {
        PathBuf::from(".")
    } else {
        out.iter().collect()
    }
}
