"""Which Python runs a pack folder, as the Pulumi CLI decides it.

A Python pack's ``PulumiPolicy.yaml`` may name a virtualenv
(``runtime.options.virtualenv``, relative to the pack folder); when that
directory exists the CLI runs the pack with its interpreter
(pulumi/pulumi: sdk/python/toolchain/pip.go), else with the Python on PATH.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import yaml

from nodepools import safe_yaml


def pack_virtualenv(pack_dir: Path) -> Path | None:
    """The pack's virtualenv directory when its manifest names one that exists."""
    try:
        manifest = safe_yaml.load(Path(pack_dir) / "PulumiPolicy.yaml") or {}
    except (OSError, yaml.YAMLError):
        return None
    runtime = manifest.get("runtime") if isinstance(manifest, dict) else None
    options = runtime.get("options") if isinstance(runtime, dict) else None
    name = options.get("virtualenv") if isinstance(options, dict) else None
    if not isinstance(name, str) or not name:
        return None
    venv = Path(name) if os.path.isabs(name) else Path(pack_dir) / name
    return venv if venv.is_dir() else None


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def pack_python(pack_dir: Path) -> str:
    """The interpreter for the pack: its virtualenv's when present, else this one."""
    venv = pack_virtualenv(pack_dir)
    return str(venv_python(venv)) if venv is not None else sys.executable
