"""The cloud-neutral pool spec: class presets and every validation rule."""
import pytest
from pydantic import ValidationError

from nodepools.spec import PoolSpec, describe, workload_contract
from nodepools.spec.cluster import ClusterPools


def errors(**fields) -> list[str]:
    with pytest.raises(ValidationError) as info:
        PoolSpec(**fields)
    return describe(info.value)


def test_presets_fill_capacity_sizes_and_disk_per_class():
    resident = PoolSpec(name="web", pool_class="resident", instance_types=["m6i.xlarge"])
    batch = PoolSpec(name="jobs", pool_class="batch", instance_types=["c6i.2xlarge"])
    infer = PoolSpec(name="infer", pool_class="gpu-inference", instance_types=["g6.xlarge"])
    train = PoolSpec(name="train", pool_class="gpu-training", instance_types=["p4d.24xlarge"])
    assert [(p.capacity.value, p.min_nodes, p.max_nodes, p.disk_size_gib) for p in (resident, batch, infer, train)] == [
        ("on-demand", 2, 6, 50), ("on-demand", 0, 10, 50), ("on-demand", 1, 4, 200), ("spot", 0, 4, 200)]


def test_taints_per_class_follow_design_table():
    def taints(**kw):
        return [t.as_k8s() for t in PoolSpec(**kw).node_taints]

    assert taints(name="web", pool_class="resident", instance_types=["m6i.xlarge"]) == []
    assert taints(name="web", pool_class="resident", instance_types=["m6i.xlarge"], dedicated=True) == [
        {"key": "nodepools.io/pool-class", "value": "resident", "effect": "NoSchedule"}]
    assert taints(name="jobs", pool_class="batch", instance_types=["m6i.xlarge"]) == [
        {"key": "nodepools.io/pool-class", "value": "batch", "effect": "NoSchedule"}]
    assert taints(name="train", pool_class="gpu-training", instance_types=["g5.12xlarge"]) == [
        {"key": "nodepools.io/pool-class", "value": "gpu-training", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]


def test_gpu_pool_labels_carry_model_from_instance_table():
    pool = PoolSpec(name="infer", pool_class="gpu-inference", instance_types=["g6.xlarge", "g6.2xlarge"],
                    labels={"team": "ml"})
    assert pool.node_labels == {
        "team": "ml", "nodepools.io/pool-class": "gpu-inference", "nodepools.io/pool": "infer",
        "nodepools.io/capacity": "on-demand", "nvidia.com/gpu.present": "true", "nodepools.io/accelerator": "nvidia-l4"}
    assert (pool.gpu_model.value, pool.gpus_per_node) == ("nvidia-l4", 1)


def test_contract_tolerates_exactly_the_pool_taints_and_pins_the_pool():
    pool = PoolSpec(name="infer", pool_class="gpu-inference", instance_types=["g5.xlarge"])
    contract = workload_contract(pool).as_dict()
    assert contract["tolerations"] == [
        {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert contract["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "nodepools.io/pool", "operator": "In", "values": ["infer"]}]}]}


def test_spot_inference_is_refused_with_allowed_values():
    assert errors(name="infer", pool_class="gpu-inference", capacity="spot", instance_types=["g5.xlarge"]) == [
        "capacity: capacity 'spot' is not allowed for class gpu-inference (allowed: on-demand): it must not be interrupted"]


def test_all_cross_field_errors_are_reported_together():
    assert errors(name="infer", pool_class="gpu-inference", capacity="spot", min_nodes=0, max_nodes=3,
                  instance_types=["g5.xlarge"], labels={"nodepools.io/pool": "x"}) == [
        "capacity: capacity 'spot' is not allowed for class gpu-inference (allowed: on-demand): it must not be interrupted",
        "min_nodes: min_nodes must be >= 1 for class gpu-inference: its capacity must stay up (got 0)",
        "labels['nodepools.io/pool']: label 'nodepools.io/pool' is set by the pool from its spec and cannot be "
        "overridden (reserved: k8s.amazonaws.com/accelerator, nodepools.io/accelerator, nodepools.io/capacity, "
        "nodepools.io/pool, nodepools.io/pool-class, nvidia.com/gpu.present)"]


@pytest.mark.parametrize("fields, expected", [
    (dict(pool_class="resident", min_nodes=0), "min_nodes: min_nodes must be >= 1 for class resident"),
    (dict(pool_class="batch", min_nodes=5, max_nodes=3), "min_nodes: min_nodes (5) must be <= max_nodes (3)"),
    (dict(pool_class="gpu-training", instance_types=["m6i.large"]), "instance_types[0]: 'm6i.large' has no GPU"),
    (dict(pool_class="batch", instance_types=["g5.xlarge"]), "instance_types[0]: 'g5.xlarge' has 1 GPU(s)"),
    (dict(pool_class="batch", instance_types=["m6i.large", "m7g.large"]),
     "instance_types: instance types of one pool must agree on architecture (m6i.large=x86_64, m7g.large=arm64)"),
    (dict(pool_class="gpu-training", instance_types=["g5.xlarge", "g5.12xlarge"]),
     "instance_types: instance types of one pool must agree on GPU count (g5.xlarge=1, g5.12xlarge=4)"),
    (dict(pool_class="batch", instance_types=["x9.huge"]), "instance_types[0]: unknown instance type 'x9.huge'"),
    (dict(pool_class="batch", labels={"bad key!": "v"}), "labels['bad key!']: label key 'bad key!' is invalid"),
    (dict(pool_class="batch", labels={"team": "no spaces"}), "labels.team: label value 'no spaces' is invalid"),
    (dict(pool_class="batch", taints=[{"key": "-bad", "value": "x"}]), "taints[0].key: taint key '-bad' is invalid"),
    (dict(pool_class="batch", taints=[{"key": "a", "effect": "NO_SCHEDULE"}]),
     "taints[0].effect: Input should be 'NoSchedule', 'PreferNoSchedule' or 'NoExecute'"),
    (dict(pool_class="gpu-inference", instance_types=["g5.xlarge"], gpu={"model": "nvidia-h100", "count_per_node": 1}),
     "gpu.model: gpu.model 'nvidia-h100' disagrees with the instance types' GPU (nvidia-a10g)"),
    (dict(pool_class="batch", placement="compact", zones=["a", "b"]), "placement: placement 'compact' needs one zone"),
    (dict(pool_class="resident", placement="compact"), "placement: placement 'compact' is allowed for classes batch"),
    (dict(pool_class="bulk"), "pool_class: Input should be 'resident', 'batch', 'gpu-inference' or 'gpu-training'"),
    (dict(pool_class="batch", name="Bad_Name"), "name: pool name 'Bad_Name' is invalid"),
])
def test_each_rule_names_its_field(fields, expected):
    base = {"name": "p", "instance_types": ["m6i.large"], **fields}
    found = errors(**base)
    assert any(line.startswith(expected) for line in found), found


def test_unknown_instance_type_accepted_with_explicit_capacity():
    pool = PoolSpec(name="custom", pool_class="gpu-training", instance_types=["p6-b200.48xlarge"],
                    custom_capacity={"p6-b200.48xlarge": {"vcpu": 192, "memory_gib": 2048, "gpu_count": 8,
                                                          "gpu_model": "nvidia-h100"}})
    assert (pool.gpus_per_node, pool.gpu_model.value, pool.cloud) == (8, "nvidia-h100", None)


def test_cluster_rejects_duplicate_names_second_untainted_pool_and_wrong_cloud():
    with pytest.raises(ValidationError) as info:
        ClusterPools(cloud="gcp", pools=[
            {"name": "web", "pool_class": "resident", "instance_types": ["n2-standard-4"]},
            {"name": "web", "pool_class": "resident", "instance_types": ["n2-standard-8"]},
            {"name": "jobs", "pool_class": "batch", "instance_types": ["m6i.large"]},
        ])
    assert describe(info.value) == [
        "pools[1].name: pool name 'web' is already used by pools[0]; pool names must be unique in a cluster "
        "(they are the nodepools.io/pool label)",
        "pools[2].instance_types: instance types ['m6i.large'] are aws types, but this cluster is on gcp",
        "pools[1].dedicated: pool 'web' is the second untainted pool (pools[0] is the first): only one default "
        "resident pool may stay untainted; set dedicated: true",
    ]
