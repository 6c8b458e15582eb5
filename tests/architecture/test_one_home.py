"""One home per concept (DEVELOPERS.md, docs/architecture.md): a second definition of any of
these is a bug waiting for the two to disagree, as two "is a GPU resource" predicates once
did (tests/policy/test_gpu_resource_names.py holds the behaviour)."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nodepools
from nodepools.vocabulary import PoolClass

ROOT = Path(nodepools.__file__).parent
SOURCES = {p.relative_to(ROOT).as_posix(): ast.parse(p.read_text()) for p in ROOT.rglob("*.py")}


def defined(pattern: str) -> set[str]:
    """Modules defining a function, class or module-level name matching ``pattern``."""
    rx = re.compile(pattern)
    found = set()
    for module, tree in SOURCES.items():
        for node in ast.walk(tree):
            names = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node in tree.body:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(rx.fullmatch(n) for n in names):
                found.add(module)
    return found


def reads(attribute_or_key: str) -> set[str]:
    """Modules that use ``attribute_or_key`` as a name, an attribute or a string literal."""
    found = set()
    for module, tree in SOURCES.items():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Name) and node.id == attribute_or_key) or \
                    (isinstance(node, ast.Attribute) and node.attr == attribute_or_key) or \
                    (isinstance(node, ast.Constant) and node.value == attribute_or_key):
                found.add(module)
    return found


def test_one_gpu_resource_vocabulary():
    assert defined(r"_?is_gpu_resource\w*|_?gpu_resource_names?") == {"vocabulary.py"}
    # MIG names are built by vocabulary.mig_resource only.
    assert reads("MIG_RESOURCE_PREFIX") == {"vocabulary.py"}


def test_one_tolerations_reader():
    assert defined(r"_?(toleration_entries|tolerations|read_tolerations|pod_tolerations)") == {"inventory/podspec.py"}
    # A pod spec's "tolerations" field is read there and nowhere else.
    readers = {m for m, tree in SOURCES.items() for node in ast.walk(tree)
               if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dig"
               and any(isinstance(a, ast.Constant) and a.value == "tolerations" for a in node.args)}
    assert readers == {"inventory/podspec.py"}


def test_one_pool_outputs_type():
    assert defined(r"PoolOutputs|PlatformPool|pool_outputs") >= {"spec/outputs.py"}
    assert defined(r"PoolOutputs|PlatformPool") == {"spec/outputs.py"}
    # Every pool outputs dict is PoolOutputs.as_dict(): nobody else spells its keys.
    assert reads("poolClass") | reads("nodeTaints") == set()


def test_one_taint_effect_table():
    assert defined(r"TAINT_EFFECTS|TAINT_EFFECT_OF") == {"clouds/taints.py"}


def test_the_whole_version_rule_in_one_module():
    assert defined(r"check_\w*version\w*|check_minimum|_?VERSION_FIELD|_MINOR") == {"policies/rules_versions.py"}


def test_the_pack_config_is_one_model():
    assert defined(r"PROPERTIES|SHARED(_KEYS)?|Settings") == {"policies/settings.py"}
    # Defaults are written once, on the model's fields: no schema literal repeats one.
    settings = SOURCES["policies/settings.py"]
    literal_defaults = [node for node in ast.walk(settings) if isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "default" and isinstance(val, (ast.Constant, ast.List, ast.Dict))
        for k, val in zip(node.keys, node.values))]
    assert literal_defaults == []


def test_one_reader_of_a_workloads_namespace_and_class(today, monkeypatch):
    """Asked about the same stack, the plan's placement and the pack's stack view give every workload the
    same namespace and class (over every corpus of the suite: test_one_stack_model.py); here the stacks
    whose namespace a Namespace's output names, which two readers once answered differently."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "policy"))
    from policy_builders import namespaced_by_dependency
    from stack_sides import PackProbe, plan_side

    probe = PackProbe(today)
    for named in (False, True):
        items = list(namespaced_by_dependency(named).items)
        plan, pack = plan_side(items, today), probe.side(items, monkeypatch)
        assert plan == pack and plan[namespaced_by_dependency(named).urn("shop")][1] is PoolClass.RESIDENT
