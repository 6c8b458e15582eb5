"""The floor of the Pulumi SDK: a flat program replaying a recorded run's provider resources.

``flat_spec(run)`` turns every custom registration of a mocked run into plain
data: its type, name, wire inputs (camelCase, floats, unknown sentinels, as the
engine received them), the options the engine saw (provider, ignore_changes,
protect, ...) and its dependencies. Components disappear: a dependency on a
component becomes a dependency on every custom resource under it, and every
resource is parented to the stack. ``flat_program(spec)`` registers them with
raw ``pulumi.CustomResource`` / ``pulumi.ProviderResource``; an input that
depended on other resources is passed as an ``Output`` of those resources, so
the SDK does the same dependency work as for the real program.

``differences(original, flat)`` proves the floor is faithful: the same resources
with byte-identical wire inputs and the same dependencies (by name).
"""
from __future__ import annotations

import importlib
import json
import inspect
import re
from collections import defaultdict
from functools import lru_cache
from typing import Any, Callable

import pulumi
from google.protobuf import json_format

from nodepools.offline.engine import Registration, Run

PROVIDER_PREFIX = "pulumi:providers:"


def _urn(reference: str) -> str:
    """A provider reference is ``<urn>::<id>``; a URN itself has three ``::``."""
    return reference.rsplit("::", 1)[0] if reference.count("::") > 3 else reference


def flat_spec(run: Run) -> list[dict[str, Any]]:
    """Every custom registration of ``run`` as JSON-able data, dependencies first."""
    children: dict[str, list[Registration]] = defaultdict(list)
    for r in run.resources:
        children[r.parent].append(r)
    customs = _topological([r for r in run.resources if r.custom])
    index = {r.urn: i for i, r in enumerate(customs)}

    def expand(urns: list[str]) -> list[int]:
        out: set[int] = set()
        pending = list(urns)
        while pending:
            urn = pending.pop()
            if urn in index:
                out.add(index[urn])
            else:  # a component: depend on what it contains
                pending.extend(c.urn for c in children.get(urn, ()))
        return sorted(out)

    spec = []
    for r in customs:
        provider = _urn(r.provider) if r.provider else ""
        spec.append({
            "type": r.type, "name": r.name,
            "props": json_format.MessageToDict(r.wire),
            "deps": expand(r.dependencies),
            "prop_deps": {k: expand(v) for k, v in sorted(r.property_dependencies.items()) if expand(v)},
            "provider": index.get(provider),
            "ignore_changes": r.ignore_changes, "replace_on_changes": r.replace_on_changes,
            "protect": r.protect, "delete_before_replace": r.delete_before_replace,
        })
    return spec


def _topological(customs: list[Registration]) -> list[Registration]:
    """Registration order is asynchronous but the engine sees a resource only after
    its dependencies; sort anyway so the replay can always reference earlier ones."""
    by_urn = {r.urn: r for r in customs}
    done: set[str] = set()
    order: list[Registration] = []

    def visit(r: Registration) -> None:
        if r.urn in done:
            return
        done.add(r.urn)
        for dep in [*r.dependencies, _urn(r.provider) if r.provider else ""]:
            if dep in by_urn:
                visit(by_urn[dep])
        order.append(r)

    for r in customs:
        visit(r)
    return order


def flat_program(spec: list[dict[str, Any]], typed: bool = False) -> Callable[[], None]:
    """A program registering ``spec``'s resources directly with the raw SDK classes,
    or (``typed``) with the provider SDKs' generated classes (``aws.eks.NodeGroup``...)."""

    steps = []  # everything but the registration itself is prepared before the program runs
    for item in spec:
        if typed:
            cls, args = _typed_args(item["type"], item["props"])
            keys = {_snake(k): on for k, on in item["prop_deps"].items()}
        else:
            cls, args, keys = None, item["props"], item["prop_deps"]
        steps.append((cls, args, {k: on for k, on in keys.items() if k in args}, item))

    def program() -> None:
        made: list[pulumi.Resource] = []
        for cls, args, dependent, item in steps:
            args = dict(args)
            for key, on in dependent.items():
                args[key] = pulumi.Output.all(*[made[i].urn for i in on]).apply(lambda _, v=args[key]: v)
            opts = pulumi.ResourceOptions(
                depends_on=[made[i] for i in item["deps"]] or None,
                provider=made[item["provider"]] if item["provider"] is not None else None,
                ignore_changes=item["ignore_changes"] or None,
                replace_on_changes=item["replace_on_changes"] or None,
                protect=item["protect"] or None, delete_before_replace=item["delete_before_replace"] or None)
            if cls is not None:
                made.append(cls(item["name"], opts=opts, **args))
            elif item["type"].startswith(PROVIDER_PREFIX):
                made.append(pulumi.ProviderResource(item["type"][len(PROVIDER_PREFIX):], item["name"], args, opts))
            else:
                made.append(pulumi.CustomResource(item["type"], item["name"], args, opts))

    return program


