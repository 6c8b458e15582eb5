"""The regions each cloud has, and the clouds' tag and label limits: what a cluster's config may name.

Read 2026-12-02. A region opened since is refused until it is added here, with the
allowed list in the message (a typo such as ``us-west2`` on AWS, or ``zz-fake-9``,
would otherwise reach the provider, or an offline plan, unnoticed).
- AWS: the commercial, China and GovCloud regions of "AWS Region billing codes"
  (docs.aws.amazon.com/global-infrastructure/latest/regions/aws-region-billing-codes.html)
  and "AWS GovCloud (US) Regions"; the European Sovereign Cloud partition is not listed
  (nodepools derives ARNs for aws, aws-cn and aws-us-gov only).
- GCP: cloud.google.com/compute/docs/regions-zones; a zone is its region and ``-<letter>``.
- Tags: docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html "Tag naming limits
  and requirements": at most 50 user tags per resource, keys 1-128 and values 0-256
  characters, and the ``aws:`` prefix reserved for AWS's own tags.
"""
from __future__ import annotations

import re
from typing import Mapping

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

AWS_TAGS_MAX, AWS_TAG_KEY_MAX, AWS_TAG_VALUE_MAX = 50, 128, 256
# cloud.google.com/compute/docs/labeling-resources, "Requirements for labels": at most 64 per resource.
GCP_LABELS_MAX = 64
AWS_RESERVED_TAG_PREFIX = "aws:"


def aws_region_error(region: str) -> str | None:
    if region in AWS_REGIONS:
        return None
    return f"region {region!r} is not an AWS region (allowed: {', '.join(AWS_REGIONS)})"


def gcp_location_error(location: str) -> str | None:
    """None for a GCP region or a zone of one (a cluster's ``location``)."""
    zone = _GCP_ZONE.match(location)
    if location in GCP_REGIONS or (zone is not None and zone.group(1) in GCP_REGIONS):
        return None
    return f"location {location!r} is not a GCP region or a zone of one (regions: {', '.join(GCP_REGIONS)})"


def aws_tag_problems(tags: Mapping[str, str], added: tuple[str, ...] = ()) -> list[tuple[str | None, str]]:
    """(tag key or None for the whole map, message) for each AWS limit ``tags`` breaks;
    ``added`` are the tags nodepools puts beside them on the same resources."""
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
    return problems
