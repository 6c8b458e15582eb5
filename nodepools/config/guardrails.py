"""The ``guardrails`` key of a stack's config, validated by the guardrails' own spec.

The guardrails component owns its spec (``GuardrailsSpec``) and the platform its
cross-checks (``PlatformArgs``: pools and guardrails together); this module only
points the stack config at them, so their errors carry config paths too.
"""
from __future__ import annotations

from typing import Any, Sequence

from nodepools.spec.pool import PoolSpec

try:  # the platform lands with the guardrails (issue 3)
    from nodepools.components.platform import GuardrailsSpec, PlatformArgs
except ImportError:  # pragma: no cover - only before the platform exists
    GuardrailsSpec = None  # type: ignore[assignment,misc]
    PlatformArgs = None  # type: ignore[assignment,misc]

GuardrailsConfig = GuardrailsSpec if GuardrailsSpec is not None else dict[str, Any]


def validate_platform(pools: Sequence[PoolSpec], guardrails: Any) -> Any:
    """The platform's args for ``pools`` and ``guardrails``; raises its ValidationError
    (locations ``pools[i]...`` / ``guardrails...``) on cross-field problems."""
    if PlatformArgs is None:
        return None
    return PlatformArgs(pools=list(pools), guardrails=guardrails)
