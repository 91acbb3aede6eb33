//! The config file (`.recipe-drift.yaml`): links between a docs side and a recipe
//! side, policy overrides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;
use crate::policy::ClassLists;
use crate::source::Source;

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
}

impl Manifest {
    /// Loads a config file; relative paths in it are made relative to its folder.
    pub fn load(path: &Path) -> Result<Manifest, Error> {
        let source = Source::read(path)?;
        let mut m: Manifest = serde_saphyr::from_str(&source.text)
            .map_err(|e| yaml_error(&source, &e.to_string()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        for l in &mut m.links {
            for (role, side) in [("docs", &mut l.docs), ("recipe", &mut l.recipe)] {
                if let Some(root) = &mut side.docs_root
                    && root.is_relative()
                {
                    *root = normalize(&base.join(&*root));
                }
                let remote =
                    |p: &Path| crate::source::RemoteRef::parse(&p.to_string_lossy()).is_some();
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
                            at: format!("{}:1:1", path.display()),
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

/// A YAML error as `file:line:col: message`, reading the position serde-saphyr reports.
pub fn yaml_error(source: &Source, message: &str) -> Error {
    let (line, col) = find_line_col(message).unwrap_or((1, 1));
    let mut first = message.lines().next().unwrap_or(message).trim();
    first = first.strip_prefix("error:").unwrap_or(first).trim();
    // Drop a leading "line N column M:" (the position is already in front).
    if first.starts_with("line ")
        && let Some(at) = first.find(": ")
    {
        first = &first[at + 2..];
    }
    Error::Input {
        at: format!("{}:{line}:{col}", source.origin.label()),
        message: format!("invalid YAML: {first}"),
    }
}

/// Extracts "line N column M" (or "line N, column M") from a message.
fn find_line_col(msg: &str) -> Option<(usize, usize)> {
    let lower = msg.to_ascii_lowercase();
    let li = lower.find("line ")?;
    let rest = &lower[li + 5..];
    let line: usize = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    let col = lower[li..]
        .find("column ")
        .and_then(|ci| {
            lower[li + ci + 7..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(1);
    Some((line, col))
}
