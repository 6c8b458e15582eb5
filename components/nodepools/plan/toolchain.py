"""Which Python runs a project's program, as the Pulumi Python language host decides it.

pulumi/pulumi: sdk/python/cmd/pulumi-language-python/main.go (``parseOptions``, ``Run``)
and sdk/python/toolchain/ (``ResolveToolchain``, ``pip.go``, ``uv.go``, ``poetry.go``):

- ``toolchain`` unset: ``uv`` when a ``uv.lock`` is found from the program directory
  up, else ``poetry`` when a ``poetry.lock`` is, else ``pip``.
- ``pip``: ``runtime.options.virtualenv`` (relative to the project root); unset runs
  the Python on PATH (here: the plan's own Python). A virtualenv that is not there is
  an error (``ValidateVenv``, ``NewVirtualEnvError``), never a silent fallback.
- ``uv``: ``virtualenv``, else ``$UV_PROJECT_ENVIRONMENT``, else ``.venv`` beside the
  nearest ``uv.lock`` or ``pyproject.toml`` (else in the project root).
- ``poetry``: the environment ``poetry env info --path`` reports.

The plan runs offline: it never creates or syncs an environment (``pulumi install``
does); it says which command would.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from nodepools.pack.runtime import venv_python
from nodepools.plan.project import Project, ProjectError, key_line

TOOLCHAINS = ("pip", "poetry", "uv")


def _search_up(start: Path, name: str) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / name).is_file():
            return directory
    return None


def toolchain_of(project: Project) -> str:
    chosen = project.runtime_options.get("toolchain")
    if chosen is None:
        if _search_up(project.program_dir, "uv.lock"):
            return "uv"
        return "poetry" if _search_up(project.program_dir, "poetry.lock") else "pip"
    if chosen not in TOOLCHAINS:
        raise ProjectError(f"{project.file}: runtime.options.toolchain {chosen!r} is not supported (allowed: "
                           f"{', '.join(TOOLCHAINS)})", project.file, key_line(project.file, "runtime"))
    return str(chosen)


def _declared_virtualenv(project: Project) -> Path | None:
    name = project.runtime_options.get("virtualenv")
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        raise ProjectError(f"{project.file}: runtime.options.virtualenv must be a path", project.file,
                           key_line(project.file, "runtime"))
    return Path(name) if os.path.isabs(name) else project.root / name


def _uv_virtualenv(project: Project) -> Path:
    declared = _declared_virtualenv(project)
    if declared is not None:
        return declared
    base = _search_up(project.program_dir, "uv.lock") or _search_up(project.program_dir, "pyproject.toml") \
        or project.program_dir
    env = os.environ.get("UV_PROJECT_ENVIRONMENT")
    return (base / env if env and not os.path.isabs(env) else Path(env)) if env else base / ".venv"


def _poetry_virtualenv(project: Project) -> Path:
    poetry = shutil.which("poetry")
    if poetry is None:
        raise ProjectError(f"{project.file}: toolchain 'poetry' needs the poetry executable on PATH to find the "
                           "project's environment (poetry env info --path)", project.file,
                           key_line(project.file, "runtime"))
    result = subprocess.run([poetry, "env", "info", "--path"], cwd=project.program_dir, capture_output=True,
                            text=True)
    if result.returncode != 0 or not result.stdout.strip():
        raise ProjectError(f"{project.file}: toolchain 'poetry' has no environment for this project (run `poetry "
                           f"install`): {result.stderr.strip()}", project.file, key_line(project.file, "runtime"))
    return Path(result.stdout.strip())


def project_python(project: Project) -> Path | None:
    """The interpreter of the project's virtualenv; None: no virtualenv declared, the
    plan's own Python runs the program."""
    tool = toolchain_of(project)
    venv = {"pip": _declared_virtualenv, "uv": _uv_virtualenv, "poetry": _poetry_virtualenv}[tool](project)
    if venv is None:
        return None
    python = venv_python(venv)
    if not python.is_file():
        state = "doesn't exist" if not venv.exists() else "doesn't appear to be a virtual environment"
        create = {"pip": f"python3 -m venv {venv} && {python} -m pip install -r requirements.txt",
                  "uv": "uv sync", "poetry": "poetry install"}[tool]
        raise ProjectError(f"{project.file}: the 'virtualenv' option is {venv}, but it {state}; the program runs "
                           f"with that virtualenv's Python, as Pulumi runs it: create it ({create}) or run "
                           "`pulumi install`", project.file, key_line(project.file, "runtime"))
    return python


def is_this_python(python: Path | None) -> bool:
    """``python`` belongs to the environment this process runs in (same prefix)."""
    if python is None:
        return True
    return python.parent.parent.resolve() == Path(sys.prefix).resolve()
