"""Every policy of docs/design.md section 3: name, rule and fix, severity, default level, check.

Mandatory by default: the isolation and safety policies (a violation there puts
the wrong pod on the wrong node or leaves a pod nowhere to run). Advisory
elsewhere. Levels are defaults; the pack config overrides them per policy.
"""
from __future__ import annotations

from nodepools.policies import rules_karpenter as karp
from nodepools.policies import rules_gpu_allocation as allocation
from nodepools.policies import rules_gpu_memory as gpumem
from nodepools.policies import rules_inference as inference
from nodepools.policies import rules_namespaces as ns
from nodepools.policies import rules_offpeak as offpeak
from nodepools.policies import rules_placement as place
from nodepools.policies import rules_platform as plat
from nodepools.policies import rules_pools as pools
from nodepools.policies import rules_tolerations as tol
from nodepools.policies import rules_topology as topo
from nodepools.policies import rules_versions as versions
from nodepools.policies import rules_workloads as work
from nodepools.policies.base import EnforcementLevel, PolicySpec, Severity
from nodepools.policies.settings import Settings
from nodepools.spec.kube_versions import DRA_V1, NATIVE_SIDECARS

M, A = EnforcementLevel.MANDATORY, EnforcementLevel.ADVISORY
LOW, MEDIUM, HIGH, CRITICAL = Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL
# The defaults a description names are the pack config's own (one home: ``Settings``).
_DEFAULTS = Settings()
_WINDOW = _DEFAULTS.off_peak_window


def _p(name, description, severity, level, scope, check, config=(), topic=""):
    return PolicySpec(name, description, severity, level, scope, check, tuple(config), topic)


