"""What serves a pool's GPUs: the device plugins and DRA drivers of the stack, and the ones a pool's
nodes bring with them (docs/design.md sections 6 and 11.4).

One home: the ``gpu-device-plugin`` rule asks whether something serves a GPU pool, the
``gpu-allocation-single`` rule whether two allocators do. Installed servers are read by
``policies/device_plugins.py`` and ``policies/dra_drivers.py`` into one record
(``DevicePlugin``, its ``allocation`` saying which). Built-in ones are data
(``BUILT_IN``): a pool whose nodes come with NVIDIA's allocators, which nothing installed may
double. EKS Auto Mode is the one today: its nodes run NVIDIA's device plugin, and from 1.36 its
DRA driver, itself, and it "prevents a DRA driver and a device plugin from managing the same
device type on the same node" (awsdocs/amazon-eks-user-guide: latest/ug/ml/device-management.adoc,
read 2026-12-05). An Auto Mode pool is a Karpenter NodePool whose ``nodeClassRef`` is an
``eks.amazonaws.com`` NodeClass (docs/design.md section 10, "Provisioners").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, dig
from nodepools.policies.device_plugins import DevicePlugin, device_plugins
from nodepools.policies.dra_drivers import dra_drivers
from nodepools.inventory.stack_model import PoolRef
from nodepools.policies.stack_view import StackView


@dataclass(frozen=True)
class BuiltIn:
    """Pools of ``pool_type`` whose ``path`` reads ``value`` come with ``name``'s GPU allocators."""

    name: str
    pool_type: str
    path: tuple[str, ...]
    value: str
    allocators: str  # what they run, for messages

    def serves(self, ref: PoolRef) -> bool:
        return ref.res.type == self.pool_type and dig(ref.res.props, *self.path) == self.value


BUILT_IN: tuple[BuiltIn, ...] = (
    BuiltIn("EKS Auto Mode", v.TYPE_KARPENTER_NODE_POOL, ("spec", "template", "spec", "nodeClassRef", "group"),
            "eks.amazonaws.com", "NVIDIA's device plugin and, from Kubernetes 1.36, its DRA driver"),
)


def gpu_servers(stack: StackView) -> list[DevicePlugin]:
    """Every device plugin and DRA driver installed by the stack."""
    return device_plugins(stack) + dra_drivers(stack)


def built_in(ref: PoolRef) -> BuiltIn | None:
    """The built-in allocators of the pool's nodes, if any."""
    return next((b for b in BUILT_IN if b.serves(ref)), None)


def same_cluster(stack: StackView, server: DevicePlugin, ref: PoolRef) -> Any:
    """True when ``server`` is in ``ref``'s cluster: a one-cluster stack, or a DaemonSet the placement
    analysis ties to the pool's cluster; UNKNOWN otherwise (a release's cluster is its provider's)."""
    if stack.membership.one_cluster:
        return True
    placed = [w.workload for w in stack.all_workloads if w.res.urn == server.res.urn]
    return stack.member(placed[0], ref.view) if placed else UNKNOWN
