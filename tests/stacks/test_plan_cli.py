"""``nodepools plan``: the real program of a stack, offline, for people and for machines."""
import json
from datetime import timedelta
from pathlib import Path

import yaml

from nodepools.plan.cli import main
from nodepools.policies.registry import POLICIES
from nodepools.spec.kube_versions import DEFAULT_KUBERNETES_VERSION, oldest_in_standard_support, standard_support_end
from nodepools.vocabulary import Cloud


def plan_json(capsys, *argv):
    code = main(["plan", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_plan_of_aws_dev_holds_the_pools_table(capsys):
    code, plan = plan_json(capsys, "--stack", "aws-dev")
    assert (code, plan["error"]) == (0, None)
    assert plan["pools"] == [
        {"name": "system", "class": "resident", "provisioner": "managed", "capacity": "on-demand", "min_nodes": 2, "max_nodes": 4,
         "instance_types": ["m7i.xlarge"], "gpus_per_node": 0, "gpu_model": None, "taints": []},
        {"name": "batch", "class": "batch", "provisioner": "managed", "capacity": "spot", "min_nodes": 0, "max_nodes": 6,
         "instance_types": ["c7i.2xlarge", "c6i.2xlarge"], "gpus_per_node": 0, "gpu_model": None,
         "taints": ["nodepools.io/pool-class=batch:NoSchedule"]},
        {"name": "inference", "class": "gpu-inference", "provisioner": "managed", "capacity": "on-demand", "min_nodes": 1, "max_nodes": 2,
         "instance_types": ["g6.xlarge"], "gpus_per_node": 1, "gpu_model": "nvidia-l4",
         "taints": ["nodepools.io/pool-class=gpu-inference:NoSchedule", "nvidia.com/gpu=present:NoSchedule"]},
        {"name": "training", "class": "gpu-training", "provisioner": "managed", "capacity": "spot", "min_nodes": 0, "max_nodes": 2,
         "instance_types": ["g6.12xlarge"], "gpus_per_node": 4, "gpu_model": "nvidia-l4",
         "taints": ["nodepools.io/pool-class=gpu-training:NoSchedule", "nvidia.com/gpu=present:NoSchedule"]},
    ]
    assert plan["counts"]["aws:eks/nodeGroup:NodeGroup"] == 4
    assert sum(plan["counts"].values()) == len(plan["resources"])
    assert plan["layout"]["chosen"] == "specialized" and plan["layout"]["warning"] is None
    assert (plan["policy"]["pack"], plan["policy"]["policies"], plan["policy"]["violations"]) == ("nodepools", len(POLICIES), [])


def test_resource_tree_links_children_to_parents(capsys):
    _, plan = plan_json(capsys, "--stack", "gcp-dev", "--no-policy")
    rows = {(r["type"], r["name"]): r for r in plan["resources"]}
    pool = rows[("gcp:container/nodePool:NodePool", "np-gcp-dev-inference")]
    assert pool["parent"] == {"type": "nodepools:pools:NodePool", "name": "np-gcp-dev-inference"}
    assert rows[("gcp:container/cluster:Cluster", "np-gcp-dev")]["parent"] is None


def test_plan_is_honest_about_unknowns(capsys):
    _, plan = plan_json(capsys, "--stack", "aws-dev", "--no-policy")
    tags = [r for r in plan["resources"] if r["type"] == "aws:autoscaling/tag:Tag"]
    assert tags and all(r["unknown_inputs"] == ["autoscalingGroupName"] for r in tags)
    assert plan["cluster"]["endpoint"] == "<unknown>"
    assert any("shown as <unknown>" in note for note in plan["notes"])


def test_text_plan_prints_tree_counts_pools_and_layout(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["plan", "--stack", "aws-prod", "--no-policy"]) == 0
    out = capsys.readouterr().out
    assert "  nodepools:platform:Platform  np-aws-prod\n" in out
    assert "     4  aws:eks/nodeGroup:NodeGroup\n" in out
    # 100 columns: the table names the first instance type, the line under it all of them.
    assert "  batch      batch          managed      spot       0/24     c7i.4xlarge +2  -\n" in out
    assert "  batch: instance types c7i.4xlarge, c6i.4xlarge, m7i.4xlarge; taints\n" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["plan", "--stack", "aws-prod", "--no-policy"]) == 0
    wide = capsys.readouterr().out
    assert "  batch      batch          managed      spot       0/24     c7i.4xlarge, c6i.4xlarge, m7i.4xlarge" in wide
    assert "Layout: specialized (agrees; the rule of thumb says specialized)" in out
    assert out.rstrip().endswith("Result: ok")


STACKS_DIR = Path(__file__).resolve().parents[2] / "stacks"


def project_with(tmp_path, stack, config, main=STACKS_DIR):
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump(
        {"name": "nodepools", "runtime": "python", "main": str(main), "stackConfigDir": "envs"}))
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}))
    return tmp_path


