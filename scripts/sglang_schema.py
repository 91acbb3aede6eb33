#!/usr/bin/env python3
"""Dump each SGLang release's real argparse option table to JSON (dev-time tool).

Usage
-----
    python3 scripts/sglang_schema.py VERSION --root /tmp/dump-cache/sglang --out src/engine/sglang/schemas/
    python3 scripts/sglang_schema.py 0.5.19 --out DIR --unpacked /tmp/sgl/0.5.19
    python3 scripts/sglang_schema.py 0.5.19 --root ROOT --out DIR --real-torch   # see "Stubs"

Add one release at a time: the file of each VERSION is written on its own and the
others are not touched. `--root ROOT` is the folder layout shared by all the dump
scripts (scripts/vllm_release.py; one ROOT per engine): ROOT/VERSION is the unpacked
wheel, downloaded (`pip download --no-deps sglang==VERSION` into ROOT/wheels) and
unpacked only when missing, and kept when the dump fails (a rerun after a fix does
not download again). `--unpacked DIR` uses an unpacked wheel elsewhere (DIR must
contain the `sglang/` package). When importing SGLang fails, the error names the
module that is neither installed nor stubbed, or the line of SGLang that failed and
the stubbed names it read last (a stub that lacks a fact the release needs). In a fresh
child interpreter per version it imports `sglang.srt.server_args`, builds
`argparse.ArgumentParser()`, calls `ServerArgs.add_cli_args(parser)` and writes
`<out>/<VERSION>.json`. Nothing of SGLang's source goes into the output: only
facts about the parser (option strings, dests, defaults, choices, kinds).

Python packages needed (pip, in the interpreter that runs this script):
    numpy orjson psutil pybase64 requests pydantic packaging starlette tqdm
    IPython aiohttp attrs msgspec openai partial_json_parser pyzmq dill
    sentencepiece
That is all in the default (stub) mode. Not needed there: torch, triton,
transformers, tokenizers, huggingface-hub, xgrammar, safetensors, sgl_kernel,
flashinfer, Pillow, torchvision. Python 3.11 (the wheels are cp311).

Stubs
-----
A meta-path finder answers imports of the heavy packages with permissive stub
modules (attribute access yields stub classes that can be called, subclassed,
used as decorators, compared, iterated (empty) and are falsy). Default set:
    torch triton transformers huggingface_hub xgrammar safetensors sgl_kernel
    flashinfer PIL torchvision
The torch stub imitates a CPU-only machine with the PyPI (CUDA) torch wheel:
`torch.version.hip is None`, `torch.version.cuda == "12.8"`,
`torch.cuda/xpu/mps.is_available() -> False`, `torch.cpu.is_available() ->
True`, no `torch.npu/hpu/musa/mlu`, the dtypes with their real `itemsize`
(TORCH_DTYPES, shared with scripts/vllm_schema.py); `triton.runtime.driver.active` raises (no
GPU driver), as real triton does on a CPU machine.
`--real-torch` stubs only sgl_kernel, flashinfer, PIL and torchvision and needs
the real torch (+triton), transformers==5.12.1, tokenizers 0.22.x,
huggingface-hub<2 and xgrammar installed; it was used to cross-check that the
stub mode writes byte-identical files for all bundled versions.
The script refuses to write a file in which any default/choice/const is a stub
object, and refuses custom actions/types whose source (AST, docstrings removed)
it has not been reviewed for (see KNOWN_ACTIONS / KNOWN_TYPES): a new release
with changed semantics must be reviewed and added by hand.

Output format
-------------
Top level: engine, version, source, generator, python (major.minor of the
interpreter whose argparse was used), parser (keyword arguments that
`prepare_server_args` passes to `argparse.ArgumentParser`), allow_abbrev,
help (true when the parser has -h/--help), serve_positional_model (see below),
action_kinds, type_kinds, options.

`options` lists every action in parser order (the order matters to argparse),
except the -h/--help action. Keys per option, always present:
option_strings, dest, action, nargs, const, type, default, choices, required;
optional: custom_action (class name), new_flag, error_message, type_source
(qualified name of a custom type callable), type_params, default_repr (repr of
a default that is not plain JSON), choices_unordered (true when SGLang passes
the choices as a Python set: membership is what counts, but the order in
argparse's "invalid choice" message then varies from run to run; the list is
sorted here), choices_repr (repr of other non-list choices containers).
`default` is what the parser holds (argparse.SUPPRESS is "==SUPPRESS==").
Note argparse applies `type` to a *string* default of an option that is not
given on the command line.

serve_positional_model: true when `sglang serve` rewrites a first argument that
does not start with "-" into `--model-path ARG` before parsing (0.5.16 on);
`python -m sglang.launch_server` never does. Before that, `sglang serve` also
removes `--model-type X` / `--model-type=X` (exact spelling only) in all these
versions.

Action kinds (standard): store, store_const, store_true, store_false, append,
append_const, count, extend, boolean_optional (argparse.BooleanOptionalAction:
`--x` stores True, `--no-x` stores False), version.
Action kinds (SGLang custom classes, see ACTION_KINDS below for the exact text
copied into every file): deprecated_ignore, deprecated_error, lora_paths,
store_const_consuming_value. Custom classes whose behaviour is exactly a
standard kind are written with that kind plus "custom_action":
DeprecatedStoreTrueAction -> store_true, DeprecatedStoreConstAction (nargs=0)
-> store_const with const = its const_value, DeprecatedAliasStoreAction ->
store. They only add a warning on stderr.

Type kinds: int, float, str, json (json.loads), and the SGLang converters
human_readable_int, nullable_str, json_list_type, cuda_graph_config_v1,
cuda_graph_config_v2, cuda_graph_backend (see TYPE_KINDS below).
"""

