"""Warm capacity (docs/design.md section 9.4): what holds each warm pool's spare replicas and what serves it.

Per pool with ``warm`` (``nodepools.spec.warm``), one of two mechanisms:

- **CapacityBuffer** (``autoscaling.x-k8s.io``) referring to a PodTemplate shaped like one
  replica: the autoscaler simulates the template's pods and keeps nodes for them, and
  real pods land on those nodes as if they were empty (no pod ever runs for the buffer).
  Served by cluster-autoscaler from 1.34 (v1alpha1; v1beta1 from 1.35, the vendored CRD of
  each release says which it serves) with ``--capacity-buffer-controller-enabled`` and
  ``--capacity-buffer-pod-injection-enabled`` (``cluster-autoscaler/config/flags/flags.go``
  at 1.34.5, 1.35.2, 1.36.1); by Karpenter 1.14+ behind its alpha ``CapacityBuffer`` gate
  (its chart ships the v1beta1 CRD: ``chart_karpenter.json``); by GKE's own autoscaler from
  1.35 (active buffers from 1.35.2-gke.1842000, GKE "Configure capacity buffers").
- **Placeholder**, wherever no autoscaler we configure serves buffers (older minors, an
  autoscaler or Karpenter the cluster runs itself): a Deployment of pause pods with the
  same shape at ``nodepools-overprovisioning`` (-9: above cluster-autoscaler's expendable
  cutoff -10, so a pending placeholder still scales the pool up, and below training's -5,
  so every class preempts it), ``preemptionPolicy: Never`` (a placeholder never evicts).

Quotas count warm capacity honestly: buffers, templates and placeholders live in one
namespace of their own (``nodepools-warm``) whose ResourceQuota caps exactly the warm GPU
units and pods. A placeholder in the inference namespace would spend that namespace's GPU
quota: quota admission runs before scheduling, so with the quota full a new model-server
pod would be refused at creation and never get to preempt the placeholder. The autoscaler
limits a buffer by the quotas of its own namespace (1.35+: ``capacitybuffer/controller/
resourcequotas.go``), so the warm namespace's quota bounds the buffers too. The objects
themselves are built by ``nodepools.guardrails.warm_objects``; the upstream facts are in
docs/kubernetes-facts.md section 10.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Sequence

from nodepools import vocabulary as v
from nodepools.guardrails import upstream
from nodepools.guardrails.addon_modes import installs_cluster_autoscaler
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.karpenter import is_karpenter, karpenter_pools
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud

BUFFER_GROUP = "autoscaling.x-k8s.io"
BUFFER_CRD_NAME = "capacitybuffers.autoscaling.x-k8s.io"
BUFFER_FLAGS = ("capacity-buffer-controller-enabled", "capacity-buffer-pod-injection-enabled")
# 1.36 builds a buffer's pods by a server dry-run pod create (default on), which needs "create"
# on pods cluster-wide: a privilege the autoscaler must not hold. Off, it defaults requests
# from limits itself (fakepods/defaulting.go), which is all our templates need.
DRY_RUN_FLAG = "capacity-buffer-pod-dry-run-enabled"
# What the buffer controller reads beyond the chart's ClusterRole (chart 9.59.0 grants
# capacitybuffers, their status and podtemplates): ResourceQuotas, listed and watched from 1.35
# to bound buffers by quota, and the scale subresource of a buffer's scalableRef
# (capacitybuffer/client/client.go at 1.35.2, 1.36.1). Read-only.
BUFFER_RBAC_RULES = (
    {"apiGroups": [""], "resources": ["resourcequotas"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["apps"], "resources": ["deployments/scale", "replicasets/scale", "statefulsets/scale"],
     "verbs": ["get"]},
    {"apiGroups": [""], "resources": ["replicationcontrollers/scale"], "verbs": ["get"]},
)
GKE_BUFFERS_FROM = (1, 35)
KARPENTER_BUFFERS_FROM = (1, 14, 0)


class Mechanism(str, Enum):
    CAPACITY_BUFFER = "capacity-buffer"
    PLACEHOLDER = "placeholder"


class Server(str, Enum):
    """Who serves a buffer (placeholders need no one: any autoscaler scales up for pending pods)."""

    CLUSTER_AUTOSCALER = "cluster-autoscaler"
    KARPENTER = "karpenter"
    GKE = "gke"
    NONE = "none"


@dataclass(frozen=True)
class WarmChoice:
    """How one warm pool's capacity is held: the mechanism, the buffer API version, and who serves it (why)."""

    pool: PoolSpec
    mechanism: Mechanism
    api_version: str | None
    server: Server
    served_by: str

    @property
    def name(self) -> str:
        return f"{v.WARM_NAMESPACE}-{self.pool.name}"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.lstrip("v").split(".") if part.isdigit())


def karpenter_serves_buffers(cluster: ClusterPools, spec: GuardrailsSpec) -> bool:
    """The Karpenter we install (1.14+) can serve buffers; its chart ships their CRD."""
    return (bool(karpenter_pools(cluster.pools)) and spec.addons.karpenter.install
            and _version(spec.charts.karpenter) >= KARPENTER_BUFFERS_FROM)


def karpenter_buffer_versions() -> list[str]:
    return upstream.chart("karpenter")["crds"].get(BUFFER_CRD_NAME, [])


