//! Prefill/decode clusters (strategy `pd_cluster`): the site composes one
//! `vllm serve` command per pool, prefill then decode. Each pool has a
//! parallelism mode (`tp`, `tep`, `dep`: the modes the recipe's other
//! strategies name, narrowed by `strategy_overrides.pd_cluster.pool_modes`)
//! and a node count; the command shown is the pool's first node's (rank 0).
//!
//! The pool arguments, in the site's order: the strategy's `<role>.vllm_args`,
//! then the pool's parallelism (a DEP pool: `--data-parallel-size`,
//! `-local`, `-start-rank`, `-address`, `-rpc-port`, `--data-parallel-hybrid-lb`
//! across nodes, `--enable-expert-parallel`; a TP/TEP pool: the parallel
//! flag and the pool's GPUs, `--enable-expert-parallel` for TEP, and the
//! rendezvous `--nnodes --node-rank --master-addr` across nodes), then the
//! recipe's `strategy_overrides.pd_cluster.<role>` arguments in place of the
//! strategy-wide ones.

use serde::Serialize;

use super::layer::{EnvEntry, Layer, Word};
use super::recipe::Recipe;
use super::taxonomy::{HardwareProfile, PoolSpec, StrategySpec, Taxonomy};
use super::yaml::{Node, js_num};
use super::{Selection, list};
use crate::error::Error;
use crate::launch::Role;

/// The parallelism modes of a pool, in the site's order.
const POOL_MODES: [&str; 3] = ["tp", "tep", "dep"];

/// Environment variables the site keeps in a pool's environment only on the
/// hardware of [`NVL4_HARDWARE`] (NVLink between nodes); it deletes them
/// elsewhere, whichever layer set them.
const NVL4_ONLY_ENV: [&str; 5] = [
    "VLLM_USE_NCCL_SYMM_MEM",
    "NCCL_CUMEM_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_NVLS_ENABLE",
    "UCX_NET_DEVICES",
];

/// The hardware profiles that keep [`NVL4_ONLY_ENV`].
const NVL4_HARDWARE: [&str; 2] = ["gb200", "gb300"];

/// What a reader picks for one pool of a `pd_cluster` selection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PoolPick {
    /// Its parallelism mode (`tp`, `tep`, `dep`); `None` = the site's default.
    pub mode: Option<String>,
    /// Its node count; `None` = the site's default (the recipe's, else the
    /// nodes the weights need).
    pub nodes: Option<u32>,
}

/// The pools of a `pd_cluster` selection (unused by other strategies).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PoolPicks {
    /// The prefill pool.
    pub prefill: PoolPick,
    /// The decode pool.
    pub decode: PoolPick,
}

impl PoolPicks {
    /// The pick of a pool role.
    pub fn of(&self, role: Role) -> &PoolPick {
        match role {
            Role::Decode => &self.decode,
            _ => &self.prefill,
        }
    }

    /// Whether nothing is picked.
    pub fn is_default(&self) -> bool {
        *self == PoolPicks::default()
    }

    /// `prefill=dep:2 decode=tp` words for [`Selection::describe`].
    pub(super) fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (role, p) in [("prefill", &self.prefill), ("decode", &self.decode)] {
            let text = match (&p.mode, p.nodes) {
                (None, None) => continue,
                (Some(m), None) => m.clone(),
                (None, Some(n)) => format!("{n} nodes"),
                (Some(m), Some(n)) => format!("{m}:{n}"),
            };
            out.push(format!("{role}={text}"));
        }
        out
    }
}

/// One pool as composed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pool {
    /// `prefill` or `decode`.
    pub role: Role,
    /// Its parallelism mode (`tp`, `tep`, `dep`).
    pub parallelism: String,
    /// Its nodes.
    pub nodes: u32,
    /// The GPUs of one node.
    pub gpus_per_node: f64,
}

