"""End to end: a program with our pool components (EKS backend) or raw provider pools plus
pulumi-kubernetes workloads runs under the mock engine; the analysis reads its registrations."""
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest

from nodepools.backends.aws import EksCluster
from nodepools.components.pools import NodePool
from nodepools.inventory.values import UNKNOWN
from nodepools.offline.engine import run_program
from nodepools.placement import Fit, Reason
from nodepools.plan.model import plan_view
from suite_dates import PINNED


def analyze(run):
    """The placement report of a run, read as the plan reads it."""
    return plan_view(run, PINNED).report


def deployment(name, spec, cls, kind=k8s.apps.v1.Deployment, namespace="apps"):
    template = {"metadata": {"labels": {"app": name, "nodepools.io/workload-class": cls}}, "spec": spec}
    if kind is k8s.batch.v1.Job:
        return kind(name, metadata={"name": name, "namespace": namespace}, spec={"template": template})
    return kind(name, metadata={"name": name, "namespace": namespace},
                spec={"replicas": 2, "selector": {"matchLabels": {"app": name}}, "template": template})


def app(cpu="1", memory="2Gi", gpus=None, **spec):
    limits = {"cpu": cpu, "memory": memory, **({"nvidia.com/gpu": gpus} if gpus else {})}
    return {"containers": [{"name": "app", "image": "app:1", "resources": {"requests": limits, "limits": limits}}],
            **spec}


def platform():
    cluster = EksCluster("prod", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000001")
    NodePool("web", dict(pool_class="resident", instance_types=["m6i.xlarge"]), cluster)
    jobs = NodePool("jobs", dict(pool_class="batch", instance_types=["c6i.2xlarge"], capacity="spot"), cluster)
    infer = NodePool("infer", dict(pool_class="gpu-inference", instance_types=["g6.xlarge"]), cluster)
    train = NodePool("train", dict(pool_class="gpu-training", instance_types=["p4d.24xlarge"]), cluster)
    # Workloads wired as the README says: each pastes its pool's contract.
    deployment("api", app(), "resident")
    deployment("etl", app(**jobs.contract.as_dict(), restartPolicy="Never"), "batch", k8s.batch.v1.Job)
    deployment("model", app("2", "8Gi", "1", **infer.contract.as_dict()), "gpu-inference")
    deployment("finetune", app("32", "256Gi", "8", **train.contract.as_dict(), restartPolicy="Never"),
               "gpu-training", k8s.batch.v1.Job)
    # Deliberately misconfigured.
    deployment("pinned", app(nodeSelector={"nodepools.io/pool": "infer"}), "gpu-inference")
    blanket = [{"key": "nodepools.io/pool-class", "operator": "Exists"}, {"key": "nvidia.com/gpu", "operator": "Exists"}]
    deployment("crunch", app(tolerations=blanket, restartPolicy="Never"), "batch", k8s.batch.v1.Job)
    deployment("giant", app("8", "3Ti", "8", **train.contract.as_dict(), restartPolicy="Never"),
               "gpu-training", k8s.batch.v1.Job)


@pytest.fixture(scope="module")
def report():
    return analyze(run_program(platform, preview=True))


def test_workloads_wired_by_contract_land_exactly_on_their_pool(report):
    assert {n: report.summary(n).reachable for n in ("api", "etl", "model", "finetune")} == {
        "api": ("web",), "etl": ("jobs",), "model": ("infer",), "finetune": ("train",)}
    assert not any(report.summary(n).flagged for n in ("api", "etl", "model", "finetune"))


def test_misconfigured_workloads_get_the_right_verdict_and_reason(report):
    pinned = report.verdict("pinned", "infer")
    assert (pinned.fit, pinned.reason, pinned.detail) == (
        Fit.NO, Reason.TAINT, "untolerated taint nodepools.io/pool-class=gpu-inference:NoSchedule")
    assert report.summary("pinned").unschedulable is True
    crunch = report.summary("crunch")
    assert (crunch.reachable, crunch.gpu_pools_without_gpu) == (("web", "jobs", "infer", "train"), ("infer", "train"))
    giant = report.summary("giant")
    assert giant.unschedulable is True
    assert "train: too big for p4d.24xlarge: requests memory 3072.00Gi > allocatable 1122.10Gi" in giant.why_not


def raw_stack():
    role = aws.iam.Role("role", assume_role_policy="{}")
    aws.eks.NodeGroup("legacy", cluster_name="prod", node_role_arn=role.arn, subnet_ids=["subnet-0000000a"],
                      instance_types=["m6i.large"], capacity_type="SPOT",
                      scaling_config={"min_size": 0, "max_size": 3, "desired_size": 0},
                      labels={"team": "data"}, taints=[{"key": "team", "value": "data", "effect": "NO_SCHEDULE"}])
    team = aws.iam.Role("team-role", assume_role_policy="{}")  # its arn is unknown until it exists
    deployment("reader", app("500m", "1Gi", nodeSelector={"team": team.arn},
                             tolerations=[{"key": "team", "operator": "Equal", "value": "data"}]), "resident")


@pytest.mark.parametrize("preview, expected", [
    pytest.param(True, (Fit.UNKNOWN, Reason.NODE_SELECTOR), id="preview: the selector value is unknown, no verdict"),
    pytest.param(False, (Fit.NO, Reason.NODE_SELECTOR), id="update: the value is known and does not match"),
])
def test_raw_provider_pools_and_unknowns_at_preview(preview, expected):
    report = analyze(run_program(raw_stack, preview=preview))
    verdict = report.verdict("reader", "legacy")
    assert (verdict.fit, verdict.reason) == expected
    assert report.summary("reader").unschedulable is (UNKNOWN if preview else True)
    assert report.summary("reader").spot_pools_while_resident == ()
