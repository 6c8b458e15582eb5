"""PoolSpec -> EKS managed node group, as plain data (pure: registers nothing).

The result (``EksPoolPlan``) holds keyword arguments for the provider
resources in the SDK's snake_case dict form; ``register.py`` only adds the
links between resources (role ARN, launch template id, placement group name,
the ASG name) and registers them. Values from the cluster context may be
Outputs; they are passed through untouched.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from nodepools import vocabulary as v
from nodepools.backends.aws import iam, tables
from nodepools.backends.aws.mig import mig_user_data
from nodepools.backends.aws.repair import node_repair_config
from nodepools.backends.aws.tags import AsgTag, autoscaler_tags
from nodepools.clouds.aws import CAPACITY_TYPES, POOL_TAG_KEYS, accelerator_label
from nodepools.clouds.taints import TAINT_EFFECTS
from nodepools.clouds.topology import choose_placement
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud
from nodepools.spec.sharing import GpuSharingMode, device_plugin_config_name


NO_SECURITY_GROUP = (
    "no security group for the nodes: give EksCluster(cluster_security_group_id=...) (the cluster's "
    "aws.eks.Cluster vpc_config.cluster_security_group_id; EKS stops attaching it once the launch template "
    "names security groups, which it must to refuse public IPs), or node_security_group_ids=[...] that "
    "include it")


@dataclass(frozen=True)
class EksContext:
    """What a pool needs from its cluster (see ``EksCluster`` for the meaning)."""

    cluster_name: Any
    subnet_ids: tuple[Any, ...] = ()
    node_role_arn: Any = None
    cluster_security_group_id: Any = None
    node_security_group_ids: tuple[Any, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)
    ebs_kms_key_arn: Any = None
    attach_cni_policy: bool = True
    partition: str = "aws"
    # How the platform hands out GPUs (``EksCluster.bind_gpu_allocation``; docs/design.md section 11.4).
    gpu_allocation: v.GpuAllocation = v.GpuAllocation.DEVICE_PLUGIN


@dataclass(frozen=True)
class NodeRolePlan:
    """A node IAM role; one ``RolePolicyAttachment`` per entry of ``policy_arns``,
    named ``<prefix>-node-<PolicyName>``."""

    resource_name: str
    assume_role_policy: dict[str, Any]
    policy_arns: dict[str, str]
    tags: dict[str, str]

    def attachment_name(self, policy_name: str) -> str:
        return self.resource_name.removesuffix("-role") + f"-{policy_name}"


@dataclass(frozen=True)
class EksPoolPlan:
    prefix: str
    # aws.eks.NodeGroup kwargs; node_role_arn is None when a role is to be created.
    node_group: dict[str, Any]
    # aws.ec2.LaunchTemplate kwargs; placement is added when placement_group is set.
    launch_template: dict[str, Any]
    # aws.ec2.PlacementGroup kwargs for compact pools, else None.
    placement_group: dict[str, Any] | None
    node_role: NodeRolePlan | None
    asg_tags: list[AsgTag]
    # Labels the nodes carry: the group's labels plus EKS's own capacityType label.
    node_labels: dict[str, str]
    # Engine (camelCase) paths each resource ignores after creation: the autoscaler's desired
    # size, and what the default compact placement sets (``compact_placement``).
    node_group_ignore_changes: tuple[str, ...] = tuple(tables.NODE_GROUP_IGNORE_CHANGES)
    launch_template_ignore_changes: tuple[str, ...] = ()


def group_labels(spec: PoolSpec, allocation: v.GpuAllocation = v.GpuAllocation.DEVICE_PLUGIN) -> dict[str, str]:
    """The node group's ``labels``: the spec's node labels, plus cluster-autoscaler's
    GPU label on GPU pools (set at kubelet start, or the autoscaler scales up again
    before the device plugin advertises the GPUs; docs/kubernetes-facts.md section 1.4)."""
    labels = dict(spec.node_labels)
    # Not on MIG pools: the autoscaler counts a node with this label but no allocatable
    # nvidia.com/gpu as ResourceUnready (its gpu_processor; docs/kubernetes-facts.md section
    # 1.4), and a mixed-strategy MIG node advertises only nvidia.com/mig-<profile>.
    # Without it the autoscaler treats the slices as an ordinary extended resource,
    # sized from the ASG's node-template resources tag. Nor where NVIDIA's DRA driver hands
    # out the GPUs: a DRA GPU is in no node's allocatable, and the AWS provider never marks a
    # node's GPUs as DRA's (GpuConfig.DraDriverName), so every such node would be ResourceUnready
    # (kubernetes/autoscaler: cluster-autoscaler/processors/customresources/gpu_processor.go,
    # utils/gpu/gpu.go@cluster-autoscaler-1.36.1).
    if spec.has_gpu and spec.gpu_model is not None and spec.gpu_sharing.mode is not GpuSharingMode.MIG and \
            allocation is v.GpuAllocation.DEVICE_PLUGIN:
        labels[v.LABEL_AWS_ACCELERATOR] = accelerator_label(spec.gpu_model)
    # A shared pool's nodes pick their device plugin config entry (guardrails/device_plugin_config.py).
    if spec.has_gpu and (config := device_plugin_config_name(spec)) is not None:
        labels[v.LABEL_DEVICE_PLUGIN_CONFIG] = config
    return labels


def eks_taints(spec: PoolSpec) -> list[dict[str, str]]:
    """Exactly the spec's taints (the workload contract is computed from them), EKS enum spelling."""
    out = []
    for taint in spec.node_taints:
        item = {"key": taint.key, "effect": TAINT_EFFECTS[taint.effect]}
        if taint.value:
            item["value"] = taint.value
        out.append(item)
    return out


