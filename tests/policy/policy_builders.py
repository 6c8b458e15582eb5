"""A compliant EKS stack as the engine would send it (camelCase, floats), and small edits that break one rule
at a time."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Callable

from nodepools.inventory.resource import Resource, urn_for
from nodepools.offline.analyzer import UNKNOWN_WIRE, Diagnostic
from nodepools.spec.kube_versions import STANDARD_SUPPORT_END, minor
from nodepools.vocabulary import Cloud

CLASS = "nodepools.io/pool-class"
GPU = "nvidia.com/gpu"
GPU_Q = "requests.nvidia.com/gpu"
TAG = "k8s.io/cluster-autoscaler/node-template/"
EKS_POOL, EKS_CLUSTER = "aws:eks/nodeGroup:NodeGroup", "aws:eks/cluster:Cluster"
GKE_POOL = "gcp:container/nodePool:NodePool"
DEPLOYMENT, JOB, CRONJOB = "kubernetes:apps/v1:Deployment", "kubernetes:batch/v1:Job", "kubernetes:batch/v1:CronJob"
NAMESPACE, QUOTA = "kubernetes:core/v1:Namespace", "kubernetes:core/v1:ResourceQuota"
LIMITS = "kubernetes:core/v1:LimitRange"


# The golden cluster runs the newest minor on both clouds' calendars, in standard support on every date
# the suite judges by (tests/suite_dates.py): only the tests about the calendar see cluster-version.
CURRENT_MINOR = max(set(STANDARD_SUPPORT_END[Cloud.AWS]) & set(STANDARD_SUPPORT_END[Cloud.GCP]), key=minor)


@dataclass(frozen=True)
class Fixture:
    items: tuple[Resource, ...]

    def urn(self, name: str) -> str:
        return self.get(name).urn

    def get(self, name: str) -> Resource:
        return next(r for r in self.items if r.name == name)

    def edit(self, name: str, change: Callable[[dict], object]) -> "Fixture":
        """A copy whose resource ``name`` has ``change`` applied to (a deep copy of) its properties."""
        props = copy.deepcopy(self.get(name).props)
        change(props)
        return Fixture(tuple(replace(r, props=props) if r.name == name else r for r in self.items))

    def add(self, *resources: Resource) -> "Fixture":
        return Fixture(self.items + resources)

    def drop(self, *names: str) -> "Fixture":
        return Fixture(tuple(r for r in self.items if r.name not in names))


def fired(diagnostics: list[Diagnostic]) -> set[tuple[str, str]]:
    """(policy, urn) of every violation ("" for the stack); cannot-judge notes left out."""
    return {(d.policy, d.urn) for d in diagnostics if not d.cannot_judge}


def taint(key: str, value: str, effect: str = "NO_SCHEDULE") -> dict:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str | None = None, effect: str = "NoSchedule") -> dict:
    if value is None:
        return {"key": key, "operator": "Exists", "effect": effect}
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


def eks_pool(name: str, cls: str, instance: str, *, lo: int, hi: int, spot: bool = False, gpu_model: str = "",
             cluster: str = "prod") -> Resource:
    labels = {CLASS: cls, "nodepools.io/pool": name, "nodepools.io/capacity": "spot" if spot else "on-demand"}
    taints = [] if cls == "resident" else [taint(CLASS, cls)]
    if gpu_model:
        labels.update({"nvidia.com/gpu.present": "true", "nodepools.io/accelerator": gpu_model})
        taints.append(taint(GPU, "present"))
    props = {"clusterName": cluster, "nodeGroupName": name, "instanceTypes": [instance],
             "capacityType": "SPOT" if spot else "ON_DEMAND", "amiType": "AL2023_x86_64_NVIDIA" if gpu_model else
             "AL2023_x86_64_STANDARD", "scalingConfig": {"minSize": float(lo), "maxSize": float(hi),
                                                         "desiredSize": float(lo)}, "labels": labels, "taints": taints}
    if gpu_model:  # GPU pools repair their nodes (gpu-node-repair)
        props["nodeRepairConfig"] = {"enabled": True}
    cluster_urn = urn_for(EKS_CLUSTER, cluster)
    return Resource.of(EKS_POOL, name, props, dependencies=(cluster_urn,),
                       property_dependencies={"clusterName": (cluster_urn,)})


def asg_tags(pool: Resource, gpus: int = 0) -> list[Resource]:
    """cluster-autoscaler node-template tags; the ASG name is unknown at preview, linked by dependency."""
    props = pool.props
    entries = {f"{TAG}taint/{t['key']}": f"{t['value']}:NoSchedule" for t in props["taints"]}
    entries[f"{TAG}label/{CLASS}"] = props["labels"][CLASS]
    if gpus:
        entries[f"{TAG}resources/{GPU}"] = str(gpus)
    return [Resource.of("aws:autoscaling/tag:Tag", f"{pool.name}-tag-{i}", {
        "autoscalingGroupName": UNKNOWN_WIRE, "tag": {"key": k, "value": v, "propagateAtLaunch": False}},
        dependencies=(pool.urn,), property_dependencies={"autoscalingGroupName": (pool.urn,)})
        for i, (k, v) in enumerate(entries.items())]


def namespace(name: str, cls: str) -> Resource:
    return Resource.of(NAMESPACE, f"ns-{name}", {"metadata": {"name": name, "labels": {WORKLOAD_CLASS: cls}}})


def quota(ns: str, hard: dict) -> Resource:
    return Resource.of(QUOTA, f"quota-{ns}", {"metadata": {"name": "nodepools-quota", "namespace": ns},
                                              "spec": {"hard": hard}})


def limit_range(ns: str) -> Resource:
    return Resource.of(LIMITS, f"limits-{ns}", {"metadata": {"name": "defaults", "namespace": ns}, "spec": {"limits": [
        {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"},
         "defaultRequest": {"cpu": "250m", "memory": "256Mi"}}]}})


def container(cpu: str, memory: str, gpus: int = 0, **extra) -> dict:
    amounts = {"cpu": cpu, "memory": memory, **({GPU: float(gpus)} if gpus else {})}
    return {"name": "main", "image": "registry.example/app:1", "resources": {"requests": dict(amounts),
                                                                             "limits": dict(amounts)}, **extra}


def pod_template(cls: str, spec: dict, annotations: dict | None = None, labels: dict | None = None) -> dict:
    meta = {"labels": {"app": "x", WORKLOAD_CLASS: cls, **(labels or {})}}
    if annotations:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": spec}


def workload(kind: str, name: str, ns: str, spec: dict, labels: dict | None = None) -> Resource:
    return Resource.of(kind, name, {"metadata": {"name": name, "namespace": ns, "labels": labels or {}}, "spec": spec})


PROBE = {"httpGet": {"path": "/ready", "port": 8080.0}}
WORKLOAD_CLASS = "nodepools.io/workload-class"


def required_affinity(key: str, value: str) -> dict:
    term = {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def device_plugin() -> Resource:
    """The chart with exactly the GPU pools' tolerations and GPU-only node selection (as the guardrails set it)."""
    tolerations = [toleration(CLASS, "gpu-inference"), toleration(CLASS, "gpu-training"), toleration(GPU, "present")]
    values = {"tolerations": tolerations, "affinity": required_affinity("nvidia.com/gpu.present", "true")}
    return Resource.of("kubernetes:helm.sh/v3:Release", "nvidia-device-plugin", {
        "chart": "nvidia-device-plugin", "namespace": "kube-system", "version": "0.20.0", "values": values})


