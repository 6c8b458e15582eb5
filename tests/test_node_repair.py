"""Node auto-repair per pool (docs/design.md section 9.5): the spec's default and opt-out, as each cloud spells it."""
import pytest

from nodepools.backends.aws import EksContext, translate_pool
from nodepools.backends.gcp import GkeContext, translate
from nodepools.spec import PoolSpec
from nodepools.spec.repair import repair_enabled

EKS = EksContext(cluster_name="prod", subnet_ids=("subnet-0000000a",), cluster_security_group_id="sg-00000c1a")
GKE = GkeContext(project="my-project", location="europe-west4")
AWS_TYPES = {"resident": ["m7i.xlarge"], "gpu-inference": ["g6.xlarge"], "gpu-training": ["p4d.24xlarge"]}
GCP_TYPES = {"resident": ["n2-standard-4"], "gpu-inference": ["g2-standard-8"]}


def pool(pool_class, types, **fields):
    return PoolSpec(name="p", pool_class=pool_class, instance_types=types[pool_class], **fields)


@pytest.mark.parametrize("pool_class, repair, sent", [
    ("gpu-inference", None, {"enabled": True}),
    ("gpu-training", None, {"enabled": True}),
    ("gpu-inference", {"mode": "off"}, {"enabled": False}),
    ("resident", None, None),                      # auto on a CPU pool: nothing sent, EKS's default (off)
    ("resident", {"mode": "on"}, {"enabled": True}),
    ("gpu-inference", {"eks": {"max_unhealthy_node_threshold_percentage": 20, "max_parallel_nodes_repaired_count": 1}},
     {"enabled": True, "max_unhealthy_node_threshold_percentage": 20, "max_parallel_nodes_repaired_count": 1}),
])
def test_eks_node_repair_config(pool_class, repair, sent):
    spec = pool(pool_class, AWS_TYPES, **({"repair": repair} if repair else {}))
    assert translate_pool(spec, EKS).node_group.get("node_repair_config") == sent


@pytest.mark.parametrize("pool_class, repair, auto_repair", [
    ("gpu-inference", None, True), ("resident", None, True), ("gpu-inference", {"mode": "off"}, False),
    ("resident", {"mode": "off"}, False)])
def test_gke_management_auto_repair(pool_class, repair, auto_repair):
    spec = pool(pool_class, GCP_TYPES, **({"repair": repair} if repair else {}))
    assert translate(spec, GKE).args["management"] == {"auto_repair": auto_repair, "auto_upgrade": True}


def test_auto_is_on_for_gpu_pools_and_the_providers_default_elsewhere():
    assert [repair_enabled(pool(c, AWS_TYPES)) for c in ("gpu-inference", "gpu-training", "resident")] == [
        True, True, None]


def test_the_sdk_spells_the_eks_fields_as_we_send_them():
    """pulumi-aws NodeGroupNodeRepairConfigArgs: the installed SDK is the final word on the names."""
    import inspect

    import pulumi_aws as aws
    params = set(inspect.signature(aws.eks.NodeGroupNodeRepairConfigArgs.__init__).parameters) - {"__self__", "self"}
    assert {"enabled", "max_unhealthy_node_threshold_count", "max_unhealthy_node_threshold_percentage",
            "max_parallel_nodes_repaired_count", "max_parallel_nodes_repaired_percentage"} <= params
    assert "node_repair_config" in inspect.signature(aws.eks.NodeGroup._internal_init).parameters
