#!/usr/bin/env python3
"""Rebuild a release's argparse parser from a schema file and parse argv vectors.

Usage:
    python3 tests/oracle/argparse_oracle.py src/engine/sglang/schemas/0.5.19.json < in.jsonl

Standard library only (no sglang install). Each stdin line is a JSON array of
argv strings (without the program name). For each line one JSON line is
written to stdout:

    {"ok": {dest: value, ...}}   the whole namespace argparse produced
    {"error": "message"}         the parse failed

`ok` holds every attribute of the namespace, i.e. every dest except those whose
only defaults are ==SUPPRESS== and that were not given. Values are JSON; a
float that is NaN or infinite (possible through `float` or `json` types) is
written as {"$float": "nan" | "inf" | "-inf"}. `error` is the argparse message
(what follows "prog: error: "); "help" when -h/--help (or a prefix of
--help) is met, since argparse would print the help and exit 0; for the two failures that the real SGLang
parser does not report through argparse (LoRA path JSON errors) it is
"<ExceptionName>: <text>".

Every action kind and type kind of the schema (see the `action_kinds` and
`type_kinds` maps in each schema file) is re-implemented here with the same
observable behaviour as SGLang's own classes/functions in that release.
The behaviour of argparse itself is the one of the Python running this file
(the schemas were generated and checked with Python 3.11).
"""

import argparse
import json
import re
import sys
from decimal import Decimal

SUPPRESS = argparse.SUPPRESS


class OracleError(Exception):
    pass


class OracleParser(argparse.ArgumentParser):
    def error(self, message):
        raise OracleError(message)

    def exit(self, status=0, message=None):
        raise OracleError(message or f"exit {status}")

    def print_help(self, file=None):
        raise OracleError("help")

    def print_usage(self, file=None):
        pass


# --------------------------------------------------------------------------
# Type converters (function names match SGLang's so argparse messages match)
# --------------------------------------------------------------------------


def loads(value):
    return json.loads(value)


def nullable_str(val):
    if not val or val == "None":
        return None
    return val


_HRI = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def human_readable_int(value):
    value = value.strip()
    m = _HRI.fullmatch(value)
    if m:
        number, suffix = m.groups()
        if suffix in _IEC:
            if "." in number:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with IEC suffixes like '{suffix}'. "
                    f"Use an integer IEC value such as '{int(Decimal(number))}{suffix}', "
                    f"or an SI value such as '{number}{suffix[0]}'."
                )
            return int(number) * _IEC[suffix]
        return int(Decimal(number) * _SI[suffix])
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"Invalid integer value: '{value}'. "
            "Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). "
            "Suffixes are case-sensitive."
        )


class _OrjsonLike(ValueError):
    pass


def _reject_constant(name):
    raise _OrjsonLike(f"{name} is not JSON")


def _orjson_float(text):
    f = float(text)
    if f in (float("inf"), float("-inf")):
        raise _OrjsonLike("number is infinity when parsed as double")
    return f


def _orjson_int(text):
    i = int(text)
    if -(2**63) <= i < 2**64:
        return i
    return _orjson_float(text)  # orjson reads out-of-range integers as doubles


def _has_surrogate(obj):
    if isinstance(obj, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in obj)
    if isinstance(obj, list):
        return any(_has_surrogate(v) for v in obj)
    if isinstance(obj, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in obj.items())
    return False


def orjson_loads(value):
    """json.loads with orjson's stricter rules (as far as argv strings go)."""
    if _has_surrogate(value):
        raise _OrjsonLike("str is not valid UTF-8: surrogates not allowed")
    obj = json.loads(
        value,
        parse_constant=_reject_constant,
        parse_float=_orjson_float,
        parse_int=_orjson_int,
    )
    if _has_surrogate(obj):
        raise _OrjsonLike("no low surrogate in string")
    return obj


def json_list_type(value):
    try:
        return orjson_loads(value)
    except (ValueError, RecursionError):  # json.JSONDecodeError is a ValueError
        raise argparse.ArgumentTypeError(
            f"Invalid JSON list: {value}. Please provide a valid JSON list."
        )


def parse_cuda_graph_backend_arg(raw):
    if raw == "tc_piecewise":
        raise argparse.ArgumentTypeError(
            "tc_piecewise was removed; select breakable, full, or disabled"
        )
    return raw


def make_cuda_graph_config(params, check_backend):
    phases = tuple(params["phases"])
    allowed_keys = {p: tuple(k) for p, k in params["allowed_keys"].items()}

    def parse_cuda_graph_config_arg(raw):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError as e:
            raise argparse.ArgumentTypeError(f"--cuda-graph-config must be JSON: {e}")
        if not isinstance(parsed, dict):
            raise argparse.ArgumentTypeError(
                f"--cuda-graph-config must be a JSON object, got {type(parsed).__name__}"
            )
        result = {}
        for phase, settings in parsed.items():
            phase = str(phase)
            if phase not in phases:
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config: unknown phase '{phase}', expected one of {phases}"
                )
            if not isinstance(settings, dict):
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config['{phase}'] must be a JSON object, got "
                    f"{type(settings).__name__}"
                )
            if check_backend and "backend" in settings:
                parse_cuda_graph_backend_arg(settings["backend"])
            allowed = allowed_keys[phase]
            result[phase] = {}
            for key, value in settings.items():
                if key not in allowed:
                    raise argparse.ArgumentTypeError(
                        f"--cuda-graph-config['{phase}']: unknown key '{key}', expected one of {allowed}"
                    )
                result[phase][key] = value
        return result

    return parse_cuda_graph_config_arg


