"""A corpus of bad stack configs: each stops the real program with its config path, registering nothing."""
import pytest

from nodepools.config import StackConfigError


def pool(i, **fields):
    return lambda raw: raw["nodepools:pools"][i].update(fields)


def cluster(**fields):
    return lambda raw: raw["nodepools:cluster"].update(fields)


def key(name, value):
    return lambda raw: raw.__setitem__(name, value)


CORPUS = [
    ("wrong type", "aws-dev", pool(1, max_nodes="six"),
     "nodepools:pools[1].max_nodes: Input should be a valid integer"),
    ("list given as string", "aws-dev", pool(0, instance_types="m7i.xlarge"),
     "nodepools:pools[0].instance_types: Input should be a valid list"),
    ("unknown class", "aws-dev", pool(2, pool_class="gpu-serving"),
     "nodepools:pools[2].pool_class: Input should be 'resident', 'batch', 'gpu-inference' or 'gpu-training'"),
    ("spot inference", "gcp-dev", pool(2, capacity="spot"),
     "nodepools:pools[2].capacity: capacity 'spot' is not allowed for class gpu-inference (allowed: on-demand)"),
    ("min > max", "aws-prod", pool(1, min_nodes=30),
     "nodepools:pools[1].min_nodes: min_nodes (30) must be <= max_nodes (24)"),
    ("unknown instance type without capacity", "aws-dev", pool(3, instance_types=["p6-b200.48xlarge"]),
     "nodepools:pools[3].instance_types[0]: unknown instance type 'p6-b200.48xlarge'"),
    ("bad layout", "aws-dev", key("nodepools:layout", "hybrid"),
     "nodepools:layout: Input should be 'flat' or 'specialized'"),
    ("flat layout with mixed classes", "gcp-dev", key("nodepools:layout", "flat"),
     "nodepools:layout: layout 'flat' means one pool class for all work"),
    ("missing key", "aws-dev", lambda raw: raw.pop("nodepools:pools"), "nodepools:pools: Field required"),
    ("unknown key", "aws-dev", key("nodepools:pool", []), "nodepools:pool: unknown config key"),
    ("unknown cloud", "aws-dev", cluster(cloud="azure"), "nodepools:cluster.cloud: cloud must be one of: aws, gcp"),
    ("public endpoint without CIDRs", "aws-dev", cluster(endpoint_public_access=True),
     "nodepools:cluster.public_access_cidrs: a public endpoint must name the CIDRs allowed to reach it"),
    ("other cloud's instance type", "aws-dev", pool(0, instance_types=["n2-standard-4"]),
     "nodepools:pools[0].instance_types: instance types ['n2-standard-4'] are gcp types, but this cluster is on aws"),
    ("guardrail out of range", "aws-dev", key("nodepools:guardrails", {"batch_quota_share": 0.8}),
     "nodepools:guardrails.batch_quota_share: batch_quota_share must be between 0.40 and 0.60"),
    ("guardrail version differs from the cluster", "aws-dev", key("nodepools:guardrails", {"kubernetes_version": "1.34"}),
     "nodepools:guardrails.kubernetes_version: guardrails.kubernetes_version '1.34' differs from the cluster's '1.35'"),
    # Rules of one cloud, checked by its pool target before the cluster registers.
    ("EKS pools are placed by subnets, not zones", "aws-dev", pool(1, zones=["us-west-2a"]),
     "nodepools:pools[1].zones: zones are not used on EKS"),
    ("GKE pools take one machine type", "gcp-dev", pool(1, instance_types=["n2-standard-8", "n2-standard-16"]),
     "nodepools:pools[1].instance_types: a GKE node pool takes exactly one machine type"),
]


@pytest.mark.parametrize("stack, mutate, expected", [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_bad_config_stops_before_anything_registers(stack_config, run_stack, stack, mutate, expected):
    raw = stack_config(stack)
    mutate(raw)
    run, error = run_stack(raw, stack=stack)
    assert isinstance(error, StackConfigError), error
    assert any(line.startswith(expected) for line in error.lines), error.lines
    assert str(error).startswith("stack config has ")
    assert run.resources == []


def test_one_error_lists_every_bad_field(stack_config, run_stack):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"][0]["min_nodes"] = 0
    raw["nodepools:pools"][2]["capacity"] = "spot"
    raw["nodepools:cluster"]["region"] = "west"
    run, error = run_stack(raw)
    assert [line.split(":")[0] + ":" + line.split(":")[1] for line in error.lines] == [
        "nodepools:cluster.region", "nodepools:pools[0].min_nodes", "nodepools:pools[2].capacity"]
    assert run.resources == []
