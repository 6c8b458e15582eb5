"""The fields of the guardrails' spec and their defaults, without the rules: ``GuardrailsFields``
and the option models it holds (``ChartVersions``, ``LimitRangeSpec``; ``AlertsSpec`` and
``AddonsSpec`` beside them).

The rules (``nodepools.guardrails.checks``) read a spec through these classes, and
``nodepools.guardrails.spec.GuardrailsSpec`` adds the validator that runs them, so the rules
sit between the two and no import runs in a circle (as ``spec/pool_fields.py`` ->
``spec/pool_rules.py`` -> ``spec/pool.py``). The option models are checked by
``GuardrailsSpec``, the gate every door builds: alone they are shapes, not validated values.
Everything else (quotas, GPU counts, Kueue flavors, tolerations) is derived from the cluster's
pools, so nothing is typed twice.
"""
from __future__ import annotations

from enum import Enum

from pydantic import Field

from nodepools.guardrails import upstream
from nodepools.guardrails.addon_modes import AddonsSpec
from nodepools.guardrails.alerts_spec import AlertsSpec
# Imported under this name, not assigned: type checkers (pydantic's mypy plugin) lose
# the fields of models whose base is a variable alias.
from nodepools.spec.model import RealNumber, WholeNumber
from nodepools.spec.model import StrictModel as _Strict
from nodepools.spec.kube_versions import DEFAULT_KUBERNETES_VERSION
from nodepools.vocabulary import KUBE_SYSTEM, SYSTEM_NAMESPACES, WARM_NAMESPACE, GpuAllocation, PoolClass

DEFAULT_NAMESPACES: dict[PoolClass, str] = {
    PoolClass.RESIDENT: "services",
    PoolClass.BATCH: "batch",
    PoolClass.GPU_INFERENCE: "inference",
    PoolClass.GPU_TRAINING: "training",
}
# Namespaces the add-ons live in; a workload-class namespace may not reuse them.
ADDON_NAMESPACE = KUBE_SYSTEM
KUEUE_NAMESPACE = "kueue-system"
RESERVED_NAMESPACES = (*SYSTEM_NAMESPACES, "default", KUEUE_NAMESPACE, WARM_NAMESPACE)

# cluster-autoscaler is released per Kubernetes minor and supports that minor only
# (kubernetes/autoscaler README, "Releases"): the image follows the cluster's version.
# The newest patch of each minor, read from the release tags of kubernetes/autoscaler
# (cluster-autoscaler-1.M.P; latest read 2026-11-30 from a mirror whose newest tags are
# of 2026-07-22: v1.32.7, v1.33.6, v1.34.5, v1.35.2, v1.36.1) and vendored with their
# commits in nodepools/guardrails/upstream/autoscaler_releases.json by
# tools/refresh_upstream.py; tests fail when a supported minor has none.
AUTOSCALER_IMAGE_BY_KUBERNETES = upstream.autoscaler_images()


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


class ChartVersions(_Strict):
    """Pinned add-on versions (docs/kubernetes-facts.md section 0), each an exact
    MAJOR.MINOR.PATCH; the defaults are the fields'. Karpenter's chart
    (``oci://public.ecr.aws/karpenter/karpenter``) is used only when the cluster has Karpenter
    pools; ``cluster_autoscaler_image`` None takes the autoscaler release of the cluster's
    Kubernetes minor (``AUTOSCALER_IMAGE_BY_KUBERNETES``). NVIDIA's DRA driver chart is used only
    with ``gpu_allocation: dra`` and must be a release whose facts nodepools vendored
    (``guardrails/dra_checks.py``)."""

    nvidia_device_plugin: str = "0.20.0"
    cluster_autoscaler: str = "9.59.0"
    cluster_autoscaler_image: str | None = None
    kueue: str = "0.19.2"
    karpenter: str = "1.14.1"
    nvidia_dra_driver: str = "0.4.1"


class LimitRangeSpec(_Strict):
    """Container defaults in the batch and gpu-training namespaces (the defaults are the
    fields'); a request may not exceed its limit. The per-container max is derived from the
    class's largest node."""

    default_request_cpu_millicores: WholeNumber = Field(250, ge=1)
    default_request_memory_mib: WholeNumber = Field(256, ge=1)
    default_limit_cpu_millicores: WholeNumber = Field(1000, ge=1)
    default_limit_memory_mib: WholeNumber = Field(1024, ge=1)


class GuardrailsFields(_Strict):
    """The fields of the in-cluster guardrails of one cluster; ``GuardrailsSpec`` is this
    with its rules enforced (build it as ``GuardrailsSpec``). Defaults are the fields'.

    - ``namespaces``: overrides of the namespace per workload class (``DEFAULT_NAMESPACES``).
      Resident and batch namespaces always exist; a GPU class's namespace exists when the
      cluster has a pool of that class.
    - ``batch_quota_share`` (within ``nodepools.spec.presets.BATCH_QUOTA_SHARE_RANGE``): the batch namespace's
      cpu/memory quota as a share of the resident and batch pools' capacity.
    - ``kubernetes_version``: the schema version objects are built for (default: the newest
      minor both clouds serve, ``nodepools.spec.kube_versions.DEFAULT_KUBERNETES_VERSION``).
    - ``kueue``, ``kueue_pods_ready_timeout_minutes`` (longer than a GPU node's
      scale-from-zero, so a gang is not evicted while its nodes boot).
    - ``atomic_provisioning``: gangs admitted only once every node they need can be bought
      at once (``AtomicProvisioning``).
    - ``alerts``: the throttling alerts and where they are evaluated (``AlertsSpec``,
      on by default, on the cloud's managed backend).
    - ``quota_priority_class_scopes``: add a quota per namespace that admits no pod whose
      PriorityClass is not the namespace's own class.
    - ``limit_range``, ``charts``: see ``LimitRangeSpec``, ``ChartVersions``.
    - ``addons``: which add-ons are installed, disabled or already running
      (``nodepools.guardrails.addon_modes.AddonsSpec``; default: install all).
    - ``gpu_allocation``: how GPU pools hand out their GPUs, ``device-plugin`` or ``dra``
      (NVIDIA's DRA driver; docs/design.md section 11.4); None (default) takes the cloud's
      default for the cluster's minor (``nodepools.guardrails.gpu_allocation``).
    """

    namespaces: dict[PoolClass, str] = Field(default_factory=dict)
    batch_quota_share: RealNumber = 0.5
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    kueue: KueueMode = KueueMode.AUTO
    kueue_pods_ready_timeout_minutes: WholeNumber = Field(20, ge=1, le=1440)
    alerts: AlertsSpec = Field(default_factory=AlertsSpec)
    quota_priority_class_scopes: bool = False
    limit_range: LimitRangeSpec = Field(default_factory=LimitRangeSpec)
    charts: ChartVersions = Field(default_factory=ChartVersions)
    addons: AddonsSpec = Field(default_factory=AddonsSpec)
    atomic_provisioning: AtomicProvisioning = AtomicProvisioning.AUTO
    gpu_allocation: GpuAllocation | None = None

    @property
    def autoscaler_image(self) -> str | None:
        """The cluster-autoscaler image tag: the explicit one, else the release of the
        cluster's Kubernetes minor; None when neither is known."""
        return self.charts.cluster_autoscaler_image or AUTOSCALER_IMAGE_BY_KUBERNETES.get(self.kubernetes_version)

    @property
    def namespace_names(self) -> dict[PoolClass, str]:
        """The namespace of every class: the defaults with ``namespaces`` applied, in class order."""
        return {c: self.namespaces.get(c, DEFAULT_NAMESPACES[c]) for c in PoolClass}
