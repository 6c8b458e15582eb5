"""In-cluster guardrails: pure builders of Kubernetes objects and Helm values, derived from the pools.

No Pulumi import here; ``nodepools.components.guardrails.Guardrails`` registers
what ``guardrails_plan`` returns.
"""
from nodepools.guardrails.checks import check_guardrails, guardrail_problems
from nodepools.guardrails.plan import GuardrailsPlan, guardrails_plan
from nodepools.guardrails.spec import (DEFAULT_NAMESPACES, AlertsSpec, ChartVersions, GuardrailsSpec, KueueMode,
                                       LimitRangeSpec)

__all__ = [
    "DEFAULT_NAMESPACES", "AlertsSpec", "ChartVersions", "GuardrailsPlan", "GuardrailsSpec", "KueueMode",
    "LimitRangeSpec", "check_guardrails", "guardrail_problems", "guardrails_plan",
]
