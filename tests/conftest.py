"""Session setup shared by every test directory.

The examples declare ``virtualenv: venv`` (Pulumi's template layout) and the plan runs a
program with its project's virtualenv, as Pulumi does. Their ``requirements.txt``
installs this checkout, which is what the test runner's environment is: an example
without a venv of its own gets a link to it (as ``make plan`` makes), so its
program runs in this process.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from report_schema import schema_errors  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def pytest_sessionstart(session) -> None:  # noqa: ARG001 - pytest hook signature
    for project in EXAMPLES.glob("*/Pulumi.yaml"):
        venv = project.parent / "venv"
        if "virtualenv: venv" not in project.read_text() or (venv.exists() and not venv.is_symlink()):
            continue  # a real venv (`pulumi install` made it) is the user's
        # A link is ours: point it at the venv under test (a checkout's venv can be rebuilt or moved).
        if venv.is_symlink() and venv.resolve() != Path(sys.prefix).resolve():
            venv.unlink()
        if not venv.is_symlink():
            venv.symlink_to(Path(sys.prefix), target_is_directory=True)


import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def every_plan_report_is_schema_valid():
    """Every report the suite's in-process plans produce is validated against the shipped
    schema as it is produced (a test whose plan breaks it fails); reports written by
    subprocesses are checked by their tests (tests/distribution)."""
    from nodepools.plan import cli

    original = cli.report_document

    def checked(plan: dict) -> dict:
        document = original(plan)
        problems = schema_errors(json.loads(json.dumps(document, default=str)))
        assert not problems, f"the plan report breaks report.schema.json: {problems[:5]}"
        return document

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli, "report_document", checked)
        yield


import json  # noqa: E402
