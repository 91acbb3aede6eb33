#!/usr/bin/env python3
"""Dump each vLLM release's real `vllm serve` option table to JSON (dev-time tool).

Usage
-----
    python3 scripts/vllm_schema.py VERSION --root /tmp/vllm-releases --out src/engine/vllm/schemas/
    python3 scripts/vllm_schema.py 0.25.1 --out DIR --unpacked /tmp/vllm-releases/0.25.1

Add one release at a time: the file of each VERSION is written on its own and the
others are not touched. `--root ROOT` is the folder layout shared by the vLLM dump
scripts (scripts/vllm_release.py): ROOT/VERSION is the unpacked wheel, downloaded
(`pip download --no-deps vllm==VERSION` into ROOT/wheels, ~240 MB) and unpacked
without its compiled `.so` files only when missing, and kept when the dump fails
(a rerun after a fix does not download again). `--unpacked DIR` uses an unpacked
wheel elsewhere (DIR contains `vllm/` and `vllm-VERSION.dist-info/`).
When importing vLLM fails (a stub lacks a fact the release needs at import time,
e.g. 0.34's assert on `torch.int32.itemsize`), the error names the line of vLLM
that failed and the stubbed names it read last.
In a fresh child interpreter per version it
builds the serve parser exactly the way `vllm serve` builds it:

    top = FlexibleArgumentParser(prog="vllm"); top.add_argument("-v", "--version", ...)
    sub = top.add_subparsers(required=False, dest="subparser")
    serve = sub.add_parser("serve", ...)          # ServeSubcommand.subparser_init
    serve = make_arg_parser(serve)                 # the function vllm/entrypoints/cli/serve.py imports

and writes `<out>/<VERSION>.json`. `vllm serve ARGV` is `top.parse_args(["serve", *ARGV])`:
the FlexibleArgumentParser preprocessing runs ONCE, on the top-level parser, over the
whole argv (including the word "serve"); argparse then hands everything after
"serve" to the serve sub-parser (parse_known_args), and the top-level parser reports
"unrecognized arguments". Nothing of vLLM's source goes into the output: only facts
about the parser (option strings, dests, defaults, choices, kinds) and a reviewed
description of the preprocessing (see PREPROCESS_VARIANTS).

Python packages needed (pip, in the interpreter that runs this script; Python 3.11):
    pydantic pyyaml regex requests packaging numpy msgspec cachetools cloudpickle
    psutil uvloop fastapi uvicorn prometheus_client prometheus-fastapi-instrumentator
    openai aiohttp pyzmq cbor2 blake3 setproctitle partial-json-parser diskcache
    einops watchfiles pybase64 ijson python-json-logger protobuf tqdm filelock
    sentencepiece tiktoken lark orjson py-cpuinfo openai-harmony gguf jinja2
(the stub classes come from scripts/sglang_schema.py, imported, not copied)
Not needed: torch, triton, transformers, tokenizers, huggingface-hub, safetensors,
xgrammar, llguidance, Pillow (stubbed, see below).

Stubs and platform
------------------
A meta-path finder answers imports of the heavy packages (STUBS below) and of the
wheel's compiled extension modules (every `.so` listed in the wheel's RECORD, e.g.
`vllm._C`, `vllm._moe_C`, `vllm.vllm_flash_attn._vllm_fa2_C`) with permissive stub
modules (the stub classes of scripts/sglang_schema.py: attribute access yields stub
classes that can be called, subclassed, used as decorators, compared, iterated
(empty) and are falsy). `torch.library.infer_schema` is answered from the Python
signature (vLLM's IR op registry compares schemas at import time).

Building the parser needs a platform: `EngineArgs.add_cli_args` instantiates the
config classes' default factories, and `DeviceConfig` refuses to guess a device on
an "unspecified" platform (a CPU-only machine with the CUDA wheel). The script
emulates a CUDA machine with one GPU: `vllm.third_party.pynvml` is replaced by a
fake NVML (`nvmlInit`/`nvmlShutdown` do nothing, `nvmlDeviceGetCount() == 1`),
so vLLM's own detection picks its CUDA platform; torch is stubbed with
`torch.cuda.is_available() -> True`, `torch.version.cuda == "12.9"`,
`torch.version.hip is None`. The file records this as `"platform": "cuda"`.
Parser-level defaults do not depend on the GPU model in the bundled releases (the
platform-dependent choices happen later, in `create_engine_config`).

The script refuses to write a file in which any default/choice/const is a stub
object, and refuses custom actions, type callables and preprocessing code whose
source (AST, docstrings removed) has not been reviewed (see KNOWN_* below): a new
release with changed semantics must be reviewed and added by hand.

Output format
-------------
Top level:
  engine ("vllm"), version, source, generator, python (major.minor of the
  interpreter whose argparse was used), platform, entry (module/function of
  make_arg_parser in that release), parser ({"prog": "vllm serve", ...}),
  allow_abbrev, help, preprocess (the FlexibleArgumentParser facts of that
  release: see PREPROCESS_DOC), positional_model, short_forms, optimization_flag,
  json_options, human_readable_int_options, boolean_options, action_kinds,
  type_kinds, value_encoding, options.

`options` lists every action of the serve parser in parser order (the order
matters to argparse), except -h/--help. Keys per option, always present:
option_strings (EVERY string registered with the parser for that action, in
registration order, which is the order argparse lists abbreviation candidates
in), dest, action, nargs, const, type, default, choices, required.
Optional keys: display_option_strings (what argparse prints in "argument X/Y: ..."
messages when it differs from option_strings: 0.33's EnableDisableAction hides
`--no-enable-x`/`--no-disable-x`), negative_option_strings (enable_disable: the
strings that store false), custom_action (class name), deprecated (true: vLLM's
`deprecated=True`, which only logs a warning), type_params, default_repr (repr of a
default that is not plain JSON, e.g. an enum inside), choices_repr.
`default` is what the parser holds (argparse.SUPPRESS is "==SUPPRESS=="); a
default that is a vLLM config dataclass instance is written as
{"$config": CLASS, "input": {}} (it equals the class validated from "{}", which the
script checks). Note argparse applies `type` to a *string* default of an option
that is not given on the command line.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import glob
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import typing
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sglang_schema as _sg  # noqa: E402  (stub classes only)
import vllm_release as _rel  # noqa: E402  (the folder layout)

GENERATOR = "scripts/vllm_schema.py"

STUBS = (
    "torch", "triton", "transformers", "huggingface_hub", "safetensors", "PIL",
    "xgrammar", "llguidance", "tokenizers", "torchvision", "torchaudio", "flashinfer",
    "mistral_common", "outlines_core", "compressed_tensors", "depyf", "numba", "ray",
    "cv2", "librosa", "soundfile", "scipy", "timm", "deep_gemm", "kernels", "aiter",
    "amdsmi", "quack", "cutlass", "cuda", "nvidia", "apache_tvm_ffi", "tvm_ffi",
    "tilelang", "helion", "model_hosting_container_standards", "anthropic", "mcp",
    "grpc", "opentelemetry", "lm_format_enforcer", "nixl", "lmcache", "fastsafetensors",
    "runai_model_streamer", "tensorizer", "bitsandbytes", "vllm_omni", "datasets",
)

# --------------------------------------------------------------------------
# Documentation copied into every schema file
# --------------------------------------------------------------------------

ACTION_KINDS = {
    "store": "argparse 'store': consumes values per nargs (none given: exactly one; '?': zero or one, with const stored when the option is given without a value), applies type, checks choices, stores the value (a list when nargs is a number/'*'/'+').",
    "store_true": "argparse 'store_true': consumes no value, stores true.",
    "store_false": "argparse 'store_false': consumes no value, stores false.",
    "store_const": "argparse 'store_const': consumes no value, stores const.",
    "append": "argparse 'append': like store but appends the value to a list (a copy of the default list).",
    "count": "argparse 'count': consumes no value, increments an integer.",
    "boolean_optional": "argparse.BooleanOptionalAction: option_strings holds --x and --no-x (and any short form, which has no --no- twin); a string starting with '--no-' stores false, any other stores true; consumes no value (`--x=v` is the argparse error \"argument --x/--no-x: ignored explicit argument 'v'\").",
    "enable_disable": "vLLM EnableDisableAction (0.33+; it replaces every BooleanOptionalAction): a BooleanOptionalAction whose --enable-x also registers --disable-x (and --disable-x also registers --enable-x). option_strings holds every registered string (--x, --no-x, short forms, the inverse); the strings in negative_option_strings store false, every other stores true; consumes no value. argparse messages name the action by display_option_strings (--no-enable-x / --no-disable-x are accepted but hidden).",
    "lora_modules_v1": "As lora_modules_v2, except that 'name=path' is split at EVERY '=': a value with '=' and no ',' but more than one '=' makes the parser crash with ValueError('too many values to unpack (expected 2)') (not an argparse error).",
    "lora_modules_v2": "vLLM LoRAParserAction (nargs '+'): stores a NEW list built from the values in order: a value that is '' is skipped; a value containing '=' and no ',' is 'name=path' (split at the first '=') -> LoRAModulePath(name, path); any other value is json.loads'ed (Python json) and passed as keyword arguments to LoRAModulePath (a plain dataclass, fields and defaults in type_params.fields; no type checks). json.JSONDecodeError -> parser.error('Invalid JSON format for --lora-modules: <value>'); a TypeError (not an object, unknown key, missing name/path) -> parser.error('Invalid fields for --lora-modules: <value> - <TypeError text>'). Values are written as {\"$dataclass\": \"LoRAModulePath\", \"fields\": {...all fields...}}.",
}

TYPE_KINDS = {
    "int": "Python int(s): optional surrounding whitespace, optional sign, decimal digits (Unicode digits allowed), single underscores between digits; else argparse error \"argument X: invalid int value: 's'\".",
    "float": "Python float(s): decimal/exponent forms, 'inf', 'nan', 'infinity' (any case), whitespace and underscores between digits allowed; else \"argument X: invalid float value: 's'\".",
    "str": "Python str: the string unchanged.",
    "json": "json.loads(s) (Python json: surrounding whitespace allowed, NaN/Infinity/-Infinity accepted, ints of any size); any JSON value; on error \"argument X: invalid loads value: 's'\".",
    "human_readable_int": "vLLM human_readable_int: s = s.strip(); if s fully matches the regex (\\d+(?:\\.\\d+)?)([kKmMgGtT]) (\\d: any Unicode decimal digit): a lower-case suffix k/m/g/t multiplies by 10**3/10**6/10**9/10**12 computed as int(float(number) * mult) (float rounding: '1.1k' -> 1100, '0.3k' -> 300, '1.0000001k' -> 1000); an upper-case suffix K/M/G/T multiplies by 2**10/2**20/2**30/2**40 and requires an integer number (int(number) * mult); a decimal number there -> ArgumentTypeError \"Decimals are not allowed with binary suffixes like <S>. Did you mean to use <number><s> instead?\" (<s> the lower-cased suffix). Otherwise int(s) (Python int rules, so '-5', '+5', '1_000' are accepted) and a ValueError gives argparse's \"argument X: invalid human_readable_int value: 's'\".",
    "human_readable_int_or_auto": "vLLM human_readable_int_or_auto: s = s.strip(); s == '-1' or s.lower() == 'auto' -> -1; else human_readable_int(s) (argparse names it in errors: \"invalid human_readable_int_or_auto value: 's'\", where 's' is the ORIGINAL string).",
    "union_dict_and_str": "vLLM union_dict_and_str: if s does not match the regex (?s)^\\s*{.*}\\s*$ -> s unchanged (a string); else optional_json(s): '' or 'None' -> null, else json.loads(s), a ValueError -> ArgumentTypeError 'Value <s> cannot be converted to <function loads at 0x...>.' (address varies).",
    "reasoning_parser": "vLLM parse_reasoning_parser: s.lower() == 'none' -> '' (unset); else s unchanged.",
    "lower_underscore": "vLLM lambda s: s.lower().replace('-', '_') (then argparse checks choices).",
    "device_ids": "vLLM --device-ids lambda: s.split(','), each part .strip()'ed; a part whose str.isdigit() is true (Unicode digits count) -> int(part), else the string; returns the list. Never fails.",
    "config": "vLLM parse_dataclass for a config class (type_params.class): the string (after expand_numbers, see type_params.expand_numbers) is validated with pydantic TypeAdapter(class).validate_json; the value is an instance of the class. Errors -> ArgumentTypeError(repr(pydantic ValidationError)) (the message is pydantic's, not reproduced here). The class forbids unknown keys when type_params.extra == 'forbid' (type_params.fields lists the top-level field names). Values are written as {\"$config\": CLASS, \"input\": <the JSON object that was validated>}. A stdlib re-implementation can only check: valid JSON, an object, known top-level keys; the deeper pydantic validation (field types, enums, validators) is NOT reproduced. expand_numbers: before validation, outside of double-quoted JSON strings every token matching \\b\\d+(?:\\.\\d+)?[kKmMgGtT]\\b is replaced by str(human_readable_int(token)).",
}

TYPE_WRAPPERS = {
    "parse_": "parse_<K>: vLLM parse_type(K): K(s); a ValueError (json.JSONDecodeError and pydantic ValidationError are ValueErrors) -> ArgumentTypeError 'Value <s> cannot be converted to <repr of K>.' (type_params.return_type_reprs[i], i = how many parse_/optional_ wrappers stand before this one in the kind name; a function repr holds a run-dependent address, written here as 0x...). argparse names a type callable in \"invalid <name> value: 's'\" messages (raised for ValueError/TypeError that no wrapper converted): _parse_type, _optional_type, human_readable_int, human_readable_int_or_auto, union_dict_and_str, parse_reasoning_parser, parse_dataclass, <lambda>.",
    "optional_": "optional_<K>: vLLM optional_type(K): s == '' or s == 'None' -> null; else parse_<K>(s).",
}

VALUE_ENCODING = {
    "$config": "{\"$config\": CLASS, \"input\": OBJ}: an instance of vLLM config dataclass CLASS validated (pydantic, JSON mode) from the JSON object OBJ.",
    "$dataclass": "{\"$dataclass\": CLASS, \"fields\": {name: value}}: a plain dataclass instance with all its fields.",
    "$float": "{\"$float\": \"nan\" | \"inf\" | \"-inf\"}: a float JSON cannot hold.",
    "$repr": "{\"$repr\": TEXT}: an opaque Python object (e.g. a sentinel default such as UNSET) shown by its repr; it is not a string, so argparse does not apply the option's type to it.",
}

PREPROCESS_DOC = {
    "scope": "FlexibleArgumentParser.parse_args runs on the top-level `vllm` parser with args = ['serve', *ARGV]; the steps below run in this order, then argparse parses the result (the serve sub-parser gets everything after 'serve'). A step that raises a non-argparse exception makes `vllm serve` crash (an error either way).",
    "model_option_moved": "If some arg fully matches ^--model(=.+|$) (the FIRST such, exact spelling: --model or --model=X; not --model_x, not an abbreviation): with '--model' the model is the next arg (IndexError when there is none), with '--model=X' it is X; the one or two tokens are removed and the model is inserted right after 'serve' (before everything else). A later second --model stays where it is and is then parsed as an option.",
    "served_model_name_check": "After that: if ARGV is not empty, its first arg starts with '-', no arg fully matches ^--config(=.+|$) and some arg fully matches ^--served[-_]model[-_]name(=.+|$) -> ValueError('`model` should be provided as the first positional argument when using `vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.').",
    "task_hint": "(when true) before the --config step: remember whether some arg after 'serve' fully matches ^--task(=.+|$). If argparse later fails with 'unrecognized arguments: ...' and that was remembered or the message matches (^|\\s)--task(=|\\s|$), the message gets the suffix '\\n\\nHint: --task is not a vllm serve option. For embedding, reranking, or reward models, use --runner pooling. To adapt a generative model for pooling, also use --convert embed, --convert classify, or --convert reward.' (the condition also holds for errors of the serve parser itself, whose prog ends with ' serve', but only 'unrecognized arguments' errors qualify and those come from the top-level parser).",
    "config_file": "If the exact token '--config' is among the args (not '--config=F', which is simply stored as the serve parser's --config value; not an abbreviation): more than one '--config' -> AssertionError('More than one config file specified!'); '--config' last -> ValueError('No config file specified! Please check your command-line arguments.'); F = next arg; F's extension (text after its last '.') must be yaml or yml (else ValueError('Config file must be of a yaml/yml type. <ext> supplied')); the YAML mapping is read (yaml.safe_load) and each key/value in order becomes tokens: bool true -> ['--KEY'], bool false -> nothing (see config_false_bool), list -> ['--KEY', str(item)...] (nothing for an empty list), dict -> ['--KEY', json.dumps(value)], other -> ['--KEY', str(value)] (Python str: None -> 'None', 1.0 -> '1.0'). Placement: the model is 'in the CLI' when args[1] exists and does not start with '-'; when it is not and no config token equals '--model' -> ValueError('No model specified! Please specify model either as a positional argument or in a config file.'). With the model in the CLI: ['serve', MODEL, *config_tokens, *rest]; otherwise ['serve', *config_tokens, *rest]; rest = the other args without '--config F'. Config keys are written with '--' + key and then go through the underscore step like any arg.",
    "config_false_bool": "'dropped': a false boolean in the config file is dropped. 'no_flag_if_known': '--no-KEY' is added if that string is an option of the parser running parse_args; for `vllm serve` that is the top-level parser, which has no such options, so false booleans are still dropped (they are converted only when the serve parser itself parses, e.g. python -m vllm.entrypoints.openai.api_server).",
    "underscores": "Every arg starting with '--': the part before the first '=' (if any) has, from after its first '--' up to its first '.', every '_' replaced by '-' (regex (?<=--)[^.]* applied once). Args not starting with '--' are unchanged. An arg starting with '--help=' becomes '--help' (help is printed).",
    "optimization_flag": "An arg starting with '-O' other than '-O' itself becomes ['--optimization-level', X] with X = arg[3:] if arg[2] == '=' else arg[2:] (so '-O3' -> 3, '-O=3' -> 3, '-Odecode' -> 'decode', '-O.mode' -> '.mode'); '-O' followed by '0', '1', '2' or '3' becomes '--optimization-level' (the digit stays the next arg); a lone '-O' otherwise stays as it is.",
    "dotted_json": "Then, scanning the processed args left to right (skipping args consumed as values): an arg starting with '--' without '.' is a plain arg. An arg starting with '-' and containing '.' (this includes negative numbers such as '-0.5' and values like '-x.y') is a dotted key: if it contains '=', KEY=VALUE split at the first '=' (if KEY has no '.', it is left alone as a plain arg); otherwise VALUE is the next arg (IndexError if none), consumed. If KEY ends with '+', the '+' is removed and VALUE becomes json.dumps(VALUE.split(',')) (a list of strings). KEY is split at '.' into HEAD (e.g. '--compilation-config', or '-cc') and sub-keys; VALUE is json.loads'ed (Python json), and if that fails see dotted_value_fallback; the nested dict {k1: {k2: ... VALUE}} is merged into the dict of HEAD (recursive: dict into dict merges, list into list concatenates, anything else replaces). All dotted args (and their consumed values) are removed; at the END, for each HEAD in first-seen order, the two args HEAD, json.dumps(merged dict) are appended. HEAD is used verbatim (a short form or an abbreviation works as argparse resolves it later). Duplicates only log a warning.",
    "dotted_value_fallback": "'string': a VALUE that is not valid JSON is kept as the string. 'human_readable_int_then_string': human_readable_int(VALUE) is tried first (so '80g' -> 80000000000, '1K' -> 1024), then the string.",
}

# Reviewed preprocessing code (AST hashes, docstrings removed) -> facts.
PARSE_ARGS_VARIANTS = {
    "545d02802e": {"dotted_value_fallback": "string", "task_hint": False},
    "862be53fce": {"dotted_value_fallback": "human_readable_int_then_string", "task_hint": False},
    "08d2a53442": {"dotted_value_fallback": "human_readable_int_then_string", "task_hint": True},
}
PULL_CONFIG_VARIANTS = {"74928627e6", "ef38c7212c"}  # same semantics for `serve`
LOAD_CONFIG_VARIANTS = {"4db0875711": "dropped", "9fdfdb354e": "no_flag_if_known"}
ERROR_VARIANTS = {None: False, "b595ebdabc": True}
ENABLE_DISABLE_VARIANTS = {"a36b7963ad"}
REGISTER_ACTION_VARIANTS = {"7c51307589"}
# c1e63a6500: add_parser("serve", ...) + make_arg_parser; 35758bd6a1 (0.18, 0.19): the
# same, then `--grpc` (store_true) added after make_arg_parser. The real method is called.
SUBPARSER_INIT_VARIANTS = {"c1e63a6500", "35758bd6a1"}

KNOWN_FUNCS = {
    # qualname: {ast hash: kind}
    "human_readable_int": {"c7554ef71c": "human_readable_int"},
    "human_readable_int_or_auto": {"34c87e66be": "human_readable_int_or_auto"},
    "union_dict_and_str": {"e91869828b"},
    "parse_reasoning_parser": {"8240941530"},
    "parse_type": {"2ca0247bfe"},
    "optional_type": {"74b2445680"},
    # 554fcf3b6c (0.17-0.19): validate_json(s); 9128841ae6 (0.20+): expand numbers first
    "parse_dataclass": {"554fcf3b6c", "9128841ae6"},
    "_expand_json_human_readable_numbers": {"69968baae2"},
}
KNOWN_LAMBDAS = {"97710a58e0"}
KNOWN_ACTIONS = {
    # 3f9fe0e865 (up to 0.29): 'name=path' split at EVERY '=' (more than one '=' ->
    # ValueError crash); 2738f2421a (0.30+): split at the first '='.
    "LoRAParserAction": {"3f9fe0e865": "lora_modules_v1", "2738f2421a": "lora_modules_v2"},
    "DeprecatedLogConfigFileAction": {"f5001dc250": "store"},
}

STANDARD_ACTIONS = {
    argparse._StoreAction: "store",
    argparse._StoreConstAction: "store_const",
    argparse._StoreTrueAction: "store_true",
    argparse._StoreFalseAction: "store_false",
    argparse._AppendAction: "append",
    argparse._CountAction: "count",
    argparse.BooleanOptionalAction: "boolean_optional",
}

REVIEW = os.environ.get("VLLM_SCHEMA_REVIEW") == "1"
_review_notes = []


def _check(table, name, h, where):
    if h in table:
        return True
    if REVIEW:
        _review_notes.append(f"UNREVIEWED {name} {h} ({where})")
        return False
    raise SchemaError(f"{where}: {name} has unreviewed source (ast hash {h}); review it and add it to the KNOWN tables")


# --------------------------------------------------------------------------
# Stubs
# --------------------------------------------------------------------------


def _infer_schema(fn, *args, **kwargs):
    sig = inspect.signature(fn)
    params = ", ".join(f"{p.name}={p.default!r}" for p in sig.parameters.values())
    ret = sig.return_annotation
    if isinstance(ret, str):
        n = ret.count("Tensor")
    elif ret is None or ret is inspect.Signature.empty:
        n = 0
    elif typing.get_origin(ret) is tuple:
        n = len(typing.get_args(ret))
    else:
        n = 1
    rets = "()" if n == 0 else ("Tensor" if n == 1 else "(" + ", ".join(["Tensor"] * n) + ")")
    return f"({params}) -> {rets}"


# Versions the stubbed packages pretend to have (importlib.metadata and __version__):
# the wheel's own pins (==X) or lower bounds (>=X) from its METADATA, else these.
FAKE_VERSIONS = {
    "torch": "2.10.0", "triton": "3.5.1", "transformers": "4.57.1", "huggingface_hub": "0.36.0",
    "tokenizers": "0.22.1", "torchvision": "0.25.0", "torchaudio": "2.10.0", "safetensors": "0.6.2",
    "xgrammar": "0.1.25", "llguidance": "1.3.0", "pillow": "12.0.0", "flashinfer_python": "0.5.3",
    "mistral_common": "1.8.5", "compressed_tensors": "0.12.2", "depyf": "0.20.0",
}
_DIST_OF_MODULE = {"PIL": "pillow", "flashinfer": "flashinfer_python"}


def _norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def fake_versions(root):
    out = dict(FAKE_VERSIONS)
    for meta in glob.glob(os.path.join(root, "vllm-*.dist-info", "METADATA")):
        for line in open(meta, encoding="utf-8"):
            m = re.match(r"Requires-Dist: ([A-Za-z0-9_.-]+)\s*(?:\[[^]]*\])?\s*([^;]*)(;.*)?$", line.strip())
            if not m or (m.group(3) and "extra ==" in m.group(3)):
                continue
            name = _norm(m.group(1))
            if name not in out:
                continue
            spec = m.group(2)
            pin = re.search(r"==\s*([0-9][0-9.]*)", spec) or re.search(r">=\s*([0-9][0-9.]*)", spec)
            if pin:
                out[name] = pin.group(1)
    return out


_VERSIONS = dict(FAKE_VERSIONS)


class _FakeDist(importlib.metadata.Distribution):
    def __init__(self, name, version):
        self._name, self._version = name, version

    def read_text(self, filename):
        if filename == "METADATA":
            return f"Metadata-Version: 2.1\nName: {self._name}\nVersion: {self._version}\n"
        return None

    def locate_file(self, path):
        return None


# torch's dtypes with their real itemsize: scripts/sglang_schema.py (TORCH_DTYPES).
_TorchDtype, TORCH_DTYPES, _torch_dtypes = _sg.TorchDtype, _sg.TORCH_DTYPES, _sg.torch_dtypes


def trace_stubs():
    """Record every attribute vLLM reads from a stub (scripts/sglang_schema.py)."""
    _sg.trace_stubs()


def import_failure(exc, root):
    """A SchemaError naming the module vLLM lacks, or where importing it failed and the
    stubbed names read last (see TORCH_DTYPES and _Loader for the facts stubs give)."""
    return _sg.import_failure(exc, root, "vLLM", "scripts/vllm_schema.py")


class _Loader(_sg._StubLoader):
    def exec_module(self, module):
        name = module.__name__
        top = name.split(".")[0]
        if name == top:
            module.__version__ = _VERSIONS.get(_norm(_DIST_OF_MODULE.get(top, top)), "1.0.0")
        if name == "torch":
            for dtype_name, dtype in _torch_dtypes().items():
                setattr(module, dtype_name, dtype)
            import torch.backends.mps  # noqa: F401
            import torch.cpu  # noqa: F401
            import torch.cuda  # noqa: F401
            import torch.library  # noqa: F401
            import torch.mps  # noqa: F401
            import torch.version  # noqa: F401
            import torch.xpu  # noqa: F401
        elif name == "torch.version":
            module.hip = None
            module.cuda = "12.9"
            module.git_version = "0" * 40
            module.__version__ = _VERSIONS["torch"]
        elif name == "torch.cuda":
            module.is_available = lambda: True
            module.device_count = lambda: 1
        elif name in ("torch.xpu", "torch.mps", "torch.backends.mps"):
            module.is_available = lambda: False
            module.device_count = lambda: 0
        elif name == "torch.cpu":
            module.is_available = lambda: True
        elif name == "torch.library":
            module.infer_schema = _infer_schema
        elif name == "triton":
            import triton.runtime.driver  # noqa: F401


class _NvmlLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return _sg._StubModule(spec.name)

    def exec_module(self, module):
        class NVMLError(Exception):
            pass

        module.NVMLError = NVMLError
        module.nvmlInit = lambda *a, **k: None
        module.nvmlShutdown = lambda *a, **k: None
        module.nvmlDeviceGetCount = lambda: 1
        module.nvmlDeviceGetCudaComputeCapability = lambda handle: (10, 0)
        module.nvmlDeviceGetName = lambda handle: "NVIDIA B200"
        module.nvmlDeviceGetMemoryInfo = lambda handle: type("MemInfo", (), {"total": 192 * 2**30, "free": 192 * 2**30, "used": 0})()


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, names, extensions):
        self.names = set(names)
        self.extensions = set(extensions)

    def find_spec(self, fullname, path, target=None):
        if fullname == "vllm.third_party.pynvml":
            return importlib.machinery.ModuleSpec(fullname, _NvmlLoader())
        if fullname in self.extensions or fullname.split(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
        return None

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        name = context.name
        if name is None:
            return iter(())
        n = _norm(name)
        stubbed = {_norm(_DIST_OF_MODULE.get(m, m)) for m in self.names}
        if n in stubbed and n in _VERSIONS:
            return iter([_FakeDist(name, _VERSIONS[n])])
        return iter(())


def compiled_extensions(root):
    out = set()
    for record in glob.glob(os.path.join(root, "vllm-*.dist-info", "RECORD")):
        for line in open(record, encoding="utf-8"):
            path = line.split(",")[0]
            if path.endswith(".so") or ".so." in path:
                out.add(path.split(".")[0].replace("/", "."))
    return out


def _is_stub(value):
    return isinstance(value, (_sg._Stub, _sg._StubMeta, _sg._StubModule, _TorchDtype))


# --------------------------------------------------------------------------
# AST helpers
# --------------------------------------------------------------------------


def _strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def ast_hash_node(node):
    tree = _strip_docstrings(ast.parse(ast.unparse(node)))
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:10]


def ast_hash_obj(obj):
    return ast_hash_node(ast.parse(textwrap.dedent(inspect.getsource(obj))))


def find_def(path, *names):
    """The AST node of NAMES[0] (a module-level def/class), then nested names inside it."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    body = tree.body
    node = None
    for name in names:
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name), None)
        if node is None:
            return None
        body = node.body
    return node


