"""Safe updates: editing one pool touches that pool in place and nothing else.

An update is compared with the run before it registration by registration (by
URN): which resources appear or disappear, and which input paths change. A
replacement needs a changed URN, a changed replace-on-change input, or a changed
option; none may happen to the cluster's other pools, and the edited pool may
change only fields its provider updates in place.
"""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nodepools import vocabulary as v
from nodepools.offline.engine import run_program

from reliability_programs import eks_program, gke_program
from urn_identity import alias_urns
from wire_diff import RunDiff, diff

HERE = Path(__file__).parent
PINNED = HERE / "pinned_urns.json"
PROGRAMS = {"eks": eks_program, "gke": gke_program}
NG, NP, TAG = v.TYPE_EKS_NODE_GROUP, v.TYPE_GKE_NODE_POOL, v.TYPE_ASG_TAG
QUOTA, FLAVOR = v.TYPE_RESOURCE_QUOTA, v.TYPE_KUEUE_RESOURCE_FLAVOR

SIZE = {"web": {"min_nodes": 3, "max_nodes": 8}}
LABELS = {"jobs": {"labels": {"team": "ml"}}}
TAINTS = {"jobs": {"taints": [{"key": "example.com/dedicated", "value": "etl"}]}}
REPAIR_OFF = {"infer": {"repair": {"mode": "off"}}}
WARM = {"infer": {"warm": {"replicas": 1}}}
PC, NS = v.TYPE_PRIORITY_CLASS, v.TYPE_NAMESPACE

# The exact consequence of each edit. EKS updates a node group's scalingConfig,
# labels and taints in place (UpdateNodegroupConfig); GKE a node pool's autoscaling,
# labels and taints. The batch quota follows the resident and batch pools'
# capacity, the Kueue flavor of a pool its taints: both Kubernetes objects, patched.
EXPECTED = {
    ("eks", "size"): RunDiff(changed={
        (NG, "p-web"): {"scalingConfig.minSize", "scalingConfig.maxSize", "scalingConfig.desiredSize"},
        (QUOTA, "p-guardrails-quota-batch-nodepools-quota"): {"spec.hard.requests.cpu", "spec.hard.requests.memory"}}),
    ("eks", "labels"): RunDiff(added=[(TAG, "p-jobs-ca-label-team")], changed={(NG, "p-jobs"): {"labels.team"}}),
    ("eks", "taints"): RunDiff(added=[(TAG, "p-jobs-ca-taint-example.com/dedicated")], changed={
        (NG, "p-jobs"): {"taints"}, (FLAVOR, "p-guardrails-flavor-jobs"): {"spec.tolerations"}}),
    ("gke", "size"): RunDiff(changed={
        (NP, "p-web"): {"autoscaling.totalMinNodeCount", "autoscaling.totalMaxNodeCount", "initialNodeCount"},
        (QUOTA, "p-guardrails-quota-batch-nodepools-quota"): {"spec.hard.requests.cpu", "spec.hard.requests.memory"}}),
    ("gke", "labels"): RunDiff(changed={(NP, "p-jobs"): {"nodeConfig.labels.team"}}),
    ("gke", "taints"): RunDiff(changed={
        (NP, "p-jobs"): {"nodeConfig.taints"}, (FLAVOR, "p-guardrails-flavor-jobs"): {"spec.tolerations"}}),
    # Repair is updated in place on both clouds (EKS UpdateNodegroupConfig, GKE setManagement: section 9.5).
    ("eks", "repair-off"): RunDiff(changed={(NG, "p-infer"): {"nodeRepairConfig.enabled"}}),
    ("gke", "repair-off"): RunDiff(changed={(NP, "p-infer"): {"management.autoRepair"}}),
    # Warm capacity only adds objects and turns on the autoscaler's buffer controller (the reference
    # platform's 1.35: cluster-autoscaler v1.35.2 serves CapacityBuffers): no pool changes.
    ("eks", "warm"): RunDiff(added=[
        ("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "p-guardrails-crd-capacitybuffers"),
        ("kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer", "p-guardrails-warm-buffer-infer"),
        (NS, "p-guardrails-ns-warm"), ("kubernetes:core/v1:PodTemplate", "p-guardrails-warm-template-infer"),
        (QUOTA, "p-guardrails-quota-warm"), (PC, "p-guardrails-pc-nodepools-overprovisioning")],
        changed={("kubernetes:helm.sh/v3:Release", "p-guardrails-cluster-autoscaler"): {
            "values.rbac.additionalRules", "values.extraArgs.capacity-buffer-pod-injection-enabled",
            "values.extraArgs.capacity-buffer-controller-enabled"}}),
}
EDITS = {"size": SIZE, "labels": LABELS, "taints": TAINTS, "repair-off": REPAIR_OFF, "warm": WARM}
# What the autoscaler owns. GKE would even recreate a pool whose initialNodeCount changed.
IGNORED = {NG: ["scalingConfig.desiredSize"], NP: ["initialNodeCount", "nodeCount"]}
# The training pool's default compact placement is set at creation only (test_training_defaults_update.py).
CREATION_ONLY = {NG: ["subnetIds"], NP: ["placementPolicy", "nodeLocations"]}


@pytest.fixture(scope="module")
def before():
    return {cloud: run_program(program(), preview=False) for cloud, program in PROGRAMS.items()}


@pytest.mark.parametrize("cloud, edit", list(EXPECTED))
def test_editing_one_pool_changes_only_that_pool_in_place(before, cloud, edit):
    after = run_program(PROGRAMS[cloud](**EDITS[edit]), preview=False)
    assert diff(before[cloud], after) == EXPECTED[(cloud, edit)]


@pytest.mark.parametrize("cloud, edit", [("eks", "size"), ("gke", "size")])
def test_size_fields_the_autoscaler_owns_stay_ignored(before, cloud, edit):
    after = run_program(PROGRAMS[cloud](**EDITS[edit]), preview=False)
    pool_type = NG if cloud == "eks" else NP
    for run in (before[cloud], after):
        for pool in run.of_type(pool_type):
            extra = CREATION_ONLY[pool_type] if pool.name == "p-train" else []
            assert pool.ignore_changes == IGNORED[pool_type] + extra, pool.name
    changed = diff(before[cloud], after).changed[(pool_type, "p-web")]
    # Only min and max reach the provider as changes; the rest is ignored.
    assert {p for p in changed if not any(p.startswith(i) for i in IGNORED[pool_type])} == (
        {"scalingConfig.minSize", "scalingConfig.maxSize"} if cloud == "eks"
        else {"autoscaling.totalMinNodeCount", "autoscaling.totalMaxNodeCount"})


def _pinned():
    return json.loads(PINNED.read_text())


def lost_and_new(run, pinned):
    """Pinned URNs no resource (nor alias) carries any more, and URNs not pinned."""
    ours = [r for r in run.resources if not r.type.startswith("pulumi:providers:")]
    current = {r.urn for r in ours}
    kept_by_alias = {u for r in ours for u in alias_urns(r, run)}
    return sorted(pinned - current - kept_by_alias), sorted(current - pinned)


@pytest.mark.parametrize("cloud", list(PROGRAMS))
def test_every_urn_of_the_reference_platform_is_pinned(cloud, monkeypatch):
    run = run_program(PROGRAMS[cloud]())
    lost, new = lost_and_new(run, set(_pinned()[cloud]))
    assert not lost, (
        "these resources would be REPLACED (deleted and recreated) on the next update, because their URN "
        "changed (a renamed type token, child name or parent). Add aliases=[pulumi.Alias(...)] naming the old "
        "identity to the resource (docs/pulumi-facts.md), then move the URN in tests/reliability/pinned_urns.json:\n  "
        + "\n  ".join(lost))
    assert not new, ("new resources in the reference platform; if intended, add these URNs to "
                     "tests/reliability/pinned_urns.json:\n  " + "\n  ".join(new))


def test_the_pin_check_honours_aliases_and_catches_children(monkeypatch):
    """Renaming a pool component with an alias keeps the component, but its children
    are named after it: without aliases of their own they would be replaced."""
    import pulumi

    from nodepools.components.pools import NodePool

    original = NodePool.__init__

    def renamed(self, resource_name, spec, cluster, opts=None, **kwargs):
        if resource_name == "p-web":
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(aliases=[pulumi.Alias(name="p-web")]))
            resource_name = "p-web-renamed"
        original(self, resource_name, spec, cluster, opts, **kwargs)

    monkeypatch.setattr(NodePool, "__init__", renamed)
    run = run_program(eks_program())
    lost, new = lost_and_new(run, set(_pinned()["eks"]))
    component = "urn:pulumi:dev::nodepools::nodepools:platform:Platform$nodepools:pools:NodePool::p-web"
    assert component in _pinned()["eks"] and component not in lost
    assert lost and all(u.startswith(component.replace("::p-web", "$")) and "::p-web" in u for u in lost)
    assert len(new) == len(lost) + 1  # every child renamed, plus the component's new URN


