#!/usr/bin/env python3
"""Rebuild a vLLM release's `vllm serve` parser from its schema file and parse argv vectors.

Usage:
    python3 tests/oracle/vllm_argparse_oracle.py src/engine/vllm/schemas/0.25.1.json < in.jsonl

Standard library only (no vLLM install). Each stdin line is either a JSON array of
argv strings (what follows `vllm serve`), or an object
    {"argv": [...], "files": {"PATH": CONTENT, ...}}
where CONTENT is the already-parsed YAML document of a `--config PATH` file (a JSON
object; the oracle has no YAML reader; a missing PATH is FileNotFoundError).
For each line one JSON line is written to stdout:

    {"ok": {dest: value, ...}}   the serve parser's namespace (without `subparser`)
    {"error": "message"}         the parse failed

`error` is the argparse message (what follows "prog: error: "); "help" when the help
is printed (argparse would exit 0); "<ExceptionName>: <text>" for the failures that
`vllm serve` does not report through argparse (the preprocessing's ValueError,
AssertionError, IndexError, a LoRA 'name=path' ValueError in old releases).
Values are JSON with the encodings of the schema's `value_encoding`
({"$config": CLASS, "input": OBJ}, {"$dataclass": CLASS, "fields": {...}},
{"$float": "nan"|"inf"|"-inf"}).

What is reproduced: FlexibleArgumentParser's preprocessing for the release (the
schema's `preprocess` facts, documented in `preprocess_doc`), the top-level `vllm`
parser with its `serve` sub-parser (real Python argparse, so abbreviations,
ambiguity, `=` forms, nargs and the error texts are argparse's own), and every
action/type kind of the schema. NOT reproduced: pydantic's validation of config
dataclass values (kind "config"): the oracle checks JSON syntax, that the value is an
object and (extra == "forbid") that its top-level keys are fields; anything deeper is
accepted, and the error text of a rejected config value is not pydantic's.
The behaviour of argparse itself is the one of the Python running this file (the
schemas were generated and checked with Python 3.11).
"""

import argparse
import json
import re
import sys
from collections import defaultdict

SUPPRESS = argparse.SUPPRESS


class OracleError(Exception):
    pass


class OracleParser(argparse.ArgumentParser):
    show_serve_task_hint = False
    task_hint_enabled = False

    def error(self, message):
        if (
            self.task_hint_enabled
            and (self.prog.endswith(" serve") or self.show_serve_task_hint)
            and message.startswith("unrecognized arguments:")
            and re.search(r"(^|\s)--task(=|\s|$)", message)
        ):
            message += (
                "\n\nHint: --task is not a vllm serve option. "
                "For embedding, reranking, or reward models, use "
                "--runner pooling. To adapt a generative model for pooling, "
                "also use --convert embed, --convert classify, or "
                "--convert reward."
            )
        raise OracleError(message)

    def exit(self, status=0, message=None):
        raise OracleError(message or f"exit {status}")

    def print_help(self, file=None):
        raise OracleError("help")

    def print_usage(self, file=None):
        pass


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


class ConfigValue:
    def __init__(self, cls, obj):
        self.cls, self.obj = cls, obj


class OpaqueValue:
    def __init__(self, text):
        self.text = text


class DataclassValue:
    def __init__(self, cls, fields):
        self.cls, self.fields = cls, fields


def decode_default(value):
    """Schema JSON -> Python value argparse holds."""
    if value == SUPPRESS:
        return SUPPRESS  # argparse tests `default is not SUPPRESS` by identity
    if isinstance(value, dict):
        if set(value) == {"$float"}:
            return float(value["$float"])
        if set(value) == {"$repr"}:
            return OpaqueValue(value["$repr"])
        if set(value) == {"$config", "input"}:
            return ConfigValue(value["$config"], value["input"])
        if set(value) == {"$dataclass", "fields"}:
            return DataclassValue(value["$dataclass"], {k: decode_default(v) for k, v in value["fields"].items()})
        return {k: decode_default(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_default(v) for v in value]
    return value


def jsonable(value):
    if isinstance(value, float):
        if value != value:
            return {"$float": "nan"}
        if value in (float("inf"), float("-inf")):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, ConfigValue):
        return {"$config": value.cls, "input": jsonable(value.obj)}
    if isinstance(value, OpaqueValue):
        return {"$repr": value.text}
    if isinstance(value, DataclassValue):
        return {"$dataclass": value.cls, "fields": {k: jsonable(v) for k, v in value.fields.items()}}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return repr(value)


