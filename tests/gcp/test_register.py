"""The GKE backend under Pulumi's mock engine: exact inputs the engine receives, in wire form."""
import pytest
from pulumi.output import Unknown

from nodepools.backends.base import ClusterTarget
from nodepools.backends.gcp import GkeCluster
from nodepools.components.pools import NodePool
from nodepools.offline.engine import Run, run_program
from nodepools.vocabulary import COMPONENT_NODE_POOL, TYPE_GKE_NODE_POOL

SA_TYPE = "gcp:serviceaccount/account:Account"
IAM_TYPE = "gcp:projects/iAMMember:IAMMember"
NODE_ROLE = "roles/container.defaultNodeServiceAccount"
SECURE_NODE_CONFIG = {
    "imageType": "COS_CONTAINERD",
    "metadata": {"disable-legacy-endpoints": "true"},
    "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
    "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
    "workloadMetadataConfig": {"mode": "GKE_METADATA"},
}


def cluster(**kw) -> GkeCluster:
    return GkeCluster("main", **{"location": "us-central1", "project": "my-project", **kw})


def node_pool(run: Run, name: str):
    (pool,) = [r for r in run.of_type(TYPE_GKE_NODE_POOL) if r.name == name]
    return pool


def component_urn(run: Run, name: str) -> str:
    (component,) = [r for r in run.of_type(COMPONENT_NODE_POOL) if r.name == name]
    return component.urn


def four_pools():
    target = cluster()
    NodePool("web", dict(pool_class="resident", instance_types=["n2-standard-4"]), target)
    NodePool("jobs", dict(pool_class="batch", instance_types=["c3-standard-8"], capacity="spot", max_nodes=20), target)
    NodePool("infer", dict(pool_class="gpu-inference", instance_types=["g2-standard-8"], min_nodes=2, max_nodes=6), target)
    NodePool("train", dict(pool_class="gpu-training", instance_types=["a3-highgpu-8g"], zones=["us-central1-a"], placement="compact"), target)


@pytest.fixture(scope="module")
def run() -> Run:
    return run_program(four_pools, preview=False)


