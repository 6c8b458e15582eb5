"""The date is an input (docs/design.md section 10): no rule, reader, guardrail or plan section reads the
machine's clock for a date. The run's UTC date is read at two edges only, each in one function named
``run_date``: the pack's servicer (the default of the pack config's ``today``) and the CLI (``nodepools
plan --today``'s default). Everything else is handed the date (``StackModel.today``, ``Settings.today``)."""
from __future__ import annotations

import ast
from pathlib import Path

import nodepools

ROOT = Path(nodepools.__file__).parent
EDGES = {("pack/servicer.py", "run_date"), ("plan/cli.py", "run_date")}
# Calls that read the clock as a date or a wall time: datetime.now/utcnow/today, date.today, and the
# time module's wall-clock readings and conversions (time.time() alone, for durations, is no date).
CLOCK = {("datetime", "now"), ("datetime", "utcnow"), ("datetime", "today"), ("date", "today"),
         ("datetime", "fromtimestamp"), ("datetime", "utcfromtimestamp"), ("date", "fromtimestamp"),
         ("time", "gmtime"), ("time", "localtime"), ("time", "ctime"), ("time", "strftime"), ("time", "asctime")}


def _dotted(node: ast.AST) -> tuple[str, ...]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return tuple(reversed(parts))


def clock_reads() -> set[tuple[str, str]]:
    """(module, enclosing function) of every clock read in the package, through any import alias."""
    found = set()
    for path in ROOT.rglob("*.py"):
        module = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text())
        # A local name -> what it is: ``import datetime as dt`` (dt -> datetime), ``from datetime import
        # date as d`` (d -> date), ``from time import gmtime`` (gmtime -> time.gmtime).
        names: dict[str, tuple[str, ...]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update({a.asname or a.name: tuple(a.name.split(".")[-1:]) for a in node.names})
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.update({a.asname or a.name: (node.module.split(".")[-1], a.name) for a in node.names})

        def visit(node: ast.AST, function: str) -> None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                function = node.name
            if isinstance(node, ast.Call):
                name = _dotted(node.func)
                if name:
                    name = (*names.get(name[0], name[:1]), *name[1:])
                    if any(name[i:i + 2] in CLOCK for i in range(len(name) - 1)):
                        found.add((module, function))
            for child in ast.iter_child_nodes(node):
                visit(child, function)

        visit(tree, "<module>")
    return found


def test_the_clock_is_read_at_the_two_edges_only():
    assert clock_reads() == EDGES


def test_the_edges_read_the_utc_date():
    """Each edge is the run's UTC date (never the machine's local date)."""
    from nodepools.pack import servicer
    from nodepools.plan import cli

    for module in (servicer, cli):
        source = ast.unparse(next(n for n in ast.walk(ast.parse(Path(module.__file__).read_text()))
                                  if isinstance(n, ast.FunctionDef) and n.name == "run_date"))
        assert "datetime.now(timezone.utc).date()" in source, module.__name__
