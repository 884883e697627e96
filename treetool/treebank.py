"""One entry point for reading any supported treebank file.

``read_treebank`` picks the format (``--from``, else the file name, else the
content), opens compressed files and stdin, and streams
:class:`~treetool.sentence.Sentence` objects (CoNLL-U, CoNLL-X) or
``nltk.Tree`` objects (Penn Treebank brackets).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .formats.conll import OnError, read_conll, to_conllu_bytes, to_conllx_bytes
from .errors import TreebankError
from .formats.files import FORMATS, AtomicOutput, format_from_name, format_from_text, open_binary_input
from .sentence import Sentence

# treetool.formats.ptb is imported only where PTB input or output is used: it imports
# nltk, whose package import takes 0.5-1 s, which CoNLL jobs should not pay.

_UNDECODABLE = re.compile("[\udc80-\udcff]")


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


def _utf8_lines(lines: Iterator[str], filename: str) -> Iterator[str]:
    """Pass lines through, stopping at the first one that held invalid UTF-8 (decoded as surrogates)."""
    for number, line in enumerate(lines, 1):
        if not line.isascii() and _UNDECODABLE.search(line):
            raise TreebankError("invalid UTF-8", filename=filename, line=number)
        yield line


def read_treebank(
    path: str,
    fmt: str | None = None,
    *,
    on_error: OnError | None = None,
    **ptb_options: Any,
) -> Iterator[Any]:
    """Stream the sentences (CoNLL) or trees (PTB) of ``path`` (``-`` for stdin).

    ``ptb_options`` go to :func:`treetool.formats.ptb.read_ptb` (``drop_traces``,
    ``strip_functions``, ``remove_wrapper``).  Bad input raises
    :class:`TreebankError`, or is passed to ``on_error`` and skipped.
    """
    name = "<stdin>" if path == "-" else path
    with _opened(path) as binary:
        head = binary.peek(4096)[:4096] if hasattr(binary, "peek") else b""
        resolved = resolve_format(path, fmt, head)
        if resolved == "ptb":
            from .formats.ptb import read_ptb

            text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
            yield from read_ptb(_utf8_lines(text, name), name, on_error=on_error, **ptb_options)
            text.detach()
        else:
            yield from read_conll(binary, name, resolved, on_error)


def treebank_format(path: str, fmt: str | None = None) -> str:
    """The format :func:`read_treebank` would use for ``path`` (reads only the first bytes)."""
    if fmt is not None or (path != "-" and format_from_name(path)):
        return resolve_format(path, fmt, b"")
    with _opened(path) as binary:
        return resolve_format(path, fmt, binary.peek(4096)[:4096])


def output_format(path: str, to: str | None, source: str) -> str:
    """The output format: ``--to``, else the ``-o`` name, else the input format."""
    if to is not None:
        return to
    if path != "-":
        named = format_from_name(path)
        if named is not None:
            return named
    return source


class TreebankWriter:
    """Write sentences or trees to ``path`` in ``fmt``, converting where needed.

    Sentences in their own format are written byte for byte (see
    :meth:`Sentence.to_bytes`).  CoNLL-U to CoNLL-X drops comments,
    multiword tokens and empty nodes, which CoNLL-X cannot hold; the counts
    are kept in ``dropped`` so the command can warn.  Trees are written one
    per line.  A regular file appears under its name only after :meth:`close`
    (see :class:`~treetool.formats.files.AtomicOutput` for the other targets).
    """

    def __init__(self, path: str, fmt: str) -> None:
        if fmt not in FORMATS:
            raise TreebankError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
        self.path = path
        self.format = fmt
        self.dropped: Counter[str] = Counter()
        self._out = AtomicOutput(path)

    def write(self, item: Any) -> None:
        if isinstance(item, Sentence):
            if self.format == item.format:
                self._out.write(item.to_bytes())
            elif self.format == "conllx":
                self.dropped["comment lines"] += len(item.comments)
                self.dropped["multiword tokens"] += item.n_multiword
                self.dropped["empty nodes"] += item.n_empty
                self._out.write(to_conllx_bytes(item))
            elif self.format == "conllu":
                self._out.write(to_conllu_bytes(item))
            else:
                raise TreebankError("cannot write a dependency treebank as PTB brackets", filename=self.path)
        else:
            if self.format != "ptb":
                raise TreebankError(f"cannot write constituency trees as {self.format}", filename=self.path)
            from .formats.ptb import tree_to_line

            self._out.write((tree_to_line(item) + "\n").encode("utf-8", "surrogateescape"))

    def warnings(self) -> list[str]:
        return [
            f"{count} {what} dropped: {self.format} cannot hold them"
            for what, count in self.dropped.items()
            if count
        ]

    def close(self, ok: bool = True) -> None:
        if ok:
            self._out.commit()
        else:
            self._out.abort()

    def __enter__(self) -> TreebankWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(ok=exc_type is None)
