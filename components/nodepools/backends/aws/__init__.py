"""AWS backend: EKS managed node groups with secure launch templates, node IAM,
cluster-autoscaler ASG hints and the autoscaler's IRSA role.

``translate_pool`` is the pure translation (PoolSpec -> plain data);
``EksCluster`` is the ClusterTarget the pool components call; ``eks_cluster`` creates
(or attaches to) the cluster an ``EksClusterConfig`` describes.
"""
from nodepools.extras import require_extra

# Before any module of the backend imports its SDK: a missing extra is named, not a bare ModuleNotFoundError.
require_extra("aws", "the AWS backend (nodepools.backends.aws)")

from nodepools.backends.aws.target import EksCluster
from nodepools.backends.aws.translate import EksContext, EksPoolPlan, NodeRolePlan, translate_pool
from nodepools.backends.aws.tags import AsgTag
from nodepools.backends.aws.cluster import eks_cluster, planned_eks_target
from nodepools.clouds.cluster_settings import EksClusterConfig

__all__ = ["AsgTag", "EksCluster", "EksClusterConfig", "EksContext", "EksPoolPlan", "NodeRolePlan", "eks_cluster",
           "planned_eks_target", "translate_pool"]
