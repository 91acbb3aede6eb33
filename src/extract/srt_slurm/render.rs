//! A role of an srt-slurm job as the launch srtctl's worker-command builder
//! starts (`build_worker_command` of its SGLang and vLLM backends), without
//! the values srtctl derives from the job's layout on the cluster
//! ([`RUNTIME_FLAGS`]).

use std::sync::Arc;

use super::python;
use crate::extract::yaml_tree::{Node, Val};
use crate::launch::{
    Context, Engine, EnvVar, Known, Launch, Provenance, Role, Token, WorkDir, Written,
};
use crate::span::{Source, Span};

/// Flags srtctl writes from the job's layout and its Dynamo runtime, not
/// from the recipe's configuration: node addresses and ranks, ports, GPU
/// binding, the config-dump path, the request plane and the kv-events
/// endpoint. They differ per node and per run, so they are left out of a
/// role's launch (a recipe map that writes one is left out the same way).
/// Each row: the flag, whether a value follows it, and why it is left out.
pub const RUNTIME_FLAGS: &[(&str, bool, &str)] = &[
    ("--port", true, "a port srtctl allocates per process"),
    ("--nccl-port", true, "a port srtctl allocates per process"),
    (
        "--disaggregation-bootstrap-port",
        true,
        "a port srtctl allocates per prefill process",
    ),
    (
        "--dist-init-addr",
        true,
        "the address of the worker's first node",
    ),
    ("--nnodes", true, "the number of nodes of the worker"),
    ("--node-rank", true, "the node's rank within the worker"),
    (
        "--master-addr",
        true,
        "the address of the worker's first node",
    ),
    (
        "--headless",
        false,
        "set on the nodes after the worker's first",
    ),
    (
        "--data-parallel-rank",
        true,
        "the process's data-parallel rank",
    ),
    (
        "--data-parallel-address",
        true,
        "the address of the worker's first node",
    ),
    ("--data-parallel-rpc-port", true, "a port srtctl allocates"),
    (
        "--data-parallel-size-local",
        true,
        "derived from the GPUs of the node",
    ),
    (
        "--data-parallel-start-rank",
        true,
        "derived from the node's rank",
    ),
    (
        "--data-parallel-hybrid-lb",
        false,
        "derived from the worker's layout",
    ),
    ("--device-ids", true, "the GPUs srtctl binds the process to"),
    (
        "--dump-config-to",
        true,
        "a log path of the run (Dynamo's option)",
    ),
    (
        "--request-plane",
        true,
        "the Dynamo runtime's request plane (Dynamo's option)",
    ),
    (
        "--kv-events-config",
        true,
        "the kv-events endpoint, with a port srtctl allocates",
    ),
];

/// Whether srtctl derives `flag` from the job's layout ([`RUNTIME_FLAGS`]).
pub fn is_runtime_flag(flag: &str) -> Option<bool> {
    RUNTIME_FLAGS
        .iter()
        .find(|(f, _, _)| *f == flag)
        .map(|(_, takes, _)| *takes)
}