def make_type(opt):
    kind = opt.get("type")
    if kind is None:
        return None
    simple = {
        "int": int,
        "float": float,
        "str": str,
        "json": loads,
        "human_readable_int": human_readable_int,
        "nullable_str": nullable_str,
        "json_list_type": json_list_type,
        "cuda_graph_backend": parse_cuda_graph_backend_arg,
    }
    if kind in simple:
        return simple[kind]
    if kind == "cuda_graph_config_v1":
        return make_cuda_graph_config(opt["type_params"], check_backend=False)
    if kind == "cuda_graph_config_v2":
        return make_cuda_graph_config(opt["type_params"], check_backend=True)
    raise SystemExit(f"unknown type kind {kind!r}")


# --------------------------------------------------------------------------
# Custom actions
# --------------------------------------------------------------------------


class DeprecatedIgnoreAction(argparse.Action):
    """Consumes its values (nargs, usually 0) and stores nothing."""

    def __call__(self, parser, namespace, values, option_string=None):
        pass


class DeprecatedErrorAction(argparse.Action):
    def __init__(self, option_strings, dest, error_message=None, **kwargs):
        self.error_message = error_message
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(self.error_message)


class LoRAPathsAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        out = []
        if values:
            for item in values:
                item = item.strip()
                if item.startswith("{") and item.endswith("}"):
                    obj = json.loads(item)  # JSONDecodeError escapes argparse, as in SGLang
                    if not ("lora_path" in obj and "lora_name" in obj):
                        raise AssertionError(
                            f"{item!r} looks like a JSON str, but it does not contain "
                            "'lora_name' and 'lora_path' keys."
                        )
                    out.append(obj)
                else:
                    out.append(item)
        setattr(namespace, self.dest, out)


class StoreConstConsumingValueAction(argparse.Action):
    def __init__(self, option_strings, dest, const_value=None, **kwargs):
        self.const_value = const_value
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, self.const_value)


# --------------------------------------------------------------------------
# Building the parser
# --------------------------------------------------------------------------


def add_option(parser, opt):
    kind = opt["action"]
    strings = list(opt["option_strings"])
    kw = {"dest": opt["dest"], "default": opt["default"]}
    if opt.get("required"):
        kw["required"] = True
    typ = make_type(opt)
    nargs = opt.get("nargs")
    choices = opt.get("choices")

    def valued():
        if nargs is not None:
            kw["nargs"] = nargs
        if typ is not None:
            kw["type"] = typ
        if choices is not None:
            kw["choices"] = choices

    if kind in ("store", "append", "extend"):
        valued()
        if opt.get("const") is not None:
            kw["const"] = opt["const"]
        kw["action"] = kind
    elif kind in ("store_const", "append_const"):
        kw["action"] = kind
        kw["const"] = opt["const"]
    elif kind in ("store_true", "store_false", "count"):
        kw["action"] = kind
    elif kind == "boolean_optional":
        originals = [
            s for s in strings
            if not (s.startswith("--no-") and ("--" + s[5:]) in strings)
        ]
        kw["action"] = argparse.BooleanOptionalAction
        if typ is not None:
            kw["type"] = typ
        if choices is not None:
            kw["choices"] = choices
        action = parser.add_argument(*originals, **kw)
        if list(action.option_strings) != strings:
            raise SystemExit(f"boolean_optional rebuild mismatch: {strings}")
        return action
    elif kind == "deprecated_ignore":
        kw["action"] = DeprecatedIgnoreAction
        kw["nargs"] = nargs
        if typ is not None:
            kw["type"] = typ
        if choices is not None:
            kw["choices"] = choices
    elif kind == "deprecated_error":
        kw["action"] = DeprecatedErrorAction
        kw["nargs"] = nargs
        kw["error_message"] = opt["error_message"]
        if typ is not None:
            kw["type"] = typ
    elif kind == "lora_paths":
        kw["action"] = LoRAPathsAction
        valued()
    elif kind == "store_const_consuming_value":
        kw["action"] = StoreConstConsumingValueAction
        kw["const_value"] = opt["const"]
        valued()
    else:
        raise SystemExit(f"unknown action kind {kind!r}")

    if not strings:  # positional
        dest = kw.pop("dest")
        kw.pop("required", None)
        return parser.add_argument(dest, **kw)
    return parser.add_argument(*strings, **kw)


def build_parser(schema):
    parser = OracleParser(
        prog=schema.get("parser", {}).get("prog"),
        allow_abbrev=schema.get("allow_abbrev", True),
        add_help=bool(schema.get("help", True)),
        exit_on_error=False,
    )
    for opt in schema["options"]:
        add_option(parser, opt)
    return parser


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def jsonable(value):
    if isinstance(value, float):
        if value != value:
            return {"$float": "nan"}
        if value in (float("inf"), float("-inf")):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return repr(value)


def run_one(parser, argv):
    try:
        ns = parser.parse_args(argv)
    except argparse.ArgumentError as e:
        return {"error": str(e)}
    except OracleError as e:
        return {"error": str(e)}
    except SystemExit as e:  # defensive: nothing should exit
        return {"error": f"SystemExit: {e.code}"}
    except Exception as e:  # LoRA JSON errors, as the real parser raises them
        return {"error": f"{type(e).__name__}: {e}"}
    return {"ok": {k: jsonable(v) for k, v in vars(ns).items()}}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.stderr.write("usage: argparse_oracle.py SCHEMA.json < argv-lines.jsonl\n")
        return 2
    with open(argv[0], encoding="utf-8") as f:
        schema = json.load(f)
    parser = build_parser(schema)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        args = json.loads(line)
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            out.write(json.dumps({"error": "input line is not a JSON array of strings"}) + "\n")
            continue
        out.write(json.dumps(run_one(parser, args), ensure_ascii=False) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