def ami_type(spec: PoolSpec) -> str:
    return tables.AMI_TYPES[(spec.has_gpu, spec.architecture)]


def effective_subnets(spec: PoolSpec, ctx: EksContext) -> list[Any]:
    """The pool's own subnets override the cluster's."""
    return list(spec.subnet_ids) if spec.subnet_ids else list(ctx.subnet_ids)


def resource_tags(spec: PoolSpec, ctx: EksContext) -> dict[str, str]:
    """AWS tags for everything the pool creates: the cluster's tags plus the pool's
    identity, so cost reports can split GPU spend by pool and class."""
    return {**ctx.tags, **dict(zip(POOL_TAG_KEYS, (spec.name, spec.pool_class.value)))}


def node_security_groups(ctx: EksContext) -> list[Any]:
    """The cluster security group (when known), then the extra groups, each once.
    Raises ValueError when there is none: an interface without groups would get
    the VPC's default group, which cannot reach the control plane."""
    groups = [] if ctx.cluster_security_group_id is None else [ctx.cluster_security_group_id]
    for group in ctx.node_security_group_ids:
        if not any(group is seen or (isinstance(group, str) and group == seen) for seen in groups):
            groups.append(group)
    if not groups:
        raise ValueError(NO_SECURITY_GROUP)
    return groups


def launch_template_args(spec: PoolSpec, ctx: EksContext) -> dict[str, Any]:
    """Secure node defaults. A managed node group's template may not carry a subnet,
    an instance profile, shutdown/hibernation behaviour or spot options, and with a
    template the disk size and SSH key move here: so no ``key_name`` (no SSH),
    the root disk is sized here, and instance types stay on the node group."""
    tags = resource_tags(spec, ctx)
    ebs: dict[str, Any] = {
        "volume_size": spec.disk_size_gib,
        "volume_type": tables.ROOT_VOLUME_TYPE,
        "encrypted": "true",
        "delete_on_termination": "true",
    }
    if ctx.ebs_kms_key_arn is not None:
        ebs["kms_key_id"] = ctx.ebs_kms_key_arn
    args = {
        "description": f"nodepools {spec.pool_class.value} pool {spec.name}",
        "update_default_version": True,
        # IMDSv2 only, and a hop limit of 1 so pods (one hop further, behind the
        # pod network) cannot read the node role's credentials: pods use IRSA.
        "metadata_options": {
            "http_endpoint": "enabled",
            "http_tokens": "required",
            "http_put_response_hop_limit": 1,
        },
        "block_device_mappings": [{"device_name": tables.ROOT_DEVICE_NAMES[ami_type(spec)], "ebs": ebs}],
        "tag_specifications": [{"resource_type": kind, "tags": tags} for kind in ("instance", "volume")],
        "tags": tags,
        # Always one interface that refuses a public IP, so "no public IPs" never
        # rests on the subnet's MapPublicIpOnLaunch. Security groups must then sit
        # on the interface (not also at the top), and EKS no longer adds its
        # cluster security group by itself: node_security_groups puts it first.
        "network_interfaces": [{
            "device_index": 0,
            "associate_public_ip_address": "false",
            "delete_on_termination": "true",
            "security_groups": node_security_groups(ctx),
        }],
    }
    if (user_data := mig_user_data(spec)) is not None:
        args["user_data"] = user_data
    return args


