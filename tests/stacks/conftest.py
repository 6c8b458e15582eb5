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
