"""``make plan`` ends with the plan's own exit code (0/1/2), not make's 2 for any failure."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def venv(tmp_path):
    """A venv whose installed ``nodepools`` is a stand-in exiting with $PLAN_EXIT, after
    recording its arguments; the stamp is fresh, so make installs nothing."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    cli = bin_dir / "nodepools"
    cli.write_text(f'#!/bin/sh\necho "$@" > {tmp_path / "args"}\necho "planned" >&2\nexit "$PLAN_EXIT"\n')
    cli.chmod(0o755)
    (tmp_path / "venv" / ".installed").touch()
    os.utime(tmp_path / "venv" / ".installed", (4_000_000_000, 4_000_000_000))  # newer than pyproject.toml
    return tmp_path / "venv"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("plan_exit", [0, 1, 2])
def test_make_plan_exits_with_the_plan_s_code(venv, plan_exit):
    result = subprocess.run(["make", "--no-print-directory", "plan", f"VENV={venv}", "STACK=gcp-dev"],
                            cwd=REPO, capture_output=True, text=True, env={**os.environ, "PLAN_EXIT": str(plan_exit)})
    assert result.returncode == plan_exit, result.stderr
    assert "planned" in result.stderr
    assert (venv.parent / "args").read_text().split() == ["plan", "--stack", "gcp-dev", "--report",
                                                           "plan-out/gcp-dev.md"]
    if plan_exit == 2:
        assert "nodepools plan exited 2: the config is invalid, the program failed or the pack could not run" \
            in result.stderr
