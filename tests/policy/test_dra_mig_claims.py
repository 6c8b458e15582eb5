"""docs/design.md section 11.4: a DRA claim for a MIG device counts one slice of the pool's MIG profile.
NVIDIA's DRA driver publishes a MIG-enabled GPU's slices, each one device of the mig.nvidia.com class, and not
the GPU (kubernetes-sigs/dra-driver-nvidia-gpu: cmd/gpu-kubelet-plugin/nvlib.go@v0.4.1), so `schedulable`
sizes a MIG claim in slices and `gpu-memory-fit` judges it by the slice's memory; a whole-GPU claim finds no
device on a MIG pool. Through the real pack over gRPC."""
import pytest

from nodepools.inventory.resource import Resource

from policy_builders import fired, golden, template_spec
from test_dra_placement import exactly, schedulable, template
from test_dra_policies import DEVICE_CLASS, dra_llm, on_a_dra_minor

# The classes as the driver's chart publishes them (deployments/helm/dra-driver-nvidia-gpu/templates@v0.4.1).
DRIVER = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == "
GPU_CLASS = Resource.of(DEVICE_CLASS, "gpu.nvidia.com", {"metadata": {"name": "gpu.nvidia.com"}, "spec": {
    "selectors": [{"cel": {"expression": DRIVER + "'gpu'"}}], "extendedResourceName": "nvidia.com/gpu"}})
MIG_CLASS = Resource.of(DEVICE_CLASS, "mig.nvidia.com", {"metadata": {"name": "mig.nvidia.com"}, "spec": {
    "selectors": [{"cel": {"expression": DRIVER + "'mig'"}}]}})
KEY = "nodepools.io/model-memory-gib"


def profile_class(profile: str) -> Resource:
    """nodepools' class of one MIG profile (guardrails/dra_driver.py)."""
    name = f"mig-{profile}.nodepools.io"
    return Resource.of(DEVICE_CLASS, name, {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {
        "expression": DRIVER + f"'mig' && device.attributes['gpu.nvidia.com'].profile == '{profile}'"}}]}})


def mig_pool(profile: str):
    """The golden stack's inference pool on p4de.24xlarge (8 x A100 80GB), every GPU split into ``profile``."""
    def change(props):
        props["instanceTypes"] = ["p4de.24xlarge"]
        props["labels"].update({"nodepools.io/accelerator": "nvidia-a100-80gb", "nodepools.io/gpu-sharing": "mig",
                                "nodepools.io/mig-profile": profile})
    return change


def claiming(*requests: dict, profile: str = "1g.10gb", extra=(), memory: str | None = None):
    """The golden stack with a MIG inference pool whose Deployment claims through the template 'one-gpu'."""
    fixture = on_a_dra_minor(dra_llm(golden()).edit("infer", mig_pool(profile)).add(
        GPU_CLASS, MIG_CLASS, *extra, template("one-gpu", *requests)))
    if memory is not None:
        fixture = fixture.edit("llm", lambda p: p["spec"]["template"]["metadata"]["annotations"].update(
            {KEY: memory}))
    return fixture


def on_infer(diagnostics) -> list[str]:
    return [part for message in schedulable(diagnostics) for part in message.split("; ") if part.startswith("infer: ")]


@pytest.mark.parametrize("count", [1.0, 20.0, 56.0])
def test_a_mig_claim_counts_slices_of_the_pools_profile_not_whole_gpus(check, count):
    # 56 = 8 GPUs x 7 slices of 1g.10gb: as a whole GPU each, 9 would already overflow the node's 8 GPUs.
    assert schedulable(check(claiming(exactly("mig.nvidia.com", count=count)))) == []


def test_more_slices_than_one_node_has_fit_no_pool(check):
    assert on_infer(check(claiming(exactly("mig.nvidia.com", count=57.0)))) == [
        "infer: its DRA claims (resourceClaims) ask for 57 MIG slices, more than the 56 MIG slices of one "
        "p4de.24xlarge node"]


def test_slices_of_several_claims_add_up_on_one_node(check):
    requests = [exactly("mig.nvidia.com", count=50.0), {"name": "more", "exactly": {
        "deviceClassName": "mig.nvidia.com", "count": 7.0}}]
    assert on_infer(check(claiming(*requests))) == [
        "infer: its DRA claims (resourceClaims) ask for 57 MIG slices, more than the 56 MIG slices of one "
        "p4de.24xlarge node"]


def test_a_whole_gpu_claim_finds_no_device_on_a_mig_pool(check):
    assert on_infer(check(claiming(exactly("gpu.nvidia.com")))) == [
        "infer: its DRA claims (resourceClaims) ask for 1 GPU, and the pool's GPUs are split into MIG 1g.10gb slices"]


