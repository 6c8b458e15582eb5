"""The stack config schema: every bad field reported at once, by its config path."""
import pytest

from nodepools.config import Layout, StackConfigError, layout_verdict, load_stack_config, namespaced
from nodepools.spec import PoolSpec


def problems(raw: dict) -> list[str]:
    with pytest.raises(StackConfigError) as info:
        load_stack_config(namespaced(raw))
    return info.value.lines


def test_default_stacks_validate_into_the_spec(stack_config):
    dev, prod, gcp = (load_stack_config(namespaced(stack_config(s))) for s in ("aws-dev", "aws-prod", "gcp-dev"))
    assert [(p.name, p.pool_class.value, p.capacity.value, p.min_nodes, p.max_nodes) for p in dev.pools] == [
        ("system", "resident", "on-demand", 2, 4), ("batch", "batch", "spot", 0, 6),
        ("inference", "gpu-inference", "on-demand", 1, 2), ("training", "gpu-training", "spot", 0, 2)]
    inference = {p.name: p for p in prod.pools}["inference"]
    assert inference.min_nodes >= 2 and len(prod.cluster.subnet_ids) > len(dev.cluster.subnet_ids)
    assert sum(p.max_nodes for p in prod.pools) > sum(p.max_nodes for p in dev.pools)
    assert (gcp.cloud.value, gcp.cluster.mode, gcp.cluster.release_channel) == ("gcp", "create", "REGULAR")


def test_every_bad_field_is_listed_with_its_config_path(stack_config):
    raw = stack_config("aws-dev")
    pools = raw["nodepools:pools"]
    pools[0]["instance_types"] = ["m9z.huge"]
    pools[1].update(min_nodes=8, max_nodes=6)
    pools[2]["capacity"] = "spot"
    pools[3]["max_nodes"] = "two"
    raw["nodepools:cluster"]["subnet_ids"] = ["subnet-0a1b2c3d4e5f60701"]
    assert problems(raw) == [
        "nodepools:cluster.subnet_ids: List should have at least 2 items after validation, not 1",
        "nodepools:pools[0].instance_types[0]: unknown instance type 'm9z.huge': it is not in the instance table "
        "(nodepools.spec.instances); give its capacity in custom_capacity['m9z.huge'] (vcpu, memory_gib, "
        "gpu_count, gpu_model)",
        "nodepools:pools[1].min_nodes: min_nodes (8) must be <= max_nodes (6)",
        "nodepools:pools[2].capacity: capacity 'spot' is not allowed for class gpu-inference (allowed: on-demand): "
        "it must not be interrupted",
        "nodepools:pools[3].max_nodes: Input should be a valid integer",
    ]


