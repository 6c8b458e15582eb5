"""A small, cited table of common instance / machine types.

The backends (AMI type, GPU count tags), the guardrails (quota sizing) and the
placement analysis (does a pod fit one node) all need vCPU, memory and GPUs per
node. Figures are the clouds' published specifications:

- AWS: https://docs.aws.amazon.com/ec2/latest/instancetypes/gp.html (m6i, m7i,
  m7g), .../co.html (c6i, c7i, c7g), .../mo.html (r6i, r7i), .../ac.html (g5, g6,
  g6e, p4d, p4de, p5).
- GCP: https://cloud.google.com/compute/docs/general-purpose-machines (n2, e2,
  c3) and https://cloud.google.com/compute/docs/gpus (g2, a2, a3).

GCP publishes memory in "GB" that are binary gibibytes; we store GiB for both.
Types not in the table are accepted when the spec gives their capacity
explicitly (``PoolSpec.custom_capacity``).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from nodepools.vocabulary import Architecture, Cloud


class GpuModel(str, Enum):
    """Accelerator models, spelled as the ``nodepools.io/accelerator`` label value."""

    NVIDIA_T4 = "nvidia-t4"
    NVIDIA_A10G = "nvidia-a10g"
    NVIDIA_L4 = "nvidia-l4"
    NVIDIA_L40S = "nvidia-l40s"
    NVIDIA_A100 = "nvidia-a100"
    NVIDIA_A100_80GB = "nvidia-a100-80gb"
    NVIDIA_H100 = "nvidia-h100"


@dataclass(frozen=True)
class InstanceType:
    name: str
    cloud: Cloud
    vcpu: int
    memory_gib: float
    architecture: Architecture = Architecture.X86_64
    gpu_model: GpuModel | None = None
    gpu_count: int = 0

    @property
    def has_gpu(self) -> bool:
        return self.gpu_count > 0


def _family(cloud: Cloud, prefix: str, sizes: dict[str, tuple[int, float]], arch=Architecture.X86_64,
            gpu: GpuModel | None = None, gpus: dict[str, int] | None = None) -> list[InstanceType]:
    return [
        InstanceType(f"{prefix}{size}", cloud, vcpu, mem, arch, gpu if gpus else None, (gpus or {}).get(size, 0))
        for size, (vcpu, mem) in sizes.items()
    ]


def _aws_sizes(mem_per_vcpu: float, max_vcpu: int = 96) -> dict[str, tuple[int, float]]:
    sizes = {"large": 2, "xlarge": 4, "2xlarge": 8, "4xlarge": 16, "8xlarge": 32, "12xlarge": 48,
             "16xlarge": 64, "24xlarge": 96}
    return {s: (v, v * mem_per_vcpu) for s, v in sizes.items() if v <= max_vcpu}


_AWS = Cloud.AWS
_GCP = Cloud.GCP
_ARM = Architecture.ARM64

# AWS accelerated sizes: vCPU, memory GiB, GPUs per node.
_G5_G6 = {"xlarge": (4, 16), "2xlarge": (8, 32), "4xlarge": (16, 64), "8xlarge": (32, 128),
          "12xlarge": (48, 192), "16xlarge": (64, 256), "24xlarge": (96, 384), "48xlarge": (192, 768)}
_G5_G6_GPUS = {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "12xlarge": 4, "16xlarge": 1,
               "24xlarge": 4, "48xlarge": 8}
_G6E = {"xlarge": (4, 32), "2xlarge": (8, 64), "4xlarge": (16, 128), "8xlarge": (32, 256),
        "12xlarge": (48, 384), "16xlarge": (64, 512), "24xlarge": (96, 768), "48xlarge": (192, 1536)}

_TYPES: list[InstanceType] = [
    *_family(_AWS, "m6i.", _aws_sizes(4)),
    *_family(_AWS, "m7i.", _aws_sizes(4)),
    *_family(_AWS, "m7g.", _aws_sizes(4, 64), _ARM),
    *_family(_AWS, "c6i.", _aws_sizes(2)),
    *_family(_AWS, "c7i.", _aws_sizes(2)),
    *_family(_AWS, "c7g.", _aws_sizes(2, 64), _ARM),
    *_family(_AWS, "r6i.", _aws_sizes(8)),
    *_family(_AWS, "r7i.", _aws_sizes(8)),
    *_family(_AWS, "g5.", _G5_G6, gpu=GpuModel.NVIDIA_A10G, gpus=_G5_G6_GPUS),
    *_family(_AWS, "g6.", _G5_G6, gpu=GpuModel.NVIDIA_L4, gpus=_G5_G6_GPUS),
    *_family(_AWS, "g6e.", _G6E, gpu=GpuModel.NVIDIA_L40S, gpus=_G5_G6_GPUS),
    InstanceType("p4d.24xlarge", _AWS, 96, 1152, gpu_model=GpuModel.NVIDIA_A100, gpu_count=8),
    InstanceType("p4de.24xlarge", _AWS, 96, 1152, gpu_model=GpuModel.NVIDIA_A100_80GB, gpu_count=8),
    InstanceType("p5.48xlarge", _AWS, 192, 2048, gpu_model=GpuModel.NVIDIA_H100, gpu_count=8),
    *_family(_GCP, "n2-standard-", {str(v): (v, 4 * v) for v in (2, 4, 8, 16, 32, 48, 64)}),
    *_family(_GCP, "n2-highmem-", {str(v): (v, 8 * v) for v in (2, 4, 8, 16, 32)}),
    *_family(_GCP, "e2-standard-", {str(v): (v, 4 * v) for v in (2, 4, 8, 16, 32)}),
    *_family(_GCP, "c3-standard-", {str(v): (v, 4 * v) for v in (4, 8, 22, 44, 88, 176)}),
    *_family(_GCP, "g2-standard-", {str(v): (v, 4 * v) for v in (4, 8, 12, 16, 24, 32, 48, 96)},
             gpu=GpuModel.NVIDIA_L4, gpus={"4": 1, "8": 1, "12": 1, "16": 1, "24": 2, "32": 1, "48": 4, "96": 8}),
    *_family(_GCP, "a2-highgpu-", {"1g": (12, 85), "2g": (24, 170), "4g": (48, 340), "8g": (96, 680)},
             gpu=GpuModel.NVIDIA_A100, gpus={"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    InstanceType("a2-megagpu-16g", _GCP, 96, 1360, gpu_model=GpuModel.NVIDIA_A100, gpu_count=16),
    *_family(_GCP, "a2-ultragpu-", {"1g": (12, 170), "2g": (24, 340), "4g": (48, 680), "8g": (96, 1360)},
             gpu=GpuModel.NVIDIA_A100_80GB, gpus={"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    InstanceType("a3-highgpu-8g", _GCP, 208, 1872, gpu_model=GpuModel.NVIDIA_H100, gpu_count=8),
]

INSTANCE_TYPES: dict[str, InstanceType] = {t.name: t for t in _TYPES}

# EC2 families with NVIDIA GPUs, current and previous generation: the GPU instances of
# https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html, plus G7 (RTX PRO 4500) and G7e
# (RTX PRO 6000), launched in 2026 (AWS What's New announcements). Every other
# family has none: the accelerated families without one are g4ad (AMD Radeon), dl1/dl2q
# (Habana Gaudi, Qualcomm), f1/f2 (FPGA), inf1/inf2/trn1/trn1n/trn2 (AWS Neuron) and vt1 (Xilinx).
AWS_NVIDIA_GPU_FAMILIES = frozenset({
    "g2", "g3", "g3s", "g4dn", "g5", "g5g", "g6", "g6e", "g6f", "gr6", "gr6f", "g7", "g7e",
    "p2", "p3", "p3dn", "p4d", "p4de", "p5", "p5e", "p5en",
})
# The P6 families are spelled with their GPU: p6-b200, p6-b300, p6e-gb200, ...
_AWS_NVIDIA_GPU_FAMILY_PREFIXES = ("p6-", "p6e-")


def aws_family(instance_type: str) -> str:
    """``g6.xlarge`` -> ``g6``."""
    return instance_type.partition(".")[0]


def aws_category(family: str) -> str:
    """Karpenter's ``instance-category``: the family's leading letters (``gr6`` -> ``gr``, ``p6-b200`` -> ``p``)."""
    return family[:len(family) - len(family.lstrip("abcdefghijklmnopqrstuvwxyz"))]


def aws_family_has_nvidia_gpu(family: str) -> bool:
    return family in AWS_NVIDIA_GPU_FAMILIES or family.startswith(_AWS_NVIDIA_GPU_FAMILY_PREFIXES)


def aws_category_has_nvidia_gpu(category: str) -> bool:
    """Some family of the category has NVIDIA GPUs (``g``, ``gr``, ``p``)."""
    return category in {aws_category(f) for f in AWS_NVIDIA_GPU_FAMILIES} | {"p"}


def lookup(name: str) -> InstanceType | None:
    """The table entry for ``name``, or None when the type is not in the table."""
    return INSTANCE_TYPES.get(name)
