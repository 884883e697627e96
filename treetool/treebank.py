"""One entry point for reading any supported treebank file.

``read_treebank`` picks the format (``--from``, else the file name, else the
content), opens compressed files and stdin, and streams
:class:`~treetool.sentence.Sentence` objects (CoNLL-U, CoNLL-X) or
``nltk.Tree`` objects (Penn Treebank brackets).
"""

from __future__ import annotations

import codecs
import io
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

from .errors import TreebankError, display_name
from .formats.damage import decoding_errors
from .formats.oracle_file import recorded_format
from .shard import Shard, Window, WindowReader, find_window
from .formats.files import (
    FORMATS, AtomicOutput, close_input, format_from_name, format_from_text, missing_separator, open_binary_input,
    reject_binary, set_aside,
)

if TYPE_CHECKING:
    from .formats.conll import OnError
    from .formats.ptb_source import SourceJoiner
    from .sentence import Sentence

# Each format's module is imported only where that format is read or written: treetool.formats.conll and
# treetool.sentence import numpy (0.2-0.3 s), which PTB jobs should not pay, and nltk (0.5-1 s) is for PTB
# trees only where a caller asks for nltk.Tree nodes.

_UNDECODABLE = re.compile("[\udc80-\udcff]")


def resolve_format(path: str, fmt: str | None, head: bytes) -> str:
    """The input format: explicit ``fmt``, else from the name, else from the first bytes (the format an
    ``oracle`` output records, else the content).

    Binary ``head`` bytes are refused whatever the format: no treebank holds them.
    """
    reject_binary(head, display_name(path))
    if fmt is not None:
        if fmt not in FORMATS:
            raise TreebankError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})", filename=path)
        return fmt
    guessed = format_from_name(path) if path != "-" else None
    if guessed is None:
        text = head.removeprefix(codecs.BOM_UTF8)  # an editor's byte order mark, not the first line's content
        guessed = recorded_format(text) or format_from_text(text.decode("utf-8", errors="replace"))
    if guessed is None:
        raise TreebankError(
            "cannot tell the format from the name or the content; use --from conllu|conllx|ptb",
            filename=display_name(path),
        )
    return guessed


@contextmanager
def _opened(path: str):
    """The decompressed binary input, closed after use (stdin excepted)."""
    binary = open_binary_input(path)
    try:
        with decoding_errors(binary, display_name(path)):
            yield binary
    finally:
        close_input(path, binary)


def _utf8_lines(text: IO[str], filename: str, first_line: int = 1) -> Iterator[str]:
    """The lines of ``text``, stopping at the first one that held invalid UTF-8 (decoded as surrogates).

    Checked a block of lines at a time (most blocks are ASCII: one test), and
    handed on by ``itertools.chain`` without a step of Python code per line.
    """
    return itertools.chain.from_iterable(_checked_blocks(text, filename, first_line))


#: Characters of text read per block by :func:`_utf8_lines`.
_BLOCK_CHARS = 1 << 16


def _checked_blocks(text: IO[str], filename: str, first_line: int) -> Iterator[list[str]]:
    """Blocks of lines of ``text`` (its first line numbered ``first_line``); the lines before the first invalid
    one, then the error naming its line."""
    number = first_line - 1
    while block := text.readlines(_BLOCK_CHARS):
        joined = "".join(block)
        if not joined.isascii() and _UNDECODABLE.search(joined):
            bad = next(k for k, line in enumerate(block) if _UNDECODABLE.search(line))
            yield block[:bad]
            raise TreebankError("invalid UTF-8", filename=filename, line=number + bad + 1)
        number += len(block)
        yield block


