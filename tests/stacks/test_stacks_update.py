"""An offline update (not preview) of a created EKS stack: computed outputs flow into the pools."""
from pathlib import Path

from nodepools.plan.project import load_project
from nodepools.plan.run import run_stack

ROOT = Path(__file__).resolve().parents[2]


def test_update_hands_every_launch_template_the_created_clusters_security_group():
    run = run_stack(load_project(ROOT), "aws-dev", preview=False).run
    templates = run.of_type("aws:ec2/launchTemplate:LaunchTemplate")
    assert len(templates) == 4
    assert {t.name: t.inputs["networkInterfaces"] for t in templates} == {
        t.name: [{"deviceIndex": 0.0, "securityGroups": ["sg-0fake0cluster000001"],
                  "associatePublicIpAddress": "false", "deleteOnTermination": "true"}] for t in templates}


# The node group fields whose change replaces the group: ForceNew in the Terraform resource that
# pulumi-aws bridges (hashicorp/terraform-provider-aws: internal/service/eks/node_group.go@b11fc0f,
# wire spelling). nodeRepairConfig is not among them: EKS updates it with UpdateNodegroupConfig
# (docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupConfig; CloudFormation lists it
# "Update requires: No interruption").
NODE_GROUP_FORCE_NEW = {"amiType", "capacityType", "clusterName", "diskSize", "instanceTypes", "launchTemplate.id",
                        "launchTemplate.name", "nodeGroupName", "nodeGroupNamePrefix", "nodeRoleArn", "remoteAccess",
                        "subnetIds"}


def test_turning_repair_on_updates_the_gpu_node_groups_of_an_existing_stack_in_place(monkeypatch):
    """aws-prod deployed by a release without node repair (no nodeRepairConfig sent), then updated by this one."""
    import sys

    import nodepools.backends.aws.translate as translate

    sys.path.insert(0, str(ROOT / "tests" / "reliability"))
    from wire_diff import diff

    project = load_project(ROOT)
    with monkeypatch.context() as before_repair:
        before_repair.setattr(translate, "node_repair_config", lambda spec: None)
        before = run_stack(project, "aws-prod", preview=False).run
    after = run_stack(project, "aws-prod", preview=False).run
    change = diff(before, after)
    assert (change.added, change.removed) == ([], [])
    assert change.changed == {("aws:eks/nodeGroup:NodeGroup", "np-aws-prod-inference"): {"nodeRepairConfig"},
                              ("aws:eks/nodeGroup:NodeGroup", "np-aws-prod-training"): {"nodeRepairConfig"}}
    for paths in change.changed.values():
        assert not {p for p in paths if any(p == f or p.startswith(f + ".") for f in NODE_GROUP_FORCE_NEW)}
    groups = {r.name: r for r in after.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert {name: g.inputs.get("nodeRepairConfig") for name, g in groups.items()} == {
        "np-aws-prod-system": None, "np-aws-prod-batch": None,
        "np-aws-prod-inference": {"enabled": True}, "np-aws-prod-training": {"enabled": True}}
    assert all(g.replace_on_changes == [] and g.ignore_changes == ["scalingConfig.desiredSize"] for g in groups.values())
