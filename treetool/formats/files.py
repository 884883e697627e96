"""Opening treebanks: paths, stdin/stdout, compression, format detection, atomic output.

Inputs are opened as binary streams: the CoNLL reader works on bytes (so a
round trip reproduces them exactly, CRLF and invalid UTF-8 included, and can
point at the line holding an invalid byte); the PTB reader wraps them in a
text layer that keeps line ends (``newline=""``).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

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


_stdin: IO[bytes] | None = None


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
        if _stdin is None:
            _stdin = _decompressed(_peekable(sys.stdin.buffer))
        return _stdin
    try:
        raw = open(path, "rb")
    except OSError as err:
        raise TreebankError(f"cannot open: {err.strerror}", filename=path) from None
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


class AtomicOutput:
    """A binary output written under a temporary name and renamed when complete.

    A failed run never leaves half a file under the final name.  ``-``
    writes to stdout.  Compression follows the suffix (``.gz``, ``.bz2``, ``.xz``).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._tmp: str | None = None
        if path == "-":
            self.stream: IO[bytes] = sys.stdout.buffer
            self._owned = False
        else:
            target = Path(path)
            fd, self._tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
            self.stream = os.fdopen(fd, "wb")
            self._owned = True
            _, ext = _split_compression(path)
            if ext is not None:
                self.stream = _COMPRESSORS[ext](self.stream, "wb")

    def write(self, data: bytes) -> int:
        return self.stream.write(data)

    def commit(self) -> None:
        if not self._owned:
            self.stream.flush()
            return
        self.stream.close()
        assert self._tmp is not None
        os.replace(self._tmp, self.path)
        self._tmp = None

    def abort(self) -> None:
        if not self._owned:
            return
        try:
            self.stream.close()
        except OSError:
            pass
        if self._tmp is not None and os.path.exists(self._tmp):
            os.unlink(self._tmp)
        self._tmp = None

    def __enter__(self) -> AtomicOutput:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()
