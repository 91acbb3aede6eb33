#!/usr/bin/env python3
"""The vLLM recipes site's own JavaScript as the oracle of recipe-drift's
`pd_cluster` composition (a maintainer's script, not a test; needs node and PyYAML).

For every recipe of a vllm-project/recipes checkout that lists `pd_cluster`, runs
`recipe-drift extract RECIPE --all-selections --format json`, then calls the site's
`resolveCommand` (src/lib/command-synthesis.js, copied to a temporary folder, never
into this repository) with each pool recipe-drift composed (the same variant,
hardware, features and modes, and the pool's mode and nodes) and compares the pool's
command text and environment byte for byte. Prints the counts and the first
differences.

    python3 scripts/recipes_site_pd_oracle.py --recipes /tmp/vr \
        [--bin target/debug/recipe-drift] [--hardware-scope verified|offered]
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ORACLE = r"""
import { resolveCommand } from "./command-synthesis.mjs";
import fs from "fs";
const data = JSON.parse(fs.readFileSync("data.json", "utf8"));
const ours = JSON.parse(fs.readFileSync("ours.json", "utf8"));
let same = 0, differ = 0;
for (const [file, doc] of Object.entries(ours)) {
  for (const s of doc.selections.filter((x) => x.role)) {
    const feats = s.features.map((f) => f.name);
    const modes = Object.fromEntries(s.features.filter((f) => f.mode).map((f) => [f.name, f.mode]));
    const pd = { prefill: { nodes: 1, rank: 0, parallelism: "tp" }, decode: { nodes: 1, rank: 0, parallelism: "tp" } };
    pd[s.pool.role] = { nodes: s.pool.nodes, rank: 0, parallelism: s.pool.parallelism };
    const r = resolveCommand(data.recipes[file], s.variant, "pd_cluster", s.hardware, feats,
      data.strategies, data.taxonomy, [], 1, pd, modes, null, null)[s.pool.role];
    const env = Object.entries(r.env).map(([k, v]) => [k, String(v)]);
    if (r.command === s.command && JSON.stringify(env) === JSON.stringify(s.env)) { same++; continue; }
    if (++differ <= 5) console.log("DIFF", file, s.hardware, s.variant, JSON.stringify(s.pool),
      "\nsite:", r.command, JSON.stringify(env), "\nours:", s.command, JSON.stringify(s.env));
  }
}
console.log(`pd_cluster pool commands: ${same} the same as the site's resolveCommand, ${differ} differ`);
process.exit(differ ? 1 : 0);
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recipes", required=True, help="a vllm-project/recipes checkout")
    ap.add_argument("--bin", default="target/debug/recipe-drift")
    ap.add_argument("--hardware-scope", default="verified")
    a = ap.parse_args()
    files = sorted(
        f for f in glob.glob(f"{a.recipes}/models/**/*.yaml", recursive=True)
        if "pd_cluster" in open(f, encoding="utf-8").read()
    )
    ours, failed = {}, []
    for f in files:
        p = subprocess.run(
            [a.bin, "--root", a.recipes, "extract", f, "--all-selections",
             "--hardware-scope", a.hardware_scope, "--format", "json"],
            capture_output=True, text=True)
        if p.returncode != 0:
            failed.append((f, p.stderr.strip()[:200]))
            continue
        ours[f] = json.loads(p.stdout)
    print(f"recipes listing pd_cluster: {len(files)}, composed: {len(ours)}, failed: {len(failed)}")
    for f, e in failed:
        print("  failed:", f, e)
    strategies = {}
    for f in sorted(glob.glob(f"{a.recipes}/strategies/*.yaml")):
        d = yaml.safe_load(open(f, encoding="utf-8"))
        strategies[d.get("name") or os.path.basename(f)[:-5]] = d
    data = {
        "taxonomy": yaml.safe_load(open(f"{a.recipes}/taxonomy.yaml", encoding="utf-8")),
        "strategies": strategies,
        "recipes": {f: yaml.safe_load(open(f, encoding="utf-8")) for f in ours},
    }
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(f"{a.recipes}/src/lib/command-synthesis.js", f"{d}/command-synthesis.mjs")
        for name, value in (("data.json", data), ("ours.json", ours)):
            with open(f"{d}/{name}", "w", encoding="utf-8") as out:
                json.dump(value, out, default=str)
        with open(f"{d}/oracle.mjs", "w", encoding="utf-8") as out:
            out.write(ORACLE)
        return subprocess.run(["node", "oracle.mjs"], cwd=d).returncode


if __name__ == "__main__":
    sys.exit(main())
