"""Parquet output: the optional pyarrow dependency, and a Parquet file written in row groups under the output rules.

A Parquet file ends with its footer (the row groups' places and the
key-value metadata), so it is written to a temporary file and renamed into
place like every output (:class:`~treetool.formats.files.AtomicOutput`):
a failed run leaves no half file. Readers seek to the footer, so the output
must be a regular file: stdout, a pipe or a device is refused, and so is a
compression suffix (Parquet compresses its pages itself, with zstd here).

String columns are written with a dictionary type, which Parquet stores as
dictionary pages (``RLE_DICTIONARY``); the Arrow schema is not stored
(``store_schema=False``), so every reader sees standard Parquet types only:
strings, 32-bit ints, booleans and lists of them (pandas, polars and
Hugging Face ``datasets`` need no extension type).

Turning records into columns and pages is Python and numpy work that holds
the interpreter lock, so a writer thread would not overlap the run's walks:
a writer process does it (:mod:`treetool.formats.parquet_writer`), on the
second core, and the run's process only pickles records and never imports
pyarrow.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pickle
import stat
import subprocess
import sys
from collections import deque
from typing import Any

from .. import __version__
from .files import AtomicOutput, FileAccessError, raise_for_write, resolve_links, split_compression

__all__ = ["EXTRA", "SCHEMA_VERSION", "ParquetOutput", "PyarrowMissing", "pyarrow_modules", "require_pyarrow"]

EXTRA = "pip install 'treetool[parquet]'"
SCHEMA_VERSION = 1
"""The version of the columns the files' ``treetool`` metadata names (docs: Training files in Parquet)."""
#: The key of the file's key-value metadata that holds treetool's JSON (versions, system, options, actions).
METADATA_KEY = "treetool"
#: The outcome the writer process reports when the file is complete (:mod:`treetool.formats.parquet_writer`).
WRITTEN = "written"
#: Records are handed to the writer process in chunks of about this many bytes (pickled: about 2,700 steps; the
#: smaller, the less is left for the writer when the run ends) ...
CHUNK_BYTES = 1 << 16
#: ... and the run waits for the writer only while more than this many bytes wait for it (the run goes on while the
#: writer imports pyarrow, or lags).
WAITING_BYTES = 8 << 20
#: The pipe to the writer is widened to hold this many bytes where the system allows (:func:`_widen_pipe`) ...
PIPE_BYTES = 1 << 20
#: ... else it holds this many (Linux's and macOS's default), and chunks are that large.
DEFAULT_PIPE_BYTES = 1 << 16
_UNREAD = object()  # the writer's report, before it is read


class PyarrowMissing(ImportError):
    """Parquet was asked for, and pyarrow cannot be imported."""


def pyarrow_modules() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or :class:`PyarrowMissing` naming the extra that installs them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as err:
        raise PyarrowMissing(f"Parquet needs pyarrow, which cannot be imported ({err}): {EXTRA}") from None
    return pyarrow, pyarrow.parquet


def require_pyarrow() -> None:
    """:class:`PyarrowMissing` if pyarrow is not installed: looked for, not imported (the writer process imports
    it; the run's process never needs it, and its import takes a tenth of a second)."""
    if importlib.util.find_spec("pyarrow") is None:
        raise PyarrowMissing(f"Parquet needs pyarrow, which is not installed: {EXTRA}")


def refusal(path: str) -> str | None:
    """Why ``path`` cannot take a Parquet file (None: it can): the reason, in one line."""
    if path == "-":
        return "Parquet needs a file to write (-o FILE), not stdout: its readers seek to the footer at its end"
    if split_compression(path)[1] is not None:
        return f"{path}: Parquet compresses its own pages (zstd); name the file without a compression suffix"
    resolved = resolve_links(path)
    try:
        found = os.stat(resolved) if resolved is not None else None
    except FileNotFoundError:
        return None
    if resolved is None or not (stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode)):
        return f"{path}: Parquet needs a regular file, not a pipe, a device or a descriptor: its readers seek"
    return None  # a folder: the output's own error says so, as for every output


