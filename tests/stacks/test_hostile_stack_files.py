"""Hostile or careless stack files (issue 26): refused fast with the file and line, exit 2,
the JSON report written; never a hang, a traceback or exit 1 ("a mandatory policy is violated")."""
import json

import pytest
import yaml

from nodepools import safe_yaml
from nodepools.config import StackConfigError, namespaced, read_stack_file
from nodepools.plan.project import ProjectError, stack_file_keys
from nodepools.plan.cli import main

BASE = "config:\n  nodepools:layout: specialized\n"
# A 1 KB "billion laughs": nine levels of nine aliases, 9**9 values once expanded.
BOMB = BASE + "  nodepools:bomb:\n    a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
HOSTILE = [
    ("alias bomb", BOMB.encode(), 9,
     "Pulumi.dev.yaml is refused (line 9): more than 100,000 values once its aliases (*name) are expanded "
     "(an alias bomb?)"),
    ("5,000-deep nesting", (BASE + "  nodepools:deep: " + "[" * 5000 + "]" * 5000 + "\n").encode(), 3,
     "Pulumi.dev.yaml is refused (line 3): nesting deeper than 100 levels"),
    ("not UTF-8", (BASE + "  nodepools:note: caf\xe9\n").encode("latin-1"), 3,
     "Pulumi.dev.yaml is not UTF-8 text (line 3): byte 0xe9 cannot be decoded; save the file as UTF-8"),
    # The case: a second nodepools:pools silently dropped the four pools of the first.
    ("duplicate key", (BASE + "  nodepools:pools:\n" + "".join(f"    - {{name: p{i}}}\n" for i in range(4))
                       + "  nodepools:pools: []\n").encode(), 8,
     "Pulumi.dev.yaml has a duplicate key (line 8): 'nodepools:pools' is also at line 3; YAML would keep only the "
     "last and drop the other silently: remove one"),
]


# Issue 32: what YAML 1.1 (PyYAML, the plan's reader) and Pulumi's YAML 1.2 reader read differently, and
# values JSON (how Pulumi hands config to a program) has no form for; each refused with its config path.
POOL = BASE + "  nodepools:pools:\n    - name: web\n"
READ_TWO_WAYS = [
    ("a YAML 1.1 boolean key", (POOL + "      labels: {on: x}\n").encode(), 5,
     "Pulumi.dev.yaml is refused (line 5): nodepools:pools[0].labels: key on is the boolean true in YAML 1.1 and the "
     "string 'on' in YAML 1.2: quote it ('on')"),
    ("keys that are one number", (BASE + "  nodepools:pools:\n    - labels: {0x1: a, 1: b}\n").encode(), 4,
     "Pulumi.dev.yaml is refused (line 4): nodepools:pools[0].labels: key 0x1 is read as an integer, not a string (0x1 "
     "and 1 would be one key): quote it ('0x1')"),
    ("n as a key", (BASE + "  nodepools:guardrails:\n    namespaces: {n: batch}\n").encode(), 4,
     "Pulumi.dev.yaml is refused (line 4): nodepools:guardrails.namespaces: key n is the boolean false in YAML 1.1 and "
     "the string 'n' in YAML 1.2: quote it ('n')"),
    ("off as a value", (POOL + "      dedicated: off\n").encode(), 5,
     "Pulumi.dev.yaml is refused (line 5): nodepools:pools[0].dedicated: off is the boolean false in YAML 1.1 and the "
     "string 'off' in YAML 1.2: write true or false, or quote it"),
    ("a null key", (BASE + "  nodepools:guardrails:\n    namespaces: {null: batch}\n").encode(), 4,
     "Pulumi.dev.yaml is refused (line 4): nodepools:guardrails.namespaces: key null is read as null, not a string: "
     "quote it ('null')"),
    ("a 5,000-digit integer", (POOL + "      max_nodes: " + "9" * 5000 + "\n").encode(), 5,
     "Pulumi.dev.yaml is refused (line 5): nodepools:pools[0].max_nodes: an integer of 5000 digits is out of range: "
     "JSON keeps integers exactly up to +-9,007,199,254,740,991 (2**53 - 1); quote it if it is a name"),
    ("a timestamp", (POOL + "      labels: {since: 2026-12-01}\n").encode(), 5,
     "Pulumi.dev.yaml is refused (line 5): nodepools:pools[0].labels.since: 2026-12-01 is a timestamp in YAML 1.1 and a "
     "string in YAML 1.2, and JSON has no timestamp: quote it ('2026-12-01')"),
    ("a !!binary value", (POOL + "      labels: {blob: !!binary aGVsbG8=}\n").encode(), 5,
     "Pulumi.dev.yaml is refused (line 5): nodepools:pools[0].labels.blob: a !!binary value has no JSON form (Pulumi "
     "hands config to programs as JSON): give a string"),
    ("a !!set value", (POOL + "      instance_types: !!set {m7i.xlarge, m6i.xlarge}\n").encode(), 5,
     "Pulumi.dev.yaml is refused (line 5): nodepools:pools[0].instance_types: a !!set has no JSON form (Pulumi hands "
     "config to programs as JSON): give a list"),
]
HOSTILE += READ_TWO_WAYS


