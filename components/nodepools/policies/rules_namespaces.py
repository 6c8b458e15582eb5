"""Namespace governance: quotas (GPU included), LimitRanges, PriorityClasses."""
from __future__ import annotations

from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, json_type
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.inventory.resource import Resource
from nodepools.policies.podpaths import subject, templates
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import NamespaceRef
from nodepools.policies.stack_view import StackView

_LIMIT_RANGE_CLASSES = (v.PoolClass.BATCH.value, v.PoolClass.GPU_TRAINING.value)
_BATCH_SHARE_OF = (v.PoolClass.RESIDENT, v.PoolClass.BATCH)


def _ns_subject(ref: NamespaceRef) -> str:
    return subject_of(v.TYPE_NAMESPACE, ref.res.name)


@one_per_resource
def check_namespace_quota(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Every namespace of the stack has a ResourceQuota; a batch namespace's quota
    claims at most ``batchQuotaShare`` of the resident and batch pools' cpu/memory."""
    for key, ref in stack.namespaces.items():
        quotas = stack.in_namespace(v.TYPE_RESOURCE_QUOTA, key)
        if not quotas:
            if stack.may_hold(v.TYPE_RESOURCE_QUOTA, ref):
                yield unknown(ref.res.urn, _ns_subject(ref), "ResourceQuota", key,
                              "a ResourceQuota's namespace or this namespace's name is unknown")
            else:
                yield Finding(ref.res.urn, _ns_subject(ref), "ResourceQuota",
                              "the namespace has no ResourceQuota, so its pods can claim the whole cluster",
                              f"add a ResourceQuota to namespace {key} with requests.cpu, requests.memory and "
                              f"{v.QUOTA_GPU_REQUESTS}", key)
        elif stack.namespace_class_label(key) == v.PoolClass.BATCH.value:
            yield from _batch_share(stack, key, quotas, settings)


# Where each pool type keeps what its size is read from, to name it when unknown.
_MAX_SIZE_FIELD = {v.TYPE_EKS_NODE_GROUP: "scalingConfig.maxSize", v.TYPE_GKE_NODE_POOL: "autoscaling",
                   v.TYPE_KARPENTER_NODE_POOL: "spec.limits"}
_INSTANCE_FIELD = {v.TYPE_EKS_NODE_GROUP: "instanceTypes", v.TYPE_GKE_NODE_POOL: "nodeConfig.machineType",
                   v.TYPE_KARPENTER_NODE_POOL: "spec.template.spec.requirements"}


def _capacity(stack: StackView) -> tuple[Any, str]:
    """cpu (cores) and memory (bytes) of the resident and batch pools at max nodes,
    each pool at its smallest instance type (as the guardrails size the batch quota);
    None when a pool cannot be sized, UNKNOWN (with why, naming the value) when a pool's
    class, maximum size or instance types are unknown."""
    for p in stack.pools:
        if is_unknown(p.view.pool_class):
            return UNKNOWN, f"pool '{p.view.name}': its {v.LABEL_POOL_CLASS} label is unknown, so the resident " \
                            "and batch pools' size is"
    pools = [p.view for p in stack.pools if p.view.pool_class in _BATCH_SHARE_OF]
    total = {"cpu": 0.0, "memory": 0.0}
    for pool in pools:
        if is_unknown(pool.instance_types) and pool.type == v.TYPE_KARPENTER_NODE_POOL and not pool.labels_partial:
            return None, ""  # its requirements admit no type of the table: only `schedulable` notes that
        if is_unknown(pool.instance_types):
            field = _INSTANCE_FIELD.get(pool.type, "instance types")
            return UNKNOWN, f"pool '{pool.name}': its {field} is unknown, so the resident and batch pools' size is"
        types = pool.instances
        if not types or None in types:
            return None, ""  # a type the instance table lacks: only `schedulable` notes it (section 8)
        if is_unknown(pool.max_nodes):
            field = _MAX_SIZE_FIELD.get(pool.type, "size")
            return UNKNOWN, f"pool '{pool.name}': its {field} is unknown, so the resident and batch pools' size is"
        if not isinstance(pool.max_nodes, (int, float)):
            return None, ""
        total["cpu"] += min(t.vcpu for t in types) * pool.max_nodes
        total["memory"] += min(t.memory_gib for t in types) * 2**30 * pool.max_nodes
    return (total if pools else None), ""


def _batch_share(stack: StackView, key: str, quotas: list[Resource], settings: Settings) -> Iterator[Finding]:
    capacity, why = _capacity(stack)
    if capacity is None:
        return
    if is_unknown(capacity):
        for quota in quotas:
            yield unknown(quota.urn, subject_of(quota.type, quota.name, key), "spec.hard", key, why)
        return
    for resource, cap in capacity.items():
        ceilings: list[tuple[float, Resource, str]] = []
        for quota in quotas:
            hard = dig(quota.props, "spec", "hard")
            for name in (f"requests.{resource}", resource):
                raw = UNKNOWN if is_unknown(hard) else as_dict(hard).get(name)
                if is_unknown(raw):
                    yield unknown(quota.urn, subject_of(quota.type, quota.name, key), f"spec.hard['{name}']", key)
                    break
                if (amount := try_quantity(raw)) is not None:
                    ceilings.append((amount, quota, name))
        if not ceilings:
            continue
        amount, quota, name = min(ceilings, key=lambda c: c[0])
        allowed = settings.batch_quota_share * cap
        if amount > allowed * (1 + 1e-9):
            shown = f"{allowed:g} cores" if resource == "cpu" else f"{allowed / 2**30:.1f}Gi"
            yield Finding(quota.urn, subject_of(quota.type, quota.name, key), f"spec.hard['{name}']",
                          f"the batch namespace may claim more than batchQuotaShare "
                          f"{settings.batch_quota_share:g} of the resident and batch pools' {resource}",
                          f"lower it to at most {shown}", key)


def _scopes(spec: dict) -> set[str]:
    selector = [as_dict(e).get("scopeName") for e in as_list(dig(spec, "scopeSelector", "matchExpressions"))]
    return {s for s in [*as_list(spec.get("scopes")), *selector] if isinstance(s, str)}


@one_per_resource
def check_gpu_quota(res: Resource, settings: Settings) -> Iterator[Finding]:
    """A ResourceQuota caps requests.nvidia.com/gpu (limits.nvidia.com/gpu is never enforced)."""
    if res.type != v.TYPE_RESOURCE_QUOTA:
        return
    namespace = res.k8s_namespace
    who = subject_of(res.type, res.name, namespace)
    spec = res.props.get("spec")
    hard = dig(spec, "hard")
    if is_unknown(spec) or is_unknown(hard) or is_unknown(dig(spec, "scopes")):
        yield unknown(res.urn, who, "spec.hard", namespace)
        return
    if "BestEffort" in _scopes(as_dict(spec)):  # tracks pods without requests: none can hold a GPU
        return
    hard = as_dict(hard)
    if v.QUOTA_GPU_LIMITS_NEVER_ENFORCED in hard:
        yield Finding(res.urn, who, f"spec.hard['{v.QUOTA_GPU_LIMITS_NEVER_ENFORCED}']",
                      "extended resources are never counted under limits., so this caps nothing",
                      f"use {v.QUOTA_GPU_REQUESTS} instead", namespace)
    if v.QUOTA_GPU_REQUESTS not in hard:
        yield Finding(res.urn, who, "spec.hard", f"no {v.QUOTA_GPU_REQUESTS}, so the namespace's pods may take "
                      "every GPU in the cluster",
                      f"add {v.QUOTA_GPU_REQUESTS}: \"0\" (or the namespace's GPU share) to spec.hard", namespace)


@one_per_resource
def check_batch_limitrange(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """batch and gpu-training namespaces have a LimitRange defaulting container requests."""
    for key, ref in stack.namespaces.items():
        label = stack.namespace_class_label(key)
        if not is_unknown(label) and label not in _LIMIT_RANGE_CLASSES:
            continue
        if stack.in_namespace(v.TYPE_LIMIT_RANGE, key):
            continue
        if is_unknown(label) or stack.may_hold(v.TYPE_LIMIT_RANGE, ref):
            yield unknown(ref.res.urn, _ns_subject(ref), "metadata.labels", key,
                          "the namespace's class, its name or a LimitRange's namespace is unknown")
        else:
            yield Finding(ref.res.urn, _ns_subject(ref), "LimitRange",
                          f"a {label} namespace has no LimitRange, so pods without requests are admitted "
                          "as BestEffort and overcommit the nodes",
                          f"add a LimitRange to namespace {key} with type: Container default and "
                          "defaultRequest for cpu and memory", key)


def _known_classes(stack: StackView) -> set[Any]:
    """The stack's PriorityClass names; for a stack defining none (an app stack whose
    platform stack installs the classes), the contract's nodepools-* names."""
    if not stack.priority_classes:
        return set(v.PRIORITY_CLASS_NAMES.values())
    return {pc.k8s_name for pc in stack.priority_classes}


def _priority_ok(stack: StackView, res: Resource, name: Any) -> Any:
    """True/False, or UNKNOWN when the name cannot be checked."""
    known = _known_classes(stack)
    if isinstance(name, str) and (name.startswith(v.SYSTEM_PRIORITY_CLASS_PREFIX) or name in known):
        return True
    if not is_unknown(name) and not name:
        return False
    if any(res.depends_on(pc.urn) for pc in stack.priority_classes):
        return True  # the name comes from a PriorityClass of the stack
    return UNKNOWN if is_unknown(name) or UNKNOWN in known else False


@one_per_resource
def check_priority_class_assigned(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Every workload names a PriorityClass of the stack or a system-* class (in a stack
    defining no PriorityClass, one of the contract's nodepools-* classes)."""
    known = sorted(n for n in _known_classes(stack) if isinstance(n, str))
    for ref in stack.workloads:
        for template, path in templates(ref):
            name = dig(template.spec, "priorityClassName")
            verdict = _priority_ok(stack, ref.res, name)
            if verdict is True:
                continue
            if is_unknown(verdict):
                yield unknown(ref.res.urn, subject(ref), f"{path}.priorityClassName", ref.namespace)
                continue
            if isinstance(name, str) and name:
                problem = f"names PriorityClass '{name}', which the stack does not define"
            else:  # a value of another shape is named, never quoted
                problem = f"is {json_type(name)}, not a PriorityClass name" if name else \
                    "no priorityClassName, so the pod gets the cluster default priority"
            choices = ", ".join(known) if known else "a class defined in this stack"
            yield Finding(ref.res.urn, subject(ref), f"{path}.priorityClassName", problem,
                          f"set it to one of: {choices} (or a system-* class for node agents)", ref.namespace)
