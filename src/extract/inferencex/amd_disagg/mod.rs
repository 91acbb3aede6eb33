//! AMD `sglang-disagg` entries: each search-space point is one Slurm job whose
//! nodes run `benchmarks/multi_node/amd_utils/server.sh` in a container; the
//! node's rank picks its role (rank 0: the first prefill node, beside the
//! router; the last rank: a decode node), and `server_sglang.sh` builds the
//! role's `python3 -m sglang.launch_server --disaggregation-mode ROLE` from
//! the container's environment and the model's entry of `models.yaml`.
//!
//! The job's environment is followed layer by layer (see [`env`]): the
//! workflow's env for the point, the runner's exports, the entry's recipe
//! script (evaluated by the bash evaluator for what it exports), `submit.sh`'s
//! sizes and the `docker run -e` list of `job.slurm`. Each role is then
//! evaluated by the bash evaluator with the [`AmdDisagg`] harness, which
//! models the `models.yaml` loader ([`loader`]), the barriers the script waits
//! at and the HiCache settings file the container mounts. What a node reads
//! from the cluster (its address, the job's nodes, its RDMA devices) is
//! unknown, never guessed.

use std::collections::BTreeMap;

use super::config::Entry;
use super::multinode::chosen_points;
use super::{Expanded, HARNESS, Point, sku_of};
use crate::error::Error;
use crate::extract::bash::expand::Val;
use crate::extract::bash::{self, Call, Harness, Status};
use crate::files::{Files, Location};
use crate::launch::{Context, Known, Role};

pub mod env;
mod loader;

/// Where an InferenceX checkout keeps the AMD multi-node launcher.
pub const AMD_UTILS: &str = "benchmarks/multi_node/amd_utils";

/// The file each node's container runs for `ENGINE=sglang-disagg`:
/// `job.slurm`'s `RUN_FILE` is the dispatcher `server.sh`, which sources this
/// one with `WS_PATH` and `ENGINE` as the container has them. The dispatcher
/// is not read itself: its `WS_PATH` default nests `${` five deep, past the
/// parser's fixed guard.
pub const RUN_FILE: &str = "server_sglang.sh";

/// Whether a framework runs its points through the AMD disaggregated launcher.
pub(super) fn runs_amd_disagg(framework: &str) -> bool {
    framework == "sglang-disagg"
}

/// The functions of `server_sglang.sh` that only wait for other nodes
/// (barriers over `sync.py`, a watch on the server's process): skipped.
const WAITS: &[&str] = &["run_barrier_or_die", "wait_or_die"];

/// The settings file `job.slurm` mounts into the container and `env.sh`
/// sources with `set -a`, and the variables it holds (empty when the recipe
/// script does not set them; the set ones reach the container's env).
const ENV_FILE: (&str, &[&str]) = (
    "/config/hicache_mc.env",
    &[
        "HICACHE_RATIO",
        "FORCE_HICACHE_RATIO",
        "HICACHE_HOST_POOL_COUNT",
        "HICACHE_PAGE_SIZE",
        "HICACHE_IO_BACKEND",
        "HICACHE_MEM_LAYOUT",
        "HICACHE_WRITE_POLICY",
        "HICACHE_STORAGE_BACKEND",
        "HICACHE_PREFETCH_POLICY",
        "MC_PATCH_HOSTPOOL",
        "MC_MASTER_PORT",
        "MC_METADATA_PORT",
        "MC_METRICS_PORT",
        "MC_MASTER_THREADS",
        "MC_EVICTION_HIGH_WATERMARK",
        "MC_PROTOCOL",
        "MC_GLOBAL_SEG",
        "MC_DEVICE",
        "MC_MASTER_ADDR",
        "MC_METADATA_SERVER",
    ],
);

/// The AMD launcher's scripts as the bash evaluator sees them: InferenceX's
/// harness library, plus the `models.yaml` loader, the waits and the
/// mounted settings file.
#[derive(Debug, Clone, Copy, Default)]
pub struct AmdDisagg;

/// The harness the AMD launcher's scripts are evaluated with.
pub static AMD_HARNESS: AmdDisagg = AmdDisagg;

impl Harness for AmdDisagg {
    fn side_effect(&self, command: &str) -> bool {
        HARNESS.side_effect(command)
    }

    fn call(
        &self,
        function: &str,
        args: &[String],
        var: &dyn Fn(&str) -> Option<Val>,
    ) -> Option<Call> {
        if WAITS.contains(&function) {
            return Some(Call {
                status: Status::Ok,
                exits: false,
                exports: Vec::new(),
            });
        }
        HARNESS.call(function, args, var)
    }

    fn sourced(&self, file: &str) -> Option<Vec<(String, String)>> {
        if file == ENV_FILE.0 {
            return Some(
                ENV_FILE
                    .1
                    .iter()
                    .map(|n| (n.to_string(), String::new()))
                    .collect(),
            );
        }
        HARNESS.sourced(file)
    }

