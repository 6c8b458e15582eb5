"""Session fixtures of tests/distribution (see dist_helpers.py): sdist and wheel built once,
virtualenvs shared by every test that needs one."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from dist_helpers import FULL, REPO, borrow_dependencies, make_venv, pip_install, run  # noqa: E402


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel, built as the release workflow builds them (the wheel from the sdist)."""
    out = tmp_path_factory.mktemp("dist")
    pytest.importorskip("build", reason="the 'build' package comes with the test extra: pip install -e '.[test]'")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, REPO)
    return out


@pytest.fixture(scope="session")
def wheel(dist: Path) -> Path:
    [found] = dist.glob("nodepools-*.whl")
    return found


@pytest.fixture(scope="session")
def pack_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``policy/`` alone, somewhere else: what ``pulumi policy publish`` uploads."""
    target = tmp_path_factory.mktemp("elsewhere") / "policy"
    shutil.copytree(REPO / "policy", target, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    return target


@pytest.fixture(scope="session")
def pack_venv(pack_copy: Path, dist: Path) -> Path:
    """The pack's venv from its own requirements.txt, the wheel the only local source.
    Fast slice: ``--no-deps`` (nodepools from the wheel), the pack's dependencies
    borrowed; ``make test-dist``: resolved and installed from PyPI, as in production."""
    venv = make_venv(pack_copy / "venv")
    if FULL:
        pip_install(venv, "--find-links", dist, "-r", pack_copy / "requirements.txt")
    else:
        pip_install(venv, "--no-deps", "--no-index", "--find-links", dist, "-r", pack_copy / "requirements.txt")
        borrow_dependencies(venv)
    return venv


@pytest.fixture(scope="session")
def app_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path, dist: Path) -> Path:
    venv = make_venv(tmp_path_factory.mktemp("app") / "venv")
    if FULL:
        pip_install(venv, "--find-links", dist, f"nodepools[aws,gcp]=={wheel.name.split('-')[1]}")
        return venv
    pip_install(venv, "--no-deps", wheel)
    borrow_dependencies(venv)
    return venv
