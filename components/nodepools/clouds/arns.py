"""AWS ARNs as a cluster's settings name them: the right service and resource type per
field, in the cluster's partition (and region, for a regional resource), never a pattern.

An ARN is ``arn:<partition>:<service>:<region>:<account>:<resource>``
(docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html). IAM is global (no
region); a KMS key lives in one region and serves that region only
(docs.aws.amazon.com/kms/latest/developerguide/concepts.html, "AWS KMS keys": "KMS keys
... never leave the Region"). EKS takes an IAM role or user as an access entry's
principal, an IAM role as a node role, and the IAM OIDC provider whose
``oidc-provider/<issuer host and path>`` is the cluster's issuer for IRSA
(docs.aws.amazon.com/eks/latest/userguide/enable-iam-roles-for-service-accounts.html).
A ``*`` or ``?`` in an ARN is a pattern a policy may match, never a resource a field
can name. Pure: no provider SDK.
"""
from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import urlsplit

from nodepools.clouds.regions import AWS_PARTITIONS

_ARN = re.compile(r"arn:(?P<partition>[a-z-]+):(?P<service>[a-z0-9-]+):(?P<region>[a-z0-9-]*):"
                  r"(?P<account>[0-9]{12}):(?P<resource>[^\s]+)\Z")
# IAM names: letters, digits and +=,.@_- (path segments separated by '/').
_IAM_NAME = r"[\w+=,.@/-]+"
# The issuer of an EKS cluster: https://oidc.eks.<region>.amazonaws.com[.cn]/id/<id>.
_EKS_ISSUER = re.compile(r"oidc\.eks\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(\.cn)?/id/[0-9A-Za-z]+\Z")


class ArnKind(NamedTuple):
    """What a field's ARN must name: the service, resource forms and whether it is regional."""

    what: str
    service: str
    resource: re.Pattern[str]
    example: str
    regional: bool = False


IAM_ROLE = ArnKind("an IAM role", "iam", re.compile(rf"role/{_IAM_NAME}\Z"), "arn:aws:iam::<account>:role/<name>")
IAM_PRINCIPAL = ArnKind("an IAM role or user", "iam", re.compile(rf"(role|user)/{_IAM_NAME}\Z"),
                        "arn:aws:iam::<account>:role/<name>")
OIDC_PROVIDER = ArnKind("an IAM OIDC provider", "iam", re.compile(r"oidc-provider/[^/\s]+(/[^\s]*)?\Z"),
                        "arn:aws:iam::<account>:oidc-provider/<issuer host and path>")
KMS_KEY = ArnKind("a KMS key", "kms", re.compile(r"(key/[0-9A-Za-z-]+|alias/[\w/-]+)\Z"),
                  "arn:aws:kms:<region>:<account>:key/<key id>", regional=True)


def arn_problem(field: str, value: str, kind: ArnKind, partition: str | None, region: str | None = None) -> str | None:
    """Why ``value`` cannot be ``field``'s ARN of ``kind`` in ``partition`` (and ``region``, for a
    regional kind; None where unknown); None when it can."""
    if "*" in value or "?" in value:
        return f"{field} {value!r} has a wildcard: give the exact ARN of {kind.what} ({kind.example})"
    match = _ARN.match(value)
    if match is None or match["partition"] not in AWS_PARTITIONS or match["service"] != kind.service \
            or not kind.resource.match(match["resource"]) or bool(match["region"]) != kind.regional:
        return f"{field} {value!r} is not the ARN of {kind.what} ({kind.example})"
    if partition is not None and match["partition"] != partition:
        where = f"the cluster's region {region!r}" if region else "the cluster"
        return (f"{field} {value!r} is in partition {match['partition']!r}, but {where} is in partition "
                f"{partition!r}")
    if kind.regional and region is not None and match["region"] != region:
        return (f"{field} {value!r} is in region {match['region']!r}, but the cluster is in {region!r}: "
                f"{kind.what} serves its own region only")
    return None


def oidc_problems(provider_arn: str, issuer_url: str, region: str | None) -> list[tuple[str, str]]:
    """(field, why) for an OIDC issuer that is not https, not the provider ARN's issuer, or an EKS
    issuer of another region: the IRSA trust would name an issuer the cluster's tokens do not carry."""
    problems = []
    parts = urlsplit(issuer_url)
    if parts.scheme != "https" or not parts.hostname or parts.username or parts.password or parts.query \
            or parts.fragment:
        problems.append(("oidc_issuer_url", f"oidc_issuer_url {issuer_url!r} must be the https:// URL of the "
                                            "cluster's issuer (IAM OIDC providers take https only)"))
        return problems
    issuer = issuer_url.removeprefix("https://").rstrip("/")
    named = provider_arn.partition(":oidc-provider/")[2]
    if named and named != issuer:
        problems.append(("oidc_issuer_url", f"oidc_issuer_url {issuer_url!r} is not the issuer of oidc_provider_arn "
                                            f"(its issuer is {named!r}): the IRSA trust would name another issuer "
                                            "than the one the cluster's tokens carry; give one provider's ARN and "
                                            "URL"))
    eks = _EKS_ISSUER.match(issuer)
    if eks is not None and region is not None and eks["region"] != region:
        problems.append(("oidc_issuer_url", f"oidc_issuer_url {issuer_url!r} is an EKS issuer of region "
                                            f"{eks['region']!r}, but the cluster is in {region!r}"))
    return problems
