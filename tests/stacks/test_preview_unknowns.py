"""A preview knows what the program gave and nothing a provider computes (issue 32, item 3).

The offline engine and ``nodepools.testing.NodepoolsMocks`` answer a preview as a provider's
preview of a create does: the inputs, a new resource's id, every computed output (nested ones
such as a Kubernetes object's ``metadata.uid`` and the EKS cluster's security group) and
auto-names unknown; an update keeps plausible fakes. The pack then says it cannot judge what
depends on them, never a violation."""
import asyncio
import json
import threading
from pathlib import Path

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from pulumi.runtime.rpc import UNKNOWN

from nodepools.offline.engine import run_program
from nodepools.plan.cli import main
from nodepools.testing import NodepoolsMocks
from report_schema import schema_errors


def program() -> None:
    named = k8s.core.v1.ConfigMap("settings", metadata={"name": "settings", "namespace": "batch"}, data={"a": "b"})
    auto = k8s.core.v1.ConfigMap("auto", metadata={"namespace": "batch"})
    role = aws.iam.Role("node", assume_role_policy="{}")
    cluster = aws.eks.Cluster("prod", name="prod", role_arn=role.arn,
                              vpc_config={"subnet_ids": ["subnet-a"], "public_access_cidrs": ["10.0.0.0/8"]})
    pulumi.export("values", {
        "id": named.id, "uid": named.metadata.uid, "name": named.metadata.name,
        "namespace": named.metadata.namespace, "auto_name": auto.metadata.name, "role_arn": role.arn,
        "role_id": role.id, "security_group": cluster.vpc_config.cluster_security_group_id,
        "vpc_id": cluster.vpc_config.vpc_id, "subnets": cluster.vpc_config.subnet_ids,
        "cidrs": cluster.vpc_config.public_access_cidrs})


GIVEN = {"name": "settings", "namespace": "batch", "subnets": ["subnet-a"], "cidrs": ["10.0.0.0/8"]}
COMPUTED = ("id", "uid", "auto_name", "role_arn", "role_id", "security_group", "vpc_id")


def test_the_offline_preview_knows_the_inputs_alone_and_an_update_its_fakes():
    values = run_program(program).outputs["values"]
    assert {k: values[k] for k in COMPUTED} == {k: UNKNOWN for k in COMPUTED}
    assert {k: values[k] for k in GIVEN} == GIVEN
    update = run_program(program, preview=False).outputs["values"]
    assert (update["id"], update["role_id"], update["security_group"]) == ("settings-id", "node-id",
                                                                           "sg-0fake0cluster000001")


def test_nodepools_mocks_answer_a_preview_the_same_way():
    """A user's unit test under ``set_mocks(NodepoolsMocks(), preview=True)`` sees what a preview shows."""
    seen: dict = {}

    def under_mocks() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        pulumi.runtime.set_mocks(NodepoolsMocks(), project="app", stack="dev", preview=True)
        named = k8s.core.v1.ConfigMap("settings", metadata={"name": "settings"})
        auto = k8s.core.v1.ConfigMap("auto", metadata={})
        role = aws.iam.Role("node", assume_role_policy="{}")
        outputs = {"id": named.id, "uid": named.metadata.uid, "name": named.metadata.name,
                   "auto_name": auto.metadata.name, "role_arn": role.arn, "role_name": role.name}

        @pulumi.runtime.test
        def check():
            async def known():
                seen.update({k: await o.is_known() for k, o in outputs.items()})
            return pulumi.Output.from_input(known())

        check()

    thread = threading.Thread(target=under_mocks)
    thread.start()
    thread.join()
    assert seen == {"id": False, "uid": False, "name": True, "auto_name": False, "role_arn": False,
                    "role_name": False}


APP = """\
import pulumi_kubernetes as k8s

cm = k8s.core.v1.ConfigMap("settings", metadata={"name": "settings", "namespace": "batch"}, data={"a": "b"})
k8s.batch.v1.Job("report", metadata={"name": "report", "namespace": "batch",
                                     "labels": {"nodepools.io/workload-class": "batch"}},
    spec={"template": {"metadata": {"labels": {"nodepools.io/workload-class": "batch"}}, "spec": {
        "restartPolicy": "Never", "priorityClassName": "nodepools-batch",
        # Tolerates a value only the cluster computes: unknown in a preview, never "no key".
        "tolerations": [{"key": cm.metadata.uid, "operator": "Exists"}],
        "containers": [{"name": "c", "image": "busybox", "resources": {
            "requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}}})
"""


def project(root: Path, text: str) -> Path:
    root.mkdir()
    (root / "Pulumi.yaml").write_text(f"name: {root.name}\nruntime: python\n")
    (root / "Pulumi.dev.yaml").write_text("config: {}\n")
    (root / "__main__.py").write_text(text)
    return root


def test_an_app_tolerating_a_computed_value_gets_cannot_judge_notes_and_exit_0(tmp_path, capsys):
    platform = project(tmp_path / "platform", "import pulumi\n")
    app = project(tmp_path / "app", APP)
    report = tmp_path / "plan.json"
    code = main(["plan", "--project-dir", str(platform), "--stack", "dev", "--workloads", str(app),
                 "--json-file", str(report), "--no-color"])
    document = json.loads(report.read_text())
    assert schema_errors(document) == []
    assert (code, document["status"], document["errors"]) == (0, "ok", [])
    job = "kubernetes:batch/v1:Job report"
    assert [v["policy"] for v in document["policy"]["violations"] if v["enforcement"] == "mandatory"] == []
    undecided = {v["policy"]: v["message"] for v in document["policy"]["undecided"] if v["resource"] == job}
    assert "Job 'report' in namespace 'batch': cannot judge spec.template.spec.tolerations[0] during preview" \
        in undecided["no-blanket-tolerations"]
    capsys.readouterr()
