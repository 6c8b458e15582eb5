"""The base stacks the policy fuzzer mutates: what the real components register
(the reference EKS / GKE platforms) plus one compliant workload of every kind the
pack reads, the alert resources it recognises and one object of every other type a
reader takes (``other_readers``). Against the real pack the base draws no violation
(only cannot-judge notes: the training workloads' LocalQueue is not in the stack), so
any violation a mutation brings is the mutation's doing.
"""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from typing import Any

from google.protobuf import json_format

from nodepools import vocabulary as v
from nodepools.inventory.resource import Resource
from nodepools.offline.engine import run_program

from reliability_programs import eks_karpenter_program, eks_program, gke_program

# Resources the fuzzer sent with damaged properties, per type (the conftest reports it).
TRIED: Counter = Counter()
CLASS = v.LABEL_WORKLOAD_CLASS
GPU = v.GPU_RESOURCE
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
PYTORCHJOB = "kubernetes:kubeflow.org/v1:PyTorchJob"
HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"
# Kept from a platform run: what the pack reads (our IAM, launch templates and the
# Kubernetes provider are left out to keep each example cheap).
KEEP = (*v.POOL_RESOURCE_TYPES, v.TYPE_ASG_TAG, v.TYPE_NAMESPACE, v.TYPE_RESOURCE_QUOTA, v.TYPE_LIMIT_RANGE,
        v.TYPE_PRIORITY_CLASS, v.TYPE_HELM_RELEASE, v.TYPE_PROMETHEUS_RULE, v.TYPE_KUEUE_RESOURCE_FLAVOR,
        v.TYPE_KUEUE_CLUSTER_QUEUE, v.TYPE_KUEUE_LOCAL_QUEUE, v.TYPE_KARPENTER_NODE_POOL,
        v.TYPE_KARPENTER_EC2_NODE_CLASS)
PROGRAMS = {"aws": eks_program, "gcp": gke_program, "karpenter": eks_karpenter_program}


def _toleration(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "operator": "Equal", "value": value, "effect": "NoSchedule"}


def _container(cpu: str, memory: str, gpus: int = 0, **extra: Any) -> dict[str, Any]:
    amounts: dict[str, Any] = {"cpu": cpu, "memory": memory, **({GPU: float(gpus)} if gpus else {})}
    return {"name": "main", "image": "registry.example/app:1.0.0",
            "resources": {"requests": dict(amounts), "limits": dict(amounts)}, **extra}