SchemaError = _sg.SchemaError  # one error class for both engines' dumps


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


def is_pydantic_dataclass(obj):
    return dataclasses.is_dataclass(obj) and hasattr(type(obj) if not isinstance(obj, type) else obj, "__pydantic_validator__")


def to_json(value, where):
    """Return (json_value, needs_repr)."""
    if _is_stub(value):
        raise SchemaError(f"{where}: value is a stub object ({value!r}); stubbing changed the parser")
    if value is None or isinstance(value, (bool, str)) and type(value) in (bool, str):
        return value, False
    if isinstance(value, enum.Enum):
        inner, _ = to_json(value.value, where)
        return inner, True
    if isinstance(value, bool):
        return bool(value), True
    if isinstance(value, int):
        return int(value), type(value) is not int
    if isinstance(value, str):
        return str(value), True
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"$float": "nan" if value != value else ("inf" if value > 0 else "-inf")}, False
        return float(value), type(value) is not float
    if isinstance(value, (list, tuple)):
        items = [to_json(v, where) for v in value]
        return [i[0] for i in items], (type(value) is not list) or any(i[1] for i in items)
    if isinstance(value, dict):
        out, flag = {}, type(value) is not dict
        for k, v in value.items():
            if not isinstance(k, str):
                flag = True
            jv, f = to_json(v, where)
            out[str(k)] = jv
            flag = flag or f
        return out, flag
    if isinstance(value, (set, frozenset)):
        items = sorted((to_json(v, where)[0] for v in value), key=lambda x: json.dumps(x, sort_keys=True))
        return items, True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if is_pydantic_dataclass(value):
            from pydantic import TypeAdapter

            fresh = TypeAdapter(cls).validate_json("{}")
            if fresh != value:
                raise SchemaError(f"{where}: config default {cls.__name__} differs from {cls.__name__}() validated from '{{}}'")
            return {"$config": cls.__name__, "input": {}}, False
        fields = {}
        flag = False
        for f in dataclasses.fields(value):
            jv, fl = to_json(getattr(value, f.name), where)
            fields[f.name] = jv
            flag = flag or fl
        return {"$dataclass": cls.__name__, "fields": fields}, flag
    return {"$repr": repr(value)}, True


