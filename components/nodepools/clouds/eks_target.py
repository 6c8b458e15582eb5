"""``EksTarget``: what node pools need of an existing EKS cluster, checked the same on every door.

A stack's ``nodepools:cluster`` (``cluster_settings.EksClusterConfig``), the Python
API's ``EksCluster`` and the multi-language ``EksPlatform`` all describe the cluster
their pools join with these fields; each door only converts its input into this
model, so a value is refused once, by one rule, with one message (the field name as
the door spells it is the door's affair: ``nodepools.multilang.names``,
``nodepools.config.stack_config.config_path``). A field given as an output of another
resource arrives as ``DEFERRED`` and is checked by no rule (it is known only once that
resource exists); every known value is.

Defaults: ``region`` none (the Python API may give it to the platform instead);
``partition`` the region's (``aws`` without a region); no subnets, security groups,
node role or OIDC provider; ``attach_cni_policy`` true; no tags. Pure: no provider SDK.
"""
from __future__ import annotations

import re

from pydantic import Field, model_validator

from nodepools.clouds.arns import IAM_ROLE, KMS_KEY, OIDC_PROVIDER, arn_problem, oidc_problems
from nodepools.clouds.aws import POOL_TAG_KEYS
from nodepools.clouds.regions import AWS_PARTITIONS, aws_partition, aws_region_error, aws_tag_problems
from nodepools.spec.errors import Problems
from nodepools.spec.model import Flag, StrictModel, Text, known
from nodepools.spec.pool_rules import duplicate_problems

EKS_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}\Z")
EKS_NAME_RULE = "1-100 letters, digits, '-' or '_', starting alphanumeric"
_SUBNET = re.compile(r"^subnet-[0-9a-f]{8,17}\Z")
_SG = re.compile(r"^sg-[0-9a-f]{8,17}\Z")
# Why a launch template needs a security group given (nodepools.backends.aws.translate).
NO_SECURITY_GROUP = (
    "no security group for the nodes: give EksCluster(cluster_security_group_id=...) (the cluster's "
    "aws.eks.Cluster vpc_config.cluster_security_group_id; EKS stops attaching it once the launch template "
    "names security groups, which it must to refuse public IPs), or node_security_group_ids=[...] that "
    "include it")


def cluster_name_problem(name: str) -> str | None:
    if EKS_NAME.match(name):
        return None
    return f"cluster name {name!r} is invalid: {EKS_NAME_RULE}"


class EksTarget(StrictModel):
    """An existing EKS cluster as its node pools see it (see the module's docstring)."""

    cluster_name: Text
    region: str | None = None
    partition: str | None = None
    subnet_ids: list[Text] = Field(default_factory=list)
    cluster_security_group_id: Text | None = None
    node_security_group_ids: list[Text] = Field(default_factory=list)
    node_role_arn: Text | None = None
    oidc_provider_arn: Text | None = None
    oidc_issuer_url: Text | None = None
    ebs_kms_key_arn: Text | None = None
    tags: dict[str, str] = Field(default_factory=dict)
    attach_cni_policy: Flag = True

    @property
    def arn_partition(self) -> str | None:
        """The partition every ARN must be in: the given one, else the region's; None when neither is known."""
        if self.partition is not None:
            return self.partition
        return aws_partition(self.region) if self.region is not None else None

    @model_validator(mode="after")
    def _check(self) -> "EksTarget":
        problems = Problems()
        if known(self.cluster_name) and (why := cluster_name_problem(self.cluster_name)):
            problems.add("cluster_name", why, self.cluster_name)
        region = self.region
        if region is not None and (why := aws_region_error(region)):
            problems.add("region", why, region)
            region = None
        # The ARNs are judged by one partition: none while the partition itself is refused.
        partition = self.arn_partition if self._partition(problems, region) else None
        self._ids(problems)
        for field, kind in (("node_role_arn", IAM_ROLE), ("oidc_provider_arn", OIDC_PROVIDER),
                            ("ebs_kms_key_arn", KMS_KEY)):
            value = getattr(self, field)
            if known(value) and (why := arn_problem(field, value, kind, partition, region)):
                problems.add(field, why, value)
        self._oidc(problems, region)
        name = self.cluster_name if known(self.cluster_name) else None
        for key, message in aws_tag_problems(self.tags, POOL_TAG_KEYS, name):
            problems.add("tags" if key is None else ("tags", key), message, len(self.tags) if key is None else key)
        problems.raise_if_any("EksTarget")
        return self

    def _partition(self, problems: Problems, region: str | None) -> bool:
        """True when the partition (given or the region's) is one the region is in."""
        if self.partition is None:
            return True
        if self.partition not in AWS_PARTITIONS:
            problems.add("partition", f"partition {self.partition!r} is unknown (allowed: "
                         f"{', '.join(AWS_PARTITIONS)})", self.partition)
            return False
        if region is not None and aws_partition(region) != self.partition:
            problems.add("partition", f"partition {self.partition!r} does not hold region {region!r} (its partition "
                         f"is {aws_partition(region)!r}): every ARN the pools name would be wrong", self.partition)
            return False
        return True

    def _ids(self, problems: Problems) -> None:
        for field, rule, what in (("subnet_ids", _SUBNET, "a subnet id (subnet-<8 or 17 hex>)"),
                                  ("node_security_group_ids", _SG, "a security group id (sg-<8 or 17 hex>)")):
            values = getattr(self, field)
            for i, value in enumerate(values):
                if known(value) and not rule.match(value):
                    problems.add((field, i), f"{value!r} is not {what}", value)
            duplicate_problems(field, [v if known(v) else object() for v in values], problems)
        group = self.cluster_security_group_id
        if known(group) and not _SG.match(group):
            problems.add("cluster_security_group_id", f"{group!r} is not a security group id (sg-<8 or 17 hex>)",
                         group)
        if group is None and not self.node_security_group_ids:
            problems.add("cluster_security_group_id", NO_SECURITY_GROUP, None)

    def _oidc(self, problems: Problems, region: str | None) -> None:
        arn, url = self.oidc_provider_arn, self.oidc_issuer_url
        if (arn is None) != (url is None):
            problems.add("oidc_provider_arn", "oidc_provider_arn and oidc_issuer_url go together", None)
        elif known(arn) and known(url) and arn_problem("", arn, OIDC_PROVIDER, None) is None:
            for field, why in oidc_problems(arn, url, region):
                problems.add(field, why, url)
        elif known(url):
            for field, why in oidc_problems("", url, region):
                problems.add(field, why, url)
