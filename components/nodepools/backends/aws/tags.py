"""cluster-autoscaler hints for a managed node group's ASG (pure).

EKS does not turn a node group's labels and taints into the ``node-template``
ASG tags cluster-autoscaler reads while a group has 0 nodes, and its
``DescribeNodegroup`` fallback works only for a group that never had a node
(docs/kubernetes-facts.md section 1.3). So every label, every taint and the GPU
count are written on the ASG explicitly, one ``aws.autoscaling.Tag`` each.

Each tag's resource name is derived from its tag key (never from a position),
so reordering labels or taints never replaces a tag.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pulumi

from nodepools import vocabulary as v
from nodepools.spec.pool import PoolSpec
from nodepools.spec.sharing import GpuSharingMode, gpu_resource, slots_per_node
from nodepools.vocabulary import PoolClass


@dataclass(frozen=True)
class AsgTag:
    """One ASG tag. ``propagate_at_launch`` is always False: the autoscaler
    reads the group's tags, and copying dozens of hints onto every instance
    would only eat into EC2's 50-tags-per-instance limit."""

    resource_name: str
    key: Any  # str, or pulumi.Output[str] when the cluster name is an Output
    value: str
    propagate_at_launch: bool = False


def cluster_tag_key(cluster_name: pulumi.Input[str]) -> Any:
    """``k8s.io/cluster-autoscaler/<cluster>`` (an Output when the name is one)."""
    if isinstance(cluster_name, str):
        return v.CA_TAG_CLUSTER_PREFIX + cluster_name
    return pulumi.Output.concat(v.CA_TAG_CLUSTER_PREFIX, cluster_name)


def taint_tag_value(value: str, effect: v.TaintEffect) -> str:
    """``<value>:<CamelCaseEffect>``: the autoscaler silently drops any tag
    whose effect is spelled the EKS way (``NO_SCHEDULE``)."""
    return f"{value}:{effect.value}"


def gpu_scale_down_options(spec: PoolSpec) -> dict[str, str]:
    """Per-ASG scale-down options for GPU pools (empty for CPU pools).

    - GPU utilisation threshold = half of one GPU's share of the node. On GPU
      nodes the autoscaler judges only GPU requests (docs/kubernetes-facts.md section
      1.4), so a node running any GPU pod (>= 1/n) stays and only a node with no
      GPU requested is drained. Repacking a partly used GPU node would cost a
      model reload (inference) or the work since the last checkpoint (training),
      far more than the idle GPUs for the minutes a repack saves. The default
      0.5 would drain an 8-GPU node running a 3-GPU job.
    - Unneeded time: an idle training node (spot, often $10-100/h) goes after
      5 minutes, enough for Kueue to admit the next queued gang; an inference
      node is kept 20 minutes, because traffic comes back in waves and a new
      GPU node plus model load takes longer than that to serve again.
    """
    if not spec.has_gpu or spec.gpu_sharing.mode is GpuSharingMode.MIG:
        # A MIG pool is no GPU node to the autoscaler (no GPU label: translate.group_labels).
        return {}
    # Utilisation is requests over allocatable, and a shared GPU is several allocatable units.
    threshold = 0.5 / slots_per_node(spec)
    unneeded = "5m0s" if spec.pool_class is PoolClass.GPU_TRAINING else "20m0s"
    return {
        v.CA_OPTION_GPU_UTILIZATION_THRESHOLD: f"{threshold:g}",
        v.CA_OPTION_UNNEEDED_TIME: unneeded,
    }


def autoscaler_tags(prefix: str, spec: PoolSpec, template_labels: Mapping[str, str],
                    cluster_name: pulumi.Input[str]) -> list[AsgTag]:
    """Every ASG tag of one pool: discovery keys, then one tag per node label,
    per taint, the GPU count, and the GPU scale-down options."""
    tags = [
        # Auto-discovery needs both keys; the cluster key keeps clusters apart
        # and is what the autoscaler's IRSA policy conditions scaling on.
        AsgTag(f"{prefix}-ca-enabled", v.CA_TAG_ENABLED, v.CA_TAG_ENABLED_VALUE),
        AsgTag(f"{prefix}-ca-cluster", cluster_tag_key(cluster_name), v.CA_TAG_CLUSTER_VALUE),
    ]
    for key in sorted(template_labels):
        tags.append(AsgTag(f"{prefix}-ca-label-{key}", v.CA_TAG_LABEL_PREFIX + key, template_labels[key]))
    for taint in spec.node_taints:
        tags.append(AsgTag(f"{prefix}-ca-taint-{taint.key}", v.CA_TAG_TAINT_PREFIX + taint.key,
                           taint_tag_value(taint.value, taint.effect)))
    if spec.has_gpu:
        # What the device plugin will advertise: GPUs x replicas, or slices x GPUs under MIG.
        resource = gpu_resource(spec) or v.GPU_RESOURCE
        tags.append(AsgTag(f"{prefix}-ca-resource-{resource}", v.CA_TAG_RESOURCE_PREFIX + resource,
                           str(slots_per_node(spec))))
    for option, value in gpu_scale_down_options(spec).items():
        tags.append(AsgTag(f"{prefix}-ca-option-{option}", v.CA_TAG_OPTION_PREFIX + option, value))
    return tags
