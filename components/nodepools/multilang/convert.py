"""Arguments of the other languages -> the Python API's validated objects.

The arguments carry ``PoolSpec``/``GuardrailsSpec`` field names, so they convert
by name and are validated by the very models the Python API uses, in the same
order: the cluster target and the ``PlatformArgs``, then ``Platform.validate``
(the pool set, the cloud's pool rules, the add-ons' needs), whose
``ValidatedPlatform`` the component hands to ``Platform`` so no rule runs twice.
Every problem is collected and raised once, before anything registers.
"""
from typing import Any, Callable, Mapping, Optional

import pulumi
from pulumi.errors import InputPropertyErrorDetails
from pydantic import ValidationError

from nodepools.backends.base import ClusterTarget
from nodepools.components.platform import Platform, PlatformArgs
from nodepools.components.providers import kubernetes_provider_problem
from nodepools.components.validated import ValidatedPlatform
from nodepools.multilang.names import invalid_inputs, property_errors
from nodepools.spec.errors import Problems

PLATFORM_FIELDS = ("pools", "guardrails", "region")


def platform_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """The ``PlatformArgs`` fields of ``args`` (absent ones left to the model's defaults)."""
    return {k: args[k] for k in PLATFORM_FIELDS if args.get(k) is not None}


def require_lists(args: Mapping[str, Any], fields: tuple[str, ...]) -> None:
    """Refuse one output standing for a whole list: the schema's lists are plain (their items may be
    outputs) because the pools are checked against them before anything registers."""
    problems = Problems()
    for field in fields:
        if isinstance(args.get(field), pulumi.Output):
            problems.add(field, f"{field} must be a list (its items may be outputs), not one output of a list: "
                         "the pools are checked against it before anything registers", None)
    problems.raise_if_any("arguments")


def validated(component: str, make_target: Callable[[], ClusterTarget], args: Mapping[str, Any],
              names: frozenset[str]) -> ValidatedPlatform:
    """The cluster target and ``PlatformArgs`` of ``args``, validated together (the result's
    ``target`` and ``args``); raises ``InputPropertiesError`` naming every bad input (in the
    schema's spelling, ``nodepools.multilang.names``), the Kubernetes provider's type included."""
    errors: list[InputPropertyErrorDetails] = []
    problem = kubernetes_provider_problem(args.get("kubernetes_provider"), "kubernetesProvider")
    if problem is not None:
        errors.append({"property_path": "kubernetesProvider", "reason": problem})
    target: Optional[ClusterTarget] = None
    spec: Optional[PlatformArgs] = None
    result: Optional[ValidatedPlatform] = None
    try:
        target = make_target()
    except ValidationError as err:
        errors += property_errors(err, names)
    try:
        spec = PlatformArgs.model_validate(platform_args(args))
    except ValidationError as err:
        errors += property_errors(err, names)
    if target is not None and spec is not None:
        try:
            result = Platform.validate(target, spec)
        except ValidationError as err:
            errors += property_errors(err, names)
    if errors or result is None:
        raise invalid_inputs(component, errors)
    return result
