//! Command composition: resolving a selection against a recipe and the
//! taxonomy, then stacking the site's layers into one argument list and
//! environment.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::format::{docker_run, format_command};
use super::layer::{EnvEntry, Layer, Word, assign_env, push_args, set_env};
use super::pd::{PoolCtx, drop_nvl4_env};
use super::recipe::{MUTEX, Recipe, generation_block, hardware_keyed};
use super::taxonomy::{HardwareProfile, KvOffloadOption, StrategySpec, Taxonomy};
use super::yaml::{Node, Val, js_num};
use super::{Composed, EnabledFeature, HardwareScope, InstallMode, Selection, list};
use crate::error::Error;
use crate::launch::Role;
use crate::span::{Origin, Source};

impl Recipe {
    fn resolve_hardware<'t>(
        &self,
        tax: &'t Taxonomy,
        sel: &Selection,
        scope: HardwareScope,
    ) -> Result<&'t HardwareProfile, Error> {
        let Some(hw) = tax.profile(&sel.hardware) else {
            let ids: Vec<String> = tax.hardware.iter().map(|h| h.id.clone()).collect();
            return Err(Error::input(
                tax.profiles_span.clone(),
                format!(
                    "unknown hardware `{}`; the taxonomy's hardware is: {}",
                    sel.hardware,
                    list(&ids)
                ),
            ));
        };
        let status = self.hardware_status_of(&hw.id);
        let meta_span = self.span_of(&["meta", "hardware", &hw.id]);
        if status.as_deref() == Some("unsupported") {
            return Err(Error::input(
                meta_span,
                format!("the recipe marks hardware `{}` unsupported", hw.id),
            ));
        }
        if hw.restricted && !self.declared_hardware(&hw.id) {
            return Err(Error::input(
                self.span_of(&["meta", "hardware"]),
                format!(
                    "hardware `{}` is a restricted profile the recipe does not list under meta.hardware, so the site does not offer it",
                    hw.id
                ),
            ));
        }
        if scope == HardwareScope::Verified && status.as_deref() != Some("verified") {
            return Err(Error::input(
                meta_span,
                format!(
                    "hardware `{}` is not verified by this recipe; verified hardware: {}",
                    hw.id,
                    list(&self.verified_hardware())
                ),
            ));
        }
        Ok(hw)
    }

    /// The variant of a selection; `pd` (a `pd_cluster` selection, whose
    /// pools size themselves in nodes) lifts the one-node constraint.
    fn resolve_variant(
        &self,
        hw: &HardwareProfile,
        sel: &Selection,
        pd: bool,
    ) -> Result<String, Error> {
        let variants = self.variants();
        let vspan = self.span_of(&["variants"]);
        let key = match &sel.variant {
            Some(k) => {
                if self.variant(k).is_none() {
                    return Err(Error::input(
                        vspan,
                        format!(
                            "unknown variant `{k}`; the variants are: {}",
                            list(&variants)
                        ),
                    ));
                }
                k.clone()
            }
            None => match self.variant("default") {
                Some(v) if self.variant_runs_on(v, hw) => "default".into(),
                Some(_) => self.pick_fitting_variant(hw).ok_or_else(|| {
                    Error::input(
                        vspan.clone(),
                        format!("no variant of this recipe runs on `{}`", hw.id),
                    )
                })?,
                None => {
                    return Err(Error::input(
                        vspan,
                        format!(
                            "the recipe has no `default` variant; choose one of: {}",
                            list(&variants)
                        ),
                    ));
                }
            },
        };
        let v = self.variant(&key).ok_or_else(|| {
            Error::input(
                self.span_of(&["variants"]),
                format!("variant `{key}` is empty"),
            )
        })?;
        let vs = self.span_of(&["variants", &key]);
        if !self.precision_ok(v, hw) {
            return Err(Error::input(
                vs,
                format!(
                    "variant `{key}` ({}) does not run on `{}` (precision constraint); variants that do: {}",
                    v.get("precision")
                        .and_then(Node::scalar_string)
                        .unwrap_or_default(),
                    hw.id,
                    list(&self.runnable_variants(hw))
                ),
            ));
        }
        if !Recipe::variant_allows_hw(v, &hw.id) {
            return Err(Error::input(
                vs,
                format!(
                    "variant `{key}` lists supported_hardware without `{}`; variants that run there: {}",
                    hw.id,
                    list(&self.runnable_variants(hw))
                ),
            ));
        }
        if !self.variant_runs_on(v, hw) {
            return Err(Error::input(
                vs,
                format!(
                    "variant `{key}` does not fit one `{}` and that hardware cannot be clustered; variants that fit: {}",
                    hw.id,
                    list(&self.runnable_variants(hw))
                ),
            ));
        }
        if !pd && !self.single_node_offered(v, hw) {
            return Err(Error::input(
                vs,
                format!(
                    "variant `{key}` needs more than one `{}` node (vram_minimum_gb {} > {} GB); the site offers it multi-node only, which recipe-drift does not compose",
                    hw.id,
                    v.get("vram_minimum_gb")
                        .and_then(Node::scalar_string)
                        .unwrap_or_default(),
                    hw.vram_gb.map(js_num).unwrap_or_default()
                ),
            ));
        }
        Ok(key)
    }

    fn runnable_variants(&self, hw: &HardwareProfile) -> Vec<String> {
        self.variants()
            .into_iter()
            .filter(|k| self.variant(k).is_some_and(|v| self.variant_runs_on(v, hw)))
            .collect()
    }

    fn resolve_strategy(
        &self,
        tax: &Taxonomy,
        hw: &HardwareProfile,
        sel: &Selection,
    ) -> Result<String, Error> {
        let cspan = self.span_of(&["compatible_strategies"]);
        let offered: Vec<String> = self
            .row_strategies(tax, hw)
            .into_iter()
            .filter(|s| {
                self.strategy_supported_on(s, hw)
                    && tax
                        .strategy(s)
                        .is_some_and(|t| t.is_single_node() || t.is_pd_cluster())
            })
            .collect();
        let name = match &sel.strategy {
            Some(s) => s.clone(),
            None => self.recommended_strategy(tax, hw),
        };
        let Some(spec) = tax.strategy(&name) else {
            let names: Vec<String> = tax.strategies.iter().map(|s| s.name.clone()).collect();
            return Err(Error::input(
                cspan,
                format!(
                    "unknown strategy `{name}`; the strategies are: {}",
                    list(&names)
                ),
            ));
        };
        if !self.effective_compatible().contains(&name) {
            return Err(Error::input(
                cspan,
                format!(
                    "strategy `{name}` is not compatible with this recipe; single-node strategies offered on `{}`: {}",
                    hw.id,
                    list(&offered)
                ),
            ));
        }
        if !spec.is_single_node() && !spec.is_pd_cluster() {
            let what = if sel.strategy.is_some() {
                format!("strategy `{name}`")
            } else {
                format!("the site's default strategy here, `{name}`,")
            };
            return Err(Error::input(
                cspan,
                format!(
                    "{what} is {} — recipe-drift composes single-node strategies and prefill/decode clusters (pd_cluster) only; offered: {}",
                    spec.deploy_type.as_deref().unwrap_or("not single-node"),
                    list(&offered)
                ),
            ));
        }
        if !self.strategy_supported_on(&name, hw) {
            return Err(Error::input(
                self.span_of(&["strategy_hardware", &name]),
                format!(
                    "strategy `{name}` is not supported on `{}`; offered there: {}",
                    hw.id,
                    list(&offered)
                ),
            ));
        }
        if !self.strategy_reachable(spec, hw) {
            return Err(Error::input(
                self.span_of(&["strategy_min_gpus"]),
                format!(
                    "strategy `{name}` needs {} GPUs (strategy_min_gpus) but one `{}` node has {}; offered there: {}",
                    js_num(self.min_gpus_for(&name, &hw.id)),
                    hw.id,
                    js_num(hw.gpu_count.unwrap_or(8.0)),
                    list(&offered)
                ),
            ));
        }
        Ok(name)
    }

    /// Applies the feature clicks; returns the enabled list and the mode picks.
    fn resolve_features(
        &self,
        hw: &HardwareProfile,
        variant_key: &str,
        strategy: &str,
        clicks: &[String],
    ) -> Result<(Vec<String>, BTreeMap<String, String>), Error> {
        let mut enabled = self.default_features(&hw.id, variant_key);
        let mut picks = BTreeMap::new();
        let all = self.features();
        let fspan = self.span_of(&["features"]);
        for click in clicks {
            let (off, name) = match click.strip_prefix('-') {
                Some(n) => (true, n),
                None => (false, click.as_str()),
            };
            let (name, mode) = match name.split_once(':') {
                Some((n, m)) => (n, Some(m)),
                None => (name, None),
            };
            let Some(feat) = self.root.path(&["features", name]) else {
                return Err(Error::input(
                    fspan,
                    format!("unknown feature `{name}`; the features are: {}", list(&all)),
                ));
            };
            let at = self.span_of(&["features", name]);
            if off {
                if mode.is_some() {
                    return Err(Error::input(
                        at,
                        format!("`-{name}` turns a feature off; it takes no mode"),
                    ));
                }
                enabled.retain(|f| f != name);
                continue;
            }
            if !Recipe::feature_allowed_for_strategy(feat, strategy) {
                return Err(Error::input(
                    at,
                    format!("feature `{name}` is not available with strategy `{strategy}`"),
                ));
            }
            let has_modes = feat.get("modes").is_some_and(Node::is_map);
            if has_modes {
                let allowed = Recipe::allowed_modes(feat, variant_key, hw);
                if allowed.is_empty() {
                    return Err(Error::input(
                        at,
                        format!(
                            "no mode of feature `{name}` runs with variant `{variant_key}` on `{}`",
                            hw.id
                        ),
                    ));
                }
                if let Some(m) = mode {
                    if !allowed.iter().any(|a| a == m) {
                        return Err(Error::input(
                            at,
                            format!(
                                "mode `{m}` of feature `{name}` is not available with variant `{variant_key}` on `{}`; available: {}",
                                hw.id,
                                list(&allowed)
                            ),
                        ));
                    }
                    picks.insert(name.to_string(), m.to_string());
                }
            } else if let Some(m) = mode {
                return Err(Error::input(
                    at,
                    format!("feature `{name}` has no modes (asked for `{m}`)"),
                ));
            }
            if !enabled.iter().any(|f| f == name) {
                if let Some((_, other)) = MUTEX.iter().find(|(a, _)| *a == name) {
                    enabled.retain(|f| f != other);
                }
                enabled.push(name.to_string());
            }
        }
        Ok((enabled, picks))
    }

    /// Composes one selection of a single-node strategy (a `pd_cluster`
    /// selection composes a command per pool: [`Recipe::compose_roles`]).
    pub fn compose(
        &self,
        tax: &Taxonomy,
        sel: &Selection,
        scope: HardwareScope,
    ) -> Result<Composed, Error> {
        let mut servers = self.compose_roles(tax, sel, scope)?;
        if servers.len() == 1 {
            return Ok(servers.remove(0));
        }
        Err(Error::input(
            self.span_of(&["compatible_strategies"]),
            format!(
                "strategy `{}` composes {} commands, one per pool (prefill, decode); read them all",
                servers[0].strategy,
                servers.len()
            ),
        ))
    }

    /// Composes the commands of one selection: the server of a single-node
    /// strategy, or each pool's (prefill, then decode) of a `pd_cluster`.
    pub fn compose_roles(
        &self,
        tax: &Taxonomy,
        sel: &Selection,
        scope: HardwareScope,
    ) -> Result<Vec<Composed>, Error> {
        if self.is_omni() {
            return Err(Error::input(
                self.span_of(&["meta", "tasks"]),
                "an omni recipe: the site renders it as `vllm serve --omni` per task, which recipe-drift does not compose",
            ));
        }
        let hw = self.resolve_hardware(tax, sel, scope)?;
        let pd = sel
            .strategy
            .as_deref()
            .and_then(|s| tax.strategy(s))
            .is_some_and(StrategySpec::is_pd_cluster);
        let variant_key = self.resolve_variant(hw, sel, pd)?;
        let strategy_name = self.resolve_strategy(tax, hw, sel)?;
        let (enabled, picks) =
            self.resolve_features(hw, &variant_key, &strategy_name, &sel.features)?;
        let empty = Node {
            span: self.start.clone(),
            val: Val::Map(vec![]),
        };
        let variant = self.variant(&variant_key).unwrap_or(&empty);
        let spec = tax.strategy(&strategy_name).ok_or_else(|| {
            Error::usage(format!(
                "strategy {strategy_name} vanished from the taxonomy"
            ))
        })?;
        let kv = match &sel.kv_offload {
            Some(key) => Some(self.resolve_kv_offload(tax, key, spec, hw)?),
            None => None,
        };
        let layers = Layers {
            root: &self.root,
            variant,
            vk: &variant_key,
            sn: &strategy_name,
            hw,
            so: self.root.path(&["strategy_overrides", &strategy_name]),
            kv,
            pool: None,
        };
        if !spec.is_pd_cluster() {
            return Ok(vec![
                self.compose_server(sel, &layers, spec, &enabled, &picks)?,
            ]);
        }
        let mut out = Vec::new();
        for role in [Role::Prefill, Role::Decode] {
            let pool = self.resolve_pool(tax, spec, role, variant, hw, sel)?;
            let layers = Layers {
                pool: Some(&pool),
                ..layers
            };
            out.push(self.compose_server(sel, &layers, spec, &enabled, &picks)?);
        }
        Ok(out)
    }

    /// Composes one server's command from its layers.
    fn compose_server(
        &self,
        sel: &Selection,
        layers: &Layers<'_>,
        spec: &StrategySpec,
        enabled: &[String],
        picks: &BTreeMap<String, String>,
    ) -> Result<Composed, Error> {
        let (variant, hw, kv) = (layers.variant, layers.hw, layers.kv);
        let (variant_key, strategy_name) = (layers.vk.to_string(), layers.sn.to_string());
        let (args, emitted, parallel) = layers.args(spec, enabled, picks)?;
        let env = layers.env(spec)?;
        let root = &self.root;
        let vk = variant_key.as_str();
        let (model_id, model_layer) = match variant.get("model_id").filter(|n| n.truthy()) {
            Some(n) => (
                n.scalar_string().unwrap_or_default(),
                Layer::at(format!("variants.{vk}.model_id"), n.span.clone()),
            ),
            None => match root.path(&["model", "model_id"]).filter(|n| n.truthy()) {
                Some(n) => (
                    n.scalar_string().unwrap_or_default(),
                    Layer::at("model.model_id", n.span.clone()),
                ),
                None => (
                    "unknown".to_string(),
                    Layer {
                        name: "model id".into(),
                        span: None,
                        why: Some("the recipe names no model_id; the site prints `unknown`".into()),
                    },
                ),
            },
        };
        let kept = dedupe(args);
        let command = format_command(&model_id, &kept);
        let exports: Vec<String> = env
            .iter()
            .map(|e| format!("export {}={}", e.name, e.value))
            .collect();
        let text = if exports.is_empty() {
            command.clone()
        } else {
            format!("{}\n\n{command}", exports.join("\n"))
        };
        let docker = self.docker_meta(variant, hw);
        let docker_text = docker
            .image
            .as_ref()
            .map(|image| docker_run(&command, &env, image, &docker.gpu_flags));
        let min_vllm_version = max_version(
            root.path(&["model", "min_vllm_version"])
                .and_then(Node::truthy_string),
            variant
                .get("min_vllm_version")
                .and_then(Node::truthy_string),
        );
        let nightly_required = matches!(
            root.path(&["model", "nightly_required"]).map(|n| &n.val),
            Some(Val::Bool(true))
        ) || matches!(
            variant.get("nightly_required").map(|n| &n.val),
            Some(Val::Bool(true))
        );
        let selection = Selection {
            variant: Some(variant_key.clone()),
            strategy: Some(strategy_name.clone()),
            hardware: hw.id.clone(),
            features: sel.features.clone(),
            kv_offload: kv.map(|o| o.key.clone()),
            pools: sel.pools.clone(),
        };
        let pool = layers.pool.map(|p| p.pool.clone());
        let role = pool.as_ref().map_or(Role::Single, |p| p.role);
        let view = match &pool {
            Some(p) => format!("{} role={}", selection.describe(), p.role),
            None => selection.describe(),
        };
        let source = Arc::new(Source::new(
            Origin::Rendered {
                file: self.path.clone(),
                view,
            },
            text.clone(),
        ));
        let mut argv = vec![model_id.clone()];
        let mut arg_layers = vec![model_layer];
        for w in kept {
            argv.push(w.text);
            arg_layers.push(w.layer);
        }
        Ok(Composed {
            selection,
            role,
            pool,
            variant: variant_key,
            strategy: strategy_name,
            hardware: hw.id.clone(),
            verified: self.hardware_status_of(&hw.id).as_deref() == Some("verified"),
            precision: variant.get("precision").and_then(Node::scalar_string),
            features: emitted,
            kv_offload: kv.map(|o| o.key.clone()),
            parallel,
            model_id,
            env,
            argv,
            arg_layers,
            docker_image: docker.image,
            min_vllm_version,
            nightly_required,
            install_mode: self.install_mode(hw),
            command,
            text,
            docker_text,
            source,
            fits_single_node: Recipe::fits_single_node(variant, hw),
            platform: hw.platform(),
        })
    }

    /// The KV-offload option a selection names, behind the site's three gates
    /// (strategy, recipe, brand). Where the site would silently drop a gated
    /// option, a named one is an input error with the gate's reason: the
    /// reader cannot get that command.
    fn resolve_kv_offload<'t>(
        &self,
        tax: &'t Taxonomy,
        key: &str,
        spec: &StrategySpec,
        hw: &HardwareProfile,
    ) -> Result<&'t KvOffloadOption, Error> {
        let Some(option) = tax.kv_offload_option(key) else {
            let keys: Vec<String> = tax.kv_offload.iter().map(|o| o.key.clone()).collect();
            let store = if key.contains("mooncake") || key.starts_with("kv_store") {
                "; a Mooncake KV store (kv_store/, deploy_type kv_store_lb) is a multi-instance deployment with a router, which recipe-drift does not compose"
            } else {
                ""
            };
            return Err(Error::input(
                tax.kv_offload_span.clone(),
                format!(
                    "unknown kv_offload option `{key}`; the composing options of {} are: {}{store}",
                    tax.path.display(),
                    list(&keys)
                ),
            ));
        };
        let why = match option.refusal(spec, hw) {
            Some(why) => Some((option.span.clone(), why)),
            None => self.kv_offload_refusal(option).map(|why| {
                let at = self
                    .root
                    .path(&["kv_offload_support", key])
                    .map_or_else(|| self.start.clone(), |n| n.span.clone());
                (at, why)
            }),
        };
        match why {
            Some((span, why)) => Err(Error::input(
                span,
                format!(
                    "kv_offload `{key}` is not offered for {} / {}: {why}",
                    hw.id, spec.name
                ),
            )),
            None => Ok(option),
        }
    }

    /// The KV-offload options the site offers for a strategy and hardware:
    /// off first, then each option that passes the gates, in file order.
    fn kv_offload_choices(
        &self,
        tax: &Taxonomy,
        strategy: &str,
        hw: &HardwareProfile,
    ) -> Vec<Option<String>> {
        let mut out = vec![None];
        if let Some(spec) = tax.strategy(strategy) {
            out.extend(
                tax.kv_offload
                    .iter()
                    .filter(|o| {
                        o.refusal(spec, hw).is_none() && self.kv_offload_refusal(o).is_none()
                    })
                    .map(|o| Some(o.key.clone())),
            );
        }
        out
    }

    fn install_mode(&self, hw: &HardwareProfile) -> InstallMode {
        let install = self.root.path(&["model", "install"]);
        let is_false = |k: &str| {
            matches!(
                install.and_then(|i| i.get(k)).map(|n| &n.val),
                Some(Val::Bool(false))
            )
        };
        let initial = if is_false("docker") {
            InstallMode::Pip
        } else if is_false("pip") {
            InstallMode::Docker
        } else {
            let first = install
                .map(Node::keys)
                .unwrap_or_default()
                .into_iter()
                .find(|k| *k == "pip" || *k == "docker");
            if first == Some("docker") {
                InstallMode::Docker
            } else {
                InstallMode::Pip
            }
        };
        let pip_hidden = is_false("pip") || matches!(hw.generation.as_deref(), Some("tpu" | "xpu"));
        match initial {
            InstallMode::Pip if pip_hidden => InstallMode::Docker,
            InstallMode::Docker if is_false("docker") => InstallMode::Pip,
            m => m,
        }
    }

    fn docker_meta(&self, variant: &Node, hw: &HardwareProfile) -> DockerMeta {
        let nightly = matches!(
            self.root
                .path(&["model", "nightly_required"])
                .map(|n| &n.val),
            Some(Val::Bool(true))
        );
        let is_tpu = hw.generation.as_deref() == Some("tpu");
        let is_xpu = hw.generation.as_deref() == Some("xpu");
        let is_amd = hw.brand_is("AMD");
        let is_intel = hw.is_cpu() || is_xpu || hw.brand_is("Intel");
        let brand_key = if is_tpu {
            "tpu"
        } else if is_amd {
            "amd"
        } else if is_intel {
            "intel"
        } else {
            "nvidia"
        };
        let default_image = match (nightly, brand_key) {
            (true, "nvidia") => Some("vllm/vllm-openai:nightly"),
            (true, "amd") => Some("vllm/vllm-openai-rocm:nightly"),
            (true, "tpu") => Some("vllm/vllm-tpu:nightly"),
            (true, _) => None,
            (false, "nvidia") => Some("vllm/vllm-openai:latest"),
            (false, "amd") => Some("vllm/vllm-openai-rocm:latest"),
            (false, "tpu") => Some("vllm/vllm-tpu:latest"),
            (false, _) => Some("vllm/vllm-openai-cpu:latest-x86_64"),
        };
        // An empty string pins nothing (JavaScript `||` treats it as unset).
        let mut pinned: Option<String> = variant
            .path(&["hardware_overrides", &hw.id, "docker_image"])
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let mut cuda_map: Option<&Node> = None;
        let is_cuda_map = |n: &Node| n.is_map() && (n.has_key("cu129") || n.has_key("cu130"));
        for over in [
            variant.get("docker_image"),
            self.root.path(&["model", "docker_image"]),
        ] {
            let Some(over) = over.filter(|n| n.truthy()) else {
                continue;
            };
            if pinned.is_some() || cuda_map.is_some() {
                continue;
            }
            match &over.val {
                Val::Str(s) if brand_key == "nvidia" => {
                    pinned = Some(s.clone()).filter(|s| !s.is_empty());
                }
                Val::Map(_) => {
                    let brand_keyed = ["nvidia", "amd", "tpu", "intel"]
                        .iter()
                        .any(|k| over.has_key(k));
                    if brand_keyed {
                        match over.get(brand_key) {
                            Some(Node {
                                val: Val::Str(s), ..
                            }) => pinned = Some(s.clone()).filter(|s| !s.is_empty()),
                            Some(n) if brand_key == "nvidia" && is_cuda_map(n) => {
                                cuda_map = Some(n)
                            }
                            _ => {}
                        }
                    } else if brand_key == "nvidia" && is_cuda_map(over) {
                        cuda_map = Some(over);
                    }
                }
                _ => {}
            }
        }
        let from_map = cuda_map.and_then(|m| {
            m.get("cu130")
                .and_then(Node::truthy_string)
                .or_else(|| m.get("cu129").and_then(Node::truthy_string))
        });
        let image = if is_xpu && pinned.is_none() {
            Some("vllm/vllm-openai-xpu:latest".to_string())
        } else {
            pinned.or(from_map).or(default_image.map(str::to_string))
        };
        let gpu_flags = if is_tpu {
            "--privileged --network host \\\n  -v /dev/shm:/dev/shm"
        } else if is_amd {
            "--device=/dev/kfd --device=/dev/dri \\\n  --security-opt seccomp=unconfined --group-add video"
        } else if is_xpu {
            "--device /dev/dri \\\n  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g"
        } else if is_intel {
            "--shm-size=16g"
        } else {
            "--gpus all"
        };
        DockerMeta {
            image,
            gpu_flags: gpu_flags.to_string(),
        }
    }

    /// Every selection the site offers at one node; see [`super::all_selections`].
    pub fn all_selections(
        &self,
        tax: &Taxonomy,
        scope: HardwareScope,
    ) -> Result<Vec<Selection>, Error> {
        if self.is_omni() {
            return Ok(vec![]);
        }
        let mut out = Vec::new();
        for hw in &tax.hardware {
            if !self.hardware_offered(hw) {
                continue;
            }
            if scope == HardwareScope::Verified
                && self.hardware_status_of(&hw.id).as_deref() != Some("verified")
            {
                continue;
            }
            for vk in self.variants() {
                let Some(v) = self.variant(&vk) else { continue };
                if !self.variant_runs_on(v, hw) {
                    continue;
                }
                // Single-node strategies where the weights fit one node; a
                // prefill/decode cluster, whose pools size themselves, always.
                let single = self.single_node_offered(v, hw);
                let strategies: Vec<(String, bool)> = self
                    .row_strategies(tax, hw)
                    .into_iter()
                    .filter(|s| self.strategy_supported_on(s, hw))
                    .filter_map(|s| {
                        let t = tax.strategy(&s)?;
                        let pd = t.is_pd_cluster();
                        (pd || single && t.is_single_node()).then_some((s, pd))
                    })
                    .collect();
                for (s, pd) in strategies {
                    let pools = if pd {
                        self.pool_choices(hw)
                    } else {
                        vec![super::PoolPicks::default()]
                    };
                    let mut seen: std::collections::BTreeSet<Vec<(String, Option<String>)>> =
                        std::collections::BTreeSet::new();
                    let kv_choices = self.kv_offload_choices(tax, &s, hw);
                    for clicks in self.feature_clicks(hw, &vk, v, &s)? {
                        let (enabled, picks) = self.resolve_features(hw, &vk, &s, &clicks)?;
                        let state: Vec<(String, Option<String>)> = enabled
                            .iter()
                            .map(|f| {
                                let mode = self.root.path(&["features", f]).and_then(|feat| {
                                    Recipe::resolve_mode(
                                        feat,
                                        f,
                                        v,
                                        &vk,
                                        hw,
                                        picks.get(f).map(String::as_str),
                                    )
                                });
                                (f.clone(), mode)
                            })
                            .collect();
                        if !seen.insert(state) {
                            continue;
                        }
                        for (kv, pools) in kv_choices
                            .iter()
                            .flat_map(|kv| pools.iter().map(move |p| (kv, p)))
                        {
                            if out.len() >= MAX_SELECTIONS {
                                return Err(Error::input(
                                    self.span_of(&["features"]),
                                    format!(
                                        "this recipe offers more than {MAX_SELECTIONS} selections (the --all-selections budget); compose one selection with --select instead"
                                    ),
                                ));
                            }
                            out.push(Selection {
                                variant: Some(vk.clone()),
                                strategy: Some(s.clone()),
                                hardware: hw.id.clone(),
                                features: clicks.clone(),
                                kv_offload: kv.clone(),
                                pools: pools.clone(),
                            });
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Click lists: each subset of the opt-in features that can be turned on
    /// (declaration order), times each mode of every enabled single-select
    /// feature (a mode is written only when it differs from the default).
    ///
    /// Budgets: at most [`MAX_OPTIONAL_FEATURES`] optional features (every
    /// subset is explored) and [`MAX_FEATURE_CLICKS`] click lists per node;
    /// over either is an error at `features` rather than a partial list.
    fn feature_clicks(
        &self,
        hw: &HardwareProfile,
        vk: &str,
        v: &Node,
        strategy: &str,
    ) -> Result<Vec<Vec<String>>, Error> {
        let defaults = self.default_features(&hw.id, vk);
        let usable = |f: &str| {
            self.root.path(&["features", f]).is_some_and(|feat| {
                Recipe::feature_allowed_for_strategy(feat, strategy)
                    && (!feat.get("modes").is_some_and(Node::is_map)
                        || !Recipe::allowed_modes(feat, vk, hw).is_empty())
            })
        };
        let optional: Vec<String> = self
            .features()
            .into_iter()
            .filter(|f| !defaults.contains(f) && usable(f))
            .collect();
        let n = optional.len();
        if n > MAX_OPTIONAL_FEATURES {
            return Err(Error::input(
                self.span_of(&["features"]),
                format!(
                    "{n} optional features on {} / {vk} / {strategy}: every selection is explored for at most {MAX_OPTIONAL_FEATURES} (the --all-selections budget); compose one selection with --select instead",
                    hw.id
                ),
            ));
        }
        let over = || {
            Error::input(
                self.span_of(&["features"]),
                format!(
                    "the features of this recipe combine into more than {MAX_FEATURE_CLICKS} selections on {} / {vk} / {strategy} (the --all-selections budget); compose one selection with --select instead",
                    hw.id
                ),
            )
        };
        let mut out = Vec::new();
        for mask in 0u32..(1u32 << n) {
            let on: Vec<&String> = (0..n)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| &optional[i])
                .collect();
            // Modes: every enabled modes-feature (defaults that run here, plus `on`).
            let mut modal: Vec<(String, Vec<String>, Option<String>)> = Vec::new();
            for f in defaults
                .iter()
                .filter(|f| usable(f))
                .chain(on.iter().copied())
            {
                let Some(feat) = self.root.path(&["features", f]) else {
                    continue;
                };
                if feat.get("modes").is_some_and(Node::is_map) {
                    let allowed = Recipe::allowed_modes(feat, vk, hw);
                    let default = Recipe::resolve_mode(feat, f, v, vk, hw, None);
                    modal.push((f.clone(), allowed, default));
                }
            }
            let mut combos: Vec<Vec<(String, String)>> = vec![vec![]];
            for (f, allowed, _) in &modal {
                if combos.len().saturating_mul(allowed.len()) > MAX_FEATURE_CLICKS {
                    return Err(over());
                }
                let mut next = Vec::new();
                for c in &combos {
                    for m in allowed {
                        let mut c2 = c.clone();
                        c2.push((f.clone(), m.clone()));
                        next.push(c2);
                    }
                }
                combos = next;
            }
            if out.len() + combos.len() > MAX_FEATURE_CLICKS {
                return Err(over());
            }
            for combo in combos {
                let mode_of = |f: &str| -> Option<String> {
                    let (_, m) = combo.iter().find(|(g, _)| g == f)?;
                    let default = modal
                        .iter()
                        .find(|(g, _, _)| g == f)
                        .and_then(|x| x.2.clone());
                    (default.as_deref() != Some(m.as_str())).then(|| m.clone())
                };
                let mut clicks = Vec::new();
                for f in defaults.iter() {
                    if let Some(m) = mode_of(f) {
                        clicks.push(format!("{f}:{m}"));
                    }
                }
                for f in &on {
                    match mode_of(f) {
                        Some(m) => clicks.push(format!("{f}:{m}")),
                        None => clicks.push((*f).clone()),
                    }
                }
                out.push(clicks);
            }
        }
        Ok(out)
    }
}

impl Recipe {
    /// Every selection ([`Recipe::all_selections`]) composed into its
    /// command, one at a time, within [`MAX_COMPOSED_WORDS`] and
    /// [`MAX_COMPOSED_BYTES`] summed over the selections: the selection count
    /// alone does not bound what they print (a recipe of many long feature
    /// argument lists composes megabytes per selection).
    pub fn compose_all(
        &self,
        tax: &Taxonomy,
        scope: HardwareScope,
    ) -> Result<Vec<Composed>, Error> {
        let (mut words, mut bytes) = (0usize, 0usize);
        let mut out = Vec::new();
        for sel in self.all_selections(tax, scope)? {
            for c in self.compose_roles(tax, &sel, scope)? {
                words += c.argv.len() + c.env.len();
                bytes += c.text.len() + c.docker_text.as_ref().map_or(0, String::len);
                let over = if words > MAX_COMPOSED_WORDS {
                    Some(format!("{MAX_COMPOSED_WORDS} words"))
                } else if bytes > MAX_COMPOSED_BYTES {
                    Some(format!("{} MiB", MAX_COMPOSED_BYTES >> 20))
                } else {
                    None
                };
                if let Some(limit) = over {
                    return Err(Error::input(
                        self.span_of(&["features"]),
                        format!(
                            "the selections of this recipe compose more than {limit} of commands in all (the --all-selections output budget; {} selections composed so far); compose one selection with --select instead",
                            out.len() + 1
                        ),
                    ));
                }
                out.push(c);
            }
        }
        Ok(out)
    }
}

/// The most words (arguments and environment entries) the selections of one
/// recipe may compose in all under `--all-selections` (real recipes: with
/// the two pool commands of every `pd_cluster` selection, all but
/// MiniMax-M3 on offered hardware stay under it).
pub const MAX_COMPOSED_WORDS: usize = 200_000;

/// The most bytes of command text (pip and Docker forms) the selections of one
/// recipe may compose in all under `--all-selections` (real recipes: well
/// under a MiB).
pub const MAX_COMPOSED_BYTES: usize = 16 << 20;

/// The most optional features `--all-selections` explores every subset of
/// (2^12 = 4096 subsets per hardware, variant and strategy).
pub const MAX_OPTIONAL_FEATURES: usize = 12;

/// The most selections `--all-selections` lists for one recipe (each is
/// composed into a command: about 10 KiB apiece in memory).
pub const MAX_SELECTIONS: usize = 8192;

/// The most feature click lists (subsets times mode combinations)
/// `--all-selections` composes per hardware, variant and strategy.
pub const MAX_FEATURE_CLICKS: usize = 4096;

/// The layers of one resolved selection, in the site's order.
struct Layers<'a> {
    root: &'a Node,
    variant: &'a Node,
    vk: &'a str,
    sn: &'a str,
    hw: &'a HardwareProfile,
    so: Option<&'a Node>,
    /// The composing KV-offload option, already gated.
    kv: Option<&'a KvOffloadOption>,
    /// The pool of a `pd_cluster` command.
    pool: Option<&'a PoolCtx<'a>>,
}

impl<'a> Layers<'a> {
    /// The hardware override blocks that apply, in order, with their YAML
    /// paths. A strategy override's generation block replaces the recipe's and
    /// the variant's; the strategy override's exact-SKU block always follows.
    fn hardware_blocks(&self) -> Vec<(String, &'a Node)> {
        let (vk, sn, hw) = (self.vk, self.sn, self.hw);
        let mut out = Vec::new();
        match generation_block(self.so.and_then(|s| s.get("hardware_overrides")), hw) {
            Some((g, b)) => {
                out.push((format!("strategy_overrides.{sn}.hardware_overrides.{g}"), b))
            }
            None => {
                if let Some((g, b)) = generation_block(self.root.get("hardware_overrides"), hw) {
                    out.push((format!("hardware_overrides.{g}"), b));
                }
                if let Some((g, b)) = generation_block(self.variant.get("hardware_overrides"), hw) {
                    out.push((format!("variants.{vk}.hardware_overrides.{g}"), b));
                }
            }
        }
        if let Some(b) = self
            .so
            .and_then(|s| s.path(&["hardware_overrides", &hw.id]))
        {
            out.push((
                format!("strategy_overrides.{sn}.hardware_overrides.{}", hw.id),
                b,
            ));
        }
        // A pool's exact-SKU block is the last, additive layer.
        if let Some(pool) = self.pool
            && let Some(b) = pool
                .over
                .and_then(|o| o.path(&["hardware_overrides", &hw.id]))
        {
            out.push((
                format!(
                    "strategy_overrides.{sn}.{}.hardware_overrides.{}",
                    pool.role(),
                    hw.id
                ),
                b,
            ));
        }
        out
    }

    /// The argument list before de-duplication, the features that contributed,
    /// and the parallel flag and size.
    #[allow(clippy::type_complexity)]
    fn args(
        &self,
        spec: &StrategySpec,
        enabled: &[String],
        picks: &BTreeMap<String, String>,
    ) -> Result<(Vec<Word>, Vec<EnabledFeature>, (String, String)), Error> {
        let (root, variant, vk, sn, hw) = (self.root, self.variant, self.vk, self.sn, self.hw);
        let mut args: Vec<Word> = Vec::new();
        // 1-3: base, variant, variant x SKU.
        push_args(
            root.path(&["model", "base_args"]),
            "model.base_args",
            &mut args,
        )?;
        push_args(
            variant.get("extra_args"),
            &format!("variants.{vk}.extra_args"),
            &mut args,
        )?;
        push_args(
            variant.path(&["hardware_overrides", &hw.id, "extra_args"]),
            &format!("variants.{vk}.hardware_overrides.{}.extra_args", hw.id),
            &mut args,
        )?;
        // 4: the strategy's args, its parallel flag and the size (a pool's
        // own args and parallelism), then 5: the strategy overrides (a
        // pool's own block in place of the strategy-wide one).
        let parallel = match self.pool {
            Some(pool) => {
                args.extend(pool.spec.words.iter().cloned());
                let (words, parallel) = pool.parallel_words(spec);
                args.extend(words);
                let at = format!("strategy_overrides.{sn}.{}", pool.role());
                for key in ["extra_args", "vllm_args"] {
                    push_args(
                        pool.over.and_then(|o| o.get(key)),
                        &format!("{at}.{key}"),
                        &mut args,
                    )?;
                }
                parallel
            }
            None => self.strategy_args(spec, &mut args)?,
        };
        // 6: hardware overrides.
        for (path, block) in self.hardware_blocks() {
            push_args(
                block.get("extra_args"),
                &format!("{path}.extra_args"),
                &mut args,
            )?;
        }
        // 8: features, in enabled order.
        let mut emitted = Vec::new();
        for f in enabled {
            let Some(feat) = root.path(&["features", f]) else {
                continue;
            };
            if !Recipe::feature_allowed_for_strategy(feat, sn) {
                continue;
            }
            if let Some(modes) = feat.get("modes").filter(|m| m.is_map()) {
                let picked = picks.get(f).map(String::as_str);
                let Some(mode_key) = Recipe::resolve_mode(feat, f, variant, vk, hw, picked) else {
                    continue;
                };
                let Some(mode) = modes.get(&mode_key) else {
                    continue;
                };
                let over = mode
                    .get("hardware_overrides")
                    .and_then(|m| hardware_keyed(m, hw));
                match over
                    .as_ref()
                    .and_then(|(k, o)| o.get("args").map(|a| (k, a)))
                {
                    Some((k, a)) => push_args(
                        Some(a),
                        &format!("features.{f}.modes.{mode_key}.hardware_overrides.{k}.args"),
                        &mut args,
                    )?,
                    None => push_args(
                        mode.get("args"),
                        &format!("features.{f}.modes.{mode_key}.args"),
                        &mut args,
                    )?,
                }
                emitted.push(EnabledFeature {
                    name: f.clone(),
                    mode: Some(mode_key),
                });
                continue;
            }
            let over = generation_block(feat.get("hardware_overrides"), hw);
            match over
                .as_ref()
                .and_then(|(g, o)| o.get("args").map(|a| (g, a)))
            {
                Some((g, a)) => push_args(
                    Some(a),
                    &format!("features.{f}.hardware_overrides.{g}.args"),
                    &mut args,
                )?,
                None => push_args(feat.get("args"), &format!("features.{f}.args"), &mut args)?,
            }
            emitted.push(EnabledFeature {
                name: f.clone(),
                mode: None,
            });
        }
        // 8b: the composing KV-offload option, last so that its
        // `--kv-transfer-config` wins the de-duplication.
        if let Some(kv) = self.kv {
            args.extend(kv.words.iter().cloned());
        }
        Ok((args, emitted, parallel))
    }

    /// A single-node strategy's args, its parallel flag and size, and the
    /// recipe's overrides of the strategy; the flag and size.
    fn strategy_args(
        &self,
        spec: &StrategySpec,
        args: &mut Vec<Word>,
    ) -> Result<(String, String), Error> {
        let (root, variant, sn, hw) = (self.root, self.variant, self.sn, self.hw);
        args.extend(spec.words.iter().cloned());
        let flag = spec
            .parallel_flag
            .clone()
            .unwrap_or_else(|| "--tensor-parallel-size".into());
        let (size, why) = single_node_tp(root, variant, hw, sn);
        let size = js_num(size);
        args.push(Word {
            text: flag.clone(),
            layer: Layer {
                name: format!("strategy {sn} parallel_flag"),
                span: None,
                why: None,
            },
        });
        args.push(Word {
            text: size.clone(),
            layer: Layer {
                name: "parallel size".into(),
                span: None,
                why: Some(why),
            },
        });
        if let Some(so) = self.so {
            push_args(
                so.get("extra_args"),
                &format!("strategy_overrides.{sn}.extra_args"),
                args,
            )?;
            push_args(
                so.get("vllm_args"),
                &format!("strategy_overrides.{sn}.vllm_args"),
                args,
            )?;
        }
        Ok((flag, size))
    }

    /// The environment: first assignment decides the place, last the value.
    fn env(&self, spec: &StrategySpec) -> Result<Vec<EnvEntry>, Error> {
        let (vk, sn, hw) = (self.vk, self.sn, self.hw);
        let mut env: Vec<EnvEntry> = Vec::new();
        assign_env(
            self.root.path(&["model", "base_env"]),
            "model.base_env",
            &mut env,
        )?;
        assign_env(
            self.variant.get("extra_env"),
            &format!("variants.{vk}.extra_env"),
            &mut env,
        )?;
        assign_env(
            self.variant
                .path(&["hardware_overrides", &hw.id, "extra_env"]),
            &format!("variants.{vk}.hardware_overrides.{}.extra_env", hw.id),
            &mut env,
        )?;
        let strategy_env = match self.pool {
            Some(pool) => &pool.spec.env_entries,
            None => &spec.env_entries,
        };
        for e in strategy_env {
            set_env(&mut env, &e.name, e.value.clone(), e.layer.clone());
        }
        // The composing option's environment, after the strategy's.
        for e in self.kv.iter().flat_map(|k| &k.env_entries) {
            set_env(&mut env, &e.name, e.value.clone(), e.layer.clone());
        }
        if let Some(pool) = self.pool {
            let layer = Layer {
                name: format!("pd_cluster {} pool", pool.role()),
                span: None,
                why: Some("the site pins a pool node's GPUs".into()),
            };
            for (name, value) in pool.pool_env() {
                set_env(&mut env, &name, value, layer.clone());
            }
        }
        if let Some(so) = self.so {
            assign_env(
                so.get("env"),
                &format!("strategy_overrides.{sn}.env"),
                &mut env,
            )?;
            match self.pool {
                Some(pool) => assign_env(
                    pool.over.and_then(|o| o.get("env")),
                    &format!("strategy_overrides.{sn}.{}.env", pool.role()),
                    &mut env,
                )?,
                None => assign_env(
                    so.get("extra_env"),
                    &format!("strategy_overrides.{sn}.extra_env"),
                    &mut env,
                )?,
            }
        }
        for (path, block) in self.hardware_blocks() {
            assign_env(
                block.get("extra_env"),
                &format!("{path}.extra_env"),
                &mut env,
            )?;
        }
        if self.pool.is_some() {
            drop_nvl4_env(&mut env, hw);
        }
        Ok(env)
    }
}

/// The single-node parallel size and how it was decided.
fn single_node_tp(
    root: &Node,
    variant: &Node,
    hw: &HardwareProfile,
    strategy: &str,
) -> (f64, String) {
    let gpus = hw.gpus();
    if strategy != "single_node_tp" {
        return (
            gpus,
            format!("{strategy} spans the node: gpu_count {}", js_num(gpus)),
        );
    }
    let cap = |tp: f64| if hw.is_cpu() { tp } else { tp.min(gpus) };
    let declared = |n: Option<&Node>| -> Option<(f64, String)> {
        let n = n?;
        match n.as_num() {
            Some(v) => Some((v, String::new())),
            None => {
                hardware_keyed(n, hw).and_then(|(k, v)| v.as_num().map(|x| (x, format!(" [{k}]"))))
            }
        }
        .filter(|(v, _)| *v > 0.0)
    };
    if let Some((tp, key)) = declared(variant.get("tp")) {
        return (
            cap(tp),
            format!(
                "variant tp{key} {}, capped at gpu_count {}",
                js_num(tp),
                js_num(gpus)
            ),
        );
    }
    if let Some((tp, key)) = declared(root.path(&["strategy_overrides", "single_node_tp", "tp"])) {
        return (
            cap(tp),
            format!(
                "strategy_overrides.single_node_tp.tp{key} {}, capped at gpu_count {}",
                js_num(tp),
                js_num(gpus)
            ),
        );
    }
    let per_gpu = match hw.vram_gb {
        Some(v) if v != 0.0 && gpus != 0.0 => v / gpus,
        _ => 0.0,
    };
    let need = variant
        .get("vram_minimum_gb")
        .and_then(Node::as_num)
        .filter(|n| *n != 0.0 && !n.is_nan())
        .unwrap_or(0.0);
    if need == 0.0 || per_gpu <= 0.0 {
        return (gpus, format!("no size hint: gpu_count {}", js_num(gpus)));
    }
    if need <= per_gpu {
        (
            1.0,
            format!(
                "auto-fit: {} GB fits one GPU ({} GB)",
                js_num(need),
                js_num(per_gpu)
            ),
        )
    } else {
        (
            gpus,
            format!(
                "auto-fit: {} GB > {} GB per GPU, so gpu_count {}",
                js_num(need),
                js_num(per_gpu),
                js_num(gpus)
            ),
        )
    }
}

struct DockerMeta {
    image: Option<String>,
    gpu_flags: String,
}

/// Last-wins de-duplication by flag token: a word starting with `-` is a flag;
/// it owns the next word as its value when that word does not start with `-`.
/// Walking backwards, the first sighting of each flag token is kept; words
/// that are not flags are always kept.
pub(super) fn dedupe(args: Vec<Word>) -> Vec<Word> {
    enum Unit {
        Flag(Word, Option<Word>),
        Positional(Word),
    }
    let mut units = Vec::new();
    let mut it = args.into_iter().peekable();
    while let Some(cur) = it.next() {
        if cur.text.starts_with('-') {
            let value = match it.peek() {
                Some(n) if !n.text.starts_with('-') => it.next(),
                _ => None,
            };
            units.push(Unit::Flag(cur, value));
        } else {
            units.push(Unit::Positional(cur));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut keep = vec![false; units.len()];
    for (i, u) in units.iter().enumerate().rev() {
        keep[i] = match u {
            Unit::Positional(_) => true,
            Unit::Flag(f, _) => seen.insert(f.text.clone()),
        };
    }
    let mut out = Vec::new();
    for (u, k) in units.into_iter().zip(keep) {
        if !k {
            continue;
        }
        match u {
            Unit::Positional(w) => out.push(w),
            Unit::Flag(f, v) => {
                out.push(f);
                out.extend(v);
            }
        }
    }
    out
}

/// The higher of two `X.Y.Z` versions, compared numerically part by part
/// (each part read as its leading digits); the first wins a tie.
pub(super) fn max_version(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (None, b) => b,
        (a, None) => a,
        (Some(a), Some(b)) => {
            let parts = |s: &str| -> Vec<i64> {
                s.split('.')
                    .map(|p| {
                        let p = p.trim_start();
                        let (sign, digits) = match p.strip_prefix('-') {
                            Some(r) => (-1, r),
                            None => (1, p.strip_prefix('+').unwrap_or(p)),
                        };
                        let d: String = digits.chars().take_while(char::is_ascii_digit).collect();
                        d.parse::<i64>().map(|n| sign * n).unwrap_or(0)
                    })
                    .collect()
            };
            let (pa, pb) = (parts(&a), parts(&b));
            for i in 0..pa.len().max(pb.len()) {
                let d = pa.get(i).copied().unwrap_or(0) - pb.get(i).copied().unwrap_or(0);
                if d != 0 {
                    return Some(if d > 0 { a } else { b });
                }
            }
            Some(a)
        }
    }
}
