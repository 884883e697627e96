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
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, NoReturn

from ..errors import TreebankError

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


def _raise_for_write(name: str, err: OSError) -> NoReturn:
    """Raise ``err``, met while writing ``name``, as a :class:`FileAccessError`.

    A broken pipe passes unchanged: it means the reader went away, which the
    command line treats as a normal end, not as a failure.
    """
    if isinstance(err, BrokenPipeError):
        raise err
    raise FileAccessError(name, err, writing=True) from err


def _split_compression(name: str) -> tuple[str, str | None]:
    lower = name.lower()
    for ext in _COMPRESSORS:
        if lower.endswith(ext):
            return name[: -len(ext)], ext
    return name, None


def format_from_name(name: str) -> str | None:
    """The treebank format implied by a file name (compression suffixes ignored), or None."""
    base, _ = _split_compression(name)
    return _EXTENSIONS.get(Path(base).suffix.lower())


def format_from_text(text: str) -> str | None:
    """Guess the format from the start of a file: brackets are PTB, tab-separated lines CoNLL.

    CoNLL-U and CoNLL-X cannot always be told apart by content; comments,
    multiword tokens or empty nodes mean CoNLL-U, and so does the rest
    (use ``--from conllx`` for CoNLL-X semantics on such input).
    """
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("("):
            return "ptb"
        if stripped.startswith("#") or "\t" in stripped:
            return "conllu"
        return None
    return None


_stdin: tuple[IO[bytes], IO[bytes]] | None = None  # (sys.stdin.buffer, its decompressed stream)


def open_binary_input(path: str) -> IO[bytes]:
    """Open ``path`` (``-`` for stdin) for reading bytes, decompressing by magic bytes.

    Compression is recognised by content on every input, stdin included, so
    ``gzip -c x | treetool stats -`` and a gzipped file without ``.gz`` both
    work.  Stdin is opened once per process and the same stream is returned
    again: a second open (format detection, then reading) must not lose the
    bytes the first one buffered.
    """
    global _stdin
    if path == "-":
        source = sys.stdin.buffer
        if _stdin is None or _stdin[0] is not source:  # first use, or stdin was replaced (a test runner)
            _stdin = (source, _decompressed(_peekable(source)))
        return _stdin[1]
    try:
        raw = open(path, "rb")
    except OSError as err:
        raise FileAccessError(path, err, writing=False) from err
    return _decompressed(raw)


def _peekable(raw: IO[bytes]) -> io.BufferedReader:
    return raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]


def _decompressed(raw: IO[bytes]) -> IO[bytes]:
    buffered = _peekable(raw)
    head = buffered.peek(6)[:6]
    for magic, ext in _MAGIC:
        if head.startswith(magic):
            return _COMPRESSORS[ext](buffered, "rb")
    return buffered


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


def read_text_file(path: str) -> str:
    """The whole text of a small file the user named (an id list, say).

    UTF-8; undecodable bytes become surrogates, as in the treebank readers,
    so they still compare equal to the same bytes read from a treebank.
    """
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as err:
        raise FileAccessError(path, err, writing=False) from err


class AtomicOutput:
    """A binary output, ``-`` for stdout, compressed by suffix (``.gz``, ``.bz2``, ``.xz``).

    A new path, or an existing regular file with a single link, is written
    under a temporary name beside it and renamed over it by :meth:`commit`:
    a failed run leaves the old file intact and never half a new one.  A
    symlink is resolved first, so the link survives and its target gets the
    output.  Anything else (a device such as ``/dev/null``, a FIFO, a
    socket, a file with other hard links, an open descriptor's link such as
    ``/dev/stdout``) is opened and written in place, streaming, as a shell
    redirection would: renaming over it would replace the device or FIFO by
    a regular file, cut the other links, or lose an append.

    A new file gets mode ``0666`` less the umask; an overwritten file keeps
    its mode, and its owner when the process may give it.  Operating-system
    errors are raised as :class:`FileAccessError` naming ``path``.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = STDOUT_NAME if path == "-" else path
        self._owned = path != "-"
        self._temp: str | None = None
        self._target = ""
        try:
            self._file: IO[bytes] = self._open(path) if self._owned else sys.stdout.buffer
        except OSError as err:
            _raise_for_write(self.name, err)
        _, ext = _split_compression(path)
        self.stream: IO[bytes] = _COMPRESSORS[ext](self._file, "wb") if ext else self._file

    def _open(self, path: str) -> IO[bytes]:
        resolved = _resolve_links(path)
        if resolved is None:
            # An open descriptor's file: append, as the descriptor's own writes
            # would, so that neither what precedes nor a `>>` redirection is cut.
            return _open_in_place(path, os.O_APPEND)
        try:
            existing = os.stat(resolved)
        except FileNotFoundError:
            existing = None
        if existing is not None and not (stat.S_ISREG(existing.st_mode) and existing.st_nlink == 1):
            return _open_in_place(path, os.O_TRUNC if stat.S_ISREG(existing.st_mode) else 0)
        self._target = resolved
        fd, self._temp = _create_beside(resolved)
        if existing is not None:
            _keep_owner_and_mode(fd, existing)
        return os.fdopen(fd, "wb")

    def write(self, data: bytes) -> int:
        try:
            return self.stream.write(data)
        except OSError as err:
            _raise_for_write(self.name, err)

    def commit(self) -> None:
        """Finish the output: flush it, and rename the temporary file into place."""
        try:
            if self.stream is not self._file:
                self.stream.close()  # the compressor's trailer; it leaves the file open
            if self._owned:
                self._file.close()
            else:
                self._file.flush()
            if self._temp is not None:
                os.replace(self._temp, self._target)
                self._temp = None
        except BaseException as err:
            self.abort()
            if isinstance(err, OSError):
                _raise_for_write(self.name, err)
            raise

    def abort(self) -> None:
        """Give up: remove the temporary file (an output written in place keeps what it got)."""
        if not self._owned:
            return
        # The file first: closing the compressor after it cannot add a trailer
        # that would make a cut-off output look complete.
        for stream in (self._file, self.stream):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
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


def _resolve_links(path: str) -> str | None:
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


def _create_beside(target: str) -> tuple[int, str]:
    """Create an empty temporary file in ``target``'s directory; return its descriptor and path.

    Created with mode 0666 so that the kernel applies the umask (or a default
    ACL) exactly as for a file created under the final name.
    """
    directory, name = os.path.split(target)
    for _ in range(100):
        temp = os.path.join(directory, f".{name}.{os.urandom(4).hex()}.part")  # not secrets: 5 ms to import
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", directory)


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
