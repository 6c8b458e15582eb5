"""``nodepools plan``: placeholder until the stacks land (issue 8) — validates
the default pool set of a stack and prints it."""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nodepools")
    sub = parser.add_subparsers(dest="command", required=True)
    plan = sub.add_parser("plan", help="offline plan of a stack")
    plan.add_argument("--stack", default="aws-dev")
    args = parser.parse_args(argv)
    print(f"nodepools plan --stack {args.stack}: the stacks are not built yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
