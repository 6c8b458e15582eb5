"""Cluster settings of a stack: create a cluster from networking ids, or attach to one by name.

Pure pydantic (no provider SDK): ``nodepools.backends.aws.cluster`` and
``nodepools.backends.gcp.cluster`` turn these into resources; the stack config
(``nodepools.config``) reads them from a stack file and the Python API builds them
directly. Everything a cluster needs comes from config, never from a
provider data source, so a stack previews without credentials.

Defaults: ``mode`` ``create``; ``kubernetes_version`` the newest minor both clouds serve
(``nodepools.spec.kube_versions.DEFAULT_KUBERNETES_VERSION``); EKS public
endpoint off; GKE private nodes and private endpoint on, release channel
``REGULAR``; ``deletion_protection`` on; ``system_nodes`` none (attach mode only:
the nodes the cluster already runs its add-ons on, so the stack may declare no
resident pool; docs/design.md section 9).
"""
from __future__ import annotations

import ipaddress
import re
from typing import ClassVar, Literal

from pydantic import Field, model_validator

from nodepools.clouds.aws import POOL_TAG_KEYS
from nodepools.clouds.gcp import PROJECT_ID, region_of
from nodepools.clouds.regions import aws_region_error, aws_tag_problems, gcp_location_error
from nodepools.spec.errors import Problems
from nodepools.spec.kube_versions import DEFAULT_KUBERNETES_VERSION, supported_minor_problem
from nodepools.spec.model import StrictModel
from nodepools.spec.pool_rules import duplicate_problems
from nodepools.spec.system_nodes import SystemNodes

_EKS_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}\Z")
_GKE_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?\Z")
_SUBNET = re.compile(r"^subnet-[0-9a-f]{8,17}\Z")
_VPC = re.compile(r"^vpc-[0-9a-f]{8,17}\Z")
_SG = re.compile(r"^sg-[0-9a-f]{8,17}\Z")
_CIDR = re.compile(r"\d{1,3}(\.\d{1,3}){3}/\d{1,2}\Z")
# A private cluster's control-plane range: exactly a /28 (hashicorp/terraform-provider-google,
# which pulumi-gcp bridges: resource_container_cluster.go, private_cluster_config.master_ipv4_cidr_block,
# ValidateFunc validation.IsCIDRNetwork(28, 28), "it must be a /28 subnet").
GKE_MASTER_PREFIX = 28
_ARN = re.compile(r"^arn:aws[a-z-]*:[a-z0-9-]+:")
_KMS_KEY = re.compile(r"projects/[^/]+/locations/(?P<location>[^/]+)/keyRings/[^/]+/cryptoKeys/[^/]+")

Mode = Literal["create", "attach"]


