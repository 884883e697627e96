"""Dependency trees drawn as text for the terminal: the library behind ``treetool view``.

The words are written one per row, top to bottom in sentence order; every
arc h -> d (h not the root) is a vertical line in its own *lane*, a column
left of the words, spanning the rows of h and d, with a horizontal line from
each end to its word.  Arcs in one lane have disjoint row spans, shorter arcs
take lanes nearer the words, so a projective tree is drawn without a crossing
of two vertical lines.  The dependent's end carries an arrowhead (``►``) next
to the lane, so a word that is both a head and a dependent shows which line
comes in; the word's DEPREL is written on its row, next to the word.
Non-projective arcs (:func:`treetool.trees.non_projective_arcs`) are drawn
dashed (``┆``) and in red where colour is shown.  Styles are rich styles;
:func:`rich.text.Text.plain` is the plain text written to a pipe or file.

With a second analysis of the same words, :func:`draw_comparison` draws it
mirrored on the right of the words and marks the words whose HEAD or DEPREL
differ (``≠``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from .trees import non_projective_arcs

UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
#: Box-drawing glyph for each set of directions a cell connects.
GLYPHS = {
    UP | DOWN: "│", LEFT | RIGHT: "─", DOWN | RIGHT: "╭", UP | RIGHT: "╰", DOWN | LEFT: "╮", UP | LEFT: "╯",
    UP | DOWN | RIGHT: "├", UP | DOWN | LEFT: "┤", DOWN | LEFT | RIGHT: "┬", UP | LEFT | RIGHT: "┴",
    UP | DOWN | LEFT | RIGHT: "┼",
}
DASHED = "┆"  # the vertical line of a non-projective arc
ARROW, MIRRORED_ARROW = "►", "◄"
DIFFERS = "≠"
_MIRROR = str.maketrans("╭╮╰╯├┤►◄", "╮╭╯╰┤├◄►")

NON_PROJECTIVE_STYLE = "red"
DIFFERENT_STYLE = "bold yellow"


@dataclass(frozen=True)
class Arc:
    """An arc h -> d as drawn: its lane (0 is nearest the words) and whether it is non-projective."""

    head: int
    dep: int
    lane: int
    non_projective: bool

    @property
    def top(self) -> int:
        return min(self.head, self.dep)

    @property
    def bottom(self) -> int:
        return max(self.head, self.dep)


#: The widest drawing drawn by default, in lanes (two columns each): wider trees are unreadable on a screen,
#: and a drawing's size grows with its words times its lanes.
MAX_LANES = 80


class TooWide(Exception):
    """A tree whose drawing would need more than ``max_lanes`` lanes."""

    def __init__(self, max_lanes: int) -> None:
        super().__init__(f"its arcs need more than {max_lanes} lane{'s' if max_lanes != 1 else ''}")
        self.max_lanes = max_lanes


def layout(heads: Sequence[int], max_lanes: int | None = None) -> list[Arc]:
    """The arcs of a tree (``heads[0] == -1``; arcs from the root 0 are not drawn) with their lanes.

    Arcs are placed shortest first, each in the lowest lane where it shares
    no row with an arc already there (interval-graph colouring, first fit).
    A lane keeps its spans sorted, so a place is found by bisection: the
    work is O(n log n) per lane, not quadratic.  :class:`TooWide` when an
    arc would need lane ``max_lanes`` + 1.
    """
    non_projective = non_projective_arcs(heads)
    arcs = sorted((abs(h - d), min(h, d), d) for d, h in enumerate(heads) if d and h > 0)
    lanes: list[tuple[list[int], list[int]]] = []  # per lane: the tops and the bottoms of its spans, sorted
    placed = []
    for _, _, d in arcs:
        top, bottom = sorted((int(heads[d]), d))
        lane = next((k for k, (tops, bottoms) in enumerate(lanes) if _free(tops, bottoms, top, bottom)), len(lanes))
        if lane == len(lanes):
            if max_lanes is not None and lane == max_lanes:
                raise TooWide(max_lanes)
            lanes.append(([], []))
        tops, bottoms = lanes[lane]
        at = bisect_left(tops, top)
        tops.insert(at, top)
        bottoms.insert(at, bottom)
        placed.append(Arc(int(heads[d]), d, lane, bool(non_projective[d])))
    return sorted(placed, key=lambda arc: arc.dep)


def _free(tops: list[int], bottoms: list[int], top: int, bottom: int) -> bool:
    """Whether rows ``top..bottom`` meet no span of a lane (spans disjoint, sorted by top)."""
    at = bisect_left(tops, top)
    return (at == len(tops) or tops[at] > bottom) and (at == 0 or bottoms[at - 1] < top)


class _Grid:
    """The lane area: for every row and lane cell, the directions it connects, its glyph and its style."""

    def __init__(self, n: int, arcs: Sequence[Arc]) -> None:
        self.lanes = 1 + max((arc.lane for arc in arcs), default=-1)
        self.links = [[0] * (2 * self.lanes) for _ in range(n + 1)]  # [row][column], row 0 unused
        self.chars: list[list[str | None]] = [[None] * (2 * self.lanes) for _ in range(n + 1)]
        self.styles: list[list[str | None]] = [[None] * (2 * self.lanes) for _ in range(n + 1)]
        for arc in arcs:
            self._draw(arc)

    def column(self, lane: int) -> int:
        return 2 * (self.lanes - 1 - lane)

    def _draw(self, arc: Arc) -> None:
        col = self.column(arc.lane)
        style = NON_PROJECTIVE_STYLE if arc.non_projective else None
        self._link(arc.top, col, DOWN | RIGHT, style)
        self._link(arc.bottom, col, UP | RIGHT, style)
        for row in range(arc.top + 1, arc.bottom):
            self._link(row, col, UP | DOWN, style)
            if arc.non_projective:
                self.chars[row][col] = DASHED
        for row in (arc.top, arc.bottom):
            for c in range(col + 1, 2 * self.lanes):
                self._link(row, c, LEFT | RIGHT, style if c == col + 1 else None)
        self.chars[arc.dep][col + 1] = ARROW

    def _link(self, row: int, col: int, directions: int, style: str | None) -> None:
        self.links[row][col] |= directions
        if style is not None:
            self.styles[row][col] = style

    def has_line(self, r: int) -> bool:
        """True when a horizontal line reaches the word of row r."""
        return self.lanes > 0 and self.links[r][-1] != 0

    def row(self, r: int) -> Text:
        text = Text()
        for c, links in enumerate(self.links[r]):
            char = self.chars[r][c]
            if char is None or (char == DASHED and links != UP | DOWN):
                char = GLYPHS.get(links, " ")
            text.append(char, self.styles[r][c])
        return text


def _label_field(label: str, width: int, line: bool, mirrored: bool) -> str:
    """The DEPREL next to the word: on the row's horizontal line when it has one."""
    fill = "─" if line else " "
    padding = fill * (width - 1 - cell_len(label))
    if mirrored:
        return f"{fill}{label}{padding}"
    return f"{padding}{label}{fill}"