# --------------------------------------------------------------------------
# Type converters (function names match vLLM's: argparse prints them)
# --------------------------------------------------------------------------

_HRI = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")


def human_readable_int(value):
    value = value.strip()
    match = _HRI.fullmatch(value)
    if match:
        number, suffix = match.groups()
        dec = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
        binary = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
        if suffix in dec:
            return int(float(number) * dec[suffix])
        try:
            return int(number) * binary[suffix]
        except ValueError:
            raise argparse.ArgumentTypeError(
                "Decimals are not allowed "
                f"with binary suffixes like {suffix}. Did you mean to use "
                f"{number}{suffix.lower()} instead?"
            )
    return int(value)


def human_readable_int_or_auto(value):
    value = value.strip()
    if value == "-1" or value.lower() == "auto":
        return -1
    return human_readable_int(value)


def loads(value):
    return json.loads(value)


def parse_reasoning_parser(val):
    return "" if val.lower() == "none" else val


def _lower_underscore(s):
    return s.lower().replace("-", "_")


_lower_underscore.__name__ = "<lambda>"


def _device_ids(s):
    return [int(d) if d.isdigit() else d for d in (part.strip() for part in s.split(","))]


_device_ids.__name__ = "<lambda>"


def make_parse_type(inner, inner_repr):
    def _parse_type(val):
        try:
            return inner(val)
        except ValueError:
            raise argparse.ArgumentTypeError(f"Value {val} cannot be converted to {inner_repr}.")

    return _parse_type


def make_optional_type(inner, inner_repr):
    parse = make_parse_type(inner, inner_repr)

    def _optional_type(val):
        if val == "" or val == "None":
            return None
        return parse(val)

    return _optional_type


def union_dict_and_str(val, _repr="<function loads at 0x...>"):
    if not re.match(r"(?s)^\s*{.*}\s*$", val):
        return str(val)
    return make_optional_type(loads, _repr)(val)


def _expand_numbers(val):
    parts = re.split(r'("(?:[^"\\]|\\.)*")', val)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(
            r"\b\d+(?:\.\d+)?[kKmMgGtT]\b",
            lambda m: str(human_readable_int(m.group())),
            parts[i],
        )
    return "".join(parts)


class ConfigValidationError(ValueError):
    """Stands for pydantic's ValidationError (a ValueError)."""


def make_config_type(params):
    cls = params["class"]
    fields = set(params.get("fields") or ())
    forbid = params.get("extra") == "forbid"
    expand = bool(params.get("expand_numbers"))

    def parse_dataclass(val):
        try:
            if expand:
                val = _expand_numbers(val)
            try:
                obj = json.loads(val)
            except json.JSONDecodeError as e:
                raise ConfigValidationError(f"json_invalid: {e}")
            if not isinstance(obj, dict):
                raise ConfigValidationError(f"{cls}: input should be an object")
            if forbid:
                extra = [k for k in obj if k not in fields]
                if extra:
                    raise ConfigValidationError(f"{cls}: unexpected keyword argument {extra[0]!r}")
            return ConfigValue(cls, obj)
        except ConfigValidationError as e:
            raise argparse.ArgumentTypeError(f"ValidationError({e})")

    return parse_dataclass


BASE_TYPES = {
    "int": int,
    "float": float,
    "str": str,
    "json": loads,
    "human_readable_int": human_readable_int,
    "human_readable_int_or_auto": human_readable_int_or_auto,
    "union_dict_and_str": union_dict_and_str,
    "reasoning_parser": parse_reasoning_parser,
    "lower_underscore": _lower_underscore,
    "device_ids": _device_ids,
}


def make_type(kind, params, depth=0):
    if kind is None:
        return None
    reprs = params.get("return_type_reprs", [])
    for prefix, factory in (("optional_", make_optional_type), ("parse_", make_parse_type)):
        if kind.startswith(prefix) and kind != "parse_":
            inner = make_type(kind[len(prefix):], params, depth + 1)
            return factory(inner, reprs[depth] if depth < len(reprs) else repr(inner))
    if kind == "config":
        return make_config_type(params)
    if kind in BASE_TYPES:
        return BASE_TYPES[kind]
    raise SystemExit(f"unknown type kind {kind!r}")


