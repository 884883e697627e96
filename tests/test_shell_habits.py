"""Ordinary shell habits, over every command and every path option: no emptied file, no stream read twice,
no wrong status.

Each table lists every command with every option that names a file to read (``INPUTS``) or to write
(``OUTPUTS``).  What a run must do is derived from a plain run of the same command on fresh regular files:

* an input given as a FIFO, a pipe's ``/dev/fd/N`` (process substitution), ``-`` or ``/dev/stdin`` gives the
  same bytes and status as the regular file;
* an output that is also an input (through a second hard link, so replacing the name would cut the link) gets
  the plain run's output, and both names stay one file; two outputs naming one file, an output streamed into
  an input, a pipe named twice are refused (exit 2) before anything is written;
* a missing input leaves an existing output untouched; a read-only output is refused exactly when the shell
  refuses it;
* SIGTERM and SIGHUP leave no temporary file and the old output intact, with status 128 + N;
* a reader that closed its pipe does not change the status.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, run_cli
from treetool.commands import common

BAD_SENTENCE = b"# sent_id = bad-1\n1\tOops\toops\tX\tX\t_\t7\tdep\t_\t_\n\n"  # HEAD 7 in a one-word sentence

#: Every command with each option that reads a file.  "@NAME" is the file under test; other NAMEs are regular.
INPUTS = {
    "projectivize FILE": ["projectivize", "@GOLD"],
    "deprojectivize FILE": ["deprojectivize", "@GOLD"],
    "stats FILE": ["stats", "@GOLD", "--format", "json"],
    "stats FILE (ptb)": ["stats", "@PTB", "--format", "json"],
    "filter FILE": ["filter", "@GOLD"],
    "filter --ids": ["filter", "GOLD", "--ids", "@IDS"],
    "oracle FILE": ["oracle", "@GOLD"],
    "oracle FILE (ptb)": ["oracle", "@PTB", "--system", "top-down"],
    "oracle --vocab": ["oracle", "PTB", "--system", "top-down", "--vocab", "@PTB"],
    "replay FILE": ["replay", "@ORACLE", "--system", "attardi"],
    "replay FILE (rnng)": ["replay", "@RNNG", "--system", "top-down"],
    "coverage FILE": ["coverage", "@GOLD", "--format", "json"],
    "annotate FILE": ["annotate", "@GOLD", "--system", "arc-eager"],
    "annotate --predicted": ["annotate", "GOLD", "--system", "arc-eager", "--policy", "predicted", "--predicted", "@GOLD"],
    "annotate FILE (ptb)": ["annotate", "@PTB", "--system", "top-down", "--labels", "LABELS"],
    "annotate --labels": ["annotate", "PTB", "--system", "top-down", "--labels", "@LABELS"],
    "view FILE": ["view", "@GOLD"],
    "view --ids": ["view", "GOLD", "--ids", "@IDS"],
    "view --compare": ["view", "GOLD", "--compare", "@OTHER"],
    "diff GOLD": ["diff", "@GOLD", "OTHER"],
    "diff OTHER": ["diff", "GOLD", "@OTHER"],
}

#: Every command that writes files, with its output options; the input holds one bad sentence, skipped.
OUTPUTS = {
    "projectivize": (["projectivize", "BAD", "--on-error", "skip"], ["-o", "--report-file", "--rejects"]),
    "deprojectivize": (["deprojectivize", "BAD", "--on-error", "skip"], ["-o", "--rejects"]),
    "stats": (["stats", "BAD", "--on-error", "skip"], ["--rejects"]),
    "filter": (["filter", "BAD", "--on-error", "skip"], ["-o", "--rejects"]),
    "oracle": (["oracle", "BAD", "--on-error", "skip"], ["-o", "--report-file", "--rejects"]),
    "oracle (ptb)": (["oracle", "BADPTB", "--system", "top-down", "--on-error", "skip"], ["-o", "--report-file", "--rejects"]),
    "replay": (["replay", "BADORACLE", "--system", "attardi", "--on-error", "skip"], ["-o", "--rejects"]),
    "replay (rnng)": (["replay", "RNNG", "--system", "top-down", "--on-error", "skip"], ["-o", "--rejects"]),
    "coverage": (["coverage", "BAD", "--on-error", "skip"], ["--rejects"]),
    "annotate": (["annotate", "BAD", "--system", "arc-eager", "--on-error", "skip"], ["-o", "--rejects"]),
    "annotate (ptb)": (["annotate", "BADPTB", "--system", "top-down", "--labels", "LABELS", "--on-error", "skip"], ["-o", "--rejects"]),
}
OUTPUT_CASES = [(name, option) for name, (_, options) in OUTPUTS.items() for option in options]
SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]  # SIGKILL cleans nothing up: no named file may be there


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The inputs the tables name, written fresh for each test."""
    gold = (SAMPLE_DATA / "en_sample.conllu").read_bytes()
    ptb = (SAMPLE_DATA / "wsj_sample.mrg").read_bytes()
    oracle = run_cli("oracle", SAMPLE_DATA / "en_sample.conllu", "--system", "attardi").stdout
    contents = {
        "GOLD": gold,
        "OTHER": gold.replace(b"\tnsubj\t", b"\tobj\t", 1),
        "BAD": gold + BAD_SENTENCE,
        "PTB": ptb,
        "BADPTB": ptb + b"(S (NP (DT a)\n",  # an unclosed bracket
        "ORACLE": oracle,
        "BADORACLE": oracle + b"# transitions = SH SH\n" + BAD_SENTENCE[len(b"# sent_id = bad-1\n"):],
        "RNNG": run_cli("oracle", SAMPLE_DATA / "wsj_sample.mrg", "--system", "top-down").stdout,
        "IDS": b"en-3\nen-1\n",
        "LABELS": b"S\nNP\nVP\nPP\nSBAR\nADJP\nADVP\nWHNP\nPRN\nQP\n",
    }
    suffix = {"GOLD": ".conllu", "OTHER": ".conllu", "BAD": ".conllu", "ORACLE": ".conllu", "BADORACLE": ".conllu",
              "PTB": ".mrg", "BADPTB": ".mrg", "RNNG": ".oracle", "IDS": ".txt", "LABELS": ".txt"}
    paths = {}
    for name, data in contents.items():
        paths[name] = tmp_path / f"{name.lower()}{suffix[name]}"
        paths[name].write_bytes(data)
    return paths


