"""Does a pod request a GPU? The one answer every rule and the placement analysis use
(docs/design.md section 6, "GPU request").

A pod requests a GPU when any container, init containers included, requests or
limits ``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` or a ``nvidia.com/mig-<profile>``
resource, or when it references a DRA claim whose device class is a GPU class
(section 7). ``requests_gpu`` is the entry point; ``claims_gpu`` asks the DRA readers.
"""
from __future__ import annotations

from typing import Any

from nodepools.inventory import dra
from nodepools.inventory.podspec import CONTAINER_LISTS, container_list
from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.tri import Tri, or3
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown
from nodepools.vocabulary import GPU_RESOURCE, GPU_SHARED_RESOURCE, MIG_RESOURCE_PREFIX


def is_gpu_resource(name: Any) -> bool:
    """``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` or ``nvidia.com/mig-<profile>``."""
    return isinstance(name, str) and (name in (GPU_RESOURCE, GPU_SHARED_RESOURCE) or
                                      (name.startswith(MIG_RESOURCE_PREFIX) and len(name) > len(MIG_RESOURCE_PREFIX)))


def _block_gpu(block: Any) -> Tri:
    """A requests or limits map asks for more than zero of some GPU resource."""
    if is_unknown(block):
        return UNKNOWN
    answers = []
    for name, quantity in as_dict(block).items():
        if not is_gpu_resource(name):
            continue
        value = UNKNOWN if is_unknown(quantity) else try_quantity(quantity)
        answers.append(value if is_unknown(value) else bool(value and value > 0))
    return or3(answers)


def _container_gpu(container: dict) -> Tri:
    resources = container.get("resources")
    if is_unknown(resources):
        return UNKNOWN
    return or3(_block_gpu(as_dict(resources).get(k)) for k in ("requests", "limits"))


def containers_request_gpu(spec: Any) -> Tri:
    """Some container (init included) requests or limits a GPU resource; a definite
    request decides even when another container is unknown at preview."""
    if is_unknown(spec):
        return UNKNOWN
    answers: list[Tri] = []
    for key in CONTAINER_LISTS:
        entries = container_list(spec, key)
        if is_unknown(entries):
            # Read the known entries anyway: one of them may settle it.
            raw = dig(spec, key)
            entries = [] if is_unknown(raw) else [(i, c) for i, c in enumerate(raw or []) if isinstance(c, dict)]
            answers.append(UNKNOWN)
        answers += [_container_gpu(c) for _, c in entries]
    return or3(answers)


def claims_gpu(spec: Any) -> Tri:
    """The pod references a DRA claim (``spec.resourceClaims``) whose device class is a
    GPU class (``nodepools.inventory.dra``: the stack's claims, templates and classes)."""
    return dra.claims_gpu(spec)


def requests_gpu(spec: Any) -> Tri:
    """True / False / UNKNOWN: the pod requests a GPU in any form of section 6."""
    return or3((containers_request_gpu(spec), claims_gpu(spec)))
