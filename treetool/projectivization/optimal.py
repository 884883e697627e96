"""Optimal projectivization of dependency trees (Nederhof 2019, §3 and §8.1).

Given a (possibly non-projective) gold tree, find a *projective* tree with the
maximum number of arcs in common with it. Nederhof (2019), "Calculating the
Optimal Step in Shift-Reduce Dependency Parsing: From Cubic to Linear Time",
TACL 7, §3, does this with the cubic tabular algorithm of his Table 2 for the
grammar of Table 3 (all projective trees, each with exactly one parse), with
the edge score ``w(i, j) = 1`` if ``(i, j)`` is a gold arc and 0 otherwise, in
the (max, +) semiring; backtracing gives an optimal tree, and a different
semiring counts the optimal trees (§8.1, Figure 8). Table 2 is a split-head
formulation; in the familiar terms of Eisner (1996), "Three New Probabilistic
Models for Dependency Parsing: An Exploration", COLING, it is the first-order
algorithm over *complete* and *incomplete* spans, which is what this module
implements.

Tree convention (project-wide)
------------------------------
A tree over ``n`` words is an integer array ``heads`` of length ``n + 1`` with
``heads[0] == -1`` and ``heads[i]`` in ``0..n`` the head of word ``i``.
Several words may be attached to 0. Projective means: no two arcs cross when
the artificial root 0 is placed left of word 1 (root arcs included);
equivalently every node's yield is a contiguous interval.

Public API
----------
* :func:`optimal_projectivize` -- an optimal projective tree (tie rule below).
* :func:`optimal_projectivize_many` -- the same for many trees, batching
  the DP over trees of equal length (identical results, about twice as fast).
* :func:`optimal_projective_score` -- the optimum number of arcs in common.
* :func:`count_optimal_projective_trees` -- how many projective trees attain
  the optimum (the (max, count) semiring over the same DP; Python ints).
* :func:`optimal_projectivize_counted` -- the tree and the count from one DP.

The single-tree functions take a :class:`~treetool.budget.Budget` and raise
:class:`~treetool.budget.SentenceTimeout` from inside the DP when it runs out.

The root constraint ``single_root``: ``None`` keeps what the input had (single
root iff the input has exactly one dependent of 0), ``True`` forces exactly
one dependent of 0, ``False`` allows any number.

The DP (Eisner 1996, split-head items)
--------------------------------------
Nodes ``0..n``; for ``s <= t``:

* ``CR[s, t]`` complete, head ``s``, covers ``s..t`` (``t`` and its left
  subtree done); ``CL[s, t]`` complete, head ``t``, covers ``s..t``;
* ``IR[s, t]`` incomplete with arc ``s -> t``; ``IL[s, t]`` with ``t -> s``.

::

    IR[s, t] = max_{s <= r < t} CR[s, r] + CL[r+1, t] + w(s, t)
    IL[s, t] = max_{s <= r < t} CR[s, r] + CL[r+1, t] + w(t, s)
    CR[s, t] = max_{s <  r <= t} IR[s, r] + CR[r, t]
    CL[s, t] = max_{s <= r <  t} CL[s, r] + IL[r, t]

with ``CR[s, s] = CL[s, s] = 0``; ``w(t, 0) = -inf`` (0 has no head).
Any number of root dependents: the answer is ``CR[0, n]``. Exactly one root
dependent ``r``: ``max_r w(0, r) + CL[1, r] + CR[r, n]``.

The algorithm is unambiguous: every projective tree has exactly one
derivation (in ``CR`` the split ``r`` is the outermost right dependent of
``s``; in ``IR``/``IL`` it is the last position of the head's half, determined
because the yields of a projective tree are intervals). Hence replacing (max,
+) by the semiring of (max, count) pairs counts optimal *trees*, not
derivations; ``tests/test_projectivize.py`` checks the counts against brute
force enumeration.

Tie rule (``ties="lift"``, the default)
---------------------------------------
Among all optimal trees (maximum number of arcs in common), choose one that

1. maximises the number of *lifts*: re-attached words whose new head is a
   proper ancestor, in the input tree, of their original head;
2. then minimises the total number of levels lifted, summing
   ``depth(original head) - depth(new head)`` over the lifted words
   (depths in the input tree, ``depth(0) == 0``);
3. then is the first in the fixed DP argmax order: every item takes its
   *smallest* maximising split point ``r`` and the single-root combination
   the *leftmost* maximising root ``r``. (Deterministic; both
   implementations here follow it, so they agree exactly.)

Keys
----
This is done in one DP pass with integer keys. Every arc ``h -> d`` adds::

    w(h, d) = 0                      if h == heads[d]               (kept)
            = lift - levels - gold   if h is a proper ancestor of heads[d],
                                     levels = depth(heads[d]) - depth(h)
            = -gold                  otherwise

and an arc into 0 adds ``floor`` (below). Every item of width ``k``
decides the heads of exactly ``k`` words, so all derivations compared in
one cell cover the same words, and a derivation that loses ``loss`` of
their input arcs, makes ``L`` lifts and lifts ``V`` levels in all has the key
``-gold * loss + lift * L - V`` (``M = k - loss``). For derivations losing
at most ``D`` arcs, ``L <= D`` (a lift is a lost arc) and ``V <= D * H``
(``H``: the depth of the deepest node), so with ``lift = D * H + 1`` and
``gold = (D + 1) * lift + 1`` one more lift outweighs any levels and one
more kept arc outweighs any lifts: keys compare as ``(M, L, -V)``
lexicographically, which is rules 1-2 without losing optimality; equal keys
are equal triples, so rule 3 (first argmax) is as stated.

*Floor.* A derivation losing more than ``D`` arcs has a key at most
``-(gold - lift) * (D + 1) < -gold * D`` (as ``L <= loss``), one losing at
most ``D`` at least ``-gold * D``. Complete items are floored at ``floor =
-gold * D - 1``. All weights are ``<= 0``, so a sum with a floored part stays
``<= floor``; by induction every complete item holds ``max(floor, its true
best)`` and every incomplete item its true best if that loses at most ``D``
arcs, else a value ``<= floor`` -- exact, argmax included, for every item
whose best derivation loses at most ``D`` arcs. If ``D`` is at least the
optimal loss, all items of the optimal derivation are such items, and the
result is exactly that of the unfloored DP. Sums stay in ``[4 * floor, 0]``,
about ``4 * D**3 * H``, and are stored in the narrowest of int16/int32/int64
that holds them. For trees longer than a tile (``_TILE``, 128 words),
where the narrower type pays, :func:`optimal_projectivize` first takes
``D`` = the number of non-projective arcs (plus root dependents to remove),
which usually bounds the loss and fits int16 or int32 for real sentences and
for a 2,000-word chain with one crossing arc; the best key tells whether it
held (``>= -gold * D``), and if not the DP runs again with ``D = n``, which
always holds (int64 for long trees). ``ties="first"`` uses ``gold = 1`` (no
lifts): the key is minus the loss. ``optimal_projectivize_many`` uses ``D = n``.

Speed
-----
An already projective input (satisfying the root constraint) is returned as a
copy without running the DP; the check is a pure-Python pass with bitmask
yields. Otherwise the DP is vectorised with numpy: for each width, the spans
of a cache-sized tile at once, a dozen numpy calls per step, every operand a
strided view of one buffer with unit stride along the split (layout notes
above :class:`_Chart`), and backpointers from ``argmax`` (first maximum)
kept as int16 arrays: memory is ``3 (n+1)^2`` keys, ``(n+1)^2`` packed
weights and ``1.5 (n+1)^2`` backpointers, about 45 MB at 2,000 words with
int16 keys and 140 MB with int64 ones. :func:`optimal_projectivize_many`
runs trees of equal length through one batched DP, sharing the per-call
overhead, which dominates for short trees: on the UD 2.2 train sets about
0.05 ms per tree against 0.15 ms for :func:`optimal_projectivize` in a loop
(the command batches short sentences for that reason). Counting walks only the items of
optimal derivations (see :func:`_count_fast`). ``benchmarks/projectivize_dp.py``
measures the DP on the UD 2.2 train sets, ``benchmarks/long_sentences.py`` on
trees of 250-2,000 words.

The tests check the DP and the counting against slow, plain Python versions
of the same recurrences.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import mul
from typing import Union

import numpy as np

from .. import trees as _trees  # (a parameter below is called ``trees``)
from ..budget import UNLIMITED, Budget, refuse_large_table

__all__ = [
    "count_optimal_projective_trees",
    "optimal_projective_score",
    "optimal_projectivize",
    "optimal_projectivize_counted",
    "optimal_projectivize_many",
]

HeadsLike = Union[np.ndarray, Sequence[int]]

#: Tie rules among optimal trees (see the module docstring).
TIE_RULES: tuple[str, ...] = ("lift", "first")

# --------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------


def _analyse(heads: HeadsLike) -> tuple[np.ndarray, list[int], list[int], bool]:
    """Validate ``heads``; return (array copy, list, breadth-first order,
    projective).

    Pure Python on a list: for sentence sizes this beats numpy. The tree
    check and projectivity (0 at the left edge: every yield is an interval)
    are :mod:`treetool.trees`'.
    """
    arr = np.array(heads, dtype=np.int64)  # a copy in every case
    if arr.ndim != 1 or arr.size == 0 or arr[0] != -1:
        raise ValueError("heads must be a 1-d sequence with heads[0] == -1")
    h = arr.tolist()
    n1 = len(h)
    if n1 > 1 and (min(h[1:]) < 0 or max(h) >= n1):
        raise ValueError(f"heads out of range 0..{n1 - 1}")
    order = _trees.breadth_first_order(h)  # the project's tree check: ValueError on a cycle
    return arr, h, order, _trees.is_projective(h)


def _root_mode(h: list[int], single_root: bool | None) -> bool:
    if single_root is None:
        return h.count(0) == 1
    return bool(single_root)


@dataclass
class _Tree:
    """One input tree, validated: what the DP needs to know about it."""

    arr: np.ndarray  # a copy of the input heads
    h: list[int]
    order: list[int]  # breadth-first, parents first
    single: bool  # exactly one root dependent wanted
    needs_dp: bool  # not projective, or not meeting the root constraint

    def max_levels(self) -> int:
        """Depth of the deepest node: no lift can skip more levels than that."""
        u, depth = self.order[-1], 0  # breadth-first: the last node is a deepest one
        while u > 0:
            u, depth = self.h[u], depth + 1
        return depth


def _prepare(heads: HeadsLike, single_root: bool | None) -> _Tree:
    arr, h, order, projective = _analyse(heads)
    single = _root_mode(h, single_root)
    if single and len(h) == 1:
        raise ValueError("single_root=True needs at least one word")
    needs_dp = not projective or (single and h.count(0) != 1)
    return _Tree(arr, h, order, single, needs_dp)


def _loss_guess(tree: _Tree) -> int:
    """A likely upper bound on the optimal number of arcs lost (checked after the DP).

    Each non-projective arc usually costs at most its own dependent; forcing
    one root dependent on ``r`` of them costs at most ``r - 1`` more.
    """
    guess = int(_trees.non_projective_arcs(tree.h).sum())
    roots = tree.h.count(0)
    if tree.single and roots > 1:
        guess += roots - 1
    return max(guess, 1)


# --------------------------------------------------------------------------
# scores: relative keys, floored, in the smallest integer type that holds them
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scale:
    """The key of a derivation and the integer type the DP stores it in.

    Every arc ``h -> d`` adds ``w(h, d) - gold`` (see "Keys" in the module
    docstring): 0 for the input's arc, ``lift - levels - gold`` for a lift,
    ``-gold`` otherwise; a derivation that loses more than ``max_loss`` input
    arcs is worth less than ``floor``, and stored values are floored there.
    """

    gold: int  # A
    lift: int  # B
    max_loss: int  # D
    dtype: type

    @property
    def floor(self) -> int:
        return -self.gold * self.max_loss - 1


def _scale(ties: str, max_loss: int, max_levels: int) -> _Scale:
    """Constants of the keys for at most ``max_loss`` arcs lost; see the module docstring."""
    if ties == "first":
        gold, lift = 1, 0
    else:
        lift = max_loss * max_levels + 1
        gold = (max_loss + 1) * lift + 1
    lowest = 4 * (gold * max_loss + 1)  # IR/IL (>= 3 floor, not floored) + CR/CL (>= floor)
    for dtype in (np.int16, np.int32, np.int64):
        if lowest <= np.iinfo(dtype).max:
            return _Scale(gold, lift, max_loss, dtype)
    raise ValueError("tree too long for the optimal projectivization DP")


def _width_offsets(n1: int) -> np.ndarray:
    """``offs[k]``: where the spans of width ``k`` (``s = 0 .. n1-k-1``) start
    in the arrays packed by width (``k = 1 .. n1-1``); ``offs[n1]`` is their size."""
    k = np.arange(n1 + 1)
    return np.maximum((k - 1) * n1 - (k - 1) * k // 2, 0)


def _edge_weights(heads: np.ndarray, ties: str, scale: _Scale, budget: Budget = UNLIMITED) -> np.ndarray:
    """Relative arc weights for a batch of trees ``heads`` (B, n1), packed by
    width: ``ws[b, 0, offs[k] + s] = w(s, s+k)``, ``ws[b, 1, offs[k] + s] =
    w(s+k, s)`` (see "Keys"); arcs into 0 weigh ``floor``.

    Lifts are found level by level: the ``l``-th ancestor of the head of
    every word that still has one, all trees at once (nodes numbered ``b *
    n1 + u``), a few numpy calls per level; the (ancestor, word) pairs are
    written out in chunks, as a chain of n words has n^2 / 2 of them
    (``budget`` is checked once per level: quadratic in all).
    """
    nb, n1 = heads.shape
    offs = _width_offsets(n1)
    size = int(offs[n1])
    ws = np.full((nb, 2, size), -scale.gold, dtype=scale.dtype)
    ws[:, 1, offs[1:n1]] = scale.floor
    flat = ws.reshape(-1)
    first = np.arange(nb)[:, None] * n1
    parent = (heads + first).ravel()
    is_word = (np.arange(nb * n1) % n1) > 0
    chunks: list[tuple[np.ndarray, np.ndarray, int]] = []

    def place() -> None:  # write the chunks' weights into ws
        anc, dep = np.concatenate([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks])
        value = np.repeat([c[2] for c in chunks], [len(c[0]) for c in chunks])
        tree, anc, dep = dep // n1, anc % n1, dep % n1
        flat[tree * (2 * size) + (anc > dep) * size + offs[np.abs(dep - anc)] + np.minimum(anc, dep)] = value
        chunks.clear()

    dep = (first + np.arange(1, n1)).ravel()
    anc, levels, pending = parent[dep], 0, 0
    while True:
        chunks.append((anc, dep, scale.lift - levels - scale.gold if levels else 0))
        pending += len(anc)
        up = is_word[anc]
        if ties != "lift" or not up.any():
            break
        budget.check()
        if pending > _CHUNK:
            place()
            pending = 0
        dep, anc, levels = dep[up], parent[anc[up]], levels + 1
    place()
    return ws


_CHUNK = 1 << 18  # (ancestor, word) pairs collected before they are written


# --------------------------------------------------------------------------
# the vectorised DP
# --------------------------------------------------------------------------
#
# The four tables of a tree live in three (n1, n1) planes of one buffer (n1 =
# n + 1, z = n1 * n1), each plane holding one table in its upper triangle and
# one in its lower triangle, transposed:
#
#   CR plane, at 0:           CR[s, t] at (s, t) and at (t, s)
#   I plane,  at z + 1:       IR[s, t] at (s, t), IL[s, t] at (t, s)
#   CL plane, at 2z + 2:      CL[s, t] at (s, t) and at (t, s)
#
# so that every operand of the recurrences is read along a row: for width k
# (t = s + k) and split j, CR[s, s+j] is at s(n1+1) + j and CL[s+j+1, t] (a
# column of CL) at 2z + 2 + k n1 + 1 + s(n1+1) + j -- affine in (s, j) with
# unit stride in j, i.e. a strided view made with ``np.ndarray(buffer=...)``.
# The plane offsets (z + 1, 2z + 2) make the two complete recurrences line
# up, so they run as one stacked (2, rows, k) operation:
#
#   incomplete  S[s, j]    = CR[s, s+j] + CL[s+j+1, t]       j < k
#               IR, IL     = max_j S + w(s, t), max_j S + w(t, s)
#   complete    S[0, s, j] = IR[s, s+j+1] + CR[s+j+1, t]  -> CR[s, t]
#               S[1, s, j] = CL[s, s+j]   + IL[s+j, t]    -> CL[s, t]
#
# Spans are visited in square tiles of (s, t) (t-blocks left to right, s-blocks
# right to left, widths ascending inside a tile): every span a tile needs is
# in an earlier tile or at a smaller width of the same one, and a tile's rows
# stay in cache while all its widths use them. Sums go to one scratch buffer;
# ``argmax`` (first maximum: smallest split) gives the backpointers, stored
# packed by width in int16 (int32 beyond 32,767 words), and the maxima are
# gathered at the argmax with ``take``. Several trees of one length can share
# the loop (leading batch axis, stride: one tree's buffer).

_TILE = 128  # span tile side; rows x width of the scratch sums stay cache-sized


class _Chart:
    """The DP tables of a batch of trees of one length, filled by :meth:`fill`.

    Every operand is a view made once here with a leading width axis where
    its offset depends on the width, so a step only slices views.
    """

    def __init__(self, ws: np.ndarray, n1: int, scale: _Scale) -> None:
        nb = ws.shape[0]
        self.ws, self.n1, self.nb, self.scale = ws, n1, nb, scale
        self.floor = scale.dtype(scale.floor)
        z, row = n1 * n1, n1 + 1
        self.inc_at, self.cl_at, self.per = z + 1, 2 * z + 2, 3 * z + 2
        inc_at, cl_at, per = self.inc_at, self.cl_at, self.per
        specs = {  # name: (offset, shape, strides); comments give the cell at index [k, b, q, s, j]
            "cr_row": (0, (nb, n1, n1), (per, row, 1)),  # CR[s, s+j]
            "cl_col": (cl_at + 1, (n1, nb, n1, n1), (n1, per, row, 1)),  # CL[s+j+1, s+k]
            "ir_out": (inc_at, (n1, nb, n1), (1, per, row)),  # IR[s, s+k]
            "il_out": (inc_at, (n1, nb, n1), (n1, per, row)),  # IL[s, s+k]
            "c_row": (inc_at + 1, (nb, 2, n1, n1), (per, cl_at - inc_at - 1, row, 1)),  # IR[s, s+j+1], CL[s, s+j]
            "c_col": (1, (n1, nb, 2, n1, n1), (n1, per, inc_at - 1, row, 1)),  # CR[s+j+1, s+k], IL[s+j, s+k]
            "c_out": (0, (n1, nb, 2, n1), (1, per, cl_at, row)),  # CR[s, s+k], CL[s, s+k]
            "c_out_t": (0, (n1, nb, 2, n1), (n1, per, cl_at, row)),  # the same, transposed
        }
        # The views' full shapes reach up to z cells past the last tree's
        # planes (never read there): pad the buffer; untouched zero pages
        # cost no memory.
        self.buf = np.zeros(nb * per + z, dtype=scale.dtype)
        views = {name: self._view(*spec) for name, spec in specs.items()}
        self.cr_row, self.cl_col, self.ir_out, self.il_out = (views[v] for v in ("cr_row", "cl_col", "ir_out", "il_out"))
        self.c_row, self.c_col, self.c_out, self.c_out_t = (views[v] for v in ("c_row", "c_col", "c_out", "c_out_t"))
        self.offs = _width_offsets(n1).tolist()
        index = np.int16 if n1 <= np.iinfo(np.int16).max else np.int32
        self.bi = np.zeros((nb, self.offs[n1]), dtype=index)  # incomplete: r = s + j
        self.bc = np.zeros((nb, 2, self.offs[n1]), dtype=index)  # CR: r = s + j + 1; CL: r = s + j
        rows = nb * 2 * min(_TILE, n1)
        self.scratch = np.empty(rows * n1, dtype=scale.dtype)
        self.ramp = np.arange(n1)[:, None] * np.arange(rows)  # ramp[k, i] = i k: row starts in the scratch

    def plane(self, at: int) -> np.ndarray:
        """One plane (B, n1, n1) of the buffer: 0 = CR, ``inc_at`` = IR/IL, ``cl_at`` = CL."""
        return self._view(at, (self.nb, self.n1, self.n1), (self.per, self.n1, 1))

    def _view(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
        size = self.buf.itemsize
        return np.ndarray(shape, self.buf.dtype, self.buf, size * offset, tuple(size * v for v in strides))

    def fill(self, budget: Budget) -> None:
        """Run the DP over all spans, checking ``budget`` once per tile."""
        n1 = self.n1
        for t0 in range(0, n1, _TILE):
            t1 = min(n1, t0 + _TILE)
            for s0 in range((t1 - 1) // _TILE * _TILE, -1, -_TILE):
                budget.check()
                s1 = min(s0 + _TILE, t1)
                for k in range(max(1, t0 - s1 + 1), t1 - s0):
                    lo, hi = max(s0, t0 - k), min(s1, t1 - k)
                    if lo < hi:
                        self._spans(k, lo, hi)

    def _spans(self, k: int, lo: int, hi: int) -> None:
        """Items of width ``k`` for ``s`` in ``lo .. hi-1`` (the recurrences above).

        Incomplete items are not floored: they are at least ``3 * floor``
        and only ever added to one floored complete item.
        """
        nb, rows, ramp, at = self.nb, hi - lo, self.ramp[k], self.offs[k]
        cells = nb * rows * k
        flat = self.scratch[:cells]
        sums = flat.reshape(nb, rows, k)
        np.add(self.cr_row[:, lo:hi, :k], self.cl_col[k, :, lo:hi, :k], out=sums)
        split = sums.argmax(2)
        best = flat.take(split.ravel() + ramp[: nb * rows]).reshape(nb, 1, rows)  # the maxima
        inc = best + self.ws[:, :, at + lo : at + hi]
        self.ir_out[k, :, lo:hi] = inc[:, 0]
        self.il_out[k, :, lo:hi] = inc[:, 1]
        flat = self.scratch[: 2 * cells]
        sums = flat.reshape(nb, 2, rows, k)
        np.add(self.c_row[:, :, lo:hi, :k], self.c_col[k, :, :, lo:hi, :k], out=sums)
        splits = sums.argmax(3)
        best = np.maximum(flat.take(splits.ravel() + ramp[: 2 * nb * rows]).reshape(nb, 2, rows), self.floor)
        self.c_out[k, :, :, lo:hi] = best
        self.c_out_t[k, :, :, lo:hi] = best
        self.bi[:, at + lo : at + hi] = split
        self.bc[:, :, at + lo : at + hi] = splits

    def root_choices(self, singles: Sequence[bool]) -> tuple[list[int], list[int]]:
        """Per tree: the value of the best derivation and, for one root
        dependent, the leftmost best root ``r`` (``w(0, r) + CL[1, r] + CR[r, n]``)."""
        n = self.n1 - 1
        cr, cl = self.plane(0), self.plane(self.cl_at)
        joined = (
            self.ws[:, 0, self.offs[1 : n + 1]].astype(np.int64) + cl[:, 1, 1:] + cr[:, n, 1:]
        )
        roots = joined.argmax(1)
        values, chosen = [], []
        for b, single in enumerate(singles):
            r = int(roots[b]) + 1
            values.append(int(joined[b, r - 1]) if single else int(cr[b, 0, n]))
            chosen.append(r if single else 0)
        return values, chosen

    def backtrace(self, b: int, root: int) -> list[int]:
        """Heads of the optimal tree of batch entry ``b`` (``root``: its only
        root dependent, or 0 for any number) from the backpointers."""
        n = self.n1 - 1
        offs = self.offs
        bi, bcr, bcl = (memoryview(a) for a in (self.bi[b], self.bc[b, 0], self.bc[b, 1]))
        out = [-1] * self.n1
        if root:
            out[root] = 0
            stack = [(1, 1, root), (0, root, n)]
        else:
            stack = [(0, 0, n)]
        while stack:  # kinds 0 = CR, 1 = CL, 2 = IR, 3 = IL
            kind, s, t = stack.pop()
            if s == t:
                continue
            at = offs[t - s] + s
            if kind == 0:
                r = s + bcr[at] + 1
                stack += ((2, s, r), (0, r, t))
            elif kind == 1:
                r = s + bcl[at]
                stack += ((1, s, r), (3, r, t))
            else:
                if kind == 2:
                    out[t] = s
                else:
                    out[s] = t
                r = s + bi[at]
                stack += ((0, s, r), (1, r + 1, t))
        return out


def _solve_fast(
    trees: Sequence[_Tree], ties: str, scale: _Scale, budget: Budget = UNLIMITED
) -> tuple[_Chart, list[int], list[int]]:
    """Run the DP for trees of one length; return the chart, the value of
    each tree's best derivation and its root choice (see ``root_choices``)."""
    heads = np.array([tree.h for tree in trees], dtype=np.int64)
    refuse_large_table(heads.size * heads.shape[1], _bytes_per_cell(heads.shape[1], scale),
                       f"the optimal projectivization's tables for {heads.shape[1] - 1} words")
    ws = _edge_weights(heads, ties, scale, budget)
    chart = _Chart(ws, heads.shape[1], scale)
    chart.fill(budget)
    values, roots = chart.root_choices([tree.single for tree in trees])
    return chart, values, roots


