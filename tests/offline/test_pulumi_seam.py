"""The contract of nodepools.offline.pulumi_seam: the two names the offline engine takes from the
Pulumi SDK beyond ``pulumi.runtime``'s exports, and each behaviour of the SDK it relies on.

An SDK upgrade that moves a name or changes one of these behaviours fails here, naming the seam,
before the engine fails in every test that runs a program.
"""
from __future__ import annotations

import asyncio
import re
import typing
from importlib.metadata import version
from pathlib import Path

import pulumi
import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from nodepools.offline import pulumi_seam
from nodepools.offline.engine import on_a_fresh_loop, run_program

SEAM = "nodepools.offline.pulumi_seam"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_seam_cites_the_range_pyproject_pins_and_the_installed_sdk_is_in_it():
    pinned = re.search(r'"pulumi(>=[^"]+)"', PYPROJECT.read_text()).group(1)
    assert pulumi_seam.SDK_RANGE == pinned, f"{SEAM}.SDK_RANGE and pyproject.toml's pulumi pin differ"
    assert Version(version("pulumi")) in SpecifierSet(pulumi_seam.SDK_RANGE)
    assert f'SDK_RANGE = "{pinned}"' in Path(pulumi_seam.__file__).read_text()


def test_mock_monitor_is_the_type_set_mocks_takes():
    hints = typing.get_type_hints(pulumi.runtime.set_mocks)
    assert hints["monitor"] == typing.Optional[pulumi_seam.MockMonitor], (
        f"pulumi.runtime.set_mocks no longer takes {SEAM}.MockMonitor")


def in_a_fresh_thread(body):
    """Run ``body(loop)`` as the engine runs a program: a new thread with its own event loop."""
    value, error = on_a_fresh_loop(body)
    if error is not None:
        raise error
    return value


class Recording(pulumi_seam.MockMonitor):
    """Records, per request, whether the monitor's thread had an event loop once the SDK's
    MockMonitor handled it (the engine reads resource references with it)."""

    def __init__(self, mocks):
        super().__init__(mocks)
        self.loops, self.outputs = [], {}

    def RegisterResource(self, request):  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            try:
                asyncio.get_event_loop()
                self.loops.append(True)
            except RuntimeError:
                self.loops.append(False)
        return response

    def RegisterResourceOutputs(self, request):  # noqa: N802 - gRPC method name
        self.outputs[request.urn] = {k: v for k, v in request.outputs.items()}
        return super().RegisterResourceOutputs(request)


class Echo(pulumi.runtime.Mocks):
    def new_resource(self, args):
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args):
        return {}


def test_set_mocks_leaves_a_root_stack_that_clear_root_stack_removes_for_run_in_stack():
    def body(loop):
        monitor = Recording(Echo())
        pulumi.runtime.set_mocks(Echo(), project="p", stack="s", preview=True, monitor=monitor)
        root = pulumi.runtime.get_root_resource()
        assert root is not None, f"set_mocks no longer registers a root Stack: {SEAM}.clear_root_stack is moot"

        def program():
            pulumi.CustomResource("test:index:Thing", "thing", {"size": 1})
            pulumi.export("answer", 42)

        with pytest.raises(Exception, match="Only one root Pulumi Stack"):
            loop.run_until_complete(pulumi.runtime.run_in_stack(program))
        pulumi_seam.clear_root_stack()
        assert pulumi.runtime.get_root_resource() is None, f"{SEAM}.clear_root_stack no longer clears the root"
        loop.run_until_complete(pulumi.runtime.run_in_stack(program))
        return monitor

    monitor = in_a_fresh_thread(body)
    assert monitor.loops == [True], f"MockMonitor.RegisterResource no longer gives its thread an event loop ({SEAM})"
    stack_urn = "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s"
    assert monitor.outputs[stack_urn] == {"answer": 42.0}


def test_the_engine_records_a_run_through_the_seam():
    """What the engine builds on the seam: registrations, reads and the stack's exports."""
    def program():
        pulumi.StackReference("platform", stack_name="acme/p/s")
        pulumi.export("n", 1)

    for preview in (True, False):
        run = run_program(program, preview=preview)
        assert (run.stack_urn, run.outputs) == ("urn:pulumi:dev::nodepools::pulumi:pulumi:Stack::nodepools-dev",
                                                {"n": 1.0})
        assert [(r.type, r.name, r.id) for r in run.reads] == [("pulumi:pulumi:StackReference", "platform",
                                                                 "acme/p/s")]