/// An argv with the runtime flags ([`RUNTIME_FLAGS`]) and their values taken
/// out: how a rendered command is compared with srtctl's.
pub fn without_runtime_flags(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut i = 0;
    while i < argv.len() {
        match is_runtime_flag(&argv[i]) {
            Some(takes) => i += 1 + usize::from(takes),
            None => {
                out.push(argv[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// The backend of a job (`backend.type`; SGLang when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Backend {
    Sglang,
    Vllm,
}

impl Backend {
    /// The key of its per-role flag maps.
    pub(super) fn config_key(self) -> &'static str {
        match self {
            Backend::Sglang => "sglang_config",
            Backend::Vllm => "vllm_config",
        }
    }

    fn engine(self) -> Engine {
        let name = match self {
            Backend::Sglang => "sglang",
            Backend::Vllm => "vllm",
        };
        Engine::parse(name).expect("the launcher table names sglang and vllm")
    }
}

/// The preset `--kv-transfer-config` JSON of vLLM connector shorthands, as
/// srtctl's `json.dumps` writes it.
const CONNECTORS: &[(&str, &str)] = &[
    (
        "nixl",
        r#"{"kv_connector": "NixlConnector", "kv_role": "kv_both"}"#,
    ),
    (
        "lmcache",
        r#"{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}"#,
    ),
    (
        "kvbm",
        r#"{"kv_connector": "DynamoConnector", "kv_connector_module_path": "kvbm.vllm_integration.connector", "kv_role": "kv_both"}"#,
    ),
];

/// What a role of a job needs to be rendered.
pub(super) struct Job<'a> {
    pub(super) source: &'a Arc<Source>,
    /// The job's document (after the selector).
    pub(super) doc: &'a Node,
    pub(super) backend: Backend,
    /// `frontend.type` (`dynamo` when absent).
    pub(super) frontend: &'a str,
    /// Image, platform, version and hardware the recipe names.
    pub(super) context: Context,
}

/// The config key of a role (`sglang_config.prefill`, `.aggregated`).
pub(super) fn role_key(role: Role) -> &'static str {
    match role {
        Role::Prefill => "prefill",
        Role::Decode => "decode",
        _ => "aggregated",
    }
}

/// srtctl's mode name of a role (`agg` for aggregated workers).
fn mode_name(role: Role) -> &'static str {
    match role {
        Role::Prefill => "prefill",
        Role::Decode => "decode",
        _ => "agg",
    }
}

/// Python truthiness of a YAML value.
fn truthy(n: &Node) -> bool {
    match &n.val {
        Val::Null => false,
        Val::Bool(b) => *b,
        Val::Int(i) => *i != 0,
        Val::Float(f) => *f != 0.0,
        Val::Str(s) => !s.is_empty(),
        Val::Seq(s) => !s.is_empty(),
        Val::Map(m) => !m.is_empty(),
    }
}

/// One flag of the command with the words after it.
struct Piece {
    flag: Token,
    values: Vec<Token>,
}

impl<'a> Job<'a> {
    fn token(&self, text: impl Into<String>, span: &Span) -> Token {
        Token {
            text: text.into(),
            span: span.clone(),
            provenance: Provenance::Literal,
            written_at: None,
        }
    }

    /// The role's flag map (`<backend>_config.<role>`), with its span.
    fn role_map(&self, role: Role) -> (Vec<(String, Span, Node)>, Span) {
        let maps = self
            .doc
            .path(&["backend", self.backend.config_key()])
            .filter(|m| m.is_map());
        match maps.and_then(|m| m.get(role_key(role)).map(|r| (m, r))) {
            Some((m, r)) => (
                r.entries().to_vec(),
                m.key_span(role_key(role)).unwrap_or_else(|| r.span.clone()),
            ),
            None => (
                Vec::new(),
                maps.map(|m| m.span.clone())
                    .or_else(|| self.doc.get("backend").map(|b| b.span.clone()))
                    .unwrap_or_else(|| self.doc.span.clone()),
            ),
        }
    }

    /// The served model name srtctl passes: the first of the prefill,
    /// aggregated and decode maps that names one, else the model folder's name.
    fn served_model_name(&self, model: &Node, at: &Span) -> Token {
        let maps = self.doc.path(&["backend", self.backend.config_key()]);
        for key in ["prefill", "aggregated", "decode"] {
            let Some(cfg) = maps.and_then(|m| m.get(key)).filter(|c| truthy(c)) else {
                continue;
            };
            let named = [cfg.get("served-model-name"), cfg.get("served_model_name")]
                .into_iter()
                .flatten()
                .find(|n| truthy(n));
            if let Some(n) = named {
                return self.token(python::str_of(n), &n.span);
            }
        }
        let path = model.as_str().unwrap_or_default();
        if let Some(id) = path.strip_prefix("hf:").filter(|_| !path.contains('$')) {
            let name = id.trim_end_matches('/').rsplit('/').next().unwrap_or(id);
            return self.token(name, &model.span);
        }
        Token {
            text: "<served-model-name>".into(),
            span: at.clone(),
            provenance: Provenance::Unknown {
                reason: format!(
                    "srtctl names the model after the folder that model.path `{path}` resolves to on the cluster (an alias of its srtslurm.yaml, or a path)"
                ),
            },
            written_at: None,
        }
    }

    /// The role's launch, or why it is not knowable.
    pub(super) fn launch(&self, role: Role) -> Result<Launch, String> {
        let model = self
            .doc
            .path(&["model", "path"])
            .filter(|m| m.as_str().is_some())
            .ok_or("the recipe names no model.path")?;
        let path = model.as_str().unwrap_or_default();
        if path.contains('$') {
            return Err(format!(
                "model.path `{path}` holds a variable srtctl expands from its environment"
            ));
        }
        let (map, at) = self.role_map(role);
        let model_arg = match path.strip_prefix("hf:") {
            Some(id) => self.token(id, &model.span),
            None => self.token("/model", &model.span),
        };
        let served = self.served_model_name(model, &at);
        let mut launcher = Vec::new();
        let mut pre: Vec<Piece> = Vec::new();
        let mut skip: Vec<&str> = vec![];
        let piece = |flag: &str, values: Vec<Token>| Piece {
            flag: self.token(flag, &at),
            values,
        };
        match (self.backend, self.frontend) {
            (Backend::Sglang, frontend) => {
                let module = if frontend == "sglang" {
                    "sglang.launch_server"
                } else {
                    "dynamo.sglang"
                };
                launcher.extend(["python3", "-m", module].map(|w| self.token(w, &at)));
                pre.push(piece("--model-path", vec![model_arg]));
                pre.push(piece("--served-model-name", vec![served.clone()]));
                pre.push(piece("--host", vec![self.token("0.0.0.0", &at)]));
                if role != Role::Aggregated {
                    pre.push(piece(
                        "--disaggregation-mode",
                        vec![self.token(mode_name(role), &at)],
                    ));
                }
                skip.extend([
                    "model-path",
                    "model_path",
                    "served-model-name",
                    "served_model_name",
                    "nccl-port",
                    "nccl_port",
                ]);
            }
            (Backend::Vllm, "vllm") => {
                if role != Role::Aggregated {
                    return Err(format!(
                        "srtctl refuses frontend.type vllm for a {role} worker (aggregated jobs only)"
                    ));
                }
                launcher.extend(["vllm", "serve"].map(|w| self.token(w, &at)));
                pre.push(Piece {
                    flag: model_arg,
                    values: Vec::new(),
                });
                pre.push(piece("--host", vec![self.token("0.0.0.0", &at)]));
                skip.push("connector");
            }
            (Backend::Vllm, _) => {
                launcher.extend(["python3", "-m", "dynamo.vllm"].map(|w| self.token(w, &at)));
                pre.push(piece("--model", vec![model_arg]));
                pre.push(piece("--served-model-name", vec![served.clone()]));
                if role != Role::Aggregated {
                    pre.push(piece(
                        "--disaggregation-mode",
                        vec![self.token(mode_name(role), &at)],
                    ));
                }
                if let Some(kv) = self.connector(&map)? {
                    pre.push(piece("--kv-transfer-config", vec![kv]));
                }
                skip.push("connector");
            }
        }
        let mut map = map;
        map.retain(|(k, _, _)| !skip.contains(&k.as_str()));
        if (self.backend, self.frontend) == (Backend::Vllm, "vllm") {
            // srtctl takes the orchestration flags over, and names the model.
            map.retain(|(k, _, _)| {
                ![
                    "headless",
                    "host",
                    "port",
                    "master-addr",
                    "nnodes",
                    "node-rank",
                ]
                .contains(&k.replace('_', "-").as_str())
            });
        }
        let mut written: Vec<(String, Span, Option<Vec<Token>>)> = map
            .iter()
            .map(|(k, ks, v)| (k.clone(), ks.clone(), self.values(v)))
            .collect();
        if (self.backend, self.frontend) == (Backend::Vllm, "vllm")
            && !map.iter().any(|(k, _, _)| k == "served-model-name")
        {
            written.push(("served-model-name".into(), at.clone(), Some(vec![served])));
        }
        let mut pieces = pre;
        pieces.extend(self.flags(written));
        let argv = pieces
            .into_iter()
            .filter(|p| is_runtime_flag(&p.flag.text).is_none())
            .flat_map(|p| std::iter::once(p.flag).chain(p.values))
            .collect();
        Ok(Launch {
            engine: self.backend.engine(),
            launcher,
            argv,
            env: self.environment(role)?,
            context: self.context.clone(),
            span: at,
            source: self.source.clone(),
            cwd: WorkDir::Start,
            written: Written::default(),
            env_open: None,
            defects: Vec::new(),
            role,
        })
    }

    /// The `--kv-transfer-config` srtctl derives from the role's `connector`
    /// (or the backend's, `nixl` when it names none): a shorthand's preset,
    /// any other text as written; `null`, `none` and empty: none.
    fn connector(&self, map: &[(String, Span, Node)]) -> Result<Option<Token>, String> {
        let own = map
            .iter()
            .rev()
            .find(|(k, _, _)| k == "connector")
            .map(|(_, _, v)| v)
            .filter(|v| !matches!(v.val, Val::Null));
        let backend = self.doc.get("backend");
        let (text, span) = match own {
            Some(v) => (v, v.span.clone()),
            None => match backend.filter(|b| b.has_key("connector")) {
                Some(b) => match b.get("connector") {
                    Some(v) => (v, v.span.clone()),
                    None => return Ok(None),
                },
                None => {
                    let at = backend.map_or(&self.doc.span, |b| &b.span).clone();
                    return Ok(Some(self.token(CONNECTORS[0].1, &at)));
                }
            },
        };
        let Some(name) = text.as_str() else {
            return Err(format!(
                "connector {} is not text: srtctl fails on it",
                python::repr(text)
            ));
        };
        if name.is_empty() || name == "null" || name == "none" {
            return Ok(None);
        }
        let lower = name.to_lowercase();
        let kv = CONNECTORS
            .iter()
            .find(|(k, _)| *k == lower)
            .map_or(name, |(_, json)| json);
        Ok(Some(self.token(kv, &span)))
    }

    /// The words after a flag of a role map, as srtctl's `_config_to_cli_args`
    /// writes them: `true` none, a list each item, anything else
    /// `str(value)`; `None` when the flag is not written (`false`, null).
    fn values(&self, v: &Node) -> Option<Vec<Token>> {
        match &v.val {
            Val::Null | Val::Bool(false) => None,
            Val::Bool(true) => Some(Vec::new()),
            Val::Seq(items) => Some(
                items
                    .iter()
                    .map(|i| self.token(python::str_of(i), &i.span))
                    .collect(),
            ),
            _ => Some(vec![self.token(python::str_of(v), &v.span)]),
        }
    }

    /// A role map's flags in srtctl's order: keys sorted, `_` written `-`.
    fn flags(&self, mut map: Vec<(String, Span, Option<Vec<Token>>)>) -> Vec<Piece> {
        map.sort_by(|a, b| a.0.cmp(&b.0));
        map.into_iter()
            .filter_map(|(k, ks, values)| {
                Some(Piece {
                    flag: self.token(format!("--{}", k.replace('_', "-")), &ks),
                    values: values?,
                })
            })
            .collect()
    }

    /// The role's environment map, then the recipe's `environment` (which
    /// srtctl applies after it). `{node}` and `{node_id}` are the worker's
    /// node, filled per node.
    fn environment(&self, role: Role) -> Result<Vec<EnvVar>, String> {
        let key = format!("{}_environment", role_key(role));
        let maps = [
            self.doc.path(&["backend", &key]),
            self.doc.get("environment"),
        ];
        let mut out: Vec<EnvVar> = Vec::new();
        for map in maps.into_iter().flatten() {
            for (name, _, v) in map.entries() {
                let Some(value) = v.as_str() else {
                    return Err(format!(
                        "environment variable {name} is {}, not text: srtctl refuses the recipe",
                        python::repr(v)
                    ));
                };
                let provenance = if value.contains("{node}") || value.contains("{node_id}") {
                    Provenance::Unknown {
                        reason: "srtctl fills {node} and {node_id} with the worker's node".into(),
                    }
                } else if value.contains(['{', '}']) {
                    Provenance::Unknown {
                        reason: "srtctl formats it with Python's str.format_map".into(),
                    }
                } else {
                    Provenance::Literal
                };
                let var = EnvVar {
                    name: name.clone(),
                    value: value.to_string(),
                    span: v.span.clone(),
                    provenance,
                };
                match out.iter_mut().find(|e| e.name == *name) {
                    Some(e) => *e = var,
                    None => out.push(var),
                }
            }
        }
        Ok(out)
    }
}

/// The context a recipe names: its container image (when it is an image,
/// not a cluster alias) and its GPU type.
pub(super) fn context_of(doc: &Node, file: &str) -> Context {
    let mut context = doc
        .path(&["model", "container"])
        .and_then(Node::as_str)
        .filter(|c| c.contains([':', '/']))
        .map(|c| Context::from_image(c, &format!("model.container of {file}")))
        .unwrap_or_default();
    if let Some(gpu) = doc.path(&["resources", "gpu_type"]).and_then(Node::as_str) {
        let sku = gpu.to_ascii_lowercase();
        let from = format!("resources.gpu_type of {file}");
        if let Some(p) = crate::hardware::platform_of(&sku) {
            context.platform.get_or_insert(Known {
                value: p,
                from: from.clone(),
            });
        }
        context.hardware = Some(Known { value: sku, from });
    }
    context
}
