"""The option models nested in a pool spec: how its GPUs are shared, and its Karpenter options.

Models only (``spec/pool_fields.py`` holds them as fields): the rules that tie them to the
rest of a pool, and what follows from them, are ``nodepools.spec.sharing`` and
``nodepools.spec.karpenter``. docs/design.md section 7.
"""
from __future__ import annotations

from enum import Enum

from pydantic import Field

from nodepools import vocabulary as v
from nodepools.spec.model import StrictModel, WholeNumber

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

    on_demand_fallback: bool = False
    expire_after_hours: WholeNumber = Field(DEFAULT_EXPIRE_AFTER_HOURS, ge=1, le=8760)
