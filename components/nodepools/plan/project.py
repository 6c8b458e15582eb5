"""Find the Pulumi project, its program and a stack's config, as the Pulumi CLI and its
Python language host do (docs/design.md section 9).

- The project is the nearest directory holding ``Pulumi.yaml``, searched from the
  working directory up, else the checkout this package was installed from.
- ``runtime`` must be ``python`` (a name, or ``{name, options}``); any other runtime
  (``yaml``, ``nodejs``, ...) is refused by name: the plan runs Python programs only.
- ``main`` (default the project directory) gives the program directory and entry
  point exactly as the engine computes them (pulumi/pulumi: pkg/engine/project.go
  ``getPwdMain``): a directory is the program directory with entry ``.``; a file's
  directory is the program directory with the file's name as entry. The program runs
  with that directory as its working directory (the language host's ``--pwd``), and
  an entry ``.`` puts it on ``sys.path`` (``runpy.run_path`` of a directory does;
  pulumi/pulumi: sdk/python/cmd/pulumi-language-python-exec).
- Project-level ``config:`` gives defaults under the stack's own values
  (pulumi/pulumi: pkg/workspace/config.go ``mergeConfig``; the shorthand ``key: value``
  is a project key's default or another namespace's value,
  sdk/go/common/workspace/project.go ``RewriteShorthandConfigValues``). A stack file's key
  without a namespace is the project's, taken only where ``Pulumi.yaml`` declares it
  (``stack_file_keys``).
- ``stackConfigDir`` says where ``Pulumi.<stack>.yaml`` files live.

Every error is a ``ProjectError`` naming the file and, where there is one, the line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection

import yaml

import nodepools
from nodepools import safe_yaml
from nodepools.plan.locate import config_line

PROJECT_FILE = "Pulumi.yaml"
# What the plan passes for a ``secure:`` value: it cannot decrypt it, and says so.
SECRET_PLACEHOLDER = "[secret: not decrypted offline]"


class ProjectError(Exception):
    """The project, program or stack cannot be found or read; ``file``/``line`` say where."""

    def __init__(self, message: str, file: Path | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.file, self.line = file, line


@dataclass(frozen=True)
class Project:
    root: Path
    name: str
    # The program directory (the working directory of a run) and the entry point in it.
    program_dir: Path
    entry: str
    config_dir: Path
    runtime_options: dict[str, Any] = field(default_factory=dict)
    # Project-level config, each key as {"value": ...} / {"default": ...} / {"type": ...}.
    config: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def file(self) -> Path:
        return self.root / PROJECT_FILE

    def stack_file(self, stack: str) -> Path:
        return self.config_dir / f"Pulumi.{stack}.yaml"

    def stacks(self) -> list[str]:
        return sorted(p.name[len("Pulumi."):-len(".yaml")] for p in self.config_dir.glob("Pulumi.*.yaml"))

    def program(self) -> Path:
        if self.entry != ".":
            return self.program_dir / self.entry
        program = self.program_dir / "__main__.py"
        if not program.is_file():
            # The language host's words for it (pulumi-language-python-exec).
            raise ProjectError(f"unable to find main python program `__main__.py` in `{self.program_dir}`",
                               self.file, key_line(self.file, "main"))
        return program


def find_project(start: Path | None = None) -> Project:
    """The project around ``start`` (default: the working directory), else this checkout's."""
    candidates = [start or Path.cwd()]
    candidates += list(candidates[0].resolve().parents)
    candidates.append(Path(nodepools.__file__).resolve().parent.parent)
    for directory in candidates:
        if (directory / PROJECT_FILE).is_file():
            return load_project(directory)
    raise ProjectError(f"no {PROJECT_FILE} in {candidates[0].resolve()} or its parents; run from the project "
                       "or pass --project-dir")


def read_yaml(path: Path) -> Any:
    """A YAML file's document (``nodepools.safe_yaml``); a ProjectError naming the file and line."""
    try:
        return safe_yaml.load(path)
    except OSError as err:
        raise ProjectError(f"cannot read {path}: {err.strerror or err}", path) from None
    except safe_yaml.YamlFileError as err:
        raise ProjectError(str(err), path, err.line) from None


def key_line(path: Path, key: str) -> int | None:
    """1-based line of a top-level key of a YAML file (None when absent or unreadable)."""
    try:
        root = safe_yaml.compose(path)
    except (OSError, yaml.YAMLError):
        return None
    if isinstance(root, yaml.MappingNode):
        for name, _ in root.value:
            if name.value == key:
                return name.start_mark.line + 1
    return None


def _runtime(document: dict[str, Any], file: Path) -> dict[str, Any]:
    runtime = document.get("runtime")
    name, options = (runtime.get("name"), runtime.get("options") or {}) if isinstance(runtime, dict) \
        else (runtime, {})
    if name != "python":
        raise ProjectError(f"{file}: runtime {name!r} is not supported: nodepools plan runs Python programs only "
                           "(runtime: python), as the Pulumi Python language host does; plan a YAML or other-language "
                           "program with `pulumi preview --policy-pack`", file, key_line(file, "runtime"))
    if not isinstance(options, dict):
        raise ProjectError(f"{file}: runtime.options must be a mapping", file, key_line(file, "runtime"))
    return options


