"""Streaming CoNLL-U / CoNLL-X reader and writer.

Fast path (:func:`read_conll`): the input is read as BYTES in chunks of about
1 MiB; each chunk is parsed with numpy over the whole buffer at once (line
and tab positions, blank / comment / token lines, ID and HEAD fields parsed to
integers, ID sequence, HEAD range, root counts, DEPREL bytes, and cycles by
pointer jumping over every word of the chunk together).  Python then only slices each
sentence's bytes and builds a :class:`Sentence` whose views are lazy.  The
last, possibly unfinished sentence of a chunk is carried over to the next.

Slow path (:func:`parse_block`): a plain line-by-line parser of one
sentence, obviously correct; its cycle check is
:func:`treetool.trees.find_cycle`, the project's one, against which the fast
path's batch check is tested.  The fast path sends every sentence it flags
(or does not cover: odd bytes, very long numbers, invalid UTF-8) to
:func:`parse_block`, which produces the error message and line number, or
the sentence when the flag was only a precaution.  The tests' reference
reader splits a whole input by regular expressions and parses every sentence
with :func:`parse_block`: the fast reader must give the same sentences and
errors.  A NUL byte (binary data)
is raised at its line before that, never handed to ``on_error``.

Blank lines (empty, or only spaces, tabs and ``\\r``) separate sentences; the
blank lines after a sentence belong to it, blank lines (and a UTF-8
byte-order mark) at the start of a file belong to the first sentence, so the
sentences' ``raw`` bytes concatenate to the input exactly.  The number of
columns is that of the file's first token line, at least 10.

Costs (English-EWT train, 13 MB, see ``benchmarks/io.py``): a read + write
round trip takes about 1.2-1.6x a bare Python loop copying the lines.  What
remains is one numpy pass finding every tab and newline (~1 ns a byte), the
UTF-8 check (C speed; only the non-ASCII runs when they are few), the
writes, and ~1 us of Python per sentence.  Sentences the fast path flags take
the slow path (~40-80 us each); no sentence of the files in ../shared does.

Memory stays constant: one chunk plus one sentence is held.
"""

from __future__ import annotations

import lzma
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from typing import BinaryIO, NamedTuple

import numpy as np

from .. import trees
from ..errors import TreebankError
from ..sentence import DEPREL, HEAD, ID, NO_TREE, Sentence
from .damage import decompression_error, is_decompression_error, refuse_nul_bytes

CHUNK_BYTES = 1 << 20
N_COLUMNS = 10
_MAX_DIGITS = 9  # longer ID / HEAD fields go to the slow path

_SURROGATE = re.compile("[\udc80-\udcff]")
_BOM = b"\xef\xbb\xbf"

_ID_STRINGS: list[str] = [str(i) for i in range(1, 257)]

OnError = Callable[[TreebankError], None]

#: The HEAD of a word not yet parsed (a tokenised, tagged file): every word's, or the sentence is malformed.
NO_HEAD = "_"


def _id_strings(n: int) -> list[str]:
    if n > len(_ID_STRINGS):
        _ID_STRINGS.extend(str(i) for i in range(len(_ID_STRINGS) + 1, 2 * n + 1))
    return _ID_STRINGS


