"""Every name the contract exposes, spelled exactly once.

Labels, taints, annotations, PriorityClass names, resource type tokens and the
cluster-autoscaler tag prefixes live here so that the components, the guardrails,
the policy pack and the placement analysis can never disagree on a spelling
(docs/design.md section 2 is the source of truth; changing a value here is an
API change).
"""
from __future__ import annotations

from enum import Enum


class PoolClass(str, Enum):
    """The four pool classes of docs/design.md section 1."""

    RESIDENT = "resident"
    BATCH = "batch"
    GPU_INFERENCE = "gpu-inference"
    GPU_TRAINING = "gpu-training"

    @property
    def has_gpu(self) -> bool:
        return self in (PoolClass.GPU_INFERENCE, PoolClass.GPU_TRAINING)

    @property
    def always_on(self) -> bool:
        return self in ALWAYS_ON_CLASSES


# The classes that serve traffic: min >= 1, off spot, Guaranteed QoS, never a training gang.
ALWAYS_ON_CLASSES = (PoolClass.RESIDENT, PoolClass.GPU_INFERENCE)


class CapacityType(str, Enum):
    ON_DEMAND = "on-demand"
    SPOT = "spot"


class TaintEffect(str, Enum):
    """Kubernetes spelling (CamelCase); backends translate to their cloud enum."""

    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class Architecture(str, Enum):
    X86_64 = "x86_64"
    ARM64 = "arm64"


class Cloud(str, Enum):
    AWS = "aws"
    GCP = "gcp"


# --- node labels set by every pool (docs/design.md section 2) ---------------------
LABEL_POOL_CLASS = "nodepools.io/pool-class"
LABEL_POOL = "nodepools.io/pool"
LABEL_CAPACITY = "nodepools.io/capacity"
# GPU pools only.
LABEL_ACCELERATOR = "nodepools.io/accelerator"
# The NVIDIA device plugin chart's default affinity ORs this label with two NFD
# labels; setting it ourselves is what lets the plugin land without NFD/GFD
# (docs/kubernetes-facts.md section 3, "default affinity trap").
LABEL_GPU_PRESENT = "nvidia.com/gpu.present"
LABEL_GPU_PRESENT_VALUE = "true"
# cluster-autoscaler's GPULabel on AWS: without it CA scales up again before the
# device plugin advertises the GPUs (docs/kubernetes-facts.md section 1.4).
LABEL_AWS_ACCELERATOR = "k8s.amazonaws.com/accelerator"
# Shared GPU pools only (docs/design.md section 7): ``time-slicing`` | ``mig``, and the MIG profile.
LABEL_GPU_SHARING = "nodepools.io/gpu-sharing"
LABEL_MIG_PROFILE = "nodepools.io/mig-profile"
# The NVIDIA device plugin picks its per-node config (an entry of the chart's
# config.map) by this node label (NVIDIA/k8s-device-plugin: README.md@v0.20.0,
# "Multiple Config File Example").
LABEL_DEVICE_PLUGIN_CONFIG = "nvidia.com/device-plugin.config"

# --- labels the clouds set themselves (read by the policy pack/placement) ----
LABEL_EKS_CAPACITY_TYPE = "eks.amazonaws.com/capacityType"
LABEL_GKE_SPOT = "cloud.google.com/gke-spot"
LABEL_GKE_PREEMPTIBLE = "cloud.google.com/gke-preemptible"
LABEL_GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
LABEL_GKE_NODEPOOL = "cloud.google.com/gke-nodepool"
# GKE labels shared GPU nodes itself (gpus-multi, timesharing-gpus how-to pages).
LABEL_GKE_GPU_PARTITION_SIZE = "cloud.google.com/gke-gpu-partition-size"
LABEL_GKE_GPU_SHARING_STRATEGY = "cloud.google.com/gke-gpu-sharing-strategy"
LABEL_GKE_MAX_SHARED_CLIENTS = "cloud.google.com/gke-max-shared-clients-per-gpu"
LABEL_EKS_NODEGROUP = "eks.amazonaws.com/nodegroup"
LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
LABEL_ARCH = "kubernetes.io/arch"
LABEL_ZONE = "topology.kubernetes.io/zone"
# Set by the kubelet on every node; hostname and region vary per node (placement analysis).
LABEL_OS = "kubernetes.io/os"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_REGION = "topology.kubernetes.io/region"

# --- cloud resource labels (GCE VM/disk labels, for billing by pool) ----------
# GCP label keys allow only [a-z0-9_-], so the node-label spelling cannot be reused.
GCP_RESOURCE_LABEL_POOL = "nodepools-pool"
GCP_RESOURCE_LABEL_POOL_CLASS = "nodepools-pool-class"

