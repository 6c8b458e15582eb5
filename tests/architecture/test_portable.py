"""Nothing in the repository depends on one machine: no tracked file names a path that exists
only there (a home or work directory, a mirror), so a clean clone behaves as CI does."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# An absolute path under a user's or a machine's own directories. System paths (/etc, /var,
# /usr, /tmp, /dev, /proc) mean the same on every machine and are fine.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|home/\w+|Users/\w+|mnt/\w+|opt/\w+)/")
# Other projects' manifests, vendored byte for byte (tests/upstream/NOTICE.md): their paths name
# places inside containers (/home/ray, /home/mpiuser), not this machine, and may not be edited.
VENDORED = "tests/upstream/vendored/"


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:  # an exported tree (sdist, tarball): every file but build output
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_names_a_path_of_one_machine():
    found = []
    for path in tracked_files():
        if path.relative_to(ROOT).as_posix().startswith(VENDORED):
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        found += [f"{path.relative_to(ROOT)}:{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1)
                  if MACHINE_PATH.search(line)]
    assert found == []
