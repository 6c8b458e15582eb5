"""Helpers of tests/distribution: the package as a user gets it: sdist and wheel built once per session, virtualenvs
shared by every test that needs one.

- ``pack_venv``: a copy of ``policy/`` alone with its own virtualenv, built from its
  own ``requirements.txt`` with the built wheel as the only local package source
  (``pip install --find-links dist/ -r requirements.txt``; PyPI for the rest), as
  ``pulumi install`` / the deploy workflow build it.
- ``app_venv``: a fresh virtualenv with the wheel installed (not editable). Its
  third-party dependencies (the cloud SDKs, about 700 MB) are borrowed from the
  test runner's environment through a ``.pth`` path line, so ``make test`` stays
  fast; ``make test-dist`` (NODEPOOLS_DIST_FULL=1) installs ``nodepools[aws,gcp]``
  from the wheel and PyPI instead.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FULL = os.environ.get("NODEPOOLS_DIST_FULL") == "1"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: nothing points at this checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def run(*argv: str | Path, cwd: Path | None = None, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in argv], cwd=cwd, env=clean_env(**env), capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"{argv} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def bin_of(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def make_venv(path: Path) -> Path:
    # Without pip: installing pip into every venv costs seconds; pip_install drives it from outside.
    run(sys.executable, "-m", "venv", "--without-pip", path)
    return path


def pip_install(venv: Path, *args: str | Path) -> None:
    """``pip install`` into ``venv`` with the runner's pip (``pip --python``, pip >= 22.3)."""
    run(sys.executable, "-m", "pip", "--python", bin_of(venv, "python"), "install", "--quiet", *args)


def borrow_dependencies(venv: Path) -> None:
    """Make the test runner's installed packages importable in ``venv`` after its own:
    a bare path line in a ``.pth`` file, so that directory's own ``.pth`` files (an
    editable nodepools) are not processed and nodepools comes from ``venv`` alone."""
    site = Path(run(bin_of(venv, "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())
    (site / "_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
