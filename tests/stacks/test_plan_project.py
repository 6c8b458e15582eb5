"""How the plan finds and runs a project, as the Pulumi Python language host does
(docs/design.md section 9.2; docs/pulumi-facts.md, "The Python language host")."""
import json
import os
import sys
from pathlib import Path

import yaml

from nodepools.plan.cli import main
from nodepools.plan.project import load_project
from nodepools.plan.toolchain import project_python, toolchain_of

PROGRAM = '''\
import os, sys
import pulumi
from infra import answer
pulumi.export("answer", answer())
pulumi.export("cwd", os.getcwd())
pulumi.export("config", {k: pulumi.Config().get(k) for k in ("size", "zone")})
pulumi.export("aws_region", pulumi.Config("aws").get("region"))
'''


def project(root: Path, document: dict, answer: int = 42, stack: dict | None = None) -> Path:
    (root / "src" / "infra").mkdir(parents=True)
    (root / "src" / "__main__.py").write_text(PROGRAM)
    (root / "src" / "infra" / "__init__.py").write_text(f"def answer():\n    return {answer}\n")
    (root / "Pulumi.yaml").write_text(yaml.safe_dump({"name": "app", "runtime": "python", "main": "src/", **document}))
    (root / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": stack or {}}))
    return root


def plan(capsys, *argv) -> tuple[int, dict]:
    code = main(["plan", *argv, "--json", "--no-policy"])
    return code, json.loads(capsys.readouterr().out)


def test_the_program_runs_in_its_directory_with_project_config_defaults(tmp_path, capsys):
    root = project(tmp_path / "app", {"config": {"size": "large", "zone": {"default": "a"}, "aws:region": "eu-west-1"}},
                   stack={"zone": "b"})
    before = (os.getcwd(), list(sys.path))
    code, report = plan(capsys, "--project-dir", str(root), "--stack", "dev")
    assert (code, report["errors"]) == (0, [])
    assert report["outputs"]["answer"] == 42 and report["outputs"]["cwd"] == str(root / "src")
    assert report["outputs"]["config"] == {"size": "large", "zone": "b"}  # the stack's value wins
    assert report["outputs"]["aws_region"] == "eu-west-1"  # another namespace's shorthand is a value
    assert (os.getcwd(), sys.path) == before and "infra" not in sys.modules


def test_two_projects_with_an_infra_package_each_plan_side_by_side(tmp_path, capsys):
    first = project(tmp_path / "one", {}, answer=1)
    second = project(tmp_path / "two", {}, answer=2)
    assert plan(capsys, "--project-dir", str(first), "--stack", "dev")[1]["outputs"]["answer"] == 1
    assert plan(capsys, "--project-dir", str(second), "--stack", "dev")[1]["outputs"]["answer"] == 2


def test_a_missing_required_project_key_a_missing_main_and_virtualenv_are_errors_naming_them(tmp_path, capsys):
    root = project(tmp_path / "app", {"config": {"size": {"type": "string"}}})
    code, report = plan(capsys, "--project-dir", str(root), "--stack", "dev")
    assert (code, report["status"], report["resources"]) == (2, "invalid", [])
    assert report["errors"][0]["message"] == ("stack 'dev' is missing configuration the project requires "
                                              "(Pulumi.yaml config, no default): app:size")
    (root / "Pulumi.yaml").write_text(yaml.safe_dump({"name": "app", "runtime": "python", "main": "source/"}))
    code, report = plan(capsys, "--project-dir", str(root), "--stack", "dev")
    [error] = report["errors"]
    assert (code, error["file"], error["line"]) == (2, str(root / "Pulumi.yaml"), 1)
    assert error["message"] == (f"{root / 'Pulumi.yaml'}: main 'source/' does not exist ({root / 'source'}); Pulumi "
                                "reads the program from it")
    (root / "Pulumi.yaml").write_text(yaml.safe_dump({"name": "app", "main": "src/", "runtime": {
        "name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}}}))
    code, report = plan(capsys, "--project-dir", str(root), "--stack", "dev")
    [error] = report["errors"]
    assert (code, report["status"], report["resources"]) == (2, "invalid", [])
    assert error["message"].startswith(f"{root / 'Pulumi.yaml'}: the 'virtualenv' option is {root / 'venv'}, but it "
                                       "doesn't exist; the program runs with that virtualenv's Python")


def test_the_toolchain_and_virtualenv_are_found_as_pulumi_finds_them(tmp_path, monkeypatch):
    root = project(tmp_path / "app", {})
    assert (toolchain_of(load_project(root)), project_python(load_project(root))) == ("pip", None)
    (root / "uv.lock").write_text("")
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").write_text("")
    monkeypatch.delenv("UV_PROJECT_ENVIRONMENT", raising=False)
    assert toolchain_of(load_project(root)) == "uv"  # uv.lock, searched up from the program directory
    assert project_python(load_project(root)) == root / ".venv" / "bin" / "python"


def test_a_program_that_exports_nothing_still_gets_its_pools_layout_and_alerts(capsys):
    example = Path(__file__).resolve().parents[2] / "examples" / "attached-gpu"
    code, report = plan(capsys, "--project-dir", str(example), "--stack", "dev")
    assert (code, [p["name"] for p in report["pools"]]) == (0, ["serving", "training"])
    assert report["pools"][0]["max_nodes"] == 4  # Pulumi.yaml's project-level default
    assert (report["layout"]["recommended"], report["layout"]["unowned_nodes"]) == ("specialized", "unknown")
    assert report["alerts"].startswith("CloudWatch")
    assert "layout" not in report["outputs"] and "pools" not in report["outputs"]