def test_unknown_class_reports_the_class_only(stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"][1]["pool_class"] = "bulk"
    assert problems(raw) == ["nodepools:pools[1].pool_class: Input should be 'resident', 'batch', 'gpu-inference' "
                             "or 'gpu-training'"]


def test_top_level_keys_cloud_and_layout(stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:layout"] = "mesh"
    raw["nodepools:pool"] = []
    raw["nodepools:cluster"]["cloud"] = "azure"
    assert problems(raw) == [
        "nodepools:cluster.cloud: cloud must be one of: aws, gcp (got azure)",
        "nodepools:layout: Input should be 'flat' or 'specialized'",
        "nodepools:pool: unknown config key (allowed: nodepools:cluster, nodepools:layout, nodepools:pools, "
        "nodepools:guardrails, nodepools:example)",
    ]


def test_flat_layout_means_one_pool_class(stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:layout"] = "flat"
    assert problems(raw) == ["nodepools:layout: layout 'flat' means one pool class for all work, but the pools "
                             "have classes resident, batch, gpu-inference, gpu-training; use layout 'specialized' "
                             "(allowed: flat, specialized)"]


def test_pools_of_the_other_cloud_are_refused(stack_config):
    raw = stack_config("gcp-dev")
    raw["nodepools:pools"][0]["instance_types"] = ["m7i.xlarge"]
    assert problems(raw) == ["nodepools:pools[0].instance_types: instance types ['m7i.xlarge'] are aws types, "
                             "but this cluster is on gcp"]


@pytest.mark.parametrize("cluster, expected", [
    ({"mode": "attach"}, "nodepools:cluster.mode: mode 'attach' needs exactly one way to reach the cluster"),
    ({"mode": "attach", "kubeconfig_context": "prod", "kms_key_arn": "arn:aws:kms:us-west-2:111122223333:key/x"},
     "nodepools:cluster.kms_key_arn: kms_key_arn is for mode 'create' only"),
    ({"endpoint": "https://x"}, "nodepools:cluster.endpoint: endpoint is for mode 'attach' only"),
    ({"endpoint_public_access": True}, "nodepools:cluster.public_access_cidrs: a public endpoint must name"),
    ({"region": "mars-1"}, "nodepools:cluster.region: region 'mars-1' is not an AWS region"),
    ({"subnet_ids": ["subnet-0a1b2c3d4e5f60701", "sn-2"]}, "nodepools:cluster.subnet_ids[1]: 'sn-2' is not a subnet"),
    ({"kubernetes_version": "1.29"}, "nodepools:cluster.kubernetes_version: kubernetes_version '1.29' is not supported"),
    ({"endpoint_protection": True}, "nodepools:cluster.endpoint_protection: unknown field"),
])
def test_cluster_settings_name_their_field(stack_config, cluster, expected):
    raw = stack_config("aws-dev")
    raw["nodepools:cluster"].update(cluster)
    found = problems(raw)
    assert any(line.startswith(expected) for line in found), found


def test_gke_create_needs_networking_ids(stack_config):
    raw = stack_config("gcp-dev")
    del raw["nodepools:cluster"]["network"], raw["nodepools:cluster"]["pods_range_name"]
    assert problems(raw) == [
        "nodepools:cluster.network: network is required to create a cluster (mode 'create')",
        "nodepools:cluster.pods_range_name: pods_range_name is required to create a cluster (mode 'create')"]


def pools(*specs):
    return [PoolSpec(name=f"p{i}", pool_class=c, instance_types=[t], min_nodes=1 if c in ("resident", "gpu-inference")
                     else 0, max_nodes=n) for i, (c, t, n) in enumerate(specs)]


@pytest.mark.parametrize("layout, specs, recommended, agrees", [
    ("flat", [("resident", "m7i.xlarge", 8)], "flat", True),
    ("specialized", [("resident", "m7i.xlarge", 8)], "flat", False),
    ("specialized", [("resident", "m7i.xlarge", 4), ("gpu-inference", "g6.xlarge", 2)], "specialized", True),
    ("specialized", [("resident", "m7i.xlarge", 10), ("batch", "c7i.xlarge", 10)], "specialized", True),
    ("specialized", [("resident", "m7i.xlarge", 6), ("batch", "c7i.xlarge", 6)], "either", True),
    ("flat", [("resident", "m7i.xlarge", 30)], "either", True),
])
def test_rule_of_thumb(layout, specs, recommended, agrees):
    verdict = layout_verdict(Layout(layout), pools(*specs))
    assert (verdict.recommended, verdict.agrees, verdict.warning is None) == (recommended, agrees, agrees)


def test_contradicting_layout_warns_with_the_reason():
    verdict = layout_verdict(Layout.SPECIALIZED, pools(("resident", "m7i.xlarge", 6)))
    assert verdict.warning == ("layout 'specialized' contradicts the rule of thumb, which calls for 'flat' here: "
                               "6 nodes at most of uniform work (resident only): flat suits ~10 nodes of uniform "
                               "work; more pools only add idle capacity.")


def test_unknown_field_lists_the_allowed_ones(stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"][0]["min_size"] = 1
    raw["nodepools:guardrails"] = {"alerts": {"enable": False}}
    assert problems(raw) == [
        "nodepools:pools[0].min_size: unknown field (allowed: name, pool_class, instance_types, capacity, min_nodes, "
        "max_nodes, gpu, disk_size_gib, zones, subnet_ids, labels, taints, dedicated, placement, custom_capacity, provisioner, karpenter, gpu_sharing, network_topology, warm, repair)",
        "nodepools:guardrails.alerts.enable: unknown field (allowed: enabled, backend, namespace, rule_labels, "
        "alarm_actions, cpu_throttling_ratio, cpu_steal_ratio, for_minutes)"]


def test_a_bad_cluster_version_is_reported_once_at_the_key_written(stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:cluster"]["kubernetes_version"] = "1.20"
    assert problems(raw) == ["nodepools:cluster.kubernetes_version: kubernetes_version '1.20' is not supported "
                             "(allowed: 1.32, 1.33, 1.34, 1.35, 1.36)"]


def test_a_bad_mapping_key_is_named_by_its_path(stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:guardrails"] = {"namespaces": {"serving": "inference"}}
    assert problems(raw) == ["nodepools:guardrails.namespaces.serving: Input should be 'resident', 'batch', "
                             "'gpu-inference' or 'gpu-training'"]
