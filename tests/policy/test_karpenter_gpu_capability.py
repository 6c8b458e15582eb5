"""docs/design.md section 8, "GPU capability of a Karpenter NodePool": decided from its requirements,
never left unjudged; only an instance type absent from the table leaves the node size unknown, and
only schedulable notes that."""
import pytest

from nodepools.inventory.pools import read_pool
from nodepools.offline.analyzer import UNKNOWN_WIRE
from nodepools.spec.instances import INSTANCE_TYPES, aws_family, aws_family_has_nvidia_gpu

from karpenter_builders import CAPACITY, NODE_POOL, karpenter_golden, k_taint, node_pool, ours, req
from policy_builders import CLASS, GPU, golden, template_spec

FAMILY, CATEGORY, TYPE = ("karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-category",
                          "node.kubernetes.io/instance-type")
GPU_TAINT_MISSING = ("NodePool '{0}': spec.template.spec.taints: a GPU pool without a nvidia.com/gpu NoSchedule taint "
                     "lets pods that request no GPU take its nodes. Fix: add {{key: nvidia.com/gpu, value: present, "
                     "effect: NO_SCHEDULE}} to spec.template.spec.taints")


def with_jobs(*requirements, **kw):
    """The Karpenter golden stack whose batch NodePool has these requirements (on-demand)."""
    jobs = ours("jobs", "batch", req(CAPACITY, "In", "on-demand"), *requirements,
                limits=kw.pop("limits", {"cpu": "64", "memory": "256Gi"}), **kw)
    return karpenter_golden().drop("jobs").add(jobs)


def messages(diagnostics, policy):
    return [d.message.split("\n", 1)[-1] for d in diagnostics if d.policy == policy]


def test_the_table_instances_with_gpus_belong_to_the_cited_gpu_families():
    assert all(aws_family_has_nvidia_gpu(aws_family(t.name)) == t.has_gpu for t in INSTANCE_TYPES.values()
               if t.cloud.value == "aws")


@pytest.mark.parametrize("family, gpu", [
    ("g4dn", True), ("g5g", True), ("gr6", True), ("p3", True), ("p5en", True), ("p6-b200", True),
    ("p6e-gb200", True), ("inf2", False), ("trn1", False), ("trn2", False), ("g4ad", False), ("r7g", False),
    ("m7gn", False), ("dl1", False),
])
def test_gpu_families_are_the_ones_with_nvidia_gpus(family, gpu):
    assert aws_family_has_nvidia_gpu(family) is gpu


@pytest.mark.parametrize("requirement", [
    req(FAMILY, "In", "r7g", "m7gn"),  # the NodePool: CPU families the instance table lacks
    req(TYPE, "In", "r7g.2xlarge", "m7gn.4xlarge"),
    req(CATEGORY, "In", "inf", "trn"),  # Neuron: no NVIDIA GPU
    req(FAMILY, "In", "c7g", "r7g"),  # one family in the table, one not
])
def test_a_nodepool_restricted_to_cpu_families_is_a_cpu_pool_judged_without_notes(check, requirement):
    assert check(with_jobs(requirement)) == []


def test_only_schedulable_notes_the_size_of_a_type_the_table_lacks(check):
    fixture = with_jobs(req(FAMILY, "In", "r7g", "m7gn")).edit("nightly", lambda p: template_spec(p).update(
        nodeSelector={"nodepools.io/pool": "jobs"}))
    [note] = check(fixture)
    assert (note.policy, note.cannot_judge) == ("schedulable", True)
    assert note.message.endswith(
        "cannot judge 1 item(s): CronJob 'nightly' in namespace 'batch': cannot judge "
        "spec.jobTemplate.spec.template.spec during preview: whether some pool fits it: pool 'jobs': instance type "
        "r7g.* is not in the instance table: cannot judge size")


