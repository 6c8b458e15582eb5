"""The one way nodepools reads a YAML file a user hands it (``Pulumi.yaml``, a stack's
``Pulumi.<stack>.yaml``, a pack's ``PulumiPolicy.yaml``): bounded, strict, UTF-8.

PyYAML's ``safe_load`` refuses code, not cost or ambiguity:
- a 1 KB "billion laughs" document (anchors of anchors) expands to hundreds of millions
  of values, so whatever walks the result (pydantic, ``json.dumps``) hangs or runs out
  of memory: a document may hold at most ``MAX_VALUES`` values with every alias
  counted at its full size, checked as each alias is read (the count is memoised, so
  refusing costs the aliases read, not their expansion);
- its composer recurses once per nesting level, so 5,000 nested ``[`` end in a
  ``RecursionError``: ``MAX_DEPTH`` levels at most (stack files use fewer than ten);
- it keeps the last of two equal keys of a mapping (yaml/pyyaml issue 165), so a second
  ``nodepools:pools`` silently drops the first, though YAML says a mapping's keys are
  unique (YAML 1.2.2, section 3.2.1.1 "Nodes"): refused with both lines;
- bytes that are not UTF-8 (the encoding Pulumi reads stack files in) raise
  ``UnicodeDecodeError``: refused naming the file, line and byte.

Every refusal is a ``YamlFileError`` (a ``yaml.YAMLError``) naming the file and the line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_DEPTH = 100
MAX_VALUES = 100_000
_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlFileError(yaml.YAMLError):
    """A YAML file nodepools will not read; ``problem`` says why, ``line`` (1-based) where."""

    def __init__(self, file: str, verdict: str, problem: str, line: int | None = None) -> None:
        self.file, self.problem, self.line = file, problem, line
        super().__init__(f"{file} {verdict}" + (f" (line {line})" if line else "") + f": {problem}")


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader with the bounds of this module's docstring, applied while composing."""

    def __init__(self, stream: str, name: str) -> None:
        super().__init__(stream)
        self._file, self._depth, self._values = name, 0, 0
        self._sizes: dict[int, int] = {}

    def _refuse(self, verdict: str, problem: str, mark: Any) -> None:
        raise YamlFileError(self._file, verdict, problem, mark.line + 1 if mark is not None else None)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            self._count(self._size(node), event.start_mark)
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            self._refuse("is refused", f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._count(1, event.start_mark)
        return node

    def _count(self, values: int, mark: Any) -> None:
        self._values += values
        if self._values > MAX_VALUES:
            self._refuse("is refused", f"more than {MAX_VALUES:,} values once its aliases (*name) are expanded "
                         "(an alias bomb?)", mark)

    def _size(self, node: Node) -> int:
        """Values of ``node`` with its aliases expanded (memoised: anchors share nodes)."""
        key = id(node)
        if key not in self._sizes:
            children: list[Node] = []
            if isinstance(node, SequenceNode):
                children = list(node.value)
            elif isinstance(node, MappingNode):
                children = [n for pair in node.value for n in pair]
            self._sizes[key] = 1 + sum(self._size(child) for child in children)
        return self._sizes[key]

    def compose_mapping_node(self, anchor: Any) -> MappingNode:
        node = super().compose_mapping_node(anchor)
        first: dict[tuple[str, str], int] = {}
        for key, _ in node.value:
            if not isinstance(key, ScalarNode) or key.tag == _MERGE_TAG:
                continue
            seen = first.get((key.tag, key.value))
            if seen is not None:
                self._refuse("has a duplicate key", f"{key.value!r} is also at line {seen}; YAML would keep only "
                             "the last and drop the other silently: remove one", key.start_mark)
            first[(key.tag, key.value)] = key.start_mark.line + 1
        return node


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise YamlFileError(name, "is not UTF-8 text", f"byte 0x{data[err.start]:02x} cannot be decoded; "
                            "save the file as UTF-8", line) from None


def _all_documents(loader: _BoundedLoader) -> list[Any]:
    documents = []
    while loader.check_data():
        documents.append(loader.get_data())
    return documents


def _run(text: str, name: str, read: Callable[[_BoundedLoader], Any]) -> Any:
    loader = _BoundedLoader(text, name)
    try:
        return read(loader)
    except YamlFileError:
        raise
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err)
        raise YamlFileError(name, "is not valid YAML", problem, mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()


def loads(text: str | bytes, name: str = "<string>") -> Any:
    """The document of ``text`` (None when empty), within this module's bounds."""
    return _run(_text(text, name) if isinstance(text, bytes) else text, name, _BoundedLoader.get_single_data)


def loads_all(text: str | bytes, name: str = "<string>") -> list[Any]:
    """Every document of a YAML stream (``---``-separated), within the same bounds for the
    whole stream."""
    return _run(_text(text, name) if isinstance(text, bytes) else text, name, _all_documents)


def load(path: str | Path) -> Any:
    """The document of the file at ``path``; ``OSError`` when it cannot be read."""
    path = Path(path)
    return loads(path.read_bytes(), path.name)


def compose(path: str | Path) -> Node | None:
    """The node tree of the file at ``path`` (for line numbers), within the same bounds."""
    path = Path(path)
    return _run(_text(path.read_bytes(), path.name), path.name, _BoundedLoader.get_single_node)
