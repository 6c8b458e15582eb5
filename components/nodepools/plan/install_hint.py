"""The commands that create a pack folder's virtualenv, with nodepools from where this one came.

The pack's ``requirements.txt`` pins ``nodepools==<this version>``; pip finds it on an
index only once released there. Where this copy was installed from is recorded by
pip (PEP 610 ``direct_url.json``): a wheel file (its folder is then ``--find-links``),
a local checkout (build its wheel first), or a VCS URL (install from it first).
"""
from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname


def _origin() -> dict | None:
    try:
        text = metadata.distribution("nodepools").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def pack_install_commands(directory: Path) -> list[str]:
    venv = directory / "venv"
    pip = venv / ("Scripts/pip.exe" if os.name == "nt" else "bin/pip")
    requirements = directory / "requirements.txt"
    create = f"python -m venv {venv}"
    origin = _origin()
    if origin is None:  # from an index: the pin resolves there
        return [create, f"{pip} install -r {requirements}"]
    url = origin.get("url", "")
    if "vcs_info" in origin:
        vcs = origin["vcs_info"]
        ref = vcs.get("commit_id") or vcs.get("requested_revision") or ""
        return [create, f"{pip} install \"nodepools @ {vcs.get('vcs', 'git')}+{url}{'@' + ref if ref else ''}\"",
                f"{pip} install -r {requirements}"]
    path = Path(url2pathname(urlparse(url).path)) if url.startswith("file:") else None
    if path is None:
        return [create, f"{pip} install -r {requirements}"]
    if "archive_info" in origin and path.suffix == ".whl":
        return [create, f"{pip} install --find-links {path.parent} -r {requirements}"]
    # A checkout (editable or not): build its wheel, then install from that folder.
    wheels = path / "dist"
    return [create, f"{pip} wheel --no-deps --wheel-dir {wheels} {path}",
            f"{pip} install --find-links {wheels} -r {requirements}"]
