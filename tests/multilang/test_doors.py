"""Hostile or careless Construct calls: the wrong provider, outputs and unknowns where the
component needs plain values. Each is refused naming the input, before anything registers;
nothing reaches the default Kubernetes provider, no input silently takes its default, no
traceback. (issue 26)"""
import pytest
from pulumi.errors import InputPropertiesError
from pulumi.output import UNKNOWN, Unknown

from multilang_configs import EKS_WIRE, GKE_WIRE

EKS_OUTPUTS = ("clusterName, subnetIds[*], clusterSecurityGroupId, nodeSecurityGroupIds[*], nodeRoleArn, "
               "oidcProviderArn, oidcIssuerUrl, ebsKmsKeyArn")
NOT_PLAIN = ("{path} is an output (another resource's value, unknown until it exists, or a secret): it must be a "
             "plain value, as the inputs are checked before anything registers (outputs are taken by {allowed})")


def registered(got):
    """Every registration but the consuming program's own providers and resources."""
    return [r.type for r in got.run.resources if r.type.startswith(("nodepools:", "kubernetes:", "aws:eks", "gcp:"))]


def aws_provider():
    import pulumi_aws as aws
    return aws.Provider("aws", region="us-west-2")


WRONG_PROVIDERS = {
    "a string": (lambda: "~/.kube/config", "a string (a provider is a resource, not its kubeconfig or context name)"),
    "an AWS provider": (aws_provider, "a provider of type pulumi:providers:aws"),
}


@pytest.mark.parametrize("component", ["EksPlatform", "GkePlatform"])
@pytest.mark.parametrize("case", sorted(WRONG_PROVIDERS))
def test_a_kubernetes_provider_that_is_not_one_is_refused_by_name(construct, component, case):
    make, what = WRONG_PROVIDERS[case]
    got = construct(component, EKS_WIRE if component == "EksPlatform" else GKE_WIRE,
                    program=lambda: {"kubernetesProvider": make()})
    assert isinstance(got.error, InputPropertiesError), got.error
    assert got.error.errors == [{"property_path": "kubernetesProvider", "reason": (
        f"kubernetesProvider must be a Kubernetes provider (pulumi_kubernetes.Provider, type "
        f"pulumi:providers:kubernetes); got {what}: every in-cluster object is deployed through it, and anything "
        "else would send them to the default provider's cluster")}]
    assert "~/.kube" not in got.error.message
    assert registered(got) == []


def unknown_output():
    """A value another resource reports only once it exists: unknown in a preview."""
    import pulumi_aws as aws
    return aws.ec2.SecurityGroup("elsewhere", vpc_id="vpc-1").id


def nested(path, make=unknown_output):
    """Put ``make()`` at ``path`` of the received inputs, as an engine with output values sends it."""
    def edit(inputs):
        node = inputs
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = make()
    return edit


REFUSED = {
    "unknown maxNodes": (("pools", 0, "maxNodes"), "pools[0].maxNodes"),
    "unknown pool subnet": (("pools", 1, "subnetIds"), "pools[1].subnetIds"),
    "unknown pool name": (("pools", 0, "name"), "pools[0].name"),
    "unknown region": (("region",), "region"),
    "unknown guardrails": (("guardrails",), "guardrails"),
    "unknown quota share": (("guardrails", "batchQuotaShare"), "guardrails.batchQuotaShare"),
    "unknown alert label": (("guardrails", "alerts", "ruleLabels", "release"), "guardrails.alerts.ruleLabels.release"),
    "unknown tag": (("tags", "team"), "tags.team"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
@pytest.mark.parametrize("bare", [False, True], ids=["output", "bare-unknown"])
def test_an_output_where_a_plain_value_goes_is_refused_naming_it(construct, case, bare):
    where, path = REFUSED[case]
    make = (lambda: UNKNOWN) if bare else unknown_output
    got = construct("EksPlatform", EKS_WIRE, received=nested(where, make))
    assert isinstance(got.error, InputPropertiesError), got.error
    assert got.error.errors == [{"property_path": path, "reason": NOT_PLAIN.format(path=path, allowed=EKS_OUTPUTS)}]
    assert registered(got) == []


def test_a_whole_list_as_one_output_keeps_its_message(construct):
    got = construct("EksPlatform", EKS_WIRE, received=nested(("subnetIds",)))
    assert got.error.errors == [{"property_path": "subnetIds", "reason": (
        "subnetIds must be a list (its items may be outputs), not one output of a list: the pools are "
        "checked against it before anything registers")}]


@pytest.mark.parametrize("bare", [False, True], ids=["output", "bare-unknown"])
def test_unknowns_where_the_component_takes_outputs_pass_through(construct, bare):
    make = (lambda: UNKNOWN) if bare else unknown_output
    got = construct("EksPlatform", EKS_WIRE, received=lambda inputs: (
        nested(("subnetIds", 0), make)(inputs), nested(("clusterSecurityGroupId",), make)(inputs)))
    assert got.error is None, got.error
    groups = got.run.of_type("aws:eks/nodeGroup:NodeGroup")
    first = [g.inputs["subnetIds"][0] for g in groups]
    # The other resource's id is unknown during the preview, as the bare unknown: never a default.
    assert len(groups) == 3 and all(isinstance(s, Unknown) for s in first)
    assert [g.inputs["subnetIds"][1:] for g in groups if len(g.inputs["subnetIds"]) > 1] == [["subnet-b"]] * 2


def test_gke_refuses_an_unknown_pool_field_and_names_its_own_output_inputs(construct):
    got = construct("GkePlatform", GKE_WIRE, received=nested(("pools", 1, "maxNodes")))
    assert got.error.errors == [{"property_path": "pools[1].maxNodes", "reason": NOT_PLAIN.format(
        path="pools[1].maxNodes", allowed="clusterName, nodeServiceAccount, bootDiskKmsKey")}]
    assert registered(got) == []
