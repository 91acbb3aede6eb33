#!/usr/bin/env python3
"""The one folder layout of the engine dump scripts (dev-time helper, stdlib only).

One ROOT per engine (e.g. /tmp/dump-cache/vllm and /tmp/dump-cache/sglang), the same
layout for both:

    ROOT/wheels/PACKAGE-VERSION-*.whl   the wheel as pip downloaded it (kept, also on failure)
    ROOT/VERSION/PACKAGE/...            the wheel unpacked without its compiled .so files
    ROOT/VERSION/PACKAGE-VERSION.dist-info/

PACKAGE is `vllm` or `sglang`. `scripts/vllm_schema.py`, `scripts/vllm_envs.py`,
`scripts/vllm_config_fields.py`, `scripts/check_vllm_oracle.py`,
`scripts/sglang_schema.py`, `scripts/check_oracle.py` and
`scripts/upstream_hashes.py` all take `--root ROOT` and call `release_dir(ROOT,
VERSION, PACKAGE)`, which downloads (`pip download --no-deps --only-binary=:all:
PACKAGE==VERSION`) and unpacks only what is missing. Nothing is deleted: a failed dump
is rerun without downloading the wheel (~240 MB for vLLM) again. Unpacking goes to a
temporary sibling folder that is renamed into place, so a half-unpacked release is
never taken for a whole one.

    python3 scripts/vllm_release.py --root ROOT [--package sglang] VERSION...   # fetch and unpack only
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import zipfile

PACKAGES = ("vllm", "sglang")


def wheel_path(root: str, version: str, package: str = "vllm") -> str | None:
    """The downloaded wheel of PACKAGE VERSION under ROOT/wheels, or None."""
    found = sorted(glob.glob(os.path.join(root, "wheels", f"{package}-{version}-*.whl")))
    return found[0] if found else None


def fetch_wheel(root: str, version: str, package: str = "vllm") -> str:
    """ROOT/wheels/PACKAGE-VERSION-*.whl, downloading it with pip when absent."""
    have = wheel_path(root, version, package)
    if have:
        return have
    dest = os.path.join(root, "wheels")
    os.makedirs(dest, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
         f"{package}=={version}", "-d", dest],
        check=True, stdout=sys.stderr,
    )
    have = wheel_path(root, version, package)
    if not have:
        raise SystemExit(f"pip downloaded no {package}-{version}-*.whl into {dest}")
    return have


def check_release_dir(path: str, version: str, package: str = "vllm") -> None:
    """Refuse a folder that is not the unpacked wheel of exactly PACKAGE VERSION."""
    infos = sorted(d for d in os.listdir(path) if d.startswith(f"{package}-") and d.endswith(".dist-info"))
    if infos != [f"{package}-{version}.dist-info"]:
        raise SystemExit(f"{path} holds {infos}, not the {package} {version} wheel")
    if not os.path.isdir(os.path.join(path, package)):
        raise SystemExit(f"{path} has no {package}/ package")


def release_dir(root: str, version: str, package: str = "vllm") -> str:
    """ROOT/VERSION, the unpacked wheel of PACKAGE VERSION (fetched and unpacked when missing)."""
    if package not in PACKAGES:
        raise SystemExit(f"unknown package {package!r} (one of {', '.join(PACKAGES)})")
    root = os.path.abspath(root)
    path = os.path.join(root, version)
    if not os.path.isdir(path):
        wheel = fetch_wheel(root, version, package)
        tmp = path + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        with zipfile.ZipFile(wheel) as zf:
            names = [n for n in zf.namelist() if not (n.endswith(".so") or ".so." in n)]
            zf.extractall(tmp, members=names)
        os.rename(tmp, path)
    check_release_dir(path, version, package)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="the release folder of one engine (layout above)")
    ap.add_argument("--package", choices=PACKAGES, default="vllm")
    ap.add_argument("versions", nargs="+", metavar="VERSION")
    args = ap.parse_args(argv)
    for v in args.versions:
        print(release_dir(args.root, v, args.package))
    return 0


if __name__ == "__main__":
    sys.exit(main())
