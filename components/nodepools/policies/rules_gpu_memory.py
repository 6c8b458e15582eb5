"""``gpu-memory-fit`` (docs/design.md section 7): a GPU workload declaring its model's
memory reaches a pool whose GPUs (or MIG slices) hold it, and not only pools four
times larger than it needs."""
from __future__ import annotations

from typing import Iterator

from nodepools import vocabulary as v
from nodepools.inventory.values import is_unknown
from nodepools.placement.gpu_fit import OVERSIZE_FACTOR, OVERSIZED, TOO_SMALL, gpu_fits
from nodepools.policies.base import Finding, one_per_resource, unknown
from nodepools.policies.podpaths import NODE_AGENT_KINDS, meta_path, subject
from nodepools.policies.settings import Settings
from nodepools.policies.stack_view import StackView

_KEY = v.ANNOTATION_MODEL_MEMORY_GIB


@one_per_resource
def check_gpu_memory_fit(stack: StackView, settings: Settings) -> Iterator[Finding]:
    refs = {ref.workload.urn: ref for ref in stack.workloads}
    for fit in gpu_fits(stack.report):
        ref = refs.get(fit.workload.urn)
        if ref is None or fit.declared is None or ref.workload.kind in NODE_AGENT_KINDS:
            continue
        who = subject(ref)
        path = f"{meta_path(ref.workload, fit.template)}.annotations['{_KEY}']"
        if is_unknown(fit.declared):
            yield unknown(ref.res.urn, who, path, ref.namespace)
            continue
        declared = fit.declared_gib
        if declared is None:
            yield Finding(ref.res.urn, who, path, f"{fit.declared!r} is not a positive number of GiB",
                          f"set {_KEY} to the model's GPU memory in GiB, e.g. \"16\"", ref.namespace)
            continue
        pools = ", ".join(p.describe() for p in fit.pools)
        if fit.problem == TOO_SMALL:
            yield Finding(ref.res.urn, who, path, f"the model needs {declared:g} GiB of GPU memory but the workload "
                          f"reaches only pools with less per GPU request: {pools}; it will run out of memory",
                          f"select a pool whose GPU (or MIG slice) has at least {declared:g} GiB", ref.namespace)
        elif fit.problem == OVERSIZED:
            yield Finding(ref.res.urn, who, path, f"the model needs {declared:g} GiB of GPU memory but the workload "
                          f"reaches only pools with more than {OVERSIZE_FACTOR}x that per GPU request: {pools}",
                          f"select a smaller GPU, a time-sliced pool or a MIG slice of at least {declared:g} GiB",
                          ref.namespace)