POLICIES: tuple[PolicySpec, ...] = (
    _p("pool-taints", "Every node pool carries a NoSchedule/NoExecute taint, except at most one untainted resident/"
       "default pool per cluster. Fix: taint the pool nodepools.io/pool-class=<class>:NoSchedule.",
       HIGH, M, "stack", pools.check_pool_taints, topic="pools"),
    _p("gpu-pool-taint", "A GPU pool (GPU instance type, accelerator or GPU image) carries the nvidia.com/gpu "
       "NoSchedule taint. Fix: add nvidia.com/gpu=present:NoSchedule (NO_SCHEDULE on EKS/GKE).",
       CRITICAL, M, "resource", pools.check_gpu_pool_taint, topic="pools"),
    _p("inference-on-demand", "resident and gpu-inference pools run on on-demand capacity. Fix: EKS capacityType "
       "ON_DEMAND, GKE nodeConfig.spot/preemptible false.", HIGH, M, "resource", pools.check_inference_on_demand,
       topic="pools"),
    _p("scale-to-zero", "batch and gpu-training pools scale to zero (min 0); resident and gpu-inference pools keep "
       "min >= 1. Fix: set the pool's minimum size accordingly.", MEDIUM, A, "resource", pools.check_scale_to_zero,
       topic="pools"),
    _p("autoscaler-hints", "An EKS pool with min 0 has cluster-autoscaler node-template tags on its ASG for every "
       "taint (CamelCase effect), its class label and its GPU count. Fix: add aws.autoscaling.Tag resources from "
       "the node group's ASG name.", MEDIUM, A, "stack", plat.check_autoscaler_hints, topic="gpu-plumbing"),
    _p("gpu-device-plugin", "EKS GPU pools are reached by a NVIDIA device plugin that tolerates their taints and "
       "selects GPU nodes only; GKE GPU pools set gpuDriverVersion DEFAULT or LATEST. Fix: install the "
       "nvidia-device-plugin chart with those tolerations and node selection / set the driver version.",
       HIGH, A, "stack", plat.check_gpu_device_plugin, ("nodeLabelSources",), topic="gpu-plumbing"),
    # docs/design.md section 11.4: one allocator per GPU pool.
    _p("gpu-allocation-single", "A GPU pool's GPUs are handed out by one allocator: never both a device plugin and a "
       "DRA driver (either chart, a DaemonSet running either image, the GPU Operator's ClusterPolicy or GPUCluster), "
       "and on EKS Auto Mode pools only Auto Mode's own. Fix: keep one per pool (nodepools: gpu_allocation "
       "device-plugin | dra).", CRITICAL, M, "stack", allocation.check_gpu_allocation_single, ("nodeLabelSources",),
       topic="gpu-plumbing"),
    _p("namespace-quota", "Every namespace in the stack has a ResourceQuota, and a batch namespace's quota claims at "
       "most batchQuotaShare of the resident and batch pools' cpu/memory. Fix: add (or lower) the ResourceQuota.",
       HIGH, M, "stack", ns.check_namespace_quota, ("batchQuotaShare",), topic="namespaces"),
    _p("gpu-quota", "Every ResourceQuota caps requests.nvidia.com/gpu (limits.nvidia.com/gpu is never enforced). "
       "Fix: add requests.nvidia.com/gpu to spec.hard (\"0\" for CPU-only namespaces).",
       HIGH, M, "resource", ns.check_gpu_quota, topic="namespaces"),
    _p("batch-limitrange", "batch and gpu-training namespaces have a LimitRange. Fix: add a LimitRange with "
       "Container default and defaultRequest for cpu and memory.", MEDIUM, A, "stack", ns.check_batch_limitrange,
       topic="namespaces"),
    _p("priority-class-assigned", "Every workload sets priorityClassName to a PriorityClass of the stack or a "
       "system-* class. Fix: set priorityClassName (nodepools-<class>).", MEDIUM, A, "stack",
       ns.check_priority_class_assigned, topic="namespaces"),
    _p("workload-class-declared", "Every workload's class resolves from the nodepools.io/workload-class label of its "
       "pod template, itself or its namespace. Fix: label the pod template or the namespace.", LOW, A, "stack",
       work.check_workload_class_declared, topic="workloads"),
    _p("no-blanket-tolerations", "No toleration with an empty key and operator Exists, nor Exists on "
       "nodepools.io/pool-class. Fix: tolerate exactly the taints of the pools the workload must reach.",
       CRITICAL, M, "resource", tol.check_no_blanket_tolerations, ("nodeAgentNamespaces",), topic="tolerations"),
    _p("toleration-approval", "A workload tolerates only its own class's pool taints, or taints its namespace is "
       "approved for in tolerationApprovals. Fix: drop the toleration or approve the namespace.", MEDIUM, A, "stack",
       tol.check_toleration_approval, ("tolerationApprovals", "nodeAgentNamespaces"), topic="tolerations"),
    _p("gpu-toleration-needs-gpu", "Tolerating nvidia.com/gpu or a GPU pool class, or selecting GPU nodes, requires "
       "a nvidia.com/gpu request. Fix: request a GPU or drop the GPU tolerations and selectors.", HIGH, M, "stack",
       tol.check_gpu_toleration_needs_gpu, ("nodeLabelSources",), topic="tolerations"),
    _p("resident-guaranteed-qos", "resident and gpu-inference containers (init included) set cpu and memory limits "
       "equal to requests (Guaranteed QoS). Fix: set limits == requests.", MEDIUM, A, "stack",
       work.check_resident_guaranteed_qos, topic="workloads"),
    _p("spot-checkpointing", "A workload that can run on spot declares nodepools.io/checkpoint-interval no longer "
       "than spotCheckpointMax. Fix: checkpoint that often and annotate the pod template.", MEDIUM, A, "stack",
       place.check_spot_checkpointing, ("spotCheckpointMax", "nodeLabelSources"), topic="placement"),
    _p("gang-scheduling", "A multi-pod GPU training workload (a multi-node LeaderWorkerSet group too) uses a gang "
       "mechanism (Kueue queue-name, coscheduling pod-group, the native scheduling group, or Volcano with "
       "minAvailable covering every pod). Fix: add kueue.x-k8s.io/queue-name.", MEDIUM, A, "stack",
       work.check_gang_scheduling, topic="workloads"),
    _p("model-load-probes", "gpu-inference containers have a readinessProbe and a start-up budget "
       "(initialDelaySeconds + periodSeconds x failureThreshold of the startupProbe, else livenessProbe) no "
       "shorter than the model load time. Fix: add a startupProbe with a large enough failureThreshold.",
       MEDIUM, A, "stack", work.check_model_load_probes, ("defaultModelLoadSeconds",), topic="workloads"),
    _p("topology-spread", "A resident workload with more than one replica sets topologySpreadConstraints (or a "
       "required pod anti-affinity). Fix: spread over zone and hostname.", LOW, A, "stack",
       work.check_topology_spread, topic="workloads"),
    _p("schedulable", "Every workload fits some pool of its cluster (taints, selectors, affinity, resources). Fix: "
       "tolerate the target pool's taints, select its labels, request at most one node's allocatable.",
       CRITICAL, M, "stack", place.check_schedulable, ("nodeLabelSources",), topic="placement"),
    _p("gpu-nodes-gpu-only", "A workload requesting no GPU cannot land on a GPU pool. Fix: keep the GPU taint "
       "untolerated and GPU labels unselected, or request a GPU.", HIGH, A, "stack", place.check_gpu_nodes_gpu_only,
       ("nodeLabelSources",), topic="placement"),
    _p("resident-off-spot", "A resident or gpu-inference workload cannot land on a spot pool. Fix: select "
       "on-demand capacity or its own class's pool.", HIGH, M, "stack", place.check_resident_off_spot,
       ("nodeLabelSources",), topic="placement"),
    _p("cluster-version", f"EKS/GKE clusters run at least minClusterVersion (default {_DEFAULTS.min_cluster_version}), "
       "a minor in their cloud's standard support today (past it EKS bills extended support, GKE upgrades), and "
       f"the version each feature the stack uses needs (DRA {DRA_V1.since}, native sidecars {NATIVE_SIDECARS.since}, "
       "...). Fix: upgrade the cluster's version.",
       MEDIUM, A, "stack", versions.check_cluster_version, ("minClusterVersion",),
       topic="pools"),
    _p("throttling-monitoring", "A stack with batch and resident pools alerts on container CPU throttling and node "
       "CPU steal (a PrometheusRule, Google Managed Prometheus rules or a CloudWatch alarm). "
       "Fix: add one on both.", LOW, A, "stack",
       plat.check_throttling_monitoring, topic="gpu-plumbing"),
    _p("shared-pool-off-peak", "A batch workload reaches the resident pool only as a CronJob whose every firing, in "
       f"its timeZone, lies within the off-peak window (default {_WINDOW.start}-{_WINDOW.end} {_WINDOW.time_zone}). "
       "Fix: select the batch pool or "
       "reschedule.", MEDIUM, A, "stack", offpeak.check_shared_pool_off_peak, ("offPeakWindow", "nodeLabelSources"),
       topic="placement"),
    _p("gpu-model-selected", "A GPU workload's tolerations and selectors admit GPU pools of one accelerator model "
       "only. Fix: pin nodepools.io/accelerator, one pool, or a class whose pools share a model.", LOW, A, "stack",
       place.check_gpu_model_selected, ("nodeLabelSources",), topic="placement"),
    # docs/design.md section 7: Karpenter NodePools.
    _p("pool-spend-cap", "A Karpenter NodePool sets spec.limits, and a GPU-capable one limits nvidia.com/gpu too: "
       "without limits it buys nodes, GPUs included, without bound. Fix: set spec.limits cpu, memory and "
       "nvidia.com/gpu to the pool's maximum size.", HIGH, A, "resource", karp.check_pool_spend_cap, topic="pools"),
    _p("training-disruption", "A workload that can land on a gpu-training or batch Karpenter NodePool whose "
       "consolidationPolicy is WhenEmptyOrUnderutilized carries the pod annotation karpenter.sh/do-not-disrupt: "
       "\"true\". Fix: annotate the pod template, or set the NodePool's consolidationPolicy to WhenEmpty.",
       MEDIUM, A, "stack", karp.check_training_disruption, ("nodeLabelSources",), topic="placement"),
    # docs/design.md section 7: GPU memory.
    _p("gpu-memory-fit", "A GPU workload annotated nodepools.io/model-memory-gib reaches a pool whose GPU (or MIG "
       "slice) holds the model, and not only pools with more than 4x its memory. Fix: select a GPU that fits, or a "
       "smaller GPU, time-sliced pool or MIG slice.", MEDIUM, A, "stack", gpumem.check_gpu_memory_fit, ("nodeLabelSources",),
       topic="placement"),
    # docs/design.md section 9.3: training that lands together and close.
    _p("training-topology", "A multi-pod GPU training workload admitted through a flavor with a Kueue Topology "
       "requests a topology on each GPU pod template (kueue.x-k8s.io/podset-required-topology or "
       "podset-preferred-topology), at a level that Topology has. Fix: annotate the pod templates "
       "kueue.x-k8s.io/podset-preferred-topology with a level of the Topology.", MEDIUM, A, "stack",
       topo.check_training_topology, topic="workloads"),
    # docs/design.md sections 9.4 and 9.5: inference headroom and GPU node repair.
    _p("inference-scale-headroom", "An autoscaled gpu-inference workload (an HPA, a KEDA ScaledObject, or a KServe "
       "InferenceService with maxReplicas > minReplicas) can land on a pool that keeps warm capacity (a "
       "CapacityBuffer or a placeholder Deployment that lands there, or a pool whose min equals its max); else the "
       "first replicas of a spike wait for a GPU node's start and the model load. Fix: set warm: {replicas: N} on "
       "the pool.", HIGH, A, "stack", inference.check_inference_scale_headroom,
       ("defaultModelLoadSeconds", "gpuNodeStartSeconds", "nodeLabelSources"), topic="placement"),
    _p("gpu-node-repair", "GPU pools repair their nodes: EKS nodeRepairConfig.enabled, GKE management.autoRepair, "
       "Karpenter's NodeRepair feature gate. Fix: turn auto-repair on (nodepools pools have it unless repair.mode is "
       "off).", MEDIUM, A, "stack", inference.check_gpu_node_repair, topic="pools"),
)

BY_NAME: dict[str, PolicySpec] = {p.name: p for p in POLICIES}
MANDATORY = tuple(p.name for p in POLICIES if p.level is M)
