"""Reference programs for the reliability tests (imported as ``reliability_programs``): one EKS and one GKE platform with
all four pool classes and every guardrail, built only from the public API."""
from __future__ import annotations

from typing import Any, Callable

import pulumi_kubernetes as k8s
from google.protobuf import json_format

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.components.platform import Platform, PlatformArgs
from pydantic import ValidationError

from nodepools.offline.engine import Registration, Run, run_program_capture
from nodepools.spec import describe

CLUSTER_SG = "sg-0c1a2b3c4d5e6f708"
EXTRA_SG = "sg-0e1e2e3e4e5e6e7e8"
OIDC_ISSUER = "https://oidc.eks.us-west-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"
OIDC_ARN = ("arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/"
            "EXAMPLED539D4633E53DE1B71EXAMPLE")


def aws_pools(**overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """resident / batch / gpu-inference / gpu-training on EKS; ``overrides[name]`` updates one pool."""
    pools = [
        {"name": "web", "pool_class": "resident", "instance_types": ["m7i.xlarge"], "min_nodes": 2, "max_nodes": 6},
        {"name": "jobs", "pool_class": "batch", "instance_types": ["c7i.2xlarge"], "capacity": "spot",
         "max_nodes": 10},
        {"name": "infer", "pool_class": "gpu-inference", "instance_types": ["g6.xlarge"], "max_nodes": 3},
        {"name": "train", "pool_class": "gpu-training", "instance_types": ["p4d.24xlarge"], "max_nodes": 2},
    ]
    return [{**p, **overrides.get(p["name"], {})} for p in pools]


def gcp_pools(**overrides: dict[str, Any]) -> list[dict[str, Any]]:
    pools = [
        {"name": "web", "pool_class": "resident", "instance_types": ["n2-standard-4"], "max_nodes": 4},
        {"name": "jobs", "pool_class": "batch", "instance_types": ["c3-standard-8"], "max_nodes": 5},
        {"name": "infer", "pool_class": "gpu-inference", "instance_types": ["g2-standard-8"], "max_nodes": 2},
        {"name": "train", "pool_class": "gpu-training", "instance_types": ["a2-highgpu-8g"], "max_nodes": 2},
    ]
    return [{**p, **overrides.get(p["name"], {})} for p in pools]


def eks_target(**kwargs: Any) -> EksCluster:
    return EksCluster("prod", ["subnet-0a1b2c3d4e5f60701", "subnet-0a1b2c3d4e5f60702"],
                      **{"cluster_security_group_id": CLUSTER_SG, "node_security_group_ids": [EXTRA_SG],
                         "oidc_provider_arn": OIDC_ARN, "oidc_issuer_url": OIDC_ISSUER,
                         "tags": {"env": "prod"}, **kwargs})


def gke_target(**kwargs: Any) -> GkeCluster:
    return GkeCluster("main", **{"location": "us-central1", "project": "nodepools-prod-1234",
                                 "default_zones": ["us-central1-a", "us-central1-b"], **kwargs})


def platform_program(make_target: Callable[[], Any], pools: list[dict[str, Any]],
                     guardrails: dict[str, Any] | None = None, region: str | None = None) -> Callable[[], None]:
    """A program: the Platform ``p`` on ``make_target()``. The args and the target are
    built first, as a program reading its config would, so their errors stop the
    program before even the Kubernetes provider registers."""
    def program() -> None:
        fields: dict[str, Any] = {"pools": pools, "guardrails": guardrails or {}}
        if region is not None:
            fields["region"] = region
        args = PlatformArgs.model_validate(fields)
        target = make_target()
        Platform("p", target, args, k8s.Provider("k8s", kubeconfig="fake"))
    return program


def eks_program(**overrides: dict[str, Any]) -> Callable[[], None]:
    return platform_program(eks_target, aws_pools(**overrides), region="us-west-2")


def eks_karpenter_program(target: Callable[[], Any] | None = None) -> Callable[[], None]:
    """The EKS platform with its batch and GPU pools built by Karpenter (the system pool stays managed)."""
    karpenter = {"provisioner": "karpenter"}
    return platform_program(target or eks_target, aws_pools(jobs=karpenter, infer=karpenter, train=karpenter),
                            region="us-west-2")


def gke_program(**overrides: dict[str, Any]) -> Callable[[], None]:
    return platform_program(gke_target, gcp_pools(**overrides))


def wire(registration: Registration) -> dict[str, Any]:
    """The inputs exactly as the engine receives them (camelCase, numbers as floats)."""
    return json_format.MessageToDict(registration.wire)


def under(run: Run, pool: str, type_token: str) -> list[Registration]:
    """Resources of ``type_token`` registered by the pool component ``p-<pool>``."""
    [component] = [r for r in run.resources if r.type == "nodepools:pools:NodePool" and r.name == f"p-{pool}"]
    return [r for r in run.resources if r.parent == component.urn and r.type == type_token]


def rejected(program: Callable[[], None]) -> list[str]:
    """Run ``program``: it must fail with a ValidationError and register nothing; its lines."""
    run, error = run_program_capture(program)
    assert isinstance(error, ValidationError), error
    assert run.resources == []
    return describe(error)