def test_a_gpu_pod_cannot_be_placed_on_a_cpu_family_pool(check):
    def gpu_job(p):
        spec = template_spec(p)
        spec.update(nodeSelector={"nodepools.io/pool": "jobs"})
        spec["containers"][0]["resources"] = {"requests": {"cpu": "1", GPU: 1.0}, "limits": {"cpu": "1", GPU: 1.0}}
    fixture = with_jobs(req(FAMILY, "In", "r7g")).edit("nightly", gpu_job)
    [schedulable] = messages(check(fixture), "schedulable")
    assert "fits no pool of its cluster (" in schedulable
    assert ("jobs: too big for r7g.*: requests nvidia.com/gpu 1 > allocatable 0" in schedulable)


@pytest.mark.parametrize("requirement", [
    req(FAMILY, "In", "p5en"),  # a GPU family the table lacks
    req(TYPE, "In", "g6.96xlarge"),  # a type the table lacks takes its family's GPU status (section 9)
    req(FAMILY, "In", "m7g", "g5"),  # some family with GPUs
    req(CATEGORY, "In", "p"),
    req("karpenter.k8s.aws/instance-gpu-count", "Gt", "0"),
    req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"),
])
def test_a_gpu_signal_makes_a_gpu_pool(check, requirement):
    diagnostics = check(with_jobs(requirement))
    assert messages(diagnostics, "gpu-pool-taint") == [GPU_TAINT_MISSING.format("jobs")]


@pytest.mark.parametrize("requirement", [
    req(FAMILY, "NotIn", "g5", "p4d"),  # NotIn restricts nothing: no positive signal
    req(CATEGORY, "DoesNotExist"),
    req("karpenter.k8s.aws/instance-gpu-count", "DoesNotExist"),
    req("karpenter.k8s.aws/instance-gpu-count", "In", "0"),
])
def test_without_a_positive_signal_a_nodepool_is_a_cpu_pool(check, requirement):
    assert check(with_jobs(req("kubernetes.io/arch", "In", "amd64"), requirement)) == []


def test_the_gpu_signal_wins_over_cpu_families():
    view = read_pool(NODE_POOL, node_pool("x", [req(FAMILY, "In", "r7g"),
                                               req("karpenter.k8s.aws/instance-gpu-count", "Gt", "0")]).props)
    assert view.is_gpu is True


@pytest.mark.parametrize("requirement", [req(FAMILY, "In", UNKNOWN_WIRE), {"key": FAMILY, "operator": "In",
                                                                        "values": UNKNOWN_WIRE}])
def test_a_requirement_unknown_at_preview_is_a_note_never_a_verdict(check, requirement):
    diagnostics = check(with_jobs(requirement))
    assert not [d for d in diagnostics if not d.cannot_judge]
    assert ("NodePool 'jobs': cannot judge spec.template.spec.requirements during preview: whether the pool has GPUs "
            "is unknown") in " ".join(messages(diagnostics, "gpu-pool-taint"))


@pytest.mark.parametrize("requirements", [
    ["r7g", 5.0], [{"key": ["x"], "operator": "In", "values": ["a"]}], [{"key": FAMILY, "operator": "In", "values": 7.0}],
    [{"key": FAMILY, "operator": "In", "values": "r7g"}], [{"key": TYPE, "operator": 3.0, "values": [1.0, None]}],
])
def test_requirements_of_any_shape_are_read_without_error(check, requirements):
    pool = node_pool("odd", requirements, labels={CLASS: "batch"}, taints=[k_taint(CLASS, "batch")],
                     limits={"cpu": "8"})
    assert not [d for d in check(karpenter_golden().add(pool)) if d.urn == pool.urn and not d.cannot_judge]


def test_a_managed_node_group_of_a_type_the_table_lacks_takes_its_familys_gpu_status(check):
    # The same reading for EKS node groups: r7g has no GPU, g4dn has NVIDIA T4s.
    cpu = golden().edit("jobs", lambda p: p.update(instanceTypes=["r7g.2xlarge"]))
    assert check(cpu) == []
    gpu = golden().edit("jobs", lambda p: p.update(instanceTypes=["g4dn.xlarge"]))
    assert messages(check(gpu), "gpu-pool-taint") == [
        "aws:eks/nodeGroup:NodeGroup 'jobs': taints: a GPU pool without a nvidia.com/gpu NoSchedule taint lets pods "
        "that request no GPU take its nodes. Fix: add {key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE} to "
        "taints"]
