//! The hardware taxonomy: hardware profiles from `taxonomy.yaml` and the
//! strategy definitions of the `strategies/` folder beside it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::layer::{EnvEntry, Layer, Word, assign_env, push_args};
use super::yaml::{Node, Val, parse_yaml};
use crate::error::Error;
use crate::launch::Platform;
use crate::span::{Origin, Source, Span};

/// One hardware profile of `taxonomy.yaml` (`hardware_profiles.<id>`).
#[derive(Debug, Clone, Serialize)]
pub struct HardwareProfile {
    /// The profile id (`h200`, `mi355x`, ...).
    pub id: String,
    /// `NVIDIA`, `AMD`, `Intel`, `Google`, ...
    pub brand: Option<String>,
    /// The generation used for override lookups (`hopper`, `blackwell`, `amd`,
    /// `cpu`, `tpu`, ...); the first one when the profile lists several.
    pub generation: Option<String>,
    /// All generations the profile lists (precision constraints match any).
    pub generations: Vec<String>,
    /// Display name.
    pub display_name: Option<String>,
    /// GPUs per node, when the profile gives a number.
    pub gpu_count: Option<f64>,
    /// VRAM per node in GB, when the profile gives a number.
    pub vram_gb: Option<f64>,
    /// Shown only to recipes that list it under `meta.hardware`.
    pub restricted: bool,
    /// Can be clustered into several nodes (`scalable: false` says no).
    pub scalable: bool,
}

impl HardwareProfile {
    /// GPUs per node as the site counts them for TP sizes (`1` when unknown).
    pub(super) fn gpus(&self) -> f64 {
        self.gpu_count.unwrap_or(1.0)
    }

    pub(super) fn brand_is(&self, b: &str) -> bool {
        self.brand.as_deref() == Some(b)
    }

    pub(super) fn is_cpu(&self) -> bool {
        self.generation.as_deref() == Some("cpu")
    }

    pub(super) fn platform(&self) -> Option<Platform> {
        if self.is_cpu() {
            Some(Platform::Cpu)
        } else if self.brand_is("NVIDIA") {
            Some(Platform::Cuda)
        } else if self.brand_is("AMD") {
            Some(Platform::Rocm)
        } else {
            None
        }
    }
}

/// A deployment strategy (`strategies/<name>.yaml`).
#[derive(Debug, Clone, Serialize)]
pub struct StrategySpec {
    /// The strategy id (`single_node_tp`, ...).
    pub name: String,
    /// `single_node`, `multi_node`, `pd_cluster`, `kv_store_lb`.
    pub deploy_type: Option<String>,
    /// The flag that carries the parallel size (default `--tensor-parallel-size`).
    pub parallel_flag: Option<String>,
    /// The strategy's own vLLM arguments, in order.
    pub args: Vec<String>,
    /// The strategy's environment, in order.
    pub env: Vec<(String, String)>,
    #[serde(skip)]
    pub(super) words: Vec<Word>,
    #[serde(skip)]
    pub(super) env_entries: Vec<EnvEntry>,
    /// A `pd_cluster` strategy's pools (`prefill:`, `decode:`), in that
    /// order; empty for every other strategy.
    pub roles: Vec<PoolSpec>,
}

/// One pool of a `pd_cluster` strategy (`strategies/pd_cluster.yaml:
/// prefill` or `decode`): its own arguments and environment, and the pool
/// defaults a recipe's `strategy_overrides.pd_cluster.<role>` may override.
#[derive(Debug, Clone, Serialize)]
pub struct PoolSpec {
    /// `prefill` or `decode`.
    pub role: String,
    /// The pool's own vLLM arguments, in order.
    pub args: Vec<String>,
    /// Its parallelism mode (`tp`, `tep`, `dep`), when the strategy says one.
    pub parallelism: Option<String>,
    /// Its TP size, when the strategy says one.
    pub tp: Option<f64>,
    /// The flag of a TP pool's size, when the strategy names one.
    pub parallel_flag: Option<String>,
    #[serde(skip)]
    pub(super) words: Vec<Word>,
    #[serde(skip)]
    pub(super) env_entries: Vec<EnvEntry>,
}

/// The pools of a prefill/decode cluster, in the order the site composes them.
pub const POOL_ROLES: [&str; 2] = ["prefill", "decode"];

