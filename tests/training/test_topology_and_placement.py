"""Which training pools carry their cloud's topology labels and get compact placement by default,
and the exact provider inputs that follow (docs/design.md section 9.3)."""
import pytest
from pydantic import ValidationError

from nodepools.backends.aws.checks import eks_pool_problems
from nodepools.backends.aws.translate import EksContext, translate_pool
from nodepools.backends.gcp import GkeContext, translate
from nodepools.clouds.topology import (AWS_FOUR_LAYER, AWS_THREE_LAYER, GKE_HOST, choose_placement, compact_supported,
                                       labelled_family, pool_topology)
from nodepools.spec import PoolSpec, describe
from nodepools.vocabulary import Cloud

CTX = EksContext(cluster_name="prod", subnet_ids=("subnet-0000000a", "subnet-0000000b"), cluster_security_group_id="sg-0000000c")
GKE = GkeContext(project="my-project", location="us-central1", default_zones=("us-central1-b", "us-central1-c"))


def training(**fields) -> PoolSpec:
    return PoolSpec(**{"name": "train", "pool_class": "gpu-training", "instance_types": ["p4d.24xlarge"], **fields})


@pytest.mark.parametrize("types, family", [
    (["p4d.24xlarge"], AWS_THREE_LAYER), (["p5.48xlarge"], AWS_THREE_LAYER), (["g6e.12xlarge"], AWS_THREE_LAYER),
    (["p6-b200.48xlarge"], AWS_FOUR_LAYER),
    (["g6.12xlarge"], None), (["g5.48xlarge"], None),  # EC2 reports no topology for g5/g6
    (["p4d.24xlarge", "g6.12xlarge"], None),  # a node of the pool may lack the labels
    (["p5.48xlarge", "p6-b200.48xlarge"], None),  # three layers on some nodes, four on others
])
def test_eks_labels_follow_the_instance_types_ec2_reports_a_topology_for(types, family):
    assert labelled_family(Cloud.AWS, types, compact=False) == family


def test_aws_levels_are_broadest_first_with_the_hostname_last():
    assert AWS_THREE_LAYER.levels == ("topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
                                      "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname")
    assert AWS_FOUR_LAYER.levels[-2:] == ("topology.k8s.aws/network-node-layer-4", "kubernetes.io/hostname")
    assert GKE_HOST.levels == ("cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock",
                               "cloud.google.com/gce-topology-host", "kubernetes.io/hostname")


@pytest.mark.parametrize("machine, compact, labelled", [
    ("a3-highgpu-8g", False, True), ("a3-megagpu-8g", False, True),
    ("a3-highgpu-4g", False, False),  # Compute Engine reports the topology of A3 High with 8 GPUs only
    ("a2-highgpu-8g", False, False), ("a2-highgpu-8g", True, True),  # any VM under a compact placement policy
])
def test_gke_labels_follow_the_machine_type_or_an_explicit_compact_placement(machine, compact, labelled):
    assert (labelled_family(Cloud.GCP, [machine], compact) is GKE_HOST) is labelled


def test_gke_counts_only_compact_asked_for_explicitly():
    assert pool_topology(training(instance_types=["a2-highgpu-8g"]), Cloud.GCP) is None  # the default may not apply
    assert pool_topology(training(instance_types=["a2-highgpu-8g"], placement="compact"), Cloud.GCP) is GKE_HOST
    assert pool_topology(training(network_topology="off"), Cloud.AWS) is None


@pytest.mark.parametrize("cloud, machine, ok", [
    (Cloud.AWS, "p4d.24xlarge", True), (Cloud.AWS, "m7i.xlarge", True), (Cloud.AWS, "t3.large", False),
    (Cloud.AWS, "t4g.medium", False), (Cloud.AWS, "m7i-flex.large", False),
    (Cloud.GCP, "a2-highgpu-1g", True), (Cloud.GCP, "g2-standard-8", True), (Cloud.GCP, "n2-standard-8", True),
    (Cloud.GCP, "e2-standard-8", False), (Cloud.GCP, "n1-standard-8", False),
])
def test_which_types_can_be_placed_compactly(cloud, machine, ok):
    assert compact_supported(cloud, machine) is ok


@pytest.mark.parametrize("fields, compact, by_default", [
    ({}, True, True),  # multi-node training (default max 4)
    ({"max_nodes": 1}, False, False),
    ({"placement": "spread"}, False, False),  # the opt-out
    ({"placement": "compact", "subnet_ids": ["subnet-000000ff"]}, True, False),
    ({"pool_class": "batch", "instance_types": ["c7i.2xlarge"]}, False, False),  # the default is for training only
    ({"provisioner": "karpenter"}, False, False),
])
def test_the_default_is_compact_for_multi_node_training_only(fields, compact, by_default):
    choice = choose_placement(training(**fields), Cloud.AWS)
    assert (choice.compact, choice.by_default) == (compact, by_default)


