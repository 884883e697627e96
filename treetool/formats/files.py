"""Opening treebanks: paths, stdin/stdout, compression, format detection, atomic output.

Inputs are opened as binary streams: the CoNLL reader works on bytes (so a
round trip reproduces them exactly, CRLF and invalid UTF-8 included, and can
point at the line holding an invalid byte); the PTB reader wraps them in a
text layer that keeps line ends (``newline=""``).

Every file a command names (inputs, outputs, reports, id lists) is opened
here, so an operating-system error on it is raised once, as
:class:`FileAccessError`, naming the path and the side (reading or writing).
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, NoReturn

from ..errors import TreebankError
from . import run_files

FORMATS = ("conllu", "conllx", "ptb")
_EXTENSIONS = {
    ".conllu": "conllu",
    ".conll": "conllx",
    ".conllx": "conllx",
    ".mrg": "ptb",
    ".ptb": "ptb",
    ".tree": "ptb",
    ".trees": "ptb",
}
_COMPRESSORS: dict[str, Callable[..., IO[bytes]]] = {
    ".gz": gzip.open,
    ".bz2": bz2.open,
    ".xz": lzma.open,
}
_MAGIC = ((b"\x1f\x8b", ".gz"), (b"BZh", ".bz2"), (b"\xfd7zXZ\x00", ".xz"))
_UNSUPPORTED = (
    (b"PK\x03\x04", "a zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"\x04\x22\x4d\x18", "lz4-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
)
STDOUT_NAME = "<stdout>"
# Where the links of open descriptors live: Linux's procfs (/dev/fd links there), BSD's fdescfs.
_DESCRIPTOR_DIRS = ("/proc/", "/dev/fd/")


class FileAccessError(OSError):
    """An operating-system error on a file the user named, and whether it was being written.

    The command line prints it as ``PATH: reason`` and tells the sides
    apart: a missing or unreadable input is the caller's input problem (exit
    status 2, like bad content); a failed write (no such directory, disk
    full) is a run that could not deliver its result (status 1).
    ``errno`` and ``strerror`` are the cause's.
    """

    def __init__(self, path: str, cause: OSError, *, writing: bool) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause))
        self.filename = path
        self.writing = writing

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def raise_for_write(name: str, err: OSError) -> NoReturn:
    """Raise ``err``, met while writing ``name``, as a :class:`FileAccessError`.

    A broken pipe passes unchanged: it means the reader went away, which the
    command line treats as a normal end, not as a failure.
    """
    if isinstance(err, BrokenPipeError):
        raise err
    raise FileAccessError(name, err, writing=True) from err


def split_compression(name: str) -> tuple[str, str | None]:
    lower = name.lower()
    for ext in _COMPRESSORS:
        if lower.endswith(ext):
            return name[: -len(ext)], ext
    return name, None


def format_from_name(name: str) -> str | None:
    """The treebank format implied by a file name (compression suffixes ignored), or None."""
    base, _ = split_compression(name)
    return _EXTENSIONS.get(Path(base).suffix.lower())


def format_from_text(text: str) -> str | None:
    """Guess the format from the start of a file: brackets are PTB, tab-separated lines CoNLL.

    CoNLL-U and CoNLL-X cannot always be told apart by content.  Comments,
    multiword tokens or empty nodes mean CoNLL-U; a sentence with several
    roots, or a bare number in the ninth column (CoNLL-X's PHEAD, where
    CoNLL-U's DEPS holds ``head:relation`` pairs), means CoNLL-X; anything
    else reads as CoNLL-U (``--from conllx`` gives CoNLL-X semantics).
    """
    lines = [line.strip() for line in text.splitlines()]
    first = next((line for line in lines if line), None)
    if first is None:
        return None
    if first.startswith("("):
        return "ptb"
    if not (first.startswith("#") or "\t" in first):
        return None
    return "conllx" if _looks_like_conllx(lines) else "conllu"


def _looks_like_conllx(lines: list[str]) -> bool:
    roots = 0
    for line in lines[:-1]:  # the last line may be cut off
        if line.startswith("#"):
            return False
        columns = line.split("\t")
        if not line:
            roots = 0
            continue
        if len(columns) < 10 or not columns[0].isdigit():
            return False  # a multiword token or empty node (CoNLL-U), or not CoNLL at all
        roots += columns[6] == "0"
        if roots > 1 or columns[8].isdigit():
            return True
    return False


def open_binary_input(path: str) -> IO[bytes]:
    """Open ``path`` (``-`` for stdin) for reading bytes, decompressing by magic bytes.

    Compression is recognised by content on every input, stdin included, so
    ``gzip -c x | treetool stats -`` and a gzipped file without ``.gz`` both
    work.  A stream set aside after a look at its head (:func:`set_aside`) is
    handed back as it was, the bytes already buffered included: a pipe, a
    FIFO or ``<(...)`` can be read only once.  Within a command run
    (:func:`checked_run`) every opened file is checked against the run's
    outputs and other inputs.
    """
    files = run_files.current()
    kept = files.parked.pop(path, None)
    if kept is not None:
        return kept
    if path == "-":
        raw: IO[bytes] = sys.stdin.buffer
        files.add_input(run_files.descriptor_identity(raw, "-"))
    else:
        try:
            found = os.stat(path)  # before opening: opening a FIFO waits for a writer that may never come
            files.add_input(run_files.identity(path, found, os.path.realpath(path)))
            raw = open(path, "rb")
        except OSError as err:
            raise FileAccessError(path, err, writing=False) from err
    return _decompressed(raw)


def set_aside(path: str, stream: IO[bytes]) -> None:
    """Done looking at the head of an input that will be read later: keep it open unless it can be reopened.

    A regular file is closed (the reader opens it again: thousands of input
    files must not hold thousands of descriptors); stdin, a pipe, a FIFO or
    a device is kept, with what it has buffered, for the next
    :func:`open_binary_input` of the same path.
    """
    if readable_twice(path):
        stream.close()
    else:
        run_files.current().parked[path] = stream


def readable_twice(path: str) -> bool:
    """Whether ``path`` can be read a second time: a regular file can, stdin, a pipe or a FIFO cannot."""
    if path == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # a missing input: the reader's own error says so


def close_input(path: str, stream: IO[bytes]) -> None:
    """Close an input read to its end (stdin stays open: it is the process's)."""
    if path != "-":
        stream.close()


def _peekable(raw: IO[bytes]) -> io.BufferedReader:
    return raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]


def compression_of(head: bytes) -> str | None:
    """The compression suffix (``.gz``, ``.bz2``, ``.xz``) whose magic bytes start ``head``, or None."""
    for magic, ext in _MAGIC:
        if head.startswith(magic):
            return ext
    return None


def open_decompressed(path: str) -> IO[bytes]:
    """The regular file ``path`` for reading bytes, through the decompressor its first bytes name: a stream that
    owns its file (closing it closes the file) and can seek, as a reader making two passes needs."""
    with open(path, "rb") as file:
        ext = compression_of(file.read(6))
    return open(path, "rb") if ext is None else _COMPRESSORS[ext](path, "rb")


def _decompressed(raw: IO[bytes]) -> IO[bytes]:
    """``raw`` read through the decompressor its first bytes name, or buffered as it is."""
    buffered = _peekable(raw)
    ext = compression_of(buffered.peek(6)[:6])
    return buffered if ext is None else _COMPRESSORS[ext](buffered, "rb")


def reject_binary(head: bytes, filename: str) -> None:
    """Refuse input that is not text: a NUL byte or an archive format we do not read.

    Without this, binary data reads as a treebank with odd first lines or, worse,
    as nothing at all; the error names the line that holds the first NUL.
    """
    for magic, kind in _UNSUPPORTED:
        if head.startswith(magic):
            raise TreebankError(f"{kind}, not a treebank (unpack it first)", filename=filename, line=1)
    nul = head.find(b"\x00")
    if nul >= 0:
        raise TreebankError("binary data (a NUL byte), not a treebank", filename=filename, line=head.count(b"\n", 0, nul) + 1)


def missing_separator(block: bytes) -> bytes:
    """What must follow ``block`` (one sentence's bytes, blank line included) before another block is written.

    The last sentence of a file may lack its blank line (a line of nothing
    but spaces counts as one) or even its final newline. Copied on its own
    it stays so, byte for byte; followed by a sentence of another file, it
    needs them, or the two sentences run together. The line end added is
    the block's own (CRLF or LF).
    """
    if not block or block.endswith(b"\n\n"):
        return b""
    eol = b"\r\n" if b"\r\n" in block else b"\n"
    head, _, last = block.rpartition(b"\n")
    if last:  # no final newline: after a word line, the blank line is missing too
        return eol + eol if last.strip() else eol
    before = head[head.rfind(b"\n") + 1:]  # the line the final newline ends
    return eol if before.strip() else b""


def read_text_file(path: str) -> str:
    """The whole text of a small file the user named (an id list, say); ``-`` is stdin, compressed files too.

    UTF-8; undecodable bytes become surrogates, as in the treebank readers,
    so they still compare equal to the same bytes read from a treebank.
    """
    stream = open_binary_input(path)
    try:
        data = stream.read()
    except OSError as err:
        raise FileAccessError(path, err, writing=False) from err
    finally:
        close_input(path, stream)
    return data.decode("utf-8", errors="surrogateescape")


class AtomicOutput:
    """A binary output, ``-`` for stdout, compressed by suffix (``.gz``, ``.bz2``, ``.xz``).

    A regular file is never truncated before the run has succeeded, so a
    failed, interrupted or killed run leaves the old file as it was:

    * a new file, or an existing one with a single link, is written to a
      nameless temporary file beside it (``O_TMPFILE``; elsewhere a hidden
      ``.NAME.*.part``) that :meth:`commit` links into place by rename;
    * a file with other hard links, one whose owner a replacement could not
      keep, or one in a folder where no temporary file can be made, is
      written to a nameless spool and copied into the file itself at
      :meth:`commit` (signals held meanwhile), so the links, the owner and
      the file stay one.

    ``may_replace_input=False`` (rejects, reports, plots) refuses a file that
    is one of the run's inputs: only the main output may rewrite an input.
    Such a side output on stdout whose reader goes away (``--rejects - -o
    FILE | head``) drops the rest, and the run goes on for its main output.

    An existing file is first opened for writing (not truncated), so a file
    the shell would refuse (read-only) is refused too, with the same reason.
    A symlink is written through (its target gets the output).  A device, a
    FIFO, a socket, or an open descriptor's link such as ``/dev/stdout``
    (appended to) is streamed into in place, as a shell redirection would.
    Within a checked run every output is compared with the run's inputs and
    other outputs first (:mod:`treetool.formats.run_files`).

    A new file gets mode ``0666`` less the umask; a replaced file keeps its
    mode, and its owner when the process may give it.  Operating-system
    errors are raised as :class:`FileAccessError` naming ``path``.
    """

    def __init__(self, path: str, *, may_replace_input: bool = True) -> None:
        self.path = path
        self.name = STDOUT_NAME if path == "-" else path
        self._may_replace_input = may_replace_input  # False for side outputs (rejects, reports): never an input
        self._owned = path != "-"
        self._temp: str | None = None  # a named temporary file, renamed over _target at commit
        self._target = ""  # the file a temporary file replaces at commit
        self._copy_into: IO[bytes] | None = None  # the file a spool is copied into at commit
        self._file: IO[bytes] | None = None
        self.stream: IO[bytes] | None = None
        self._reader_gone = False  # a side output on stdout: its reader went away, the rest is dropped
        try:
            self._file = self._open(path) if self._owned else self._stdout()
            _, ext = split_compression(path)
            self.stream = _COMPRESSORS[ext](self._file, "wb") if ext else self._file
        except BaseException as err:  # an error or a signal while opening: no temporary file stays behind
            self.abort()
            if isinstance(err, OSError):
                raise_for_write(self.name, err)
            raise

    def _stdout(self) -> IO[bytes]:
        run_files.current().add_output(run_files.descriptor_identity(sys.stdout.buffer, STDOUT_NAME), deferred=False)
        return sys.stdout.buffer

    def _open(self, path: str) -> IO[bytes]:
        files = run_files.current()
        resolved = resolve_links(path)
        if resolved is None:
            # An open descriptor's file: append, as the descriptor's own writes
            # would, so that neither what precedes nor a `>>` redirection is cut.
            files.add_output(run_files.identity(path, _stat_or_none(path), path), deferred=False)
            return _open_in_place(path, os.O_APPEND)
        existing = _stat_or_none(resolved)
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            files.add_output(run_files.identity(path, existing, resolved), deferred=False)
            return _open_in_place(path, 0)
        files.add_output(run_files.identity(path, existing, resolved), deferred=self._may_replace_input)
        if existing is None:
            return self._replacement(resolved, None)
        target = _open_in_place(resolved, 0)  # the shell's permission check; nothing is truncated
        try:
            if existing.st_nlink == 1 and _can_keep_owner(existing):
                try:
                    replacement = self._replacement(resolved, existing)
                except OSError:
                    pass  # no temporary file beside it (a read-only folder): spool and copy
                else:
                    target.close()
                    return replacement
            self._copy_into = target
            return _spool(resolved)
        except BaseException:
            target.close()
            raise

    def _replacement(self, target: str, existing: os.stat_result | None) -> IO[bytes]:
        """A temporary file beside ``target`` that :meth:`commit` renames over it."""
        with _signals_held():  # a temporary file is recorded for abort() as soon as it exists
            fd, self._temp = _create_beside(target, os.O_WRONLY)
        self._target = target
        if existing is not None:
            _keep_owner_and_mode(fd, existing)
        return os.fdopen(fd, "wb")

    def write(self, data: bytes) -> int:
        if self._reader_gone:
            return len(data)
        try:
            return self.stream.write(data)
        except BrokenPipeError:
            self._drop_if_side_output()
            return len(data)
        except OSError as err:
            raise_for_write(self.name, err)

    def _drop_if_side_output(self) -> None:
        """The reader of stdout has gone: a side output drops the rest (and stdout is pointed at the null
        device, so that the interpreter's exit flush of what it could not take succeeds quietly); the main
        output's broken pipe is raised, the run's normal end."""
        if self._owned or self._may_replace_input:
            raise
        self._reader_gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._file.fileno())
        finally:
            os.close(devnull)

    def commit(self) -> None:
        """Finish the output: flush it, and put it in place (rename, or copy into a hard-linked file)."""
        try:
            if self.stream is not self._file:
                self.stream.close()  # the compressor's trailer; it leaves the file open
            if not self._owned:
                self._flush_stdout()
            elif self._copy_into is not None:
                _copy_spool(self._file, self._copy_into)
                self._copy_into = None
            elif self._target:
                self._file.flush()
                _rename_into_place(self._file, self._temp, self._target)
                self._temp = None
                self._file.close()
            else:  # streamed in place
                self._file.close()
        except BaseException as err:
            self.abort()
            if isinstance(err, OSError):
                raise_for_write(self.name, err)
            raise

    def _flush_stdout(self) -> None:
        try:
            self._file.flush()
        except BrokenPipeError:
            self._drop_if_side_output()

    def abort(self) -> None:
        """Give up: drop the temporary file or spool (an output streamed in place keeps what it got)."""
        if not self._owned:
            return
        # The file first: closing the compressor after it cannot add a trailer
        # that would make a cut-off output look complete.
        for stream in (self._file, self.stream, self._copy_into):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
        self._copy_into = None
        if self._temp is not None:
            try:
                os.unlink(self._temp)
            except FileNotFoundError:
                pass
            self._temp = None

    def __enter__(self) -> AtomicOutput:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def resolve_links(path: str) -> str | None:
    """The path of the file ``path`` names, all symlinks followed (it may not exist yet).

    None when a link is an open descriptor's entry (``/dev/stdout`` is
    ``/proc/self/fd/1``, ``/dev/fd/N``): such a file is written through the
    link, in place, never replaced (the descriptor may be appending, or be
    a pipe whose link names no file).
    """
    current = os.path.join(os.getcwd(), path)  # not abspath: `link/..` is for the kernel to resolve
    for _ in range(40):  # the kernel's own limit on links followed
        directory = os.path.realpath(os.path.dirname(current))
        if (directory + os.sep).startswith(_DESCRIPTOR_DIRS):
            return None
        current = os.path.join(directory, os.path.basename(current))
        if not os.path.islink(current):
            return current
        current = os.path.join(directory, os.readlink(current))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)


