//! Checkpoint facts (issue 13): what SGLang and vLLM read from a model's
//! `config.json` and `hf_quant_config.json` to decide `auto` settings (the
//! kv-cache dtype, the quantization method, the model dtype, MLA). The rules
//! that use them are data in each engine's `rules.yaml`; they read the facts as
//! context keys `checkpoint.*` ([`crate::resolved::CHECKPOINT_KEYS`]).
//!
//! Sources, first match wins: a `checkpoints:` entry of the config file (facts
//! by hand, for private or offline models); a model directory inside the
//! repository root (read through the confined file layer); the Hugging Face
//! Hub through the fetch layer (`$HF_ENDPOINT`, default
//! `https://huggingface.co`; `$HF_TOKEN` is sent as a bearer token to that host
//! only). Facts are asked for only when a rule needs one. Which fields are read
//! and why: `docs/research/checkpoint-facts.md`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::Value;

use crate::error::Error;
use crate::fetch::{FetchOptions, Fetcher};
use crate::resolved::{Entry, FactError, FactSource, Val, ValueSource, unknown_facts};

pub mod lock;

/// The Hub's address when `$HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// A checkpoint's facts: the fields of `config.json` (and its quantization
/// config) that the engines' `auto` rules read. In a config file's
/// `checkpoints:` entry, fields are written in kebab-case; a field left out is
/// not stated (unknown), except inside a stated `quantization:` block.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CheckpointFacts {
    /// `architectures` (SGLang keys MLA and per-model overrides on them).
    #[serde(default)]
    pub architectures: Vec<String>,
    /// `model_type` (vLLM's MLA list, gpt-oss, gemma).
    #[serde(default)]
    pub model_type: Option<String>,
    /// `text_config.model_type` of a multimodal wrapper.
    #[serde(default)]
    pub text_model_type: Option<String>,
    /// `dtype` (or `torch_dtype`) of the top level.
    #[serde(default)]
    pub dtype: Option<String>,
    /// `dtype` (or `torch_dtype`) of `text_config`.
    #[serde(default)]
    pub text_dtype: Option<String>,
    /// `kv_lora_rank` (MLA).
    #[serde(default)]
    pub kv_lora_rank: Option<i64>,
    /// `index_topk` (DSA/NSA sparse attention).
    #[serde(default)]
    pub index_topk: Option<i64>,
    /// `learnable_sink` (DSA attention sinks).
    #[serde(default)]
    pub learnable_sink: Option<bool>,
    /// The quantization config, if the checkpoint has one.
    #[serde(default)]
    pub quantization: Option<QuantFacts>,
    /// Only `text_config` holds a quantization config (a multimodal
    /// wrapper): whether an engine sees it depends on the model's config
    /// class (some copy it to the top level, the engines' own check reads the
    /// top level), so the quantization facts are unknown.
    #[serde(skip)]
    pub quant_in_text_config_only: bool,
}

/// Where a checkpoint's quantization config is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub enum QuantSource {
    /// `config.json` `quantization_config`.
    #[default]
    #[serde(rename = "config.json")]
    Config,
    /// `config.json` `compression_config` (old compressed-tensors exports).
    #[serde(rename = "compression_config")]
    Compression,
    /// The standalone `hf_quant_config.json` (ModelOpt exports).
    #[serde(rename = "hf_quant_config.json")]
    HfQuantConfig,
}

impl QuantSource {
    /// The name as the facts show it.
    pub fn as_str(self) -> &'static str {
        match self {
            QuantSource::Config => "config.json",
            QuantSource::Compression => "compression_config",
            QuantSource::HfQuantConfig => "hf_quant_config.json",
        }
    }
}

