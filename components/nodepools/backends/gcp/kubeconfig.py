"""How a deployer reaches a GKE cluster: a plugin-based kubeconfig and the Workload Identity pool.

Pure (no provider SDK), for the stack's cluster module and for programs that
bring their own cluster.
"""
from __future__ import annotations

import json

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
AUTH_PLUGIN = "gke-gcloud-auth-plugin"


def kubeconfig(cluster_name: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig (JSON) that authenticates through ``gke-gcloud-auth-plugin``: it holds no secret."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": cluster_name,
        "clusters": [{"name": cluster_name, "cluster": {
            "server": endpoint if endpoint.startswith("https://") else f"https://{endpoint}",
            "certificate-authority-data": ca_data}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "users": [{"name": cluster_name, "user": {"exec": {
            "apiVersion": EXEC_API_VERSION, "command": AUTH_PLUGIN, "provideClusterInfo": True,
            "interactiveMode": "Never",
            "installHint": "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
        }}}],
    }, sort_keys=True)


def workload_pool(project: str) -> str:
    return f"{project}.svc.id.goog"