# --------------------------------------------------------------------------
# Types and actions
# --------------------------------------------------------------------------


def _closure_vars(fn):
    return inspect.getclosurevars(fn).nonlocals


def _fn_repr(obj):
    return re.sub(r" at 0x[0-9a-f]+", " at 0x...", repr(obj))


def describe_type(t, where, params):
    """Kind name of a type callable; fills PARAMS (type_params)."""
    if t is None:
        return None
    if t is int:
        return "int"
    if t is float:
        return "float"
    if t is str:
        return "str"
    if t is json.loads:
        return "json"
    if _is_stub(t):
        raise SchemaError(f"{where}: type is a stub object")
    qual = getattr(t, "__qualname__", None) or repr(t)
    mod = getattr(t, "__module__", "") or ""
    if not mod.startswith("vllm"):
        raise SchemaError(f"{where}: unreviewed type callable {mod}.{qual}")
    if qual == "<lambda>" or qual.endswith(".<lambda>"):
        src = textwrap.dedent(inspect.getsource(t)).strip()
        m = re.search(r"lambda\b.*", src, re.S)
        text = m.group(0) if m else src
        if "s.lower().replace(\"-\", \"_\")" in text:
            return "lower_underscore"
        if "device_id.isdigit()" in text and "split(\",\")" in text:
            h = hashlib.sha256(re.sub(r"\s+", "", text).encode()).hexdigest()[:10]
            _check(KNOWN_LAMBDAS, "device_ids lambda", h, where)
            return "device_ids"
        raise SchemaError(f"{where}: unreviewed lambda type: {text[:200]}")
    name = qual.split(".")[-1]
    if qual in ("human_readable_int", "human_readable_int_or_auto", "union_dict_and_str", "parse_reasoning_parser"):
        h = ast_hash_obj(t)
        _check(KNOWN_FUNCS[qual], qual, h, where)
        if qual == "union_dict_and_str":
            return "union_dict_and_str"
        if qual == "parse_reasoning_parser":
            return "reasoning_parser"
        return qual
    if qual in ("parse_type.<locals>._parse_type", "optional_type.<locals>._optional_type"):
        outer = sys.modules[mod].__dict__[qual.split(".")[0]]
        h = ast_hash_obj(outer)
        _check(KNOWN_FUNCS[qual.split(".")[0]], qual.split(".")[0], h, where)
        inner = _closure_vars(t)["return_type"]
        inner_kind = describe_type(inner, where, params)
        # outermost wrapper first
        params["return_type_reprs"] = [_fn_repr(inner)] + params.get("return_type_reprs", [])
        if qual.startswith("parse_type"):
            return "parse_" + inner_kind
        return "optional_" + inner_kind
    if name == "parse_dataclass":
        h = ast_hash_obj(t)
        _check(KNOWN_FUNCS["parse_dataclass"], "parse_dataclass", h, where)
        cls = t.__defaults__[0] if t.__defaults__ else _closure_vars(t).get("dataclass_cls")
        if cls is None or not dataclasses.is_dataclass(cls):
            raise SchemaError(f"{where}: parse_dataclass without a dataclass")
        src = inspect.getsource(t)
        expand = "_expand_json_human_readable_numbers" in src
        if expand:
            fn = sys.modules[mod].__dict__["_expand_json_human_readable_numbers"]
            _check(KNOWN_FUNCS["_expand_json_human_readable_numbers"], "_expand_json_human_readable_numbers", ast_hash_obj(fn), where)
        cfg = getattr(cls, "__pydantic_config__", {}) or {}
        params["class"] = cls.__name__
        params["module"] = cls.__module__
        params["extra"] = cfg.get("extra")
        params["fields"] = [f.name for f in dataclasses.fields(cls)]
        params["expand_numbers"] = expand
        return "config"
    raise SchemaError(f"{where}: unreviewed type callable {mod}.{qual}")