impl PoolSpec {
    fn from_node(role: &str, node: &Node, layer: &str) -> Result<PoolSpec, Error> {
        let mut words = Vec::new();
        push_args(
            node.get("vllm_args"),
            &format!("{layer} {role}.vllm_args"),
            &mut words,
        )?;
        let mut env_entries = Vec::new();
        assign_env(
            node.get("env"),
            &format!("{layer} {role}.env"),
            &mut env_entries,
        )?;
        Ok(PoolSpec {
            role: role.to_string(),
            args: words.iter().map(|w| w.text.clone()).collect(),
            parallelism: node.get("parallelism").and_then(Node::truthy_string),
            tp: node.get("tp").and_then(Node::as_num),
            parallel_flag: node.get("parallel_flag").and_then(Node::truthy_string),
            words,
            env_entries,
        })
    }
}

impl StrategySpec {
    fn from_node(node: &Node, fallback_name: &str) -> Result<StrategySpec, Error> {
        let name = node
            .get("name")
            .and_then(Node::truthy_string)
            .unwrap_or_else(|| fallback_name.to_string());
        let layer = format!("strategy {name}");
        let mut words = Vec::new();
        push_args(
            node.get("vllm_args"),
            &format!("{layer} vllm_args"),
            &mut words,
        )?;
        let mut env_entries = Vec::new();
        assign_env(node.get("env"), &format!("{layer} env"), &mut env_entries)?;
        let deploy_type = node.get("deploy_type").and_then(Node::truthy_string);
        let mut roles = Vec::new();
        if deploy_type.as_deref() == Some(PD_CLUSTER) {
            for role in POOL_ROLES {
                let empty = Node {
                    span: node.span.clone(),
                    val: Val::Map(vec![]),
                };
                let pool = node.get(role).filter(|n| n.is_map()).unwrap_or(&empty);
                roles.push(PoolSpec::from_node(role, pool, &layer)?);
            }
        }
        Ok(StrategySpec {
            roles,
            deploy_type,
            parallel_flag: node.get("parallel_flag").and_then(Node::truthy_string),
            args: words.iter().map(|w| w.text.clone()).collect(),
            env: env_entries
                .iter()
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect(),
            name,
            words,
            env_entries,
        })
    }

    /// The three single-node strategies as the site defines them, for a
    /// taxonomy without a `strategies/` folder next to it.
    fn builtin() -> Vec<StrategySpec> {
        let mk = |name: &str, args: &[&str], flag: &str| {
            let layer = Layer {
                name: format!("strategy {name} vllm_args"),
                span: None,
                why: Some(
                    "built-in definition (no strategies/ folder next to taxonomy.yaml)".into(),
                ),
            };
            StrategySpec {
                name: name.to_string(),
                deploy_type: Some("single_node".into()),
                parallel_flag: Some(flag.to_string()),
                args: args.iter().map(|s| s.to_string()).collect(),
                env: vec![],
                roles: vec![],
                words: args
                    .iter()
                    .map(|a| Word {
                        text: a.to_string(),
                        layer: layer.clone(),
                    })
                    .collect(),
                env_entries: vec![],
            }
        };
        vec![
            mk("single_node_tp", &[], "--tensor-parallel-size"),
            mk(
                "single_node_tep",
                &["--enable-expert-parallel"],
                "--tensor-parallel-size",
            ),
            mk(
                "single_node_dep",
                &["--enable-expert-parallel"],
                "--data-parallel-size",
            ),
        ]
    }

    pub(super) fn is_single_node(&self) -> bool {
        self.deploy_type.as_deref() == Some("single_node")
    }

    /// Whether it is a prefill/decode cluster (`deploy_type: pd_cluster`).
    pub(super) fn is_pd_cluster(&self) -> bool {
        self.deploy_type.as_deref() == Some(PD_CLUSTER)
    }

    /// The pool of a role (`prefill`, `decode`) of a `pd_cluster` strategy.
    pub(super) fn pool(&self, role: &str) -> Option<&PoolSpec> {
        self.roles.iter().find(|p| p.role == role)
    }
}

/// The deploy type of a prefill/decode cluster.
pub const PD_CLUSTER: &str = "pd_cluster";

/// A composing option of the site's "KV Offload" row
/// (`taxonomy.yaml: kv_offload.<key>`): arguments appended after the
/// features and environment set after the strategy's, on the strategies,
/// recipes and hardware brands its gates allow.
#[derive(Debug, Clone, Serialize)]
pub struct KvOffloadOption {
    /// The option key (`simple`, `offloading_cpu`, `lmcache`, ...).
    pub key: String,
    /// The strategies it may run under (`None`: every serving strategy).
    pub strategies: Option<Vec<String>>,
    /// The hardware brands it is offered on (`None`: every brand).
    pub brands: Option<Vec<String>>,
    /// Fail-closed: offered only where the recipe lists it `verified` under
    /// `kv_offload_support`.
    pub requires_opt_in: bool,
    /// Its arguments, in order.
    pub args: Vec<String>,
    #[serde(skip)]
    pub(super) words: Vec<Word>,
    #[serde(skip)]
    pub(super) env_entries: Vec<EnvEntry>,
    /// Where the option's key is written in `taxonomy.yaml`.
    #[serde(skip)]
    pub(super) span: Span,
}

