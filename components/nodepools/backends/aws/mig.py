"""MIG on EKS: nodes come up pre-partitioned by their launch template's user data.

Decision (docs/design.md section 7 leaves it open): a pool has exactly one MIG
profile for its whole life, so the partitioning is fixed per node group and is
done at boot, before the kubelet starts, by a shell part of the launch
template's MIME user data (for a managed node group on an EKS AMI, EKS appends
its own nodeadm part after the user's parts, and AL2023 runs the shell parts
before nodeadm starts the kubelet: awslabs/amazon-eks-ami docs "nodeadm",
terraform-aws-modules/terraform-aws-eks docs "user data"; not tried on hardware here).
A new node therefore registers with its slices already there, and the device
plugin (``migStrategy: mixed``) advertises ``nvidia.com/mig-<profile>`` from its
first start. The alternative, NVIDIA's MIG manager, watches a
``nvidia.com/mig.config`` label and repartitions live nodes; it only comes with
the GPU Operator, runs privileged in the cluster, and evicts GPU pods while it
reconfigures: machinery for changing a layout that here never changes.

Commands: NVIDIA MIG user guide, "Getting Started with MIG"
(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/): ``nvidia-smi -mig 1``
enables MIG mode; ``nvidia-smi mig -cgi <profile,...> -C`` creates the GPU
instances and their default compute instances.
"""
from __future__ import annotations

import base64

from nodepools.spec.gpus import mig_profile
from nodepools.spec.pool import PoolSpec
from nodepools.spec.sharing import GpuSharingMode

BOUNDARY = "//nodepools-mig//"


def partition_script(spec: PoolSpec) -> str:
    profile = mig_profile(spec.gpu_model, str(spec.gpu_sharing.profile))
    assert profile is not None  # PoolSpec validation guarantees it
    slices = ",".join([profile.name] * profile.instances_per_gpu)
    return "\n".join([
        "#!/bin/bash",
        f"# nodepools: split every GPU into {profile.instances_per_gpu} x MIG {profile.name} before the kubelet starts",
        "set -euo pipefail",
        "nvidia-smi -mig 1",
        "for gpu in $(nvidia-smi --query-gpu=index --format=csv,noheader); do",
        f"  nvidia-smi mig -i \"$gpu\" -cgi {slices} -C",
        "done",
        "",
    ])


def mig_user_data(spec: PoolSpec) -> str | None:
    """Base64 MIME user data for a MIG pool's launch template; None for other pools."""
    if not spec.has_gpu or spec.gpu_sharing.mode is not GpuSharingMode.MIG:
        return None
    document = "\n".join([
        "MIME-Version: 1.0",
        f'Content-Type: multipart/mixed; boundary="{BOUNDARY}"',
        "",
        f"--{BOUNDARY}",
        'Content-Type: text/x-shellscript; charset="us-ascii"',
        "",
        partition_script(spec),
        f"--{BOUNDARY}--",
        "",
    ])
    return base64.b64encode(document.encode()).decode()
