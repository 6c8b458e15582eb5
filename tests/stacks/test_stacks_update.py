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
