"""The guardrails' own spec: what a user may tune, validated before anything registers.

Everything else (quotas, GPU counts, Kueue flavors, tolerations) is derived from
the cluster's pools, so nothing is typed twice. Rules that need the pools live in
``nodepools.guardrails.checks``.
"""
from __future__ import annotations

import re
from enum import Enum

from pydantic import Field, model_validator

from nodepools.guardrails import upstream
from nodepools.guardrails.addon_modes import AddonsSpec, kueue_mode_problem
from nodepools.guardrails.alerts_spec import AlertBackend, AlertsSpec
from nodepools.guardrails.gpu_allocation import GpuAllocation
# Imported under this name, not assigned: type checkers (pydantic's mypy plugin) lose
# the fields of models whose base is a variable alias.
from nodepools.spec.model import RealNumber, WholeNumber
from nodepools.spec.model import StrictModel as _Strict

from nodepools.spec.cluster import SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.errors import Problems
from nodepools.spec.syntax import dns_label_error
from nodepools.vocabulary import SYSTEM_NAMESPACES, WARM_NAMESPACE, PoolClass

DEFAULT_NAMESPACES: dict[PoolClass, str] = {
    PoolClass.RESIDENT: "services",
    PoolClass.BATCH: "batch",
    PoolClass.GPU_INFERENCE: "inference",
    PoolClass.GPU_TRAINING: "training",
}
# Namespaces the add-ons live in; a workload-class namespace may not reuse them.
ADDON_NAMESPACE = "kube-system"
KUEUE_NAMESPACE = "kueue-system"
RESERVED_NAMESPACES = (*SYSTEM_NAMESPACES, "default", KUEUE_NAMESPACE, WARM_NAMESPACE)

__all__ = ["AlertBackend", "AlertsSpec", "AtomicProvisioning", "ChartVersions", "GpuAllocation", "GuardrailsSpec",
           "KueueMode", "LimitRangeSpec"]

_CHART_VERSION = re.compile(r"^\d+\.\d+\.\d+\Z")
_IMAGE_TAG = re.compile(r"^v\d+\.\d+\.\d+\Z")



class KueueMode(str, Enum):
    """``auto`` (default): install Kueue when the cluster has a gpu-training pool;
    ``on``: always (an error without a gpu-training pool); ``off``: never."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


class AtomicProvisioning(str, Enum):
    """All-or-nothing capacity for gangs (docs/design.md section 9.3): ``auto`` (default) puts a
    ProvisioningRequest admission check on the training ClusterQueue for the gpu-training
    pools the cloud's autoscaler scales (EKS: the cluster-autoscaler nodepools installs;
    GKE: its built-in autoscaler); ``on`` also trusts an ``existing`` cluster-autoscaler
    (which must run with ``--enable-provisioning-requests``) and refuses a cluster with no
    such pool; ``off``: none."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


# cluster-autoscaler is released per Kubernetes minor and supports that minor only
# (kubernetes/autoscaler README, "Releases"): the image follows the cluster's version.
# The newest patch of each minor, read from the release tags of kubernetes/autoscaler
# (cluster-autoscaler-1.M.P; latest read 2026-11-30 from a mirror whose newest tags are
# of 2026-07-22: v1.32.7, v1.33.6, v1.34.5, v1.35.2, v1.36.1) and vendored with their
# commits in nodepools/guardrails/upstream/autoscaler_releases.json by
# tools/refresh_upstream.py; tests fail when a supported minor has none.
AUTOSCALER_IMAGE_BY_KUBERNETES = upstream.autoscaler_images()


class ChartVersions(_Strict):
    """Pinned add-on versions (docs/kubernetes-facts.md section 0). Defaults: NVIDIA
    device plugin chart 0.20.0, cluster-autoscaler chart 9.59.0, Kueue chart 0.19.2,
    Karpenter chart 1.14.1 (``oci://public.ecr.aws/karpenter/karpenter``, used only
    when the cluster has Karpenter pools), NVIDIA DRA driver chart 0.4.1 (used only with
    ``gpu_allocation: dra``; one of the vendored versions, ``guardrails/dra_driver.py``);
    ``cluster_autoscaler_image`` None takes the autoscaler release of the cluster's
    Kubernetes minor (``AUTOSCALER_IMAGE_BY_KUBERNETES``)."""

    nvidia_device_plugin: str = "0.20.0"
    cluster_autoscaler: str = "9.59.0"
    cluster_autoscaler_image: str | None = None
    kueue: str = "0.19.2"
    karpenter: str = "1.14.1"
    nvidia_dra_driver: str = "0.4.1"

    @model_validator(mode="after")
    def _check(self) -> "ChartVersions":
        problems = Problems()
        for field in ("nvidia_device_plugin", "cluster_autoscaler", "kueue", "karpenter", "nvidia_dra_driver"):
            value = getattr(self, field)
            if not _CHART_VERSION.match(value):
                problems.add(field, f"chart version {value!r} must be an exact version MAJOR.MINOR.PATCH "
                             "(ranges would let an add-on change under a running cluster)", value)
        if self.cluster_autoscaler_image is not None and not _IMAGE_TAG.match(self.cluster_autoscaler_image):
            problems.add("cluster_autoscaler_image", f"image tag {self.cluster_autoscaler_image!r} must look like "
                         "vMAJOR.MINOR.PATCH", self.cluster_autoscaler_image)
        problems.raise_if_any("ChartVersions")
        return self


