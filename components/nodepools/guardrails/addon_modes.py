"""Which add-ons the platform installs, for a cluster that may already run its own.

Every add-on is on by default for a cluster we create, as before. Per add-on:
``enabled: false`` (the cluster does without it) or ``existing: true`` (the
cluster runs it already: we install nothing, but build what depends on it, e.g.
Kueue's queues or Karpenter's NodePools). ``gpu_operator: true`` says the NVIDIA
GPU Operator runs the device plugin: we install no second one.

Contradictions are refused with their config path by the guardrails' rules
(``nodepools.guardrails.checks``): Karpenter pools with Karpenter disabled, GPU pools
with neither a device plugin nor the GPU Operator (where the cloud does not ship one),
``kueue: on`` with Kueue disabled, an add-on both existing and disabled.
"""
from __future__ import annotations

from typing import Sequence

from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.model import StrictModel
from nodepools.spec.pool import PoolSpec


class AddonMode(StrictModel):
    """``enabled`` (default true): the cluster uses the add-on; ``existing``
    (default false): it is already installed, so the platform installs nothing. The two
    contradict each other when existing and not enabled (``nodepools.guardrails.checks``)."""

    enabled: bool = True
    existing: bool = False

    @property
    def install(self) -> bool:
        return self.enabled and not self.existing


class AddonsSpec(StrictModel):
    """Per add-on mode (``AddonMode``) of the NVIDIA device plugin, cluster-autoscaler,
    Karpenter and Kueue, and ``gpu_operator`` (default false): the NVIDIA GPU
    Operator runs the device plugin. Alerts have their own switch (``alerts``)."""

    device_plugin: AddonMode = AddonMode()
    cluster_autoscaler: AddonMode = AddonMode()
    karpenter: AddonMode = AddonMode()
    kueue: AddonMode = AddonMode()
    gpu_operator: bool = False

    @property
    def install_device_plugin(self) -> bool:
        return self.device_plugin.install and not self.gpu_operator

    @property
    def has_device_plugin(self) -> bool:
        return self.device_plugin.enabled or self.gpu_operator


def autoscaled_managed_pools(pools: Sequence[PoolSpec]) -> list[PoolSpec]:
    """Managed node groups cluster-autoscaler would resize (min < max); Karpenter pools never."""
    return [p for p in pools if not is_karpenter(p) and p.min_nodes < p.max_nodes]


def installs_cluster_autoscaler(cloud_runs_own: bool, addons: AddonsSpec, pools: Sequence[PoolSpec]) -> bool:
    """cluster-autoscaler is installed where the cloud needs it (``cloud_runs_own``
    False means it does not: EKS), it is neither disabled nor already there, and
    some managed node group autoscales."""
    return not cloud_runs_own and addons.cluster_autoscaler.install and bool(autoscaled_managed_pools(pools))
