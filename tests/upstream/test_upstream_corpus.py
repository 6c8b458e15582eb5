"""Real upstream manifests on the aws-dev platform: the pack's exact verdicts (docs/design.md section 6).

Every manifest of the index is vendored (NOTICE.md), so every case runs on a clean
machine: none depends on a mirror or a path of one machine, and none can skip.
"""
import re

import pytest
import yaml

from corpus import VENDORED, HERE, entries, read, resources, vendored_path, verdicts
from nodepools.policies.config import spread
from section8 import vendored_files as section8_files

ENTRIES = entries()
PLUGIN = "NVIDIA/k8s-device-plugin"


def entry(path):
    return next(e for e in ENTRIES if e.path == path)


def judge(pack, platform, entry_, config=None):
    mine = resources(read(entry_))
    names = {r.urn: r.name for r in [*platform, *mine]}
    diagnostics = pack.check(platform + mine, config)
    return diagnostics, verdicts(diagnostics, names)


def text_of(diagnostic):
    """The finding itself (the engine shows the policy's description above it)."""
    return diagnostic.message.split("\n", 1)[-1]


def test_the_index_pins_and_vendors_every_manifest_with_its_license():
    assert len(ENTRIES) >= 46 and len({e.id for e in ENTRIES}) == len(ENTRIES)
    assert all(re.fullmatch(r"[0-9a-f]{40}", e.commit) for e in ENTRIES)
    notice = (HERE / "NOTICE.md").read_text()
    missing = [e.id for e in ENTRIES if not vendored_path(e).is_file()]
    assert missing == [], "vendor them: make vendor-upstream (tests/upstream/vendor.py)"
    for e in ENTRIES:
        assert f"{e.repo}/{e.path}" in notice and e.commit in notice, e.id
    vendored_files = {p.relative_to(VENDORED).as_posix() for p in VENDORED.rglob("*") if p.is_file()}
    assert vendored_files == {f"{e.repo}/{e.path}" for e in ENTRIES} | section8_files()
    assert {e.category for e in ENTRIES} >= {"device-plugin", "node-agent", "pytorchjob", "gpu-inference",
                                             "gpu-operator", "jobset"}


@pytest.mark.parametrize("entry_", ENTRIES, ids=lambda e: e.id)
def test_manifest_verdicts(pack, platform, entry_):
    assert judge(pack, platform, entry_)[1] == list(entry_.verdicts)


def test_the_device_plugin_in_kube_system_is_never_reported(pack, platform):
    assert judge(pack, platform, entry("deployments/static/nvidia-device-plugin.yml"))[0] == []


def test_a_plugin_outside_the_system_namespaces_is_judged_like_a_node_agent(pack, platform):
    manifest = entry("deployments/static/nvidia-device-plugin-privileged-with-service-account.yml")
    diagnostics, _ = judge(pack, platform, manifest)
    subject = "DaemonSet 'nvidia-device-plugin-daemonset' in namespace 'nvidia-device-plugin'"
    assert {d.policy: text_of(d) for d in diagnostics} == {
        "gpu-device-plugin": f"{subject}: spec.template.spec.nodeSelector/affinity: lands on non-GPU pool "
                             "'np-aws-dev-system', where it fails to initialise. Fix: select GPU nodes only, e.g. "
                             "nodeSelector nvidia.com/gpu.present: 'true'",
        "toleration-approval": f"{subject}: spec.template.spec.tolerations: tolerates nvidia.com/gpu=present:"
                               "NoSchedule, which is not a taint of its own class (unresolved) and namespace "
                               "'nvidia-device-plugin' is not approved for it. Fix: remove that toleration, or add "
                               "'nvidia-device-plugin' to tolerationApprovals['nvidia.com/gpu=present'] (or to "
                               "nodeAgentNamespaces) in the pack config",
        "workload-class-declared": f"{subject}: spec.template.metadata.labels: no nodepools.io/workload-class label "
                                   "on the pod template, the workload or its namespace. Fix: label the pod template "
                                   "nodepools.io/workload-class: <resident | batch | gpu-inference | gpu-training>"}
    approved = judge(pack, platform, manifest, spread({"nodeAgentNamespaces": ["nvidia-device-plugin"]}))[1]
    assert approved == ["gpu-device-plugin violation nvidia-device-plugin-daemonset",
                        "workload-class-declared violation nvidia-device-plugin-daemonset"]


