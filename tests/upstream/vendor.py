"""Copy the manifests of index.yaml and section8.yaml into vendored/, unmodified, from git clones
of their repositories, at each entry's pinned commit. Run it after adding an entry to the index
(then add the file to NOTICE.md, and record its verdicts with record.py):

    python tests/upstream/vendor.py --git NVIDIA/k8s-device-plugin=PATH [--git OWNER/REPO=PATH ...]

PATH is a clone's git directory (``.git``, or a bare or mirror clone). Only entries whose
repository is given are copied; an existing file that differs from upstream is an error.
Exit 2 with the reason when a commit or path is missing from the clone.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import VENDORED, entries, vendored_path  # noqa: E402
from section8 import cases  # noqa: E402


def pinned() -> list[tuple[str, str, str, Path]]:
    """(repo, commit, path, destination) of every file either corpus needs, each once."""
    out = {(e.repo, e.commit, e.path, vendored_path(e)) for e in entries()}
    out |= {(c.repo, c.commit, p, VENDORED / c.repo / p) for c in cases() for p in c.files}
    return sorted(out)


def upstream(git_dir: Path, commit: str, path: str) -> bytes:
    shown = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True)
    if shown.returncode != 0:
        raise ValueError(f"{git_dir}: no {path} at {commit}: {shown.stderr.decode().strip()}")
    return shown.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git", action="append", default=[], metavar="OWNER/REPO=PATH", required=True)
    args = parser.parse_args(argv)
    clones = dict(item.split("=", 1) for item in args.git)
    try:
        for repo, commit, path, dest in pinned():
            if repo not in clones:
                continue
            data = upstream(Path(clones[repo]), commit, path)
            if dest.is_file() and dest.read_bytes() != data:
                raise ValueError(f"{dest} differs from {repo}@{commit}: vendored files stay unmodified")
            if not dest.is_file():
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                print("vendored", f"{repo}:{path}")
    except ValueError as err:
        print(f"vendor: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
