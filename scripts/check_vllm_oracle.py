#!/usr/bin/env python3
"""Check tests/oracle/vllm_argparse_oracle.py against the REAL vLLM parsers (dev-time).

Usage:
    python3 scripts/check_vllm_oracle.py --root DIR [--schemas src/engine/vllm/schemas]
                                         [--n 600] [--seed 1] [VERSION...]

DIR is the release folder of scripts/vllm_release.py, shared with
scripts/vllm_schema.py --root: DIR/VERSION is the unpacked `vllm==VERSION` wheel,
fetched into DIR with pip when missing and kept. Needs the
same Python packages as scripts/vllm_schema.py. Without VERSION: every schema file.

For every version, in a fresh interpreter: build the real `vllm` top-level parser
with its `serve` sub-parser (heavy imports stubbed, as scripts/vllm_schema.py does),
re-describe it and require the schema file to be byte-identical to a fresh dump,
generate N random argv vectors from the real option table plus ~120 fixed edge cases
(long/short/underscore/abbreviated spellings, `--k=v` and `--k v`, dotted JSON
sub-keys with `=`/space/`+`, `-O<n>` forms, --no-x / --enable/--disable pairs,
--model moved to the front, --served-model-name without a model, --task hints,
--config YAML files (written for the real parser, passed parsed to the oracle),
good and bad values for every type kind, LoRA modules, unknown options, --help),
parse each with the real parser (`top.parse_args(["serve", *argv])`) and with the
oracle (a subprocess reading the schema file), and compare:
  * ok/ok: the namespaces must be identical (canonical JSON; a vLLM config dataclass
    value must equal the class validated from the oracle's {"$config", "input"});
  * error/error: agreement; the message text is compared too and reported;
  * real error from pydantic config validation where the oracle accepted: counted
    separately as a known gap (the oracle does not re-implement pydantic);
  * anything else is a disagreement.
Exit status 1 when any version disagrees on any vector.
"""

import argparse
import contextlib
import dataclasses
import enum
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ORACLE = os.path.join(REPO, "tests", "oracle", "vllm_argparse_oracle.py")
sys.path.insert(0, HERE)

POOLS = {
    "int": (["0", "1", "2", "8", "64", "-1", "+3", " 4 ", "1_000", "٣"], ["abc", "1.5", "", "0x10", "1k"]),
    "float": (["0.9", "0.90", "1", "1e-3", "nan", "inf", "-0.5", ".5", "1_0.5"], ["abc", "", "1,5"]),
    "human_readable_int": (["1k", "1K", "25.6k", "1.1k", "0.3k", "2M", "2m", "1G", "1t", "4096", "-5", " 8k ",
                            "0", "1_000", "1.0000001k", "٣k"], ["1.5K", "1 k", "abc", "k", "", "1kb"]),
    "human_readable_int_or_auto": (["auto", "AUTO", "-1", " -1 ", "32k", "32K", "131072"], ["-2k", "autox"]),
    "json": (["{}", '{"a": 1}', "[1, 2]", "1", "NaN", '"s"', "null", '{"a": {"b": [true, 1.5]}}'], ["{bad", ""]),
    "union_dict_and_str": (['{"a": 1}', "plain", " {} ", "None", "", '{"k": "v"}\n'], ["{bad}", "{ x }"]),
    "reasoning_parser": (["none", "None", "NONE", "deepseek_r1", "qwen3", ""], []),
    "device_ids": (["0,1", "2, 3", "GPU-abc,1", "0", "", "²"], []),
    "str": (["x", "auto", "some/model", "a b", "", "None", "é", "1"], ["-x", "--"]),
    None: (["x", "auto", "some/model", "a b", "", "None", "é", "1"], ["-x", "--"]),
    "lower_underscore": (["auto", "AUTO", "Flashinfer-Cutlass", "triton"], ["nope"]),
}
LORA_VALUES = (["a=b", "name=/p/x", '{"name": "n", "path": "p"}', '{"name": "n", "path": "p", "base_model_name": "b"}', ""],
               ["a=b=c", '{"name": "n"}', "{bad", "[1]", '{"name": "n", "path": "p", "zzz": 1}', "a,b=c"])


