"""Find the Pulumi project, its program and a stack's config file, as the Pulumi CLI would.

The project is the nearest directory holding ``Pulumi.yaml``, searched from the
working directory up, else the checkout this package was installed from
(editable install). ``main`` names the program directory and ``stackConfigDir``
where ``Pulumi.<stack>.yaml`` files live.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import nodepools

PROJECT_FILE = "Pulumi.yaml"
# What the plan passes for a ``secure:`` value: it cannot decrypt it, and says so.
SECRET_PLACEHOLDER = "[secret: not decrypted offline]"


class ProjectError(Exception):
    """The project, program or stack cannot be found or read."""


@dataclass(frozen=True)
class Project:
    root: Path
    name: str
    main: Path
    config_dir: Path

    def stack_file(self, stack: str) -> Path:
        return self.config_dir / f"Pulumi.{stack}.yaml"

    def stacks(self) -> list[str]:
        return sorted(p.name[len("Pulumi."):-len(".yaml")] for p in self.config_dir.glob("Pulumi.*.yaml"))

    def program(self) -> Path:
        program = self.main / "__main__.py" if self.main.is_dir() else self.main
        if not program.is_file():
            raise ProjectError(f"the project's program {program} does not exist (Pulumi.yaml main: {self.main})")
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


def load_project(root: Path) -> Project:
    root = root.resolve()
    try:
        document = yaml.safe_load((root / PROJECT_FILE).read_text()) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ProjectError(f"cannot read {root / PROJECT_FILE}: {err}") from None
    name = document.get("name")
    if not isinstance(name, str) or not name:
        raise ProjectError(f"{root / PROJECT_FILE} has no project name")
    main = root / str(document.get("main") or ".")
    config_dir = root / str(document.get("stackConfigDir") or ".")
    return Project(root, name, main, config_dir)


def stack_config(project: Project, stack: str) -> tuple[dict[str, Any], list[str]]:
    """The stack's config as ``namespace:key -> value`` (bare keys get the project
    namespace) and the keys whose secret values were replaced by a placeholder."""
    path = project.stack_file(stack)
    if not path.is_file():
        known = ", ".join(project.stacks()) or "none"
        raise ProjectError(f"stack {stack!r} has no config file {path} (stacks: {known})")
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ProjectError(f"{path.name} is not valid YAML: {err}") from None
    raw = document.get("config") or {} if isinstance(document, dict) else None
    if not isinstance(raw, dict):
        raise ProjectError(f"{path.name}: 'config' must be a mapping of keys to values")
    config: dict[str, Any] = {}
    secrets: list[str] = []
    for key, value in raw.items():
        full = key if ":" in key else f"{project.name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            secrets.append(full)
            value = SECRET_PLACEHOLDER
        config[full] = value
    return config, secrets
