#!/usr/bin/env python3
"""Check tests/oracle/argparse_oracle.py against the REAL SGLang parsers (dev-time).

Usage:
    python3 scripts/check_oracle.py --root DIR [--schemas src/engine/sglang/schemas]
                                    [--n 400] [--seed 1] [VERSION...]

DIR is the release folder of scripts/vllm_release.py, shared with
scripts/sglang_schema.py --root: DIR/VERSION is the unpacked `sglang==VERSION` wheel,
fetched (and kept) when missing. Needs the same Python packages as
scripts/sglang_schema.py (stub mode), and `--real-torch` likewise.

For every version, in a fresh interpreter: build the real parser
(`ServerArgs.add_cli_args` with heavy imports stubbed), re-describe it and
require the schema file to be byte-identical to a fresh dump, generate N random
argv vectors from the real option table (real option strings and random unique
or ambiguous prefixes of them, `--k=v` and `--k v` forms, valid and invalid
choices, good and bad values for every type kind, nargs lists, booleans with
stray `=value`, repeated options, unknown options, stray positionals, missing
--model-path, the odd --help; plus ~100 fixed edge-case vectors), parse each with the real parser and with the
oracle (a subprocess reading the schema file), and compare:
  * ok/ok: the namespaces must be identical (canonical JSON, 1 != 1.0);
  * error/error: agreement; the message text is compared too and reported;
  * anything else is a disagreement.
Exit status 1 when any version disagrees on any vector.
"""

import argparse
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ORACLE = os.path.join(REPO, "tests", "oracle", "argparse_oracle.py")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(ORACLE))


# --------------------------------------------------------------------------
# Random argv generation
# --------------------------------------------------------------------------

# (good, bad) value pools per type kind; "bad" values are picked 15% of the time.
POOLS = {
    "int": (["0", "1", "2", "8", "64", "-1", "+3", " 4 ", "1_000", "٣"], ["abc", "1.5", "", "0x10", "1e3"]),
    "float": (["0.8", "0.80", "1", "1e-3", "nan", "inf", "-0.5", ".5", "1_0.5", "-inf"], ["abc", "", "1,5"]),
    "human_readable_int": (["1k", "1.5k", "25.6k", "1.5555k", "1Ki", "2M", "1G", "1T", "1Ti", "4096", "-5",
                            " 8k ", "0", "1_000", "2Mi", "3.0M"], ["1.5Ki", "1K", "1 k", "abc", "k", ""]),
    "json": (["{}", '{"a": 1}', "[1, 2]", "1", "NaN", '"s"', "null", "1e400", '{"a": {"b": [true, 1.5]}}'],
             ["{bad", ""]),
    "json_list_type": (["[]", "[1, 2]", '["a"]', '{"a": 1}', "18446744073709551616", "-9223372036854775809",
                        " [3] ", "[1.0, -0]"], ["NaN", "[1,]", "1e400", '"\\ud800"', "x", "Infinity"]),
    "nullable_str": (["", "None", "x", "none", "null", "path/to/file"], []),
    "cuda_graph_config": (['{}', '{"decode": {"backend": "full"}}', '{"prefill": {"bs": [1, 2]}}',
                           '{"decode": {"max_bs": 8, "tc_compiler": "eager"}}', '{"prefill": {"max_context_size": 4096}}',
                           '{"decode": {"backend": "breakable"}, "prefill": {"backend": "disabled"}}'],
                          ['{"decode": {"foo": 1}}', '{"x": {}}', '{"decode": 1}', "[1]", "bad",
                           '{"prefill": {"backend": "tc_piecewise"}}']),
    "cuda_graph_backend": (["full", "breakable", "disabled"], ["tc_piecewise", "x"]),
    None: (["x", "auto", "some/model", "a b", "", "None", "1", "é"], ["-x", "--", "--model"]),
}
POOLS["str"] = POOLS[None]
POOLS["cuda_graph_config_v1"] = POOLS["cuda_graph_config_v2"] = POOLS["cuda_graph_config"]
LORA_VALUES = (["a", " b ", "name=path", '{"lora_name": "n", "lora_path": "p"}',
                ' {"lora_name": "n", "lora_path": "p", "pinned": true} '], ['{"lora_name": "n"}', "{bad}", "{}"])


def pick(rng, pool):
    good, bad = pool
    if bad and rng.random() < 0.15:
        return rng.choice(bad)
    return rng.choice(good)


def bad_choice(rng, choices):
    c = rng.choice(choices)
    if isinstance(c, str):
        return rng.choice([c.upper() if c.upper() != c else c.lower() + "x", c + "x", "", "nope"])
    return rng.choice(["nope", "9999", ""])


