"""Node pools from raw provider resources: EKS managed node groups and GKE node pools.

A ``PoolView`` is what a pool looks like to the scheduler and to the policy
pack: the labels and taints its nodes carry (in Kubernetes spelling, including
the labels the cloud adds itself), capacity type, size and node type. One reader
per provider type, in a table; a field the engine cannot know yet is UNKNOWN.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from nodepools import vocabulary as v
from nodepools.clouds import aws as eks
from nodepools.clouds import gcp as gke
from nodepools.clouds.taints import TAINT_EFFECT_OF
from nodepools.clouds.topology import labelled_family
from nodepools.inventory.karpenter import read_karpenter
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_list, plain, str_map
from nodepools.spec.instances import InstanceType, aws_family, aws_family_has_nvidia_gpu, lookup


@dataclass(frozen=True)
class PoolView:
    type: str
    urn: str
    name: str
    cluster: Any  # cluster name, or UNKNOWN
    labels: dict[str, Any]
    taints: Any  # list of {"key","value","effect"} in Kubernetes spelling, or UNKNOWN
    spot: Any  # bool or UNKNOWN
    min_nodes: Any  # float, None (not autoscaled) or UNKNOWN
    max_nodes: Any
    instance_types: Any  # list[str] or UNKNOWN
    gpu_count: Any  # GPUs per node (float) or UNKNOWN
    gpu_model: Any  # model string, None or UNKNOWN
    gpu_image: bool  # an accelerated node image / accelerator block is declared
    # The OS the kubelet reports as kubernetes.io/os ("linux", "windows" or UNKNOWN: a
    # custom image or an unknown image type), and whether the user-set node labels
    # could be read (False when the whole map is unknown at preview: ``labels`` then
    # holds only what the cloud adds). Read by the placement analysis.
    os: Any = "linux"
    labels_partial: bool = False

    @property
    def pool_class(self) -> Any:
        """The ``nodepools.io/pool-class`` label as a PoolClass; None when absent or not a
        class; UNKNOWN when its value, or (with the label map unknown) its presence, is."""
        value = self.labels.get(v.LABEL_POOL_CLASS)
        if is_unknown(value) or (value is None and self.labels_partial):
            return UNKNOWN
        try:
            return v.PoolClass(value)
        except ValueError:
            return None

    @property
    def is_gpu(self) -> Any:
        """True for a GPU pool: GPU instance type, accelerator, GPU image or GPU class."""
        cls = self.pool_class
        if self.gpu_image or (isinstance(cls, v.PoolClass) and cls.has_gpu):
            return True
        if is_unknown(self.gpu_count):
            return UNKNOWN
        return True if self.gpu_count > 0 else (UNKNOWN if is_unknown(cls) else False)

    @property
    def instances(self) -> list[InstanceType | None]:
        return [] if is_unknown(self.instance_types) else [lookup(t) for t in self.instance_types]


def _text(value: Any) -> str:
    """Provider Check rejects non-string taint fields; read them as text so a
    malformed program gets a verdict instead of a crash."""
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _number(value: Any) -> Any:
    """A count as float, None when absent, UNKNOWN when unknown or not a number."""
    if value is None or is_unknown(value):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return UNKNOWN


def _taints(raw: Any, effects: dict[str, v.TaintEffect]) -> Any:
    """Taints in Kubernetes spelling; ``effects`` maps the cloud's effect enum back."""
    raw = known_list(raw)
    if is_unknown(raw):
        return UNKNOWN
    out = []
    for taint in raw:
        taint = as_dict(taint)
        if any(is_unknown(taint.get(f)) for f in ("key", "value", "effect")):
            return UNKNOWN
        effect = _text(taint.get("effect"))
        out.append({"key": _text(taint.get("key")), "value": _text(taint.get("value")),
                    "effect": effects[effect].value if effect in effects else effect})
    return out


def _gpu_from_types(types: Any) -> tuple[Any, Any]:
    if is_unknown(types):
        return UNKNOWN, UNKNOWN
    entries = [lookup(t) for t in types]
    if not entries or any(e is None for e in entries):
        return (UNKNOWN if entries else 0.0), None
    return float(entries[0].gpu_count), (entries[0].gpu_model.value if entries[0].gpu_model else None)