def test_node_exporter_blanket_toleration_and_its_approval(pack, platform):
    manifest = entry("manifests/nodeExporter-daemonset.yaml")
    diagnostics, _ = judge(pack, platform, manifest)
    [blanket] = [d for d in diagnostics if d.policy == "no-blanket-tolerations"]
    assert (blanket.level, text_of(blanket)) == ("mandatory", (
        "DaemonSet 'node-exporter' in namespace 'monitoring': spec.template.spec.tolerations[0]: an empty key with "
        "operator Exists tolerates every taint, so the pod can land on any pool, GPU and spot pools included. Fix: "
        "list the taints of the pools it must reach, each with key, operator Equal and value (or, for a node agent, "
        "list its namespace in nodeAgentNamespaces in the pack config)"))
    approved = judge(pack, platform, manifest, spread({"nodeAgentNamespaces": ["monitoring"]}))[1]
    assert approved == ["workload-class-declared violation node-exporter"]


def test_gpu_feature_discovery_is_no_plugin_and_nfd_labels_are_absent_unless_sourced(pack, platform):
    gfd = entry("deployments/static/gpu-feature-discovery-daemonset.yaml")
    diagnostics, _ = judge(pack, platform, gfd)
    [schedulable] = [d for d in diagnostics if d.policy == "schedulable"]
    assert "the nodes have no label feature.node.kubernetes.io/pci-10de.present" in text_of(schedulable)
    assert not any(d.cannot_judge for d in diagnostics)
    sourced, _ = judge(pack, platform, gfd, spread({"nodeLabelSources": ["feature.node.kubernetes.io/"]}))
    [note] = [d for d in sourced if d.policy == "schedulable"]
    assert note.cannot_judge and note.level == "advisory"
    assert ("DaemonSet 'gpu-feature-discovery' in namespace 'default': cannot judge spec.template.spec during "
            "preview: whether some pool fits it: pool 'np-aws-dev-system': required node affinity: "
            "feature.node.kubernetes.io/pci-10de.present In: node label feature.node.kubernetes.io/pci-10de.present "
            "is added at run time by an agent (nodeLabelSources 'feature.node.kubernetes.io/')") in note.message


def _without_plugin(platform):
    return [r for r in platform if not r.name.endswith("nvidia-device-plugin")]


def test_the_gpu_operator_provides_the_plugin(pack, platform):
    bare = _without_plugin(platform)
    missing = pack.check(bare)
    assert sorted((d.policy, d.urn.rsplit("::", 1)[-1]) for d in missing) == [
        ("gpu-device-plugin", "np-aws-dev-inference"), ("gpu-device-plugin", "np-aws-dev-training")]
    # The sample leaves daemonsets.tolerations unset: its operands tolerate only nvidia.com/gpu:NoSchedule
    # (the chart's default), not the GPU pools' class taints (docs/design.md section 8).
    sample = resources(read(entry("config/samples/v1_clusterpolicy.yaml")))
    uncovered = pack.check(bare + sample)
    assert sorted((d.policy, d.urn.rsplit("::", 1)[-1]) for d in uncovered) == [
        ("gpu-device-plugin", "np-aws-dev-inference"), ("gpu-device-plugin", "np-aws-dev-training")]
    assert all("ClusterPolicy 'gpu-cluster-policy': does not tolerate nodepools.io/pool-class=gpu-" in d.message
               for d in uncovered)
    tolerant = yaml.safe_load(read(entry("config/samples/v1_clusterpolicy.yaml")))
    tolerant["spec"]["daemonsets"]["tolerations"] = [
        {"key": "nodepools.io/pool-class", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert pack.check(bare + resources(yaml.safe_dump(tolerant))) == []
    tolerant["spec"]["devicePlugin"]["enabled"] = False
    assert len(pack.check(bare + resources(yaml.safe_dump(tolerant)))) == 2


def test_gang_scheduling_only_for_gpu_gangs(pack, platform):
    gpu = judge(pack, platform, entry("examples/pytorch/mnist/v1/pytorch_job_mnist_nccl.yaml"))[0]
    [gang] = [d for d in gpu if d.policy == "gang-scheduling"]
    assert text_of(gang) == (
        "PyTorchJob 'pytorch-dist-mnist-nccl' in namespace 'default': metadata.labels: 2 pods requesting GPUs and no "
        "gang label or scheduling group, so they start one by one: a partial gang holds GPUs while it waits for the "
        "rest. Fix: add label kueue.x-k8s.io/queue-name: <LocalQueue> (Kueue) or scheduling.x-k8s.io/pod-group: "
        "<PodGroup> (coscheduling)")
    for cpu_only in ("examples/pytorch/cpu-demo/demo.yaml", "site/static/examples/pytorch/cnn-mnist/mnist.yaml"):
        assert "gang-scheduling" not in {d.policy for d in judge(pack, platform, entry(cpu_only))[0]}