# --- taints -------------------------------------------------------------------
# The class taint: key LABEL_POOL_CLASS, value = the class.
TAINT_POOL_CLASS_KEY = LABEL_POOL_CLASS
# GPU taint: the key must equal the extended resource name so that the
# ExtendedResourceToleration admission plugin lets GPU pods through and
# repels the rest (docs/kubernetes-facts.md section 5).
GPU_RESOURCE = "nvidia.com/gpu"
TAINT_GPU_KEY = GPU_RESOURCE
# The other resource names a pod requests a GPU by (docs/design.md section 6): the device
# plugin's shared (time-sliced / MPS, renameByDefault) name and MIG slices, one per profile.
GPU_SHARED_RESOURCE = "nvidia.com/gpu.shared"
# MIG slices under the device plugin's mixed strategy: nvidia.com/mig-<profile>.
# Their name differs from the taint key, so ExtendedResourceToleration does not
# tolerate nvidia.com/gpu for them: the contract's explicit toleration does.
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"


def mig_resource(profile: str) -> str:
    """The resource a MIG slice of ``profile`` (e.g. ``1g.10gb``) is requested by."""
    return MIG_RESOURCE_PREFIX + profile


def is_gpu_resource(name: object) -> bool:
    """The one answer to "is this resource name a GPU" (docs/design.md section 6), for the
    request side (does a pod ask for a GPU) and the offer side (what a node advertises):
    ``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` or ``nvidia.com/mig-<profile>``."""
    return isinstance(name, str) and (name in (GPU_RESOURCE, GPU_SHARED_RESOURCE) or
                                      (name.startswith(MIG_RESOURCE_PREFIX) and len(name) > len(MIG_RESOURCE_PREFIX)))


QUOTA_REQUESTS_PREFIX = "requests."
TAINT_GPU_VALUE = "present"
HARD_TAINT_EFFECTS = (TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value)

# --- workload side --------------------------------------------------------------
LABEL_WORKLOAD_CLASS = "nodepools.io/workload-class"
ANNOTATION_CHECKPOINT_INTERVAL = "nodepools.io/checkpoint-interval"
ANNOTATION_MODEL_LOAD_SECONDS = "nodepools.io/model-load-seconds"
# GPU memory the served model needs, in GiB (docs/design.md section 7, gpu-memory-fit).
ANNOTATION_MODEL_MEMORY_GIB = "nodepools.io/model-memory-gib"
ANNOTATION_SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
LABEL_KUEUE_QUEUE = "kueue.x-k8s.io/queue-name"
LABEL_COSCHEDULING_POD_GROUP = "scheduling.x-k8s.io/pod-group"
# Volcano: pods naming its scheduler join a PodGroup of the size the annotation gives, or the
# PodGroup an annotation names (volcano-sh/apis pkg/apis/scheduling/v1beta1/labels.go).
SCHEDULER_VOLCANO = "volcano"
ANNOTATION_VOLCANO_MIN_MEMBER = "scheduling.volcano.sh/group-min-member"
ANNOTATIONS_VOLCANO_GROUP_NAME = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")
TYPE_VOLCANO_POD_GROUP = "kubernetes:scheduling.volcano.sh/v1beta1:PodGroup"

# --- quota / resource keys -----------------------------------------------------
# Only the requests. prefix is enforced for extended resources
# (docs/kubernetes-facts.md section 4): limits.nvidia.com/gpu is never counted.
QUOTA_GPU_REQUESTS = "requests.nvidia.com/gpu"
QUOTA_GPU_LIMITS_NEVER_ENFORCED = "limits.nvidia.com/gpu"

# --- PriorityClasses (docs/design.md section 2) -------------------------------------
PRIORITY_CLASS_NAMES: dict[PoolClass, str] = {
    PoolClass.RESIDENT: "nodepools-resident",
    PoolClass.GPU_INFERENCE: "nodepools-gpu-inference",
    PoolClass.BATCH: "nodepools-batch",
    PoolClass.GPU_TRAINING: "nodepools-gpu-training",
}
# cluster-autoscaler's --expendable-pods-priority-cutoff default: pods below it
# never trigger scale-up (docs/kubernetes-facts.md section 1.5).
AUTOSCALER_PRIORITY_CUTOFF = -10
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
PRIORITY_CLASS_SYSTEM_NODE_CRITICAL = "system-node-critical"
PRIORITY_CLASS_SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
# Set by the API server on every namespace (used to select one namespace exactly).
LABEL_NAMESPACE_NAME = "kubernetes.io/metadata.name"
# IRSA: the service-account annotation naming the IAM role its pods assume.
ANNOTATION_IRSA_ROLE_ARN = "eks.amazonaws.com/role-arn"

