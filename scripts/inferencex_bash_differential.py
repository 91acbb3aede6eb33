#!/usr/bin/env python3
"""Bash differential survey over a real InferenceX checkout.

For every single-node SGLang/vLLM point that `recipe-drift extract --inferencex`
gives, run the point's script under real bash, in a throwaway copy of the
checkout, with the point's env, stub launchers that only record their argv, and
a stub benchmark library (tests/bash_stubs/benchmark_lib.sh plus a no-op for
every other function the checkout's library defines). Then compare, launch by
launch, the argv bash ran with the argv recipe-drift extracted statically:

  exact    every token known and equal to bash's, launch for launch;
  stopped  bash exited non-zero before any launch, under the stubs (a GPU
           query printing nothing under `set -e`): listed, not counted;
  unknown  every known token equal; an unknown token stands for any number of
           bash's words (each unknown names its reason);
  wrong    a known token differs, or the launches differ in number or engine.

Nothing of the checkout is committed or kept. The scripts run with `env -i`, a
PATH of stubs and a short list of harmless tools, no network (`unshare -rn`, a
new user and network namespace) and a 20 s timeout each. Still: this runs
third-party bash on your machine; run it in a scratch VM or container.

Usage:
  scripts/inferencex_bash_differential.py --root CHECKOUT \
      [--bin target/release/recipe-drift] [--entry KEY]... [--env K=V]... [--show N]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
STUBS = os.path.join(REPO, "tests", "bash_stubs")

# Commands that record their argv (launchers) or do nothing (side effects).
RECORD = ["python3", "python", "sglang", "vllm", "trtllm-serve"]
NOOP = [
    "hf", "huggingface-cli", "nvidia-smi", "amd-smi", "rocm-smi", "curl", "wget",
    "pip", "pip3", "uv", "sleep", "git", "docker", "kill", "pkill", "wait_for",
    "numactl", "rm", "mv", "cp", "ln", "chmod", "lsof", "ps", "free", "nproc",
]
# Wrappers that run a command, and how each skips its own options.
WRAPPERS = {
    "nohup": "",
    "setsid": 'while [ "${1#-}" != "$1" ]; do shift; done\n',
    "stdbuf": 'while [ "${1#-}" != "$1" ]; do shift; done\n',
    "numactl": 'while [ "${1#-}" != "$1" ]; do shift; done\n',
    "timeout": 'while [ "${1#-}" != "$1" ]; do shift; done; shift\n',
    "nice": 'if [ "$1" = -n ]; then shift 2; elif [ "${1#-}" != "$1" ]; then shift; fi\n',
}
# Harmless tools the scripts use to compute values.
TOOLS = [
    "cat", "sed", "awk", "grep", "dirname", "basename", "realpath", "readlink",
    "pwd", "printf", "echo", "expr", "seq", "head", "tail", "tr", "cut", "wc",
    "sort", "uniq", "mkdir", "touch", "tee", "env", "true", "false", "test",
    "ls", "bc", "jq", "date", "stat", "paste", "xargs", "yes",
]


def entries_of(root):
    keys = []
    for name in ("amd-master.yaml", "nvidia-master.yaml"):
        for d in ("configs", ".github/configs"):
            path = os.path.join(root, d, name)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*):\s*$", line)
                        if m:
                            keys.append(m.group(1))
                break
    return keys


def sandbox(root):
    """A copy of the checkout without .git, with stub library and PATH."""
    top = tempfile.mkdtemp(prefix="ixbash-")
    work = os.path.join(top, "repo")
    shutil.copytree(root, work, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    # A checkout: recipe-drift takes its top level as the folder scripts start in.
    os.makedirs(os.path.join(work, ".git"))
    lib = os.path.join(work, "benchmarks", "benchmark_lib.sh")
    real = open(lib, encoding="utf-8", errors="replace").read() if os.path.exists(lib) else ""
    stub = open(os.path.join(STUBS, "benchmark_lib.sh"), encoding="utf-8").read()
    defined = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)\(\)", stub, re.M))
    extra = [n for n in re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)\(\)", real, re.M) if n not in defined]
    with open(lib, "w", encoding="utf-8") as f:
        f.write(stub)
        f.write("\n# no-ops for the checkout library's other functions\n")
        for n in sorted(set(extra)):
            f.write(f"{n}() {{ :; }}\n")
    bin_dir = os.path.join(top, "bin")
    os.makedirs(bin_dir)
    for n in RECORD:
        shutil.copy(os.path.join(STUBS, "record.sh"), os.path.join(bin_dir, n))
    for n in NOOP:
        shutil.copy(os.path.join(STUBS, "noop.sh"), os.path.join(bin_dir, n))
    for n in TOOLS:
        p = shutil.which(n)
        if p and not os.path.exists(os.path.join(bin_dir, n)):
            os.symlink(p, os.path.join(bin_dir, n))
    # Wrappers that run their command: skip their own options, then exec it.
    for n, skip in WRAPPERS.items():
        with open(os.path.join(bin_dir, n), "w") as f:
            f.write("#!/bin/bash\n" + skip + 'exec "$@"\n')
        os.chmod(os.path.join(bin_dir, n), 0o755)
    os.makedirs(os.path.join(top, "results"))
    return top, work, bin_dir


def recorded(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except FileNotFoundError:
        return []
    out = []
    for rec in text.split("\x1e"):
        if not rec:
            continue
        f = rec.split("\x1f")[:-1]
        name, rest = f[0], f[1:]
        if name in ("sglang", "vllm") and rest[:1] == ["serve"]:
            out.append((name, rest[1:]))
        elif rest[:2] == ["-m", "sglang.launch_server"]:
            out.append(("sglang", rest[2:]))
        elif rest[:2] == ["-m", "vllm.entrypoints.openai.api_server"]:
            out.append(("vllm", rest[2:]))
    return out


def run_bash(top, work, bin_dir, point, extra):
    rec = os.path.join(top, "record")
    if os.path.exists(rec):
        os.remove(rec)
    env = {k: v for k, v in point["env"].items()}
    for k in point.get("unknown_env", {}):
        env[k] = "1024"  # any value: recipe-drift reports what it feeds as unknown
    env.update(extra)
    env.update({"PATH": bin_dir, "RECORD": rec, "RESULT_DIR": os.path.join(top, "results"),
                "HOME": top, "INFERENCEX_ROOT": work})
    script = point["script"]
    cmd = [shutil.which("timeout"), "20", shutil.which("unshare"), "-rn", "/bin/bash", script]
    status = subprocess.run(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    # Launchers run in the background: wait until the record settles.
    # A background launcher may not have started yet when bash exits: wait
    # until the record has not changed for 0.3 s (at most 3 s).
    last, since, start = -1, time.time(), time.time()
    while time.time() - start < 3:
        time.sleep(0.05)
        n = os.path.getsize(rec) if os.path.exists(rec) else 0
        if n != last:
            last, since = n, time.time()
        elif time.time() - since >= 0.3:
            break
    return recorded(rec), status


def matches(ours, theirs):
    """Known tokens equal; an unknown token stands for any run of words."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(ours):
            r = j == len(theirs)
        elif ours[i][1]:
            r = any(go(i + 1, k) for k in range(j, len(theirs) + 1))
        else:
            r = j < len(theirs) and ours[i][0] == theirs[j] and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


