//! Policy: which keys are MAJOR (drift fails the check), minor (reported) or ignored.
//!
//! The built-in table is data (`policy.yaml`); a config file adds overrides that win.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The class of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Divergence fails the check.
    Major,
    /// Divergence is reported for information.
    Minor,
    /// Not compared.
    Ignore,
}

impl Class {
    /// The class as messages spell it (`MAJOR`, `minor`, `ignored`).
    pub fn name(self) -> &'static str {
        match self {
            Class::Major => "MAJOR",
            Class::Minor => "minor",
            Class::Ignore => "ignored",
        }
    }
}

/// Lists of key patterns per class.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassLists {
    /// MAJOR keys.
    #[serde(default)]
    pub major: Vec<String>,
    /// Minor keys.
    #[serde(default)]
    pub minor: Vec<String>,
    /// Ignored keys.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// How a MAJOR value one side sets is judged against a value the other side
    /// cannot decide (`missing`, the default, or `warning`).
    #[serde(default)]
    pub unknown: Option<UnknownRule>,
    /// The shape keys deployments are paired on (`check --docs-root
    /// --inferencex`); the built-in list when absent.
    #[serde(default, rename = "pair-by")]
    pub pair_by: Option<Vec<String>>,
    /// The severity of each coverage kind (`docs-unpaired`,
    /// `recipe-unpaired`); information when absent.
    #[serde(default)]
    pub coverage: std::collections::BTreeMap<String, Level>,
    /// The severity of `newer-release` (RD017: a command that may run an
    /// engine release newer than every bundled one, and each word set aside
    /// because the newest bundled release does not know it); warning when
    /// absent.
    #[serde(default, rename = "newer-release")]
    pub newer_release: Option<Level>,
    /// The severity of `state-budget` (RD016: a generator with more states
    /// than the state budget, cut there); warning when absent.
    #[serde(default, rename = "state-budget")]
    pub state_budget: Option<Level>,
}

/// A severity a config gives a finding kind (`policy: {coverage: ...}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Fails the check.
    Error,
    /// Fails it under `--fail-on warning`.
    Warning,
    /// Reported, never fails.
    Info,
}

/// How a MAJOR value set on one side is judged when the other side's value
/// cannot be decided from the text (it needs the checkpoint or the GPU).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Deserialize,
    Serialize,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum UnknownRule {
    /// A `missing` finding at error severity: equivalence must be shown
    /// (InferenceX's rule for MAJOR args). The default.
    #[default]
    Missing,
    /// An `unknown` finding at warning severity: reported, does not fail.
    Warning,
}

/// The built-in table (`policy.yaml`): groups of key patterns, each with its
/// class and the reason for it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Builtin {
    groups: Vec<Group>,
}

/// One group of the built-in table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    class: Class,
    why: String,
    keys: Vec<String>,
}

fn builtin() -> &'static (ClassLists, Vec<Group>) {
    static B: std::sync::OnceLock<(ClassLists, Vec<Group>)> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        let b: Builtin = serde_saphyr::from_str(BUILTIN).expect("bundled policy.yaml is valid");
        let mut lists = ClassLists::default();
        for g in &b.groups {
            let list = match g.class {
                Class::Major => &mut lists.major,
                Class::Minor => &mut lists.minor,
                Class::Ignore => &mut lists.ignore,
            };
            list.extend(g.keys.iter().cloned());
        }
        (lists, b.groups)
    })
}

/// The effective policy: user overrides, then the built-in table.
#[derive(Debug)]
pub struct Policy {
    user: ClassLists,
    builtin: ClassLists,
    unknown: UnknownRule,
    cache: Mutex<HashMap<String, Class>>,
}

const BUILTIN: &str = include_str!("policy.yaml");

impl Default for Policy {
    fn default() -> Self {
        Policy::with_overrides(ClassLists::default())
    }
}

