"""NVIDIA's DRA driver for GPUs in a stack, and where its kubelet plugin lands (docs/design.md section 11.4).

Read as ``policies/device_plugins.py`` reads the device plugin, into the same record
(``DevicePlugin`` with ``allocation`` dra), so "what serves this pool's GPUs" has one reader:

- a Helm release of the driver's chart (``dra-driver-nvidia-gpu``, before the move
  ``nvidia-dra-driver-gpu``) with ``resources.gpus.enabled`` not false; its kubelet plugin's
  tolerations, nodeSelector and affinity are ``kubeletPlugin.*`` unless values replace them, the
  chart's defaults otherwise (deployments/helm/dra-driver-nvidia-gpu/values.yaml@v0.4.1:
  tolerations ``nvidia.com/gpu`` Exists NoSchedule; a required affinity ORing NFD's NVIDIA PCI
  labels, NFD's CPU vendor label and ``nvidia.com/gpu.present=true``);
- a DaemonSet with a container running the driver's image with ``gpu-kubelet-plugin`` (the
  same image also runs the ComputeDomain plugin, the controller and the webhook: not GPU servers);
- the GPU Operator's DRA stack: a ``nvidia.com/v1alpha1`` GPUCluster (its ``spec.daemonsets``) or a
  ``gpu-operator`` release with ``gpuCluster.deployCR: true`` (``values.daemonsets``), which
  always deploys the GPU plugin on the GPU nodes it labels (NVIDIA/gpu-operator:
  api/nvidia/v1alpha1/gpucluster_types.go, deployments/gpu-operator/templates/gpucluster.yaml@v26.7.0).
"""
from __future__ import annotations

from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory.podspec import container_list, tolerations
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_list
from nodepools.inventory.tri import or3
from nodepools.inventory.workloads import read_workload
from nodepools.policies.base import subject_of
from nodepools.inventory.resource import Resource
from nodepools.policies.device_plugins import HELM_TYPES, OPERATOR_CHART, DevicePlugin, chart_name
from nodepools.policies.device_plugins import operator_server
from nodepools.policies.stack_view import StackView
from nodepools.vocabulary import GpuAllocation

DRA = GpuAllocation.DRA
PLUGIN_COMMAND = "gpu-kubelet-plugin"
CHART_TOLERATIONS = [{"key": v.GPU_RESOURCE, "operator": "Exists", "effect": v.TaintEffect.NO_SCHEDULE.value}]
_NFD = "feature.node.kubernetes.io/"
CHART_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}
    for key, value in ((f"{_NFD}pci-10de.present", "true"), (f"{_NFD}pci-0302_10de.present", "true"),
                       (f"{_NFD}pci-0300_10de.present", "true"), (f"{_NFD}cpu-model.vendor_id", "NVIDIA"),
                       (v.LABEL_GPU_PRESENT, v.LABEL_GPU_PRESENT_VALUE))]}}}


def _from_release(res: Resource) -> DevicePlugin | None:
    chart, values = chart_name(res), res.props.get("values")
    namespace = res.props.get("namespace") or "default"
    if chart == OPERATOR_CHART:
        # Only an explicit gpuCluster.deployCR (default false); one release never deploys both CRs: its
        # chart refuses (templates/validations.yaml@v26.7.0), and an unknown one is the plugin reader's note.
        if dig(values, "gpuCluster", "deployCR") is not True:
            return None
        operands = UNKNOWN if res.props.get("valueYamlFiles") else dig(values, "daemonsets")
        return operator_server(res, namespace, True, "values.daemonsets.tolerations", operands, DRA)
    if is_unknown(chart) or chart not in v.DRA_DRIVER_CHARTS:
        return None  # an unknown chart is read once, by the device plugin reader
    enabled = dig(values, "resources", "gpus", "enabled")
    if enabled is False:
        return None  # ComputeDomains only
    spec: Any = UNKNOWN
    if not is_unknown(values) and not res.props.get("valueYamlFiles"):
        plugin = as_dict(dig(values, "kubeletPlugin"))
        spec = {"tolerations": plugin.get("tolerations", CHART_TOLERATIONS),
                "nodeSelector": plugin.get("nodeSelector", {}), "affinity": plugin.get("affinity", CHART_AFFINITY)}
    return DevicePlugin(res, subject_of(res.type, res.name, namespace), namespace, spec,
                        "values.kubeletPlugin.tolerations/nodeSelector/affinity", certain=not is_unknown(enabled),
                        allocation=DRA)


def _runs_gpu_plugin(container: dict) -> Any:
    """The container runs the driver's GPU kubelet plugin: its image with gpu-kubelet-plugin."""
    image, command, args = container.get("image"), container.get("command"), container.get("args")
    if is_unknown(image):
        return UNKNOWN
    if not isinstance(image, str) or not any(name in image for name in v.DRA_DRIVER_IMAGES):
        return False
    words = [known_list(command), known_list(args)]
    if any(is_unknown(w) for w in words):
        return UNKNOWN
    return any(PLUGIN_COMMAND in str(word) for w in words for word in w)


def _from_daemonset(res: Resource) -> DevicePlugin | None:
    workload = read_workload(res.type, res.props, res.urn, res.name)
    if workload is None or workload.kind != "DaemonSet" or not workload.templates:
        return None
    spec = workload.templates[0].spec
    entries = container_list(spec, "containers")
    runs = UNKNOWN if is_unknown(entries) else or3(_runs_gpu_plugin(c) for _, c in entries)
    if runs is not True:
        return None  # an unknown image is the device plugin reader's uncertain plugin already
    plugin_spec = UNKNOWN if is_unknown(spec) else {"tolerations": tolerations(spec),
                                                    "nodeSelector": dig(spec, "nodeSelector", default={}),
                                                    "affinity": dig(spec, "affinity")}
    return DevicePlugin(res, subject_of(res.type, res.name, workload.namespace), workload.namespace, plugin_spec,
                        "spec.template.spec.nodeSelector/affinity", allocation=DRA)


def _from_gpu_cluster(res: Resource) -> DevicePlugin | None:
    return operator_server(res, None, True, "spec.daemonsets.tolerations", dig(res.props, "spec", "daemonsets"), DRA)


def dra_drivers(stack: StackView) -> list[DevicePlugin]:
    found = [_from_release(r) for r in stack.of_type(*HELM_TYPES)]
    found += [_from_gpu_cluster(r) for r in stack.of_type(v.TYPE_GPU_CLUSTER)]
    found += [_from_daemonset(r) for r in stack.of_type("kubernetes:apps/v1:DaemonSet")]
    return [d for d in found if d is not None]