def _args(template: list[str], files: dict[str, Path], under_test: str | None = None) -> list[str]:
    """The command line: NAME -> its regular file, @NAME -> ``under_test`` (else the regular file)."""
    out = []
    for token in template:
        if token.startswith("@"):
            out.append(under_test or str(files[token[1:]]))
        else:
            out.append(str(files[token]) if token in files else token)
    return out


def _tested(template: list[str]) -> str:
    return next(token[1:] for token in template if token.startswith("@"))


def _names_as_typed(result_bytes: bytes, path: str) -> bytes:
    """Output with the name of the input blanked: a report or drawing names the file it read (stdin as
    ``<stdin>``, or ``"-"`` in JSON)."""
    if path == "-":
        return result_bytes.replace(b"<stdin>", b"<input>").replace(b'"-"', b'"<input>"')
    return result_bytes.replace(os.fsencode(path), b"<input>")


def _default_signals() -> None:
    """In the child before exec: SIGTERM and SIGHUP at their defaults, whatever the test run inherited.

    A run under ``nohup`` (or any parent ignoring SIGHUP) passes the ignored signal on, and treetool keeps a
    signal ignored on entry ignored, as it should: the test is of treetool's handling, not of the parent's.
    """
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGHUP})


def _start_process(args: list[str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "treetool", *args], preexec_fn=_default_signals, **kwargs)


# ---------------------------------------------------------------------------------------------------------
# Inputs: read once, whatever they are


class _Writer(threading.Thread):
    """Write ``data`` into a FIFO once a reader has opened it (never blocking on one that is never opened)."""

    def __init__(self, path: str, data: bytes) -> None:
        super().__init__(daemon=True)
        self.path, self.data, self.stop = path, data, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                time.sleep(0.005)
                continue
            os.set_blocking(fd, True)
            try:
                os.write(fd, self.data)
            except BrokenPipeError:
                pass
            os.close(fd)
            return


