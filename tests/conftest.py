"""Shared fixtures: locating ../shared (real treebanks and reference outputs).

Tests that need ../shared skip with a visible reason when it is absent; they
never copy its data into the project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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


def readme_non_projective_shares() -> dict[str, tuple[str, int]]:
    """The README's claim about Nederhof (2019), Table 7, parsed from README.md itself:
    ``{"Greek-GDT": ("11.73", 12), ...}`` -- our figure as written (two decimals) and
    the paper's rounded one, so a test can hold the code to the README exactly."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    claim = re.search(r"reproduces Nederhof\s+\(2019, Table 7\):(.*?)non-projective trees", text, re.S)
    assert claim, "README.md no longer states the Table 7 figures"
    shares = re.findall(r"([A-Z][\w-]+)\s+(\d+\.\d\d)%\s+\((\d+)%\)", claim.group(1))
    assert shares, "README.md's Table 7 sentence has no figures"
    return {name: (ours, int(paper)) for name, ours, paper in shares}


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

    from commands.app import app

    result = CliRunner().invoke(app, [str(a) for a in args], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliResult(result.exit_code, result.stdout_bytes, result.stderr_bytes)
