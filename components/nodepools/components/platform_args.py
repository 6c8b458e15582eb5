"""``PlatformArgs``: the pools of one cluster and its guardrails, as one validated model.

Its own module (not ``platform.py``) so the validation gate (``validated.py``) can
take it without importing the component that consumes the gate's result.
"""
from __future__ import annotations

from pydantic import Field, model_validator

from nodepools.guardrails.checks import guardrail_problems
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.errors import Problems
from nodepools.spec.model import StrictModel
from nodepools.spec.pool import PoolSpec

__all__ = ["GuardrailsSpec", "PlatformArgs"]


class PlatformArgs(StrictModel):
    """The pools of one cluster and its guardrails (default: every guardrail at its
    default). ``region`` is the cluster's region, needed by the autoscaler chart on
    EKS; None takes the cluster target's ``region`` attribute when it has one.
    Guardrails are checked against the pools here, so errors name
    ``guardrails.<field>`` and ``pools[i].<field>``."""

    pools: list[PoolSpec] = Field(min_length=1, max_length=50)
    guardrails: GuardrailsSpec = Field(default_factory=GuardrailsSpec)
    region: str | None = None

    @model_validator(mode="after")
    def _check(self) -> "PlatformArgs":
        problems = Problems()
        guardrail_problems(self.guardrails, self.pools, problems, ("guardrails",))
        problems.raise_if_any("PlatformArgs")
        return self
