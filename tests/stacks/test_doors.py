"""The stack program's doors (issue 26): the provider's region must be the cluster's, secret
config stays secret in the exports and out of every message, and every in-cluster object
goes through the cluster's own Kubernetes provider."""
import runpy
from pathlib import Path

import pytest

from nodepools.config import StackConfigError
from nodepools.offline.engine import run_program_capture
from nodepools.pack.wire import SECRET_SIG, SIG_KEY

PROGRAM = Path(__file__).resolve().parents[2] / "stacks" / "__main__.py"


def refused(run_stack, config):
    run, error = run_stack(config)
    assert isinstance(error, StackConfigError), error
    assert [r.type for r in run.resources if r.type != "pulumi:pulumi:Stack"] == []
    return error.lines


MISMATCHES = {
    "aws region differs": ("aws-dev", {"aws:region": "eu-west-1"}, [
        "aws:region: 'eu-west-1' differs from nodepools:cluster.region 'us-west-2': the AWS provider would create "
        "the cluster's resources in one region while the autoscaler, kubeconfig and outputs name the other; make "
        "them equal"]),
    "aws region unset": ("aws-dev", {"aws:region": None}, [
        "aws:region: not set; set it to the cluster's region 'us-west-2' (nodepools:cluster.region): unset, the AWS "
        "provider takes the deployer's environment's region (AWS_REGION) and the cluster's resources could go to "
        "another region than the one the autoscaler and kubeconfig name"]),
    "gcp project and region differ": ("gcp-dev", {"gcp:project": "someone-else-123", "gcp:region": "europe-west4"}, [
        "gcp:project: 'someone-else-123' differs from nodepools:cluster.project 'nodepools-dev-4821'; make them "
        "equal (or leave gcp:project unset: every resource names the cluster's project)",
        "gcp:region: 'europe-west4' is not the region of nodepools:cluster.location 'us-central1' (us-central1); "
        "make them agree (or leave gcp:region unset)"]),
    "gcp zone differs on a zonal cluster": ("gcp-dev", {"gcp:zone": "us-central1-b", "cluster.location": "us-central1-a",
                                                        "cluster.zones": ["us-central1-a"]}, [
        "gcp:zone: 'us-central1-b' differs from the zonal cluster's nodepools:cluster.location 'us-central1-a'; "
        "make them equal (or leave gcp:zone unset)"]),
}


def edited(config, edits):
    for key, value in edits.items():
        if key.startswith("cluster."):
            config["nodepools:cluster"][key.removeprefix("cluster.")] = value
        elif value is None:
            config.pop(key)
        else:
            config[key] = value
    return config


@pytest.mark.parametrize("case", sorted(MISMATCHES))
def test_a_provider_config_that_disagrees_with_the_cluster_is_refused(stack_config, run_stack, case):
    stack, edits, lines = MISMATCHES[case]
    assert refused(run_stack, edited(stack_config(stack), edits)) == lines


def test_gcp_provider_config_may_stay_unset(stack_config, run_stack):
    config = edited(stack_config("gcp-dev"), {"gcp:project": None, "gcp:region": None})
    run, error = run_stack(config)
    assert error is None, error


def run_secret(config, keys, preview=True):
    return run_program_capture(lambda: runpy.run_path(str(PROGRAM), run_name="__main__"), stack="test",
                               config=config, preview=preview, secret_keys=keys)


def is_secret(value):
    return isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_exports_built_from_a_secret_key_are_secrets(stack_config, preview):
    run, error = run_secret(stack_config("aws-dev"), ["nodepools:cluster"], preview)
    assert error is None, error
    assert sorted(name for name, value in run.outputs.items() if is_secret(value)) == [
        "alerts", "cluster", "layout", "pools"]
    assert run.outputs["pools"]["value"]["system"]["poolClass"] == "resident"
    if not preview:  # in a preview the created cluster's outputs are unknown
        assert run.outputs["cluster"]["value"]["region"] == "us-west-2"


def test_exports_of_plain_keys_stay_plain(stack_config):
    run, error = run_secret(stack_config("aws-dev"), ["nodepools:guardrails"])
    assert error is None, error
    assert sorted(name for name, value in run.outputs.items() if is_secret(value)) == ["alerts"]
    assert run.outputs["cluster"]["region"] == "us-west-2"


def test_no_error_message_quotes_a_secret_value(stack_config):
    config = stack_config("aws-dev")
    config["nodepools:cluster"].update(name="hunter2-cluster!", vpc_id="hunter2-vpc-0001")
    config["aws:region"] = "eu-west-1"
    _, error = run_secret(config, ["nodepools:cluster"])
    assert isinstance(error, StackConfigError), error
    assert error.lines == [
        "nodepools:cluster.name: cluster name a secret value is invalid: 1-100 letters, digits, '-' or '_', "
        "starting alphanumeric",
        "nodepools:cluster.vpc_id: a secret value is not a VPC id (vpc-<8 or 17 hex>)"]
    assert "hunter2" not in str(error)
    # The provider check quotes the cluster's region: a secret value too.
    config = stack_config("aws-dev")
    config["aws:region"] = "eu-west-1"
    _, error = run_secret(config, ["nodepools:cluster"])
    assert error.lines[0].startswith("aws:region: 'eu-west-1' differs from nodepools:cluster.region a secret value:")


def test_the_stack_program_sends_every_in_cluster_object_to_its_clusters_provider(stack_runs):
    for stack, run in stack_runs.items():
        (provider,) = run.of_type("pulumi:providers:kubernetes")
        in_cluster = [r for r in run.resources if r.type.startswith("kubernetes:")]
        assert in_cluster and {r.provider.rsplit("::", 1)[0] for r in in_cluster} == {provider.urn}, stack
