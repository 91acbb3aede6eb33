#!/usr/bin/env python3
"""Judge a held-out set of `vllm serve` commands with a REAL vLLM release (dev-time).

Usage
-----
    python3 scripts/vllm_heldout.py --root /tmp/vllm-releases tests/data/vllm_heldout_0.34.0.json
    python3 scripts/vllm_heldout.py --root /tmp/vllm-releases --check tests/data/vllm_heldout_0.34.0.json

The file (JSON) holds `version` and `cases`; each case has an `argv` (after
`vllm serve`), `env`, `platform` and what was judged by hand from the release's
source: `starts`, `startup_error` (a substring), `why` (the place in the source)
and `values` (canonical key -> value, or {"unknown": true}, or {"one_of": [...]}).
This script fills each case's `real` object from the real release, in a child
interpreter with the stubs of scripts/vllm_schema.py (same Python packages):

  parser        {"ok": true} or {"ok": false, "error": MESSAGE}: the real
                `top.parse_args(["serve", *argv])` (argparse's message, without
                the usage line)
  namespace     for a parsed argv, the real namespace's value of each dest in
                DESTS (plain JSON; a config dataclass as its JSON input)
  post_parse    checks the real code can make without a GPU or a checkpoint:
                `seed` validated by ModelConfig's pydantic field, and
                `SpeculativeConfig(**speculative_config)` after folding
                --spec-method/--spec-model/--spec-tokens as
                EngineArgs.create_speculative_config does: {"error": TEXT} for
                an error the real code raised before needing a checkpoint
                (unexpected keyword, unknown method, mutually exclusive
                flags, seed range), else {} (nothing decided here)

`--check` recomputes `real` and exits 1 when it differs from the file (the test
`tests/vllm_heldout.rs` runs that when RECIPE_DRIFT_VLLM_ROOT names the folder).
Rewriting never touches the hand-judged fields.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DESTS = [
    "model_tag", "tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size",
    "decode_context_parallel_size", "enable_expert_parallel", "quantization", "kv_cache_dtype",
    "block_size", "attention_backend", "all2all_backend", "max_model_len", "seed",
    "gpu_memory_utilization", "numa_bind", "enable_extensible_kv_cache", "enforce_eager",
    "spec_method", "spec_model", "spec_tokens", "speculative_config", "compilation_config",
    "optimization_level", "checkpoint_prepare_on_startup", "enable_sleep_mode",
]


def plain(v):
    """The JSON form of a namespace value."""
    import dataclasses
    import enum

    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if dataclasses.is_dataclass(v):
        return {"$class": type(v).__name__}
    return repr(v)


def judge(root, case):
    import vllm_schema as V

    real = {}
    top = judge.parser
    os.environ.update(case.get("env", {}))
    try:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                ns = top.parse_args(["serve", *case["argv"]])
            except SystemExit:
                lines = [ln for ln in err.getvalue().splitlines() if ln.startswith("vllm") and ": error: " in ln]
                msg = lines[-1].split(": error: ", 1)[1] if lines else err.getvalue().strip()
                real["parser"] = {"ok": False, "error": msg}
                return real
            except Exception as e:  # a crash of vLLM's own preprocessing
                real["parser"] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
                return real
        real["parser"] = {"ok": True}
        nsd = vars(ns)
        real["namespace"] = {d: plain(nsd[d]) for d in DESTS if d in nsd}
        if "compilation_config" in nsd and nsd["compilation_config"] is not None:
            cc = nsd["compilation_config"]
            real["namespace"]["compilation_config"] = {
                "mode": plain(getattr(cc, "mode", None)),
                "cudagraph_mode": plain(getattr(cc, "cudagraph_mode", None)),
            }
        real["post_parse"] = post_parse(nsd)
    finally:
        for k in case.get("env", {}):
            os.environ.pop(k, None)
    del V
    return real


def post_parse(nsd):
    import pydantic
    from typing import Annotated

    from vllm.config.model import ModelConfig
    from vllm.config.speculative import SpeculativeConfig

    field = ModelConfig.__pydantic_fields__["seed"]
    try:
        pydantic.TypeAdapter(Annotated[int, field]).validate_python(nsd.get("seed"))
    except pydantic.ValidationError as e:
        return {"error": f"seed: {e.errors()[0]['msg']}"}
    sc = nsd.get("speculative_config")
    sc = dict(sc) if isinstance(sc, dict) else sc
    for flag, key, dest in (("--spec-method", "method", "spec_method"), ("--spec-model", "model", "spec_model"),
                            ("--spec-tokens", "num_speculative_tokens", "spec_tokens")):
        value = nsd.get(dest)
        if value is None:
            continue
        if sc is None:
            sc = {}
        if key in sc:
            return {"error": f"{flag} and --speculative-config['{key}'] are mutually exclusive"}
        sc[key] = value
    if sc is None:
        return {}
    sc = {k.replace("-", "_"): v for k, v in sc.items()}
    try:
        SpeculativeConfig(**sc)
    except pydantic.ValidationError as e:
        first = e.errors()[0]
        if first["type"] == "unexpected_keyword_argument":
            return {"error": f"SpeculativeConfig.{first['loc'][-1]}: Unexpected keyword argument"}
        if tuple(first["loc"]) == ("method",):  # the field validator: before any checkpoint
            return {"error": first["msg"].split(". Built-in methods")[0]}
        return {}
    except Exception:  # needs a checkpoint or the target model: not decided here
        return {}
    return {}


def child(root, path):
    import vllm_schema as V

    top, _serve, _au, _entry = V.build_real_parser(root)
    judge.parser = top
    data = json.load(open(path, encoding="utf-8"))
    out = [judge(root, c) for c in data["cases"]]
    json.dump(out, sys.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--root", required=True, help="release folder of scripts/vllm_release.py")
    ap.add_argument("--check", action="store_true", help="compare with the file instead of rewriting it")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.file)
        return 0
    import vllm_release

    data = json.load(open(args.file, encoding="utf-8"))
    if args.check:  # never downloads (the test runs it): the release must be unpacked already
        root = os.path.abspath(os.path.join(args.root, data["version"]))
        vllm_release.check_release_dir(root, data["version"])
    else:
        root = vllm_release.release_dir(args.root, data["version"])
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), os.path.abspath(args.file), "--root", args.root,
                           "--child", root], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-6000:])
        return 2
    reals = json.loads(proc.stdout)
    if args.check:
        bad = [c["id"] for c, r in zip(data["cases"], reals) if c.get("real") != r]
        for i in bad:
            print(f"{i}: the recorded real verdict differs from the release's")
        print(f"{len(data['cases']) - len(bad)} of {len(data['cases'])} recorded verdicts agree with vllm {data['version']}")
        return 1 if bad else 0
    for c, r in zip(data["cases"], reals):
        c["real"] = r
    with open(args.file, "w", encoding="utf-8") as f:
        f.write('{"version": ' + json.dumps(data["version"]) + ",\n")
        f.write(' "generator": "scripts/vllm_heldout.py (the real fields); the others judged by hand from the release source",\n')
        f.write(' "cases": [\n')
        f.write(",\n".join("  " + json.dumps(c, ensure_ascii=False, sort_keys=True) for c in data["cases"]))
        f.write("\n ]}\n")
    print(f"{len(reals)} cases judged by vllm {data['version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
