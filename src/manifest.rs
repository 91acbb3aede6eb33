//! The config file (`.recipe-drift.yaml`): links between a docs side and a recipe
//! side, policy overrides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;
use crate::policy::ClassLists;
use crate::span::{Source, Span};

/// One side of a link.
#[derive(Debug, Clone, Default, Deserialize)]
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
#[derive(Debug, Clone, Default, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Links to check.
    pub links: Vec<LinkSpec>,
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
        }
        #[derive(Deserialize)]
        struct RawLink {
            name: Spanned<IgnoredAny>,
            #[serde(default)]
            docs: RawSide,
            #[serde(default)]
            recipe: RawSide,
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
                    for (role, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
                        let filter = side.inferencex.as_ref().and_then(|ix| ix.filter.as_ref());
                        for (field, v) in [
                            ("file", side.file.as_ref()),
                            ("docs-root", side.docs_root.as_ref()),
                            ("inferencex.where", filter),
                            ("env", side.env.as_ref()),
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
    /// Loads a config file; relative paths in it are made relative to its folder.
    pub fn load(path: &Path) -> Result<Manifest, Error> {
        let source = Source::read(path)?;
        crate::files::check_line_endings(&source, crate::files::LineEndings::Text)?;
        let mut m: Manifest =
            serde_saphyr::from_str(&source.text).map_err(|e| Error::yaml(&source, &e))?;
        m.positions = Positions::read(&source);
        // A config file may widen the network to public DNS names only.
        for (i, host) in m.allow_hosts.iter().enumerate() {
            if let Some(why) = crate::fetch::check_config_host(host) {
                return Err(Error::Input {
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
        m.check_names()?;
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
                    _ => {
                        return Err(Error::Input {
                            span: m.positions.link(i),
                            message: format!(
                                "link {:?}: the {role} side needs exactly one of `file` or `inferencex`",
                                l.name
                            ),
                        });
                    }
                }
            }
        }
        Ok(m)
    }

    /// Link names are unique (an error at the second), and `env:` names are
    /// shell variable names (`[A-Za-z_][A-Za-z0-9_]*`, an error at the `env:`).
    fn check_names(&self) -> Result<(), Error> {
        let mut seen = std::collections::BTreeSet::new();
        for (i, l) in self.links.iter().enumerate() {
            if !seen.insert(l.name.as_str()) {
                return Err(Error::Input {
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
                if let Some(bad) = side.env.keys().find(|n| !shell_name(n)) {
                    return Err(Error::Input {
                        span: self.positions.link_field(i, &format!("{role}.env")),
                        message: format!(
                            "link {:?}: {role} env: {bad:?} is not an environment variable name (letters, digits and `_`, not starting with a digit)",
                            l.name
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Checks the config against the run's confined file layer: each link's
    /// local `file:` and `docs-root:` must lie inside a root (an error at the
    /// field, naming the path); each local InferenceX `root:` becomes a root
    /// of its own (a checkout of another repository).
    pub fn confine(&self) -> Result<(), Error> {
        let remote = |p: &Path| crate::files::RemoteRef::parse(&p.to_string_lossy()).is_some();
        for (i, l) in self.links.iter().enumerate() {
            for (role, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
                if let Some(ix) = &side.inferencex
                    && !remote(&ix.root)
                {
                    crate::files::add_root(&ix.root).map_err(|e| Error::Input {
                        span: self.positions.link(i),
                        message: format!("link {:?}: inferencex root: {}", l.name, e.message()),
                    })?;
                }
                for (field, path) in [("file", &side.file), ("docs-root", &side.docs_root)] {
                    if let Some(p) = path
                        && !remote(p)
                    {
                        crate::files::admit(p).map_err(|e| Error::Input {
                            span: self.positions.link_field(i, &format!("{role}.{field}")),
                            message: format!("link {:?}: {role} {field}: {}", l.name, e.message()),
                        })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Finds `.recipe-drift.yaml` at the current directory or in `.github/`.
    pub fn discover() -> Option<PathBuf> {
        [
            ".recipe-drift.yaml",
            ".github/.recipe-drift.yaml",
            ".github/recipe-drift.yaml",
        ]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    }
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