/// The fields of a quantization config the rules read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct QuantFacts {
    /// Where it is written (default `config.json`).
    #[serde(default)]
    pub source: QuantSource,
    /// `quant_method` (`fp8`, `modelopt`, `quark`, `compressed-tensors`, ...).
    #[serde(default)]
    pub quant_method: Option<String>,
    /// `producer.name` (`modelopt`).
    #[serde(default)]
    pub producer: Option<String>,
    /// `quant_algo` (`NVFP4`, `FP8`, `MXFP8`, ...), nested under `quantization` or flat.
    #[serde(default)]
    pub quant_algo: Option<String>,
    /// `kv_cache_quant_algo` (`FP8`), nested or flat.
    #[serde(default)]
    pub kv_cache_quant_algo: Option<String>,
    /// `kv_cache_scheme`, nested or flat.
    #[serde(default)]
    pub kv_cache_scheme: Option<KvScheme>,
}

/// A `kv_cache_scheme`: a mapping (`{type: float, num_bits: 8, dynamic: false}`)
/// or, in some ModelOpt exports, a name (`FP8`), given here as `name`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct KvScheme {
    /// The scheme written as a string (`FP8`).
    #[serde(default)]
    pub name: Option<String>,
    /// `type` (`float`, `int`).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// `num_bits`.
    #[serde(default)]
    pub num_bits: Option<i64>,
    /// `dynamic`.
    #[serde(default)]
    pub dynamic: Option<bool>,
    /// `strategy` (`tensor`, ...).
    #[serde(default)]
    pub strategy: Option<String>,
    /// `symmetric`.
    #[serde(default)]
    pub symmetric: Option<bool>,
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_string)
}

fn dtype_of(v: &Value) -> Option<String> {
    text(
        v.get("dtype")
            .filter(|d| !d.is_null())
            .or(v.get("torch_dtype")),
    )
    .map(|d| normal_dtype(&d))
}

/// A dtype as written (`torch.bfloat16`, `half`) in the engines' spelling.
fn normal_dtype(d: &str) -> String {
    let d = d.trim().trim_start_matches("torch.").to_ascii_lowercase();
    match d.as_str() {
        "half" => "float16".into(),
        "float" => "float32".into(),
        _ => d,
    }
}

