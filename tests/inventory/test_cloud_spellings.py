"""What a backend writes, the raw-resource readers read back: one spelling table per cloud (nodepools.clouds)."""
import pytest

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.clouds import aws as eks
from nodepools.clouds import gcp as gke
from nodepools.clouds import taints
from nodepools.components.pools import NodePool
from nodepools.inventory.pools import read_pool
from nodepools.offline.engine import run_program
from nodepools.spec.instances import GpuModel
from nodepools.vocabulary import LABEL_ACCELERATOR, TYPE_EKS_NODE_GROUP, TYPE_GKE_NODE_POOL

MEGA = {"a3-megagpu-8g": {"vcpu": 208, "memory_gib": 1872, "gpu_count": 8, "gpu_model": "nvidia-h100"}}


def read_back(resource, drop_contract_label: bool = True):
    """The pool as the policy pack reads it, without our own accelerator label, so
    only the cloud's own spelling can tell the model."""
    props = dict(resource.inputs)
    if drop_contract_label:
        config = dict(props.get("nodeConfig") or {})
        if "labels" in config:
            config["labels"] = {k: v for k, v in config["labels"].items() if k != LABEL_ACCELERATOR}
            props["nodeConfig"] = config
        if "labels" in props:
            props["labels"] = {k: v for k, v in props["labels"].items() if k != LABEL_ACCELERATOR}
    return read_pool(resource.type, props, resource.urn, resource.name)


def test_an_a3_mega_pool_reads_back_as_the_h100_it_declared():
    run = run_program(lambda: NodePool("train", dict(
        pool_class="gpu-training", instance_types=["a3-megagpu-8g"], custom_capacity=MEGA, zones=["us-central1-a"]),
        GkeCluster("main", location="us-central1", project="my-project")), preview=False)
    (pool,) = run.of_type(TYPE_GKE_NODE_POOL)
    assert pool.inputs["nodeConfig"]["guestAccelerators"][0]["type"] == "nvidia-h100-mega-80gb"
    assert read_back(pool).gpu_model == "nvidia-h100"


@pytest.mark.parametrize("model", gke.gpu_models())
def test_every_gke_accelerator_name_maps_back_to_its_model(model):
    for machine in ("g2-standard-8", "a3-megagpu-8g"):
        name = gke.accelerator_type(model, machine)
        assert gke.GPU_MODEL_OF_ACCELERATOR[name] is model


def test_eks_taint_effects_capacity_and_accelerator_label_read_back():
    taints = [{"key": "team", "value": "ml", "effect": "PreferNoSchedule"}, {"key": "x", "effect": "NoExecute"}]
    run = run_program(lambda: NodePool("train", dict(pool_class="gpu-training", instance_types=["g6.xlarge"],
                                                     taints=taints),
                                       EksCluster("prod", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000001")),
                      preview=False)
    (group,) = run.of_type(TYPE_EKS_NODE_GROUP)
    assert group.inputs["capacityType"] == "SPOT"
    view = read_back(group)
    assert view.spot is True
    assert [t for t in view.taints if t["key"] in ("team", "x")] == [
        {"key": "team", "value": "ml", "effect": "PreferNoSchedule"}, {"key": "x", "value": "", "effect": "NoExecute"}]
    assert view.gpu_model == "nvidia-l4"
    # An instance type outside the table: the autoscaler's accelerator label still names the model.
    unlisted = read_pool(TYPE_EKS_NODE_GROUP, {**group.inputs, "instanceTypes": ["g9.xlarge"],
                                               "labels": {"k8s.amazonaws.com/accelerator": "nvidia-l4"}})
    assert unlisted.gpu_model == "nvidia-l4"


def test_both_directions_are_inverse():
    for table, back in ((taints.TAINT_EFFECTS, taints.TAINT_EFFECT_OF), (eks.CAPACITY_TYPES, eks.CAPACITY_TYPE_OF)):
        assert {back[name]: name for name in table.values()} == table
    assert all(eks.gpu_model_of_accelerator_label(eks.accelerator_label(m)) is m for m in GpuModel)
