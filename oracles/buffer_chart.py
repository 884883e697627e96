"""Nederhof (2019) §4, the cubic algorithm, organised so that a walk pays the cubic part once per sentence.

§4 runs Table 2 (weighted split-head tabular parsing, Eisner & Satta 1999)
for the grammar of Table 4 over the stack ``a_0..a_{t-1}`` (``p`` nodes), the
top ``x`` and the buffer (``s`` nodes) of the configuration after each
transition. The recursions are the same here; what changes is which items
are computed when:

* Items within the buffer involve ``s`` nodes only and depend on nothing
  but the buffer's words, and the buffer of every configuration is a suffix
  of one sequence (the sentence, or §5's critical words of one buffer). A
  :class:`BufferChart` holds them for every span of that sequence, computed
  once (O(n^3), vectorised along span lengths).
* Items with the top ``x`` and the buffer: x's rows, O(m^2), when x is not
  the word just before the buffer (after SH it is, and the chart has them).
* Items that start at a stack word ``a_i`` and end in ``x``+buffer, per
  stack word from the top down, as vectors over their end in ``x``+buffer.
  Items between two stack words alone are trivial in Table 4's grammar (a
  stack word below the top takes only leaves as left children and no right
  child among the stack words), so they are closed forms. A stack word's
  right children after its innermost one form a sequence of complete buffer
  subtrees (a *forest*); the chart holds the best forest over every span,
  and forests that use gold children of the head are put together from
  three more chart tables (:meth:`BufferChart.forest_under`).

The item names follow tests/reference_nederhof.py (Table 2 as the paper
states it): ``right[h][j]`` is h with its right children over h..j,
``left[h][i]`` h with its left children over i..h; both mean "with some
child" (state 1) except on the diagonal. Values are numbers of gold arcs;
-inf is an impossible item. Every function takes a ``budget`` whose
``check()`` runs once per block of vectorised work.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from treetool.budget import UNLIMITED, refuse_large_table

__all__ = ["BufferChart"]

NEG = -np.inf
#: Memory of one cell (one span of the buffer sequence), rounded up from a measurement (tracemalloc, a walk's
#: first 60 steps on 400 words: 83 bytes a cell, and the 8 MB block of a max-plus product): five float64
#: tables kept (right, left and the three forest tables) and x's tables of the few pairs in the cache.
BYTES_PER_CELL = 120
#: Elements of the temporary array of one block of a max-plus product (8 MB).
_BLOCK = 1 << 20
#: (top, buffer start, ban) entries of x's tables kept per chart; a walk asks for two or three at a time.
_TOPS_KEPT = 6


def _band(a: np.ndarray, offset: int, shape: tuple[int, int], strides: tuple[int, int]) -> np.ndarray:
    """A read-only view of the C-ordered ``a``: element [u][k] is ``a.flat[offset + u*strides[0] + k*strides[1]]``.

    How one span length's items gather their parts from a square table
    without copying (the parts lie along diagonals and anti-diagonals).
    """
    size = a.itemsize
    return np.lib.stride_tricks.as_strided(a.reshape(-1)[offset:], shape=shape,
                                           strides=(strides[0] * size, strides[1] * size), writeable=False)


def _maxplus(a: np.ndarray, b: np.ndarray, budget: Any) -> np.ndarray:
    """The max-plus product ``out[i][j] = max_k a[i][k] + b[k][j]``, in blocks of rows of bounded size."""
    out = np.full((a.shape[0], b.shape[1]), NEG)
    if a.shape[1] == 0:
        return out
    step = max(1, _BLOCK // max(1, a.shape[1] * b.shape[1]))
    for start in range(0, a.shape[0], step):
        budget.check()
        out[start : start + step] = (a[start : start + step, :, None] + b[None]).max(axis=1)
    return out


def _eisner(words: Sequence[int], gold: Sequence[int], budget: Any) -> tuple[np.ndarray, np.ndarray]:
    """``right[u][v]`` and ``left[v][u]`` (u <= v) of Table 2 over ``words``, all ``s`` nodes (every state 1).

    One pass per span length; the items of one length are computed together
    from :func:`_band` views of the shorter ones: ``joined`` (h's right part
    and d's left part meeting), the arcs, then ``right`` through h's
    outermost right child and ``left`` through h's outermost left child.
    """
    size = len(words)
    positions = np.asarray(words, dtype=np.intp)
    gold_arc = (np.asarray(gold)[positions][None, :] == positions[:, None]).astype(float)  # [u][v]: u -> v is gold
    right, left, arc_right, arc_left = (np.full((size, size), NEG) for _ in range(4))
    diagonal = np.arange(size)
    right[diagonal, diagonal] = left[diagonal, diagonal] = 0
    row = size + 1  # flat stride from [u][v] to [u+1][v+1]
    for length in range(1, size):
        budget.check()
        count = size - length
        u = diagonal[:count]
        v = u + length
        shape = (count, length)
        joined = (_band(right, 0, shape, (row, 1)) + _band(left, length * size + 1, shape, (row, 1))).max(axis=1)
        arc_right[u, v] = joined + gold_arc[u, v]
        arc_left[u, v] = joined + gold_arc[v, u]
        right[u, v] = (_band(arc_right, 1, shape, (row, 1)) + _band(right, size + length, shape, (row, size))).max(axis=1)
        left[v, u] = (_band(left, 0, shape, (row, size)) + _band(arc_left, length, shape, (row, size))).max(axis=1)
    return right, left


def _forests(complete: np.ndarray, budget: Any) -> np.ndarray:
    """``forest[a][c]``: the best sequence of complete trees covering words a..c-1 (fences a <= c; 0 when empty)."""
    size = complete.shape[0]
    forest = np.full((size + 1, size + 1), NEG)
    fences = np.arange(size + 1)
    forest[fences, fences] = 0
    for end in range(1, size + 1):
        if end % 64 == 0:
            budget.check()
        forest[:end, end] = (forest[:end, :end] + complete[:end, end - 1]).max(axis=1)
    return forest


class BufferChart:
    """The items of Table 2 over every span of a sequence of buffer words, and the forest tables built on them.

    ``words``: the sequence (the sentence 1..n, or §5's critical words of
    one buffer); every buffer the chart serves is a suffix ``words[b:]``.
    Positions index ``words``; fences 0..len(words) lie between them.

    * ``right``, ``left``: Table 2's complete items (:func:`_eisner`);
    * ``forest[a][c]``: complete trees side by side over a..c-1, their roots
      all attached to one head outside with non-gold arcs;
    * ``forest_left[a][g]``: a forest over a..u-1, then g's left item from u
      (the part of a forest up to the root g); ``forest_right[g][c]``: g's
      right item up to v, then a forest over v+1..c-1.

    Together they give, in :meth:`forest_under`, the best forest whose roots
    are attached to a given head, counting the gold arcs to its roots.
    """

    def __init__(self, words: Sequence[int], gold: Sequence[int], budget: Any = UNLIMITED) -> None:
        size = len(words)
        refuse_large_table((size + 1) ** 2, BYTES_PER_CELL, f"the cubic algorithm's tables for {size} buffer words")
        self.words = list(words)
        self.gold = gold
        self.gold_array = np.asarray(gold, dtype=np.intp)
        self.index = {w: p for p, w in enumerate(self.words)}
        self.children: dict[int, list[int]] = {}  # head word -> positions of its gold children in words, ascending
        for p, w in enumerate(self.words):
            self.children.setdefault(gold[w], []).append(p)
        self.right, self.left = _eisner(self.words, gold, budget)
        complete = _maxplus(self.left.T, self.right, budget)  # [u][v]: one tree over exactly u..v
        self.forest = _forests(complete, budget)
        self.forest_left = _maxplus(self.forest[:, :size], self.left.T, budget)
        self.forest_right = _maxplus(self.right, self.forest[1:, :], budget)
        self._between: dict[tuple[int, int], float] = {}
        self._tops: dict[tuple[int, int, bool], _Top] = {}

    def between(self, g: int, h: int) -> float:
        """g's right item up to v, a forest over v+1..u-1, h's left item from u (g < h; memoised)."""
        value = self._between.get((g, h))
        if value is None:
            value = self._between[g, h] = float((self.right[g] + self.forest_left[1:, h]).max())
        return value

    def forest_under(self, first: np.ndarray, start: int, roots: list[int]) -> np.ndarray:
        """``first`` extended by a forest whose roots attach to the head, gold arcs to ``roots`` counted.

        ``first[m]``: the head's right part up to the fence start+m, with any
        forest after it (non-gold arcs) already included: ``first ⊗ forest =
        first``, which holds for a right item (the forest's roots can be the
        head's own right children instead, at weight >= 0). ``roots``: positions
        (>= start, ascending) of the head's gold children. A forest that makes
        some of them roots (each +1) is a chain g_1 < ... < g_q with plain
        forests between: ``forest_left`` up to g_1, ``between`` consecutive
        ones, ``forest_right`` after g_q; the best chain ending at each g is
        found left to right.
        """
        out = first
        chains: list[tuple[int, float]] = []
        for g in roots:
            value = float((first + self.forest_left[start:, g]).max())
            for h, before in chains:
                value = max(value, before + self.between(h, g))
            chains.append((g, value + 1))
            out = np.maximum(out, value + 1 + self.forest_right[g, start:])
        return out

    def score(self, stack: Sequence[int], start: int, no_left: frozenset[int] = frozenset(),
              no_right: frozenset[int] = frozenset(), budget: Any = UNLIMITED) -> int:
        """Most gold arcs from the stack ``stack`` and the buffer ``words[start:]`` (Nederhof 2019, §4).

        ``stack[-1]`` is the top x (an ``s`` node), the words below it ``p``
        nodes. ``no_left``/``no_right``: stack words that may take no (more)
        left/right children (the strategies, §4). The stack words' items are
        computed from the top down (:func:`_stack_items`); -1 when no
        computation exists.
        """
        x = stack[-1]
        top = self.top(x, start, x in no_right, budget)
        end = len(top.words) - 1
        if len(stack) == 1:
            value = top.right[0, end]
        else:
            value = _stack_items(self, top, stack[:-1], start, x in no_left, no_left, no_right, budget)[end]
        return int(value) if value > NEG else -1

    def top(self, x: int, start: int, ban_right: bool, budget: Any) -> "_Top":
        """The tables of the top ``x`` followed by the buffer ``words[start:]`` (cached for a few pairs)."""
        key = (x, start, ban_right)
        found = self._tops.get(key)
        if found is None:
            if len(self._tops) >= _TOPS_KEPT:
                del self._tops[next(iter(self._tops))]  # the oldest
            found = self._tops[key] = _Top.build(self, x, start, ban_right, budget)
        return found


class _Top(NamedTuple):
    """Table 2's items over ``x`` followed by the buffer ``words[start:]``, indexed 0 (x), 1..m (buffer).

    ``right[e][v]`` and ``left[e][u]`` as in the chart; ``closed[e][v]``:
    e's right item up to some v', then a forest up to v (roots attached to
    the stack word above e): ``right`` itself except in x's row when x may
    take no right child (:meth:`BufferChart.forest_under`); ``words`` and
    ``heads`` (gold heads) of the m+1 words, for the weights of arcs to and
    from stack words.
    """

    right: np.ndarray
    closed: np.ndarray
    left: np.ndarray
    words: np.ndarray
    heads: np.ndarray

    @classmethod
    def build(cls, chart: BufferChart, x: int, start: int, ban_right: bool, budget: Any) -> "_Top":
        words = np.asarray([x, *chart.words[start:]], dtype=np.intp)
        heads = chart.gold_array[words]
        if start and chart.words[start - 1] == x and not ban_right:  # x just shifted: the chart has its rows
            right = chart.right[start - 1 :, start - 1 :]
            return cls(right, right, chart.left[start - 1 :, start - 1 :], words, heads)
        budget.check()
        size = len(words)
        right = np.full((size, size), NEG)
        left = np.full((size, size), NEG)
        right[1:, 1:] = chart.right[start:, start:]
        left[1:, 1:] = chart.left[start:, start:]
        left[0, 0] = 0
        roots = [p for p in chart.children.get(x, ()) if p >= start]
        closed = right
        if ban_right:
            right[0, 0] = 0
            closed = right.copy()
            closed[0] = chart.forest[start, start:]
        else:
            right[0] = chart.forest_under(chart.forest[start, start:], start, roots)
        if size > 1:  # left[e][0]: e's outermost left children down to x, x's right item first
            inner = left[1:, 1:].T  # inner[u-1][e-1] = left[e][u]
            into_x = NEG if x == 0 else (words[1:] == chart.gold[x]).astype(float)
            reach = (right[0, :-1][:, None] + inner).max(axis=0) + into_x  # x <- f with x's right item up to f-1
            left[1:, 0] = (reach[:, None] + inner).max(axis=0)
        return cls(right, closed, left, words, heads)


def _stack_items(chart: BufferChart, top: _Top, below: Sequence[int], start: int, x_no_left: bool,
                 no_left: frozenset[int], no_right: frozenset[int], budget: Any) -> np.ndarray:
    """``right[a_0][e]`` for every end e in x+buffer: the items of the stack words ``below`` the top, top down.

    For a_i, as vectors over e (Table 2's recursions for grammar Table 4,
    with the stack-only items in closed form: a_d's left leaves
    a_{i+1}..a_{d-1} score ``leaves[d]``):

    * ``first``: a_i's innermost right child with its subtree: a stack word
      a_d (its leaves, then its own ``right``), or an x/buffer word e whose
      left item reaches a_{i+1} (``reach``, the previous ``left`` vector);
    * ``right``: then a forest of buffer subtrees (:meth:`BufferChart.forest_under`);
    * ``left[e]``: e's outermost left child chain down to a_i, which is a_i
      itself (a leaf, or with right children up to before e's left part),
      or a stack word a_d with leaves a_i..a_{d-1} and right children.
    """
    count = len(below)
    gold = chart.gold
    size = len(top.words)
    stack_words = np.asarray(below, dtype=np.intp)
    stack_heads = chart.gold_array[stack_words]
    no_more_left = np.asarray([w in no_left for w in below])
    right_of = np.full((count, size), NEG)  # right[a_d][e]
    arc_to = np.full((count, size), NEG)  # w(e -> a_d) + a_d's right item up to just before e's left part
    leaves = np.zeros(count)  # leaves[d] for d > i: a_d's left children a_{i+1}..a_{d-1}
    reach = top.left[:, 0].copy()  # left[e][a_{i+1}] (left[e][x] below the stack's top word)
    left_of = top.left.T  # left_of[f][e] = left[e][f]
    inner = top.left[1:, 1:].T  # inner[u-1][e-1] = left[e][u]
    for i in range(count - 1, -1, -1):
        budget.check()
        a = below[i]
        to_right = NEG if a in no_right else (top.heads == a).astype(float)
        to_left = NEG if a == 0 else (top.words == gold[a]).astype(float)
        if x_no_left and a != 0:
            to_left[0] = NEG
        first = ((to_right + reach)[:, None] + top.closed).max(axis=0)
        above = slice(i + 1, count)
        if i + 1 < count:
            via_right = leaves[above] + (NEG if a in no_right else (stack_heads[above] == a))
            first = np.maximum(first, (via_right[:, None] + right_of[above]).max(axis=0))
            via_left = NEG if a == 0 else leaves[above] + (stack_words[above] == gold[a])
            via_left = np.where(no_more_left[above], NEG, via_left)
        roots = [p for p in chart.children.get(a, ()) if p >= start]
        right_of[i] = chart.forest_under(first, start, roots)
        closed = np.full(size, NEG)  # a_i's right item up to u-1, e's left item from u
        if size > 1:
            closed[1:] = (right_of[i, :-1][:, None] + inner).max(axis=0)
        arc_to[i] = to_left + closed
        outer = to_left + np.maximum(reach, closed)
        if i + 1 < count:
            outer = np.maximum(outer, (via_left[:, None] + arc_to[above]).max(axis=0))
            leaves[above] = via_left
        leaves[i] = 0
        reach = (outer[:, None] + left_of).max(axis=0)
    return right_of[0]
