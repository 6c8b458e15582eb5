"""A GKE cluster for a stack: created from networking ids, or attached by name.

Created clusters are GKE Standard, VPC-native on the given network and secondary
ranges, with private nodes (and by default a private endpoint), Workload
Identity, shielded nodes, Dataplane V2, a release channel and application-layer
secrets encryption with the Cloud KMS key config names (unless config opts out
with ``secrets_encryption: false``). The default node pool is
removed: every pool comes from the stack's config. No data source is read.
"""
from __future__ import annotations

from typing import Any

import pulumi
import pulumi_gcp as gcp

from nodepools.backends.gcp.target import GkeCluster
from nodepools.backends.gcp.context import GkeContext
from nodepools.backends.gcp.kubeconfig import kubeconfig, workload_pool
from nodepools.clouds.cluster_settings import GkeClusterConfig
from nodepools.backends.connection import ClusterConnection, PlannedTarget, kubernetes_provider


def gke_cluster(config: GkeClusterConfig, opts: pulumi.ResourceOptions | None = None,
                planned: PlannedTarget | None = None) -> ClusterConnection:
    """Create (``mode: create``) or attach to (``mode: attach``) the cluster ``config`` describes;
    the connection's target is ``planned``'s (``planned_gke_target(config)``) when given."""
    planned = planned or planned_gke_target(config)
    return planned.connect(lambda: (_create if config.mode == "create" else _attach)(config, opts, planned))


def planned_gke_target(config: GkeClusterConfig) -> PlannedTarget:
    """The pools' target on this cluster, to check the pools against before the cluster
    registers: attached, by the config's name; created, on the created cluster's name output."""
    if config.mode == "create":
        return PlannedTarget(lambda **values: gke_target(config, **values), ("cluster_name",))
    return PlannedTarget(lambda **values: gke_target(config, **values), known={"cluster_name": config.name})


def gke_target(config: GkeClusterConfig, cluster_name: Any) -> GkeCluster:
    """The pools' target on the cluster named ``cluster_name`` (a name or the cluster's output)."""
    return GkeCluster(cluster_name, location=config.location, project=config.project,
                      default_zones=tuple(config.zones), resource_labels=dict(config.resource_labels))


def _create(config: GkeClusterConfig, opts: pulumi.ResourceOptions | None,
            planned: PlannedTarget) -> ClusterConnection:
    name = config.name
    extra: dict[str, Any] = {}
    if config.secrets_encryption and config.database_encryption_key:
        extra["database_encryption"] = gcp.container.ClusterDatabaseEncryptionArgs(
            state="ENCRYPTED", key_name=config.database_encryption_key)
    if config.zones and not GkeContext(project=config.project, location=config.location).is_zonal:
        extra["node_locations"] = list(config.zones)
    cluster = gcp.container.Cluster(
        name, name=name, project=config.project, location=config.location,
        # Pools come from config; GKE needs one node to create the cluster, then drops it.
        remove_default_node_pool=True, initial_node_count=1,
        network=config.network, subnetwork=config.subnetwork, networking_mode="VPC_NATIVE",
        ip_allocation_policy=gcp.container.ClusterIpAllocationPolicyArgs(
            cluster_secondary_range_name=config.pods_range_name,
            services_secondary_range_name=config.services_range_name),
        private_cluster_config=gcp.container.ClusterPrivateClusterConfigArgs(
            enable_private_nodes=True, enable_private_endpoint=config.enable_private_endpoint,
            master_ipv4_cidr_block=config.master_ipv4_cidr_block),
        master_authorized_networks_config=gcp.container.ClusterMasterAuthorizedNetworksConfigArgs(
            cidr_blocks=[gcp.container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                cidr_block=cidr, display_name=f"authorized-{i}")
                for i, cidr in enumerate(config.master_authorized_cidrs)]),
        workload_identity_config=gcp.container.ClusterWorkloadIdentityConfigArgs(
            workload_pool=workload_pool(config.project)),
        release_channel=gcp.container.ClusterReleaseChannelArgs(channel=config.release_channel),
        min_master_version=config.kubernetes_version,
        enable_shielded_nodes=True,
        datapath_provider="ADVANCED_DATAPATH",
        deletion_protection=config.deletion_protection,
        resource_labels=dict(config.resource_labels) or None,
        opts=opts, **extra,
    )
    ca_data = cluster.master_auth.apply(lambda auth: auth.cluster_ca_certificate if auth else None)
    config_json = pulumi.Output.all(cluster.name, cluster.endpoint, ca_data).apply(
        lambda args: kubeconfig(args[0], args[1], args[2]))
    provider = kubernetes_provider(name, opts, kubeconfig=config_json, cluster=cluster)
    return ClusterConnection(planned.bind(cluster_name=cluster.name), provider, cluster, {
        "name": cluster.name, "cloud": "gcp", "mode": "create", "project": config.project,
        "location": config.location, "endpoint": cluster.endpoint,
        "workloadPool": workload_pool(config.project), "kubernetesVersion": config.kubernetes_version,
    })


def _attach(config: GkeClusterConfig, opts: pulumi.ResourceOptions | None,
            planned: PlannedTarget) -> ClusterConnection:
    name = config.name
    provider = kubernetes_provider(name, opts, context=config.kubeconfig_context, kubeconfig=kubeconfig(
        name, config.endpoint or "", config.certificate_authority_data or ""))
    return ClusterConnection(planned.bind(), provider, None, {
        "name": name, "cloud": "gcp", "mode": "attach", "project": config.project, "location": config.location,
        "endpoint": config.endpoint, "kubernetesVersion": config.kubernetes_version,
    })
