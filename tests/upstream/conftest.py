"""The aws-dev platform (as the engine would send it) and one pack process for the corpus."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def platform():
    from nodepools.offline.analyzer import PackResource
    from nodepools.plan.project import load_project
    from nodepools.plan.run import run_stack
    return [PackResource.from_registration(r) for r in run_stack(load_project(ROOT), "aws-dev").run.resources]


@pytest.fixture(scope="session")
def pack():
    from nodepools.offline.analyzer import PolicyPackRunner
    with PolicyPackRunner(pack_dir=ROOT / "policy", stack="aws-dev") as runner:
        yield runner
