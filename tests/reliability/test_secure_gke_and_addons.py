"""Secure by default on GKE, and for the add-ons of both clouds: shielded private
nodes that hide their identity from pods, a dedicated least-privilege account per
pool, Helm charts and images pinned to exact versions.
"""
import re

import pytest

from nodepools import vocabulary as v
from nodepools.offline.engine import run_program, run_program_capture
from nodepools.spec import describe

from reliability_programs import aws_pools, eks_target, gcp_pools, gke_target, platform_program, rejected, under, wire

POOLS = ("web", "jobs", "infer", "train")
GCP_ACCOUNT = "gcp:serviceaccount/account:Account"
GCP_MEMBER = "gcp:projects/iAMMember:IAMMember"


# ---- GKE nodes -----------------------------------------------------------------

@pytest.mark.parametrize("pool", POOLS)
def test_gke_nodes_are_shielded_private_and_hide_the_node_identity(gke_up, pool):
    [node_pool] = under(gke_up, pool, v.TYPE_GKE_NODE_POOL)
    inputs = wire(node_pool)
    config = inputs["nodeConfig"]
    assert config["shieldedInstanceConfig"] == {"enableSecureBoot": True, "enableIntegrityMonitoring": True}
    assert config["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert config["metadata"] == {"disable-legacy-endpoints": "true"}
    assert config["imageType"] == "COS_CONTAINERD"
    assert inputs["networkConfig"] == {"enablePrivateNodes": True}


@pytest.mark.parametrize("pool", POOLS)
def test_gke_nodes_run_as_a_dedicated_account_with_one_role(gke_up, pool):
    [node_pool] = under(gke_up, pool, v.TYPE_GKE_NODE_POOL)
    [account] = under(gke_up, pool, GCP_ACCOUNT)
    [member] = under(gke_up, pool, GCP_MEMBER)
    email = f"{wire(account)['accountId']}@fake-project.iam.gserviceaccount.com"
    assert re.fullmatch(rf"np-{pool}-[0-9a-f]{{6}}", wire(account)["accountId"])
    assert wire(node_pool)["nodeConfig"]["serviceAccount"] == email
    assert wire(member) == {"project": "nodepools-prod-1234", "role": "roles/container.defaultNodeServiceAccount",
                            "member": f"serviceAccount:{email}"}
    # Access comes from the account's roles; the scope only stops being a second filter.
    assert wire(node_pool)["nodeConfig"]["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    # Nodes report logs and metrics from their first boot: the grant exists before the pool.
    assert member.urn in node_pool.dependencies


def test_a_customer_kms_key_encrypts_every_gke_boot_disk():
    key = "projects/nodepools-prod-1234/locations/us-central1/keyRings/nodes/cryptoKeys/boot"
    run = run_program(platform_program(lambda: gke_target(boot_disk_kms_key=key), gcp_pools()))
    pools = run.of_type(v.TYPE_GKE_NODE_POOL)
    assert len(pools) == 4
    assert {wire(p)["nodeConfig"]["bootDiskKmsKey"] for p in pools} == {key}


def test_accounts_are_distinct_per_pool(gke_up):
    emails = [wire(p)["nodeConfig"]["serviceAccount"] for p in gke_up.of_type(v.TYPE_GKE_NODE_POOL)]
    assert len(set(emails)) == 4


@pytest.mark.parametrize("account", ["123456789012-compute@developer.gserviceaccount.com", "not-an-email"])
def test_the_compute_engine_default_account_is_refused(account):
    program = platform_program(lambda: gke_target(node_service_account=account), gcp_pools())
    assert rejected(program) == [
        f"node_service_account: {account!r} is not allowed: give the email of a dedicated service account "
        "(never the Compute Engine default '<number>-compute@developer.gserviceaccount.com'), or None to let "
        "each pool create its own"]


def test_basic_roles_are_refused_for_node_accounts():
    program = platform_program(lambda: gke_target(extra_node_roles=["roles/artifactregistry.reader", "roles/editor"]),
                               gcp_pools())
    assert rejected(program) == [
        "extra_node_roles[1]: role 'roles/editor' is a basic role, far broader than nodes need "
        "(refused: roles/editor, roles/owner, roles/viewer)"]


# ---- add-ons: charts and images pinned ------------------------------------------------

EXACT = re.compile(r"^\d+\.\d+\.\d+$")


def image_tags(values):
    """Every ``image.tag`` anywhere in a chart's values."""
    if isinstance(values, dict):
        image = values.get("image")
        found = [image["tag"]] if isinstance(image, dict) and "tag" in image else []
        return found + [t for val in values.values() for t in image_tags(val)]
    if isinstance(values, list):
        return [t for val in values for t in image_tags(val)]
    return []


@pytest.mark.parametrize("cloud, expected", [
    ("aws", {"nvidia-device-plugin": "0.20.0", "cluster-autoscaler": "9.59.0", "kueue": "0.19.2"}),
    ("gcp", {"kueue": "0.19.2"}),
])
def test_every_chart_is_pinned_to_an_exact_version(eks_up, gke_up, cloud, expected):
    run = eks_up if cloud == "aws" else gke_up
    releases = {r.inputs["name"]: wire(r) for r in run.of_type(v.TYPE_HELM_RELEASE)}
    assert {name: rel["version"] for name, rel in releases.items()} == expected
    for name, rel in releases.items():
        # A chart comes from one fixed HTTPS repository or OCI registry, never a local path.
        source = rel.get("repositoryOpts", {}).get("repo") or rel["chart"]
        assert source.startswith(("https://", "oci://")), name
        for tag in image_tags(rel["values"]):
            assert re.fullmatch(r"v?\d+\.\d+\.\d+", tag), (name, tag)


def test_the_autoscaler_image_is_pinned_to_its_release(eks_up):
    [chart] = [r for r in eks_up.of_type(v.TYPE_HELM_RELEASE) if r.inputs["name"] == "cluster-autoscaler"]
    # The autoscaler release of the cluster's Kubernetes minor (guardrails default 1.35).
    assert image_tags(wire(chart)["values"]) == ["v1.35.2"]


@pytest.mark.parametrize("charts, expected", [
    ({"kueue": "0.19"}, "guardrails.charts.kueue: chart version '0.19' must be an exact version MAJOR.MINOR.PATCH "
     "(ranges would let an add-on change under a running cluster)"),
    ({"nvidia_device_plugin": "^0.20.0"}, "guardrails.charts.nvidia_device_plugin: chart version '^0.20.0' must be "
     "an exact version MAJOR.MINOR.PATCH (ranges would let an add-on change under a running cluster)"),
    ({"cluster_autoscaler_image": "latest"}, "guardrails.charts.cluster_autoscaler_image: image tag 'latest' must "
     "look like vMAJOR.MINOR.PATCH"),
])
def test_floating_versions_are_refused_before_anything_registers(charts, expected):
    program = platform_program(eks_target, aws_pools(), guardrails={"charts": charts}, region="us-west-2")
    run, error = run_program_capture(program)
    assert describe(error) == [expected]
    assert run.resources == []
