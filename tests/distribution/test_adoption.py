"""Adopting nodepools on a platform that exists (docs/design.md section 9), as a user gets it: the
wheel's CLI, outside this checkout, on the user's own projects and pipeline layout."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from dist_helpers import REPO, bin_of, borrow_dependencies, make_venv, pip_install, run
from report_schema import schema_errors

pytestmark = pytest.mark.dist
APPS = ("gpu-inference", "spot-training", "batch-cronjob")
SYSTEM = {"eks.amazonaws.com/nodegroup": "system"}


def stacks_project(root: Path, venv: Path, apps: bool = False) -> Path:
    """This repository's stack program and stack files, copied as a user's platform project."""
    shutil.copytree(REPO / "stacks", root / "stacks")
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")  # main: stacks/, virtualenv: .venv
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    for name in APPS if apps else ():
        shutil.copytree(REPO / "examples" / name, root / name, ignore=shutil.ignore_patterns("venv", "__pycache__"))
        (root / name / "requirements.txt").write_text("nodepools[kubernetes]\n")
        (root / name / "venv").symlink_to(venv, target_is_directory=True)
    return root


def plan(venv: Path, *argv: str, cwd: Path, **env: str) -> tuple[int, dict]:
    out = cwd / "plan-out" / "plan.json"
    result = run(bin_of(venv, "nodepools"), "plan", *argv, "--json-file", out, cwd=cwd, check=False, **env)
    report = json.loads(out.read_text())
    assert schema_errors(report) == []
    assert report["exit_code"] == result.returncode, result.stderr
    return result.returncode, report


def annotate(venv: Path, report: Path, cwd: Path) -> list[str]:
    result = run(bin_of(venv, "python"), "-m", "nodepools.plan.annotations", report, cwd=cwd)
    return result.stdout.splitlines()


def test_an_attached_cluster_with_only_gpu_pools_plans_with_every_guardrail(app_venv, tmp_path):
    root = stacks_project(tmp_path / "platform", app_venv)
    code, report = plan(app_venv, "--stack", "aws-attach", cwd=root)
    assert (code, report["status"], report["policy"]["violations"]) == (0, "ok", [])
    assert [p["class"] for p in report["pools"]] == ["gpu-inference", "gpu-training"]
    assert report["counts"]["kubernetes:scheduling.k8s.io/v1:PriorityClass"] == 4
    assert report["counts"]["kubernetes:core/v1:ResourceQuota"] == 2  # one per GPU namespace, GPUs capped
    addons = {a["release"]: a for a in report["addons"]}
    assert sorted(addons) == ["cluster-autoscaler", "kueue", "nvidia-device-plugin"]
    assert addons["cluster-autoscaler"]["node_selector"] == addons["kueue"]["node_selector"] == SYSTEM
    assert report["layout"]["unowned_nodes"] == "unknown"


SPLIT_MAIN = '''\
import os
import sys

import pulumi
import pulumi_kubernetes as k8s

from helpers import namespace_name  # a sibling module: the program directory is on sys.path

with open("greeting.txt") as f:  # relative to the working directory, the program directory
    greeting = f.read().strip()
k8s.core.v1.Namespace("apps", metadata={"name": namespace_name(), "labels": {"greeting": greeting}})
pulumi.export("python", sys.prefix)
pulumi.export("cwd", os.getcwd())
pulumi.export("region", pulumi.Config().get("region"))
'''


def test_a_split_module_project_runs_as_the_pulumi_language_host_runs_it(app_venv, wheel, tmp_path):
    project = tmp_path / "repos" / "apps-infra"
    (project / "src").mkdir(parents=True)
    (project / "Pulumi.yaml").write_text(yaml.safe_dump({
        "name": "apps-infra", "main": "src/", "runtime": {"name": "python", "options": {"virtualenv": "venv"}},
        "config": {"region": "eu-west-1"}}))
    (project / "Pulumi.dev.yaml").write_text("config: {}\n")
    (project / "src" / "__main__.py").write_text(SPLIT_MAIN)
    (project / "src" / "helpers.py").write_text("def namespace_name():\n    return 'apps'\n")
    (project / "src" / "greeting.txt").write_text("hello\n")
    own = make_venv(project / "venv")  # the project's own environment, not the CLI's
    pip_install(own, "--no-deps", wheel)
    borrow_dependencies(own)
    elsewhere = tmp_path / "ci-workspace"
    elsewhere.mkdir()
    code, report = plan(app_venv, "--project-dir", "../repos/apps-infra", "--stack", "dev", "--no-policy",
                        cwd=elsewhere)
    assert (code, report["errors"]) == (0, [])
    assert report["outputs"]["python"] == str(own)  # run with the project's virtualenv's Python
    assert report["outputs"]["cwd"] == str((project / "src").resolve())
    assert report["outputs"]["region"] == "eu-west-1"  # Pulumi.yaml's project-level default
    assert report["python"] == str(bin_of(own, "python"))
    (project / "Pulumi.yaml").write_text("name: apps-infra\nruntime: yaml\n")
    code, report = plan(app_venv, "--project-dir", "../repos/apps-infra", "--stack", "dev", cwd=elsewhere)
    assert (code, report["status"]) == (2, "invalid")
    [error] = report["errors"]
    assert error["message"].startswith(f"{project / 'Pulumi.yaml'}: runtime 'yaml' is not supported: nodepools plan "
                                       "runs Python programs only")
    assert (error["file"], error["line"]) == (str(project / "Pulumi.yaml"), 2)


def test_a_relative_policy_pack_with_its_own_venv_runs_from_another_directory(app_venv, pack_copy, pack_venv,
                                                                              tmp_path):
    assert pack_venv == pack_copy / "venv"
    project = tmp_path / "app"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: app\nruntime: python\n")
    (project / "Pulumi.dev.yaml").write_text("config: {}\n")
    (project / "__main__.py").write_text("import pulumi\npulumi.export('ready', True)\n")
    relative = Path("..") / pack_copy.relative_to(pack_copy.parents[1])  # ../elsewhere*/policy, from tmp_path
    cwd = pack_copy.parents[1] / "pipeline"
    cwd.mkdir()
    code, report = plan(app_venv, "--project-dir", str(project), "--stack", "dev", "--policy-pack", str(relative),
                        cwd=cwd)
    assert (code, report["status"]) == (0, "ok"), report["errors"]
    assert report["policy"]["path"] == str(pack_copy)


def test_yaml_missing_stack_and_config_errors_leave_a_valid_report_the_annotations_point_at(app_venv, tmp_path):
    root = stacks_project(tmp_path / "platform", app_venv)
    stack_file = root / "stacks" / "Pulumi.aws-dev.yaml"
    broken = stack_file.read_text().replace("      max_nodes: 4", "      max_nodes: [4")
    stack_file.write_text(broken)
    code, report = plan(app_venv, "--stack", "aws-dev", cwd=root)
    assert (code, report["status"], report["errors"][0]["kind"]) == (2, "invalid", "project")
    [yaml_line] = annotate(app_venv, root / "plan-out" / "plan.json", root)
    assert yaml_line.startswith("::error file=stacks/Pulumi.aws-dev.yaml,line=") and "is not valid YAML" in yaml_line
    code, report = plan(app_venv, "--stack", "staging", cwd=root)
    assert (code, report["status"]) == (2, "invalid")
    [missing] = annotate(app_venv, root / "plan-out" / "plan.json", root)
    assert missing.startswith("::error file=Pulumi.yaml,line=8,title=nodepools project::stack 'staging' has no "
                              "config file")
    stack_file.write_text(broken.replace("max_nodes: [4", "max_nodes: 4").replace("min_nodes: 1\n", "min_nodes: 9\n"))
    code, report = plan(app_venv, "--stack", "aws-dev", cwd=root)
    assert (code, report["status"]) == (2, "invalid")
    lines = annotate(app_venv, root / "plan-out" / "plan.json", root)
    text = stack_file.read_text().splitlines()
    at = next(i for i, t in enumerate(text) if t.strip() == "min_nodes: 9") + 1
    assert lines == [f"::error file=stacks/Pulumi.aws-dev.yaml,line={at},title=nodepools config::"
                     "nodepools:pools[2].min_nodes: min_nodes (9) must be <= max_nodes (2)"]


WORKLOADS_MODULE = '''\
import pulumi_kubernetes as k8s


def anywhere():
    return k8s.apps.v1.Deployment("anywhere", metadata={"name": "anywhere", "namespace": "services"}, spec={
        "selector": {"matchLabels": {"app": "anywhere"}},
        "template": {"metadata": {"labels": {"app": "anywhere", "nodepools.io/workload-class": "resident"}},
                     "spec": {"priorityClassName": "nodepools-resident", "tolerations": [{"operator": "Exists"}],
                              "containers": [{"name": "app", "image": "nginx:1.27",
                                              "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                                            "limits": {"cpu": "1", "memory": "1Gi"}}}]}}})
'''


def test_a_blanket_toleration_is_one_finding_per_policy_on_the_line_that_registered_it(app_venv, tmp_path):
    root = stacks_project(tmp_path / "platform", app_venv)
    (root / "stacks" / "workloads.py").write_text(WORKLOADS_MODULE)
    with (root / "stacks" / "__main__.py").open("a") as main:
        main.write("\nimport workloads\n\nworkloads.anywhere()\n")
    code, report = plan(app_venv, "--stack", "aws-dev", cwd=root)
    assert (code, report["status"]) == (1, "violations")
    findings = [v for v in report["policy"]["violations"] if v["resource"] == "kubernetes:apps/v1:Deployment anywhere"]
    policies = [v["policy"] for v in findings]
    assert len(policies) == len(set(policies)) and "toleration-approval" in policies
    [approval] = [v for v in findings if v["policy"] == "toleration-approval"]
    assert "tolerates 4 taints that are not of its own class (resident)" in approval["message"]
    line = WORKLOADS_MODULE.splitlines().index(next(t for t in WORKLOADS_MODULE.splitlines() if "Deployment(" in t)) + 1
    lines = [a for a in annotate(app_venv, root / "plan-out" / "plan.json", root) if "Deployment anywhere" in a]
    assert len(lines) == len(findings)
    assert all(a.startswith(f"::{'error' if v['enforcement'] == 'mandatory' else 'warning'} "
                            f"file=stacks/workloads.py,line={line},") for a, v in zip(lines, findings))


COLUMNS_RUNNER = '''
import contextlib, io, sys
from nodepools.plan.cli import main
wide = []
for stack, apps in [("aws-dev", True), ("aws-karpenter", True), ("aws-prod", False), ("gcp-dev", False),
                    ("aws-attach", False)]:
    args = ["plan", "--stack", stack] + [a for app in (sys.argv[1:] if apps else []) for a in ("--workloads", app)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    assert code == 0, (stack, out.getvalue()[-2000:])
    wide += [(stack, line) for line in out.getvalue().splitlines() if len(line) > 100]
print(len(wide), wide[:3])
'''


def test_with_100_columns_no_line_of_any_shipped_stack_s_plan_is_wider(app_venv, tmp_path):
    root = stacks_project(tmp_path / "platform", app_venv, apps=True)
    result = run(bin_of(app_venv, "python"), "-c", COLUMNS_RUNNER, *APPS, cwd=root, COLUMNS="100")
    assert result.stdout.strip() == "0 []", result.stdout
