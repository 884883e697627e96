"""The input text of each Penn Treebank tree, for a command that copies trees it does not change (``filter``).

The input is cut into pieces, one per top-level bracket (a tree, or a
malformed one the reader refuses):

* its own text: from its ``(`` to its last ``)``, widened to the start of
  its first line when only spaces come before it there (its indentation),
  and to the end of its last line, line end included, when only spaces
  follow it there;
* ``after``: the whitespace from there to the next bracket's own text (blank
  lines, or the spaces between two trees on one line; text the reader skips
  as an error there is not kept). The input's leading whitespace (and byte
  order mark) is the first bracket's ``before``.

Written one after another, the pieces of every tree are the input byte for
byte. :class:`SourceJoiner` writes a selection of them: each kept tree's
own text and ``after``, except that a tree sharing its line with the next
one is followed by the line's end when that next tree is not written.

Each line is cut before the parser reads it, its brackets counted as the
parser counts them (a ``)`` outside any bracket is skipped), so the n-th
piece is the n-th top-level bracket the parser yields or refuses.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import TreebankError

__all__ = ["SourcedTree", "SourceJoiner", "TreeText", "TreeTexts"]

_BRACKET = re.compile("[()]")
_BOM = "\ufeff"


def _blank(text: str) -> bool:
    return not text or text.isspace()


class TreeText:
    """One top-level bracket's text in the input (see the module's docstring); ``after`` and ``joined`` are set
    when the next bracket starts, or at the end of the input. (A plain class: a dataclass would add milliseconds
    to the start-up of every PTB command.)"""

    __slots__ = ("text", "before", "line_end", "after", "joined")

    def __init__(self, text: str, before: str, line_end: str) -> None:
        self.text = text  # its own text
        self.before = before  # the input's leading whitespace for the first bracket, else ""
        self.line_end = line_end  # the end of the line its text stops inside ("" when it ends its line or the input)
        self.after = ""
        self.joined = False  # the next bracket starts on the line this one ends on, only spaces between

    def alone(self) -> str:
        """Its own text, the line end added when another bracket followed on its line (for ``--rejects``)."""
        return self.text + self.line_end


class SourcedTree:
    """A tree, its text in the input, and its file and place there (1-based, as the reader counts)."""

    __slots__ = ("tree", "source", "filename", "position")

    def __init__(self, tree: Any, source: TreeText, filename: str, position: int) -> None:
        self.tree = tree
        self.source = source
        self.filename = filename
        self.position = position


class TreeTexts:
    """Cuts the lines of a PTB input into :class:`TreeText` pieces as a parser reads them (:meth:`lines`)."""

    def __init__(self, opens_next_tree: Callable[[str], bool]) -> None:
        """``opens_next_tree(line)``: whether a line met inside a bracket starts the next tree, the bracket being
        cut as one never closed (the reader's rule, :func:`treetool.formats.ptb.opens_next_tree`)."""
        self._opens_next_tree = opens_next_tree
        self._done: deque[TreeText] = deque()  # pieces cut, not yet claimed by a tree or a refusal
        self._last: TreeText | None = None  # the last piece cut, whose ``after`` is not known yet
        self._depth = 0
        self._open: list[str] = []  # the text so far of the bracket being read
        self._gap: list[str] = []  # the input since the last piece, while it is blank (see _between)
        self._junk = False  # other text came since the last piece: the reader skips it, nothing of the gap is kept
        self._before = ""  # the first piece's

    def lines(self, lines: Iterable[str]) -> Iterator[str]:
        """``lines`` unchanged, each cut before it is handed on; then the end of the input."""
        lines = iter(lines)
        first = next(lines, None)
        if first is not None:
            if first.startswith(_BOM):
                self._gap.append(_BOM)
            self._cut(first.removeprefix(_BOM))
            yield first
        for line in lines:
            self._cut(line)
            yield line
        self._end()

    def _cut(self, line: str) -> None:
        """Place the text of ``line`` (no bracket starts or ends on most lines: placed whole)."""
        depth, closes = self._depth, line.count(")")
        if depth and line[:1] == "(" and self._opens_next_tree(line):  # the bracket being read was never closed
            self._end_unclosed()
            depth = 0
        if depth > closes:  # inside a bracket that cannot close here
            self._depth = depth + line.count("(") - closes
            self._open.append(line)
            return
        if not depth and "(" not in line:
            self._between(line)
            return
        start, ended_here = 0, False  # where the text not yet placed starts; whether a piece ended on this line
        for match in _BRACKET.finditer(line):
            if match.group() == "(":
                depth += 1
                if depth == 1:
                    start = self._start(line, start, match.start(), ended_here)
            elif depth:
                depth -= 1
                if not depth:
                    start, ended_here = self._close(line, start, match.end()), True
        self._depth = depth
        if depth:
            self._open.append(line[start:])
        else:
            self._between(line[start:])

    def _between(self, text: str) -> None:
        """Text outside every bracket: kept while the gap is blank (it is copied); once other text comes (which
        the reader skips as an error), none, so that a long stretch of it (a file that is no PTB, read with
        ``--on-error skip``) is not held in memory."""
        if self._junk or not _blank(text):
            self._junk, self._gap = True, []
        else:
            self._gap.append(text)

    def _start(self, line: str, start: int, at: int, ended_here: bool) -> int:
        """A bracket opens at ``line[at]``: the text before it is the last piece's ``after`` (when blank); returns
        where the new piece's text starts."""
        begin = 0 if not ended_here and _blank(line[:at]) else at
        gap = "".join(self._gap) + line[start:begin]
        blank = not self._junk and _blank(line[start:begin])  # the gap holds nothing else but a byte order mark
        if self._last is None:
            self._before = gap if blank else ""
        else:
            self._last.after = gap if blank else ""
            self._last.joined = ended_here and blank
        self._gap, self._junk = [], False
        return begin

    def _close(self, line: str, start: int, end: int) -> int:
        """The bracket being read closes at ``line[end - 1]``: cut its piece; returns where its text stops."""
        stop = len(line) if _blank(line[end:]) else end
        line_end = "" if stop == len(line) else line[len(line.rstrip("\r\n")):]
        self._add(TreeText("".join(self._open) + line[start:stop], self._first_before(), line_end))
        return stop

    def _end(self) -> None:
        """The end of the input: the last piece's ``after``, or a bracket never closed as a piece of its own."""
        if self._depth:
            self._end_unclosed()
        elif self._last is not None:
            self._last.after = "" if self._junk else "".join(self._gap)

    def _end_unclosed(self) -> None:
        """The bracket being read ends unclosed (the next tree starts, or the input ends): a piece of its own."""
        self._add(TreeText("".join(self._open), self._first_before(), ""))
        self._depth = 0

    def _first_before(self) -> str:
        return self._before if self._last is None else ""

    def _add(self, piece: TreeText) -> None:
        self._done.append(piece)
        self._last = piece
        self._open = []

    def refusals(self, on_error: Callable[[TreebankError], object] | None) -> Callable[[TreebankError], None] | None:
        """``on_error`` giving a refused tree its own text (:meth:`TreeText.alone`) as ``raw``, not its lines."""
        if on_error is None:
            return None

        def refuse(error: TreebankError) -> None:
            if error.refuses_item:  # a refused bracket: the next piece
                error.raw = self._done.popleft().alone()
            on_error(error)

        return refuse

    def sourced(self, found: Iterable[tuple[int, int, Any]], filename: str) -> Iterator[tuple[int, int, SourcedTree]]:
        """Each ``(line, position, tree)`` with the tree's text, handed on once the next tree is read (or the
        input ends), when its ``after`` is known; before an error that stops the reading, as it is."""
        held: tuple[int, int, SourcedTree] | None = None
        try:
            for line, position, tree in found:
                if held is not None:
                    yield held
                held = (line, position, SourcedTree(tree, self._done.popleft(), filename, position))
        except TreebankError:
            if held is not None:
                yield held
            raise
        if held is not None:
            yield held


class SourceJoiner:
    """The text to write for each kept tree, in input order: the input without the trees left out, except that a
    tree sharing its line with the next one is followed by the line's end when that next tree is not written."""

    def __init__(self) -> None:
        self._unended: SourcedTree | None = None  # the last tree written, when its text did not end a line
        self._started = False  # a tree was written: a later byte order mark (a ``before``) is not copied

    def text(self, item: SourcedTree) -> str:
        """What to write for ``item``: the end of the last tree's line if it needs one, then ``item``'s text."""
        last, piece = self._unended, item.source
        if last is None:
            data = ""
        elif last.source.joined and (item.filename, item.position) == (last.filename, last.position + 1):
            data = last.source.after  # the spaces between the two trees on their line
        else:
            data = last.source.line_end or "\n"
        data += (piece.before.removeprefix(_BOM) if self._started else piece.before) + piece.text
        self._started = True
        if not piece.joined:
            data += piece.after
        self._unended = item if piece.joined or not data.endswith(("\n", "\r")) else None
        return data

    def end(self) -> str:
        """What ends the output: the line end of the last tree written when its text stopped inside its line."""
        return self._unended.source.line_end if self._unended is not None else ""
