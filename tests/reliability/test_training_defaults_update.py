"""The default compact placement of training pools never replaces an existing pool.

A stack created before the default placed its training pool spread, as ``placement: spread``
still does. Upgrading, the pool's inputs gain what the default sets (one subnet, a placement
group in the launch template; GKE's compact placement policy and one zone), and every such
input path is among the resource's ``ignore_changes``: the engine keeps the old value for it
(an ignored path takes the previous inputs' value, and one the previous inputs lack is deleted
from the new ones: pulumi/pulumi sdk/go/common/resource/property_path.go, PropertyPath.Reset;
docs/pulumi-facts.md, "Resource options"), so the existing node
group, template and node pool see no change at all; a new pool is created with them. The only
new resource is the (unused, free) placement group. docs/design.md section 9.3.
"""
import pytest

from nodepools import vocabulary as v
from nodepools.offline.engine import run_program

from reliability_programs import eks_program, gke_program
from wire_diff import diff

NG, NP, LT = v.TYPE_EKS_NODE_GROUP, v.TYPE_GKE_NODE_POOL, "aws:ec2/launchTemplate:LaunchTemplate"
PG = "aws:ec2/placementGroup:PlacementGroup"
PROGRAMS = {"eks": eks_program, "gke": gke_program}
EXPECTED = {
    "eks": ([(PG, "p-train-placement")], {(NG, "p-train"): {"subnetIds"}, (LT, "p-train-nodes"): {"placement"}}),
    "gke": ([], {(NP, "p-train"): {"placementPolicy", "nodeLocations"}}),
}


@pytest.mark.parametrize("cloud", list(PROGRAMS))
def test_upgrading_to_the_compact_default_changes_nothing_the_engine_would_apply(cloud):
    before = run_program(PROGRAMS[cloud](train={"placement": "spread"}), preview=False)
    after = run_program(PROGRAMS[cloud](), preview=False)
    changes = diff(before, after)
    added, changed = EXPECTED[cloud]
    assert (changes.added, changes.removed) == (added, [])
    assert {key: paths - {"opts.ignore_changes"} for key, paths in changes.changed.items()} == changed
    by_key = {(r.type, r.name): r for r in after.resources}
    for key, paths in changed.items():
        assert paths <= set(by_key[key].ignore_changes), key


def test_asking_for_compact_explicitly_is_applied_and_not_ignored():
    """The opt-in for an existing pool: its inputs change for real (EKS: a node group on one subnet is a
    new node group), which is why the default never does it."""
    after = run_program(eks_program(train={"placement": "compact", "subnet_ids": ["subnet-0a1b2c3d4e5f60701"]}),
                        preview=False)
    (group,) = [r for r in after.of_type(NG) if r.name == "p-train"]
    (template,) = [r for r in after.of_type(LT) if r.name == "p-train-nodes"]
    assert (group.ignore_changes, template.ignore_changes) == (["scalingConfig.desiredSize"], [])
    assert template.inputs["placement"] == {"groupName": "p-train-placement"}
