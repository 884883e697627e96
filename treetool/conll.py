"""Streaming CoNLL-U / CoNLL-X reader and writer.

The reader decodes the input in large chunks and cuts it into sentence blocks
with one regular expression, then parses each block with whole-block string
operations (one ``split`` per block, column slices) instead of per-line
Python work: that is what lets a read + write round trip run close to the
speed of copying lines (see ``benchmarks/io.py``).  Anything unusual
(multiword tokens, empty nodes, comments between words, a wrong column count)
falls back to a line-by-line parse that also produces the error messages.

Memory stays constant: at most one chunk (1 MiB) plus one sentence is held.
"""

from __future__ import annotations

import re
from itertools import repeat
from collections.abc import Callable, Iterable, Iterator
import io
from typing import BinaryIO, TextIO

from .errors import TreebankError
from .io import read_chunks
from .sentence import DEPREL, HEAD, ID, Sentence

CHUNK_CHARS = 1 << 20
N_COLUMNS = 10

# A sentence ends at a line end followed by one or more blank lines; the
# separator takes all of them, so every byte belongs to exactly one sentence.
_SEPARATOR = re.compile(r"\n(?:[ \t]*\r?\n)+")
_BLANK_PREFIX = re.compile(r"(?:[ \t]*\r?\n)+")
_SURROGATE = re.compile("[\udc80-\udcff]")

_ID_STRINGS: list[str] = [str(i) for i in range(1, 257)]

OnError = Callable[[TreebankError], None]


def _id_strings(n: int) -> list[str]:
    if n > len(_ID_STRINGS):
        _ID_STRINGS.extend(str(i) for i in range(len(_ID_STRINGS) + 1, 2 * n + 1))
    return _ID_STRINGS


def split_blocks(chunks: Iterable[str]) -> Iterator[tuple[str, str, str, int]]:
    """Cut decoded text into ``(prefix, content, separator, first_line)`` blocks.

    ``prefix`` holds blank lines before the first sentence; ``content`` is the
    sentence without its last line end; ``separator`` the line end and the
    blank lines after it (empty at the end of a file without a final newline).
    Concatenating every block's three strings gives back the input exactly.
    """
    buf = ""
    line = 1
    prefix = ""
    first = True
    pending: tuple[str, str, str, int] | None = None
    for chunk in chunks:
        buf += chunk
        if first:
            m = _BLANK_PREFIX.match(buf)
            if m and m.end() < len(buf):
                prefix = m.group()
                line += prefix.count("\n")
                buf = buf[m.end():]
            elif m:
                continue  # only blank lines so far
            first = False
        pos = 0
        end = len(buf)
        for m in _SEPARATOR.finditer(buf):
            if m.end() == end:
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
            content, sep = buf, ""
            if buf.endswith("\n"):
                content, sep = buf[:-1], "\n"
        else:
            content, sep = buf[:m.start()], m.group()
            tail = buf[m.end():]
            if tail.strip():  # a second block can only remain if the loop stopped early
                raise AssertionError("unsplit text left at end of input")
            sep += tail
        if content.strip():
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


def _error(message: str, filename: str, line: int, lines: list[str], raw: str) -> TreebankError:
    sent_id = None
    for text in lines:
        if text.startswith("#"):
            key, eq, value = text[1:].partition("=")
            if eq and key.strip() == "sent_id":
                sent_id = value.strip()
                break
    return TreebankError(message, filename=filename, line=line, sent_id=sent_id, raw=raw)