    fn output(
        &self,
        words: &[String],
        var: &dyn Fn(&str) -> Option<Val>,
    ) -> Option<Result<String, String>> {
        match words {
            [python, c, program]
                if python == "python3" && c == "-c" && loader::is_loader(program) =>
            {
                Some(loader::output(program, var))
            }
            _ => HARNESS.output(words, var),
        }
    }
}

/// The points of an AMD `sglang-disagg` entry, each with its prefill and
/// decode launches.
pub(super) fn expand(
    root: &Location,
    entry_key: &str,
    config: &Location,
    entry: &Entry,
    filter: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Expanded, Error> {
    let all: Vec<BTreeMap<String, String>> = entry
        .multinode_points
        .iter()
        .map(|p| p.fields.iter().cloned().collect())
        .collect();
    let chosen = match chosen_points(entry_key, config, &all, filter) {
        Ok(chosen) => chosen,
        Err(none) => return Ok(none),
    };
    let sku = sku_of(&entry.runner);
    let mut context = Context::from_image(&entry.image, &format!("image of entry {entry_key}"));
    let from = format!("runner {} of entry {entry_key}", entry.runner);
    context.hardware = Some(Known {
        value: sku.clone(),
        from: from.clone(),
    });
    if let Some(p) = crate::hardware::platform_of(&sku) {
        context.platform = Some(Known { value: p, from });
    }
    let run_file = root.join(&format!("{AMD_UTILS}/{RUN_FILE}"));
    let mut points = Vec::new();
    for i in chosen {
        let p = &entry.multinode_points[i];
        let settings: BTreeMap<String, String> = p
            .settings
            .iter()
            .map(|(k, v, _)| (k.clone(), v.clone()))
            .collect();
        let mut point = Point {
            fields: all[i].clone(),
            env: settings.clone(),
            unknown_env: BTreeMap::new(),
            script: run_file.display(),
            launches: Vec::new(),
            unsupported: Vec::new(),
            auxiliary: Vec::new(),
            unknown: Vec::new(),
            // The job's node counts are the submit script's; not read as a
            // topology yet.
            workers: Vec::new(),
            at: None,
            fetch_failure: None,
        };
        let job = match env::job(root, entry, &all[i], &settings, files)? {
            Ok(job) => job,
            Err(why) => {
                point.unknown.push(why);
                points.push(point);
                continue;
            }
        };
        point.env = job.container.clone();
        point.unknown_env = job.unknown.clone();
        let source = files.read(&run_file)?;
        for (role, rank) in [
            (Role::Prefill, job.prefill_rank),
            (Role::Decode, job.decode_rank),
        ] {
            let mut env = job.container.clone();
            env.insert("NODE_RANK".into(), rank.to_string());
            let evaluated =
                match bash::evaluate_with(&source, &env, Some(&job.unknown), files, &AMD_HARNESS) {
                    Ok(e) => e,
                    // What the script does on that node is not knowable
                    // (the error says where and why): the role is unknown.
                    Err(e) => {
                        point.unknown.push(format!("{role}: {e}"));
                        continue;
                    }
                };
            let mut launches: Vec<_> = evaluated.launches;
            if launches.len() != 1 {
                point.unknown.push(format!(
                    "{role}: node rank {rank} starts {} servers, not one",
                    launches.len()
                ));
            }
            for l in &mut launches {
                l.context.fill_from(&context);
                l.role = role;
                mark_runtime(l);
            }
            point.launches.extend(launches);
            point.unsupported.extend(
                evaluated
                    .unsupported
                    .into_iter()
                    .map(|u| format!("{role}: {u}")),
            );
            if role == Role::Prefill {
                point.auxiliary.extend(evaluated.auxiliary);
            }
        }
        points.push(point);
    }
    Ok(Expanded {
        entry: entry_key.to_string(),
        config: config.display(),
        points,
        unmatched: None,
        unread_env: Vec::new(),
    })
}

/// The words and environment values of a launch that hold a runtime value's
/// marker ([`env::RUNTIME`]) are unknown, with what the value is.
pub fn mark_runtime(l: &mut crate::launch::Launch) {
    let why = |text: &str| -> Option<String> {
        let names: Vec<String> = env::RUNTIME
            .iter()
            .filter(|(k, _)| {
                text.contains(&env::marker(k))
                    || (*k == "IPADDRS" && text.contains("__cluster_node"))
            })
            .map(|(k, v)| format!("${k}: {v}"))
            .collect();
        (!names.is_empty()).then(|| {
            format!(
                "a value the cluster gives at run time ({})",
                names.join("; ")
            )
        })
    };
    for t in l.argv.iter_mut().chain(l.launcher.iter_mut()) {
        if let Some(reason) = why(&t.text) {
            t.provenance = crate::launch::Provenance::Unknown { reason };
        }
    }
    for e in &mut l.env {
        if let Some(reason) = why(&e.value) {
            e.provenance = crate::launch::Provenance::Unknown { reason };
        }
    }
}

#[cfg(test)]
mod tests;