class ParquetOutput:
    """A Parquet file of the rows of ``columns`` (:mod:`treetool.formats.step_columns`), a row group at a time,
    written by a writer process (:mod:`treetool.formats.parquet_writer`) on another core.

    :meth:`write` takes one record pickled (a walk's, or a sentence's gold
    sequence: what ``columns.add`` takes), so that a ``--jobs`` worker
    pickles its own and the run's process only passes bytes on. Records are
    joined into chunks and written to the writer's input without blocking,
    as much as the pipe takes at each record, so the run goes on while the
    writer works; it waits for the writer only while more than
    :data:`WAITING_BYTES` are waiting, so memory stays bounded. No thread:
    a thread would make ``--jobs`` spawn its workers instead of forking them
    (:func:`treetool.parallel.start_method`). ``columns`` is pickled to the
    writer, which turns the records into row groups, writes them and, at
    the end, ``metadata`` (JSON-able) under the key ``treetool`` with the
    treetool and schema versions and the action spellings by dictionary id
    (``actions``). A context manager: the file is put in place when the
    block ends normally and the writer reports it complete, else (an error,
    a signal, the writer's failure) dropped, and the writer ended.
    """

    def __init__(self, path: str, columns: Any, metadata: dict[str, Any]) -> None:
        self.metadata = {"treetool_version": __version__, "schema_version": SCHEMA_VERSION, **metadata}
        self._out = AtomicOutput(path, may_replace_input=False)  # a binary file never replaces a treebank
        descriptor = self._out.stream.fileno()
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._waiting: deque[memoryview] = deque()
        self._waiting_bytes = 0
        self._report: Any = _UNREAD
        self._input = -1  # the writer's input, while it is open
        try:
            header = pickle.dumps((columns, descriptor), pickle.HIGHEST_PROTOCOL)  # the writer's first read
            self._writer = _start_writer(descriptor)
        except BaseException:
            self._out.abort()
            raise
        try:
            self._input = self._writer.stdin.fileno()  # type: ignore[union-attr]
            os.set_blocking(self._input, False)
            self._chunk_bytes = min(CHUNK_BYTES, _widen_pipe(self._input))
            self._pending.append(header)
            self._queue_pending()  # sent at once: the writer starts on pyarrow's import while the run starts walking
            self._send(WAITING_BYTES)
        except BaseException:
            self._end()
            raise

    def write(self, record: bytes) -> None:
        """Add one record, pickled (a sentence's steps, or its gold sequence), to the file."""
        if self._input < 0:
            raise ValueError("write to a Parquet output that is closed or has failed")
        self._pending.append(record)
        self._pending_bytes += len(record)
        if self._pending_bytes >= self._chunk_bytes:
            self._queue_pending()
            self._send(WAITING_BYTES)

    def _queue_pending(self) -> None:
        chunk = b"".join(self._pending)
        self._waiting.append(memoryview(chunk))
        self._waiting_bytes += len(chunk)
        self._pending.clear()
        self._pending_bytes = 0

    def _send(self, most: int) -> None:
        """Write what waits to the writer's input, as much as the pipe takes now; wait for the writer while
        more than ``most`` bytes would be left waiting. The writer's failure (it stopped reading) is raised."""
        while self._waiting:
            chunk = self._waiting[0]
            try:
                written = _write(self._input, chunk, wait=self._waiting_bytes > most)
            except BlockingIOError:
                return
            except BrokenPipeError:  # the writer has ended: its report says why
                self._raise_failure(self._outcome())
            self._waiting_bytes -= written
            if written == len(chunk):
                self._waiting.popleft()
            else:
                self._waiting[0] = chunk[written:]

    def _outcome(self) -> Any:
        """The writer's report, once it has ended (waited for): ``WRITTEN``, its exception, or None if it said
        nothing (it was killed, or its report does not unpickle)."""
        if self._report is _UNREAD:
            self._input = -1
            with contextlib.suppress(OSError):  # the input: already closed by the writer's end
                self._writer.stdin.close()  # type: ignore[union-attr]
            try:
                self._report = pickle.load(self._writer.stdout)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 -- no report (EOF), or one that cannot be rebuilt here
                self._report = None
            self._writer.stdout.close()  # type: ignore[union-attr]
            self._writer.wait()
        return self._report

    def _raise_failure(self, outcome: Any) -> None:
        if isinstance(outcome, BrokenPipeError):  # the writer's own, writing the file: not a reader gone away
            raise FileAccessError(self._out.name, outcome, writing=True)
        if isinstance(outcome, OSError):
            raise_for_write(self._out.name, outcome)
        if isinstance(outcome, PyarrowMissing):
            raise outcome
        if isinstance(outcome, ImportError):  # not pyarrow's (that is PyarrowMissing): what the run handed over
            raise_for_write(self._out.name, OSError(f"the Parquet writer process cannot import what it was given "
                                                    f"({outcome})"))
        if isinstance(outcome, BaseException):
            raise outcome
        raise_for_write(self._out.name, OSError(f"the Parquet writer process ended before finishing the file (exit "
                                                f"status {self._writer.returncode})"))

    def close(self, ok: bool) -> None:
        """Send the last records and the metadata, and put the file in place when the writer reports it
        complete (``ok``); else, or on any exception meanwhile (a signal while waiting for the writer), end the
        writer and drop the file."""
        try:
            if ok:
                self._pending += [pickle.dumps(None), pickle.dumps(self.metadata)]  # the end, then the metadata
                self._queue_pending()
                self._send(0)
                outcome = self._outcome()
                if outcome == WRITTEN:
                    self._out.commit()
                    return
                self._raise_failure(outcome)
        except BaseException:
            self._end()
            raise
        self._end()

    def _end(self) -> None:
        """Kill the writer (the file is dropped: nothing more to write), drop the file, then reap the writer."""
        self._writer.kill()
        self._out.abort()
        self._outcome()

    def __enter__(self) -> ParquetOutput:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(ok=exc_type is None)