def read_treebank(
    path: str,
    fmt: str | None = None,
    *,
    on_error: OnError | None = None,
    ptb_lines: bool = False,
    ptb_positions: bool = False,
    shard: Shard | None = None,
    unparsed: bool = False,
    **ptb_options: Any,
) -> Iterator[Any]:
    """Stream the sentences (CoNLL) or trees (PTB) of ``path`` (``-`` for stdin).

    ``ptb_lines``: PTB trees come as ``(line, tree)``, line = where the tree starts; ``ptb_positions``: as
    ``(line, position, tree)``, position = the tree's place in its file (CoNLL sentences carry both).
    ``shard``: only the sentences of that shard of the file (:mod:`treetool.shard`), numbered as in the
    whole file.  ``unparsed``: CoNLL sentences whose every HEAD is ``_`` are read, without a tree
    (:func:`treetool.formats.conll.read_conll`), not refused.

    ``ptb_options`` go to :func:`treetool.formats.ptb.read_ptb` (``drop_traces``,
    ``strip_functions``, ``remove_wrapper``).  Bad input raises
    :class:`TreebankError`, or is passed to ``on_error`` and skipped.
    """
    name = display_name(path)
    with _opened(path) as binary:
        head = binary.peek(4096)[:4096]
        resolved = resolve_format(path, fmt, head)
        window = find_window(path, resolved, shard) if shard is not None else Window(0, -1, 1, 1)
        with _windowed(path, binary, window) as stream:
            if resolved == "ptb":
                from .formats.ptb import read_ptb_with_lines

                text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="")
                trees = read_ptb_with_lines(_utf8_lines(text, name, window.first_line), name, on_error=on_error,
                                            positions=ptb_positions, first_line=window.first_line,
                                            first_position=window.first_position, **ptb_options)
                if ptb_lines or ptb_positions:
                    yield from trees
                else:
                    yield from (tree for _, tree in trees)
                text.detach()
            else:
                from .formats.conll import read_conll

                yield from read_conll(stream, name, resolved, on_error, window.first_line, window.first_position,
                                      unparsed)


@contextmanager
def _windowed(path: str, binary: IO[bytes], window: Window):
    """``binary`` itself for a whole file (end -1), else a stream of the window's bytes only."""
    if window.end < 0:
        yield binary
        return
    stream = io.BufferedReader(WindowReader(path, window))
    try:
        yield stream
    finally:
        stream.close()


def treebank_format(path: str, fmt: str | None = None) -> str:
    """The format :func:`read_treebank` will use for ``path``, from a look at its first bytes.

    The input is opened here, so that a missing or unreadable input, or binary
    data, is found before any output is opened; a stream that cannot be
    reopened (stdin, a pipe, a FIFO, ``<(...)``) is set aside with the bytes
    looked at, for :func:`read_treebank` to read from its start.
    """
    binary = open_binary_input(path)
    try:
        with decoding_errors(binary, display_name(path)):
            found = resolve_format(path, fmt, binary.peek(4096)[:4096])
    except BaseException:
        close_input(path, binary)
        raise
    set_aside(path, binary)
    return found


def output_format(path: str, to: str | None, source: str) -> str:
    """The output format: ``--to``, else the ``-o`` name, else the input format."""
    if to is not None:
        return to
    if path != "-":
        named = format_from_name(path)
        if named is not None:
            return named
    return source


#: The last two columns of each CoNLL format: the same places in the other format mean something else (CoNLL-U's
#: DEPS and MISC, CoNLL-X's PHEAD and PDEPREL), so a conversion writes ``_`` there and the values are lost.
LAST_COLUMNS = {"conllu": ("DEPS", "MISC"), "conllx": ("PHEAD", "PDEPREL")}


def dropped_columns(sentence: Sentence) -> Counter[str]:
    """How many values (not ``_``) of each of :data:`LAST_COLUMNS` converting ``sentence`` drops, for the warning."""
    counts: Counter[str] = Counter()
    names = LAST_COLUMNS[sentence.format]
    for text in sentence.word_lines():
        for name, value in zip(names, text.rstrip("\r").split("\t")[8:]):
            counts[f"{name} values"] += value != "_"
    return counts