def _read_eks(props: dict, urn: str, name: str) -> PoolView:
    types = known_list(props.get("instanceTypes"))
    types = types if is_unknown(types) else [t for t in types if isinstance(t, str)] or [eks.DEFAULT_INSTANCE_TYPE]
    capacity = dig(props, "capacityType", default=eks.DEFAULT_CAPACITY_TYPE)
    spot = UNKNOWN if is_unknown(capacity) else eks.CAPACITY_TYPE_OF.get(capacity) is v.CapacityType.SPOT
    ami = dig(props, "amiType", default="")
    os = UNKNOWN if is_unknown(ami) or ami == "CUSTOM" else ("windows" if str(ami).startswith("WINDOWS") else "linux")
    gpu_count, gpu_model = _gpu_from_types(types)
    # A type the table lacks takes its family's GPU status (docs/design.md section 8): only its size is unknown.
    gpu_family = not is_unknown(types) and any(aws_family_has_nvidia_gpu(aws_family(t)) for t in types)
    if is_unknown(gpu_count) and not is_unknown(types) and not gpu_family:
        gpu_count = 0.0
    labels = str_map(props.get("labels"))
    pool_name = props.get("nodeGroupName") if isinstance(props.get("nodeGroupName"), str) else name
    labels = {v.LABEL_EKS_NODEGROUP: pool_name, **labels}
    if not is_unknown(spot):
        labels[v.LABEL_EKS_CAPACITY_TYPE] = eks.CAPACITY_TYPES[v.CapacityType.SPOT if spot else v.CapacityType.ON_DEMAND]
    return PoolView(
        type=v.TYPE_EKS_NODE_GROUP, urn=urn, name=pool_name, cluster=props.get("clusterName", UNKNOWN),
        labels=_with_topology_labels(_with_instance_labels(labels, types), v.Cloud.AWS, types, False), taints=_taints(props.get("taints"), TAINT_EFFECT_OF), spot=spot,
        min_nodes=_number(dig(props, "scalingConfig", "minSize")),
        max_nodes=_number(dig(props, "scalingConfig", "maxSize")),
        instance_types=types, gpu_count=gpu_count,
        gpu_model=labels.get(v.LABEL_ACCELERATOR) or _aws_accelerator_model(labels) or gpu_model,
        gpu_image=(isinstance(ami, str) and ("NVIDIA" in ami or "GPU" in ami)) or gpu_family,
        os=os, labels_partial=is_unknown(props.get("labels")),
    )


def _read_gke(props: dict, urn: str, name: str) -> PoolView:
    # An unknown nodeConfig makes every field read through ``dig`` below unknown.
    raw_config = props.get("nodeConfig")
    config = as_dict(raw_config)
    machine = dig(props, "nodeConfig", "machineType", default="e2-medium")
    types = UNKNOWN if is_unknown(machine) else ([machine] if isinstance(machine, str) else [])
    spot_flags = [dig(props, "nodeConfig", "spot"), dig(props, "nodeConfig", "preemptible")]
    spot = UNKNOWN if any(is_unknown(f) for f in spot_flags) else any(f is True for f in spot_flags)
    accelerators = known_list(dig(props, "nodeConfig", "guestAccelerators"))
    gpu_count, gpu_model = _gpu_from_types(types)
    if is_unknown(accelerators):
        gpu_count, gpu_model, accelerators = UNKNOWN, UNKNOWN, []
    accelerators = [as_dict(a) for a in accelerators]
    if accelerators:
        first = accelerators[0]
        gpu_count = _number(first.get("count", UNKNOWN))
        accel = first.get("type")
        gpu_model = gke.GPU_MODEL_OF_ACCELERATOR[accel].value if accel in gke.GPU_MODEL_OF_ACCELERATOR else accel
    image = dig(props, "nodeConfig", "imageType", default="")
    os = UNKNOWN if is_unknown(image) else ("windows" if str(image).upper().startswith("WINDOWS") else "linux")
    pool_name = props.get("name") if isinstance(props.get("name"), str) else name
    labels = {v.LABEL_GKE_NODEPOOL: pool_name, **str_map(config.get("labels"))}
    # GKE labels Spot VMs gke-spot and legacy preemptible VMs gke-preemptible.
    for flag, label in ((config.get("spot"), v.LABEL_GKE_SPOT), (config.get("preemptible"), v.LABEL_GKE_PREEMPTIBLE)):
        if flag is True:
            labels[label] = "true"
    if accelerators and isinstance(accelerators[0].get("type"), str):
        labels[v.LABEL_GKE_ACCELERATOR] = accelerators[0]["type"]
    if accelerators:
        labels.update(_gke_sharing_labels(accelerators[0]))
    autoscaling = props.get("autoscaling")
    fixed = props.get("nodeCount", props.get("initialNodeCount"))
    min_nodes = _gke_bound(autoscaling, "totalMinNodeCount", "minNodeCount", fixed)
    max_nodes = _gke_bound(autoscaling, "totalMaxNodeCount", "maxNodeCount", fixed)
    compact = dig(props, "placementPolicy", "type") == "COMPACT"
    return PoolView(
        type=v.TYPE_GKE_NODE_POOL, urn=urn, name=pool_name, cluster=props.get("cluster", UNKNOWN),
        labels=_with_topology_labels(_with_instance_labels(labels, types), v.Cloud.GCP, types, compact), taints=_taints(dig(props, "nodeConfig", "taints"), TAINT_EFFECT_OF), spot=spot,
        min_nodes=min_nodes, max_nodes=max_nodes, instance_types=types, gpu_count=gpu_count,
        gpu_model=labels.get(v.LABEL_ACCELERATOR) or gpu_model, gpu_image=bool(accelerators),
        os=os, labels_partial=is_unknown(raw_config) or is_unknown(config.get("labels")),
    )


