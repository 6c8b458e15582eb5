"""The ``guardrails`` key of a stack's config, validated by the guardrails' own spec.

The guardrails own their spec (``GuardrailsSpec``) and the platform its
cross-checks (``PlatformArgs``: pools and guardrails together); this module
points the stack config at them, so their errors carry config paths too.
"""
from __future__ import annotations

from typing import Sequence

from nodepools.components.platform import PlatformArgs
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.pool import PoolSpec
from nodepools.spec.system_nodes import SystemNodes

__all__ = ["GuardrailsSpec", "platform_args"]


def platform_args(pools: Sequence[PoolSpec], guardrails: GuardrailsSpec, region: str | None,
                  system_nodes: SystemNodes | None = None) -> PlatformArgs:
    """The platform's args; raises its ValidationError (locations ``pools[i]...`` /
    ``guardrails...``) on cross-field problems."""
    return PlatformArgs(pools=list(pools), guardrails=guardrails, region=region, system_nodes=system_nodes)
