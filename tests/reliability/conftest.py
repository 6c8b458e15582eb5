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


def pytest_terminal_summary(terminalreporter):
    """How many damaged resources the policy fuzzer sent, per type (issue 7 asks for the count)."""
    for run in getattr(sys.modules.get("fuzz_random"), "RUNS", ()):
        terminalreporter.write_sep("-", f"policy fuzz random slice, {run}")
    tried = getattr(sys.modules.get("fuzz_stack"), "TRIED", None)
    if not tried:
        return
    terminalreporter.write_sep("-", f"policy fuzz: {sum(tried.values())} damaged resources sent to the pack")
    for type_, count in sorted(tried.items()):
        terminalreporter.write_line(f"{count:6d}  {type_}")
