"""The Construct corpus (issue 32): every input the multi-language door accepted wrongly or
crashed on is refused, before anything registers, with the message the stack config gives
for the same input, and the Python API's where the input exists there.

One case is one input, applied to each door's base: the same cluster and pools as a
TypeScript program sends them (``nodepools:index:EksPlatform``/``GkePlatform`` through the
provider's Construct), as a stack's config (``stacks/__main__.py`` under the offline engine)
and as the Python API (``EksCluster``/``GkeCluster`` and ``Platform``). Each door spells the
path its own way (``pools[0].maxNodes``, ``nodepools:pools[0].max_nodes``,
``pools[0].max_nodes``) and names fields in messages the same way; the words are one.
"""
from __future__ import annotations

import copy
import runpy
from pathlib import Path
from typing import Any, Callable, NamedTuple

import pulumi_kubernetes as k8s
import pytest
import yaml
from pulumi.errors import InputPropertiesError
from pulumi.provider.experimental.util import camel_case
from pydantic import ValidationError

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.clouds.regions import AWS_REGIONS
from nodepools.components.platform import Platform
from nodepools.config import StackConfigError
from nodepools.multilang.names import MAP_FIELDS
from nodepools.offline.engine import run_program_capture
from nodepools.spec import describe
from nodepools.spec.errors import dotted

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "stacks" / "__main__.py"
ACCOUNT = "123456789012"


def stack_file(name: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text())["config"]


# The bases: the attached EKS cluster of aws-attach with aws-dev's pools (Construct takes a
# Kubernetes provider, not system nodes), and gcp-dev's GKE cluster and pools.
_ATTACH, _DEV, _GKE = stack_file("aws-attach"), stack_file("aws-dev"), stack_file("gcp-dev")
EKS = {k: v for k, v in _ATTACH["nodepools:cluster"].items() if k != "system_nodes"}
EKS_POOLS = _DEV["nodepools:pools"]
GKE = _GKE["nodepools:cluster"]
GKE_POOLS = _GKE["nodepools:pools"]
# A cluster setting's name in each door: stack key -> (Python API argument, schema name).
EKS_ARGS = {"name": "cluster_name", "region": "region", "subnet_ids": "subnet_ids", "tags": "tags",
            "cluster_security_group_id": "cluster_security_group_id", "node_role_arn": "node_role_arn",
            "oidc_provider_arn": "oidc_provider_arn", "oidc_issuer_url": "oidc_issuer_url"}
GKE_ARGS = {"name": "cluster_name", "project": "project", "location": "location", "zones": "default_zones",
            "resource_labels": "resource_labels"}


def wire(value: Any, verbatim: bool = False) -> Any:
    """Python spelling -> the schema's, as an SDK sends it (map keys of user data kept)."""
    if isinstance(value, dict):
        return {k if verbatim else camel_case(k): wire(v, not verbatim and k in MAP_FIELDS) for k, v in value.items()}
    if isinstance(value, list):
        return [wire(v) for v in value]
    return value


class Inputs(NamedTuple):
    cluster: dict[str, Any]   # Python API arguments of the cluster target (the region among them)
    platform: dict[str, Any]  # PlatformArgs: pools, guardrails


def eks_base() -> Inputs:
    cluster = {py: copy.deepcopy(EKS[key]) for key, py in EKS_ARGS.items() if key in EKS}
    return Inputs(cluster, {"pools": copy.deepcopy(EKS_POOLS)})


def gke_base() -> Inputs:
    cluster = {py: copy.deepcopy(GKE[key]) for key, py in GKE_ARGS.items() if key in GKE}
    return Inputs(cluster, {"pools": copy.deepcopy(GKE_POOLS)})


class Case(NamedTuple):
    cloud: str
    edit: Callable[[Inputs], None]  # applied to the Python spelling of the inputs
    message: str                    # {field} placeholders: each door's spelling of that field
    path: tuple[Any, ...]           # in Python spelling: ("cluster_name",), ("pools", 0, "max_nodes")
    stack: bool = True              # the input exists in a stack's config
    python: bool = True             # the input exists in the Python API


def cluster(**fields: Any) -> Callable[[Inputs], None]:
    return lambda inputs: inputs.cluster.update(fields)


def platform(**fields: Any) -> Callable[[Inputs], None]:
    return lambda inputs: inputs.platform.update(fields)


def pool(i: int, **fields: Any) -> Callable[[Inputs], None]:
    return lambda inputs: inputs.platform["pools"][i].update(fields)


