//! The environment of one AMD disaggregated job's containers, layer by layer,
//! as InferenceX builds it (HEAD 843c625):
//!
//! 1. the workflow (`benchmark-multinode-tmpl.yml`) exports the point's
//!    matrix fields and its prefill and decode `additional-settings`;
//! 2. the runner (`runners/launch_mi355x-amds.sh`) exports the model's folder
//!    name and the cluster's paths and runs the entry's recipe script
//!    `benchmarks/multi_node[/agentic]/<prefix>_<precision>_<sku>_<framework>.sh`;
//! 3. the recipe script, evaluated here by the bash evaluator, exports its own
//!    settings (EP/DP switches, HiCache tunables, ...) and calls `submit.sh`;
//! 4. `submit.sh` sizes each role's server (`TP_SIZE = NODES * TP / WORKERS`)
//!    and `job.slurm` passes a fixed list of variables into each node's
//!    container with `docker run -e` (others, such as `KV_P2P_TRANSFER` or
//!    `IBDEVICES`, do not reach it), plus a mounted settings file.
//!
//! The tables below are those layers' facts; the matrix and the recipe script
//! give the values.

use std::collections::BTreeMap;

use super::super::config::Entry;
use super::super::workflow::field;
use crate::error::Error;
use crate::extract::bash::{self, expand::Val};
use crate::files::{Files, Location};

/// What the job runs with: the container's environment (known values and,
/// apart, the variables the cluster sets), and the node ranks of its roles.
#[derive(Debug, Clone)]
pub struct Job {
    /// Variables `docker run -e` gives each node's container.
    pub container: BTreeMap<String, String>,
    /// Variables whose value the cluster gives at run time, with the reason.
    pub unknown: BTreeMap<String, String>,
    /// The rank of the first prefill node.
    pub prefill_rank: u64,
    /// The rank of the last node, a decode node.
    pub decode_rank: u64,
}

/// The cluster facts of the MI355X runner (`launch_mi355x-amds.sh`).
const RUNNER: &[(&str, &str)] = &[
    ("MODEL_PATH", "/it-share/data"),
    ("MODEL_DIR", "/it-share/data"),
    ("GPUS_PER_NODE", "8"),
    (
        "IBDEVICES",
        "rdma0,rdma1,rdma2,rdma3,rdma4,rdma5,rdma6,rdma7",
    ),
    ("MORI_RDMA_TC", "104"),
    ("SLURM_PARTITION", "compute"),
    ("SLURM_JOB_NAME", "benchmark-sglang-disagg.job"),
];

/// Variables `job.slurm` passes to the container as `-e NAME=${NAME:-DEFAULT}`
/// (the recipe script may set them), with that default.
const FORWARDED: &[(&str, &str)] = &[
    ("PREFILL_CONTEXT_LENGTH", ""),
    ("PREFILL_CHUNKED_PREFILL_SIZE", ""),
    ("DISABLE_CUSTOM_ALL_REDUCE", ""),
    ("MAX_MODEL_LEN", ""),
    ("DURATION", "1800"),
    ("IS_AGENTIC", "0"),
    ("KV_OFFLOADING", "none"),
    ("KV_OFFLOAD_BACKEND", ""),
    ("KV_OFFLOAD_BACKEND_METADATA", ""),
    ("TOTAL_CPU_DRAM_GB", ""),
    ("ENABLE_METRICS", "0"),
    ("PREFILL_ROUTER_POLICY", "random"),
    ("DECODE_ROUTER_POLICY", "random"),
    ("MORI_IO_SQ_BACKOFF_TIMEOUT_US", ""),
    ("MORI_IO_QP_MAX_SEND_WR", ""),
    ("DECODE_MTP_SIZE", "0"),
    ("RUN_EVAL", "false"),
    ("EVAL_ONLY", "false"),
    ("EVAL_CONC", ""),
    ("DRY_RUN", "0"),
    ("SCENARIO_TYPE", ""),
    ("SPEC_DECODING", ""),
    ("FRAMEWORK", ""),
    ("PRECISION", ""),
    ("MODEL_PREFIX", ""),
];

/// Variables of the container that are not knowable and reach no server's
/// command, and why.
const CLUSTER: &[(&str, &str)] = &[
    ("RUNNER_TYPE", "the runner's label"),
    ("RESULT_FILENAME", "named by the workflow run"),
];

