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

Development commits
-------------------
    python3 scripts/release_lines.py --place-commits --checkout vllm=/src/vllm \
        [--commits-from INFERENCEX] [--commit vllm=5e35a6f4f9bb ...]

A nightly image that names only a commit (`vllm/vllm-openai:nightly-<commit>`) is
placed from the engine's history: for each commit (given with `--commit`, or every
commit-only development tag of the images in `INFERENCEX`'s master configs,
`configs/*.yaml` and `.github/configs/*.yaml`), the checkout gives its full commit,
the UTC day it was committed and the newest bundled release whose tag `v<version>`
is its ancestor (`git merge-base --is-ancestor`). The rows are added to
src/engine/dev_commits.yaml (`--dev-table PATH`); rows already there are kept. A
commit the checkout does not hold is an error (exit 2): fetch the history first.
With `--skip-missing` such a commit (a fork's, say) is named on stdout as not
placed and left out, and the others are placed (the engine-release workflow's
`development-commits` job runs it so).

Options
-------
    --table PATH              the table to rewrite (default src/engine/releases.yaml)
    --pypi-json ENGINE=FILE   read ENGINE's PyPI JSON from FILE instead of the network
    --checkout ENGINE=DIR     a git checkout of ENGINE with its release tags
    --check                   do not write; exit 1 (and print the new table) when it differs
    --place-commits           place development commits (above) instead of refreshing releases
    --commit ENGINE=COMMIT    a commit to place (repeatable)
    --commits-from DIR        place the commit-only development tags of DIR's master configs
    --dev-table PATH          the development-commit table (default src/engine/dev_commits.yaml)
    --skip-missing            name a commit the checkout lacks as not placed, and go on

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


DEV_HEADER = """\
# Development commits that nightly images name by commit alone
# (`vllm/vllm-openai:nightly-<commit>`), per engine, with the bundled release
# each follows in the engine's git history. Written by
# `scripts/release_lines.py --place-commits` from a checkout with tags (the
# engine-release workflow runs it on GitHub); do not edit by hand.
#
# commit: the full commit.
# date: the UTC day it was committed.
# after: the newest bundled release whose tag `v<version>` is an ancestor of the
#   commit (null: none is; it is older than every bundled release).
#
# recipe-drift places such an image after `after` (docs/src/engines.md,
# "Nightly and dated images"); a commit this table does not hold stays unplaced.
"""

# The image repositories of each engine (a prefix of the image name).
IMAGE_ENGINES = (("vllm/vllm-openai", "vllm"), ("lmsysorg/sglang", "sglang"), ("rocm/sgl-dev", "sglang"))


def dev_commit_of(tag):
    """The commit a development tag names when it names no date (the rule of
    src/engine/release_lines.rs `dev_tag`: a word `nightly` or `dev`, a word of
    7 to 40 hex digits that are not all digits); None otherwise."""
    words = tag.lower().replace("_", "-").split("-")
    if "nightly" not in words and "dev" not in words:
        return None
    commit = None
    for w in words:
        if w.isdigit() and len(w) in (4, 8):
            return None  # dated: the date places it
        if commit is None and 7 <= len(w) <= 40 and not w.isdigit() and re.fullmatch(r"[0-9a-f]+", w):
            commit = w
    return commit


def commits_from(root):
    """(engine, commit) of every commit-only development image tag in the master
    configs under ROOT, sorted."""
    found = set()
    for sub in ("configs", os.path.join(".github", "configs")):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith((".yaml", ".yml")):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for line in f:
                    m = re.match(r"\s*image:\s*[\"']?([^\s\"'#]+)", line)
                    if not m or ":" not in m[1]:
                        continue
                    image, _, tag = m[1].rpartition(":")
                    image = image.split("/", 1)[1] if image.count("/") > 1 else image
                    engine = next((e for p, e in IMAGE_ENGINES if image.startswith(p)), None)
                    commit = dev_commit_of(tag) if engine else None
                    if commit:
                        found.add((engine, commit))
    return sorted(found)


def git(checkout, *argv):
    try:
        return subprocess.run(["git", "-C", checkout, *argv], capture_output=True, text=True, check=False)
    except OSError as e:
        fail(f"git: {e}")


def full_commit(checkout, commit):
    """The full commit CHECKOUT holds for COMMIT, or None."""
    out = git(checkout, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    full = out.stdout.strip()
    return full if out.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", full) else None


def place_commit(engine, commit, checkout):
    """(full commit, UTC day, the newest bundled release it follows or None)."""
    full = full_commit(checkout, commit)
    if full is None:
        fail(f"{engine}: no commit {commit} in {checkout} (fetch its history first)")
    out = git(checkout, "show", "-s", "--format=%ct", full)
    try:
        import datetime

        day = datetime.datetime.fromtimestamp(int(out.stdout.strip()), datetime.timezone.utc).strftime("%Y-%m-%d")
    except ValueError:
        fail(f"{engine}: cannot read the commit time of {full}")
    after = None
    for version in bundled(engine):
        tag = tagged_commit(engine, version, checkout)
        if git(checkout, "merge-base", "--is-ancestor", tag, full).returncode == 0:
            after = version
    return full, day, after


def read_dev_table(path):
    """{engine: {commit: (day, after)}} of our own plain YAML, read line by line."""
    rows = {e: {} for e in ENGINES}
    if not os.path.exists(path):
        return rows
    engine = commit = day = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if m := re.fullmatch(r"([a-z]+):.*\n?", line):
                engine = m[1]
            elif m := re.fullmatch(r"  - commit: ([0-9a-f]{40})\s*\n?", line):
                commit = m[1]
            elif m := re.fullmatch(r"    date: \"?([0-9-]+)\"?\s*\n?", line):
                day = m[1]
            elif m := re.fullmatch(r"    after: (?:\"([^\"]+)\"|null)\s*\n?", line):
                if engine in rows and commit:
                    rows[engine][commit] = (day, m[1])
    return rows


def render_dev(rows):
    out = [DEV_HEADER]
    for engine in ENGINES:
        if not rows[engine]:
            out.append(f"{engine}: []\n")
            continue
        out.append(f"{engine}:\n")
        for commit in sorted(rows[engine]):
            day, after = rows[engine][commit]
            out.append(f"  - commit: {commit}\n")
            out.append(f'    date: "{day}"\n')
            out.append(f'    after: "{after}"\n' if after else "    after: null\n")
    return "".join(out)


def place_commits(args, checkouts):
    wanted = [(e, c) for e, c in (v.partition("=")[::2] for v in args.commit)]
    for engine, commit in wanted:
        if engine not in ENGINES or not re.fullmatch(r"[0-9a-f]{7,40}", commit):
            fail(f"--commit wants ENGINE=COMMIT (7 to 40 hex digits): {engine}={commit}")
    if args.commits_from:
        wanted += commits_from(args.commits_from)
    rows = read_dev_table(args.dev_table)
    for engine, commit in sorted(set(wanted)):
        if any(c.startswith(commit) for c in rows[engine]):
            continue
        if engine not in checkouts:
            fail(f"{engine}: placing commit {commit} needs --checkout {engine}=DIR")
        if args.skip_missing and full_commit(checkouts[engine], commit) is None:
            print(f"not placed: {engine} {commit} (not in {checkouts[engine]})")
            continue
        full, day, after = place_commit(engine, commit, checkouts[engine])
        rows[engine][full] = (day, after)
    text = render_dev(rows)
    old = open(args.dev_table, encoding="utf-8").read() if os.path.exists(args.dev_table) else None
    if text != old:
        with open(args.dev_table, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", default=os.path.join(ROOT, "src", "engine", "releases.yaml"))
    ap.add_argument("--pypi-json", action="append", default=[], metavar="ENGINE=FILE")
    ap.add_argument("--checkout", action="append", default=[], metavar="ENGINE=DIR")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--place-commits", action="store_true")
    ap.add_argument("--commit", action="append", default=[], metavar="ENGINE=COMMIT")
    ap.add_argument("--commits-from", metavar="DIR")
    ap.add_argument("--dev-table", default=os.path.join(ROOT, "src", "engine", "dev_commits.yaml"))
    ap.add_argument("--skip-missing", action="store_true")
    args = ap.parse_args()
    files = pairs(args.pypi_json, "--pypi-json")
    checkouts = pairs(args.checkout, "--checkout")
    if args.place_commits:
        return place_commits(args, checkouts)
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
