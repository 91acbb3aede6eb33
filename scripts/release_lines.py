#!/usr/bin/env python3
"""Refresh src/engine/releases.yaml: each bundled release's date and tagged commit.

Usage
-----
    python3 scripts/release_lines.py                       # refresh from PyPI, rewrite the table
    python3 scripts/release_lines.py --check               # exit 1 if the table is not current
    python3 scripts/release_lines.py --checkout vllm=/src/vllm --checkout sglang=/src/sglang
    python3 scripts/release_lines.py --pypi-json vllm=vllm.json --pypi-json sglang=sglang.json

The bundled releases are the schema files, `src/engine/<engine>/schemas/<VERSION>.json`
(SGLang and vLLM); the table lists exactly those, oldest first, per engine.
recipe-drift embeds the table at build time and uses it to place a nightly or dated
development image (`lmsysorg/sglang:nightly-dev-cu13-20260815-0abe6a85`,
`vllm/vllm-openai:nightly-<commit>`) between two bundled releases (docs/src/engines.md).

For each release:

- `date`: the UTC day of the release's first file upload on PyPI, from
  `https://pypi.org/pypi/<engine>/json` (`releases[VERSION][*].upload_time_iso_8601`,
  the earliest). The release's git tag is usually a day or so older; the table says
  when the release was published, which is what a nightly dated after it can contain.
- `commit`: the full commit the git tag `v<VERSION>` points at, read with
  `git -C DIR rev-parse v<VERSION>^{commit}` when `--checkout ENGINE=DIR` is given (a
  clone with tags). Without a checkout the commit already in the table is kept, and a
  new release gets `null` (unknown): a commit-only image tag then cannot be placed
  from the table, and recipe-drift says so.

Options
-------
    --table PATH              the table to rewrite (default src/engine/releases.yaml)
    --pypi-json ENGINE=FILE   read ENGINE's PyPI JSON from FILE instead of the network
    --checkout ENGINE=DIR     a git checkout of ENGINE with its release tags
    --check                   do not write; exit 1 (and print the new table) when it differs

Exit status: 0 done (or current under --check); 1 the table is not current (--check);
2 an error (a bundled release missing from PyPI, a tag missing from a checkout, a
network failure), with the cause on stderr. The output is deterministic: the same
inputs give the same bytes. Python 3.8+, standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINES = ("sglang", "vllm")
HEADER = """\
# Each bundled release's date and tagged commit, per engine, oldest first: the
# releases are the schema files of src/engine/<engine>/schemas/. Written by
# scripts/release_lines.py (do not edit by hand; run it after adding a release).
#
# date: the UTC day of the release's first upload to PyPI.
# commit: the commit its git tag v<version> points at; null when not known (the
#   script reads tags only from a checkout given with --checkout ENGINE=DIR).
#
# recipe-drift places a nightly or dated development image between two of these
# releases (docs/src/engines.md, "Nightly and dated images").
"""


def fail(msg):
    print(f"release_lines.py: {msg}", file=sys.stderr)
    sys.exit(2)


def version_key(v):
    """A sort key for the bundled versions (X.Y.Z, X.Y.Z.postN, X.Y.ZrcN)."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(?:(rc)(\d+)|\.post(\d+))?", v)
    if not m:
        fail(f"unexpected version {v!r}")
    major, minor, patch = int(m[1]), int(m[2]), int(m[3])
    if m[4]:
        return (major, minor, patch, -1, int(m[5]))
    if m[6]:
        return (major, minor, patch, 1, int(m[6]))
    return (major, minor, patch, 0, 0)


def bundled(engine):
    d = os.path.join(ROOT, "src", "engine", engine, "schemas")
    names = [f[: -len(".json")] for f in os.listdir(d) if f.endswith(".json")]
    return sorted(names, key=version_key)


def pypi(engine, files):
    if engine in files:
        with open(files[engine], encoding="utf-8") as f:
            return json.load(f)
    url = f"https://pypi.org/pypi/{engine}/json"
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return json.load(r)
    except OSError as e:
        fail(f"{url}: {e}")


def upload_day(data, engine, version):
    files = data.get("releases", {}).get(version) or []
    times = [f.get("upload_time_iso_8601") or f.get("upload_time") for f in files]
    times = [t for t in times if t]
    if not times:
        fail(f"{engine} {version} is bundled but has no upload on PyPI")
    return min(times)[:10]


def tagged_commit(engine, version, checkout):
    try:
        out = subprocess.run(
            ["git", "-C", checkout, "rev-parse", "--verify", "--quiet", f"v{version}^{{commit}}"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as e:
        fail(f"git: {e}")
    commit = out.stdout.strip()
    if out.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40}", commit):
        fail(f"{engine}: no tag v{version} in {checkout}")
    return commit


def read_table(path):
    """The commits already in the table ({engine: {version: commit}}); the table is
    our own plain YAML, read line by line."""
    known = {e: {} for e in ENGINES}
    if not os.path.exists(path):
        return known
    engine = version = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if m := re.fullmatch(r"([a-z]+):\s*\n?", line):
                engine = m[1]
            elif m := re.fullmatch(r"  - version: \"?([^\"\s]+)\"?\s*\n?", line):
                version = m[1]
            elif m := re.fullmatch(r"    commit: ([0-9a-f]{40})\s*\n?", line):
                if engine in known and version:
                    known[engine][version] = m[1]
    return known


def render(rows):
    out = [HEADER]
    for engine in ENGINES:
        out.append(f"{engine}:\n")
        for version, day, commit in rows[engine]:
            out.append(f'  - version: "{version}"\n')
            out.append(f'    date: "{day}"\n')
            out.append(f"    commit: {commit or 'null'}\n")
    return "".join(out)


def pairs(values, what):
    d = {}
    for v in values:
        engine, sep, rest = v.partition("=")
        if not sep or engine not in ENGINES or not rest:
            fail(f"{what} wants ENGINE=VALUE with ENGINE one of {', '.join(ENGINES)}: {v!r}")
        d[engine] = rest
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", default=os.path.join(ROOT, "src", "engine", "releases.yaml"))
    ap.add_argument("--pypi-json", action="append", default=[], metavar="ENGINE=FILE")
    ap.add_argument("--checkout", action="append", default=[], metavar="ENGINE=DIR")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    files = pairs(args.pypi_json, "--pypi-json")
    checkouts = pairs(args.checkout, "--checkout")
    known = read_table(args.table)
    rows = {}
    for engine in ENGINES:
        data = pypi(engine, files)
        rows[engine] = []
        for version in bundled(engine):
            day = upload_day(data, engine, version)
            if engine in checkouts:
                commit = tagged_commit(engine, version, checkouts[engine])
            else:
                commit = known[engine].get(version)
            rows[engine].append((version, day, commit))
    text = render(rows)
    old = open(args.table, encoding="utf-8").read() if os.path.exists(args.table) else None
    if args.check:
        if text != old:
            sys.stdout.write(text)
            print(f"release_lines.py: {args.table} is not current", file=sys.stderr)
            return 1
        return 0
    if text != old:
        with open(args.table, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