def classify(ours, real, status):
    if ours and not real and status != 0:
        # bash stopped before the launch: a stub (a GPU query that printed
        # nothing, under `set -e`) made the script fail where the runner's
        # machine would answer. Not a verdict on the extraction.
        return "stopped"
    if len(ours) != len(real) or any(o[0] != r[0] for o, r in zip(ours, real)):
        return "wrong"
    if all(not u for o in ours for _, u in o[1]) and [[t for t, _ in o[1]] for o in ours] == [r[1] for r in real]:
        return "exact"
    if all(matches(o[1], r[1]) for o, r in zip(ours, real)):
        return "unknown"
    return "wrong"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release", "recipe-drift"))
    ap.add_argument("--entry", action="append")
    ap.add_argument("--show", type=int, default=10, help="wrong points to print")
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="runner facts given to both sides (recipe-drift's --env), e.g. TOTAL_CPU_DRAM_GB=1024")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    if not os.access("/workspace", os.W_OK):
        # The runners mount the workspace there; scripts log to /workspace/server.log,
        # and a redirection that cannot open its file skips the launch.
        sys.exit("/workspace must exist and be writable (the runners' mount point); create it, "
                 "or run this in a container")
    top, work, bin_dir = sandbox(root)
    counts = {"exact": 0, "unknown": 0, "wrong": 0}
    stopped = {}
    skipped, wrong, tokens, unknown_tokens = [], [], 0, 0
    try:
        for e in a.entry or entries_of(work):
            # Extracted in the same copy bash runs in, so absolute paths agree.
            p = subprocess.run([a.bin, "extract", "--inferencex", ".", "--entry", e, "--format", "json"]
                               + [x for kv in a.env for x in ("--env", kv)],
                               cwd=work, capture_output=True, text=True)
            if p.returncode != 0:
                skipped.append((e, (p.stderr.strip().splitlines() or ["?"])[0]))
                continue
            for point in json.loads(p.stdout)["points"]:
                ours = [(l["engine"], [(t["text"], t["provenance"]["kind"] == "unknown") for t in l["argv"]])
                        for l in point["launches"]]
                for _, argv in ours:
                    tokens += len(argv)
                    unknown_tokens += sum(u for _, u in argv)
                real, status = run_bash(top, work, bin_dir, point, dict(kv.split("=", 1) for kv in a.env))
                c = classify(ours, real, status)
                if c == "stopped":
                    stopped[e] = stopped.get(e, 0) + 1
                    continue
                counts[c] += 1
                if c == "wrong":
                    wrong.append((e, point["fields"], ours, real))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    total = sum(counts.values())
    pct = lambda n: f"{100.0 * n / total:.1f}%" if total else "-"
    print(f"points: {total}  exact: {counts['exact']} ({pct(counts['exact'])})  "
          f"unknown-only: {counts['unknown']} ({pct(counts['unknown'])})  wrong: {counts['wrong']} ({pct(counts['wrong'])})")
    print(f"argv tokens: {tokens}, unknown: {unknown_tokens}")
    print(f"points where bash stopped before the launch under the stubs (not counted): "
          f"{sum(stopped.values())} in {sorted(stopped)}")
    print(f"entries not extracted: {len(skipped)}")
    reasons = {}
    for _, r in skipped:
        r = re.sub(r"^[^:]*:\d+:\d+: ", "", r)[:100]
        reasons[r] = reasons.get(r, 0) + 1
    for r, n in sorted(reasons.items(), key=lambda x: -x[1])[:8]:
        print(f"  {n:4}  {r}")
    for e, fields, ours, real in wrong[: a.show]:
        print(f"\nWRONG {e} {json.dumps(fields, sort_keys=True)}")
        for i in range(max(len(ours), len(real))):
            o = ours[i] if i < len(ours) else None
            r = real[i] if i < len(real) else None
            print(f"  ours: {o[0] + ' ' + ' '.join(('?' + t if u else t) for t, u in o[1]) if o else '-'}")
            print(f"  bash: {r[0] + ' ' + ' '.join(r[1]) if r else '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
