#!/usr/bin/env python3
"""Record srtctl's own worker commands for srt-slurm recipes, as test facts.

srtctl (NVIDIA/srt-slurm) is not on PyPI. Install it from a clone into a
scratch venv and run this script with that venv's Python:

  git clone https://github.com/NVIDIA/srt-slurm /tmp/srt-slurm
  python3 -m venv /tmp/srtctl-venv && /tmp/srtctl-venv/bin/pip install /tmp/srt-slurm
  /tmp/srtctl-venv/bin/python scripts/srtctl_render.py \
      --srt-slurm /tmp/srt-slurm --inferencex /tmp/ix \
      --out tests/data/srtctl_rendered.json

For every `dynamo-sglang` / `dynamo-vllm` entry of the InferenceX master configs,
every `CONFIG_FILE=recipes/...` of its points that names a recipe under
`benchmarks/multi_node/srt-slurm-recipes/` (the runner copies that folder over
the clone's `recipes/`), and every recipe of `fixtures/srt-slurm/` (our own), it
loads the recipe as `srtctl apply -f FILE[:SELECTOR]` does (PyYAML, base +
override / zip_override selection, the config schema), lays the job out with
srtctl's own topology (`allocate_endpoints`, `endpoints_to_processes`, on
made-up node names), and calls the backend's `build_worker_command` for the
leader process of the first worker of each role. It records, per role, the
rendered argv, the role's environment map, and the inputs recipe-drift renders
from (the role's flag map, the connector): flag names and values are facts; no
srt-slurm code is written out. Nothing is fetched.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import patch

import yaml

ROLES = [("prefill", "prefill"), ("decode", "decode"), ("agg", "aggregated")]
LOCAL = "benchmarks/multi_node/srt-slurm-recipes"


def git_head(root):
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def config_refs(ix):
    """(entry, framework, CONFIG_FILE) of every dynamo-sglang/dynamo-vllm point, in order."""
    out = []
    for name in sorted(os.listdir(ix / "configs")):
        if not name.endswith("-master.yaml"):
            continue
        doc = yaml.safe_load((ix / "configs" / name).read_text()) or {}
        for key, entry in doc.items():
            if not isinstance(entry, dict) or entry.get("framework") not in ("dynamo-sglang", "dynamo-vllm"):
                continue
            for scenarios in (entry.get("scenarios") or {}).values():
                for scenario in scenarios or []:
                    for point in scenario.get("search-space") or []:
                        ref = None
                        for role in ("prefill", "decode"):
                            for setting in (point.get(role) or {}).get("additional-settings") or []:
                                if setting.startswith("CONFIG_FILE="):
                                    ref = setting.split("=", 1)[1]
                        if ref:
                            out.append((key, entry["framework"], ref))
    return out


# Sections of a recipe that never reach a worker command: when the srtctl at
# hand refuses one (a field of another srt-slurm ref), it is dropped and the
# case says so.
NOT_WORKER = ("benchmark", "telemetry", "health_check", "slurm", "sbatch_directives")


def load(path, selector, drop=()):
    from srtctl.core.config import expand_observability, generate_override_configs, resolve_config_with_defaults
    from srtctl.core.schema import SrtConfig

    raw = yaml.safe_load(path.read_text())
    raw.pop("lock", None)
    for d in drop:
        raw.pop(d, None)
        if isinstance(raw.get("base"), dict):
            raw["base"].pop(d, None)
    if "base" in raw:
        variants = generate_override_configs(raw, selector=selector)
        if len(variants) != 1:
            raise ValueError(f"{len(variants)} variants")
        raw = variants[0][1]
    elif selector:
        raise ValueError("a selector on a recipe without base")
    cfg = resolve_config_with_defaults(raw, None)
    expand_observability(cfg)
    return SrtConfig.Schema().load(cfg)


def render(config):
    from srtctl.core.topology import NodePortAllocator

    backend = config.backend
    if backend.type not in ("sglang", "vllm"):
        return {"backend": backend.type, "roles": {}}
    r = config.resources
    nodes = [f"node{i:03d}" for i in range(max(r.total_nodes, 1) + 64)]
    endpoints = backend.allocate_endpoints(
        num_prefill=r.num_prefill,
        num_decode=r.num_decode,
        num_agg=r.num_agg,
        gpus_per_prefill=r.gpus_per_prefill,
        gpus_per_decode=r.gpus_per_decode,
        gpus_per_agg=r.gpus_per_agg,
        gpus_per_node=r.gpus_per_node,
        available_nodes=nodes,
        spread_workers=r.spread_workers,
    )
    processes = backend.endpoints_to_processes(
        endpoints, port_allocator=NodePortAllocator(), frontend_type=config.frontend.type
    )
    model = str(config.model.path)
    hf = model.startswith("hf:")
    runtime = SimpleNamespace(
        model_path=Path(model[3:] if hf else "/models") / ("" if hf else model),
        is_hf_model=hf,
        request_plane=config.dynamo.request_plane,
        frontend_port=8000,
        network_interface=None,
    )
    roles = {}
    for mode, name in ROLES:
        leaders = [p for p in processes if p.endpoint_mode == mode and p.node_rank == 0]
        if not leaders:
            continue
        leader = min(leaders, key=lambda p: p.endpoint_index)
        group = [p for p in processes if p.endpoint_mode == mode and p.endpoint_index == leader.endpoint_index]
        with patch("srtctl.core.slurm.get_hostname_ip", return_value="10.0.0.1"):
            argv = backend.build_worker_command(
                process=leader,
                endpoint_processes=group,
                runtime=runtime,
                frontend_type=config.frontend.type,
                nsys_prefix=None,
                dump_config_path=Path("/logs/config.json"),
                profiling=config.profiling,
            )
        role = {
            "argv": argv,
            "config": backend.get_config_for_mode(mode),
            # The role's map, then the recipe's `environment` over it, as the
            # worker stage sets them ({node} templating applied there).
            "environment": {**backend.get_environment_for_mode(mode), **config.environment},
        }
        if backend.type == "vllm":
            role["connector"] = backend.connector
        roles[name] = role
    return {"backend": backend.type, "frontend": config.frontend.type, "model": model, "roles": roles}


def case(path, selector, rel):
    from marshmallow import ValidationError

    try:
        rendered = render(load(path, selector))
    except ValidationError as e:
        fields = sorted(e.messages) if isinstance(e.messages, dict) else []
        if fields and all(f in NOT_WORKER for f in fields):
            try:
                rendered = {"dropped": fields, **render(load(path, selector, fields))}
            except Exception as e2:
                rendered = {"refused": f"{type(e2).__name__}: {e2}".splitlines()[0][:300]}
        else:
            rendered = {"refused": f"ValidationError: {e}".splitlines()[0][:300]}
    except Exception as e:  # srtctl refuses the recipe: a fact too
        rendered = {"refused": f"{type(e).__name__}: {e}".splitlines()[0][:300]}
    return {"recipe": rel, "selector": selector, **rendered}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--srt-slurm", required=True, type=Path)
    ap.add_argument("--inferencex", required=True, type=Path)
    ap.add_argument("--fixtures", type=Path, default=Path(__file__).resolve().parent.parent / "fixtures/srt-slurm")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    import srtctl

    if Path(srtctl.__file__).resolve().parents[2] != args.srt_slurm.resolve() and not os.environ.get(
        "SRTCTL_ANY_INSTALL"
    ):
        print(f"note: srtctl imported from {srtctl.__file__}", file=sys.stderr)

    cases, seen, entries = [], {}, {}
    for key, framework, ref in config_refs(args.inferencex):
        file, _, selector = ref.partition(":")
        if not file.startswith("recipes/"):
            continue
        local = args.inferencex / LOCAL / file[len("recipes/") :]
        if not local.is_file():
            continue
        entries.setdefault((file, selector or None), []).append(key)
        if (file, selector) in seen:
            continue
        seen[(file, selector)] = True
        cases.append(case(local, selector or None, file))
    for c in cases:
        c["entries"] = sorted(set(entries[(c["recipe"], c["selector"])]))
    fixtures = []
    for f in sorted(args.fixtures.glob("*.yaml")) if args.fixtures.is_dir() else []:
        raw = yaml.safe_load(f.read_text())
        selectors = [None]
        if isinstance(raw, dict) and "base" in raw:
            selectors = sorted(k for k in raw if k.startswith("override_"))
            for k in sorted(k for k in raw if k.startswith("zip_override_")):
                from srtctl.core.config import generate_override_configs

                selectors += [f"{k}[{i}]" for i in range(len(generate_override_configs(raw, selector=k)))]
        for s in selectors:
            fixtures.append(case(f, s, f.name))
    # Environment maps repeat across recipes: each is kept once, and a role
    # names it by its index in `environments`.
    environments, index = [], {}
    for c in cases + fixtures:
        for role in c.get("roles", {}).values():
            key = json.dumps(role["environment"], sort_keys=False)
            if key not in index:
                index[key] = len(environments)
                environments.append(role["environment"])
            role["environment"] = index[key]
    doc = {
        "about": "srtctl's worker commands per role (scripts/srtctl_render.py); facts, no srt-slurm code",
        "srt_slurm": git_head(args.srt_slurm),
        "inferencex": git_head(args.inferencex),
        "cases": cases,
        "fixtures": fixtures,
        "environments": environments,
    }
    # One case a line: compact, and a regenerated file diffs case by case.
    compact = lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    lines = ["{"]
    for k in ("about", "srt_slurm", "inferencex"):
        lines.append(f"{compact(k)}:{compact(doc[k])},")
    for k in ("cases", "fixtures", "environments"):
        lines.append(f"{compact(k)}:[")
        lines.append(",\n".join(compact(c) for c in doc[k]))
        lines.append("]" if k == "environments" else "],")
    lines.append("}")
    args.out.write_text("\n".join(lines) + "\n")
    roles = sum(len(c.get("roles", {})) for c in cases)
    refused = sum(1 for c in cases if "refused" in c)
    print(f"{len(cases)} recipes/selectors, {roles} roles, {refused} refused; {len(fixtures)} fixture cases")


if __name__ == "__main__":
    main()