# --------------------------------------------------------------------------
# Custom actions
# --------------------------------------------------------------------------


class EnableDisableAction(argparse.Action):
    def __init__(self, option_strings, dest, negative=(), **kwargs):
        self.negative = set(negative)
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, option_string not in self.negative)


class LoRAModulesAction(argparse.Action):
    def __init__(self, option_strings, dest, lora_fields=None, split_all=False, lora_module="", **kwargs):
        self.lora_fields = lora_fields
        self.lora_module = lora_module
        self.split_all = split_all
        super().__init__(option_strings, dest, **kwargs)

    def _make(self, parser, item, kwargs):
        names = [f["name"] for f in self.lora_fields]
        for k in kwargs:
            if k not in names:
                raise TypeError(f"LoRAModulePath.__init__() got an unexpected keyword argument '{k}'")
        missing = [f["name"] for f in self.lora_fields if "default" not in f and f["name"] not in kwargs]
        if missing:
            if len(missing) == 1:
                raise TypeError(f"LoRAModulePath.__init__() missing 1 required positional argument: '{missing[0]}'")
            quoted = [f"'{m}'" for m in missing]
            raise TypeError(
                f"LoRAModulePath.__init__() missing {len(missing)} required positional arguments: "
                + (", ".join(quoted[:-1]) + " and " + quoted[-1])
            )
        return DataclassValue("LoRAModulePath", {f["name"]: kwargs.get(f["name"], f.get("default")) for f in self.lora_fields})

    def __call__(self, parser, namespace, values, option_string=None):
        if values is None:
            values = []
        out = []
        for item in values:
            if item in [None, ""]:
                continue
            if "=" in item and "," not in item:
                if self.split_all:
                    parts = item.split("=")
                    if len(parts) != 2:
                        raise ValueError("too many values to unpack (expected 2)")
                    name, path = parts
                else:
                    name, path = item.split("=", 1)
                out.append(self._make(parser, item, {"name": name, "path": path}))
            else:
                try:
                    obj = json.loads(item)
                    if not isinstance(obj, dict):
                        raise TypeError(f"{self.lora_module}.LoRAModulePath() argument after ** must be a mapping, not {type(obj).__name__}")
                    out.append(self._make(parser, item, obj))
                except json.JSONDecodeError:
                    parser.error(f"Invalid JSON format for --lora-modules: {item}")
                except TypeError as e:
                    parser.error(f"Invalid fields for --lora-modules: {item} - {str(e)}")
        setattr(namespace, self.dest, out)


# --------------------------------------------------------------------------
# Building the parser
# --------------------------------------------------------------------------


def add_option(parser, opt):
    kind = opt["action"]
    strings = list(opt["option_strings"])
    kw = {"dest": opt["dest"], "default": decode_default(opt["default"])}
    if opt.get("required"):
        kw["required"] = True
    typ = make_type(opt.get("type"), opt.get("type_params") or {})
    nargs = opt.get("nargs")
    choices = opt.get("choices")

    def valued():
        if nargs is not None:
            kw["nargs"] = nargs
        if typ is not None:
            kw["type"] = typ
        if choices is not None:
            kw["choices"] = choices
        if opt.get("const") is not None:
            kw["const"] = opt["const"]

    if kind in ("store", "append"):
        valued()
        kw["action"] = kind
    elif kind in ("store_const",):
        kw["action"] = kind
        kw["const"] = opt["const"]
    elif kind in ("store_true", "store_false", "count"):
        kw["action"] = kind
    elif kind == "boolean_optional":
        originals = [s for s in strings if not (s.startswith("--no-") and ("--" + s[5:]) in strings)]
        kw["action"] = argparse.BooleanOptionalAction
        action = parser.add_argument(*originals, **kw)
        if list(action.option_strings) != strings:
            raise SystemExit(f"boolean_optional rebuild mismatch: {strings}")
        return action
    elif kind == "enable_disable":
        kw["action"] = EnableDisableAction
        kw["negative"] = opt["negative_option_strings"]
        action = parser.add_argument(*strings, **kw)
        if opt.get("display_option_strings"):
            action.option_strings = list(opt["display_option_strings"])
        return action
    elif kind in ("lora_modules_v1", "lora_modules_v2"):
        valued()
        kw["action"] = LoRAModulesAction
        kw["lora_fields"] = opt["type_params"]["fields"]
        kw["lora_module"] = opt["type_params"].get("module", "")
        kw["split_all"] = kind == "lora_modules_v1"
    else:
        raise SystemExit(f"unknown action kind {kind!r}")

    if not strings:  # positional
        dest = kw.pop("dest")
        kw.pop("required", None)
        return parser.add_argument(dest, **kw)
    action = parser.add_argument(*strings, **kw)
    if opt.get("display_option_strings"):
        action.option_strings = list(opt["display_option_strings"])
    return action


