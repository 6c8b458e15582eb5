"""GKE-specific validation: exact messages, all problems at once, and nothing registered."""
import pytest
from pydantic import ValidationError

from nodepools.backends.gcp import GkeCluster
from nodepools.components.pools import NodePool
from nodepools.offline.engine import run_program_capture
from nodepools.spec import PoolSpec, describe
from nodepools.clouds.regions import GCP_REGIONS


def cluster(**kw) -> GkeCluster:
    return GkeCluster("main", **{"location": "us-central1", "project": "my-project", **kw})


def pool_errors(target: GkeCluster | None = None, **fields) -> list[str]:
    spec = PoolSpec(**{"name": "jobs", "pool_class": "batch", "instance_types": ["n2-standard-8"], **fields})
    with pytest.raises(ValidationError) as info:
        (target or cluster()).check_pool(spec)
    return describe(info.value)


def cluster_errors(**kw) -> list[str]:
    with pytest.raises(ValidationError) as info:
        cluster(**kw)
    return describe(info.value)


def test_aws_instance_types_are_refused_with_gcp_examples():
    assert pool_errors(instance_types=["m6i.xlarge"]) == [
        "instance_types[0]: 'm6i.xlarge' is an AWS instance type; a GKE pool needs a Compute Engine machine type "
        "(e.g. n2-standard-4, c3-standard-8, g2-standard-8, a2-highgpu-1g)"]


def test_a_gke_pool_takes_exactly_one_machine_type():
    assert pool_errors(instance_types=["n2-standard-8", "n2-standard-16"]) == [
        "instance_types: a GKE node pool takes exactly one machine type (got 2: n2-standard-8, n2-standard-16); "
        "create one pool per machine type"]


def test_custom_type_must_look_like_a_machine_type():
    assert pool_errors(instance_types=["Big.Box"], custom_capacity={"Big.Box": {"vcpu": 4, "memory_gib": 16}}) == [
        "instance_types[0]: 'Big.Box' is not a Compute Engine machine type name (lowercase "
        "<series>-<shape>-<size>, e.g. n2-standard-4)"]


def test_gpu_model_without_gke_accelerator_names_the_allowed_models():
    assert pool_errors(pool_class="gpu-training", instance_types=["n1-standard-8"], custom_capacity={
        "n1-standard-8": {"vcpu": 8, "memory_gib": 30, "gpu_count": 1, "gpu_model": "nvidia-a10g"}}) == [
        "instance_types: GPU model 'nvidia-a10g' is not offered on GKE "
        "(allowed: nvidia-t4, nvidia-l4, nvidia-a100, nvidia-a100-80gb, nvidia-h100)"]


def test_zones_subnets_and_name_are_checked_together():
    assert pool_errors(name="1jobs", zones=["us-east1-b", "uscentral"], subnet_ids=["subnet-00000001"]) == [
        "name: GKE node pool name '1jobs' must start with a lowercase letter (then lowercase letters, digits or "
        "'-', ending with a letter or digit)",
        "subnet_ids: GKE node pools take the cluster's subnetwork; choose placement with zones instead "
        "(allowed: empty subnet_ids)",
        "zones[0]: zone 'us-east1-b' is not in the cluster's region us-central1 (allowed: us-central1-<letter>)",
        "zones[1]: 'uscentral' is not a zone name (expected <region>-<letter>, e.g. us-central1-a)"]


def test_compact_placement_needs_one_zone_and_a_family_that_supports_it():
    assert pool_errors(placement="compact") == [
        "zones: placement 'compact' on GKE needs exactly one zone (the cluster location us-central1 is a region); "
        "give one zone of us-central1 in zones"]
    assert pool_errors(cluster(default_zones=["us-central1-a", "us-central1-b"]), placement="compact") == [
        "zones: placement 'compact' on GKE needs exactly one zone (the cluster's zones are us-central1-a, "
        "us-central1-b); give one zone of us-central1 in zones"]
    assert pool_errors(placement="compact", zones=["us-central1-a"], instance_types=["e2-standard-8"]) == [
        "placement: placement 'compact' is not supported on e2-standard-8 on GKE (allowed: a2, a3, c2, c2d, c3, "
        "c3d, c4a, c4d, c4n, g2, h3, h4d, n2, n2d, z4d machine series); use placement 'spread' or such a machine type"]
    cluster(location="us-central1-f").check_pool(PoolSpec(
        name="jobs", pool_class="batch", instance_types=["n2-standard-8"], placement="compact"))


