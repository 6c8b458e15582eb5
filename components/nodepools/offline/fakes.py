"""What a cloud returns that only it can compute, for runs without one.

``fake_outputs``: plausible computed outputs for an offline ``up``. Only outputs our
programs read are faked. ``preview_outputs``: what a preview reports instead, the
program's inputs and nothing else (docs/design.md section 9.2). A provider's preview of a
create (pulumi/pulumi sdk/go/common/resource/plugin/provider_plugin.go ``Create``,
commit 00fdffa8) answers an empty id, which the SDK reads as unknown
(pulumi/runtime/resource.py), and the planned state: the inputs, every value only the
provider computes unknown (an empty state when the provider's own config is unknown).
A top-level output left absent is unknown to the SDK already (pulumi/runtime/rpc.py
``resolve_properties``); a computed field inside an object the program gave
(``vpcConfig.clusterSecurityGroupId``, a Kubernetes object's ``metadata.uid``) would read
as missing instead, so it is marked unknown here, as the engine marks it; a value the
program gave stays as given. The components read these values as a real cloud returns
them; the mocks (``nodepools.offline.engine``, ``nodepools.testing``) supply them.
"""
from __future__ import annotations

from typing import Any

from pulumi.runtime.rpc import UNKNOWN

from nodepools.spec.kube_versions import newest_served
from nodepools.vocabulary import Cloud

_ACCOUNT = "123456789012"
_REGION = "us-west-2"


def fake_outputs(type_token: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    fake = _FAKES.get(type_token)
    return fake(name, inputs) if fake else {}


def preview_outputs(type_token: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs, with every computed field of an object the program gave unknown."""
    state = dict(inputs)
    for block, fields in _PREVIEW_NESTED.get(type_token, {}).items():
        _unknown_unless_given(state, block, fields)
    if type_token.startswith(_KUBERNETES):
        metadata = state.get("metadata")
        named = isinstance(metadata, dict) and metadata.get("name")
        _unknown_unless_given(state, "metadata", _SYSTEM_METADATA + (() if named else ("name",)))
    return state


def _unknown_unless_given(state: dict[str, Any], block: str, fields: tuple[str, ...]) -> None:
    """Each of ``fields`` that the object ``state[block]`` lacks becomes unknown. An absent or
    unknown block is left as it is: the SDK reads it as unknown already."""
    given = state.get(block)
    if isinstance(given, dict):
        state[block] = {**{field: UNKNOWN for field in fields}, **given}


def _arn(service: str, path: str) -> str:
    return f"arn:aws:{service}:{_REGION}:{_ACCOUNT}:{path}"


_FAKES = {
    "aws:eks/nodeGroup:NodeGroup": lambda name, inputs: {
        "arn": _arn("eks", f"nodegroup/{inputs.get('clusterName', 'cluster')}/{name}/fake"),
        "resources": [{"autoscalingGroups": [{"name": f"eks-{name}-fake-asg"}]}],
        "status": "ACTIVE",
    },
    "aws:eks/cluster:Cluster": lambda name, inputs: {
        "arn": _arn("eks", f"cluster/{inputs.get('name', name)}"),
        "endpoint": f"https://{name}.gr7.{_REGION}.eks.amazonaws.com",
        "certificateAuthority": {"data": "LS0tLS1CRUdJTi1GQUtFLUNBLS0tLS0="},
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{_REGION}.amazonaws.com/id/FAKE"}]}],
        # EKS creates a cluster given no version at "the latest version available".
        "version": inputs.get("version", newest_served(Cloud.AWS)),
        "vpcConfig": {**(inputs.get("vpcConfig") or {}), "clusterSecurityGroupId": "sg-0fake0cluster000001"},
    },
    "aws:iam/role:Role": lambda name, inputs: {"arn": f"arn:aws:iam::{_ACCOUNT}:role/{name}"},
    "aws:iam/policy:Policy": lambda name, inputs: {"arn": f"arn:aws:iam::{_ACCOUNT}:policy/{name}"},
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": lambda name, inputs: {
        "arn": f"arn:aws:iam::{_ACCOUNT}:oidc-provider/oidc.eks.{_REGION}.amazonaws.com/id/FAKE"},
    "aws:ec2/launchTemplate:LaunchTemplate": lambda name, inputs: {"latestVersion": 1.0},
    "aws:ec2/placementGroup:PlacementGroup": lambda name, inputs: {"name": inputs.get("name", name)},
    # Karpenter's cloud side (backends/aws/karpenter_register.py).
    "aws:iam/instanceProfile:InstanceProfile": lambda name, inputs: {
        "name": inputs.get("name", name), "arn": f"arn:aws:iam::{_ACCOUNT}:instance-profile/{name}"},
    "aws:sqs/queue:Queue": lambda name, inputs: {
        "name": inputs.get("name", name), "arn": _arn("sqs", inputs.get("name", name)),
        "url": f"https://sqs.{_REGION}.amazonaws.com/{_ACCOUNT}/{inputs.get('name', name)}"},
    "aws:cloudwatch/eventRule:EventRule": lambda name, inputs: {"name": inputs.get("name", name)},
    "gcp:serviceaccount/account:Account": lambda name, inputs: {
        "email": f"{inputs.get('accountId', name)}@fake-project.iam.gserviceaccount.com"},
    "gcp:container/cluster:Cluster": lambda name, inputs: {
        "endpoint": "10.0.0.2",
        "masterAuth": {"clusterCaCertificate": "LS0tLS1CRUdJTi1GQUtFLUNBLS0tLS0="},
    },
    "gcp:compute/resourcePolicy:ResourcePolicy": lambda name, inputs: {
        "selfLink": f"https://www.googleapis.com/compute/v1/projects/fake/regions/r/resourcePolicies/{name}"},
}

# Computed fields inside the objects a program gives, per type, as the provider's schema
# marks them (Computed, or Optional+Computed and left out). aws:eks Cluster:
# hashicorp/terraform-provider-aws internal/service/eks/cluster.go (commit 00555dc5), the
# schema pulumi-aws bridges.
_PREVIEW_NESTED: dict[str, dict[str, tuple[str, ...]]] = {
    "aws:eks/cluster:Cluster": {
        "vpcConfig": ("clusterSecurityGroupId", "publicAccessCidrs", "vpcId"),
        "accessConfig": ("authenticationMode",),
        "kubernetesNetworkConfig": ("elasticLoadBalancing", "ipFamily", "serviceIpv4Cidr", "serviceIpv6Cidr"),
        "upgradePolicy": ("supportType",),
    },
}

# Every Kubernetes object's type token (pulumi-kubernetes); its provider is ``pulumi:providers:kubernetes``.
_KUBERNETES = "kubernetes:"
# ObjectMeta fields the API server sets when it creates an object ("Populated by the system.
# Read-only.": pulumi_kubernetes/meta/v1/outputs.py ObjectMeta, from the Kubernetes API);
# ``name`` too when the program gives none (the provider's auto-name, or the server's from
# generateName). deletionTimestamp and deletionGracePeriodSeconds appear only on deletion.
_SYSTEM_METADATA = ("creationTimestamp", "generation", "managedFields", "resourceVersion", "uid")
