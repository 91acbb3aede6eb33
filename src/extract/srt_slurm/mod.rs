//! srt-slurm recipes (NVIDIA/srt-slurm's `srtctl`, which InferenceX's
//! `dynamo-*` entries run through `CONFIG_FILE=recipes/...`): a recipe YAML
//! and an optional selector -> one job -> a launch per role of its workers
//! (`prefill`, `decode`, `aggregated`), as srtctl's worker-command builder
//! starts them.
//!
//! - **Reading**: the YAML tree reader with PyYAML's typing (srtctl reads
//!   recipes with `yaml.safe_load`); repeated keys keep their first place and
//!   their last value, as in a Python dict. A syntax error, or a value of the
//!   wrong shape where srtctl needs a mapping or a count, is an input error at
//!   its `file:line:col`.
//! - **The job** ([`variant`]): the whole file, or `base:` with
//!   `override_<sfx>` or `zip_override_<sfx>[i]` merged over it (`null`
//!   deletes a key, lists replace).
//! - **Roles**: a role is present when its workers count is positive
//!   (`resources.prefill_workers`, `decode_workers`, `agg_workers`).
//! - **Rendering** ([`render`]): by `backend.type` (SGLang when absent) and
//!   `frontend.type` (`dynamo` when absent): `python3 -m dynamo.sglang` or
//!   `sglang.launch_server` (`--model-path /model --served-model-name NAME
//!   --host 0.0.0.0 --disaggregation-mode ROLE`), `python3 -m dynamo.vllm`
//!   (`--model /model --served-model-name NAME --disaggregation-mode ROLE
//!   --kv-transfer-config` from the connector) or `vllm serve /model --host
//!   0.0.0.0`, then the role's flag map; the role's environment map and the
//!   recipe's `environment` are the launch's environment. The values srtctl
//!   derives from the job's layout on the cluster ([`RUNTIME_FLAGS`]: ports,
//!   node addresses and ranks, GPU ids) are left out: they are not the
//!   recipe's configuration.
//! - **Unknown** (a role's reason, never a guess): a TensorRT-LLM role (not
//!   an engine recipe-drift resolves: its `trtllm_config` keys are reported as
//!   data), a served model name taken from a cluster's model folder, settings
//!   srtctl expands into flags recipe-drift does not model (`observability`,
//!   `profiling`).

mod python;
mod render;
mod variant;

use std::sync::Arc;

use serde::Serialize;

pub use render::{RUNTIME_FLAGS, is_runtime_flag, without_runtime_flags};

use crate::error::Error;
use crate::extract::yaml_tree::{self, Node, Options, Place, Schema, Val};
use crate::launch::{Launch, Role};
use crate::span::Source;
use render::{Backend, Job};

/// One role of a job.
#[derive(Debug, Clone, Serialize)]
pub struct RoleLaunch {
    /// The role.
    pub role: Role,
    /// How many workers of it the job starts.
    pub workers: u64,
    /// The nodes all its workers take together (`resources.<role>_nodes`),
    /// when the recipe says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The GPUs of one worker (`resources.gpus_per_<role>`, else its nodes'
    /// GPUs shared by its workers), when the recipe says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus_per_worker: Option<u64>,
    /// Its launch, or why it is not known.
    pub outcome: Outcome,
}

/// What a role renders to.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The launch srtctl starts (runtime flags left out).
    Launch {
        /// The launch.
        launch: Box<Launch>,
    },
    /// Not knowable from the recipe, and why.
    Unknown {
        /// Why.
        reason: String,
    },
    /// A worker of an engine recipe-drift does not resolve, with the keys of
    /// its raw config as data.
    Unsupported {
        /// The engine (`TensorRT-LLM`).
        engine: String,
        /// The keys of its config for this role, in document order.
        keys: Vec<String>,
    },
}