def _bytes_per_cell(n1: int, scale: _Scale) -> float:
    """Memory per (tree, s, t) cell: the weights and the three planes of keys (4 keys), the packed backpointers
    (1.5 indices, see :class:`_Chart`) and the booleans of :func:`_count_fast` (3)."""
    index = 2 if n1 <= np.iinfo(np.int16).max else 4
    return 4 * np.dtype(scale.dtype).itemsize + 1.5 * index + 3


def _solve_one(tree: _Tree, ties: str, budget: Budget) -> tuple[_Chart, int, int]:
    """:func:`_solve_fast` for one tree, in the narrowest integer type that works.

    For a tree longer than a tile, the keys are first sized for the guessed
    loss (:func:`_loss_guess`), which for trees with few crossing arcs fits
    int16 or int32 and makes the DP several times cheaper than int64; if the
    optimum turns out to lose more arcs than guessed (its key is below
    ``-gold * D``), the DP runs again sized for any loss.
    """
    n = len(tree.h) - 1
    levels = tree.max_levels()
    exact = _scale(ties, n, levels)
    if n >= _TILE and exact.dtype is not np.int16:
        trial = _scale(ties, min(_loss_guess(tree), n), levels)
        if np.dtype(trial.dtype).itemsize < np.dtype(exact.dtype).itemsize:
            chart, values, roots = _solve_fast([tree], ties, trial, budget)
            if values[0] >= -trial.gold * trial.max_loss:
                return chart, values[0], roots[0]
    chart, values, roots = _solve_fast([tree], ties, exact, budget)
    return chart, values[0], roots[0]