impl CheckpointFacts {
    /// The facts of a checkpoint from its `config.json` and, when the engines
    /// would read it (no quantization config in `config.json`), its
    /// `hf_quant_config.json`.
    pub fn from_json(config: &Value, hf_quant: Option<&Value>) -> CheckpointFacts {
        let txt = config.get("text_config").filter(|t| t.is_object());
        let int = |k: &str| {
            config
                .get(k)
                .and_then(Value::as_i64)
                .or_else(|| txt.and_then(|t| t.get(k)).and_then(Value::as_i64))
        };
        let (source, qc) = match (
            config.get("quantization_config").filter(|q| q.is_object()),
            config.get("compression_config").filter(|q| q.is_object()),
            hf_quant.filter(|q| q.is_object()),
        ) {
            (Some(q), _, _) => (Some(QuantSource::Config), Some(q)),
            (None, Some(q), _) => (Some(QuantSource::Compression), Some(q)),
            (None, None, Some(q)) => (Some(QuantSource::HfQuantConfig), Some(q)),
            _ => (None, None),
        };
        let quantization = source.zip(qc).map(|(source, qc)| {
            let inner = qc
                .get("quantization")
                .filter(|q| q.is_object())
                .unwrap_or(qc);
            let field = |k: &str| inner.get(k).filter(|v| !v.is_null()).or(qc.get(k));
            let kv_cache_scheme = field("kv_cache_scheme").and_then(|s| match s {
                Value::String(n) => Some(KvScheme {
                    name: Some(n.clone()),
                    ..KvScheme::default()
                }),
                Value::Object(m) => Some(KvScheme {
                    name: None,
                    kind: text(m.get("type")),
                    num_bits: m.get("num_bits").and_then(Value::as_i64),
                    dynamic: m.get("dynamic").and_then(Value::as_bool),
                    strategy: text(m.get("strategy")),
                    symmetric: m.get("symmetric").and_then(Value::as_bool),
                }),
                _ => None,
            });
            QuantFacts {
                source,
                quant_method: text(qc.get("quant_method")),
                producer: text(qc.get("producer").and_then(|p| p.get("name"))),
                quant_algo: text(field("quant_algo")),
                kv_cache_quant_algo: text(field("kv_cache_quant_algo")),
                kv_cache_scheme,
            }
        });
        CheckpointFacts {
            architectures: config
                .get("architectures")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|x| text(Some(x))).collect())
                .unwrap_or_default(),
            model_type: text(config.get("model_type")),
            text_model_type: txt.and_then(|t| text(t.get("model_type"))),
            dtype: dtype_of(config),
            text_dtype: txt.and_then(dtype_of),
            kv_lora_rank: int("kv_lora_rank"),
            index_topk: int("index_topk"),
            learnable_sink: config
                .get("learnable_sink")
                .and_then(Value::as_bool)
                .or_else(|| {
                    txt.and_then(|t| t.get("learnable_sink"))
                        .and_then(Value::as_bool)
                }),
            quant_in_text_config_only: quantization.is_none()
                && txt.is_some_and(|t| {
                    ["quantization_config", "compression_config"]
                        .iter()
                        .any(|k| t.get(k).is_some_and(Value::is_object))
                }),
            quantization,
        }
    }

    /// Whether a `checkpoints:` entry states the fact behind this
    /// `checkpoint.*` key: a model field it writes, or any quantization field
    /// when it writes a `quantization:` block (whose other fields are then
    /// absent from that config, as in a real one).
    fn states(&self, key: &str) -> bool {
        let k = key.strip_prefix("checkpoint.").unwrap_or(key);
        match k {
            "architecture" => !self.architectures.is_empty(),
            "model_type" => self.model_type.is_some(),
            "text_model_type" => self.text_model_type.is_some() || self.model_type.is_some(),
            "dtype" | "text_dtype" => self.dtype.is_some() || self.text_dtype.is_some(),
            "kv_lora_rank" => self.kv_lora_rank.is_some(),
            "index_topk" => self.index_topk.is_some(),
            "learnable_sink" => self.learnable_sink.is_some(),
            _ => self.quantization.is_some(),
        }
    }

    /// The facts as `checkpoint.*` context entries; `config_from` and
    /// `quant_from` say where the model fields and the quantization fields
    /// were read.
    pub fn entries(&self, config_from: &str, quant_from: &str) -> BTreeMap<String, Entry> {
        let s = |v: &Option<String>| v.clone().map(Value::String).unwrap_or(Value::Null);
        let upper = |v: &Option<String>| {
            v.as_ref()
                .map(|x| Value::String(x.to_ascii_uppercase()))
                .unwrap_or(Value::Null)
        };
        let i = |v: Option<i64>| v.map(Value::from).unwrap_or(Value::Null);
        let q = self.quantization.clone().unwrap_or_default();
        let has_q = self.quantization.is_some();
        let scheme = q.kv_cache_scheme.clone();
        let sch = scheme.clone().unwrap_or_default();
        let scheme_value = match &scheme {
            None => Value::Null,
            Some(KvScheme { name: Some(n), .. }) => Value::String(n.to_ascii_uppercase()),
            Some(k) => serde_json::json!({
                "type": k.kind, "num_bits": k.num_bits, "dynamic": k.dynamic,
                "strategy": k.strategy, "symmetric": k.symmetric,
            }),
        };
        let model_fields: Vec<(&str, Value)> = vec![
            ("architecture", s(&self.architectures.first().cloned())),
            ("model_type", s(&self.model_type)),
            (
                "text_model_type",
                s(&self.text_model_type.clone().or(self.model_type.clone())),
            ),
            ("dtype", s(&self.dtype.clone().or(self.text_dtype.clone()))),
            (
                "text_dtype",
                s(&self.text_dtype.clone().or(self.dtype.clone())),
            ),
            ("kv_lora_rank", i(self.kv_lora_rank)),
            ("index_topk", i(self.index_topk)),
            (
                "learnable_sink",
                self.learnable_sink.map(Value::Bool).unwrap_or(Value::Null),
            ),
        ];
        let lower = |v: &Option<String>| {
            v.as_ref()
                .map(|x| Value::String(x.to_ascii_lowercase()))
                .unwrap_or(Value::Null)
        };
        let model_keys: Vec<&str> = model_fields.iter().map(|(k, _)| *k).collect();
        let quant_fields: Vec<(&str, Value)> = vec![
            (
                "quant_source",
                if has_q {
                    Value::String(q.source.as_str().into())
                } else {
                    Value::Null
                },
            ),
            ("quant_method", lower(&q.quant_method)),
            ("producer", lower(&q.producer)),
            ("quant_algo", upper(&q.quant_algo)),
            ("kv_cache_quant_algo", upper(&q.kv_cache_quant_algo)),
            ("kv_cache_scheme", scheme_value),
            ("kv_cache_scheme.type", lower(&sch.kind)),
            ("kv_cache_scheme.num_bits", i(sch.num_bits)),
            (
                "kv_cache_scheme.dynamic",
                sch.dynamic.map(Value::Bool).unwrap_or(Value::Null),
            ),
            ("kv_cache_scheme.strategy", lower(&sch.strategy)),
            (
                "kv_cache_scheme.symmetric",
                sch.symmetric.map(Value::Bool).unwrap_or(Value::Null),
            ),
        ];
        let text_only = self.quant_in_text_config_only.then(|| {
            format!(
                "only text_config in {quant_from} has a quantization config: whether the engine sees it depends on the model's config class, which is not modelled"
            )
        });
        let entry = |k: &str, v: Value, from: &str| {
            let key = format!("checkpoint.{k}");
            let val = match &text_only {
                Some(why) if !model_keys.contains(&k) => Val::unknown(why),
                _ => Val::known(v),
            };
            (
                key.clone(),
                Entry {
                    val,
                    source: ValueSource::Context,
                    name: key,
                    spans: vec![],
                    written: Some(from.to_string()),
                    rules: vec![],
                    inactive: None,
                    no_effect: None,
                },
            )
        };
        model_fields
            .into_iter()
            .map(|(k, v)| entry(k, v, config_from))
            .chain(
                quant_fields
                    .into_iter()
                    .map(|(k, v)| entry(k, v, quant_from)),
            )
            .collect()
    }
}

