//! Deployment spaces: what a side of the comparison can be. A docs space holds
//! the blocks of pages and every reachable state of their generators; a recipe
//! space every point of InferenceX entries. Each deployment carries its
//! identity (engine, model family, hardware family) and its shape (precision,
//! speculative decoding, KV offload, parallelism), read from the resolved
//! command through the data in `pairing.yaml`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::launch::{Launch, Role};
use crate::resolved::Resolved;

pub mod cross_role;
pub mod load;
mod resize;

const DATA: &str = include_str!("pairing.yaml");

/// Which side a deployment is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// What the docs show a reader.
    Docs,
    /// What a benchmark recipe runs.
    Recipe,
}

impl Side {
    /// `docs` or `recipe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Docs => "docs",
            Side::Recipe => "recipe",
        }
    }
}

/// Who a deployment is: deployments pair only within one identity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Identity {
    /// `sglang` or `vllm`.
    pub engine: String,
    /// The checkpoint it serves (lower-cased HF id), when the text says it.
    pub model: Option<String>,
    /// The model family of that checkpoint (see `pairing.yaml`).
    pub family: Option<String>,
    /// The hardware family (a row of the hardware table, else the SKU as
    /// written, lower-cased), when known.
    pub hardware: Option<String>,
    /// Set when its release refuses the command (it would not start): why,
    /// so its model and shape are not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Set when the command holds a placeholder that stands for arguments
    /// the reader writes (`<other args>`): which one. Such a partial command
    /// shows some options, not a deployment, so it is not paired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
}

impl Identity {
    /// Why this identity cannot be paired on, if it cannot.
    pub fn incomplete(&self) -> Option<String> {
        if let Some(why) = &self.refused {
            return Some(why.clone());
        }
        if let Some(cause) = &self.partial {
            return Some(format!(
                "a partial command: {cause} leaves its other arguments to the reader"
            ));
        }
        match (&self.family, &self.hardware) {
            (None, _) => Some("its model is not known from the text".into()),
            (_, None) => Some(
                "its hardware is not known (a generator option naming the SKU, or a link's `hardware:`)"
                    .into(),
            ),
            _ => None,
        }
    }

    /// Whether two identities may pair: both complete, the same engine,
    /// model family and hardware family.
    pub fn same_as(&self, other: &Identity) -> bool {
        self.incomplete().is_none()
            && other.incomplete().is_none()
            && self.engine == other.engine
            && self.family == other.family
            && self.hardware == other.hardware
    }

    /// `qwen3.5-397b-a17b on mi355x (sglang)`.
    pub fn label(&self) -> String {
        format!(
            "{} on {} ({})",
            self.family.as_deref().unwrap_or("unknown model"),
            self.hardware.as_deref().unwrap_or("unknown hardware"),
            self.engine
        )
    }
}

/// A shape key's value: known text (`2`, `on`, `fp4`), or unknown with the reason.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum ShapeValue {
    /// Read from the resolved command.
    Known(String),
    /// Not decidable from the text; pairs with any value (compare reports it).
    Unknown {
        /// Why.
        unknown: String,
    },
}

impl ShapeValue {
    /// The value as messages print it (`?` for unknown).
    pub fn display(&self) -> &str {
        match self {
            ShapeValue::Known(v) => v,
            ShapeValue::Unknown { .. } => "?",
        }
    }

    /// Whether two values may be the same deployment (unknown pairs with anything).
    pub fn agrees(&self, other: &ShapeValue) -> bool {
        match (self, other) {
            (ShapeValue::Known(a), ShapeValue::Known(b)) => a == b,
            _ => true,
        }
    }
}

/// A shape key on which two deployments disagree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShapeDiff {
    /// The shape key.
    pub key: String,
    /// This deployment's value.
    pub this: String,
    /// The other deployment's value.
    pub other: String,
}

/// The nearest candidate of an unpaired deployment.
#[derive(Debug, Clone, Serialize)]
pub struct Nearest {
    /// The candidate.
    pub deployment: String,
    /// Where its launch is written.
    pub span: crate::span::Span,
    /// The shape keys that differ: key, this side's value, the candidate's.
    pub differs: Vec<ShapeDiff>,
}