def test_a_claim_naming_another_profile_fits_only_a_pool_of_that_profile(check):
    other = claiming(exactly("mig-3g.40gb.nodepools.io"), extra=(profile_class("3g.40gb"),))
    assert on_infer(check(other)) == [
        "infer: its DRA claims (resourceClaims) ask for 1 MIG 3g.40gb slice, and the pool's GPUs are split into "
        "MIG 1g.10gb slices"]
    same = claiming(exactly("mig-3g.40gb.nodepools.io"), profile="3g.40gb", extra=(profile_class("3g.40gb"),))
    assert schedulable(check(same)) == []
    # The request's own selector names the profile just as well.
    selected = exactly("mig.nvidia.com", selectors=[{"cel": {
        "expression": "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"}}])
    assert on_infer(check(claiming(selected))) == [
        "infer: its DRA claims (resourceClaims) ask for 1 MIG 3g.40gb slice, and the pool's GPUs are split into "
        "MIG 1g.10gb slices"]


def test_a_mig_claim_on_a_gpu_that_cannot_do_mig_fits_no_pool(check):
    # The golden inference pool's L4 has no MIG (NVIDIA's MIG guide lists compute capability 8.0+ datacenter parts).
    fixture = on_a_dra_minor(dra_llm(golden()).add(GPU_CLASS, MIG_CLASS, template("one-gpu", exactly("mig.nvidia.com"))))
    assert on_infer(check(fixture)) == [
        "infer: its DRA claims (resourceClaims) ask for 1 MIG slice, and the pool's GPUs have no MIG slices"]


def test_a_mig_claim_on_an_unpartitioned_mig_capable_pool_is_a_note(check):
    # A100s not declared MIG: a MIG manager may still partition them at run time.
    fixture = on_a_dra_minor(dra_llm(golden()).edit("infer", lambda p: p.update(instanceTypes=["p4de.24xlarge"])).edit(
        "infer", lambda p: p["labels"].update({"nodepools.io/accelerator": "nvidia-a100-80gb"})).add(
        GPU_CLASS, MIG_CLASS, template("one-gpu", exactly("mig.nvidia.com"))))
    [note] = [d for d in check(fixture) if d.policy == "schedulable"]
    assert note.cannot_judge and note.message.endswith(
        "pool 'infer': whether the pool's GPUs are split into MIG slices is unknown at preview (a MIG manager may "
        "partition them): cannot judge size")


def test_the_driver_release_publishes_the_mig_class_the_stack_does_not_declare(check):
    release = Resource.of("kubernetes:helm.sh/v3:Release", "dra-driver", {
        "chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", "namespace": "kube-system",
        "version": "0.4.1", "values": {"resources": {"gpus": {"enabled": True}}}})
    fixture = on_a_dra_minor(dra_llm(golden()).edit("infer", mig_pool("1g.10gb")).add(
        release, template("one-gpu", exactly("mig.nvidia.com", count=20.0))))
    diagnostics = check(fixture)
    assert schedulable(diagnostics) == [] and ("gpu-toleration-needs-gpu", fixture.urn("llm")) not in fired(diagnostics)
    # Without the release nothing publishes mig.nvidia.com: the claim asks for no GPU, and the workload
    # tolerating the GPU taint without one is reported.
    bare = fixture.drop("dra-driver")
    assert ("gpu-toleration-needs-gpu", bare.urn("llm")) in fired(check(bare))


def memory_messages(diagnostics) -> list[str]:
    return [d.message.split("\n", 1)[1].split(": ", 2)[2] for d in diagnostics
            if d.policy == "gpu-memory-fit" and not d.cannot_judge]


def test_gpu_memory_fit_judges_a_mig_claim_by_its_slice(check):
    assert memory_messages(check(claiming(exactly("mig.nvidia.com"), memory="40"))) == [
        "the model needs 40 GiB of GPU memory but the workload reaches only pools with less per GPU request: infer "
        "(nvidia-a100-80gb, 10 GiB, MIG 1g.10gb); it will run out of memory. Fix: select a pool whose GPU (or MIG "
        "slice) has at least 40 GiB"]
    assert memory_messages(check(claiming(exactly("mig.nvidia.com"), profile="3g.40gb", memory="40"))) == []


def test_gpu_memory_fit_leaves_out_the_whole_gpu_pools_a_mig_claim_cannot_use(check):
    """Beside the MIG pool an L4 pool the Deployment also tolerates: a MIG claim reaches only the slices."""
    def l4_pool_too(props):
        spec = template_spec(props)
        spec.pop("nodeSelector", None)
    stack = claiming(exactly("mig.nvidia.com"), profile="3g.40gb", memory="45")
    l4 = golden().get("infer")
    stack = stack.add(Resource.of(l4.type, "infer-l4", {**l4.props, "nodeGroupName": "infer-l4", "labels": {
        **l4.props["labels"], "nodepools.io/pool": "infer-l4"}}, dependencies=l4.dependencies,
        property_dependencies=l4.property_dependencies)).edit("llm", l4_pool_too)
    assert memory_messages(check(stack)) == [
        "the model needs 45 GiB of GPU memory but the workload reaches only pools with less per GPU request: infer "
        "(nvidia-a100-80gb, 40 GiB, MIG 3g.40gb); it will run out of memory. Fix: select a pool whose GPU (or MIG "
        "slice) has at least 45 GiB"]
