"""The floor of the pack benchmarks: pulumi_policy serving no-op policies that only read
each resource's properties and report nothing.

By default (``NODEPOOLS_BENCH_NOOP="1,1"``) one resource policy and one stack policy: what
it costs to get every resource of a preview to a policy at all, with the SDK and the
protocol the engine is used to. ``"<resource>,<stack>"`` sets other counts (``"29,0"``:
the SDK's cost per policy, which deserialises every resource again for each one). Same
collector tuning as the real pack (``nodepools.pack.serve``), so only the policies differ.
"""
import gc
import os

from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy

resource_count, stack_count = (int(n) for n in os.environ.get("NODEPOOLS_BENCH_NOOP", "1,1").split(","))


def _read_resource(args, report_violation):
    for _ in args.props:  # the keys only: reading an unknown value would raise
        pass


def _read_stack(args, report_violation):
    for resource in args.resources:
        for _ in resource.props:
            pass


gc.freeze()
gc.set_threshold(50_000, 20, 20)
PolicyPack(
    name="nodepools-bench-noop",
    policies=[ResourceValidationPolicy(name=f"noop-resource-{i}", description="Reads every resource, accepts it.",
                                       validate=_read_resource) for i in range(resource_count)]
    + [StackValidationPolicy(name=f"noop-stack-{i}", description="Reads every resource, accepts the stack.",
                             validate=_read_stack) for i in range(stack_count)],
    enforcement_level=EnforcementLevel.ADVISORY,
)
