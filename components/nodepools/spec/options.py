"""The option models nested in a pool spec: how its GPUs are shared, its Karpenter options,
its warm capacity and its node repair.

Models only (``spec/pool_fields.py`` holds them as fields): the rules that tie them to the
rest of a pool, and what follows from them, are ``nodepools.spec.sharing``,
``nodepools.spec.karpenter`` (docs/design.md section 7), ``nodepools.spec.warm`` and
``nodepools.spec.repair`` (sections 9.4, 9.5).
"""
from __future__ import annotations

from enum import Enum

from pydantic import Field

from nodepools import vocabulary as v
from nodepools.spec.model import Flag, StrictModel, WholeNumber

# GKE's limit on maxSharedClientsPerGpu (GPUSharingConfig, container/v1 API); the
# same bound on EKS keeps one spec valid on both clouds.
MAX_TIME_SLICING_REPLICAS = 48
# Karpenter's own default node lifetime (karpenter.sh_nodepools CRD, expireAfter: 720h).
DEFAULT_EXPIRE_AFTER_HOURS = 720


class GpuSharingMode(str, Enum):
    NONE = "none"
    TIME_SLICING = "time-slicing"
    MIG = "mig"


class GpuSharing(StrictModel):
    """``mode`` (default ``none``: one whole GPU per request); ``replicas`` per GPU
    for ``time-slicing`` (2-48); ``profile`` for ``mig`` (e.g. ``1g.10gb``, one per pool)."""

    mode: GpuSharingMode = GpuSharingMode.NONE
    replicas: WholeNumber | None = Field(default=None, ge=2, le=MAX_TIME_SLICING_REPLICAS)
    profile: str | None = None

    @property
    def shared(self) -> bool:
        return self.mode is not GpuSharingMode.NONE

    def node_labels(self) -> dict[str, str]:
        """The contract labels ``nodepools.io/gpu-sharing`` and ``nodepools.io/mig-profile``."""
        if not self.shared:
            return {}
        labels = {v.LABEL_GPU_SHARING: self.mode.value}
        if self.mode is GpuSharingMode.MIG and self.profile:
            labels[v.LABEL_MIG_PROFILE] = self.profile
        return labels


class KarpenterOptions(StrictModel):
    """Options of a Karpenter pool. Defaults: no on-demand fallback; nodes replaced
    after 720 hours (30 days) so they pick up new AMIs and never run unpatched.

    - ``on_demand_fallback``: a spot batch or gpu-training pool may also launch
      on-demand nodes when spot has no capacity (Karpenter prefers spot). Off by
      default: falling back silently multiplies the bill.
    - ``expire_after_hours`` (1-8760): node lifetime (``expireAfter``).
    """

    on_demand_fallback: Flag = False
    expire_after_hours: WholeNumber = Field(DEFAULT_EXPIRE_AFTER_HOURS, ge=1, le=8760)


class WarmCapacity(StrictModel):
    """Spare replica-shaped capacity a gpu-inference pool keeps ready (default: none;
    ``nodepools.spec.warm``).

    - ``replicas`` (required, 1 or more): spare replicas; at most what the pool holds
      at ``max_nodes`` (replicas per node x max_nodes).
    - ``gpus_per_replica`` (default 1): units of the pool's GPU resource one replica
      requests; exactly 1 on a time-sliced or MIG pool, at most the GPUs of one node otherwise.
    - ``cpu_millicores``, ``memory_mib`` (default none: GPU only): the replica's cpu and
      memory requests, so the slot is one a real replica fits in; at most one node's.
    """

    replicas: WholeNumber = Field(ge=1, le=10000, description="Spare replicas kept ready (required).")
    gpus_per_replica: WholeNumber = Field(
        1, ge=1, le=16 * MAX_TIME_SLICING_REPLICAS, description="Units of the pool's GPU resource per replica. "
                                                                "Default: 1.")
    cpu_millicores: WholeNumber | None = Field(
        None, ge=1, description="cpu requested per replica, in millicores. Default: none.")
    memory_mib: WholeNumber | None = Field(
        None, ge=1, description="Memory requested per replica, in MiB. Default: none.")


class RepairMode(str, Enum):
    """``auto``: on for GPU pools, the provider's default elsewhere; ``on``; ``off`` (the opt-out)."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


class EksRepairOptions(StrictModel):
    """How an EKS managed node group repairs (each pair: a count or a percentage, not both). Default:
    EKS's own thresholds."""

    max_unhealthy_node_threshold_count: WholeNumber | None = Field(
        None, ge=1, description="Repairs stop above this many unhealthy nodes. Default: EKS's.")
    max_unhealthy_node_threshold_percentage: WholeNumber | None = Field(
        None, ge=1, le=100, description="Repairs stop above this percentage of unhealthy nodes. Default: EKS's.")
    max_parallel_nodes_repaired_count: WholeNumber | None = Field(
        None, ge=1, description="At most this many nodes repaired at once. Default: EKS's.")
    max_parallel_nodes_repaired_percentage: WholeNumber | None = Field(
        None, ge=1, le=100, description="At most this percentage of unhealthy nodes repaired at once. Default: EKS's.")


class NodeRepair(StrictModel):
    """``mode`` (default ``auto``: on for GPU pools, the provider's default elsewhere), and ``eks``: the EKS
    managed node group's repair settings (default none; ``nodepools.spec.repair``)."""

    mode: RepairMode = Field(RepairMode.AUTO, description="auto (on for GPU pools), on or off. Default: auto.")
    eks: EksRepairOptions | None = Field(None, description="EKS managed node groups only. Default: none.")

