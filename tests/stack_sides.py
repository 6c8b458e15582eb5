"""The two sides of "the plan and the pack read a stack alike" (tests/architecture/test_one_stack_model.py):
the plan's placement report, and the stack view the pack's servicer builds from the engine's request."""
from __future__ import annotations

from nodepools.inventory.values import is_unknown
from nodepools.offline.analyzer_wire import analyzer_resources
from nodepools.offline.engine import Run
from nodepools.plan.model import plan_view, resources, view_of
from nodepools.plan.verdicts import placement_matrix

# The pack needs one stack policy running to build its view; this one reads every workload's class.
PROBE = "workload-class-declared"


def plan_side(items: list, today, platform: list | None = None) -> dict[str, tuple]:
    """Workload URN -> (namespace, class) in the plan's placement report of ``items`` (its rows as the JSON
    shows them must be those values too); ``platform``: resources already converted by the plan
    (``plan.model.resources``) that the stack holds besides ``items`` (the conversion is per resource)."""
    view = plan_view(Run(resources=items), today) if platform is None else view_of(
        [*platform, *resources(Run(resources=items))], today)
    rows = placement_matrix(view)["workloads"]
    summaries = view.report.summaries
    assert [(r["workload"], r["kind"]) for r in rows] == [(s.workload.name, s.workload.kind) for s in summaries]
    for row, s in zip(rows, summaries):
        assert (row["namespace"], row["class"]) == (None if is_unknown(s.namespace) else s.namespace,
                                                    None if s.workload_class is None or is_unknown(s.workload_class)
                                                    else s.workload_class.value)
    return {s.workload.urn: (s.namespace, s.workload_class) for s in summaries}


class PackProbe:
    """The pack's servicer in this process, running ``PROBE`` only, keeping the stack view it builds."""

    def __init__(self, today) -> None:
        from pulumi.runtime.proto import analyzer_pb2 as pb

        from nodepools.pack.servicer import PackServicer
        from nodepools.policies.registry import POLICIES

        self.servicer = PackServicer(lambda: POLICIES, "nodepools", "probe", "0")
        request = pb.ConfigureAnalyzerRequest()
        for spec in POLICIES:
            entry = request.policyConfig[spec.name]
            entry.enforcementLevel = pb.ADVISORY if spec.name == PROBE else pb.DISABLED
            entry.properties.update({"today": today.isoformat()})
        self.servicer.Configure(request, None)

    def side(self, items: list, platform: list | None = None) -> dict[str, tuple]:
        """Workload URN -> (namespace, class) in the view the pack builds from the ``AnalyzeStackRequest``
        of ``items`` (after ``platform``: ``AnalyzerResource`` messages already built)."""
        import pytest
        from pulumi.runtime.proto import analyzer_pb2 as pb

        from nodepools.policies import stack_view

        built = []

        class Kept(stack_view.StackView):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                built.append(self)

        request = pb.AnalyzeStackRequest(resources=[*(platform or ()), *analyzer_resources(items)])
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(stack_view, "StackView", Kept)
            self.servicer.AnalyzeStack(request, None)
        [view] = built
        return {ref.res.urn: (ref.namespace, ref.pool_class) for ref in view.all_workloads}