def _isnum(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _n_columns(first_token_line: str) -> int:
    """The file's column count: that of its first token line, at least 10."""
    return max(N_COLUMNS, first_token_line.count("\t") + 1)


# --------------------------------------------------------------------------
# Slow path: the line-by-line parser of one sentence
# --------------------------------------------------------------------------
def _error(message: str, filename: str, line: int, lines: list[str], raw: str) -> TreebankError:
    sent_id = None
    for text in lines:
        if text.startswith("#"):
            key, eq, value = text[1:].partition("=")
            if eq and key.strip() == "sent_id":
                sent_id = value.strip()
                break
    return TreebankError(
        message, filename=filename, line=line, sent_id=sent_id,
        raw=raw.encode("utf-8", "surrogateescape"),  # type: ignore[arg-type]
    )


def parse_block(
    prefix: str, content: str, sep: str, line: int, filename: str, fmt: str = "conllu",
    ncols: int = N_COLUMNS, unparsed: bool = False,
) -> Sentence:
    """Parse one sentence block into a :class:`Sentence`: ``content`` is the sentence without its last line end,
    starting at line ``line``; ``sep`` that line end and the blank lines after it; ``prefix`` a byte-order mark and
    the blank lines before a file's first sentence (else empty).

    The slow, line-by-line path.  Raises :class:`TreebankError` (whose
    ``raw`` is the block's bytes) for malformed input.  ``fmt`` is
    ``"conllu"`` (exactly one root) or ``"conllx"`` (several roots allowed).
    ``unparsed``: a sentence whose every HEAD is ``_`` (tokenised, not yet
    parsed) is read too, without a tree (see :func:`read_conll`).
    """
    raw = prefix + content + sep
    lines = content.split("\n")
    if _SURROGATE.search(content):
        # Invalid UTF-8 arrives as lone surrogates (surrogateescape).
        row = next(r for r, text in enumerate(lines) if _SURROGATE.search(text))
        raise _error("invalid UTF-8", filename, line + row, lines, raw)
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
        if word_rows[-1] - k == n - 1 == len(lines) - 1 - k:
            word_rows = None  # only comments before the words, and only words after them
    head_text = fields[HEAD::ncols]
    if unparsed and head_text.count(NO_HEAD) == n:
        return _unparsed_sentence(lines, sep, fields, ncols, word_rows, k, filename, line, fmt, prefix, raw)
    bad = [i for i, value in enumerate(head_text) if not _isnum(value)]
    if bad:
        i = bad[0]
        row = k + i if word_rows is None else word_rows[i]
        raise _error(_bad_head_message(head_text[i]), filename, line + row, lines, raw)
    heads = list(map(int, head_text))
    if max(heads) > n:
        i = next(i for i, h in enumerate(heads) if h > n)
        row = k + i if word_rows is None else word_rows[i]
        raise _error(f"HEAD {heads[i]} is out of range: the sentence has {n} words", filename, line + row, lines, raw)
    bad_label = _bad_deprel(fields[DEPREL::ncols])
    if bad_label is not None:
        i, message = bad_label
        row = k + i if word_rows is None else word_rows[i]
        raise _error(message, filename, line + row, lines, raw)
    roots = heads.count(0)
    if roots != 1 and (roots == 0 or fmt == "conllu"):
        if roots == 0:
            cycle = trees.find_cycle([-1, *heads])
            row = k if cycle is None else (k + cycle[0] - 1 if word_rows is None else word_rows[cycle[0] - 1])
            raise _error("no root: no word has HEAD 0", filename, line + row, lines, raw)
        second = [i for i, h in enumerate(heads) if h == 0][1]
        row = k + second if word_rows is None else word_rows[second]
        raise _error(
            f"several roots: {roots} words have HEAD 0 (allowed in CoNLL-X, not in CoNLL-U: read the file as CoNLL-X, --from conllx)",
            filename, line + row, lines, raw,
        )
    cycle = trees.find_cycle([-1, *heads])
    if cycle is not None:
        row = k + cycle[0] - 1 if word_rows is None else word_rows[cycle[0] - 1]
        raise _error(
            "cycle: words " + " -> ".join(map(str, cycle)) + f" -> {cycle[0]} do not reach the root",
            filename, line + row, lines, raw,
        )
    return Sentence(
        lines=lines, sep=sep, fields=fields, ncols=ncols, head_values=heads,
        word_rows=word_rows, row0=k, filename=filename, line=line, format=fmt,
        prefix=prefix, raw=raw,
    )


def _unparsed_sentence(lines: list[str], sep: str, fields: list[str], ncols: int, word_rows: list[int] | None, k: int,
                       filename: str, line: int, fmt: str, prefix: str, raw: str) -> Sentence:
    """A sentence without a tree: its DEPRELs still checked (they are written out), its heads :data:`NO_TREE`."""
    bad_label = _bad_deprel(fields[DEPREL::ncols])
    if bad_label is not None:
        i, message = bad_label
        raise _error(message, filename, line + (k + i if word_rows is None else word_rows[i]), lines, raw)
    n = len(fields) // ncols
    return Sentence(lines=lines, sep=sep, fields=fields, ncols=ncols, head_values=[NO_TREE] * n, word_rows=word_rows,
                    row0=k, filename=filename, line=line, format=fmt, prefix=prefix, raw=raw)


def _bad_deprel(deprels: list[str]) -> tuple[int, str] | None:
    """The first DEPREL that is empty or holds whitespace, as (word index, message); None when all are fine.

    Both formats forbid them (CoNLL-U: no spaces in DEPREL, ``_`` for none;
    CoNLL-X: no blanks in any field), and neither could be spelled in an
    action: ``oracle`` would write ``LA(n subj)`` or ``LA()``, which ``replay``
    cannot read back.
    """
    for i, label in enumerate(deprels):
        if not label:
            return i, "empty DEPREL (write '_' for none)"
        if label.split() != [label]:
            return i, f"DEPREL {label!r} holds whitespace: a label is one word (no spaces)"
    return None


def _bad_head_message(value: str) -> str:
    text = value.strip("\r")
    if "-" in text and all(_isnum(part) for part in text.split("-")):
        return f"HEAD {text} points into a multiword-token range; a head must be a word id"
    if "." in text and all(_isnum(part) for part in text.split(".")):
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
        if _isnum(ident):
            if int(ident) != expected:
                raise _error(f"broken ID sequence: expected word {expected}, found {ident}", filename, line + row, lines, raw)
            fields.extend(cols)
            word_rows.append(row)
            continue
        if fmt == "conllx":
            raise _error(f"ID must be a word number in CoNLL-X, found {ident!r}", filename, line + row, lines, raw)
        first, dash, last = ident.partition("-")
        if dash and _isnum(first) and _isnum(last):
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
        if dot and _isnum(whole) and _isnum(frac):
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


# --------------------------------------------------------------------------
# Fast reader
# --------------------------------------------------------------------------
def read_conll(
    stream: BinaryIO,
    filename: str = "<input>",
    fmt: str = "conllu",
    on_error: OnError | None = None,
    first_line: int = 1,
    first_position: int = 1,
    unparsed: bool = False,
) -> Iterator[Sentence]:
    """Stream sentences from a binary stream of CoNLL-U or CoNLL-X text.

    Malformed sentences raise :class:`TreebankError` (its ``raw`` holds the
    sentence's exact bytes), or, when ``on_error`` is given, are passed to it
    and skipped, and reading goes on. Each sentence's ``position`` is its
    1-based place among the stream's sentences, malformed ones included;
    ``first_line`` and ``first_position`` number a stream that starts inside
    a file (``--shard``).

    ``unparsed``: a sentence whose every HEAD is ``_`` is read too rather
    than refused, its heads :data:`~treetool.sentence.NO_TREE` (see
    :attr:`Sentence.has_tree`); for a caller that never looks at the tree
    (``filter`` selecting by length or id copies sentences unchanged).
    """
    if fmt not in ("conllu", "conllx"):
        raise ValueError(f"unknown CoNLL format {fmt!r}")
    return _read_fast(stream, filename, fmt, on_error, first_line, first_position, unparsed)


def _read(stream: BinaryIO, size: int, filename: str) -> bytes:
    try:
        return stream.read(size)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as err:
        if is_decompression_error(err):
            raise decompression_error(stream, err, filename) from None
        raise TreebankError(f"cannot read: {err}", filename=filename) from None


def _slow_sentence(
    raw: bytes, cs: int, ce: int, line: int, filename: str, fmt: str, ncols: int, unparsed: bool,
) -> Sentence:
    dec = "utf-8"
    return parse_block(
        raw[:cs].decode(dec, "surrogateescape"), raw[cs:ce].decode(dec, "surrogateescape"),
        raw[ce:].decode(dec, "surrogateescape"), line, filename, fmt, ncols, unparsed,
    )


def _read_fast(stream: BinaryIO, filename: str, fmt: str, on_error: OnError | None, line: int,
               position: int, unparsed: bool) -> Iterator[Sentence]:
    new = Sentence.__new__
    cls = Sentence
    carry = b""
    position -= 1
    at_start = True
    ncols = 0
    size = CHUNK_BYTES
    eof = False
    while not eof:
        chunk = _read(stream, size, filename)
        if not chunk:
            eof = True
        buf = carry + chunk if carry else chunk
        if not buf:
            break
        res = _scan(buf, at_start, eof, ncols, fmt)
        if res is None:
            # No complete sentence yet: read more (doubling, for huge sentences).
            carry = buf
            size = max(size, len(buf))
            continue
        size = CHUNK_BYTES
        ncols, records, H, carry_at, carry_line = res
        carry = buf[carry_at:]
        at_start = False
        for a, b, cs, ce, ln, n, off, row0, bad in records:
            raw = buf[a:b]
            ln += line
            position += 1
            if bad:
                refuse_nul_bytes(raw[cs:ce], ln, filename)  # binary data: never skipped (see .damage)
                try:
                    slow = _slow_sentence(raw, cs, ce, ln, filename, fmt, ncols or N_COLUMNS, unparsed)
                    slow.position = position
                    yield slow
                except TreebankError as err:
                    if on_error is None:
                        raise
                    on_error(err)
                continue
            s = new(cls)
            s.filename = filename
            s.line = ln
            s.position = position
            s.format = fmt
            s.ncols = ncols
            s._raw = raw
            s._cs = cs
            s._ce = ce
            s._n = n
            s._H = H
            s._off = off
            s._row0 = row0
            s._lines = None
            s._fields = None
            s._word_rows = None
            s._heads = None
            s._deprels = None
            s._changed = None
            s._dirty = False
            yield s
        line += carry_line


def _parse_uint(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parse the byte ranges ``arr[s:e]`` (``s`` ascending) as unsigned decimal integers: (values, ok).

    ``ok`` is False for an empty field, a non-digit byte, or more than
    ``_MAX_DIGITS`` digits (the slow path then decides).
    """
    ln = e - s
    if not ln.size:
        return np.zeros(0, np.int32), np.zeros(0, bool)
    k_max = int(ln.max())
    d = arr[s] - np.uint8(48)  # wraps below '0'
    ok = (d <= 9) & (ln >= 1)
    val = d.astype(np.int32)
    if k_max > _MAX_DIGITS:
        ok &= ln <= _MAX_DIGITS
        k_max = _MAX_DIGITS
    if k_max > 1 and int(s[-1]) + k_max > arr.size:
        arr = np.concatenate([arr, np.zeros(k_max, np.uint8)])
    for k in range(1, k_max):
        d = arr[s + k] - np.uint8(48)
        has = ln > k
        ok &= (d <= 9) | ~has
        val = np.where(has, val * 10 + d, val)
    return val, ok


class _Lines(NamedTuple):
    """Where the lines of a buffer are (all arrays have one entry per line, except ``sp``/``spc``)."""

    sp: np.ndarray      # positions of every byte <= '\n' (tabs, newlines, rare control bytes)
    spc: np.ndarray     # those bytes
    kb: np.ndarray      # index in sp of each line's first tab
    ke: np.ndarray      # index in sp of each line's newline (len(sp) for an unfinished last line)
    starts: np.ndarray  # byte offset of each line
    ends: np.ndarray    # byte offset of each line's newline (or the buffer's end)
    first: np.ndarray   # each line's first byte ('\n' for an empty line)
    blank: np.ndarray   # empty or only spaces, tabs and '\r'


class _Runs(NamedTuple):
    """The sentences of a buffer: runs of non-blank lines (see :func:`_sentence_runs`)."""

    sst: np.ndarray      # first line of each sentence
    run_end: np.ndarray  # line after each sentence's last line
    sid: np.ndarray      # sentence of each line (-1: blank lines before the first)
    n_emit: int          # sentences complete in this buffer
    lim: int             # lines of those sentences (with their trailing blank lines)


class _Words(NamedTuple):
    """Word lines (integer ID) of the emitted sentences, numbered 0..n_words-1 across the buffer."""

    lines: np.ndarray  # line of each word
    sw: np.ndarray     # sentence of each word
    n: np.ndarray      # words per sentence
    woff: np.ndarray   # number of the first word of each sentence
    kb: np.ndarray     # index in sp of each word line's first tab


def _scan(buf: bytes, at_start: bool, final: bool, ncols: int, fmt: str):
    """Parse one buffer of whole lines; see the module docstring.

    Returns None when the buffer holds no complete sentence (and is not the
    end of the input), else ``(ncols, records, H, carry_at, carry_line)``:
    one record ``(raw_start, raw_end, content_start, content_end, line_offset,
    n_words, heads_offset, row0, bad)`` per complete sentence, the chunk-wide
    heads array, the offset where the unfinished last sentence starts, and
    the number of lines before it.  Each step below flags in ``bad`` the
    sentences it cannot vouch for; those go to the slow path.
    """
    arr = np.frombuffer(buf, np.uint8)
    lines = _line_table(buf, arr, 3 if at_start and buf.startswith(_BOM) else 0)
    runs = _sentence_runs(lines.blank, final)
    if runs is None:
        return (ncols, [], None, arr.size, lines.starts.size) if final else None
    bad = np.zeros(runs.sst.size, bool)
    comment = lines.first[:runs.lim] == 35
    ncols, tok = _token_lines(buf, lines, runs, comment, ncols, bad)
    words, isword, id_ends = _word_lines(arr, lines, runs, tok, bad)
    hv = _head_fields(arr, lines, words, fmt, bad)
    _deprel_fields(arr, lines, words, bad)
    extra = tok[~isword]
    if extra.size:
        if fmt != "conllu":
            bad[runs.sid[extra]] = True
        else:
            before = np.searchsorted(words.lines, extra) - words.woff[runs.sid[extra]]
            _check_extra(buf, extra, runs.sid, lines.starts, id_ends[~isword], before, words.n, bad)
    emit_end = int(lines.starts[runs.lim]) if runs.lim < lines.starts.size else arr.size
    if not buf.isascii() and not _valid_utf8(buf, arr, emit_end):
        _flag_invalid_utf8(buf, lines.starts[runs.sst[:runs.n_emit]].tolist() + [emit_end], bad)
    row0 = _first_word_rows(runs, words, comment)
    H = np.full(words.lines.size + runs.sst.size, -1, np.int32)  # each sentence as [-1, h1, ..., hn]
    H[np.arange(words.lines.size) + words.sw + 1] = hv
    records = _records(lines, runs, words, row0, bad, at_start, emit_end)
    return ncols, records, H, emit_end, runs.lim


def _line_table(buf: bytes, arr: np.ndarray, start0: int) -> _Lines:
    """Find every line and blank line of the buffer with a few passes of numpy over all its bytes.

    Why one pass for tabs and newlines together: they are the only bytes
    <= '\\n' in normal text, so one ``flatnonzero`` yields both the line
    ends and (through ``kb``) the field boundaries used by later steps.
    """
    size = arr.size
    sp = np.flatnonzero(arr <= 10)
    spc = arr[sp]
    nlk = np.flatnonzero(spc == 10)
    partial = buf[-1] != 10
    n_nl = nlk.size
    nlines = n_nl + partial
    ke = np.empty(nlines, np.int64)
    ke[:n_nl] = nlk
    if partial:
        ke[-1] = sp.size
    kb = np.empty(nlines, np.int64)
    kb[0] = 0
    kb[1:] = ke[:-1] + 1
    ends = np.empty(nlines, np.int64)
    ends[:n_nl] = sp[nlk]
    if partial:
        ends[-1] = size
    starts = np.empty(nlines, np.int64)
    starts[0] = start0
    starts[1:] = ends[:-1] + 1
    first = arr[np.minimum(starts, size - 1)]
    return _Lines(sp, spc, kb, ke, starts, ends, first, _blank_lines(buf, arr, starts, ends, first))


def _blank_lines(buf: bytes, arr: np.ndarray, starts: np.ndarray, ends: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Which lines are blank: empty or '\\r' alone by numpy; the rare lines starting with a space, tab or '\\r' by Python."""
    nonempty = ends > starts
    cr = nonempty & (arr[np.maximum(ends - 1, 0)] == 13)
    blank = (ends - cr) == starts
    cand = np.flatnonzero(((first == 32) | (first == 9) | (first == 13)) & ~blank)
    for i in cand.tolist():
        if not buf[starts[i]:ends[i]].strip(b" \t\r"):
            blank[i] = True
    return blank


def _sentence_runs(blank: np.ndarray, final: bool) -> _Runs | None:
    """Cut the lines into sentences (maximal runs of non-blank lines); None when none is complete.

    The last run is complete only at the end of the input: otherwise its end
    may still be in the next chunk, so it is carried over.
    """
    nlines = blank.size
    nb = ~blank
    prev_nb = np.empty(nlines, bool)
    prev_nb[0] = False
    prev_nb[1:] = nb[:-1]
    is_first = nb & ~prev_nb
    sst = np.flatnonzero(is_first)
    n_sent = sst.size
    n_emit = n_sent if final else n_sent - 1
    if n_emit <= 0:
        return None
    run_end = np.empty(n_sent, np.int64)
    ends_runs = np.flatnonzero(blank & prev_nb)
    run_end[:ends_runs.size] = ends_runs[:n_sent]
    run_end[ends_runs.size:] = nlines
    lim = int(sst[n_emit]) if n_emit < n_sent else nlines
    return _Runs(sst, run_end, np.cumsum(is_first) - 1, n_emit, lim)


def _token_lines(
    buf: bytes, lines: _Lines, runs: _Runs, comment: np.ndarray, ncols: int, bad: np.ndarray,
) -> tuple[int, np.ndarray]:
    """The file's column count and the emitted token lines that have it.

    Flags sentences with a line of another column count (the file's first
    token line decides it) or with control bytes, which would shift the
    tab positions the field steps rely on.
    """
    tok = np.flatnonzero(~lines.blank[:runs.lim] & ~comment)
    if not ncols and tok.size:
        t0 = int(tok[0])
        ncols = max(N_COLUMNS, buf.count(b"\t", int(lines.starts[t0]), int(lines.ends[t0])) + 1)
    tabok = (lines.ke[tok] - lines.kb[tok]) == (ncols - 1)
    if not tabok.all():
        bad[runs.sid[tok[~tabok]]] = True
        tok = tok[tabok]
    ctrl = np.flatnonzero(lines.spc < 9)
    if ctrl.size:
        line_of = np.minimum(np.searchsorted(lines.ends, lines.sp[ctrl]), lines.ends.size - 1)
        bad[runs.sid[line_of]] = True
    return ncols, tok


def _word_lines(
    arr: np.ndarray, lines: _Lines, runs: _Runs, tok: np.ndarray, bad: np.ndarray,
) -> tuple[_Words, np.ndarray, np.ndarray]:
    """Split token lines into words (integer ID) and extra lines; flag IDs out of sequence.

    Returns the words, which token lines are words, and where each token
    line's ID field ends (for the multiword-token / empty-node check).
    """
    tkb = lines.kb[tok]
    id_ends = lines.sp[tkb]
    idv, isword = _parse_uint(arr, lines.starts[tok], id_ends)
    words = tok[isword]
    sw = runs.sid[words]
    n = np.bincount(sw, minlength=runs.sst.size)
    woff = np.cumsum(n) - n
    rank = np.arange(words.size) - woff[sw] + 1
    bad[sw[idv[isword] != rank]] = True
    return _Words(words, sw, n, woff, tkb[isword]), isword, id_ends


def _head_fields(arr: np.ndarray, lines: _Lines, words: _Words, fmt: str, bad: np.ndarray) -> np.ndarray:
    """Parse every HEAD field; flag heads that are not numbers or out of range, root counts, and cycles."""
    sw = words.sw
    hv, hok = _parse_uint(arr, lines.sp[words.kb + 5] + 1, lines.sp[words.kb + 6])
    nw = words.n[sw]
    hok &= hv <= nw
    bad[sw[~hok]] = True
    isroot = hok & (hv == 0)
    roots = np.bincount(sw[isroot], minlength=bad.size)
    if fmt == "conllu":
        bad |= roots != 1
    else:
        bad |= roots == 0
    if sw.size:
        gidx = np.arange(sw.size)
        parent = np.where(hok & ~isroot, words.woff[sw] + hv - 1, gidx)
        bad[sw[~_reaches_root(parent, isroot, int(nw.max()))]] = True
    return hv


def _deprel_fields(arr: np.ndarray, lines: _Lines, words: _Words, bad: np.ndarray) -> None:
    """Flag the sentences with a DEPREL that is empty or may hold whitespace (:func:`_bad_deprel` decides).

    One gather of every DEPREL byte of the buffer (labels are short: a few
    bytes a word): ASCII whitespace and control bytes are refused; a byte >=
    0x80 (perhaps Unicode whitespace, which ``str.split`` also splits on)
    sends the sentence to the slow path, which looks closer.
    """
    if not words.sw.size:
        return
    s = lines.sp[words.kb + 6] + 1
    ln = lines.sp[words.kb + 7] - s
    ok = ln >= 1
    before = np.cumsum(ln) - ln  # where each label starts among the gathered bytes
    gathered = arr[np.repeat(s - before, ln) + np.arange(int(before[-1] + ln[-1]))]
    odd = np.flatnonzero((gathered <= 32) | (gathered >= 128))
    if odd.size:
        ok[np.searchsorted(before, odd, side="right") - 1] = False
    bad[words.sw[~ok]] = True


def _reaches_root(parent: np.ndarray, isroot: np.ndarray, max_words: int) -> np.ndarray:
    """For every word of a batch of sentences, whether following heads leads to a root word.

    A vectorised batch check over all the words of a chunk at once (the
    reader's fast path): ``parent`` holds each word's head as an index into
    the batch (a root word, or a word with an unusable head, points to
    itself), ``isroot`` marks the words attached to 0, ``max_words`` bounds
    the sentence length. Pointer jumping: a word of depth d reaches its root
    after d <= max_words - 1 steps, and each jump doubles the steps taken.
    It answers the same question as :func:`treetool.trees.find_cycle`, the
    project's one cycle check, for many sentences at once; ``tests/test_conll.py``
    checks the two agree.
    """
    for _ in range(max(max_words - 2, 0).bit_length() + 1):
        parent = parent[parent]
    return isroot[parent]


def _flag_invalid_utf8(buf: bytes, bounds: list[int], bad: np.ndarray) -> None:
    """Flag the sentences (``buf[bounds[j]:bounds[j + 1]]``) that are not valid UTF-8.

    Called only when the buffer as a whole failed :func:`_valid_utf8`.
    """
    for j in range(len(bounds) - 1):
        try:
            buf[bounds[j]:bounds[j + 1]].decode("utf-8")
        except UnicodeDecodeError:
            bad[j] = True


def _first_word_rows(runs: _Runs, words: _Words, comment: np.ndarray) -> np.ndarray:
    """Each emitted sentence's row of word 1 when its lines are comments then words only, else -1.

    Such sentences (nearly all) can map word i to row ``row0 + i - 1``
    without keeping a row per word.
    """
    n_emit = runs.n_emit
    sst = runs.sst[:n_emit]
    n = words.n[:n_emit]
    n_comment = np.bincount(runs.sid[:runs.lim][comment], minlength=runs.sst.size)[:n_emit]
    n_words = words.lines.size
    first_word = words.lines[np.minimum(words.woff[:n_emit], max(n_words - 1, 0))] if n_words else sst
    simple = (first_word - sst == n_comment) & (runs.run_end[:n_emit] - sst == n_comment + n)
    return np.where(simple, n_comment, -1)


def _records(
    lines: _Lines, runs: _Runs, words: _Words, row0: np.ndarray, bad: np.ndarray, at_start: bool, emit_end: int,
):
    """One record per emitted sentence: its raw byte range (blank lines after it included), content range, ..."""
    n_emit = runs.n_emit
    sst = runs.sst[:n_emit]
    rs = lines.starts[sst]
    if at_start:
        rs[0] = 0  # a byte-order mark and blank lines before the first sentence belong to it
    re_ = np.empty(n_emit, np.int64)
    re_[:-1] = rs[1:]
    re_[-1] = emit_end
    cs = lines.starts[sst] - rs
    ce = lines.ends[runs.run_end[:n_emit] - 1] - rs
    off = words.woff[:n_emit] + np.arange(n_emit)  # sentence j's heads start at H[off[j]] == -1
    return zip(
        rs.tolist(), re_.tolist(), cs.tolist(), ce.tolist(), sst.tolist(), words.n[:n_emit].tolist(),
        off.tolist(), row0.tolist(), bad[:n_emit].tolist(),
    )


def _valid_utf8(buf: bytes, arr: np.ndarray, end: int) -> bool:
    """Whether ``buf[:end]`` is valid UTF-8.

    A multi-byte sequence holds no ASCII byte, so the text is valid exactly
    when every maximal run of bytes >= 0x80 is; when such bytes are few, only
    those runs (joined by newlines) are decoded.
    """
    hi = np.flatnonzero(arr[:end] >= 0x80)
    try:
        if hi.size * 8 > end:
            str(memoryview(buf)[:end], "utf-8")
        elif hi.size:
            run_ends = np.flatnonzero(np.diff(hi) != 1) + 1
            np.insert(arr[hi], run_ends, 10).tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _check_extra(
    buf: bytes, extra: np.ndarray, sid: np.ndarray, starts: np.ndarray, id_ends: np.ndarray,
    before: np.ndarray, n: np.ndarray, bad: np.ndarray,
) -> None:
    """Check multiword-token and empty-node IDs (CoNLL-U); flag the sentences that break a rule."""
    range_end: dict[int, int] = {}
    sids = sid[extra].tolist()
    for s, a, e, b in zip(sids, starts[extra].tolist(), id_ends.tolist(), before.tolist()):
        if bad[s]:
            continue
        ident = buf[a:e]
        first, dash, last = ident.partition(b"-")
        if dash:
            if first.isdigit() and last.isdigit():
                f, t = int(first), int(last)
                if f == b + 1 and t > f and f > range_end.get(s, 0) and t <= n[s]:
                    range_end[s] = t
                    continue
            bad[s] = True
            continue
        whole, dot, frac = ident.partition(b".")
        if not (dot and whole.isdigit() and frac.isdigit() and int(whole) == b):
            bad[s] = True


# --------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------
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
    write = out.write
    for sentence in sentences:
        write(sentence.to_bytes())
