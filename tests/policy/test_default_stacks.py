"""The default stacks and the examples, as their real programs register them, pass the pack
with no mandatory violation; so do the examples' workloads placed on the aws-dev platform. The only
finding a default stack gets is the advisory that its minor has left standard support, from that day on."""
from pathlib import Path

import pytest

from nodepools.plan.project import load_project
from nodepools.plan.run import run_stack
from nodepools.policies.rules_versions import CLOUD_OF, SERVICE, VERSION_FIELD
from nodepools.spec.kube_versions import (PAST_STANDARD_SUPPORT, in_standard_support, oldest_in_standard_support,
                                          standard_support_end)

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


def past_standard_support(run, today) -> list[tuple[str, str, str]]:
    """(policy, urn, finding) the pack owes a shipped stack on ``today``: cluster-version once its
    cluster's minor has left its cloud's standard support (an advisory: the stacks must then move)."""
    out = []
    for reg in run.resources:
        field = VERSION_FIELD.get(reg.type)
        if field is None:
            continue
        cloud, version = CLOUD_OF[reg.type], reg.inputs[field]
        end, _ = standard_support_end(cloud, version)
        if end is not None and not in_standard_support(cloud, version, today):
            out.append(("cluster-version", reg.urn, (
                f"{reg.type} '{reg.name}': {field}: version {version} left {SERVICE[cloud]} standard support on "
                f"{end.isoformat()}: {PAST_STANDARD_SUPPORT[cloud]}. Fix: set {field} to "
                f"{oldest_in_standard_support(cloud, today)} or newer (upgrade one minor version at a time)")))
    return out


@pytest.mark.parametrize("stack", ["aws-dev", "aws-prod", "gcp-dev"])
def test_default_stack(check, today, stack):
    stack_run = run_stack(load_project(ROOT), stack)
    assert stack_run.error is None
    diags = check(stack_run.run)
    assert mandatory(diags) == []
    assert [(d.policy, d.urn, d.message.split("\n", 1)[1]) for d in diags if not d.cannot_judge] == \
        past_standard_support(stack_run.run, today)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_alone_and_on_the_platform(check, platform, example):
    stack_run = run_stack(load_project(example), "dev")
    assert stack_run.error is None
    assert mandatory(check(stack_run.run)) == []
    assert mandatory(check(platform.resources + stack_run.run.resources)) == []
