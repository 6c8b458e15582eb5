"""``GkePlatform``: every pool of a GKE cluster and its guardrails, for any Pulumi language.

The GKE twin of ``nodepools.multilang.eks``: a ``GkeCluster`` target and
``PlatformArgs`` validated as in Python, then the existing ``Platform`` as child.
"""
from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired

from nodepools.backends.gcp import GkeCluster
from nodepools.multilang.convert import require_lists, validated
from nodepools.multilang.guardrails_args import Guardrails
from nodepools.multilang.names import SHARED_ARG_TYPES, field_names
from nodepools.multilang.outputs import build_platform
from nodepools.spec.outputs import PoolOutputs
from nodepools.multilang.pool_args import Pool

TYPE = "nodepools:index:GkePlatform"


class GkePlatformArgs(TypedDict):
    """An existing GKE Standard cluster (by name, project and location), its pools and its guardrails."""

    cluster_name: pulumi.Input[str]
    """The cluster's name or id (projects/P/locations/L/clusters/C)."""
    project: str
    """The project id the cluster lives in."""
    location: str
    """The cluster's region (regional cluster) or zone (zonal cluster)."""
    kubernetes_provider: k8s.Provider
    """The Kubernetes provider of this cluster; every in-cluster guardrail is deployed through it."""
    pools: list[Pool]
    """The cluster's node pools, 1 to 50; exactly one resident pool may stay untainted."""
    default_zones: NotRequired[list[str]]
    """The cluster's node locations, for pools that give no zones. Default: GKE's."""
    node_service_account: NotRequired[pulumi.Input[str]]
    """Email of an existing service account for every pool's nodes (never the Compute Engine default).
    Default: each pool gets its own account with only the node roles."""
    extra_node_roles: NotRequired[list[str]]
    """Roles added to the pools' own service accounts, e.g. roles/artifactregistry.reader. Default: none."""
    resource_labels: NotRequired[dict[str, str]]
    """GCP labels for the node VMs and disks. Default: none."""
    gpu_driver_version: NotRequired[str]
    """The driver GKE installs on GPU nodes, one of DEFAULT, LATEST. Default: DEFAULT."""
    private_nodes: NotRequired[bool]
    """Nodes get internal IPs only. Default: true."""
    boot_disk_kms_key: NotRequired[pulumi.Input[str]]
    """A Cloud KMS key for the boot disks. Default: Google-managed encryption."""
    guardrails: NotRequired[Guardrails]
    """The in-cluster guardrails. Default: every guardrail at its default."""


NAMES = field_names((GkePlatformArgs, *SHARED_ARG_TYPES))


def gke_target(args: GkePlatformArgs) -> GkeCluster:
    """The ``GkeCluster`` the arguments describe, values as sent (raises its own ValidationError)."""
    require_lists(args, ("default_zones", "extra_node_roles"))
    return GkeCluster(
        args["cluster_name"], location=args["location"], project=args["project"],
        node_service_account=args.get("node_service_account"), resource_labels=args.get("resource_labels"),
        default_zones=args.get("default_zones", []), gpu_driver_version=args.get("gpu_driver_version", "DEFAULT"),
        private_nodes=args.get("private_nodes", True), extra_node_roles=args.get("extra_node_roles", []),
        boot_disk_kms_key=args.get("boot_disk_kms_key"))


class GkePlatform(pulumi.ComponentResource):
    """Node pools (resident, batch, GPU inference, GPU spot training) on an existing GKE Standard cluster,
    with in-cluster guardrails: PriorityClasses, namespaces with quotas and LimitRanges, Kueue and
    throttling alerts. Inputs are validated with the Python API's rules before anything registers; errors
    name the input as this schema spells it."""

    pools: pulumi.Output[dict[str, PoolOutputs]]
    """Every pool by name: its class, capacity, sizes, GPUs, node labels, node taints and workload contract."""
    namespaces: pulumi.Output[dict[str, str]]
    """The namespace of each workload class present, by class."""
    local_queues: pulumi.Output[dict[str, str]]
    """The Kueue LocalQueue of each queued workload class, by class (empty without Kueue)."""

    def __init__(self, name: str, args: GkePlatformArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        platform = validated("GkePlatform", lambda: gke_target(args), args, NAMES)
        super().__init__(TYPE, name, {}, opts)
        self.pools, self.namespaces, self.local_queues = build_platform(self, name, platform,
                                                                        args["kubernetes_provider"])