/// A job of a recipe, rendered per role.
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    /// `sglang`, `vllm` or `trtllm`.
    pub backend: String,
    /// `dynamo`, `sglang`, `vllm`, `trtllm_serve`.
    pub frontend: String,
    /// The roles with workers, in srtctl's order (prefill, decode, aggregated).
    pub roles: Vec<RoleLaunch>,
}

/// How srtctl reads a recipe: PyYAML's `safe_load`.
const OPTIONS: Options = Options {
    schema: Schema::PyYaml11,
    place: Place::Referenced,
    max_map_entries: None,
    inner_key_name: None,
    key_name: |key| match &key.val {
        Val::Str(s) => Some(s.clone()),
        Val::Int(n) => Some(n.to_string()),
        Val::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        _ => None,
    },
};

/// The backends srtctl knows (`backend.type`), and what recipe-drift does with each.
const BACKENDS: &[(&str, Option<Backend>)] = &[
    ("sglang", Some(Backend::Sglang)),
    ("vllm", Some(Backend::Vllm)),
    ("trtllm", None),
];

/// The roles in srtctl's order, with the names of their counts in
/// `resources`: workers, nodes, GPUs per worker.
const ROLES: &[(Role, [&str; 3])] = &[
    (
        Role::Prefill,
        ["prefill_workers", "prefill_nodes", "gpus_per_prefill"],
    ),
    (
        Role::Decode,
        ["decode_workers", "decode_nodes", "gpus_per_decode"],
    ),
    (
        Role::Aggregated,
        ["agg_workers", "agg_nodes", "gpus_per_agg"],
    ),
];

/// Python's `str()` of a value PyYAML read (what a Python program prints
/// for it).
pub(crate) fn python_str(n: &Node) -> String {
    python::str_of(n)
}