def registered_strings(parser):
    by_action = {}
    for s, a in parser._option_string_actions.items():
        by_action.setdefault(id(a), []).append(s)
    return by_action


def describe_action(action, parser, reg, where):
    cls = type(action)
    extra = {}
    if cls in STANDARD_ACTIONS:
        return STANDARD_ACTIONS[cls], extra
    name = cls.__name__
    if name == "EnableDisableAction":
        _check(ENABLE_DISABLE_VARIANTS, "EnableDisableAction", ast_hash_obj(cls), where)
        extra["negative_option_strings"] = [s for s in reg if s in action.negative_option_strings]
        if set(extra["negative_option_strings"]) != set(action.negative_option_strings):
            raise SchemaError(f"{where}: negative strings not registered")
        return "enable_disable", extra
    if name not in KNOWN_ACTIONS:
        raise SchemaError(f"{where}: unreviewed custom action class {cls.__module__}.{cls.__qualname__}")
    h = ast_hash_obj(cls)
    _check(KNOWN_ACTIONS[name], name, h, where)
    extra["custom_action"] = name
    if name == "LoRAParserAction":
        mod = sys.modules[cls.__module__]
        lmp = mod.__dict__.get("LoRAModulePath")
        if lmp is None or not dataclasses.is_dataclass(lmp) or hasattr(lmp, "__pydantic_validator__"):
            raise SchemaError(f"{where}: LoRAModulePath is not a plain dataclass")
        fields = []
        for f in dataclasses.fields(lmp):
            entry = {"name": f.name}
            if f.default is not dataclasses.MISSING:
                entry["default"] = to_json(f.default, where)[0]
            elif f.default_factory is not dataclasses.MISSING:  # pragma: no cover
                raise SchemaError(f"{where}: LoRAModulePath default_factory")
            if not f.init:
                raise SchemaError(f"{where}: LoRAModulePath init=False field")
            fields.append(entry)
        extra["type_params_lora"] = {"class": lmp.__name__, "module": lmp.__module__, "fields": fields}
        return KNOWN_ACTIONS[name].get(h, "lora_modules_v2"), extra
    if name == "DeprecatedLogConfigFileAction":
        return "store", extra
    raise SchemaError(name)  # pragma: no cover


