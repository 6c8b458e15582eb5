"""Karpenter pools: the pure translator's exact objects, validated against the v1.14.1 CRDs."""
import jsonschema
import pytest
from pydantic import ValidationError

from karpenter_schema import validate_karpenter
from nodepools.backends.aws import EksContext
from nodepools.backends.aws.karpenter import AMI_ALIAS, translate_karpenter_pool
from nodepools.spec import PoolSpec
from nodepools.spec.cluster import ClusterPools

CTX = EksContext(cluster_name="prod", subnet_ids=("subnet-000000a0", "subnet-000000b0"), cluster_security_group_id="sg-00000c1a",
                 tags={"team": "ml"})
GPU_TAINTS = [{"key": "nodepools.io/pool-class", "value": "gpu-training", "effect": "NoSchedule"},
              {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]


def kpool(**fields) -> PoolSpec:
    return PoolSpec(provisioner="karpenter", **fields)


def test_gpu_training_node_pool_exact():
    plan = translate_karpenter_pool(kpool(name="train", pool_class="gpu-training", instance_types=["g5.12xlarge"],
                                          max_nodes=3, karpenter={"on_demand_fallback": True}), CTX, "node-role")
    assert plan.node_pool == {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "train", "labels": {"nodepools.io/pool": "train", "nodepools.io/pool-class": "gpu-training"}},
        "spec": {
            "template": {
                "metadata": {
                    "labels": {"nodepools.io/pool-class": "gpu-training", "nodepools.io/pool": "train",
                               "nodepools.io/capacity": "spot", "nvidia.com/gpu.present": "true",
                               "nodepools.io/accelerator": "nvidia-a10g", "k8s.amazonaws.com/accelerator": "nvidia-a10g"},
                    "annotations": {"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"},
                },
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "train"},
                    "requirements": [
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
                        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.12xlarge"]},
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                    ],
                    "taints": GPU_TAINTS,
                    "expireAfter": "720h",
                },
            },
            # g5.12xlarge: 48 vCPU, 192 GiB, 4 GPUs; three nodes at most.
            "limits": {"cpu": "144", "memory": "589824Mi", "nvidia.com/gpu": "12"},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
        },
    }
    assert plan.node_labels["karpenter.sh/nodepool"] == "train"


def test_spot_without_fallback_admits_spot_only_and_batch_never_consolidates_running_nodes():
    plan = translate_karpenter_pool(kpool(name="jobs", pool_class="batch", instance_types=["m6i.xlarge", "m6i.2xlarge"],
                                          capacity="spot", max_nodes=10), CTX, "node-role")
    spec = plan.node_pool["spec"]
    assert spec["template"]["spec"]["requirements"][0]["values"] == ["spot"]
    assert spec["disruption"] == {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"}
    # The largest listed type (m6i.2xlarge: 8 vCPU, 32 GiB) times max_nodes; no GPU limit on a CPU pool.
    assert spec["limits"] == {"cpu": "80", "memory": "327680Mi"}
    assert spec["template"]["spec"]["taints"] == [
        {"key": "nodepools.io/pool-class", "value": "batch", "effect": "NoSchedule"}]


@pytest.mark.parametrize("pool_class,types", [("gpu-inference", ["g6.xlarge"]), ("resident", ["m6i.large"])])
def test_always_on_classes_are_on_demand_and_consolidate_one_node_at_a_time(pool_class, types):
    plan = translate_karpenter_pool(kpool(name="p", pool_class=pool_class, instance_types=types, dedicated=True),
                                    CTX, "node-role")
    spec = plan.node_pool["spec"]
    assert spec["template"]["spec"]["requirements"][0] == {
        "key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}
    assert spec["disruption"] == {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "10m",
                                  "budgets": [{"nodes": "1"}]}


def test_arm_pool_requires_arm64_and_expire_after_follows_the_spec():
    plan = translate_karpenter_pool(kpool(name="arm", pool_class="batch", instance_types=["m7g.xlarge"],
                                          karpenter={"expire_after_hours": 168}), CTX, "r")
    tmpl = plan.node_pool["spec"]["template"]["spec"]
    assert tmpl["requirements"][2] == {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}
    assert tmpl["expireAfter"] == "168h"


def test_ec2_node_class_exact():
    ctx = EksContext(cluster_name="prod", subnet_ids=("subnet-000000a0",), cluster_security_group_id="sg-00000c1a",
                     node_security_group_ids=("sg-000000e0",), tags={"team": "ml"}, ebs_kms_key_arn="arn:aws:kms:k")
    plan = translate_karpenter_pool(kpool(name="infer", pool_class="gpu-inference", instance_types=["g6.xlarge"]),
                                    ctx, "prod-karpenter-node")
    assert plan.node_class == {
        "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
        "metadata": {"name": "infer", "labels": {"nodepools.io/pool": "infer", "nodepools.io/pool-class": "gpu-inference"}},
        "spec": {
            "instanceProfile": "prod-karpenter-node",
            "amiSelectorTerms": [{"alias": "al2023@v20260520"}],
            "subnetSelectorTerms": [{"id": "subnet-000000a0"}],
            "securityGroupSelectorTerms": [{"id": "sg-00000c1a"}, {"id": "sg-000000e0"}],
            "associatePublicIPAddress": False,
            "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                "httpPutResponseHopLimit": 1, "httpTokens": "required"},
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {
                "volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True, "deleteOnTermination": True,
                "kmsKeyID": "arn:aws:kms:k"}}],
            "tags": {"team": "ml", "nodepools.io/pool": "infer", "nodepools.io/pool-class": "gpu-inference"},
        },
    }


