"""docs/design.md section 8, "GPU Operator coverage": a gpu-operator release or a ClusterPolicy provides
the device plugin only on the GPU pools whose every taint its operands tolerate (daemonsets.tolerations,
the chart's default nvidia.com/gpu:NoSchedule when unset); devicePlugin.enabled false provides none."""
import pytest

from nodepools.offline.analyzer import UNKNOWN_WIRE
from nodepools.inventory.resource import Resource

from policy_builders import CLASS, GPU, golden, toleration

CLUSTER_POLICY = "kubernetes:nvidia.com/v1:ClusterPolicy"
RELEASE = "kubernetes:helm.sh/v3:Release"
ALL_GPU_POOLS = [toleration(CLASS, "gpu-inference"), toleration(CLASS, "gpu-training"), toleration(GPU)]
NO_PLUGIN_LANDS = ("no NVIDIA device plugin lands on this GPU pool ({who}: does not tolerate "
                   "nodepools.io/pool-class={cls}:NoSchedule of pool '{pool}'). Fix: give the plugin a toleration "
                   "for each of the pool's taints and node selection matching the pool's nvidia.com/gpu.present=true "
                   "label")


def cluster_policy(spec: dict) -> Resource:
    return Resource.of(CLUSTER_POLICY, "cluster-policy", {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                                                          "metadata": {"name": "cluster-policy"}, "spec": spec})


def operator_release(values) -> Resource:
    return Resource.of(RELEASE, "gpu-operator", {"chart": "gpu-operator", "namespace": "gpu-operator",
                                                 "version": "v26.7.0", "values": values})


def with_operator(*operators: Resource):
    return golden().drop("nvidia-device-plugin").add(*operators)


def plugin_findings(diagnostics) -> list[tuple[str, str]]:
    return sorted((d.urn.rsplit("::", 1)[-1], d.message.split("\n", 1)[-1]) for d in diagnostics
                  if d.policy == "gpu-device-plugin")


def reported(pool: str, cls: str, who: str) -> tuple[str, str]:
    return pool, (f"aws:eks/nodeGroup:NodeGroup '{pool}': NVIDIA device plugin tolerations/node selection: "
                  + NO_PLUGIN_LANDS.format(who=who, cls=cls, pool=pool))


OPERATOR = "Release 'gpu-operator' in namespace 'gpu-operator'"
POLICY = "ClusterPolicy 'cluster-policy'"


@pytest.mark.parametrize("operator, who", [
    (operator_release({}), OPERATOR),  # the chart's default: nvidia.com/gpu only
    (operator_release({"driver": {"enabled": False}}), OPERATOR),
    (cluster_policy({"devicePlugin": {"enabled": True}}), POLICY),  # daemonsets.tolerations unset
])
def test_an_operator_whose_operands_tolerate_only_the_gpu_taint_covers_no_class_tainted_pool(check, operator, who):
    assert plugin_findings(check(with_operator(operator))) == [
        reported("infer", "gpu-inference", who), reported("train", "gpu-training", who)]


@pytest.mark.parametrize("operator", [
    cluster_policy({"daemonsets": {"tolerations": ALL_GPU_POOLS}}),
    operator_release({"daemonsets": {"tolerations": ALL_GPU_POOLS}}),
    # A blanket toleration covers every taint.
    cluster_policy({"daemonsets": {"tolerations": [{"operator": "Exists"}]}}),
])
def test_an_operator_whose_operands_tolerate_every_taint_of_the_gpu_pools_covers_them(check, operator):
    assert plugin_findings(check(with_operator(operator))) == []


def test_an_operator_covers_only_the_pools_it_tolerates(check):
    operator = cluster_policy({"daemonsets": {"tolerations": [toleration(CLASS, "gpu-inference"), toleration(GPU)]}})
    assert plugin_findings(check(with_operator(operator))) == [reported("train", "gpu-training", POLICY)]


def test_the_default_toleration_covers_a_gpu_pool_tainted_only_nvidia_gpu(check):
    fixture = with_operator(operator_release({})).edit("infer", lambda p: p.update(
        taints=[t for t in p["taints"] if t["key"] == GPU]))
    assert [pool for pool, _ in plugin_findings(check(fixture))] == ["train"]


def test_two_operators_cover_what_either_tolerates(check):
    inference = cluster_policy({"daemonsets": {"tolerations": [toleration(CLASS, "gpu-inference"), toleration(GPU)]}})
    training = operator_release({"daemonsets": {"tolerations": [toleration(CLASS, "gpu-training"), toleration(GPU)]}})
    assert plugin_findings(check(with_operator(inference, training))) == []


@pytest.mark.parametrize("operator", [
    cluster_policy({"devicePlugin": {"enabled": False}, "daemonsets": {"tolerations": ALL_GPU_POOLS}}),
    operator_release({"devicePlugin": {"enabled": False}, "daemonsets": {"tolerations": ALL_GPU_POOLS}}),
])
def test_an_operator_with_its_device_plugin_disabled_provides_none(check, operator):
    message = ("NVIDIA device plugin: no NVIDIA device plugin in the stack, so the pool's GPUs are never advertised "
               "and GPU pods stay Pending. Fix: install the nvidia-device-plugin chart (nodepools' guardrails pin its "
               "version) with tolerations for the pool's taints and node selection on nvidia.com/gpu.present=true")
    assert plugin_findings(check(with_operator(operator))) == [
        ("infer", f"aws:eks/nodeGroup:NodeGroup 'infer': {message}"),
        ("train", f"aws:eks/nodeGroup:NodeGroup 'train': {message}")]


@pytest.mark.parametrize("operator, who, why", [
    (cluster_policy({"daemonsets": {"tolerations": UNKNOWN_WIRE}}), POLICY, "whether its operands tolerate the "
     "pool's taints is unknown until the update runs"),
    (operator_release({"daemonsets": {"tolerations": [UNKNOWN_WIRE]}}), OPERATOR, "whether its operands tolerate "
     "the pool's taints is unknown until the update runs"),
    (operator_release(UNKNOWN_WIRE), OPERATOR, "whether it is a device plugin (its chart or image) is unknown until "
     "the update runs"),
])
def test_operand_tolerations_unknown_at_preview_are_a_note_never_a_violation(check, operator, who, why):
    diagnostics = [d for d in check(with_operator(operator)) if d.policy == "gpu-device-plugin"]
    note = "; ".join(f"aws:eks/nodeGroup:NodeGroup '{pool}': cannot judge NVIDIA device plugin during preview: "
                     f"whether a device plugin reaches it: {who}: {why}" for pool in ("infer", "train"))
    assert [(d.cannot_judge, d.message.split(": cannot judge 2 item(s): ", 1)[-1]) for d in diagnostics] == [
        (True, note)]


@pytest.mark.parametrize("tolerations", ["nvidia.com/gpu", {"key": GPU}, [42, "x"], 7.0])
def test_operand_tolerations_of_any_shape_are_read_without_error(check, tolerations):
    findings = plugin_findings(check(with_operator(cluster_policy({"daemonsets": {"tolerations": tolerations}}))))
    assert [pool for pool, _ in findings] == ["infer", "train"]
