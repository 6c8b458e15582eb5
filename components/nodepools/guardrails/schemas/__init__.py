"""Vendored CRD schemas of the custom resources the guardrails and the Karpenter pools build (see README.md).

``crd_schema(api_version, kind)`` returns the ``openAPIV3Schema`` to validate a
custom resource against offline (kubernetes-validate ships built-in kinds only).
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

FILES = (
    "kueue.x-k8s.io_resourceflavors.json",
    "kueue.x-k8s.io_clusterqueues.json",
    "kueue.x-k8s.io_localqueues.json",
    "monitoring.coreos.com_prometheusrules.json",
    "karpenter.sh_nodepools.json",
    "karpenter.k8s.aws_ec2nodeclasses.json",
    "monitoring.googleapis.com_clusterrules.json",
    "kueue.x-k8s.io_topologies.json",
    "kueue.x-k8s.io_admissionchecks.json",
    "kueue.x-k8s.io_provisioningrequestconfigs.json",
    "autoscaling.x-k8s.io_capacitybuffers_v1alpha1.json",
    "autoscaling.x-k8s.io_capacitybuffers_v1beta1.json",
)


@lru_cache(maxsize=None)
def _crds() -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for name in FILES:
        crd = json.loads(resources.files(__name__).joinpath(name).read_text())
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            out[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    return out


def crd_schema(api_version: str, kind: str) -> dict[str, Any]:
    """The vendored schema; KeyError naming the known kinds when there is none."""
    try:
        return _crds()[(api_version, kind)]
    except KeyError:
        known = ", ".join(f"{a} {k}" for a, k in sorted(_crds()))
        raise KeyError(f"no vendored schema for {api_version} {kind} (vendored: {known})") from None
