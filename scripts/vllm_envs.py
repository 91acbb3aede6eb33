#!/usr/bin/env python3
"""Tabulate the environment variables each vLLM release reads (dev-time tool).

Usage
-----
    python3 scripts/vllm_envs.py --root /tmp/vllm-releases --add src/engine/vllm/envs.json 0.34.0
    python3 scripts/vllm_envs.py --root ROOT > envs.json          # every release under ROOT

`--add TABLE VERSION...` adds releases to an existing table (rewritten in place; a
release the table already holds is replaced, so a rerun updates it): the
per-release facts of the table's releases are rebuilt from the table itself (newest
shape, `changes` runs, deprecation `since`; the script first checks that this rebuild
gives the table back), so a new release needs only its own wheel.
`--root ROOT` is the folder layout of scripts/vllm_release.py, shared with
scripts/vllm_schema.py: ROOT/<VERSION>/vllm/envs.py in the unpacked wheel, fetched
(and kept) when a VERSION given is missing; without VERSION arguments every
ROOT/<VERSION>/vllm/envs.py found is used.
Python 3.11, standard library only.

vLLM's code is never imported or executed: `envs.py` is parsed with `ast`.
The table is the module-level dict literal

    environment_variables: dict[str, Callable[[], Any]] = {"VLLM_X": lambda: ..., ...}

(the only source of `vllm.envs.__getattr__`, `__dir__` and `is_set` in every
bundled release; the script fails if the dict is missing, built from `**`
splats, or later mutated with `environment_variables[...] = ...`/`.update()`).
Every key is one entry of the output, including the non-VLLM_ keys the dict
contains (MAX_JOBS, CUDA_HOME, LOCAL_RANK, ...).

Output (JSON, sorted keys, one `env` entry per line, trailing newline):

    {"generator": "scripts/vllm_envs.py",
     "releases": ["0.17.0", ...],                      # ascending versions
     "env": {"NAME": {"releases": [...],               # releases defining NAME
                      "type": ..., "default": ..., ...}}}

Per entry, describing the NEWEST release that defines NAME:
  type       bool | int | float | str | list | json | enum | enum_list | other
             (list = comma-split string list; json = parsed JSON / JSON file;
             enum = env_with_choices(...); enum_list = env_list_with_choices /
             env_set_with_choices, comma-separated subset of `choices`)
  default    value when NAME is unset, computed from the getter's AST by a tiny
             evaluator (only literals, os.getenv/os.environ.get/os.environ[...]/
             `in os.environ` with the variable unset, str methods, bool/int/float/
             str, and envs.py's own helper functions). `null` = Python None.
             ABSENT when the default depends on the machine or on other code
             (e.g. paths under $HOME, torch version): then `default_expr` holds
             the default's source text. Never present for type "other".
  choices    enum / enum_list only, when the choices are a literal list
  case_sensitive  enum / enum_list only, false when env_with_choices(...,
             case_sensitive=False)
  deprecated only for getters wrapped in deprecated_env(...) (which warns
             when the variable is set): {"removal": "v0.23", "replacement": text,
             "since": first release of the newest run of wrapped releases}
  reads      only when the getter reads other variables than NAME (or not NAME):
             the sorted list of variable names it reads
  changes    only when (type, default, choices) differed in older releases:
             [{"from": V1, "to": V2, "type": ..., "default": ..., "choices": ...}]
             oldest first, one item per run of consecutive releases with the
             same older shape (from/to inclusive, among the releases that
             define NAME)

A summary (names per release, how many typed "other") goes to stderr.
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import re
import sys

GENERATOR = "scripts/vllm_envs.py"
TABLE = "environment_variables"

# Helpers of envs.py that return a getter closure instead of a value.
ENUM_HELPERS = {"env_with_choices": "enum"}
ENUM_LIST_HELPERS = {"env_list_with_choices": "enum_list", "env_set_with_choices": "enum_list"}
SET_DEFAULT_HELPERS = {"get_env_or_set_default"}
# deprecated_env(name, removal_version, replacement, getter): warns when set.
DEPRECATED_HELPERS = {"deprecated_env"}


def version_key(v: str):
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.+-]", v))


class Unknown(Exception):
    """The value cannot be determined statically (machine- or code-dependent)."""


_MISSING = object()


class Module:
    """One envs.py: its module-level functions and the getter table."""

    def __init__(self, source: str, label: str):
        self.label = label
        self.tree = ast.parse(source)
        self.functions: dict[str, ast.FunctionDef] = {}
        table = None
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
            target = None
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                target, value = node.target.id, node.value
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                target, value = node.targets[0].id, node.value
            if target == TABLE:
                if table is not None:
                    raise SystemExit(f"{label}: {TABLE} assigned twice")
                if not isinstance(value, ast.Dict):
                    raise SystemExit(f"{label}: {TABLE} is not a dict literal")
                table = value
        if table is None:
            raise SystemExit(f"{label}: no module-level {TABLE} dict")
        for node in ast.walk(self.tree):
            # environment_variables[...] = ..., environment_variables.update(...)
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if (
                        isinstance(t, ast.Subscript)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == TABLE
                    ) or (isinstance(t, ast.Name) and t.id == TABLE and isinstance(node, ast.AugAssign)):
                        raise SystemExit(f"{label}:{node.lineno}: {TABLE} mutated")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == TABLE
                and node.func.attr in ("update", "setdefault", "pop", "__setitem__")
            ):
                raise SystemExit(f"{label}:{node.lineno}: {TABLE}.{node.func.attr}()")
        self.getters: dict[str, ast.expr] = {}
        for k, v in zip(table.keys, table.values):
            if k is None:
                raise SystemExit(f"{label}: `**` splat in {TABLE}")
            name = ast.literal_eval(k)
            if name in self.getters:
                print(f"warning: {label}: duplicate key {name} (last wins)", file=sys.stderr)
            self.getters[name] = v

    # ------------------------------------------------------------------ reads
    def env_names_read(self, node: ast.AST, seen: set[str] | None = None) -> set[str]:
        """Names of environment variables a getter reads (incl. called helpers)."""
        seen = set() if seen is None else seen
        out: set[str] = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                name = _env_call_name(n)
                if name is not None:
                    out.add(name)
                fn = _func_name(n.func)
                if (fn in ENUM_HELPERS or fn in ENUM_LIST_HELPERS or fn in SET_DEFAULT_HELPERS) and n.args:
                    if isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                        out.add(n.args[0].value)
                elif fn in self.functions and fn not in seen:
                    seen.add(fn)
                    out |= self.env_names_read(self.functions[fn], seen)
            elif isinstance(n, ast.Subscript) and _is_os_environ(n.value):
                if isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                    out.add(n.slice.value)
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)):
                if _is_os_environ(n.comparators[0]) and isinstance(n.left, ast.Constant):
                    out.add(n.left.value)
            elif (
                isinstance(n, ast.Name)
                and n.id in self.functions
                and n.id not in seen
                and n.id not in ENUM_HELPERS
                and n.id not in ENUM_LIST_HELPERS
                and n.id not in SET_DEFAULT_HELPERS
                and n.id not in DEPRECATED_HELPERS
            ):
                seen.add(n.id)
                out |= self.env_names_read(self.functions[n.id], seen)
        return out

    # ------------------------------------------------------------------ types
    def type_of(self, e: ast.expr, depth: int = 0) -> str | None:
        """Type of the getter's value when the variable IS set; None = unknown."""
        if depth > 8:
            return None
        if isinstance(e, ast.Constant):
            v = e.value
            if v is None:
                return "none"
            return {bool: "bool", int: "int", float: "float", str: "str"}.get(type(v))
        if isinstance(e, (ast.List, ast.Tuple)):
            return "list"
        if isinstance(e, ast.ListComp):
            return "list"
        if isinstance(e, ast.Compare):
            return "bool"
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return "bool"
        if isinstance(e, ast.NamedExpr):
            return self.type_of(e.value, depth + 1)
        if isinstance(e, ast.Subscript) and _is_os_environ(e.value):
            return "str"
        if isinstance(e, ast.IfExp):
            return _merge_types([self.type_of(e.body, depth + 1), self.type_of(e.orelse, depth + 1)])
        if isinstance(e, ast.BoolOp):
            return _merge_types([self.type_of(x, depth + 1) for x in e.values])
        if isinstance(e, ast.Name) and e.id in self.functions:
            return self.function_type(self.functions[e.id], depth + 1)
        if isinstance(e, ast.Name) and e.id in getattr(self, "_walrus", {}):
            return self.type_of(self._walrus[e.id], depth + 1)
        if isinstance(e, ast.Lambda):
            return self.type_of(e.body, depth + 1)
        if isinstance(e, ast.Call):
            if _env_call_name(e) is not None:
                return "str"
            fn = _func_name(e.func)
            if fn in ("bool", "int", "float", "str"):
                return fn
            if fn in ("json.loads", "json.load"):
                return "json"
            if fn in ("os.path.expanduser", "os.path.expandvars", "os.path.abspath"):
                return "str"
            if fn in ("list", "set", "tuple", "sorted"):
                return "list"
            if fn in self.functions:
                return self.function_type(self.functions[fn], depth + 1)
            if isinstance(e.func, ast.Attribute):
                attr = e.func.attr
                if attr in ("lower", "upper", "strip", "lstrip", "rstrip", "casefold"):
                    return "str" if self.type_of(e.func.value, depth + 1) == "str" else None
                if attr == "split":
                    return "list" if self.type_of(e.func.value, depth + 1) == "str" else None
                if attr == "get" and isinstance(e.func.value, ast.Dict):
                    vals = [self.type_of(v, depth + 1) for v in e.func.value.values]
                    if len(e.args) > 1:
                        vals.append(self.type_of(e.args[1], depth + 1))
                    return _merge_types(vals)
        return None

    def function_type(self, fn: ast.FunctionDef, depth: int) -> str | None:
        rets = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
        if not rets:
            return None
        types = []
        for r in rets:
            if r is None:
                types.append("none")
            elif isinstance(r, ast.Name):
                # `return value` where value = os.getenv(...): follow the assignment
                assigned = [
                    a.value
                    for a in ast.walk(fn)
                    if isinstance(a, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == r.id for t in a.targets)
                ]
                if len(assigned) != 1:
                    return None
                types.append(self.type_of(assigned[0], depth + 1))
            else:
                types.append(self.type_of(r, depth + 1))
        return _merge_types(types)

    # --------------------------------------------------------------- defaults
    def eval(self, e: ast.expr, scope: dict, depth: int = 0):
        """Value of `e` with every environment variable UNSET; raises Unknown."""
        if depth > 30:
            raise Unknown("depth")
        ev = lambda x: self.eval(x, scope, depth + 1)  # noqa: E731
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
            vals = [ev(x) for x in e.elts]
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(e)](vals)
        if isinstance(e, ast.Dict):
            if any(k is None for k in e.keys):
                raise Unknown("dict splat")
            return {ev(k): ev(v) for k, v in zip(e.keys, e.values)}
        if isinstance(e, ast.Name):
            if e.id in scope:
                return scope[e.id]
            if e.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[e.id]
            raise Unknown(e.id)
        if isinstance(e, ast.NamedExpr):
            v = ev(e.value)
            scope[e.target.id] = v
            return v
        if isinstance(e, ast.IfExp):
            return ev(e.body) if _truth(ev(e.test)) else ev(e.orelse)
        if isinstance(e, ast.BoolOp):
            if isinstance(e.op, ast.Or):
                v = None
                for x in e.values:
                    v = ev(x)
                    if _truth(v):
                        return v
                return v
            v = None
            for x in e.values:
                v = ev(x)
                if not _truth(v):
                    return v
            return v
        if isinstance(e, ast.UnaryOp):
            v = ev(e.operand)
            if isinstance(e.op, ast.Not):
                return not _truth(v)
            if isinstance(e.op, ast.USub) and isinstance(v, (int, float)):
                return -v
            if isinstance(e.op, ast.UAdd) and isinstance(v, (int, float)):
                return +v
            raise Unknown("unary")
        if isinstance(e, ast.BinOp):
            a, b = ev(e.left), ev(e.right)
            ops = {
                ast.Add: lambda: a + b,
                ast.Sub: lambda: a - b,
                ast.Mult: lambda: a * b,
                ast.FloorDiv: lambda: a // b,
                ast.Div: lambda: a / b,
                ast.Pow: lambda: a**b,
                ast.LShift: lambda: a << b,
                ast.Mod: lambda: a % b,
            }
            if type(e.op) not in ops or not all(isinstance(x, (int, float, str)) for x in (a, b)):
                raise Unknown("binop")
            if isinstance(e.op, ast.Pow) and (abs(b) > 64):
                raise Unknown("pow")
            return ops[type(e.op)]()
        if isinstance(e, ast.Compare):
            if len(e.ops) == 1 and isinstance(e.ops[0], (ast.In, ast.NotIn)) and _is_os_environ(e.comparators[0]):
                return isinstance(e.ops[0], ast.NotIn)  # every variable is unset
            left = ev(e.left)
            for op, c in zip(e.ops, e.comparators):
                right = ev(c)
                ok = {
                    ast.Eq: lambda: left == right,
                    ast.NotEq: lambda: left != right,
                    ast.In: lambda: left in right,
                    ast.NotIn: lambda: left not in right,
                    ast.Lt: lambda: left < right,
                    ast.LtE: lambda: left <= right,
                    ast.Gt: lambda: left > right,
                    ast.GtE: lambda: left >= right,
                    ast.Is: lambda: left is right,
                    ast.IsNot: lambda: left is not right,
                }
                if type(op) not in ok:
                    raise Unknown("cmp")
                try:
                    if not ok[type(op)]():
                        return False
                except TypeError as err:
                    raise Unknown("cmp types") from err
                left = right
            return True
        if isinstance(e, ast.Subscript):
            if _is_os_environ(e.value):
                raise Unknown("os.environ[...] of an unset variable (KeyError)")
            raise Unknown("subscript")
        if isinstance(e, ast.Call):
            if any(isinstance(a, ast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
                raise Unknown("splat call")
            if _env_call_name(e) is not None:
                default = e.args[1] if len(e.args) > 1 else None
                for k in e.keywords:
                    if k.arg == "default":
                        default = k.value
                return None if default is None else ev(default)
            fn = _func_name(e.func)
            args = [ev(a) for a in e.args]
            kwargs = {k.arg: ev(k.value) for k in e.keywords}
            pure = {"bool": bool, "int": int, "float": float, "str": str, "len": len,
                    "max": max, "min": min, "list": list, "tuple": tuple, "set": set,
                    "sorted": sorted, "json.loads": json.loads}
            if fn in pure:
                try:
                    return pure[fn](*args, **kwargs)
                except (TypeError, ValueError) as err:
                    raise Unknown(f"{fn} raised") from err
            if fn in self.functions:
                return self.call_function(self.functions[fn], args, kwargs, depth + 1)
            if isinstance(e.func, ast.Attribute):
                obj = ev(e.func.value)
                attr = e.func.attr
                if isinstance(obj, str) and attr in (
                    "lower", "upper", "strip", "lstrip", "rstrip", "split", "casefold",
                    "startswith", "endswith", "replace",
                ):
                    return getattr(obj, attr)(*args, **kwargs)
                if isinstance(obj, dict) and attr == "get":
                    return obj.get(*args)
            raise Unknown(f"call {fn}")
        raise Unknown(type(e).__name__)

    def call_function(self, fn: ast.FunctionDef, args: list, kwargs: dict, depth: int):
        a = fn.args
        if a.vararg or a.kwarg or a.posonlyargs or a.kwonlyargs:
            raise Unknown("signature")
        names = [x.arg for x in a.args]
        scope: dict = {}
        defaults = dict(zip(names[len(names) - len(a.defaults):], a.defaults))
        for i, n in enumerate(names):
            if i < len(args):
                scope[n] = args[i]
            elif n in kwargs:
                scope[n] = kwargs[n]
            elif n in defaults:
                scope[n] = self.eval(defaults[n], {}, depth)
            else:
                raise Unknown("missing arg")
        return self.exec_body(fn.body, scope, depth)

    def exec_body(self, body: list, scope: dict, depth: int):
        for st in body:
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
                continue  # docstring
            if isinstance(st, ast.Return):
                return None if st.value is None else self.eval(st.value, scope, depth)
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                scope[st.targets[0].id] = self.eval(st.value, scope, depth)
                continue
            if isinstance(st, ast.If):
                branch = st.body if _truth(self.eval(st.test, scope, depth)) else st.orelse
                r = self.exec_body(branch, scope, depth)
                if r is not _MISSING:
                    return r
                continue
            raise Unknown(type(st).__name__)
        return _MISSING

    # ----------------------------------------------------------------- entry
    def describe(self, name: str) -> dict:
        g = self.getters[name]
        out: dict = {}
        reads = sorted(self.env_names_read(g) - {"<dynamic>"})
        if reads != [name]:
            out["reads"] = reads
        fn = _func_name(g.func) if isinstance(g, ast.Call) else None
        if fn in DEPRECATED_HELPERS and len(g.args) == 4 and not g.keywords:
            dep = {}
            for key, node in (("removal", g.args[1]), ("replacement", g.args[2])):
                try:
                    dep[key] = self.eval(node, {})
                except Unknown:
                    dep[key] = ast.unparse(node)
            out["deprecated"] = dep
            g = g.args[3]
            fn = _func_name(g.func) if isinstance(g, ast.Call) else None
        self._walrus = {
            n.target.id: n.value for n in ast.walk(g) if isinstance(n, ast.NamedExpr)
        }
        if fn in ENUM_HELPERS or fn in ENUM_LIST_HELPERS:
            params = ["env_name", "default", "choices", "case_sensitive"]
            bound = dict(zip(params, g.args))
            bound.update({k.arg: k.value for k in g.keywords})
            out["type"] = ENUM_HELPERS.get(fn) or ENUM_LIST_HELPERS[fn]
            if "choices" in bound:
                try:
                    out["choices"] = list(self.eval(bound["choices"], {}))
                except Unknown:
                    out["choices_expr"] = ast.unparse(bound["choices"])
            if "case_sensitive" in bound:
                try:
                    if self.eval(bound["case_sensitive"], {}) is False:
                        out["case_sensitive"] = False
                except Unknown:
                    out["case_sensitive_expr"] = ast.unparse(bound["case_sensitive"])
            self._default(out, bound.get("default", ast.Constant(None)))
            return out
        if fn in SET_DEFAULT_HELPERS:
            out["type"] = "str"
            if len(g.args) > 1:
                f = g.args[1]
                out["default_expr"] = ast.unparse(f.body if isinstance(f, ast.Lambda) else f) + (
                    "" if isinstance(f, ast.Lambda) else "()")
            return out
        body = g.body if isinstance(g, ast.Lambda) else g
        ty = self.type_of(body)
        if ty in (None, "none"):
            out["type"] = "other"
            return out
        out["type"] = ty
        try:
            if isinstance(g, ast.Lambda):
                if g.args.args or g.args.vararg or g.args.kwarg or g.args.kwonlyargs:
                    raise Unknown("lambda with arguments")
                value = self.eval(g.body, {})
            elif isinstance(g, ast.Name) and g.id in self.functions:
                value = self.call_function(self.functions[g.id], [], {}, 0)
                if value is _MISSING:
                    value = None
            else:
                raise Unknown("getter shape")
            out["default"] = _jsonable(value)
        except Unknown:
            out["default_expr"] = _default_source(g)
        return out

    def _default(self, out: dict, node: ast.expr):
        try:
            v = self.eval(node, {})
            if isinstance(v, (set, tuple)):
                v = sorted(v) if isinstance(v, set) else list(v)
            out["default"] = _jsonable(v)
        except Unknown:
            out["default_expr"] = ast.unparse(node)


def _truth(v) -> bool:
    return bool(v)


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, set):
        return sorted(_jsonable(x) for x in v)
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    raise Unknown("not JSON")


def _merge_types(types: list) -> str | None:
    ts = {t for t in types if t != "none"}
    if None in ts or len(ts) != 1:
        # int/float mixes -> float
        if ts == {"int", "float"}:
            return "float"
        return None
    return ts.pop()


def _func_name(f: ast.expr) -> str | None:
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        base = _func_name(f.value)
        return f"{base}.{f.attr}" if base else None
    return None


def _is_os_environ(e: ast.expr) -> bool:
    return _func_name(e) == "os.environ"


def _env_call_name(c: ast.Call) -> str | None:
    """NAME for os.getenv("NAME", ...) / os.environ.get("NAME", ...)."""
    if _func_name(c.func) in ("os.getenv", "os.environ.get") and c.args:
        a = c.args[0]
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            return a.value
        return "<dynamic>"
    return None


def _default_source(g: ast.expr) -> str:
    """Source of the default argument(s) of the env reads in a getter."""
    parts = []
    for n in ast.walk(g):
        if isinstance(n, ast.Call) and _env_call_name(n) is not None and len(n.args) > 1:
            parts.append(ast.unparse(n.args[1]))
    if parts:
        return " | ".join(parts)
    if isinstance(g, ast.Name):
        return f"{g.id}()"
    return ast.unparse(g.body if isinstance(g, ast.Lambda) else g)


# ------------------------------------------------------------------- sources
def _envs_path(root: str, v: str) -> str:
    """ROOT/VERSION/vllm/envs.py (the layout of scripts/vllm_release.py)."""
    return os.path.join(root, v, "vllm", "envs.py")


def sources_unpacked(root: str, versions: list[str], fetch: bool = False):
    if not versions:
        versions = sorted({
            os.path.relpath(p, root).split(os.sep)[0]
            for p in glob.glob(os.path.join(root, "*", "vllm", "envs.py"))
        } - {v for v in os.listdir(root) if v.endswith(".partial")})
    for v in sorted(versions, key=version_key):
        if fetch:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import vllm_release

            vllm_release.release_dir(root, v)
        path = _envs_path(root, v)
        with open(path, encoding="utf-8") as f:
            yield v, f.read(), path


# --------------------------------------------------------------------- table
def shape(d: dict) -> tuple:
    return (
        d["type"],
        json.dumps(d.get("default", "<absent>"), sort_keys=True),
        json.dumps(d.get("choices"), sort_keys=True),
    )


def rows_of_table(table: dict) -> tuple[list[str], dict[str, list[tuple[str, dict]]]]:
    """The per-release descriptions a table was built from, rebuilt from the table
    (newest shape, `changes` runs, deprecated `since`): what `--add` starts from."""
    per_name: dict[str, list[tuple[str, dict]]] = {}
    for name, entry in table["env"].items():
        newest = {k: v for k, v in entry.items() if k not in ("releases", "changes")}
        since = entry.get("deprecated", {}).get("since")
        rows = []
        for v in entry["releases"]:
            d = None
            for c in entry.get("changes", []):
                if version_key(c["from"]) <= version_key(v) <= version_key(c["to"]):
                    d = {k: x for k, x in c.items() if k not in ("from", "to")}
            if d is None:
                d = {k: x for k, x in newest.items() if k != "deprecated"}
            if since is not None and version_key(v) >= version_key(since):
                d["deprecated"] = {k: x for k, x in entry["deprecated"].items() if k != "since"}
            rows.append((v, d))
        per_name[name] = rows
    return list(table["releases"]), per_name


def build(sources, start: dict | None = None) -> dict:
    """The table of SOURCES, added to the table START (rebuilt per release) if given."""
    releases, per_name = rows_of_table(start) if start else ([], {})
    for v, src, label in sources:
        if v in releases:  # update: the release's rows are replaced by its wheel's
            releases.remove(v)
            for rows in per_name.values():
                rows[:] = [r for r in rows if r[0] != v]
            per_name = {n: rows for n, rows in per_name.items() if rows}
        mod = Module(src, label)
        releases.append(v)
        others = []
        for name in mod.getters:
            d = mod.describe(name)
            per_name.setdefault(name, []).append((v, d))
            if d["type"] == "other":
                others.append(name)
        print(f"{v}: {len(mod.getters)} names, {len(others)} typed other"
              + (f" ({', '.join(others)})" if others else ""), file=sys.stderr)
    releases.sort(key=version_key)
    env = {}
    for name, rows in per_name.items():
        rows.sort(key=lambda r: version_key(r[0]))
        newest = dict(rows[-1][1])
        newest["releases"] = [v for v, _ in rows]
        runs: list[list] = []  # [from, to, desc] runs of equal shape, oldest first
        for v, d in rows:
            if runs and shape(runs[-1][2]) == shape(d):
                runs[-1][1] = v
            else:
                runs.append([v, v, d])
        changes = []
        for fr, to, d in runs[:-1]:
            c = {"from": fr, "to": to, "type": d["type"]}
            for k in ("default", "default_expr", "choices", "choices_expr"):
                if k in d:
                    c[k] = d[k]
            changes.append(c)
        if changes:
            newest["changes"] = changes
        if "deprecated" in newest:
            first = len(rows) - 1
            while first > 0 and "deprecated" in rows[first - 1][1]:
                first -= 1
            newest["deprecated"] = dict(newest["deprecated"], since=rows[first][0])
        env[name] = newest
    return {"generator": GENERATOR, "releases": releases, "env": env}


def dump(table: dict) -> str:
    def one(x):
        return json.dumps(x, sort_keys=True, ensure_ascii=False)

    lines = ["{", '  "env": {']
    names = sorted(table["env"])
    for i, n in enumerate(names):
        comma = "," if i + 1 < len(names) else ""
        lines.append(f"    {one(n)}: {one(table['env'][n])}{comma}")
    lines.append("  },")
    lines.append(f'  "generator": {one(table["generator"])},')
    lines.append(f'  "releases": {one(table["releases"])}')
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(table))
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", "--unpacked-root", dest="unpacked_root", metavar="ROOT", required=True,
                    help="release folder of scripts/vllm_release.py: read ROOT/<VERSION>/vllm/envs.py "
                         "(fetched and kept when missing, with VERSION arguments)")
    ap.add_argument("versions", nargs="*", metavar="VERSION",
                    help="releases (all under ROOT when omitted with --root)")
    ap.add_argument("--add", metavar="TABLE",
                    help="add the VERSIONs to this existing table (e.g. src/engine/vllm/envs.json) "
                         "instead of building from every release; the table is rewritten in place "
                         "unless -o is given")
    ap.add_argument("-o", "--out", help="write here instead of stdout")
    args = ap.parse_args(argv)
    if args.add and not args.versions:
        ap.error("--add needs VERSION arguments")
    start = None
    if args.add:
        with open(args.add, encoding="utf-8") as f:
            start = json.load(f)
        # The rebuild of the table from itself must be the table: else --add would lose facts.
        if dump(build([], json.loads(json.dumps(start)))) != dump(start):
            raise SystemExit(f"{args.add}: the table cannot be rebuilt from itself; regenerate it from every release")
    sources = sources_unpacked(args.unpacked_root, args.versions, fetch=bool(args.versions))
    text = dump(build(sources, start))
    out = args.out or args.add
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
