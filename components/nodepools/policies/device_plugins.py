"""NVIDIA device plugins in a stack, and where each one lands (docs/design.md section 6).

A plugin is a Helm release of the ``nvidia-device-plugin`` chart (v3 Release or
v4 Chart), a DaemonSet whose container runs the device plugin (the
``k8s-device-plugin`` image with its default command, ``nvidia-device-plugin``:
the same image also ships ``gpu-feature-discovery``, ``config-manager`` and
``mps-control-daemon``, which are not plugins), or the NVIDIA GPU Operator (a
``gpu-operator`` release or a ``nvidia.com/v1`` ClusterPolicy), which runs the
plugin itself unless ``devicePlugin.enabled`` is false, on the GPU nodes it labels
(``nvidia.com/gpu.present``) and only where its operands' tolerations
(``daemonsets.tolerations``: ClusterPolicy ``spec``, chart ``values``) cover
every taint of the pool (docs/design.md section 8). DCGM exporter is not a plugin.
A release's
tolerations and node affinity are the chart's defaults unless its values
replace them (docs/kubernetes-facts.md section 3): tolerations ``CriticalAddonsOnly``
and ``nvidia.com/gpu`` (Exists, NoSchedule), and a required affinity ORing the
NFD PCI-vendor label, the NFD CPU-vendor label and ``nvidia.com/gpu.present=true``.
Matching is the placement analysis's. EKS Bottlerocket NVIDIA images bundle the
plugin; GKE installs its own when the pool's driver version is set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nodepools import vocabulary as v
from nodepools.vocabulary import GpuAllocation
from nodepools.inventory.dra_classes import helm_chart_name
from nodepools.inventory.podspec import container_list, node_selector, required_node_terms
from nodepools.inventory.podspec import tolerations
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_list
from nodepools.inventory.workloads import read_workload
from nodepools.placement.affinity import affinity_matches, selector_matches
from nodepools.placement.nodelabels import node_labels
from nodepools.placement.taints import taint_text, untolerated
from nodepools.inventory.tri import Tri, and3, or3
from nodepools.inventory.pools import PoolView
from nodepools.policies.base import subject_of
from nodepools.inventory.resource import Resource
from nodepools.inventory.stack_model import PoolRef
from nodepools.policies.stack_view import StackView

CHART = "nvidia-device-plugin"
OPERATOR_CHART = v.GPU_OPERATOR_CHART
IMAGE = "k8s-device-plugin"
# The image's entrypoint is the plugin; other commands of the same image are helpers.
PLUGIN_COMMAND = "nvidia-device-plugin"
TYPE_CLUSTER_POLICY = "kubernetes:nvidia.com/v1:ClusterPolicy"
HELM_TYPES = v.HELM_TYPES
# GKE gpuDriverVersion values that install no driver (docs/kubernetes-facts.md section 2).
GKE_NO_DRIVER = (None, "", "GPU_DRIVER_VERSION_UNSPECIFIED", "INSTALLATION_DISABLED")
CHART_TOLERATIONS = [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                     {"key": v.GPU_RESOURCE, "operator": "Exists", "effect": v.TaintEffect.NO_SCHEDULE.value}]
CHART_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In",
                           "values": ["true"]}]},
    {"matchExpressions": [{"key": "feature.node.kubernetes.io/cpu-model.vendor_id", "operator": "In",
                           "values": ["NVIDIA"]}]},
    {"matchExpressions": [{"key": v.LABEL_GPU_PRESENT, "operator": "In", "values": [v.LABEL_GPU_PRESENT_VALUE]}]},
]}}}
# The GPU Operator's operands when daemonsets.tolerations is unset: NVIDIA/gpu-operator
# deployments/gpu-operator/values.yaml@v26.7.0 (10ee5b3638b89e11e949412aafa5ba99279c3721),
# the same since v26.3.0; a ClusterPolicy without it gets this default too (section 9).
OPERATOR_TOLERATIONS = [{"key": v.GPU_RESOURCE, "operator": "Exists", "effect": v.TaintEffect.NO_SCHEDULE.value}]


@dataclass(frozen=True)
class DevicePlugin:
    res: Resource
    subject: str
    namespace: Any
    spec: Any  # {"tolerations", "nodeSelector", "affinity"} or UNKNOWN (values unknown / not modelled)
    selection_field: str
    # False for a release whose chart, or a DaemonSet whose image, is unknown at preview: it may be a plugin.
    certain: bool = True
    # The GPU Operator: it places the plugin on GPU nodes itself (its own labels and tolerations).
    operator: bool = False
    # What it hands out GPUs with: the device plugin, or a DRA driver (policies/dra_drivers.py).
    allocation: GpuAllocation = GpuAllocation.DEVICE_PLUGIN

    def lands_on(self, pool: PoolView, label_sources: tuple[str, ...] = ()) -> tuple[Tri, str]:
        """(whether the plugin's pod lands on the pool's nodes, why not)."""
        if is_unknown(self.spec):
            return UNKNOWN, "its tolerations and node selection (values) are unknown until the update runs"
        answer, taint = untolerated(tolerations(self.spec), pool.taints)
        if answer is False:
            return False, f"does not tolerate {taint_text(taint)} of pool '{pool.name}'"
        if self.operator:
            # It places its operands on the GPU nodes it labels itself.
            if pool.is_gpu is False:
                return False, f"pool '{pool.name}' has no GPU"
            answer = and3((answer, pool.is_gpu))
            why = "whether its operands tolerate the pool's taints is unknown until the update runs"
            return answer, "" if answer is True else why
        labels = node_labels(pool, label_sources)
        selector = self.spec.get("nodeSelector")
        chosen, why = selector_matches(selector if is_unknown(selector) else node_selector(self.spec), labels)
        if chosen is not False:
            affinity, why = affinity_matches(required_node_terms(self.spec), labels)
            chosen = and3((chosen, affinity))
        answer = and3((answer, chosen))
        if is_unknown(answer) and chosen is True:
            why = "whether it tolerates the pool's taints is unknown until the update runs"
        return answer, why if answer is not True else ""


def chart_name(res: Resource) -> Any:
    """The chart a Helm release installs (its last path segment: an OCI reference names it too), or UNKNOWN."""
    return helm_chart_name(res.props)


def _from_release(res: Resource) -> DevicePlugin | None:
    chart = chart_name(res)
    if is_unknown(chart):
        namespace = res.props.get("namespace") or "default"
        return DevicePlugin(res, subject_of(res.type, res.name, namespace), namespace, UNKNOWN,
                            "chart", certain=False)
    if chart not in (CHART, OPERATOR_CHART):
        return None
    values = res.props.get("values")
    namespace = res.props.get("namespace") or "default"
    if chart == OPERATOR_CHART:
        if dig(values, "clusterPolicy", "deployCR") is False:
            return None  # no ClusterPolicy, so no device plugin (its DRA stack: policies/dra_drivers.py)
        # Values files are not read: tolerations they may set stay unknown.
        operands = dig(values, "daemonsets")
        if res.props.get("valueYamlFiles") and "tolerations" not in as_dict(operands):
            operands = UNKNOWN
        return operator_server(res, namespace, dig(values, "devicePlugin", "enabled"), "values.daemonsets.tolerations",
                         operands)
    spec: Any = UNKNOWN
    if chart == CHART and not is_unknown(values) and not res.props.get("valueYamlFiles"):
        values = as_dict(values)
        spec = {"tolerations": values.get("tolerations", CHART_TOLERATIONS),
                "nodeSelector": values.get("nodeSelector", {}), "affinity": values.get("affinity", CHART_AFFINITY)}
    return DevicePlugin(res, subject_of(res.type, res.name, namespace), namespace, spec,
                        "values.tolerations/nodeSelector/affinity")


def operator_server(res: Resource, namespace: Any, enabled: Any, field: str, daemonsets: Any,
              allocation: GpuAllocation = GpuAllocation.DEVICE_PLUGIN) -> DevicePlugin | None:
    """The GPU Operator, unless its device plugin (or DRA driver) is disabled; ``daemonsets`` its
    operands' settings, read like a pod spec (``tolerations`` unset: the chart's default)."""
    if enabled is False:
        return None
    spec = daemonsets if is_unknown(daemonsets) else dict(as_dict(daemonsets))
    if not is_unknown(spec) and spec.get("tolerations") is None:
        spec["tolerations"] = OPERATOR_TOLERATIONS
    return DevicePlugin(res, subject_of(res.type, res.name, namespace), namespace, spec, field,
                        certain=not is_unknown(enabled), operator=True, allocation=allocation)


def _from_cluster_policy(res: Resource) -> DevicePlugin | None:
    return operator_server(res, None, dig(res.props, "spec", "devicePlugin", "enabled"), "spec.daemonsets.tolerations",
                     dig(res.props, "spec", "daemonsets"))


def _runs_plugin(container: dict) -> Tri:
    """The container runs the device plugin: its image with the default (or the plugin's) command."""
    image, command = container.get("image"), container.get("command")
    if is_unknown(image) or is_unknown(command):
        return UNKNOWN
    if not isinstance(image, str) or IMAGE not in image:
        return False
    words = known_list(command)
    if is_unknown(words):
        return UNKNOWN
    return not words or str(words[0]).rsplit("/", 1)[-1] == PLUGIN_COMMAND


def _from_daemonset(res: Resource) -> DevicePlugin | None:
    workload = read_workload(res.type, res.props, res.urn, res.name)
    if workload is None or workload.kind != "DaemonSet" or not workload.templates:
        return None
    spec = workload.templates[0].spec
    entries = container_list(spec, "containers")
    runs = UNKNOWN if is_unknown(entries) else or3(_runs_plugin(c) for _, c in entries)
    if runs is False:
        return None
    certain = runs is True
    plugin_spec = UNKNOWN if is_unknown(spec) else {"tolerations": tolerations(spec),
                                                    "nodeSelector": dig(spec, "nodeSelector", default={}),
                                                    "affinity": dig(spec, "affinity")}
    return DevicePlugin(res, subject_of(res.type, res.name, workload.namespace), workload.namespace, plugin_spec,
                        "spec.template.spec.nodeSelector/affinity", certain)


def device_plugins(stack: StackView) -> list[DevicePlugin]:
    found = [_from_release(r) for r in stack.of_type(*HELM_TYPES)]
    found += [_from_cluster_policy(r) for r in stack.of_type(TYPE_CLUSTER_POLICY)]
    found += [_from_daemonset(r) for r in stack.of_type("kubernetes:apps/v1:DaemonSet")]
    return [p for p in found if p is not None]


def needs_plugin(ref: PoolRef) -> Tri:
    """An EKS GPU pool whose image does not bundle the plugin (Bottlerocket NVIDIA does)."""
    if ref.res.type == v.TYPE_KARPENTER_NODE_POOL:
        # Its image is the EC2NodeClass's; AL2023's NVIDIA variant ships the driver, not the plugin.
        return ref.view.is_gpu
    if ref.res.type != v.TYPE_EKS_NODE_GROUP or ref.view.is_gpu is False:
        return False
    ami = ref.res.props.get("amiType")
    if is_unknown(ami) or is_unknown(ref.view.is_gpu):
        return UNKNOWN
    return not (isinstance(ami, str) and ami.startswith("BOTTLEROCKET") and "NVIDIA" in ami)
