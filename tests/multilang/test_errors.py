"""Bad inputs through the construct path fail as in Python, before anything registers.

Same rules and messages as the Python API; paths and the argument names inside
messages are spelled as the schema spells them (``nodepools.multilang.names``).
"""
import copy

import pytest
from pulumi.errors import InputPropertiesError, InputPropertyError
from pydantic import ValidationError

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.components.platform import Platform
from nodepools.multilang import eks, gke
from nodepools.multilang.names import schema_message, schema_path
from nodepools.offline.engine import run_program_capture

from multilang_configs import EKS_GUARDRAILS, EKS_POOLS, EKS_WIRE, GKE_POOLS, GKE_WIRE, OIDC_ARN, OIDC_URL


def eks_python(pools=None, guardrails=None, region="us-west-2", **cluster):
    def build(k8s_provider):
        kw = {"cluster_security_group_id": "sg-cluster", "oidc_provider_arn": OIDC_ARN, "oidc_issuer_url": OIDC_URL,
              "tags": {"team": "platform"}, **cluster}
        target = EksCluster("demo", ["subnet-a", "subnet-b"], **kw)
        Platform("p", target, {"pools": pools or EKS_POOLS, "guardrails": guardrails or EKS_GUARDRAILS,
                               "region": region}, k8s_provider)
    return build


def gke_python(pools=None, guardrails=None, **cluster):
    def build(k8s_provider):
        target = GkeCluster("demo", location="us-central1", project="acme-ml-prod",
                            default_zones=["us-central1-a", "us-central1-b"], resource_labels={"team": "ml"},
                            gpu_driver_version="LATEST", **cluster)
        Platform("p", target, {"pools": pools or GKE_POOLS, "guardrails": {
            "kueue": "off", "quota_priority_class_scopes": True, **(guardrails or {})}}, k8s_provider)
    return build


def patched(base, edit):
    out = copy.deepcopy(base)
    edit(out)
    return out


def pool_edit(i, **fields):
    def edit(config):
        config["pools"][i].update(fields)
    return edit


def guardrail_edit(path, value):
    def edit(config):
        node = config["guardrails"]
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return edit


def set_keys(**fields):
    def edit(config):
        for key, value in fields.items():
            if value is None:
                config.pop(key, None)
            else:
                config[key] = value
    return edit


