//! The recipe (model YAML): its guide, and the site's predicates over it
//! (compatible strategies, variants that run on a hardware, feature modes).

use std::path::{Path, PathBuf};

use super::taxonomy::{HardwareProfile, StrategySpec, Taxonomy};
use super::yaml::{Node, Val, parse_yaml};
use crate::error::Error;
use crate::span::{Origin, Source, Span};

/// The `guide` of a recipe: free Markdown, held in a literal block scalar.
#[derive(Debug, Clone)]
pub struct Guide {
    /// The guide's Markdown text.
    pub text: String,
    /// Per guide line: (offset in `text`, offset in the model file). Empty when
    /// the guide is not a plain literal block (positions then fall back to
    /// the `guide:` key).
    lines: Vec<(usize, usize)>,
    /// The `guide:` key, for positions that cannot be mapped.
    pub(super) key: Span,
}

impl Guide {
    fn new(value: &Node, key: Span, file: &Source) -> Option<Guide> {
        let text = value.as_str()?.to_string();
        let mut lines = Vec::new();
        let start = value.span.start;
        let file_text = &file.text;
        let line_start = file_text[..start.min(file_text.len())]
            .rfind('\n')
            .map(|i| i + 1)
            .unwrap_or(0);
        let indent = start - line_start;
        let mut ok = file_text
            .get(line_start..start)
            .is_some_and(|p| p.chars().all(|c| c == ' '));
        let mut file_line = line_start;
        let mut guide_off = 0;
        for g in text.split_inclusive('\n') {
            let g_content = g.trim_end_matches('\n');
            let f_end = file_text[file_line..]
                .find('\n')
                .map(|i| file_line + i)
                .unwrap_or(file_text.len());
            let f_line = file_text[file_line..f_end].trim_end_matches('\r');
            if !g_content.is_empty() {
                if f_line.get(indent..) != Some(g_content) {
                    ok = false;
                    break;
                }
            } else if !f_line.trim().is_empty() {
                ok = false;
                break;
            }
            lines.push((guide_off, file_line));
            guide_off += g.len();
            if f_end >= file_text.len() {
                file_line = file_text.len();
            } else {
                file_line = f_end + 1;
            }
        }
        if !ok {
            lines.clear();
        } else {
            // store the indent in the per-line file offsets
            for l in &mut lines {
                l.1 += indent;
            }
        }
        Some(Guide { text, lines, key })
    }

    /// The model-file byte offset of a byte offset in the guide text.
    pub fn file_offset(&self, guide_offset: usize) -> Option<usize> {
        if self.lines.is_empty() {
            return None;
        }
        let i = match self.lines.binary_search_by_key(&guide_offset, |l| l.0) {
            Ok(i) => i,
            Err(i) => i.checked_sub(1)?,
        };
        let (g, f) = self.lines[i];
        Some(f + (guide_offset - g))
    }
}

/// A parsed model YAML (`models/<org>/<model>.yaml`).
#[derive(Debug, Clone)]
pub struct Recipe {
    pub(super) root: Node,
    /// The model file.
    pub path: PathBuf,
    /// The Markdown guide, when the recipe has one.
    pub guide: Option<Guide>,
    pub(super) start: Span,
}

/// The site's single-select feature pair: turning one on turns the other off.
pub(super) const MUTEX: &[(&str, &str)] = &[
    ("text_only", "encoder_parallel"),
    ("encoder_parallel", "text_only"),
];

impl Recipe {
    /// Parses a model YAML.
    pub fn parse(source: &Source) -> Result<Recipe, Error> {
        let root = parse_yaml(source)?;
        if !root.is_map() {
            return Err(Error::input(
                root.span.clone(),
                "a recipe must be a mapping",
            ));
        }
        let guide = match (root.get("guide"), root.key_span("guide")) {
            (Some(v), Some(k)) => Guide::new(v, k, source),
            _ => None,
        };
        Ok(Recipe {
            path: match &source.origin {
                Origin::File(p) => p.clone(),
                Origin::Rendered { file, .. } => file.clone(),
                Origin::Inline(l) => PathBuf::from(format!("<{l}>")),
                Origin::Url(u) => PathBuf::from(u),
            },
            start: source.span(0, 0),
            root,
            guide,
        })
    }

    /// Reads and parses a model YAML file.
    pub fn load(path: &Path) -> Result<Recipe, Error> {
        Recipe::parse(&*Source::read(path)?)
    }

    pub(super) fn span_of(&self, keys: &[&str]) -> Span {
        let mut n = &self.root;
        let mut best = self.start.clone();
        for k in keys {
            match n.key_span(k) {
                Some(s) => best = s,
                None => break,
            }
            match n.get(k) {
                Some(next) => n = next,
                None => break,
            }
        }
        best
    }