def translate_pool(spec: PoolSpec, ctx: EksContext, prefix: str | None = None) -> EksPoolPlan:
    """The whole plan for one pool. ``prefix`` (default: the pool name) starts every
    resource name, so two clusters' pools of the same name can live in one stack."""
    prefix = prefix or spec.name
    labels = group_labels(spec, ctx.gpu_allocation)
    capacity = CAPACITY_TYPES[spec.capacity]
    template_labels = {**labels, v.LABEL_EKS_CAPACITY_TYPE: capacity}
    tags = resource_tags(spec, ctx)
    node_group = {
        "cluster_name": ctx.cluster_name,
        "node_role_arn": ctx.node_role_arn,
        "subnet_ids": effective_subnets(spec, ctx),
        "ami_type": ami_type(spec),
        "capacity_type": capacity,
        "instance_types": list(spec.instance_types),
        "labels": labels,
        "taints": eks_taints(spec),
        # desired = min at creation; afterwards the autoscaler owns it
        # (tables.NODE_GROUP_IGNORE_CHANGES).
        "scaling_config": {"min_size": spec.min_nodes, "max_size": spec.max_nodes, "desired_size": spec.min_nodes},
        "update_config": dict(tables.UPDATE_CONFIGS[spec.pool_class]),
        "tags": tags,
    }
    if (repair := node_repair_config(spec)) is not None:
        node_group["node_repair_config"] = repair
    placement, group_ignored, template_ignored = compact_placement(spec, node_group)
    if placement is not None:
        placement["tags"] = tags
    role = None
    if ctx.node_role_arn is None:
        role = NodeRolePlan(f"{prefix}-node-role", iam.node_trust_policy(),
                            iam.node_policy_arns(ctx.partition, ctx.attach_cni_policy), tags)
    return EksPoolPlan(
        prefix=prefix,
        node_group=node_group,
        launch_template=launch_template_args(spec, ctx),
        placement_group=placement,
        node_role=role,
        asg_tags=autoscaler_tags(prefix, spec, template_labels, ctx.cluster_name),
        node_labels=template_labels,
        node_group_ignore_changes=(*tables.NODE_GROUP_IGNORE_CHANGES, *group_ignored),
        launch_template_ignore_changes=template_ignored,
    )


def compact_placement(spec: PoolSpec, node_group: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[str, ...],
                                                                             tuple[str, ...]]:
    """The cluster placement group of a compact pool (None when spread), narrowing
    ``node_group``'s subnets where the default needs one, and the paths the node group
    and the launch template then ignore after creation. A placement group lives in one
    availability zone: an explicit compact pool has one subnet (``checks``); the default
    takes the first of the cluster's subnets, or stays spread when the pool names several
    of its own. What the default sets is set at creation only, so a node group that
    exists keeps its subnets (changing them replaces a node group) and its template."""
    choice = choose_placement(spec, Cloud.AWS)
    if not choice.compact:
        return None, (), ()
    if not choice.by_default:
        return {"strategy": tables.PLACEMENT_STRATEGY_CLUSTER}, (), ()
    subnets = node_group["subnet_ids"]
    if spec.subnet_ids and len(subnets) > 1:
        return None, (), ()
    group_ignored: tuple[str, ...] = ()
    if len(subnets) > 1:
        node_group["subnet_ids"] = subnets[:1]
        group_ignored = ("subnetIds",)
    return {"strategy": tables.PLACEMENT_STRATEGY_CLUSTER}, group_ignored, ("placement",)