/// Shape key -> value, for every key of the table.
pub type Shape = BTreeMap<String, ShapeValue>;

/// Where a deployment is written, and how to reach it again.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    /// The docs file, or the InferenceX master config.
    pub file: String,
    /// The generator selection (docs) that shows it; empty for a page block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selection: Vec<(String, String)>,
    /// The component that prints it, for generators.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// The InferenceX entry (recipe).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// The matrix points that run this launch (recipe; identical launches grouped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<BTreeMap<String, String>>,
}

/// What a pair report says of its pair (JSON `pair`).
#[derive(Debug, Clone, Serialize)]
pub struct PairInfo {
    /// The docs deployment's origin.
    pub docs: Origin,
    /// The recipe deployment's origin (points of the entry this report covers).
    pub recipe: Origin,
    /// The role compared (`single`, or `prefill`/`decode`/`aggregated`:
    /// a pair of deployments with roles is one report per role).
    pub role: &'static str,
    /// Set when paired by the nearest shape: the shape keys that differ.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nearest_only: Vec<ShapeDiff>,
}

/// One deployment: a launch per role (one role, `single`, for a server that
/// serves alone; `prefill`/`decode`/`aggregated` for the workers of a
/// disaggregated or multi-node one), its identity and its shape.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// Docs or recipe.
    pub side: Side,
    /// Where it is written.
    pub origin: Origin,
    /// The servers it starts, one per role in role order (at least one).
    pub roles: Vec<RoleServer>,
    /// Who it is.
    pub identity: Identity,
    /// Its shape: a role-wise key holds one value when every role has it,
    /// else each role's (`prefill 8 / decode 16`).
    pub shape: Shape,
    /// What its roles' releases refuse: one entry per role whose release
    /// refuses some of its command.
    pub refusals: Vec<Refusal>,
    /// Where its roles disagree on a key they must share ([`cross_role`]).
    pub cross_role: Vec<cross_role::Disagreement>,
}

/// One role's server of a deployment.
#[derive(Debug, Clone)]
pub struct RoleServer {
    /// The role (`single` for a server that serves alone).
    pub role: Role,
    /// The server it starts.
    pub launch: Launch,
    /// Its own shape (the deployment's, for a single role).
    pub shape: Shape,
}

/// Why a deployment's release would not start its command.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The role whose command it refuses.
    pub role: Role,
    /// The release, as messages name it (`sglang 0.5.23`).
    pub release: String,
    /// The engine's startup errors, in its order (at least one).
    pub errors: Vec<crate::resolved::StartupError>,
}

/// The launches a config's links compare, by the file each is written in
/// and its words as written ([`Launch::written_key`]): the links pin them.
/// Pairing leaves a docs deployment a link compares to that link (it is not
/// paired again), and a recipe deployment a link compares is not reported
/// unpaired.
#[derive(Debug, Default)]
pub struct Pins {
    docs: BTreeMap<(std::path::PathBuf, String), String>,
    recipe: BTreeMap<(std::path::PathBuf, String), String>,
}

/// What one compared pair of launches pins: each side's file and words
/// ([`Pins::insert`] records them under a link). Small, so a run's workers
/// hand it over instead of the launches.
#[derive(Debug, Clone)]
pub struct Pin {
    docs: Option<(std::path::PathBuf, String)>,
    recipe: Option<(std::path::PathBuf, String)>,
}

impl Pin {
    /// What comparing these two launches pins.
    pub fn of(docs: &Launch, recipe: &Launch) -> Pin {
        Pin {
            docs: pin_key(docs),
            recipe: pin_key(recipe),
        }
    }
}

impl Pins {
    /// Records a pin under the link named `link` (a launch pinned by an
    /// earlier link stays that link's).
    pub fn insert(&mut self, link: &str, pin: Pin) {
        for (map, key) in [(&mut self.docs, pin.docs), (&mut self.recipe, pin.recipe)] {
            if let Some(key) = key {
                map.entry(key).or_insert_with(|| link.to_string());
            }
        }
    }

