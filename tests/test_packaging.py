"""The installed distribution holds every package of the source tree (subpackages included).

`pip install .` (not editable) is what the README's quick start does; a subpackage missing from
pyproject.toml would import fine from the source tree and fail only there.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import ROOT


def source_packages() -> set[str]:
    return {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("treetool", "commands", "oracles")
        for init in (ROOT / top).rglob("__init__.py")
    }


def test_every_source_package_is_in_the_distribution():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    find_packages = pytest.importorskip("setuptools", reason="setuptools not installed").find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    assert set(find_packages(str(ROOT), include=include)) == source_packages()
    assert {"treetool.formats", "treetool.projectivization"} <= source_packages()