ROLE = f"arn:aws:iam::{ACCOUNT}:role/nodes"
ISSUER = EKS["oidc_issuer_url"]
OTHER_ISSUER = ISSUER[:-4] + "FFFF"
ROLE_RULE = "(arn:aws:iam::<account>:role/<name>)"
ALLOWED_REGIONS = ", ".join(AWS_REGIONS)
CASES = {
    # 20 wrong acceptances of the issue (and more), each as the stack path refuses it.
    "subnet ids as one string": Case("aws", cluster(subnet_ids=EKS["subnet_ids"][0]),
                                     "Input should be a valid list", ("subnet_ids",)),
    "attach_cni_policy as a string": Case("aws", cluster(attach_cni_policy="false"), "Input should be a valid boolean",
                                          ("attach_cni_policy",), stack=False),
    "a pool's flag as a string": Case("aws", pool(0, dedicated="false"), "Input should be a valid boolean",
                                      ("pools", 0, "dedicated")),
    "guardrails as a string": Case("aws", platform(guardrails="on"),
                                   "Input should be a valid dictionary or instance of GuardrailsSpec", ("guardrails",)),
    "unknown region": Case("aws", cluster(region="zz-fake-9"),
                           f"region 'zz-fake-9' is not an AWS region (allowed: {ALLOWED_REGIONS})", ("region",)),
    "partition of another region": Case("aws", cluster(partition="aws-cn"), "partition 'aws-cn' does not hold region "
                                        "'eu-west-1' (its partition is 'aws'): every ARN the pools name would be wrong",
                                        ("partition",), stack=False),
    "ARN of another partition": Case("aws", cluster(node_role_arn=f"arn:aws-cn:iam::{ACCOUNT}:role/nodes"),
                                     f"{{node_role_arn}} 'arn:aws-cn:iam::{ACCOUNT}:role/nodes' is in partition "
                                     "'aws-cn', but the cluster's region 'eu-west-1' is in partition 'aws'",
                                     ("node_role_arn",)),
    "subnet listed twice": Case("aws", cluster(subnet_ids=[EKS["subnet_ids"][0]] * 2),
                                f"subnet {EKS['subnet_ids'][0]!r} is listed twice (first at {{subnet_ids}}[0])",
                                ("subnet_ids", 1)),
    "1,000-character cluster name": Case("aws", cluster(cluster_name="a" * 1000), f"cluster name {'a' * 1000!r} is "
                                         "invalid: 1-100 letters, digits, '-' or '_', starting alphanumeric",
                                         ("cluster_name",)),
    "cluster name ending in a newline": Case("aws", cluster(cluster_name="ml-shared\n"), "cluster name 'ml-shared\\n' "
                                             "is invalid: 1-100 letters, digits, '-' or '_', starting alphanumeric",
                                             ("cluster_name",)),
    "node role '*'": Case("aws", cluster(node_role_arn="*"), f"{{node_role_arn}} '*' has a wildcard: give the exact ARN "
                          f"of an IAM role {ROLE_RULE}", ("node_role_arn",)),
    "an S3 ARN as node role": Case("aws", cluster(node_role_arn="arn:aws:s3:::models"), "{node_role_arn} "
                                   f"'arn:aws:s3:::models' is not the ARN of an IAM role {ROLE_RULE}", ("node_role_arn",)),
    "http OIDC issuer": Case("aws", cluster(oidc_issuer_url=ISSUER.replace("https", "http")),
                             f"{{oidc_issuer_url}} {ISSUER.replace('https', 'http')!r} must be the https:// URL of the "
                             "cluster's issuer (IAM OIDC providers take https only)", ("oidc_issuer_url",)),
    "OIDC issuer of another provider": Case(
        "aws", cluster(oidc_issuer_url=OTHER_ISSUER),
        f"{{oidc_issuer_url}} {OTHER_ISSUER!r} is not the issuer of {{oidc_provider_arn}} (its issuer is "
        f"{ISSUER.removeprefix('https://')!r}): the IRSA trust would name another issuer than the one the cluster's "
        "tokens carry; give one provider's ARN and URL", ("oidc_issuer_url",)),
    "a role ARN as OIDC provider": Case("aws", cluster(oidc_provider_arn=ROLE), f"{{oidc_provider_arn}} {ROLE!r} is not "
                                        "the ARN of an IAM OIDC provider (arn:aws:iam::<account>:oidc-provider/<issuer "
                                        "host and path>)", ("oidc_provider_arn",)),
    "10,000 labels": Case("aws", pool(0, labels={f"k{i}": "v" for i in range(10_000)}),
                          "the pool's Auto Scaling group would carry 10006 cluster-autoscaler tags (one per node label "
                          "and taint, 10000 of them for these labels), but AWS allows 50 per group: give at most 44 "
                          "labels", ("pools", 0, "labels")),
    "malformed subnet id": Case("aws", cluster(subnet_ids=["subnet-a", EKS["subnet_ids"][1]]),
                                "'subnet-a' is not a subnet id (subnet-<8 or 17 hex>)", ("subnet_ids", 0)),
    "malformed security group id": Case("aws", cluster(cluster_security_group_id="sg-cluster"),
                                        "'sg-cluster' is not a security group id (sg-<8 or 17 hex>)",
                                        ("cluster_security_group_id",)),
    "EBS key of another region": Case(
        "aws", cluster(ebs_kms_key_arn=f"arn:aws:kms:us-east-1:{ACCOUNT}:key/abc"),
        f"{{ebs_kms_key_arn}} 'arn:aws:kms:us-east-1:{ACCOUNT}:key/abc' is in region 'us-east-1', but the cluster is in "
        "'eu-west-1': a KMS key serves its own region only", ("ebs_kms_key_arn",), stack=False),
    "tag value with a newline": Case("aws", cluster(tags={"team": "ml\n"}), "tag value has a control character "
                                     "(U+000A at index 2); AWS tags are letters, digits, spaces and _ . : / = + - @",
                                     ("tags", "team")),
    "tag of another cluster": Case("aws", cluster(tags={"kubernetes.io/cluster/other": "owned"}),
                                   "tag 'kubernetes.io/cluster/other' claims the resources for cluster 'other', but "
                                   "they belong to cluster 'ml-shared': the AWS cloud provider and load balancer "
                                   "controller read kubernetes.io/cluster/<name> as ownership; remove it",
                                   ("tags", "kubernetes.io/cluster/other")),
    "GKE zone listed twice": Case("gcp", cluster(default_zones=["us-central1-a", "us-central1-a"]),
                                  "zone 'us-central1-a' is listed twice (first at {default_zones}[0])",
                                  ("default_zones", 1)),
    "GKE zone outside the region": Case("gcp", cluster(default_zones=["us-central1-a", "europe-west4-a"]),
                                        "zone 'europe-west4-a' is not in the cluster's region us-central1 (allowed: "
                                        "us-central1-<letter>)", ("default_zones", 1)),
    "GKE private nodes as a string": Case("gcp", cluster(private_nodes="false"), "Input should be a valid boolean",
                                          ("private_nodes",), stack=False),
    # The three tracebacks.
    "cluster name a number": Case("aws", cluster(cluster_name=5.0), "Input should be a valid string", ("cluster_name",)),
    "cluster name a list": Case("aws", cluster(cluster_name=["a"]), "Input should be a valid string", ("cluster_name",)),
    "maxNodes -Infinity": Case("aws", pool(0, max_nodes=float("-inf")), "Input should be a finite number",
                               ("pools", 0, "max_nodes")),
}

