"""The slow reference CoNLL reader the fast one (:func:`treetool.formats.conll.read_conll`) is tested against.

Not a test module: the whole input is decoded, cut into sentence blocks by
regular expressions, and each block parsed line by line by
:func:`treetool.formats.conll.parse_block` (the fast reader's own slow path,
which it uses only for the sentences it flags).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from treetool.errors import TreebankError
from treetool.formats.conll import N_COLUMNS, OnError, parse_block
from treetool.formats.damage import refuse_nul
from treetool.sentence import Sentence

# A sentence ends at a line end followed by one or more blank lines; the
# separator takes all of them, so every byte belongs to exactly one sentence.
_SEPARATOR = re.compile(r"\n(?:[ \t\r]*\n)+")
_BLANK_PREFIX = re.compile(r"(?:[ \t\r]*\n)*")
_BLANK_TAIL = re.compile(r"[ \t\r]*")
_BLANK_CHARS = " \t\r"


def _first_token_line(content: str) -> str | None:
    for text in content.split("\n"):
        if not text.startswith("#"):
            return text
    return None


def read_conll_reference(
    stream: BinaryIO,
    filename: str = "<input>",
    fmt: str = "conllu",
    on_error: OnError | None = None,
) -> Iterator[Sentence]:
    """The slow reference reader: whole input decoded, split by regex, parsed line by line.

    What :func:`~treetool.formats.conll.read_conll` must give: the same
    sentences (same bytes, lines and fields) and the same errors. The number
    of columns is that of the first token line, at least 10.
    """
    if fmt not in ("conllu", "conllx"):
        raise ValueError(f"unknown CoNLL format {fmt!r}")
    text = stream.read().decode("utf-8", "surrogateescape")
    ncols = 0
    for prefix, content, sep, line in split_blocks([text]):
        if not content:
            continue  # blank input
        if not ncols:
            first = _first_token_line(content)
            if first is not None:
                ncols = max(N_COLUMNS, first.count("\t") + 1)  # at least 10
        refuse_nul(content, line, filename)
        try:
            yield parse_block(prefix, content, sep, line, filename, fmt, ncols or N_COLUMNS)
        except TreebankError as err:
            if on_error is None:
                raise
            on_error(err)


def split_blocks(chunks: Iterable[str]) -> Iterator[tuple[str, str, str, int]]:
    """Cut decoded text into ``(prefix, content, separator, first_line)`` blocks.

    ``prefix`` holds a byte-order mark and blank lines before the first
    sentence; ``content`` is the sentence without its last line end;
    ``separator`` the line end and the blank lines after it (empty at the end
    of a file without a final newline).  Concatenating every block's three
    strings gives back the input exactly.
    """
    buf = ""
    line = 1
    prefix = ""
    first = True
    pending: tuple[str, str, str, int] | None = None
    for chunk in chunks:
        buf += chunk
        if first:
            start = 1 if buf.startswith("\ufeff") else 0
            end = _BLANK_PREFIX.match(buf, start).end()
            if not buf[end:].strip(_BLANK_CHARS):
                continue  # only blank lines so far
            prefix = buf[:end]
            line += prefix.count("\n")
            buf = buf[end:]
            first = False
        pos = 0
        end = len(buf)
        for m in _SEPARATOR.finditer(buf):
            if _BLANK_TAIL.match(buf, m.end()).end() == end:
                break  # the separator may go on in the next chunk
            content = buf[pos:m.start()]
            sep = m.group()
            if pending is not None:
                yield pending
            pending = (prefix, content, sep, line)
            prefix = ""
            line += content.count("\n") + sep.count("\n")
            pos = m.end()
        buf = buf[pos:]
    if first:
        # The input held only blank lines (or nothing).
        if buf:
            yield (buf, "", "", line)
        return
    if buf:
        m = _SEPARATOR.search(buf)
        if m is None:
            # A last line of blanks without a line end is a blank line too, as with one.
            i = buf.rfind("\n")
            if i >= 0 and not buf[i + 1 :].strip(_BLANK_CHARS):
                content, sep = buf[:i], buf[i:]
            else:
                content, sep = buf, ""
        else:
            content, sep = buf[:m.start()], m.group()
            tail = buf[m.end():]
            if tail.strip(_BLANK_CHARS):  # a second block can only remain if the loop stopped early
                raise AssertionError("unsplit text left at end of input")
            sep += tail
        if content.strip(_BLANK_CHARS + "\n"):
            if pending is not None:
                yield pending
            pending = (prefix, content, sep, line)
        elif pending is not None:
            # Whitespace after the last sentence belongs to it.
            p, c, s, ln = pending
            pending = (p, c, s + buf, ln)
        else:
            pending = (prefix + buf, "", "", line)
    if pending is not None:
        yield pending
