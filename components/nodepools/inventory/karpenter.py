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
- GPU-capable (docs/design.md sections 7 and 8) with a positive signal: a GPU count above
  zero, a GPU name, manufacturer ``nvidia``, the ``nvidia.com/gpu.present`` template label,
  or instance types / families / categories (``In``) that all have NVIDIA GPUs
  (``spec.instances.aws_family_has_nvidia_gpu``). A requirement naming types, families
  or categories none of which has one makes a CPU pool; ``NotIn``/``DoesNotExist``
  restrict nothing, so without a positive signal the pool is a CPU pool;
- size: the largest instance of the table the requirements admit (GPU ones only when
  GPU-capable); none: the named types the table lacks, whose size is unknown;
- ``max_nodes``: how many of that instance ``spec.limits`` allows, possibly a
  fraction (None without limits).
Karpenter has no minimum (``min_nodes`` None).
"""
from __future__ import annotations

import re
from typing import Any, Callable

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, known_list, str_map
from nodepools.clouds.topology import labelled_family
from nodepools.spec.instances import INSTANCE_TYPES, InstanceType, aws_category, aws_category_has_nvidia_gpu
from nodepools.spec.instances import aws_family, aws_family_has_nvidia_gpu
from nodepools.vocabulary import Cloud

_FAMILY = re.compile(r"^([a-z]+)(\d+)([a-z-]*)$")
_FAMILY_KEY, _CATEGORY_KEY = "karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-category"
_GPU_COUNT, _GPU_NAME = "karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-name"
_GPU_MANUFACTURER = "karpenter.k8s.aws/instance-gpu-manufacturer"
# Keys naming what a node is, with whether a value has NVIDIA GPUs and how an unlisted value is shown.
_NAMING = {
    v.LABEL_INSTANCE_TYPE: (lambda t: aws_family_has_nvidia_gpu(aws_family(t)), lambda t: t),
    _FAMILY_KEY: (aws_family_has_nvidia_gpu, lambda f: f"{f}.*"),
    _CATEGORY_KEY: (aws_category_has_nvidia_gpu, lambda c: f"{c}*.*"),
}
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
        _FAMILY_KEY: family, "karpenter.k8s.aws/instance-size": size,
        _CATEGORY_KEY: aws_category(family),
        "karpenter.k8s.aws/instance-generation": match.group(2) if match else None,
        "karpenter.k8s.aws/instance-cpu": str(t.vcpu),
        "karpenter.k8s.aws/instance-memory": str(int(t.memory_gib * 1024)),
        # Karpenter sets the GPU labels on GPU instances only.
        _GPU_COUNT: str(t.gpu_count) if t.gpu_count else None, _GPU_NAME: gpu_name,
        _GPU_MANUFACTURER: "nvidia" if t.gpu_count else None,
    }


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


def _values(req: dict) -> list[str]:
    return [x for x in as_list(req.get("values")) if isinstance(x, str)]


def _int(text: str) -> int | None:
    return int(text) if text.lstrip("-").isdigit() else None


def _gpu_signal(req: dict) -> bool:
    """The requirement asks for NVIDIA GPU nodes (a positive signal of section 7)."""
    key, op, values = req.get("key"), req.get("operator"), _values(req)
    if key == _GPU_COUNT:
        counts = [n for n in map(_int, values) if n is not None]
        return op == "Exists" or (op == "In" and any(n > 0 for n in counts)) or \
            (op == "Gt" and any(n >= 0 for n in counts)) or (op == "Gte" and any(n > 0 for n in counts))
    if key == _GPU_NAME:
        return op == "Exists" or (op == "In" and bool(values))
    if key == _GPU_MANUFACTURER:
        return op == "Exists" or (op == "In" and "nvidia" in values)
    return False


def _naming(requirements: list[dict]) -> list[tuple[str, list[str]]]:
    """(key, values) of every ``In`` requirement naming instance types, families or categories."""
    return [(r["key"], _values(r)) for r in requirements
            if isinstance(r.get("key"), str) and r["key"] in _NAMING and r.get("operator") == "In" and _values(r)]


def _unknown_part(req: dict) -> bool:
    """A requirement that may name instances or GPUs but whose key, operator or values preview cannot see."""
    key, values = req.get("key"), req.get("values")
    if is_unknown(key):
        return True
    return key in (*_NAMING, _GPU_COUNT, _GPU_NAME, _GPU_MANUFACTURER) and (
        is_unknown(req.get("operator")) or is_unknown(values) or any(map(is_unknown, as_list(values))))


def gpu_capable(requirements: list[dict], template_labels: dict[str, Any]) -> Any:
    """Whether the NodePool can launch NVIDIA GPU nodes (docs/design.md section 8); UNKNOWN when
    no positive signal is seen and a requirement that could give one is unknown."""
    if template_labels.get(v.LABEL_GPU_PRESENT) == v.LABEL_GPU_PRESENT_VALUE or any(map(_gpu_signal, requirements)):
        return True
    if any(_unknown_part(r) for r in requirements if isinstance(r.get("key"), str) or is_unknown(r.get("key"))):
        return UNKNOWN
    named = [any(_NAMING[key][0](x) for x in values) for key, values in _naming(requirements)]
    return bool(named) and all(named)


def _unlisted(requirements: list[dict]) -> Any:
    """The named types the table lacks (the most specific key's), UNKNOWN when nothing is named."""
    named = dict(_naming(requirements))
    for key, (_, shown) in _NAMING.items():
        if key in named:
            return [shown(x) for x in named[key]]
    return UNKNOWN


def _quantity(value: Any) -> float | None:
    match = _QUANTITY.match(str(value)) if isinstance(value, (str, int, float)) else None
    return float(match.group(1)) * _SCALE[match.group(2)] if match else None


def _max_nodes(limits: Any, largest: InstanceType | None) -> Any:
    """Nodes of the largest admitted instance that ``spec.limits`` allows; None when unlimited."""
    if is_unknown(limits):
        return UNKNOWN
    limits = as_dict(limits)
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
    for key, as_type in ((v.LABEL_INSTANCE_TYPE, lambda t: t), (_FAMILY_KEY, lambda f: f"{f}.any")):
        for req in requirements:
            values = _values(req)
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
    unread = is_unknown(requirements)
    partial = is_unknown(raw_labels) or unread
    if unread:
        spot, requirements = UNKNOWN, []
    else:
        # Without a capacity-type requirement Karpenter launches on-demand only.
        labels[v.LABEL_KARPENTER_CAPACITY_TYPE] = v.KARPENTER_CAPACITY_ON_DEMAND
        requirements = [as_dict(r) for r in requirements]
        for req in requirements:
            values = _values(req)
            if req.get("operator") == "In" and values and isinstance(req.get("key"), str):
                labels[req["key"]] = values[0] if len(set(values)) == 1 else OneOf(values)
            if req.get("key") == v.LABEL_KARPENTER_CAPACITY_TYPE:
                spot = _admits(req, {req["key"]: v.KARPENTER_CAPACITY_SPOT})
                if req.get("operator") != "In":
                    labels[req["key"]] = UNKNOWN
        labels.update(_topology_labels(requirements))
    labels.update(template_labels)
    gpu: Any = gpu_capable(requirements, template_labels)
    gpu = UNKNOWN if gpu is False and partial else gpu
    if not unread:
        admitted = [t for t in admitted_instances(requirements) if gpu is not False or not t.has_gpu]
    largest = admitted[0] if admitted else None
    gpu_count = UNKNOWN if is_unknown(gpu) or (gpu and not largest) else float(largest.gpu_count if largest else 0)
    return PoolView(
        type=v.TYPE_KARPENTER_NODE_POOL, urn=urn, name=pool_name, cluster=UNKNOWN, labels=labels,
        taints=_taints(dig(props, "spec", "template", "spec", "taints")), spot=spot, min_nodes=None,
        max_nodes=_max_nodes(dig(props, "spec", "limits"), largest),
        instance_types=[largest.name] if largest else (UNKNOWN if unread else _unlisted(requirements)),
        gpu_count=gpu_count,
        gpu_model=template_labels.get(v.LABEL_ACCELERATOR) or (largest.gpu_model.value if largest and
                                                              largest.gpu_model else None),
        gpu_image=gpu is True, os="linux", labels_partial=partial)
