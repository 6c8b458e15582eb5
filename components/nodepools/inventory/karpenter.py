"""Karpenter ``karpenter.sh/v1`` NodePools as pools (docs/design.md section 7).

Any NodePool in a stack is a pool, whoever wrote it:
- class: template label ``nodepools.io/pool-class``; name: ``nodepools.io/pool``,
  else ``metadata.name``;
- node labels: template labels, every ``In`` requirement (one value: that value;
  several: ``OneOf`` them, a selector matches when its value is among them), and
  ``karpenter.sh/nodepool``;
- spot-capable when the ``karpenter.sh/capacity-type`` requirement admits spot
  (absent: on-demand only, Karpenter's default);
- taints: ``spec.template.spec.taints`` (``startupTaints`` are temporary);
- size: the largest instance of the table the requirements admit (none: unknown);
- ``max_nodes``: how many of that instance ``spec.limits`` allows, possibly a
  fraction (None without limits).
Karpenter has no minimum (``min_nodes`` None).
"""
from __future__ import annotations

import re
from typing import Any, Callable

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, has_unknown, is_unknown, known_list, str_map
from nodepools.clouds.topology import labelled_family
from nodepools.spec.instances import INSTANCE_TYPES, InstanceType
from nodepools.vocabulary import Cloud

_FAMILY = re.compile(r"^([a-z]+)(\d+)([a-z-]*)$")
_GPU_KEYS = ("karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-name",
             "karpenter.k8s.aws/instance-gpu-manufacturer")