def _fifo(tmp_path: Path, data: bytes) -> tuple[str, _Writer]:
    path = tmp_path / "stream.fifo"
    os.mkfifo(path)
    writer = _Writer(str(path), data)
    writer.start()
    return str(path), writer


def _pipe(data: bytes) -> tuple[str, int]:
    """A pipe holding ``data`` (small enough for its buffer), as ``<(...)`` names it: ``/dev/fd/N``."""
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return f"/dev/fd/{read}", read


@pytest.mark.parametrize("case", INPUTS)
@pytest.mark.parametrize("kind", ["fifo", "/dev/fd/N", "-"])
def test_a_stream_input_reads_like_the_file(tmp_path, files, case, kind):
    template = INPUTS[case]
    name = _tested(template)
    data = files[name].read_bytes()
    expected = run_cli(*_args(template, files))
    if kind == "fifo":
        path, writer = _fifo(tmp_path, data)
        try:
            got = run_cli(*_args(template, files, path))
        finally:
            writer.stop.set()
    elif kind == "/dev/fd/N":
        path, fd = _pipe(data)
        try:
            got = run_cli(*_args(template, files, path))
        finally:
            os.close(fd)
    else:
        path = "-"
        got = run_cli(*_args(template, files, path), stdin=data)
    assert got.returncode == expected.returncode, got.stderr
    regular = str(files[name])
    assert _names_as_typed(got.stdout, path) == _names_as_typed(expected.stdout, regular)


@pytest.mark.parametrize("case", INPUTS)
def test_dev_stdin_reads_like_the_file(files, case):
    template = INPUTS[case]
    name = _tested(template)
    expected = run_cli(*_args(template, files))
    got = subprocess.run([sys.executable, "-m", "treetool", *_args(template, files, "/dev/stdin")],
                         input=files[name].read_bytes(), capture_output=True, timeout=120)
    assert got.returncode == expected.returncode, got.stderr
    assert _names_as_typed(got.stdout, "/dev/stdin") == _names_as_typed(expected.stdout, str(files[name]))


@pytest.mark.parametrize("kind", ["fifo", "/dev/fd/N", "-"])
def test_an_input_that_would_be_read_twice_is_refused(tmp_path, files, kind):
    """Constituency annotate collects the label set from its inputs first, unless --labels gives it."""
    data = files["PTB"].read_bytes()
    if kind == "fifo":
        path, writer = _fifo(tmp_path, data)
        got = run_cli("annotate", path, "--system", "top-down")
        writer.stop.set()
    elif kind == "/dev/fd/N":
        path, fd = _pipe(data)
        got = run_cli("annotate", path, "--system", "top-down", "--from", "ptb")
        os.close(fd)
    else:
        got = run_cli("annotate", "-", "--system", "top-down", "--from", "ptb", stdin=data)
    assert got.returncode == 2 and b"can be read only once" in got.stderr and b"--labels" in got.stderr
    assert got.stdout == b""


@pytest.mark.parametrize("args", [["diff", "-", "-"], ["view", "-", "--compare", "-"], ["stats", "-", "-"],
                                  ["filter", "GOLD", "-", "--ids", "-"]])
def test_stdin_named_twice_is_refused(files, args):
    got = run_cli(*_args(args, files), stdin=files["GOLD"].read_bytes())
    assert got.returncode == 2
    assert got.stderr.decode().count("\n") == 1 and "read twice" in got.stderr.decode()
    assert got.stdout == b""


def test_one_fifo_named_twice_is_refused(tmp_path, files):
    path, writer = _fifo(tmp_path, files["GOLD"].read_bytes())
    try:
        got = run_cli("diff", path, path)
    finally:
        writer.stop.set()
    assert got.returncode == 2 and "read twice" in got.stderr.decode()


# ---------------------------------------------------------------------------------------------------------
# Outputs: never emptied, never clashing


def _run_with_output(files: dict[str, Path], name: str, option: str, target: Path):
    template, _ = OUTPUTS[name]
    return run_cli(*_args(template, files), option, target)