    /// Whether no link pins anything.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty() && self.recipe.is_empty()
    }

    /// The link that compares this deployment's launch, if one does.
    pub fn link_of(&self, d: &Deployment) -> Option<&str> {
        let map = match d.side {
            Side::Docs => &self.docs,
            Side::Recipe => &self.recipe,
        };
        map.get(&pin_key(d.launch())?).map(String::as_str)
    }
}

/// A launch's file (as the file system names it: a page, a rendered page's
/// file, a script) and its words as written; `None` for text that is no file.
fn pin_key(launch: &Launch) -> Option<(std::path::PathBuf, String)> {
    let file = match launch.span.origin() {
        crate::span::Origin::File(p) | crate::span::Origin::Rendered { file: p, .. } => p,
        _ => return None,
    };
    let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
    Some((file, launch.written_key()))
}

impl Deployment {
    /// Its first role's launch: the one its findings are placed on when
    /// they are about the deployment as a whole.
    pub fn launch(&self) -> &Launch {
        &self.roles[0].launch
    }

    /// Its roles, in role order.
    pub fn role_set(&self) -> Vec<Role> {
        self.roles.iter().map(|r| r.role).collect()
    }

    /// Whether it is one server serving alone (`single`).
    pub fn is_single(&self) -> bool {
        self.roles.len() == 1 && self.roles[0].role.is_single()
    }

    /// Its roles as messages name them (`prefill + decode`).
    pub fn roles_label(&self) -> String {
        roles_label(&self.role_set())
    }

    /// A short label: `qwen35-deployment.jsx <Qwen35Deployment /> hardware=mi355x ...`
    /// or `entry qwen3.5-fp4-mi355x-sglang tp=2 ...`.
    pub fn label(&self) -> String {
        let o = &self.origin;
        match &o.entry {
            Some(entry) => {
                let mut s = format!("entry {entry}");
                if let Some(p) = points_label(&o.points) {
                    s.push_str(&format!(" [{p}]"));
                }
                s
            }
            None => {
                let mut s = o.file.clone();
                if let Some(c) = &o.component {
                    s.push_str(&format!(" <{c} />"));
                }
                if !o.selection.is_empty() {
                    let sel: Vec<String> = o
                        .selection
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect();
                    s.push_str(&format!(" {}", sel.join(", ")));
                }
                s
            }
        }
    }

    /// The shape keys (of `keys`) on which two deployments disagree, with both values.
    pub fn differs(&self, other: &Deployment, keys: &[String]) -> Vec<ShapeDiff> {
        keys.iter()
            .filter_map(|k| {
                let a = self.shape.get(k)?;
                let b = other.shape.get(k)?;
                // A checkpoint's own precision that is not known agrees with
                // the other side's only when both serve that same checkpoint.
                let agrees = match (k.as_str(), a, b) {
                    ("precision", ShapeValue::Unknown { .. }, ShapeValue::Known(_))
                    | ("precision", ShapeValue::Known(_), ShapeValue::Unknown { .. }) => {
                        self.identity.model.is_some() && self.identity.model == other.identity.model
                    }
                    _ => a.agrees(b),
                };
                (!agrees).then(|| ShapeDiff {
                    key: k.clone(),
                    this: a.display().into(),
                    other: b.display().into(),
                })
            })
            .collect()
    }
}

