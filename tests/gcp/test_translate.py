"""The pure GKE translator: PoolSpec + cluster facts -> node pool arguments (no engine involved)."""
import re

import pytest

from nodepools.backends.gcp import GkeContext, translate
from nodepools.backends.gcp.translate import initial_node_count, node_account_id
from nodepools.spec import PoolSpec

REGIONAL = GkeContext(project="my-project", location="europe-west4")


def spec(**fields) -> PoolSpec:
    return PoolSpec(**{"name": "jobs", "pool_class": "batch", "instance_types": ["c3-standard-8"], **fields})


def test_spot_batch_pool_translates_to_exact_node_pool_args():
    plan = translate(spec(capacity="spot", max_nodes=20, zones=["europe-west4-a", "europe-west4-b"],
                          labels={"team": "data"}, taints=[{"key": "team", "value": "data", "effect": "NoExecute"}]),
                     GkeContext(project="my-project", location="europe-west4", resource_labels={"env": "prod"}))
    assert plan.args == {
        "name": "jobs",
        "project": "my-project",
        "location": "europe-west4",
        "initial_node_count": 0,
        "autoscaling": {"total_min_node_count": 0, "total_max_node_count": 20, "location_policy": "ANY"},
        "management": {"auto_repair": True, "auto_upgrade": True},
        "upgrade_settings": {"strategy": "SURGE", "max_surge": 1, "max_unavailable": 0},
        "node_locations": ["europe-west4-a", "europe-west4-b"],
        "network_config": {"enable_private_nodes": True},
        "node_config": {
            "machine_type": "c3-standard-8",
            "image_type": "COS_CONTAINERD",
            "boot_disk": {"disk_type": "pd-balanced", "size_gb": 50},
            "spot": True,
            "labels": {"team": "data", "nodepools.io/pool-class": "batch", "nodepools.io/pool": "jobs",
                       "nodepools.io/capacity": "spot"},
            "taints": [{"key": "nodepools.io/pool-class", "value": "batch", "effect": "NO_SCHEDULE"},
                       {"key": "team", "value": "data", "effect": "NO_EXECUTE"}],
            "resource_labels": {"env": "prod", "nodepools-pool": "jobs", "nodepools-pool-class": "batch"},
            "metadata": {"disable-legacy-endpoints": "true"},
            "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
            "shielded_instance_config": {"enable_secure_boot": True, "enable_integrity_monitoring": True},
            "workload_metadata_config": {"mode": "GKE_METADATA"},
        },
    }
    assert plan.ignore_changes == ("initialNodeCount", "nodeCount")
    assert plan.node_roles == ("roles/container.defaultNodeServiceAccount",)


@pytest.mark.parametrize("effect, value, gke", [
    ("NoSchedule", "x", {"key": "k.io/t", "value": "x", "effect": "NO_SCHEDULE"}),
    ("PreferNoSchedule", "x", {"key": "k.io/t", "value": "x", "effect": "PREFER_NO_SCHEDULE"}),
    ("NoExecute", "", {"key": "k.io/t", "value": "", "effect": "NO_EXECUTE"}),
])
def test_taint_effects_use_the_gke_enum_and_keep_empty_values(effect, value, gke):
    plan = translate(spec(taints=[{"key": "k.io/t", "value": value, "effect": effect}]), REGIONAL)
    assert plan.args["node_config"]["taints"][1:] == [gke]


def test_resident_pool_is_untainted_on_demand_and_balanced():
    plan = translate(PoolSpec(name="web", pool_class="resident", instance_types=["n2-standard-4"]), REGIONAL)
    config = plan.args["node_config"]
    assert (config["taints"], config["spot"], plan.args["autoscaling"]) == (
        [], False, {"total_min_node_count": 2, "total_max_node_count": 6, "location_policy": "BALANCED"})
    assert "guest_accelerators" not in config and "placement_policy" not in plan.args


@pytest.mark.parametrize("fields, accelerator", [
    (dict(instance_types=["g2-standard-8"]), {"type": "nvidia-l4", "count": 1}),
    (dict(instance_types=["a2-highgpu-2g"]), {"type": "nvidia-tesla-a100", "count": 2}),
    (dict(instance_types=["a2-ultragpu-8g"]), {"type": "nvidia-a100-80gb", "count": 8}),
    (dict(instance_types=["a3-highgpu-8g"]), {"type": "nvidia-h100-80gb", "count": 8}),
    (dict(instance_types=["n1-standard-8"], custom_capacity={"n1-standard-8": {
        "vcpu": 8, "memory_gib": 30, "gpu_count": 2, "gpu_model": "nvidia-t4"}}),
     {"type": "nvidia-tesla-t4", "count": 2}),
    (dict(instance_types=["a3-megagpu-8g"], custom_capacity={"a3-megagpu-8g": {
        "vcpu": 208, "memory_gib": 1872, "gpu_count": 8, "gpu_model": "nvidia-h100"}}),
     {"type": "nvidia-h100-mega-80gb", "count": 8}),
])
def test_gpu_pools_get_accelerator_with_driver_installation_always_set(fields, accelerator):
    plan = translate(PoolSpec(name="infer", pool_class="gpu-inference", **fields), REGIONAL)
    assert plan.args["node_config"]["guest_accelerators"] == [
        {**accelerator, "gpu_driver_installation_config": {"gpu_driver_version": "DEFAULT"}}]
    assert plan.args["node_config"]["taints"] == [
        {"key": "nodepools.io/pool-class", "value": "gpu-inference", "effect": "NO_SCHEDULE"},
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]