/// A pool being composed: its strategy block, the recipe's block for it and
/// the pool.
pub(super) struct PoolCtx<'a> {
    pub(super) spec: &'a PoolSpec,
    /// `strategy_overrides.pd_cluster.<role>`.
    pub(super) over: Option<&'a Node>,
    pub(super) pool: Pool,
}

impl PoolCtx<'_> {
    /// The role's name as the YAML writes it.
    pub(super) fn role(&self) -> &str {
        &self.spec.role
    }

    /// The pool's parallelism arguments (after the strategy's
    /// `<role>.vllm_args`) and the parallel flag and size the composition
    /// reports.
    pub(super) fn parallel_words(&self, strategy: &StrategySpec) -> (Vec<Word>, (String, String)) {
        let p = &self.pool;
        let role = self.role();
        let var = role.to_ascii_uppercase();
        let layer = |why: String| Layer {
            name: format!("pd_cluster {role} pool ({})", p.parallelism),
            span: None,
            why: Some(why),
        };
        let mut words = Vec::new();
        let mut push = |flag: &str, value: Option<String>, why: String| {
            words.push(Word {
                text: flag.to_string(),
                layer: layer(why.clone()),
            });
            if let Some(v) = value {
                words.push(Word {
                    text: v,
                    layer: layer(why),
                });
            }
        };
        let pool_gpus = f64::from(p.nodes) * p.gpus_per_node;
        let shown = format!(
            "{} node{} x {} GPUs, node 1's command",
            p.nodes,
            if p.nodes == 1 { "" } else { "s" },
            js_num(p.gpus_per_node)
        );
        let parallel = if p.parallelism == "dep" {
            let tp = self.setting("tp", |n| n.as_num(), self.spec.tp);
            let role_tp = tp.unwrap_or(1.0);
            let dp_local = (p.gpus_per_node / role_tp).floor().max(1.0);
            let dp_size = f64::from(p.nodes.max(1)) * dp_local;
            if let Some(tp) = tp {
                push("--tensor-parallel-size", Some(js_num(tp)), shown.clone());
            }
            push(
                "--data-parallel-size",
                Some(js_num(dp_size)),
                format!("{shown}: {} local ranks per node", js_num(dp_local)),
            );
            push(
                "--data-parallel-size-local",
                Some(js_num(dp_local)),
                shown.clone(),
            );
            push(
                "--data-parallel-start-rank",
                Some("0".into()),
                shown.clone(),
            );
            push(
                "--data-parallel-address",
                Some(format!("${var}_NODE_1")),
                shown.clone(),
            );
            push(
                "--data-parallel-rpc-port",
                Some(format!("${var}_DP_RPC_PORT")),
                shown.clone(),
            );
            if p.nodes > 1 {
                push("--data-parallel-hybrid-lb", None, shown.clone());
            }
            push("--enable-expert-parallel", None, shown);
            ("--data-parallel-size".to_string(), js_num(dp_size))
        } else {
            let flag = self
                .setting("parallel_flag", Node::truthy_string, None)
                .or_else(|| self.spec.parallel_flag.clone())
                .or_else(|| strategy.parallel_flag.clone())
                .unwrap_or_else(|| "--tensor-parallel-size".into());
            let size = js_num(pool_gpus.max(1.0));
            push(&flag, Some(size.clone()), shown.clone());
            if p.parallelism == "tep" {
                push("--enable-expert-parallel", None, shown.clone());
            }
            if p.nodes > 1 {
                push("--nnodes", Some(p.nodes.to_string()), shown.clone());
                push("--node-rank", Some("0".into()), shown.clone());
                push("--master-addr", Some(format!("${var}_NODE_1")), shown);
            }
            (flag, size)
        };
        (words, parallel)
    }

    /// The pool's environment beside the layers' (after the strategy's and
    /// before the recipe's overrides): its node's GPUs, and the socket
    /// interface of a pool across nodes.
    pub(super) fn pool_env(&self) -> Vec<(String, String)> {
        let p = &self.pool;
        let gpus = p.gpus_per_node.max(0.0) as usize;
        let mut out = vec![(
            "CUDA_VISIBLE_DEVICES".to_string(),
            (0..gpus)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(","),
        )];
        if p.nodes >= 2 {
            for name in ["GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME"] {
                out.push((name.to_string(), "$IFACE_NAME".to_string()));
            }
        }
        out
    }

    /// A pool setting: the recipe's `strategy_overrides.pd_cluster.<role>`
    /// first, then the strategy's (`fallback`).
    fn setting<T>(
        &self,
        key: &str,
        read: impl Fn(&Node) -> Option<T>,
        fallback: Option<T>,
    ) -> Option<T> {
        self.over
            .and_then(|o| o.get(key))
            .filter(|n| !matches!(n.val, super::yaml::Val::Null))
            .and_then(read)
            .or(fallback)
    }
}

