"""How a deployer reaches an EKS cluster: a token-based kubeconfig (its ARN partition:
``nodepools.clouds.regions.aws_partition``).

Pure (no provider SDK): the stack's cluster module and programs that bring their
own cluster (``examples/existing-cluster``) both build their Kubernetes provider
from ``kubeconfig``.
"""
from __future__ import annotations

import json

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def kubeconfig(cluster_name: str, region: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig (JSON) that authenticates through ``aws eks get-token``: it holds no secret."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": cluster_name,
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": ca_data}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "users": [{"name": cluster_name, "user": {"exec": {
            "apiVersion": EXEC_API_VERSION, "command": "aws", "interactiveMode": "Never",
            "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
        }}}],
    }, sort_keys=True)
