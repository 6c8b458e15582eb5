"""A gate that fails closed (issue 32, item 4): a program that ends its process early, a program or
a pack that never finishes, Ctrl-C, SIGTERM, SIGKILL and stdout noise each end with the right exit
code and a valid report, and nothing the plan started outlives it. Small programs, short timeouts."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nodepools.plan.cli import main
from report_schema import schema_errors

PLAN = [sys.executable, "-m", "nodepools.plan.cli", "plan"]
# A program that starts a process of its own, says so (both pids), then never finishes.
LOOP = """\
import os, subprocess, sys, time
from pathlib import Path
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
Path(os.environ["GATE_PID_FILE"]).write_text(f"{os.getpid()} {child.pid}")
while True:
    time.sleep(0.05)
"""
# A pack that starts, says so (its pid), and never answers.
SILENT_PACK = """\
import os, time
from concurrent import futures
from pathlib import Path
import grpc
from pulumi.runtime.proto import analyzer_pb2_grpc

class Silent(analyzer_pb2_grpc.AnalyzerServicer):
    def ConfigureStack(self, request, context):
        time.sleep(3600)

server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
analyzer_pb2_grpc.add_AnalyzerServicer_to_server(Silent(), server)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
Path(os.environ["GATE_PID_FILE"]).write_text(str(os.getpid()))
print(port, flush=True)
server.wait_for_termination()
"""


def project(root: Path, program: str) -> Path:
    root.mkdir()
    (root / "Pulumi.yaml").write_text(f"name: {root.name}\nruntime: python\n")
    (root / "Pulumi.dev.yaml").write_text("config: {}\n")
    (root / "__main__.py").write_text(program)
    return root


def silent_pack(root: Path) -> Path:
    root.mkdir()
    (root / "PulumiPolicy.yaml").write_text("runtime: python\ndescription: never answers\n")
    (root / "__main__.py").write_text(SILENT_PACK)
    return root


def alive(pid: int) -> bool:
    """Running (a zombie, ended but not yet reaped by its new parent, is not)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.is_dir() and Path("/proc/self").exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (FileNotFoundError, ProcessLookupError):
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def pids(path: Path) -> list[int]:
    return [int(pid) for pid in path.read_text().split()]


def wait_for(path: Path, process: subprocess.Popen, within: float = 60.0) -> list[int]:
    deadline = time.monotonic() + within
    while not (path.is_file() and path.read_text()):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    return pids(path)


def test_a_program_that_ends_its_process_early_fails_the_plan(tmp_path, capsys):
    program = project(tmp_path / "quits", "import os\nimport pulumi\npulumi.export('a', 1)\nos._exit(0)\n")
    report = tmp_path / "plan.json"
    assert main(["plan", "--project-dir", str(program), "--stack", "dev", "--no-policy",
                 "--json-file", str(report)]) == 2
    document = json.loads(report.read_text())
    assert (document["status"], document["resources"]) == ("failed", [])
    assert document["errors"] == [{
        "kind": "program", "config_path": None, "file": str(program / "__main__.py"), "line": None,
        "message": f"the program {program / '__main__.py'} ended before its run finished (exit status 0), so what "
                   "it would register was never all recorded: a program must return to the Pulumi runtime "
                   "(os._exit, a fatal signal or a crash stop it early); nothing it registered was judged"}]
    assert "Traceback" not in "".join(capsys.readouterr())


