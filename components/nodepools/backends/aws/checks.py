"""EKS-specific rules a valid, cloud-neutral PoolSpec can still break (pure).

Collected into ``Problems`` so every problem is reported at once, before any
resource registers (``EksCluster.check_pool``).
"""
from __future__ import annotations

from collections import Counter

from nodepools import vocabulary as v
from nodepools.backends.aws import tables
from nodepools.backends.aws.karpenter import capacity_values
from nodepools.backends.aws.tags import autoscaler_tags
from nodepools.backends.aws.translate import EksContext, effective_subnets, group_labels
from nodepools.clouds import aws
from nodepools.clouds.topology import compact_series, compact_supported
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.pool import PlacementStrategy, PoolSpec
from nodepools.vocabulary import Cloud

AWS_TYPE_HINT = ("AWS instance types (e.g. m7i.xlarge, c7g.2xlarge, g6.xlarge, p5.48xlarge; "
                 "table: nodepools.spec.instances), or give custom_capacity for a type not in the table")


def eks_pool_problems(spec: PoolSpec, ctx: EksContext) -> Problems:
    problems = Problems()
    if spec.cloud is Cloud.GCP:
        problems.add("instance_types", f"instance types {spec.instance_types} are GCP machine types; an EKS "
                     f"pool needs {AWS_TYPE_HINT}", spec.instance_types)
    if spec.zones:
        problems.add("zones", "zones are not used on EKS: a managed node group is placed by its subnets; "
                     "leave zones empty and give subnet_ids (private subnets in those zones)", spec.zones)
    _check_subnets(spec, ctx, problems)
    _check_compact_types(spec, problems)
    _check_labels(spec, problems)
    _check_capacity_label(spec, problems)
    _check_taints(spec, problems)
    _check_asg_tags(spec, problems)
    return problems


def _check_asg_tags(spec: PoolSpec, problems: Problems) -> None:
    """A managed node group's Auto Scaling group carries one cluster-autoscaler tag per node
    label and taint (``tags.autoscaler_tags``): AWS refuses the 51st, and the node group
    would be created without its scale-from-zero hints. Karpenter pools have no group."""
    if is_karpenter(spec):
        return
    labels = {**group_labels(spec), v.LABEL_EKS_CAPACITY_TYPE: aws.CAPACITY_TYPES[spec.capacity]}
    count = len(autoscaler_tags("pool", spec, labels, "cluster"))
    if count > tables.ASG_TAGS_MAX:
        ours = count - len(spec.labels)
        problems.add("labels", f"the pool's Auto Scaling group would carry {count} cluster-autoscaler tags (one per "
                     f"node label and taint, {len(spec.labels)} of them for these labels), but AWS allows "
                     f"{tables.ASG_TAGS_MAX} per group: give at most {max(tables.ASG_TAGS_MAX - ours, 0)} labels",
                     len(spec.labels))


def _check_capacity_label(spec: PoolSpec, problems: Problems) -> None:
    """A user label that states the capacity its provisioner sets (a spot pool labelled
    ON_DEMAND would draw on-demand-only workloads onto spot nodes)."""
    if is_karpenter(spec):
        key, truth, owner = v.LABEL_KARPENTER_CAPACITY_TYPE, capacity_values(spec), "Karpenter"
        other, other_owner = v.LABEL_EKS_CAPACITY_TYPE, "an EKS managed node group"
    else:
        key, truth, owner = v.LABEL_EKS_CAPACITY_TYPE, [aws.CAPACITY_TYPES[spec.capacity]], "EKS"
        other, other_owner = v.LABEL_KARPENTER_CAPACITY_TYPE, "Karpenter"
    given = spec.labels.get(key)
    if given is not None and truth != [given]:
        sets = f"sets it to {truth[0]!r}" if len(truth) == 1 else f"sets it per node ({' or '.join(truth)})"
        problems.add(("labels", key), f"label {key!r} is {given!r}, but this pool's capacity is "
                     f"{spec.capacity.value!r} ({owner} {sets}): remove the label", given)
    if other in spec.labels:
        problems.add(("labels", other), f"label {other!r} is set by {other_owner} on the nodes it launches; this "
                     f"pool's nodes come from {owner} (provisioner {spec.provisioner.value!r}): remove the label",
                     spec.labels[other])


def _check_subnets(spec: PoolSpec, ctx: EksContext, problems: Problems) -> None:
    subnets = effective_subnets(spec, ctx)
    if not subnets:
        problems.add("subnet_ids", "no subnets: give private subnet IDs to EksCluster(subnet_ids=...) or to "
                     "the pool's subnet_ids", [])
    elif spec.placement is PlacementStrategy.COMPACT and len(subnets) != 1:
        problems.add("placement", f"placement 'compact' needs exactly one subnet (a cluster placement group "
                     f"lives in one availability zone), but the pool would use the cluster's {len(subnets)} "
                     "subnets; set the pool's subnet_ids to one subnet", "compact")


def _check_compact_types(spec: PoolSpec, problems: Problems) -> None:
    if spec.placement is not PlacementStrategy.COMPACT:
        return
    for i, name in enumerate(spec.instance_types):
        if not compact_supported(Cloud.AWS, name):
            problems.add(("instance_types", i), f"placement 'compact' needs a cluster placement group, which "
                         f"{name!r} cannot join (allowed: {compact_series(Cloud.AWS)}); choose such a type or "
                         "placement 'spread'", name)


def _check_labels(spec: PoolSpec, problems: Problems) -> None:
    for key, value in spec.labels.items():
        if len(key) > tables.EKS_LABEL_MAX:
            problems.add(("labels", key), f"label key {key!r} has {len(key)} characters; EKS allows "
                         f"1-{tables.EKS_LABEL_MAX} for the whole key, prefix included", key)
        if value == "":
            problems.add(("labels", key), f"label {key!r} has an empty value; EKS node group labels need "
                         f"1-{tables.EKS_LABEL_MAX} characters", value)


def _check_taints(spec: PoolSpec, problems: Problems) -> None:
    taints = spec.node_taints
    if len(taints) > tables.EKS_TAINTS_MAX:
        problems.add("taints", f"the pool would carry {len(taints)} taints; EKS allows at most "
                     f"{tables.EKS_TAINTS_MAX} per node group", len(taints))
    counts = Counter(t.key for t in taints)
    for i, taint in enumerate(spec.taints):
        if len(taint.key) > tables.EKS_TAINT_KEY_MAX:
            problems.add(("taints", i, "key"), f"taint key {taint.key!r} has {len(taint.key)} characters; EKS "
                         f"allows 1-{tables.EKS_TAINT_KEY_MAX}", taint.key)
        if counts[taint.key] > 1:
            effects = ", ".join(t.effect.value for t in taints if t.key == taint.key)
            problems.add(("taints", i, "key"), f"taint key {taint.key!r} is used {counts[taint.key]} times "
                         f"({effects}); on EKS each key may appear once, because cluster-autoscaler's "
                         "node-template/taint/<key> ASG tag holds one taint per key", taint.key)
