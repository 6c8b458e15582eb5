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


import suite_dates  # noqa: E402


def pytest_addoption(parser) -> None:
    parser.addoption("--today", default=None, metavar="YYYY-MM-DD|run",
                     help="the date the suite judges by (tests/suite_dates.py): a date, or 'run' for the run's UTC "
                          f"date read by the pack itself; default ${suite_dates.ENV}, else {suite_dates.PINNED}")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "dated: judged at every calendar boundary of tests/suite_dates.py in one run "
                                       "(unless --today names one date)")
    suite_dates.resolve(suite_dates.chosen(config.getoption("--today")))  # a bad --today stops the run here


def pytest_generate_tests(metafunc) -> None:
    if ("today" in metafunc.fixturenames and metafunc.definition.get_closest_marker("dated")
            and suite_dates.chosen(metafunc.config.getoption("--today")) is None):
        metafunc.parametrize("today", suite_dates.calendar(), indirect=True, ids=str)


@pytest.fixture
def today(request):
    """The date this test judges by (``datetime.date``): the suite's, or this ``dated`` test's boundary."""
    return getattr(request, "param", None) or suite_dates.resolve(suite_dates.chosen(request.config.getoption("--today")))[0]


@pytest.fixture
def told(request, today):
    """The date the pack and the plan are given (their ``today`` config / ``--today``); None when the suite
    runs at the run's date (``--today run``): they read it themselves, as they do by default."""
    _, tell = suite_dates.resolve(suite_dates.chosen(request.config.getoption("--today")))
    return today if tell or getattr(request, "param", None) else None


@pytest.fixture(scope="session")
def session_told(request):
    """``told`` for session-wide fixtures (a pack started once): the suite's date, or None for ``run``."""
    day, tell = suite_dates.resolve(suite_dates.chosen(request.config.getoption("--today")))
    return day if tell else None


@pytest.fixture(autouse=True)
def the_plan_judges_on_the_suites_date(monkeypatch, told):
    """``nodepools plan`` run in process takes the suite's date as its ``--today`` default (its edge,
    ``cli.run_date``), so a plan test passes whatever the machine's date."""
    if told is not None:
        from nodepools.plan import cli
        monkeypatch.setattr(cli, "run_date", lambda: told)
