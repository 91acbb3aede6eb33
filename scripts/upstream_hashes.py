#!/usr/bin/env python3
"""Hash the upstream functions the resolver rules cite, per release (dev-time, stdlib only).

Usage
-----
    python3 scripts/upstream_hashes.py --engine vllm --root /tmp/dump-cache/vllm 0.35.0 \
        --record src/engine/vllm/upstream_hashes.json --checklist checklist.md
    python3 scripts/upstream_hashes.py --engine sglang --unpacked DIR 0.5.24   # print only

A rule of `src/engine/ENGINE/rules.yaml` names the upstream code it follows in its
`reference`, e.g. "vllm engine/arg_utils.py EngineArgs.create_engine_config (0.17
L1804-1818)" or "sglang arg_groups/speculative_hook.py@v0.5.23 L12-40
_handle_eagle_family: ...". Every `PATH.py NAME` in a reference (an optional
`@vX` tag and `Lx-y` line range between them) is a citation: NAME (`f`, `Class`,
`Class.method`, `Class.field`, a module-level constant) defined in the file of the
release whose path ends with PATH (`ENGINE/PATH` first, then `sglang/srt/PATH`, then
the one file ending with `/PATH`). Its hash is the SHA-256 (12 hex digits) of the
definition's `ast.dump` with docstrings removed, so comments, blank lines and moved
line numbers do not count; `null` when the release has no such file or name.

`--record FILE` adds (or replaces) the release's hashes in FILE:

    {"python": "3.11", "releases": {"0.34.0": {"engine/arg_utils.py EngineArgs.create_engine_config": "…", …}}}

`--checklist FILE` writes (Markdown) the citations whose hash differs from the newest
recorded release older than VERSION, each with the rules that cite it: what a
reviewer reads before the new release's resolution is trusted. Exit status 0 either
way (a changed function is work, not an error); 2 on bad input.

`--root ROOT` is the release folder of scripts/vllm_release.py (ROOT/VERSION, fetched
and kept when missing); `--unpacked DIR` is an unpacked wheel or an installed
site-packages folder holding the package.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ENGINES = ("vllm", "sglang")

CITATION = re.compile(
    r"(?P<path>[A-Za-z_][\w/]*\.py)(?:@v[\w.+-]+)?(?:\s+L\d+(?:-\d+)?)?\s+"
    r"(?!L\d)(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"
)


def version_key(v: str):
    return tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.]|post", v))


# ----------------------------------------------------------------- the rules
def yaml_string(text: str, where: str) -> str:
    """The value of a one-line YAML scalar (double-quoted, single-quoted or plain)."""
    text = text.strip()
    if text.startswith('"'):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise SystemExit(f"{where}: cannot read the quoted reference: {exc}") from exc
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return text


def rule_references(rules_path: str) -> list[tuple[str, str]]:
    """(rule id, reference) of every rule of a rules.yaml, in file order; an entry of
    its `env:` table counts as the rule `env:NAME`."""
    out, rule, section = [], None, None
    with open(rules_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"^(\w+):", line)
            if m:
                section, rule = m.group(1), None
                continue
            m = re.match(r"^\s*- id:\s*(\S+)\s*$", line)
            if m:
                rule = m.group(1)
                continue
            m = re.match(r"^  ([A-Za-z_]\w*):\s*$", line)
            if m and section == "env":
                rule = f"env:{m.group(1)}"
                continue
            m = re.match(r"^\s*reference:\s*(.+)$", line)
            if m:
                if rule is None:
                    raise SystemExit(f"{rules_path}:{n}:1: a reference before any rule id")
                out.append((rule, yaml_string(m.group(1), f"{rules_path}:{n}")))
    return out


def citations(reference: str) -> list[str]:
    """Every `PATH.py NAME` a reference cites, as `PATH NAME`."""
    return [f"{m.group('path')} {m.group('name')}" for m in CITATION.finditer(reference)]


def cited_by(rules_path: str) -> dict[str, list[str]]:
    """Citation -> the ids of the rules citing it (file order)."""
    out: dict[str, list[str]] = {}
    for rule, ref in rule_references(rules_path):
        for c in citations(ref):
            ids = out.setdefault(c, [])
            if rule not in ids:
                ids.append(rule)
    return out


# ---------------------------------------------------------------- the source
def py_files(package_dir: str) -> list[str]:
    out = []
    for base, dirs, files in os.walk(package_dir):
        dirs.sort()
        out.extend(os.path.join(base, f) for f in sorted(files) if f.endswith(".py"))
    return out


def find_file(release: str, engine: str, path: str, files: list[str]) -> str | None:
    for guess in (os.path.join(release, engine, path), os.path.join(release, engine, "srt", path)):
        if os.path.isfile(guess):
            return guess
    ends = [f for f in files if f.endswith(os.sep + path)]
    return ends[0] if len(ends) == 1 else None


def strip_docstrings(node: ast.AST) -> ast.AST:
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = n.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                n.body = body[1:] or [ast.Pass()]
    return node


def defined(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The last statement of BODY that defines NAME (def, class, assignment)."""
    found = None
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.name == name:
            found = s
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == name:
            found = s
        elif isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets):
            found = s
    return found