    /// The model id of the recipe (`model.model_id`).
    pub fn model_id(&self) -> Option<String> {
        self.root
            .path(&["model", "model_id"])
            .and_then(Node::truthy_string)
    }

    /// Variant keys, in file order.
    pub fn variants(&self) -> Vec<String> {
        self.root
            .get("variants")
            .map(|v| v.keys().into_iter().map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Feature keys, in file order.
    pub fn features(&self) -> Vec<String> {
        self.root
            .get("features")
            .map(|v| v.keys().into_iter().map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// `meta.hardware`: hardware id -> status (`verified`, `unsupported`, ...).
    pub fn hardware_status(&self) -> Vec<(String, String)> {
        self.root
            .path(&["meta", "hardware"])
            .map(|m| {
                m.entries()
                    .iter()
                    .map(|(k, _, v)| (k.clone(), v.scalar_string().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Hardware ids the recipe marks `verified`, in file order.
    pub fn verified_hardware(&self) -> Vec<String> {
        self.hardware_status()
            .into_iter()
            .filter(|(_, s)| s == "verified")
            .map(|(k, _)| k)
            .collect()
    }

    /// Whether the site renders the recipe through its omni (`vllm serve --omni`)
    /// path, which recipe-drift does not compose.
    pub fn is_omni(&self) -> bool {
        self.root
            .path(&["meta", "tasks"])
            .is_some_and(|t| t.items().iter().any(|i| i.as_str() == Some("omni")))
    }

    pub(super) fn variant(&self, key: &str) -> Option<&Node> {
        self.root.get("variants").and_then(|v| v.get(key))
    }

    pub(super) fn declared_hardware(&self, hw: &str) -> bool {
        self.root
            .path(&["meta", "hardware"])
            .is_some_and(|m| m.has_key(hw))
    }

    pub(super) fn hardware_status_of(&self, hw: &str) -> Option<String> {
        self.root
            .path(&["meta", "hardware", hw])
            .and_then(Node::scalar_string)
    }

    // ---- the site's predicates ----

    pub(super) fn effective_compatible(&self) -> Vec<String> {
        let listed: Vec<String> = self
            .root
            .get("compatible_strategies")
            .map(Node::str_list)
            .unwrap_or_default();
        let mut out = listed.clone();
        if let Some(sh) = self.root.get("strategy_hardware") {
            for (s, _, map) in sh.entries() {
                if listed.contains(s) || !map.is_map() {
                    continue;
                }
                if map
                    .entries()
                    .iter()
                    .any(|(_, _, v)| v.as_str() == Some("supported"))
                {
                    out.push(s.clone());
                }
            }
        }
        out
    }

    fn supports_multi_node(&self) -> bool {
        self.effective_compatible()
            .iter()
            .any(|s| s.starts_with("multi_node_") || s == "pd_cluster")
    }

    pub(super) fn strategy_supported_on(&self, s: &str, hw: &HardwareProfile) -> bool {
        let gate = self
            .root
            .path(&["strategy_hardware", s])
            .and_then(|m| hardware_keyed(m, hw).map(|(_, n)| n));
        match gate {
            Some(g) => g.as_str() != Some("unsupported"),
            None => self
                .root
                .get("compatible_strategies")
                .map(Node::str_list)
                .unwrap_or_default()
                .iter()
                .any(|x| x == s),
        }
    }

    pub(super) fn min_gpus_for(&self, key: &str, hw_id: &str) -> f64 {
        let Some(cfg) = self.root.get("strategy_min_gpus") else {
            return 0.0;
        };
        if let Some(n) = cfg.as_num() {
            return n;
        }
        let from_block = |block: Option<&Node>| -> f64 {
            let Some(block) = block else { return 0.0 };
            if let Some(n) = block.as_num() {
                return n;
            }
            block
                .get(key)
                .or_else(|| block.get(&format!("multi_node_{key}")))
                .or_else(|| block.get(&format!("single_node_{key}")))
                .and_then(Node::as_num)
                .unwrap_or(0.0)
        };
        from_block(Some(cfg)).max(from_block(cfg.get(hw_id)))
    }

    pub(super) fn strategy_reachable(&self, spec: &StrategySpec, hw: &HardwareProfile) -> bool {
        let scales_out = matches!(
            spec.deploy_type.as_deref(),
            Some("multi_node" | "pd_cluster")
        );
        let max_nodes = if scales_out { 16.0 } else { 1.0 };
        let per_node = match hw.gpu_count {
            Some(n) if n != 0.0 && !n.is_nan() => n,
            _ => 8.0,
        };
        max_nodes * per_node >= self.min_gpus_for(&spec.name, &hw.id)
    }

    /// The strategies the site's Strategy row lists at one node (compatible,
    /// defined, not a KV-store deployment, not multi-node, reachable).
    pub(super) fn row_strategies(&self, tax: &Taxonomy, hw: &HardwareProfile) -> Vec<String> {
        self.effective_compatible()
            .into_iter()
            .filter(|s| match tax.strategy(s) {
                None => false,
                Some(spec) => {
                    let dt = spec.deploy_type.as_deref();
                    dt != Some("kv_store_lb")
                        && dt != Some("multi_node")
                        && self.strategy_reachable(spec, hw)
                }
            })
            .collect()
    }

    pub(super) fn recommended_strategy(&self, tax: &Taxonomy, hw: &HardwareProfile) -> String {
        let compatible = self.effective_compatible();
        let explicit = self
            .root
            .get("default_strategy")
            .and_then(Node::truthy_string);
        let recommended = match explicit {
            Some(e) if compatible.contains(&e) => e,
            _ if compatible.iter().any(|s| s == "single_node_tp") => "single_node_tp".into(),
            _ => compatible
                .first()
                .cloned()
                .unwrap_or_else(|| "single_node_tp".into()),
        };
        let row = self.row_strategies(tax, hw);
        if row.contains(&recommended) && self.strategy_supported_on(&recommended, hw) {
            return recommended;
        }
        row.iter()
            .find(|s| self.strategy_supported_on(s, hw))
            .or(row.first())
            .cloned()
            .unwrap_or(recommended)
    }

    pub(super) fn precision_ok(&self, v: &Node, hw: &HardwareProfile) -> bool {
        let (brand, generation) = match v.get("precision_hardware") {
            Some(c) => (
                c.get("brand").and_then(Node::truthy_string),
                c.get("generation").and_then(Node::truthy_string),
            ),
            None => match v.get("precision").and_then(Node::as_str) {
                Some("nvfp4" | "fp4") => (Some("NVIDIA".into()), Some("blackwell".into())),
                _ => (None, None),
            },
        };
        if let Some(b) = brand
            && hw.brand.as_deref() != Some(b.as_str())
        {
            return false;
        }
        if let Some(g) = generation
            && !hw.generations.contains(&g)
        {
            return false;
        }
        true
    }

    pub(super) fn variant_allows_hw(v: &Node, hw_id: &str) -> bool {
        match v.get("supported_hardware") {
            Some(Node {
                val: Val::Seq(items),
                ..
            }) if !items.is_empty() => items.iter().any(|i| i.as_str() == Some(hw_id)),
            _ => true,
        }
    }

    pub(super) fn fits_single_node(v: &Node, hw: &HardwareProfile) -> bool {
        let node_vram = hw.vram_gb.unwrap_or(0.0);
        let model_vram = v
            .get("vram_minimum_gb")
            .filter(|n| n.truthy())
            .and_then(Node::as_num)
            .unwrap_or(0.0);
        if model_vram <= 0.0 || node_vram <= 0.0 || model_vram.is_nan() {
            return true;
        }
        model_vram <= node_vram
    }

    pub(super) fn variant_runs_on(&self, v: &Node, hw: &HardwareProfile) -> bool {
        self.precision_ok(v, hw)
            && Recipe::variant_allows_hw(v, &hw.id)
            && (hw.scalable || Recipe::fits_single_node(v, hw))
    }

    pub(super) fn pick_fitting_variant(&self, hw: &HardwareProfile) -> Option<String> {
        let mut fitting: Vec<(String, f64)> = self
            .root
            .get("variants")
            .map(|vs| {
                vs.entries()
                    .iter()
                    .filter(|(_, _, v)| self.variant_runs_on(v, hw))
                    .map(|(k, _, v)| {
                        let vram = v
                            .get("vram_minimum_gb")
                            .and_then(Node::as_num)
                            .unwrap_or(0.0);
                        (k.clone(), vram)
                    })
                    .collect()
            })
            .unwrap_or_default();
        fitting.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        fitting.first().map(|f| f.0.clone())
    }

    /// Whether the site offers a single-node command for this variant here:
    /// it disables the single-node choice when the weights do not fit one node
    /// and the recipe can scale out.
    pub(super) fn single_node_offered(&self, v: &Node, hw: &HardwareProfile) -> bool {
        Recipe::fits_single_node(v, hw) || !(self.supports_multi_node() && hw.scalable)
    }

    pub(super) fn hardware_offered(&self, hw: &HardwareProfile) -> bool {
        (!hw.restricted || self.declared_hardware(&hw.id))
            && self.hardware_status_of(&hw.id).as_deref() != Some("unsupported")
    }

    pub(super) fn default_features(&self, hw_id: &str, variant_key: &str) -> Vec<String> {
        let mut opt_in: Vec<String> = self
            .root
            .get("opt_in_features")
            .map(Node::str_list)
            .unwrap_or_default();
        if let Some(l) = self.root.path(&["hardware_opt_in_features", hw_id]) {
            opt_in.extend(l.str_list());
        }
        let forced: Vec<&str> = self
            .variant(variant_key)
            .and_then(|v| v.get("default_modes"))
            .map(Node::keys)
            .unwrap_or_default();
        self.features()
            .into_iter()
            .filter(|f| forced.contains(&f.as_str()) || !opt_in.contains(f))
            .collect()
    }

    /// Why the recipe does not offer a KV-offload option (the site's recipe
    /// gate: `kv_offload_support.<key>: unsupported` opts out; an option that
    /// `requires_opt_in` is offered only where the recipe lists it
    /// `verified`), or `None` when it does.
    pub(super) fn kv_offload_refusal(&self, option: &super::KvOffloadOption) -> Option<String> {
        let support = self
            .root
            .path(&["kv_offload_support", &option.key])
            .and_then(Node::scalar_string);
        match support.as_deref() {
            Some("unsupported") => Some(format!(
                "the recipe marks it unsupported (kv_offload_support.{})",
                option.key
            )),
            Some("verified") => None,
            _ if option.requires_opt_in => Some(format!(
                "it requires opt-in and the recipe does not list it verified under kv_offload_support.{}",
                option.key
            )),
            _ => None,
        }
    }

    pub(super) fn feature_allowed_for_strategy(feat: &Node, strategy: &str) -> bool {
        match feat.get("strategies") {
            Some(Node {
                val: Val::Seq(items),
                ..
            }) if !items.is_empty() => items.iter().any(|i| i.as_str() == Some(strategy)),
            _ => true,
        }
    }

    /// Modes of a single-select feature that run on this variant and hardware,
    /// in file order.
    pub(super) fn allowed_modes(
        feat: &Node,
        variant_key: &str,
        hw: &HardwareProfile,
    ) -> Vec<String> {
        let Some(modes) = feat.get("modes").filter(|m| m.is_map()) else {
            return vec![];
        };
        modes
            .entries()
            .iter()
            .filter(|(_, _, mode)| {
                let variant_ok = match mode.get("variants") {
                    Some(Node {
                        val: Val::Seq(items),
                        ..
                    }) if !items.is_empty() => {
                        items.iter().any(|i| i.as_str() == Some(variant_key))
                    }
                    _ => true,
                };
                let hw_ok = match mode.get("hardware").filter(|h| h.is_map()) {
                    None => true,
                    Some(h) => {
                        let by_gen = hw
                            .generation
                            .as_deref()
                            .and_then(|g| h.get(g))
                            .and_then(Node::as_str)
                            == Some("unsupported");
                        let by_id = h.get(&hw.id).and_then(Node::as_str) == Some("unsupported");
                        !by_gen && !by_id
                    }
                };
                variant_ok && hw_ok
            })
            .map(|(k, _, _)| k.clone())
            .collect()
    }

    pub(super) fn resolve_mode(
        feat: &Node,
        feature: &str,
        variant: &Node,
        variant_key: &str,
        hw: &HardwareProfile,
        picked: Option<&str>,
    ) -> Option<String> {
        let allowed = Recipe::allowed_modes(feat, variant_key, hw);
        let candidates = [
            picked.map(str::to_string),
            variant
                .path(&["default_modes", feature])
                .and_then(Node::truthy_string),
            feat.get("default_mode").and_then(Node::truthy_string),
        ];
        candidates
            .into_iter()
            .flatten()
            .find(|c| allowed.contains(c))
            .or_else(|| allowed.first().cloned())
    }
}

/// `exact id > generation > brand (lower case) > default` lookup in a
/// hardware-keyed mapping; the key that matched and its value.
pub(super) fn hardware_keyed<'a>(
    map: &'a Node,
    hw: &HardwareProfile,
) -> Option<(String, &'a Node)> {
    if !map.is_map() {
        return None;
    }
    let brand = hw.brand.as_ref().map(|b| b.to_lowercase());
    let keys = [
        Some(hw.id.clone()),
        hw.generation.clone(),
        brand,
        Some("default".to_string()),
    ];
    keys.into_iter()
        .flatten()
        .find_map(|k| map.get(&k).map(|n| (k, n)))
}

/// `map[generation] || (NVIDIA ? map.nvidia : null)`: a generation block, with
/// a brand-wide `nvidia` block as fallback on NVIDIA hardware.
pub(super) fn generation_block<'a>(
    map: Option<&'a Node>,
    hw: &HardwareProfile,
) -> Option<(String, &'a Node)> {
    let map = map?;
    if let Some(g) = &hw.generation
        && let Some(n) = map.get(g)
        && n.truthy()
    {
        return Some((g.clone(), n));
    }
    if hw.brand_is("NVIDIA")
        && let Some(n) = map.get("nvidia")
        && n.truthy()
    {
        return Some(("nvidia".into(), n));
    }
    None
}