from __future__ import annotations

import abc
import argparse
import ast
import collections
import enum
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

GENERATOR = "scripts/sglang_schema.py"

# --------------------------------------------------------------------------
# Documentation of kinds (copied into every schema file)
# --------------------------------------------------------------------------

ACTION_KINDS = {
    "store": "argparse 'store': consumes values per nargs (none given: exactly one), applies type, checks choices, stores the value (a list when nargs is set to a number/'*'/'+').",
    "store_const": "argparse 'store_const': consumes no value, stores const.",
    "store_true": "argparse 'store_true': consumes no value, stores true.",
    "store_false": "argparse 'store_false': consumes no value, stores false.",
    "append": "argparse 'append': like store but appends the value to a list (a copy of the default list).",
    "append_const": "argparse 'append_const': consumes no value, appends const.",
    "count": "argparse 'count': consumes no value, increments an integer (None counts as 0).",
    "extend": "argparse 'extend': like append but extends the list with the values.",
    "boolean_optional": "argparse.BooleanOptionalAction: option_strings holds --x and --no-x; --x stores true, --no-x stores false; consumes no value.",
    "version": "argparse 'version': prints the version and exits.",
    "deprecated_ignore": "SGLang DeprecatedAction without error_message: consumes values per nargs (nargs 0 in practice: no value; `--x=v` is then the argparse error \"argument --x: ignored explicit argument 'v'\"), logs a deprecation warning and stores NOTHING: the dest keeps its default (this action's own default is usually ==SUPPRESS==, so the dest may be absent from the namespace).",
    "deprecated_error": "SGLang DeprecatedAction with error_message: consumes values per nargs (0 in practice: no value, `--x=v` is the argparse error \"argument --x: ignored explicit argument 'v'\"), then calls parser.error(error_message): the parse fails with exactly error_message (argparse prints 'prog: error: <error_message>' and exits 2). It fires when argparse reaches the option while consuming argv left to right, so it wins over errors found later (unrecognized arguments and missing required options are only reported after the whole argv is consumed).",
    "lora_paths": "SGLang LoRAPathAction: consumes values per nargs ('*' in practice: zero or more), type applied to each; stores a NEW list (replacing any earlier one): for each value v, s = v.strip() (Python str.strip: Unicode whitespace); if s starts with '{' and ends with '}', json.loads(s) (Python json: accepts NaN/Infinity, big ints) and the result must be an object containing both keys 'lora_path' and 'lora_name', stored as that object; otherwise the stripped string is stored. Invalid JSON raises json.JSONDecodeError and a missing key raises AssertionError: neither is an argparse error, the real parser crashes with that exception (an error either way). No values -> [].",
    "store_const_consuming_value": "SGLang DeprecatedStoreConstAction with nargs=None: consumes exactly one value like 'store' (type and choices are checked: an invalid choice is the usual argparse error), then stores const (its const_value), discarding the value.",
}

