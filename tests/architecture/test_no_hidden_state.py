"""No SDK internals and no hidden state (docs/architecture.md, "No hidden state"), read by ``ast``.

- No module of the package imports a name starting with ``_`` from another package (``pulumi``,
  any third-party library, the standard library), imports a private module of one, or reaches a
  private attribute through an imported module. Where the SDK has no public spelling, the one pinned
  seam (``nodepools.offline.pulumi_seam``) imports public-looking names beyond ``pulumi.runtime``'s
  exports and a contract test holds it (tests/offline/test_pulumi_seam.py).
- No module keeps state between calls: no function mutates a module-level name (item or attribute
  assignment, ``del``, a mutating method such as ``append``, ``update`` or ``setdefault``, through
  the name or anything reached from it), rebinds one (``global``), or writes ``globals()``; no
  module-level name holds a container made to be mutated (``WeakKeyDictionary``, ``defaultdict``,
  ...). Constant tables built at import are fine; tuples, frozensets and ``MappingProxyType`` say so.
"""
from __future__ import annotations

import ast
from pathlib import Path

import nodepools

ROOT = Path(nodepools.__file__).parent
SOURCES = {p.relative_to(ROOT).as_posix(): ast.parse(p.read_text()) for p in ROOT.rglob("*.py")}
OWN = "nodepools"
MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault", "add", "discard",
    "sort", "reverse", "appendleft", "extendleft", "popleft", "rotate", "intersection_update",
    "difference_update", "symmetric_difference_update", "__setitem__", "__delitem__", "cache_clear",
})
# Types whose only purpose is to be mutated: a module-level one is state, whatever mutates it.
STATEFUL_TYPES = frozenset({
    "WeakKeyDictionary", "WeakValueDictionary", "WeakSet", "defaultdict", "Counter", "OrderedDict", "deque",
    "ChainMap", "ContextVar", "local",
})


# Public API the standard library spells with an underscore (documented as such): os._exit ends a
# process without running cleanup (https://docs.python.org/3/library/os.html#os._exit; the plan's
# program host ends so, whatever threads a program left running).
PUBLIC_UNDERSCORED = frozenset({"os._exit"})


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def foreign(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] not in (OWN, "__future__")


