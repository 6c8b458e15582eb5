"""Mocks for your own unit tests of a stack that uses nodepools.

Pulumi's unit tests replace the engine with ``pulumi.runtime.set_mocks``; the
usual mocks return a resource's inputs as its outputs, so everything only a
cloud computes is missing: auto-names, ARNs, the EKS cluster security group and
OIDC issuer, the node group's Auto Scaling group name. ``NodepoolsMocks`` fills
exactly the outputs the components read (``nodepools.offline.fakes``), so a test
is one import away::

    import pulumi
    from nodepools.testing import NodepoolsMocks

    pulumi.runtime.set_mocks(NodepoolsMocks(), preview=False)   # before importing the program
    import my_stack

    @pulumi.runtime.test
    def test_training_nodes_are_spot():
        group = my_stack.platform.pools["training"].registered.resource
        return group.capacity_type.apply(lambda capacity: assert_equal(capacity, "SPOT"))

Works in both modes: with ``preview=True`` it answers as a real preview does, the
inputs alone: a new resource's id, auto-names and every computed output (nested ones
such as a Kubernetes object's ``metadata.uid`` included) are unknown. Subclass and override ``outputs`` to add your own. Mocks that return
inputs alone leave out what only a cloud computes; the components then stop with an
error naming the missing value (they never build, say, an IAM role that trusts nobody).
"""
from __future__ import annotations

from typing import Any, Mapping

import pulumi

from nodepools.offline.fakes import fake_outputs, preview_outputs

__all__ = ["STACK_REFERENCE", "NodepoolsMocks", "set_mocks"]


STACK_REFERENCE = "pulumi:pulumi:StackReference"


class NodepoolsMocks(pulumi.runtime.Mocks):
    """During an update, outputs = inputs + an auto-name (``name``, the resource's own name,
    when not given) + the computed outputs nodepools' components read; during a preview, the
    inputs with everything else unknown (``nodepools.offline.fakes``). Invokes return ``{}``.

    ``stack_outputs`` maps a stack name (``org/project/stack``) to the outputs a
    ``StackReference`` of that stack returns (whatever the reference's own resource name), e.g.
    a platform's ``pools`` for ``pool_contract``."""

    def __init__(self, stack_outputs: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.stack_outputs = {name: dict(outputs) for name, outputs in (stack_outputs or {}).items()}

    def outputs(self, type_: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        if type_ == STACK_REFERENCE:
            return {**inputs, "outputs": self.stack_outputs.get(inputs.get("name", name), {}), "secretOutputNames": []}
        if pulumi.runtime.is_dry_run():
            return preview_outputs(type_, name, inputs)
        state = {"name": name, **inputs}
        state.update(fake_outputs(type_, name, inputs))
        return state

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        # A preview creates nothing: a new resource's id is unknown (the empty id a provider's
        # preview answers); a read keeps the id it asked for.
        created = "" if pulumi.runtime.is_dry_run() else f"{args.name}-id"
        return args.resource_id or created, self.outputs(args.typ, args.name, dict(args.inputs))

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        return {}


def set_mocks(*, preview: bool = False, project: str = "project", stack: str = "stack",
              mocks: NodepoolsMocks | None = None) -> NodepoolsMocks:
    """``pulumi.runtime.set_mocks`` with ``NodepoolsMocks`` (default: an update, not a preview)."""
    mocks = mocks or NodepoolsMocks()
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=preview)
    return mocks