def describe_option(action, parser, by_action):
    reg = by_action.get(id(action), [])
    where = "/".join(reg) or action.dest
    kind, extra = describe_action(action, parser, reg, where)
    params = {}
    tkind = describe_type(action.type, where, params)
    if "type_params_lora" in extra:
        params.update(extra.pop("type_params_lora"))
    const_j, const_repr = to_json(action.const, where)
    default_j, default_repr = to_json(action.default, where)
    choices_j, choices_repr = (None, False)
    if action.choices is not None:
        choices_j, choices_repr = to_json(list(action.choices), where)
        choices_repr = choices_repr or type(action.choices) not in (list, tuple)
    if const_repr:
        raise SchemaError(f"{where}: const {action.const!r} is not plain JSON")
    if action.option_strings and sorted(reg) != sorted(set(reg)):
        raise SchemaError(f"{where}: duplicate registration")
    if action.option_strings and not set(action.option_strings) <= set(reg):
        raise SchemaError(f"{where}: option strings not registered")
    opt = {
        "option_strings": reg if action.option_strings else [],
        "dest": action.dest,
        "action": kind,
        "nargs": action.nargs,
        "const": const_j,
        "type": tkind,
        "default": default_j,
        "choices": choices_j,
        "required": bool(action.required),
    }
    if action.option_strings and list(action.option_strings) != reg:
        opt["display_option_strings"] = list(action.option_strings)
    opt.update(extra)
    if action in getattr(parser, "_deprecated", ()):
        opt["deprecated"] = True
    if params:
        opt["type_params"] = params
    if default_repr:
        opt["default_repr"] = repr(action.default)
    if choices_repr:
        opt["choices_repr"] = repr(action.choices)
    return opt