class _Cluster(StrictModel):
    name: str
    mode: Mode = "create"
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    deletion_protection: bool = True
    # Attach mode: how the Kubernetes provider reaches the cluster, without an invoke:
    # its endpoint and CA bundle, or a context of the deployer's kubeconfig.
    endpoint: str | None = None
    certificate_authority_data: str | None = None
    kubeconfig_context: str | None = None
    # Attach mode: the nodes that already run the cluster's add-ons.
    system_nodes: SystemNodes | None = None

    CREATE_ONLY: ClassVar[tuple[str, ...]] = ()
    CREATE_REQUIRED: ClassVar[tuple[str, ...]] = ()

    def _common(self, problems: Problems, name_rule: re.Pattern[str], name_text: str) -> None:
        if not name_rule.match(self.name):
            problems.add("name", f"cluster name {self.name!r} is invalid: {name_text}", self.name)
        supported_minor_problem(self.kubernetes_version, problems)
        if self.mode == "create":
            for field in ("endpoint", "certificate_authority_data", "kubeconfig_context"):
                if getattr(self, field) is not None:
                    problems.add(field, f"{field} is for mode 'attach' only: a created cluster wires the "
                                 "Kubernetes provider from its own outputs", getattr(self, field))
            for field in self.CREATE_REQUIRED:
                if not getattr(self, field):
                    problems.add(field, f"{field} is required to create a cluster (mode 'create')", None)
            if self.system_nodes is not None:
                problems.add("system_nodes", "system_nodes is for mode 'attach': a created cluster has no nodes "
                             "but the stack's pools, so its add-ons run on a resident pool (add one with "
                             "pool_class: resident)", self.system_nodes.model_dump(mode="json"))
            return
        for field in self.CREATE_ONLY:
            if field in self.model_fields_set:
                problems.add(field, f"{field} is for mode 'create' only: an attached cluster is not managed "
                             "by this stack", getattr(self, field))
        has_endpoint = self.endpoint is not None or self.certificate_authority_data is not None
        if has_endpoint and (self.endpoint is None or self.certificate_authority_data is None):
            missing = "endpoint" if self.endpoint is None else "certificate_authority_data"
            problems.add(missing, "mode 'attach' needs endpoint and certificate_authority_data together", None)
        if has_endpoint == (self.kubeconfig_context is not None):
            problems.add("mode", "mode 'attach' needs exactly one way to reach the cluster: endpoint + "
                         "certificate_authority_data, or kubeconfig_context", self.mode)
        if self.endpoint is not None and not self.endpoint.startswith("https://"):
            problems.add("endpoint", f"endpoint {self.endpoint!r} must start with https://", self.endpoint)