def test_pool_subnets_override_the_clusters():
    plan = translate_karpenter_pool(kpool(name="b", pool_class="batch", instance_types=["m6i.large"],
                                          subnet_ids=["subnet-000000c0"]), CTX, "r")
    assert plan.node_class["spec"]["subnetSelectorTerms"] == [{"id": "subnet-000000c0"}]


def test_ami_alias_is_pinned_to_a_dated_release():
    assert AMI_ALIAS.startswith("al2023@v20") and len(AMI_ALIAS) == len("al2023@v20260520")


@pytest.mark.parametrize("fields", [
    {"name": "r", "pool_class": "resident", "instance_types": ["m6i.large"], "dedicated": True},
    {"name": "b", "pool_class": "batch", "instance_types": ["m7g.xlarge", "m7g.2xlarge"], "capacity": "spot",
     "karpenter": {"on_demand_fallback": True}, "labels": {"team": "data"},
     "taints": [{"key": "example.com/dedicated", "value": "etl", "effect": "NoExecute"}]},
    {"name": "i", "pool_class": "gpu-inference", "instance_types": ["g6e.2xlarge"], "max_nodes": 8},
    {"name": "t", "pool_class": "gpu-training", "instance_types": ["p5.48xlarge"], "disk_size_gib": 16384},
])
def test_every_object_validates_against_the_v1_14_1_crds(fields):
    plan = translate_karpenter_pool(kpool(**fields), CTX, "node-role")
    validate_karpenter(plan.node_pool)
    validate_karpenter(plan.node_class)


def test_the_schema_check_can_fail():
    plan = translate_karpenter_pool(kpool(name="b", pool_class="batch", instance_types=["m6i.large"]), CTX, "r")
    bad = {**plan.node_pool, "spec": {**plan.node_pool["spec"], "disruption": {"consolidationPolicy": "Sometimes",
                                                                                 "consolidateAfter": "1m"}}}
    with pytest.raises(jsonschema.ValidationError):
        validate_karpenter(bad)
    bad_tags = {**plan.node_class, "spec": {**plan.node_class["spec"], "tags": {"karpenter.sh/nodepool": "x"}}}
    with pytest.raises(AssertionError):
        validate_karpenter(bad_tags)


# ---- spec rules ---------------------------------------------------------------

def messages(err: ValidationError) -> dict[str, str]:
    return {".".join(map(str, e["loc"])): e["msg"] for e in err.errors()}


def test_provisioner_must_be_managed_or_karpenter():
    with pytest.raises(ValidationError) as err:
        PoolSpec(name="b", pool_class="batch", instance_types=["m6i.large"], provisioner="fargate")
    assert messages(err.value) == {"provisioner": "Input should be 'managed' or 'karpenter'"}


def test_default_provisioner_is_managed():
    assert PoolSpec(name="b", pool_class="batch", instance_types=["m6i.large"]).provisioner.value == "managed"


def test_karpenter_options_on_a_managed_pool_are_refused():
    with pytest.raises(ValidationError) as err:
        PoolSpec(name="b", pool_class="batch", instance_types=["m6i.large"], karpenter={"expire_after_hours": 24})
    assert messages(err.value)["karpenter"].startswith(
        "karpenter options apply only to provisioner 'karpenter' (this pool's provisioner is 'managed'")


def test_fallback_needs_spot_and_compact_needs_a_managed_group():
    with pytest.raises(ValidationError) as err:
        kpool(name="t", pool_class="gpu-training", instance_types=["g5.xlarge"], capacity="on-demand",
              placement="compact", karpenter={"on_demand_fallback": True})
    got = messages(err.value)
    assert got["karpenter.on_demand_fallback"] == ("on_demand_fallback needs capacity 'spot' (a fallback from spot "
                                                   "to on-demand; this pool's capacity is 'on-demand')")
    assert got["placement"].startswith("placement 'compact' needs a cluster placement group, which only a managed")


def test_spot_is_still_refused_for_inference():
    with pytest.raises(ValidationError) as err:
        kpool(name="i", pool_class="gpu-inference", instance_types=["g6.xlarge"], capacity="spot")
    assert "capacity" in messages(err.value)


def test_a_karpenter_only_cluster_is_refused_naming_the_field():
    with pytest.raises(ValidationError) as err:
        ClusterPools(cloud="aws", pools=[kpool(name="sys", pool_class="resident", instance_types=["m6i.large"]),
                                         kpool(name="b", pool_class="batch", instance_types=["m6i.large"])])
    assert messages(err.value) == {"pools.0.provisioner": (
        "pool 'sys' is the cluster's system pool (its resident pool, where the add-ons and the Karpenter controller "
        "run) and must be a managed node group: Karpenter must not provision the nodes it runs on; set provisioner: "
        "managed, or add a resident pool with provisioner: managed")}


def test_a_managed_resident_pool_is_the_system_pool_even_when_a_karpenter_resident_is_untainted():
    pools = ClusterPools(cloud="aws", pools=[
        kpool(name="web", pool_class="resident", instance_types=["m6i.large"]),
        PoolSpec(name="sys", pool_class="resident", instance_types=["m6i.large"], dedicated=True)])
    assert pools.system_pool.name == "sys"


def test_karpenter_is_refused_on_gke():
    with pytest.raises(ValidationError) as err:
        ClusterPools(cloud="gcp", pools=[
            PoolSpec(name="sys", pool_class="resident", instance_types=["n2-standard-4"]),
            kpool(name="b", pool_class="batch", instance_types=["n2-standard-8"])])
    assert messages(err.value)["pools.1.provisioner"] == (
        "provisioner 'karpenter' is for EKS clusters only (this cluster is on gcp; allowed here: managed)")