def pick(rng, pool, bad_rate=0.15):
    good, bad = pool
    if bad and rng.random() < bad_rate:
        return rng.choice(bad)
    return rng.choice(good)


def base_kind(kind):
    k = kind
    while k and (k.startswith("optional_") or k.startswith("parse_")):
        k = k.split("_", 1)[1]
    return k


# --------------------------------------------------------------------------
# Child: real parser
# --------------------------------------------------------------------------


def canon(value):
    """Real namespace value -> JSON (configs handled by the comparer)."""
    if isinstance(value, enum.Enum):
        return canon(value.value)
    if isinstance(value, float):
        if value != value:
            return {"$float": "nan"}
        if value in (float("inf"), float("-inf")):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [canon(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((canon(v) for v in value), key=lambda x: json.dumps(x, sort_keys=True))
    if isinstance(value, dict):
        return {str(k): canon(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(type(value), "__pydantic_validator__"):
            return {"$real_config": type(value).__name__, "_obj": value}
        return {"$dataclass": type(value).__name__, "fields": {f.name: canon(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    return {"$repr": repr(value)}


def compare(real, oracle, path="$"):
    """Return None when equal, else a description."""
    if isinstance(real, dict) and "$real_config" in real:
        if not (isinstance(oracle, dict) and oracle.get("$config") == real["$real_config"]):
            return f"{path}: real config {real['$real_config']} vs oracle {json.dumps(oracle)[:200]}"
        from pydantic import TypeAdapter

        obj = real["_obj"]
        try:
            mine = TypeAdapter(type(obj)).validate_json(json.dumps(oracle["input"]))
        except Exception as e:  # noqa: BLE001
            return f"{path}: oracle input does not validate: {type(e).__name__}: {str(e)[:200]}"
        if mine != obj:
            # some configs draw random values in __post_init__ (e.g. an engine id):
            # ignore the fields in which two validations of the same input differ
            again = TypeAdapter(type(obj)).validate_json(json.dumps(oracle["input"]))
            names = [f.name for f in dataclasses.fields(obj)]
            unstable = {n for n in names if getattr(mine, n) != getattr(again, n)}
            diff = [n for n in names if n not in unstable and getattr(mine, n) != getattr(obj, n)]
            if diff or not unstable:
                return f"{path}: config values differ in {diff[:5]} (oracle input {json.dumps(oracle['input'])[:200]})"
        return None
    if isinstance(real, dict) and isinstance(oracle, dict):
        if set(real) != set(oracle):
            return f"{path}: keys differ: real-only {sorted(set(real) - set(oracle))[:5]} oracle-only {sorted(set(oracle) - set(real))[:5]}"
        for k in real:
            d = compare(real[k], oracle[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(real, list) and isinstance(oracle, list):
        if len(real) != len(oracle):
            return f"{path}: list lengths differ"
        for i, (a, b) in enumerate(zip(real, oracle)):
            d = compare(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    if json.dumps(real, sort_keys=True) != json.dumps(oracle, sort_keys=True) or type(real) is not type(oracle):
        return f"{path}: real {json.dumps(real)[:200]} vs oracle {json.dumps(oracle)[:200]}"
    return None


def run_real(top, argv, prog_prefix="vllm serve: error: "):
    err = io.StringIO()
    out = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            ns = top.parse_args(["serve", *argv])
    except SystemExit as e:
        if e.code == 0:
            return {"error": "help"}
        text = err.getvalue()
        for prefix in ("vllm serve: error: ", "vllm: error: "):
            i = text.find(prefix)
            if i >= 0:
                return {"error": text[i + len(prefix):].rstrip("\n")}
        return {"error": f"SystemExit {e.code}: {text[-300:]}"}
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"}
    d = vars(ns)
    d.pop("subparser", None)
    return {"ok": {k: canon(v) for k, v in d.items()}}


# --------------------------------------------------------------------------
# Vector generation (in the child: it sees the real config classes)
# --------------------------------------------------------------------------


class Gen:
    def __init__(self, schema, serve, rng):
        self.schema = schema
        self.rng = rng
        self.opts = [o for o in schema["options"] if o["option_strings"]]
        self.all_strings = [s for o in self.opts for s in o["option_strings"]]
        self.by_dest = {o["dest"]: o for o in self.opts}
        self.config_samples = {}
        for a in serve._actions:
            t = a.type
            cls = None
            for _ in range(3):
                if t is None:
                    break
                if getattr(t, "__name__", "") == "parse_dataclass":
                    cls = (t.__defaults__ or (None,))[0]
                    break
                cv = getattr(t, "__closure__", None)
                nxt = None
                for cell in cv or ():
                    try:
                        c = cell.cell_contents
                    except ValueError:
                        continue
                    if callable(c) and c is not t:
                        nxt = c
                t = nxt
            if cls is not None:
                self.config_samples[a.dest] = self._config_values(cls)

    def _config_values(self, cls):
        good = ["{}"]
        ints = []
        for f in dataclasses.fields(cls):
            d = f.default
            if d is dataclasses.MISSING:
                continue
            if hasattr(d, "default"):  # pydantic FieldInfo
                d = getattr(d, "default")
            if isinstance(d, enum.Enum):
                d = d.value if isinstance(d.value, (int, str)) else None
            if isinstance(d, bool) or d is None or isinstance(d, (int, float, str)):
                try:
                    good.append(json.dumps({f.name: d}))
                except (TypeError, ValueError):
                    pass
                if isinstance(d, int) and not isinstance(d, bool) and d >= 0:
                    ints.append(f.name)
        for name in ints[:2]:
            good.append('{"%s": 2k}' % name)
            good.append('{"%s": "2k"}' % name)
        bad = ['{"no_such_key_zz": 1}', "[1]", "{bad", ""]
        return good, bad, [f.name for f in dataclasses.fields(cls)]

    def spelling(self, opt):
        rng = self.rng
        strings = opt["option_strings"]
        s = rng.choice(strings)
        r = rng.random()
        if s.startswith("--") and r < 0.2:
            s = "--" + s[2:].replace("-", "_")
        elif s.startswith("--") and r < 0.35:
            n = rng.randint(3, max(3, len(s) - 1))
            s = s[:n]
        return s

    def value(self, opt):
        rng = self.rng
        kind = opt["type"]
        if opt.get("choices"):
            ch = [c for c in opt["choices"] if isinstance(c, str)]
            if ch and rng.random() < 0.85:
                c = rng.choice(ch)
                if kind == "lower_underscore" and rng.random() < 0.3:
                    c = c.upper().replace("_", "-")
                return c
            return rng.choice(["nope", "AUTO", ""])
        if opt["dest"] in self.config_samples:
            good, bad, _ = self.config_samples[opt["dest"]]
            return pick(rng, (good, bad))
        bk = base_kind(kind) if kind else None
        v = pick(rng, POOLS.get(bk, POOLS[None]))
        if kind and kind.startswith("optional_") and rng.random() < 0.15:
            v = rng.choice(["", "None"])
        return v

    def option_tokens(self, opt):
        rng = self.rng
        s = self.spelling(opt)
        act = opt["action"]
        if act in ("store_true", "store_false", "store_const", "boolean_optional", "enable_disable", "count"):
            if rng.random() < 0.05:
                return [s + "=1"]
            return [s]
        if act.startswith("lora_modules"):
            n = rng.randint(0, 3)
            return [s] + [pick(rng, LORA_VALUES, 0.25) for _ in range(n)]
        nargs = opt["nargs"]
        if nargs in ("+", "*"):
            n = rng.randint(0 if nargs == "*" or rng.random() < 0.1 else 1, 3)
            return [s] + [self.value(opt) for _ in range(n)]
        if isinstance(nargs, int):
            return [s] + [self.value(opt) for _ in range(nargs)]
        if nargs == "?" and rng.random() < 0.3:
            return [s]
        v = self.value(opt)
        if rng.random() < 0.3 and s.startswith("-"):
            return [f"{s}={v}"]
        return [s, v]

    def dotted_tokens(self):
        rng = self.rng
        json_opts = [o for o in self.opts if o["type"] and base_kind(o["type"]) in ("json", "config", "union_dict_and_str")]
        if not json_opts:
            return []
        opt = rng.choice(json_opts)
        head = rng.choice(opt["option_strings"])
        if head.startswith("--") and rng.random() < 0.3:
            head = "--" + head[2:].replace("-", "_")
        fields = self.config_samples.get(opt["dest"], (None, None, ["a", "b", "mode"]))[2] or ["a"]
        key = rng.choice(fields)
        if rng.random() < 0.2:
            key += "." + rng.choice(["x", "y_z"])
        val = rng.choice(["1", "true", "FULL", "80g", "1K", "1.5K", "[1,2]", '{"q": 1}', "x y", "null", "-1", "0.5"])
        if rng.random() < 0.15:
            return [f"{head}.{key}+", rng.choice(["a,b", "1", "x"])]
        if rng.random() < 0.4:
            return [f"{head}.{key}={val}"]
        return [f"{head}.{key}", val]

    def vector(self):
        rng = self.rng
        argv = []
        if rng.random() < 0.8:
            argv.append(rng.choice(["some/model", "Qwen/Qwen3-8B", "m"]))
        n = rng.randint(0, 6)
        for _ in range(n):
            r = rng.random()
            if r < 0.12:
                argv += self.dotted_tokens()
            elif r < 0.17:
                argv += rng.choice([["-O3"], ["-O", "2"], ["-O=1"], ["-Odecode"], ["-O"], ["-O", "x"], ["-O0"]])
            elif r < 0.2:
                argv += rng.choice([["--unknown-opt"], ["--unknown", "1"], ["stray"], ["--task", "embed"], ["--task=x"],
                                    ["--model", "other"], ["--model=other2"], ["-x"], ["--", "a"]])
            else:
                argv += self.option_tokens(rng.choice(self.opts))
        if rng.random() < 0.02:
            argv.append(rng.choice(["-h", "--help", "--help=ModelConfig", "--he"]))
        return argv


FIXED = [
    [],
    ["m"],
    ["m", "-tp", "2"],
    ["m", "--tensor_parallel_size", "4"],
    ["m", "--tensor-parallel-size=8"],
    ["m", "--tp", "2"],
    ["m", "-tp=2"],
    ["m", "-tp2"],
    ["--model", "m", "-tp", "2"],
    ["-tp", "2", "--model=m"],
    ["-tp", "2", "--model"],
    ["-tp", "2", "--served-model-name", "x"],
    ["--served_model_name=x"],
    ["m", "--served-model-name", "a", "b"],
    ["m", "-O3"],
    ["m", "-O", "3"],
    ["m", "-O", "4"],
    ["m", "-O=2"],
    ["m", "-O"],
    ["m", "-Odecode"],
    ["m", "-O.mode", "3"],
    ["m", "--optimization-level", "3"],
    ["m", "--compilation-config", '{"mode": 3}'],
    ["m", "--compilation-config.mode", "3"],
    ["m", "-cc.mode=3", "-cc.cudagraph_mode", "FULL"],
    ["m", "--compilation_config.cudagraph_capture_sizes+", "1,2,4"],
    ["m", "--compilation-config.cudagraph_capture_sizes", "[1,2]", "--compilation-config.cudagraph_capture_sizes", "[4]"],
    ["m", "--compilation-config", '{"mode": 1}', "--compilation-config.cudagraph_mode", "FULL"],
    ["m", "--compilation-config.pass_config.fuse_allreduce_rms", "true"],
    ["m", "--compilation-config.nope", "1"],
    ["m", "--compilation-config.mode"],
    ["m", "--hf-overrides.a.b", "1", "--hf_overrides.a.c", "x"],
    ["m", "--hf-overrides", '{"a": 1}'],
    ["m", "--hf-overrides", "plain"],
    ["m", "--speculative-config.method", "mtp", "-sc.num_speculative_tokens", "3"],
    ["m", "--speculative-config", '{"method": "eagle3", "num_speculative_tokens": 2}'],
    ["m", "--kv-transfer-config.kv_connector", "X"],
    ["m", "--attention-config.backend", "FLASHINFER"],
    ["m", "-ac.backend=FLASH_ATTN"],
    ["m", "--attention_config.backend", "auto"],
    ["m", "--max-model-len", "1k"],
    ["m", "--max-model-len", "1K"],
    ["m", "--max-model-len", "auto"],
    ["m", "--max-model-len", "1.5K"],
    ["m", "--max-model-len", "-1"],
    ["m", "--max_model_len=128k"],
    ["m", "--max-num-batched-tokens", "8k"],
    ["m", "--max-num-batched-tokens", "x"],
    ["m", "--gpu-memory-utilization", "0.9"],
    ["m", "--gpu-memory-utilization", "-0.5"],
    ["m", "--gpu-memory-utilization=-0.5"],
    ["m", "--enable-expert-parallel"],
    ["m", "-ep"],
    ["m", "--no-enable-expert-parallel"],
    ["m", "--disable-expert-parallel"],
    ["m", "-ep", "--disable-expert-parallel", "-ep"],
    ["m", "--enable-expert-parallel=1"],
    ["m", "--enforce-eager", "--no-enforce-eager"],
    ["m", "--no-enforce_eager"],
    ["m", "--enable-prefix-caching", "--no-enable-prefix-caching"],
    ["m", "--disable-log-stats"],
    ["m", "--trust-remote-code"],
    ["m", "--trust"],
    ["m", "--quantization", "fp8"],
    ["m", "-q", "fp8"],
    ["m", "-q", "nope"],
    ["m", "--kv-cache-dtype", "fp8"],
    ["m", "--kv-cache-dtype", "FP8"],
    ["m", "--moe-backend", "FLASHINFER-CUTLASS"],
    ["m", "--moe-backend", "nope"],
    ["m", "-dp", "2", "-ep", "-tp", "4"],
    ["m", "-dcp", "2", "-pcp", "2", "-pp", "2"],
    ["m", "-n", "2", "-r", "1"],
    ["m", "-asc", "4"],
    ["m", "--task", "embed"],
    ["m", "--task=generate"],
    ["m", "--task="],
    ["m", "--unknown"],
    ["m", "extra"],
    ["m", "--port", "8000", "--port=9000"],
    ["m", "--port", "x"],
    ["m", "--host", "0.0.0.0"],
    ["m", "--lora-modules", "a=b", '{"name": "n", "path": "p"}'],
    ["m", "--lora-modules", "a=b=c"],
    ["m", "--lora-modules", '{"name": "n"}'],
    ["m", "--lora-modules", "{bad"],
    ["m", "--lora-modules", "[1]"],
    ["m", "--lora-modules"],
    ["m", "--enable-lora", "--max-loras", "2"],
    ["m", "--tool-call-parser", "hermes", "--enable-auto-tool-choice"],
    ["m", "--reasoning-parser", "none"],
    ["m", "--served-model-name", "a", "--served-model-name", "b"],
    ["m", "--allowed-origins", '["*"]'],
    ["m", "--middleware", "a", "--middleware", "b"],
    ["m", "--device-ids", "0,1"],
    ["m", "--config=x.yaml"],
    ["m", "--config"],
    ["m", "--config", "a.txt"],
    ["m", "--config", "missing.yaml"],
    ["m", "-h"],
    ["m", "--help=all"],
    ["m", "--", "x"],
    ["m", "--=x"],
    ["m", "-"],
    ["m", "-x.y", "1"],
    ["m", "-0.5"],
    ["m", "--a.b"],
    ["m", "--model", "x", "--model", "y"],
    ["--model", "x", "y"],
    ["m", "--mm-processor-kwargs.num_crops", "4"],
    ["m", "--limit-mm-per-prompt", '{"image": 2}'],
    ["m", "--limit_mm_per_prompt.image", "2"],
    ["m", "--override-generation-config", "{bad"],
    ["m", "--data-parallel-hybrid-lb", "-dph"],
    ["m", "--no-data-parallel-hybrid-lb"],
    ["m", "--max-num-seqs", "256", "--max-num-seqs", "128"],
    ["m", "--seed", "None"],
    ["m", "--seed", ""],
]

CONFIG_CASES = [
    ({"model": "cm", "tensor_parallel_size": 2, "enforce-eager": True, "trust-remote-code": False}, ["-tp", "4"]),
    ({"tensor-parallel-size": 2, "compilation-config": {"mode": 3, "cudagraph_mode": "FULL"}}, ["m"]),
    ({"served-model-name": ["a", "b"], "max_model_len": "32k", "port": 8001}, ["m", "--port", "9000"]),
    ({"tensor-parallel-size": 2}, []),
    ({"model": "cm", "enable-expert-parallel": True, "disable-log-stats": False, "gpu-memory-utilization": 0.85}, []),
    ({"model": "cm", "empty-list": [], "seed": None}, ["--seed", "3"]),
    ({"model": "cm", "hf-overrides": {"a": {"b": 1}}}, ["--hf-overrides.a.c", "2"]),
    ({"model": "cm", "compilation_config": {"mode": 3}}, ["-cc.mode", "1"]),
    ({"model": "cm", "unknown-key-zz": 1}, []),
]


# pydantic rejected a config value (ValidationError), or a config validator raised
# TypeError/ValueError outside pydantic (argparse then names the type callable)
CFG_ERR = re.compile(r"^argument [^:]+: (\d+ validation errors? for |invalid (parse_dataclass|_optional_type|_parse_type) value: ')")


def child_main(version, root, schema_path, n, seed, vec_out, res_out):
    import vllm_schema as V

    top, serve, au, entry = V.build_real_parser(root)
    fresh = V.render(V.describe(top, serve, au, entry, root, version))
    with open(schema_path, encoding="utf-8") as f:
        stored = f.read()
    identical = fresh == stored
    schema = json.loads(stored)
    rng = random.Random(seed)
    gen = Gen(schema, serve, rng)
    vectors = [{"argv": v} for v in FIXED]
    tmp = tempfile.mkdtemp(prefix="vllm-oracle-cfg-")
    try:
        import yaml

        for i, (content, rest) in enumerate(CONFIG_CASES):
            path = os.path.join(tmp, f"c{i}.yaml")
            with open(path, "w", encoding="utf-8") as f:
                yaml.safe_dump(content, f, sort_keys=False)
            vectors.append({"argv": ["--config", path, *rest], "files": {path: yaml.safe_load(open(path))}})
            if rest and not rest[0].startswith("-"):
                vectors.append({"argv": [rest[0], "--config", path, *rest[1:]], "files": {path: content}})
            else:
                vectors.append({"argv": ["cli-model", *rest, "--config", path], "files": {path: content}})
        for _ in range(n):
            vectors.append({"argv": gen.vector()})
        results = []
        for v in vectors:
            results.append(run_real(top, v["argv"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(vec_out, "w", encoding="utf-8") as f:
        for v in vectors:
            f.write(json.dumps(v, ensure_ascii=False) + "\n")
    # real results may hold config objects: compare here, after the oracle ran
    proc = subprocess.run([sys.executable, ORACLE, schema_path], input=open(vec_out, encoding="utf-8").read(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"oracle failed: {proc.stderr[-2000:]}")
    oracle = [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]
    assert len(oracle) == len(vectors)
    stats = {"vectors": len(vectors), "ok_ok": 0, "err_err": 0, "msg_diff": 0, "config_gap": 0, "disagree": 0,
             "schema_identical": identical}
    details = []
    norm = lambda m: re.sub(r" at 0x[0-9a-f]+", " at 0x...", m)  # noqa: E731
    for v, r, o in zip(vectors, results, oracle):
        if "ok" in r and "ok" in o:
            d = compare(r["ok"], o["ok"])
            if d:
                stats["disagree"] += 1
                details.append({"argv": v["argv"], "why": d})
            else:
                stats["ok_ok"] += 1
        elif "error" in r and "error" in o:
            stats["err_err"] += 1
            if norm(r["error"]) != norm(o["error"]):
                is_cfg = bool(CFG_ERR.search(r["error"]))
                if is_cfg:
                    stats["config_gap"] += 1
                else:
                    stats["msg_diff"] += 1
                    details.append({"argv": v["argv"], "msg_real": r["error"][:300], "msg_oracle": o["error"][:300]})
        elif "error" in r and CFG_ERR.search(r["error"]):
            stats["config_gap"] += 1
            details.append({"argv": v["argv"], "config_gap": r["error"][:200]})
        else:
            stats["disagree"] += 1
            details.append({"argv": v["argv"], "real": str(r)[:300], "oracle": str(o)[:300]})
    with open(res_out, "w", encoding="utf-8") as f:
        json.dump({"stats": stats, "details": details}, f, ensure_ascii=False, indent=1)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="*", metavar="VERSION")
    ap.add_argument("--root", "--unpacked-root", dest="unpacked_root", required=True,
                    help="release folder of scripts/vllm_release.py (ROOT/VERSION: the unpacked wheel, fetched when missing and kept)")
    ap.add_argument("--schemas", default=os.path.join(REPO, "src", "engine", "vllm", "schemas"))
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", help="write all details (JSON) to this file")
    ap.add_argument("--child", nargs=4, metavar=("ROOT", "SCHEMA", "VEC", "RES"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        root, schema, vec, res = args.child
        return child_main(args.versions[0], root, schema, args.n, args.seed, vec, res)
    versions = args.versions or sorted(
        (f[:-5] for f in os.listdir(args.schemas) if f.endswith(".json")),
        key=lambda v: [int(x) if x.isdigit() else x for x in re.split(r"[.]", v)],
    )
    import vllm_release as _rel

    total = {"vectors": 0, "disagree": 0, "msg_diff": 0, "config_gap": 0}
    report = {}
    bad = False
    for version in versions:
        tmp = tempfile.mkdtemp(prefix=f"vllm-check-{version}-")
        try:
            root = _rel.release_dir(args.unpacked_root, version)
            vec, res = os.path.join(tmp, "vec.jsonl"), os.path.join(tmp, "res.json")
            cmd = [sys.executable, os.path.abspath(__file__), version, "--unpacked-root", args.unpacked_root,
                   "--n", str(args.n), "--seed", str(args.seed), "--child", os.path.abspath(root),
                   os.path.join(args.schemas, f"{version}.json"), vec, res]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
            if proc.returncode != 0:
                bad = True
                print(f"{version}: CHILD FAILED\n{proc.stderr[-3000:]}")
                continue
            data = json.load(open(res, encoding="utf-8"))
            st = data["stats"]
            report[version] = data
            for k in total:
                total[k] += st[k]
            if st["disagree"] or not st["schema_identical"]:
                bad = True
            print(f"{version}: {st['vectors']} vectors, ok/ok {st['ok_ok']}, err/err {st['err_err']} "
                  f"(message differs {st['msg_diff']}), config-validation gap {st['config_gap']}, "
                  f"DISAGREE {st['disagree']}, schema identical {st['schema_identical']}")
            for d in data["details"][:5]:
                if "why" in d or "real" in d:
                    print("   ", json.dumps(d, ensure_ascii=False)[:600])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"TOTAL: {total['vectors']} vectors, {total['disagree']} disagreements, "
          f"{total['msg_diff']} message differences, {total['config_gap']} config-validation gaps")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            json.dump(report, f, ensure_ascii=False, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