# --------------------------------------------------------------------------
# Building the real parser
# --------------------------------------------------------------------------


def install_stubs(root):
    _VERSIONS.update(fake_versions(root))
    sys.meta_path.insert(0, _Finder(STUBS, compiled_extensions(root)))


def serve_entry(root):
    """(module, function) that vllm/entrypoints/cli/serve.py imports make_arg_parser from."""
    path = os.path.join(root, "vllm", "entrypoints", "cli", "serve.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    module = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "make_arg_parser" for a in node.names):
            module = node.module
    if module is None:
        raise SchemaError("serve.py does not import make_arg_parser")
    init = find_def(path, "ServeSubcommand", "subparser_init")
    if init is None:
        raise SchemaError("ServeSubcommand.subparser_init not found")
    _check(SUBPARSER_INIT_VARIANTS, "ServeSubcommand.subparser_init", ast_hash_node(init), "serve.py")
    return module, "make_arg_parser"


def build_real_parser(root):
    """Import vLLM from ROOT (an unpacked wheel); return (top, serve, argparse_utils, entry)."""
    install_stubs(root)
    sys.path.insert(0, os.path.abspath(root))
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.pop("VLLM_TARGET_DEVICE", None)
    if any("--help" in a for a in sys.argv):
        raise SchemaError("the child's argv must not contain --help (vLLM then builds help texts)")
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    module, func = serve_entry(root)
    trace_stubs()
    try:
        au = importlib.import_module("vllm.utils.argparse_utils")
        mod = importlib.import_module(module)
        cli_serve = importlib.import_module("vllm.entrypoints.cli.serve")
    except SchemaError:
        raise
    except Exception as exc:  # a missing module, an import-time assert: name it
        raise import_failure(exc, root) from exc
    for m in (au, mod):
        if not os.path.abspath(m.__file__).startswith(os.path.abspath(root) + os.sep):
            raise SchemaError(f"imported {m.__file__}, not from {root}")
    top = au.FlexibleArgumentParser(prog="vllm", description="vLLM CLI")
    top.add_argument("-v", "--version", action="version", version="0")
    sub = top.add_subparsers(required=False, dest="subparser")
    serve = cli_serve.ServeSubcommand().subparser_init(sub)
    if getattr(cli_serve, func) is not getattr(mod, func):
        raise SchemaError("serve.py's make_arg_parser is not the one of its import")
    logging.disable(logging.NOTSET)
    return top, serve, au, {"module": module, "function": func}


def preprocess_facts(au):
    path = au.__file__
    cls = find_def(path, "FlexibleArgumentParser")
    meths = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    where = "FlexibleArgumentParser"
    h_parse = ast_hash_node(meths["parse_args"])
    _check(PARSE_ARGS_VARIANTS, "parse_args", h_parse, where)
    _check(PULL_CONFIG_VARIANTS, "_pull_args_from_config", ast_hash_node(meths["_pull_args_from_config"]), where)
    h_load = ast_hash_node(meths["load_config_file"])
    _check(LOAD_CONFIG_VARIANTS, "load_config_file", h_load, where)
    h_err = ast_hash_node(meths["error"]) if "error" in meths else None
    _check(ERROR_VARIANTS, "error", h_err, where)
    variant = dict(PARSE_ARGS_VARIANTS.get(h_parse, {}))
    if variant.get("task_hint") != ERROR_VARIANTS.get(h_err):
        raise SchemaError("parse_args / error task-hint variants disagree")
    reg = find_def(path, "_register_action")
    enable_disable = find_def(path, "EnableDisableAction") is not None
    if reg is not None:
        _check(REGISTER_ACTION_VARIANTS, "_register_action", ast_hash_node(reg), where)
    facts = {
        "model_option_moved": True,
        "served_model_name_check": True,
        "task_hint": variant.get("task_hint"),
        "config_file": True,
        "config_false_bool": LOAD_CONFIG_VARIANTS.get(h_load),
        "underscores": True,
        "help_equals": True,
        "optimization_flag": True,
        "dotted_json": True,
        "dotted_list_plus": True,
        "dotted_value_fallback": variant.get("dotted_value_fallback"),
        "enable_disable": enable_disable,
        "reviewed_hashes": {
            "parse_args": h_parse,
            "load_config_file": h_load,
            "error": h_err,
        },
    }
    return facts


def dump(root, version):
    top, serve, au, entry = build_real_parser(root)
    return describe(top, serve, au, entry, root, version)


def describe(top, serve, au, entry, root, version):
    if serve.allow_abbrev is not True or serve.prefix_chars != "-" or serve.fromfile_prefix_chars is not None:
        raise SchemaError("unexpected parser settings")
    if [a.option_strings for a in top._actions] != [["-h", "--help"], ["-v", "--version"], []]:
        raise SchemaError("unexpected top-level parser")
    by_action = registered_strings(serve)
    options = []
    has_help = False
    for action in serve._actions:
        if type(action) is argparse._HelpAction:
            has_help = True
            continue
        options.append(describe_option(action, serve, by_action))
    pre = preprocess_facts(au)
    dists = glob.glob(os.path.join(root, "vllm-*.dist-info"))
    exact = version
    if len(dists) == 1:
        meta = open(os.path.join(dists[0], "METADATA"), encoding="utf-8").read()
        m = re.search(r"^Version: (.+)$", meta, re.M)
        exact = m.group(1).strip() if m else version
    positional = [o for o in options if not o["option_strings"]]
    if [o["dest"] for o in positional] != ["model_tag"] or positional[0]["nargs"] != "?":
        raise SchemaError(f"unexpected positionals {positional}")
    by_string = {s: o for o in options for s in o["option_strings"]}
    short_forms = {}
    for o in options:
        longs = [s for s in o["option_strings"] if s.startswith("--")]
        for s in o["option_strings"]:
            if not s.startswith("--"):
                short_forms[s] = {"long": longs[0] if longs else None, "dest": o["dest"], "action": o["action"]}
    olevel = by_string.get("--optimization-level")
    json_kinds = {"json", "parse_json", "optional_json", "union_dict_and_str", "config", "optional_config", "parse_config",
                  "optional_parse_json"}
    json_options = [o["option_strings"][0] for o in options if o["option_strings"] and o["type"] in json_kinds]
    hri = [o["option_strings"][0] for o in options if o["option_strings"] and o["type"] and "human_readable_int" in o["type"]]
    booleans = [o["option_strings"][0] for o in options if o["action"] in ("boolean_optional", "enable_disable")]
    used_actions = sorted({o["action"] for o in options})
    used_types = sorted({o["type"] for o in options if o["type"]})
    type_kinds = {}
    for k in used_types:
        base = k
        while True:
            for p in TYPE_WRAPPERS:
                if base.startswith(p) and base[len(p):] in TYPE_KINDS or (base.startswith(p) and any(base[len(p):].startswith(q) for q in TYPE_WRAPPERS)):
                    type_kinds.setdefault(p + "*", TYPE_WRAPPERS[p])
                    base = base[len(p):]
                    break
            else:
                break
        if base not in TYPE_KINDS:
            raise SchemaError(f"undocumented type kind {k}")
        type_kinds[base] = TYPE_KINDS[base]
    return {
        "engine": "vllm",
        "version": exact,
        "source": f"vllm=={exact} wheel from PyPI, vllm serve: {entry['module']}.{entry['function']} on the 'serve' sub-parser",
        "generator": GENERATOR,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "platform": "cuda",
        "entry": entry,
        "parser": {"prog": "vllm serve", "class": "FlexibleArgumentParser", "top_level_prog": "vllm",
                   "top_level_options": ["-h", "--help", "-v", "--version"]},
        "allow_abbrev": True,
        "help": has_help,
        "preprocess": pre,
        "preprocess_doc": PREPROCESS_DOC,
        "positional_model": {
            "dest": "model_tag", "nargs": "?", "default": positional[0]["default"],
            "model_option": "--model" if "--model" in by_string else None,
            "model_dest": by_string["--model"]["dest"] if "--model" in by_string else None,
            "note": "vllm serve uses model_tag when it is not null, else the --model value (EngineArgs default when absent).",
        },
        "short_forms": short_forms,
        "optimization_flag": {
            "meaning": "optimization_level" if olevel else "none",
            "option": "--optimization-level" if olevel else None,
            "dest": olevel["dest"] if olevel else None,
            "type": olevel["type"] if olevel else None,
            "choices": olevel["choices"] if olevel else None,
        },
        "json_options": json_options,
        "human_readable_int_options": hri,
        "boolean_options": booleans,
        "action_kinds": {k: ACTION_KINDS[k] for k in used_actions},
        "type_kinds": type_kinds,
        "value_encoding": VALUE_ENCODING,
        "options": options,
    }


def render(doc):
    lines = ["{"]
    top = [k for k in doc if k != "options"]
    for k in top:
        lines.append(f"  {json.dumps(k)}: {json.dumps(doc[k], ensure_ascii=False)},")
    lines.append('  "options": [')
    opts = doc["options"]
    for i, o in enumerate(opts):
        sep = "," if i + 1 < len(opts) else ""
        lines.append("    " + json.dumps(o, ensure_ascii=False) + sep)
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def check_version_dir(root, version):
    _rel.check_release_dir(root, version)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="+", metavar="VERSION")
    ap.add_argument("--out", required=True)
    ap.add_argument("--root", help="release folder of scripts/vllm_release.py: ROOT/VERSION is the unpacked wheel, "
                    "fetched into ROOT when missing and kept (also when the dump fails)")
    ap.add_argument("--unpacked", help="an unpacked wheel dir (only with one VERSION)")
    ap.add_argument("--unpacked-root", help=argparse.SUPPRESS)  # old name of --root
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        try:
            doc = dump(args.unpacked, args.versions[0])
        finally:
            for note in _review_notes:
                sys.stderr.write(note + "\n")
        if _review_notes:
            return 3
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(render(doc))
        return 0

    if args.unpacked and len(args.versions) != 1:
        ap.error("--unpacked takes exactly one VERSION")
    root_dir = args.root or args.unpacked_root
    if not args.unpacked and not root_dir:
        ap.error("give --root ROOT (downloads kept there) or --unpacked DIR")
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    for version in args.versions:
        tmp = tempfile.mkdtemp(prefix=f"vllm-schema-{version}-")
        try:
            root = args.unpacked or _rel.release_dir(root_dir, version)
            root = os.path.abspath(root)
            check_version_dir(root, version)
            out_tmp = os.path.join(tmp, "out.json")
            cmd = [sys.executable, os.path.abspath(__file__), version, "--child", "--unpacked", root, "--out", out_tmp]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
            if proc.returncode != 0:
                failures += 1
                sys.stderr.write(f"{version}: FAILED (the unpacked wheel stays in {root})\n{proc.stderr[-6000:]}\n")
                continue
            dest = os.path.join(args.out, f"{version}.json")
            shutil.copyfile(out_tmp, dest)
            with open(dest, encoding="utf-8") as f:
                n = len(json.load(f)["options"])
            print(f"{version}: {n} options -> {dest}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