def build_parsers(schema):
    pre = schema["preprocess"]
    top = OracleParser(prog=schema["parser"].get("top_level_prog", "vllm"), allow_abbrev=True)
    top.task_hint_enabled = bool(pre.get("task_hint"))
    top.add_argument("-v", "--version", action="version", version="0")
    sub = top.add_subparsers(required=False, dest="subparser", parser_class=OracleParser)
    serve = sub.add_parser("serve", allow_abbrev=schema.get("allow_abbrev", True),
                           add_help=bool(schema.get("help", True)))
    serve.task_hint_enabled = bool(pre.get("task_hint"))
    for opt in schema["options"]:
        add_option(serve, opt)
    return top, serve


# --------------------------------------------------------------------------
# FlexibleArgumentParser preprocessing (per the schema's `preprocess` facts)
# --------------------------------------------------------------------------


def load_config_file(file_path, files, pre, top_options):
    extension = file_path.split(".")[-1]
    if extension not in ("yaml", "yml"):
        raise ValueError(f"Config file must be of a yaml/yml type. {extension} supplied")
    if file_path not in files:
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{file_path}'")
    config = files[file_path]
    out = []
    for key, value in config.items():
        if isinstance(value, bool):
            if value:
                out.append("--" + key)
            elif pre.get("config_false_bool") == "no_flag_if_known" and ("--no-" + key) in top_options:
                out.append("--no-" + key)
        elif isinstance(value, list):
            if value:
                out.append("--" + key)
                for item in value:
                    out.append(str(item))
        elif isinstance(value, dict):
            out.append("--" + key)
            out.append(json.dumps(value))
        else:
            out.append("--" + key)
            out.append(str(value))
    return out


def pull_args_from_config(args, files, pre, top_options):
    assert args.count("--config") <= 1, "More than one config file specified!"
    index = args.index("--config")
    if index == len(args) - 1:
        raise ValueError("No config file specified! Please check your command-line arguments.")
    config_args = load_config_file(args[index + 1], files, pre, top_options)
    # args[0] == "serve" always here
    model_in_cli = len(args) > 1 and not args[1].startswith("-")
    model_in_config = any(a == "--model" for a in config_args)
    if not model_in_cli and not model_in_config:
        raise ValueError(
            "No model specified! Please specify model either "
            "as a positional argument or in a config file."
        )
    if model_in_cli:
        return args[:2] + config_args + args[2:index] + args[index + 2:]
    return args[:1] + config_args + args[1:index] + args[index + 2:]


def _dotted_value(value_str, pre):
    try:
        return json.loads(value_str)
    except json.JSONDecodeError:
        if pre.get("dotted_value_fallback") == "human_readable_int_then_string":
            try:
                return human_readable_int(value_str)
            except (ValueError, argparse.ArgumentTypeError):
                return value_str
        return value_str


def _merge(original, update):
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            _merge(original[k], v)
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            original[k] = v


