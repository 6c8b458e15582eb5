"""The shared readers: the same answer for engine dicts, policy proxies and unknowns."""
import pytest
from pulumi_policy.proxy import unknown_checking_proxy

from nodepools.inventory.podspec import pod_requests, required_node_terms, tolerations
from nodepools.inventory.pools import read_pool
from nodepools.inventory.quantities import QuantityError, parse_quantity
from nodepools.inventory.values import UNKNOWN, plain
from nodepools.inventory.resource import Resource
from nodepools.inventory.stack_model import StackModel
from nodepools.inventory.workloads import read_workload
from nodepools.vocabulary import PoolClass
from suite_dates import PINNED

UNKNOWN_WIRE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


@pytest.mark.parametrize("text, expected", [
    ("500m", 0.5), ("2", 2.0), (2.0, 2.0), ("1Gi", 2**30), ("512Mi", 512 * 2**20), ("1G", 1e9), ("1.5", 1.5),
    ("1e3", 1000.0), ("100k", 1e5), (".5", 0.5),
])
def test_quantities(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("bad", ["", "1.2.3", "Gi", "1 Gi", True, None, "5x"])
def test_malformed_quantities_raise(bad):
    with pytest.raises(QuantityError):
        parse_quantity(bad)


def container(name, requests=None, limits=None, **extra):
    return {"name": name, "resources": {k: v for k, v in (("requests", requests), ("limits", limits)) if v}, **extra}


def test_pod_requests_follow_init_and_sidecar_rules():
    spec = {
        "initContainers": [
            container("migrate", {"cpu": "2", "memory": "1Gi"}),
            container("proxy", {"cpu": "250m", "memory": "128Mi"}, restartPolicy="Always"),
            container("warm", {"cpu": "1", "memory": "4Gi"}),
        ],
        "containers": [container("app", {"cpu": "500m", "memory": "1Gi"}), container("log", {"cpu": "250m"})],
    }
    # app+sidecar: cpu 1.0, mem 1Gi+128Mi; init peaks: migrate 2 / 1Gi, warm+proxy 1.25 / 4Gi+128Mi.
    assert pod_requests(spec) == {"cpu": 2.0, "memory": 4 * 2**30 + 128 * 2**20}


def test_limits_only_extended_resource_counts_as_request():
    spec = {"containers": [container("train", limits={"nvidia.com/gpu": 8.0, "cpu": "4"})]}
    assert pod_requests(spec) == {"nvidia.com/gpu": 8.0, "cpu": 4.0}


def test_cronjob_template_and_class_resolution_order():
    props = {"metadata": {"namespace": "batch", "labels": {"nodepools.io/workload-class": "resident"}},
             "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": {"parallelism": 3.0, "template": {
                 "metadata": {"labels": {"nodepools.io/workload-class": "batch"}}, "spec": {"containers": []}}}}}}
    workload = read_workload("kubernetes:batch/v1:CronJob", props, "urn:x", "nightly")
    assert (workload.kind, workload.name, workload.namespace, workload.pod_count) == ("CronJob", "nightly", "batch", 3.0)
    assert StackModel([], today=PINNED).class_of(workload, "batch") is PoolClass.BATCH  # pod template label wins
    bare = read_workload("kubernetes:batch/v1:Job", {"metadata": {"namespace": "training"}, "spec": {"template": {}}})
    training = Resource.of("kubernetes:core/v1:Namespace", "training", {"metadata": {
        "name": "training", "labels": {"nodepools.io/workload-class": "gpu-training"}}})
    assert StackModel([training], today=PINNED).class_of(bare, "training") is PoolClass.GPU_TRAINING
    assert StackModel([], today=PINNED).class_of(bare, "training") is None


def test_pytorchjob_counts_pods_of_every_role():
    props = {"spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1.0, "template": {"spec": {}}},
                                              "Worker": {"replicas": 3.0, "template": {"spec": {}}}}}}
    workload = read_workload("kubernetes:kubeflow.org/v1:PyTorchJob", props, "urn", "ddp")
    assert [t.role for t in workload.templates] == ["Master", "Worker"]
    assert workload.pod_count == 4.0


