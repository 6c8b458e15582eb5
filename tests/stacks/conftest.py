"""Shared helpers: a stack's config file as the CLI would pass it, and the real program under mocks."""
import copy
import runpy
from pathlib import Path

import pytest
import yaml

from nodepools.offline.engine import run_program_capture

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "stacks" / "__main__.py"
STACKS = ("aws-dev", "aws-prod", "gcp-dev")


def _stack_config(stack: str) -> dict:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


def _run(config: dict, stack: str = "test", preview: bool = True):
    return run_program_capture(lambda: runpy.run_path(str(PROGRAM), run_name="__main__"),
                               stack=stack, config=config, preview=preview)


@pytest.fixture
def stack_config():
    """``stack_config("aws-dev")`` -> a fresh deep copy of the file's ``config`` map."""
    return lambda stack: copy.deepcopy(_stack_config(stack))


@pytest.fixture
def run_stack():
    """``run_stack(config, stack=..., preview=...)`` -> (Run, error) of stacks/__main__.py."""
    return _run


@pytest.fixture(scope="session")
def stack_runs():
    """One preview per default stack, shared by the tests (each run costs about a second)."""
    out = {}
    for stack in STACKS:
        run, error = _run(_stack_config(stack), stack=stack)
        assert error is None, f"{stack}: {error}"
        out[stack] = run
    return out


# The platform's own program plus one Deployment with a blanket toleration: it lands on every
# pool, GPU and spot included, so two mandatory policies fail.
BLANKET_WORKLOAD = """
import runpy
import pulumi_kubernetes as k8s
runpy.run_path({program!r}, run_name="__main__")
# A blanket toleration: lands on every pool, GPU and spot included.
k8s.apps.v1.Deployment("anywhere", metadata={{"name": "anywhere", "namespace": "services"}}, spec={{
    "selector": {{"matchLabels": {{"app": "anywhere"}}}},
    "template": {{"metadata": {{"labels": {{"app": "anywhere", "nodepools.io/workload-class": "resident"}}}},
                 "spec": {{"priorityClassName": "nodepools-resident", "tolerations": [{{"operator": "Exists"}}],
                          "containers": [{{"name": "app", "image": "nginx:1.27",
                                          "resources": {{"requests": {{"cpu": "1", "memory": "1Gi"}},
                                                        "limits": {{"cpu": "1", "memory": "1Gi"}}}}}}]}}}}}})
"""


@pytest.fixture
def blanket_workload_program() -> str:
    """A stack program: the real platform and a workload that violates mandatory policies."""
    return BLANKET_WORKLOAD.format(program=str(PROGRAM))