def draw_tree(heads: Sequence[int], deprels: Sequence[str], forms: Sequence[str],
              max_lanes: int | None = MAX_LANES) -> list[Text]:
    """One line per word: the lanes, the DEPREL, the word's id and form (all sequences start at the root, 0);
    :class:`TooWide` beyond ``max_lanes`` lanes."""
    n = len(heads) - 1
    arcs = layout(heads, max_lanes)
    grid = _Grid(n, arcs)
    label_width = 2 + max((cell_len(label) for label in deprels[1:]), default=0)
    id_width = len(str(n))
    lines = []
    for r in range(1, n + 1):
        line = grid.row(r)
        line.append(_label_field(deprels[r], label_width, grid.has_line(r), False))
        line.append(f" {r:>{id_width}} {forms[r]}")
        lines.append(line)
    return lines


def draw_comparison(
    heads: Sequence[int], deprels: Sequence[str], forms: Sequence[str],
    other_heads: Sequence[int], other_deprels: Sequence[str], max_lanes: int | None = MAX_LANES,
) -> list[Text]:
    """The first tree on the left of the words, the second mirrored on the right, ``≠`` on words that differ;
    :class:`TooWide` when either needs more than ``max_lanes`` lanes."""
    n = len(heads) - 1
    left, right = _Grid(n, layout(heads, max_lanes)), _Grid(n, layout(other_heads, max_lanes))
    label_width = 2 + max((cell_len(label) for label in [*deprels[1:], *other_deprels[1:]]), default=0)
    id_width = len(str(n))
    form_width = max((cell_len(form) for form in forms[1:]), default=0)  # terminal columns: 中 takes two
    lines = []
    for r in range(1, n + 1):
        differs = heads[r] != other_heads[r] or deprels[r] != other_deprels[r]
        line = left.row(r)
        line.append(_label_field(deprels[r], label_width, left.has_line(r), False))
        line.append(f" {r:>{id_width}} ")
        line.append(forms[r] + " " * (form_width - cell_len(forms[r])), DIFFERENT_STYLE if differs else None)
        line.append(f" {DIFFERS if differs else ' '} ", DIFFERENT_STYLE if differs else None)
        line.append(_label_field(other_deprels[r], label_width, right.has_line(r), True))
        line.append_text(_mirror(right.row(r)))
        lines.append(line)
    return lines


def _mirror(text: Text) -> Text:
    """The lane area reflected left to right (its glyphs too), styles kept."""
    out = Text()
    for span_text, style in reversed([(text.plain[i], _style_at(text, i)) for i in range(len(text.plain))]):
        out.append(span_text.translate(_MIRROR), style)
    return out


def _style_at(text: Text, index: int) -> str | None:
    for span in text.spans:
        if span.start <= index < span.end:
            return str(span.style)
    return None


def non_projective_legend(heads: Sequence[int]) -> str | None:
    """``non-projective arcs (dashed): 2→7, ...`` (head→dependent), or None for a projective tree."""
    flags = non_projective_arcs(heads)
    arcs = [f"{heads[d]}→{d}" for d in range(1, len(heads)) if flags[d]]
    return f"non-projective arcs (dashed): {', '.join(arcs)}" if arcs else None