def test_unknowns_survive_policy_proxies_as_one_marker():
    props = unknown_checking_proxy({"metadata": {"namespace": UNKNOWN_WIRE},
                                    "spec": {"replicas": UNKNOWN_WIRE, "template": {"spec": {
                                        "tolerations": [{"key": "a", "operator": "Exists"}],
                                        "affinity": {"nodeAffinity": {
                                            "requiredDuringSchedulingIgnoredDuringExecution": UNKNOWN_WIRE}}}}}})
    workload = read_workload("kubernetes:apps/v1:Deployment", props, "urn", "web")
    assert workload.namespace is UNKNOWN and workload.pod_count is UNKNOWN
    spec = workload.templates[0].spec
    assert tolerations(spec) == [{"key": "a", "operator": "Exists"}]
    assert required_node_terms(spec) is UNKNOWN
    assert plain(["x", UNKNOWN_WIRE]) == ["x", UNKNOWN]


def test_eks_node_group_as_the_scheduler_sees_it():
    pool = read_pool("aws:eks/nodeGroup:NodeGroup", {
        "clusterName": "prod", "nodeGroupName": "train", "instanceTypes": ["p4d.24xlarge"], "capacityType": "SPOT",
        "amiType": "AL2023_x86_64_NVIDIA", "scalingConfig": {"minSize": 0.0, "maxSize": 4.0, "desiredSize": 0.0},
        "labels": {"nodepools.io/pool-class": "gpu-training"},
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]}, "urn:ng", "train")
    assert pool.taints == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    # EKS labels p4d nodes with their network position (one value per node: present, not known).
    assert pool.labels == {"eks.amazonaws.com/nodegroup": "train", "nodepools.io/pool-class": "gpu-training",
                           "eks.amazonaws.com/capacityType": "SPOT", "node.kubernetes.io/instance-type": "p4d.24xlarge",
                           "kubernetes.io/arch": "amd64", **{f"topology.k8s.aws/network-node-layer-{i}": UNKNOWN
                                                            for i in (1, 2, 3)}}
    assert (pool.spot, pool.min_nodes, pool.max_nodes, pool.gpu_count, pool.gpu_model, pool.is_gpu) == (
        True, 0.0, 4.0, 8.0, "nvidia-a100", True)


def test_gke_node_pool_accelerator_spot_and_total_bounds():
    pool = read_pool("gcp:container/nodePool:NodePool", {
        "cluster": "dev", "name": "infer", "autoscaling": {"totalMinNodeCount": 1.0, "totalMaxNodeCount": 3.0},
        "nodeConfig": {"machineType": "a2-highgpu-1g", "spot": False,
                       "guestAccelerators": [{"type": "nvidia-tesla-a100", "count": 1.0}],
                       "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]}})
    assert (pool.name, pool.spot, pool.min_nodes, pool.max_nodes, pool.gpu_model, pool.gpu_count) == (
        "infer", False, 1.0, 3.0, "nvidia-a100", 1.0)
    assert pool.labels["cloud.google.com/gke-accelerator"] == "nvidia-tesla-a100"
    assert "cloud.google.com/gke-spot" not in pool.labels


def test_unknown_pool_fields_stay_unknown():
    pool = read_pool("aws:eks/nodeGroup:NodeGroup", {"instanceTypes": UNKNOWN_WIRE, "capacityType": UNKNOWN_WIRE,
                                                      "taints": UNKNOWN_WIRE}, "urn", "x")
    assert (pool.instance_types, pool.spot, pool.taints, pool.gpu_count, pool.is_gpu) == (
        UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN)
    assert read_pool("kubernetes:apps/v1:Deployment", {}) is None


def test_gke_preemptible_pool_carries_the_preemptible_label_not_spot():
    pool = read_pool("gcp:container/nodePool:NodePool", {"name": "old", "nodeConfig": {
        "machineType": "n2-standard-4", "preemptible": True}})
    assert pool.spot is True
    assert pool.labels["cloud.google.com/gke-preemptible"] == "true"
    assert "cloud.google.com/gke-spot" not in pool.labels


def test_malformed_pool_fields_read_as_text_or_unknown_never_crash():
    pool = read_pool("gcp:container/nodePool:NodePool", {
        "name": "odd", "autoscaling": {"totalMinNodeCount": "zero", "totalMaxNodeCount": True},
        "nodeConfig": {"machineType": 42.0, "guestAccelerators": [{"type": "nvidia-l4", "count": "one"}],
                       "taints": [{"key": 7.0, "value": None, "effect": "NO_SCHEDULE"}]}})
    assert pool.taints == [{"key": "7.0", "value": "", "effect": "NoSchedule"}]
    assert (pool.min_nodes, pool.max_nodes, pool.gpu_count, pool.instance_types) == (UNKNOWN, UNKNOWN, UNKNOWN, [])
