""".ci/run: its verdict and its clean-up, checked with stand-ins for python3, pip, treetool and pytest.

The real script builds a ~160 MB virtual environment; here ``python3 -m venv``
is a stub that makes a directory whose ``activate`` puts stub commands first
on PATH, so a run takes milliseconds and the pytest status is ours to choose.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT

FAKE_PYTHON3 = """#!/usr/bin/env bash
# Stand-in for `python3 -m venv DIR`: DIR/bin/activate puts stubs first on PATH.
[ "$1 $2" = "-m venv" ] || exit 99
mkdir -p "$3/bin"
echo "PATH=\\"$3/bin:\\$PATH\\"" > "$3/bin/activate"
for tool in pip treetool mkdocs; do
    printf '#!/usr/bin/env bash\\nexit "${FAKE_%s_STATUS:-0}"\\n' "${tool^^}" > "$3/bin/$tool"
done
printf '#!/usr/bin/env bash\\n[ -z "${FAKE_PYTEST_SLEEP:-}" ] || exec sleep "$FAKE_PYTEST_SLEEP"\\nexit "$FAKE_PYTEST_STATUS"\\n' > "$3/bin/pytest"
chmod +x "$3/bin/"*
"""


def _default_signals() -> None:
    """In the child before exec: SIGINT and SIGTERM at their defaults, whatever the test run inherited.

    A command started in the background of a non-interactive shell (``pytest &``) ignores SIGINT, bash
    cannot undo a signal ignored on entry, and the interruption test would wait out the stub's sleep and fail.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # a blocked signal is inherited too


def ci_process(tmp_path: Path, pytest_sleep: int = 0, **statuses: int) -> tuple[subprocess.Popen, Path]:
    """Start a copy of .ci/run, in its own process group, with stubbed tools; return it and its TMPDIR."""
    project = tmp_path / "project"
    (project / ".ci").mkdir(parents=True)
    shutil.copy2(ROOT / ".ci" / "run", project / ".ci" / "run")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "python3").write_text(FAKE_PYTHON3)
    (stubs / "python3").chmod(0o755)
    temp = tmp_path / "tmpdir"
    temp.mkdir()
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "TMPDIR": str(temp),
        "FAKE_PYTEST_SLEEP": str(pytest_sleep or ""),
        **{f"FAKE_{name.upper()}_STATUS": str(status) for name, status in statuses.items()},
    }
    proc = subprocess.Popen(
        ["bash", str(project / ".ci" / "run")], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        preexec_fn=_default_signals,
    )
    return proc, temp


def run_ci(tmp_path: Path, **statuses: int) -> tuple[int, list[Path]]:
    """Run a copy of .ci/run with stubbed tools; return its status and what it left in TMPDIR."""
    proc, temp = ci_process(tmp_path, **statuses)
    return proc.wait(timeout=60), list(temp.iterdir())


@pytest.fixture(autouse=True)
def _needs_bash():
    if shutil.which("bash") is None or os.name != "posix":
        pytest.skip("needs bash")


@pytest.mark.parametrize("pytest_status, expected", [(0, 0), (1, 1), (2, 2)])
def test_ci_status_is_the_test_runs_status(tmp_path, pytest_status, expected):
    status, _ = run_ci(tmp_path, pytest=pytest_status)
    assert status == expected


def test_ci_fails_when_no_test_was_collected(tmp_path):
    status, _ = run_ci(tmp_path, pytest=5)
    assert status != 0


@pytest.mark.parametrize("statuses", [{"pytest": 0}, {"pytest": 1}, {"pytest": 0, "pip": 1}, {"pytest": 0, "treetool": 3},
                                      {"pytest": 0, "mkdocs": 1}])
def test_ci_removes_its_environment_whatever_the_outcome(tmp_path, statuses):
    status, left = run_ci(tmp_path, **statuses)
    assert left == []
    assert (status == 0) == all(code == 0 for code in statuses.values())


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ci_removes_its_environment_when_interrupted(tmp_path, signum):
    proc, temp = ci_process(tmp_path, pytest=0, pytest_sleep=30)
    deadline = time.monotonic() + 30
    while "sleep" not in _group_commands(proc.pid):  # the run has reached the tests, and the stub its sleep
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    os.killpg(proc.pid, signum)  # as a terminal's Ctrl-C or a CI runner's cancel: the whole group
    try:
        assert proc.wait(timeout=30) != 0
    except subprocess.TimeoutExpired:
        states = _signal_states(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail(f"the run outlived {signal.Signals(signum).name} by 30 s; its processes: {states}")
    assert list(temp.iterdir()) == []


def _group_commands(group: int) -> list[str]:
    """The command names of the processes in ``group``.

    The test signals the group only once the stub's ``sleep`` runs: a signal sent while the stub was still
    a shell between two commands could reach no process that dies of it (the flaky failure seen on a loaded
    machine), and the run would wait out the sleep.  Once ``sleep`` (exec'd by the stub) runs, it dies of
    the signal, and bash, seeing its foreground child killed by it, runs its EXIT trap and exits.
    """
    names = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group:  # after the name: state, ppid, pgrp
                names.append(stat.read_text().split("(", 1)[1].rsplit(")", 1)[0])
        except (OSError, IndexError, ValueError):
            continue
    return names


def _signal_states(group: int) -> list[str]:
    """Each process of ``group``: its command and its blocked and ignored signal masks (to tell why one lives on)."""
    states = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
            if os.getpgid(int(status.parent.name)) == group:
                states.append(f"{fields['Name'].strip()} blocked={fields['SigBlk'].strip()} "
                              f"ignored={fields['SigIgn'].strip()}")
        except (OSError, KeyError):
            continue
    return states