def lookup(body: list[ast.stmt], qualname: str) -> ast.stmt | None:
    node = None
    for part in qualname.split("."):
        node = defined(body, part)
        if node is None:
            return None
        body = node.body if isinstance(node, ast.ClassDef) else []
    return node


def node_hash(tree: ast.Module, qualname: str) -> str | None:
    """The hash of QUALNAME in TREE; a name cited without its class (`create_x` for
    `EngineArgs.create_x`) is looked up in the module's classes when exactly one has it."""
    node = lookup(tree.body, qualname)
    if node is None:
        inside = [n for c in tree.body if isinstance(c, ast.ClassDef) for n in [lookup(c.body, qualname)] if n]
        node = inside[0] if len(inside) == 1 else None
    if node is None:
        return None
    return hashlib.sha256(ast.dump(strip_docstrings(node)).encode()).hexdigest()[:12]


def release_hashes(release: str, engine: str, cites: list[str]) -> dict[str, str | None]:
    if not os.path.isdir(os.path.join(release, engine)):
        raise SystemExit(f"{release} has no {engine}/ package")
    files = py_files(os.path.join(release, engine))
    trees: dict[str, ast.Module | None] = {}
    out = {}
    for c in sorted(cites):
        path, name = c.split(" ", 1)
        file = find_file(release, engine, path, files)
        if file is None:
            out[c] = None
            continue
        if file not in trees:
            with open(file, encoding="utf-8") as f:
                trees[file] = ast.parse(f.read(), file)
        out[c] = node_hash(trees[file], name)
    return out


# ----------------------------------------------------------------- the record
def load_record(path: str) -> dict:
    if not os.path.exists(path):
        return {"python": f"{sys.version_info[0]}.{sys.version_info[1]}", "releases": {}}
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except ValueError as exc:
            raise SystemExit(f"{path}:{exc.lineno}:{exc.colno}: {exc.msg}") from exc
    return data


def render_record(data: dict) -> str:
    lines = ["{", f'  "python": {json.dumps(data["python"])},', '  "releases": {']
    versions = sorted(data["releases"], key=version_key)
    for i, v in enumerate(versions):
        sep = "," if i + 1 < len(versions) else ""
        lines.append(f"    {json.dumps(v)}: {json.dumps(data['releases'][v], sort_keys=True)}{sep}")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def previous(data: dict, version: str) -> str | None:
    older = [v for v in data["releases"] if version_key(v) < version_key(version)]
    return max(older, key=version_key) if older else None


def checklist(engine: str, version: str, before: str | None, old: dict, new: dict,
              by: dict[str, list[str]]) -> str:
    head = f"### {engine} {version}: cited upstream code"
    if before is None:
        return f"{head}\n\nNo older release is recorded; nothing to compare.\n"
    changed = [c for c in sorted(new) if old.get(c, "absent") != new[c]]
    if not changed:
        return f"{head}\n\nNo function the rules cite changed since {before}.\n"
    out = [head, "", f"Changed since {before} (review each rule against {version}'s source):", ""]
    for c in changed:
        was, now = old.get(c, "absent"), new[c]
        what = "removed" if now is None else "added" if was in (None, "absent") else "changed"
        rules = ", ".join(f"`{r}`" for r in by.get(c, []))
        out.append(f"- [ ] `{c}` {what}: rules {rules}")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version", metavar="VERSION")
    ap.add_argument("--engine", choices=ENGINES, required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--root", help="release folder of scripts/vllm_release.py (ROOT/VERSION)")
    src.add_argument("--unpacked", help="an unpacked wheel or site-packages folder holding the package")
    ap.add_argument("--rules", help="the rules file (default: src/engine/ENGINE/rules.yaml)")
    ap.add_argument("--record", help="add the release's hashes to this file (created when missing)")
    ap.add_argument("--checklist", help="write the Markdown checklist of changed citations here")
    args = ap.parse_args(argv)
    rules = args.rules or os.path.join(REPO, "src", "engine", args.engine, "rules.yaml")
    by = cited_by(rules)
    if args.root:
        sys.path.insert(0, HERE)
        import vllm_release as _rel

        release = _rel.release_dir(args.root, args.version, args.engine)
    else:
        release = os.path.abspath(args.unpacked)
    new = release_hashes(release, args.engine, list(by))
    data = load_record(args.record) if args.record else {"python": "", "releases": {}}
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if data["releases"] and data["python"] != python:
        raise SystemExit(f"{args.record}: recorded with Python {data['python']}, this is {python} "
                         "(ast.dump differs between versions): run it with Python " + data["python"])
    before = previous(data, args.version)
    text = checklist(args.engine, args.version, before, data["releases"].get(before, {}), new, by)
    if args.checklist:
        with open(args.checklist, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.record:
        data["releases"][args.version] = new
        with open(args.record, "w", encoding="utf-8") as f:
            f.write(render_record(data))
    found = sum(1 for h in new.values() if h is not None)
    print(f"{args.engine} {args.version}: {found} of {len(new)} cited definitions found", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            sys.exit(2)
        raise
