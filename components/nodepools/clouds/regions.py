"""The regions each cloud has, and the clouds' tag and label limits: what a cluster's config may name.

Read 2026-12-02. A region opened since is refused until it is added here, with the
allowed list in the message (a typo such as ``us-west2`` on AWS, or ``zz-fake-9``,
would otherwise reach the provider, or an offline plan, unnoticed).
- AWS: the commercial, China and GovCloud regions of "AWS Region billing codes"
  (docs.aws.amazon.com/global-infrastructure/latest/regions/aws-region-billing-codes.html)
  and "AWS GovCloud (US) Regions"; the European Sovereign Cloud partition is not listed
  (nodepools derives ARNs for aws, aws-cn and aws-us-gov only).
- GCP: cloud.google.com/compute/docs/regions-zones; a zone is its region and ``-<letter>``.
- Partitions: each region belongs to one ARN partition (docs.aws.amazon.com/IAM/latest/
  UserGuide/reference-arns.html): ``aws-cn`` for the China regions (``cn-*``),
  ``aws-us-gov`` for GovCloud (``us-gov-*``), ``aws`` for the others listed.
- Tags: docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html "Tag naming limits
  and requirements": at most 50 user tags per resource, keys 1-128 and values 0-256
  characters of letters, numbers, spaces and ``_ . : / = + - @`` (no control character:
  a newline or NUL is no tag AWS stores as written), and the ``aws:`` prefix reserved for
  AWS's own tags. ``kubernetes.io/cluster/<name>`` is the ownership tag the Kubernetes
  AWS cloud provider and the AWS Load Balancer Controller read (kubernetes/cloud-provider-aws:
  pkg/providers/v1/tags.go ``TagNameKubernetesClusterPrefix``): on a cluster's resources it
  may name that cluster only.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Mapping

from nodepools.spec.errors import Problems
from nodepools.spec.pool_rules import duplicate_problems

AWS_REGIONS = (
    "af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-south-1",
    "ap-south-2", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5",
    "ap-southeast-6", "ap-southeast-7", "ca-central-1", "ca-west-1", "cn-north-1", "cn-northwest-1",
    "eu-central-1", "eu-central-2", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-2",
    "eu-west-3", "il-central-1", "me-central-1", "me-south-1", "mx-central-1", "sa-east-1", "us-east-1",
    "us-east-2", "us-gov-east-1", "us-gov-west-1", "us-west-1", "us-west-2",
)
GCP_REGIONS = (
    "africa-south1", "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3",
    "asia-south1", "asia-south2", "asia-southeast1", "asia-southeast2", "australia-southeast1",
    "australia-southeast2", "europe-central2", "europe-north1", "europe-north2", "europe-southwest1",
    "europe-west1", "europe-west10", "europe-west12", "europe-west2", "europe-west3", "europe-west4",
    "europe-west6", "europe-west8", "europe-west9", "me-central1", "me-central2", "me-west1",
    "northamerica-northeast1", "northamerica-northeast2", "northamerica-south1", "southamerica-east1",
    "southamerica-west1", "us-central1", "us-east1", "us-east4", "us-east5", "us-south1", "us-west1", "us-west2",
    "us-west3", "us-west4",
)
_GCP_ZONE = re.compile(r"([a-z0-9-]+)-[a-z]\Z")
AWS_PARTITIONS = ("aws", "aws-cn", "aws-us-gov")
KUBERNETES_CLUSTER_TAG_PREFIX = "kubernetes.io/cluster/"

AWS_TAGS_MAX, AWS_TAG_KEY_MAX, AWS_TAG_VALUE_MAX = 50, 128, 256
# cloud.google.com/compute/docs/labeling-resources, "Requirements for labels": at most 64 per resource.
GCP_LABELS_MAX = 64
AWS_RESERVED_TAG_PREFIX = "aws:"


def aws_region_error(region: str) -> str | None:
    if region in AWS_REGIONS:
        return None
    return f"region {region!r} is not an AWS region (allowed: {', '.join(AWS_REGIONS)})"


def aws_partition(region: str) -> str:
    """The ARN partition of ``region`` (no ``get_partition`` invoke needed)."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def gcp_zone_error(zone: str, region: str) -> str | None:
    """None when ``zone`` is a zone of the GCP ``region``, else why not."""
    match = _GCP_ZONE.match(zone)
    if match is None:
        return f"{zone!r} is not a zone name (expected <region>-<letter>, e.g. {region}-a)"
    if match.group(1) != region:
        return f"zone {zone!r} is not in the cluster's region {region} (allowed: {region}-<letter>)"
    return None


