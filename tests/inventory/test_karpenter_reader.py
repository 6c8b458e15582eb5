"""Karpenter NodePools read as pools (docs/design.md section 7), without the pack."""
from nodepools.inventory.karpenter import OneOf, admitted_instances
from nodepools.inventory.pools import read_pool
from nodepools.inventory.values import UNKNOWN
from nodepools.placement.affinity import requirement_matches, selector_matches
from nodepools.placement.nodelabels import node_labels

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"


def props(requirements, labels=None, taints=None, limits=None, name="gpu"):
    template = {"spec": {"requirements": requirements, **({"taints": taints} if taints else {}),
                         "startupTaints": [{"key": "example.com/booting", "effect": "NoSchedule"}]}}
    if labels is not None:
        template["metadata"] = {"labels": labels}
    return {"metadata": {"name": name}, "spec": {"template": template, **({"limits": limits} if limits else {})}}


def req(key, op, *values):
    return {"key": key, "operator": op, **({"values": list(values)} if values else {})}


def test_docs_style_gpu_pool():
    view = read_pool(NODE_POOL, props(
        [req("karpenter.sh/capacity-type", "In", "spot", "on-demand"),
         req("karpenter.k8s.aws/instance-family", "In", "g5", "g6"),
         req("karpenter.k8s.aws/instance-gpu-count", "Gt", "0")],
        taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
        limits={"cpu": "384", "nvidia.com/gpu": "16"}))
    assert view.name == "gpu" and view.pool_class is None
    assert view.spot is True and view.is_gpu is True and view.min_nodes is None
    assert view.labels["karpenter.sh/nodepool"] == "gpu"
    assert view.labels["karpenter.k8s.aws/instance-family"] == OneOf({"g5", "g6"})
    # Taints are the template's; startupTaints are temporary and not read.
    assert view.taints == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    # Largest admitted: g5/g6.48xlarge (8 GPUs, 192 vCPU): 384 cpu = 2 nodes, 16 GPUs = 2 nodes.
    assert view.instance_types in (["g5.48xlarge"], ["g6.48xlarge"])
    assert (view.gpu_count, view.max_nodes) == (8.0, 2.0)


def test_pool_name_and_class_from_our_labels_and_absent_capacity_type_is_on_demand():
    view = read_pool(NODE_POOL, props([req("node.kubernetes.io/instance-type", "In", "m6i.xlarge")],
                                      labels={"nodepools.io/pool": "web", "nodepools.io/pool-class": "resident"}))
    assert (view.name, view.pool_class.value, view.spot) == ("web", "resident", False)
    assert view.labels["karpenter.sh/capacity-type"] == "on-demand"
    assert view.labels["node.kubernetes.io/instance-type"] == "m6i.xlarge"
    assert view.max_nodes is None  # no limits: unbounded


def test_no_table_instance_matches_leaves_only_the_size_unknown():
    # Trainium carries no NVIDIA GPU (docs/design.md section 8): a CPU pool of a family the table lacks.
    view = read_pool(NODE_POOL, props([req("karpenter.k8s.aws/instance-family", "In", "trn1")]))
    assert (view.instance_types, view.gpu_count, view.is_gpu) == (["trn1.*"], 0.0, False)
    # A GPU family the table lacks: GPU-capable, its GPUs per node unknown.
    view = read_pool(NODE_POOL, props([req("karpenter.k8s.aws/instance-family", "In", "p5en")]))
    assert (view.instance_types, view.gpu_count, view.is_gpu) == (["p5en.*"], UNKNOWN, True)


def test_admitted_instances_honour_every_operator():
    names = [t.name for t in admitted_instances([
        req("karpenter.k8s.aws/instance-category", "In", "c"), req("karpenter.k8s.aws/instance-generation", "Gte", "7"),
        req("kubernetes.io/arch", "NotIn", "arm64"), req("karpenter.k8s.aws/instance-cpu", "Lt", "16")])]
    assert names == ["c7i.2xlarge", "c7i.xlarge", "c7i.large"]


def test_a_multi_value_label_matches_when_the_wanted_value_is_among_them():
    labels = node_labels(read_pool(NODE_POOL, props([req("karpenter.k8s.aws/instance-category", "In", "c", "m")])))
    assert selector_matches({"karpenter.k8s.aws/instance-category": "m"}, labels)[0] is True
    assert selector_matches({"karpenter.k8s.aws/instance-category": "r"}, labels)[0] is False
    assert requirement_matches(req("karpenter.k8s.aws/instance-category", "NotIn", "c"), labels) is True
    assert requirement_matches(req("karpenter.k8s.aws/instance-category", "NotIn", "c", "m"), labels) is False
    # Karpenter labels the node with instance facts the pool does not pin: undecided, not absent.
    assert labels.lookup("karpenter.k8s.aws/instance-hypervisor") == (UNKNOWN, UNKNOWN)
