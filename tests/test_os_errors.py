"""Operating-system errors: one line `treetool: error: PATH: reason`, never a traceback.

A table walks every path option of every command (and a test checks that the
table lists every option whose metavar is FILE, so a new command's path
options must join it) through every way a path can fail: exit 2 for what is
read, 1 for what is written.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from treetool.commands.app import app
from conftest import ROOT, SAMPLE_DATA

EN = SAMPLE_DATA / "en_sample.conllu"
READ, WRITE = 2, 1

# (command, parameter) -> (how the parameter is given a path, extra arguments it needs, exit status)
PATH_PARAMETERS: dict[tuple[str, str], tuple[str, list[str], int]] = {
    ("stats", "files"): ("argument", [], READ),
    ("stats", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("filter", "files"): ("argument", [], READ),
    ("filter", "output"): ("-o", [], WRITE),
    ("filter", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("filter", "ids"): ("--ids", [], READ),
    ("projectivize", "files"): ("argument", [], READ),
    ("projectivize", "output"): ("-o", [], WRITE),
    ("projectivize", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("projectivize", "report_file"): ("--report-file", [], WRITE),
    ("deprojectivize", "files"): ("argument", [], READ),
    ("deprojectivize", "output"): ("-o", [], WRITE),
    ("deprojectivize", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("oracle", "files"): ("argument", [], READ),
    ("oracle", "output"): ("-o", [], WRITE),
    ("oracle", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("oracle", "report_file"): ("--report-file", [], WRITE),
    ("oracle", "vocab"): ("--vocab", ["--system", "top-down"], READ),
    ("replay", "files"): ("argument", [], READ),
    ("replay", "output"): ("-o", [], WRITE),
    ("replay", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("coverage", "files"): ("argument", [], READ),
    ("coverage", "rejects"): ("--rejects", ["--on-error", "skip"], WRITE),
    ("annotate", "files"): ("argument", ["--system", "arc-hybrid"], READ),
    ("annotate", "output"): ("-o", ["--system", "arc-hybrid", "--on-error", "skip"], WRITE),
    ("annotate", "rejects"): ("--rejects", ["--system", "arc-hybrid", "--on-error", "skip"], WRITE),
    ("annotate", "predicted"): ("--predicted", ["--system", "arc-hybrid", "--policy", "predicted"], READ),
    ("annotate", "labels_file"): ("--labels", ["--system", "top-down", "--from", "ptb"], READ),
    ("stats", "plot"): ("--plot", [], WRITE),
    ("projectivize", "plot"): ("--plot", ["--count"], WRITE),
    ("view", "files"): ("argument", [], READ),
    ("view", "ids"): ("--ids", [], READ),
    ("view", "compare"): ("--compare", [], READ),
    ("diff", "gold"): ("argument", [EN], READ),
    ("diff", "other"): ("second argument", [], READ),
}

#: Metavars of the parameters that name a file: FILE, and diff's GOLD and OTHER (also view --compare).
PATH_METAVARS = {"FILE", "GOLD", "OTHER"}

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _missing(tmp: Path, name: str = "x.conllu") -> Path:
    return tmp / "no-such-dir" / name


def _directory(tmp: Path, name: str = "x.conllu") -> Path:
    (tmp / name).mkdir()
    return tmp / name


def _under_a_file(tmp: Path, name: str = "x.conllu") -> Path:
    (tmp / "plain").write_text("")
    return tmp / "plain" / name


def _no_permission(tmp: Path, name: str = "x.conllu") -> Path:
    locked = tmp / "locked"
    locked.mkdir()
    (locked / name).write_bytes(EN.read_bytes())
    locked.chmod(0)
    return locked / name


def _unlock(tmp: Path) -> None:
    """Undo :func:`_no_permission`, so the temporary directory can be removed."""
    if (tmp / "locked").exists():
        (tmp / "locked").chmod(0o700)


# how a path fails -> (make such a path, with a given file name, in a temporary directory; the errno it gives)
FAILURES: dict[str, tuple[Callable[[Path, str], Path], int]] = {
    "missing": (_missing, errno.ENOENT),
    "directory": (_directory, errno.EISDIR),
    "under a file": (_under_a_file, errno.ENOTDIR),
    "no permission": (_no_permission, errno.EACCES),
}


def path_parameters() -> set[tuple[str, str]]:
    """Every (command, parameter) of the app that takes a file (see :data:`PATH_METAVARS`)."""
    group = typer.main.get_command(app)
    return {
        (name, param.name)
        for name in group.list_commands(None)
        for param in group.get_command(None, name).params
        if param.metavar in PATH_METAVARS
    }


def test_the_table_lists_every_path_parameter():
    assert set(PATH_PARAMETERS) == path_parameters()


def arguments(command: str, parameter: str, path: Path) -> list[str]:
    how, extra, _ = PATH_PARAMETERS[command, parameter]
    if how == "argument":
        return [command, str(path), *map(str, extra)]
    if how == "second argument":
        return [command, str(EN), str(path), *extra]
    return [command, str(EN), *extra, how, str(path)]


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("command, parameter", sorted(PATH_PARAMETERS))
def test_an_os_error_is_one_line_and_a_status(tmp_path, command, parameter, failure):
    make, code = FAILURES[failure]
    if failure == "no permission" and IS_ROOT:
        pytest.skip("root is not refused by permission bits")
    path = make(tmp_path, "x.png" if parameter == "plot" else "x.conllu")  # --plot takes .png or .svg
    try:
        result = CliRunner().invoke(app, arguments(command, parameter, path))
    finally:
        _unlock(tmp_path)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.stderr == f"treetool: error: {path}: {os.strerror(code)}\n"
    assert result.exit_code == PATH_PARAMETERS[command, parameter][2]


# --------------------------------------------------------- in a real process
@pytest.mark.skipif(not IS_ROOT or not shutil.which("setpriv"), reason="as non-root the table covers it")
@pytest.mark.parametrize("command, parameter", [("filter", "files"), ("stats", "rejects")])
def test_permission_denied_as_root_without_its_privilege(tmp_path, command, parameter):
    """Root with no right to bypass permission bits (its capabilities bounded) gets EACCES like anyone."""
    path = _no_permission(tmp_path)
    try:
        proc = subprocess.run(
            ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
             sys.executable, "-m", "treetool", *arguments(command, parameter, path)],
            capture_output=True, cwd=ROOT, timeout=120,
        )
    finally:
        _unlock(tmp_path)
    assert proc.stderr.decode() == f"treetool: error: {path}: {os.strerror(errno.EACCES)}\n"
    assert proc.returncode == PATH_PARAMETERS[command, parameter][2]


@pytest.fixture
def full_stdout():
    """/dev/full opened for writing (stdout redirected to it; nothing is renamed)."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "wb") as f:
        yield f


@pytest.mark.parametrize("command", [
    ["stats", EN],  # small: fails when stdout is flushed at the end
    ["stats", "--format", "tsv", *[EN] * 200],  # large: fails while the report is printed
    ["filter", EN],  # small: fails when the output is committed
    ["filter", *[EN] * 200],  # large: fails while sentences are written
    ["--version"],  # printed while the options are parsed, before any command runs
    ["stats", "--help"],
])
def test_a_full_disk_on_stdout_is_one_line_and_status_1(full_stdout, command):
    proc = subprocess.run(
        [sys.executable, "-m", "treetool", *map(str, command)],
        stdout=full_stdout, stderr=subprocess.PIPE, cwd=ROOT, timeout=120,
    )
    assert proc.stderr.decode() == f"treetool: error: <stdout>: {os.strerror(errno.ENOSPC)}\n"
    assert proc.returncode == WRITE
