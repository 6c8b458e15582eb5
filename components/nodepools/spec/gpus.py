"""Per-GPU facts: memory per accelerator model and the MIG profiles each model offers.

GPU memory is what ``gpu-memory-fit`` and the plan's GPU view compare a model's
declared size with, so every figure is the vendor's published one (nominal GB as
printed on the spec sheet; the driver reports these as GiB-sized framebuffers,
e.g. 40960 MiB on an A100 40GB):

- T4 16 GB: https://www.nvidia.com/en-us/data-center/tesla-t4/ (AWS g4dn:
  https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html).
- A10G 24 GB: https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html (g5).
- L4 24 GB: https://www.nvidia.com/en-us/data-center/l4/ (AWS g6, GCP g2:
  https://cloud.google.com/compute/docs/gpus#l4-gpus).
- L40S 48 GB: https://www.nvidia.com/en-us/data-center/l40s/ (AWS g6e).
- A100 40 GB / 80 GB: https://www.nvidia.com/en-us/data-center/a100/ (AWS p4d /
  p4de, GCP a2-highgpu / a2-ultragpu: https://cloud.google.com/compute/docs/gpus#a100-gpus).
- H100 80 GB: https://www.nvidia.com/en-us/data-center/h100/ (AWS p5, GCP a3:
  https://cloud.google.com/compute/docs/gpus#h100-gpus).

MIG profiles: NVIDIA Multi-Instance GPU user guide, "Supported MIG Profiles"
(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html)
and "Supported GPUs" (.../supported-gpus.html: MIG needs compute capability >= 8.0,
so T4 (7.5) has none; L4, L40S and A10G are Ada/Ampere parts that the guide does
not list). The ``+me`` (media extension) variants are left out: they are the same
slice with decoders attached and one per GPU, not a partition size a pool would
standardise on. GKE accepts these names as ``gpuPartitionSize``
(https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi).
"""
from __future__ import annotations

from dataclasses import dataclass

from nodepools.spec.instances import GpuModel

GPU_MEMORY_GIB: dict[GpuModel, int] = {
    GpuModel.NVIDIA_T4: 16,
    GpuModel.NVIDIA_A10G: 24,
    GpuModel.NVIDIA_L4: 24,
    GpuModel.NVIDIA_L40S: 48,
    GpuModel.NVIDIA_A100: 40,
    GpuModel.NVIDIA_A100_80GB: 80,
    GpuModel.NVIDIA_H100: 80,
}


@dataclass(frozen=True)
class MigProfile:
    """One MIG profile: ``<compute>g.<memory>gb``, how many fit one GPU at most."""

    name: str
    instances_per_gpu: int
    memory_gib: int


def _profiles(*rows: tuple[str, int]) -> dict[str, MigProfile]:
    return {name: MigProfile(name, count, int(name.split(".")[1].removesuffix("gb"))) for name, count in rows}


# "Number of Instances Available" column of the guide's tables (A100-SXM4-40GB;
# A100-SXM4-80GB; H100 80GB: same geometry as A100 80GB).
_A100_80GB_GEOMETRY = (("1g.10gb", 7), ("1g.20gb", 4), ("2g.20gb", 3), ("3g.40gb", 2), ("4g.40gb", 1),
                       ("7g.80gb", 1))
MIG_PROFILES: dict[GpuModel, dict[str, MigProfile]] = {
    GpuModel.NVIDIA_A100: _profiles(("1g.5gb", 7), ("1g.10gb", 4), ("2g.10gb", 3), ("3g.20gb", 2),
                                    ("4g.20gb", 1), ("7g.40gb", 1)),
    GpuModel.NVIDIA_A100_80GB: _profiles(*_A100_80GB_GEOMETRY),
    GpuModel.NVIDIA_H100: _profiles(*_A100_80GB_GEOMETRY),
}


def gpu_memory_gib(model: GpuModel | None) -> int | None:
    return GPU_MEMORY_GIB.get(model) if model is not None else None


def supports_mig(model: GpuModel | None) -> bool:
    return model in MIG_PROFILES


def mig_profile(model: GpuModel | None, name: str) -> MigProfile | None:
    return MIG_PROFILES.get(model, {}).get(name) if model is not None else None


def mig_capable_models() -> list[GpuModel]:
    return [m for m in GpuModel if m in MIG_PROFILES]