def test_driver_version_and_private_nodes_follow_the_cluster_context():
    ctx = GkeContext(project="my-project", location="europe-west4", gpu_driver_version="LATEST", private_nodes=None)
    plan = translate(PoolSpec(name="infer", pool_class="gpu-inference", instance_types=["g2-standard-8"]), ctx)
    accel = plan.args["node_config"]["guest_accelerators"][0]
    assert accel["gpu_driver_installation_config"] == {"gpu_driver_version": "LATEST"}
    assert "network_config" not in plan.args


@pytest.mark.parametrize("machine, disk", [
    ("n2-standard-4", "pd-balanced"), ("e2-standard-4", "pd-balanced"), ("c3-standard-8", "pd-balanced"),
    ("c4-standard-8", "hyperdisk-balanced"), ("n4-standard-8", "hyperdisk-balanced"),
    ("c3-standard-192-metal", "hyperdisk-balanced"),
])
def test_boot_disk_type_is_one_the_machine_family_can_boot_from(machine, disk):
    custom = {} if machine.startswith(("n2-", "e2-", "c3-standard-8")) else {machine: {"vcpu": 8, "memory_gib": 32}}
    plan = translate(spec(instance_types=[machine], custom_capacity=custom, disk_size_gib=120), REGIONAL)
    assert plan.args["node_config"]["boot_disk"] == {"disk_type": disk, "size_gb": 120}


def test_compact_training_pool_pins_its_zone_and_asks_for_compact_placement():
    ctx = GkeContext(project="my-project", location="us-central1-c")
    plan = translate(PoolSpec(name="train", pool_class="gpu-training", instance_types=["a3-highgpu-8g"],
                              placement="compact"), ctx)
    assert (plan.args["placement_policy"], plan.args["node_locations"]) == ({"type": "COMPACT"}, ["us-central1-c"])
    assert plan.args["upgrade_settings"] == {"strategy": "SURGE", "max_surge": 0, "max_unavailable": 1}
    assert plan.args["autoscaling"]["location_policy"] == "ANY"


@pytest.mark.parametrize("location, default_zones, zones, min_nodes, expected", [
    ("europe-west4", (), ["europe-west4-a", "europe-west4-b", "europe-west4-c"], 4, 2),
    ("europe-west4", (), [], 2, 1),  # GKE's three default zones of a regional pool
    ("europe-west4", ("europe-west4-a", "europe-west4-b"), [], 3, 2),
    ("europe-west4-b", (), [], 2, 2),
    ("europe-west4", (), [], 0, 0),
])
def test_initial_node_count_is_per_zone_and_reaches_min(location, default_zones, zones, min_nodes, expected):
    ctx = GkeContext(project="my-project", location=location, default_zones=default_zones)
    pool = PoolSpec(name="web", pool_class="resident" if min_nodes else "batch", instance_types=["n2-standard-4"],
                    zones=zones, min_nodes=min_nodes, max_nodes=9)
    assert initial_node_count(pool, ctx) == expected


def test_node_labels_add_what_gke_sets_itself():
    plan = translate(PoolSpec(name="train", pool_class="gpu-training", instance_types=["g2-standard-8"]), REGIONAL)
    assert plan.node_labels == {
        "nodepools.io/pool-class": "gpu-training", "nodepools.io/pool": "train", "nodepools.io/capacity": "spot",
        "nvidia.com/gpu.present": "true", "nodepools.io/accelerator": "nvidia-l4",
        "cloud.google.com/gke-nodepool": "train", "cloud.google.com/gke-spot": "true",
        "cloud.google.com/gke-accelerator": "nvidia-l4"}
    # ...but the provider is sent only the spec's labels: GKE owns its own.
    assert not any(k.startswith("cloud.google.com/") for k in plan.args["node_config"]["labels"])


def test_node_account_ids_are_valid_stable_and_distinct_per_cluster():
    long_name = "a" * 19 + "-" + "b" * 20
    ids = [node_account_id("main", "europe-west4", "web"), node_account_id("other", "europe-west4", "web"),
           node_account_id("main", "us-central1", "web"), node_account_id("main", "europe-west4", long_name)]
    for account_id in ids:
        assert re.fullmatch(r"[a-z]([-a-z0-9]{4,28})[a-z0-9]", account_id), account_id
    assert len(set(ids)) == 4
    assert ids[0] == node_account_id("main", "europe-west4", "web")
    assert ids[3].startswith("np-" + "a" * 19 + "-") and "--" not in ids[3]