def test_cluster_arguments_are_validated_together():
    assert cluster_errors(project="My_Project", location="mars", resource_labels={"Team": "x", "nodepools-pool": "y"},
                          extra_node_roles=["roles/editor", "admin"]) == [
        "project: project 'My_Project' is not a GCP project id (6-30 lowercase letters, digits or '-', starting "
        "with a letter)",
        f"location: location 'mars' is not a GCP region or a zone of one (regions: {', '.join(GCP_REGIONS)})",
        "resource_labels.Team: GCP label key 'Team' is invalid: 1-63 lowercase letters, digits, '_' or '-', "
        "starting with a letter",
        "resource_labels['nodepools-pool']: resource label 'nodepools-pool' is set per pool and cannot be given "
        "(reserved: nodepools-pool, nodepools-pool-class)",
        "extra_node_roles[0]: role 'roles/editor' is a basic role, far broader than nodes need (refused: "
        "roles/editor, roles/owner, roles/viewer)",
        "extra_node_roles[1]: 'admin' is not an IAM role name (roles/..., projects/<id>/roles/... or "
        "organizations/<id>/roles/...)"]


def test_default_compute_service_account_and_driverless_gpus_are_refused():
    assert cluster_errors(node_service_account="123456789-compute@developer.gserviceaccount.com",
                          default_zones=["us-east1-b"]) == [
        "node_service_account: '123456789-compute@developer.gserviceaccount.com' is not allowed: give the email of "
        "a dedicated service account (never the Compute Engine default "
        "'<number>-compute@developer.gserviceaccount.com'), or None to let each pool create its own",
        "default_zones[0]: zone 'us-east1-b' is not in the cluster's region us-central1 "
        "(allowed: us-central1-<letter>)"]
    assert cluster_errors(node_service_account="nodes@my-project.iam.gserviceaccount.com",
                          extra_node_roles=["roles/artifactregistry.reader"]) == [
        "extra_node_roles: extra_node_roles are granted only to the service accounts pools create; with "
        "node_service_account given, grant roles to that account yourself (allowed: empty extra_node_roles)"]
    # A driver version that installs no driver is not even offered (docs/kubernetes-facts.md section 2).
    assert cluster_errors(gpu_driver_version="INSTALLATION_DISABLED") == [
        "gpu_driver_version: Input should be 'DEFAULT' or 'LATEST'"]


@pytest.mark.parametrize("build", [
    lambda c: NodePool("web", dict(pool_class="resident", instance_types=["m6i.xlarge"]), c),
    lambda c: NodePool("jobs", dict(pool_class="batch", instance_types=["n2-standard-8", "c3-standard-8"]), c),
    lambda c: NodePool("infer", dict(pool_class="gpu-inference", instance_types=["g2-standard-8"], subnet_ids=["s-1"]), c),
    lambda c: NodePool("train", dict(pool_class="gpu-training", instance_types=["a3-highgpu-8g"], placement="compact"), c),
    lambda c: NodePool("infer", dict(pool_class="gpu-inference", instance_types=["g2-standard-8"], capacity="spot"), c),  # spec-level
    lambda c: NodePool("web", {"pool_class": "resident", "instance_types": ["n2-standard-4"], "zones": ["x"]}, c),
])
def test_an_invalid_pool_registers_nothing(build):
    run, error = run_program_capture(lambda: build(cluster()))
    assert isinstance(error, ValidationError)
    assert run.resources == []


def test_a_bad_cluster_target_registers_nothing():
    run, error = run_program_capture(
        lambda: NodePool("web", dict(pool_class="resident", instance_types=["n2-standard-4"]), cluster(project="x")))
    assert isinstance(error, ValidationError)
    assert run.resources == []
