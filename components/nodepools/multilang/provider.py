"""The ``nodepools`` component provider: what ``pulumi package add`` runs (see ``__main__.py``).

``ComponentProvider`` (``pulumi.provider.experimental``) infers the schema from
the components' annotations and constructs them. Two changes: unknown input
names are refused (``nodepools.multilang.unknown``) rather than dropped; outputs and
unknowns pass only where the component takes outputs (``nodepools.multilang.deferred``); and,
as the host wraps every exception of a component's constructor as a generic init
error the engine prints as a traceback, input problems are re-raised as the
``InputPropertiesError`` they are, so the engine reports each input's path and reason.
"""
import json
import re
import sys
from typing import Any, Optional

from pulumi import Inputs, ResourceOptions
from pulumi.errors import InputPropertiesError
from pulumi.provider import ConstructResult, main
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError

from nodepools.multilang.defaults import with_defaults
from nodepools.multilang.deferred import deferred_inputs, output_fields
from nodepools.multilang.eks import EksPlatform, EksPlatformArgs
from nodepools.multilang.gke import GkePlatform, GkePlatformArgs
from nodepools.multilang.names import invalid_inputs
from nodepools.multilang.unknown import unknown_inputs

PACKAGE = "nodepools"
COMPONENTS = [EksPlatform, GkePlatform]
ARGS = {"EksPlatform": EksPlatformArgs, "GkePlatform": GkePlatformArgs}


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "0.0.0"


class NodepoolsProvider(ComponentProvider):
    def __init__(self, version: Optional[str] = None) -> None:
        super().__init__(list(COMPONENTS), PACKAGE, version=version or package_version())
        self.schema = json.dumps(with_defaults(_unwrapped(json.loads(self.schema))))

    def construct(self, name: str, resource_type: str, inputs: Inputs,
                  options: Optional[ResourceOptions] = None) -> ConstructResult:
        self.validate_resource_type(self._name, resource_type)
        component = resource_type.rsplit(":", maxsplit=1)[-1]
        definition = self._component_defs[component]
        unknown = unknown_inputs(dict(inputs), definition.inputs, self.get_type_definition)
        if unknown:
            raise invalid_inputs(component, unknown)
        inputs, deferred = deferred_inputs(dict(inputs), definition.inputs, self.get_type_definition,
                                           output_fields(ARGS[component], definition.inputs_mapping))
        if deferred:
            raise invalid_inputs(component, deferred)
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as err:
            if isinstance(err.inner, InputPropertiesError):
                raise err.inner from None
            raise


def _unwrapped(node: Any) -> Any:
    """Descriptions come from docstrings wrapped at the source's line length: one line each."""
    if isinstance(node, dict):
        return {k: re.sub(r"\s*\n\s*", " ", v).strip() if k == "description" and isinstance(v, str)
                else _unwrapped(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_unwrapped(v) for v in node]
    return node


def serve(args: Optional[list[str]] = None) -> None:
    """Serve the provider to the engine (the language host passes the engine's address in ``argv``)."""
    main(NodepoolsProvider(), sys.argv[1:] if args is None else args)
