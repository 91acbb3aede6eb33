#!/usr/bin/env python3
"""The one folder layout of the vLLM dump scripts (dev-time helper, stdlib only).

    ROOT/wheels/vllm-VERSION-*.whl      the wheel as pip downloaded it (kept, also on failure)
    ROOT/VERSION/vllm/...               the wheel unpacked without its compiled .so files
    ROOT/VERSION/vllm-VERSION.dist-info/

`scripts/vllm_schema.py`, `scripts/vllm_envs.py`, `scripts/vllm_config_fields.py` and
`scripts/check_vllm_oracle.py` all take `--root ROOT` and call `release_dir(ROOT,
VERSION)`, which downloads (`pip download --no-deps --only-binary=:all: vllm==VERSION`)
and unpacks only what is missing. Nothing is deleted: a failed dump is rerun without
downloading the ~240 MB wheel again. Unpacking goes to a temporary sibling folder that
is renamed into place, so a half-unpacked release is never taken for a whole one.

    python3 scripts/vllm_release.py --root ROOT VERSION...   # fetch and unpack only
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import zipfile


def wheel_path(root: str, version: str) -> str | None:
    """The downloaded wheel of VERSION under ROOT/wheels, or None."""
    found = sorted(glob.glob(os.path.join(root, "wheels", f"vllm-{version}-*.whl")))
    return found[0] if found else None


def fetch_wheel(root: str, version: str) -> str:
    """ROOT/wheels/vllm-VERSION-*.whl, downloading it with pip when absent."""
    have = wheel_path(root, version)
    if have:
        return have
    dest = os.path.join(root, "wheels")
    os.makedirs(dest, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         f"vllm=={version}", "-d", dest],
        check=True, stdout=sys.stderr,
    )
    have = wheel_path(root, version)
    if not have:
        raise SystemExit(f"pip downloaded no vllm-{version}-*.whl into {dest}")
    return have


def check_release_dir(path: str, version: str) -> None:
    """Refuse a folder that is not the unpacked wheel of exactly VERSION."""
    infos = sorted(d for d in os.listdir(path) if d.startswith("vllm-") and d.endswith(".dist-info"))
    if infos != [f"vllm-{version}.dist-info"]:
        raise SystemExit(f"{path} holds {infos}, not the vllm {version} wheel")
    if not os.path.isdir(os.path.join(path, "vllm")):
        raise SystemExit(f"{path} has no vllm/ package")


def release_dir(root: str, version: str) -> str:
    """ROOT/VERSION, the unpacked wheel of VERSION (fetched and unpacked when missing)."""
    root = os.path.abspath(root)
    path = os.path.join(root, version)
    if not os.path.isdir(path):
        wheel = fetch_wheel(root, version)
        tmp = path + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        with zipfile.ZipFile(wheel) as zf:
            names = [n for n in zf.namelist() if not (n.endswith(".so") or ".so." in n)]
            zf.extractall(tmp, members=names)
        os.rename(tmp, path)
    check_release_dir(path, version)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="the release folder (layout above)")
    ap.add_argument("versions", nargs="+", metavar="VERSION")
    args = ap.parse_args(argv)
    for v in args.versions:
        print(release_dir(args.root, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
