"""The plan's stack model: the recorded run read exactly as the pack reads it.

``resources`` is the one conversion of a mocked run's registrations to the one record: the
``AnalyzeStackRequest`` the engine would send (``offline.analyzer_wire``) read by the pack's own
reader (``pack.wire``), so the plan's placement, training and warm-capacity sections judge the
very resources, namespaces and classes the pack's stack policies judge.
"""
from __future__ import annotations

from datetime import date

from nodepools.inventory.resource import Resource
from nodepools.offline.analyzer_wire import stack_request
from nodepools.offline.engine import Run
from nodepools.pack.wire import Decoded, stack_resources
from nodepools.policies.settings import Settings
from nodepools.policies.stack_view import StackView


def resources(run: Run) -> list[Resource]:
    """Every registration of ``run`` as the pack's stack policies receive it."""
    return stack_resources(stack_request(run.resources), Decoded())


def plan_view(run: Run, today: date, settings: Settings | None = None) -> StackView:
    """The stack model (with its placement report) of ``run`` on ``today``, for the view
    settings of ``settings`` (nodeLabelSources, gpuDeviceClasses; none by default)."""
    return view_of(resources(run), today, settings)


def view_of(items: list[Resource], today: date, settings: Settings | None = None) -> StackView:
    settings = settings or Settings()
    return StackView(items, today=today, label_sources=settings.node_label_sources,
                     gpu_device_classes=settings.gpu_device_classes)