CASES = {
    "min above max": ("EksPlatform", pool_edit(0, minNodes=7.0),
                      eks_python(pools=patched(EKS_POOLS, lambda p: p[0].update(min_nodes=7))),
                      "pools[0].minNodes", "minNodes"),
    "fractional nodes": ("EksPlatform", pool_edit(1, maxNodes=2.5),
                         eks_python(pools=patched(EKS_POOLS, lambda p: p[1].update(max_nodes=2.5))),
                         "pools[1].maxNodes", "fractional part"),
    "unknown class": ("EksPlatform", pool_edit(0, poolClass="gpu"),
                      eks_python(pools=patched(EKS_POOLS, lambda p: p[0].update(pool_class="gpu"))),
                      "pools[0].poolClass", "'gpu-inference'"),
    "second untainted pool": (
        "EksPlatform", pool_edit(1, poolClass="resident", capacity="on-demand", taints=[]),
        eks_python(pools=patched(EKS_POOLS, lambda p: p[1].update(pool_class="resident", capacity="on-demand",
                                                                    taints=[]))),
        "pools[1].dedicated", "set dedicated: true"),
    "bad label key": ("EksPlatform", pool_edit(0, labels={"bad key!": "x"}),
                      eks_python(pools=patched(EKS_POOLS, lambda p: p[0].update(labels={"bad key!": "x"}))),
                      "pools[0].labels['bad key!']", None),
    "quota share": ("EksPlatform", guardrail_edit(["batchQuotaShare"], 0.7),
                    eks_python(guardrails={**EKS_GUARDRAILS, "batch_quota_share": 0.7}),
                    "guardrails.batchQuotaShare", "batchQuotaShare must be between 0.40 and 0.60"),
    "request above limit": (
        "EksPlatform", guardrail_edit(["limitRange", "defaultRequestCpuMillicores"], 2000.0),
        eks_python(guardrails={**EKS_GUARDRAILS, "limit_range": {"default_limit_memory_mib": 2048,
                                                                  "default_request_cpu_millicores": 2000}}),
        "guardrails.limitRange.defaultRequestCpuMillicores",
        "defaultRequestCpuMillicores (2000) must be <= defaultLimitCpuMillicores (1000)"),
    "class namespace key": ("EksPlatform", guardrail_edit(["namespaces"], {"gpu": "ml"}),
                            eks_python(guardrails={**EKS_GUARDRAILS, "namespaces": {"gpu": "ml"}}),
                            "guardrails.namespaces.gpu['[key]']", "'gpu-training'"),
    "no OIDC provider": ("EksPlatform", set_keys(oidcProviderArn=None, oidcIssuerUrl=None),
                         eks_python(oidc_provider_arn=None, oidc_issuer_url=None),
                         "oidcProviderArn", "EksCluster(oidcProviderArn=...) is required"),
    "no region": ("EksPlatform", set_keys(region=None), eks_python(region=None), "region",
                  "cluster-autoscaler on aws needs the cluster's region"),
    "no security group": ("EksPlatform", set_keys(clusterSecurityGroupId=None),
                          eks_python(cluster_security_group_id=None), "clusterSecurityGroupId", None),
    "default compute account": (
        "GkePlatform", set_keys(nodeServiceAccount="123-compute@developer.gserviceaccount.com"),
        gke_python(node_service_account="123-compute@developer.gserviceaccount.com"),
        "nodeServiceAccount", "'123-compute@developer.gserviceaccount.com' is not allowed"),
    "misspelt pool field": ("EksPlatform", pool_edit(0, minNode=3.0),
                            eks_python(pools=patched(EKS_POOLS, lambda p: p[0].update(min_node=3))),
                            "pools[0].minNode", "unknown field (allowed: name, poolClass, instanceTypes, capacity"),
    "misspelt guardrail field": (
        "EksPlatform", guardrail_edit(["alerts", "forMinute"], 5.0),
        eks_python(guardrails={**EKS_GUARDRAILS, "alerts": {**EKS_GUARDRAILS["alerts"], "for_minute": 5}}),
        "guardrails.alerts.forMinute", "ruleLabels, alarmActions, cpuThrottlingRatio, cpuStealRatio, forMinutes)"),
    # docs/design.md section 11.4: the same gate for gpu_allocation on every door.
    "unknown gpu allocation": ("EksPlatform", guardrail_edit(["gpuAllocation"], "mig"),
                               eks_python(guardrails={**EKS_GUARDRAILS, "gpu_allocation": "mig"}),
                               "guardrails.gpuAllocation", "Input should be 'device-plugin' or 'dra'"),
    "dra below its minor": ("EksPlatform", guardrail_edit(["gpuAllocation"], "dra"),
                            eks_python(guardrails={**EKS_GUARDRAILS, "gpu_allocation": "dra"}),
                            "guardrails.gpuAllocation", "gpuAllocation 'dra' needs Kubernetes 1.36 or newer"),
    "dra on gke": ("GkePlatform", lambda config: config.setdefault("guardrails", {}).update(gpuAllocation="dra"),
                   gke_python(guardrails={"gpu_allocation": "dra"}),
                   "guardrails.gpuAllocation", "gpuAllocation 'dra' is not available on gcp"),
    "zone outside the region": ("GkePlatform", pool_edit(1, zones=["europe-west4-a"]),
                                gke_python(pools=patched(GKE_POOLS, lambda p: p[1].update(zones=["europe-west4-a"]))),
                                "pools[1].zones[0]", None),
}