class EksClusterConfig(_Cluster):
    """An EKS cluster. ``subnet_ids`` (private subnets in >= 2 zones) host the
    control-plane ENIs and, unless a pool names its own, the nodes; needed in both
    modes because node groups need them and we never look them up."""

    cloud: Literal["aws"]
    region: str
    subnet_ids: list[str] = Field(min_length=2)
    vpc_id: str | None = None
    endpoint_public_access: bool = False
    public_access_cidrs: list[str] = Field(default_factory=list)
    kms_key_arn: str | None = None
    cluster_role_arn: str | None = None
    node_role_arn: str | None = None
    # Mode create: the IAM role or user given cluster admin through an access entry (the
    # cluster's creator gets none: docs/design.md section 10).
    admin_principal_arn: str | None = None
    log_types: list[Literal["api", "audit", "authenticator", "controllerManager", "scheduler"]] = Field(
        default_factory=lambda: ["api", "audit", "authenticator"])
    # Attach mode: the security group EKS created with the cluster (nodes need it: our
    # launch templates name their groups, so EKS stops adding it), and the existing
    # cluster's IRSA provider (else the autoscaler gets no IRSA role).
    cluster_security_group_id: str | None = None
    oidc_provider_arn: str | None = None
    oidc_issuer_url: str | None = None
    # AWS tags on every resource the stack creates (cluster, roles, key, node groups).
    tags: dict[str, str] = Field(default_factory=dict)

    CREATE_ONLY: ClassVar[tuple[str, ...]] = (
        "vpc_id", "endpoint_public_access", "public_access_cidrs", "kms_key_arn", "cluster_role_arn", "log_types",
        "deletion_protection", "admin_principal_arn")

    @model_validator(mode="after")
    def _check(self) -> "EksClusterConfig":
        problems = Problems()
        self._common(problems, _EKS_NAME, "1-100 letters, digits, '-' or '_', starting alphanumeric")
        if err := aws_region_error(self.region):
            problems.add("region", err, self.region)
        for i, subnet in enumerate(self.subnet_ids):
            if not _SUBNET.match(subnet):
                problems.add(("subnet_ids", i), f"{subnet!r} is not a subnet id (subnet-<8 or 17 hex>)", subnet)
        duplicate_problems("subnet_ids", self.subnet_ids, problems)
        for key, message in aws_tag_problems(self.tags, POOL_TAG_KEYS):
            problems.add("tags" if key is None else ("tags", key), message, self.tags if key is None else key)
        if self.vpc_id is not None and not _VPC.match(self.vpc_id):
            problems.add("vpc_id", f"{self.vpc_id!r} is not a VPC id (vpc-<8 or 17 hex>)", self.vpc_id)
        if self.mode == "create" and self.admin_principal_arn is None:
            problems.add("admin_principal_arn", "admin_principal_arn is required to create a cluster: the IAM role "
                         "(or user) given cluster admin through an access entry, e.g. the role that runs pulumi up "
                         "(arn:aws:iam::<account>:role/<name>); the cluster's creator gets no admin of its own", None)
        for field in ("kms_key_arn", "cluster_role_arn", "node_role_arn", "oidc_provider_arn", "admin_principal_arn"):
            value = getattr(self, field)
            if value is not None and not _ARN.match(value):
                problems.add(field, f"{field} {value!r} is not an ARN (arn:aws:...)", value)
        if self.mode == "attach" and self.cluster_security_group_id is None:
            problems.add("cluster_security_group_id", "mode 'attach' needs the cluster security group EKS created "
                         "(sg-...; the cluster's vpc_config.cluster_security_group_id): the nodes join through it",
                         None)
        if self.mode == "create" and self.cluster_security_group_id is not None:
            problems.add("cluster_security_group_id", "cluster_security_group_id is for mode 'attach': a created "
                         "cluster reports its own", self.cluster_security_group_id)
        if self.cluster_security_group_id is not None and not _SG.match(self.cluster_security_group_id):
            problems.add("cluster_security_group_id", f"{self.cluster_security_group_id!r} is not a security group "
                         "id (sg-<8 or 17 hex>)", self.cluster_security_group_id)
        if self.public_access_cidrs and not self.endpoint_public_access:
            problems.add("public_access_cidrs", "public_access_cidrs needs endpoint_public_access: true",
                         self.public_access_cidrs)
        if self.endpoint_public_access and not self.public_access_cidrs:
            problems.add("public_access_cidrs", "a public endpoint must name the CIDRs allowed to reach it "
                         "(0.0.0.0/0 is never the default)", [])
        _check_cidrs(problems, "public_access_cidrs", self.public_access_cidrs)
        if (self.oidc_provider_arn is None) != (self.oidc_issuer_url is None):
            problems.add("oidc_provider_arn", "oidc_provider_arn and oidc_issuer_url go together", None)
        elif self.mode == "attach" and self.oidc_provider_arn is None:
            problems.add("oidc_provider_arn", "mode 'attach' on aws needs oidc_provider_arn and oidc_issuer_url: "
                         "cluster-autoscaler assumes its IAM role through the cluster's OIDC provider (IRSA)", None)
        if self.mode == "create" and self.oidc_provider_arn is not None:
            problems.add("oidc_provider_arn", "a created cluster gets its own OIDC provider; oidc_provider_arn "
                         "is for mode 'attach'", self.oidc_provider_arn)
        problems.raise_if_any("EksClusterConfig")
        return self