def test_a_program_past_the_timeout_is_stopped_and_fails_the_plan(tmp_path, capsys, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("GATE_PID_FILE", str(pid_file))
    program = project(tmp_path / "loops", LOOP)
    report = tmp_path / "plan.json"
    started = time.monotonic()
    assert main(["plan", "--project-dir", str(program), "--stack", "dev", "--no-policy", "--timeout", "5",
                 "--json-file", str(report)]) == 2
    assert time.monotonic() - started < 15
    document = json.loads(report.read_text())
    [error] = document["errors"]
    assert (document["status"], error["kind"], error["file"]) == ("failed", "timeout", str(program / "__main__.py"))
    assert error["message"] == (f"the program {program / '__main__.py'} did not finish within 5 s (--timeout) "
                                "and was stopped; nothing it registered was judged")
    assert [pid for pid in pids(pid_file) if alive(pid)] == []  # the program and what it started
    capsys.readouterr()


@pytest.mark.parametrize("signum, stage", [(signal.SIGINT, "programs"), (signal.SIGKILL, "programs"),
                                           (signal.SIGTERM, "pack"), (signal.SIGKILL, "pack")],
                         ids=["ctrl-c-program", "sigkill-program", "sigterm-pack", "sigkill-pack"])
def test_a_signal_stops_the_plan_and_nothing_it_started_outlives_it(tmp_path, signum, stage):
    """SIGINT and SIGTERM: the report (status interrupted), exit 128 + the signal, no traceback.
    SIGKILL: no report can be written, but the program's host or the pack dies with the plan."""
    pid_file = tmp_path / "pid"
    report = tmp_path / "plan.json"
    args = ["--project-dir", str(project(tmp_path / "app", LOOP if stage == "programs" else "import pulumi\n")),
            "--stack", "dev", "--json-file", str(report)]
    if stage == "pack":
        args += ["--policy-pack", str(silent_pack(tmp_path / "pack"))]
    process = subprocess.Popen([*PLAN, *args], env={**os.environ, "GATE_PID_FILE": str(pid_file)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        children = wait_for(pid_file, process)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert [pid for pid in children if not gone(pid)] == [], "outlived the plan"
    if signum == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
        return
    document = json.loads(report.read_text())
    assert (process.returncode, document["exit_code"], document["status"]) == (128 + signum, 128 + signum,
                                                                              "interrupted")
    assert schema_errors(document) == []
    name = signal.Signals(signum).name
    while_ = "the programs ran" if stage == "programs" else "the policy pack judged the run"
    assert document["signal"] == name and document["errors"][0] == {
        "kind": "interrupted", "config_path": None, "file": None, "line": None,
        "message": f"interrupted by {name} while {while_}: the plan stopped there; nothing after it was judged"}
    assert "Traceback" not in out + err


def test_a_pack_that_never_answers_times_out_and_is_stopped(tmp_path, capsys, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("GATE_PID_FILE", str(pid_file))
    pack = silent_pack(tmp_path / "pack")
    report = tmp_path / "plan.json"
    assert main(["plan", "--project-dir", str(project(tmp_path / "app", "import pulumi\n")), "--stack", "dev",
                 "--policy-pack", str(pack), "--timeout", "3", "--json-file", str(report)]) == 2
    document = json.loads(report.read_text())
    assert (document["status"], document["policy"]) == ("failed", None)
    assert document["errors"] == [{
        "kind": "timeout", "config_path": None, "file": str(pack), "line": None,
        "message": f"the policy pack timed out: the pack in {pack} did not answer ConfigureStack within 3 s "
                   "(--timeout); nothing was judged"}]
    assert [pid for pid in pids(pid_file) if alive(pid)] == []
    capsys.readouterr()


def test_what_a_program_writes_to_stdout_goes_to_stderr_and_never_mixes_with_json(tmp_path):
    noisy = project(tmp_path / "noisy", """\
import os, subprocess, sys
import pulumi
print("printed")
os.write(1, b"written to fd 1\\n")
subprocess.run([sys.executable, "-c", "print('from a child')"])
pulumi.export("answer", 42)
""")
    result = subprocess.run([*PLAN, "--project-dir", str(noisy), "--stack", "dev", "--no-policy", "--json"],
                            capture_output=True, text=True, timeout=120)
    document = json.loads(result.stdout)  # the whole of stdout is the report
    assert (result.returncode, document["status"], document["outputs"]) == (0, "ok", {"answer": 42})
    assert schema_errors(document) == []
    for line in ("printed", "written to fd 1", "from a child"):
        assert f"{line}\n" in result.stderr


def test_an_unwritable_report_path_is_an_output_error_and_the_json_report_is_still_written(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    report, markdown = tmp_path / "plan.json", blocker / "plan.md"
    code = main(["plan", "--project-dir", str(project(tmp_path / "app", "import pulumi\n")), "--stack", "dev",
                 "--report", str(markdown), "--json-file", str(report)])
    document = json.loads(report.read_text())
    assert (code, document["status"], document["exit_code"]) == (2, "failed", 2)
    assert document["errors"] == [{"kind": "output", "config_path": None, "file": str(markdown), "line": None,
                                   "message": f"cannot write --report {markdown}: {blocker} is not a folder"}]
    assert document["policy"]["violations"] == [] and document["placement"] is not None  # the verdicts stand
    assert "bug in nodepools" not in json.dumps(document) + "".join(capsys.readouterr())


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan"])
def test_the_timeout_must_be_a_positive_number_of_seconds(tmp_path, capsys, value):
    report = tmp_path / "plan.json"
    assert main(["plan", "--timeout", value, "--json-file", str(report)]) == 2
    [error] = json.loads(report.read_text())["errors"]
    assert error == {"kind": "usage", "config_path": None, "file": None, "line": None,
                     "message": f"nodepools plan: argument --timeout: expected a number of seconds above 0, "
                                f"got {value!r}"}
    capsys.readouterr()
