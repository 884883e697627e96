"""The files one command run reads and writes, compared so that no output destroys an input.

A shell habit such as ``treetool projectivize x.conllu -o x.conllu``, ``-o``
and ``--rejects`` naming one file, ``-o /dev/stdin`` while stdin is read, or
``diff - -`` must not lose data or read a stream twice.  Every input and
output of a run is identified as it is opened (device and inode; the path
for a file not created yet and for devices) and compared with the others:

* two outputs are never one file (the null device excepted);
* an output may be an input only when it is a regular file written after the
  whole run, by rename or copy (:class:`~treetool.formats.files.AtomicOutput`
  does so for every regular file), never when it is streamed into;
* a pipe, FIFO or socket is read once: named twice, it is refused.

A clash raises :class:`FileClash` before a byte is written.  The checks hold
within :func:`checked_run` (the command line opens one per command); a
library caller outside one is not checked.  The registry also keeps the
streams set aside after a look at their head, so that the reader gets the
bytes already taken from a pipe.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO


class FileClash(ValueError):
    """Two of a run's files are one file in a way the run cannot honour: a usage error, raised before any write."""


@dataclass(frozen=True)
class FileIdentity:
    """Which file a name opened: ``key`` is (device, inode) of an existing file, ``path`` the resolved path of
    one not created yet or of a device; ``kind`` is regular, stream (pipe, FIFO, socket), device or new."""

    name: str
    key: tuple[int, int] | None
    path: str | None
    kind: str

    def same_file(self, other: FileIdentity) -> bool:
        if self.kind == "device" or other.kind == "device":  # a terminal may be read and written; devices by path
            return self.path is not None and self.path == other.path
        if self.key is not None and self.key == other.key:
            return True
        return self.path is not None and self.path == other.path


def identity(name: str, st: os.stat_result | None, path: str | None = None) -> FileIdentity:
    """The identity of ``name``, from its status (None: not created yet, at ``path``)."""
    if st is None:
        return FileIdentity(name, None, path, "new")
    mode = st.st_mode
    kind = "regular" if stat.S_ISREG(mode) else "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "stream"
    return FileIdentity(name, (st.st_dev, st.st_ino), path, kind)


def descriptor_identity(stream: IO[bytes], name: str) -> FileIdentity:
    """The identity of an open stream such as stdin (without a descriptor, as under a test runner: by name)."""
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return FileIdentity(name, None, None, "stream")
    found = identity(name, st)
    if found.kind == "device":  # /dev/stdin and - read the same terminal: one stream
        return FileIdentity(name, found.key, f"<descriptor {stream.fileno()}>", "device")
    return found


def _is_null(found: FileIdentity) -> bool:
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return found.key == (null.st_dev, null.st_ino)


class RunFiles:
    """The inputs and outputs of one run, and the streams set aside after a look at their head."""

    def __init__(self, checking: bool, stdout: FileIdentity | None = None) -> None:
        self.checking = checking
        self.stdout = stdout  # where reports go even without an output option: it must not be an input
        self.inputs: list[FileIdentity] = []
        self.outputs: list[tuple[FileIdentity, bool]] = []  # (identity, written only after the run)
        self.parked: dict[str, IO[bytes]] = {}

    def add_input(self, found: FileIdentity) -> None:
        """Record an opened input; :class:`FileClash` if it is a stream already read or an output streamed into."""
        if not self.checking:
            return
        implicit = [(self.stdout, False)] if self.stdout is not None else []
        for output, deferred in [*self.outputs, *implicit]:
            if found.same_file(output) and not (deferred and found.kind == "regular"):
                raise _overwritten(output, found)
        for other in self.inputs:
            twice = found.name == other.name == "-" or (found.kind == "stream" and found.same_file(other))
            if twice:
                raise FileClash(f"{_both(found, other)} read twice: a pipe or FIFO can be read only once")
        self.inputs.append(found)

    def add_output(self, found: FileIdentity, *, deferred: bool) -> None:
        """Record an output; :class:`FileClash` if it is another output, or an input it would stream into.

        ``deferred``: the output is a regular file written only after the run (rename or copy), so it may
        replace an input that has been read to its end by then.
        """
        if not self.checking:
            return
        for other, _ in self.outputs:
            if found.same_file(other) and not _is_null(found):
                raise FileClash(f"{_both(found, other)} given for two outputs: one would overwrite the other")
        for source in self.inputs:
            if found.same_file(source) and not (deferred and source.kind == "regular"):
                raise _overwritten(found, source)
        self.outputs.append((found, deferred))

    def report_on_stdout(self) -> None:
        """Record that the run prints its report on stdout: stdout is then one of its outputs, and another
        output there (``--rejects -``, ``/dev/stdout``) a clash, not bytes mixed into the report."""
        if self.stdout is not None:
            self.add_output(self.stdout, deferred=False)

    def close(self) -> None:
        """Close the streams set aside and never read (stdin stays open)."""
        for name, stream in self.parked.items():
            if name != "-":
                stream.close()
        self.parked.clear()


def _overwritten(output: FileIdentity, source: FileIdentity) -> FileClash:
    return FileClash(f"the output {_shown(output)} is the input {_shown(source)}, which would be overwritten "
                     "while it is read")


def _both(one: FileIdentity, other: FileIdentity) -> str:
    """``X is`` or ``X and Y (one file) are``: the subject of a clash message."""
    if one.name == other.name:
        return f"{_shown(one)} is"
    return f"{_shown(other)} and {_shown(one)} (one file) are"


def _shown(found: FileIdentity) -> str:
    return {"-": "stdin", "<stdout>": "stdout"}.get(found.name, found.name)


_UNCHECKED = RunFiles(checking=False)
_run: ContextVar[RunFiles] = ContextVar("treetool_run_files", default=_UNCHECKED)


def current() -> RunFiles:
    """The registry of the running command (outside :func:`checked_run`: one that checks nothing)."""
    return _run.get()


@contextmanager
def checked_run() -> Iterator[RunFiles]:
    """Check every file opened inside the block against the others (see the module's rules); stdout, where a
    command prints its report, is an output even when no option names it."""
    files = RunFiles(checking=True, stdout=descriptor_identity(sys.stdout, "<stdout>"))
    token = _run.set(files)
    try:
        yield files
    finally:
        _run.reset(token)
        files.close()
