"""treetool installs one import name, ``treetool`` (issue 23), and every package of the source tree under it.

The source tree keeps three top-level folders, ``treetool/``, ``commands/`` and ``oracles/``; pyproject.toml maps
``commands/`` to ``treetool.commands`` and ``oracles/`` to ``treetool.oracles`` (setuptools ``package-dir``).
``pip install .`` (not editable) is what the README's quick start does, so the wheel is built and read here: a
subpackage missing from pyproject.toml would import fine from an editable install and fail only there, and a
generic top-level name such as ``oracles`` would clash with any other distribution of that name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLE_DATA

#: Source folder -> the import name it is installed as.
MAPPED = {"treetool": "treetool", "commands": "treetool.commands", "oracles": "treetool.oracles"}


def source_packages() -> dict[str, Path]:
    """Every package of the source tree (a folder with ``__init__.py``) by the name it is installed as."""
    packages = {}
    for folder, name in MAPPED.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                packages[".".join([name, *init.parent.relative_to(ROOT / folder).parts])] = init.parent
    return packages


def source_modules() -> dict[str, Path]:
    """Every module file of the source tree by its path in the wheel (``treetool/oracles/system.py``, ...)."""
    return {
        "/".join([*name.split("."), py.name]): py
        for name, folder in source_packages().items()
        for py in folder.glob("*.py")
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel ``pip wheel`` builds from a copy of the project (the source tree's own build/ could hold stale files)."""
    tmp = tmp_path_factory.mktemp("wheel")
    project = tmp / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    for folder in MAPPED:
        shutil.copytree(ROOT / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp / "dist"), str(project)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = (tmp / "dist").glob("treetool-*.whl")
    with zipfile.ZipFile(path) as archive:
        yield archive


def top_level_names(names: list[str]) -> set[str]:
    """The import names a wheel adds: its top-level packages and modules (not ``*.dist-info`` nor ``*.data``)."""
    tops = set()
    for name in names:
        first, _, rest = name.partition("/")
        if first.endswith((".dist-info", ".data")):
            continue
        tops.add(first if rest else re.sub(r"\..*$", "", first))
    return tops


def test_the_wheel_adds_one_import_name(wheel):
    assert top_level_names(wheel.namelist()) == {"treetool"}


def test_every_source_package_and_module_is_in_the_wheel_under_its_mapped_name(wheel):
    names = set(wheel.namelist())
    packages = source_packages()
    assert {"treetool.formats", "treetool.projectivization", "treetool.commands", "treetool.oracles",
            "treetool.oracles.constituency"} <= set(packages)
    missing = sorted(path for path in source_modules() if path not in names)
    assert not missing, f"not in the wheel: {missing}"
    assert "treetool/oracles/__init__.py" in names and "treetool/commands/app.py" in names


def test_the_console_script_is_treetool_commands(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert re.search(r"^treetool\s*=\s*treetool\.commands\.app:main\s*$", text, re.M), text
    assert len(re.findall(r"=", text.split("[console_scripts]")[1].split("[")[0])) == 1, text


def test_pyproject_lists_every_source_package():
    """The explicit package list of pyproject.toml is the source tree's packages, by their installed names."""
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert set(setuptools["packages"]) == set(source_packages())
    assert setuptools["package-dir"] == {name: folder for folder, name in MAPPED.items()}


# -------------------------------------------------------------------------- generic names in the current directory

def _installed_console_script() -> str:
    beside = Path(sys.executable).with_name("treetool")
    script = str(beside) if beside.exists() else shutil.which("treetool")
    if script is None:
        pytest.skip("no treetool console script installed")
    return script


@pytest.mark.parametrize("with_init", [False, True], ids=["empty folders", "empty __init__.py"])
def test_cli_and_api_work_beside_folders_named_commands_and_oracles(tmp_path, with_init):
    """An empty ``commands/`` or ``oracles/`` in the current directory (importable first, from sys.path[0]) changes
    nothing: treetool imports only ``treetool.*``."""
    for name in ("commands", "oracles"):
        (tmp_path / name).mkdir()
        if with_init:
            (tmp_path / name / "__init__.py").write_text("")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(list(args), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    assert run(sys.executable, "-m", "treetool", "--version").stdout.startswith("treetool ")
    stats = run(_installed_console_script(), "stats", str(SAMPLE_DATA / "en_sample.conllu")).stdout
    assert stats.strip()
    assert run(sys.executable, "-m", "treetool", "stats", str(SAMPLE_DATA / "en_sample.conllu")).stdout == stats
    api = run(sys.executable, "-c", (
        "from treetool.oracles import get_system; "
        "from treetool.oracles.constituency import get_constituency_system; "
        "print(get_system('arc-standard').static_oracle([-1, 2, 0], ['', 'nsubj', 'root'])); "
        "print(type(get_constituency_system('in-order')).__module__)"))
    assert api.stdout.splitlines() == ["['SH', 'SH', 'LA(nsubj)', 'RA(root)']", "treetool.oracles.constituency.in_order"]


def test_no_top_level_commands_or_oracles_is_imported_from_the_repository_root():
    """From the repository root the folders ``commands/`` and ``oracles/`` are importable as top-level names
    (sys.path[0] is the current directory); loading every command and every module of the oracles must not
    touch them."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import treetool, treetool.commands, treetool.oracles\n"
        "from treetool.commands.app import COMMANDS\n"
        "for module in COMMANDS.values():\n"
        "    importlib.import_module('treetool.commands.' + module)\n"
        "for package in (treetool, treetool.commands, treetool.oracles):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if info.name != 'treetool.__main__':\n"
        "            importlib.import_module(info.name)\n"
        "import treetool.oracles.constituency.exact_loss\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('commands', 'oracles'))\n"
        "assert not bad, bad\n"
        "print(treetool.oracles.__file__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == ROOT / "oracles" / "__init__.py"


def test_no_source_file_imports_the_old_top_level_names():
    """``from oracles ...`` / ``import commands`` would work from the repository root and nowhere else."""
    old = re.compile(r"^\s*(from|import)\s+(oracles|commands)\b|[\"'](oracles|commands)[.:]\w", re.M)
    offenders = [
        f"{py.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
        for folder in (*MAPPED, "tests", "benchmarks")
        for py in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in py.parts
        for text in [py.read_text(encoding="utf-8")]
        for m in old.finditer(text)
    ]
    assert not offenders, offenders