/// A `checkpoints:` entry of the config file: a model's facts by hand.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CheckpointSpec {
    /// The model as launches name it (`org/name`, compared case-insensitively).
    pub model: String,
    /// The revision these facts hold for (absent: every revision).
    #[serde(default)]
    pub revision: Option<String>,
    /// The facts.
    pub facts: CheckpointFacts,
}

/// How checkpoint facts are looked up in a run.
#[derive(Debug, Clone)]
pub struct Lookup {
    /// Facts by hand (a config's `checkpoints:`), and the config file's name.
    pub by_hand: Vec<CheckpointSpec>,
    /// The config file that holds `by_hand`, for messages.
    pub config: Option<String>,
    /// Read the Hub (and local model folders); `false`: `--no-checkpoint-facts`.
    pub hub: bool,
    /// The fetch options (cache, offline, hosts, size cap) for the Hub.
    pub fetch: Option<FetchOptions>,
    /// The most checkpoints read from the Hub or model folders in one run
    /// (`--max-checkpoints`, default [`MAX_CHECKPOINTS`]).
    pub max: usize,
    /// The lock file's facts (`recipe-drift lock`), read after `by_hand` and
    /// before model folders and the Hub, also offline and with the Hub off.
    pub locked: Option<Arc<lock::Lock>>,
}

/// The fact source of a run: facts by hand, local model folders, the Hub.
pub struct Checkpoints {
    lookup: Lookup,
    endpoint: String,
    token: Option<String>,
    fetcher: Option<Fetcher>,
    /// Offline (`--offline` or `HF_HUB_OFFLINE`): a cache miss is unknown, not an error.
    offline: bool,
    memo: Mutex<BTreeMap<(String, Option<String>), Looked>>,
}

/// One model's lookup: its facts, or why they could not be had.
type Looked = Result<BTreeMap<String, Entry>, FactError>;

/// The default of the most distinct checkpoints (model, revision) one run
/// reads from the Hub or local folders (`--max-checkpoints`): each costs up to
/// two requests of one remote timeout each, so an input naming thousands of
/// models cannot make a run take hours. The models past it get unknown facts
/// with the reason.
pub const MAX_CHECKPOINTS: usize = 64;