/// Roles as messages name them (`prefill + decode`, `single`).
pub fn roles_label(roles: &[Role]) -> String {
    roles
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The shape of a deployment from its roles' shapes: a key every role has
/// the same known value of holds that value; one the roles differ in holds
/// each role's (`prefill off / decode on`), so two deployments with the same
/// roles agree on it exactly when they agree role by role; one a role does
/// not know is unknown, naming the role.
pub fn combine_shapes(roles: &[(Role, &Shape)]) -> Shape {
    let mut out = Shape::new();
    let Some((_, first)) = roles.first() else {
        return out;
    };
    if roles.len() == 1 {
        return (*first).clone();
    }
    for key in first.keys() {
        let values: Vec<(Role, &ShapeValue)> = roles
            .iter()
            .filter_map(|(r, s)| s.get(key).map(|v| (*r, v)))
            .collect();
        let unknown = values.iter().find_map(|(r, v)| match v {
            ShapeValue::Unknown { unknown } => Some(format!("{r}: {unknown}")),
            ShapeValue::Known(_) => None,
        });
        let value = match unknown {
            Some(unknown) => ShapeValue::Unknown { unknown },
            None if values.iter().all(|(_, v)| *v == values[0].1) => values[0].1.clone(),
            None => ShapeValue::Known(
                values
                    .iter()
                    .map(|(r, v)| format!("{r} {}", v.display()))
                    .collect::<Vec<_>>()
                    .join(" / "),
            ),
        };
        out.insert(key.clone(), value);
    }
    out
}

/// The shape key that says how a deployment's servers are laid out.
pub const TOPOLOGY: &str = "topology";

/// The topology of a deployment with roles: each role's workers, the GPUs
/// of one worker and the nodes they take, as far as the recipe says
/// (`prefill 6 x 8 GPUs on 12 nodes / decode 1 x 16 GPUs on 4 nodes`);
/// unknown with `why` when it names no workers. (One server's is `single`.)
pub fn topology(workers: &[crate::extract::inferencex::RoleWorkers], why: &str) -> ShapeValue {
    if workers.is_empty() {
        return ShapeValue::Unknown {
            unknown: why.to_string(),
        };
    }
    let parts: Vec<String> = workers
        .iter()
        .map(|w| {
            let mut p = format!("{} {}", w.role, w.workers);
            if let Some(g) = w.gpus_per_worker {
                p.push_str(&format!(" x {g} GPUs"));
            }
            if let Some(k) = w.nodes {
                p.push_str(&format!(" on {k} node{}", if k == 1 { "" } else { "s" }));
            }
            p
        })
        .collect();
    ShapeValue::Known(parts.join(" / "))
}

/// `k=v1,v2 ...` over the fields of some matrix points.
pub fn points_label(points: &[BTreeMap<String, String>]) -> Option<String> {
    if points.is_empty() {
        return None;
    }
    let mut summary: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in points {
        for (k, v) in p {
            let vs = summary.entry(k).or_default();
            if !vs.contains(&v.as_str()) {
                vs.push(v);
            }
        }
    }
    let text: Vec<String> = summary
        .iter()
        .map(|(k, v)| format!("{k}={}", v.join(",")))
        .collect();
    Some(format!(
        "{} point{}: {}",
        points.len(),
        if points.len() == 1 { "" } else { "s" },
        text.join(" ")
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Data {
    family: FamilyData,
    precision_words: BTreeMap<String, String>,
    quantization_precision: BTreeMap<String, String>,
    shape: Vec<ShapeKey>,
    nearest_over: Vec<String>,
    pair_by: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FamilyData {
    date_word: String,
    variant_words: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShapeKey {
    name: String,
    #[serde(default)]
    sglang: Vec<Read>,
    #[serde(default)]
    vllm: Vec<Read>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Read {
    key: String,
    #[serde(rename = "as")]
    form: Form,
    /// With `as: on`: on only when the value is one of these; with `as:
    /// value`: the value only when it is one of these (else off).
    #[serde(default, rename = "in")]
    one_of: Vec<String>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Form {
    Value,
    On,
    Gt1,
}

struct Tables {
    data: Data,
    date: Regex,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let data: Data = serde_saphyr::from_str(DATA).expect("bundled pairing.yaml");
        let date = Regex::new(&data.family.date_word).expect("pairing.yaml: date-word");
        for k in &data.pair_by {
            assert!(
                data.shape.iter().any(|s| &s.name == k),
                "pairing.yaml: pair-by names an unknown shape key {k}"
            );
        }
        Tables { data, date }
    })
}

/// Every shape key, in table order.
pub fn shape_keys() -> Vec<&'static str> {
    tables()
        .data
        .shape
        .iter()
        .map(|s| s.name.as_str())
        .collect()
}

/// The shape keys an entry's nearest pair may differ in (`nearest-over`).
pub fn nearest_over() -> &'static [String] {
    &tables().data.nearest_over
}

/// The shape keys paired on by default.
pub fn default_pair_by() -> Vec<String> {
    tables().data.pair_by.clone()
}

/// Checks a config's `pair-by:` list: each a shape key, none twice.
pub fn check_pair_by(keys: &[String]) -> Result<(), String> {
    let known = shape_keys();
    for (i, k) in keys.iter().enumerate() {
        if !known.contains(&k.as_str()) {
            let near = crate::suggest::nearest(k, known.iter().copied(), 0.8);
            return Err(match near {
                Some(n) => format!(
                    "{k:?} is not a shape key (did you mean {n}?); shape keys: {}",
                    known.join(", ")
                ),
                None => format!("{k:?} is not a shape key; shape keys: {}", known.join(", ")),
            });
        }
        if keys[..i].contains(k) {
            return Err(format!("{k:?} is named twice"));
        }
    }
    Ok(())
}

/// The words of a checkpoint's name (after its organisation), lower-cased.
fn name_words(model: &str) -> Vec<String> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    name.split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// The model family of a checkpoint id (`amd/Qwen3.5-397B-A17B-MXFP4` ->
/// `qwen3.5-397b-a17b`), by the rules of `pairing.yaml`; `overrides` (a
/// config's `families:`, checkpoint -> family, compared case-insensitively)
/// win.
pub fn family_of(model: &str, overrides: &BTreeMap<String, String>) -> String {
    if let Some((_, f)) = overrides
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(model))
    {
        return f.to_ascii_lowercase();
    }
    let t = tables();
    let mut kept = Vec::new();
    for w in name_words(model) {
        if t.data.precision_words.contains_key(&w) || t.data.family.variant_words.contains(&w) {
            break;
        }
        if t.date.is_match(&w) {
            continue;
        }
        kept.push(w);
    }
    if kept.is_empty() {
        return model.to_ascii_lowercase();
    }
    kept.join("-")
}

/// The precision a checkpoint's name says (`native` when none).
pub fn precision_of_name(model: &str) -> String {
    let t = tables();
    name_words(model)
        .iter()
        .find_map(|w| t.data.precision_words.get(w).cloned())
        .unwrap_or_else(|| "native".into())
}

/// Identity of a resolved launch: the engine, the model (`model` key) and its
/// family, the hardware family of the launch's context.
pub fn identity_of(
    launch: &Launch,
    resolved: &Resolved,
    families: &BTreeMap<String, String>,
) -> Identity {
    let model = resolved
        .values
        .get("model")
        .and_then(|e| e.val.value())
        .and_then(Value::as_str)
        .map(String::from);
    Identity {
        engine: resolved.engine.name().to_string(),
        family: model.as_deref().map(|m| family_of(m, families)),
        model,
        // A SKU the hardware table does not know is its own family (the
        // vLLM recipes site's `rtx_pro_6000`, a TPU): it pairs with the same
        // name only, and its coverage names it.
        hardware: launch.context.hardware.as_ref().map(|h| {
            crate::hardware::family_of(&h.value)
                .map(String::from)
                .unwrap_or_else(|| h.value.to_ascii_lowercase())
        }),
        refused: None,
        partial: None,
    }
}

/// The shape of a resolved launch: every key of the table.
pub fn shape_of(resolved: &Resolved, model: Option<&str>) -> Shape {
    let t = tables();
    let engine = resolved.engine.name();
    let mut shape = Shape::new();
    for key in &t.data.shape {
        let value = if key.name == "precision" {
            precision(resolved, model)
        } else if key.name == TOPOLOGY {
            // Set from the deployment's roles by its loader.
            ShapeValue::Known("single".into())
        } else {
            let reads = match engine {
                "sglang" => &key.sglang,
                _ => &key.vllm,
            };
            read_shape(resolved, reads)
        };
        shape.insert(key.name.clone(), value);
    }
    shape
}

fn precision(resolved: &Resolved, model: Option<&str>) -> ShapeValue {
    let t = tables();
    let quantization = resolved.values.get("quantization").map(|e| &e.val);
    if let Some(Value::String(q)) = quantization.and_then(|v| v.value()) {
        let q = q.to_ascii_lowercase();
        return ShapeValue::Known(t.data.quantization_precision.get(&q).cloned().unwrap_or(q));
    }
    let Some(m) = model else {
        return ShapeValue::Unknown {
            unknown: "the model is not known".into(),
        };
    };
    let named = precision_of_name(m);
    // A name with no precision word serves the checkpoint's own precision,
    // which its config.json says (DeepSeek-R1 is FP8 as released): unknown
    // while the quantization is, never guessed as `native`.
    if named == "native"
        && let Some(crate::resolved::Val::Unknown { reason, .. }) = quantization
    {
        return ShapeValue::Unknown {
            unknown: format!("the checkpoint's own precision: {reason}"),
        };
    }
    ShapeValue::Known(named)
}

fn read_shape(resolved: &Resolved, reads: &[Read]) -> ShapeValue {
    if reads.is_empty() {
        return ShapeValue::Unknown {
            unknown: format!("not read for {}", resolved.engine.name()),
        };
    }
    let mut unknown = None;
    let mut any_on = false;
    let mut value = None;
    for r in reads {
        let val = match resolved.values.get(&r.key) {
            Some(e) => e.val.clone(),
            None => resolved.absent(&r.key),
        };
        let Some(v) = val.value() else {
            unknown = Some(format!("{} is not known", r.key));
            continue;
        };
        match r.form {
            // With `in`: the value when it is one of them, else off.
            Form::Value if !r.one_of.is_empty() => {
                if let Some(s) = v.as_str().filter(|s| r.one_of.iter().any(|o| o == s)) {
                    value = Some(s.to_string());
                }
            }
            Form::Value => value = Some(crate::resolved::display_value(v)),
            Form::On if !r.one_of.is_empty() => {
                any_on |= v.as_str().is_some_and(|s| r.one_of.iter().any(|o| o == s))
            }
            Form::On => any_on |= is_on(v),
            Form::Gt1 => any_on |= v.as_f64().is_some_and(|n| n > 1.0),
        }
    }
    if let Some(v) = value {
        return ShapeValue::Known(v);
    }
    if any_on {
        return ShapeValue::Known("on".into());
    }
    match unknown {
        Some(u) => ShapeValue::Unknown { unknown: u },
        None => ShapeValue::Known("off".into()),
    }
}

fn is_on(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty() && !s.eq_ignore_ascii_case("none"),
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        _ => true,
    }
}

/// A one-line command as the engine release `version` resolves it, with
/// its launch (the tests of the space's readers).
#[cfg(test)]
pub(crate) fn resolved_command(cmd: &str, version: &str) -> (Launch, crate::resolved::Resolved) {
    let src = std::sync::Arc::new(crate::span::Source::new(
        crate::span::Origin::Inline("t".into()),
        cmd.to_string(),
    ));
    let launch =
        crate::extract::extract_source(&src, crate::extract::InputKind::Command, &BTreeMap::new())
            .unwrap()
            .remove(0);
    let opts = crate::resolved::ResolveOptions {
        engine_version: Some(version.into()),
        ..Default::default()
    };
    let r = crate::engine::resolve_outcome(&launch, &opts).unwrap();
    (launch, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_cut_at_precision_and_variant_words_and_drop_dates() {
        let none = BTreeMap::new();
        assert_eq!(
            family_of("amd/Qwen3.5-397B-A17B-MXFP4-AttnFP8-V2", &none),
            "qwen3.5-397b-a17b"
        );
        assert_eq!(
            family_of("amd/Qwen3.5-397B-A17B-MXFP4", &none),
            "qwen3.5-397b-a17b"
        );
        assert_eq!(
            family_of("Qwen/Qwen3.5-397B-A17B", &none),
            "qwen3.5-397b-a17b"
        );
        assert_eq!(
            family_of("nvidia/DeepSeek-R1-0528-FP4-v2", &none),
            "deepseek-r1"
        );
        assert_eq!(
            family_of("deepseek-ai/DeepSeek-R1-0528", &none),
            "deepseek-r1"
        );
        assert_eq!(family_of("deepseek-ai/DeepSeek-V3", &none), "deepseek-v3");
        let by_hand = BTreeMap::from([("org/Custom-Ckpt".to_string(), "Fam".to_string())]);
        assert_eq!(family_of("ORG/custom-ckpt", &by_hand), "fam");
    }

    #[test]
    fn precision_from_the_name() {
        assert_eq!(
            precision_of_name("amd/Qwen3.5-397B-A17B-MXFP4-AttnFP8-V2"),
            "fp4"
        );
        assert_eq!(precision_of_name("Qwen/Qwen3.5-397B-A17B-FP8"), "fp8");
        assert_eq!(precision_of_name("Qwen/Qwen3.5-397B-A17B"), "native");
    }

    /// The shape of a command as SGLang `version` resolves it.
    fn sglang_shape(cmd: &str, version: &str) -> Shape {
        let (_, r) = super::resolved_command(cmd, version);
        shape_of(&r, Some("org/Model-FP8"))
    }

    #[test]
    fn dp_attention_is_read_in_every_release_spelling() {
        let cmd =
            "sglang serve --model-path org/Model-FP8 --tp 8 --dp-size 8 --enable-dp-attention";
        for v in ["0.5.19", "0.5.23"] {
            let shape = sglang_shape(cmd, v);
            assert_eq!(shape["dp-attention"], ShapeValue::Known("on".into()), "{v}");
            assert_eq!(shape["tp"], ShapeValue::Known("8".into()), "{v}");
            assert_eq!(shape["precision"], ShapeValue::Known("fp8".into()), "{v}");
        }
        let off = sglang_shape("sglang serve --model-path org/Model-FP8 --tp 8", "0.5.23");
        assert_eq!(off["dp-attention"], ShapeValue::Known("off".into()));
        assert_eq!(off["speculative"], ShapeValue::Known("off".into()));
    }

    #[test]
    fn decode_context_parallelism_is_a_shape_key() {
        let dcp = sglang_shape(
            "sglang serve --model-path org/Model-FP8 --tp 8 --dcp-size 8",
            "0.5.23",
        );
        assert_eq!(dcp["dcp"], ShapeValue::Known("on".into()));
        // Off by default, and in a release without the option.
        for v in ["0.5.23", "0.5.14"] {
            let none = sglang_shape("sglang serve --model-path org/Model-FP8 --tp 8", v);
            assert_eq!(none["dcp"], ShapeValue::Known("off".into()), "{v}");
        }
        assert!(default_pair_by().contains(&"dcp".to_string()));
    }

    #[test]
    fn mxfp8_is_a_precision_and_not_part_of_the_family() {
        let none = BTreeMap::new();
        assert_eq!(family_of("MiniMaxAI/MiniMax-M3-MXFP8", &none), "minimax-m3");
        assert_eq!(precision_of_name("MiniMaxAI/MiniMax-M3-MXFP8"), "fp8");
    }

    #[test]
    fn a_sku_the_table_does_not_know_is_its_own_hardware_family() {
        let src = std::sync::Arc::new(crate::span::Source::new(
            crate::span::Origin::Inline("t".into()),
            "vllm serve org/Model-FP8\n".to_string(),
        ));
        let mut launch = crate::extract::extract_source(
            &src,
            crate::extract::InputKind::Command,
            &BTreeMap::new(),
        )
        .unwrap()
        .remove(0);
        let resolved = crate::engine::resolve_outcome(&launch, &Default::default()).unwrap();
        for (sku, family) in [("RTX_PRO_6000", "rtx_pro_6000"), ("b200-dgxc", "b200")] {
            launch.context.hardware = Some(crate::launch::Known {
                value: sku.to_string(),
                from: "--hardware".into(),
            });
            let id = identity_of(&launch, &resolved, &BTreeMap::new());
            assert_eq!(id.hardware.as_deref(), Some(family), "{sku}");
            assert!(id.incomplete().is_none(), "{sku}");
        }
    }

    #[test]
    fn pair_by_is_checked() {
        assert!(check_pair_by(&["tp".into(), "precision".into()]).is_ok());
        let e = check_pair_by(&["tpp".into()]).unwrap_err();
        assert!(e.contains("did you mean tp"), "{e}");
        assert!(check_pair_by(&["tp".into(), "tp".into()]).is_err());
        for k in default_pair_by() {
            assert!(shape_keys().contains(&k.as_str()));
        }
    }
}
