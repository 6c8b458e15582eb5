"""The typed outputs of the platform components, in the schema's own spelling.

The provider host maps Python names to schema names only for a top-level output
of a named type; values inside maps and lists are sent as they are, so each pool
is its ``PoolOutputs`` (``nodepools.spec.outputs``, the schema's type) written with
the schema's camelCase keys (Kubernetes spelling, ready to paste into a pod spec):
the same shape the stack program exports.
"""
from typing import Any, NamedTuple

import pulumi
import pulumi_kubernetes as k8s

from nodepools.components.platform import Platform
from nodepools.components.validated import ValidatedPlatform


def pool_outputs(platform: Platform) -> dict[str, Any]:
    """Pool name -> ``PoolOutputs`` as the schema spells it (plain dicts: see the module's docstring)."""
    return {name: pool.outputs.as_dict() for name, pool in platform.pools.items()}


class PlatformOutputs(NamedTuple):
    pools: pulumi.Output[dict[str, Any]]
    namespaces: pulumi.Output[dict[str, str]]
    local_queues: pulumi.Output[dict[str, str]]


def build_platform(component: pulumi.ComponentResource, name: str, validated: ValidatedPlatform,
                   k8s_provider: k8s.Provider) -> PlatformOutputs:
    """The ``Platform`` (on ``validated``'s target, with no rule run again) as ``component``'s
    child and the typed outputs both clouds' components expose, registered on ``component``."""
    platform = Platform(name, validated.target, validated, k8s_provider,
                        opts=pulumi.ResourceOptions(parent=component))
    outputs = PlatformOutputs(pulumi.Output.from_input(pool_outputs(platform)),
                              pulumi.Output.from_input(platform.guardrails.namespaces),
                              pulumi.Output.from_input(platform.guardrails.local_queues))
    component.register_outputs({"pools": outputs.pools, "namespaces": outputs.namespaces,
                                "localQueues": outputs.local_queues})
    return outputs
