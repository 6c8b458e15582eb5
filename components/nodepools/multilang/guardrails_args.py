"""The guardrail arguments other languages send: ``GuardrailsSpec`` as plain, annotated types.

Same conventions as ``pool_args``: field names equal the spec's, enum values are
strings validated by the spec itself, every field documented for the schema.
"""
from typing import TypedDict

from typing_extensions import NotRequired


class ChartVersions(TypedDict):
    """Pinned add-on versions: exact MAJOR.MINOR.PATCH chart versions."""

    nvidia_device_plugin: NotRequired[str]
    """NVIDIA device plugin chart version."""
    cluster_autoscaler: NotRequired[str]
    """cluster-autoscaler chart version."""
    cluster_autoscaler_image: NotRequired[str]
    """cluster-autoscaler image tag vMAJOR.MINOR.PATCH. Default: the release of the cluster's Kubernetes minor."""
    kueue: NotRequired[str]
    """Kueue chart version."""
    karpenter: NotRequired[str]
    """Karpenter chart version."""
    nvidia_dra_driver: NotRequired[str]
    """NVIDIA DRA driver chart version (gpu_allocation dra), one of the releases nodepools checked."""


class AddonMode(TypedDict):
    """Whether the cluster uses an add-on and whether it runs it already."""

    enabled: NotRequired[bool]
    """The cluster uses the add-on."""
    existing: NotRequired[bool]
    """The cluster runs the add-on already: nothing is installed."""


class Addons(TypedDict):
    """Which add-ons the platform installs, for a cluster that may already run its own."""

    device_plugin: NotRequired[AddonMode]
    """The NVIDIA device plugin. Default: enabled, installed."""
    cluster_autoscaler: NotRequired[AddonMode]
    """cluster-autoscaler. Default: enabled, installed when a managed node group autoscales."""
    karpenter: NotRequired[AddonMode]
    """Karpenter. Default: enabled, installed when a pool has provisioner karpenter."""
    kueue: NotRequired[AddonMode]
    """Kueue. Default: enabled, installed as the kueue setting says."""
    gpu_operator: NotRequired[bool]
    """The NVIDIA GPU Operator runs the device plugin: no second one is installed."""


class LimitRange(TypedDict):
    """Container defaults in the batch and gpu-training namespaces; requests must not exceed limits."""

    default_request_cpu_millicores: NotRequired[int]
    """Default CPU request in millicores."""
    default_request_memory_mib: NotRequired[int]
    """Default memory request in MiB."""
    default_limit_cpu_millicores: NotRequired[int]
    """Default CPU limit in millicores."""
    default_limit_memory_mib: NotRequired[int]
    """Default memory limit in MiB."""


class Alerts(TypedDict):
    """The CPU throttling / CPU steal alerts and where they are evaluated."""

    enabled: NotRequired[bool]
    """Register the alerts."""
    backend: NotRequired[str]
    """One of prometheus-operator, google-managed-prometheus (GKE), cloudwatch (EKS). Default: the cloud's
    managed backend (GKE google-managed-prometheus, EKS cloudwatch)."""
    namespace: NotRequired[str]
    """prometheus-operator only, required there: a namespace your Prometheus's ruleNamespaceSelector selects."""
    rule_labels: NotRequired[dict[str, str]]
    """prometheus-operator only, required there: the labels your Prometheus's ruleSelector matches."""
    alarm_actions: NotRequired[list[str]]
    """cloudwatch only: ARNs (e.g. SNS topics) notified when an alarm fires. Default: none."""
    cpu_throttling_ratio: NotRequired[float]
    """Fire when a container is throttled in more than this share of its CFS periods."""
    cpu_steal_ratio: NotRequired[float]
    """Fire when a node's steal is more than this share of its CPU time."""
    for_minutes: NotRequired[int]
    """How long the condition must hold, in minutes."""


class Guardrails(TypedDict):
    """In-cluster guardrails of one cluster; quotas, GPU counts, Kueue flavors and tolerations are derived
    from the pools."""

    namespaces: NotRequired[dict[str, str]]
    """Namespace per workload class (keys: resident, batch, gpu-inference, gpu-training)."""
    batch_quota_share: NotRequired[float]
    """The batch namespace's cpu/memory quota as a share of the resident and batch pools' capacity."""
    kubernetes_version: NotRequired[str]
    """The cluster's Kubernetes minor."""
    kueue: NotRequired[str]
    """One of auto (install Kueue when there is a gpu-training pool), on, off."""
    kueue_pods_ready_timeout_minutes: NotRequired[int]
    """Kueue's waitForPodsReady timeout, in minutes."""
    alerts: NotRequired[Alerts]
    """The throttling alerts. Default: enabled with the defaults."""
    quota_priority_class_scopes: NotRequired[bool]
    """Add a quota per namespace admitting only pods of the namespace's own PriorityClass."""
    limit_range: NotRequired[LimitRange]
    """Container defaults. Default: as documented on LimitRange."""
    charts: NotRequired[ChartVersions]
    """Pinned add-on versions. Default: as documented on ChartVersions."""
    addons: NotRequired[Addons]
    """Which add-ons are installed, disabled or already running. Default: every add-on enabled."""
    atomic_provisioning: NotRequired[str]
    """All-or-nothing capacity for gangs, one of auto (a ProvisioningRequest admission check on the training
    pools the cloud's autoscaler scales), on (also with an existing cluster-autoscaler; refused without such a
    pool), off."""
    gpu_allocation: NotRequired[str]
    """How GPU pools hand out their GPUs, one of device-plugin (NVIDIA's device plugin; GKE's own on GKE), dra
    (NVIDIA's DRA driver, EKS from Kubernetes 1.36). Unset: the cloud's default for the cluster's minor
    (device-plugin, and dra on EKS from 1.37)."""