impl Policy {
    /// The built-in policy with a config file's overrides on top.
    pub fn with_overrides(user: ClassLists) -> Policy {
        let builtin = builtin().0.clone();
        Policy {
            unknown: user.unknown.unwrap_or_default(),
            user,
            builtin,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The same policy with the unknown rule given on the command line, which
    /// wins over the config file's.
    pub fn with_unknown(mut self, rule: Option<UnknownRule>) -> Policy {
        if let Some(rule) = rule {
            self.unknown = rule;
        }
        self
    }

    /// How a MAJOR value one side sets is judged against an undecidable one.
    pub fn unknown(&self) -> UnknownRule {
        self.unknown
    }

    /// The severity the config gives `newer-release` findings, if it gives one
    /// (they are warnings otherwise).
    pub fn newer_release(&self) -> Option<Level> {
        self.user.newer_release
    }

    /// The severity the config gives `state-budget` findings, if it gives one
    /// (they are warnings otherwise).
    pub fn state_budget(&self) -> Option<Level> {
        self.user.state_budget
    }

    /// The class of a canonical key.
    pub fn class(&self, key: &str) -> Class {
        if let Some(c) = self.cache.lock().ok().and_then(|m| m.get(key).copied()) {
            return c;
        }
        let c = self.class_uncached(key);
        if let Ok(mut m) = self.cache.lock() {
            m.insert(key.to_string(), c);
        }
        c
    }

    /// Why a key has its class: the config's override, or the reason of the
    /// built-in group whose pattern decides it (`None` when no pattern does:
    /// minor by default).
    pub fn reason(&self, key: &str) -> Option<String> {
        for exact in [true, false] {
            if lookup(&self.user, key, exact).is_some() {
                return Some("set by the config's `policy:`".into());
            }
            if lookup(&self.builtin, key, exact).is_some() {
                let hit = |p: &String| {
                    if exact {
                        !p.contains('*') && p == key
                    } else {
                        p.contains('*') && glob(p, key)
                    }
                };
                // The group of the class `lookup` chose (MAJOR, then ignored,
                // then minor), as `class_uncached` decides it.
                let class = lookup(&self.builtin, key, exact)?;
                return builtin()
                    .1
                    .iter()
                    .find(|g| g.class == class && g.keys.iter().any(hit))
                    .map(|g| g.why.clone());
            }
        }
        None
    }

    fn class_uncached(&self, key: &str) -> Class {
        for lists in [&self.user, &self.builtin] {
            if let Some(c) = lookup(lists, key, true) {
                return c;
            }
        }
        for lists in [&self.user, &self.builtin] {
            if let Some(c) = lookup(lists, key, false) {
                return c;
            }
        }
        Class::Minor
    }
}

fn lookup(lists: &ClassLists, key: &str, exact: bool) -> Option<Class> {
    for (class, pats) in [
        (Class::Major, &lists.major),
        (Class::Ignore, &lists.ignore),
        (Class::Minor, &lists.minor),
    ] {
        for p in pats {
            let hit = if exact {
                !p.contains('*') && p == key
            } else {
                p.contains('*') && glob(p, key)
            };
            if hit {
                return Some(class);
            }
        }
    }
    None
}

/// `*`-only glob matching.
pub fn glob(pattern: &str, text: &str) -> bool {
    let Some((first, tail)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let mut parts = tail.split('*').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_classes() {
        let p = Policy::default();
        assert_eq!(p.class("attention_backend"), Class::Major);
        assert_eq!(p.class("hicache_io_backend"), Class::Major);
        assert_eq!(p.class("port"), Class::Ignore);
        assert_eq!(p.class("chunked_prefill_size"), Class::Minor);
        assert_eq!(p.class("env:SGLANG_USE_AITER_UNIFIED_ATTN"), Class::Major);
        assert_eq!(p.class("model_path"), Class::Ignore);
        assert_eq!(p.class("enable_flashinfer_allreduce_fusion"), Class::Major);
    }

    /// The keys decided from InferenceX's definition (issue 26): kernel
    /// selection and throughput switches are MAJOR, machine sizing and an
    /// encoder that text-only benchmarks never run are minor.
    #[test]
    fn classes_decided_from_the_inferencex_definition() {
        let p = Policy::default();
        for key in [
            "mamba_radix_cache_strategy",
            "disable_shared_experts_fusion",
            "enable_deepseek_v4_fp4_indexer",
            "attention_config.use_fp4_indexer_cache",
            "enable_w4a4_mxfp4_megamoe",
            "env:VLLM_ROCM_QUICK_REDUCE_QUANTIZATION",
            "env:ROCM_QUICK_REDUCE_QUANTIZATION",
            "enable_eplb",
            "cpu_offload_gb",
            "disable_custom_all_reduce",
        ] {
            assert_eq!(p.class(key), Class::Major, "{key}");
        }
        for key in [
            "mm_attention_backend",
            "mm_encoder_attn_backend",
            "hicache_size",
            "chunked_prefill_size",
        ] {
            assert_eq!(p.class(key), Class::Minor, "{key}");
        }
    }

    #[test]
    fn every_builtin_key_has_a_reason() {
        let p = Policy::default();
        for g in &builtin().1 {
            assert!(!g.why.trim().is_empty());
            for k in &g.keys {
                let key = k.replace('*', "x");
                assert_eq!(p.reason(&key).as_deref(), Some(g.why.as_str()), "{k}");
            }
        }
        assert!(
            p.reason("kv_transfer_config.kv_connector")
                .unwrap()
                .contains("KV cache tier")
        );
        assert_eq!(p.reason("no_such_key"), None);
    }

    #[test]
    fn user_overrides_win() {
        let p = Policy::with_overrides(ClassLists {
            ignore: vec!["page_size".into()],
            major: vec!["chunked_prefill_size".into()],
            minor: vec![],
            unknown: None,
            ..ClassLists::default()
        });
        assert_eq!(p.class("page_size"), Class::Ignore);
        assert_eq!(p.class("chunked_prefill_size"), Class::Major);
    }

    #[test]
    fn globs() {
        assert!(glob("*_backend", "attention_backend"));
        assert!(glob("env:SGLANG_USE_AITER*", "env:SGLANG_USE_AITER"));
        assert!(!glob("*_backend", "backend_x"));
        assert!(glob("*allreduce_fusion*", "enable_aiter_allreduce_fusion"));
    }
}