/// Drops the NVL4-only variables from a pool's environment on hardware
/// without NVLink between nodes, as the site does.
pub(super) fn drop_nvl4_env(env: &mut Vec<EnvEntry>, hw: &HardwareProfile) {
    if !NVL4_HARDWARE.contains(&hw.id.as_str()) {
        env.retain(|e| !NVL4_ONLY_ENV.contains(&e.name.as_str()));
    }
}

impl Recipe {
    /// The pool modes the recipe offers (`pdPoolModes`): the modes its other
    /// compatible strategies name by suffix (`_tp`, `_tp_pp`, `_tp_dp` ->
    /// `tp`; `_tep`; `_dep`), `tp` when none, narrowed by
    /// `strategy_overrides.pd_cluster.pool_modes` unless that leaves none.
    pub(super) fn pool_modes(&self) -> Vec<String> {
        let mut found = [false; 3];
        for s in self.effective_compatible() {
            if s == super::taxonomy::PD_CLUSTER {
                continue;
            }
            let i = if s == "dep" || s.ends_with("_dep") {
                2
            } else if s == "tep" || s.ends_with("_tep") {
                1
            } else if ["tp", "tp_pp", "tp_dp"]
                .iter()
                .any(|t| s == *t || s.ends_with(&format!("_{t}")))
            {
                0
            } else {
                continue;
            };
            found[i] = true;
        }
        if !found.iter().any(|f| *f) {
            found[0] = true;
        }
        let ordered: Vec<String> = POOL_MODES
            .iter()
            .zip(found)
            .filter(|(_, f)| *f)
            .map(|(m, _)| m.to_string())
            .collect();
        let narrowed: Vec<String> = match self.root.path(&["strategy_overrides", "pd_cluster"]) {
            Some(so) => {
                let allow = so.get("pool_modes").map(Node::str_list).unwrap_or_default();
                ordered
                    .iter()
                    .filter(|m| allow.contains(m))
                    .cloned()
                    .collect()
            }
            None => vec![],
        };
        if narrowed.is_empty() {
            ordered
        } else {
            narrowed
        }
    }

    /// The pool modes a reader can pick on this hardware: those whose GPU
    /// floor (`strategy_min_gpus`) 16 nodes clear.
    pub(super) fn available_pool_modes(&self, hw: &HardwareProfile) -> Vec<String> {
        let per_node = hw.gpu_count.filter(|n| *n != 0.0).unwrap_or(8.0);
        self.pool_modes()
            .into_iter()
            .filter(|m| MAX_NODES * per_node >= self.min_gpus_for(m, &hw.id))
            .collect()
    }

    /// Every pair of pool modes a reader can pick, prefill's first.
    pub(super) fn pool_choices(&self, hw: &HardwareProfile) -> Vec<PoolPicks> {
        let modes = self.available_pool_modes(hw);
        let mut out = Vec::new();
        for p in &modes {
            for d in &modes {
                out.push(PoolPicks {
                    prefill: PoolPick {
                        mode: Some(p.clone()),
                        nodes: None,
                    },
                    decode: PoolPick {
                        mode: Some(d.clone()),
                        nodes: None,
                    },
                });
            }
        }
        out
    }