def private_uses(tree: ast.Module) -> list[str]:
    """Private names taken from other packages: imported, a private module, or an attribute of one."""
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if foreign(alias.name):
                    modules.add(alias.asname or alias.name.split(".")[0])
                    if any(private(part) for part in alias.name.split(".")):
                        found.append(f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and foreign(node.module):
            if any(private(part) for part in node.module.split(".")):
                found.append(f"from {node.module} import ...")
            for alias in node.names:
                if private(alias.name):
                    found.append(f"from {node.module} import {alias.name}")
                else:
                    modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules and ast.unparse(node) not in PUBLIC_UNDERSCORED:
                found.append(f"{ast.unparse(node)}")
    return found


def module_names(tree: ast.Module) -> dict[str, ast.expr | None]:
    """Names bound at module level by assignment (not imports, functions or classes), with their value."""
    names: dict[str, ast.expr | None] = {}

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            names[name.id] = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names[stmt.target.id] = stmt.value
            elif isinstance(stmt, (ast.If, ast.Try)):
                visit(stmt.body)
                visit(getattr(stmt, "orelse", []))
                for handler in getattr(stmt, "handlers", []):
                    visit(handler.body)
    visit(tree.body)
    return names


def root_name(node: ast.expr) -> str | None:
    """The name an expression hangs from: ``A`` of ``A[k].b``, ``A.get(k)[0]``, ``A.b.c``."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return node.id if isinstance(node, ast.Name) else None


def local_names(function: ast.AST) -> set[str]:
    """Names a function binds itself (parameters, assignments, loop targets): they shadow module names."""
    args = function.args
    bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    globals_ = {n for node in ast.walk(function) if isinstance(node, ast.Global) for n in node.names}
    return bound - globals_


def hidden_state(tree: ast.Module) -> list[str]:
    names = module_names(tree)
    found = []
    for name, value in names.items():
        if isinstance(value, ast.Call):
            func = value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in STATEFUL_TYPES:
                found.append(f"{name} = {ast.unparse(value)}")
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                 and not isinstance(n, ast.Lambda)]
    for function in functions:
        shadowed = local_names(function)
        module_level = set(names) - shadowed

        def mutated(target: ast.expr) -> str | None:
            name = root_name(target)
            return name if name in module_level and not isinstance(target, ast.Name) else None

        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.append(f"{function.name}: global {', '.join(node.names)}")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                found += [f"{function.name}: {ast.unparse(t)}" for t in targets if mutated(t)]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in MUTATORS and root_name(node.func.value) in module_level:
                    found.append(f"{function.name}: {ast.unparse(node)}")
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and \
                    isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "globals":
                found.append(f"{function.name}: {ast.unparse(node)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Call) and getattr(node.func.value.func, "id", None) == "globals" \
                    and node.func.attr in MUTATORS:
                found.append(f"{function.name}: {ast.unparse(node)}")
    return found


# Known, owned elsewhere, and to go: each entry must still be there (so it is deleted with the use).
KNOWN_PRIVATE_USES = {
    # A user's own pulumi_policy pack hands props wrapped in pulumi_policy's proxies; plain() unwraps
    # them by their private classes. inventory/ belongs to issue 30 item 1 (the one stack model).
    "inventory/values.py": ["_policy_proxy._DictProxy", "_policy_proxy._ListProxy"],
}


def test_no_private_name_of_another_package_is_used():
    found = {module: uses for module, tree in SOURCES.items() if (uses := private_uses(tree))}
    assert found == KNOWN_PRIVATE_USES


def test_no_module_keeps_state_between_calls():
    found = {module: state for module, tree in SOURCES.items() if (state := hidden_state(tree))}
    assert found == {}


# The checks have teeth: what this change removed is found again.
def test_the_checks_find_what_they_forbid():
    assert sorted(private_uses(ast.parse(
        "from pulumi.runtime.sync_await import _sync_await, _ensure_event_loop\n"
        "import pulumi_kubernetes\nv = pulumi_kubernetes._utilities.get_version()\n"
        "from asyncio import tasks\ntasks._enter_task(1, 2)\nfrom pulumi.runtime._json import to_json\n"))) == [
        "from pulumi.runtime._json import ...", "from pulumi.runtime.sync_await import _ensure_event_loop",
        "from pulumi.runtime.sync_await import _sync_await", "pulumi_kubernetes._utilities", "tasks._enter_task"]
    assert private_uses(ast.parse("from nodepools.spec import _x\nfrom pulumi import Output\nOutput._x\n")) == [
        "Output._x"]
    assert hidden_state(ast.parse(
        "import weakref\n_REFERENCES = weakref.WeakKeyDictionary()\n"
        "def platform_pools(monitor, stack):\n"
        "    per_run = _REFERENCES.setdefault(monitor, {})\n    return per_run\n")) == [
        "_REFERENCES = weakref.WeakKeyDictionary()", "platform_pools: _REFERENCES.setdefault(monitor, {})"]
    assert hidden_state(ast.parse(
        "CACHE = {}\nSEEN = []\nCOUNT = 0\n"
        "def f(k, v):\n    CACHE[k] = v\n    SEEN[0].append(v)\n    del CACHE[k]\n"
        "def g():\n    global COUNT\n    COUNT += 1\n"
        "def h(name, value):\n    globals()[name] = value\n")) == [
        "f: CACHE[k]", "f: CACHE[k]", "f: SEEN[0].append(v)", "g: global COUNT", "h: globals()[name]"]
    # A constant table built at import, a local that shadows a module name, reading: all fine.
    assert hidden_state(ast.parse(
        "TABLE = {}\nfor k in 'ab':\n    TABLE[k] = k\n"
        "def f(TABLE):\n    TABLE['x'] = 1\n    return TABLE\n"
        "def g():\n    out = dict(TABLE)\n    out.update(a=1)\n    return TABLE.get('a')\n")) == []
