"""GKE backend: node pools on Google Kubernetes Engine.

``GkeCluster`` is the ``ClusterTarget``; ``translate`` is the pure
``PoolSpec -> node pool arguments`` step it uses, exported for tests and for
users who register pools themselves; ``gke_cluster`` creates (or attaches to) the cluster
a ``GkeClusterConfig`` describes.
"""
from nodepools.extras import require_extra

# Before any module of the backend imports its SDK: a missing extra is named, not a bare ModuleNotFoundError.
require_extra("gcp", "the GKE backend (nodepools.backends.gcp)")

from nodepools.backends.gcp.context import GkeContext
from nodepools.backends.gcp.tables import GpuDriverVersion
from nodepools.backends.gcp.target import GkeCluster
from nodepools.backends.gcp.translate import NodePoolPlan, translate
from nodepools.backends.gcp.cluster import gke_cluster, planned_gke_target
from nodepools.clouds.cluster_settings import GkeClusterConfig

__all__ = ["GkeCluster", "GkeClusterConfig", "GkeContext", "GpuDriverVersion", "NodePoolPlan", "gke_cluster",
           "planned_gke_target", "translate"]
