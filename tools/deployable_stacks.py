"""Print, as a JSON list, the given stacks that may be deployed: those whose
``stacks/Pulumi.<stack>.yaml`` exists and does not set ``nodepools:example: true``
(an example's ids are placeholders: it is planned, never deployed).

    python tools/deployable_stacks.py [--stacks-dir stacks] STACK [STACK...]

The deploy workflow builds its deploy matrices with it. Needs only PyYAML. Exit 2,
with the reason, when a named stack has no file or its file is not a stack config.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

EXAMPLE_KEY = "nodepools:example"


def is_example(path: Path) -> bool:
    document = yaml.safe_load(path.read_text()) or {}
    config = document.get("config") if isinstance(document, dict) else None
    if config is not None and not isinstance(config, dict):
        raise ValueError(f"{path}: 'config' must be a mapping of keys to values")
    value = (config or {}).get(EXAMPLE_KEY, False)
    if not isinstance(value, bool):
        raise ValueError(f"{path}: {EXAMPLE_KEY} must be true or false (got {value!r})")
    return value


def deployable(stacks_dir: Path, stacks: list[str]) -> list[str]:
    out = []
    for stack in stacks:
        path = stacks_dir / f"Pulumi.{stack}.yaml"
        if not path.is_file():
            raise ValueError(f"stack {stack!r} has no config file {path}")
        if not is_example(path):
            out.append(stack)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stacks-dir", type=Path, default=Path(__file__).resolve().parents[1] / "stacks")
    parser.add_argument("stacks", nargs="+")
    args = parser.parse_args(argv)
    try:
        print(json.dumps(deployable(args.stacks_dir, args.stacks)))
    except (ValueError, OSError, yaml.YAMLError) as err:
        print(f"deployable_stacks: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
