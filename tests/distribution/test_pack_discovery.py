"""Which pack ``nodepools plan`` runs, with which Python, and what it says when it cannot."""
from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path

import pytest
import yaml

from nodepools.offline.lifeline import LAUNCHER
from nodepools.pack.runtime import pack_python
from nodepools.plan.cli import main
from nodepools.policies.registry import POLICIES

REPO = Path(__file__).resolve().parents[2]
# Nothing to judge: every verdict below is about finding and starting the pack.
PROGRAM = 'import pulumi\npulumi.export("ready", True)\n'


@pytest.fixture
def project(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump({"name": "app", "runtime": "python"}))
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    return tmp_path


def plan(capsys, project, *argv):
    code = main(["plan", "--stack", "dev", "--project-dir", str(project), "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def fake_venv(pack: Path, script: str) -> None:
    """A pack-local virtualenv whose python is ``script`` (sh)."""
    python = pack / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n" + script)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)


def test_without_policy_dir_the_plan_runs_the_pack_shipped_in_the_package(capsys, project):
    code, result = plan(capsys, project)
    assert (code, result["error"]) == (0, None)
    assert result["policy"]["policies"] == len(POLICIES)
    assert result["policy"]["path"] == "the pack shipped in the nodepools package; no policy/ in the project"
    assert not any("not checked" in note for note in result["notes"])


def test_the_project_s_policy_dir_wins_and_runs_with_its_own_venv(capsys, project, tmp_path):
    pack = project / "policy"
    shutil.copytree(REPO / "policy", pack, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    used = tmp_path / "used"
    fake_venv(pack, f'printf "%s\\0" "$@" > {used}\nexec {sys.executable} "$@"\n')
    assert pack_python(pack) == str(pack / "venv" / "bin" / "python")
    code, result = plan(capsys, project)
    assert (code, result["policy"]["path"]) == (0, str(pack))
    # As the engine boots a pack (`python -u -m pulumi.policy ENGINE .`): the same module and arguments,
    # run by the launcher that ties the pack's life to the plan's (nodepools.offline.lifeline).
    assert used.read_text().split("\0")[:-1] == ["-u", "-c", LAUNCHER, "pulumi.policy", "127.0.0.1:0", "."]


def test_a_pack_that_cannot_start_is_exit_2_with_its_error(capsys, project):
    pack = project / "policy"
    shutil.copytree(REPO / "policy", pack, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    fake_venv(pack, "echo \"ModuleNotFoundError: No module named 'nodepools'\" >&2\nexit 1\n")
    code, result = plan(capsys, project)
    assert (code, result["result"], result["error"]["kind"]) == (2, "error", "policy")
    assert "No module named 'nodepools'" in "\n".join(result["error"]["lines"])


def test_a_policy_pack_option_without_a_pack_is_exit_2(capsys, project, tmp_path):
    code, result = plan(capsys, project, "--policy-pack", str(tmp_path / "nowhere"))
    assert code == 2
    assert result["error"]["lines"] == [
        f"the policy pack could not run: --policy-pack {tmp_path / 'nowhere'}: no PulumiPolicy.yaml there"]


def test_no_policy_is_the_only_skip_and_says_so(capsys, project):
    code, result = plan(capsys, project, "--no-policy")
    assert (code, result["policy"]) == (0, None)
    assert "Policies were not checked and placement was not analysed: --no-policy." in result["notes"]


def test_without_a_virtualenv_on_disk_the_pack_runs_with_this_python(tmp_path):
    shutil.copytree(REPO / "policy", tmp_path / "pack", ignore=shutil.ignore_patterns("venv", "__pycache__"))
    assert pack_python(tmp_path / "pack") == sys.executable