def _widen_pipe(descriptor: int) -> int:
    """Let the pipe ``descriptor`` hold :data:`PIPE_BYTES` where the system allows it (Linux: up to its
    pipe-max-size, 1 MB by default); what it holds now. A chunk the pipe takes whole is handed over by one
    ``write``: a run that tried again at every record while a chunk waited spent 0.05-0.2 s on EWT in writes
    refused by a full pipe."""
    try:
        import fcntl

        fcntl.fcntl(descriptor, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        return fcntl.fcntl(descriptor, fcntl.F_GETPIPE_SZ)
    except (ImportError, AttributeError, OSError):  # not Linux, or not allowed: the usual size
        return DEFAULT_PIPE_BYTES


def _write(descriptor: int, data: memoryview, wait: bool) -> int:
    """``os.write`` to a non-blocking pipe, made blocking for this write when ``wait`` (not ``select``, which
    cannot take a descriptor above 1023)."""
    if not wait:
        return os.write(descriptor, data)
    os.set_blocking(descriptor, True)
    try:
        return os.write(descriptor, data)
    finally:
        os.set_blocking(descriptor, False)


def _start_writer(descriptor: int) -> subprocess.Popen:
    """The writer process, given ``descriptor`` (the output file), importing this treetool wherever it is."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # above treetool/formats
    # sys.path[0] is the current folder with -c: replaced, so that a json.py there is not imported instead.
    start = f"import sys; sys.path[0] = {root!r}; from treetool.formats.parquet_writer import serve; serve()"
    # A session of its own: a terminal's ^C and hang-up reach the run, which ends the writer (close).
    return subprocess.Popen([sys.executable, "-c", start], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            pass_fds=(descriptor,), start_new_session=True)
