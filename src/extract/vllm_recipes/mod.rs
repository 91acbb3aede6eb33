//! The vLLM recipes site (`vllm-project/recipes`): a model YAML plus the
//! hardware taxonomy -> the `vllm serve` command the site's command builder
//! shows for one selection (variant, strategy, hardware, features).
//!
//! The composition rules are written down in `docs/vllm-recipes.md`; this
//! module implements them for single-node deployments (the `single_node_*`
//! strategies at one node, no Advanced flags) and for prefill/decode
//! clusters (`pd_cluster`: one command per pool, see `pd`). Multi-node
//! strategies and omni recipes are refused with an input error rather than
//! approximated.
//!
//! Every argument and environment variable of a composed command keeps the
//! layer it came from (`variants.fp8.extra_args`, `hardware_overrides.amd`,
//! ...) and, when it was written in a YAML file, its span there.
//!
//! The rooms: `yaml` (the spanned YAML tree), `layer` (where a word came
//! from), `taxonomy` (hardware profiles, strategies), `recipe` (the model
//! YAML and the site's predicates), `compose` (selection -> argument list and
//! environment) and `format` (the site's quoting, line layout and `docker run`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::{markdown, shell_text};
use crate::error::Error;
use crate::launch::{Context, Known, Launch, Platform, Role};
use crate::span::{Origin, Source, Span};

mod compose;
mod format;
mod layer;
mod pd;
mod recipe;
mod taxonomy;
#[cfg(test)]
mod tests;
mod yaml;

pub use layer::{EnvEntry, Layer};
pub use pd::{Pool, PoolPick, PoolPicks};
pub use recipe::{Guide, Recipe};
pub use taxonomy::{HardwareProfile, KvOffloadOption, StrategySpec, Taxonomy};

// ---------------------------------------------------------------------------
// Selections and the composed command.
// ---------------------------------------------------------------------------

/// What to compose: the choices of the site's command builder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Selection {
    /// Variant key; `None` = the site's landing variant (`default`, or the
    /// largest variant that runs on the hardware when `default` does not).
    pub variant: Option<String>,
    /// Strategy id; `None` = the strategy the site recommends here.
    pub strategy: Option<String>,
    /// Hardware profile id (`h200`, `mi355x`, ...).
    pub hardware: String,
    /// Feature clicks applied to the default feature set, in order: `name`
    /// turns a feature on (appended, like the site's toggle; it turns off its
    /// mutually exclusive partner), `name:mode` also picks the mode of a
    /// single-select feature, `-name` turns a feature off. Empty = defaults.
    pub features: Vec<String>,
    /// The "KV Offload" row's composing option (`taxonomy.yaml:
    /// kv_offload.<key>`); `None` = off, the site's default.
    pub kv_offload: Option<String>,
    /// The pools of a `pd_cluster` selection (mode and nodes per pool);
    /// default = the site's defaults. Unused by other strategies.
    #[serde(skip_serializing_if = "PoolPicks::is_default")]
    pub pools: PoolPicks,
}

impl Selection {
    /// A short `key=value` description (`variant=fp8 strategy=... hardware=...`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(v) = &self.variant {
            parts.push(format!("variant={v}"));
        }
        if let Some(s) = &self.strategy {
            parts.push(format!("strategy={s}"));
        }
        parts.push(format!("hardware={}", self.hardware));
        if !self.features.is_empty() {
            parts.push(format!("features={}", self.features.join(",")));
        }
        if let Some(k) = &self.kv_offload {
            parts.push(format!("kv_offload={k}"));
        }
        parts.extend(self.pools.describe());
        parts.join(" ")
    }
}

/// Which hardware a composition may target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HardwareScope {
    /// Only hardware the recipe marks `verified` in `meta.hardware`.
    #[default]
    Verified,
    /// Any hardware the site offers for the recipe (not `unsupported`, not a
    /// restricted profile the recipe does not declare).
    Offered,
}

/// The site's install mode for a recipe and hardware.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallMode {
    /// `export` lines and `vllm serve ...`.
    Pip,
    /// `docker run ... IMAGE MODEL ...`.
    Docker,
}

