"""``GkeCluster``: the GKE implementation of the ``ClusterTarget`` protocol."""
from __future__ import annotations

from typing import Mapping, Sequence

import pulumi
from pydantic import ValidationError

from nodepools.backends.base import RegisteredPool, at_the_gate
from nodepools.backends.gcp import tables
from nodepools.backends.gcp.checks import pool_problems
from nodepools.backends.gcp.context import GkeContext
from nodepools.backends.gcp.register import register_node_pool
from nodepools.backends.gcp.translate import translate_checked
from nodepools.clouds.gcp import cluster_name_problem, kms_key_problem
from nodepools.spec.errors import Problems, message_of
from nodepools.spec.model import DEFERRED
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud


class GkeCluster:
    """An existing (or same-program) GKE Standard cluster that pools are added to.

    Args (defaults in brackets):
        cluster_name: the cluster's name or id (``projects/p/locations/l/clusters/c``); may be an output.
        location: the cluster's region (regional cluster) or zone (zonal cluster).
        project: the project id the cluster lives in.
        node_service_account: email of an existing service account for every pool's nodes
            [None: each pool gets its own account with only ``node_roles``]. The Compute
            Engine default service account is refused.
        resource_labels: GCP labels for the node VMs and disks [none]; each pool adds
            ``nodepools-pool`` and ``nodepools-pool-class``.
        default_zones: the cluster's node locations, for pools that give no zones [GKE's default].
        gpu_driver_version: driver GKE installs on GPU nodes [DEFAULT]; never left unset.
        private_nodes: nodes get internal IPs only [True]; None leaves it to the cluster.
        extra_node_roles: roles added to the pools' own service accounts, e.g.
            ``roles/artifactregistry.reader`` for private images [none].
        boot_disk_kms_key: a Cloud KMS key for the boot disks [Google-managed encryption].

    Raises a pydantic ValidationError naming every bad argument.
    """

    cloud = Cloud.GCP

    def __init__(
        self,
        cluster_name: pulumi.Input[str],
        *,
        location: str,
        project: str,
        node_service_account: pulumi.Input[str] | None = None,
        resource_labels: Mapping[str, str] | None = None,
        default_zones: Sequence[str] = (),
        gpu_driver_version: tables.GpuDriverVersion | str = tables.GpuDriverVersion.DEFAULT,
        private_nodes: bool | None = True,
        extra_node_roles: Sequence[str] = (),
        boot_disk_kms_key: pulumi.Input[str] | None = None,
    ) -> None:
        problems = Problems()
        for field, value in (("cluster_name", cluster_name), ("node_service_account", node_service_account),
                             ("boot_disk_kms_key", boot_disk_kms_key)):
            if value is not None and at_the_gate(value) is not DEFERRED and not isinstance(value, str):
                problems.add(field, "Input should be a valid string", value)
        for field, value in (("default_zones", default_zones), ("extra_node_roles", extra_node_roles)):
            if not isinstance(value, (list, tuple)):
                problems.add(field, "Input should be a valid list", value)
        if problems:
            problems.raise_if_any("GkeCluster")
        if isinstance(cluster_name, str) and (why := cluster_name_problem(cluster_name, ids=True)):
            problems.add("cluster_name", why, cluster_name)
        if isinstance(node_service_account, str) and (
                node_service_account.endswith(tables.DEFAULT_COMPUTE_SA_SUFFIX) or "@" not in node_service_account):
            problems.add("node_service_account", f"{node_service_account!r} is not allowed: give the email of a "
                         "dedicated service account (never the Compute Engine default "
                         f"'<number>{tables.DEFAULT_COMPUTE_SA_SUFFIX}'), or None to let each pool create its "
                         "own", node_service_account)
        if node_service_account is not None and extra_node_roles:
            problems.add("extra_node_roles", "extra_node_roles are granted only to the service accounts pools "
                         "create; with node_service_account given, grant roles to that account yourself "
                         "(allowed: empty extra_node_roles)", list(extra_node_roles))
        try:
            self.context = GkeContext(
                project=project, location=location, default_zones=tuple(default_zones),
                gpu_driver_version=gpu_driver_version,
                resource_labels={} if resource_labels is None else resource_labels, private_nodes=private_nodes, node_roles=(*tables.DEFAULT_NODE_ROLES, *extra_node_roles),
            )
        except ValidationError as err:
            for item in err.errors(include_url=False):
                problems.add(_public_loc(tuple(item["loc"])), message_of(item), item.get("input"))
        else:
            if isinstance(boot_disk_kms_key, str) and (
                    why := kms_key_problem("boot_disk_kms_key", boot_disk_kms_key, self.context.region)):
                problems.add("boot_disk_kms_key", why, boot_disk_kms_key)
        problems.raise_if_any("GkeCluster")
        self.region = self.context.region
        self._cluster_name = cluster_name
        self.node_service_account = node_service_account
        self.boot_disk_kms_key = boot_disk_kms_key

    @property
    def cluster_name(self) -> pulumi.Input[str]:
        return self._cluster_name

    @property
    def location(self) -> str:
        return self.context.location

    @property
    def project(self) -> str:
        return self.context.project

    def check_pool(self, spec: PoolSpec) -> None:
        pool_problems(spec, self.context).raise_if_any("GkeNodePool")

    def register_pool(self, spec: PoolSpec, parent: pulumi.Resource) -> RegisteredPool:
        """Register the pool under ``parent``; ``spec`` has passed ``check_pool`` (not run again)."""
        return register_node_pool(
            translate_checked(spec, self.context), parent=parent, cluster=self._cluster_name, project=self.project,
            location=self.location, service_account=self.node_service_account,
            boot_disk_kms_key=self.boot_disk_kms_key,
        )

    def check_region(self, region: str) -> None:
        """A platform's ``region`` must be the cluster's (its location's region)."""
        if region != self.context.region:
            problems = Problems()
            problems.add("region", f"region {region!r} is not the cluster's: its location {self.location!r} is in "
                         f"{self.context.region!r}", region)
            problems.raise_if_any("GkeCluster")

    def check_cluster_autoscaler_identity(self, namespace: str, service_account: str) -> None:
        """Nothing to check: GKE needs no autoscaler identity."""

    def register_cluster_autoscaler_identity(self, namespace: str, service_account: str,
                                             parent: pulumi.Resource) -> pulumi.Output[str] | None:
        """None: GKE runs its own autoscaler, which needs no identity in the cluster."""
        return None


def _public_loc(loc: tuple) -> tuple:
    """Context field -> constructor argument (extra roles sit after the default ones)."""
    if loc[:1] == ("node_roles",):
        return ("extra_node_roles", *((loc[1] - len(tables.DEFAULT_NODE_ROLES),) if len(loc) > 1 else ()), *loc[2:])
    return loc