TYPE_KINDS = {
    "int": "Python int(s): optional surrounding whitespace, optional sign, decimal digits (Unicode digits allowed), single underscores between digits allowed; else argparse error \"argument X: invalid int value: 's'\".",
    "float": "Python float(s): decimal/exponent forms, 'inf', 'nan', 'infinity' (any case), whitespace and underscores between digits allowed; else \"argument X: invalid float value: 's'\".",
    "str": "Python str: the string unchanged.",
    "json": "json.loads(s) (Python json: surrounding whitespace allowed, NaN/Infinity/-Infinity accepted, ints of any size); any JSON value is returned; on error argparse reports \"argument X: invalid loads value: 's'\".",
    "human_readable_int": "SGLang human_readable_int: s = s.strip(); if s fully matches the Python regex (\\d+(?:\\.\\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T) (\\d is any Unicode decimal digit; suffixes case-sensitive): IEC suffix Ki/Mi/Gi/Ti (x 2**10/2**20/2**30/2**40) with a '.' in the number -> ArgumentTypeError \"Decimals are not allowed with IEC suffixes like '<suffix>'. Use an integer IEC value such as '<int(Decimal(number))><suffix>', or an SI value such as '<number><suffix[0]>'.\"; IEC integer -> int(number) * multiplier; SI suffix k/M/G/T (x 10**3/10**6/10**9/10**12) -> int(Decimal(number) * multiplier) (truncated toward zero, e.g. '1.5555k' -> 1555). Otherwise int(s) (Python int rules, so '-5', '+5', '1_000' are accepted); if that fails -> ArgumentTypeError \"Invalid integer value: '<s>'. Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). Suffixes are case-sensitive.\" (argparse prefixes 'argument X: ').",
    "nullable_str": "SGLang nullable_str: '' or 'None' -> null; any other string unchanged.",
    "json_list_type": "SGLang json_list_type: orjson.loads(s); ANY JSON value is returned (the name says list but nothing checks it). orjson differs from Python json: NaN/Infinity are rejected, integers must fit in int64 (or uint64 when positive; larger -> error), the text must be valid UTF-8 (no lone surrogates), and floats out of range such as 1e400 are rejected. On error -> ArgumentTypeError \"Invalid JSON list: <s>. Please provide a valid JSON list.\".",
    "cuda_graph_config_v1": "SGLang parse_cuda_graph_config_arg (0.5.14-0.5.21): parsed = json.loads(s) (error -> ArgumentTypeError '--cuda-graph-config must be JSON: <JSONDecodeError text>'); must be an object (else '--cuda-graph-config must be a JSON object, got <python type name>'); for each key (phase) in order: it must be one of type_params.phases (else \"--cuda-graph-config: unknown phase '<phase>', expected one of <python tuple repr of phases>\"), its value must be an object (else \"--cuda-graph-config['<phase>'] must be a JSON object, got <python type name>\"), and each of its keys must be in type_params.allowed_keys[phase] (else \"--cuda-graph-config['<phase>']: unknown key '<key>', expected one of <python tuple repr>\"). Returns the object unchanged (a later duplicate phase key replaces the earlier one, as json.loads keeps the last).",
    "cuda_graph_config_v2": "As cuda_graph_config_v1 (0.5.22 on), plus: after the 'must be a JSON object' check of a phase and before its key check, if the phase object has a 'backend' key whose value equals the string 'tc_piecewise' -> ArgumentTypeError 'tc_piecewise was removed; select breakable, full, or disabled'.",
    "cuda_graph_backend": "SGLang parse_cuda_graph_backend_arg: the string 'tc_piecewise' -> ArgumentTypeError 'tc_piecewise was removed; select breakable, full, or disabled'; anything else is returned unchanged (argparse then checks choices).",
}

