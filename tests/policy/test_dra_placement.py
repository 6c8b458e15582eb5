"""docs/design.md section 8, "DRA claims in placement": a pod whose claim names a GPU device class
lands only on a GPU pool with that many GPUs on one node, and tolerates the GPU taint itself (a claim
is no extended resource: the ExtendedResourceToleration admission adds nothing for it)."""
import pytest

from nodepools.offline.analyzer import UNKNOWN_WIRE
from nodepools.inventory.resource import Resource

from policy_builders import GPU, golden, template_spec
from test_dra_policies import CLAIM, CLAIM_TEMPLATE, GPU_CLASS, NIC_CLASS, dra_llm, on_a_dra_minor

FIX = ("Fix: tolerate the target pool's taints, select labels its nodes carry, and request at most one node's "
       "allocatable")


def template(name: str, *requests: dict) -> Resource:
    return Resource.of(CLAIM_TEMPLATE, name, {"metadata": {"name": name, "namespace": "inference"},
                                              "spec": {"spec": {"devices": {"requests": list(requests)}}}})


def exactly(device_class: str = "gpu.nvidia.com", **extra) -> dict:
    return {"name": "gpu", "exactly": {"deviceClassName": device_class, **extra}}


def stack(*requests: dict, edit=None, extra=(GPU_CLASS,)):
    """The golden stack whose inference Deployment takes its GPU through the claim template 'one-gpu'."""
    fixture = on_a_dra_minor(dra_llm(golden()).add(*extra, template("one-gpu", *requests)))
    return fixture.edit("llm", lambda p: edit(template_spec(p))) if edit else fixture


def schedulable(diagnostics) -> list[str]:
    return [d.message.split("\n", 1)[-1] for d in diagnostics if d.policy == "schedulable"]


def unplaced(*why: str) -> list[str]:
    return ["Deployment 'llm' in namespace 'inference': spec.template.spec: fits no pool of its cluster ("
            + "; ".join(why) + "). " + FIX]


def select(pool: str):
    return lambda spec: spec.update(nodeSelector={"nodepools.io/pool": pool})


@pytest.mark.parametrize("request_", [exactly(), exactly(count=1.0), exactly(allocationMode="All"),
                                      {"name": "gpu", "firstAvailable": [
                                          {"name": "big", "deviceClassName": "gpu.nvidia.com", "count": 4.0},
                                          {"name": "one", "deviceClassName": "gpu.nvidia.com", "count": 1.0}]}])
def test_a_claim_that_fits_the_gpu_pool_is_placed(check, request_):
    assert schedulable(check(stack(request_))) == []


ON_WEB = unplaced("web: its DRA claims (resourceClaims) ask for 1 GPU, and the pool has no GPU",
                  "jobs: untolerated taint nodepools.io/pool-class=batch:NoSchedule",
                  "infer: nodeSelector nodepools.io/pool=web: the pool's nodes have nodepools.io/pool=infer",
                  "train: untolerated taint nodepools.io/pool-class=gpu-training:NoSchedule")


def test_a_claiming_pod_cannot_land_on_a_gpu_less_cpu_pool(check):
    assert schedulable(check(stack(exactly(), edit=select("web")))) == ON_WEB


def test_a_non_gpu_claim_is_no_gpu_request_and_lands_on_a_cpu_pool(check):
    fixture = on_a_dra_minor(dra_llm(golden()).add(NIC_CLASS, template("one-gpu", exactly("fast-nic"))))
    assert schedulable(check(fixture.edit("llm", lambda p: select("web")(template_spec(p))))) == []


@pytest.mark.parametrize("requests, wants", [
    ([exactly(count=2.0)], "2 GPUs"),
    ([exactly(), {"name": "second", "exactly": {"deviceClassName": "gpu.nvidia.com"}}], "2 GPUs"),
])
def test_claims_for_more_gpus_than_one_node_has_fit_no_gpu_pool(check, requests, wants):
    assert schedulable(check(stack(*requests))) == unplaced(
        "web: nodeSelector nodepools.io/pool=infer: the pool's nodes have nodepools.io/pool=web",
        "jobs: untolerated taint nodepools.io/pool-class=batch:NoSchedule",
        f"infer: its DRA claims (resourceClaims) ask for {wants}, more than the 1 of one g6.xlarge node",
        "train: untolerated taint nodepools.io/pool-class=gpu-training:NoSchedule")


def test_a_resource_claim_counts_like_a_template(check):
    claim = Resource.of(CLAIM, "pair", {"metadata": {"name": "pair", "namespace": "inference"},
                                        "spec": {"devices": {"requests": [exactly(count=2.0)]}}})
    fixture = stack(exactly()).add(claim).edit("llm", lambda p: template_spec(p).update(
        resourceClaims=[{"name": "gpu", "resourceClaimName": "pair"}]))
    [message] = schedulable(check(fixture))
    assert "infer: its DRA claims (resourceClaims) ask for 2 GPUs, more than the 1 of one g6.xlarge node" in message


def test_a_claiming_pod_must_tolerate_the_gpu_taint_itself(check):
    def no_gpu_toleration(spec):
        spec["tolerations"] = [t for t in spec["tolerations"] if t["key"] != GPU]
    assert schedulable(check(stack(exactly(), edit=no_gpu_toleration))) == unplaced(
        "web: nodeSelector nodepools.io/pool=infer: the pool's nodes have nodepools.io/pool=web",
        "jobs: untolerated taint nodepools.io/pool-class=batch:NoSchedule",
        "infer: untolerated taint nvidia.com/gpu=present:NoSchedule",
        "train: untolerated taint nodepools.io/pool-class=gpu-training:NoSchedule")
    # The twin requesting nvidia.com/gpu gets the toleration from the admission plugin.
    twin = golden().edit("llm", lambda p: no_gpu_toleration(template_spec(p)))
    assert schedulable(check(twin)) == []


NOTE = ("Deployment 'llm' in namespace 'inference': cannot judge spec.template.spec during preview: whether some "
        "pool fits it: pool '{pool}': {why}")


@pytest.mark.parametrize("request_", [exactly(count=UNKNOWN_WIRE), exactly(allocationMode=UNKNOWN_WIRE)])
def test_a_gpu_claim_whose_count_is_unknown_takes_one_gpu_at_least(check, request_):
    # On a CPU pool it is a violation all the same; on the GPU pool, a note.
    assert schedulable(check(stack(request_, edit=select("web")))) == ON_WEB
    [note] = [d for d in check(stack(request_)) if d.policy == "schedulable"]
    assert note.cannot_judge and note.message.endswith(NOTE.format(
        pool="infer", why="its DRA claims (resourceClaims) ask for 1 GPU, and more are unknown at preview: cannot "
        "judge size"))


def test_a_claim_whose_class_is_unknown_at_preview_is_a_note_never_a_violation(check):
    [note] = [d for d in check(stack(exactly(UNKNOWN_WIRE), edit=select("web"))) if d.policy == "schedulable"]
    assert note.cannot_judge and note.message.endswith(NOTE.format(
        pool="web", why="its DRA claims are unknown at preview: cannot judge size"))


@pytest.mark.parametrize("requests", [["gpu"], [{"name": "gpu", "exactly": "gpu.nvidia.com"}],
                                      [{"name": "gpu", "firstAvailable": "x"}], [exactly(count="two")]])
def test_claims_of_any_shape_are_read_without_error(check, requests):
    diagnostics = check(stack(*requests))
    assert [d for d in diagnostics if d.policy == "schedulable" and not d.cannot_judge] == []
