"""The package's import graph has no cycle and no import from a lower layer into a higher one (issue 23).

The layers, lowest first: the core (``treetool.*``), the oracles (``treetool.oracles.*``), the command line
(``treetool.commands.*``).  A module may import its own layer and the layers below it.  Source folders map to
import names as pyproject.toml's ``package-dir`` says (``oracles/`` is ``treetool.oracles``).

The graph is read from the source with :mod:`ast`, not by importing it, so an import that runs only when a function
is called counts like any other: every ``import`` and ``from ... import`` anywhere in a module (in functions,
``if TYPE_CHECKING:`` blocks, ``try`` blocks), relative ones resolved; ``from package import name`` where ``name`` is
a submodule is an import of the submodule, else of the package.  Importing ``a.b.c`` runs ``a/__init__`` and
``a/b/__init__`` first, but that implicit edge to a parent package is not in the graph: with it every package whose
``__init__`` imports its submodules would be a cycle.  An explicit import of the package (``from . import NAME``
where ``NAME`` is defined in ``__init__``) is an edge like any other.

Imports named by strings:

- ``importlib.import_module("literal")`` (or ``__import__``) with a literal name is an import edge.
- A package's PEP 562 lazy table (a module-level dict ``_HOME`` of name -> submodule in its ``__init__``,
  as in ``treetool.oracles``) is what its ``__getattr__`` imports on first use: one edge from the package to each
  submodule, exactly the edges of the eager ``from .submodule import name`` it stands for.
- A registry of ``"package.module:ClassName"`` strings (``treetool.oracles.registry.SYSTEMS``) imports each module
  it names when a system is asked for by name: an edge like any other, in the layer check and the cycle search
  alike (any string constant ``module:attribute`` naming a module of the packages counts).  So the registry lives
  above the systems it names, not beside the interface they import.

The single allowed upward import is the entry point ``treetool/__main__.py``, which imports the command line app:
``python -m treetool`` looks for ``__main__`` in the package it names, and the one top-level package is the core.
No module imports ``__main__`` (checked), so no importer of the core reaches the command line through it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT

#: The layers, lowest first, by the import name of their top package (each a key of pyproject's package-dir).
LAYERS = ("treetool", "treetool.oracles", "treetool.commands")
#: Modules allowed to import a higher layer (see the module docstring); nothing may import them.
ENTRY_POINTS = frozenset({"treetool.__main__"})
#: Name of a package ``__init__``'s PEP 562 table of name -> submodule (see the module docstring).
LAZY_TABLE = "_HOME"


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``line``; ``named`` when by a registry string, not an import."""

    source: str
    target: str
    line: int
    named: bool = False


def package_dirs(root: Path) -> dict[str, Path]:
    """pyproject.toml's ``[tool.setuptools.package-dir]``: import name -> source folder."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10: the one flat table, read by hand
        table = text.split("[tool.setuptools.package-dir]", 1)[1].split("\n[", 1)[0]
        mapping = dict(re.findall(r'^"([\w.]+)"\s*=\s*"([^"]+)"', table, re.M))
    else:
        mapping = tomllib.loads(text)["tool"]["setuptools"]["package-dir"]
    return {name: root / folder for name, folder in mapping.items()}


def module_files(dirs: dict[str, Path]) -> dict[str, Path]:
    """Every module of the packages by its import name (a package by its ``__init__.py``)."""
    modules = {}
    for name, folder in dirs.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if "__pycache__" in parts or not (path.parent / "__init__.py").exists():
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([name, *parts])] = path
    return modules


def imports(modules: dict[str, Path]) -> list[Edge]:
    """Every edge from a module of ``modules`` to a module of ``modules``."""
    return list(dict.fromkeys(edge for name, path in modules.items() for edge in _module_edges(name, path, modules)))


def _module_edges(name: str, path: Path, modules: dict[str, Path]) -> Iterator[Edge]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        elif isinstance(node, ast.Call) and _literal_import(node):
            targets = [node.args[0].value]
        elif isinstance(node, ast.Assign) and node in tree.body and _is_lazy_table(node, path):
            targets = [f"{package}.{value.value}" for value in node.value.values if isinstance(value, ast.Constant)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value:
            target = node.value.partition(":")[0]
            if target != name and target in modules:
                yield Edge(name, target, node.lineno, named=True)
            continue
        else:
            continue
        for target in targets:
            known = _known_prefix(target, modules)
            if known is not None and known != name:
                yield Edge(name, known, node.lineno)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` reads names from, relative levels resolved against ``package``."""
    if node.level == 0:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base


def _literal_import(node: ast.Call) -> bool:
    """``importlib.import_module("literal")``, ``import_module("literal")`` or ``__import__("literal")``."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return (called in ("import_module", "__import__") and bool(node.args)
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))


def _is_lazy_table(node: ast.Assign, path: Path) -> bool:
    return (path.name == "__init__.py" and isinstance(node.value, ast.Dict)
            and any(isinstance(t, ast.Name) and t.id == LAZY_TABLE for t in node.targets))


def _known_prefix(target: str, modules: dict[str, Path]) -> str | None:
    """``target`` or its longest prefix that is a module of ``modules`` (``a.b.name`` -> ``a.b``); None if outside."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in modules:
            return prefix
    return None


def layer_of(module: str, layers: tuple[str, ...]) -> int:
    """The index in ``layers`` of the longest layer name that is ``module`` or a package holding it."""
    holding = [i for i, top in enumerate(layers) if module == top or module.startswith(top + ".")]
    return max(holding, key=lambda i: len(layers[i]))