def guardrails() -> list[Resource]:
    classes = [Resource.of("kubernetes:scheduling.k8s.io/v1:PriorityClass", f"pc-{c}",
                           {"metadata": {"name": f"nodepools-{c}"}, "value": float(v)})
               for c, v in (("resident", 100000), ("gpu-inference", 90000), ("batch", 0), ("gpu-training", -5))]
    spaces = [namespace(n, c) for n, c in (("services", "resident"), ("batch", "batch"),
                                           ("inference", "gpu-inference"), ("training", "gpu-training"))]
    # Batch: 20 of the resident + batch pools' 56 cores, 64Gi of their 160Gi (share 0.6 allows 33.6 / 96Gi).
    quotas = [quota("services", {"requests.cpu": "16", GPU_Q: "0"}), quota("inference", {GPU_Q: "2"}),
              quota("batch", {"requests.cpu": "20", "requests.memory": "64Gi", GPU_Q: "0"}),
              quota("training", {GPU_Q: "16"})]
    rules = [{"alert": "Throttled", "expr": "rate(container_cpu_cfs_throttled_periods_total[5m]) > 0.25"},
             {"alert": "Steal", "expr": "rate(node_cpu_seconds_total{mode=\"steal\"}[5m]) > 0.1"}]
    alerts = Resource.of("kubernetes:monitoring.coreos.com/v1:PrometheusRule", "cpu-contention", {
        "metadata": {"name": "cpu-contention", "namespace": "services"},
        "spec": {"groups": [{"name": "cpu", "rules": rules}]}})
    return [*classes, *spaces, *quotas, limit_range("batch"), limit_range("training"), alerts, *kueue_training()]


KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
AWS_LEVELS = ["topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
              "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname"]


def kueue_training(levels: list[str] | None = None) -> list[Resource]:
    """The training LocalQueue -> ClusterQueue -> flavor of the train pool, pointing at a Topology."""
    topology = Resource.of(KUEUE + "Topology", "topology", {"metadata": {"name": "aws-network"},
                                                           "spec": {"levels": [{"nodeLabel": x} for x in
                                                                               levels or AWS_LEVELS]}})
    flavor = Resource.of(KUEUE + "ResourceFlavor", "flavor-train", {"metadata": {"name": "train"}, "spec": {
        "nodeLabels": {"nodepools.io/pool": "train"}, "topologyName": "aws-network"}})
    queue = Resource.of(KUEUE + "ClusterQueue", "cq-training", {"metadata": {"name": "training"}, "spec": {
        "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
            {"name": "train", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "16"}]}]}]}})
    local = Resource.of(KUEUE + "LocalQueue", "lq-training", {"metadata": {"name": "training", "namespace": "training"},
                                                              "spec": {"clusterQueue": "training"}})
    return [topology, flavor, queue, local]