def gcp_location_error(location: str) -> str | None:
    """None for a GCP region or a zone of one (a cluster's ``location``)."""
    zone = _GCP_ZONE.match(location)
    if location in GCP_REGIONS or (zone is not None and zone.group(1) in GCP_REGIONS):
        return None
    return f"location {location!r} is not a GCP region or a zone of one (regions: {', '.join(GCP_REGIONS)})"


def control_character(text: str) -> str | None:
    """The first control or format character of ``text`` (newline, NUL, ...), as ``U+000A at
    index 5``; None when there is none."""
    for i, char in enumerate(text):
        if unicodedata.category(char).startswith("C"):
            return f"U+{ord(char):04X} at index {i}"
    return None


def aws_tag_problems(tags: Mapping[str, str], added: tuple[str, ...] = (),
                     cluster_name: str | None = None) -> list[tuple[str | None, str]]:
    """(tag key or None for the whole map, message) for each AWS limit ``tags`` breaks;
    ``added`` are the tags nodepools puts beside them on the same resources; ``cluster_name``
    (when known) is the one cluster a ``kubernetes.io/cluster/<name>`` tag may name."""
    problems: list[tuple[str | None, str]] = []
    room = AWS_TAGS_MAX - len(added)
    if len(tags) > room:
        ours = f" and nodepools adds {len(added)} to a pool's resources ({', '.join(added)})" if added else ""
        problems.append((None, f"{len(tags)} tags, but AWS allows {AWS_TAGS_MAX} per resource{ours}: give at "
                               f"most {room}"))
    for key, value in tags.items():
        if not 1 <= len(key) <= AWS_TAG_KEY_MAX:
            problems.append((key, f"tag key has {len(key)} characters; AWS allows 1-{AWS_TAG_KEY_MAX}"))
        if key.lower().startswith(AWS_RESERVED_TAG_PREFIX):
            problems.append((key, f"tag key {key!r} starts with {AWS_RESERVED_TAG_PREFIX!r}, which AWS reserves for "
                                  "its own tags"))
        if len(value) > AWS_TAG_VALUE_MAX:
            problems.append((key, f"tag value has {len(value)} characters; AWS allows 0-{AWS_TAG_VALUE_MAX}"))
        for what, text in (("key", key), ("value", value)):
            if where := control_character(text):
                problems.append((key, f"tag {what} has a control character ({where}); AWS tags are letters, "
                                      "digits, spaces and _ . : / = + - @"))
        owner = key[len(KUBERNETES_CLUSTER_TAG_PREFIX):] if key.startswith(KUBERNETES_CLUSTER_TAG_PREFIX) else None
        if owner is not None and cluster_name is not None and owner != cluster_name:
            problems.append((key, f"tag {key!r} claims the resources for cluster {owner!r}, but they belong to "
                                  f"cluster {cluster_name!r}: the AWS cloud provider and load balancer controller "
                                  f"read {KUBERNETES_CLUSTER_TAG_PREFIX}<name> as ownership; remove it"))
    return problems


def zone_problems(problems: Problems, field: str, zones: list[str] | tuple[str, ...], region: str) -> None:
    """Each of ``zones`` a zone of ``region``, none listed twice (a GKE cluster's node locations)."""
    for i, zone in enumerate(zones):
        if why := gcp_zone_error(zone, region):
            problems.add((field, i), why, zone)
    duplicate_problems(field, list(zones), problems)