SIDE_OUTPUT_CASES = [(name, option) for name, option in OUTPUT_CASES if option != "-o"]


@pytest.mark.parametrize("name, option", SIDE_OUTPUT_CASES)
def test_a_side_output_naming_an_input_is_refused(tmp_path, files, name, option):
    """--rejects or --report-file over the treebank read is a slip, not a wish: the input stays."""
    template, _ = OUTPUTS[name]
    source = next(token for token in template if token in files)
    before = files[source].read_bytes()
    got = _run_with_output(files, name, option, files[source])
    assert got.returncode == 2, got.stderr
    assert b"is the input" in got.stderr and got.stderr.count(b"\n") == 1
    assert files[source].read_bytes() == before


@pytest.mark.parametrize("name", [name for name, (_, options) in OUTPUTS.items() if "-o" in options])
def test_an_output_over_its_hard_linked_input_gets_the_plain_runs_output(tmp_path, files, name):
    option = "-o"
    template, _ = OUTPUTS[name]
    source = next(token for token in template if token in files)
    fresh = tmp_path / "fresh.out"
    expected = _run_with_output(files, name, option, fresh)
    assert expected.returncode == 0, expected.stderr
    linked = tmp_path / "second-link"
    os.link(files[source], linked)
    got = _run_with_output(files, name, option, files[source])
    assert got.returncode == 0, got.stderr
    assert _untimed(files[source].read_bytes()) == _untimed(fresh.read_bytes())
    assert os.path.samefile(files[source], linked) and os.stat(linked).st_nlink == 2


def _untimed(output: bytes) -> object:
    """An output as compared: a JSON report without its timings (``ms_per_tree``), anything else as it is."""
    try:
        report = json.loads(output)
    except ValueError:
        return output

    def drop(value: object) -> object:
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if not k.startswith("ms_")}
        return [drop(v) for v in value] if isinstance(value, list) else value

    return drop(report)


def _pairs(options: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(options) for b in options[i + 1:]]


TWO_OUTPUT_CASES = [(name, a, b) for name, (_, options) in OUTPUTS.items() for a, b in _pairs(options)]


@pytest.mark.parametrize("alias", ["same name", "hard link", "symlink"])
@pytest.mark.parametrize("name, first, second", TWO_OUTPUT_CASES)
def test_two_outputs_naming_one_file_are_refused(tmp_path, files, name, first, second, alias):
    template, _ = OUTPUTS[name]
    target = tmp_path / "target.out"
    target.write_bytes(b"precious\n")
    other = target
    if alias == "hard link":
        other = tmp_path / "alias.out"
        os.link(target, other)
    elif alias == "symlink":
        other = tmp_path / "alias.out"
        other.symlink_to(target.name)
    before = sorted(p.name for p in tmp_path.iterdir())
    got = run_cli(*_args(template, files), first, target, second, other)
    assert got.returncode == 2
    assert got.stderr.decode().count("\n") == 1 and "two outputs" in got.stderr.decode()
    assert target.read_bytes() == b"precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("name, option", OUTPUT_CASES)
def test_a_missing_input_leaves_the_output_untouched(tmp_path, files, name, option):
    template, _ = OUTPUTS[name]
    target = tmp_path / "target.out"
    target.write_bytes(b"precious\n")
    os.link(target, tmp_path / "second-link")
    args = _args(template, files)
    source = next(str(files[token]) for token in template if token in files)
    args[args.index(source)] = str(tmp_path / "missing.conllu")
    got = run_cli(*args, option, target)
    assert got.returncode == 2
    assert "missing.conllu: No such file or directory" in got.stderr.decode()
    assert target.read_bytes() == b"precious\n" == (tmp_path / "second-link").read_bytes()


def _shell_refuses(path: Path) -> bool:
    return subprocess.run(["sh", "-c", ': > "$1"', "sh", str(path)], capture_output=True).returncode != 0


