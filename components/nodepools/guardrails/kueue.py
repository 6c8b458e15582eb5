"""Kueue objects (v1beta2) and chart values: one flavor per queued pool, one queue per queued class.

- ResourceFlavor per batch / gpu-training pool, named after the pool: nodeLabels
  are the pool's identifying contract labels (Kueue injects them into admitted
  pods, so the flavor pins the pool; at most 8 are allowed) and tolerations are
  exactly the pool's taints (added to admitted pods).
- ClusterQueue per queued class: its flavors' nominal quotas are the pools at
  max_nodes, so the training queue's GPU quota equals the training pools' max
  GPUs and an admitted gang always fits once the autoscaler has added its nodes.
  Only that class's namespace may submit to it.
- A training pool whose nodes the cloud labels with their network position: its flavor
  points at that Kueue Topology (``nodepools.guardrails.topology``); the training
  ClusterQueue's autoscaled flavors carry the ProvisioningRequest admission check
  (``nodepools.guardrails.provisioning``).
- LocalQueue in the class's namespace: workloads opt in with
  ``kueue.x-k8s.io/queue-name: <local queue>``.
- ``waitForPodsReady`` gives all-or-nothing admission: a gang not ready within
  the timeout is evicted and requeued. At Kueue 0.19.2 it is always on: the
  config defaulting sets it when absent, with a 30m timeout
  (kubernetes-sigs/kueue: apis/config/v1beta2/defaults.go@v0.19.2), so the block
  here exists to set our timeout (shorter than 30m, longer than a GPU node's
  boot) and to state the rest. ``blockAdmission`` stays off: quotas equal pool
  capacity, so admitted gangs cannot starve each other, and batch admission must
  not wait on a gang.
"""
from __future__ import annotations

from typing import Any

import yaml

from nodepools.clouds.topology import pool_topology
from nodepools.guardrails import derive, provisioning, topology
from nodepools.guardrails.addons import KUEUE_CHART, HelmRelease
from nodepools.guardrails.capacity import cpu_quantity, max_capacity, memory_quantity
from nodepools.guardrails.dra_driver import kueue_device_class_mappings
from nodepools.guardrails.addon_placement import system_placement, tolerations_for
from nodepools.guardrails.spec import KUEUE_NAMESPACE, GuardrailsSpec
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.pool import PoolSpec
from nodepools import vocabulary as v
from nodepools.vocabulary import PoolClass

API_VERSION = v.KUEUE_API_VERSION
RELEASE_NAME = "kueue"
CLUSTER_QUEUE_NAMES = {PoolClass.BATCH: "nodepools-batch", PoolClass.GPU_TRAINING: "nodepools-gpu-training"}
LOCAL_QUEUE_NAMES = {PoolClass.BATCH: "batch", PoolClass.GPU_TRAINING: "gpu-training"}
# The labels that identify a pool, in order; a flavor takes at most 8.
FLAVOR_LABEL_KEYS = (v.LABEL_POOL_CLASS, v.LABEL_POOL, v.LABEL_CAPACITY, v.LABEL_ACCELERATOR, v.LABEL_GPU_PRESENT)
FRAMEWORKS = ["batch/job", "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob", "kubeflow.org/mpijob",
              "trainer.kubeflow.org/trainjob", "ray.io/rayjob", "ray.io/raycluster", "pod"]


def flavor_labels(pool: PoolSpec) -> dict[str, str]:
    labels = pool.node_labels
    return {k: labels[k] for k in FLAVOR_LABEL_KEYS if k in labels}


def resource_flavor(pool: PoolSpec, cluster: ClusterPools) -> dict[str, Any]:
    """The pool's flavor; a training pool the cloud labels with its network position points at
    that Topology (and is named after its immutable fields: ``nodepools.guardrails.topology``)."""
    flavor = {"apiVersion": API_VERSION, "kind": "ResourceFlavor", "metadata": {"name": pool.name},
              "spec": {"nodeLabels": flavor_labels(pool), "tolerations": tolerations_for(pool.node_taints)}}
    return topology.with_topology(flavor, pool_topology(pool, cluster.cloud))


