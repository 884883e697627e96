"""An MkDocs hook: the source laid out as it is installed, for mkdocstrings to read.

pyproject.toml maps the top-level folders ``oracles/`` and ``commands/`` to ``treetool.oracles`` and
``treetool.commands``; mkdocstrings reads source files by their import path, so this hook builds, in a temporary
folder, a ``treetool/`` whose entries are symbolic links to the real files and folders (the mapped ones under their
installed names), and points the Python handler there.  The mapping is read from pyproject.toml, not repeated here.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

if sys.version_info >= (3, 11):
    import tomllib
else:  # the docs extra installs tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def installed_layout(root: Path, destination: Path) -> Path:
    """Build ``destination/PACKAGE`` as pyproject's ``package-dir`` installs it; return ``destination``."""
    package_dir = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    top = min(package_dir, key=len)                # "treetool": the others are its subpackages
    target = destination / top
    target.mkdir()
    mapped = {name.rsplit(".", 1)[-1]: folder for name, folder in package_dir.items() if name != top}
    for entry in (root / package_dir[top]).iterdir():
        if entry.name not in mapped and entry.name != "__pycache__":
            (target / entry.name).symlink_to(entry)
    for name, folder in mapped.items():
        (target / name).symlink_to(root / folder)
    return destination


@event_priority(100)  # before mkdocstrings reads its handlers' options
def on_config(config: Any, **_: Any) -> Any:
    """MkDocs hook: put the installed layout first on the Python handler's search path."""
    destination = Path(tempfile.mkdtemp(prefix="treetool-docs-"))
    atexit.register(shutil.rmtree, destination, ignore_errors=True)
    installed_layout(ROOT, destination)
    handler = config["plugins"]["mkdocstrings"].config["handlers"].setdefault("python", {})
    handler["paths"] = [str(destination)]
    return config
