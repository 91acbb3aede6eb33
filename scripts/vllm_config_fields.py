#!/usr/bin/env python3
"""Tabulate the field types of vLLM's config classes per release (dev-time tool).

Usage
-----
    python3 scripts/vllm_config_fields.py --root /tmp/vllm-releases --add src/engine/vllm/config_fields.json --version 0.34.0
    python3 scripts/vllm_config_fields.py --root ROOT > config_fields.json   # every release under ROOT

`--root ROOT` is the folder layout of scripts/vllm_release.py, shared with
scripts/vllm_schema.py: ROOT/VERSION is the unpacked wheel (its `vllm/config/*.py`
are read), fetched and kept when a `--version` given is missing. `--add TABLE`
adds the `--version` releases to an existing table in place: a release's entry
depends on its own files only, so adding one needs only its wheel. Python 3.11,
standard library only. vLLM's code is never imported or executed: the files are
parsed with `ast`.

What is read, per class decorated with `@config` / `@config(...)` / `@dataclass`:
every annotated class-level field (`name: TYPE [= default]`, not ClassVar /
InitVar), with its annotation reduced to one of

    int, float, bool, str         the plain types (`X | None` / `Optional[X]`: nullable)
    literal   [values]            `Literal[...]`, also through module-level aliases
    enum      names, values       a class of the same files deriving from an Enum
    (absent)                      anything else (dicts, lists, unions, classes): not checked

and whether a `@field_validator(NAME, mode="before")` rewrites the input first
(`before: true`: then only enum names, in any case, and enum values are
accepted for an enum, and the other kinds are not checked).

Output (JSON, sorted keys): {"classes": {ID: {field: spec}}, "releases":
{VERSION: {Class: ID}}, "names": {VERSION: {Class: [field...]}}}; identical field
tables are stored once. `names` lists, per class without base classes, every field
a keyword argument may set (typed or not; not ClassVar/InitVar/`init=False`): the
config classes forbid any other key. Only releases read by this version of the
script have `names` (0.33.0 on); a release without them is not checked for
unknown keys.
"""

import ast
import hashlib
import json
import sys
from pathlib import Path

PLAIN = {"int": "int", "float": "float", "bool": "bool", "str": "str",
         "PositiveInt": "int", "NonNegativeInt": "int", "PositiveFloat": "float",
         "NonNegativeFloat": "float"}


