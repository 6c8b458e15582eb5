"""The Analyzer protocol's floor: no-op policies that read nothing and report nothing.

By default one resource policy: the floor of the protocol itself. With
``NODEPOOLS_BENCH_NOOP="<resource>,<stack>"`` it holds that many resource and
stack policies: the SDK's own cost per policy (it deserialises every resource
again for each policy), so a pack of as many no-op policies as the real one is
the floor our rules are measured against. Same SDK, server and resources as the
real pack (``policy/``), and the same collector tuning as its ``__main__.py``, so
the only difference left is the policies.
"""
import gc
import os

from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy

resource_count, stack_count = (int(n) for n in os.environ.get("NODEPOOLS_BENCH_NOOP", "1,0").split(","))


def _noop(args, report_violation):
    return None


gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 20)
PolicyPack(
    name="nodepools-bench-noop",
    policies=[ResourceValidationPolicy(name=f"noop-resource-{i}", description="Accepts every resource unread.",
                                       validate=_noop) for i in range(resource_count)]
    + [StackValidationPolicy(name=f"noop-stack-{i}", description="Accepts every stack unread.", validate=_noop)
       for i in range(stack_count)],
    enforcement_level=EnforcementLevel.ADVISORY,
)