def value_for(rng, opt):
    choices = opt["choices"]
    kind = opt["type"]
    if opt["action"] == "lora_paths":
        return pick(rng, LORA_VALUES)
    if choices is not None:
        if rng.random() < 0.85:
            c = rng.choice(choices)
            return c if isinstance(c, str) else json.dumps(c)
        if kind == "cuda_graph_backend" and rng.random() < 0.5:
            return "tc_piecewise"
        return bad_choice(rng, choices)
    return pick(rng, POOLS.get(kind, POOLS[None]))


def unique_prefix_len(s, long_strings):
    for n in range(3, len(s)):
        if sum(1 for o in long_strings if o.startswith(s[:n])) == 1:
            return n
    return None


def spelled(rng, opt, long_strings):
    s = rng.choice(opt["option_strings"])
    if s.startswith("--") and len(s) > 4 and rng.random() < 0.3:
        n = unique_prefix_len(s, long_strings)
        if n is not None and rng.random() < 0.75:
            return s[:rng.randint(n, len(s) - 1)]  # a unique abbreviation
        return s[:rng.randint(3, len(s) - 1)]  # any prefix: often ambiguous
    return s


def gen_argv(rng, schema):
    opts = [o for o in schema["options"] if o["option_strings"]]
    long_strings = [s for o in opts for s in o["option_strings"]]
    by_dest = {}
    for o in opts:
        by_dest.setdefault(o["dest"], []).append(o)
    argv = []
    model_opt = next((o for o in opts if "--model-path" in o["option_strings"]), None)
    if model_opt is not None and rng.random() < 0.93:
        flag = rng.choice(model_opt["option_strings"] + ["--model-p", "--model-pa"])
        if rng.random() < 0.3:
            argv.append(f"{flag}=org/model")
        else:
            argv += [flag, "org/model"]
    n = rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 12])
    picked = []
    for _ in range(n):
        if picked and rng.random() < 0.12:
            o = rng.choice(picked)  # repeat an option
        elif rng.random() < 0.15:
            # an option sharing its dest with others (aliases / deprecations)
            shared = [v for v in by_dest.values() if len(v) > 1]
            o = rng.choice(rng.choice(shared)) if shared else rng.choice(opts)
        else:
            o = rng.choice(opts)
        picked.append(o)
        flag = spelled(rng, o, long_strings)
        nargs = o["nargs"]
        if nargs == 0:
            if rng.random() < 0.06:
                argv.append(f"{flag}=1")
            else:
                argv.append(flag)
        elif nargs is None or nargs == "?":
            if nargs == "?" and rng.random() < 0.3:
                argv.append(flag)
            elif rng.random() < 0.3:
                argv.append(f"{flag}={value_for(rng, o)}")
            else:
                argv += [flag, value_for(rng, o)]
        else:
            if isinstance(nargs, int):
                k = nargs if rng.random() < 0.85 else rng.choice([0, nargs + 1])
            else:
                k = rng.choice([0, 1, 1, 2, 3]) if nargs in ("*", "+") else 1
            if k == 1 and rng.random() < 0.2:
                argv.append(f"{flag}={value_for(rng, o)}")
            else:
                argv.append(flag)
                argv += [value_for(rng, o) for _ in range(k)]
    r = rng.random()
    if r < 0.03:
        argv.append("--definitely-not-an-option")
    elif r < 0.05:
        argv.append("stray")
    elif r < 0.055:
        argv.append(rng.choice(["--help", "-h", "--he"]))
    elif r < 0.07:
        argv.insert(0, "org/positional-model")
    return argv