# Where Kubernetes and the clouds run their own add-ons (and nodepools its cluster-wide ones).
KUBE_SYSTEM = "kube-system"
SYSTEM_NAMESPACES = (KUBE_SYSTEM, "kube-public", "kube-node-lease")

# --- cluster-autoscaler ASG tags (docs/kubernetes-facts.md section 1.2) -------------
CA_TAG_ENABLED = "k8s.io/cluster-autoscaler/enabled"
CA_TAG_CLUSTER_PREFIX = "k8s.io/cluster-autoscaler/"
CA_NODE_TEMPLATE_PREFIX = "k8s.io/cluster-autoscaler/node-template/"
CA_TAG_LABEL_PREFIX = CA_NODE_TEMPLATE_PREFIX + "label/"
CA_TAG_TAINT_PREFIX = CA_NODE_TEMPLATE_PREFIX + "taint/"
CA_TAG_RESOURCE_PREFIX = CA_NODE_TEMPLATE_PREFIX + "resources/"
CA_TAG_OPTION_PREFIX = CA_NODE_TEMPLATE_PREFIX + "autoscaling-options/"
# Discovery tag values: the IRSA policy conditions scale actions on the cluster
# tag being exactly this value, so both sides import it from here.
CA_TAG_ENABLED_VALUE = "true"
CA_TAG_CLUSTER_VALUE = "owned"
# Per-ASG autoscaling options (suffixes of CA_TAG_OPTION_PREFIX).
CA_OPTION_GPU_UTILIZATION_THRESHOLD = "scaledowngpuutilizationthreshold"
CA_OPTION_UNNEEDED_TIME = "scaledownunneededtime"

# --- provider resource type tokens (what the engine sends the policy pack) -----
TYPE_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TYPE_EKS_CLUSTER = "aws:eks/cluster:Cluster"
TYPE_ASG_TAG = "aws:autoscaling/tag:Tag"
TYPE_GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
TYPE_GKE_CLUSTER = "gcp:container/cluster:Cluster"
POOL_RESOURCE_TYPES = (TYPE_EKS_NODE_GROUP, TYPE_GKE_NODE_POOL)
CLUSTER_RESOURCE_TYPES = (TYPE_EKS_CLUSTER, TYPE_GKE_CLUSTER)

K8S_WORKLOAD_TYPES = {
    "kubernetes:apps/v1:Deployment": "Deployment",
    "kubernetes:apps/v1:StatefulSet": "StatefulSet",
    "kubernetes:apps/v1:DaemonSet": "DaemonSet",
    "kubernetes:apps/v1:ReplicaSet": "ReplicaSet",
    "kubernetes:batch/v1:Job": "Job",
    "kubernetes:batch/v1:CronJob": "CronJob",
    "kubernetes:core/v1:Pod": "Pod",
}
TYPE_NAMESPACE = "kubernetes:core/v1:Namespace"
TYPE_RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"
TYPE_LIMIT_RANGE = "kubernetes:core/v1:LimitRange"
TYPE_PRIORITY_CLASS = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
TYPE_HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
# A chart installs through either (pulumi-kubernetes helm.v3.Release, helm.v4.Chart).
HELM_TYPES = (TYPE_HELM_RELEASE, "kubernetes:helm.sh/v4:Chart")
# The NVIDIA GPU Operator's chart: its device plugin (ClusterPolicy) or its DRA stack (GPUCluster).
GPU_OPERATOR_CHART = "gpu-operator"
TYPE_PROMETHEUS_RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
# Google Managed Prometheus rule kinds (namespaced, cluster-wide, project-wide).
TYPE_GMP_RULES_PREFIX = "kubernetes:monitoring.googleapis.com/v1:"
TYPE_GMP_CLUSTER_RULES = "kubernetes:monitoring.googleapis.com/v1:ClusterRules"
GMP_RULE_KINDS = ("Rules", "ClusterRules", "GlobalRules")
TYPE_CLOUDWATCH_METRIC_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
# Tag on nodepools' CloudWatch alarms naming the signal (cpu-throttling, cpu-steal): their
# query embeds the cluster's name, unknown in a preview that creates the cluster, and the
# throttling-monitoring policy reads this tag then.
TAG_ALERT = "nodepools.io/alert"
# Replaced by the cluster's name in a CloudWatch alarm's name and query at registration.
ALARM_CLUSTER_PLACEHOLDER = "$CLUSTER"
KUEUE_API_VERSION = "kueue.x-k8s.io/v1beta2"
TYPE_KUEUE_RESOURCE_FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
TYPE_KUEUE_CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
TYPE_KUEUE_LOCAL_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
# Dynamic Resource Allocation, GA in Kubernetes 1.34 (resource.k8s.io/v1).
TYPE_DRA_DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
TYPE_DRA_RESOURCE_CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
TYPE_DRA_RESOURCE_CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
DRA_TYPES = (TYPE_DRA_DEVICE_CLASS, TYPE_DRA_RESOURCE_CLAIM, TYPE_DRA_RESOURCE_CLAIM_TEMPLATE)
class GpuAllocation(str, Enum):
    """How GPU pools hand out their GPUs (docs/design.md section 11.4): ``device-plugin``, NVIDIA's
    device plugin (GKE's own on GKE), or ``dra``, NVIDIA's DRA driver."""

    DEVICE_PLUGIN = "device-plugin"
    DRA = "dra"


