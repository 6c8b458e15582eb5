"""What the pack benchmarks share: recorded stacks, pack processes, timed preview passes, Checkov.

A pass is what the engine sends in one preview: ``Analyze`` for every resource, then
one ``AnalyzeStack``. The requests are built once per stack, before any clock starts,
so a pass times the pack (and gRPC), not the client building protobufs. Each pack is
a process started by ``nodepools.offline.analyzer.PolicyPackRunner`` as the engine
starts it, with the pack's modules byte-compiled as a pip install leaves them.

The floor (``bench/noop_pack``): pulumi_policy serving two no-op policies, one resource
and one stack policy, that only read each resource's properties: the cost of getting
every resource to a policy at all, with the SDK the engine is used to.

Checkov (``NODEPOOLS_BENCH_CHECKOV``, default ``.bench-venv/bin/checkov``; never the
project's virtualenv) scans the same workloads written as Kubernetes YAML, one file
each, in one ``checkov -d`` process: a pipeline user's alternative, whole process.
"""
from __future__ import annotations

import os
import subprocess
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from bench.measure import ROOT

PACK_DIR = ROOT / "policy"
NOOP_PACK = ROOT / "bench" / "noop_pack"
GC_DEFAULT = ROOT / "bench" / "gc_default"  # a sitecustomize that keeps the pack from tuning the collector
CHECKOV = Path(os.environ.get("NODEPOOLS_BENCH_CHECKOV", ROOT / ".bench-venv" / "bin" / "checkov"))
WORKLOAD_TYPE_PREFIXES = ("kubernetes:apps/", "kubernetes:batch/", "kubernetes:core/v1:Pod")
FLOOR = "1,1"  # bench/noop_pack: one resource and one stack policy


@dataclass(frozen=True)
class Recorded:
    """A recorded stack and the engine's requests for it."""

    resources: list[Any]  # Registration (the recorded run) or Resource (a copied pool)
    analyze: list[Any]  # AnalyzeRequest per resource
    stack: Any  # AnalyzeStackRequest


def record(workloads: int, pools: int = 4) -> Recorded:
    """The stack of ``workloads`` on ``pools`` pools of one cluster. A platform holds at most
    50 pools (``PlatformArgs``); beyond 48 the node groups are copied under new names with
    their autoscaler tags, as another program could register them in the same cluster."""
    from bench.workloads import workloads_program
    from nodepools.offline.analyzer_wire import analyze_requests, stack_request
    from nodepools.offline.engine import run_program

    run = run_program(workloads_program(workloads, min(pools, PLATFORM_POOLS)), stack="bench")
    resources: list[Any] = list(run.resources)
    resources += _copied_pools(resources, pools - min(pools, PLATFORM_POOLS))
    return Recorded(resources, analyze_requests(resources), stack_request(resources))


PLATFORM_POOLS = 48
NODE_GROUP, ASG_TAG = "aws:eks/nodeGroup:NodeGroup", "aws:autoscaling/tag:Tag"


def _copied_pools(resources: list[Any], count: int) -> list[Any]:
    from google.protobuf import json_format

    from nodepools import vocabulary as v
    from nodepools.inventory.resource import Resource

    groups = [r for r in resources if r.type == NODE_GROUP]
    out = []
    for i in range(count):
        group = groups[i % len(groups)]
        suffix = f"-copy{i}"
        props = json_format.MessageToDict(group.wire)
        pool = props["labels"][v.LABEL_POOL] + suffix
        props["labels"][v.LABEL_POOL] = props.get("tags", {})[v.LABEL_POOL] = pool
        new_urn = group.urn + suffix
        out.append(Resource.of(group.type, group.name + suffix, props, urn=new_urn, parent=group.parent,
                               dependencies=group.dependencies, property_dependencies=group.property_dependencies))
        for tag in (r for r in resources if r.type == ASG_TAG and group.urn in r.dependencies):
            remap = lambda urns: tuple(new_urn if u == group.urn else u for u in urns)  # noqa: E731
            out.append(Resource.of(tag.type, tag.name + suffix, json_format.MessageToDict(tag.wire),
                                   urn=tag.urn + suffix, parent=tag.parent, dependencies=remap(tag.dependencies),
                                   property_dependencies={k: remap(us) for k, us in tag.property_dependencies.items()}))
    return out