@pytest.mark.parametrize("name, option", OUTPUT_CASES)
def test_a_read_only_output_is_refused_exactly_when_the_shell_refuses_it(tmp_path, files, name, option):
    target = tmp_path / "readonly.out"
    target.write_bytes(b"precious\n")
    target.chmod(0o444)
    probe = tmp_path / "probe.out"
    probe.write_bytes(b"")
    probe.chmod(0o444)
    got = _run_with_output(files, name, option, target)
    if _shell_refuses(probe):
        assert got.returncode == 1
        assert got.stderr.decode().strip().endswith(f"{target}: Permission denied")
        assert target.read_bytes() == b"precious\n"
    else:  # root writes a read-only file, as its shell does; the file stays read-only
        assert got.returncode == 0, got.stderr
        assert target.read_bytes() != b"precious\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444


def test_a_file_in_a_folder_without_room_for_a_temporary_file_is_written_in_place(tmp_path, files, monkeypatch):
    """Where no temporary file can be made beside the output (a read-only folder), the output is spooled and
    copied into the file at the end; the inode (and any other link) stays."""
    import treetool.formats.files as F

    target = tmp_path / "out.conllu"
    target.write_bytes(b"precious\n")
    inode = target.stat().st_ino
    real = F._create_beside

    def refuse_beside_target(path: str, access: int):
        if os.path.dirname(path) == str(tmp_path):
            raise PermissionError(13, "Permission denied", os.path.dirname(path))
        return real(path, access)

    monkeypatch.setattr(F, "_create_beside", refuse_beside_target)
    got = run_cli("filter", files["GOLD"], "-o", target)
    assert got.returncode == 0, got.stderr
    assert target.read_bytes() == files["GOLD"].read_bytes() and target.stat().st_ino == inode


@pytest.mark.parametrize("name", [name for name, (_, options) in OUTPUTS.items() if "-o" in options])
def test_output_to_dev_stdin_while_stdin_is_read_is_refused(files, name):
    template, _ = OUTPUTS[name]
    source = next(token for token in template if token in files)
    args = ["-" if token == source else token for token in template]
    data = files[source].read_bytes()
    got = subprocess.run([sys.executable, "-m", "treetool", *_args(args, files), "-o", "/dev/stdin"],
                         input=data, capture_output=True, timeout=120)
    assert got.returncode == 2, got.stderr
    assert b"is the input" in got.stderr and got.stdout == b""


@pytest.mark.parametrize("rejects", ["-", "/dev/stdout"])
@pytest.mark.parametrize("name", ["stats", "coverage"])
def test_rejects_on_the_stdout_a_report_is_printed_on_are_refused(files, name, rejects):
    """stats and coverage print their report on stdout: rejected sentences there too would be mixed into it
    (a JSON report that no longer parses)."""
    template, _ = OUTPUTS[name]
    got = subprocess.run([sys.executable, "-m", "treetool", *_args(template, files), "--format", "json",
                          "--rejects", rejects], capture_output=True, timeout=120)
    assert got.returncode == 2 and got.stdout == b""
    assert got.stderr.count(b"\n") == 1 and b"two outputs" in got.stderr, got.stderr


@pytest.mark.parametrize("name", OUTPUTS)
def test_stdout_appended_to_an_input_is_refused(files, name):
    """``treetool CMD x >> x`` would read its own output without end."""
    template, _ = OUTPUTS[name]
    source = next(token for token in template if token in files)
    before = files[source].read_bytes()
    with open(files[source], "ab") as stdout:
        got = subprocess.run([sys.executable, "-m", "treetool", *_args(template, files)], stdout=stdout,
                             stderr=subprocess.PIPE, timeout=120)
    assert got.returncode == 2, got.stderr
    assert b"is the input" in got.stderr
    assert files[source].read_bytes() == before


# ---------------------------------------------------------------------------------------------------------
# Signals: an interrupted run leaves the old output and nothing else