# AST hashes (docstrings removed) of every custom class / converter whose
# semantics were reviewed by reading the wheel's source. A hash not listed
# here stops the script.
KNOWN_ACTIONS = {
    "LoRAPathAction": {"240b07590721"},
    "DeprecatedAction": {"88f8fa2c8a75", "4933952c767d"},
    "DeprecatedStoreTrueAction": {"e52e7296943f"},
    "DeprecatedStoreConstAction": {"6edfabf8fe9d"},
    "DeprecatedAliasStoreAction": {"cfeff63d4120"},
}
KNOWN_TYPES = {
    "sglang.srt.utils.common.human_readable_int": ("human_readable_int", {"fcc7c46744f9"}),
    "sglang.srt.utils.common.nullable_str": ("nullable_str", {"b17c60bf8b68"}),
    "sglang.srt.utils.common.json_list_type": ("json_list_type", {"c73d20819e67"}),
    "sglang.srt.model_executor.cuda_graph_config.parse_cuda_graph_config_arg": (
        None,  # decided by hash below
        {"30cf64a37975", "0e94863d7b2e"},
    ),
    "sglang.srt.model_executor.cuda_graph_config.parse_cuda_graph_backend_arg": (
        "cuda_graph_backend",
        {"2d6bd8d0fd35"},
    ),
}
CUDA_GRAPH_CONFIG_KIND = {"30cf64a37975": "cuda_graph_config_v1", "0e94863d7b2e": "cuda_graph_config_v2"}
KNOWN_SERVE_POSITIONAL = {"573f90edefd5"}

STANDARD_ACTIONS = {
    argparse._StoreAction: "store",
    argparse._StoreConstAction: "store_const",
    argparse._StoreTrueAction: "store_true",
    argparse._StoreFalseAction: "store_false",
    argparse._AppendAction: "append",
    argparse._AppendConstAction: "append_const",
    argparse._CountAction: "count",
    argparse._ExtendAction: "extend",
    argparse.BooleanOptionalAction: "boolean_optional",
    argparse._VersionAction: "version",
}

# --------------------------------------------------------------------------
# Stub modules
# --------------------------------------------------------------------------

DEFAULT_STUBS = (
    "torch", "triton", "transformers", "huggingface_hub", "xgrammar", "safetensors",
    "sgl_kernel", "flashinfer", "PIL", "torchvision",
)
REAL_TORCH_STUBS = ("sgl_kernel", "flashinfer", "PIL", "torchvision")

_STUB_ALLOWED_DUNDERS = {"__func__", "__class_validators__"}
_STUB_ABSENT = {
    "torch": {"npu", "hpu", "musa", "mlu"},
    "torch.version": {"musa"},
    "triton.runtime.driver": {"active"},
}


def _stub_name_ok(name):
    return not (name.startswith("__") and name.endswith("__")) or name in _STUB_ALLOWED_DUNDERS


class _StubMeta(abc.ABCMeta):
    def __new__(mcls, name, bases, ns, **kw):
        return super().__new__(mcls, name, bases, ns)

    def __init__(cls, name, bases, ns, **kw):
        super().__init__(name, bases, ns)

    def __getattr__(cls, name):
        if not _stub_name_ok(name):
            raise AttributeError(name)
        child = _StubMeta(name, (_Stub,), {"__module__": cls.__module__})
        setattr(cls, name, child)
        return child

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator
        return type.__call__(cls)

    def register(cls, *args, **kwargs):
        return args[0] if args else None

    def __bool__(cls):
        return False

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __getitem__(cls, key):
        return cls

    def __setitem__(cls, key, value):
        pass

    def __contains__(cls, key):
        return False

    def __or__(cls, other):
        return cls

    __ror__ = __or__

    def __int__(cls):
        return 0

    def __float__(cls):
        return 0.0

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __hash__(cls):
        return id(cls)

    def __eq__(cls, other):
        return cls is other


class _Stub(metaclass=_StubMeta):
    def __init_subclass__(cls, **kw):
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _Stub()

    def __getattr__(self, name):
        if not _stub_name_ok(name):
            raise AttributeError(name)
        return _Stub()

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __getitem__(self, key):
        return _Stub()

    def __setitem__(self, key, value):
        pass

    def __contains__(self, key):
        return False

    def __int__(self):
        return 0

    def __float__(self):
        return 0.0

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _same(x, *args):
    return x


for _cls in (_StubMeta, _Stub):
    for _op in (
        "__neg__", "__pos__", "__abs__", "__invert__", "__add__", "__radd__", "__sub__",
        "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__",
        "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__and__", "__rand__",
        "__xor__", "__rxor__", "__lshift__", "__rshift__", "__matmul__",
    ):
        setattr(_cls, _op, _same)


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if not _stub_name_ok(name) or name in _STUB_ABSENT.get(self.__name__, ()):
            raise AttributeError(name)
        child = _StubMeta(name, (_Stub,), {"__module__": self.__name__})
        setattr(self, name, child)
        return child


def _false(*args, **kwargs):
    return False