@contextmanager
def pack_env(noop: str = FLOOR, gc_default: bool = False, pythonpath: str = "") -> Iterator[None]:
    """The environment a pack process starts in, restored when the process is started."""
    paths = [str(GC_DEFAULT)] if gc_default else []
    paths += [pythonpath] if pythonpath else []
    # NODEPOOLS_BENCH_NOOP is read by bench/noop_pack at start-up. Byte-compiled modules, as a
    # pip install leaves them, whatever this shell says (an empty value unsets the flag).
    extra = {"NODEPOOLS_BENCH_NOOP": noop, "PYTHONDONTWRITEBYTECODE": ""}
    if paths:
        extra["PYTHONPATH"] = os.pathsep.join(filter(None, [*paths, os.environ.get("PYTHONPATH")]))
    previous = {key: os.environ.get(key) for key in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key)
            else:
                os.environ[key] = value


def start(stack: ExitStack, pack_dir: Path, noop: str = FLOOR, gc_default: bool = False, pythonpath: str = ""):
    """A started runner configured with every policy's defaults, closed with ``stack``."""
    from nodepools.offline.analyzer import PolicyPackRunner

    with pack_env(noop, gc_default, pythonpath):
        runner = stack.enter_context(PolicyPackRunner(pack_dir=pack_dir, stack="bench"))
    runner.configure()
    return runner


def one_pass(runner, recorded: Recorded) -> tuple[float, list[Any]]:
    """(wall seconds, every diagnostic) of one preview pass."""
    begin = time.perf_counter()
    diagnostics = [d for request in recorded.analyze for d in runner.call("Analyze", request).diagnostics]
    diagnostics += runner.call("AnalyzeStack", recorded.stack).diagnostics
    return time.perf_counter() - begin, diagnostics


def peak_rss_kib(runner) -> int:
    """The pack process's peak RSS (VmHWM), read before it exits."""
    status = Path(f"/proc/{runner._process.pid}/status").read_text()  # noqa: SLF001 - the runner owns the process
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


def write_manifests(resources, directory: Path) -> int:
    """Each workload as the YAML manifest pulumi-kubernetes would apply; returns the count."""
    import yaml
    from google.protobuf import json_format

    def ints(value):  # the wire carries every number as a float; a manifest writes 2, not 2.0
        if isinstance(value, dict):
            return {k: ints(v) for k, v in value.items()}
        if isinstance(value, list):
            return [ints(v) for v in value]
        return int(value) if isinstance(value, float) and value.is_integer() else value

    directory.mkdir(parents=True, exist_ok=True)
    count = 0
    for r in resources:
        if not r.type.startswith(WORKLOAD_TYPE_PREFIXES):
            continue
        group_version, kind = r.type.split(":")[1:]
        props = json_format.MessageToDict(r.wire) if hasattr(r, "wire") else r.props
        doc = {"apiVersion": group_version.removeprefix("core/"), "kind": kind, **ints(props)}
        (directory / f"{count:05d}-{r.name}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
        count += 1
    return count


def checkov_seconds(directory: Path) -> float:
    """Wall time of one ``checkov -d`` scan of ``directory`` (a failed scan is an error)."""
    begin = time.perf_counter()
    done = subprocess.run([str(CHECKOV), "-d", str(directory), "--framework", "kubernetes", "--quiet", "--compact",
                           "--output", "json", "--skip-download"], capture_output=True, text=True,
                          env={**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"})
    elapsed = time.perf_counter() - begin
    if done.returncode not in (0, 1):  # 1 = findings
        raise RuntimeError(f"checkov failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def checkov_skipped(quick: bool) -> str:
    """Why Checkov is not run ("" when it is)."""
    if quick:
        return "--quick"
    return "" if CHECKOV.is_file() else f"not installed at {CHECKOV}"
