"""The guardrails' own spec: what a user may tune, validated before anything registers.

``GuardrailsSpec`` is ``GuardrailsFields`` (``spec_fields.py``: the fields, their defaults
and what follows from them) with the spec's rules enforced (``checks.spec_problems``): every
problem of the spec and of its option models, reported at once, each naming its field. Rules
that need the pools run once, at the gate (``checks.guardrail_problems``, ``addon_problems``).
"""
from __future__ import annotations

from pydantic import model_validator

from nodepools.guardrails import checks
from nodepools.guardrails.alerts_spec import AlertBackend, AlertsSpec
from nodepools.guardrails.spec_fields import (ADDON_NAMESPACE, AUTOSCALER_IMAGE_BY_KUBERNETES, DEFAULT_NAMESPACES,
                                              KUEUE_NAMESPACE, RESERVED_NAMESPACES, AtomicProvisioning,
                                              ChartVersions, GuardrailsFields, KueueMode, LimitRangeSpec)
from nodepools.spec.errors import Problems
from nodepools.vocabulary import GpuAllocation

__all__ = ["ADDON_NAMESPACE", "AUTOSCALER_IMAGE_BY_KUBERNETES", "DEFAULT_NAMESPACES", "KUEUE_NAMESPACE",
           "RESERVED_NAMESPACES", "AlertBackend", "AlertsSpec", "AtomicProvisioning", "ChartVersions",
           "GpuAllocation", "GuardrailsSpec", "KueueMode", "LimitRangeSpec"]


class GuardrailsSpec(GuardrailsFields):
    """In-cluster guardrails of one cluster (the fields and their defaults: ``GuardrailsFields``)."""

    @model_validator(mode="after")
    def _check(self) -> "GuardrailsSpec":
        problems = Problems()
        checks.spec_problems(self, problems)
        problems.raise_if_any("GuardrailsSpec")
        return self
