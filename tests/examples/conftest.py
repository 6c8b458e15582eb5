"""Each example runs as its own Pulumi project, with its own Pulumi.dev.yaml, under the mock engine."""
from pathlib import Path

import pytest

from nodepools.plan.project import load_project
from nodepools.plan.run import run_stack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="session")
def example_runs():
    """name -> StackRun (preview) of every example with a Pulumi.yaml."""
    out = {}
    # Python programs only: examples/yaml-consumer is Pulumi YAML (tests/multilang runs it).
    for directory in sorted(p.parent for p in EXAMPLES.glob("*/__main__.py")):
        out[directory.name] = run_stack(load_project(directory), "dev")
    return out


@pytest.fixture(scope="session")
def platform_run():
    """The aws-dev stack's preview: the pools the examples' workloads land on."""
    return run_stack(load_project(EXAMPLES.parent), "aws-dev")


@pytest.fixture(scope="session")
def policy_pack(session_told):
    """The real pack (policy/), running as the engine runs it, shared by the session, on the suite's date."""
    from nodepools.offline.analyzer import PolicyPackRunner
    with PolicyPackRunner(pack_dir=EXAMPLES.parent / "policy", stack="aws-dev", today=session_told) as runner:
        yield runner
