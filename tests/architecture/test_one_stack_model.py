"""One stack model: for every workload of every corpus stack of the suite, the plan's placement report
and the pack's own model of the stack give the same namespace and the same class.

The plan side is what ``nodepools plan`` reports (``plan.model.plan_view`` and the placement section
``plan.verdicts.placement_matrix``); the pack side is the view the pack's servicer builds from the
``AnalyzeStackRequest`` the engine would send, captured as its stack policies judge it. Any second
reader of a workload's namespace or class on either side (placement resolving a class of its own, as
before issue 30) makes them differ on the corpora's namespaces named by dependency.

Corpora: the policy suite's stacks (the golden stacks, each custom resource kind, the stacks that
name a namespace by dependency, the policy fuzzer's compliant stacks), tests/upstream's two corpora on
their platforms, and the shipped stacks, aws-dev with the examples' workloads.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in ("policy", "upstream", "reliability"):
    sys.path.insert(0, str(TESTS / folder))

from stack_sides import PackProbe, plan_side  # noqa: E402

ROOT = TESTS.parent


def policy_stacks() -> dict[str, list]:
    from fuzz_stack import base_stack
    from karpenter_builders import karpenter_golden
    from policy_builders import golden, namespaced_by_dependency
    from test_custom_resources import KINDS, QUEUE, custom, inference_service, runtime

    stacks = {"golden": golden().items, "karpenter": karpenter_golden().items,
              "custom resources": golden().add(runtime(), inference_service([]),
                                               *(custom(kind, QUEUE) for kind in sorted(KINDS))).items,
              "custom resources, no class label": golden().add(runtime(), *(custom(kind) for kind in sorted(KINDS))).items,
              "namespace by dependency": namespaced_by_dependency().items,
              "named namespace by dependency": namespaced_by_dependency(named=True).items}
    stacks.update({f"fuzz {cloud}": base_stack(cloud) for cloud in ("aws", "gcp", "karpenter")})
    return {name: list(items) for name, items in stacks.items()}


def upstream_stacks() -> dict[str, tuple[str, list]]:
    """Name -> (the platform it is placed on, its own resources)."""
    from corpus import entries, read, resources as entry_resources
    from section8 import cases, resources as case_resources

    out = {f"upstream {e.id}": ("aws-dev", entry_resources(read(e))) for e in entries()}
    for case in cases():
        out[f"section 8 {case.id}"] = (f"{case.platform} without {','.join(case.without)}", case_resources(case))
    return out


@pytest.fixture(scope="module")
def platforms():
    """The shipped stacks' runs (each once, ``<stack> without <suffixes>`` without the resources so
    named), and aws-dev with the examples' workloads."""
    from nodepools.plan.project import load_project
    from nodepools.plan.run import run_stack, with_workloads

    runs: dict[str, list] = {}

    def get(name: str) -> list:
        if name not in runs:
            stack, _, without = name.partition(" without ")
            if without:
                cut = tuple(w for w in without.split(",") if w)
                runs[name] = [r for r in get(stack) if not (cut and r.name.endswith(cut))]
            elif stack == "aws-dev + examples":
                apps = [run_stack(load_project(ROOT / "examples" / app), "dev")
                        for app in ("gpu-inference", "spot-training", "batch-cronjob")]
                runs[name] = list(with_workloads(run_stack(load_project(ROOT), "aws-dev"), apps).run.resources)
            else:
                runs[name] = list(run_stack(load_project(ROOT), stack).run.resources)
        return runs[name]
    return get


def test_the_plan_and_the_pack_read_every_corpus_workloads_namespace_and_class_alike(platforms, today):
    from nodepools.offline.analyzer_wire import analyzer_resources
    from nodepools.offline.engine import Run
    from nodepools.plan.model import resources

    # Stack name -> (platform or None, resources). A platform is converted once, by the plan as by the
    # client (each resource on its own: a stack's request is its platform's messages and its own).
    corpora: dict[str, tuple[str | None, list]] = {name: (None, items) for name, items in policy_stacks().items()}
    corpora.update(upstream_stacks())
    corpora.update({f"shipped {s}": (s, []) for s in ("aws-dev + examples", "aws-prod", "gcp-dev", "aws-karpenter")})
    converted = {p: (resources(Run(resources=platforms(p))), analyzer_resources(platforms(p)))
                 for p in {p for p, _ in corpora.values() if p}}
    probe = PackProbe(today)
    differ, workloads, by_dependency = {}, 0, 0
    for name, (platform, items) in corpora.items():
        plan_resources, messages = converted[platform] if platform else (None, None)
        plan, pack = plan_side(items, today, plan_resources), probe.side(items, messages)
        assert plan.keys() == pack.keys(), name
        differ.update({(name, urn.rsplit("::", 1)[-1]): (plan[urn], pack[urn]) for urn in plan if plan[urn] != pack[urn]})
        workloads += len(plan)
        by_dependency += sum(1 for r in items if r.property_dependencies.get("metadata") and r.urn in plan)
    assert differ == {}
    # The corpora hold the cases a second reader would get wrong, and enough of everything else.
    assert by_dependency >= 2 and workloads >= 150 and len(corpora) >= 100