def parse_block(
    prefix: str, content: str, sep: str, line: int, filename: str, fmt: str = "conllu",
    ncols: int = N_COLUMNS,
) -> Sentence:
    """Parse one sentence block (see :func:`split_blocks`) into a :class:`Sentence`.

    Raises :class:`TreebankError` for malformed input.  ``fmt`` is
    ``"conllu"`` (exactly one root) or ``"conllx"`` (several roots allowed).
    """
    raw = prefix + content + sep
    lines = content.split("\n")
    k = 0
    while k < len(lines) and lines[k].startswith("#"):
        k += 1
    body = lines[k:] if k else lines
    if not body:
        raise _error("empty sentence: comments but no word lines", filename, line, lines, raw)
    fields = "\t".join(body).split("\t")
    n = len(fields) // ncols
    ids = fields[ID::ncols]
    if (
        len(fields) == ncols * len(body)
        and ids == _id_strings(n)[:n]
        and list(map(str.count, body, repeat("\t", len(body)))).count(ncols - 1) == len(body)
    ):
        word_rows = None
    else:
        fields, word_rows = _parse_general(lines, k, line, filename, fmt, ncols, raw)
        n = len(word_rows)
    head_text = fields[HEAD::ncols]
    try:
        heads = list(map(int, head_text))
    except ValueError:
        heads = []
    joined = "".join(head_text)
    if len(heads) != n or not (joined.isascii() and joined.isdigit()):
        for i, value in enumerate(head_text):
            if not (value.isascii() and value.isdigit()):
                row = k + i if word_rows is None else word_rows[i]
                raise _error(_bad_head_message(value), filename, line + row, lines, raw)
    if max(heads) > n:
        i = next(i for i, h in enumerate(heads) if h > n)
        row = k + i if word_rows is None else word_rows[i]
        raise _error(f"HEAD {heads[i]} is out of range: the sentence has {n} words", filename, line + row, lines, raw)
    roots = heads.count(0)
    if roots != 1 and (roots == 0 or fmt == "conllu"):
        if roots == 0:
            cycle = find_cycle(heads)
            row = k if cycle is None else (k + cycle - 1 if word_rows is None else word_rows[cycle - 1])
            raise _error("no root: no word has HEAD 0", filename, line + row, lines, raw)
        second = [i for i, h in enumerate(heads) if h == 0][1]
        row = k + second if word_rows is None else word_rows[second]
        raise _error(
            f"several roots: {roots} words have HEAD 0 (allowed in CoNLL-X, not in CoNLL-U)",
            filename, line + row, lines, raw,
        )
    cycle = find_cycle(heads)
    if cycle is not None:
        row = k + cycle - 1 if word_rows is None else word_rows[cycle - 1]
        members = cycle_members(heads, cycle)
        raise _error(
            "cycle: words " + " -> ".join(map(str, members)) + f" -> {members[0]} do not reach the root",
            filename, line + row, lines, raw,
        )
    return Sentence(
        lines=lines, sep=sep, fields=fields, ncols=ncols, head_values=heads,
        word_rows=word_rows, row0=k, filename=filename, line=line, format=fmt,
        prefix=prefix, raw=raw,
    )


def _bad_head_message(value: str) -> str:
    text = value.strip("\r")
    if "-" in text and all(part.isdigit() for part in text.split("-")):
        return f"HEAD {text} points into a multiword-token range; a head must be a word id"
    if "." in text and all(part.isdigit() for part in text.split(".")):
        return f"HEAD {text} points to an empty node; basic-tree heads must be word ids"
    return f"HEAD must be a non-negative integer, found {text!r}"


def _parse_general(
    lines: list[str], k: int, line: int, filename: str, fmt: str, ncols: int, raw: str,
) -> tuple[list[str], list[int]]:
    """Line-by-line parse: multiword tokens, empty nodes, and error reporting."""
    fields: list[str] = []
    word_rows: list[int] = []
    range_end = 0  # last word id covered by the latest multiword token
    for row in range(k, len(lines)):
        text = lines[row]
        if text.startswith("#"):
            continue
        cols = text.split("\t")
        if len(cols) != ncols:
            raise _error(
                f"expected {ncols} tab-separated columns, found {len(cols)}", filename, line + row, lines, raw,
            )
        ident = cols[ID]
        expected = len(word_rows) + 1
        if ident.isdigit() and ident.isascii():
            if int(ident) != expected:
                raise _error(f"broken ID sequence: expected word {expected}, found {ident}", filename, line + row, lines, raw)
            fields.extend(cols)
            word_rows.append(row)
            continue
        if fmt == "conllx":
            raise _error(f"ID must be a word number in CoNLL-X, found {ident!r}", filename, line + row, lines, raw)
        first, dash, last = ident.partition("-")
        if dash and first.isdigit() and last.isdigit():
            if int(first) != expected or int(last) <= int(first):
                raise _error(
                    f"broken ID sequence: multiword token {ident} must start at word {expected} and span at least two words",
                    filename, line + row, lines, raw,
                )
            if int(first) <= range_end:
                raise _error(f"multiword token {ident} overlaps the previous one", filename, line + row, lines, raw)
            range_end = int(last)
            continue
        whole, dot, frac = ident.partition(".")
        if dot and whole.isdigit() and frac.isdigit():
            if int(whole) != expected - 1:
                raise _error(
                    f"broken ID sequence: empty node {ident} found after word {expected - 1}", filename, line + row, lines, raw,
                )
            continue
        raise _error(f"ID must be a word number, a range N-M or an empty node N.M, found {ident!r}", filename, line + row, lines, raw)
    if not word_rows:
        raise _error("empty sentence: no word lines", filename, line + k, lines, raw)
    if range_end > len(word_rows):
        raise _error(
            f"multiword token reaches word {range_end} but the sentence has {len(word_rows)} words",
            filename, line + k, lines, raw,
        )
    return fields, word_rows