class TreebankWriter:
    """Write sentences or trees to ``path`` in ``fmt``, converting where needed.

    Sentences in their own format are written byte for byte (see
    :meth:`Sentence.to_bytes`).  CoNLL-U to CoNLL-X drops comments,
    multiword tokens and empty nodes, which CoNLL-X cannot hold, and either
    conversion the values of :data:`LAST_COLUMNS`; the counts are kept in
    ``dropped`` so the command can warn.  Trees are written one
    per line, single-spaced; a tree read with its input text
    (:class:`~treetool.formats.ptb_source.SourcedTree`) as that text, so
    that every tree of an input written in order is the input byte for byte
    (:class:`~treetool.formats.ptb_source.SourceJoiner`).  A regular file
    appears under its name only after :meth:`close` (see
    :class:`~treetool.formats.files.AtomicOutput` for the other targets).

    A sentence the target format forbids (several roots in CoNLL-U) is never
    written: it raises :class:`TreebankError`, or goes to ``on_error`` (which
    skips and counts it), so the output always reads back.
    """

    def __init__(self, path: str, fmt: str, on_error: OnError | None = None) -> None:
        if fmt not in FORMATS:
            raise TreebankError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
        self.path = path
        self.format = fmt
        self.dropped: Counter[str] = Counter()
        self._on_error = on_error
        self._out = AtomicOutput(path)
        self._unended = b""  # what the last sentence written lacks before another (see missing_separator)
        self._started = False  # a sentence was written: another file's byte order mark is not copied
        self._sources: SourceJoiner | None = None  # joins the trees written with their input text

    def write(self, item: Any) -> None:
        from .sentence import Sentence

        if isinstance(item, Sentence):
            problem = self._forbidden(item)
            if problem is not None:
                if self._on_error is None:
                    raise problem
                self._on_error(problem)
                return
            data = self._sentence_bytes(item)
            if self._started:
                data = data.removeprefix(codecs.BOM_UTF8)  # it marks the start of a file, not of a sentence
            self._started = True
            self._out.write(self._unended + data if self._unended else data)
            self._unended = missing_separator(data)
        else:
            if self.format != "ptb":
                raise TreebankError(f"cannot write constituency trees as {self.format}", filename=self.path)
            from .formats.ptb_source import SourceJoiner, SourcedTree

            if isinstance(item, SourcedTree):
                self._sources = self._sources or SourceJoiner()
                text = self._sources.text(item)
            else:
                from .formats.ptb import tree_to_line

                text = tree_to_line(item) + "\n"
            self._out.write(text.encode("utf-8", "surrogateescape"))

    def _sentence_bytes(self, item: Sentence) -> bytes:
        """The sentence in the output format (its own bytes when it is in it), counting what a conversion drops."""
        from .formats.conll import to_conllu_bytes, to_conllx_bytes

        if self.format == item.format:
            return item.to_bytes()
        if self.format == "conllx":
            self.dropped["comment lines"] += len(item.comments)
            self.dropped["multiword tokens"] += item.n_multiword
            self.dropped["empty nodes"] += item.n_empty
            self.dropped.update(dropped_columns(item))
            return to_conllx_bytes(item)
        if self.format == "conllu":
            self.dropped.update(dropped_columns(item))
            return to_conllu_bytes(item)
        raise TreebankError("cannot write a dependency treebank as PTB brackets", filename=self.path)

    def _forbidden(self, sentence: Sentence) -> TreebankError | None:
        """Why ``sentence`` cannot be written in the output format, or None.

        A CoNLL-U sentence as read has one root (the reader checks); one whose tree a command changed
        (replay, deprojectivize) may have several now. A sentence not yet parsed (HEAD ``_``) has no root to count.
        """
        if self.format != "conllu" or (sentence.format == "conllu" and not sentence.changed) or not sentence.has_tree:
            return None
        roots = int((sentence.heads[1:] == 0).sum())
        if roots == 1:
            return None
        return TreebankError(
            f"cannot write as CoNLL-U: {roots} words attached to the root (CoNLL-U allows one); "
            "write CoNLL-X, or make a single root first",
            filename=sentence.filename, line=sentence.line, sent_id=sentence.sent_id, raw=sentence.raw,
        )

    def warnings(self) -> list[str]:
        return [
            f"{count} {what if count > 1 else what[:-1]} dropped: "
            f"{self.format} cannot hold {'them' if count > 1 else 'it'}"
            for what, count in self.dropped.items()
            if count
        ]

    def close(self, ok: bool = True) -> None:
        if ok:
            if self._sources is not None:
                self._out.write(self._sources.end().encode("utf-8", "surrogateescape"))
            self._out.commit()
        else:
            self._out.abort()

    def __enter__(self) -> TreebankWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(ok=exc_type is None)