def _true(*args, **kwargs):
    return True


class TorchDtype:
    """A stand-in for a `torch.dtype` with its real `itemsize` (vLLM 0.34's
    vllm/utils/torch_utils.py asserts `array.array("i").itemsize ==
    torch.int32.itemsize` at import). Hashable, compared by identity; the torch stub
    of both engines' dumps holds one per dtype name."""

    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize
        self.is_floating_point = name.startswith(("float", "bfloat"))

    def __repr__(self):
        return f"torch.{self.name}"


# torch's dtypes and aliases with their sizes in bytes (torch 2.10's dtype.itemsize).
TORCH_DTYPES = {
    "float16": 2, "half": "float16", "bfloat16": 2, "float32": 4, "float": "float32",
    "float64": 8, "double": "float64", "complex64": 8, "complex128": 16,
    "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "int8": 1, "int16": 2,
    "short": "int16", "int32": 4, "int": "int32", "int64": 8, "long": "int64", "bool": 1,
    "float8_e4m3fn": 1, "float8_e4m3fnuz": 1, "float8_e5m2": 1, "float8_e5m2fnuz": 1,
    "float8_e8m0fnu": 1, "float4_e2m1fn_x2": 1,
}


def torch_dtypes():
    out = {}
    for name, size in TORCH_DTYPES.items():
        if isinstance(size, int):
            out[name] = TorchDtype(name, size)
    for name, alias in TORCH_DTYPES.items():
        if isinstance(alias, str):
            out[name] = out[alias]
    return out



class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        name = module.__name__
        if name == "torch":
            module.__version__ = "2.9.1"
            for dtype_name, dtype in torch_dtypes().items():
                setattr(module, dtype_name, dtype)
            import torch.backends.mps  # noqa: F401  (sets the attributes below)
            import torch.cpu  # noqa: F401
            import torch.cuda  # noqa: F401
            import torch.mps  # noqa: F401
            import torch.version  # noqa: F401
            import torch.xpu  # noqa: F401
        elif name == "torch.version":
            module.hip = None
            module.cuda = "12.8"
            module.git_version = "0" * 40
            module.__version__ = "2.9.1"
        elif name in ("torch.cuda", "torch.xpu", "torch.mps", "torch.backends.mps"):
            module.is_available = _false
            module.device_count = lambda: 0
        elif name == "torch.cpu":
            module.is_available = _true
        elif name == "triton":
            module.__version__ = "3.5.1"
            import triton.runtime.driver  # noqa: F401
        elif name == "torchvision":
            module.__version__ = "0.24.0"
        elif name == "PIL":
            module.__version__ = "12.0.0"


class _StubFinder(importlib.abc.MetaPathFinder):
    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)
        return None


def _is_stub(value):
    return isinstance(value, (_Stub, _StubMeta, _StubModule, TorchDtype))


# The last stubbed names the engine touched (`torch.int32.itemsize`, ...), for the
# message when importing it fails: such a failure is almost always a stub that lacks
# a fact, or a package that is neither installed nor stubbed.
_STUB_TRAIL = collections.deque(maxlen=16)


def _trail_path(owner):
    return getattr(owner, "_rd_path", None) or f"{owner.__module__}.{getattr(owner, '__name__', type(owner).__name__)}"


def _traced(getattr_fn, is_module):
    def __getattr__(self, name):
        value = getattr_fn(self, name)
        path = (self.__name__ if is_module else _trail_path(self if isinstance(self, type) else type(self))) + "." + name
        _STUB_TRAIL.append(path)
        if isinstance(value, type):
            try:
                type.__setattr__(value, "_rd_path", path)
            except (TypeError, AttributeError):
                pass
        return value

    return __getattr__


def trace_stubs():
    """Record every attribute the engine reads from a stub (see `_STUB_TRAIL`)."""
    global _rd_traced
    if _rd_traced:
        return
    _StubModule.__getattr__ = _traced(_StubModule.__getattr__, True)
    _StubMeta.__getattr__ = _traced(_StubMeta.__getattr__, False)
    _Stub.__getattr__ = _traced(_Stub.__getattr__, False)
    _rd_traced = True


_rd_traced = False


