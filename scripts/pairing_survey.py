#!/usr/bin/env python3
"""Survey of zero-config pairing on real corpora (a maintainer's script, not a test).

Runs `recipe-drift check --docs-root DOCS --inferencex ROOT --format json` once and
prints a table: docs deployments and recipe deployments seen, pairs (and how many
were made by the nearest shape), pair statuses, findings by kind and severity,
coverage by kind, skipped inputs by reason, and every error-severity finding (pair,
key, both values) for a maintainer to judge. Standard library only.

    python3 scripts/pairing_survey.py --docs /tmp/cookbook-real --inferencex /tmp/ix \
        [--recipes /tmp/vllm-recipes] [--bin target/release/recipe-drift] [--offline] \
        [--check-arg=--js-total-time-limit=120] [--json-out REPORT.json] [FILES...]

Never commit the corpora: they are upstream files.
"""

import argparse
import collections
import json
import subprocess
import sys
import time


def side_id(kind: str) -> str:
    """The rule id of a side finding's kind (the table is small and stable)."""
    return {"broken-continuation": "RD015"}.get(kind, "RD???")


def shown(side: dict) -> str:
    """A finding side's value as the table prints it: the value, or
    `unknown (reason...)` when the text cannot decide it."""
    if side.get("state") == "unknown":
        return f"unknown ({str(side.get('reason', ''))[:80]})"
    return str(side.get("value"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", help="the docs folder (cookbook/ and src/snippets/)")
    ap.add_argument("--inferencex", required=True, help="an InferenceX checkout")
    ap.add_argument("--bin", default="target/release/recipe-drift")
    ap.add_argument("--offline", action="store_true", help="no checkpoint facts (no network)")
    ap.add_argument("--recipes", help="a vllm-project/recipes checkout (--recipes-root)")
    ap.add_argument(
        "--check-arg",
        action="append",
        default=[],
        help="an argument passed on to check (repeat): --check-arg=--js-total-time-limit=120",
    )
    ap.add_argument("--json-out", help="also write check's JSON report here (for a closer reading)")
    ap.add_argument("files", nargs="*", help="limit the docs side to these files")
    a = ap.parse_args()
    if not a.docs and not a.recipes:
        ap.error("give --docs, --recipes or both")
    roots = [(r, flag) for r, flag in ((a.docs, "--docs-root"), (a.recipes, "--recipes-root")) if r]
    cmd = [a.bin, "--root", a.inferencex]
    for r, _ in roots:
        cmd += ["--root", r]
    cmd += ["check", "--inferencex", a.inferencex, "--format", "json", "--no-progress"]
    for r, flag in roots:
        cmd += [flag, r]
    if a.offline:
        cmd.append("--no-checkpoint-facts")
    cmd += a.check_arg
    cmd += a.files
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1, 2) or not p.stdout.strip():
        sys.stderr.write(p.stderr)
        return 2
    doc = json.loads(p.stdout)
    if a.json_out:
        with open(a.json_out, "w", encoding="utf-8") as f:
            f.write(p.stdout)
    links = doc["links"]
    pairs = [l for l in links if "pair" in l]
    cov = doc.get("coverage", [])
    paired_docs = {json.dumps(l["pair"]["docs"], sort_keys=True) for l in pairs}
    unpaired_docs = [c for c in cov if c["kind"] == "docs-unpaired"]
    recipe_points = sum(len(l["pair"]["recipe"].get("points", [])) for l in pairs)
    rows = [
        ("exit code", p.returncode),
        ("wall time (s)", f"{wall:.1f}"),
        ("docs deployments paired", len(paired_docs)),
        ("docs deployments unpaired (RD013)", len(unpaired_docs)),
        ("recipe deployments unpaired (RD014)", sum(1 for c in cov if c["kind"] == "recipe-unpaired")),
        ("recipe matrix points in pairs", recipe_points),
        ("pairs", len(pairs)),
        ("pairs by the nearest shape", sum(1 for l in pairs if l["pair"].get("nearest_only"))),
    ]
    status = collections.Counter(l["status"] for l in links)
    for s, n in sorted(status.items()):
        rows.append((f"links with status {s}", n))
    kinds = collections.Counter()
    for l in pairs:
        for f in l["findings"]:
            kinds[(f["id"], f["kind"], f["severity"])] += 1
        # Findings about a side's command as a whole: a startup error (RD006)
        # or a defect of its text (RD015 broken-continuation, ...).
        for side in ("docs", "recipe"):
            kinds[("RD006", "startup-error", "error")] += len(l[side].get("startup_errors", []))
            for d in l[side].get("defects", []):
                kinds[(side_id(d["kind"]), d["kind"], "error")] += 1
    # The run's findings that are no pair's (a generator cut at the state
    # budget, ...).
    for f in doc.get("findings", []):
        kinds[(f["id"], f["kind"], f["severity"])] += 1
    for (i, k, s), n in sorted(kinds.items()):
        if n:
            rows.append((f"findings {i} {k} ({s})", n))
    reasons = collections.Counter()
    for l in links:
        if l["status"] == "skipped":
            r = l["reason"]
            reasons[r.split(":")[0] if r.startswith("not compared") else r.split(" (")[0]] += 1
    for r, n in sorted(reasons.items()):
        rows.append((f"skipped: {r}", n))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    print()
    print("error findings (pair | key | docs | recipe):")
    for l in pairs:
        d = l["pair"]["docs"]
        sel = ",".join(f"{k}={v}" for k, v in d.get("selection", []))
        where = f"{d['file'].split('/')[-1]} {sel} ~ {l['pair']['recipe']['entry']}"
        if l["pair"].get("nearest_only"):
            where += " (nearest: " + ",".join(x["key"] for x in l["pair"]["nearest_only"]) + ")"
        for side in ("docs", "recipe"):
            for e in l[side].get("startup_errors", []):
                print(f"  {where} | {side} would not start | {e['message'][:100]}")
            for d in l[side].get("defects", []):
                print(f"  {where} | {side} {d['kind']} at line {d['span']['line']} | {d['message'][:100]}")
        for f in l["findings"]:
            if f["severity"] == "error":
                print(f"  {where} | {f['key']} | {shown(f['docs'])} | {shown(f['recipe'])}")
    for l in links:
        if l["status"] == "error":
            print(f"  input error: {l['name']}: {l['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