def test_network_topology_on_another_class_is_refused_naming_the_field():
    with pytest.raises(ValidationError) as err:
        PoolSpec(name="jobs", pool_class="batch", instance_types=["c7i.2xlarge"], network_topology="auto")
    assert describe(err.value) == ["network_topology: network_topology is for pool_class gpu-training only "
                                   "(allowed there: auto, off); this pool's pool_class is batch: remove network_topology"]


# --- EKS ------------------------------------------------------------------------------------

def test_eks_default_compact_takes_the_first_subnet_and_ignores_what_it_set_after_creation():
    plan = translate_pool(training(), CTX)
    assert plan.placement_group == {"strategy": "cluster", "tags": {
        "nodepools.io/pool": "train", "nodepools.io/pool-class": "gpu-training"}}
    assert plan.node_group["subnet_ids"] == ["subnet-0000000a"]
    assert plan.node_group_ignore_changes == ("scalingConfig.desiredSize", "subnetIds")
    assert plan.launch_template_ignore_changes == ("placement",)


def test_eks_default_compact_keeps_a_pools_own_single_subnet_and_spreads_over_several():
    own = translate_pool(training(subnet_ids=["subnet-000000ff"]), CTX)
    assert (own.node_group["subnet_ids"], own.node_group_ignore_changes, own.launch_template_ignore_changes) == (
        ["subnet-000000ff"], ("scalingConfig.desiredSize",), ("placement",))
    several = translate_pool(training(subnet_ids=["subnet-000000dd", "subnet-000000ff"]), CTX)
    assert (several.placement_group, several.node_group["subnet_ids"]) == (None, ["subnet-000000dd", "subnet-000000ff"])


def test_eks_explicit_compact_is_applied_as_given_and_spread_is_untouched():
    explicit = translate_pool(training(placement="compact", subnet_ids=["subnet-000000ff"]), CTX)
    assert (explicit.placement_group["strategy"], explicit.node_group_ignore_changes,
            explicit.launch_template_ignore_changes) == ("cluster", ("scalingConfig.desiredSize",), ())
    spread = translate_pool(training(placement="spread"), CTX)
    assert (spread.placement_group, spread.node_group["subnet_ids"], spread.launch_template_ignore_changes) == (
        None, ["subnet-0000000a", "subnet-0000000b"], ())


def test_eks_compact_on_a_type_without_cluster_placement_groups_is_refused():
    pool = PoolSpec(name="jobs", pool_class="batch", instance_types=["t3.2xlarge"], placement="compact",
                    subnet_ids=["subnet-000000ff"], custom_capacity={"t3.2xlarge": {"vcpu": 8, "memory_gib": 32}})
    assert _lines(eks_pool_problems(pool, CTX)) == [
        "instance_types[0]: placement 'compact' needs a cluster placement group, which 't3.2xlarge' cannot join "
        "(allowed: current-generation types except burstable t2/t3/t4g, mac and *-flex types); choose such a type or "
        "placement 'spread'"]


def _lines(problems) -> list[str]:
    try:
        problems.raise_if_any("x")
    except ValidationError as err:
        return describe(err)
    return []


# --- GKE ------------------------------------------------------------------------------------

def test_gke_default_compact_pins_the_first_zone_and_ignores_what_it_set_after_creation():
    plan = translate(training(instance_types=["a2-highgpu-8g"]), GKE)
    assert (plan.args["placement_policy"], plan.args["node_locations"]) == ({"type": "COMPACT"}, ["us-central1-b"])
    assert plan.ignore_changes == ("initialNodeCount", "nodeCount", "placementPolicy", "nodeLocations")


@pytest.mark.parametrize("zones, ctx, expected", [
    (["us-central1-c"], GKE, ({"type": "COMPACT"}, ["us-central1-c"], ("placementPolicy",))),
    (["us-central1-b", "us-central1-c"], GKE, (None, ["us-central1-b", "us-central1-c"], ())),
    ([], GkeContext(project="my-project", location="us-central1"), (None, None, ())),  # no zone known to pin
    ([], GkeContext(project="my-project", location="us-central1-f"), ({"type": "COMPACT"}, None, ("placementPolicy",))),
])
def test_gke_default_compact_needs_one_zone(zones, ctx, expected):
    plan = translate(training(instance_types=["a2-highgpu-8g"], zones=zones), ctx)
    assert (plan.args.get("placement_policy"), plan.args.get("node_locations"), plan.ignore_changes[2:]) == expected