M = ["--model-path", "org/model"]
FIXED_VECTORS = [
    [], M, ["--model", "m"], ["--model=m"], ["--model-p", "m"], ["--mod", "m"], M + ["--tp", "2"],
    M + ["--tp-size", "2", "--tp", "4"], M + ["--tensor-parallel-size=8"], M + ["--pp", "2"],
    M + ["--ep", "4"], M + ["--dp=2", "--enable-dp-attention"], M + ["--quant", "fp8"],
    M + ["--quantization", "fp8"], M + ["--speculative-algo", "NEXTN"], M + ["--speculative-algorithm", "eagle"],
    M + ["--context-length", "1.5k"], M + ["--context-length", "1.5Ki"], M + ["--context-length", "2Ki"],
    M + ["--context-length", " 32k "], M + ["--context-length", "-1"], M + ["--max-total-tokens", "1_000"],
    M + ["--mem-fraction-static", "0.80"], M + ["--mem-fraction-static", "nan"], M + ["--mem-fraction-static=-inf"],
    M + ["--lora-paths"], M + ["--lora-paths", " a ", '{"lora_name": "n", "lora_path": "p"}'],
    M + ["--lora-paths", "{bad}"], M + ["--lora-paths", '{"lora_name": "n"}'], M + ["--lora-paths=x"],
    M + ["--cuda-graph-config", '{"prefill": {"backend": "tc_piecewise"}}'],
    M + ["--cuda-graph-config", '{"decode": {"tc_compiler": "eager"}}'],
    M + ["--cuda-graph-config", '{"prefill": {"max_seq_len": 1}}'], M + ["--cuda-graph-config", "[]"],
    M + ["--cuda-graph-backend-prefill", "tc_piecewise"], M + ["--cuda-graph-backend-decode", "full"],
    M + ["--disable-piecewise-cuda-graph"], M + ["--enforce-piecewise-cuda-graph", "--enable-breakable-cuda-graph"],
    M + ["--disable-piecewise-cuda-graph", "--cuda-graph-backend-prefill", "breakable"],
    M + ["--cuda-graph-bs", "1", "2", "4"], M + ["--cuda-graph-bs"], M + ["--cuda-graph-max-bs", "8"],
    M + ["--monokernel-backend", "amd"], M + ["--monokernel-backend", "AMD"], M + ["--monokernel-backend"],
    M + ["--enable-expert-distribution-metrics"], M + ["--prefill-round-robin-balance"],
    M + ["--prefill-round-robin-balance=1"], M + ["--collect-tokens-histogram"],
    M + ["--stream-output"], M + ["--disable-cuda-graph"], M + ["--enable-dp-attention=true"],
    M + ["--nsa-prefill-backend", "fa3"], M + ["--dsa-prefill-backend", "fa3", "--nsa-prefill-backend", "tilelang"],
    M + ["--nsa-prefill-cp-mode", "in-seq-split"], M + ["--mamba-scheduler-strategy", "x"],
    M + ["--model-checksum"], M + ["--model-checksum", "abc"], M + ["--model-checksum=abc"],
    M + ["--forward-hooks", "[1, 2]"], M + ["--forward-hooks", "NaN"], M + ["--forward-hooks", "1e400"],
    M + ["--preferred-sampling-params", '{"temperature": 0.5}'], M + ["--preferred-sampling-params", "NaN"],
    M + ["--quantization-param-path", "None"], M + ["--quantization-param-path", ""],
    M + ["--hicache-io-backend", "direct", "--hicache-mem-layout", "page_first_direct"],
    M + ["--enable-hierarchical-cache", "--enable-hicache"], M + ["--page-size", "-5"], M + ["--page-size", "-5 "],
    M + ["--served-model-name", "-x"], M + ["--served-model-name", "-x y"], M + ["--served-model-name", "--"],
    M + ["--", "x"], M + ["x"], ["org/model", "--tp", "2"], M + ["--help"], M + ["-h"], M + ["--he"],
    M + ["-hx"], M + ["--uvicorn-access-log-exclude-prefixes"], M + ["--uvicorn-access-log-exclude-prefixes", "/a", "/b"],
    M + ["--enable-torch-compile", "--no-enable-torch-compile"], M + ["--trust-remote-code", "--trust"],
    M + ["--attention-backend", "FA3"], M + ["--attention-backend", "fa3", "--attention-backend=triton"],
    M + ["--sampling-backend", "pytorch"], M + ["--log-level", "debug"], M + ["--log-requests-level", "3"],
    M + ["--json-model-override-args", '{"a": 1}'], M + ["--dist-init-addr", "1.2.3.4:5"], M + ["--nccl-init", "x"],
]


# --------------------------------------------------------------------------
# Child: one version
# --------------------------------------------------------------------------


class _Fail(Exception):
    pass


def real_result(parser, argv, jsonable):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            ns = parser.parse_args(argv)
    except _Fail as e:
        return {"error": str(e)}
    except argparse.ArgumentError as e:  # not expected with exit_on_error=True
        return {"error": str(e)}
    except SystemExit as e:
        return {"error": "help" if e.code == 0 else f"SystemExit: {e.code}"}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
    return {"ok": {k: jsonable(v) for k, v in vars(ns).items()}}


