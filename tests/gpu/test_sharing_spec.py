"""GPU sharing in the pool spec: tables, validation, labels, contract, capacity."""
import pytest
from pydantic import ValidationError

from nodepools.spec import PoolSpec, describe, workload_contract
from nodepools.spec.gpus import GPU_MEMORY_GIB, MIG_PROFILES, mig_capable_models
from nodepools.spec.instances import GpuModel
from nodepools.spec.sharing import memory_per_slot_gib, slots_per_node


def pool(instance_type="g6.xlarge", pool_class="gpu-inference", **sharing) -> PoolSpec:
    return PoolSpec(name="infer", pool_class=pool_class, instance_types=[instance_type], gpu_sharing=sharing or {})


def errors(**kw) -> list[str]:
    with pytest.raises(ValidationError) as info:
        pool(**kw)
    return describe(info.value)


def test_every_gpu_model_has_a_memory_figure_and_only_ampere_datacenter_parts_have_mig():
    assert set(GPU_MEMORY_GIB) == set(GpuModel)
    assert mig_capable_models() == [GpuModel.NVIDIA_A100, GpuModel.NVIDIA_A100_80GB, GpuModel.NVIDIA_H100]
    a100 = MIG_PROFILES[GpuModel.NVIDIA_A100]
    assert [(p.name, p.instances_per_gpu, p.memory_gib) for p in a100.values()] == [
        ("1g.5gb", 7, 5), ("1g.10gb", 4, 10), ("2g.10gb", 3, 10), ("3g.20gb", 2, 20), ("4g.20gb", 1, 20),
        ("7g.40gb", 1, 40)]
    assert list(MIG_PROFILES[GpuModel.NVIDIA_H100]) == ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb",
                                                        "7g.80gb"]
    # No profile promises more memory than its GPU has, nor more slices than MIG's seven.
    for model, profiles in MIG_PROFILES.items():
        assert all(p.memory_gib * p.instances_per_gpu <= GPU_MEMORY_GIB[model] for p in profiles.values())
        assert all(1 <= p.instances_per_gpu <= 7 for p in profiles.values())


def test_default_is_whole_gpus_with_no_sharing_labels():
    spec = pool()
    assert spec.gpu_sharing.mode.value == "none"
    assert "nodepools.io/gpu-sharing" not in spec.node_labels
    assert (slots_per_node(spec), memory_per_slot_gib(spec), workload_contract(spec).gpu_resource) == (
        1, 24, "nvidia.com/gpu")


def test_time_slicing_keeps_the_resource_name_and_multiplies_slots():
    spec = pool("g6.12xlarge", mode="time-slicing", replicas=4)
    assert spec.node_labels["nodepools.io/gpu-sharing"] == "time-slicing"
    assert "nodepools.io/mig-profile" not in spec.node_labels
    assert (slots_per_node(spec), memory_per_slot_gib(spec)) == (16, 24)
    assert workload_contract(spec).gpu_limits() == {"nvidia.com/gpu": "1"}


def test_mig_on_eks_requests_the_profile_resource_and_still_tolerates_the_gpu_taint():
    spec = pool("p4de.24xlarge", mode="mig", profile="1g.10gb")
    assert {k: spec.node_labels[k] for k in ("nodepools.io/gpu-sharing", "nodepools.io/mig-profile")} == {
        "nodepools.io/gpu-sharing": "mig", "nodepools.io/mig-profile": "1g.10gb"}
    assert (slots_per_node(spec), memory_per_slot_gib(spec)) == (56, 10)
    contract = workload_contract(spec)
    assert contract.gpu_resource == "nvidia.com/mig-1g.10gb"
    # ExtendedResourceToleration would not add this one for a mig-* request.
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} in \
        contract.tolerations


def test_mig_on_gke_is_advertised_as_nvidia_gpu():
    spec = pool("a2-highgpu-1g", mode="mig", profile="3g.20gb")
    assert workload_contract(spec).gpu_resource == "nvidia.com/gpu"
    assert (slots_per_node(spec), memory_per_slot_gib(spec)) == (2, 20)


@pytest.mark.parametrize("kw, expected", [
    (dict(mode="mig", profile="1g.10gb"),
     "gpu_sharing.mode: gpu_sharing mode 'mig' needs a MIG-capable GPU (allowed: nvidia-a100, nvidia-a100-80gb, "
     "nvidia-h100); nvidia-l4 does not support MIG"),
    (dict(instance_type="p4d.24xlarge", mode="mig", profile="1g.20gb"),
     "gpu_sharing.profile: MIG profile '1g.20gb' does not exist on nvidia-a100 (allowed: 1g.5gb, 1g.10gb, "
     "2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)"),
    (dict(instance_type="p5.48xlarge", mode="mig"),
     "gpu_sharing.profile: gpu_sharing mode 'mig' needs a profile (allowed for nvidia-h100: 1g.10gb, 1g.20gb, "
     "2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)"),
    (dict(instance_type="p4d.24xlarge", pool_class="gpu-training", mode="time-slicing", replicas=4),
     "gpu_sharing.mode: gpu_sharing mode 'time-slicing' is not allowed for class gpu-training (allowed: none); "
     "only gpu-inference pools share GPUs, training takes whole GPUs"),
    (dict(mode="time-slicing"), "gpu_sharing.replicas: gpu_sharing mode 'time-slicing' needs replicas per GPU "
                                "(allowed: 2-48)"),
    (dict(mode="time-slicing", replicas=2, profile="1g.5gb"),
     "gpu_sharing.profile: gpu_sharing.profile is only for mode 'mig' (mode is 'time-slicing')"),
    (dict(mode="none", replicas=2), "gpu_sharing.replicas: gpu_sharing.replicas is only for mode 'time-slicing' "
                                    "(mode is 'none')"),
    (dict(mode="time-slicing", replicas=49), "gpu_sharing.replicas: Input should be less than or equal to 48"),
    (dict(mode="share"), "gpu_sharing.mode: Input should be 'none', 'time-slicing' or 'mig'"),
])
def test_bad_sharing_is_refused_naming_field_and_allowed_values(kw, expected):
    assert errors(**kw) == [expected]


def test_sharing_labels_cannot_be_set_by_hand():
    with pytest.raises(ValidationError) as info:
        PoolSpec(name="infer", pool_class="gpu-inference", instance_types=["g6.xlarge"],
                 labels={"nodepools.io/gpu-sharing": "mig"})
    assert describe(info.value) == [
        "labels['nodepools.io/gpu-sharing']: label 'nodepools.io/gpu-sharing' is set by the pool from gpu_sharing "
        "and cannot be given (set gpu_sharing.mode: none, time-slicing or mig instead)"]