# NVIDIA's DRA driver for GPUs (kubernetes-sigs/dra-driver-nvidia-gpu; docs/design.md section 11.4):
# the driver name its ResourceSlices carry, and the DeviceClasses its chart publishes
# (deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-*.yaml@v0.4.1): whole GPUs (type
# gpu; the class that maps nvidia.com/gpu), MIG devices (type mig), passthrough (type vfio).
NVIDIA_DRA_DRIVER = "gpu.nvidia.com"
DRA_CLASS_GPU = "gpu.nvidia.com"
DRA_CLASS_MIG = "mig.nvidia.com"
DRA_CLASS_VFIO = "vfio.gpu.nvidia.com"
DRA_CHART_CLASSES = (DRA_CLASS_GPU, DRA_CLASS_MIG, DRA_CLASS_VFIO)
# The driver's chart (kubernetes-sigs, 0.4+) and its name before the move (NVIDIA/k8s-dra-driver-gpu,
# up to 25.12); the images of both, the GPU Operator's copy included (nvcr.io/nvidia/dra-driver-nvidia-gpu).
DRA_DRIVER_CHARTS = ("dra-driver-nvidia-gpu", "nvidia-dra-driver-gpu")
DRA_DRIVER_IMAGES = ("dra-driver-nvidia-gpu", "k8s-dra-driver-gpu")
# The GPU Operator's DRA stack (NVIDIA/gpu-operator: api/nvidia/v1alpha1/gpucluster_types.go@v26.7.0).
TYPE_GPU_CLUSTER = "kubernetes:nvidia.com/v1alpha1:GPUCluster"
# A ResourceQuota caps the devices a namespace's claims of one class request with this key
# (kubernetes/kubernetes: pkg/quota/v1/evaluator/core/resource_claims.go).
DRA_QUOTA_DEVICES_SUFFIX = ".deviceclass.resource.k8s.io/devices"


def dra_mig_profile_class(profile: str) -> str:
    """nodepools' DeviceClass of one MIG profile's devices on a DRA platform, e.g.
    ``mig-1g.10gb.nodepools.io``: it maps ``nvidia.com/mig-<profile>`` (docs/design.md section 11.4)."""
    return f"mig-{profile}.nodepools.io"


def dra_quota_key(device_class: str) -> str:
    """The ResourceQuota key capping the devices claims of ``device_class`` request."""
    return device_class + DRA_QUOTA_DEVICES_SUFFIX

# --- our component type tokens (frozen once released) ---------------------------
COMPONENT_NODE_POOL = "nodepools:pools:NodePool"
COMPONENT_GUARDRAILS = "nodepools:guardrails:Guardrails"
COMPONENT_PLATFORM = "nodepools:platform:Platform"


def class_taint(pool_class: PoolClass) -> dict[str, str]:
    """The class taint in Kubernetes shape."""
    return {"key": TAINT_POOL_CLASS_KEY, "value": pool_class.value, "effect": TaintEffect.NO_SCHEDULE.value}


def gpu_taint() -> dict[str, str]:
    return {"key": TAINT_GPU_KEY, "value": TAINT_GPU_VALUE, "effect": TaintEffect.NO_SCHEDULE.value}


# --- Karpenter (docs/design.md section 7) ---------------------------------------------
class Provisioner(str, Enum):
    """How a pool's nodes are made: an EKS managed node group (default) or Karpenter."""

    MANAGED = "managed"
    KARPENTER = "karpenter"


