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
from nodepools.spec.system_nodes import SystemNodes

__all__ = ["GuardrailsSpec", "PlatformArgs"]


class PlatformArgs(StrictModel):
    """The pools of one cluster and its guardrails (default: every guardrail at its
    default). ``region`` is the cluster's region, needed by the autoscaler chart on
    EKS; None takes the cluster target's ``region`` attribute when it has one.
    Guardrails are checked against the pools here, so errors name
    ``guardrails.<field>`` and ``pools[i].<field>``. ``system_nodes`` (default None)
    names the nodes an attached cluster already runs its add-ons on: the platform
    may then have no resident pool, and the add-ons nodepools installs are scheduled
    there (docs/design.md section 9)."""

    pools: list[PoolSpec] = Field(min_length=1, max_length=50)
    guardrails: GuardrailsSpec = Field(default_factory=GuardrailsSpec)
    region: str | None = None
    system_nodes: SystemNodes | None = None

    @model_validator(mode="after")
    def _check(self) -> "PlatformArgs":
        problems = Problems()
        guardrail_problems(self.guardrails, self.pools, problems, ("guardrails",))
        problems.raise_if_any("PlatformArgs")
        return self
