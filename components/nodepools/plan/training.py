"""The plan's view of distributed training (docs/design.md section 9.3), read from the recorded run.

Per gpu-training pool: how its nodes are placed, the Kueue Topology its flavor points at (its
levels) and whether its gangs are provisioned atomically (and who serves the
ProvisioningRequests). Per multi-pod GPU training workload: its gang mechanism, the topology
its pod templates request and the pools it can land on. Everything comes from the
registered resources, as the pack reads them, so user-built pools and queues show too.
"""
from __future__ import annotations

from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory.gangs import NATIVE, gang_of, pod_group_policies, volcano_groups
from nodepools.inventory.kueue import KueueView, read_kueue
from nodepools.inventory.pools import PoolView, read_pool
from nodepools.inventory.values import is_unknown
from nodepools.plan.run import StackRun
from nodepools.policies.rules_workloads import gang_member
from nodepools.inventory.stack_model import WorkloadRef
from nodepools.policies.stack_view import StackView

PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
# At 1.36 the Workload API is alpha behind GenericWorkload: EKS and GKE standard clusters
# turn no alpha gate on (kubernetes/enhancements: keps/sig-scheduling/4671-gang-scheduling,
# alpha v1.35, beta v1.37; keps/sig-scheduling/5832-decouple-podgroup-api, alpha v1.36).
NATIVE_NOTE = ("The native scheduling group (scheduling.k8s.io Workload / PodGroup) is alpha in Kubernetes 1.36 "
               "(KEP-4671: alpha v1.35, beta v1.37; KEP-5832: alpha v1.36), behind the GenericWorkload feature gate, "
               "which EKS and GKE standard clusters do not turn on: the gang forms only on a cluster that serves it.")


# cmd/kueue/main.go@v0.19.2 sets up the ProvisioningRequest controller only if the API is served at start.
KUEUE_RESTART_NOTE = ("The ProvisioningRequest CRD is installed here but Kueue is not: Kueue enables its provisioning "
                      "admission check only if that API is served when it starts, so restart its controller "
                      "(kueue-controller-manager) once after the first `pulumi up`, or gangs wait for a check that "
                      "never turns Ready.")


def _installs_provisioning_crd(stack_run: StackRun) -> bool:
    return any(r.type == v.TYPE_CRD and (r.inputs.get("metadata") or {}).get("name") ==
               "provisioningrequests.autoscaling.x-k8s.io" for r in stack_run.run.resources)


def _installs_kueue(stack_run: StackRun) -> bool:
    return any(r.type == v.TYPE_HELM_RELEASE and "kueue" in str(r.inputs.get("chart", ""))
               for r in stack_run.run.resources)


def _placement(stack_run: StackRun, pool: PoolView) -> str:
    regs = stack_run.run.by_urn()
    reg = regs.get(pool.urn)
    if pool.type == v.TYPE_KARPENTER_NODE_POOL:
        return "spread (Karpenter launches its nodes without a placement group)"
    if reg is None:
        return "-"
    if pool.type == v.TYPE_GKE_NODE_POOL:
        compact = (reg.inputs.get("placementPolicy") or {}).get("type") == "COMPACT"
        default = "placementPolicy" in reg.ignore_changes
        what = "compact placement policy"
    else:
        siblings = [r for r in stack_run.run.resources if r.parent == reg.parent and r.parent]
        compact = any(r.type == "aws:ec2/placementGroup:PlacementGroup" for r in siblings)
        default = any(r.type == "aws:ec2/launchTemplate:LaunchTemplate" and "placement" in r.ignore_changes
                      for r in siblings)
        what = "cluster placement group"
    if not compact:
        return "spread"
    if default:
        return (f"compact ({what}; the default, set when the pool is created: a pool that already exists keeps "
                "its placement, set placement: compact to move it, which replaces it)")
    return f"compact ({what})"


def _flavors_of(kueue: KueueView, pool: PoolView) -> list[str]:
    """Flavors whose node labels the pool's nodes carry."""
    return sorted(name for name, flavor in kueue.flavors.items()
                  if isinstance(flavor.node_labels, dict) and flavor.node_labels and
                  all(pool.labels.get(k) == val for k, val in flavor.node_labels.items()))


def _topology(kueue: KueueView, flavors: list[str]) -> str:
    names = sorted({kueue.flavors[f].topology for f in flavors if isinstance(kueue.flavors[f].topology, str)})
    if not names:
        return "none (no flavor of this pool names a Topology)" if flavors else "none (no Kueue flavor)"
    out = []
    for name in names:
        levels = kueue.topologies.get(name)
        shown = " > ".join(levels) if isinstance(levels, tuple) else "levels not in the stack"
        out.append(f"Topology {name}: {shown}")
    return "; ".join(out)


