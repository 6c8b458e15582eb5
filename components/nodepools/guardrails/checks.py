"""Rules between the guardrails spec and the cluster's pools, checked before anything registers.

Errors (each names its field):
- a namespace configured for a GPU class the cluster has no pool of (its GPU
  quota would be 0: nothing could ever run there, almost surely a typo'd layout);
- ``kueue: on`` without a gpu-training pool (the ClusterQueue's GPU quota would be 0);
- with Kueue on, a queued pool with more than 8 taints (a ResourceFlavor holds at most 8 tolerations);
- LimitRange default limits larger than the largest node serving the namespace
  (the API server rejects a LimitRange whose default exceeds its max).

The add-ons' needs (``addon_problems``: the region, an autoscaler release for the
cluster's Kubernetes version, add-on modes, alert delivery, a Kueue new enough for its
objects, ``atomic_provisioning: on`` with a pool to provision, the GPU allocation:
``dra_checks.py``) and the CloudWatch
alarms' registrar (``alarm_problems``) are checked here too, once, by the gate.

Allowed on purpose: a batch namespace without a batch pool (batch then runs
off-peak on the resident pool), ``kueue: auto``/``off`` without training pools.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from nodepools.guardrails import alert_delivery, derive
from nodepools.guardrails.addon_modes import addon_mode_problems, installs_cluster_autoscaler
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.alerts_spec import AlertBackend
from nodepools.guardrails.capacity import largest_node
from nodepools.guardrails.dra_checks import gpu_allocation_problems
from nodepools.guardrails.dra_driver import uses_dra
from nodepools.guardrails.provisioning import provisioning_problems
from nodepools.guardrails.topology import kueue_version_problems
from nodepools.guardrails.repair import karpenter_repair_problems
from nodepools.guardrails.spec import AUTOSCALER_IMAGE_BY_KUBERNETES, GuardrailsSpec, KueueMode
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud, PoolClass

KUEUE_MAX_TOLERATIONS = 8

# Registers CloudWatch alarm arguments (``GuardrailsPlan.cloudwatch_alarms``) under a parent
# resource (a ``pulumi.Resource``; typed Any so this pure package needs no Pulumi import).
AlarmRegistrar = Callable[[list[dict[str, Any]], Any], Any]


def addon_problems(cloud: Cloud, cluster: ClusterPools, region: Any, problems: Problems,
                   root: tuple[str | int, ...] = (), spec: GuardrailsSpec | None = None,
                   spec_root: tuple[str | int, ...] = ("spec",)) -> None:
    """Problems of the arguments the cloud's add-ons need (the region, the cloud
    itself, an autoscaler release for the cluster's Kubernetes version)."""
    if cluster.cloud is not cloud:
        problems.add(root + ("cloud",), f"cloud {cloud.value!r} differs from the pools' cloud "
                     f"{cluster.cloud.value!r}", cloud.value)
    addons = CLOUD_ADDONS[cloud]
    modes = spec.addons if spec is not None else GuardrailsSpec().addons
    if spec is not None:
        addon_mode_problems(spec.addons, cluster.pools, problems, spec_root,
                            addons.nvidia_device_plugin and not uses_dra(spec, cloud))
        gpu_allocation_problems(cloud, cluster, spec, problems, root, spec_root)
        alert_delivery.alert_problems(spec, cloud, problems, spec_root)
        kueue_version_problems(spec, cluster, problems, spec_root)
        provisioning_problems(spec, cluster, problems, spec_root)
        karpenter_repair_problems(cluster, spec, problems, root)
    if not installs_cluster_autoscaler(not addons.cluster_autoscaler, modes, cluster.pools):
        return
    if addons.autoscaler_region_value and region is None:
        problems.add(root + ("region",), f"cluster-autoscaler on {cloud.value} needs the cluster's region (its "
                     "chart otherwise defaults to us-east-1 and would find no node groups)", None)
    if spec is not None and spec.autoscaler_image is None:
        problems.add(spec_root + ("charts", "cluster_autoscaler_image"), "no cluster-autoscaler release is known "
                     f"for Kubernetes {spec.kubernetes_version} (known: "
                     f"{', '.join(sorted(AUTOSCALER_IMAGE_BY_KUBERNETES))}); set the image tag of the autoscaler "
                     f"release for {spec.kubernetes_version} (v{spec.kubernetes_version}.PATCH)", None)


