"""The aws-dev platform (as the engine would send it) and one pack process for the corpus."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "pack"))

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def platform():
    from nodepools.plan.project import load_project
    from nodepools.plan.run import run_stack
    return list(run_stack(load_project(ROOT), "aws-dev").run.resources)


@pytest.fixture(scope="session")
def pack(session_told):
    """``policy/`` unless ``NODEPOOLS_TEST_PACK`` says otherwise (tests/pack/pack_under_test.py), on the
    suite's date."""
    from pack_under_test import pack_runner
    with pack_runner(stack="aws-dev", today=session_told) as runner:
        yield runner
