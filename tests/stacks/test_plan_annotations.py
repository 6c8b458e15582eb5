"""The plan's findings as GitHub annotations: one per violation or config error, each
with the file and config path to change."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from nodepools.plan.annotations import main as annotate
from nodepools.plan.findings import config_path_of as _config_path_of
from nodepools.plan.cli import main

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"


def project(tmp_path: Path, config: dict, program: str | None = None) -> Path:
    main_dir = STACKS
    if program is not None:
        main_dir = tmp_path / "program"
        main_dir.mkdir()
        (main_dir / "__main__.py").write_text(program)
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump({"name": "nodepools", "runtime": "python",
                                                          "main": str(main_dir)}))
    (tmp_path / "Pulumi.ci.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return tmp_path


def annotations(tmp_path, capsys, root: Path) -> tuple[int, list[str]]:
    out = tmp_path / "plan.json"
    code = main(["plan", "--stack", "ci", "--project-dir", str(root), "--json-file", str(out),
                 "--policy-pack", str(REPO / "policy")])
    capsys.readouterr()
    assert json.loads(out.read_text())["exit_code"] == code
    assert annotate([str(out)]) == 0
    return code, capsys.readouterr().out.splitlines()


def test_a_config_error_points_at_its_line_and_path(tmp_path, capsys, stack_config, monkeypatch):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"][2]["capacity"] = "spot"
    root = project(tmp_path, raw)
    monkeypatch.chdir(root)
    code, lines = annotations(tmp_path, capsys, root)
    text = (root / "Pulumi.ci.yaml").read_text().splitlines()
    line = text.index("  - name: inference") + 1 + next(
        i for i, t in enumerate(text[text.index("  - name: inference"):]) if t.strip().startswith("capacity:"))
    assert code == 2
    assert lines == [f"::error file=Pulumi.ci.yaml,line={line},title=nodepools config::nodepools:pools[2].capacity: "
                     "capacity 'spot' is not allowed for class gpu-inference (allowed: on-demand): "
                     "it must not be interrupted"]


def test_each_violation_is_one_annotation_on_the_line_that_registers_it(tmp_path, capsys, stack_config,
                                                                       monkeypatch, blanket_workload_program):
    root = project(tmp_path, stack_config("aws-dev"), blanket_workload_program)
    monkeypatch.chdir(root)
    code, lines = annotations(tmp_path, capsys, root)
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert code == 1 and len(lines) == len(plan["policy"]["violations"])
    line = blanket_workload_program.splitlines().index(
        next(t for t in blanket_workload_program.splitlines() if t.startswith('k8s.apps.v1.Deployment("anywhere"'))) + 1
    errors = sorted(a.split("title=nodepools policy ", 1)[1].split("::", 1)[0]
                    for a in lines if a.startswith(f"::error file=program/__main__.py,line={line},title="))
    assert errors == ["gpu-toleration-needs-gpu", "no-blanket-tolerations", "resident-off-spot"]
    assert all("::kubernetes:apps/v1:Deployment anywhere: Deployment 'anywhere' in namespace 'services': " in a
               for a in lines)
    policies = [v["policy"] for v in plan["policy"]["violations"]]
    assert len(policies) == len(set(policies))  # one finding per resource and policy


def test_a_yaml_error_and_a_missing_stack_are_annotated_with_file_and_line(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, {"nodepools:layout": "flat"})
    (root / "Pulumi.ci.yaml").write_text("config:\n  nodepools:layout: flat\n  nodepools:pools: [\n")
    monkeypatch.chdir(root)
    code, lines = annotations(tmp_path, capsys, root)
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("::error file=Pulumi.ci.yaml,line=4,title=nodepools project::Pulumi.ci.yaml is not "
                               "valid YAML (line 4)")
    (root / "Pulumi.ci.yaml").unlink()
    code, lines = annotations(tmp_path, capsys, root)
    assert code == 2 and lines == [f"::error file=Pulumi.yaml,line=2,title=nodepools project::stack 'ci' has no "
                                   f"config file {root / 'Pulumi.ci.yaml'} (stacks: none)"]  # the line of `name:`


def test_pool_guardrail_and_cluster_findings_point_at_their_config_entries():
    pools = {"system": "nodepools:pools[0]", "inference": "nodepools:pools[2]"}
    stack = "urn:pulumi:ci::nodepools::nodepools:platform:Platform$"
    assert _config_path_of("aws:eks/nodeGroup:NodeGroup np-aws-dev-inference",
                           stack + "nodepools:pools:NodePool$aws:eks/nodeGroup:NodeGroup::np-aws-dev-inference",
                           pools, "nodepools") == "nodepools:pools[2]"
    assert _config_path_of("kubernetes:core/v1:ResourceQuota batch",
                           stack + "nodepools:guardrails:Guardrails$kubernetes:core/v1:ResourceQuota::batch",
                           pools, "nodepools") == "nodepools:guardrails"
    assert _config_path_of("aws:eks/cluster:Cluster np", "urn:pulumi:ci::nodepools::aws:eks/cluster:Cluster::np",
                           pools, "nodepools") == "nodepools:cluster"
    assert _config_path_of("(stack)", "", pools, "nodepools") == "nodepools:pools"
    assert _config_path_of("kubernetes:apps/v1:Deployment web",
                           "urn:pulumi:ci::nodepools::kubernetes:apps/v1:Deployment::web", pools, "nodepools") is None


def test_a_program_error_points_at_the_project_line_that_raised(tmp_path, capsys, stack_config, monkeypatch):
    program = "import pulumi\n\n\nraise ValueError('no such pool: gpu')\n"
    root = project(tmp_path, stack_config("aws-dev"), program)
    monkeypatch.chdir(root)
    code, lines = annotations(tmp_path, capsys, root)
    assert code == 2 and json.loads((tmp_path / "plan.json").read_text())["status"] == "failed"
    assert lines == ["::error file=program/__main__.py,line=4,title=nodepools program::ValueError: no such pool: gpu"]


def test_annotations_of_a_clean_plan_are_none_and_help_is_plain(tmp_path, capsys, stack_config, monkeypatch):
    root = project(tmp_path, stack_config("gcp-dev"))
    monkeypatch.chdir(root)
    code, lines = annotations(tmp_path, capsys, root)
    assert (code, lines) == (0, [])
    try:
        annotate(["--help"])
    except SystemExit as done:
        assert done.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m nodepools.plan.annotations [-h] PLAN.json")
    assert "nodepools plan --stack prod --json-file plan-out/prod.json || status=$?" in out
    (tmp_path / "other.json").write_text('{"not": "a report"}')
    assert annotate([str(tmp_path / "other.json")]) == 2
    assert "not a nodepools plan report" in capsys.readouterr().out