def _atomic(kueue: KueueView, pool: PoolView, flavors: list[str]) -> str:
    for queue in sorted(kueue.cluster_queues):
        for flavor in flavors:
            for check in kueue.checks_on(queue, flavor):
                target = kueue.admission_checks.get(check)
                if isinstance(target, tuple) and target[0] == PROVISIONING_CONTROLLER:
                    klass = kueue.provisioning_classes.get(target[1], "its class is not in the stack")
                    return f"atomically (ClusterQueue {queue}: AdmissionCheck {check}, {klass})"
    if pool.type == v.TYPE_KARPENTER_NODE_POOL:
        return "as Karpenter buys nodes, not atomically (Karpenter serves no ProvisioningRequests)"
    return "one node at a time (no ProvisioningRequest admission check on its flavors)"


def _autoscaler(stack_run: StackRun, pools: list[PoolView]) -> str | None:
    for reg in stack_run.run.resources:
        if reg.type == v.TYPE_HELM_RELEASE and reg.inputs.get("chart") == "cluster-autoscaler":
            args = (reg.inputs.get("values") or {}).get("extraArgs") or {}
            flags = [f"--{k}={args[k]}" for k in ("enable-provisioning-requests", "kube-api-content-type") if k in args]
            return f"cluster-autoscaler runs with {' '.join(flags)}" if flags else \
                "cluster-autoscaler serves no ProvisioningRequests (--enable-provisioning-requests not set)"
    if any(p.type == v.TYPE_GKE_NODE_POOL for p in pools):
        return "GKE's built-in autoscaler serves ProvisioningRequests (no flag to set)"
    return None


def _request(ref: WorkloadRef) -> str:
    asked = []
    for template in ref.workload.templates:
        if is_unknown(template.annotations):
            asked.append("unknown")
            continue
        for key in (v.ANNOTATION_KUEUE_REQUIRED_TOPOLOGY, v.ANNOTATION_KUEUE_PREFERRED_TOPOLOGY):
            value = template.annotations.get(key)
            if value is not None:
                kind = "required" if key == v.ANNOTATION_KUEUE_REQUIRED_TOPOLOGY else "preferred"
                asked.append(f"{kind} {value}" + (f" ({template.role})" if template.role else ""))
    return ", ".join(asked) or "none"


def training_report(stack_run: StackRun, stack: StackView) -> dict[str, Any]:
    """The training section of ``stack_run``, whose stack model (``plan.model.plan_view``) is ``stack``."""
    resources = list(stack.resources)
    kueue = read_kueue(resources)
    pools = [p for p in (read_pool(r.type, r.props, r.urn, r.name) for r in resources) if p is not None
             and p.pool_class is v.PoolClass.GPU_TRAINING]
    rows = []
    for pool in pools:
        flavors = _flavors_of(kueue, pool)
        rows.append({"pool": pool.name, "placement": _placement(stack_run, pool), "flavors": flavors,
                     "topology": _topology(kueue, flavors), "gangs": _atomic(kueue, pool, flavors)})
    reachable = {s.workload.urn: list(s.reachable) for s in stack.report.summaries}
    groups, volcano = pod_group_policies(resources), volcano_groups(resources)
    workloads = []
    for ref in stack.workloads:
        pods = ref.workload.gang_pods
        if gang_member(ref, stack.dra) is False or is_unknown(pods) or pods <= 1:
            continue
        gang = gang_of(ref.workload, groups, volcano)
        mechanism = "unknown at preview" if is_unknown(gang.mechanism) else (gang.mechanism or "none")
        workloads.append({"workload": f"{ref.workload.kind} {ref.namespace}/{ref.workload.name}", "pods": pods,
                          "gang": mechanism + (f" ({gang.detail})" if gang.detail else ""),
                          "topology_request": _request(ref),
                          "lands_on": reachable.get(ref.res.urn, [])})
    autoscaler = _autoscaler(stack_run, pools)
    notes = [NATIVE_NOTE] if any(w["gang"].startswith(NATIVE) for w in workloads) else []
    if _installs_provisioning_crd(stack_run) and not _installs_kueue(stack_run):
        notes.append(KUEUE_RESTART_NOTE)
    return {"pools": rows, "autoscaler": autoscaler, "workloads": workloads, "notes": notes,
            "text": _text(rows, autoscaler, workloads, notes)}


def _text(rows: list[dict[str, Any]], autoscaler: str | None, workloads: list[dict[str, Any]],
          notes: list[str]) -> list[str]:
    if not rows and not workloads:
        return []
    out = ["Training (gpu-training pools and multi-pod GPU workloads):"]
    for row in rows:
        out += [f"  pool {row['pool']}: placement {row['placement']}", f"    topology: {row['topology']}",
                f"    gangs provisioned {row['gangs']}"]
    if autoscaler and rows:
        out.append(f"  autoscaler: {autoscaler}")
    for w in workloads:
        out.append(f"  {w['workload']} ({w['pods']:g} pods): gang {w['gang']}; topology request "
                   f"{w['topology_request']}; lands on {', '.join(w['lands_on']) or 'no pool'}")
    out += [f"  note: {n}" for n in notes]
    return out