/// Reads a recipe and renders the job `selector` picks (the whole file when
/// `None` and it has no `base:`), role by role. `name` names the recipe in
/// context sources (`model.container of NAME`).
pub fn read(source: &Arc<Source>, selector: Option<&str>, name: &str) -> Result<Rendered, Error> {
    let doc = variant::dedupe(yaml_tree::parse(source, &OPTIONS)?);
    if !doc.is_map() {
        return Err(Error::input(
            doc.span.clone(),
            "an srt-slurm recipe is a mapping (name, model, resources, backend, ...)",
        ));
    }
    let job = variant::select(&doc, selector)?;
    let backend_node = job.get("backend");
    if let Some(b) = backend_node.filter(|b| !b.is_map()) {
        return Err(Error::input(b.span.clone(), "`backend` must be a mapping"));
    }
    let backend_type = match backend_node.and_then(|b| b.get("type")) {
        None => "sglang".to_string(),
        Some(t) => t
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| Error::input(t.span.clone(), "`backend.type` must be text"))?,
    };
    let Some(&(_, backend)) = BACKENDS.iter().find(|(n, _)| *n == backend_type) else {
        let t = backend_node.and_then(|b| b.get("type")).expect("named");
        return Err(Error::input(
            t.span.clone(),
            format!(
                "backend.type {backend_type:?} is not one srtctl renders ({})",
                BACKENDS.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    mapping_shapes(&job, backend)?;
    let frontend = match job.path(&["frontend", "type"]) {
        None => "dynamo".to_string(),
        Some(t) => t
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| Error::input(t.span.clone(), "`frontend.type` must be text"))?,
    };
    let unmodelled = unmodelled(&job);
    let mut roles = Vec::new();
    for &(role, [key, nodes_key, gpus_key]) in ROLES {
        let workers = workers(&job, key)?;
        if workers == 0 {
            continue;
        }
        let nodes = count(&job, nodes_key);
        let gpus_per_worker = count(&job, gpus_key).or_else(|| {
            let total = nodes?.checked_mul(count(&job, "gpus_per_node")?)?;
            (total % workers == 0).then_some(total / workers)
        });
        let outcome = match (backend, &unmodelled) {
            (_, Some(why)) => Outcome::Unknown {
                reason: why.clone(),
            },
            (None, None) => Outcome::Unsupported {
                engine: "TensorRT-LLM".into(),
                keys: job
                    .path(&["backend", "trtllm_config", render::role_key(role)])
                    .map(|m| m.keys().into_iter().map(str::to_string).collect())
                    .unwrap_or_default(),
            },
            (Some(backend), None) => {
                let j = Job {
                    source,
                    doc: &job,
                    backend,
                    frontend: &frontend,
                    context: render::context_of(&job, name),
                };
                match j.launch(role) {
                    Ok(l) => Outcome::Launch {
                        launch: Box::new(l),
                    },
                    Err(reason) => Outcome::Unknown { reason },
                }
            }
        };
        roles.push(RoleLaunch {
            role,
            workers,
            nodes,
            gpus_per_worker,
            outcome,
        });
    }
    Ok(Rendered {
        backend: backend_type,
        frontend,
        roles,
    })
}

/// A role's workers count (`resources.<key>`; absent or null: none).
fn workers(job: &Node, key: &str) -> Result<u64, Error> {
    match job.path(&["resources", key]) {
        None => Ok(0),
        Some(n) => match n.val {
            Val::Int(i) if (0..=u64::MAX as i128).contains(&i) => Ok(i as u64),
            _ => Err(Error::input(
                n.span.clone(),
                format!("`resources.{key}` must be a non-negative integer"),
            )),
        },
    }
}

/// A positive count in `resources` that the topology reads (`None` when
/// absent or not a positive integer: the topology then does not say it).
fn count(job: &Node, key: &str) -> Option<u64> {
    match job.path(&["resources", key])?.val {
        Val::Int(i) if i > 0 && i <= u64::MAX as i128 => Some(i as u64),
        _ => None,
    }
}

/// Settings srtctl expands into worker flags or environment that
/// recipe-drift does not model.
fn unmodelled(job: &Node) -> Option<String> {
    let observability = job
        .path(&["observability", "enabled"])
        .is_some_and(|n| !matches!(n.val, Val::Bool(false)));
    if observability {
        return Some(
            "observability.enabled: srtctl expands it into launch flags and environment recipe-drift does not model".into(),
        );
    }
    let profiling = job
        .get("profiling")
        .and_then(|p| p.get("type"))
        .and_then(Node::as_str)
        .is_some_and(|t| t != "none");
    if profiling {
        return Some(
            "profiling: srtctl adds profiler flags and environment recipe-drift does not model"
                .into(),
        );
    }
    None
}

#[cfg(test)]
mod tests;

/// The values srtctl's schema types as mappings: `resources` (a
/// `ResourceConfig`), the backend's role maps (`sglang_config`, typed as a
/// config object) and each role map in it (`dict | None`). Anything else
/// there fails srtctl's validation: an input error at the value.
fn mapping_shapes(job: &Node, backend: Option<Backend>) -> Result<(), Error> {
    let not_mapping = |n: &Node, what: &str| {
        Error::input(
            n.span.clone(),
            format!(
                "`{what}` is {}, where srtctl's schema needs a mapping (its validation fails)",
                variant::python_type(&n.val)
            ),
        )
    };
    if let Some(r) = job.get("resources").filter(|r| !r.is_map()) {
        return Err(not_mapping(r, "resources"));
    }
    let Some(key) = backend.map(Backend::config_key) else {
        return Ok(());
    };
    let Some(maps) = job.path(&["backend", key]) else {
        return Ok(());
    };
    if !maps.is_map() {
        return Err(not_mapping(maps, &format!("backend.{key}")));
    }
    for role in ["prefill", "decode", "aggregated"] {
        if let Some(m) = maps.get(role).filter(|m| !m.is_map()) {
            return Err(not_mapping(m, &format!("backend.{key}.{role}")));
        }
    }
    Ok(())
}
