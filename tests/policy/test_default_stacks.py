"""The default stacks and the examples, as their real programs register them, pass the pack
with no mandatory violation; so do the examples' workloads placed on the aws-dev platform."""
from pathlib import Path

import pytest

from nodepools.plan.project import load_project
from nodepools.plan.run import run_stack

ROOT = Path(__file__).resolve().parents[2]
# Python programs only: examples/yaml-consumer is Pulumi YAML (tests/multilang runs it).
EXAMPLES = sorted(p.parent for p in (ROOT / "examples").glob("*/__main__.py"))


@pytest.fixture(scope="module")
def platform():
    stack_run = run_stack(load_project(ROOT), "aws-dev")
    assert stack_run.error is None
    return stack_run.run


def mandatory(diagnostics):
    return [(d.policy, d.urn, d.message) for d in diagnostics if d.level == "mandatory"]


@pytest.mark.parametrize("stack", ["aws-dev", "aws-prod", "gcp-dev"])
def test_default_stack(check, stack):
    stack_run = run_stack(load_project(ROOT), stack)
    assert stack_run.error is None
    diags = check(stack_run.run)
    assert mandatory(diags) == []
    assert [d for d in diags if not d.cannot_judge] == []


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_alone_and_on_the_platform(check, platform, example):
    stack_run = run_stack(load_project(example), "dev")
    assert stack_run.error is None
    assert mandatory(check(stack_run.run)) == []
    assert mandatory(check(platform.resources + stack_run.run.resources)) == []