_PACKAGES = {"aws": "pulumi_aws", "kubernetes": "pulumi_kubernetes", "gcp": "pulumi_gcp"}
_K8S_ENVELOPE = ("apiVersion", "kind")


@lru_cache(maxsize=None)
def _typed_class(type_token: str) -> tuple[Any, frozenset[str]]:
    """The generated class of ``type_token`` and the keyword arguments it takes."""
    package, module, name = type_token.split(":")
    if package == "pulumi":  # pulumi:providers:<package>
        cls = importlib.import_module(_PACKAGES[name]).Provider
    elif package == "kubernetes":
        group, _, version = module.rpartition("/")
        python_group = group.split(".")[0] if group not in ("core", "") else "core"
        try:
            cls = getattr(importlib.import_module(f"pulumi_kubernetes.{python_group}.{version}"), name)
        except (ImportError, AttributeError):  # a CRD's kind: the generic class
            cls = importlib.import_module("pulumi_kubernetes.apiextensions").CustomResource
    else:
        cls = getattr(importlib.import_module(f"{_PACKAGES[package]}.{module.split('/')[0]}"), name)
    init = getattr(cls, "_internal_init", cls.__init__)
    return cls, frozenset(inspect.signature(init).parameters)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _typed_args(type_token: str, props: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The generated class of ``type_token`` and its keyword arguments for ``props``."""
    cls, params = _typed_class(type_token)
    kwargs = {_snake(k): v for k, v in props.items() if not (k in _K8S_ENVELOPE and "api_version" not in params)}
    if type_token.startswith(PROVIDER_PREFIX):  # the SDK sends a provider's non-string inputs as JSON
        kwargs = {k: _from_json(v) for k, v in kwargs.items()}
    unknown = set(kwargs) - params
    if unknown:
        raise TypeError(f"{cls.__name__} takes no {sorted(unknown)}")
    return cls, kwargs


def _from_json(value: Any) -> Any:
    try:
        decoded = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return value
    return value if isinstance(decoded, str) else decoded


def differences(original: Run, flat: Run) -> list[str]:
    """Where the flat run's custom registrations differ from the original's (empty: faithful)."""
    def key(r: Registration) -> tuple[str, str]:
        return r.type, r.name

    def names(run: Run, urns: list[str]) -> set[tuple[str, str]]:
        by_urn = run.by_urn()
        found: set[tuple[str, str]] = set()
        pending = list(urns)
        while pending:
            urn = pending.pop()
            r = by_urn.get(urn)
            if r is None:
                continue
            if r.custom:
                found.add(key(r))
            else:
                pending.extend(c.urn for c in run.children_of(urn))
        return found

    ours = {key(r): r for r in original.resources if r.custom}
    floor = {key(r): r for r in flat.resources if r.custom}
    problems = [f"missing from the flat run: {k}" for k in sorted(set(ours) - set(floor))]
    problems += [f"extra in the flat run: {k}" for k in sorted(set(floor) - set(ours))]
    for k in sorted(set(ours) & set(floor)):
        a, b = ours[k], floor[k]
        if a.wire != b.wire:
            problems.append(f"{k}: wire inputs differ")
        if names(original, a.dependencies) != names(flat, b.dependencies):
            problems.append(f"{k}: dependencies differ")
        if _prop_deps(original, a, names) != _prop_deps(flat, b, names):
            problems.append(f"{k}: property dependencies differ")
        if (a.ignore_changes, a.protect, bool(a.provider)) != (b.ignore_changes, b.protect, bool(b.provider)):
            problems.append(f"{k}: options differ")
    return problems


def _prop_deps(run: Run, r: Registration, names: Callable[[Run, list[str]], set]) -> dict[str, set]:
    """Property dependencies by resource name; the SDK sends every key, most with none."""
    return {p: found for p, urns in r.property_dependencies.items() if (found := names(run, urns))}