def upward_imports(edges: list[Edge], layers: tuple[str, ...], allowed: frozenset[str]) -> list[str]:
    """``module:line imports target`` for each edge into a higher layer from a module not in ``allowed``."""
    return [f"{e.source}:{e.line} imports {e.target} ({layers[layer_of(e.source, layers)]} -> "
            f"{layers[layer_of(e.target, layers)]})"
            for e in sorted(edges, key=lambda e: (e.source, e.line, e.target))
            if e.source not in allowed and layer_of(e.target, layers) > layer_of(e.source, layers)]


def cycles(edges: list[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972), each sorted."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe_cycle(component: list[str], edges: list[Edge]) -> str:
    """The component with the import lines that tie it (``a:12 -> b``, ...)."""
    inside = set(component)
    ties = sorted((e.source, e.line, e.target) for e in edges if e.source in inside and e.target in inside)
    return f"{' <-> '.join(component)}: {'; '.join(f'{s}:{n} -> {t}' for s, n, t in ties)}"


# -------------------------------------------------------------------------- the package


@pytest.fixture(scope="module")
def package() -> tuple[dict[str, Path], list[Edge]]:
    dirs = package_dirs(ROOT)
    assert set(dirs) == set(LAYERS), "every top package of pyproject's package-dir needs a layer in LAYERS"
    modules = module_files(dirs)
    return modules, imports(modules)


def test_the_graph_is_read(package):
    """Guards the tests below against passing on an empty graph: known edges are there, function-level ones too."""
    modules, edges = package
    found = {(e.source, e.target) for e in edges}
    assert len(modules) > 50
    assert ("treetool.commands.app", "treetool.commands.common") in found  # relative, top level
    assert ("treetool.__main__", "treetool.commands.app") in found
    assert ("treetool.oracles", "treetool.oracles.system") in found  # the lazy table
    assert ("treetool.commands.app", "treetool") in found  # from treetool import __version__


def test_no_lower_layer_imports_a_higher_one(package):
    _, edges = package
    upward = upward_imports(edges, LAYERS, ENTRY_POINTS)
    assert not upward, "imports from a lower layer into a higher one:\n" + "\n".join(upward)


def test_nothing_imports_the_entry_point(package):
    _, edges = package
    assert [f"{e.source}:{e.line}" for e in edges if e.target in ENTRY_POINTS] == []


def test_no_import_cycle(package):
    _, edges = package
    found = [describe_cycle(c, edges) for c in cycles(edges)]
    assert not found, "import cycles:\n" + "\n".join(found)


# -------------------------------------------------------------------------- the checker on a package made to fail


def _fake(tmp_path: Path, files: dict[str, str]) -> list[Edge]:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.package-dir]\n"low" = "low"\n"low.high" = "high"\n', encoding="utf-8")
    for relative, text in {"low/__init__.py": "", "high/__init__.py": "", **files}.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    return imports(module_files(package_dirs(tmp_path)))


def test_checker_finds_a_function_level_cycle_and_an_upward_import(tmp_path):
    edges = _fake(tmp_path, {
        "low/a.py": "def f():\n    from .b import g\n",
        "low/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from low import a\n",
        "low/c.py": "import json\n\n\ndef h():\n    import low.high.cli\n",
        "high/cli.py": "from ..a import f\n",
    })
    assert cycles(edges) == [["low.a", "low.b"]]
    assert describe_cycle(["low.a", "low.b"], edges) == "low.a <-> low.b: low.a:2 -> low.b; low.b:3 -> low.a"
    assert upward_imports(edges, ("low", "low.high"), frozenset()) == [
        "low.c:5 imports low.high.cli (low -> low.high)"]


def test_checker_reads_string_imports_and_tells_a_package_cycle_from_a_package_importing_its_modules(tmp_path):
    edges = _fake(tmp_path, {
        "low/__init__.py": "from .a import f\nfrom .d import VALUE\n_HOME = {'g': 'b'}\n",
        "low/a.py": "from . import b\n\ndef f():\n    return b\n",
        "low/d.py": "VALUE = 1\n\ndef use():\n    from . import f\n    return f\n",
        "low/b.py": "SPEC = 'low.high.cli:main'\n",
        "high/cli.py": "import importlib\nimportlib.import_module('low.high.impl')\n",
        "high/impl.py": "from . import cli\n",
    })
    assert {(e.source, e.target, e.named) for e in edges} == {
        ("low", "low.a", False), ("low", "low.d", False), ("low", "low.b", False), ("low.a", "low.b", False),
        ("low.d", "low", False),
        ("low.b", "low.high.cli", True), ("low.high.cli", "low.high.impl", False),
        ("low.high.impl", "low.high.cli", False),
    }
    assert sorted(cycles(edges)) == [["low", "low.d"], ["low.high.cli", "low.high.impl"]]  # not low, low.a, low.b
    assert upward_imports(edges, ("low", "low.high"), frozenset()) == [
        "low.b:1 imports low.high.cli (low -> low.high)"]


def test_checker_counts_a_registry_naming_a_module_that_imports_it_as_a_cycle(tmp_path):
    """The registry of names -> ``module:Class`` strings imports each module it names (module docstring)."""
    edges = _fake(tmp_path, {
        "low/interface.py": "SYSTEMS = {'mine': 'low.mine:Mine'}\n",
        "low/mine.py": "from .interface import SYSTEMS\n",
    })
    assert cycles(edges) == [["low.interface", "low.mine"]]
