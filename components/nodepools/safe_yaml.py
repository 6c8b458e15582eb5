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

The files ``load`` reads (``Pulumi.yaml``, stack files, ``PulumiPolicy.yaml``) are
Pulumi's, which reads them with a YAML 1.2 reader into JSON values and hands
structured config to programs as JSON; PyYAML reads YAML 1.1, so the same text can
mean two things. ``load`` refuses what would (each with its path in the document,
``nodepools:pools[0].labels``, and its line):
- a key that is not a plain string: ``on``/``off``/``yes``/``no``/``y``/``n`` (YAML 1.1
  booleans: ``labels: {on: x}`` became the label ``true``), numbers (``{0x1: a, 1: b}``
  kept one entry: both are 1), null, lists or maps as keys; the same words as values
  (they are strings to Pulumi and booleans here; ``true``/``false`` mean the same to both);
- values JSON has no form for: timestamps (``2026-01-01`` unquoted), ``!!binary``,
  ``!!set``, ``!!omap``, ``!!pairs`` and other tags, and integers past +-(2**53 - 1), the
  range JSON numbers keep exactly between readers (RFC 8259 section 6; a 5,000-digit
  integer otherwise failed in Python's int conversion as a bug of nodepools).
``loads_all`` (Kubernetes manifests, which Kubernetes reads as YAML 1.1) keeps PyYAML's reading.

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
_CORE = "tag:yaml.org,2002:"
_JSON_SCALARS = {_CORE + t for t in ("str", "int", "float", "bool", "null")}
# YAML 1.1's booleans beyond true/false (yaml.org/type/bool.html), in every case PyYAML's or
# YAML 1.1's resolver reads them (y/n: YAML 1.1, not PyYAML); YAML 1.2 reads them as strings.
_YAML11_BOOLS = {w for word in ("y", "n", "yes", "no", "on", "off") for w in (word, word.title(), word.upper())}
# RFC 8259 section 6: integers in [-(2**53)+1, (2**53)-1] are interoperable.
JSON_INT_MAX = 2**53 - 1


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


def _step(path: str, key: Any) -> str:
    """``path`` one step down (``config`` children read as the config keys they are)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if path in ("", "config"):
        return str(key) if path == "config" or str(key).isidentifier() else f"[{str(key)!r}]"
    return f"{path}.{key}" if str(key).isidentifier() else f"{path}[{str(key)!r}]"


class _StrictLoader(_BoundedLoader):
    """``_BoundedLoader`` that refuses, before constructing a document, what YAML 1.1 and
    Pulumi's YAML 1.2 reading would disagree on, or what JSON cannot carry (module docstring)."""

    def construct_document(self, node: Node) -> Any:
        self._checked: set[int] = set()
        self._check(node, "")
        return super().construct_document(node)

    def _refuse_at(self, node: Node, path: str, problem: str) -> None:
        self._refuse("is refused", f"{path or 'the document'}: {problem}", node.start_mark)

    def _check(self, node: Node, path: str) -> None:
        if id(node) in self._checked:
            return
        self._checked.add(id(node))
        if isinstance(node, ScalarNode):
            self._scalar(node, path)
        elif isinstance(node, SequenceNode):
            if node.tag != _CORE + "seq":
                self._refuse_at(node, path, f"a !!{node.tag.removeprefix(_CORE)} has no JSON form (Pulumi hands "
                                "config to programs as JSON): give a mapping")
            for i, item in enumerate(node.value):
                self._check(item, _step(path, i))
        elif isinstance(node, MappingNode):
            if node.tag != _CORE + "map":
                self._refuse_at(node, path, f"a !!{node.tag.removeprefix(_CORE)} has no JSON form (Pulumi hands "
                                "config to programs as JSON): give a list")
            for key, value in node.value:
                if isinstance(key, ScalarNode) and key.tag == _MERGE_TAG:
                    self._check(value, path)
                    continue
                self._key(key, path)
                self._check(value, _step(path, key.value))

    def _key(self, key: Node, path: str) -> None:
        if not isinstance(key, ScalarNode):
            self._refuse_at(key, path, "a key must be a string, not a list or mapping")
        elif key.style is None and key.value in _YAML11_BOOLS:
            self._refuse_at(key, path, f"key {key.value} is {_bool(key.value)} in YAML 1.1 and the string "
                            f"{key.value!r} in YAML 1.2: quote it ('{key.value}')")
        elif key.tag != _CORE + "str":
            kind = _KINDS.get(key.tag, key.tag.removeprefix(_CORE))
            same = " (0x1 and 1 would be one key)" if key.tag in (_CORE + "int", _CORE + "float") else ""
            self._refuse_at(key, path, f"key {key.value} is read as {kind}, not a string{same}: quote it "
                            f"('{key.value}')")

    def _scalar(self, node: ScalarNode, path: str) -> None:
        if node.style is None and node.value in _YAML11_BOOLS:
            self._refuse_at(node, path, f"{node.value} is {_bool(node.value)} in YAML 1.1 and the string "
                            f"{node.value!r} in YAML 1.2: write true or false, or quote it")
        elif node.tag == _CORE + "timestamp":
            self._refuse_at(node, path, f"{node.value} is a timestamp in YAML 1.1 and a string in YAML 1.2, and JSON "
                            f"has no timestamp: quote it ('{node.value}')")
        elif node.tag not in _JSON_SCALARS:
            self._refuse_at(node, path, f"a !!{node.tag.removeprefix(_CORE)} value has no JSON form (Pulumi hands "
                            "config to programs as JSON): give a string")
        elif node.tag == _CORE + "int" and (why := int_out_of_range(node.value, self.construct_yaml_int, node)):
            self._refuse_at(node, path, why)


def int_out_of_range(text: str, parse: Callable[..., int] = int, *args: Any) -> str | None:
    """Why the integer written ``text`` has no exact JSON form (None when it has one); ``parse``
    reads it (on ``args``, else on ``text``) once its digits are few enough to read at all."""
    digits = sum(c.isdigit() for c in text)
    if digits <= 20 and abs(parse(*(args or (text,)))) <= JSON_INT_MAX:
        return None
    return (f"an integer of {digits} digits is out of range: JSON keeps integers exactly up to "
            f"+-{JSON_INT_MAX:,} (2**53 - 1); quote it if it is a name")


def _bool(word: str) -> str:
    return f"the boolean {'true' if word.lower() in ('y', 'yes', 'on') else 'false'}"


_KINDS = {_CORE + "int": "an integer", _CORE + "float": "a number", _CORE + "bool": "a boolean",
          _CORE + "null": "null", _CORE + "timestamp": "a timestamp"}


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


def _run(text: str, name: str, read: Callable[[_BoundedLoader], Any], strict: bool = False) -> Any:
    loader = (_StrictLoader if strict else _BoundedLoader)(text, name)
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
    """The document of ``text`` (None when empty), within this module's bounds, its keys
    strings and its values JSON's (the module's docstring)."""
    return _run(_text(text, name) if isinstance(text, bytes) else text, name, _BoundedLoader.get_single_data,
                strict=True)


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