def autoscaler_buffer_versions(spec: GuardrailsSpec) -> list[str]:
    """The buffer API versions the autoscaler image we install serves ([] before 1.34 or unvendored)."""
    image = spec.autoscaler_image
    crd = upstream.capacity_buffer_crd(image) if image else None
    try:
        flags = upstream.autoscaler_flags(image)["flags"] if image else []
    except KeyError:
        flags = []
    if crd is None or not set(BUFFER_FLAGS) <= set(flags):
        return []
    return [ver["name"] for ver in crd["spec"]["versions"] if ver.get("served")]


def _placeholder(pool: PoolSpec, why: str) -> WarmChoice:
    return WarmChoice(pool, Mechanism.PLACEHOLDER, None, Server.NONE, f"placeholder pods: {why}")


def choose(pool: PoolSpec, cluster: ClusterPools, spec: GuardrailsSpec) -> WarmChoice:
    """The mechanism for one warm pool (module docstring)."""
    if is_karpenter(pool):
        if not spec.addons.karpenter.install:
            return _placeholder(pool, "the cluster runs its own Karpenter (addons.karpenter.existing), whose "
                                      "CapacityBuffer gate nodepools cannot set")
        if _version(spec.charts.karpenter) < KARPENTER_BUFFERS_FROM:
            return _placeholder(pool, f"Karpenter {spec.charts.karpenter} has no CapacityBuffer (from 1.14)")
        return WarmChoice(pool, Mechanism.CAPACITY_BUFFER, f"{BUFFER_GROUP}/{_newest(karpenter_buffer_versions())}",
                          Server.KARPENTER, f"Karpenter {spec.charts.karpenter} (feature gate CapacityBuffer)")
    if cluster.cloud is Cloud.GCP:
        if _version(spec.kubernetes_version) < GKE_BUFFERS_FROM:
            return _placeholder(pool, f"GKE serves CapacityBuffers from 1.35 (this cluster: "
                                      f"{spec.kubernetes_version})")
        return WarmChoice(pool, Mechanism.CAPACITY_BUFFER, f"{BUFFER_GROUP}/v1beta1", Server.GKE,
                          "GKE's cluster autoscaler (GKE 1.35.2-gke.1842000 or later)")
    if not installs_cluster_autoscaler(not CLOUD_ADDONS[cluster.cloud].cluster_autoscaler, spec.addons,
                                       cluster.pools):
        return _placeholder(pool, "the cluster-autoscaler nodepools would configure for buffers is disabled or "
                                  "the cluster's own (addons.cluster_autoscaler)")
    served = autoscaler_buffer_versions(spec)
    if not served:
        return _placeholder(pool, f"cluster-autoscaler {spec.autoscaler_image} serves no CapacityBuffer (from "
                                  "1.34)")
    if karpenter_serves_buffers(cluster, spec):
        # Karpenter's chart installs the CRD; the autoscaler must speak a version it serves.
        common = [ver for ver in served if ver in karpenter_buffer_versions()]
        if not common:
            return _placeholder(pool, f"Karpenter's CapacityBuffer CRD serves {', '.join(karpenter_buffer_versions())}"
                                      f", cluster-autoscaler {spec.autoscaler_image} speaks {', '.join(served)}")
        served = common
    flags = ", ".join(f"--{flag}" for flag in BUFFER_FLAGS)
    return WarmChoice(pool, Mechanism.CAPACITY_BUFFER, f"{BUFFER_GROUP}/{_newest(served)}",
                      Server.CLUSTER_AUTOSCALER, f"cluster-autoscaler {spec.autoscaler_image} ({flags})")


def _newest(versions: Sequence[str]) -> str:
    return "v1beta1" if "v1beta1" in versions else versions[0]


def warm_choices(cluster: ClusterPools, spec: GuardrailsSpec) -> list[WarmChoice]:
    return [choose(p, cluster, spec) for p in cluster.pools if p.warm is not None]


def serves(choices: Sequence[WarmChoice], server: Server) -> bool:
    return any(c.server is server for c in choices)


def autoscaler_buffer_args(cluster: ClusterPools, spec: GuardrailsSpec) -> dict[str, str]:
    """The flags that turn cluster-autoscaler's buffer support on, when one of our pools needs it."""
    if not serves(warm_choices(cluster, spec), Server.CLUSTER_AUTOSCALER):
        return {}
    args = {flag: "true" for flag in BUFFER_FLAGS}
    if DRY_RUN_FLAG in upstream.autoscaler_flags(str(spec.autoscaler_image))["flags"]:
        args[DRY_RUN_FLAG] = "false"
    return args


def autoscaler_buffer_rules(cluster: ClusterPools, spec: GuardrailsSpec) -> list[dict[str, Any]]:
    """``rbac.additionalRules`` the buffer controller needs beyond the chart's ClusterRole."""
    if not serves(warm_choices(cluster, spec), Server.CLUSTER_AUTOSCALER):
        return []
    return [dict(rule) for rule in BUFFER_RBAC_RULES]


def karpenter_buffer_gate(cluster: ClusterPools, spec: GuardrailsSpec) -> bool:
    return serves(warm_choices(cluster, spec), Server.KARPENTER)
