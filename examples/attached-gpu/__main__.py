"""GPU pools and guardrails on an EKS cluster this program did not create.

The cluster, its managed node group ``system`` and its add-ons already exist; this
project adds a GPU inference pool, a GPU training pool and nodepools' guardrails
(PriorityClasses, namespaces with GPU quotas and LimitRanges, the NVIDIA device
plugin, cluster-autoscaler and Kueue on the cluster's own system nodes, throttling
alerts). The program is split as Pulumi's unit-testing guide recommends: ``infra``
builds everything, this file only reads config and exports.
"""
import pulumi

from infra import platform_for

platform = platform_for(pulumi.Config())

# What app stacks need to place workloads: per pool, tolerations + required affinity.
pulumi.export("contracts", {name: pool.contract.as_dict() for name, pool in platform.pools.items()})
pulumi.export("namespaces", platform.guardrails.namespaces)
