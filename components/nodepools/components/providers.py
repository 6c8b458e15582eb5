"""A Kubernetes provider must be one: the check every door (Python API, stack, Construct) runs.

Why by type: every in-cluster object takes its provider from this argument, and the
engine sends an object whose provider is not a Kubernetes provider to the *default*
Kubernetes provider, i.e. to whatever cluster the deployer's kubeconfig points at. A
string (a kubeconfig, a context name) or another cloud's provider is refused before
anything registers, and the message never quotes the value (a kubeconfig may hold a
token).
"""
from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from nodepools.spec.errors import Problems

KUBERNETES_PROVIDER_TYPE = "pulumi:providers:kubernetes"
KUBERNETES_PACKAGE = "kubernetes"


def _what(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, pulumi.Output):
        return "an output (pass the provider resource itself)"
    if isinstance(value, pulumi.ProviderResource):
        return f"a provider of type pulumi:providers:{value.package}"
    if isinstance(value, pulumi.Resource):
        return f"a resource of type {type(value).__module__.split('.')[0]}.{type(value).__name__}, not a provider"
    if isinstance(value, str):
        return "a string (a provider is a resource, not its kubeconfig or context name)"
    return f"a {type(value).__name__}"


def kubernetes_provider_problem(value: Any, field: str) -> str | None:
    """Why ``value`` cannot be the Kubernetes provider ``field`` names (None when it can): a
    ``pulumi_kubernetes.Provider``, or a reference to a ``pulumi:providers:kubernetes``
    (the SDK's stand-in for a provider known only by its URN)."""
    if isinstance(value, k8s.Provider):
        return None
    if isinstance(value, pulumi.ProviderResource) and getattr(value, "package", None) == KUBERNETES_PACKAGE:
        return None
    return (f"{field} must be a Kubernetes provider (pulumi_kubernetes.Provider, type {KUBERNETES_PROVIDER_TYPE}); "
            f"got {_what(value)}: every in-cluster object is deployed through it, and anything else would send "
            "them to the default provider's cluster")


def require_kubernetes_provider(value: Any, field: str, title: str) -> None:
    """Raise a ValidationError (titled ``title``, at ``field``) unless ``value`` is a Kubernetes provider."""
    problem = kubernetes_provider_problem(value, field)
    if problem is not None:
        problems = Problems()
        problems.add(field, problem, None)
        problems.raise_if_any(title)