def import_failure(exc, root, engine, script):
    """A SchemaError saying why importing ENGINE from ROOT failed: the missing module
    (neither installed nor stubbed) or the line of the engine that failed and the
    stubbed names it read last (a stub that lacks a fact the release needs)."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if os.path.abspath(f.filename).startswith(os.path.abspath(root) + os.sep)]
    where = inside[-1] if inside else (frames[-1] if frames else None)
    at = f"{os.path.relpath(where.filename, root)}:{where.lineno}: {where.line}" if where else "?"
    if isinstance(exc, ModuleNotFoundError):
        return SchemaError(
            f"importing {engine} from {root} failed: it imports the module `{exc.name}`, which is neither "
            f"installed nor stubbed\n  at {at}\n  install it (the package list is in {script}'s docstring) "
            f"or, when it is a heavy package the option table does not need, add `{(exc.name or '?').split('.')[0]}` "
            f"to the stubs of {script}"
        )
    stubbed = sorted({n.split(".")[0] for n in _STUB_TRAIL})
    trail = ", ".join(list(_STUB_TRAIL)[-8:]) or "none"
    return SchemaError(
        f"importing {engine} from {root} failed with {type(exc).__name__}: {exc}\n"
        f"  at {at}\n"
        f"  stubbed names read last: {trail}\n"
        f"  a stub of {', '.join(stubbed) or 'no module'} probably lacks what that line needs: "
        f"give the stub that fact in {script} (its stub loader), or stub the module when it is a "
        f"missing heavy package"
    )


def install_stubs(real_torch=False):
    names = REAL_TORCH_STUBS if real_torch else DEFAULT_STUBS
    sys.meta_path.insert(0, _StubFinder(names))


def build_real_parser(root, real_torch=False):
    """Import sglang from ROOT (an unpacked wheel) and return (parser, server_args module).

    Call at most once per interpreter.
    """
    install_stubs(real_torch)
    sys.path.insert(0, os.path.abspath(root))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    trace_stubs()
    try:
        server_args = importlib.import_module("sglang.srt.server_args")
    except SchemaError:
        raise
    except Exception as exc:  # a missing module, an import-time assert: name it
        raise import_failure(exc, root, "SGLang", "scripts/sglang_schema.py") from exc
    logging.disable(logging.NOTSET)
    mod_file = os.path.abspath(server_args.__file__)
    if not mod_file.startswith(os.path.abspath(root) + os.sep):
        raise SystemExit(f"imported {mod_file}, not from {root}")
    parser = argparse.ArgumentParser()
    server_args.ServerArgs.add_cli_args(parser)
    return parser, server_args


# --------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------


def _strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _ast_hash_of_source(src):
    import textwrap

    tree = _strip_docstrings(ast.parse(textwrap.dedent(src)))
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:12]


def _ast_hash(obj):
    import inspect

    return _ast_hash_of_source(inspect.getsource(obj))


class SchemaError(Exception):
    pass


def to_json(value, where):
    """Return (json_value, needs_repr)."""
    if _is_stub(value):
        raise SchemaError(f"{where}: value is a stub object ({value!r}); stubbing changed the parser")
    if value is None or isinstance(value, (bool, str)):
        return value, False
    if isinstance(value, enum.Enum):
        inner, _ = to_json(value.value, where)
        return inner, True
    if isinstance(value, int):
        return int(value), type(value) is not int
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return repr(value), True
        return float(value), type(value) is not float
    if isinstance(value, (list, tuple)):
        items = [to_json(v, where) for v in value]
        return [i[0] for i in items], (type(value) is not list) or any(i[1] for i in items)
    if isinstance(value, dict):
        out = {}
        flag = type(value) is not dict
        for k, v in value.items():
            if not isinstance(k, str):
                flag = True
            jv, f = to_json(v, where)
            out[str(k)] = jv
            flag = flag or f
        return out, flag
    if isinstance(value, (set, frozenset)):
        # hash order is not stable across runs: sort for deterministic output
        items = sorted((to_json(v, where)[0] for v in value), key=lambda x: json.dumps(x, sort_keys=True))
        return items, True
    return repr(value), True


def describe_type(action, where):
    t = action.type
    if t is None:
        return None, {}
    if t is int:
        return "int", {}
    if t is float:
        return "float", {}
    if t is str:
        return "str", {}
    if t is json.loads:
        return "json", {}
    if _is_stub(t):
        raise SchemaError(f"{where}: type is a stub object")
    qual = f"{getattr(t, '__module__', '?')}.{getattr(t, '__qualname__', repr(t))}"
    if qual not in KNOWN_TYPES:
        raise SchemaError(f"{where}: unreviewed type callable {qual}; read its source and add it to KNOWN_TYPES/TYPE_KINDS")
    kind, hashes = KNOWN_TYPES[qual]
    h = _ast_hash(t)
    if h not in hashes:
        raise SchemaError(f"{where}: type {qual} has unreviewed source (ast hash {h}); review and update KNOWN_TYPES")
    extra = {"type_source": qual}
    if qual.endswith(".parse_cuda_graph_config_arg"):
        kind = CUDA_GRAPH_CONFIG_KIND[h]
        mod = sys.modules[t.__module__]
        phases = list(mod.Phase.ALL)
        allowed = {p: list(mod.ALLOWED_KEYS_PER_PHASE[p]) for p in phases}
        extra["type_params"] = {"phases": phases, "allowed_keys": allowed}
    return kind, extra


def describe_action(action, where):
    cls = type(action)
    extra = {}
    if cls in STANDARD_ACTIONS:
        return STANDARD_ACTIONS[cls], action.const, extra
    name = cls.__name__
    if name not in KNOWN_ACTIONS:
        raise SchemaError(f"{where}: unreviewed custom action class {cls.__module__}.{cls.__qualname__}")
    h = _ast_hash(cls)
    if h not in KNOWN_ACTIONS[name]:
        raise SchemaError(f"{where}: action class {name} has unreviewed source (ast hash {h}); review and update KNOWN_ACTIONS")
    extra["custom_action"] = name
    const = action.const
    if name == "LoRAPathAction":
        kind = "lora_paths"
    elif name == "DeprecatedAction":
        msg = getattr(action, "error_message", None)
        if msg is not None:
            kind = "deprecated_error"
            extra["error_message"] = msg
        else:
            kind = "deprecated_ignore"
    elif name == "DeprecatedStoreTrueAction":
        if action.nargs != 0 or action.const is not True:
            raise SchemaError(f"{where}: DeprecatedStoreTrueAction with nargs={action.nargs!r}")
        kind = "store_true"
    elif name == "DeprecatedStoreConstAction":
        const, needs = to_json(action.const_value, where)
        if needs:
            raise SchemaError(f"{where}: const_value {action.const_value!r} not plain JSON")
        if action.nargs == 0:
            kind = "store_const"
        elif action.nargs is None:
            kind = "store_const_consuming_value"
        else:
            raise SchemaError(f"{where}: DeprecatedStoreConstAction with nargs={action.nargs!r}")
    elif name == "DeprecatedAliasStoreAction":
        kind = "store"
    else:  # pragma: no cover
        raise SchemaError(name)
    new_flag = getattr(action, "new_flag", None)
    if new_flag is not None:
        extra["new_flag"] = new_flag
    return kind, const, extra


def describe_option(action):
    where = "/".join(action.option_strings) or action.dest
    kind, const, extra = describe_action(action, where)
    tkind, textra = describe_type(action, where)
    const_j, const_repr = to_json(const, where)
    default_j, default_repr = to_json(action.default, where)
    choices_j, choices_repr, unordered = (None, False, False)
    if action.choices is not None:
        unordered = isinstance(action.choices, (set, frozenset))
        seq = action.choices if unordered else list(action.choices)
        choices_j, choices_repr = to_json(seq, where)
        choices_repr = not unordered and (choices_repr or type(action.choices) not in (list, tuple))
    if const_repr:
        raise SchemaError(f"{where}: const {const!r} is not plain JSON")
    opt = {
        "option_strings": list(action.option_strings),
        "dest": action.dest,
        "action": kind,
        "nargs": action.nargs,
        "const": const_j,
        "type": tkind,
        "default": default_j,
        "choices": choices_j,
        "required": bool(action.required),
    }
    opt.update(extra)
    opt.update(textra)
    if default_repr:
        if isinstance(action.default, (set, frozenset)):
            raise SchemaError(f"{where}: set default")
        opt["default_repr"] = repr(action.default)
    if unordered:
        opt["choices_unordered"] = True
    if choices_repr:
        opt["choices_repr"] = repr(action.choices)
    return opt


def parser_kwargs_from_source(server_args_file):
    """Keyword arguments of the ArgumentParser(...) call in prepare_server_args."""
    tree = ast.parse(open(server_args_file, encoding="utf-8").read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "prepare_server_args":
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and ast.unparse(sub.func) in ("argparse.ArgumentParser", "ArgumentParser"):
                    if sub.args:
                        raise SchemaError("positional ArgumentParser args in prepare_server_args")
                    return {kw.arg: ast.literal_eval(kw.value) for kw in sub.keywords}
    raise SchemaError("prepare_server_args / ArgumentParser call not found")


def serve_positional_model(root):
    path = os.path.join(root, "sglang", "cli", "serve.py")
    if not os.path.exists(path):
        return False
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "_normalize_positional_model_path":
            h = _ast_hash_of_source(ast.unparse(node))
            if h not in KNOWN_SERVE_POSITIONAL:
                raise SchemaError(f"serve.py _normalize_positional_model_path has unreviewed source ({h})")
            return True
    return False


def dump(root, version, real_torch=False):
    parser, server_args = build_real_parser(root, real_torch)
    return describe_parser(parser, server_args, root, version)


def describe_parser(parser, server_args, root, version):
    kwargs = parser_kwargs_from_source(server_args.__file__)
    allow_abbrev = kwargs.get("allow_abbrev", True)
    if parser.allow_abbrev is not True or parser.prefix_chars != "-" or parser.fromfile_prefix_chars is not None:
        raise SchemaError("unexpected parser settings")
    options = []
    has_help = False
    for action in parser._actions:
        if type(action) is argparse._HelpAction:
            has_help = True
            continue
        options.append(describe_option(action))
    used_actions = sorted({o["action"] for o in options})
    used_types = sorted({o["type"] for o in options if o["type"]})
    return {
        "engine": "sglang",
        "version": version,
        "source": f"sglang=={version} wheel from PyPI, ServerArgs.add_cli_args",
        "generator": GENERATOR,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "parser": kwargs,
        "allow_abbrev": allow_abbrev,
        "help": has_help,
        "serve_positional_model": serve_positional_model(root),
        "action_kinds": {k: ACTION_KINDS[k] for k in used_actions},
        "type_kinds": {k: TYPE_KINDS[k] for k in used_types},
        "options": options,
    }


def render(doc):
    """Deterministic JSON text: fixed key order, one option per line."""
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
    """Refuse a folder that is not an unpacked sglang wheel (of VERSION, when its
    dist-info is there: `--unpacked` may name a source checkout's python/ folder)."""
    infos = [d for d in os.listdir(root) if d.startswith("sglang-") and d.endswith(".dist-info")]
    if infos and infos != [f"sglang-{version}.dist-info"]:
        raise SystemExit(f"{root} holds {infos}, not sglang {version}")
    if not os.path.isdir(os.path.join(root, "sglang")):
        raise SystemExit(f"{root} has no sglang/ package")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="+", metavar="VERSION")
    ap.add_argument("--out", required=True)
    ap.add_argument("--root", "--unpacked-root", dest="root",
                    help="release folder of scripts/vllm_release.py: ROOT/VERSION is the unpacked wheel, "
                         "fetched into ROOT when missing and kept (also when the dump fails)")
    ap.add_argument("--unpacked", help="unpacked wheel dir (only with one VERSION)")
    ap.add_argument("--real-torch", action="store_true", help="stub only sgl_kernel/flashinfer/PIL/torchvision")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:  # one version, root in --unpacked, JSON to --out file
        doc = dump(args.unpacked, args.versions[0], args.real_torch)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(render(doc))
        return 0

    if args.unpacked and len(args.versions) != 1:
        ap.error("--unpacked takes exactly one VERSION")
    if not args.unpacked and not args.root:
        ap.error("give --root ROOT (downloads kept there) or --unpacked DIR")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vllm_release as _rel  # the folder layout shared by the dump scripts

    os.makedirs(args.out, exist_ok=True)
    failures = 0
    for version in args.versions:
        tmp = tempfile.mkdtemp(prefix=f"sglang-schema-{version}-")
        try:
            if args.unpacked:
                root = os.path.abspath(args.unpacked)
                check_version_dir(root, version)
            else:
                root = _rel.release_dir(args.root, version, "sglang")
            out_tmp = os.path.join(tmp, "out.json")
            cmd = [sys.executable, os.path.abspath(__file__), version, "--child",
                   "--unpacked", root, "--out", out_tmp]
            if args.real_torch:
                cmd.append("--real-torch")
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  cwd=tmp)
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