def _open_in(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` holds a file of ``folder`` open for writing (named, or nameless: O_TMPFILE)."""
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
            flags = int(Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text().split("flags:")[1].split()[0], 8)
        except (OSError, IndexError, ValueError):
            continue
        if target.startswith(str(folder)) and flags & (os.O_WRONLY | os.O_RDWR):
            return True
    return False


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="needs Linux's /proc to see the output opened")
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("name", [name for name, (_, options) in OUTPUTS.items() if "-o" in options])
def test_a_terminated_run_leaves_the_old_output_and_no_temporary_file(tmp_path, files, name, signum):
    template, _ = OUTPUTS[name]
    source = next(token for token in template if token in files)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / ("old" + files[source].suffix)
    target.write_bytes(b"precious\n")
    args = _args(["-" if token == source else token for token in template], files)
    data = files[source].read_bytes()
    proc = _start_process([*args, "-o", str(target)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
    try:
        proc.stdin.write(data[: len(data) // 2])  # the rest never comes: the run waits, its output open
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not _open_in(proc.pid, out_dir):
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the output was never opened"
            time.sleep(0.02)
        proc.send_signal(signum)
        assert proc.wait(timeout=60) == (-signum if signum == signal.SIGKILL else 128 + signum)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    assert b"Traceback" not in proc.stderr.read()
    assert [p.name for p in out_dir.iterdir()] == [target.name]
    assert target.read_bytes() == b"precious\n"


LOST_IN_A_FINALISER = """
import os, signal, time
import treetool.commands.common as common
from treetool.commands.common import Terminated, unwind_on_termination
unwind_on_termination()
if {mode!r} == "first-resend-wakes-nothing":  # it arrives before the read blocks
    send = signal.pthread_kill
    dropped = []
    signal.pthread_kill = lambda thread, signum: dropped.append(signum) if not dropped else send(thread, signum)
if {mode!r} == "resent-into-the-hook":  # the hook lingers twice: signals sent again land in it
    resend, calls = common._send_again, []
    def lingering(*args):
        resend(*args)
        calls.append(1)
        if len(calls) <= 2:
            time.sleep(0.2)
    common._send_again = lingering
def closing():
    try:
        yield
    finally:
        signal.raise_signal(signal.{name})  # its handler raises here, in a finaliser: Python ignores that
abandoned = closing()
next(abandoned)
read_end, _ = os.pipe()
try:
    del abandoned
    os.read(read_end, 1)  # nothing ever comes: only the signal can end the wait
except (Terminated, KeyboardInterrupt) as err:
    time.sleep(0.3)  # a signal sent once more after it landed would raise here
    print(type(err).__name__)
"""


@pytest.mark.parametrize("mode", ["sent-again", "first-resend-wakes-nothing", "resent-into-the-hook"])
@pytest.mark.parametrize("name, unwinds_as", [("SIGTERM", "Terminated"), ("SIGHUP", "Terminated"),
                                              ("SIGINT", "KeyboardInterrupt")])
def test_a_signal_whose_exception_is_lost_in_a_finaliser_still_ends_the_run(name, unwinds_as, mode):
    """The cause of a run that once went on reading after SIGHUP: the handler had run inside an abandoned
    generator's close, where Python drops exceptions; the signal must come again and end the wait. Under
    load the signal sent again could itself arrive just before the read blocked (it only set Python's flag,
    and the read waited for ever): it is sent until a handler has run, and not after; or land inside the
    hook that sends it again, where its exception escaped the hook and was lost: it is left to be sent again."""
    try:
        got = subprocess.run([sys.executable, "-c", LOST_IN_A_FINALISER.format(name=name, mode=mode)],
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name} raised in a finaliser was lost: the run waited for ever")
    assert got.stdout.strip() == unwinds_as, got.stderr
    assert "Exception ignored" not in got.stderr


# ---------------------------------------------------------------------------------------------------------
# A closed pipe: the status means what it means with a reader


@pytest.mark.parametrize("case", [case for case in INPUTS if case.endswith("FILE") or case == "diff GOLD"])
def test_a_closed_pipe_does_not_change_the_status(files, case):
    args = _args(INPUTS[case], files)
    expected = run_cli(*args)
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write fails
    try:
        got = subprocess.run([sys.executable, "-m", "treetool", *args], stdout=write, stderr=subprocess.PIPE,
                             timeout=120)
    finally:
        os.close(write)
    assert got.returncode == expected.returncode, got.stderr
    assert b"Traceback" not in got.stderr


@pytest.mark.parametrize("name", [name for name, (template, options) in OUTPUTS.items()
                                  if {"-o", "--rejects"} <= set(options) and any(t.startswith("BAD") for t in template)])
def test_rejects_on_a_closed_pipe_leave_the_output_to_be_written(tmp_path, files, name):
    """``--rejects - -o FILE | head -1``: the reader of the rejects has gone, the run has not; it ended with
    status 0 and without FILE."""
    template, _ = OUTPUTS[name]
    args = _args(template, files)
    expected = run_cli(*args, "-o", tmp_path / "expected.out", "--rejects", tmp_path / "rejects.out")
    assert expected.returncode == 0 and (tmp_path / "rejects.out").stat().st_size > 0, expected.stderr
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write fails
    try:
        got = subprocess.run([sys.executable, "-m", "treetool", *args, "-o", tmp_path / "got.out", "--rejects", "-"],
                             stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert got.returncode == 0 and got.stderr == expected.stderr.replace(str(tmp_path / "rejects.out").encode(), b"-")
    assert (tmp_path / "got.out").read_bytes() == (tmp_path / "expected.out").read_bytes()


def _run_without_stdout(*args: object, closing: str = ">&-") -> subprocess.CompletedProcess:
    """treetool with descriptor 1 closed, as ``treetool ... >&-`` starts it (or stdin: ``closing="<&-"``)."""
    return subprocess.run(["sh", "-c", f'exec "$@" {closing}', "sh", sys.executable, "-m", "treetool",
                           *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


@pytest.mark.parametrize("args", [("stats", "-"), ("diff", "GOLD", "-"), ("view", "GOLD", "--ids", "-")])
def test_reading_a_closed_stdin_is_one_line(files, args):
    got = _run_without_stdout(*_args(list(args), files), closing="<&-")
    assert got.returncode == 2 and got.stdout == b""
    assert got.stderr == b"treetool: error: <stdin>: Bad file descriptor\n"


@pytest.mark.parametrize("args, status", [
    (("stats", "GOLD", "--format", "json"), 1), (("filter", "GOLD"), 1), (("view", "GOLD"), 1),
    (("diff", "GOLD", "OTHER"), 2), (("stats", "--help"), 1),
])
def test_printing_to_a_closed_stdout_is_one_line(files, args, status):
    """``treetool stats x >&-`` ended in a traceback (Python leaves sys.stdout None); now as a shell tool: the
    one line of a write to a closed descriptor."""
    got = _run_without_stdout(*_args(list(args), files))
    assert got.returncode == status and got.stderr == b"treetool: error: <stdout>: Bad file descriptor\n"


def test_a_run_that_prints_nothing_needs_no_stdout(tmp_path, files):
    expected = run_cli("annotate", files["GOLD"], "--system", "arc-eager").stdout
    got = _run_without_stdout("annotate", files["GOLD"], "--system", "arc-eager", "-o", tmp_path / "steps.jsonl")
    assert got.returncode == 0 and got.stderr == b""
    assert (tmp_path / "steps.jsonl").read_bytes() == expected


def test_diff_with_a_closed_pipe_still_says_the_files_differ(files):
    read, write = os.pipe()
    os.close(read)
    try:
        different = subprocess.run([sys.executable, "-m", "treetool", "diff", str(files["GOLD"]), str(files["OTHER"])],
                                   stdout=write, stderr=subprocess.PIPE, timeout=120)
        same = subprocess.run([sys.executable, "-m", "treetool", "diff", str(files["GOLD"]), str(files["GOLD"])],
                              stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert (different.returncode, same.returncode) == (1, 0)


def test_a_signal_during_the_copy_into_a_hard_linked_file_waits_for_the_copy(tmp_path, monkeypatch):
    """The spool is copied over the old content at the end: a SIGTERM then must not leave half a file."""
    import shutil

    import treetool.formats.files as F

    target = tmp_path / "out.conllu"
    target.write_bytes(b"old\n")
    os.link(target, tmp_path / "second-link")
    new = b"new line\n" * 100_000
    real_copy = shutil.copyfileobj

    def copy_with_a_signal_in_the_middle(source, destination, length=0):
        destination.write(source.read(len(new) // 2))
        os.kill(os.getpid(), signal.SIGTERM)  # held until the copy is done
        real_copy(source, destination, length)

    class Terminated(BaseException):
        pass

    def terminate(signum, frame):
        raise Terminated

    monkeypatch.setattr(shutil, "copyfileobj", copy_with_a_signal_in_the_middle)
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        out = F.AtomicOutput(str(target))
        out.write(new)
        with pytest.raises(Terminated):
            out.commit()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert target.read_bytes() == new == (tmp_path / "second-link").read_bytes()


def test_a_signal_while_the_held_handlers_are_put_back_leaves_none_of_them_noting(monkeypatch):
    """Holding ends by putting the run's handlers back; a signal arriving meanwhile runs its restored handler
    at the next one's setting. Its exception let through there left the other handlers noting (and never
    raising) signals for the rest of the unwinding; now it comes once all are back."""
    import treetool.formats.files as F

    names = [name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    before = {name: signal.getsignal(getattr(signal, name)) for name in names}
    real, settings = signal.signal, []

    def signal_arriving_while_restored(signum, handler):
        settings.append(signum)
        if signum == signal.SIGTERM and settings.count(signum) == 2:  # held, then being put back
            raise KeyboardInterrupt  # SIGINT's handler, already back, running in the pending-signal check
        return real(signum, handler)

    monkeypatch.setattr(signal, "signal", signal_arriving_while_restored)
    with pytest.raises(KeyboardInterrupt):
        with F._signals_held():
            pass
    monkeypatch.undo()
    assert {name: signal.getsignal(getattr(signal, name)) for name in names} == before


def test_a_file_of_another_owner_is_rewritten_in_place_keeping_its_owner(tmp_path, monkeypatch):
    """A user rewriting a file of another owner (writable to them) cannot give a replacement its owner back,
    and a sticky folder (/tmp) refuses the rename: the file is rewritten in place, as the shell does."""
    import treetool.formats.files as F

    target = tmp_path / "shared.conllu"
    target.write_bytes(b"old\n")
    before = target.stat()
    monkeypatch.setattr(F.os, "geteuid", lambda: before.st_uid + 1)  # someone else
    out = F.AtomicOutput(str(target))
    out.write(b"new\n")
    out.commit()
    after = target.stat()
    assert target.read_bytes() == b"new\n"
    assert (after.st_ino, after.st_uid, after.st_gid) == (before.st_ino, before.st_uid, before.st_gid)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full to fail a write")
def test_diff_that_cannot_write_says_error_not_different(files):
    """diff's 1 means "the files differ": a failed write is its error status, 2."""
    with open("/dev/full", "wb") as full:
        got = subprocess.run([sys.executable, "-m", "treetool", "diff", str(files["GOLD"]), str(files["GOLD"])],
                             stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert got.returncode == 2 and got.stderr.strip().endswith(b"No space left on device")


@pytest.mark.parametrize("signal_exception, status", [
    (lambda: KeyboardInterrupt(), 128 + signal.SIGINT),
    (lambda: common.Terminated(signal.SIGTERM), 128 + signal.SIGTERM),
], ids=["SIGINT", "SIGTERM"])
def test_a_signal_before_the_command_runs_ends_quietly(monkeypatch, capsys, signal_exception, status):
    """``timeout`` ending a run that has barely started: the signal's exception arrives while the command's
    module is imported, outside the command; the program still ends with 128 + the signal, no traceback."""
    from treetool.commands import app as app_module

    def interrupted(*args, **kwargs):
        raise signal_exception()

    monkeypatch.setattr(common, "unwind_on_termination", lambda: None)  # this test process keeps its handlers
    monkeypatch.setattr(app_module.LazyCommands, "get_command", interrupted)
    monkeypatch.setattr(sys, "argv", ["treetool", "projectivize", "x.conllu"])
    with pytest.raises(SystemExit) as ended:
        common.run_app(app_module.app)
    assert ended.value.code == status
    assert capsys.readouterr().err == ""
