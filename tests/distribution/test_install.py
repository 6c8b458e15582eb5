"""Outside the checkout: the wheel's CLI plans a user's project with the shipped pack,
and a copy of ``policy/`` (or ``nodepools pack new`` output) serves every policy
from its own virtualenv."""
from __future__ import annotations

import json
import shutil
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import nodepools
from nodepools.offline.analyzer import PolicyPackRunner
from nodepools.pack import PACK_FILES
from nodepools.policies.registry import POLICIES

from dist_helpers import FULL, REPO, bin_of, run

pytestmark = pytest.mark.dist
REGISTERED = sorted(p.name for p in POLICIES)


def test_wheel_ships_the_pack_the_types_and_the_license_with_core_dependencies_only(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        metadata = Parser().parsestr(zf.read(f"nodepools-{nodepools.__version__}.dist-info/METADATA").decode())
    assert {"nodepools/py.typed", "nodepools/pack/template/__main__.py", "nodepools/pack/template/PulumiPolicy.yaml",
            "nodepools/pack/catalogue.json", f"nodepools-{nodepools.__version__}.dist-info/licenses/LICENSE"} <= names
    assert metadata["Version"] == nodepools.__version__ and metadata["License-Expression"] == "Apache-2.0"
    requires = metadata.get_all("Requires-Dist")
    core = sorted(r for r in requires if "extra ==" not in r)
    assert core == ["pulumi<4,>=3.237", "pydantic<3,>=2.10", "pyyaml<7,>=6.0"]
    assert 'pulumi-aws<8,>=7.0; extra == "aws"' in requires and 'pulumi-gcp<11,>=9.0; extra == "gcp"' in requires
    assert {"aws", "gcp", "policy", "all", "test"} <= set(metadata.get_all("Provides-Extra"))
    assert any(url.startswith("Source, https://") for url in metadata.get_all("Project-URL"))


def test_the_sdist_holds_no_tests_rather_than_some(dist):
    [sdist] = dist.glob("nodepools-*.tar.gz")
    with tarfile.open(sdist) as tf:
        names = [n.split("/", 1)[1] for n in tf.getnames() if "/" in n]
    assert not [n for n in names if n.startswith("tests")]
    assert {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "components/nodepools/pack/template/__main__.py",
            "components/nodepools/py.typed"} <= set(names)


def test_installed_cli_plans_a_copied_example_with_the_shipped_pack(app_venv, tmp_path):
    project = tmp_path / "my-stack"
    shutil.copytree(REPO / "examples" / "existing-cluster", project, ignore=shutil.ignore_patterns("venv"))
    # The project's `virtualenv: venv` is where the user installed nodepools: the wheel's venv.
    (project / "venv").symlink_to(app_venv, target_is_directory=True)
    nodepools_cli = bin_of(app_venv, "nodepools")
    assert run(nodepools_cli, "--version").stdout.strip() == f"nodepools {nodepools.__version__}"
    where = run(bin_of(app_venv, "python"), "-c", "import nodepools; print(nodepools.__file__)").stdout
    assert where.startswith(str(app_venv))  # the wheel, not this checkout
    result = run(nodepools_cli, "plan", "--stack", "dev", "--json", cwd=project, check=False)
    plan = json.loads(result.stdout)
    assert (result.returncode, plan["error"], plan["result"]) == (0, None, "ok"), result.stderr
    assert plan["policy"]["pack"] == "nodepools" and plan["policy"]["policies"] == len(REGISTERED)
    assert plan["policy"]["path"].startswith("the pack shipped in the nodepools package")
    assert plan["policy"]["violations"] == []
    assert plan["policy"]["text"][0].startswith(
        f"Policy pack nodepools {nodepools.__version__} ({len(REGISTERED)} policies, the pack shipped")


def _served(pack_dir: Path, python: Path) -> list[str]:
    with PolicyPackRunner(pack_dir=pack_dir, python=str(python)) as pack:
        assert pack.check([]) == []
        return sorted(pack.info().policies)


def test_a_copy_of_policy_alone_serves_every_policy_from_its_own_venv(pack_copy, pack_venv):
    assert _served(pack_copy, bin_of(pack_venv, "python")) == REGISTERED
    where = run(bin_of(pack_venv, "python"), "-c", "import nodepools; print(nodepools.__file__)").stdout
    assert where.startswith(str(pack_venv))  # the wheel, not this checkout


@pytest.mark.skipif(not FULL, reason="the fast slice borrows the pack's dependencies; make test-dist installs them")
def test_the_pack_venv_holds_no_cloud_sdk(pack_venv):
    installed = run(sys.executable, "-m", "pip", "--python", bin_of(pack_venv, "python"), "list", "--format=json").stdout
    names = {p["name"].lower().replace("_", "-") for p in json.loads(installed)}
    assert "nodepools" in names and not names & {"pulumi-aws", "pulumi-gcp", "pulumi-kubernetes"}


def test_pack_new_writes_the_policy_folder_which_serves_every_policy(app_venv, pack_venv, tmp_path):
    target = tmp_path / "org-policies" / "nodepools"
    out = run(bin_of(app_venv, "nodepools"), "pack", "new", target).stdout
    assert f"Wrote the nodepools {nodepools.__version__} policy pack to {target}" in out
    assert sorted(p.name for p in target.iterdir()) == sorted(PACK_FILES)
    for name in PACK_FILES:
        assert (target / name).read_text() == (REPO / "policy" / name).read_text(), name
    # Same requirements as policy/ (asserted above), so the venv built from them serves it too.
    assert _served(target, bin_of(pack_venv, "python")) == REGISTERED
    again = run(bin_of(app_venv, "nodepools"), "pack", "new", target, check=False)
    assert again.returncode == 2 and "pass --force to overwrite" in again.stderr


def test_pack_new_prints_an_install_command_that_finds_this_wheel(app_venv, wheel, tmp_path):
    """nodepools==<version> is not on an index yet: the printed command names the folder of the
    wheel this nodepools was installed from (pip's direct_url.json), and installs it."""
    target = tmp_path / "org-policies" / "nodepools"
    out = run(bin_of(app_venv, "nodepools"), "pack", "new", target).stdout
    commands = [line.strip() for line in out.splitlines() if line.startswith("  ")]
    venv = target / "venv"
    assert commands == [f"python -m venv {venv}",
                        f"{venv}/bin/pip install --find-links {wheel.parent} -r {target}/requirements.txt"]
    run(sys.executable, "-m", "venv", venv)
    install = commands[1].split()
    # The fast slice takes only nodepools from the wheel's folder (its dependencies come from PyPI in test-dist).
    run(*install, *([] if FULL else ["--no-deps", "--no-index"]))
    where = run(bin_of(venv, "python"), "-c", "import importlib.metadata as m; print(m.version('nodepools'))").stdout
    assert where.strip() == nodepools.__version__