# ---- determinism -----------------------------------------------------------------

def digests(run) -> dict[str, str]:
    """Engine URN -> sha256 of the inputs exactly as serialised for the engine."""
    return {r.urn: hashlib.sha256(r.wire.SerializeToString(deterministic=True)).hexdigest()
            for r in run.resources}


@pytest.mark.parametrize("cloud", list(PROGRAMS))
@pytest.mark.parametrize("preview", [True, False])
def test_two_runs_register_byte_identical_inputs(before, cloud, preview):
    first = before[cloud] if not preview else run_program(PROGRAMS[cloud](), preview=True)
    second = run_program(PROGRAMS[cloud](), preview=preview)
    assert digests(first) == digests(second)
    assert {r.urn for r in first.resources} == {r.urn for r in second.resources}


DIGEST_SCRIPT = """
import json, sys
sys.path.insert(0, {here!r})
from reliability_programs import eks_program, gke_program
from test_safe_updates import digests
from nodepools.offline.engine import run_program
print(json.dumps({{c: digests(run_program(p(), preview=False)) for c, p in
                  (("eks", eks_program), ("gke", gke_program))}}, sort_keys=True))
"""


def test_inputs_do_not_depend_on_the_interpreters_hash_seed(before):
    """Set and dict iteration order varies with PYTHONHASHSEED between processes;
    no input may follow it (a reordered list would show as a diff on every run)."""
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT.format(here=str(HERE))], env=env,
                              capture_output=True, text=True, timeout=600, check=True)
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert outputs[0] == outputs[1]
    assert outputs[0] == {cloud: digests(run) for cloud, run in before.items()}