class LimitRangeSpec(_Strict):
    """Container defaults in the batch and gpu-training namespaces. Defaults:
    requests 250m cpu / 256 MiB, limits 1 cpu / 1024 MiB. The per-container max
    is derived from the class's largest node."""

    default_request_cpu_millicores: WholeNumber = Field(250, ge=1)
    default_request_memory_mib: WholeNumber = Field(256, ge=1)
    default_limit_cpu_millicores: WholeNumber = Field(1000, ge=1)
    default_limit_memory_mib: WholeNumber = Field(1024, ge=1)

    @model_validator(mode="after")
    def _check(self) -> "LimitRangeSpec":
        problems = Problems()
        for what in ("cpu_millicores", "memory_mib"):
            request, limit = getattr(self, f"default_request_{what}"), getattr(self, f"default_limit_{what}")
            if request > limit:
                problems.add(f"default_request_{what}", f"default_request_{what} ({request}) must be <= "
                             f"default_limit_{what} ({limit})", request)
        problems.raise_if_any("LimitRangeSpec")
        return self


class GuardrailsSpec(_Strict):
    """In-cluster guardrails of one cluster.

    - ``namespaces``: overrides of the namespace per workload class (defaults
      resident ``services``, batch ``batch``, gpu-inference ``inference``,
      gpu-training ``training``). Resident and batch namespaces always exist; a
      GPU class's namespace exists when the cluster has a pool of that class.
    - ``batch_quota_share`` (default 0.5, allowed 0.40-0.60): the batch namespace's
      cpu/memory quota as a share of the resident and batch pools' capacity.
    - ``kubernetes_version`` (default "1.35"): the schema version objects are built for.
    - ``kueue`` (default ``auto``), ``kueue_pods_ready_timeout_minutes`` (default 20:
      longer than a GPU node's scale-from-zero, so a gang is not evicted while its
      nodes boot).
    - ``atomic_provisioning`` (default ``auto``): gangs admitted only once every node they
      need can be bought at once (``AtomicProvisioning``).
    - ``alerts``: the throttling alerts and where they are evaluated (``AlertsSpec``,
      on by default, on the cloud's managed backend).
    - ``quota_priority_class_scopes`` (default off): add a quota per namespace that
      admits no pod whose PriorityClass is not the namespace's own class.
    - ``limit_range``, ``charts``: see ``LimitRangeSpec``, ``ChartVersions``.
    - ``addons``: which add-ons are installed, disabled or already running
      (``nodepools.guardrails.addon_modes.AddonsSpec``; default: install all).
    - ``gpu_allocation`` (default None: the cloud's default for the cluster's minor,
      ``nodepools.guardrails.gpu_allocation``): how GPU pools hand out their GPUs,
      ``device-plugin`` or ``dra`` (NVIDIA's DRA driver; docs/design.md section 11.4).
    """

    namespaces: dict[PoolClass, str] = Field(default_factory=dict)
    batch_quota_share: RealNumber = 0.5
    kubernetes_version: str = "1.35"
    kueue: KueueMode = KueueMode.AUTO
    kueue_pods_ready_timeout_minutes: WholeNumber = Field(20, ge=1, le=1440)
    alerts: AlertsSpec = Field(default_factory=AlertsSpec)
    quota_priority_class_scopes: bool = False
    limit_range: LimitRangeSpec = Field(default_factory=LimitRangeSpec)
    charts: ChartVersions = Field(default_factory=ChartVersions)
    addons: AddonsSpec = Field(default_factory=AddonsSpec)
    atomic_provisioning: AtomicProvisioning = AtomicProvisioning.AUTO
    gpu_allocation: GpuAllocation | None = None

    @model_validator(mode="after")
    def _check(self) -> "GuardrailsSpec":
        problems = Problems()
        if not 0.40 <= self.batch_quota_share <= 0.60:
            problems.add("batch_quota_share", f"batch_quota_share must be between 0.40 and 0.60 (the batch "
                         "namespace's share of the resident and batch pools' cpu and memory), got "
                         f"{self.batch_quota_share}", self.batch_quota_share)
        if self.kubernetes_version not in SUPPORTED_KUBERNETES_VERSIONS:
            problems.add("kubernetes_version", f"kubernetes_version {self.kubernetes_version!r} is not supported "
                         f"(allowed: {', '.join(SUPPORTED_KUBERNETES_VERSIONS)})", self.kubernetes_version)
        seen: dict[str, PoolClass] = {}
        for pool_class, name in self.namespace_names.items():
            loc = ("namespaces", pool_class.value)
            if err := dns_label_error(name):
                problems.add(loc, f"namespace {err}", name)
            elif name in RESERVED_NAMESPACES:
                problems.add(loc, f"namespace {name!r} is reserved (reserved: {', '.join(RESERVED_NAMESPACES)}); "
                             "workload classes need namespaces of their own", name)
            elif name in seen:
                problems.add(loc, f"namespace {name!r} is already the {seen[name].value} namespace; each workload "
                             "class needs its own namespace (its quota and LimitRange differ)", name)
            seen.setdefault(name, pool_class)
        kueue_mode_problem(self.addons, self.kueue is KueueMode.ON, problems, ())
        problems.raise_if_any("GuardrailsSpec")
        return self

    @property
    def autoscaler_image(self) -> str | None:
        """The cluster-autoscaler image tag: the explicit one, else the release of the
        cluster's Kubernetes minor; None when neither is known."""
        return self.charts.cluster_autoscaler_image or AUTOSCALER_IMAGE_BY_KUBERNETES.get(self.kubernetes_version)

    @property
    def namespace_names(self) -> dict[PoolClass, str]:
        """The namespace of every class: the defaults with ``namespaces`` applied, in class order."""
        return {c: self.namespaces.get(c, DEFAULT_NAMESPACES[c]) for c in PoolClass}
