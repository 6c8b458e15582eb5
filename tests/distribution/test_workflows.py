"""The release and deploy workflows do what the README says, in the order that works."""
from __future__ import annotations

from pathlib import Path

import yaml

import nodepools

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def runs(job: dict) -> list[str]:
    return [s["run"] for s in job["steps"] if "run" in s]


def test_release_builds_once_publishes_with_trusted_publishing_then_the_pack_on_a_tag():
    workflow = load("release.yml")
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as True
    jobs = workflow["jobs"]
    assert "python -m build --outdir dist ." in runs(jobs["build"])
    pypi = jobs["publish-pypi"]
    assert pypi["permissions"] == {"id-token": "write"} and pypi["environment"] == "pypi"
    assert [s.get("uses") for s in pypi["steps"]][-1] == "pypa/gh-action-pypi-publish@release/v1"
    assert not any("password" in (s.get("with") or {}) for s in pypi["steps"])  # no token: trusted publishing
    pack = jobs["publish-pack"]
    assert pack["needs"] == ["publish-pypi"]  # the pack's requirements.txt installs nodepools from PyPI
    [publish] = [s for s in pack["steps"] if s.get("run", "").startswith("pulumi policy publish")]
    assert publish["working-directory"] == "policy"


def test_deploy_creates_the_pack_venv_before_previewing_with_the_pack():
    jobs = load("deploy.yml")["jobs"]
    for name in ("deploy-dev", "deploy-prod"):
        commands = runs(jobs[name])
        venv = next(i for i, c in enumerate(commands) if "python -m venv policy/venv" in c)
        preview = next(i for i, c in enumerate(commands) if c.startswith("pulumi preview"))
        assert venv < preview
        assert "policy/venv/bin/pip install --find-links dist -r policy/requirements.txt" in commands[venv]


def test_ci_plans_once_and_uploads_and_annotates_whatever_the_result():
    steps = load("deploy.yml")["jobs"]["plan"]["steps"]
    plans = [s for s in steps if "nodepools plan" in s.get("run", "") or s.get("run", "").startswith("make plan")]
    assert len(plans) == 1
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    [annotate] = [s for s in steps if "nodepools.plan.annotations" in s.get("run", "")]
    assert upload["if"] == "always()" and annotate["if"].startswith("always()")


def test_the_pack_manifest_and_requirements_carry_this_version():
    policy = Path(__file__).resolve().parents[2] / "policy"
    assert yaml.safe_load((policy / "PulumiPolicy.yaml").read_text())["version"] == nodepools.__version__
    pins = [line for line in (policy / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert pins == [f"nodepools=={nodepools.__version__}"]


def test_each_example_s_requirements_install_this_checkout_with_the_extra_its_imports_need():
    repo = Path(__file__).resolve().parents[2]
    for example in sorted(p.parent for p in (repo / "examples").glob("*/__main__.py")):  # Python examples
        [line] = [r for r in (example / "requirements.txt").read_text().splitlines() if r and not r.startswith("#")]
        path, _, extra = line.rstrip("]").partition("[")
        assert (example / path).resolve() == repo, example.name  # pip resolves it from the project directory
        # The program and the modules beside it (not its tests, not its venv).
        program = "".join(f.read_text() for f in example.rglob("*.py")
                          if not {"tests", "venv"} & set(f.relative_to(example).parts))
        needed = "aws" if "import pulumi_aws" in program or "nodepools.backends.aws" in program else \
            "gcp" if "import pulumi_gcp" in program or "nodepools.backends.gcp" in program else "kubernetes"
        assert extra == needed, example.name
