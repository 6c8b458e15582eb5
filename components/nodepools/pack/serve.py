"""Serve the nodepools CrossGuard pack: what a pack folder's ``__main__.py`` calls.

Constructing ``PolicyPack`` starts the Analyzer gRPC server, prints its port and
blocks (pulumi/pulumi-policy: sdk/python/lib/pulumi_policy/policy.py), so only a
pack's ``__main__.py`` may call ``serve``; the rules stay importable from
``nodepools.policies``.
"""
from __future__ import annotations

import gc


def serve() -> None:
    """Build the pack from every registered policy and serve it until the engine stops it."""
    from pulumi_policy import EnforcementLevel, PolicyPack

    from nodepools.pack.adapter import PACK_NAME, policies

    # pulumi_policy deserialises every resource again for each policy, allocating many
    # short-lived containers; with CPython's default collector thresholds, collections
    # walking every live object took a third of a pass over 1,000 workloads
    # (BENCHMARKS.md, "3 policy pack"). Freeze what the imports built (it lives as long
    # as the process) and collect less often.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    PolicyPack(
        name=PACK_NAME,
        policies=policies(),
        enforcement_level=EnforcementLevel.ADVISORY,
        description="Node-pool placement checklist for EKS/GKE: taints, tolerations, GPU reachability, quotas, "
                    "spot safety, gang scheduling and probe budgets, judged at preview time.",
    )