def events_of(content: bytes) -> list:
    """The file's YAML events (an alias is one event, however much it stands for); [] when not UTF-8."""
    try:
        return list(yaml.parse(content.decode("utf-8")))
    except UnicodeDecodeError:
        return []


def count_reading_work(monkeypatch) -> dict[str, int]:
    """Count every node the bounded reader composes and every alias size it works out."""
    work = {"steps": 0}
    for method in ("compose_node", "_size"):
        original = getattr(safe_yaml._BoundedLoader, method)

        def counted(self, *args, _original=original):
            work["steps"] += 1
            return _original(self, *args)
        monkeypatch.setattr(safe_yaml._BoundedLoader, method, counted)
    return work


def project(tmp_path, stack_file: bytes, project_file: str = "name: app\nruntime: python\n"):
    (tmp_path / "Pulumi.yaml").write_text(project_file)
    (tmp_path / "__main__.py").write_text("raise SystemExit('the program must not run')\n")
    (tmp_path / "Pulumi.dev.yaml").write_bytes(stack_file)
    return tmp_path


@pytest.mark.parametrize("content, line, message", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_a_hostile_stack_file_is_refused_fast_with_its_line_exit_2_and_a_report(tmp_path, capsys, monkeypatch,
                                                                                content, line, message):
    root = project(tmp_path, content)
    report = tmp_path / "out" / "plan.json"
    work = count_reading_work(monkeypatch)
    code = main(["plan", "--project-dir", str(root), "--stack", "dev", "--json-file", str(report), "--no-color"])
    # Fast by construction, whatever the machine: the reader's work is bounded by the files' own events
    # (each node composed and sized once), never by what their aliases or nesting would expand to.
    files = [content, (root / "Pulumi.yaml").read_bytes()]
    assert 0 < work["steps"] <= 2 * sum(len(events_of(f)) for f in files), work
    out, err = capsys.readouterr()
    assert code == 2
    document = json.loads(report.read_text())
    assert (document["status"], document["exit_code"]) == ("invalid", 2)
    assert document["errors"] == [{"kind": "project", "message": message, "config_path": None,
                                   "file": str(root / "Pulumi.dev.yaml"), "line": line}]
    assert f"nodepools plan: {message}\n" in err
    assert "Traceback" not in out + err


def test_a_hostile_project_file_is_refused_with_its_line(tmp_path, capsys):
    root = project(tmp_path, BASE.encode())
    (root / "Pulumi.yaml").write_text("name: app\nruntime: python\nname: other\n")
    report = tmp_path / "plan.json"
    assert main(["plan", "--project-dir", str(root), "--stack", "dev", "--json-file", str(report)]) == 2
    assert json.loads(report.read_text())["errors"] == [{
        "kind": "project", "config_path": None, "file": str(root / "Pulumi.yaml"), "line": 3,
        "message": "Pulumi.yaml has a duplicate key (line 3): 'name' is also at line 1; YAML would keep only the "
                   "last and drop the other silently: remove one"}]
    assert "Traceback" not in "".join(capsys.readouterr())


@pytest.mark.parametrize("content, line, message", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_read_stack_file_refuses_the_same_files_by_name(tmp_path, content, line, message):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_bytes(content)
    with pytest.raises(StackConfigError) as caught:
        read_stack_file(path)
    assert caught.value.lines == [message]


def test_anchors_and_aliases_of_ordinary_size_still_read(tmp_path):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text("config:\n  nodepools:a: &labels {team: ml}\n  nodepools:b: *labels\n")
    assert read_stack_file(path) == {"nodepools:a": {"team": "ml"}, "nodepools:b": {"team": "ml"}}


def test_deep_config_the_engine_hands_over_as_json_is_an_error_naming_its_key():
    with pytest.raises(StackConfigError) as caught:
        namespaced({"nodepools:pools": "[" * 5000 + "]" * 5000, "aws:region": "us-west-2"})
    assert caught.value.lines == ["nodepools:pools: refused: nested too deeply to read (a stack file may nest "
                                  "at most 100 levels)"]


def plan_errors(root, tmp_path):
    report = tmp_path / "plan.json"
    code = main(["plan", "--project-dir", str(root), "--stack", "dev", "--json-file", str(report)])
    return code, json.loads(report.read_text())["errors"]


REAL_POOLS = BASE + "  nodepools:pools:\n" + "".join(f"    - {{name: p{i}}}\n" for i in range(3))


def test_a_bare_key_appended_to_a_stack_file_is_refused_not_read_as_the_projects(tmp_path, capsys):
    """The issue's case: in project nodepools, a bare ``pools:`` is ``nodepools:pools`` to Pulumi and silently
    replaced the three pools of the real list (plan ok)."""
    root = project(tmp_path, (REAL_POOLS + "  pools: []\n").encode(), "name: nodepools\nruntime: python\n")
    code, errors = plan_errors(root, tmp_path)
    assert code == 2
    assert errors == [{"kind": "project", "config_path": None, "file": str(root / "Pulumi.dev.yaml"), "line": 7,
                       "message": "Pulumi.dev.yaml: pools: a config key without a namespace is read by Pulumi as "
                                  "'nodepools:pools', which the project's Pulumi.yaml (name: nodepools) does not "
                                  "declare; write the key with its namespace (nodepools:pools for nodepools' config, "
                                  "aws:pools for the AWS provider's, ...) or declare it under config: in Pulumi.yaml"}]
    assert "Traceback" not in "".join(capsys.readouterr())


def test_a_declared_bare_key_is_the_projects_but_not_beside_its_namespaced_twin(tmp_path):
    declared = "name: nodepools\nruntime: python\nconfig:\n  pools:\n    type: array\n"
    root = project(tmp_path, (REAL_POOLS + "  pools: []\n").encode(), declared)
    code, errors = plan_errors(root, tmp_path)
    assert (code, [e["message"] for e in errors], errors[0]["line"]) == (2, [
        "Pulumi.dev.yaml: pools: names the config key 'nodepools:pools', as 'nodepools:pools' does; Pulumi keeps one "
        "and drops the other silently: remove one"], 7)


def test_stack_file_keys_takes_namespaced_and_declared_bare_keys(tmp_path):
    raw = {"nodepools:layout": "flat", "aws:region": "us-west-2", "replicas": 3}
    path = tmp_path / "Pulumi.dev.yaml"
    assert stack_file_keys(raw, "app", {"app:replicas": {"type": "integer"}}, path) == {
        "nodepools:layout": "flat", "aws:region": "us-west-2", "app:replicas": 3}
    with pytest.raises(ProjectError) as caught:
        stack_file_keys(raw, "app", {}, path)
    assert str(caught.value).startswith("Pulumi.dev.yaml: replicas: a config key without a namespace is read by "
                                        "Pulumi as 'app:replicas'")
