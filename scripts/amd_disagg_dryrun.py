#!/usr/bin/env python3
"""Record what real bash builds for InferenceX's AMD `sglang-disagg` entries.

For every point of every `framework: sglang-disagg` entry of an InferenceX
checkout, and for its two roles (the first prefill node, rank 0; the last
node, a decode node), this runs InferenceX's own scripts under real bash in a
scratch copy, never the servers:

1. the entry's recipe script with the workflow's env for the point, with
   `sbatch` stubbed to dump the environment `submit.sh` hands the job;
2. `amd_utils/server_sglang.sh` with `DRY_RUN=1` (its own preview path) under
   `env -i bash --norc --noprofile`, with the variables `job.slurm` passes to
   the container (`docker run -e`), stubbed cluster commands (`ibv_devinfo`,
   `ip`, `hostname`, the `sync.py` barriers) whose answers are the marker words
   recipe-drift uses for runtime values, and the real `python3` + PyYAML for
   the models.yaml loader;
3. each `DRY RUN: <command>` line of a server is split into words by bash.

It writes tests/data/amd_disagg_rendered.json: per entry and point, each
role's env prefix and argv. Usage:

    python3 scripts/amd_disagg_dryrun.py /path/to/InferenceX [OUT.json]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = sys.argv[1]
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "data", "amd_disagg_rendered.json")

# job.slurm's `docker run -e` list (sglang engine), with its defaults.
FORWARD = {
    "NNODES": None, "NODE0_ADDR": None, "MODEL_NAME": None, "GPUS_PER_NODE": None,
    "xP": None, "yD": None, "IPADDRS": None, "BENCH_INPUT_LEN": "1024",
    "BENCH_OUTPUT_LEN": "1024", "BENCH_RANDOM_RANGE_RATIO": "1",
    "BENCH_NUM_PROMPTS_MULTIPLIER": "10", "BENCH_MAX_CONCURRENCY": "512",
    "BENCH_REQUEST_RATE": "inf", "ENGINE": None, "RUN_EVAL": "false",
    "EVAL_ONLY": "false", "EVAL_CONC": "", "FRAMEWORK": "", "PRECISION": "",
    "MODEL_PREFIX": "", "SPEC_DECODING": "", "DISAGG": "false",
    "PREFILL_TP_SIZE": "8", "PREFILL_TP": None, "PREFILL_NUM_WORKERS": None,
    "PREFILL_ENABLE_EP": "false", "PREFILL_ENABLE_DP": "false", "PREFILL_EP": "1",
    "PREFILL_DP_ATTN": "false", "PREFILL_CONTEXT_LENGTH": "",
    "PREFILL_CHUNKED_PREFILL_SIZE": "", "DISABLE_CUSTOM_ALL_REDUCE": "",
    "MAX_MODEL_LEN": "", "DURATION": "1800", "IS_AGENTIC": "0",
    "KV_OFFLOADING": "none", "KV_OFFLOAD_BACKEND": "", "KV_OFFLOAD_BACKEND_METADATA": "",
    "TOTAL_CPU_DRAM_GB": "", "ENABLE_METRICS": "0", "PREFILL_ROUTER_POLICY": "random",
    "DECODE_ROUTER_POLICY": "random", "MORI_IO_SQ_BACKOFF_TIMEOUT_US": "",
    "MORI_IO_QP_MAX_SEND_WR": "", "DECODE_TP_SIZE": "8", "DECODE_TP": None,
    "DECODE_NUM_WORKERS": None, "DECODE_ENABLE_EP": "false", "DECODE_ENABLE_DP": "false",
    "DECODE_EP": "1", "DECODE_DP_ATTN": "false", "DECODE_MTP_SIZE": "0",
    "IS_MULTINODE": "false", "SCENARIO_TYPE": "",
}
ENV_FILE = ["HICACHE_RATIO", "FORCE_HICACHE_RATIO", "HICACHE_HOST_POOL_COUNT",
            "HICACHE_PAGE_SIZE", "HICACHE_IO_BACKEND", "HICACHE_MEM_LAYOUT",
            "HICACHE_WRITE_POLICY", "HICACHE_STORAGE_BACKEND", "HICACHE_PREFETCH_POLICY",
            "MC_PATCH_HOSTPOOL", "MC_MASTER_PORT", "MC_METADATA_PORT", "MC_METRICS_PORT",
            "MC_MASTER_THREADS", "MC_EVICTION_HIGH_WATERMARK", "MC_PROTOCOL",
            "MC_GLOBAL_SEG", "MC_DEVICE", "MC_MASTER_ADDR", "MC_METADATA_SERVER"]

STUBS = {
    "ibv_devinfo": "echo 'hca_id:\t__cluster_ibdevices__'",
    "ip": "echo '1.1.1.1 via 0.0.0.0 dev eth0 src __cluster_host_ip__ uid 0'",
    "hostname": "echo __cluster_hostname__",
    "sbatch": 'python3 -c "import json,os,sys; json.dump(dict(os.environ), open(os.environ[\'DUMP_ENV\'],\'w\'))"; echo 1',
    "nicctl": "exit 1", "apt-get": "exit 0", "pip": "exit 0", "docker": "exit 0",
    "curl": "exit 0", "setsid": "exit 0", "srun": "exit 0", "squeue": "exit 0",
}


def stub_dir(tmp):
    d = os.path.join(tmp, "stubs")
    os.makedirs(d)
    real_python = shutil.which("python3")
    for name, body in STUBS.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(f"#!/bin/bash\n{body}\n")
        os.chmod(os.path.join(d, name), 0o755)
    # python3: the sync.py barriers return at once; anything else is Python.
    with open(os.path.join(d, "python3"), "w") as f:
        f.write(f'#!/bin/bash\ncase "$1" in *sync.py) exit 0;; esac\nexec {real_python} "$@"\n')
    os.chmod(os.path.join(d, "python3"), 0o755)
    return d


def words(cmd, stubs):
    """The words bash makes of a printed command: env prefix and argv."""
    out = subprocess.run(
        ["env", "-i", f"PATH={stubs}:/usr/bin:/bin", "bash", "--norc", "--noprofile", "-c",
         'set -f; eval "a=( $1 )"; printf "%s\\0" "${a[@]}"', "x", cmd],
        capture_output=True, text=True, check=True).stdout.split("\0")[:-1]
    env, i = [], 0
    while i < len(out) and "=" in out[i] and out[i].split("=", 1)[0].isidentifier():
        env.append(out[i])
        i += 1
    return env, out[i:]


def main():
    master = yaml.safe_load(open(os.path.join(ROOT, "configs", "amd-master.yaml")))
    tmp = tempfile.mkdtemp(prefix="amd-dryrun-")
    repo = os.path.join(tmp, "repo")
    shutil.copytree(os.path.join(ROOT, "benchmarks"), os.path.join(repo, "benchmarks"))
    stubs = stub_dir(tmp)
    ws = os.path.join(repo, "benchmarks", "multi_node", "amd_utils")
    result = {"inferencex": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=9", "HEAD"],
                                           capture_output=True, text=True).stdout.strip(),
              "entries": {}}
    for key, e in master.items():
        if not isinstance(e, dict) or e.get("framework") != "sglang-disagg":
            continue
        points = []
        for scen, lst in e["scenarios"].items():
            agentic = scen == "agentic-coding"
            for s in lst:
                for p in s["search-space"]:
                    pre, dec = p["prefill"], p["decode"]
                    wf = {
                        "PATH": f"{stubs}:/usr/bin:/bin", "HOME": tmp,
                        "GITHUB_WORKSPACE": repo, "MODEL": e["model"], "IMAGE": e["image"],
                        "MODEL_PREFIX": e["model-prefix"], "FRAMEWORK": e["framework"],
                        "PRECISION": e["precision"], "ISL": str(s.get("isl", "")),
                        "OSL": str(s.get("osl", "")),
                        "CONC_LIST": " ".join(str(c) for c in p["conc-list"]),
                        "SPEC_DECODING": p.get("spec-decoding", "none"), "DISAGG": "true",
                        "RANDOM_RANGE_RATIO": "0.8", "RUN_EVAL": "false", "EVAL_ONLY": "false",
                        "SCENARIO_TYPE": scen, "IS_AGENTIC": "1" if agentic else "0",
                        "SCENARIO_SUBDIR": "agentic/" if agentic else "fixed_seq_len/",
                        "KV_OFFLOADING": p.get("kv-offloading", ""),
                        "KV_OFFLOAD_BACKEND": (p.get("kv-offload-backend") or {}).get("name", ""),
                        "IS_MULTINODE": "true", "MODEL_NAME": e["model"].split("/")[-1],
                        "MODEL_PATH": "/it-share/data", "MODEL_DIR": "/it-share/data",
                        "GPUS_PER_NODE": "8", "IBDEVICES": "rdma0,rdma1,rdma2,rdma3,rdma4,rdma5,rdma6,rdma7",
                        "MORI_RDMA_TC": "104", "SLURM_ACCOUNT": "ci", "SLURM_PARTITION": "compute",
                        "RUNNER_NAME": "mi355x-amds_0", "DUMP_ENV": os.path.join(tmp, "job.json"),
                    }
                    for r, d in (("PREFILL", pre), ("DECODE", dec)):
                        wf[f"{r}_NUM_WORKERS"] = str(d["num-worker"])
                        wf[f"{r}_TP"] = str(d["tp"])
                        wf[f"{r}_EP"] = str(d["ep"])
                        wf[f"{r}_DP_ATTN"] = str(d["dp-attn"]).lower()
                        for a in d.get("additional-settings", []):
                            k, v = a.split("=", 1)
                            wf[k] = v
                    if agentic and wf["KV_OFFLOADING"] not in ("", "none"):
                        # A positive count, as the harness requires; the workflow computes
                        # it from the runner (recipe-drift leaves it unknown).
                        wf["TOTAL_CPU_DRAM_GB"] = "2048"
                    sub = "multi_node/agentic" if agentic else "multi_node"
                    script = os.path.join(repo, "benchmarks", sub,
                                          f"{e['model-prefix']}_{e['precision']}_mi355x_{e['framework']}.sh")
                    if agentic:
                        # The agentic recipe checks these are set; they size
                        # the benchmark client only, not a server.
                        wf["DURATION"] = str(s.get("duration", 1800))
                        wf["ISL"] = wf["ISL"] or "0"
                        wf["OSL"] = wf["OSL"] or "0"
                    if os.path.exists(wf["DUMP_ENV"]):
                        os.remove(wf["DUMP_ENV"])
                    rec = subprocess.run(["env", "-i", *[f"{k}={v}" for k, v in wf.items()],
                                          "bash", "--norc", "--noprofile", script],
                                         capture_output=True, text=True, cwd=repo)
                    if not os.path.exists(wf["DUMP_ENV"]):
                        sys.exit(f"{key}: the recipe script {script} did not reach sbatch:\n{rec.stdout[-1500:]}{rec.stderr[-1500:]}")
                    job = json.load(open(wf["DUMP_ENV"]))
                    nodes = int(job["NUM_NODES"])
                    cont = {}
                    for k, default in FORWARD.items():
                        v = job.get(k, "")
                        cont[k] = v if (v or default is None) else default
                    cont.update({
                        "NNODES": str(nodes), "NODE0_ADDR": "__cluster_node0_addr__",
                        "IPADDRS": ",".join(f"__cluster_node{i}_addr__" for i in range(nodes)),
                        "SLURM_JOB_ID": "__cluster_slurm_job_id__",
                        "SLURM_JOB_NODELIST": "__cluster_slurm_job_nodelist__",
                        "MODEL_DIR": "/models", "BENCHMARK_LOGS_DIR": "/benchmark_logs",
                        "TQDM_MININTERVAL": "20", "WS_PATH": ws, "SGLANG_WS_PATH": ws,
                        "DRY_RUN": "1", "PATH": f"{stubs}:/usr/bin:/bin",
                    })
                    for k in ENV_FILE:
                        if job.get(k):
                            cont[k] = job[k]
                    roles = {}
                    for role, rank in (("prefill", 0), ("decode", nodes - 1)):
                        env = dict(cont, NODE_RANK=str(rank))
                        run = subprocess.run(
                            ["env", "-i", *[f"{k}={v}" for k, v in env.items()],
                             "bash", "--norc", "--noprofile", os.path.join(ws, "server_sglang.sh")],
                            capture_output=True, text=True, cwd=ws)
                        cmds = [l[len("DRY RUN: "):] for l in run.stdout.splitlines()
                                if l.startswith("DRY RUN: ") and "sglang.launch_server" in l]
                        if len(cmds) != 1:
                            roles[role] = {"error": f"{len(cmds)} server commands printed"}
                            continue
                        env_prefix, argv = words(cmds[0], stubs)
                        roles[role] = {"env": env_prefix, "argv": argv}
                    fields = {"conc": ",".join(str(c) for c in p["conc-list"])}
                    points.append({"fields": fields, "roles": roles})
        result["entries"][key] = points
    shutil.rmtree(tmp)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
