"""Drive the component provider's construct path under Pulumi's mock engine.

``ProviderServicer.Construct`` (the gRPC method the engine calls) first points the
SDK at the engine's monitor address; offline there is no such server, so
``construct`` below runs every other step of ``ProviderServicer._construct`` in a
program under the recording mock monitor (``nodepools.offline.engine``): the wire
``Struct`` a TypeScript program sends (camelCase keys, numbers as doubles, the
Kubernetes provider as a resource reference with its dependency) is turned into
inputs by the server's own ``_construct_inputs``, options by ``_construct_options``,
the provider constructs, and ``_construct_response`` serialises the state the
TypeScript program gets back. ``test_grpc_construct`` covers the rest once: the
plugin process, its ``Construct`` over gRPC, registrations over gRPC.
"""
import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import pulumi
import pulumi_kubernetes as k8s
from google.protobuf import json_format
from pulumi.provider.server import ProviderServicer
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2 as proto

from nodepools.multilang.provider import NodepoolsProvider
from nodepools.offline.engine import Registration, Run, run_program_capture

KUBECONFIG = "fake"


@dataclass
class Constructed:
    run: Run
    error: Optional[BaseException]
    state: dict[str, Any] = field(default_factory=dict)
    urn: str = ""


def construct(component: str, wire: dict[str, Any], name: str = "p", preview: bool = True,
              program: Optional[Callable[[], dict[str, Any]]] = None,
              providers: Optional[Callable[[], dict[str, pulumi.ProviderResource]]] = None,
              received: Optional[Callable[[dict[str, Any]], None]] = None) -> Constructed:
    """Construct ``nodepools:index:<component>`` from ``wire`` (the program's inputs
    without the Kubernetes provider, which is added as a reference to ``k8s``).
    ``program`` runs first, as the rest of the consuming program, and returns more
    inputs (e.g. other resources' outputs): they travel with their dependencies
    (``inputDependencies``; unknown during a preview), as an SDK sends them.
    ``providers`` makes the program's providers, passed as the ``providers`` option. ``received``
    edits the inputs as the provider's host deserialised them: an engine that supports output
    values sends each nested output in its place (the mock monitor does not: an SDK then sends
    the whole top-level input as one output), so ``received`` puts it there. ``program``
    may return its own ``kubernetesProvider`` (anything a caller might send in its place)."""
    provider = NodepoolsProvider()
    out: dict[str, Any] = {}

    async def send(inputs: dict[str, Any], option_providers: dict[str, pulumi.ProviderResource]) -> None:
        try:
            refs = {pkg: f"{await p.urn.future()}::{await p.id.future()}" for pkg, p in option_providers.items()}
            property_deps: dict[str, list[pulumi.Resource]] = {}
            struct = await rpc.serialize_properties(inputs, property_deps, keep_output_values=True)
            dependencies = {key: proto.ConstructRequest.PropertyDependencies(
                urns=[await r.urn.future() for r in resources]) for key, resources in property_deps.items()}
            request = proto.ConstructRequest(type=f"nodepools:index:{component}", name=name, inputs=struct,
                                             dryRun=preview, inputDependencies=dependencies, providers=refs)
            inputs = await ProviderServicer._construct_inputs(request.inputs, request.inputDependencies)
            if received is not None:
                received(inputs)
            result = provider.construct(request.name, request.type, inputs,
                                        ProviderServicer._construct_options(request))
            response = await ProviderServicer._construct_response(None, result)  # type: ignore[arg-type]
            out["urn"] = response.urn
            out["state"] = rpc.deserialize_properties(response.state, keep_unknowns=True)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    def consumer() -> None:
        extra = program() if program is not None else {}
        k8s_provider = k8s.Provider("k8s", kubeconfig=KUBECONFIG)
        asyncio.ensure_future(send({**wire, "kubernetesProvider": k8s_provider, **extra},
                                   providers() if providers is not None else {}))

    run, error = run_program_capture(consumer, preview=preview)
    return Constructed(run, out.get("error", error), out.get("state", {}), out.get("urn", ""))


def python_api(build, preview: bool = True) -> Run:
    """The Python API's run: ``build(k8s_provider)`` registers the platform."""
    run, error = run_program_capture(lambda: build(k8s.Provider("k8s", kubeconfig=KUBECONFIG)), preview=preview)
    if error is not None:
        raise error
    return run


def as_python_api(run: Run, wrapper_type: str) -> dict[str, tuple]:
    """Every registration of ``run`` keyed by URN, with the wrapper component left
    out: its type dropped from the children's URNs, parents and dependencies, its
    own URN replaced by its parent's (as if the Platform were created in its place)."""
    prefix = f"{wrapper_type}$"
    wrappers = {r.urn: r.parent for r in run.resources if r.type == wrapper_type}

    def strip(urn: str) -> str:
        return wrappers.get(urn, urn.replace(prefix, ""))

    def row(r: Registration) -> tuple:
        # The wire form: unknowns compare as the engine's sentinel, not as objects.
        return (r.type, strip(r.parent), json_format.MessageToDict(r.wire), r.provider and strip(r.provider), sorted(map(strip, r.dependencies)),
                {k: sorted(map(strip, v)) for k, v in r.property_dependencies.items()}, r.ignore_changes)
    return {strip(r.urn): row(r) for r in run.resources if r.type != wrapper_type}