def child(version, root, schema_path, n, seed, real_torch):
    import logging

    import sglang_schema

    parser, server_args = sglang_schema.build_real_parser(root, real_torch)
    logging.disable(logging.CRITICAL)
    fresh = sglang_schema.render(sglang_schema.describe_parser(parser, server_args, root, version))
    with open(schema_path, encoding="utf-8") as f:
        on_disk = f.read()
    schema_current = fresh == on_disk
    schema = json.loads(on_disk)

    def fail(message):
        raise _Fail(message)

    def help_exit(file=None):
        raise SystemExit(0)

    parser.error = fail
    parser.print_help = help_exit

    from argparse_oracle import jsonable

    rng = random.Random(f"{seed}:{version}")
    vectors = FIXED_VECTORS + [gen_argv(rng, schema) for _ in range(n)]
    n = len(vectors)
    real = [real_result(parser, v, jsonable) for v in vectors]

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for v in vectors:
            f.write(json.dumps(v, ensure_ascii=False) + "\n")
        in_path = f.name
    try:
        with open(in_path, encoding="utf-8") as fin:
            proc = subprocess.run([sys.executable, "-I", ORACLE, schema_path], stdin=fin,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        os.unlink(in_path)
    if proc.returncode != 0:
        print(json.dumps({"version": version, "oracle_failed": proc.stderr[-2000:]}))
        return 1
    oracle = [json.loads(line) for line in proc.stdout.splitlines()]
    stats = {"version": version, "vectors": n, "schema_current": schema_current, "ok_equal": 0,
             "both_error": 0, "error_text_equal": 0, "disagree": 0, "examples": []}
    for v, a, b in zip(vectors, real, oracle):
        if "ok" in a and "ok" in b:
            if json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True):
                stats["ok_equal"] += 1
                continue
        elif "error" in a and "error" in b:
            stats["both_error"] += 1
            if a["error"] == b["error"]:
                stats["error_text_equal"] += 1
            elif len(stats["examples"]) < 5:
                stats["examples"].append({"argv": v, "real": a, "oracle": b, "note": "error text differs"})
            continue
        stats["disagree"] += 1
        if len(stats["examples"]) < 5:
            if "ok" in a and "ok" in b:
                diff = {k: (a["ok"].get(k, "<absent>"), b["ok"].get(k, "<absent>"))
                        for k in set(a["ok"]) | set(b["ok"]) if a["ok"].get(k, "<absent>") != b["ok"].get(k, "<absent>")}
                stats["examples"].append({"argv": v, "diff": diff})
            else:
                stats["examples"].append({"argv": v, "real": a, "oracle": b})
    if len(oracle) != len(vectors):
        stats["disagree"] += abs(len(oracle) - len(vectors))
    print(json.dumps(stats, ensure_ascii=False))
    return 0 if (stats["disagree"] == 0 and schema_current) else 1


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--root", "--unpacked-root", dest="unpacked_root", required=True,
                    help="release folder of scripts/vllm_release.py (ROOT/VERSION: the unpacked wheel, fetched when missing and kept)")
    ap.add_argument("--schemas", default=os.path.join(REPO, "src", "engine", "sglang", "schemas"))
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--real-torch", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        v = args.versions[0]
        return child(v, os.path.join(args.unpacked_root, v), os.path.join(args.schemas, f"{v}.json"),
                     args.n, args.seed, args.real_torch)
    versions = args.versions or sorted(
        (f[:-5] for f in os.listdir(args.schemas) if f.endswith(".json")),
        key=lambda s: [int(p) if p.isdigit() else p for p in s.replace(".post", ".p.").split(".")])
    import vllm_release as _rel  # the folder layout shared by the dump scripts

    bad = 0
    total = {"vectors": 0, "ok_equal": 0, "both_error": 0, "error_text_equal": 0, "disagree": 0}
    for v in versions:
        _rel.release_dir(args.unpacked_root, v, "sglang")
        cmd = [sys.executable, os.path.abspath(__file__), v, "--child", "--unpacked-root",
               os.path.abspath(args.unpacked_root), "--schemas", os.path.abspath(args.schemas),
               "--n", str(args.n), "--seed", str(args.seed)]
        if args.real_torch:
            cmd.append("--real-torch")
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        try:
            st = json.loads(line)
        except ValueError:
            print(f"{v}: child failed\n{proc.stderr[-3000:]}")
            bad += 1
            continue
        if "oracle_failed" in st:
            print(f"{v}: oracle failed\n{st['oracle_failed']}")
            bad += 1
            continue
        for k in total:
            total[k] += st[k]
        print(f"{v}: vectors={st['vectors']} ok_equal={st['ok_equal']} both_error={st['both_error']} "
              f"(same text {st['error_text_equal']}) disagree={st['disagree']} schema_current={st['schema_current']}")
        for ex in st["examples"]:
            print("   ", json.dumps(ex, ensure_ascii=False)[:600])
        if proc.returncode != 0:
            bad += 1
    print(f"TOTAL: {json.dumps(total)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
