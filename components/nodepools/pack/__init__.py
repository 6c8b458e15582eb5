"""The nodepools CrossGuard pack: its Analyzer server and the pack as files.

The server answers the engine's gRPC protocol itself: ``serve`` (start-up, a pack of your
own), ``servicer`` (the protocol), ``wire`` (each resource read off the wire once),
``judge`` (every rule on that one copy, diagnostics as pulumi_policy words them) and
``catalogue`` (the registered pack's ``GetAnalyzerInfo`` answer, generated).

The files: ``nodepools pack new DIR`` and the plan's fallback.
The wheel ships the pack's ``__main__.py`` and ``PulumiPolicy.yaml`` (package data,
``template/``); ``write_pack`` adds the version and a ``requirements.txt`` pinned
to this release, so the folder installs its own virtualenv anywhere and reaches
nothing outside itself. The repository's ``policy/`` is exactly this output
(tests/distribution/test_pack_files.py).
"""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import nodepools

TEMPLATE_FILES = ("PulumiPolicy.yaml", "__main__.py")
PACK_FILES = (*TEMPLATE_FILES, "requirements.txt")


class PackExistsError(FileExistsError):
    """``write_pack`` would overwrite a pack file."""


class PackLinkError(OSError):
    """A pack file's name is a symbolic link that leads outside the pack folder."""


def requirements_text(version: str = nodepools.__version__) -> str:
    return (
        "# The pack's own virtualenv (PulumiPolicy.yaml runtime.options.virtualenv) installs this file.\n"
        "# nodepools' core install is what the rules and their server need (pulumi, pydantic, pyyaml):\n"
        "# no cloud SDK. Until nodepools is on PyPI, install with --find-links DIR_OF_THE_WHEEL.\n"
        f"nodepools=={version}\n")


def pack_files(version: str = nodepools.__version__) -> dict[str, str]:
    """File name -> content of a ready pack folder for ``version``."""
    template = resources.files("nodepools.pack") / "template"
    files = {name: (template / name).read_text() for name in TEMPLATE_FILES}
    files["PulumiPolicy.yaml"] += f"version: {version}\n"
    files["requirements.txt"] = requirements_text(version)
    return files


def write_pack(directory: Path, *, force: bool = False) -> list[Path]:
    """Write the pack into ``directory`` (created if missing); refuses to overwrite
    an existing pack file unless ``force``, and to write through a symbolic link that
    leads outside ``directory`` (``PackLinkError``, with or without ``force``), before
    anything is written. Returns the written paths."""
    directory = Path(directory)
    files = pack_files()
    targets = {name: _inside(directory, name) for name in files}
    existing = [directory / name for name in files if os.path.lexists(directory / name)]
    if existing and not force:
        raise PackExistsError(f"{directory} already holds {', '.join(p.name for p in existing)}; "
                              "pass --force to overwrite")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        _write(targets[name], text)
        written.append(directory / name)
    return written


def _inside(directory: Path, name: str) -> Path:
    """Where writing ``directory / name`` lands: the file itself, or the file a symbolic link
    there leads to when that is inside ``directory`` (a link elsewhere is refused)."""
    path = directory / name
    if not path.is_symlink():
        return path
    target = path.resolve()
    if not target.is_relative_to(directory.resolve()):
        raise PackLinkError(f"{path} is a symbolic link to {target}, outside {directory}: refusing to write "
                            "through it (remove the link, or choose another folder)")
    return target


def _write(path: Path, text: str) -> None:
    # O_NOFOLLOW: a link put in the file's place after the check is refused, never followed.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