class GkeClusterConfig(_Cluster):
    """A GKE Standard cluster with private nodes, Workload Identity and shielded nodes."""

    cloud: Literal["gcp"]
    project: str
    location: str
    # Node locations for pools that name none (a regional cluster's zones).
    zones: list[str] = Field(default_factory=list)
    network: str | None = None
    subnetwork: str | None = None
    pods_range_name: str | None = None
    services_range_name: str | None = None
    master_ipv4_cidr_block: str = "172.16.0.0/28"
    enable_private_endpoint: bool = True
    master_authorized_cidrs: list[str] = Field(default_factory=list)
    release_channel: Literal["RAPID", "REGULAR", "STABLE", "EXTENDED"] = "REGULAR"
    # Application-layer secrets encryption (CIS GKE 5.3.1): on unless turned off explicitly,
    # and then with the Cloud KMS key that encrypts Kubernetes secrets (docs/design.md section 10).
    secrets_encryption: bool = True
    database_encryption_key: str | None = None
    # GCP labels on the cluster and every node VM and disk.
    resource_labels: dict[str, str] = Field(default_factory=dict)

    CREATE_ONLY: ClassVar[tuple[str, ...]] = (
        "network", "subnetwork", "pods_range_name", "services_range_name", "master_ipv4_cidr_block",
        "enable_private_endpoint", "master_authorized_cidrs", "release_channel", "database_encryption_key",
        "deletion_protection", "secrets_encryption")
    CREATE_REQUIRED: ClassVar[tuple[str, ...]] = ("network", "subnetwork", "pods_range_name", "services_range_name")

    @model_validator(mode="after")
    def _check(self) -> "GkeClusterConfig":
        problems = Problems()
        self._common(problems, _GKE_NAME, "1-40 lowercase letters, digits or '-', starting with a letter")
        if not PROJECT_ID.match(self.project):
            problems.add("project", f"project {self.project!r} is not a GCP project id (6-30 lowercase letters, "
                         "digits or '-', starting with a letter)", self.project)
        _check_cidrs(problems, "master_authorized_cidrs", self.master_authorized_cidrs)
        if _check_cidrs(problems, "master_ipv4_cidr_block", [self.master_ipv4_cidr_block], single=True) and \
                ipaddress.ip_network(self.master_ipv4_cidr_block, strict=False).prefixlen != GKE_MASTER_PREFIX:
            problems.add("master_ipv4_cidr_block", f"master_ipv4_cidr_block {self.master_ipv4_cidr_block!r} must be "
                         f"a /{GKE_MASTER_PREFIX}: GKE's private control-plane range is exactly 16 addresses",
                         self.master_ipv4_cidr_block)
        self._secrets_encryption(problems)
        if self.zones and not all(z.startswith(self.location) for z in self.zones):
            problems.add("zones", f"zones {self.zones} must lie in location {self.location!r}", self.zones)
        problems.raise_if_any("GkeClusterConfig")
        return self

    def _secrets_encryption(self, problems: Problems) -> None:
        if self.mode != "create":
            return
        key = self.database_encryption_key
        if self.secrets_encryption and key is None:
            problems.add("database_encryption_key", "database_encryption_key is required to create a cluster: the "
                         "Cloud KMS key (projects/<p>/locations/<cluster region>/keyRings/<r>/cryptoKeys/<k>) that "
                         "encrypts Kubernetes secrets, with roles/cloudkms.cryptoKeyEncrypterDecrypter for the GKE "
                         "service agent; or set secrets_encryption: false to opt out", None)
        elif not self.secrets_encryption and key is not None:
            problems.add("secrets_encryption", "secrets_encryption: false leaves database_encryption_key unused: "
                         "drop one of them", self.secrets_encryption)
        elif key is not None:
            match = _KMS_KEY.fullmatch(key)
            if match is None:
                problems.add("database_encryption_key", f"{key!r} is not a Cloud KMS key name (projects/<p>/"
                             "locations/<l>/keyRings/<r>/cryptoKeys/<k>)", key)
            elif gcp_location_error(self.location) is None and match["location"] != region_of(self.location):
                problems.add("database_encryption_key", f"the key lives in {match['location']!r}; GKE needs it "
                             f"in the cluster's region {region_of(self.location)!r}", key)


def _check_cidrs(problems: Problems, field: str, cidrs: list[str], single: bool = False) -> bool:
    """Each entry a.b.c.d/n with a-d 0-255 and n 0-32 (host bits may be set: the clouds
    take the network); True when all are."""
    ok = True
    for i, cidr in enumerate(cidrs):
        try:
            valid = bool(_CIDR.match(cidr)) and ipaddress.ip_network(cidr, strict=False).version == 4
        except ValueError:
            valid = False
        if not valid:
            ok = False
            problems.add(field if single else (field, i), f"{cidr!r} is not an IPv4 CIDR (a.b.c.d/n: a-d 0-255, "
                         "n 0-32)", cidr)
    return ok


ClusterConfig = EksClusterConfig | GkeClusterConfig