def test_bad_config_exits_2_with_config_paths(tmp_path, capsys, stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"][2]["capacity"] = "spot"
    project = project_with(tmp_path, "broken", raw)
    code, plan = plan_json(capsys, "--stack", "broken", "--project-dir", str(project))
    assert plan["policy"] is None  # nothing registered, nothing to judge
    assert code == 2 and plan["resources"] == []
    assert plan["error"]["kind"] == "config"
    assert plan["error"]["lines"][0].startswith("nodepools:pools[2].capacity: capacity 'spot' is not allowed")


def test_layout_warning_is_printed(tmp_path, capsys, stack_config):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"] = raw["nodepools:pools"][:1]
    project = project_with(tmp_path, "tiny", raw)
    assert main(["plan", "--stack", "tiny", "--project-dir", str(project), "--no-policy"]) == 0
    out = capsys.readouterr().out
    assert "WARNING: layout 'specialized' contradicts the rule of thumb, which calls for 'flat' here" in out


def test_unknown_stack_exits_2(capsys):
    assert main(["plan", "--stack", "nope"]) == 2
    assert "stack 'nope' has no config file" in capsys.readouterr().err



def test_mandatory_policy_violation_exits_1(tmp_path, capsys, stack_config, blanket_workload_program):
    program = tmp_path / "program"
    program.mkdir()
    (program / "__main__.py").write_text(blanket_workload_program)
    project = project_with(tmp_path, "gated", stack_config("aws-dev"), main=program)
    code, plan = plan_json(capsys, "--stack", "gated", "--project-dir", str(project),
                           "--policy-pack", str(STACKS_DIR.parent / "policy"))
    assert (code, plan["error"], plan["result"]) == (1, None, "mandatory policy violated")
    found = {(v["policy"], v["enforcement"], v["resource"]) for v in plan["policy"]["violations"]}
    assert ("no-blanket-tolerations", "mandatory", "kubernetes:apps/v1:Deployment anywhere") in found
    assert ("resident-off-spot", "mandatory", "kubernetes:apps/v1:Deployment anywhere") in found
    assert plan["placement"]["flagged"] == ["anywhere"]


def test_the_plan_says_where_the_throttling_alerts_are_evaluated(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    _, plan = plan_json(capsys, "--stack", "gcp-dev", "--no-policy")
    assert plan["alerts"].startswith("Google Managed Prometheus (the cloud's managed backend: alerts.backend unset): "
                                     "ClusterRules evaluated by GKE's managed rule evaluator")
    assert plan["counts"]["kubernetes:monitoring.googleapis.com/v1:ClusterRules"] == 1
    assert main(["plan", "--stack", "aws-dev", "--no-policy"]) == 0
    out = capsys.readouterr().out
    assert "\nAlerts: CloudWatch (the cloud's managed backend: alerts.backend unset): two PromQL alarms with no " \
           "alarm actions (set alerts.alarm_actions to be notified)" in out
    assert "     2  aws:cloudwatch/metricAlarm:MetricAlarm\n" in out


def test_the_plan_and_its_pack_judge_on_its_today(capsys, tmp_path):
    """``--today``: from the day the shipped minor leaves EKS standard support, aws-dev's cluster gets
    ``cluster-version`` (advisory: exit 0); the day before, nothing; a policy's own ``today`` wins."""
    end, _ = standard_support_end(Cloud.AWS, DEFAULT_KUBERNETES_VERSION)
    before = (end - timedelta(days=1)).isoformat()
    code, plan = plan_json(capsys, "--stack", "aws-dev", "--today", before)
    assert (code, plan["today"], plan["policy"]["violations"]) == (0, before, [])
    code, plan = plan_json(capsys, "--stack", "aws-dev", "--today", end.isoformat())
    assert (code, plan["today"]) == (0, end.isoformat())
    assert [(v["policy"], v["enforcement"], v["resource"], v["message"].split("\n", 1)[1])
            for v in plan["policy"]["violations"]] == [(
        "cluster-version", "advisory", "aws:eks/cluster:Cluster np-aws-dev",
        f"aws:eks/cluster:Cluster 'np-aws-dev': version: version {DEFAULT_KUBERNETES_VERSION} left EKS standard "
        f"support on {end.isoformat()}: EKS extended support is billed per cluster-hour. Fix: set version to "
        f"{oldest_in_standard_support(Cloud.AWS, end)} or newer (upgrade one minor version at a time)")]
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"cluster-version": {"today": before}}))
    code, plan = plan_json(capsys, "--stack", "aws-dev", "--today", end.isoformat(), "--policy-pack-config", str(config))
    assert (code, plan["policy"]["violations"]) == (0, [])


def test_a_today_that_is_no_date_is_a_usage_error(capsys, tmp_path):
    report = tmp_path / "plan.json"
    assert main(["plan", "--stack", "aws-dev", "--today", "2027-02-30", "--json-file", str(report)]) == 2
    assert capsys.readouterr().err == ("nodepools plan: argument --today: '2027-02-30' is not a date YYYY-MM-DD\n")
    document = json.loads(report.read_text())
    assert (document["status"], document["today"]) == ("invalid", None)
