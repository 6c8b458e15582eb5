"""Fixtures of the reliability tests; builders live in ``reliability_programs``
(importable because pytest runs in importlib mode and this folder is put on the path)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from nodepools.offline.engine import Run, run_program  # noqa: E402
from reliability_programs import eks_program, gke_program  # noqa: E402


@pytest.fixture(scope="session")
def eks_up() -> Run:
    return run_program(eks_program(), preview=False)


@pytest.fixture(scope="session")
def gke_up() -> Run:
    return run_program(gke_program(), preview=False)
