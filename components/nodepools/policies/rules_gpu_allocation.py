"""``gpu-allocation-single`` (docs/design.md sections 3 and 11.4): one allocator hands out a GPU pool's GPUs.

A device plugin and a DRA driver on one node each advertise the same GPUs, to the kubelet and
to the scheduler, and each hands them to a different pod: AWS warns of "silent
oversubscription" (awsdocs/amazon-eks-user-guide: latest/ug/ml/device-management-nvidia-dra-device-plugin.adoc),
NVIDIA's chart refuses GPU allocation unless told no device plugin runs there
(deployments/helm/dra-driver-nvidia-gpu/templates/validation.yaml@v0.4.1), and EKS Auto Mode
forbids it on its own nodes. Any installer counts: either chart, a DaemonSet running either
image, the GPU Operator's ClusterPolicy or GPUCluster (``policies/gpu_servers.py``). On a pool
whose nodes bring their own allocators (EKS Auto Mode), anything installed that lands there
doubles them. Decided only where each server surely lands on the pool (its tolerations and node
selection, its cluster); where one only may, a cannot-judge note.
"""
from __future__ import annotations

from typing import Iterator

from nodepools.inventory.tri import and3
from nodepools.inventory.values import UNKNOWN, is_unknown
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.policies.device_plugins import DevicePlugin
from nodepools.policies.gpu_servers import built_in, gpu_servers, same_cluster
from nodepools.policies.settings import Settings
from nodepools.policies.stack_view import StackView
from nodepools.vocabulary import GpuAllocation

FIELD = "device plugin / DRA driver"


def _names(servers: list[DevicePlugin]) -> str:
    return ", ".join(s.subject for s in servers)


@one_per_resource
def check_gpu_allocation_single(stack: StackView, settings: Settings) -> Iterator[Finding]:
    servers = gpu_servers(stack)
    for ref in stack.pools:
        if ref.view.is_gpu is False:
            continue
        landing = []
        for server in servers:
            lands, _ = server.lands_on(ref.view, stack.label_sources)
            certain = True if server.certain else UNKNOWN
            answer = and3((lands, certain, same_cluster(stack, server, ref), ref.view.is_gpu))
            if answer is not False:
                landing.append((server, answer))
        own = built_in(ref)
        sure = [s for s, answer in landing if answer is True]
        plugins = [s for s in sure if s.allocation is GpuAllocation.DEVICE_PLUGIN]
        drivers = [s for s in sure if s.allocation is GpuAllocation.DRA]
        who = subject_of(ref.res.type, ref.view.name)
        if own is not None and sure:
            yield Finding(ref.res.urn, who, FIELD, f"{own.name} runs {own.allocators} on this pool's nodes itself, "
                          f"and {_names(sure)} also land{'s' if len(sure) == 1 else ''} there: two allocators hand "
                          "out the same GPUs", f"keep {_names(sure)} off {own.name} pools (node affinity or "
                          "tolerations), or remove it")
        elif plugins and drivers:
            yield Finding(ref.res.urn, who, FIELD, f"both a device plugin ({_names(plugins)}) and a DRA driver "
                          f"({_names(drivers)}) land on this GPU pool: each hands out the same GPUs, so two pods can "
                          "be given one", "keep one per pool: remove one, or select this pool out of its node "
                          "affinity (nodepools: guardrails.gpu_allocation device-plugin or dra)")
        elif [s for s, answer in landing if is_unknown(answer)] and \
                (own is not None or len({s.allocation for s, _ in landing}) == 2):
            yield unknown(ref.res.urn, who, FIELD, why="whether a device plugin and a DRA driver both land on it: "
                          + "; ".join(s.subject for s, answer in landing if is_unknown(answer))
                          + " may (chart, values, node selection or cluster unknown until the update runs)")
