"""The guardrails' rules, in one module: the spec alone (``spec_problems``, run by
``GuardrailsSpec`` when it is built) and the spec against the cluster's pools and cloud
(``guardrail_problems``, ``addon_problems``, ``alarm_problems``, run once by the gate).
The models (``spec_fields.py``, ``alerts_spec.py``, ``addon_modes.py``) hold shapes and
defaults only; ``GuardrailsSpec`` (``spec.py``) is their fields with ``spec_problems`` enforced.

Errors (each names its field):
- the spec alone: ``batch_quota_share`` outside ``BATCH_QUOTA_SHARE_RANGE``, an unsupported
  ``kubernetes_version``, a reserved, malformed or reused namespace, ``kueue: on`` with Kueue
  disabled, chart versions that are ranges, a LimitRange request above its limit, the alerts'
  options of another backend, an add-on both ``existing`` and disabled;
- a namespace configured for a GPU class the cluster has no pool of (its GPU
  quota would be 0: nothing could ever run there, almost surely a typo'd layout);
- ``kueue: on`` without a gpu-training pool (the ClusterQueue's GPU quota would be 0);
- with Kueue on, a queued pool with more than 8 taints (a ResourceFlavor holds at most 8 tolerations);
- LimitRange default limits larger than the largest node serving the namespace
  (the API server rejects a LimitRange whose default exceeds its max);
- Karpenter pools with Karpenter disabled, GPU pools with neither a device plugin nor the
  GPU Operator where the cloud ships none.

The add-ons' needs (``addon_problems``: the region, an autoscaler release for the
cluster's Kubernetes version, add-on modes, alert delivery, a Kueue new enough for its
objects, ``atomic_provisioning: on`` with a pool to provision, the GPU allocation:
``dra_checks.py``) and the CloudWatch
alarms' registrar (``alarm_problems``) are checked here too, once, by the gate.

Allowed on purpose: a batch namespace without a batch pool (batch then runs
off-peak on the resident pool), ``kueue: auto``/``off`` without training pools.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from nodepools.guardrails import alert_delivery, derive
from nodepools.guardrails.addon_modes import AddonsSpec, installs_cluster_autoscaler
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.alerts_spec import AlertBackend, AlertsSpec
from nodepools.guardrails.capacity import largest_node
from nodepools.guardrails.dra_checks import gpu_allocation_problems
from nodepools.guardrails.dra_driver import uses_dra
from nodepools.guardrails.provisioning import provisioning_problems
from nodepools.guardrails.topology import kueue_version_problems
from nodepools.guardrails.repair import karpenter_repair_problems
from nodepools.guardrails.spec_fields import (AUTOSCALER_IMAGE_BY_KUBERNETES, RESERVED_NAMESPACES, ChartVersions,
                                              GuardrailsFields, KueueMode, LimitRangeSpec)
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.kube_versions import supported_minor_problem
from nodepools.spec.pool import PoolSpec
from nodepools.spec.presets import BATCH_QUOTA_SHARE_RANGE
from nodepools.spec.syntax import dns_label_error, label_key_error, label_value_error
from nodepools.vocabulary import Cloud, PoolClass

Root = tuple[str | int, ...]
_CHART_VERSION = re.compile(r"^\d+\.\d+\.\d+\Z")
_IMAGE_TAG = re.compile(r"^v\d+\.\d+\.\d+\Z")
_ARN = re.compile(r"^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{12}:.+\Z")
KUEUE_MAX_TOLERATIONS = 8

# Registers CloudWatch alarm arguments (``GuardrailsPlan.cloudwatch_alarms``) under a parent
# resource (a ``pulumi.Resource``; typed Any so this pure package needs no Pulumi import).
AlarmRegistrar = Callable[[list[dict[str, Any]], Any], Any]


def spec_problems(spec: GuardrailsFields, problems: Problems) -> None:
    """Every problem of the guardrails spec alone, its option models included."""
    low, high = BATCH_QUOTA_SHARE_RANGE
    if not low <= spec.batch_quota_share <= high:
        problems.add("batch_quota_share", f"batch_quota_share must be between {low:.2f} and {high:.2f} (the batch "
                     "namespace's share of the resident and batch pools' cpu and memory), got "
                     f"{spec.batch_quota_share}", spec.batch_quota_share)
    supported_minor_problem(spec.kubernetes_version, problems)
    seen: dict[str, PoolClass] = {}
    for pool_class, name in spec.namespace_names.items():
        loc = ("namespaces", pool_class.value)
        if err := dns_label_error(name):
            problems.add(loc, f"namespace {err}", name)
        elif name in RESERVED_NAMESPACES:
            problems.add(loc, f"namespace {name!r} is reserved (reserved: {', '.join(RESERVED_NAMESPACES)}); "
                         "workload classes need namespaces of their own", name)
        elif name in seen:
            problems.add(loc, f"namespace {name!r} is already the {seen[name].value} namespace; each workload "
                         "class needs its own namespace (its quota and LimitRange differ)", name)
        seen.setdefault(name, pool_class)
    if spec.kueue is KueueMode.ON and not spec.addons.kueue.enabled:
        problems.add(("addons", "kueue", "enabled"), "kueue 'on' asks for Kueue's queues, but "
                     "addons.kueue.enabled is false; set kueue: off, or addons.kueue.existing: true", False)
    alerts_problems(spec.alerts, problems, ("alerts",))
    limit_range_problems(spec.limit_range, problems, ("limit_range",))
    chart_problems(spec.charts, problems, ("charts",))
    addons = spec.addons
    for name, mode in (("device_plugin", addons.device_plugin), ("cluster_autoscaler", addons.cluster_autoscaler),
                       ("karpenter", addons.karpenter), ("kueue", addons.kueue)):
        if mode.existing and not mode.enabled:
            problems.add(("addons", name, "existing"), "existing: true says the cluster runs the add-on, enabled: "
                         "false that it does not; set one of them", True)


def chart_problems(charts: ChartVersions, problems: Problems, root: Root = ()) -> None:
    for field in ("nvidia_device_plugin", "cluster_autoscaler", "kueue", "karpenter", "nvidia_dra_driver"):
        value = getattr(charts, field)
        if not _CHART_VERSION.match(value):
            problems.add(root + (field,), f"chart version {value!r} must be an exact version MAJOR.MINOR.PATCH "
                         "(ranges would let an add-on change under a running cluster)", value)
    image = charts.cluster_autoscaler_image
    if image is not None and not _IMAGE_TAG.match(image):
        problems.add(root + ("cluster_autoscaler_image",), f"image tag {image!r} must look like vMAJOR.MINOR.PATCH",
                     image)


def limit_range_problems(limits: LimitRangeSpec, problems: Problems, root: Root = ()) -> None:
    for what in ("cpu_millicores", "memory_mib"):
        request, limit = getattr(limits, f"default_request_{what}"), getattr(limits, f"default_limit_{what}")
        if request > limit:
            problems.add(root + (f"default_request_{what}",), f"default_request_{what} ({request}) must be <= "
                         f"default_limit_{what} ({limit})", request)


def alerts_problems(alerts: AlertsSpec, problems: Problems, root: Root = ()) -> None:
    if alerts.namespace is not None and (err := dns_label_error(alerts.namespace)):
        problems.add(root + ("namespace",), f"namespace {err}", alerts.namespace)
    for key, value in alerts.rule_labels.items():
        if err := label_key_error(key) or label_value_error(value):
            problems.add(root + ("rule_labels", key), err, value)
    for i, arn in enumerate(alerts.alarm_actions):
        if not _ARN.match(arn):
            problems.add(root + ("alarm_actions", i), f"alarm action {arn!r} must be an ARN "
                         "(arn:aws:sns:REGION:ACCOUNT:TOPIC)", arn)
    if not alerts.enabled:
        return
    chosen = alerts.backend.value if alerts.backend else "the cloud's managed backend (backend unset)"
    if alerts.backend is AlertBackend.PROMETHEUS_OPERATOR:
        if not alerts.rule_labels:
            problems.add(root + ("rule_labels",), "backend prometheus-operator needs rule_labels: the labels your "
                         "Prometheus's ruleSelector matches (a null ruleSelector selects no rule; "
                         "kube-prometheus-stack selects release: <its Helm release name>)", None)
        if alerts.namespace is None:
            problems.add(root + ("namespace",), "backend prometheus-operator needs namespace: one your "
                         "Prometheus's ruleNamespaceSelector selects (a null selector means only the Prometheus's "
                         "own namespace)", None)
    else:
        for name in ("namespace", "rule_labels"):
            if getattr(alerts, name):
                problems.add(root + (name,), f"{name} applies to backend prometheus-operator only, not {chosen} "
                             f"(allowed backends: {', '.join(b.value for b in AlertBackend)})", getattr(alerts, name))
    if alerts.alarm_actions and alerts.backend is not None and alerts.backend is not AlertBackend.CLOUDWATCH:
        problems.add(root + ("alarm_actions",), f"alarm_actions applies to backend cloudwatch only, not {chosen}",
                     alerts.alarm_actions)


def addon_problems(cloud: Cloud, cluster: ClusterPools, region: Any, problems: Problems,
                   root: tuple[str | int, ...] = (), spec: GuardrailsFields | None = None,
                   spec_root: tuple[str | int, ...] = ("spec",)) -> None:
    """Problems of the arguments the cloud's add-ons need (the region, the cloud
    itself, an autoscaler release for the cluster's Kubernetes version)."""
    if cluster.cloud is not cloud:
        problems.add(root + ("cloud",), f"cloud {cloud.value!r} differs from the pools' cloud "
                     f"{cluster.cloud.value!r}", cloud.value)
    addons = CLOUD_ADDONS[cloud]
    modes = spec.addons if spec is not None else AddonsSpec()
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


def addon_mode_problems(addons: AddonsSpec, pools: Sequence[PoolSpec], problems: Problems, root: Root,
                        needs_device_plugin: bool) -> None:
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


def alarm_problems(spec: GuardrailsFields, cloud: Cloud, register_alarms: AlarmRegistrar | None, problems: Problems,
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


def guardrail_problems(spec: GuardrailsFields, pools: Sequence[PoolSpec], problems: Problems,
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


def _limit_range_problems(spec: GuardrailsFields, pools: Sequence[PoolSpec], problems: Problems,
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


def check_guardrails(spec: GuardrailsFields, pools: Sequence[PoolSpec]) -> None:
    """Raise one pydantic ValidationError listing every problem between ``spec`` and ``pools``."""
    problems = Problems()
    guardrail_problems(spec, pools, problems)
    problems.raise_if_any("GuardrailsSpec")