def python_problems(build) -> list[tuple[str, str]]:
    run, error = run_program_capture(lambda: build(__import__("pulumi_kubernetes").Provider("k8s", kubeconfig="x")))
    assert isinstance(error, ValidationError), error
    return [(tuple(i["loc"]), str(i["msg"]).removeprefix("Value error, ")) for i in error.errors(include_url=False)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_inputs_fail_with_the_python_apis_messages_naming_the_input(construct, case):
    component, edit, build, path, words = CASES[case]
    wire = patched(EKS_WIRE if component == "EksPlatform" else GKE_WIRE, edit)
    got = construct(component, wire)
    assert isinstance(got.error, InputPropertiesError), got.error
    # Nothing of the component registered: only the program's own Kubernetes provider.
    assert [r.type for r in got.run.resources] == ["pulumi:providers:kubernetes"]
    names = (eks if component == "EksPlatform" else gke).NAMES
    expected = [{"property_path": schema_path(loc), "reason": schema_message(msg, names)}
                for loc, msg in python_problems(build)]
    assert got.error.errors == expected
    assert path in [e["property_path"] for e in expected]
    if words:
        assert any(words in e["reason"] for e in expected)
    # The message alone says it all too (some front ends show only the message).
    assert all(f"{e['property_path']}: {e['reason']}" in got.error.message for e in expected)


def test_python_names_in_messages_become_the_schemas():
    assert schema_message("default_request_cpu_millicores (2) must be <= default_limit_cpu_millicores (1)",
                          eks.NAMES) == "defaultRequestCpuMillicores (2) must be <= defaultLimitCpuMillicores (1)"
    # Quoted user values and words that are no argument stay as they are.
    assert schema_message("label 'min_nodes' on x86_64 nodes", eks.NAMES) == "label 'min_nodes' on x86_64 nodes"
    assert schema_path(("pools", 0, "labels", "my_label")) == "pools[0].labels.my_label"
    assert schema_path(("cluster", "oidc_provider_arn")) == "oidcProviderArn"


def test_a_missing_required_input_is_refused_by_the_provider_host_by_its_schema_name(construct):
    """The one message that is not the Python API's: required inputs are checked by the SDK's
    provider host against the schema before the component runs."""
    wire = {k: v for k, v in EKS_WIRE.items() if k != "pools"}
    got = construct("EksPlatform", wire)
    assert isinstance(got.error, InputPropertyError)
    assert (got.error.property_path, got.error.reason) == ("pools", "Missing required input 'pools' on 'EksPlatform'")
    wire = patched(EKS_WIRE, lambda c: c["pools"][0].pop("instanceTypes"))
    got = construct("EksPlatform", wire)
    assert got.error.reason == "Missing required input 'pools[0].instanceTypes' on 'EksPlatform'"


def test_an_unknown_top_level_input_is_refused_with_the_allowed_names(construct):
    got = construct("GkePlatform", {**GKE_WIRE, "zones": ["us-central1-a"]})
    assert isinstance(got.error, InputPropertiesError)
    assert got.error.errors == [{"property_path": "zones", "reason": (
        "unknown field (allowed: clusterName, project, location, kubernetesProvider, pools, defaultZones, "
        "nodeServiceAccount, extraNodeRoles, resourceLabels, gpuDriverVersion, privateNodes, bootDiskKmsKey, "
        "guardrails)")}]
    assert [r.type for r in got.run.resources] == ["pulumi:providers:kubernetes"]


def test_one_output_for_a_whole_list_is_refused_by_name(construct):
    """``subnetIds: vpc.privateSubnetIds`` from an untyped caller: the list is plain in the schema (its
    items may be outputs), as EKS's rules need the subnets' count before anything registers."""
    def program():
        import pulumi_aws as aws
        group = aws.ec2.SecurityGroup("cluster-sg", vpc_id="vpc-1")
        return {"subnetIds": group.id.apply(lambda i: ["subnet-a", "subnet-b"])}
    got = construct("EksPlatform", EKS_WIRE, program=program)
    assert isinstance(got.error, InputPropertiesError)
    assert got.error.errors == [{"property_path": "subnetIds", "reason": (
        "subnetIds must be a list (its items may be outputs), not one output of a list: the pools are "
        "checked against it before anything registers")}]
