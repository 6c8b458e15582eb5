"""EKS node group facts, as tables (no logic): AMI types, update policy, node IAM, API limits.

Enum values are the EKS API's (``AWS::EKS::Nodegroup``; docs/kubernetes-facts.md
section 1.3); the pure translator only looks things up here. The spellings the
inventory reads back live in ``nodepools.clouds``: capacity types in ``aws``, taint effects in ``taints``.
"""
from __future__ import annotations

from nodepools.vocabulary import Architecture, PoolClass

# (pool has GPUs, architecture) -> amiType. AL2023 only: AL2 is end of life, and
# the AL2023 NVIDIA images ship the driver but not the device plugin
# (docs/kubernetes-facts.md section 3), which the guardrails install.
AMI_TYPES: dict[tuple[bool, Architecture], str] = {
    (False, Architecture.X86_64): "AL2023_x86_64_STANDARD",
    (False, Architecture.ARM64): "AL2023_ARM_64_STANDARD",
    (True, Architecture.X86_64): "AL2023_x86_64_NVIDIA",
    (True, Architecture.ARM64): "AL2023_ARM_64_NVIDIA",
}

# The root device of each AMI: a launch-template block device on any other name
# adds a second, unused volume and leaves the root at the AMI's default size.
ROOT_DEVICE_NAMES: dict[str, str] = {ami: "/dev/xvda" for ami in AMI_TYPES.values()}

ROOT_VOLUME_TYPE = "gp3"

# Always-on classes lose at most one node at a time during an AMI/template
# rollout; scale-to-zero classes are mostly empty and roll a third at a time.
UPDATE_CONFIGS: dict[PoolClass, dict[str, int]] = {
    PoolClass.RESIDENT: {"max_unavailable": 1},
    PoolClass.GPU_INFERENCE: {"max_unavailable": 1},
    PoolClass.BATCH: {"max_unavailable_percentage": 33},
    PoolClass.GPU_TRAINING: {"max_unavailable_percentage": 33},
}

# aws.ec2.PlacementGroup ``strategy`` of compact pools: instances close together in one zone.
PLACEMENT_STRATEGY_CLUSTER = "cluster"

# The one path the autoscaler owns. Schema (camelCase) spelling: the snake_case
# form is silently ignored (docs/pulumi-facts.md, "Resource options").
NODE_GROUP_IGNORE_CHANGES = ["scalingConfig.desiredSize"]

# Managed policies of the node role: joining the cluster (WorkerNode), pulling
# images (ECR pull-only, narrower than ReadOnly) and, unless the VPC CNI runs
# with its own IRSA/Pod Identity role, assigning pod IPs (CNI).
NODE_POLICY_WORKER = "AmazonEKSWorkerNodePolicy"
NODE_POLICY_ECR_PULL = "AmazonEC2ContainerRegistryPullOnly"
NODE_POLICY_CNI = "AmazonEKS_CNI_Policy"


# EKS API limits (API_CreateNodegroup, API_Taint): label keys and values 1-63
# characters, taint keys 1-63, at most 50 taints per node group.
EKS_LABEL_MAX = 63
EKS_TAINT_KEY_MAX = 63
EKS_TAINTS_MAX = 50
# Amazon EC2 Auto Scaling user guide, "Tag Auto Scaling groups and instances", tag restrictions:
# at most 50 tags per Auto Scaling group. cluster-autoscaler reads a node group's labels and
# taints from its group's tags (backends/aws/tags.py), one tag each.
ASG_TAGS_MAX = 50