def _open_in_place(path: str, flags: int) -> IO[bytes]:
    """Open an existing ``path`` for writing, never as a controlling terminal."""
    return os.fdopen(os.open(path, os.O_WRONLY | flags | getattr(os, "O_NOCTTY", 0)), "wb")


#: Whether nameless temporary files work here (Linux's O_TMPFILE, given a name only when done, so that a killed
#: run leaves nothing behind): None until tried, False where the file system or a sandbox refuses either step.
_nameless: bool | None = None if getattr(os, "O_TMPFILE", 0) and os.path.isdir("/proc/self/fd") else False


def _create_beside(target: str, access: int) -> tuple[int, str | None]:
    """Create an empty temporary file in ``target``'s directory; return its descriptor and its name
    (None: nameless, until :func:`_rename_into_place` links it in).

    Created with mode 0666 so that the kernel applies the umask (or a default
    ACL) exactly as for a file created under the final name.
    """
    global _nameless
    directory = os.path.dirname(target)
    if _nameless is not False:
        try:
            fd = os.open(directory, os.O_TMPFILE | access, 0o666)
        except OSError as err:
            if err.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):  # a file system without it
                raise
        else:
            if _nameless is None:  # the probe's file has had a name: it cannot be linked again
                _nameless = _can_link(fd, target)
                os.close(fd)
                return _create_beside(target, access)
            return fd, None
    for _ in range(100):
        temp = _temporary_name(target)
        try:
            return os.open(temp, access | os.O_CREAT | os.O_EXCL, 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", directory)


def _can_link(fd: int, target: str) -> bool:
    """Try once whether a nameless file can be given a name (some sandboxes refuse it)."""
    try:
        with _signals_held():
            os.unlink(_link_nameless(fd, target))
        return True
    except OSError:
        return False


def _temporary_name(target: str) -> str:
    directory, name = os.path.split(target)
    return os.path.join(directory, f".{name}.{os.urandom(4).hex()}.part")  # not secrets: 5 ms to import


def _rename_into_place(file: IO[bytes], temp: str | None, target: str) -> None:
    """Put the finished temporary ``file`` at ``target``: a nameless one gets a name first."""
    if temp is None:
        temp = _link_nameless(file.fileno(), target)
    try:
        os.replace(temp, target)
    except BaseException:
        os.unlink(temp)
        raise


def _link_nameless(fd: int, target: str) -> str:
    """Give the nameless file ``fd`` a temporary name beside ``target``; return it."""
    for _ in range(100):
        temp = _temporary_name(target)
        try:
            _link_descriptor(fd, temp)
            return temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", os.path.dirname(target))


_AT_FDCWD, _AT_EMPTY_PATH = -100, 0x1000  # Linux's <fcntl.h>


def _link_descriptor(fd: int, path: str) -> None:
    """Give the open file ``fd`` the name ``path``: by ``linkat(fd, "", ..., AT_EMPTY_PATH)``, which Linux allows
    for a file its caller opened since 6.10 (before, only with CAP_DAC_READ_SEARCH), else through its
    ``/proc/self/fd`` link, which older kernels take and some systems refuse (EXDEV: seen on Linux 6.18)."""
    try:
        import ctypes

        linkat = ctypes.CDLL(None, use_errno=True).linkat
    except (ImportError, OSError, AttributeError):  # no C library to call: the /proc link only
        linkat = None
    if linkat is not None:
        if linkat(fd, b"", _AT_FDCWD, os.fsencode(path), _AT_EMPTY_PATH) == 0:
            return
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise FileExistsError(code, os.strerror(code), path)
    os.link(f"/proc/self/fd/{fd}", path, follow_symlinks=True)


def _spool(target: str) -> IO[bytes]:
    """A nameless temporary file to hold an output until the run is over: beside ``target`` when its folder
    allows one (the same disk), else in the temporary folder."""
    try:
        with _signals_held():  # a named spool is unlinked before a signal can leave it behind
            fd, name = _create_beside(target, os.O_RDWR)
            if name is not None:
                os.unlink(name)
    except OSError:
        import tempfile

        return tempfile.TemporaryFile()
    return os.fdopen(fd, "w+b")


def _copy_spool(spool: IO[bytes], target: IO[bytes]) -> None:
    """Replace the content of ``target`` (opened, not truncated) by the spool's, and close both.

    Between the truncation and the last byte the file is neither old nor new,
    so SIGINT, SIGTERM and SIGHUP wait until the copy is done (SIGKILL cannot
    be held off: the one window in which a killed run can cut such a file).
    """
    import shutil

    spool.flush()
    spool.seek(0)
    with _signals_held():
        os.ftruncate(target.fileno(), 0)
        shutil.copyfileobj(spool, target, 1 << 20)
        target.close()
    spool.close()


@contextmanager
def _signals_held() -> Iterator[None]:
    """Delay the signals that end a run until the block is done.

    The handlers are swapped for one that notes the signal, and the signals
    noted are raised again afterwards (a signal mask would not do: another
    thread, the progress display's say, would take the signal, and Python
    runs its handler in the main thread all the same).  Only the main thread
    may set handlers; elsewhere nothing is held.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    held = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    before = {signum: signal.signal(signum, lambda signum, frame: noted.append(signum)) for signum in held}
    try:
        yield
    finally:
        raised = _restore_handlers(before)
        if raised is not None:
            raise raised
        for signum in noted:
            signal.raise_signal(signum)


def _restore_handlers(handlers: dict[int, object]) -> BaseException | None:
    """Put ``handlers`` back, every one of them; the exception a handler already restored raised meanwhile.

    A signal arriving while they are put back runs its own handler, if restored, at the next one's setting
    (``signal.signal`` runs pending handlers first): were its exception let through there, the handlers
    after it would stay the noting one for the rest of the run's unwinding.
    """
    raised = None
    for signum, handler in handlers.items():
        for attempt in range(3):  # a handler runs once per signal: a third failure is no handler's
            try:
                signal.signal(signum, handler)
                break
            except BaseException as err:  # noqa: BLE001 -- a handler's exception, raised once all are back
                if attempt == 2:
                    raise
                raised = raised or err
    return raised


def _can_keep_owner(old: os.stat_result) -> bool:
    """Whether a replacement file can have ``old``'s owner and group: else the file is rewritten in place,
    as the shell would (a replaced file would change hands, and a sticky folder refuses the rename)."""
    if os.name != "posix" or os.geteuid() == 0:
        return True
    return old.st_uid == os.geteuid() and (old.st_gid == os.getegid() or old.st_gid in os.getgroups())


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """Give the replacement file the owner and the mode of the file it replaces, where allowed.

    Only root may give a file away, so otherwise the rewritten file is the
    writer's, as after any rewrite; and some file systems (FAT, say) refuse
    modes altogether, which should not stop the output.
    """
    if os.name != "posix":
        return
    new = os.fstat(fd)
    try:
        if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
            os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:
        pass
    try:
        os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after fchown, which clears set-id bits
    except PermissionError:
        pass


def input_size(path: str) -> int | None:
    """Bytes of ``path`` as the readers see them, or None when unknown
    (stdin, pipes, compressed files, files that cannot be opened)."""
    if path == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        stream = open_binary_input(path)
    except (OSError, TreebankError):
        return None
    try:
        plain = isinstance(stream, io.BufferedReader)  # not wrapped by a decompressor
    finally:
        stream.close()
    return os.path.getsize(path) if plain else None