impl std::fmt::Debug for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("Checkpoints")
            .field("endpoint", &self.endpoint)
            .field("hub", &self.lookup.hub)
            .finish()
    }
}

impl Checkpoints {
    /// The source for a run. `$HF_ENDPOINT` replaces the Hub's address (and
    /// that host is allowed); `$HF_TOKEN` is masked in all output.
    pub fn new(lookup: Lookup) -> Result<Arc<Checkpoints>, Error> {
        let endpoint = std::env::var("HF_ENDPOINT")
            .ok()
            .map(|e| e.trim().trim_end_matches('/').to_string())
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
        let url = reqwest::Url::parse(&endpoint)
            .map_err(|e| Error::usage(format!("$HF_ENDPOINT {endpoint:?} is not a URL: {e}")))?;
        let token = std::env::var("HF_TOKEN")
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        if let Some(t) = &token {
            crate::secret::note(t);
        }
        let mut offline = false;
        let fetcher = match (&lookup.fetch, lookup.hub) {
            (Some(opts), true) => {
                let mut opts = opts.clone();
                // huggingface_hub's own offline switch.
                if std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| {
                    matches!(
                        v.trim().to_ascii_lowercase().as_str(),
                        "1" | "true" | "yes" | "on"
                    )
                }) {
                    opts.offline = true;
                }
                if endpoint != DEFAULT_ENDPOINT {
                    // The user's own environment names this host.
                    opts.allow_hosts.push(host_port(&url));
                }
                offline = opts.offline;
                Some(Fetcher::new(opts))
            }
            _ => None,
        };
        Ok(Arc::new(Checkpoints {
            lookup,
            endpoint,
            token,
            fetcher,
            offline,
            memo: Mutex::new(BTreeMap::new()),
        }))
    }

    fn by_hand(&self, model: &str, revision: Option<&str>) -> Option<BTreeMap<String, Entry>> {
        // An entry for this revision first, then one for every revision.
        let of_model = || {
            self.lookup
                .by_hand
                .iter()
                .filter(|c| c.model.eq_ignore_ascii_case(model))
        };
        let spec = of_model()
            .find(|c| c.revision.is_some() && c.revision.as_deref() == revision)
            .or_else(|| of_model().find(|c| c.revision.is_none()))?;
        let from = format!(
            "`checkpoints:` {}{} in {}",
            spec.model,
            spec.revision
                .as_deref()
                .map(|r| format!("@{r}"))
                .unwrap_or_default(),
            self.lookup.config.as_deref().unwrap_or("the config file")
        );
        // A partial entry states only what it says: a field it leaves out is
        // not known (never the value of a field absent from config.json).
        let unstated = format!("not stated in {from}");
        let mut entries = spec.facts.entries(&from, &from);
        for (key, e) in entries.iter_mut() {
            if e.val.value().is_some_and(Value::is_null) && !spec.facts.states(key) {
                e.val = Val::unknown(unstated.clone());
            }
        }
        Some(entries)
    }

    fn lookup(
        &self,
        model: &str,
        revision: Option<&str>,
    ) -> Result<BTreeMap<String, Entry>, FactError> {
        // A pin written in the model (`org/name@rev`) counts as the revision.
        let (model, revision) = lock::split_pin(model, revision);
        if let Some(f) = self.by_hand(model, revision) {
            return Ok(f);
        }
        if let Some(f) = self.locked(model, revision) {
            return Ok(f);
        }
        if !self.lookup.hub {
            return Ok(unknown_facts(&format!(
                "depends on the checkpoint of {model}, and checkpoint facts are off (--no-checkpoint-facts){}; \
                 state them in the config's `checkpoints:`",
                self.not_locked()
            )));
        }
        if !crate::engine::common::is_hf_id(model) {
            return self.local(model);
        }
        let Some(fetcher) = &self.fetcher else {
            return Ok(unknown_facts(&format!(
                "depends on the checkpoint of {model}, and no checkpoint facts are read here"
            )));
        };
        let rev = revision.unwrap_or("main");
        let url = |file: &str| format!("{}/{model}/resolve/{}/{file}", self.endpoint, percent(rev));
        let offline = self.offline;
        let get = |u: &str| -> Result<Option<Arc<String>>, FactError> {
            match fetcher.get_url_bearer(u, self.bearer()) {
                Ok(b) => Ok(b),
                // A Hub failure names the ways to run without the network.
                Err(e) if !offline => Err(FactError {
                    location: u.to_string(),
                    message: format!("{}; {}", e.message(), self.remedies()),
                }),
                Err(e) => Err(FactError {
                    location: u.to_string(),
                    message: e.message().to_string(),
                }),
            }
        };
        let parse = |u: &str, body: &str| parse_json(u, body);
        let config_url = url("config.json");
        let config = match get(&config_url) {
            Ok(Some(b)) => parse(&config_url, &b)?,
            Ok(None) => {
                return Ok(unknown_facts(&format!(
                    "depends on the checkpoint of {model}, and {config_url} does not exist (404)"
                )));
            }
            // A gated or private model: the Hub answers, it refuses to show the files.
            Err(e) if refused(&e.message) => {
                return Ok(unknown_facts(&format!(
                    "depends on the checkpoint of {model}, and the Hub refused {} ({}): a gated or \
                     private model needs HF_TOKEN, or its facts in the config's `checkpoints:`",
                    e.location, e.message
                )));
            }
            Err(e) if offline => {
                return Ok(unknown_facts(&format!(
                    "depends on the checkpoint of {model}, which is not in the cache{} ({}: {})",
                    self.not_locked(),
                    e.location,
                    e.message
                )));
            }
            Err(e) => return Err(e),
        };
        // The engines read hf_quant_config.json only without a quantization config in config.json.
        let needs_hf_quant = config.get("quantization_config").is_none_or(Value::is_null)
            && config.get("compression_config").is_none_or(Value::is_null);
        let quant_url = url("hf_quant_config.json");
        let hf_quant = if needs_hf_quant {
            match get(&quant_url) {
                Ok(Some(b)) => Some(parse(&quant_url, &b)?),
                Ok(None) => None,
                Err(e) if offline => {
                    return Ok(unknown_facts(&format!(
                        "depends on the checkpoint of {model}, whose hf_quant_config.json is not in the cache{} ({}: {})",
                        self.not_locked(),
                        e.location,
                        e.message
                    )));
                }
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        let facts = CheckpointFacts::from_json(&config, hf_quant.as_ref());
        let quant_from = match facts.quantization.as_ref().map(|q| q.source) {
            Some(QuantSource::HfQuantConfig) => quant_url.clone(),
            _ => config_url.clone(),
        };
        Ok(facts.entries(&config_url, &quant_from))
    }

    /// The facts of a model folder inside the repository root (read through
    /// the confined file layer), else unknown with the reason. A config.json
    /// there that cannot be read or parsed is an error at its position.
    fn local(&self, model: &str) -> Result<BTreeMap<String, Entry>, FactError> {
        // A relative path arrives resolved against the launch's working
        // folder (`engine::common::local_model_path`).
        let path = Path::new(model).join("config.json");
        if crate::files::admit(&path).is_err() || !crate::files::is_file(&path).unwrap_or(false) {
            return Ok(unknown_facts(&format!(
                "depends on the checkpoint at the local path {model:?}, which is not a folder with a \
                 config.json inside the repository; state its facts in the config's `checkpoints:`"
            )));
        }
        let read = |p: &Path| -> Result<Value, FactError> {
            let src = crate::span::Source::read(p).map_err(|e| FactError {
                location: p.display().to_string(),
                message: e.message().to_string(),
            })?;
            parse_json(&p.display().to_string(), &src.text)
        };
        let config = read(&path)?;
        let qpath = Path::new(model).join("hf_quant_config.json");
        let needs_hf_quant = config.get("quantization_config").is_none_or(Value::is_null)
            && config.get("compression_config").is_none_or(Value::is_null);
        let hf_quant = if needs_hf_quant
            && crate::files::admit(&qpath).is_ok()
            && crate::files::is_file(&qpath).unwrap_or(false)
        {
            Some(read(&qpath)?)
        } else {
            None
        };
        let facts = CheckpointFacts::from_json(&config, hf_quant.as_ref());
        let c = path.display().to_string();
        let q = match facts.quantization.as_ref().map(|q| q.source) {
            Some(QuantSource::HfQuantConfig) => qpath.display().to_string(),
            _ => c.clone(),
        };
        Ok(facts.entries(&c, &q))
    }

    /// The lock file's facts of a model at a revision, if it holds them.
    fn locked(&self, model: &str, revision: Option<&str>) -> Option<BTreeMap<String, Entry>> {
        self.lookup.locked.as_ref()?.facts(model, revision)
    }

    /// ` nor in the lock file FILE` when there is one, else nothing.
    fn not_locked(&self) -> String {
        match &self.lookup.locked {
            Some(l) => format!(" nor in the lock file {}", l.path),
            None => String::new(),
        }
    }

    /// What to do when the Hub cannot be reached (said in every Hub failure).
    fn remedies(&self) -> String {
        let lock = match &self.lookup.locked {
            Some(l) => l.path.clone(),
            None => match &self.lookup.config {
                Some(c) => lock::Lock::beside(Path::new(c)).display().to_string(),
                None => lock::LOCK_FILE.to_string(),
            },
        };
        format!(
            "checkpoint facts come from the Hub; without it: run `recipe-drift lock` once online to \
             record them in the lock file {lock} (read first, also offline), pass --offline (facts from \
             the cache or the lock, else unknown), state them in the config's `checkpoints:`, or pass \
             --no-checkpoint-facts (settings that follow the checkpoint stay unknown); {}",
            crate::error::Trouble::NoNetwork.see()
        )
    }

    /// The bearer token and the only host it may go to.
    fn bearer(&self) -> Option<(String, String)> {
        let t = self.token.clone()?;
        let url = reqwest::Url::parse(&self.endpoint).ok()?;
        Some((host_port(&url), t))
    }
}

impl FactSource for Checkpoints {
    fn facts(
        &self,
        model: &str,
        revision: Option<&str>,
    ) -> Result<BTreeMap<String, Entry>, FactError> {
        let key = (model.to_string(), revision.map(str::to_string));
        let seen = match self.memo.lock() {
            Ok(m) => {
                if let Some(hit) = m.get(&key) {
                    return hit.clone();
                }
                m.len()
            }
            Err(_) => 0,
        };
        let max = self.lookup.max;
        let (m, r) = lock::split_pin(model, revision);
        if seen >= max && self.by_hand(m, r).is_none() && self.locked(m, r).is_none() {
            return Ok(unknown_facts(&format!(
                "depends on the checkpoint of {model}, and this run already read the facts of \
                 {max} checkpoints (the budget per run, --max-checkpoints); state them in the config's `checkpoints:`"
            )));
        }
        let out = self.lookup(model, revision);
        if let Ok(mut m) = self.memo.lock() {
            m.insert(key, out.clone());
        }
        out
    }

    fn facts_of_every_revision(&self, model: &str) -> Option<BTreeMap<String, Entry>> {
        self.lookup
            .by_hand
            .iter()
            .any(|c| c.model.eq_ignore_ascii_case(model) && c.revision.is_none())
            .then(|| self.by_hand(model, None))
            .flatten()
    }
}

/// Whether a fetch error is the Hub refusing access (401, 403), not a failure.
fn refused(message: &str) -> bool {
    message.starts_with("HTTP 401") || message.starts_with("HTTP 403")
}

/// A JSON file's value, or an error at `WHERE:line:col` (serde_json's bounded
/// recursion turns a deeply nested file into an error, not a crash).
fn parse_json(at: &str, body: &str) -> Result<Value, FactError> {
    serde_json::from_str(body).map_err(|e| FactError {
        location: format!("{at}:{}:{}", e.line(), e.column()),
        message: format!("not a JSON checkpoint file: {e}"),
    })
}

/// `host` or `host:port` of a URL, lower-cased.
fn host_port(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

/// A revision as one URL path segment (`/` and other reserved bytes escaped),
/// as huggingface_hub quotes it.
fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
