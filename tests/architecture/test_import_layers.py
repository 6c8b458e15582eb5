"""Data flows one way: every import in the package goes to its own package or to a lower layer,
and no chain of module imports comes back to where it started (docs/architecture.md, "The one rule")."""
from __future__ import annotations

import ast
from pathlib import Path

import nodepools

ROOT = Path(nodepools.__file__).parent
# Lowest first. A module may import its own package and any package of a lower
# layer; packages that share a layer never import each other.
LAYERS: list[tuple[str, ...]] = [
    ("nodepools", "vocabulary", "extras", "safe_yaml"),  # the root package, the one spelling of every name,
                                                          # the extras check, the one YAML reader
    ("spec",),                             # the cloud-neutral spec
    ("clouds",),                           # each cloud's spelling of the vocabulary
    ("backends", "guardrails", "inventory"),  # spec -> provider inputs; in-cluster objects; raw resources -> views
    ("components", "placement"),           # Pulumi components; where workloads can land
    ("policies",),                         # the CrossGuard pack's rules
    ("config", "multilang", "offline", "pack"),  # a stack's config -> cluster, platform; the components for
                                           # other languages; the mock engine (what a cloud computes, read from
                                           # spec's tables) and the Analyzer client (it sends the one resource
                                           # record, inventory.resource); the policy pack
    ("plan", "testing"),                   # the offline plan CLI; mocks for users' unit tests
]
LAYER_OF = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}
# Cloud SDKs are imported by the backends alone (docs/architecture.md, "Where clouds are named"):
# every other package, the policy pack's and the stack config's included, loads without them.
PROVIDER_SDKS = ("pulumi_aws", "pulumi_gcp")
SDK_PACKAGES = ("backends",)


def module_name(path: Path) -> str:
    parts = ("nodepools",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(path: Path, at_runtime_only: bool) -> set[str]:
    """Every module ``path`` imports; ``from pkg import mod`` counts ``pkg.mod``, not ``pkg``'s
    ``__init__`` (a parent package is loaded first anyway, so it is no dependency)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if at_runtime_only and isinstance(node, ast.If) and is_type_checking(node):
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{a.name}" for a in node.names} & set(MODULES)
            found.update(submodules)
            if len(submodules) < len(node.names):  # names defined by the module itself
                found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def test_every_package_has_a_layer():
    assert {package_of(m) for m in MODULES} == set(LAYER_OF)


def test_no_import_runs_up_or_sideways():
    wrong = []
    for module, path in sorted(MODULES.items()):
        source = package_of(module)
        for target in sorted(imports(path, at_runtime_only=False)):
            if target.split(".")[0] != "nodepools" or package_of(target) == source:
                continue
            if LAYER_OF[package_of(target)] >= LAYER_OF[source]:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_no_import_cycle():
    """Imports used only for type hints count too: a circle of them is still two modules that
    need each other (and none is hidden under ``if TYPE_CHECKING:``)."""
    graph = {m: {t for t in imports(p, at_runtime_only=False) if t in MODULES and t != m} for m, p in MODULES.items()}
    cycles, done, stack = [], set(), []

    def walk(module: str) -> None:
        if module in stack:
            cycles.append(" -> ".join(stack[stack.index(module):] + [module]))
            return
        if module in done:
            return
        stack.append(module)
        for target in sorted(graph[module]):
            walk(target)
        stack.pop()
        done.add(module)

    for module in sorted(graph):
        walk(module)
    assert cycles == [], "\n".join(cycles)


def test_only_backends_import_a_cloud_sdk():
    """``extras`` names the SDKs as strings to check they are installed; it imports none."""
    wrong = [f"{m} imports {t}" for m, p in sorted(MODULES.items()) if package_of(m) not in SDK_PACKAGES
             for t in imports(p, at_runtime_only=False) if t.split(".")[0] in PROVIDER_SDKS]
    assert wrong == []


def test_no_import_hides_under_type_checking():
    hidden = [module for module, path in sorted(MODULES.items())
              if any(isinstance(node, ast.If) and is_type_checking(node) for node in ast.walk(ast.parse(path.read_text())))]
    assert hidden == []


DOC = ROOT.parents[1] / "docs" / "architecture.md"


def package_edges() -> set[tuple[str, str]]:
    return {(package_of(m), package_of(t)) for m, p in MODULES.items() for t in imports(p, at_runtime_only=False)
            if t.split(".")[0] == "nodepools" and package_of(t) != package_of(m)}


def test_the_architecture_page_draws_the_code():
    """docs/architecture.md's layer table is LAYERS, and every arrow of its diagram is an import."""
    import re
    text = DOC.read_text()
    rows = re.findall(r"^\| (\d) \| ([^|]+) \|", text, re.M)
    assert [set(re.findall(r"`(\w+)`", packages)) for _, packages in rows] == [set(layer) for layer in LAYERS]
    arrows = set(re.findall(r"^\s+(\w+) --> (\w+)$", text, re.M))
    assert arrows and arrows <= package_edges(), sorted(arrows - package_edges())
    drawn = {name for pair in arrows for name in pair}
    assert drawn == set(LAYER_OF) - {"nodepools", "extras", "safe_yaml"}
