"""Input that is not a treebank, found while reading: a NUL byte, a damaged compressed stream.

The opening code looks only at an input's first bytes (``reject_binary``), so
the readers check the rest as they stream: a NUL byte anywhere means binary
data, refused at its line whatever ``--on-error`` says (a binary file is no
treebank with a few bad sentences, and skipping would only bury the cause);
a compressed stream that breaks off is reported with the byte of the file
where it stops, so a cut-off download or copy can be told from bad text.

Light on purpose (no numpy, no nltk): every reader imports it.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from ..errors import TreebankError

BINARY_MESSAGE = "binary data (a NUL byte), not a treebank"

#: What a decompressor raises on damaged or cut-off data (bz2 raises OSError without an errno).
DECOMPRESSION_ERRORS = (zlib.error, lzma.LZMAError, EOFError, gzip.BadGzipFile, OSError)


def refuse_nul(text: str, first_line: int, filename: str) -> None:
    """Raise the binary-data error when ``text`` (lines from ``first_line`` on) holds a NUL, at that NUL's line."""
    nul = text.find("\x00")
    if nul >= 0:
        raise TreebankError(BINARY_MESSAGE, filename=filename, line=first_line + text.count("\n", 0, nul))


def refuse_nul_bytes(data: bytes, first_line: int, filename: str) -> None:
    """:func:`refuse_nul` for bytes (the CoNLL reader's sentences)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TreebankError(BINARY_MESSAGE, filename=filename, line=first_line + data.count(b"\n", 0, nul))


def is_decompression_error(err: BaseException) -> bool:
    """Whether ``err`` is a decompressor's complaint about its data, not an I/O error (which has an errno)."""
    return isinstance(err, DECOMPRESSION_ERRORS) and not (isinstance(err, OSError) and err.errno is not None)


def decompression_error(stream: IO[bytes], err: BaseException, filename: str) -> TreebankError:
    """The error to report for ``err``, raised while reading the decompressed ``stream``: where in the file it stopped.

    The offset is the compressed file's position when the decompressor gave
    up: for a truncated file, its last byte (its size); for corrupt data, the
    end of the block read ahead, so the damage lies at or before it. Standard
    input from a pipe has no position, and is named without one.
    """
    where = _compressed_position(stream)
    if isinstance(err, EOFError):
        what = "truncated compressed data: the compressed stream ends"
        at = f" at byte {where}" if where is not None else ""
        return TreebankError(f"{what}{at} before its end-of-stream marker", filename=filename)
    at = f" at or before byte {where}" if where is not None else ""
    return TreebankError(f"corrupt compressed data{at} ({err})", filename=filename)


@contextmanager
def decoding_errors(binary: IO[bytes], filename: str) -> Iterator[None]:
    """Corrupt or truncated compressed data met while reading ``binary`` becomes a TreebankError saying where."""
    try:
        yield
    except DECOMPRESSION_ERRORS as err:
        if not is_decompression_error(err):  # a real I/O error (it has an errno), not bz2's "Invalid data stream"
            raise
        raise decompression_error(binary, err, filename) from None


def _compressed_position(stream: IO[bytes]) -> int | None:
    """The byte offset reached in the compressed file beneath ``stream``; None when unknown (a pipe, plain input).

    ``GzipFile`` keeps that file as ``fileobj``; ``BZ2File`` and ``LZMAFile``
    as ``_fp`` (no public name: the offset is worth the private attribute, and
    an unknown layout only loses the offset).
    """
    if isinstance(stream, gzip.GzipFile):
        raw = stream.fileobj
    elif isinstance(stream, (bz2.BZ2File, lzma.LZMAFile)):
        raw = getattr(stream, "_fp", None)
    else:
        return None
    try:
        return raw.tell() if raw is not None else None
    except (OSError, ValueError):
        return None