/// A feature that contributed to the command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnabledFeature {
    /// Feature key.
    pub name: String,
    /// The mode of a single-select feature.
    pub mode: Option<String>,
}

/// A composed `vllm serve` command for one resolved selection: the one
/// server of a single-node strategy, or one pool's of a `pd_cluster` (the
/// selection composes one per pool, prefill then decode).
#[derive(Debug, Clone, Serialize)]
pub struct Composed {
    /// The selection with every default resolved.
    pub selection: Selection,
    /// The part its server plays: `single`, or the pool's `prefill` / `decode`.
    pub role: Role,
    /// The pool of a `pd_cluster` command (its mode, nodes and GPUs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<Pool>,
    /// The resolved variant key.
    pub variant: String,
    /// The resolved strategy id.
    pub strategy: String,
    /// The hardware profile id.
    pub hardware: String,
    /// Whether the recipe marks this hardware `verified`.
    pub verified: bool,
    /// The variant's precision (`bf16`, `fp8`, `nvfp4`, ...).
    pub precision: Option<String>,
    /// Features that contributed arguments, in emission order.
    pub features: Vec<EnabledFeature>,
    /// The KV-offload option whose arguments and environment were composed.
    pub kv_offload: Option<String>,
    /// The parallel flag and the size the site put after the strategy args.
    pub parallel: (String, String),
    /// The served model id (the first word of `argv`).
    pub model_id: String,
    /// Environment, in the site's order (first assignment), last value wins.
    pub env: Vec<EnvEntry>,
    /// The words after `vllm serve`: the model id, then the de-duplicated
    /// arguments, unquoted.
    pub argv: Vec<String>,
    /// Where each word of `argv` came from (same length as `argv`).
    pub arg_layers: Vec<Layer>,
    /// The Docker image the site shows for this hardware (`None` when the
    /// site would have none, e.g. an Intel CPU with a nightly-only recipe).
    pub docker_image: Option<String>,
    /// The minimum vLLM version shown (the higher of the recipe's and the
    /// variant's).
    pub min_vllm_version: Option<String>,
    /// Whether the install block asks for a nightly build.
    pub nightly_required: bool,
    /// The install mode the site shows first for this recipe and hardware.
    pub install_mode: InstallMode,
    /// The `vllm serve` command exactly as the site formats it.
    pub command: String,
    /// What the site's copy button gives in pip mode: `export NAME=value`
    /// lines, a blank line, then `command` (just `command` without env).
    pub text: String,
    /// The same command wrapped in the site's `docker run`.
    pub docker_text: Option<String>,
    /// `text` as a source (`Origin::Rendered` over the model file), for the
    /// command extractor.
    #[serde(skip)]
    pub source: Arc<Source>,
    /// Whether the variant's weights fit one node of this hardware.
    pub fits_single_node: bool,
    /// The platform of the hardware (from its brand and generation).
    pub platform: Option<Platform>,
}

impl Composed {
    /// The launch of `text`, read by the command extractor, with the hardware,
    /// platform and image filled in from the selection.
    pub fn launch(&self) -> Result<Launch, Error> {
        let mut launches = shell_text::extract(&self.source, &BTreeMap::new())?;
        if launches.len() != 1 {
            return Err(Error::input(
                self.source.span(0, 0),
                format!(
                    "expected one launch in the composed command, found {}",
                    launches.len()
                ),
            ));
        }
        let mut l = launches.remove(0);
        // Each word of the command the site composed is written in a YAML
        // file (a layer's scalar), except the ones the site makes up: the
        // launch's words are the composed words, in order.
        let words: Vec<&str> = l.argv.iter().map(|t| t.text.as_str()).collect();
        if words == self.argv.iter().map(String::as_str).collect::<Vec<_>>() {
            for (t, layer) in l.argv.iter_mut().zip(&self.arg_layers) {
                t.written_at = layer.span.clone();
            }
        }
        l.role = self.role;
        let from = format!("vLLM recipes selection {}", self.selection.describe());
        if l.context.hardware.is_none() {
            l.context.hardware = Some(Known {
                value: self.hardware.clone(),
                from: from.clone(),
            });
        }
        if l.context.platform.is_none()
            && let Some(p) = self.platform
        {
            l.context.platform = Some(Known {
                value: p,
                from: from.clone(),
            });
        }
        // The image the site shows gives the engine version (`v0.25.0`); a
        // nightly image names none.
        if let Some(image) = &self.docker_image {
            let ctx = Context::from_image(image, &format!("image {image} of {from}"));
            l.context.fill_from(&ctx);
        }
        Ok(l)
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.join(", ")
    }
}