def find_cycle(heads: list[int]) -> int | None:
    """Return a word on a cycle of ``heads`` (``heads[i-1]`` is the head of word i), or None.

    Colours each word once (unvisited / on the current path / reaches the
    root), so the check is linear in the number of words.
    """
    n = len(heads)
    state = bytearray(n + 1)
    state[0] = 2
    for start in range(1, n + 1):
        if state[start]:
            continue
        path = []
        j = start
        while not state[j]:
            state[j] = 1
            path.append(j)
            j = heads[j - 1]
        if state[j] == 1:
            return j
        for p in path:
            state[p] = 2
    return None


def cycle_members(heads: list[int], start: int) -> list[int]:
    members = [start]
    j = heads[start - 1]
    while j != start:
        members.append(j)
        j = heads[j - 1]
    return members


def read_conll(
    stream: BinaryIO,
    filename: str = "<input>",
    fmt: str = "conllu",
    on_error: OnError | None = None,
) -> Iterator[Sentence]:
    """Stream sentences from a binary stream of CoNLL-U or CoNLL-X text.

    Malformed sentences raise :class:`TreebankError`, or, when ``on_error``
    is given, are passed to it and skipped, and reading goes on.
    """
    if fmt not in ("conllu", "conllx"):
        raise ValueError(f"unknown CoNLL format {fmt!r}")
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="")
    try:
        yield from _read_text(text, filename, fmt, on_error)
    finally:
        text.detach()


def _read_text(text: TextIO, filename: str, fmt: str, on_error: OnError | None) -> Iterator[Sentence]:
    undecodable = False

    def checked(chunks: Iterable[str]) -> Iterator[str]:
        # Invalid bytes arrive as lone surrogates (surrogateescape); once a
        # chunk holds one, the blocks from there on are checked one by one.
        nonlocal undecodable
        for chunk in chunks:
            if not undecodable and not chunk.isascii() and _SURROGATE.search(chunk):
                undecodable = True
            yield chunk

    chunks = read_chunks(text, filename)
    for prefix, content, sep, line in split_blocks(checked(chunks)):
        if not content:
            continue  # blank input
        try:
            if undecodable and (m := _SURROGATE.search(content)):
                row = content.count("\n", 0, m.start())
                raise _error("invalid UTF-8", filename, line + row, content.split("\n"), prefix + content + sep)
            yield parse_block(prefix, content, sep, line, filename, fmt)
        except TreebankError as err:
            if on_error is None:
                raise
            on_error(err)


def to_conllx_bytes(sentence: Sentence) -> bytes:
    """Write a CoNLL-U sentence as CoNLL-X: word lines only, DEPS/MISC columns become ``_``.

    Comments, multiword tokens and empty nodes have no place in CoNLL-X and
    are dropped (callers count them for a warning).
    """
    ending = "\r\n" if sentence.lines[0].endswith("\r") else "\n"
    out = []
    for text in sentence.word_lines():
        cols = text.rstrip("\r").split("\t")
        cols[8:] = ["_", "_"]
        out.append("\t".join(cols))
    return (ending.join(out) + ending + ending).encode("utf-8", "surrogateescape")


def to_conllu_bytes(sentence: Sentence) -> bytes:
    """Write a CoNLL-X sentence as CoNLL-U: PHEAD/PDEPREL columns become ``_`` (DEPS/MISC)."""
    return to_conllx_bytes(sentence)


def write_conll(sentences: Iterable[Sentence], out: BinaryIO) -> None:
    for sentence in sentences:
        out.write(sentence.to_bytes())