    /// Resolves one pool of a selection as the site's command builder does.
    pub(super) fn resolve_pool<'a>(
        &'a self,
        tax: &'a Taxonomy,
        strategy: &'a StrategySpec,
        role: Role,
        variant: &Node,
        hw: &HardwareProfile,
        sel: &Selection,
    ) -> Result<PoolCtx<'a>, Error> {
        let name = role.name();
        let spec = strategy.pool(name).ok_or_else(|| {
            Error::input(
                tax.profiles_span.clone(),
                format!(
                    "strategy `{}` defines no `{name}` pool; a pd_cluster strategy has prefill and decode",
                    strategy.name
                ),
            )
        })?;
        let over = self
            .root
            .path(&["strategy_overrides", &strategy.name, name])
            .filter(|n| n.is_map());
        let pick = sel.pools.of(role);
        let available = self.available_pool_modes(hw);
        let offered = self.pool_modes();
        let mode = match &pick.mode {
            Some(m) if available.contains(m) => m.clone(),
            Some(m) => {
                return Err(Error::input(
                    self.span_of(&["compatible_strategies"]),
                    format!(
                        "pool mode `{m}` is not offered for the {name} pool on `{}`; offered: {}",
                        hw.id,
                        list(&available)
                    ),
                ));
            }
            None => {
                let declared = over
                    .and_then(|o| o.get("parallelism"))
                    .and_then(Node::truthy_string)
                    .or_else(|| spec.parallelism.clone())
                    .unwrap_or_else(|| "tp".into());
                let default = if offered.contains(&declared) {
                    declared
                } else {
                    offered[0].clone()
                };
                if available.contains(&default) {
                    default
                } else {
                    available.first().cloned().unwrap_or_else(|| "tp".into())
                }
            }
        };
        // The composition clamps once more to the recipe's modes.
        let mode = if offered.contains(&mode) {
            mode
        } else {
            offered[0].clone()
        };
        let per_node = hw.gpu_count.filter(|n| *n != 0.0).unwrap_or(8.0);
        let needed = (self.min_gpus_for(&mode, &hw.id) / per_node)
            .ceil()
            .max(1.0) as u32;
        let nodes = match pick.nodes {
            Some(0) => {
                return Err(Error::input(
                    self.span_of(&["compatible_strategies"]),
                    format!("the {name} pool needs at least one node"),
                ));
            }
            Some(n) => n,
            None => self.default_pool_nodes(name, variant, hw),
        };
        Ok(PoolCtx {
            spec,
            over,
            pool: Pool {
                role,
                parallelism: mode,
                nodes: nodes.max(needed),
                gpus_per_node: hw.gpu_count.unwrap_or(1.0),
            },
        })
    }

    /// A pool's default node count: the recipe's
    /// `strategy_overrides.pd_cluster.<role>.nodes` (a number, or keyed by
    /// hardware id with a `default`), else the nodes the variant's weights
    /// need (`vram_minimum_gb` over the node's VRAM, at least one).
    fn default_pool_nodes(&self, role: &str, variant: &Node, hw: &HardwareProfile) -> u32 {
        let declared = self
            .root
            .path(&["strategy_overrides", "pd_cluster", role, "nodes"])
            .and_then(|n| {
                n.as_num()
                    .or_else(|| n.get(&hw.id).and_then(Node::as_num))
                    .or_else(|| n.get("default").and_then(Node::as_num))
            });
        if let Some(n) = declared {
            return n.max(0.0) as u32;
        }
        let node_vram = hw.vram_gb.unwrap_or(0.0);
        let model_vram = variant
            .get("vram_minimum_gb")
            .and_then(Node::as_num)
            .unwrap_or(0.0);
        if model_vram > 0.0 && node_vram > 0.0 {
            (model_vram / node_vram).ceil().max(1.0) as u32
        } else {
            1
        }
    }
}

/// The most nodes the site lets a pool (or a multi-node strategy) span.
const MAX_NODES: f64 = 16.0;
