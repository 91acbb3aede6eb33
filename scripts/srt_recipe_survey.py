#!/usr/bin/env python3
"""Survey of srt-slurm recipes behind InferenceX's dynamo-* entries (a maintainer's
script, not a test).

For every `dynamo-*` entry of `ROOT/configs/*-master.yaml` and every distinct
`CONFIG_FILE` its points name, runs

    recipe-drift extract --inferencex ROOT --entry E --where config-file=C --format json [--offline]

and sorts the reference: local (read from `benchmarks/multi_node/srt-slurm-recipes/`),
remote with its ref decided (`github:OWNER/REPO@REF:recipes/...`, read or not: with
`--offline` and an empty cache the fetch fails and the error names it), or remote
with the ref not knowable (the point's reason). Prints the counts, the distinct
repo@ref values and the reasons. Needs PyYAML to list the entries' CONFIG_FILEs.

    python3 scripts/srt_recipe_survey.py --inferencex /tmp/ix \
        [--bin target/debug/recipe-drift] [--offline]

Never commit the corpus: it is upstream files.
"""

import argparse
import collections
import glob
import json
import re
import subprocess
import sys

import yaml

REMOTE = re.compile(r"github:([^@\s]+)@([^:\s]+):recipes/")


def config_files(root):
    """(entry, runner, CONFIG_FILE) for every dynamo-* entry's points, in order."""
    out = []
    for f in sorted(glob.glob(f"{root}/configs/*-master.yaml")):
        doc = yaml.safe_load(open(f)) or {}
        for key, entry in doc.items():
            if not isinstance(entry, dict) or not str(entry.get("framework", "")).startswith("dynamo-"):
                continue
            seen = []
            for kind in ("fixed-seq-len", "agentic-coding"):
                for sc in (entry.get("scenarios") or {}).get(kind) or []:
                    for p in sc.get("search-space") or []:
                        cfg = None
                        for role in ("prefill", "decode"):
                            for s in (p.get(role) or {}).get("additional-settings") or []:
                                if str(s).startswith("CONFIG_FILE="):
                                    cfg = str(s).split("=", 1)[1]
                        if cfg and cfg not in seen:
                            seen.append(cfg)
            out.extend((key, entry.get("runner"), c) for c in seen)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inferencex", required=True)
    ap.add_argument("--bin", default="target/debug/recipe-drift")
    ap.add_argument("--offline", action="store_true")
    a = ap.parse_args()
    counts = collections.Counter()
    refs = collections.Counter()
    reasons = collections.Counter()
    refs_by_runner = collections.defaultdict(collections.Counter)
    refs_entries = collections.defaultdict(set)
    for entry, runner, cfg in config_files(a.inferencex):
        cmd = [a.bin, "extract", "--inferencex", a.inferencex, "--entry", entry,
               "--where", f"config-file={cfg}", "--format", "json"]
        if a.offline:
            cmd.append("--offline")
        r = subprocess.run(cmd, capture_output=True, text=True)
        m = REMOTE.search(r.stderr) if r.returncode == 2 else None
        if m:
            counts["remote, ref decided, not fetched"] += 1
            refs[f"{m.group(1)}@{m.group(2)}"] += 1
            refs_by_runner[runner][f"{m.group(1)}@{m.group(2)}"] += 1
            refs_entries[f"{m.group(1)}@{m.group(2)}"].add(entry)
            continue
        if r.returncode not in (0, 1):
            counts["error"] += 1
            print(f"error: {entry} {cfg}: {r.stderr.strip()[:300]}", file=sys.stderr)
            continue
        doc = json.loads(r.stdout)
        point = doc["points"][0]
        script = point.get("script", "")
        m = REMOTE.search(script)
        if m:
            counts["remote, ref decided, fetched"] += 1
            refs[f"{m.group(1)}@{m.group(2)}"] += 1
            refs_by_runner[runner][f"{m.group(1)}@{m.group(2)}"] += 1
            refs_entries[f"{m.group(1)}@{m.group(2)}"].add(entry)
        elif "srt-slurm-recipes/" in script:
            counts["local"] += 1
        else:
            counts["remote, ref not knowable"] += 1
            why = " ".join(point.get("unknown", []))
            why = why.split("whose ref is not knowable: ", 1)[-1]
            reasons[re.sub(r"/tmp/\S+?/runners/", "runners/", why)[:220]] += 1
    print("CONFIG_FILE references (distinct per entry):", sum(counts.values()))
    for k, v in counts.most_common():
        print(f"  {v:4d}  {k}")
    print("distinct repo@ref:")
    for k, v in refs.most_common():
        print(f"  {v:4d}  {k}  ({len(refs_entries[k])} entries)")
    print("by runner label:")
    for runner, c in sorted(refs_by_runner.items()):
        print(f"  {runner}: " + ", ".join(f"{k} x{v}" for k, v in c.most_common()))
    print("refs not knowable, by reason:")
    for k, v in reasons.most_common():
        print(f"  {v:4d}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
