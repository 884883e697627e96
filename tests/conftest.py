"""Shared fixtures: locating ../shared (real treebanks and reference outputs).

Tests that need ../shared skip with a visible reason when it is absent; they
never copy its data into the project.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SAMPLE_DATA = ROOT / "sample_data"


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the calling test if it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found: ../shared is not beside the clone")
    return path


@pytest.fixture
def shared() -> Path:
    return shared_path()


RESULTS = ROOT / "benchmarks" / "RESULTS.md"


def results_section(heading: str) -> str:
    """The text of the section of benchmarks/RESULTS.md whose ``## `` heading starts with ``heading``."""
    lines, fenced, found = [], False, False
    for line in RESULTS.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("## ") and not fenced:  # a script's own "## " lines inside ``` blocks are not headings
            if found:
                break
            found = line.startswith(f"## {heading}")
        if line.startswith("```"):
            fenced = not fenced
        if found:
            lines.append(line)
    assert found, f"benchmarks/RESULTS.md has no section {heading!r}"
    return "".join(lines)


def results_non_projective_shares() -> dict[str, tuple[str, int]]:
    """Nederhof (2019), Table 7 as benchmarks/RESULTS.md reproduces it:
    ``{"Greek-GDT": ("11.73", 12), ...}`` -- our figure as written (two decimals) and
    the paper's rounded one, so a test can hold the code to the published figures exactly."""
    rows = re.findall(r"^\| ([A-Z][\w-]+) \| (\d+\.\d\d)% \| (\d+)% \|$",
                      results_section("Nederhof 2019 Table 7"), re.M)
    assert rows, "benchmarks/RESULTS.md's Table 7 section has no rows"
    return {name: (ours, int(paper)) for name, ours, paper in rows}


def ud_train_file(name: str) -> Path:
    """The UD 2.2 training file of a README treebank name such as ``Greek-GDT`` (skips if absent)."""
    folder = shared_path("data", "ud-2.2", f"UD_{name}")
    (path,) = folder.glob("*-ud-train.conllu")
    return path


@dataclass
class CliResult:
    returncode: int
    stdout: bytes
    stderr: bytes


def run_cli(*args: object, stdin: bytes | None = None) -> CliResult:
    """Run a treetool command in process (typer's CliRunner): the command-line code path, no start-up per call.

    An exception the command did not turn into an exit status is re-raised, so a traceback fails the test.
    """
    from typer.testing import CliRunner

    from treetool.commands.app import app

    result = CliRunner().invoke(app, [str(a) for a in args], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliResult(result.exit_code, result.stdout_bytes, result.stderr_bytes)


def force_workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every :class:`~treetool.parallel.SentencePool` start its workers after the first sentence read and hand
    the work to them, one task per chunk (many chunks, the window fills); returns the list of pool starts
    (one entry per start)."""
    import treetool.parallel as parallel

    monkeypatch.setattr(parallel, "START_SENTENCES", {"fork": 0, "spawn": 0})
    monkeypatch.setattr(parallel, "FIRST_CHUNK", 1)
    monkeypatch.setattr(parallel, "CHUNK_SECONDS", 0.0)
    starts: list[int] = []
    start = parallel.SentencePool._start

    def counted(self: parallel.SentencePool, work: Callable[[Any], Any]) -> None:
        starts.append(1)
        start(self, work)

    monkeypatch.setattr(parallel.SentencePool, "_start", counted)
    return starts
