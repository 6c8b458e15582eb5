"""One answer to "is this a GPU resource" (docs/design.md section 6): the request side (every
policy that asks "requests a GPU") and the offer side (the placement analysis sizing a pod on
a pool) agree for every GPU resource name, and for names that are not GPUs.

Two probes per name, on the golden stack (a CPU batch pool, an L4 inference pool, an A100
training pool): a 2-pod batch Job asking for one of the resource (a GPU request there makes
it a gang and fits no CPU node), and an inference Deployment that tolerates and selects the
GPU pool (without a GPU request, that is taking a GPU node for nothing).
"""
import pytest

from nodepools.inventory.stack_model import StackModel
from nodepools.placement import analyze
from nodepools.vocabulary import is_gpu_resource

from policy_builders import CLASS, DEPLOYMENT, GPU, JOB, container, golden, pod_template, toleration, workload

# name -> is it a GPU, and what one node of the L4 inference pool (whole GPUs, the device
# plugin's default config) advertises of it: the whole-GPU name, no renamed shared name,
# no MIG slice (the L4 cannot do MIG).
NAMES = {
    "nvidia.com/gpu": True,
    "nvidia.com/gpu.shared": True,
    "nvidia.com/mig-1g.10gb": True,
    "nvidia.com/mig-3g.40gb": True,
    "nvidia.com/gpu.present": False,  # a node label, not a resource a plugin advertises
    "nvidia.com/mig": False,
    "amd.com/gpu": False,
    "example.com/fpga": False,
}


def probes(resource: str) -> list:
    ask = {resource: 1.0}
    batch = workload(JOB, "probe-batch", "batch", {"parallelism": 2.0, "template": pod_template("batch", {
        "priorityClassName": "nodepools-batch", "restartPolicy": "Never",
        "tolerations": [toleration(CLASS, "batch")],
        "containers": [{**container("1", "1Gi"), "resources": {"requests": {"cpu": "1", "memory": "1Gi", **ask},
                                                                "limits": {"cpu": "1", "memory": "1Gi", **ask}}}]},
        annotations={"nodepools.io/checkpoint-interval": "15m"})})
    serve = workload(DEPLOYMENT, "probe-serve", "inference", {"replicas": 1.0, "template": pod_template(
        "gpu-inference", {
            "priorityClassName": "nodepools-gpu-inference", "nodeSelector": {"nodepools.io/pool": "infer"},
            "tolerations": [toleration(CLASS, "gpu-inference"), toleration(GPU, "present")],
            "containers": [{**container("1", "1Gi"), "resources": {
                "requests": {"cpu": "1", "memory": "1Gi", **ask}, "limits": {"cpu": "1", "memory": "1Gi", **ask}},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080.0}}}]})})
    return [batch, serve]


def verdicts(diagnostics, stack) -> set[tuple[str, str, str]]:
    """(policy, violation | cannot-judge, the probes it names) of each diagnostic about a probe
    (the pack lists a policy's cannot-judge notes in one stack-level diagnostic)."""
    names = {r.urn: r.name for r in stack.items}
    out = set()
    for d in diagnostics:
        probes_named = [names[d.urn]] if names.get(d.urn, "").startswith("probe-") else \
            sorted({p for p in ("probe-batch", "probe-serve") if f"'{p}'" in d.message})
        if probes_named:
            out.add((d.policy, "cannot-judge" if d.cannot_judge else "violation", " ".join(probes_named)))
    return out


def expected(resource: str) -> set[tuple[str, str, str]]:
    if is_gpu_resource(resource):
        # A GPU job of 2 pods without a gang; no CPU node offers the resource.
        out = {("gang-scheduling", "violation", "probe-batch"), ("schedulable", "violation", "probe-batch")}
        if resource != GPU:  # the L4 pool offers nvidia.com/gpu only
            out.add(("schedulable", "violation", "probe-serve"))
        return out
    # No GPU request: tolerating and selecting the GPU pool is taking a GPU node for nothing;
    # the resource itself is another device plugin's, which placement does not model.
    return {("gpu-toleration-needs-gpu", "violation", "probe-serve"),
            ("schedulable", "cannot-judge", "probe-batch probe-serve"),
            ("gpu-nodes-gpu-only", "cannot-judge", "probe-serve"),
            ("shared-pool-off-peak", "cannot-judge", "probe-batch")}


@pytest.mark.parametrize("resource", sorted(NAMES))
def test_the_vocabulary_names_every_gpu_resource(resource):
    assert is_gpu_resource(resource) is NAMES[resource]


@pytest.mark.parametrize("resource", sorted(NAMES))
def test_placement_and_every_policy_give_one_answer(check, today, resource):
    stack = golden().add(*probes(resource))
    assert verdicts(check(stack), stack) == expected(resource)
    report = analyze(StackModel(stack.items, today=today))
    for name in ("probe-batch", "probe-serve"):
        assert report.summary(name).requests_gpu is NAMES[resource]
    # The offer side judges every GPU name on every pool: never "not modelled".
    details = [x.detail for x in report.verdicts if x.workload.name.startswith("probe-")]
    if NAMES[resource]:
        assert not [d for d in details if "not modelled" in d]
        assert report.verdict("probe-batch", "jobs").detail == (
            f"too big for c6i.2xlarge: requests {resource} 1 > allocatable 0")
    else:
        assert report.verdict("probe-batch", "jobs").detail == (
            f"{resource} on c6i.2xlarge is not modelled: cannot judge size")
