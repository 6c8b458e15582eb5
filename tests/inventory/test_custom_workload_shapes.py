"""The custom-resource readers (docs/design.md section 8) take any value shape: every field of each
kind replaced by a value of the wrong shape (or unknown) is read without an exception, and every
policy of the pack judges the result inside a full stack without one."""
import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "policy"))

from policy_builders import golden  # noqa: E402
from test_custom_resources import KINDS, QUEUE, custom, inference_service, runtime  # noqa: E402

from nodepools.inventory.gangs import gang_of, volcano_groups  # noqa: E402
from nodepools.inventory.trainer import read_runtime, training_runtimes  # noqa: E402
from nodepools.inventory.values import UNKNOWN  # noqa: E402
from nodepools.inventory.workloads import read_workload  # noqa: E402
from nodepools.inventory.resource import Resource  # noqa: E402
from nodepools.policies.podpaths import meta_path, spec_path  # noqa: E402
from nodepools.policies.registry import POLICIES  # noqa: E402
from nodepools.policies.settings import Settings  # noqa: E402
from nodepools.policies.stack_view import StackView  # noqa: E402

WRONG = [None, 5.0, "x", [], {}, ["a"], [None], UNKNOWN, True]
BASES = [custom(kind, QUEUE) for kind in sorted(KINDS)] + [runtime(), inference_service([])]


def _paths(value, prefix=()):
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield from _paths(inner, prefix + (key,))


def _with(props, path, value):
    if not path:
        return value
    out = copy.deepcopy(props)
    at = out
    for step in path[:-1]:
        at = at[step]
    at[path[-1]] = value
    return out


def _res(base, props) -> Resource:
    return Resource.of(base.type, base.name, props, urn=base.urn)


@pytest.mark.parametrize("base", BASES, ids=lambda b: b.type.rsplit(":", 1)[-1])
def test_every_field_of_any_shape_reads(base):
    runtimes_of = [Resource.of(runtime().type, "runtime", runtime().props, urn="urn:runtime")]
    for path in list(_paths(base.props)):
        for value in WRONG:
            res = _res(base, _with(base.props, path, value))
            read_runtime(res.type, res.props)
            workload = read_workload(res.type, res.props, res.urn, res.name, training_runtimes(runtimes_of + [res]))
            if workload is None:
                continue
            gang_of(workload, {}, volcano_groups([res]))
            assert workload.pod_count is UNKNOWN or workload.pod_count >= 0
            for template in workload.templates:
                assert spec_path(workload, template) and meta_path(workload, template)


def test_every_policy_judges_damaged_custom_resources(today):
    stack = list(golden().add(runtime()).items)
    settings = Settings(today=today)
    for base in BASES:
        # The pod template's own fields, damaged one at a time (a sample of each kind's paths).
        for path in list(_paths(base.props))[::15]:
            res = _res(base, _with(base.props, path, ["x"]))
            view = StackView(stack + [res], today=today)
            for policy in POLICIES:
                list(policy.check(res, settings) if policy.scope == "resource" else policy.check(view, settings))
