"""The plan on a terminal: its width, colour only where wanted, help a person can read."""
import io
import json

import pytest

from nodepools.plan.cli import main, parser
from nodepools.plan.render import render, wrap
from nodepools.plan.terminal import Terminal, wants_colour, width


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert wants_colour(FakeTTY(), no_color=False) is True
    assert wants_colour(io.StringIO(), no_color=False) is False  # a pipe or a file
    assert wants_colour(FakeTTY(), no_color=True) is False  # --no-color
    monkeypatch.setenv("NO_COLOR", "1")
    assert wants_colour(FakeTTY(), no_color=False) is False


def test_rich_styles_the_lines_without_changing_them():
    stream = FakeTTY()
    Terminal(width=100, colour=True, stream=stream).print("ERROR: the config is invalid:\n  a line\nResult: error")
    out = stream.getvalue()
    assert "\x1b[1;31mERROR: the config is invalid:\x1b[0m" in out
    assert "\n  a line\n" in out
    plain = io.StringIO()
    Terminal(width=100, colour=False, stream=plain).print("Result: ok")
    assert plain.getvalue() == "Result: ok\n"


def test_width_follows_columns_with_a_default_of_100(monkeypatch):
    monkeypatch.setenv("COLUMNS", "132")
    assert width() == 132
    monkeypatch.setenv("COLUMNS", "20")
    assert width() == 60  # never narrower than a readable minimum
    monkeypatch.delenv("COLUMNS")
    assert width() == 100  # not a terminal: 100


def test_json_never_carries_colour(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    assert main(["plan", "--stack", "gcp-dev", "--no-policy", "--json"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out and json.loads(out)["status"] == "ok"


def test_long_text_wraps_with_a_hanging_indent():
    lines = wrap("word " * 40, 30, "  ")
    assert all(len(line) <= 30 for line in lines) and lines[1].startswith("      word")


def test_the_matrix_turns_into_one_block_per_workload_when_it_does_not_fit():
    placement = {"text": [], "gpu_text": [], "table": {
        "header": ["workload", "pool-a (batch)", "pool-b (resident)", "summary"],
        "rows": [["Job batch/nightly", "fits", "affinity", "ok"]], "after": ["", "legend"]}}
    plan = {"stack": "s", "project": "p", "program": "__main__.py", "engine": "mock", "errors": [], "resources": [],
            "counts": {}, "pools": [], "placement": placement, "notes": [], "result": "ok"}
    wide = render(plan, width=100)
    assert "  workload          | pool-a (batch) | pool-b (resident) | summary" in wide
    narrow = render(plan, width=40)
    assert "  Job batch/nightly: ok\n    fits: pool-a (batch)\n    affinity: pool-b (resident)" in narrow


@pytest.mark.parametrize("argv", [["plan", "--help"], ["pack", "new", "--help"], ["--help"]])
def test_help_is_plain_text_with_examples(argv, capsys):
    with pytest.raises(SystemExit) as done:
        parser().parse_args(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "examples:\n" in out and "``" not in out and "::" not in out


def test_bad_arguments_are_exit_2_with_a_report(tmp_path, capsys):
    report = tmp_path / "plan.json"
    assert main(["plan", "--stack", "x", "--bogus", "--json-file", str(report)]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    document = json.loads(report.read_text())
    assert (document["status"], document["errors"][0]["kind"]) == ("invalid", "usage")
