//! InferenceX's harness library (`benchmarks/benchmark_lib.sh`) for the bash
//! evaluator: its names are data (`harness.yaml`), the KV-offload gates' logic
//! is here.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::extract::bash::expand::Val;
use crate::extract::bash::{Call, Harness, Status};

const TABLE: &str = include_str!("harness.yaml");

/// The harness library's tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    library: String,
    exports: BTreeMap<String, String>,
    side_effects: Vec<String>,
    unknown_exports: BTreeMap<String, BTreeMap<String, String>>,
    gates: BTreeMap<String, Gate>,
}

/// What a KV-offload gate function checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Gate {
    Enabled,
    RequireNone,
    RequireBackend,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| serde_saphyr::from_str(TABLE).expect("bundled harness.yaml is valid"))
}

/// InferenceX's `benchmark_lib.sh`, as the bash evaluator models it.
#[derive(Debug, Clone, Copy, Default)]
pub struct BenchmarkLib;

/// The harness InferenceX scripts are evaluated with.
pub static HARNESS: BenchmarkLib = BenchmarkLib;

impl Harness for BenchmarkLib {
    fn side_effect(&self, command: &str) -> bool {
        table().side_effects.iter().any(|s| s == command)
    }

    fn call(
        &self,
        function: &str,
        args: &[String],
        var: &dyn Fn(&str) -> Option<Val>,
    ) -> Option<Call> {
        let t = table();
        if let Some(gate) = t.gates.get(function) {
            let arg = args.first().map(String::as_str).unwrap_or_default();
            return Some(gate_call(*gate, function, arg, var));
        }
        let exports = t.unknown_exports.get(function)?;
        Some(Call {
            status: Status::Ok,
            exits: false,
            exports: exports
                .iter()
                .map(|(name, why)| (name.clone(), Val::Unknown(why.clone())))
                .collect(),
        })
    }

    fn sourced(&self, file: &str) -> Option<Vec<(String, String)>> {
        let t = table();
        if !file.contains(t.library.as_str()) {
            return None;
        }
        Some(
            t.exports
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }
}

/// A status with nothing else done.
fn status(status: Status) -> Call {
    Call {
        status,
        exits: false,
        exports: Vec::new(),
    }
}

/// A gate over the env contract: KV_OFFLOADING, and for a backend gate
/// KV_OFFLOAD_BACKEND and TOTAL_CPU_DRAM_GB.
fn gate_call(gate: Gate, func: &str, backend: &str, var: &dyn Fn(&str) -> Option<Val>) -> Call {
    let Some(Val::Known(offload)) = var("KV_OFFLOADING") else {
        return status(Status::Unknown(format!(
            "{func} depends on KV_OFFLOADING, which is not set (give it with --env)"
        )));
    };
    match gate {
        Gate::Enabled => status(if offload != "none" {
            Status::Ok
        } else {
            Status::Fail
        }),
        Gate::RequireNone => Call {
            status: Status::Ok,
            exits: offload != "none",
            exports: Vec::new(),
        },
        Gate::RequireBackend => {
            if offload == "none" {
                return status(Status::Fail);
            }
            match (var("KV_OFFLOAD_BACKEND"), var("TOTAL_CPU_DRAM_GB")) {
                (Some(Val::Known(n)), Some(Val::Known(d)))
                    if offload == "dram"
                        && n == backend
                        && d.parse::<u64>().is_ok_and(|x| x > 0) =>
                {
                    status(Status::Ok)
                }
                // The runner sets the DRAM size from the machine: a positive
                // integer by contract, its value unknown.
                (Some(Val::Known(n)), Some(Val::Unknown(_)))
                    if offload == "dram" && n == backend =>
                {
                    status(Status::Ok)
                }
                (Some(Val::Known(_)), Some(Val::Known(_))) => Call {
                    status: Status::Fail,
                    exits: true,
                    exports: Vec::new(),
                },
                _ => status(Status::Unknown(format!(
                    "{func} depends on KV_OFFLOAD_BACKEND/TOTAL_CPU_DRAM_GB, which are not set"
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_and_names_the_library_functions() {
        let t = table();
        assert_eq!(t.library, "benchmark_lib.sh");
        assert!(HARNESS.side_effect("wait_for_server_ready"));
        assert!(HARNESS.side_effect("run_benchmark_serving"));
        assert!(!HARNESS.side_effect("sglang"));
        assert_eq!(
            HARNESS.sourced("\"$(dirname \"$0\")/../benchmark_lib.sh\""),
            Some(vec![("PORT".to_string(), "8888".to_string())])
        );
        assert!(HARNESS.sourced("other.sh").is_none());
        assert_eq!(t.gates.len(), 3);
    }

    #[test]
    fn gates_follow_the_env_contract() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |n: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| Val::Known(v.to_string()))
            }
        };
        let call = |f: &str, arg: &str, var: &dyn Fn(&str) -> Option<Val>| {
            HARNESS.call(f, &[arg.to_string()], var).unwrap()
        };
        let none = env(&[("KV_OFFLOADING", "none")]);
        assert_eq!(
            call("agentic_kv_offload_enabled", "", &none).status,
            Status::Fail
        );
        assert!(!call("require_agentic_kv_offload_none", "", &none).exits);
        let dram = env(&[
            ("KV_OFFLOADING", "dram"),
            ("KV_OFFLOAD_BACKEND", "hicache"),
            ("TOTAL_CPU_DRAM_GB", "512"),
        ]);
        assert_eq!(
            call("require_agentic_kv_offload_backend", "hicache", &dram).status,
            Status::Ok
        );
        let other = call("require_agentic_kv_offload_backend", "lmcache", &dram);
        assert_eq!((other.status, other.exits), (Status::Fail, true));
        assert!(call("require_agentic_kv_offload_none", "", &dram).exits);
        let unset = env(&[]);
        assert!(matches!(
            call("agentic_kv_offload_enabled", "", &unset).status,
            Status::Unknown(r) if r.contains("KV_OFFLOADING")
        ));
        let eval = HARNESS.call("setup_eval_context", &[], &unset).unwrap();
        assert_eq!(eval.exports.len(), 1);
        assert_eq!(eval.exports[0].0, "EVAL_MAX_MODEL_LEN");
        assert!(HARNESS.call("sglang", &[], &unset).is_none());
    }
}