/// Values the cluster gives the job at run time, which the scripts build
/// commands from: each stands in as a marker word ([`marker`]) through the
/// evaluation, and a launch word holding one is unknown (see
/// [`super::mark_runtime`]). `IPADDRS` is one marker per node. `IBDEVICES`
/// does not reach the container (`job.slurm` does not pass it): `env.sh`
/// reads it from `ibv_devinfo` on the node, so the marker stands for what it
/// finds.
pub const RUNTIME: &[(&str, &str)] = &[
    (
        "NODE0_ADDR",
        "the address of the job's first node (Slurm picks the nodes)",
    ),
    (
        "IPADDRS",
        "the addresses of the job's nodes (Slurm picks the nodes)",
    ),
    ("SLURM_JOB_ID", "the Slurm job's id"),
    ("SLURM_JOB_NODELIST", "the job's nodes (Slurm picks them)"),
    (
        "IBDEVICES",
        "the node's RDMA devices (env.sh reads them with ibv_devinfo)",
    ),
];

/// The marker word a runtime value stands in as.
pub fn marker(name: &str) -> String {
    format!("__cluster_{}__", name.to_ascii_lowercase())
}

/// The container path job.slurm mounts the checkout at, where the scripts
/// are found (`WS_PATH`): the checkout's own folder stands for it.
fn ws_path(root: &Location) -> String {
    root.join(super::AMD_UTILS).display()
}