_KUBE_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
_QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti)?$")
_SCALE = {None: 1, "m": 0.001, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


class OneOf(frozenset):
    """A label whose value differs per node among these values (a multi-value ``In`` requirement)."""


def _instance_labels(t: InstanceType) -> dict[str, Any]:
    """What Karpenter's well-known requirement keys say about a table instance."""
    family, _, size = t.name.partition(".")
    match = _FAMILY.match(family)
    gpu_name = t.gpu_model.value.removeprefix("nvidia-").split("-")[0] if t.gpu_model else None
    return {
        v.LABEL_INSTANCE_TYPE: t.name, v.LABEL_ARCH: _KUBE_ARCH[t.architecture.value], v.LABEL_OS: "linux",
        "karpenter.k8s.aws/instance-family": family, "karpenter.k8s.aws/instance-size": size,
        "karpenter.k8s.aws/instance-category": match.group(1) if match else None,
        "karpenter.k8s.aws/instance-generation": match.group(2) if match else None,
        "karpenter.k8s.aws/instance-cpu": str(t.vcpu),
        "karpenter.k8s.aws/instance-memory": str(int(t.memory_gib * 1024)),
        "karpenter.k8s.aws/instance-gpu-count": str(t.gpu_count),
        "karpenter.k8s.aws/instance-gpu-name": gpu_name,
        "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia" if t.gpu_count else None,
    }


# The requirement keys that decide which instances of the table a NodePool admits.
_TABLE_KEYS = frozenset(_instance_labels(next(iter(INSTANCE_TYPES.values()))))


def _admits(req: dict, labels: dict[str, Any]) -> bool:
    key, op, values = req.get("key"), req.get("operator"), [str(x) for x in as_list(req.get("values"))]
    if not isinstance(key, str) or key not in labels:
        return True  # a key the table does not describe restricts nothing we can judge
    have = labels[key]
    if op == "In":
        return have in values
    if op == "NotIn":
        return have not in values
    if op == "Exists":
        return have is not None
    if op == "DoesNotExist":
        return have is None
    if op in ("Gt", "Lt", "Gte", "Lte") and values and have is not None and values[0].lstrip("-").isdigit():
        a, b = int(have), int(values[0])
        return {"Gt": a > b, "Lt": a < b, "Gte": a >= b, "Lte": a <= b}[op]
    return False


def admitted_instances(requirements: list[dict]) -> list[InstanceType]:
    """Every AWS table instance the requirements admit, largest first (GPUs, cpu, memory)."""
    out = [t for t in INSTANCE_TYPES.values() if t.cloud is Cloud.AWS
           and all(_admits(r, _instance_labels(t)) for r in requirements)]
    return sorted(out, key=lambda t: (t.gpu_count, t.vcpu, t.memory_gib), reverse=True)


def _quantity(value: Any) -> float | None:
    match = _QUANTITY.match(str(value)) if isinstance(value, (str, int, float)) else None
    return float(match.group(1)) * _SCALE[match.group(2)] if match else None


def _max_nodes(limits: Any, largest: InstanceType | None) -> Any:
    """Nodes of the largest admitted instance that ``spec.limits`` allows; None when unlimited."""
    limits = as_dict(limits) if not is_unknown(limits) else UNKNOWN
    if is_unknown(limits) or any(is_unknown(limits.get(k)) for k in ("cpu", "memory", v.GPU_RESOURCE)):
        return UNKNOWN
    if not limits:
        return None
    if largest is None:
        return UNKNOWN
    per_node = {"cpu": largest.vcpu, "memory": largest.memory_gib * 2**30, v.GPU_RESOURCE: largest.gpu_count}
    # A fraction when the limits are no whole number of largest nodes: capacity stays the limits'.
    counts = [(_quantity(limits[k]) or 0) / per_node[k] for k in per_node if k in limits and per_node[k]]
    return float(min(counts)) if counts else None


def _topology_labels(requirements: list[dict]) -> dict[str, Any]:
    """The network-topology labels EKS sets on every node the requirements allow, when they
    name instance types or families that all carry them (present, per-node values)."""
    for key, as_type in (("node.kubernetes.io/instance-type", lambda t: t), ("karpenter.k8s.aws/instance-family",
                                                                             lambda f: f"{f}.any")):
        for req in requirements:
            values = [x for x in as_list(req.get("values")) if isinstance(x, str)]
            if req.get("key") == key and req.get("operator") == "In" and values:
                family = labelled_family(Cloud.AWS, [as_type(x) for x in values], False)
                return {level: UNKNOWN for level in family.network_levels} if family else {}
    return {}


def read_karpenter(props: dict, urn: str, name: str, view: Callable[..., Any],
                   read_taints: Callable[[Any], Any]) -> Any:
    """``view`` and ``read_taints`` are the shared pool reader's ``PoolView`` and taint
    parsing, handed in so the readers do not import each other."""
    PoolView, _taints = view, read_taints

    meta_name = dig(props, "metadata", "name")
    raw_labels = dig(props, "spec", "template", "metadata", "labels")
    template_labels = str_map(raw_labels)
    pool_name = template_labels.get(v.LABEL_POOL)
    if not isinstance(pool_name, str):
        pool_name = meta_name if isinstance(meta_name, str) else name
    requirements = known_list(dig(props, "spec", "template", "spec", "requirements"))
    labels: dict[str, Any] = {v.LABEL_KARPENTER_NODEPOOL: meta_name if isinstance(meta_name, str) else UNKNOWN}
    spot: Any = False
    admitted: list[InstanceType] = []
    partial = is_unknown(raw_labels) or is_unknown(requirements)
    if is_unknown(requirements):
        spot, requirements = UNKNOWN, []
    else:
        # Without a capacity-type requirement Karpenter launches on-demand only.
        labels[v.LABEL_KARPENTER_CAPACITY_TYPE] = v.KARPENTER_CAPACITY_ON_DEMAND
        requirements = [as_dict(r) for r in requirements]
        # A requirement with an unknown part may restrict any label, the capacity type or the
        # instances: what it could decide stays unknown instead of judged as unrestricted.
        vague = [r for r in requirements if has_unknown(r)]
        requirements = [r for r in requirements if not has_unknown(r)]
        for req in requirements:
            values = [x for x in as_list(req.get("values")) if isinstance(x, str)]
            if req.get("operator") == "In" and values and isinstance(req.get("key"), str):
                labels[req["key"]] = values[0] if len(set(values)) == 1 else OneOf(values)
            if req.get("key") == v.LABEL_KARPENTER_CAPACITY_TYPE:
                spot = _admits(req, {req["key"]: v.KARPENTER_CAPACITY_SPOT})
                if req.get("operator") != "In":
                    labels[req["key"]] = UNKNOWN
        admitted = admitted_instances(requirements)
        labels.update(_topology_labels(requirements))
        for req in vague:
            key = req.get("key")
            if isinstance(key, str):
                labels[key] = UNKNOWN
            if not isinstance(key, str) or key == v.LABEL_KARPENTER_CAPACITY_TYPE:
                spot = UNKNOWN
            if not isinstance(key, str) or key in _TABLE_KEYS or key in _GPU_KEYS:
                admitted, partial = [], True
    labels.update(template_labels)
    largest = admitted[0] if admitted else None
    explicit_gpu = any(r.get("key") in _GPU_KEYS for r in requirements) or \
        template_labels.get(v.LABEL_GPU_PRESENT) == v.LABEL_GPU_PRESENT_VALUE
    gpu = explicit_gpu or (bool(admitted) and all(t.has_gpu for t in admitted))
    return PoolView(
        type=v.TYPE_KARPENTER_NODE_POOL, urn=urn, name=pool_name, cluster=UNKNOWN, labels=labels,
        taints=_taints(dig(props, "spec", "template", "spec", "taints")), spot=spot, min_nodes=None,
        max_nodes=_max_nodes(dig(props, "spec", "limits"), largest),
        instance_types=[largest.name] if largest else UNKNOWN,
        gpu_count=float(largest.gpu_count) if largest else UNKNOWN,
        gpu_model=template_labels.get(v.LABEL_ACCELERATOR) or (largest.gpu_model.value if largest and
                                                              largest.gpu_model else None),
        gpu_image=gpu, os="linux", labels_partial=partial)
