"""docs/ and the code agree: every contract name the code spells is in docs/design.md, every
registered policy is in its policy table, and every section the code cites exists.

A cloner reads docs/; the code reads nodepools.vocabulary and the policy registry. When one
moves without the other this fails, naming the missing name or the dangling citation and the
file citing it.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from nodepools import vocabulary
from nodepools.policies.registry import POLICIES
from nodepools.policies.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DESIGN = (DOCS / "design.md").read_text()
CITING_DIRS = ("components", "stacks", "examples", "policy", "tests", "docs", "bench")
CITING_TOP_FILES = ("README.md", "BENCHMARKS.md", "Makefile", "pyproject.toml")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".ini", ""}
SKIP_PARTS = {".venv", "__pycache__", ".git", "node_modules", "build", "dist"}
# Labels, taints and annotations outside our own nodepools.io/ namespace that design.md section 2
# promises workloads by value. They are looked up by value, so the code may move the constant
# (e.g. into a per-cloud vocabulary module) without touching this list.
THIRD_PARTY_CONTRACT_VALUES = (
    "nvidia.com/gpu",
    "nvidia.com/gpu.present",
    "k8s.amazonaws.com/accelerator",
    "requests.nvidia.com/gpu",
    "limits.nvidia.com/gpu",
    "kueue.x-k8s.io/queue-name",
    "scheduling.x-k8s.io/pod-group",
)
# Vocabulary constant prefixes that name labels, taints or annotations.
NAME_PREFIXES = ("LABEL_", "TAINT_", "ANNOTATION_", "GCP_RESOURCE_LABEL_")
OWN_NAMESPACES = ("nodepools.io/", "nodepools-", "nodepools:")


def _vocabulary_modules():
    """nodepools.vocabulary plus any per-cloud vocabulary package (nodepools.clouds.*)."""
    modules = [vocabulary]
    try:
        clouds = importlib.import_module("nodepools.clouds")
    except ImportError:
        return modules
    for info in pkgutil.iter_modules(clouds.__path__, "nodepools.clouds."):
        modules.append(importlib.import_module(info.name))
    return modules


def _string_constants():
    for module in _vocabulary_modules():
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str):
                yield module.__name__, name, value


def _documented(value: str) -> bool:
    return f"`{value}`" in DESIGN or re.search(rf"`{re.escape(value)}[:=` ]", DESIGN) is not None


def test_pool_classes_and_capacities_are_documented():
    missing = [c.value for c in (*vocabulary.PoolClass, *vocabulary.CapacityType) if not _documented(c.value)]
    assert not missing, f"docs/design.md does not name these values: {missing}"


def test_priority_classes_are_documented():
    missing = [n for n in vocabulary.PRIORITY_CLASS_NAMES.values() if not _documented(n)]
    assert not missing, f"docs/design.md section 2 does not name these PriorityClasses: {missing}"
    assert len(vocabulary.PRIORITY_CLASS_NAMES) == len(vocabulary.PoolClass)


def test_every_own_label_taint_annotation_constant_is_documented():
    """Anything the vocabulary spells in our own namespace is contract by definition."""
    checked, missing = [], []
    for module, name, value in _string_constants():
        if name.startswith(NAME_PREFIXES) and value.startswith(OWN_NAMESPACES):
            checked.append(value)
            if not _documented(value):
                missing.append(f"{module}.{name} = {value!r}")
    assert len(checked) >= 8, checked  # the eight names of design.md section 2 as of its first writing
    assert not missing, "docs/design.md section 2 does not document:\n  " + "\n  ".join(missing)


def test_third_party_contract_names_are_spelled_by_the_code_and_documented():
    spelled = {value for _, _, value in _string_constants()}
    not_in_code = [v for v in THIRD_PARTY_CONTRACT_VALUES if v not in spelled]
    assert not not_in_code, f"no vocabulary constant spells these contract names any more: {not_in_code}"
    not_in_docs = [v for v in THIRD_PARTY_CONTRACT_VALUES if not _documented(v)]
    assert not not_in_docs, f"docs/design.md does not document: {not_in_docs}"


def test_component_type_tokens_are_documented():
    tokens = [value for _, name, value in _string_constants() if name.startswith("COMPONENT_")]
    assert tokens and all(t.startswith("nodepools:") for t in tokens), tokens
    missing = [t for t in tokens if not _documented(t)]
    assert not missing, f"docs/design.md section 2 does not list these type tokens: {missing}"


def _policy_table_names() -> list[str]:
    """Backticked first cells of the section 3 policy table."""
    section = _section_text(DESIGN, "3")
    header = section.index("| policy |")
    names = []
    for line in section[header:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cell = line.split("|")[1].strip()
        assert re.fullmatch(r"`[a-z0-9]+(?:-[a-z0-9]+)*`", cell), f"malformed policy cell: {line}"
        names.append(cell.strip("`"))
    return names


def test_every_registered_policy_is_in_the_design_policy_table():
    documented = _policy_table_names()
    assert len(documented) == len(set(documented)), "a policy is listed twice in docs/design.md section 3"
    missing = [p.name for p in POLICIES if p.name not in documented]
    assert not missing, f"registered but not in docs/design.md section 3: {missing}"


def test_every_pack_config_key_is_documented():
    """Every key a policy accepts (its own, from the registry) or any policy reads (the settings model)."""
    keys = {field.alias or name for name, field in Settings.model_fields.items()}
    keys |= {key for p in POLICIES for key in p.config}
    section = _section_text(DESIGN, "3")
    missing = sorted(k for k in keys if f"| `{k}` |" not in section)
    assert not missing, f"docs/design.md section 3's pack configuration table lacks: {missing}"


# --- citations -----------------------------------------------------------------------------
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s+(.*)$", re.M)
ANY_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.M)
DOC_FILE = r"(design|kubernetes-facts|pulumi-facts)\.md"
NUMBER = r"\d+(?:\.\d+)*"
# "design.md section 3", "kubernetes-facts.md 1.3 and 2", "kubernetes-facts.md sections 2 and 3",
# "kubernetes-facts.md s. 2"; the citation may wrap onto the next comment line.
SECTION_CITE = re.compile(rf"{DOC_FILE}`*,?\s+(?:(?:sections?|s\.)\s+)?({NUMBER}(?:(?:\s*,\s*|\s+and\s+){NUMBER})*)")
# pulumi-facts.md, "Resource options"
HEADING_CITE = re.compile(rf"{DOC_FILE}`*,\s+\"([^\"]+)\"")
# "design.md shared-pool-off-peak", "design.md ``no-blanket-tolerations``", "design.md, policy x-y"
POLICY_CITE = re.compile(r"design\.md`*,?\s+(?:policy\s+)?`*([a-z0-9]+(?:-[a-z0-9]+)+)`*")


def _section_numbers(text: str) -> set[str]:
    return {m.group(1) for m in HEADING.finditer(text)}


def _section_text(text: str, number: str) -> str:
    matches = list(HEADING.finditer(text))
    for i, m in enumerate(matches):
        if m.group(1) == number:
            level = len(m.group(0)) - len(m.group(0).lstrip("#"))
            end = len(text)
            for later in matches[i + 1:]:
                if len(later.group(0)) - len(later.group(0).lstrip("#")) <= level:
                    end = later.start()
                    break
            return text[m.start():end]
    raise AssertionError(f"no section {number}")


def _citing_files():
    for directory in CITING_DIRS:
        for path in sorted((ROOT / directory).rglob("*")):
            if path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIP_PARTS & set(path.parts):
                if path.resolve() != Path(__file__).resolve():
                    yield path
    for name in CITING_TOP_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name


def _joined(text: str) -> str:
    """Comment and docstring lines joined, so a citation wrapped over two lines reads as one."""
    return re.sub(r"[ \t]*\n[ \t]*(?:#+|//|\*)?[ \t]*", " ", text)


def _citations():
    for path in _citing_files():
        try:
            text = _joined(path.read_text())
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(ROOT)
        for m in SECTION_CITE.finditer(text):
            for number in re.findall(NUMBER, m.group(2)):
                yield rel, m.group(1), "section", number.rstrip(".")
        for m in HEADING_CITE.finditer(text):
            yield rel, m.group(1), "heading", m.group(2)
        for m in POLICY_CITE.finditer(text):
            yield rel, "design", "policy", m.group(1)


CITATIONS = list(_citations())


def test_the_code_cites_the_docs():
    kinds = {(doc, kind) for _, doc, kind, _ in CITATIONS}
    assert {("design", "section"), ("kubernetes-facts", "section"), ("pulumi-facts", "heading")} <= kinds, kinds


@pytest.mark.parametrize("doc", ["design", "kubernetes-facts", "pulumi-facts"])
def test_every_citation_names_an_existing_section(doc):
    text = (DOCS / f"{doc}.md").read_text()
    numbers = _section_numbers(text)
    headings = [h.lower() for h in ANY_HEADING.findall(text)]
    policies = set(_policy_table_names()) if doc == "design" else set()
    dangling = []
    for path, cited_doc, kind, target in CITATIONS:
        if cited_doc != doc:
            continue
        ok = (target in numbers if kind == "section"
              else any(target.lower() in h for h in headings) if kind == "heading"
              else target in policies)
        if not ok:
            dangling.append(f"{path}: {doc}.md {kind} {target!r}")
    assert not dangling, f"citations of docs/{doc}.md that name no section:\n  " + "\n  ".join(sorted(set(dangling)))


def test_kept_section_numbers():
    """The numbering the code's citations were written against (design card and reference files)."""
    assert {"1", "2", "3", "4", "5", "6", "7"} <= _section_numbers(DESIGN)
    facts = _section_numbers((DOCS / "kubernetes-facts.md").read_text())
    assert {"0", "1", "1.1", "1.2", "1.3", "1.4", "1.5", "2", "3", "4", "5", "6", "6.1", "6.2", "6.3", "6.4",
            "7", "8", "9"} <= facts
    pulumi = [h.lower() for h in ANY_HEADING.findall((DOCS / "pulumi-facts.md").read_text())]
    for heading in ("resource options", "mocks", "policy packs", "cli and plugins"):
        assert any(h.startswith(heading) for h in pulumi), heading