def optimal_projectivize(
    heads: HeadsLike,
    *,
    single_root: bool | None = None,
    ties: str = "lift",
    budget: Budget = UNLIMITED,
) -> np.ndarray:
    """A projective tree with the most arcs in common with ``heads``.

    Nederhof (2019), TACL, §3 (cubic tabular algorithm of Table 2, grammar of
    Table 3, 0/1 edge scores) and §8.1 (optimal projectivization), with the
    split-head complete/incomplete items of Eisner (1996); vectorised over
    the spans of one width.

    ``single_root``: ``None`` keeps the input's kind (exactly one dependent of
    0 iff the input has exactly one), ``True`` forces one, ``False`` allows
    any number. ``ties="lift"`` (default) picks, among the optimal trees, one
    with the most lifts, then the fewest levels lifted, then the first in the
    DP argmax order (smallest split points, leftmost single root); the
    integer keys that realise this in one pass cannot change the optimum
    (see the module docstring). ``ties="first"`` uses the plain 0/1 weights
    and the same argmax order.

    An input that is already projective and meets the root constraint is
    returned as a copy without running the DP. Returns a new int64 array.
    Raises ``ValueError`` for input that is not a tree and
    :class:`~treetool.budget.SentenceTimeout` when ``budget`` runs out.
    """
    return optimal_projectivize_counted(heads, single_root=single_root, ties=ties, budget=budget, count=False)[0]