# Each door's spelling of a Python name (stack keys where they differ; camelCase over the wire).
STACK_NAMES = {py: key for key, py in {**EKS_ARGS, **GKE_ARGS}.items()}


def spelled(message: str, door: str) -> str:
    names = {"node_role_arn", "oidc_issuer_url", "oidc_provider_arn", "subnet_ids", "default_zones",
             "ebs_kms_key_arn"}
    return message.format(**{n: {"python": n, "stack": STACK_NAMES.get(n, n), "wire": camel_case(n)}[door]
                             for n in names})


def inputs_of(case: Case) -> Inputs:
    inputs = eks_base() if case.cloud == "aws" else gke_base()
    case.edit(inputs)
    return inputs


def registered(run) -> list[str]:
    """What a door registered, the consuming program's own Kubernetes provider aside."""
    return [r.type for r in run.resources if r.type not in ("pulumi:providers:kubernetes", "pulumi:pulumi:Stack")]


def wire_path(path: tuple[Any, ...]) -> str:
    """A Python path as the schema spells it: names camelCase, map keys (labels, tags) as written."""
    return dotted(tuple(camel_case(p) if isinstance(p, str) and not (i and path[i - 1] in MAP_FIELDS) else p
                        for i, p in enumerate(path)))


def stack_path(case: Case) -> str:
    """A Python path as a stack's config path: the cluster's arguments under nodepools:cluster."""
    cluster_args = {*(EKS_ARGS if case.cloud == "aws" else GKE_ARGS).values(), "partition", "attach_cni_policy"}
    head, *rest = case.path
    if head in cluster_args:
        return dotted((STACK_NAMES.get(head, head), *rest), "nodepools:cluster")
    return dotted(tuple(rest), f"nodepools:{head}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_construct_refuses_with_the_stack_paths_message(construct, name):
    case = CASES[name]
    inputs = inputs_of(case)
    args = {**{camel_case(k): wire(v, k in MAP_FIELDS) for k, v in inputs.cluster.items()},
            **{camel_case(k): wire(v) for k, v in inputs.platform.items()}}
    got = construct("EksPlatform" if case.cloud == "aws" else "GkePlatform", args)
    assert isinstance(got.error, InputPropertiesError), got.error
    assert got.error.errors == [{"property_path": wire_path(case.path), "reason": spelled(case.message, "wire")}]
    assert registered(got.run) == []


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.stack))
def test_the_stack_config_refuses_the_same_input_with_the_same_message(name):
    case = CASES[name]
    inputs = inputs_of(case)
    base = copy.deepcopy(_ATTACH if case.cloud == "aws" else _GKE)
    cluster_keys = EKS_ARGS if case.cloud == "aws" else GKE_ARGS
    config = {**base, "nodepools:pools": inputs.platform["pools"]}
    config["nodepools:cluster"] = {**{k: v for k, v in base["nodepools:cluster"].items() if k != "system_nodes"},
                                   **{k: inputs.cluster[py] for k, py in cluster_keys.items() if py in inputs.cluster}}
    if "guardrails" in inputs.platform:
        config["nodepools:guardrails"] = inputs.platform["guardrails"]
    run, error = run_program_capture(lambda: runpy.run_path(str(PROGRAM), run_name="__main__"), stack="corpus",
                                     config=config)
    assert isinstance(error, StackConfigError), error
    assert error.lines == [f"{stack_path(case)}: {spelled(case.message, 'stack')}"]
    assert registered(run) == []