impl KvOffloadOption {
    fn from_node(key: &str, span: &Span, node: &Node) -> Result<KvOffloadOption, Error> {
        let layer = format!("kv_offload.{key}");
        let mut words = Vec::new();
        push_args(node.get("args"), &format!("{layer}.args"), &mut words)?;
        let mut env_entries = Vec::new();
        assign_env(node.get("env"), &format!("{layer}.env"), &mut env_entries)?;
        // An allowlist that is absent or empty allows everything (the site's
        // `!Array.isArray(allow) || allow.length === 0`).
        let allowlist = |name: &str| -> Option<Vec<String>> {
            match node.get(name) {
                Some(Node {
                    val: Val::Seq(items),
                    ..
                }) if !items.is_empty() => {
                    Some(items.iter().filter_map(Node::scalar_string).collect())
                }
                _ => None,
            }
        };
        Ok(KvOffloadOption {
            key: key.to_string(),
            strategies: allowlist("strategies"),
            brands: allowlist("brands"),
            requires_opt_in: node.get("requires_opt_in").is_some_and(Node::truthy),
            args: words.iter().map(|w| w.text.clone()).collect(),
            words,
            env_entries,
            span: span.clone(),
        })
    }

    /// Why the option is not offered under this strategy and on this
    /// hardware (the site's strategy and brand gates), or `None` when it is.
    /// The recipe's own gate is [`super::Recipe`]'s.
    pub(super) fn refusal(&self, strategy: &StrategySpec, hw: &HardwareProfile) -> Option<String> {
        if matches!(
            strategy.deploy_type.as_deref(),
            Some(PD_CLUSTER | "kv_store_lb")
        ) {
            return Some(format!(
                "strategy {} owns --kv-transfer-config itself",
                strategy.name
            ));
        }
        if let Some(allow) = &self.strategies
            && !allow.contains(&strategy.name)
        {
            return Some(format!(
                "it runs under {} only, not {}",
                allow.join(", "),
                strategy.name
            ));
        }
        if let Some(allow) = &self.brands
            && !hw.brand.as_ref().is_some_and(|b| allow.contains(b))
        {
            return Some(format!(
                "it is offered on {} hardware only, not {}",
                allow.join(", "),
                hw.brand.as_deref().unwrap_or("a profile without a brand")
            ));
        }
        None
    }
}

/// The site's controlled vocabulary: hardware profiles from `taxonomy.yaml`
/// and strategy definitions from the `strategies/` folder beside it.
#[derive(Debug, Clone, Serialize)]
pub struct Taxonomy {
    /// The `taxonomy.yaml` it was read from.
    pub path: PathBuf,
    /// Hardware profiles, in file order.
    pub hardware: Vec<HardwareProfile>,
    /// Strategy definitions, by file name order.
    pub strategies: Vec<StrategySpec>,
    /// The `strategies/` folder read, or `None` when the built-in single-node
    /// definitions are used.
    pub strategies_dir: Option<PathBuf>,
    /// The composing options of the "KV Offload" row, in file order.
    pub kv_offload: Vec<KvOffloadOption>,
    /// Where `kv_offload` is written (the profiles' span when it is not).
    #[serde(skip)]
    pub(super) kv_offload_span: Span,
    #[serde(skip)]
    pub(super) profiles_span: Span,
}

impl Taxonomy {
    /// Finds `taxonomy.yaml` in the model file's folder or any folder above it.
    pub fn find_for(model_path: &Path) -> Result<Taxonomy, Error> {
        let start = model_path.parent().unwrap_or(Path::new("."));
        for dir in crate::files::upward_folders(start) {
            let candidate = dir.join("taxonomy.yaml");
            // Confined: one outside the roots counts as missing (the same
            // message whether or not it exists).
            if crate::files::is_readable_file(&candidate) {
                return Taxonomy::load(&candidate);
            }
        }
        Err(Error::Input {
            span: crate::span::Span::of_path(model_path),
            message: format!(
                "no taxonomy.yaml in this folder or any folder above it{}; give the taxonomy explicitly",
                crate::files::search_stop_note(start)
            ),
        })
    }