def optimal_projectivize_counted(
    heads: HeadsLike,
    *,
    single_root: bool | None = None,
    ties: str = "lift",
    budget: Budget = UNLIMITED,
    count: bool = True,
) -> tuple[np.ndarray, int | None]:
    """:func:`optimal_projectivize` and, from the same DP, the number of
    optimal projective trees (:func:`count_optimal_projective_trees`); the
    count is ``None`` with ``count=False``."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be 'lift' or 'first', got {ties!r}")
    tree = _prepare(heads, single_root)
    if not tree.needs_dp:
        return tree.arr, 1 if count else None
    chart, _, root = _solve_one(tree, ties, budget)
    number = _count_fast(chart, root, tree.single, budget) if count else None
    return np.array(chart.backtrace(0, root), dtype=np.int64), number


_BATCH_CELLS = 1 << 16  # trees per DP batch: at most this many n1 * n1 cells


def optimal_projectivize_many(
    trees: Iterable[HeadsLike],
    *,
    single_root: bool | None = None,
    ties: str = "lift",
    budget: Budget = UNLIMITED,
) -> list[np.ndarray]:
    """:func:`optimal_projectivize` for many trees at once (same results).

    The trees that need the DP are grouped by length and each group runs
    one batched DP (the numpy call overhead per width is shared by the
    group); on the UD 2.2 train sets this is about twice as fast per tree
    as calling :func:`optimal_projectivize` in a loop. Returns a list in
    input order. ``budget`` bounds the whole call.
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be 'lift' or 'first', got {ties!r}")
    results: list = []
    groups: dict[int, list] = {}
    for i, heads in enumerate(trees):
        tree = _prepare(heads, single_root)
        results.append(tree.arr)
        if tree.needs_dp:
            groups.setdefault(len(tree.h), []).append((i, tree))
    for n1, items in groups.items():
        size = max(1, _BATCH_CELLS // (n1 * n1))
        for lo in range(0, len(items), size):
            chunk = items[lo : lo + size]
            levels = max(tree.max_levels() for _, tree in chunk)
            chart, _, roots = _solve_fast([tree for _, tree in chunk], ties, _scale(ties, n1 - 1, levels), budget)
            for b, (i, _) in enumerate(chunk):
                results[i] = np.array(chart.backtrace(b, roots[b]), dtype=np.int64)
    return results


def optimal_projective_score(
    heads: HeadsLike, *, single_root: bool | None = None, budget: Budget = UNLIMITED
) -> int:
    """The maximum number of arcs a projective tree shares with ``heads``.

    Arcs include the root arc(s) ``0 -> r``; equals ``n`` iff the input is
    projective and meets the root constraint (Nederhof 2019, §3: the value
    ``W`` of the tabular algorithm with 0/1 scores).
    """
    tree = _prepare(heads, single_root)
    n = len(tree.h) - 1
    if not tree.needs_dp:
        return n
    _, value, _ = _solve_one(tree, "first", budget)
    return n + value  # with 0/1 weights a derivation's key is minus the arcs it loses


# --------------------------------------------------------------------------
# counting: the (max, count) semiring on the optimal derivations only
# --------------------------------------------------------------------------


_CR, _CL, _I = 0, 1, 2  # item kinds in the count: IR and IL have the same splits and counts
_TIE_CELLS = 1 << 18  # split points compared at once when looking for ties


def _count_fast(chart: _Chart, root: int, single: bool, budget: Budget = UNLIMITED) -> int:
    """Number of optimal projective trees of the chart's (only) tree.

    Nederhof (2019), §3 and §8.1: the (max, count) semiring over the same
    DP. Only items of some optimal derivation can contribute to the count of
    the whole, so instead of counting in every cell (Python ints in O(n^3)
    object operations), the counts are computed from the filled chart over
    those items alone: an item's optimal splits are those whose plain score
    (arcs kept: ``key // gold``, the lift part of a key being below
    ``gold``) is maximal, and its count is the sum over them of the product
    of its two parts' counts. The items are found top-down, width by width,
    then counted bottom-up; each pass looks for the ties of all items of one
    kind and width at once. Python ints, exact however large.
    """
    n1 = chart.n1
    n = n1 - 1
    cr, inc, cl = (chart.plane(at)[0] for at in (0, chart.inc_at, chart.cl_at))
    planes = (cr.reshape(-1), inc.reshape(-1), cl.reshape(-1), n1, chart.scale.gold)
    reach = np.zeros((3, n1, n1), dtype=bool)  # reach[kind, s, t]: item on an optimal derivation
    if single:  # w(0, r) + CL[1, r] + CR[r, n], r = 1 .. n
        joined = chart.ws[0, 0, chart.offs[1 : n + 1]].astype(np.int64) + cl[1, 1:] + cr[n, 1:]
        plain = joined // chart.scale.gold
        tops = 1 + np.flatnonzero(plain == plain.max())
        reach[_CL, 1, tops] = reach[_CR, tops, n] = True
    else:
        reach[_CR, 0, n] = True
    for k in range(n, 0, -1):  # parents before their parts (CR/CL before I of the same width)
        budget.check()
        for kind in (_CR, _CL, _I):
            starts = np.flatnonzero(reach[kind].diagonal(k))
            for parent, left, right in _optimal_splits(planes, kind, starts, k):
                reach.reshape(-1)[left] = reach.reshape(-1)[right] = True
    z = n1 * n1
    counts = dict.fromkeys(chain(range(_CR * z, _CR * z + z, n1 + 1), range(_CL * z, _CL * z + z, n1 + 1)), 1)
    for k in range(1, n1):  # parts before their parents
        budget.check()
        for kind in (_I, _CR, _CL):
            starts = np.flatnonzero(reach[kind].diagonal(k))
            for parent, left, right in _optimal_splits(planes, kind, starts, k):
                _add_counts(counts, parent, left, right)
    if not single:
        return counts[_CR * z + n]
    return sum(counts[_CL * z + n1 + r] * counts[_CR * z + r * n1 + n] for r in tops.tolist())


def _optimal_splits(
    planes: tuple[np.ndarray, np.ndarray, np.ndarray, int, int], kind: int, starts: np.ndarray, k: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The optimal splits of the items ``(kind, s, s + k)``, s in ``starts``:
    (item, left part, right part) as flat indices ``kind * z + s * n1 + t``,
    one entry per split, grouped by item, in chunks of bounded size.
    ``planes``: the chart's CR, IR/IL and CL planes (flat), n1 and ``gold``."""
    cr, inc, cl, n1, gold = planes
    z, row = n1 * n1, n1 + 1
    j = np.arange(k)
    step = max(1, _TIE_CELLS // k)
    for lo in range(0, len(starts), step):
        s = starts[lo : lo + step]
        first, col = (s * row)[:, None] + j, (k * n1 + s * row)[:, None] + j  # [s, s+j] and [t, s+j]
        if kind == _CR:  # IR[s, r] + CR[r, t], r = s+1+j
            left, right = inc[first + 1], cr[col + 1]
        elif kind == _CL:  # CL[s, r] + IL[r, t], r = s+j
            left, right = cl[first], inc[col]
        else:  # CR[s, r] + CL[r+1, t], r = s+j
            left, right = cr[first], cl[col + 1]
        plain = left.astype(np.int64) + right
        if gold != 1:
            plain //= gold
        item, split = np.nonzero(plain == plain.max(1, keepdims=True))
        s_of, r = s[item], s[item] + split
        t = s_of + k
        parent = kind * z + s_of * n1 + t
        if kind == _CR:
            yield parent, _I * z + s_of * n1 + r + 1, _CR * z + (r + 1) * n1 + t
        elif kind == _CL:
            yield parent, _CL * z + s_of * n1 + r, _I * z + r * n1 + t
        else:
            yield parent, _CR * z + s_of * n1 + r, _CL * z + (r + 1) * n1 + t


def _add_counts(counts: dict[int, int], parent: np.ndarray, left: np.ndarray, right: np.ndarray) -> None:
    """counts[p] = Σ counts[l] * counts[r] over the splits (p, l, r), grouped by p."""
    ends = (np.flatnonzero(parent[1:] != parent[:-1]) + 1).tolist() + [len(parent)]
    parent, left, right = parent.tolist(), left.tolist(), right.tolist()
    get, begin = counts.__getitem__, 0
    for end in ends:
        counts[parent[begin]] = sum(map(mul, map(get, left[begin:end]), map(get, right[begin:end])))
        begin = end


def count_optimal_projective_trees(
    heads: HeadsLike, *, single_root: bool | None = None, budget: Budget = UNLIMITED
) -> int:
    """Exact number of projective trees with the optimal number of arcs in
    common with ``heads`` (Nederhof 2019, §3 "by a different semiring, we can
    count the number of trees with the highest accuracy", §8.1 Figure 8).

    The (max, count) semiring over the Eisner (1996) split-head DP; correct
    because that DP is unambiguous (one derivation per projective tree).
    Counts are Python ints (they grow exponentially with sentence length).
    Root constraint as in :func:`optimal_projectivize`.
    """
    tree = _prepare(heads, single_root)
    if not tree.needs_dp:
        return 1
    chart, _, root = _solve_one(tree, "first", budget)
    return _count_fast(chart, root, tree.single, budget)