def _pod(cls: str, spec: dict[str, Any], annotations: dict[str, str] | None = None,
         labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": {"app": "x", CLASS: cls, **(labels or {})}}
    if annotations:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": spec}


def _resident_spec(**extra: Any) -> dict[str, Any]:
    return {"priorityClassName": "nodepools-resident", "containers": [_container("500m", "512Mi")], **extra}


SPREAD = [{"maxSkew": 1.0, "topologyKey": v.LABEL_ZONE, "whenUnsatisfiable": "ScheduleAnyway",
           "labelSelector": {"matchLabels": {"app": "x"}}}]
PROBE = {"httpGet": {"path": "/ready", "port": 8080.0}}
CHECKPOINT = {v.ANNOTATION_CHECKPOINT_INTERVAL: "15m"}


def _batch_spec(**extra: Any) -> dict[str, Any]:
    return {"priorityClassName": "nodepools-batch", "restartPolicy": "Never", "nodeSelector": {v.LABEL_POOL: "jobs"},
            "tolerations": [_toleration(v.TAINT_POOL_CLASS_KEY, "batch")],
            "containers": [_container("1", "1Gi")], **extra}


def _training_spec() -> dict[str, Any]:
    return {"priorityClassName": "nodepools-gpu-training", "restartPolicy": "Never",
            "nodeSelector": {v.LABEL_POOL: "train"},
            "tolerations": [_toleration(v.TAINT_POOL_CLASS_KEY, "gpu-training"), _toleration(GPU, "present")],
            "containers": [_container("8", "64Gi", 8)]}


def _workload(kind: str, name: str, namespace: str, spec: dict[str, Any], labels: dict[str, str] | None = None,
              api: str = "") -> Resource:
    type_ = api or next(t for t, k in v.K8S_WORKLOAD_TYPES.items() if k == kind)
    return Resource.of(type_, name, {"metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
                                     "spec": spec})


def workloads() -> list[Resource]:
    """One compliant workload of every kind (resident ones in ``services``, batch in
    ``batch``, GPU ones in ``inference``/``training``)."""
    queue = {v.LABEL_KUEUE_QUEUE: "training"}
    return [
        _workload("Deployment", "api", "services", {"replicas": 3.0, "template": _pod("resident", _resident_spec(
            topologySpreadConstraints=SPREAD))}),
        _workload("StatefulSet", "cache", "services", {"replicas": 1.0, "serviceName": "cache",
                                                       "template": _pod("resident", _resident_spec())}),
        _workload("ReplicaSet", "legacy", "services", {"replicas": 1.0, "template": _pod("resident", _resident_spec())}),
        _workload("DaemonSet", "agent", "services", {"template": _pod("resident", _resident_spec())}),
        Resource.of("kubernetes:core/v1:Pod", "debug", {"metadata": {
            "name": "debug", "namespace": "services", "labels": {"app": "x", CLASS: "resident"}},
            "spec": _resident_spec()}),
        _workload("Deployment", "llm", "inference", {"replicas": 1.0, "template": _pod("gpu-inference", {
            "priorityClassName": "nodepools-gpu-inference", "nodeSelector": {v.LABEL_POOL: "infer"},
            "tolerations": [_toleration(v.TAINT_POOL_CLASS_KEY, "gpu-inference"), _toleration(GPU, "present")],
            "containers": [_container("2", "8Gi", 1, readinessProbe=PROBE, livenessProbe=PROBE,
                                      startupProbe={**PROBE, "periodSeconds": 10.0, "failureThreshold": 60.0})]},
            annotations={v.ANNOTATION_MODEL_LOAD_SECONDS: "300"})}),
        _workload("Job", "etl", "batch", {"parallelism": 1.0, "template": _pod("batch", _batch_spec(),
                                                                                 annotations=CHECKPOINT)}),
        _workload("CronJob", "nightly", "batch", {"schedule": "0 2 * * *", "jobTemplate": {"spec": {
            "template": _pod("batch", _batch_spec(), annotations=CHECKPOINT)}}}),
        _workload("JobSet", "pretrain", "training", {"replicatedJobs": [{"name": "workers", "replicas": 1.0,
                  "template": {"spec": {"parallelism": 2.0, "template": _pod("gpu-training", _training_spec(),
                                                                              annotations=CHECKPOINT)}}}]},
                  labels=queue, api=JOBSET),
        _workload("PyTorchJob", "finetune", "training", {"pytorchReplicaSpecs": {
            "Master": {"replicas": 1.0, "template": _pod("gpu-training", _training_spec(), annotations=CHECKPOINT)},
            "Worker": {"replicas": 1.0, "template": _pod("gpu-training", _training_spec(), annotations=CHECKPOINT)}}},
            labels=queue, api=PYTORCHJOB),
    ]


def alert_resources() -> list[Resource]:
    """Cloud alerts and a Helm v4 chart: types the pack recognises besides our own."""
    return [
        Resource.of("aws:cloudwatch/metricAlarm:MetricAlarm", "steal", {
            "alarmName": "node-cpu-steal", "metricName": "node_cpu_steal", "namespace": "ContainerInsights",
            "comparisonOperator": "GreaterThanThreshold", "threshold": 10.0, "evaluationPeriods": 3.0}),
        Resource.of("gcp:monitoring/alertPolicy:AlertPolicy", "throttling", {
            "displayName": "cpu throttling", "combiner": "OR", "conditions": [{"displayName": "throttled", "conditionThreshold": {
                "filter": "metric.type=\"kubernetes.io/container/cpu/throttled_time\"", "comparison": "COMPARISON_GT",
                "thresholdValue": 0.25, "duration": "900s"}}]}),
        Resource.of(HELM_CHART_V4, "exporter", {"chart": "prometheus-node-exporter", "namespace": "monitoring",
                                                "version": "4.47.0", "values": {}}),
    ]


def other_readers() -> list[Resource]:
    """One compliant object of each further type some reader takes: autoscalers (HPA, KEDA,
    KServe), warm capacity (a CapacityBuffer and its PodTemplate), DRA classes and claims, the
    GPU operator's ClusterPolicy, Kueue's Topology and admission checks, a native PodGroup, a
    CRD and Prometheus rules."""
    meta = lambda name, ns=None: {"name": name, **({"namespace": ns} if ns else {})}  # noqa: E731
    warm_spec = {"priorityClassName": "nodepools-resident", "containers": [_container("100m", "128Mi")]}
    return [
        Resource.of("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "api-hpa", {
            "metadata": meta("api", "services"), "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
                "minReplicas": 3.0, "maxReplicas": 6.0}}),
        Resource.of("kubernetes:keda.sh/v1alpha1:ScaledObject", "cache-keda", {
            "metadata": meta("cache", "services"), "spec": {"scaleTargetRef": {"kind": "StatefulSet", "name": "cache"},
                                                           "minReplicaCount": 1.0, "maxReplicaCount": 2.0}}),
        Resource.of("kubernetes:serving.kserve.io/v1beta1:InferenceService", "chat", {
            "metadata": meta("chat", "inference"), "spec": {"predictor": {
                "minReplicas": 1.0, "maxReplicas": 1.0, "nodeSelector": {v.LABEL_POOL: "infer"},
                "priorityClassName": "nodepools-gpu-inference",
                "tolerations": [_toleration(v.TAINT_POOL_CLASS_KEY, "gpu-inference"), _toleration(GPU, "present")],
                # The predictor is a workload like any other (docs/design.md section 8): compliant here.
                "model": {"modelFormat": {"name": "huggingface"}, "readinessProbe": PROBE, "livenessProbe": PROBE,
                         "startupProbe": {**PROBE, "periodSeconds": 10.0, "failureThreshold": 60.0},
                         "resources": _container("2", "8Gi", 1)["resources"]}}}}),
        Resource.of("kubernetes:core/v1:PodTemplate", "warm-template", {
            "metadata": meta("warm", "services"),
            "template": {"metadata": {"labels": {v.LABEL_PLACEHOLDER: "true"}}, "spec": warm_spec}}),
        Resource.of("kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer", "warm-buffer", {
            "metadata": meta("warm", "services"), "spec": {"podTemplateRef": {"name": "warm"}, "replicas": 1.0}}),
        Resource.of("kubernetes:resource.k8s.io/v1:DeviceClass", "gpu-class", {
            "metadata": meta("gpu.nvidia.com"),
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}}),
        Resource.of("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate", "one-gpu", {
            "metadata": meta("one-gpu", "inference"), "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}}),
        Resource.of("kubernetes:resource.k8s.io/v1:ResourceClaim", "shared-gpu", {
            "metadata": meta("shared", "inference"), "spec": {"devices": {"requests": [
                {"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "gpu.nvidia.com"}]}]}}}),
        Resource.of("kubernetes:nvidia.com/v1:ClusterPolicy", "gpu-operator", {
            "metadata": meta("cluster-policy"), "spec": {"devicePlugin": {"enabled": True}, "daemonsets": {
                "tolerations": [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}]}}}),
        Resource.of("kubernetes:kueue.x-k8s.io/v1beta2:Topology", "topology", {
            "metadata": meta("default"), "spec": {"levels": [{"nodeLabel": v.LABEL_ZONE},
                                                           {"nodeLabel": "kubernetes.io/hostname"}]}}),
        Resource.of("kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig", "prc", {
            "metadata": meta("prc"), "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io"}}),
        Resource.of("kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck", "check", {
            "metadata": meta("check"), "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request",
                                               "parameters": {"apiGroup": "kueue.x-k8s.io",
                                                              "kind": "ProvisioningRequestConfig", "name": "prc"}}}),
        Resource.of("kubernetes:scheduling.k8s.io/v1alpha2:PodGroup", "workers", {
            "metadata": meta("workers", "training"), "spec": {"schedulingPolicy": {"gang": {"minCount": 2.0}}}}),
        Resource.of("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "crd", {
            "metadata": meta("widgets.example.com"), "spec": {"group": "example.com", "names": {
                "kind": "Widget", "plural": "widgets"}, "scope": "Namespaced", "versions": [
                {"name": "v1", "served": True, "storage": True}]}}),
        Resource.of("kubernetes:monitoring.coreos.com/v1:PrometheusRule", "rules", {
            "metadata": meta("node-rules", "monitoring"), "spec": {"groups": [{"name": "nodes", "rules": [
                {"alert": "CPUThrottling", "expr": "rate(container_cpu_cfs_throttled_periods_total[5m]) > 0.25",
                 "for": "15m"}]}]}}),
        Resource.of("kubernetes:monitoring.googleapis.com/v1:Rules", "gmp-rules", {
            "metadata": meta("gmp-rules", "monitoring"), "spec": {"groups": [{"name": "nodes", "interval": "60s",
                "rules": [{"alert": "Steal", "expr": "rate(node_cpu_seconds_total{mode=\"steal\"}[5m]) > 0.1"}]}]}}),
    ]


@lru_cache(maxsize=None)
def _platform(cloud: str) -> tuple[Resource, ...]:
    run = run_program(PROGRAMS[cloud](), preview=True)
    # The autoscaler's node-template tags matter only for pools that scale from zero.
    # Each as hand-editable plain data whose wire is the engine's (a secret's signature kept).
    kept = [Resource.of(r.type, r.name, json_format.MessageToDict(r.wire), urn=r.urn, parent=r.parent,
                        dependencies=r.dependencies, property_dependencies=r.property_dependencies,
                        provider=r.provider.rsplit("::", 1)[0] if r.provider else "")
            for r in run.resources if r.type in KEEP
            and not (r.type == v.TYPE_ASG_TAG and r.name.startswith(("p-web-", "p-infer-")))]
    if cloud in ("aws", "karpenter"):
        cluster = Resource.of(v.TYPE_EKS_CLUSTER, "prod", {"name": "prod", "version": "1.36"})
    else:
        cluster = Resource.of(v.TYPE_GKE_CLUSTER, "main", {"name": "main", "location": "us-central1",
                                                             "minMasterVersion": "1.36"})
    # The pools name their cluster by a plain string; link them as a same-stack cluster would be.
    linked = [replace(r, dependencies=(*r.dependencies, cluster.urn)) if r.type in v.POOL_RESOURCE_TYPES else r
              for r in kept]
    return (cluster, *linked)


def base_stack(cloud: str) -> list[Resource]:
    """A fresh copy of the compliant stack for ``cloud`` (``aws``, ``gcp``, or ``karpenter``: EKS with
    Karpenter pools)."""
    return [copy.deepcopy(r) for r in (*_platform(cloud), *workloads(), *alert_resources(), *other_readers())]


def pack_types(bases: dict[str, list[Resource]]) -> list[tuple[str, str]]:
    """(cloud, type) for every resource type the fuzzers damage: cloud resources on their
    cloud's stack; Kubernetes ones on the GKE stack (the cheaper to analyse; the objects are
    the same on both); Karpenter NodePools on the EKS stack whose pools Karpenter builds."""
    return sorted({(cloud, r.type) for cloud, stack in bases.items() for r in stack
                   if (r.type in (v.TYPE_KARPENTER_NODE_POOL, v.TYPE_KARPENTER_EC2_NODE_CLASS) if cloud == "karpenter"
                       else (cloud == "gcp") == (not r.type.startswith("aws:")))})