def alarm_problems(spec: GuardrailsSpec, cloud: Cloud, register_alarms: AlarmRegistrar | None, problems: Problems,
                   spec_root: tuple[str | int, ...] = ("spec",)) -> None:
    """CloudWatch alarms are cloud resources this Kubernetes-only component cannot create:
    the cloudwatch backend needs a registrar (``Platform`` passes its cluster target's)."""
    chosen = alert_delivery.backend(spec, cloud)
    if chosen is AlertBackend.CLOUDWATCH and chosen in alert_delivery.BACKENDS_ON[cloud] and register_alarms is None:
        default = " (the default on aws)" if spec.alerts.backend is None else ""
        problems.add(spec_root + ("alerts", "backend"), f"alert backend 'cloudwatch'{default} creates CloudWatch "
                     "alarms, which need register_alarms (Platform passes its EksCluster's); without one choose "
                     "backend 'prometheus-operator' or set alerts.enabled false", "cloudwatch")


def _pool_list(pools: Sequence[PoolSpec]) -> str:
    return ", ".join(f"{p.name} ({p.pool_class.value})" for p in pools)


def guardrail_problems(spec: GuardrailsSpec, pools: Sequence[PoolSpec], problems: Problems,
                       root: tuple[str | int, ...] = ()) -> None:
    """Add every problem between ``spec`` and ``pools`` to ``problems`` (locations under ``root``)."""
    present = {p.pool_class for p in pools}
    for pool_class, name in spec.namespaces.items():
        if pool_class.has_gpu and pool_class not in present:
            problems.add(root + ("namespaces", pool_class.value),
                         f"namespace {name!r} is configured for class {pool_class.value}, but the cluster has no "
                         f"{pool_class.value} pool (pools: {_pool_list(pools)}); add a {pool_class.value} pool "
                         f"or remove namespaces[{pool_class.value!r}]", name)
    if spec.kueue is KueueMode.ON and PoolClass.GPU_TRAINING not in present:
        problems.add(root + ("kueue",), "kueue 'on' needs a gpu-training pool: Kueue queues distributed training "
                     "and its ClusterQueue's GPU quota is the training pools' max GPUs (here 0); use 'auto' or "
                     f"'off' (pools: {_pool_list(pools)})", spec.kueue.value)
    if derive.kueue_enabled(spec, pools):
        for pool in pools:
            if pool.pool_class in derive.QUEUED_CLASSES and len(pool.node_taints) > KUEUE_MAX_TOLERATIONS:
                problems.add(root + ("kueue",), f"pool {pool.name!r} has {len(pool.node_taints)} taints; a Kueue "
                             f"ResourceFlavor holds at most {KUEUE_MAX_TOLERATIONS} tolerations (remove taints "
                             "or set kueue: off)", spec.kueue.value)
    _limit_range_problems(spec, pools, problems, root)


def _limit_range_problems(spec: GuardrailsSpec, pools: Sequence[PoolSpec], problems: Problems,
                          root: tuple[str | int, ...]) -> None:
    limits = spec.limit_range
    for pool_class in derive.LIMIT_RANGE_CLASSES:
        serving = derive.serving_pools(pools, pool_class)
        if not serving:
            continue
        node = largest_node(serving)
        for field, value, ceiling, unit in (
                ("default_limit_cpu_millicores", limits.default_limit_cpu_millicores, node.cpu_millicores, "m"),
                ("default_limit_memory_mib", limits.default_limit_memory_mib, node.memory_mib, " MiB")):
            if value > ceiling:
                problems.add(root + ("limit_range", field), f"{field} ({value}) is larger than the largest "
                             f"{pool_class.value} node ({ceiling}{unit}, pools: {_pool_list(serving)}); the "
                             "LimitRange max is one node", value)


def check_guardrails(spec: GuardrailsSpec, pools: Sequence[PoolSpec]) -> None:
    """Raise one pydantic ValidationError listing every problem between ``spec`` and ``pools``."""
    problems = Problems()
    guardrail_problems(spec, pools, problems)
    problems.raise_if_any("GuardrailsSpec")