/// The job's environment for one point (`Ok(Err(why))` when a layer is not
/// knowable: the recipe script is missing, a size is not a number).
pub(super) fn job(
    root: &Location,
    entry: &Entry,
    fields: &BTreeMap<String, String>,
    settings: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Result<Job, String>, Error> {
    let agentic = field(fields, "scenario") == "agentic";
    let sku = super::super::sku_of(&entry.runner);
    // 1. The workflow's env.
    let (mut wf, mut unknown) = super::super::workflow::env(root, entry, fields);
    let model_name = entry
        .model
        .rsplit('/')
        .next()
        .unwrap_or(&entry.model)
        .to_string();
    // Every AMD disaggregated point is disaggregated.
    unknown.remove("DISAGG");
    wf.insert("DISAGG".into(), "true".into());
    wf.insert("MODEL_NAME".into(), model_name.clone());
    for (k, v) in RUNNER {
        wf.insert(k.to_string(), v.to_string());
    }
    wf.extend(settings.iter().map(|(k, v)| (k.clone(), v.clone())));
    unknown.retain(|k, _| !settings.contains_key(k));
    unknown.insert(
        "BENCHMARK_LOGS_DIR".into(),
        "a folder of the runner's workspace".into(),
    );
    // 2-3. The recipe script, for what it exports.
    let folder = if agentic {
        "benchmarks/multi_node/agentic"
    } else {
        "benchmarks/multi_node"
    };
    let name = format!(
        "{}_{}_{sku}_{}.sh",
        entry.model_prefix, entry.precision, entry.framework
    );
    let recipe = root.join(&format!("{folder}/{name}"));
    if !files.is_file(&recipe)? {
        return Ok(Err(format!(
            "the recipe script {} the runner runs is not in this checkout",
            recipe.display()
        )));
    }
    let source = files.read(&recipe)?;
    let evaluated =
        bash::evaluate_keeping_vars(&source, &wf, &unknown, files, &super::super::HARNESS)?;
    let mut exported: BTreeMap<String, Val> = BTreeMap::new();
    for (k, v, is_exported, _) in evaluated.vars {
        if is_exported && let Some(first) = v.into_iter().next() {
            exported.insert(k, first);
        }
    }
    let mut container: BTreeMap<String, String> = BTreeMap::new();
    let mut cunknown: BTreeMap<String, String> = CLUSTER
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let get = |k: &str| -> Result<String, String> {
        match exported.get(k) {
            Some(Val::Known(t)) => Ok(t.clone()),
            Some(Val::Unknown(r)) => Err(r.clone()),
            None => Ok(String::new()),
        }
    };
    // 4. submit.sh's sizes from its arguments (the recipe script's values).
    let num = |k: &str| -> Result<u64, String> {
        let t = get(k)?;
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("{k} is {t:?} after the recipe script, not a count"))
    };
    let sizes = (|| -> Result<_, String> {
        let (pn, pw, ptp) = (
            num("PREFILL_NODES")?,
            num("PREFILL_NUM_WORKERS")?,
            num("PREFILL_TP")?,
        );
        let (dn, dw, dtp) = (
            num("DECODE_NODES")?,
            num("DECODE_NUM_WORKERS")?,
            num("DECODE_TP")?,
        );
        if pw == 0 || dw == 0 {
            return Err("a role has no workers".to_string());
        }
        Ok((pn, pw, pn * ptp / pw, dn, dw, dn * dtp / dw))
    })();
    let (pn, pw, ptp_size, dn, dw, dtp_size) = match sizes {
        Ok(s) => s,
        Err(why) => return Ok(Err(format!("the job's sizes are not knowable: {why}"))),
    };
    let mut put = |k: &str, v: Result<String, String>| match v {
        Ok(t) => {
            container.insert(k.to_string(), t);
        }
        Err(r) => {
            cunknown.insert(k.to_string(), r);
        }
    };
    for (k, _) in RUNTIME {
        let v = if *k == "IPADDRS" {
            (0..pn + dn)
                .map(|i| marker(&format!("node{i}_addr")))
                .collect::<Vec<_>>()
                .join(",")
        } else if *k == "NODE0_ADDR" {
            marker("node0_addr")
        } else {
            marker(k)
        };
        put(k, Ok(v));
    }
    put("NNODES", Ok((pn + dn).to_string()));
    put("MODEL_DIR", Ok("/models".into()));
    put("MODEL_NAME", Ok(model_name));
    put("GPUS_PER_NODE", get("GPUS_PER_NODE"));
    put("xP", Ok(pw.to_string()));
    put("yD", Ok(dw.to_string()));
    let isl = get("ISL").map(|t| if t.is_empty() { "1024".into() } else { t });
    let osl = get("OSL").map(|t| if t.is_empty() { "1024".into() } else { t });
    put("BENCH_INPUT_LEN", isl);
    put("BENCH_OUTPUT_LEN", osl);
    put("BENCH_RANDOM_RANGE_RATIO", get("RANDOM_RANGE_RATIO"));
    put("BENCH_NUM_PROMPTS_MULTIPLIER", Ok("10".into()));
    put(
        "BENCH_MAX_CONCURRENCY",
        get("CONC_LIST").map(|c| c.replace(' ', "x")),
    );
    put("BENCH_REQUEST_RATE", Ok("inf".into()));
    put("TQDM_MININTERVAL", Ok("20".into()));
    put("BENCHMARK_LOGS_DIR", Ok("/benchmark_logs".into()));
    put("ENGINE", get("FRAMEWORK"));
    put("WS_PATH", Ok(ws_path(root)));
    put("SGLANG_WS_PATH", Ok(ws_path(root)));
    put(
        "DISAGG",
        get("DISAGG").map(|t| if t.is_empty() { "false".into() } else { t }),
    );
    put("IS_MULTINODE", get("IS_MULTINODE"));
    put("PREFILL_TP_SIZE", Ok(ptp_size.to_string()));
    put("DECODE_TP_SIZE", Ok(dtp_size.to_string()));
    for role in ["PREFILL", "DECODE"] {
        for k in ["TP", "NUM_WORKERS", "ENABLE_EP", "ENABLE_DP"] {
            let name = format!("{role}_{k}");
            put(&name, get(&name));
        }
        let ep = get(&format!("{role}_EP")).map(|t| if t.is_empty() { "1".into() } else { t });
        put(&format!("{role}_EP"), ep);
        let dp =
            get(&format!("{role}_DP_ATTN")).map(|t| if t.is_empty() { "false".into() } else { t });
        put(&format!("{role}_DP_ATTN"), dp);
    }
    for (k, default) in FORWARDED {
        put(
            k,
            get(k).map(|t| if t.is_empty() { default.to_string() } else { t }),
        );
    }
    // The mounted settings file: its set values, as `env.sh` exports them.
    for k in super::ENV_FILE.1 {
        match get(k) {
            Ok(t) if t.is_empty() => {}
            v => put(k, v),
        }
    }
    Ok(Ok(Job {
        container,
        unknown: cunknown,
        prefill_rank: 0,
        decode_rank: (pn + dn).saturating_sub(1),
    }))
}
