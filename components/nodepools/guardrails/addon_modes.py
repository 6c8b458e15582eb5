"""Which add-ons the platform installs, for a cluster that may already run its own.

Every add-on is on by default for a cluster we create, as before. Per add-on:
``enabled: false`` (the cluster does without it) or ``existing: true`` (the
cluster runs it already: we install nothing, but build what depends on it, e.g.
Kueue's queues or Karpenter's NodePools). ``gpu_operator: true`` says the NVIDIA
GPU Operator runs the device plugin: we install no second one.

Contradictions are refused with their config path (``addon_mode_problems``):
Karpenter pools with Karpenter disabled, GPU pools with neither a device plugin
nor the GPU Operator (where the cloud does not ship one), ``kueue: on`` with
Kueue disabled.
"""
from __future__ import annotations

from typing import Sequence

from pydantic import model_validator

from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.model import StrictModel
from nodepools.spec.pool import PoolSpec


class AddonMode(StrictModel):
    """``enabled`` (default true): the cluster uses the add-on; ``existing``
    (default false): it is already installed, so the platform installs nothing."""

    enabled: bool = True
    existing: bool = False

    @model_validator(mode="after")
    def _check(self) -> "AddonMode":
        problems = Problems()
        if self.existing and not self.enabled:
            problems.add("existing", "existing: true says the cluster runs the add-on, enabled: false that it does "
                         "not; set one of them", True)
        problems.raise_if_any("AddonMode")
        return self

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


def addon_mode_problems(addons: AddonsSpec, pools: Sequence[PoolSpec], problems: Problems,
                        root: tuple[str | int, ...], needs_device_plugin: bool) -> None:
    """``needs_device_plugin``: the cloud does not ship one (EKS)."""
    karpenter = [p.name for p in pools if is_karpenter(p)]
    if karpenter and not addons.karpenter.enabled:
        problems.add(root + ("addons", "karpenter", "enabled"), f"pools {karpenter} have provisioner 'karpenter', "
                     "but Karpenter is disabled; set addons.karpenter.existing: true if the cluster runs it, or "
                     "provisioner: managed on those pools", False)
    gpu = [p.name for p in pools if p.has_gpu]
    if gpu and needs_device_plugin and not addons.has_device_plugin:
        problems.add(root + ("addons", "device_plugin", "enabled"), f"GPU pools {gpu} need the NVIDIA device plugin "
                     "(without it no node advertises nvidia.com/gpu), but it is disabled and gpu_operator is false; "
                     "set addons.device_plugin.existing: true or addons.gpu_operator: true if the cluster runs one",
                     False)


def kueue_mode_problem(addons: AddonsSpec, kueue_on: bool, problems: Problems,
                       root: tuple[str | int, ...]) -> None:
    if kueue_on and not addons.kueue.enabled:
        problems.add(root + ("addons", "kueue", "enabled"), "kueue 'on' asks for Kueue's queues, but "
                     "addons.kueue.enabled is false; set kueue: off, or addons.kueue.existing: true", False)


def autoscaled_managed_pools(pools: Sequence[PoolSpec]) -> list[PoolSpec]:
    """Managed node groups cluster-autoscaler would resize (min < max); Karpenter pools never."""
    return [p for p in pools if not is_karpenter(p) and p.min_nodes < p.max_nodes]


def installs_cluster_autoscaler(cloud_runs_own: bool, addons: AddonsSpec, pools: Sequence[PoolSpec]) -> bool:
    """cluster-autoscaler is installed where the cloud needs it (``cloud_runs_own``
    False means it does not: EKS), it is neither disabled nor already there, and
    some managed node group autoscales."""
    return not cloud_runs_own and addons.cluster_autoscaler.install and bool(autoscaled_managed_pools(pools))
