#!/usr/bin/env python3
"""List the SGLang and vLLM releases on PyPI newer than the newest bundled one (stdlib only).

Usage
-----
    python3 scripts/new_releases.py [--github-output FILE] [--max N]

For each engine it reads PyPI's JSON API (`$PYPI_JSON_URL/PACKAGE/json`, default
https://pypi.org/pypi) and lists, oldest first, every release that

  * is newer than the newest schema in `src/engine/ENGINE/schemas/`,
  * is final (`X.Y.Z` or `X.Y.Z.postN`: no rc, dev, alpha or beta),
  * has a wheel that is not yanked (the dump scripts read the wheel).

At most N per engine (default 3, the oldest first: the rest come once that pull
request is merged and they are newer than the newest bundled release).
It prints `ENGINE: V1 V2` per engine; with `--github-output FILE` it also appends
`vllm=V1 V2`, `sglang=...` and `any=true|false` to FILE (the step outputs of the
release workflow, .github/workflows/engine-release.yml). Exit status 2 on an answer
that is not PyPI's JSON, with the URL and the cause.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ENGINES = {"vllm": "vllm", "sglang": "sglang"}  # engine -> PyPI package
FINAL = re.compile(r"^(\d+(?:\.\d+)*)(?:\.post(\d+))?$")


def version_key(v: str) -> tuple:
    m = FINAL.match(v)
    if not m:
        raise ValueError(v)
    return tuple(int(p) for p in m.group(1).split(".")) + (int(m.group(2) or -1),)


def bundled(engine: str, repo: str = REPO) -> list[str]:
    folder = os.path.join(repo, "src", "engine", engine, "schemas")
    return sorted((f[:-5] for f in os.listdir(folder) if f.endswith(".json")), key=version_key)


def pypi_releases(package: str, base: str) -> dict:
    url = f"{base.rstrip('/')}/{package}/json"
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:
            body = resp.read()
    except (urllib.error.URLError, OSError) as exc:
        raise SystemExit(f"{url}: {exc}") from exc
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise SystemExit(f"{url}: not JSON: {exc}") from exc
    releases = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(releases, dict):
        raise SystemExit(f"{url}: no `releases` object (not PyPI's JSON API)")
    return releases


def has_wheel(files) -> bool:
    return isinstance(files, list) and any(
        isinstance(f, dict) and f.get("packagetype") == "bdist_wheel" and not f.get("yanked", False)
        for f in files
    )


def newer(releases: dict, newest: str, limit: int) -> list[str]:
    found = [v for v, files in releases.items()
             if FINAL.match(v) and version_key(v) > version_key(newest) and has_wheel(files)]
    return sorted(found, key=version_key)[:limit]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--github-output", metavar="FILE", help="append the step outputs to FILE")
    ap.add_argument("--max", type=int, default=3, help="at most this many releases per engine")
    ap.add_argument("--repo", default=REPO, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    base = os.environ.get("PYPI_JSON_URL", "https://pypi.org/pypi")
    found = {}
    for engine, package in ENGINES.items():
        have = bundled(engine, args.repo)
        found[engine] = newer(pypi_releases(package, base), have[-1], args.max)
        print(f"{engine}: {' '.join(found[engine]) or '(none)'} (newest bundled {have[-1]})")
    if args.github_output:
        with open(args.github_output, "a", encoding="utf-8") as f:
            for engine, versions in found.items():
                f.write(f"{engine}={' '.join(versions)}\n")
            f.write(f"any={'true' if any(found.values()) else 'false'}\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            sys.exit(2)
        raise