def preprocess(argv, pre, files, top_options):
    """Return (processed args starting with 'serve', show_serve_task_hint)."""
    args = ["serve", *argv]
    hint = bool(pre.get("task_hint")) and any(re.match(r"^--task(=.+|$)", a) for a in args[1:])

    idx = next((i for i, a in enumerate(args) if re.match(r"^--model(=.+|$)", a)), None)
    if idx is not None:
        if args[idx] == "--model":
            model_tag = args[idx + 1]
            rest = idx + 2
        else:
            model_tag = args[idx].removeprefix("--model=")
            rest = idx + 1
        args = ["serve", model_tag, *args[1:idx], *args[rest:]]
    if (
        len(args) > 1
        and args[1].startswith("-")
        and not any(re.match(r"^--config(=.+|$)", a) for a in args)
        and any(re.match(r"^--served[-_]model[-_]name(=.+|$)", a) for a in args)
    ):
        raise ValueError(
            "`model` should be provided as the first positional argument when "
            "using `vllm serve`. i.e. `vllm serve <model> --<arg> <value>`."
        )

    if "--config" in args:
        args = pull_args_from_config(args, files, pre, top_options)

    pattern = re.compile(r"(?<=--)[^\.]*")

    def repl(m):
        return m.group(0).replace("_", "-")

    processed = []
    for i, arg in enumerate(args):
        if arg.startswith("--help="):
            processed.append("--help")
        elif arg.startswith("--"):
            if "=" in arg:
                key, value = arg.split("=", 1)
                processed.append(f"{pattern.sub(repl, key, count=1)}={value}")
            else:
                processed.append(pattern.sub(repl, arg, count=1))
        elif arg.startswith("-O") and arg != "-O":
            processed += ["--optimization-level", arg[3:] if arg[2] == "=" else arg[2:]]
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            processed.append("--optimization-level")
        else:
            processed.append(arg)

    delete = set()
    dict_args = defaultdict(dict)
    for i, parg in enumerate(processed):
        if i in delete:
            continue
        if parg.startswith("--") and "." not in parg:
            continue
        if parg.startswith("-") and "." in parg:
            if "=" in parg:
                parg, value_str = parg.split("=", 1)
                if "." not in parg:
                    continue
            else:
                value_str = processed[i + 1]
                delete.add(i + 1)
            if parg.endswith("+"):
                parg = parg[:-1]
                value_str = json.dumps(list(value_str.split(",")))
            key, *keys = parg.split(".")
            value = _dotted_value(value_str, pre)
            nested = value
            for k in reversed(keys):
                nested = {k: nested}
            _merge(dict_args[key], nested)
            delete.add(i)
    processed = [a for i, a in enumerate(processed) if i not in delete]
    for key, value in dict_args.items():
        processed.append(key)
        processed.append(json.dumps(value))
    return processed, hint


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


class Oracle:
    def __init__(self, schema):
        self.schema = schema
        self.pre = schema["preprocess"]
        self.top_options = set(schema["parser"].get("top_level_options", ["-h", "--help", "-v", "--version"]))
        self.top, self.serve = build_parsers(schema)

    def run(self, argv, files=None):
        files = files or {}
        try:
            processed, hint = preprocess(argv, self.pre, files, self.top_options)
        except Exception as e:  # ValueError, AssertionError, IndexError, FileNotFoundError...
            return {"error": f"{type(e).__name__}: {e}"}
        top = self.top
        top.show_serve_task_hint = hint
        try:
            ns = top.parse_args(processed)
        except argparse.ArgumentError as e:
            return {"error": str(e)}
        except OracleError as e:
            return {"error": str(e)}
        except SystemExit as e:  # defensive
            return {"error": f"SystemExit: {e.code}"}
        except Exception as e:  # LoRA ValueError in old releases
            return {"error": f"{type(e).__name__}: {e}"}
        out = vars(ns)
        out.pop("subparser", None)
        return {"ok": {k: jsonable(v) for k, v in out.items()}}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.stderr.write("usage: vllm_argparse_oracle.py SCHEMA.json < argv-lines.jsonl\n")
        return 2
    with open(argv[0], encoding="utf-8") as f:
        schema = json.load(f)
    oracle = Oracle(schema)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        files = None
        if isinstance(item, dict):
            files = item.get("files") or {}
            item = item.get("argv")
        if not isinstance(item, list) or not all(isinstance(a, str) for a in item):
            out.write(json.dumps({"error": "input line is not a JSON array of strings"}) + "\n")
            continue
        out.write(json.dumps(oracle.run(item, files), ensure_ascii=False) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