def workloads() -> list[Resource]:
    spread = [{"maxSkew": 1.0, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": {"app": "x"}}}]
    api = workload(DEPLOYMENT, "api", "services", {"replicas": 3.0, "template": pod_template("resident", {
        "priorityClassName": "nodepools-resident", "containers": [container("500m", "512Mi")],
        "topologySpreadConstraints": spread})})
    startup = {**PROBE, "periodSeconds": 10.0, "failureThreshold": 60.0}
    llm = workload(DEPLOYMENT, "llm", "inference", {"replicas": 2.0, "template": pod_template("gpu-inference", {
        "priorityClassName": "nodepools-gpu-inference", "nodeSelector": {"nodepools.io/pool": "infer"},
        "tolerations": [toleration(CLASS, "gpu-inference"), toleration(GPU, "present")],
        "containers": [container("2", "8Gi", 1, readinessProbe=PROBE, livenessProbe=PROBE, startupProbe=startup)]},
        annotations={"nodepools.io/model-load-seconds": "600"})})
    finetune = workload(JOB, "finetune", "training", {"parallelism": 2.0, "template": pod_template("gpu-training", {
        "priorityClassName": "nodepools-gpu-training", "restartPolicy": "Never",
        "nodeSelector": {"nodepools.io/pool": "train"},
        "tolerations": [toleration(CLASS, "gpu-training"), toleration(GPU, "present")],
        "containers": [container("8", "64Gi", 8)]}, annotations={
            "nodepools.io/checkpoint-interval": "15m",
            "kueue.x-k8s.io/podset-preferred-topology": "topology.k8s.aws/network-node-layer-3"})},
        labels={"kueue.x-k8s.io/queue-name": "training"})
    nightly = workload(CRONJOB, "nightly", "batch", {"schedule": "0 2 * * *", "jobTemplate": {"spec": {
        "template": pod_template("batch", {"priorityClassName": "nodepools-batch", "restartPolicy": "OnFailure",
                                           "tolerations": [toleration(CLASS, "batch")],
                                           "containers": [container("1", "1Gi")]})}}})
    return [api, llm, finetune, nightly]


def golden() -> Fixture:
    """Four pools, the guardrails and one workload per class, violating nothing."""
    web = eks_pool("web", "resident", "m6i.xlarge", lo=2, hi=6)
    jobs = eks_pool("jobs", "batch", "c6i.2xlarge", lo=0, hi=4)
    infer = eks_pool("infer", "gpu-inference", "g6.xlarge", lo=1, hi=2, gpu_model="nvidia-l4")
    train = eks_pool("train", "gpu-training", "p4d.24xlarge", lo=0, hi=2, spot=True, gpu_model="nvidia-a100")
    cluster = Resource.of(EKS_CLUSTER, "prod", {"name": "prod", "version": CURRENT_MINOR})
    return Fixture((cluster, web, jobs, infer, train, *asg_tags(jobs), *asg_tags(train, 8), device_plugin(),
                    *guardrails(), *workloads()))


def template_spec(props: dict) -> dict:
    """The pod spec of a Deployment/Job (``spec.template.spec``) or CronJob."""
    spec = props["spec"]
    if "jobTemplate" in spec:
        return spec["jobTemplate"]["spec"]["template"]["spec"]
    return spec["template"]["spec"]


def namespaced_by_dependency(named: bool = False) -> Fixture:
    """The golden stack plus a spot batch pool 'spot' and a Deployment 'shop' with no class label of its
    own, whose namespace is the stack's Namespace 'ns-shop' labelled resident, named by that Namespace's
    output: unknown at preview, a property dependency on ``metadata`` (``named``: the Namespace sets
    metadata.name 'shop'; else pulumi-kubernetes auto-names it). It tolerates the batch taint, so it can
    land on the spot pool: resident-off-spot (issue 30's plan/pack disagreement)."""
    spot = eks_pool("spot", "batch", "c6i.2xlarge", lo=0, hi=4, spot=True)
    ns = Resource.of(NAMESPACE, "ns-shop", {"metadata": {**({"name": "shop"} if named else {}),
                                                         "labels": {WORKLOAD_CLASS: "resident"}}})
    spread = [{"maxSkew": 1.0, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": {"app": "shop"}}}]
    template = {"metadata": {"labels": {"app": "shop"}}, "spec": {
        "priorityClassName": "nodepools-resident", "tolerations": [toleration(CLASS, "batch")],
        "containers": [container("500m", "512Mi")], "topologySpreadConstraints": spread}}
    shop = Resource.of(DEPLOYMENT, "shop", {"metadata": {"name": "shop", "namespace": UNKNOWN_WIRE},
                                            "spec": {"replicas": 2.0, "template": template}},
                       dependencies=(ns.urn,), property_dependencies={"metadata": (ns.urn,)})
    return golden().add(spot, *asg_tags(spot), ns, shop)
