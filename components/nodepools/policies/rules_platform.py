"""Cluster plumbing around the pools: autoscaler hints, GPU device plugin, throttling alerts."""
from __future__ import annotations

from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory import gpu_offer
from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, known_list
from nodepools.inventory.tri import and3, or3
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.policies.device_plugins import GKE_NO_DRIVER, DevicePlugin, needs_plugin
from nodepools.policies.gpu_servers import gpu_servers
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import PoolRef
from nodepools.policies.stack_view import StackView



def _subject(ref: PoolRef) -> str:
    return subject_of(ref.res.type, ref.view.name)


def _wanted_tags(ref: PoolRef) -> Any:
    """node-template tag key -> wanted value (a string, or a float for the GPU count); UNKNOWN if unknowable."""
    pool = ref.view
    if is_unknown(pool.taints) or is_unknown(pool.pool_class):
        return UNKNOWN
    wanted: dict[str, Any] = {v.CA_TAG_TAINT_PREFIX + t["key"]: f"{t['value']}:{t['effect']}" for t in pool.taints}
    if pool.pool_class is not None:
        wanted[v.CA_TAG_LABEL_PREFIX + v.LABEL_POOL_CLASS] = pool.pool_class.value
    if pool.is_gpu is True:
        # What the device plugin advertises: GPUs, GPUs x replicas, or MIG slices (inventory/gpu_offer.py).
        resource = gpu_offer.offered_resource(pool)
        if is_unknown(resource):
            return UNKNOWN
        wanted[v.CA_TAG_RESOURCE_PREFIX + resource] = gpu_offer.per_node(pool, resource)
    elif is_unknown(pool.is_gpu):
        return UNKNOWN
    return wanted


def _tags(stack: StackView, ref: PoolRef) -> tuple[dict[str, Any], list[Any]]:
    """The pool's ASG tags (key -> value), and the values of its tags whose key is unknown."""
    found, keyless = {}, []
    for tag in stack.of_type(v.TYPE_ASG_TAG):
        if not (tag.depends_on(ref.res.urn, "autoscalingGroupName") or tag.depends_on(ref.res.urn)):
            continue
        body = tag.props.get("tag")
        key = UNKNOWN if is_unknown(body) else as_dict(body).get("key")
        value = UNKNOWN if is_unknown(body) else as_dict(body).get("value")
        if isinstance(key, str):
            found[key] = value
        elif is_unknown(key):
            keyless.append(value)
    return found, keyless


def _same(key: str, have: Any, want: Any) -> bool:
    return try_quantity(have) == want if key.startswith(v.CA_TAG_RESOURCE_PREFIX) else have == want


def _shown(want: Any) -> str:
    return want if isinstance(want, str) else f"{want:g}"


