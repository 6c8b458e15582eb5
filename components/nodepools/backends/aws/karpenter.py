"""PoolSpec -> Karpenter ``NodePool`` + ``EC2NodeClass`` objects, as plain data (pure).

The same spec and contract as a managed node group (``translate.py``): the
pool's node labels and taints go into the NodePool's template, so a workload's
contract is the same whichever provisioner builds the pool (docs/design.md
section 7). Upstream facts are those of Karpenter v1.14.1 (the pinned chart;
aws/karpenter-provider-aws: pkg/apis/crds/*.yaml@v1.14.1); tests validate every
object against those CRD schemas.

- Capacity: on-demand only for resident and gpu-inference (the spec refuses
  spot there); spot for batch/training, plus on-demand only with
  ``karpenter.on_demand_fallback`` (Karpenter then prefers spot).
- ``spec.limits`` = ``max_nodes`` of the pool's largest instance type (cpu,
  memory and, for GPU pools, ``nvidia.com/gpu``): the pool can never buy more
  than its spec allows.
- Disruption: ``WhenEmpty`` for batch and gpu-training (consolidation must never
  kill running jobs), ``WhenEmptyOrUnderutilized`` with a one-node budget for
  resident and gpu-inference (replicas move one node at a time).
- Nodes carry cluster-autoscaler's scale-down-disabled annotation and no ASG
  tags: the autoscaler, if it runs for managed groups, leaves them alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nodepools import vocabulary as v
from nodepools.backends.aws.translate import (EksContext, effective_subnets, group_labels, node_security_groups,
                                              resource_tags)
from nodepools.spec.karpenter import options
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Architecture, CapacityType, PoolClass

NODE_POOL_API = "karpenter.sh/v1"
NODE_CLASS_GROUP = "karpenter.k8s.aws"
NODE_CLASS_API = f"{NODE_CLASS_GROUP}/v1"
NODE_CLASS_KIND = "EC2NodeClass"
# AL2023 EKS-optimized AMI release v20260520 (amazon-eks-node-al2023-*-v20260520,
# the release aws/karpenter-provider-aws: test/suites/ami/suite_test.go@v1.14.1
# pins). Pinned, never @latest: an AMI change replaces every node (drift).
# Karpenter picks the NVIDIA variant of the alias for GPU instance types.
AMI_ALIAS = "al2023@v20260520"
ROOT_DEVICE = "/dev/xvda"
ROOT_VOLUME_TYPE = "gp3"
KUBE_ARCH = {Architecture.X86_64: "amd64", Architecture.ARM64: "arm64"}
KARPENTER_CAPACITY = {CapacityType.ON_DEMAND: v.KARPENTER_CAPACITY_ON_DEMAND, CapacityType.SPOT: v.KARPENTER_CAPACITY_SPOT}
# Consolidation must never evict running jobs: empty nodes only.
WHEN_EMPTY_CLASSES = (PoolClass.BATCH, PoolClass.GPU_TRAINING)
CONSOLIDATE_AFTER = "10m"
# Resident and inference replicas move one node at a time.
DISRUPTION_BUDGET_NODES = "1"


@dataclass(frozen=True)
class KarpenterPoolPlan:
    """One Karpenter pool: both objects in Kubernetes shape; ``node_labels`` as nodes carry them."""

    prefix: str
    node_pool: dict[str, Any]
    node_class: dict[str, Any]
    node_labels: dict[str, str]


def capacity_values(spec: PoolSpec) -> list[str]:
    values = [KARPENTER_CAPACITY[spec.capacity]]
    if spec.capacity is CapacityType.SPOT and options(spec).on_demand_fallback:
        values.append(v.KARPENTER_CAPACITY_ON_DEMAND)
    return values


def requirements(spec: PoolSpec) -> list[dict[str, Any]]:
    return [
        {"key": v.LABEL_KARPENTER_CAPACITY_TYPE, "operator": "In", "values": capacity_values(spec)},
        {"key": v.LABEL_INSTANCE_TYPE, "operator": "In", "values": list(spec.instance_types)},
        {"key": v.LABEL_ARCH, "operator": "In", "values": [KUBE_ARCH[spec.architecture]]},
        {"key": v.LABEL_OS, "operator": "In", "values": ["linux"]},
    ]


def limits(spec: PoolSpec) -> dict[str, str]:
    """``max_nodes`` of the largest listed type: Karpenter counts node capacity against these."""
    largest_cpu = max(t.vcpu for t in spec.instances)
    largest_mib = max(int(t.memory_gib * 1024) for t in spec.instances)
    out = {"cpu": str(largest_cpu * spec.max_nodes), "memory": f"{largest_mib * spec.max_nodes}Mi"}
    if spec.has_gpu:
        out[v.GPU_RESOURCE] = str(spec.gpus_per_node * spec.max_nodes)
    return out


def disruption(spec: PoolSpec) -> dict[str, Any]:
    if spec.pool_class in WHEN_EMPTY_CLASSES:
        return {"consolidationPolicy": "WhenEmpty", "consolidateAfter": CONSOLIDATE_AFTER}
    return {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": CONSOLIDATE_AFTER,
            "budgets": [{"nodes": DISRUPTION_BUDGET_NODES}]}


def node_pool(spec: PoolSpec, node_class_name: str) -> dict[str, Any]:
    return {
        "apiVersion": NODE_POOL_API, "kind": "NodePool",
        "metadata": {"name": spec.name, "labels": {v.LABEL_POOL: spec.name, v.LABEL_POOL_CLASS: spec.pool_class.value}},
        "spec": {
            "template": {
                "metadata": {"labels": group_labels(spec),
                             "annotations": {v.ANNOTATION_CA_SCALE_DOWN_DISABLED: "true"}},
                "spec": {
                    "nodeClassRef": {"group": NODE_CLASS_GROUP, "kind": NODE_CLASS_KIND, "name": node_class_name},
                    "requirements": requirements(spec),
                    "taints": [t.as_k8s() for t in spec.node_taints],
                    "expireAfter": f"{options(spec).expire_after_hours}h",
                },
            },
            "limits": limits(spec),
            "disruption": disruption(spec),
        },
    }


def node_class(spec: PoolSpec, ctx: EksContext, instance_profile_name: Any) -> dict[str, Any]:
    """Secure node defaults, as the managed groups' launch templates: IMDSv2 with hop
    limit 1 (pods cannot reach the node role), encrypted root volume, no public IP,
    a pinned AMI; subnets and security groups by id (no discovery tags needed).
    The node role comes as the instance profile this stack creates for it, so the
    controller needs no IAM write permission (``karpenter_iam``)."""
    ebs: dict[str, Any] = {"volumeSize": f"{spec.disk_size_gib}Gi", "volumeType": ROOT_VOLUME_TYPE,
                           "encrypted": True, "deleteOnTermination": True}
    if ctx.ebs_kms_key_arn is not None:
        ebs["kmsKeyID"] = ctx.ebs_kms_key_arn
    return {
        "apiVersion": NODE_CLASS_API, "kind": NODE_CLASS_KIND,
        "metadata": {"name": spec.name, "labels": {v.LABEL_POOL: spec.name, v.LABEL_POOL_CLASS: spec.pool_class.value}},
        "spec": {
            "instanceProfile": instance_profile_name,
            "amiSelectorTerms": [{"alias": AMI_ALIAS}],
            "subnetSelectorTerms": [{"id": s} for s in effective_subnets(spec, ctx)],
            "securityGroupSelectorTerms": [{"id": g} for g in node_security_groups(ctx)],
            "associatePublicIPAddress": False,
            "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                "httpPutResponseHopLimit": 1, "httpTokens": "required"},
            "blockDeviceMappings": [{"deviceName": ROOT_DEVICE, "rootVolume": True, "ebs": ebs}],
            "tags": resource_tags(spec, ctx),
        },
    }


def translate_karpenter_pool(spec: PoolSpec, ctx: EksContext, instance_profile_name: Any,
                             prefix: str | None = None) -> KarpenterPoolPlan:
    """Both objects of one Karpenter pool; ``instance_profile_name`` (the Karpenter
    node role's instance profile, may be an Output) goes into the EC2NodeClass."""
    template_labels = group_labels(spec)
    node_labels = {**template_labels, v.LABEL_KARPENTER_NODEPOOL: spec.name}
    return KarpenterPoolPlan(prefix or spec.name, node_pool(spec, spec.name), node_class(spec, ctx, instance_profile_name),
                             node_labels)