TYPE_KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
TYPE_KARPENTER_EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
# Karpenter sets these on every node it launches.
LABEL_KARPENTER_NODEPOOL = "karpenter.sh/nodepool"
LABEL_KARPENTER_CAPACITY_TYPE = "karpenter.sh/capacity-type"
KARPENTER_CAPACITY_SPOT = "spot"
KARPENTER_CAPACITY_ON_DEMAND = "on-demand"
# Pod annotation: Karpenter never voluntarily disrupts a node running such a pod.
ANNOTATION_KARPENTER_DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
# Node annotation that keeps cluster-autoscaler from scaling a node down.
ANNOTATION_CA_SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
COMPONENT_KARPENTER = "nodepools:karpenter:Karpenter"

# --- training topology, all-or-nothing capacity, native gangs (docs/design.md section 9.3) -----
# Network-topology node labels the clouds set themselves (never by us; declared for placement
# and the Kueue Topology): EKS (the AWS cloud controller, from EC2 DescribeInstanceTopology)
# topology.k8s.aws/network-node-layer-1..3 (-4 on four-layer types), broadest first
# (docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html); GKE the
# gce-topology block / sub-block / host labels
# (cloud.google.com/ai-hypercomputer/docs/workloads/schedule-gke-workloads-tas).
LABEL_AWS_NETWORK_NODE_LAYER_PREFIX = "topology.k8s.aws/network-node-layer-"
LABEL_GCE_TOPOLOGY_BLOCK = "cloud.google.com/gce-topology-block"
LABEL_GCE_TOPOLOGY_SUBBLOCK = "cloud.google.com/gce-topology-subblock"
LABEL_GCE_TOPOLOGY_HOST = "cloud.google.com/gce-topology-host"
# Kueue's topology requests on a pod template (kubernetes-sigs/kueue:
# apis/kueue/v1beta2/topology_types.go@v0.19.2).
ANNOTATION_KUEUE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
ANNOTATION_KUEUE_PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
TYPE_KUEUE_TOPOLOGY = "kubernetes:kueue.x-k8s.io/v1beta2:Topology"
TYPE_KUEUE_ADMISSION_CHECK = "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck"
TYPE_KUEUE_PROVISIONING_REQUEST_CONFIG = "kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig"
TYPE_CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
# Native gangs: pods name a PodGroup (spec.schedulingGroup.podGroupName) of the
# scheduling.k8s.io Workload API (v1alpha2 in 1.36, KEP-4671 / KEP-5832).
# (PriorityClass shares the group: match the kind too.)
TYPE_NATIVE_SCHEDULING_PREFIX = "kubernetes:scheduling.k8s.io/"
NATIVE_GANG_KINDS = ("Workload", "PodGroup")

# --- warm capacity and node repair (docs/design.md section 9.4) ---------------------------
# Pods that only hold capacity (CapacityBuffer templates, overprovisioning placeholders)
# carry this label: every policy but ``schedulable`` leaves them alone.
LABEL_PLACEHOLDER = "nodepools.io/placeholder"
LABEL_PLACEHOLDER_VALUE = "true"
# The placeholder PriorityClass: below every nodepools class (training is -5), above
# cluster-autoscaler's expendable cutoff (-10), so placeholders still trigger scale-up.
PRIORITY_CLASS_OVERPROVISIONING = "nodepools-overprovisioning"
# The namespace holding warm capacity (buffers, their PodTemplates, placeholders) and its quota.
WARM_NAMESPACE = "nodepools-warm"
TYPE_POD_TEMPLATE = "kubernetes:core/v1:PodTemplate"
TYPE_CAPACITY_BUFFER_V1BETA1 = "kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer"
TYPE_CAPACITY_BUFFER_V1ALPHA1 = "kubernetes:autoscaling.x-k8s.io/v1alpha1:CapacityBuffer"
CAPACITY_BUFFER_TYPES = (TYPE_CAPACITY_BUFFER_V1BETA1, TYPE_CAPACITY_BUFFER_V1ALPHA1)
# What makes a workload autoscaled (section 9.4, "Warm capacity objects").
HPA_TYPES = ("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "kubernetes:autoscaling/v1:HorizontalPodAutoscaler")
TYPE_KEDA_SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
TYPE_KSERVE_INFERENCE_SERVICE = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
# Kubeflow Trainer marks the replicated job of a runtime that runs the training step.
LABEL_TRAINER_STEP = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER_STEP_TRAINER = "trainer"