/// Composes the command for a selection, on verified hardware only.
pub fn compose(model: &Source, taxonomy: &Taxonomy, sel: &Selection) -> Result<Composed, Error> {
    Recipe::parse(model)?.compose(taxonomy, sel, HardwareScope::Verified)
}

/// Composes the commands of a selection on any hardware within `scope`: one
/// for a single-node strategy, one per pool (prefill, decode) for
/// `pd_cluster`.
pub fn compose_roles_in(
    model: &Source,
    taxonomy: &Taxonomy,
    sel: &Selection,
    scope: HardwareScope,
) -> Result<Vec<Composed>, Error> {
    Recipe::parse(model)?.compose_roles(taxonomy, sel, scope)
}

/// Composes the command for a selection on any hardware within `scope`.
pub fn compose_in(
    model: &Source,
    taxonomy: &Taxonomy,
    sel: &Selection,
    scope: HardwareScope,
) -> Result<Composed, Error> {
    Recipe::parse(model)?.compose(taxonomy, sel, scope)
}

/// Every selection the site offers on hardware within `scope`: hardware
/// (taxonomy order) x variants that run there (file order) x the
/// single-node strategies of the Strategy row (where the weights fit one
/// node) and `pd_cluster` (every pair of pool modes, each pool at its
/// default node count) x every set of opt-in feature clicks (and every mode
/// of an enabled single-select feature). Selections are explicit (no `None`)
/// and de-duplicated by their resulting feature set.
pub fn all_selections(
    model: &Source,
    taxonomy: &Taxonomy,
    scope: HardwareScope,
) -> Result<Vec<Selection>, Error> {
    Recipe::parse(model)?.all_selections(taxonomy, scope)
}

/// The launches of the `vllm serve` blocks of a recipe's guide, with spans
/// pointing into the model file.
pub fn guide_launches(
    model: &Arc<Source>,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    let recipe = Recipe::parse(model)?;
    let Some(guide) = &recipe.guide else {
        return Ok(vec![]);
    };
    let gsrc = Arc::new(Source::new(
        Origin::Rendered {
            file: recipe.path.clone(),
            view: "guide".into(),
        },
        guide.text.clone(),
    ));
    let remap = |s: &Span| -> Span {
        match (guide.file_offset(s.start), guide.file_offset(s.end)) {
            (Some(a), Some(b)) => model.span(a, b.max(a)),
            _ => guide.key.clone(),
        }
    };
    let launches = markdown::extract(&gsrc, vars).map_err(|e| match e {
        Error::Input { span, message } => {
            let span = relocate(&span, &gsrc, guide, model).unwrap_or(span);
            Error::Input { span, message }
        }
        other => other,
    })?;
    Ok(launches
        .into_iter()
        .map(|mut l| {
            l.span = remap(&l.span);
            for t in l.launcher.iter_mut().chain(l.argv.iter_mut()) {
                t.span = remap(&t.span);
            }
            for e in &mut l.env {
                e.span = remap(&e.span);
            }
            l.source = model.clone();
            l
        })
        .collect())
}

/// Rewrites a position in the guide's text into the model file.
fn relocate(at: &Span, gsrc: &Source, guide: &Guide, model: &Source) -> Option<Span> {
    if *at.file != *gsrc.label() {
        return None;
    }
    let (line, col) = (at.pos.line, at.pos.col);
    let line_start: usize = gsrc
        .text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum();
    let line_text = gsrc.text.get(line_start..)?.lines().next().unwrap_or("");
    let byte_col: usize = line_text
        .chars()
        .take(col.saturating_sub(1))
        .map(char::len_utf8)
        .sum();
    let off = guide.file_offset(line_start + byte_col)?;
    Some(model.span(off, off))
}