def _aws_accelerator_model(labels: dict[str, Any]) -> str | None:
    value = labels.get(v.LABEL_AWS_ACCELERATOR)
    model = eks.gpu_model_of_accelerator_label(value) if isinstance(value, str) else None
    return model.value if model else None


def _gke_sharing_labels(accelerator: dict) -> dict[str, Any]:
    """The labels GKE puts on shared GPU nodes (how-to pages gpus-multi, timesharing-gpus)."""
    labels: dict[str, Any] = {}
    partition = accelerator.get("gpuPartitionSize")
    if partition is not None:
        labels[v.LABEL_GKE_GPU_PARTITION_SIZE] = partition
    sharing = accelerator.get("gpuSharingConfig")
    if is_unknown(sharing):
        labels[v.LABEL_GKE_GPU_SHARING_STRATEGY] = UNKNOWN
    elif isinstance(sharing, dict) and sharing.get("gpuSharingStrategy") == "TIME_SHARING":
        clients = sharing.get("maxSharedClientsPerGpu")
        labels[v.LABEL_GKE_GPU_SHARING_STRATEGY] = "time-sharing"
        labels[v.LABEL_GKE_MAX_SHARED_CLIENTS] = (
            clients if is_unknown(clients) else str(int(clients)) if isinstance(clients, (int, float)) else UNKNOWN)
    return labels


def _gke_bound(autoscaling: Any, total_key: str, zonal_key: str, fixed: Any) -> Any:
    """Whole-pool bound; per-zone bounds are reported as given (per zone)."""
    if is_unknown(autoscaling):
        return UNKNOWN
    if isinstance(autoscaling, dict):
        return _number(autoscaling.get(total_key, autoscaling.get(zonal_key)))
    return _number(fixed)


def _with_instance_labels(labels: dict[str, Any], types: Any) -> dict[str, Any]:
    """Labels the kubelet sets from the node type, when every node shares them."""
    if is_unknown(types) or not types:
        return labels
    out = dict(labels)
    if len(types) == 1:
        out.setdefault(v.LABEL_INSTANCE_TYPE, types[0])
    entries = [lookup(t) for t in types]
    arches = {e.architecture.value for e in entries if e is not None}
    if len(arches) == 1 and None not in entries:
        out.setdefault(v.LABEL_ARCH, "amd64" if arches == {"x86_64"} else "arm64")
    return out


def _with_topology_labels(labels: dict[str, Any], cloud: v.Cloud, types: Any, compact: bool) -> dict[str, Any]:
    """The network-topology labels the cloud sets on every node of these types, present with a
    per-node value (``nodepools.clouds.topology``)."""
    family = None if is_unknown(types) else labelled_family(cloud, types, compact)
    if family is None:
        return labels
    return {**labels, **{key: labels.get(key, UNKNOWN) for key in family.network_levels}}


def _read_karpenter(props: dict, urn: str, name: str) -> PoolView:
    # A NodePool's taints are Kubernetes objects: their effects need no cloud mapping.
    return read_karpenter(props, urn, name, PoolView, lambda raw: _taints(raw, {}))


_READERS: dict[str, Callable[[dict, str, str], PoolView]] = {
    v.TYPE_EKS_NODE_GROUP: _read_eks,
    v.TYPE_GKE_NODE_POOL: _read_gke,
    v.TYPE_KARPENTER_NODE_POOL: _read_karpenter,
}


def read_pool(resource_type: str, props: Any, urn: str = "", name: str = "") -> PoolView | None:
    """The pool in ``props``, or None when ``resource_type`` is not a node pool."""
    reader = _READERS.get(resource_type)
    return reader(as_dict(plain(props)), urn, name) if reader else None