def test_gpu_inference_pool_inputs_are_exact(run):
    pool = node_pool(run, "infer")
    assert pool.inputs == {
        "cluster": "main", "name": "infer", "project": "my-project", "location": "us-central1",
        "initialNodeCount": 1.0,
        "autoscaling": {"totalMinNodeCount": 2.0, "totalMaxNodeCount": 6.0, "locationPolicy": "BALANCED"},
        "management": {"autoRepair": True, "autoUpgrade": True},
        "upgradeSettings": {"strategy": "SURGE", "maxSurge": 1.0, "maxUnavailable": 0.0},
        "networkConfig": {"enablePrivateNodes": True},
        "nodeConfig": {
            **SECURE_NODE_CONFIG,
            "machineType": "g2-standard-8",
            "bootDisk": {"diskType": "pd-balanced", "sizeGb": 200.0},
            "spot": False,
            "labels": {"nodepools.io/pool-class": "gpu-inference", "nodepools.io/pool": "infer",
                       "nodepools.io/capacity": "on-demand", "nvidia.com/gpu.present": "true",
                       "nodepools.io/accelerator": "nvidia-l4"},
            "taints": [{"key": "nodepools.io/pool-class", "value": "gpu-inference", "effect": "NO_SCHEDULE"},
                       {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
            "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0,
                                   "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}],
            "resourceLabels": {"nodepools-pool": "infer", "nodepools-pool-class": "gpu-inference"},
            "serviceAccount": run.named("infer-node-sa").inputs["accountId"] + "@fake-project.iam.gserviceaccount.com",
        },
    }
    assert pool.ignore_changes == ["initialNodeCount", "nodeCount"]


@pytest.mark.parametrize("name, autoscaling, spot, taints", [
    ("web", {"totalMinNodeCount": 2.0, "totalMaxNodeCount": 6.0, "locationPolicy": "BALANCED"}, False, []),
    ("jobs", {"totalMinNodeCount": 0.0, "totalMaxNodeCount": 20.0, "locationPolicy": "ANY"}, True,
     [{"key": "nodepools.io/pool-class", "value": "batch", "effect": "NO_SCHEDULE"}]),
    ("train", {"totalMinNodeCount": 0.0, "totalMaxNodeCount": 4.0, "locationPolicy": "ANY"}, True,
     [{"key": "nodepools.io/pool-class", "value": "gpu-training", "effect": "NO_SCHEDULE"},
      {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]),
])
def test_each_class_gets_its_scaling_capacity_and_taints(run, name, autoscaling, spot, taints):
    pool = node_pool(run, name)
    config = pool.inputs["nodeConfig"]
    assert (pool.inputs["autoscaling"], config["spot"], config["taints"]) == (autoscaling, spot, taints)
    assert {k: config[k] for k in SECURE_NODE_CONFIG} == SECURE_NODE_CONFIG
    assert pool.inputs["management"] == {"autoRepair": True, "autoUpgrade": True}
    assert pool.ignore_changes == ["initialNodeCount", "nodeCount"]


def test_compact_training_pool_sits_in_one_zone_with_eight_h100s(run):
    pool = node_pool(run, "train")
    assert (pool.inputs["placementPolicy"], pool.inputs["nodeLocations"]) == ({"type": "COMPACT"}, ["us-central1-a"])
    assert pool.inputs["nodeConfig"]["guestAccelerators"] == [
        {"type": "nvidia-h100-80gb", "count": 8.0, "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}]
    assert pool.inputs["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 0.0, "maxUnavailable": 1.0}
    assert all("placementPolicy" not in node_pool(run, n).inputs for n in ("web", "jobs", "infer"))


def test_each_pool_has_its_own_least_privilege_service_account(run):
    for name in ("web", "jobs", "infer", "train"):
        account = run.named(f"{name}-node-sa")
        (grant,) = [r for r in run.of_type(IAM_TYPE) if r.parent == component_urn(run, name)]
        email = account.inputs["accountId"] + "@fake-project.iam.gserviceaccount.com"
        assert account.type == SA_TYPE and account.parent == component_urn(run, name)
        assert account.inputs["project"] == "my-project"
        assert grant.inputs == {"project": "my-project", "role": NODE_ROLE, "member": f"serviceAccount:{email}"}
        pool = node_pool(run, name)
        assert pool.inputs["nodeConfig"]["serviceAccount"] == email
        # The pool waits for its grant, so nodes can log from their first boot.
        assert grant.urn in pool.dependencies and pool.parent == component_urn(run, name)
    assert len({run.named(f"{n}-node-sa").inputs["accountId"] for n in ("web", "jobs", "infer", "train")}) == 4


def test_existing_service_account_is_used_and_extra_roles_only_for_created_ones():
    email = "gke-nodes@my-project.iam.gserviceaccount.com"
    given = run_program(lambda: NodePool("web", dict(pool_class="resident", instance_types=["n2-standard-4"]), cluster(node_service_account=email)), preview=False)
    assert given.of_type(SA_TYPE) == [] and given.of_type(IAM_TYPE) == []
    assert node_pool(given, "web").inputs["nodeConfig"]["serviceAccount"] == email
    created = run_program(lambda: NodePool("web", dict(pool_class="resident", instance_types=["n2-standard-4"]), cluster(extra_node_roles=["roles/artifactregistry.reader"])), preview=False)
    assert sorted(r.inputs["role"] for r in created.of_type(IAM_TYPE)) == [
        "roles/artifactregistry.reader", NODE_ROLE]


def test_preview_registers_the_same_resources_with_the_email_unknown():
    preview = run_program(four_pools, preview=True)
    update = run_program(four_pools, preview=False)
    assert sorted((r.type, r.name) for r in preview.resources) == sorted((r.type, r.name) for r in update.resources)
    assert isinstance(node_pool(preview, "web").inputs["nodeConfig"]["serviceAccount"], Unknown)


def test_cluster_options_reach_the_pool():
    target = cluster(location="us-central1-b", private_nodes=None, gpu_driver_version="LATEST",
                     boot_disk_kms_key="projects/p/locations/us-central1/keyRings/r/cryptoKeys/k",
                     resource_labels={"env": "prod"})
    run = run_program(lambda: NodePool("train", dict(pool_class="gpu-training", instance_types=["a2-highgpu-1g"]), target), preview=False)
    inputs = node_pool(run, "train").inputs
    config = inputs["nodeConfig"]
    assert "networkConfig" not in inputs and "nodeLocations" not in inputs
    assert config["guestAccelerators"][0]["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "LATEST"}
    assert config["bootDiskKmsKey"] == "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"
    assert config["resourceLabels"] == {
        "env": "prod", "nodepools-pool": "train", "nodepools-pool-class": "gpu-training"}


def test_component_reports_the_labels_nodes_will_carry():
    seen = {}

    def program():
        seen["pool"] = NodePool("jobs", dict(pool_class="batch", instance_types=["n2-standard-8"], capacity="spot"), cluster())

    run_program(program, preview=False)
    assert seen["pool"].node_labels == {
        "nodepools.io/pool-class": "batch", "nodepools.io/pool": "jobs", "nodepools.io/capacity": "spot",
        "cloud.google.com/gke-nodepool": "jobs", "cloud.google.com/gke-spot": "true"}


def test_gke_cluster_is_a_cluster_target_without_autoscaler_identity():
    target = cluster()
    assert isinstance(target, ClusterTarget)
    assert target.register_cluster_autoscaler_identity("kube-system", "cluster-autoscaler", parent=None) is None
