"""What a cloud returns that only it can compute, for runs without one.

``fake_outputs``: plausible computed outputs for an offline ``up``. Only outputs our
programs read are faked. ``preview_outputs``: what a preview reports instead, every
computed value unknown. A top-level output left absent is unknown to the SDK already;
a computed field inside an object the program gave (``vpcConfig.clusterSecurityGroupId``)
would read as missing instead, so it is marked unknown here, as the engine marks it.
The components read these values as a real cloud returns them; the mocks
(``nodepools.offline.engine``, ``nodepools.testing``) supply them.
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
    unknown = _PREVIEW.get(type_token)
    return unknown(name, inputs) if unknown else {}


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

_PREVIEW = {
    # The cluster security group EKS creates: computed, inside the vpcConfig the program gives.
    "aws:eks/cluster:Cluster": lambda name, inputs: {
        "vpcConfig": {**(inputs.get("vpcConfig") or {}), "clusterSecurityGroupId": UNKNOWN}},
}
