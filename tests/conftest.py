"""Session setup shared by every test directory.

The examples declare ``virtualenv: venv`` (Pulumi's template layout) and the plan runs a
program with its project's virtualenv, as Pulumi does. Their ``requirements.txt``
installs this checkout, which is what the test runner's environment is: an example
without a venv of its own gets a link to it (as ``make plan`` makes), so its
program runs in this process.
"""
from __future__ import annotations

import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def pytest_sessionstart(session) -> None:  # noqa: ARG001 - pytest hook signature
    for project in EXAMPLES.glob("*/Pulumi.yaml"):
        venv = project.parent / "venv"
        if "virtualenv: venv" in project.read_text() and not venv.exists() and not venv.is_symlink():
            venv.symlink_to(Path(sys.prefix), target_is_directory=True)