@one_per_resource
def check_autoscaler_hints(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """An EKS pool with min 0 has ASG node-template tags for its taints (CamelCase
    effect), class label and GPU count."""
    for ref in stack.pools:
        if ref.res.type != v.TYPE_EKS_NODE_GROUP or ref.view.min_nodes not in (0, 0.0, UNKNOWN):
            continue
        wanted, (found, keyless) = _wanted_tags(ref), _tags(stack, ref)
        if is_unknown(wanted):
            yield unknown(ref.res.urn, _subject(ref), "taints", why="the pool's taints, class or GPUs are unknown")
            continue
        problems, undecided = [], False
        for key, want in wanted.items():
            have = found.get(key)
            if is_unknown(have) or is_unknown(want):
                undecided = True
            elif have is None:
                # A tag whose key is unknown at preview might be this one, unless its value rules it out.
                undecided = undecided or any(is_unknown(x) or _same(key, x, want) for x in keyless)
                problems.append(f"missing {key}={_shown(want)}")
            elif not _same(key, have, want):
                dropped = " (cluster-autoscaler drops a taint tag whose effect is not CamelCase)" \
                    if key.startswith(v.CA_TAG_TAINT_PREFIX) else ""
                problems.append(f"{key} is '{have}', want '{_shown(want)}'{dropped}")
        if problems and not undecided and not is_unknown(ref.view.min_nodes):
            yield Finding(ref.res.urn, _subject(ref), "aws:autoscaling/tag:Tag (node-template tags)",
                          "cluster-autoscaler cannot scale this pool up from zero correctly: " + "; ".join(problems),
                          "add an aws.autoscaling.Tag per entry on the node group's ASG (autoscaling_group_name from "
                          "node_group.resources[0].autoscaling_groups[0].name, propagate_at_launch false)")
        elif problems or undecided:
            yield unknown(ref.res.urn, _subject(ref), "node-template tags")


@one_per_resource
def check_gpu_device_plugin(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """EKS GPU pools are reached by a NVIDIA device plugin (or DRA driver: ``gpu_servers``) that
    stays off non-GPU pools; GKE GPU pools install GKE's driver."""
    plugins = gpu_servers(stack)
    one_cluster = stack.membership.one_cluster
    for ref in stack.pools:
        if ref.res.type == v.TYPE_GKE_NODE_POOL:
            yield from _gke_driver(ref)
            continue
        need = needs_plugin(ref)
        if need is False:
            continue
        if not plugins:
            finding = Finding(ref.res.urn, _subject(ref), "NVIDIA device plugin",
                              "no NVIDIA device plugin in the stack, so the pool's GPUs are never advertised and "
                              "GPU pods stay Pending", "install the nvidia-device-plugin chart (nodepools' guardrails "
                              "pin its version) with tolerations for the pool's taints and node selection on "
                              "nvidia.com/gpu.present=true")
            yield finding if need is True else unknown(ref.res.urn, _subject(ref), "amiType")
            continue
        answers = [p.lands_on(ref.view, stack.label_sources) for p in plugins]
        reached = or3(and3((p.certain or UNKNOWN, a)) for p, (a, _) in zip(plugins, answers))
        if reached is True:
            continue
        why = "; ".join(f"{p.subject}: {w}" for p, (a, w) in zip(plugins, answers) if a is False)
        if reached is False and need is True:
            yield Finding(ref.res.urn, _subject(ref), "NVIDIA device plugin tolerations/node selection",
                          f"no NVIDIA device plugin lands on this GPU pool ({why})",
                          "give the plugin a toleration for each of the pool's taints and node selection matching "
                          "the pool's nvidia.com/gpu.present=true label")
        else:
            open_ = [f"{p.subject}: " + ("whether it is a device plugin (its chart or image) is unknown until the "
                                         "update runs" if not p.certain and a is not False else w)
                     for p, (a, w) in zip(plugins, answers) if a is not False]
            # Nothing open among the plugins: the pool's own GPUs are the unknown (``need``).
            yield unknown(ref.res.urn, _subject(ref), "NVIDIA device plugin",
                          why="whether a device plugin reaches it: " + "; ".join(open_) if open_ else
                          f"whether the pool has GPUs is unknown, and no device plugin lands on it ({why})")
    for plugin in [p for p in plugins if p.certain]:
        for ref in stack.pools:
            if ref.view.is_gpu is not False or not _same_cluster(stack, plugin, ref, one_cluster):
                continue
            lands, _ = plugin.lands_on(ref.view, stack.label_sources)
            if lands is True:
                # In its namespace like any workload: a plugin in a system namespace is out of scope
                # (docs/design.md section 6); the rule's subject there is the GPU pools' coverage.
                yield Finding(plugin.res.urn, plugin.subject, plugin.selection_field,
                              f"lands on non-GPU pool '{ref.view.name}', where it fails to initialise",
                              "select GPU nodes only, e.g. nodeSelector nvidia.com/gpu.present: 'true'",
                              plugin.namespace)
            elif is_unknown(lands):
                yield unknown(plugin.res.urn, plugin.subject, plugin.selection_field, plugin.namespace)


def _same_cluster(stack: StackView, plugin: DevicePlugin, ref: PoolRef, one_cluster: bool) -> bool:
    """Definitely in the pool's cluster: a one-cluster stack, or a DaemonSet whose
    provider ties it to the pool's cluster (as the placement analysis decides)."""
    if one_cluster:
        return True
    placed = [w.workload for w in stack.all_workloads if w.res.urn == plugin.res.urn]
    return bool(placed) and stack.member(placed[0], ref.view) is True


def _gke_driver(ref: PoolRef) -> Iterator[Finding]:
    if ref.view.is_gpu is False:
        return
    accelerators = dig(ref.res.props, "nodeConfig", "guestAccelerators")
    if is_unknown(accelerators) or is_unknown(ref.view.is_gpu):
        yield unknown(ref.res.urn, _subject(ref), "nodeConfig.guestAccelerators")
        return
    if not as_list(accelerators):
        yield Finding(ref.res.urn, _subject(ref), "nodeConfig.guestAccelerators",
                      "a GPU machine type without a guestAccelerators block gets no driver installation config, "
                      "so its nodes have no NVIDIA driver", "declare nodeConfig.guestAccelerators with "
                      "gpuDriverInstallationConfig.gpuDriverVersion DEFAULT or LATEST")
    for i, accelerator in enumerate(as_list(accelerators)):
        field = f"nodeConfig.guestAccelerators[{i}].gpuDriverInstallationConfig.gpuDriverVersion"
        version = dig(accelerator, "gpuDriverInstallationConfig", "gpuDriverVersion")
        if is_unknown(version):
            yield unknown(ref.res.urn, _subject(ref), field)
        elif version in GKE_NO_DRIVER:
            yield Finding(ref.res.urn, _subject(ref), field,
                          f"'{version or 'unset'}' installs no NVIDIA driver, so the GPUs are unusable",
                          "set it to DEFAULT or LATEST (GKE then runs its own device plugin)")


_THROTTLING = ("container_cpu_cfs_throttled", "throttl")
_STEAL = ("steal",)


def _entries(value: Any) -> tuple[list[dict], bool]:
    """The object entries of a list, and whether the list or one of its entries is unknown."""
    raw = known_list(value)
    return ([], True) if is_unknown(raw) else ([as_dict(x) for x in raw], False)


def _alert_texts(stack: StackView) -> tuple[list[str], bool]:
    """Queries/filters of every alert in the stack, and whether one is unknown."""
    texts, unsure = [], False
    for res in stack.resources:
        # Every in-cluster Prometheus rule kind: prometheus-operator's PrometheusRule and
        # Google Managed Prometheus's Rules / ClusterRules / GlobalRules (same spec.groups).
        if res.type.endswith(":PrometheusRule") or any(res.type == v.TYPE_GMP_RULES_PREFIX + kind
                                                       for kind in v.GMP_RULE_KINDS):
            groups, unsure_groups = _entries(dig(res.props, "spec", "groups"))
            rules_per_group = [_entries(g.get("rules")) for g in groups]
            unsure = unsure or unsure_groups or any(u for _, u in rules_per_group)
            raw = [r.get("expr") for rules, _ in rules_per_group for r in rules if "alert" in r]
        elif res.type == "gcp:monitoring/alertPolicy:AlertPolicy":
            conditions, unsure_conditions = _entries(res.props.get("conditions"))
            unsure = unsure or unsure_conditions
            raw = [dig(c, kind, field) for c in conditions for kind, field in (
                ("conditionThreshold", "filter"), ("conditionPrometheusQueryLanguage", "query"),
                ("conditionMonitoringQueryLanguage", "query"))]
        elif res.type == v.TYPE_CLOUDWATCH_METRIC_ALARM:
            queries, unsure_queries = _entries(res.props.get("metricQueries"))
            unsure = unsure or unsure_queries
            # A PromQL alarm (evaluationCriteria) carries its query instead of a metric.
            promql = dig(res.props, "evaluationCriteria", "promqlCriteria", "query")
            if is_unknown(promql) and isinstance(marker := dig(res.props, "tags", v.TAG_ALERT), str):
                promql = marker  # nodepools' own alarm: its query waits on the cluster's name
            raw = [res.props.get("metricName"), promql] + [q.get("expression") for q in queries]
        else:
            continue
        unsure = unsure or any(is_unknown(x) for x in raw)
        texts += [x.lower() for x in raw if isinstance(x, str)]
    return texts, unsure


@one_per_resource
def check_throttling_monitoring(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A stack with batch and resident pools alerts on container CPU throttling and node CPU steal."""
    classes = {ref.view.pool_class for ref in stack.pools}
    maybe = UNKNOWN if UNKNOWN in classes else False
    shared = and3((v.PoolClass.BATCH in classes or maybe, bool({v.PoolClass.RESIDENT, None} & classes) or maybe))
    if shared is False:
        return
    texts, unsure = _alert_texts(stack)
    missing = [name for name, needles in (("CPU throttling", _THROTTLING), ("node CPU steal", _STEAL))
               if not any(n in t for t in texts for n in needles)]
    if not missing:
        return
    if unsure or is_unknown(shared):
        yield unknown("", "stack", "alerts", why="an alert's query or a pool's class is unknown")
        return
    yield Finding("", "stack", "alerts", f"batch and resident pools share the cluster but nothing alerts on "
                  f"{' or '.join(missing)}", "add a PrometheusRule, a Google Managed Prometheus Rules/ClusterRules or a "
                  "CloudWatch PromQL alarm (nodepools' guardrails alerts, any backend) alerting on "
                  "rate(container_cpu_cfs_throttled_"
                  "periods_total[5m]) / rate(container_cpu_cfs_periods_total[5m]) and on "
                  "rate(node_cpu_seconds_total{mode=\"steal\"}[5m])")