def python_program(case: Case, inputs: Inputs) -> Callable[[], None]:
    def program() -> None:
        provider = k8s.Provider("k8s", kubeconfig="fake")
        target = (EksCluster if case.cloud == "aws" else GkeCluster)(**inputs.cluster)
        region = {"region": inputs.cluster["region"]} if "region" in inputs.cluster else {}
        Platform("p", target, {**inputs.platform, **region}, provider)
    return program


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.python))
def test_the_python_api_refuses_the_same_input_with_the_same_message(name):
    case = CASES[name]
    run, error = run_program_capture(python_program(case, inputs_of(case)))
    assert isinstance(error, ValidationError), error
    assert describe(error) == [f"{dotted(case.path)}: {spelled(case.message, 'python')}"]
    assert registered(run) == []


def test_the_corpus_covers_the_issues_twenty_acceptances_and_three_tracebacks():
    assert len(CASES) >= 23
    tracebacks = {"cluster name a number", "cluster name a list", "maxNodes -Infinity"}
    assert tracebacks <= set(CASES)
    assert sum(c.stack for c in CASES.values()) >= 20


@pytest.mark.parametrize("where", ["platform", "both"])
def test_the_python_api_checks_a_platforms_region_with_the_cluster_rules(where):
    """A Python program may give the region to the Platform only: the cluster rules that need it
    (the partition of every ARN) run at the gate all the same, and two regions must agree."""
    inputs = eks_base()
    region = inputs.cluster.pop("region")
    inputs.cluster["node_role_arn"] = ROLE
    inputs.platform["region"] = "us-gov-west-1"
    if where == "both":
        inputs.cluster["region"] = region

    def program() -> None:
        Platform("p", EksCluster(**inputs.cluster), inputs.platform, k8s.Provider("k8s", kubeconfig="fake"))
    run, error = run_program_capture(program)
    assert isinstance(error, ValidationError), error
    gov = "but the cluster's region 'us-gov-west-1' is in partition 'aws-us-gov'"
    assert describe(error) == ([
        f"node_role_arn: node_role_arn {ROLE!r} is in partition 'aws', {gov}",
        f"oidc_provider_arn: oidc_provider_arn {EKS['oidc_provider_arn']!r} is in partition 'aws', {gov}",
        f"oidc_issuer_url: oidc_issuer_url {ISSUER!r} is an EKS issuer of region 'eu-west-1', but the cluster is in "
        "'us-gov-west-1'"] if where == "platform" else [
        "region: region 'us-gov-west-1' differs from the EksCluster's region 'eu-west-1'"])
    assert registered(run) == []