def name_of(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def union_parts(node):
    """The members of `A | B`, `Optional[A]`, `Union[A, B]`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union_parts(node.left) + union_parts(node.right)
    if isinstance(node, ast.Subscript) and name_of(node.value) in ("Optional", "Union"):
        inner = node.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        parts = [p for i in items for p in union_parts(i)]
        if name_of(node.value) == "Optional":
            parts.append(ast.Constant(None))
        return parts
    if isinstance(node, ast.Subscript) and name_of(node.value) == "Annotated":
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
        return union_parts(first)
    return [node]


def literal_values(node, aliases):
    if isinstance(node, ast.Subscript) and name_of(node.value) == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out = []
        for i in items:
            if isinstance(i, ast.Constant):
                out.append(i.value)
            else:
                sub = literal_values(i, aliases)
                if sub is None:
                    return None
                out.extend(sub)
        return out
    n = name_of(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if n in aliases:
        return literal_values(aliases[n], aliases)
    return None


def spec_of(ann, aliases, enums):
    parts = union_parts(ann)
    nullable = any(isinstance(p, ast.Constant) and p.value is None for p in parts)
    rest = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
    if len(rest) != 1:
        return None
    t = rest[0]
    lit = literal_values(t, aliases)
    if lit is not None:
        return {"type": "literal", "values": lit, "nullable": nullable}
    n = name_of(t) if isinstance(t, (ast.Name, ast.Attribute)) else None
    if n in PLAIN:
        return {"type": PLAIN[n], "nullable": nullable}
    if n in enums:
        names, values = enums[n]
        return {"type": "enum", "names": names, "values": values, "nullable": nullable}
    if n in aliases:
        return spec_of(aliases[n], aliases, enums)
    return None


def is_config(cls):
    for d in cls.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if name_of(target) in ("config", "dataclass"):
            return True
    return False


def init_field_names(cls):
    """Every field a keyword argument may set (annotated, not ClassVar/InitVar, not
    `field(init=False)`), sorted: pydantic refuses any other key (`extra="forbid"`)."""
    out = []
    for s in cls.body:
        if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)):
            continue
        head = s.annotation.value if isinstance(s.annotation, ast.Subscript) else s.annotation
        if name_of(head) in ("ClassVar", "InitVar"):
            continue
        if isinstance(s.value, ast.Call) and any(
            k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in s.value.keywords
        ):
            continue
        out.append(s.target.id)
    return sorted(out)


def read_release(folder):
    trees = [ast.parse(p.read_text(), str(p)) for p in sorted(folder.glob("*.py"))]
    aliases, enums, classes = {}, {}, []
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                aliases[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                if name_of(node.annotation) == "TypeAlias":
                    aliases[node.target.id] = node.value
            elif isinstance(node, ast.ClassDef):
                bases = {name_of(b) for b in node.bases}
                if bases & {"Enum", "IntEnum", "StrEnum"}:
                    names, values = [], []
                    for s in node.body:
                        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and s.targets[0].id.isupper():
                            names.append(s.targets[0].id)
                            v = s.value
                            values.append(v.value if isinstance(v, ast.Constant) and isinstance(v.value, (int, str)) else None)
                    enums[node.name] = (names, values)
                elif is_config(node):
                    classes.append(node)
    out, names = {}, {}
    for cls in classes:
        if not cls.bases:
            names[cls.name] = init_field_names(cls)
        before = set()
        for s in cls.body:
            if isinstance(s, ast.FunctionDef):
                for d in s.decorator_list:
                    if isinstance(d, ast.Call) and name_of(d.func) == "field_validator":
                        mode = next((k.value.value for k in d.keywords if k.arg == "mode"), "after")
                        if mode in ("before", "plain"):
                            before.update(a.value for a in d.args if isinstance(a, ast.Constant))
        fields = {}
        for s in cls.body:
            if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)):
                continue
            head = s.annotation.value if isinstance(s.annotation, ast.Subscript) else s.annotation
            if name_of(head) in ("ClassVar", "InitVar"):
                continue
            spec = spec_of(s.annotation, aliases, enums)
            if spec is None:
                continue
            if s.target.id in before or "*" in before:
                spec["before"] = True
            fields[s.target.id] = spec
        out[cls.name] = fields
    return out, names


def config_folder(root, version):
    """ROOT/VERSION/vllm/config (the layout of scripts/vllm_release.py)."""
    return root / version / "vllm" / "config"


def write(classes, releases, names, out):
    # One class table or release per line (small diffs between regenerations).
    used = {k for rel in releases.values() for k in rel.values()}
    out.write('{"classes": {\n')
    out.write(",\n".join(f"{json.dumps(k)}: {json.dumps(classes[k], sort_keys=True)}" for k in sorted(used)))
    out.write('\n}, "releases": {\n')
    out.write(",\n".join(f"{json.dumps(k)}: {json.dumps(releases[k], sort_keys=True)}" for k in sorted(releases, key=lambda v: tuple(int(x) for x in v.split(".")))))
    out.write("\n}, \"names\": {\n")
    out.write(",\n".join(f"{json.dumps(k)}: {json.dumps(names[k], sort_keys=True)}" for k in sorted(names, key=lambda v: tuple(int(x) for x in v.split(".")))))
    out.write("\n}}\n")


def main(argv=None):
    import argparse
    import io

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="release folder of scripts/vllm_release.py (ROOT/VERSION: the unpacked wheel, fetched and kept when missing)")
    ap.add_argument("--add", metavar="TABLE", help="add VERSIONs to this table (rewritten in place)")
    ap.add_argument("--version", dest="versions", action="append", default=[], metavar="VERSION",
                    help="a release to read (repeatable); all folders under ROOT when omitted")
    args = ap.parse_args(argv)
    root = Path(args.root)
    classes, releases, all_names = {}, {}, {}
    if args.add:
        if not args.versions:
            ap.error("--add needs --version VERSION")
        table = json.loads(Path(args.add).read_text())
        classes, releases = table["classes"], table["releases"]
        all_names = table.get("names", {})
    versions = args.versions or sorted(p.name for p in root.iterdir() if p.is_dir() and p.name[0].isdigit()
                                           and not p.name.endswith(".partial"))
    for version in versions:
        if not (root / version).is_dir():
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            import vllm_release

            vllm_release.release_dir(str(root), version)
        rel = {}
        fields_of, names_of = read_release(config_folder(root, version))
        all_names[version] = names_of
        for name, fields in fields_of.items():
            text = json.dumps(fields, sort_keys=True)
            key = name + "-" + hashlib.sha256(text.encode()).hexdigest()[:10]
            classes[key] = fields
            rel[name] = key
        releases[version] = rel
    buf = io.StringIO()
    write(classes, releases, all_names, buf)
    if args.add:
        Path(args.add).write_text(buf.getvalue())
    else:
        sys.stdout.write(buf.getvalue())


if __name__ == "__main__":
    main()
