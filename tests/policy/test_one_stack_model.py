"""The plan and the pack read a stack through one model (``nodepools.inventory.stack_model``): a
workload whose namespace is a Namespace of the stack, named by that Namespace's output (unknown at
preview), takes the Namespace's class in both. Issue 30: the pack reported resident-off-spot while the
plan's placement said class None."""
import pytest

from nodepools.offline.engine import Run
from nodepools.plan.model import plan_view
from nodepools.plan.verdicts import placement_matrix

from policy_builders import namespaced_by_dependency


@pytest.mark.parametrize("named, namespace", [(False, "<ns-shop>"), (True, "shop")])
def test_a_namespace_by_dependency_gives_its_class_to_the_pack_and_to_the_plan(check, today, named, namespace):
    fx = namespaced_by_dependency(named)
    shop = fx.urn("shop")
    diags = [d for d in check(fx) if d.urn == shop and not d.cannot_judge]
    assert sorted(d.policy for d in diags) == ["resident-off-spot", "spot-checkpointing", "toleration-approval"]
    [off_spot] = [d for d in diags if d.policy == "resident-off-spot"]
    assert (off_spot.level, off_spot.message.split("\n", 1)[1]) == ("mandatory", (
        f"Deployment 'shop' in namespace '{namespace}': spec.template.spec: a resident workload can land on spot "
        "pool(s) 'spot', which the cloud reclaims at short notice. Fix: select on-demand capacity "
        "(nodepools.io/capacity: on-demand) or a pool of its own class"))
    placement = placement_matrix(plan_view(Run(resources=list(fx.items)), today))
    [row] = [w for w in placement["workloads"] if w["workload"] == "shop"]
    assert (row["namespace"], row["class"], row["spot_pools_while_resident"]) == (namespace, "resident", ["spot"])
    assert "shop" in placement["flagged"]