def resource_flavors(cluster: ClusterPools) -> list[dict[str, Any]]:
    return [resource_flavor(pool, cluster)
            for c in derive.queued_classes(cluster.pools) for pool in derive.of_class(cluster.pools, c)]


def _flavor_quota(pool: PoolSpec, cluster: ClusterPools, covered: list[str]) -> dict[str, Any]:
    cap = max_capacity(pool)
    quantities = {"cpu": cpu_quantity(cap.cpu_millicores), "memory": memory_quantity(cap.memory_mib),
                  v.GPU_RESOURCE: str(cap.gpus)}
    return {"name": resource_flavor(pool, cluster)["metadata"]["name"],
            "resources": [{"name": r, "nominalQuota": quantities[r]} for r in covered]}


def cluster_queues(spec: GuardrailsSpec, cluster: ClusterPools) -> list[tuple[PoolClass, dict[str, Any]]]:
    out = []
    atomic = provisioning.atomic_pools(spec, cluster)
    for c in derive.queued_classes(cluster.pools):
        covered = ["cpu", "memory"] + ([v.GPU_RESOURCE] if c.has_gpu else [])
        queue: dict[str, Any] = {"apiVersion": API_VERSION, "kind": "ClusterQueue",
                                 "metadata": {"name": CLUSTER_QUEUE_NAMES[c]},
                 "spec": {
                     "namespaceSelector": {"matchLabels": {v.LABEL_NAMESPACE_NAME: spec.namespace_names[c]}},
                     "queueingStrategy": "BestEffortFIFO",
                     "resourceGroups": [{"coveredResources": covered, "flavors": [
                         _flavor_quota(p, cluster, covered) for p in derive.of_class(cluster.pools, c)]}],
                 }}
        checked = [resource_flavor(p, cluster)["metadata"]["name"] for p in atomic if p.pool_class is c]
        if checked:
            queue["spec"]["admissionChecksStrategy"] = provisioning.admission_checks_strategy(checked)
        out.append((c, queue))
    return out


def local_queues(spec: GuardrailsSpec, cluster: ClusterPools) -> list[tuple[PoolClass, dict[str, Any]]]:
    return [(c, {"apiVersion": API_VERSION, "kind": "LocalQueue",
                 "metadata": {"name": LOCAL_QUEUE_NAMES[c], "namespace": spec.namespace_names[c]},
                 "spec": {"clusterQueue": CLUSTER_QUEUE_NAMES[c]}})
            for c in derive.queued_classes(cluster.pools)]


def manager_config(spec: GuardrailsSpec, device_class_mappings: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The whole controller config: the chart replaces its default with this, so the
    ports and leader-election settings its Deployment expects are restated. With NVIDIA's
    DRA driver, ``resources.deviceClassMappings`` counts DRA GPUs in the GPU quota
    (``nodepools.guardrails.dra_driver.kueue_device_class_mappings``)."""
    config: dict[str, Any] = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "waitForPodsReady": {
            "timeout": f"{spec.kueue_pods_ready_timeout_minutes}m",
            "blockAdmission": False,
            "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600},
        },
        "integrations": {"frameworks": list(FRAMEWORKS)},
    }
    if device_class_mappings:
        config["resources"] = {"deviceClassMappings": device_class_mappings}
    return config


def kueue_values(spec: GuardrailsSpec, cluster: ClusterPools) -> dict[str, Any]:
    # The chart takes the config as one YAML string (managerConfig.controllerManagerConfigYaml).
    return {
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(
            manager_config(spec, kueue_device_class_mappings(spec, cluster)), sort_keys=False)},
        "controllerManager": system_placement(cluster),
    }


def kueue_release(spec: GuardrailsSpec, cluster: ClusterPools) -> HelmRelease | None:
    if not derive.kueue_enabled(spec, cluster.pools):
        return None
    return HelmRelease("kueue", RELEASE_NAME, KUEUE_CHART, spec.charts.kueue, KUEUE_NAMESPACE,
                       kueue_values(spec, cluster), create_namespace=True)