def _project_config(document: dict[str, Any], name: str, file: Path) -> dict[str, dict[str, Any]]:
    raw = document.get("config") or {}
    if not isinstance(raw, dict):
        raise ProjectError(f"{file}: config must be a mapping of keys to values", file, key_line(file, "config"))
    out = {}
    for key, value in raw.items():
        ours = ":" not in key or key.startswith(f"{name}:")
        full = key if ":" in key else f"{name}:{key}"
        if not isinstance(value, dict):
            value = {"default" if ours else "value": value}
        out[full] = value
    return out


def load_project(root: Path) -> Project:
    root = root.resolve()
    file = root / PROJECT_FILE
    if not file.is_file():
        raise ProjectError(f"no {PROJECT_FILE} in {root}")
    document = read_yaml(file) or {}
    if not isinstance(document, dict):
        raise ProjectError(f"{file} must be a mapping (name, runtime, main, ...)", file, 1)
    name = document.get("name")
    if not isinstance(name, str) or not name:
        raise ProjectError(f"{file} has no project name", file, 1)
    options = _runtime(document, file)
    main = root / str(document.get("main") or ".")
    if document.get("main") and not main.exists():
        raise ProjectError(f"{file}: main {document['main']!r} does not exist ({main}); Pulumi reads the program from "
                           "it", file, key_line(file, "main"))
    program_dir, entry = (main, ".") if main.is_dir() else (main.parent, main.name)
    config_dir = root / str(document.get("stackConfigDir") or ".")
    return Project(root, name, program_dir.resolve(), entry, config_dir, dict(options),
                   _project_config(document, name, file))


def stack_file_keys(raw: dict[str, Any], project: str, declared: Collection[str], path: Path) -> dict[str, Any]:
    """A stack file's ``config:`` map as ``namespace:key -> value``, as Pulumi reads it: a key
    without a namespace is the project's (``pools`` is ``<project>:pools``). A bare key is taken
    only where the project documents it (``declared``: the full keys of ``Pulumi.yaml``'s
    ``config:``): appended to a stack file, a bare ``pools:`` read as ``nodepools:pools`` would
    silently replace the real list. Two keys that name one config key are refused too."""
    out: dict[str, Any] = {}
    written: dict[str, str] = {}
    for key, value in raw.items():
        full = key if ":" in key else f"{project}:{key}"
        if ":" not in key and full not in declared:
            why = (f"a config key without a namespace is read by Pulumi as {full!r}, which the project's Pulumi.yaml "
                   f"(name: {project}) does not declare; write the key with its namespace (nodepools:{key} for "
                   f"nodepools' config, aws:{key} for the AWS provider's, ...) or declare it under config: in "
                   "Pulumi.yaml")
        elif full in written:
            why = (f"names the config key {full!r}, as {written[full]!r} does; Pulumi keeps one and drops the other "
                   "silently: remove one")
        else:
            written[full], out[full] = key, value
            continue
        raise ProjectError(f"{path.name}: {key}: {why}", path, config_line(path, key))
    return out


def stack_config(project: Project, stack: str) -> tuple[dict[str, Any], list[str]]:
    """The stack's config as ``namespace:key -> value`` (bare keys get the project
    namespace) over the project's defaults, and the keys whose secret values were
    replaced by a placeholder."""
    path = project.stack_file(stack)
    if not path.is_file():
        known = ", ".join(project.stacks()) or "none"
        where = "stackConfigDir" if key_line(project.file, "stackConfigDir") else "name"
        raise ProjectError(f"stack {stack!r} has no config file {path} (stacks: {known})", project.file,
                           key_line(project.file, where))
    document = read_yaml(path) or {}
    raw = document.get("config") or {} if isinstance(document, dict) else None
    if not isinstance(raw, dict):
        raise ProjectError(f"{path.name}: 'config' must be a mapping of keys to values", path,
                           key_line(path, "config") or 1)
    config = stack_file_keys(raw, project.name, project.config, path)
    secrets: list[str] = []
    for full, value in config.items():
        if isinstance(value, dict) and set(value) == {"secure"}:
            secrets.append(full)
            config[full] = SECRET_PLACEHOLDER
    missing = []
    for key, declared in project.config.items():
        if key in config:
            continue
        if "value" in declared or "default" in declared:
            config[key] = declared.get("value", declared.get("default"))
        elif key.startswith(f"{project.name}:"):
            missing.append(key)
    if missing:
        raise ProjectError(f"stack {stack!r} is missing configuration the project requires (Pulumi.yaml config, no "
                           f"default): {', '.join(missing)}", path, key_line(path, "config") or 1)
    return config, secrets
