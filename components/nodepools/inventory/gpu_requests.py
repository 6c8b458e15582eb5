"""Does a pod request a GPU? The one answer every rule and the placement analysis use
(docs/design.md section 6, "GPU request").

A pod requests a GPU when any container, init containers included, requests or
limits ``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` or a ``nvidia.com/mig-<profile>``
resource, or when it references a DRA claim whose device class is a GPU class
(section 7). ``requests_gpu`` is the entry point; the claims are judged against the
stack's ``DraIndex`` (``nodepools.inventory.dra``), which the caller passes. The resource
names are ``vocabulary.is_gpu_resource``, the one definition the offer side
(``nodepools.inventory.gpu_offer``) uses too.
"""
from __future__ import annotations

from typing import Any

from nodepools.inventory.dra import DraIndex, claims_gpu
from nodepools.inventory.podspec import CONTAINER_LISTS, container_list
from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.tri import Tri, or3
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown
from nodepools.vocabulary import is_gpu_resource


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


def requests_gpu(spec: Any, dra: DraIndex) -> Tri:
    """True / False / UNKNOWN: the pod requests a GPU in any form of section 6; its DRA
    claims (``spec.resourceClaims``) are looked up in ``dra``, the stack's index."""
    return or3((containers_request_gpu(spec), claims_gpu(spec, dra)))
