"""One entry point for reading any supported treebank file.

``read_treebank`` picks the format (``--from``, else the file name, else the
content), opens compressed files and stdin, and streams
:class:`~treetool.sentence.Sentence` objects (CoNLL-U, CoNLL-X) or
``nltk.Tree`` objects (Penn Treebank brackets).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .conll import OnError, read_conll
from .errors import TreebankError
from .io import FORMATS, format_from_name, format_from_text, open_binary_input
import io as _io


def resolve_format(path: str, fmt: str | None, head: bytes) -> str:
    """The input format: explicit ``fmt``, else from the name, else from the first bytes."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise TreebankError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})", filename=path)
        return fmt
    guessed = format_from_name(path) if path != "-" else None
    if guessed is None:
        guessed = format_from_text(head.decode("utf-8", errors="replace"))
    if guessed is None:
        raise TreebankError(
            "cannot tell the format from the name or the content; use --from conllu|conllx|ptb", filename=path
        )
    return guessed


@contextmanager
def _opened(path: str):
    binary = open_binary_input(path)
    try:
        yield binary
    finally:
        if path != "-":
            binary.close()


def read_treebank(
    path: str,
    fmt: str | None = None,
    *,
    on_error: OnError | None = None,
    **ptb_options: Any,
) -> Iterator[Any]:
    """Stream the sentences (CoNLL) or trees (PTB) of ``path`` (``-`` for stdin).

    ``ptb_options`` go to :func:`treetool.ptb.read_ptb` (``drop_traces``,
    ``strip_functions``, ``remove_wrapper``).  Bad input raises
    :class:`TreebankError`, or is passed to ``on_error`` and skipped.
    """
    name = "<stdin>" if path == "-" else path
    with _opened(path) as binary:
        head = binary.peek(4096)[:4096] if hasattr(binary, "peek") else b""
        resolved = resolve_format(path, fmt, head)
        if resolved == "ptb":
            from .ptb import read_ptb

            text = _io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
            yield from read_ptb(text, name, on_error=on_error, **ptb_options)
            text.detach()
        else:
            yield from read_conll(binary, name, resolved, on_error)


def treebank_format(path: str, fmt: str | None = None) -> str:
    """The format :func:`read_treebank` would use for ``path`` (reads only the first bytes)."""
    if fmt is not None or (path != "-" and format_from_name(path)):
        return resolve_format(path, fmt, b"")
    with _opened(path) as binary:
        return resolve_format(path, fmt, binary.peek(4096)[:4096])
