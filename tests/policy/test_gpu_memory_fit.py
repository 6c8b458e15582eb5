"""gpu-memory-fit over gRPC: a model that cannot fit, one that wastes a large GPU, and compliant ones."""
import pytest

from policy_builders import fired, golden

KEY = "nodepools.io/model-memory-gib"


def annotate(value):
    def change(props):
        props["spec"]["template"]["metadata"]["annotations"][KEY] = value
    return change


def memory_messages(diags):
    return [d.message.split("\n", 1)[1] for d in diags if d.policy == "gpu-memory-fit" and not d.cannot_judge]


def test_gpu_memory_fit_is_an_advisory_medium_policy(pack):
    remote = pack.info().policies["gpu-memory-fit"]
    assert (remote.level, remote.severity, remote.kind) == ("advisory", "medium", "stack")


@pytest.mark.parametrize("value", ["16", "24", "6"])
def test_a_model_that_fits_the_l4_pool_is_compliant(check, value):
    assert fired(check(golden().edit("llm", annotate(value)))) == set()


def test_a_model_larger_than_every_reached_gpu_runs_out_of_memory(check):
    fx = golden().edit("llm", annotate("40"))
    assert fired(check(fx)) == {("gpu-memory-fit", fx.urn("llm"))}
    assert memory_messages(check(fx)) == [
        "Deployment 'llm' in namespace 'inference': spec.template.metadata.annotations['nodepools.io/model-memory-gib']"
        ": the model needs 40 GiB of GPU memory but the workload reaches only pools with less per GPU request: infer "
        "(nvidia-l4, 24 GiB); it will run out of memory. Fix: select a pool whose GPU (or MIG slice) has at least "
        "40 GiB"]


def test_a_small_model_on_only_large_gpus_is_flagged(check):
    fx = golden().edit("llm", annotate("5"))
    assert memory_messages(check(fx)) == [
        "Deployment 'llm' in namespace 'inference': spec.template.metadata.annotations['nodepools.io/model-memory-gib']"
        ": the model needs 5 GiB of GPU memory but the workload reaches only pools with more than 4x that per GPU "
        "request: infer (nvidia-l4, 24 GiB). Fix: select a smaller GPU, a time-sliced pool or a MIG slice of at "
        "least 5 GiB"]


def test_a_mig_slice_is_judged_by_the_slice_memory(check):
    """The same 40 GiB model on an A100 80GB pool split into 3g.40gb slices fits; on 1g.10gb slices it does not."""
    def mig(profile):
        def change(props):
            props["instanceTypes"] = ["p4de.24xlarge"]
            props["labels"].update({"nodepools.io/accelerator": "nvidia-a100-80gb", "nodepools.io/gpu-sharing": "mig",
                                    "nodepools.io/mig-profile": profile})
        return change

    def request_slice(profile):
        def change(props):
            container = props["spec"]["template"]["spec"]["containers"][0]
            for block in ("requests", "limits"):
                del container["resources"][block]["nvidia.com/gpu"]
                container["resources"][block][f"nvidia.com/mig-{profile}"] = 1.0
            props["spec"]["template"]["metadata"]["annotations"][KEY] = "40"
        return change

    fits = golden().edit("infer", mig("3g.40gb")).edit("llm", request_slice("3g.40gb"))
    assert ("gpu-memory-fit", fits.urn("llm")) not in fired(check(fits))
    small = golden().edit("infer", mig("1g.10gb")).edit("llm", request_slice("1g.10gb"))
    assert [m.split(": ", 2)[2] for m in memory_messages(check(small))] == [
        "the model needs 40 GiB of GPU memory but the workload reaches only pools with less per GPU request: infer "
        "(nvidia-a100-80gb, 10 GiB, MIG 1g.10gb); it will run out of memory. Fix: select a pool whose GPU (or MIG "
        "slice) has at least 40 GiB"]


def test_a_malformed_annotation_is_reported(check):
    fx = golden().edit("llm", annotate("lots"))
    assert [m.split(": ", 2)[2] for m in memory_messages(check(fx))] == [
        "'lots' is not a positive number of GiB. Fix: set nodepools.io/model-memory-gib to the model's GPU memory in "
        "GiB, e.g. \"16\""]