    /// Reads a `taxonomy.yaml` and the `strategies/*.yaml` beside it (the
    /// built-in single-node definitions when there is no such folder).
    pub fn load(path: &Path) -> Result<Taxonomy, Error> {
        let source = Source::read(path)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let sdir = dir.join("strategies");
        // Through the confined layer: a `strategies` folder outside the
        // roots is absent, like a missing one, and is never listed.
        let has_dir = crate::files::probe(&sdir) == crate::files::Probe::Dir;
        let strategies = if has_dir {
            use crate::files::Files as _;
            let mut files: Vec<PathBuf> = crate::files::LocalFiles
                .list(&crate::files::Location::Path(sdir.clone()))?
                .into_iter()
                .map(|name| sdir.join(name))
                .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
                .collect();
            files.sort();
            let mut out = Vec::new();
            for f in files {
                let s = Source::read(&f)?;
                let node = parse_yaml(&s)?;
                let stem = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push(StrategySpec::from_node(&node, &stem)?);
            }
            Some(out)
        } else {
            None
        };
        let mut t = Taxonomy::parse(&source, strategies)?;
        if has_dir {
            t.strategies_dir = Some(sdir);
        }
        Ok(t)
    }

    /// Parses a taxonomy text; `strategies` are the strategy definitions
    /// (`None`: the built-in single-node ones).
    pub fn parse(
        source: &Source,
        strategies: Option<Vec<StrategySpec>>,
    ) -> Result<Taxonomy, Error> {
        let root = parse_yaml(source)?;
        let profiles = root.get("hardware_profiles");
        let profiles_span = root
            .key_span("hardware_profiles")
            .unwrap_or_else(|| source.span(0, 0));
        let mut hardware = Vec::new();
        if let Some(p) = profiles {
            if !p.is_map() {
                return Err(Error::input(
                    p.span.clone(),
                    "`hardware_profiles` must be a mapping",
                ));
            }
            for (id, _, prof) in p.entries() {
                let gens: Vec<String> = match prof
                    .get("generation")
                    .or_else(|| prof.get("gpu_generation"))
                {
                    Some(Node {
                        val: Val::Seq(items),
                        ..
                    }) => items.iter().filter_map(Node::scalar_string).collect(),
                    Some(n) => n.truthy_string().into_iter().collect(),
                    None => vec![],
                };
                hardware.push(HardwareProfile {
                    id: id.clone(),
                    brand: prof.get("brand").and_then(Node::scalar_string),
                    generation: gens.first().cloned(),
                    generations: gens,
                    display_name: prof.get("display_name").and_then(Node::scalar_string),
                    gpu_count: prof.get("gpu_count").and_then(Node::as_num),
                    vram_gb: prof.get("vram_gb").and_then(Node::as_num),
                    restricted: prof.get("restricted").is_some_and(Node::truthy),
                    scalable: !matches!(
                        prof.get("scalable").map(|n| &n.val),
                        Some(Val::Bool(false))
                    ),
                });
            }
        }
        let mut kv_offload = Vec::new();
        let kv_offload_span = root
            .key_span("kv_offload")
            .unwrap_or_else(|| profiles_span.clone());
        if let Some(k) = root.get("kv_offload").filter(|k| k.truthy()) {
            if !k.is_map() {
                return Err(Error::input(
                    k.span.clone(),
                    "`kv_offload` must be a mapping of option keys",
                ));
            }
            for (key, span, node) in k.entries() {
                kv_offload.push(KvOffloadOption::from_node(key, span, node)?);
            }
        }
        Ok(Taxonomy {
            kv_offload,
            kv_offload_span,
            path: match &source.origin {
                Origin::File(p) => p.clone(),
                other => PathBuf::from(other.label()),
            },
            hardware,
            strategies: strategies.unwrap_or_else(StrategySpec::builtin),
            strategies_dir: None,
            profiles_span,
        })
    }

    /// The profile of a hardware id.
    pub fn profile(&self, id: &str) -> Option<&HardwareProfile> {
        self.hardware.iter().find(|h| h.id == id)
    }

    /// The composing KV-offload option of a key.
    pub fn kv_offload_option(&self, key: &str) -> Option<&KvOffloadOption> {
        self.kv_offload.iter().find(|o| o.key == key)
    }

    /// The definition of a strategy id.
    pub fn strategy(&self, name: &str) -> Option<&StrategySpec> {
        self.strategies.iter().rev().find(|s| s.name == name)
    }
}
