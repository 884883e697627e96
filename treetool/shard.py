"""``--shard K/N``: the part of an input file one of N independent processes reads.

Shard K (1..N) of a file is the sentences (CoNLL) or trees (PTB) that *start*
in the K-th N-th of its bytes: the byte boundaries ``size * K // N`` are each
moved forward to the next sentence start, so N processes, on N machines if
need be, read disjoint byte ranges without talking to each other, and their
outputs concatenated in shard order are the bytes of one run over the file.

Where a sentence starts:

* CoNLL: the first line of a run of non-blank lines (blank: empty or only
  spaces, tabs, ``\\r``), as :func:`treetool.formats.conll.read_conll` cuts
  sentences. The blank lines after a sentence belong to it, and the first
  sentence starts at byte 0 (any blank lines before it are its prefix).
* PTB: a ``(`` at bracket depth 0 (a stray ``)`` at depth 0 is ignored, as
  the reader skips it), the first tree at byte 0.

To name lines and sentences as one run does (``file:line`` in errors, the
position that seeds ``annotate --policy explore`` and identifies a sentence
without ``# sent_id``), a shard counts the lines and sentence starts of the
bytes before it: one pass over them at disk speed (CoNLL: C-speed counting;
PTB: a loop over the lines with brackets), no parsing.

Only a regular, uncompressed file can be split by bytes: stdin, pipes and
compressed files are refused with one line saying why.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from dataclasses import dataclass
from typing import IO, BinaryIO

from .errors import TreebankError
from .formats.files import FileAccessError, compression_of

__all__ = ["Shard", "Window", "find_window", "splittable_size", "WindowReader"]

#: Bytes read at a time while counting what comes before a shard.
_CHUNK = 1 << 22
#: A blank line followed by a line with content: every sentence start but the first.
_BLANK_THEN_CONTENT = re.compile(rb"(?m)^[ \t\r]*\n(?=[ \t\r]*[^ \t\r\n])")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """``"K/N"`` with 1 <= K <= N; anything else is a ValueError saying what is expected."""
        k, slash, n = (part.strip() for part in text.partition("/"))
        if not slash or not _is_number(k) or not _is_number(n):
            raise ValueError(f"{text!r} is not K/N (e.g. 3/8: the third of eight shards)")
        shard = cls(int(k), int(n))
        if not 1 <= shard.index <= shard.count:
            raise ValueError(f"{text!r}: K must be between 1 and N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _is_number(text: str) -> bool:
    """Whether ``text`` is a number in ASCII digits (``str.isdigit`` takes ``²`` and ``٣`` too)."""
    return text.isascii() and text.isdigit()


@dataclass(frozen=True)
class Window:
    """The bytes ``[start, end)`` of a file that a shard reads, the line number of ``start`` and the position
    (1-based, among the file's sentences) of the first sentence in it."""

    start: int
    end: int
    first_line: int
    first_position: int


def find_window(path: str, fmt: str, shard: Shard) -> Window:
    """The window of ``shard`` in ``path`` (format ``fmt``: ``conllu``, ``conllx`` or ``ptb``)."""
    size = splittable_size(path)
    low, high = size * (shard.index - 1) // shard.count, size * shard.index // shard.count
    with open(path, "rb") as handle:
        scan = _PtbScan(handle) if fmt == "ptb" else _ConllScan(handle)
        start = scan.advance_to_start(low)
        first_line, first_position = scan.line, scan.position
        end = size if shard.index == shard.count else max(start, scan.advance_to_start(high))
    return Window(start, end, first_line, first_position)


def splittable_size(path: str) -> int:
    """The size of ``path``; stdin, non-regular and compressed files are refused (they cannot be cut by bytes).

    A FIFO is refused from its ``stat``, before it is opened: opening one waits for a writer.
    """
    if path == "-":
        raise TreebankError("--shard needs a file it can cut by bytes, not stdin", filename="<stdin>")
    try:
        found = os.stat(path)
        if stat.S_ISDIR(found.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(found.st_mode):
            raise TreebankError("--shard needs a regular file it can cut by bytes (this is a pipe, FIFO or device)",
                                filename=path)
        with open(path, "rb") as handle:
            head = handle.read(6)
    except OSError as err:  # said as for any input
        raise FileAccessError(path, err, writing=False) from None
    if compression_of(head) is not None:
        raise TreebankError("--shard cannot cut compressed data by bytes: decompress the file first", filename=path)
    return found.st_size


class _ConllScan:
    """Walks a CoNLL file forward from byte 0, counting lines and sentence starts, to the next start."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.offset = 0  # bytes consumed: always the start of a line
        self.line = 1  # the line number at ``offset``
        self.position = 1  # the position of the next sentence to start at or after ``offset``
        self.after_content = False  # a line with content was seen before ``offset``
        self.last_blank = False  # the line before ``offset`` was blank

    def advance_to_start(self, target: int) -> int:
        """The first sentence start at or after ``target`` (the file's size if none); counts up to it."""
        if target == 0:
            return 0
        self._count_whole_lines_before(target)
        while True:
            line = self.handle.readline()
            if not line:
                return self.offset
            content = bool(line.strip(b" \t\r\n"))
            if content and self.offset >= target and self.after_content and self.last_blank:
                self.handle.seek(self.offset)
                return self.offset
            self._consume(line, content)

    def _consume(self, line: bytes, content: bool) -> None:
        if content and (self.last_blank or not self.after_content):
            self.position += 1
        self.after_content |= content
        self.last_blank = not content
        self.offset += len(line)
        self.line += 1

    def _count_whole_lines_before(self, target: int) -> None:
        """Count, in large chunks, the complete lines that end before ``target`` (leaving the rest line by line)."""
        self.handle.seek(self.offset)
        while self.offset < target:
            chunk = self.handle.read(min(_CHUNK, target - self.offset))
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                break
            self._count_chunk(chunk[:cut])
            if cut < len(chunk):
                break
        self.handle.seek(self.offset)

    def _count_chunk(self, chunk: bytes) -> None:
        """Lines and sentence starts of ``chunk`` (whole lines), continuing the state of the lines before."""
        first_end = chunk.find(b"\n") + 1
        first_content = bool(chunk[:first_end].strip(b" \t\r\n"))
        if first_content and (self.last_blank or not self.after_content):
            self.position += 1  # the chunk opens with a sentence start (the regex sees only starts after a blank)
        self.position += len(_BLANK_THEN_CONTENT.findall(chunk))
        self.after_content |= bool(chunk.strip(b" \t\r\n"))
        last_start = chunk.rfind(b"\n", 0, len(chunk) - 1) + 1
        self.last_blank = not chunk[last_start:].strip(b" \t\r\n")
        self.line += chunk.count(b"\n")
        self.offset += len(chunk)


class _PtbScan:
    """Walks a PTB file forward from byte 0, tracking bracket depth, to the next ``(`` at depth 0."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.offset = 0  # bytes consumed: always the start of a line
        self.line = 1
        self.position = 1  # the position of the next tree to start
        self.depth = 0

    def advance_to_start(self, target: int) -> int:
        """The first tree start at or after ``target`` (the file's size if none); counts the trees before it."""
        if target == 0:
            return 0
        self.handle.seek(self.offset)
        for line in self.handle:
            if self.offset + len(line) > target:
                start = self._tree_start_in(line, max(0, target - self.offset))
                if start is not None:
                    self.offset += start
                    self.handle.seek(self.offset)
                    return self.offset
            else:
                self._track(line, len(line))
            self.offset += len(line)
            self.line += 1
        return self.offset

    def _track(self, line: bytes, upto: int) -> None:
        """Follow the brackets of ``line[:upto]``, counting the trees that start there."""
        opens, closes = line.count(b"(", 0, upto), line.count(b")", 0, upto)
        if self.depth - closes > 0:  # the depth cannot reach 0 on this line: no tree starts here
            self.depth += opens - closes
            return
        for byte in line[:upto]:
            if byte == 40:  # (
                if self.depth == 0:
                    self.position += 1
                self.depth += 1
            elif byte == 41 and self.depth:  # )
                self.depth -= 1

    def _tree_start_in(self, line: bytes, low: int) -> int | None:
        """The index in ``line`` of the first ``(`` at depth 0 at or after ``low``, the brackets before it
        followed; None (the whole line followed) if there is none."""
        self._track(line, low)
        for index in range(low, len(line)):
            byte = line[index]
            if byte == 40:
                if self.depth == 0:
                    return index
                self.depth += 1
            elif byte == 41 and self.depth:
                self.depth -= 1
        return None


class WindowReader(io.RawIOBase):
    """The bytes ``[start, end)`` of a file, read as a stream of their own."""

    def __init__(self, path: str, window: Window) -> None:
        self._file: IO[bytes] = open(path, "rb")
        self._file.seek(window.start)
        self._left = window.end - window.start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[:self._left]
        count = self._file.readinto(view)
        self._left -= count
        return count

    def close(self) -> None:
        self._file.close()
        super().close()
