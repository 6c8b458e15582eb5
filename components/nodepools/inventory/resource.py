"""One resource of a stack, as every reader of the stack sees it: the one record.

The pack reads it off the Analyzer wire (``nodepools.pack.wire``), the plan off its recorded
run (``nodepools.plan.model``), tests and other teams build it by hand (``Resource.of``); the
offline Analyzer client (``nodepools.offline.analyzer``) turns it back into the wire. Everything
above ``inventory`` (placement, the policies, the plan) reads this record and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from nodepools.inventory.values import UNKNOWN, as_dict, is_unknown, plain


def urn_for(type_: str, name: str, *, project: str = "nodepools", stack: str = "dev", parent_type: str = "") -> str:
    """A URN as the engine builds it (``urn:pulumi:<stack>::<project>::[<parent type>$]<type>::<name>``)."""
    qualified = f"{parent_type}${type_}" if parent_type else type_
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


@dataclass(frozen=True)
class Resource:
    """One resource: its inputs as plain data (dicts, lists, floats, strings, bools, None;
    ``UNKNOWN`` where preview cannot know), and its links by URN as the engine records them."""

    type: str
    urn: str
    name: str
    props: dict[str, Any]
    parent: str = ""  # the parent's URN ("" for none, or when the parent is not in the stack's request)
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    provider: str = ""  # the provider resource's URN ("" when none is recorded)

    @classmethod
    def of(cls, type_: str, name: str, props: Any, *, urn: str = "", parent: str = "",
           dependencies: Iterable[str] = (), property_dependencies: Mapping[str, Iterable[str]] | None = None,
           provider: str = "") -> "Resource":
        """A resource built by hand: ``props`` in any shape ``values.plain`` reads (the engine's
        unknown sentinels included), the URN the engine would give it unless ``urn`` is given."""
        return cls(type_, urn or urn_for(type_, name), name, as_dict(plain(props)), parent, tuple(dependencies),
                   {k: tuple(v) for k, v in (property_dependencies or {}).items()}, provider)

    def depends_on(self, urn: str, *props: str) -> bool:
        """True when ``urn`` flows into this resource: through one of ``props``
        (property dependencies) or, when none is named, through any dependency."""
        if props:
            return any(urn in self.property_dependencies.get(p, ()) for p in props)
        return urn in self.dependencies or any(urn in deps for deps in self.property_dependencies.values())

    @property
    def k8s_name(self) -> Any:
        """``metadata.name``; ``UNKNOWN`` when absent (pulumi-kubernetes then auto-names it
        with a random suffix, so the real name is not known before the update)."""
        meta = self.props.get("metadata")
        name = as_dict(meta).get("name")
        return name if isinstance(name, str) else UNKNOWN

    @property
    def k8s_namespace(self) -> Any:
        """``metadata.namespace`` ("default" when absent), or ``UNKNOWN``. The namespace the
        stack puts it in, dependencies followed, is ``StackModel.namespace_of``'s answer."""
        meta = self.props.get("metadata")
        if is_unknown(meta):
            return UNKNOWN
        namespace = as_dict(meta).get("namespace")
        return UNKNOWN if is_unknown(namespace) else (namespace or "default")
