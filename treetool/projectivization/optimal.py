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

This is done in one DP pass with integer edge weights::

    w(h, d) = A           if h == heads[d]
            = B - levels  if h is a proper ancestor of heads[d],
                          levels = depth(heads[d]) - depth(h) >= 1
            = 0           otherwise

with ``B = n * n + 1`` and ``A = n * B + 1``. The score of a tree is then
``A * M + B * L - V`` with ``M`` arcs in common, ``L`` lifts and ``V`` total
levels. Why this preserves optimality and realises 1-2 lexicographically:

* every lift contributes ``B - levels`` in ``[1, B - 1]`` (a word's
  levels are at most ``depth(heads[d]) <= n - 1 < B``), so the lift part
  ``B * L - V`` lies in ``[0, n * (B - 1)]``, strictly below ``A``: one more
  arc in common outweighs any lifts, so ``M`` is maximal (the plain optimum);
* for equal ``M``, ``V <= n * (n - 1) < B``, so one more lift outweighs any
  difference in levels; for equal ``M`` and ``L`` the smaller ``V`` wins.

Scores stay far inside int64 (``n * A`` is about ``n**4``). ``ties="first"``
uses the plain 0/1 weights of Nederhof §3 and the same argmax order.

Speed
-----
An already projective input (satisfying the root constraint) is returned as a
copy without running the DP; the check is a pure-Python pass with bitmask
yields. Otherwise the DP is vectorised with numpy: all spans of one width at
once, ``O(n)`` rounds of a dozen numpy calls on ``O(n^2)`` elements, every
operand a strided view of one buffer (layout notes above ``_dp_fast``), and
backpointers from ``argmax`` (first maximum). :func:`optimal_projectivize_many`
runs trees of equal length through one batched DP, sharing the per-call
overhead. ``benchmarks/projectivize_dp.py`` measures it on the UD 2.2 train
sets: on the development machine (2 cores, shared) about 0.10 ms per tree for
:func:`optimal_projectivize` in a loop and 0.05 ms per tree for
:func:`optimal_projectivize_many`, averaged over all trees (Nederhof reports
0.342 ms per tree end to end).

``_optimal_projectivize_reference`` and ``_count_reference`` are slow, plain
Python versions of the same recurrences, kept for cross-checking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Union

import numpy as np

from .. import trees as _trees  # (a parameter below is called ``trees``)

__all__ = [
    "count_optimal_projective_trees",
    "optimal_projective_score",
    "optimal_projectivize",
    "optimal_projectivize_many",
]

HeadsLike = Union[np.ndarray, Sequence[int]]

#: Tie rules among optimal trees (see the module docstring).
TIE_RULES: tuple[str, ...] = ("lift", "first")

_NEG = -(1 << 58)  # "minus infinity" that survives a few additions in int64


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


def _edge_weights(
    h: list[int], order: list[int], ties: str, ws: np.ndarray | None = None
) -> np.ndarray:
    """Edge weights by width: ``ws[k, 0, s] = w(s, s+k)``, ``ws[k, 1, s] =
    w(s+k, s)`` (int64, shape (n+1, 2, n+1)); see the module docstring.

    ``order`` is a breadth-first order of the nodes (parents first); ``ws``,
    if given, is a zeroed array of that shape to fill.
    """
    n1 = len(h)
    n = n1 - 1
    if ws is None:
        ws = np.zeros((n1, 2, n1), dtype=np.int64)
    hx = np.array(h, dtype=np.int64)
    if ties == "first":
        heads = hx[1:]
        deps = np.arange(1, n1)
    elif ties == "lift":
        # anc[u]: proper ancestors of u, nearest first (built parents first)
        anc: list[list[int]] = [[]] * n1
        for u in order[1:]:
            p = h[u]
            anc[u] = [p] + anc[p]
        depth = np.fromiter(map(len, anc), dtype=np.int64, count=n1)
        heads = np.fromiter(chain.from_iterable(anc), dtype=np.int64)
        deps = np.repeat(np.arange(n1), depth)
        big_b = n * n + 1
        big_a = n * big_b + 1
        # w(a, d) = B - (depth(g) - depth(a)), g = heads[d], depth(g) = depth(d) - 1
        vals = depth[heads] - depth[deps] + (big_b + 1)
        vals[heads == hx[deps]] = big_a
    else:
        raise ValueError(f"ties must be 'lift' or 'first', got {ties!r}")
    right = heads < deps
    lo = np.where(right, heads, deps)
    ws[np.abs(deps - heads), (~right).view(np.int8), lo] = 1 if ties == "first" else vals
    ws[:, 1, 0] = _NEG  # w(k, 0): 0 has no head
    return ws


# --------------------------------------------------------------------------
# the vectorised DP
# --------------------------------------------------------------------------
#
# All four tables of a tree live in one flat int64 buffer of four (n1, n1)
# planes (n1 = n + 1, plane size z = n1 * n1), cell (plane, row, col) at
# plane * z + row * n1 + col:
#
#   plane 0: IR[s, t] at (s, t - 1)       plane 1: CR[s, t] at (s, t)
#   plane 2: CL[s, t] at (s, t)           plane 3: IL[s, t] at (s + 1, t)
#
# For width k (t = s + k, s = 0..m-1, m = n1 - k) every operand is then an
# affine function of (s, j) -- e.g. CL[s+j+1, s+k] is at 2z + n1 + k +
# s(n1 + 1) + j n1 -- i.e. a strided view of the buffer, made once with
# ``np.ndarray(buffer=f, strides=...)`` and sliced per width (no fancy
# indexing). The shifts of IR and IL make the two complete recurrences line
# up, so they are done as one stacked (2, m, k) operation, and the two
# writes of each step are one strided assignment:
#
#   incomplete  S[s, j]    = CR[s, s+j] + CL[s+j+1, t]               j < k
#               IR, IL     = max_j S + w(s, t), max_j S + w(t, s)
#   complete    S[0, s, j] = IR[s, s+j+1] + CR[s+j+1, t]  -> CR[s, t]
#               S[1, s, j] = CL[s, s+j]   + IL[s+j, t]    -> CL[s, t]
#
# The views' full shapes (all widths k) reach past the four planes, so the
# buffer is padded to 6z + 4n1 cells for numpy to accept them; only the cells
# named above are ever read or written.
#
# ``argmax`` (first maximum: smallest split) is cheap in numpy but
# ``max(axis)`` is not, so maxima are gathered with ``take`` at the argmax.
# Several trees of the same length can share the loop: every view has a
# leading batch axis (stride: one tree's buffer), so the per-width numpy
# overhead is paid once per batch (``optimal_projectivize_many``).


def _dp_fast(ws: np.ndarray):
    """Run the DP for a batch ``ws`` of shape (B, n1, 2, n1).

    Returns the tables (B, 4, n1, n1) and, per width k, the argmax arrays
    as nested lists: ``bis[k][b][s]`` (incomplete split j: r = s + j) and
    ``bcs[k][b][q][s]`` (complete, q = 0: r = s + j + 1, q = 1: r = s + j).
    """
    nb, n1 = ws.shape[0], ws.shape[1]
    z = n1 * n1
    per = 6 * z + 4 * n1  # one tree's buffer; every view below fits in it
    f = np.zeros(nb * per, dtype=np.int64)

    def view(off, shape, strides):
        return np.ndarray(shape, np.int64, f, 8 * off, tuple(8 * v for v in strides))

    cr_row = view(z, (nb, n1, n1), (per, n1 + 1, 1))  # [b, s, j] CR[s, s+j]
    cl_col = view(2 * z + n1, (n1, nb, n1, n1), (1, per, n1 + 1, n1))  # [k, b, s, j] CL[s+j+1, s+k]
    p_row = view(0, (nb, 2, n1, n1), (per, 2 * z, n1 + 1, 1))  # IR[s, s+j+1], CL[s, s+j]
    q_col = view(
        z + n1, (n1, nb, 2, n1, n1), (1, per, 2 * z, n1 + 1, n1)
    )  # CR[s+j+1, t], IL[s+j, t]
    inc_out = view(0, (n1, nb, 2, n1), (1, per, 3 * z + n1 + 1, n1 + 1))  # [k-1, b, :, s] IR, IL
    comp_out = view(z, (n1, nb, 2, n1), (1, per, z, n1 + 1))  # [k, b, :, s] CR, CL
    offs = np.arange(n1)[:, None] * np.arange(2 * nb * n1)  # offs[k, i] = i * k
    bis: list = [None] * n1
    bcs: list = [None] * n1
    add = np.add
    for k in range(1, n1):
        m = n1 - k
        s_inc = cr_row[:, :m, :k] + cl_col[k, :, :m, :k]
        a = s_inc.argmax(2)
        base = offs[k, : 2 * nb * m]
        mx = s_inc.take(a + base[: nb * m].reshape(nb, m))
        add(mx[:, None, :], ws[:, k, :, :m], out=inc_out[k - 1, :, :, :m])
        s_c = p_row[:, :, :m, :k] + q_col[k, :, :, :m, :k]
        b = s_c.argmax(3)
        comp_out[k, :, :, :m] = s_c.take(b + base.reshape(nb, 2, m))
        bis[k] = a.tolist()
        bcs[k] = b.tolist()
    tables = np.ndarray((nb, 4, n1, n1), np.int64, f, 0, (8 * per, 8 * z, 8 * n1, 8))
    return tables, bis, bcs


def _solve_fast(ws: np.ndarray, singles: Sequence[bool]) -> list[list[int]]:
    """Optimal heads (lists) for a batch ``ws`` (B, n1, 2, n1) of trees of
    one length; ``singles[b]``: exactly one root dependent for tree b."""
    nb, n1 = ws.shape[0], ws.shape[1]
    n = n1 - 1
    tables, bis, bcs = _dp_fast(ws)
    # single root: w(0, r) + CL[1, r] + CR[r, n] for r = 1..n, leftmost max
    roots = (ws[:, 1:, 0, 0] + tables[:, 2, 1, 1:] + tables[:, 1, 1:, n]).argmax(1).tolist()
    results = []
    for b in range(nb):
        out = [-1] * n1
        if singles[b]:
            r = roots[b] + 1
            out[r] = 0
            stack = [(1, 1, r), (0, r, n)]
        else:
            stack = [(0, 0, n)]
        # backtrace; kinds 0 = CR, 1 = CL, 2 = IR, 3 = IL
        while stack:
            kind, s, t = stack.pop()
            if s == t:
                continue
            k = t - s
            if kind == 0:
                r = s + bcs[k][b][0][s] + 1
                stack.append((2, s, r))
                stack.append((0, r, t))
            elif kind == 1:
                r = s + bcs[k][b][1][s]
                stack.append((1, s, r))
                stack.append((3, r, t))
            else:
                if kind == 2:
                    out[t] = s
                else:
                    out[s] = t
                r = s + bis[k][b][s]
                stack.append((0, s, r))
                stack.append((1, r + 1, t))
        results.append(out)
    return results


def _prepare(heads: HeadsLike, single_root: bool | None):
    """(array copy, list, bfs order, single, needs_dp) for one input tree."""
    arr, h, order, projective = _analyse(heads)
    single = _root_mode(h, single_root)
    if single and len(h) == 1:
        raise ValueError("single_root=True needs at least one word")
    needs_dp = not projective or (single and h.count(0) != 1)
    return arr, h, order, single, needs_dp


def optimal_projectivize(
    heads: HeadsLike, *, single_root: bool | None = None, ties: str = "lift"
) -> np.ndarray:
    """A projective tree with the most arcs in common with ``heads``.

    Nederhof (2019), TACL, §3 (cubic tabular algorithm of Table 2, grammar of
    Table 3, 0/1 edge scores) and §8.1 (optimal projectivization), with the
    split-head complete/incomplete items of Eisner (1996); vectorised over
    all spans of one width.

    ``single_root``: ``None`` keeps the input's kind (exactly one dependent of
    0 iff the input has exactly one), ``True`` forces one, ``False`` allows
    any number. ``ties="lift"`` (default) picks, among the optimal trees, one
    with the most lifts, then the fewest levels lifted, then the first in the
    DP argmax order (smallest split points, leftmost single root); the
    integer weights ``A``/``B - levels``/0 that realise this in one pass
    cannot change the optimum because ``A`` exceeds the largest possible
    total of lift weights (see the module docstring). ``ties="first"`` uses
    the plain 0/1 weights and the same argmax order.

    An input that is already projective and meets the root constraint is
    returned as a copy without running the DP. Returns a new int64 array.
    Raises ``ValueError`` for input that is not a tree.
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be 'lift' or 'first', got {ties!r}")
    arr, h, order, single, needs_dp = _prepare(heads, single_root)
    if not needs_dp:
        return arr
    ws = _edge_weights(h, order, ties)
    return np.array(_solve_fast(ws[None], [single])[0], dtype=np.int64)


_BATCH_CELLS = 1 << 16  # trees per DP batch: at most this many n1 * n1 cells


def optimal_projectivize_many(
    trees: Iterable[HeadsLike], *, single_root: bool | None = None, ties: str = "lift"
) -> list[np.ndarray]:
    """:func:`optimal_projectivize` for many trees at once (same results).

    The trees that need the DP are grouped by length and each group runs
    one batched DP (the numpy call overhead per width is shared by the
    group); on the UD 2.2 train sets this is about twice as fast per tree
    as calling :func:`optimal_projectivize` in a loop. Returns a list in
    input order.
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be 'lift' or 'first', got {ties!r}")
    results: list = []
    groups: dict[int, list] = {}
    for i, heads in enumerate(trees):
        arr, h, order, single, needs_dp = _prepare(heads, single_root)
        results.append(arr)
        if needs_dp:
            groups.setdefault(len(h), []).append((i, h, order, single))
    for n1, items in groups.items():
        size = max(1, _BATCH_CELLS // (n1 * n1))
        for lo in range(0, len(items), size):
            chunk = items[lo : lo + size]
            ws = np.zeros((len(chunk), n1, 2, n1), dtype=np.int64)
            for b, (_, h, order, _) in enumerate(chunk):
                _edge_weights(h, order, ties, ws[b])
            outs = _solve_fast(ws, [item[3] for item in chunk])
            for (i, _, _, _), out in zip(chunk, outs):
                results[i] = np.array(out, dtype=np.int64)
    return results


def optimal_projective_score(heads: HeadsLike, *, single_root: bool | None = None) -> int:
    """The maximum number of arcs a projective tree shares with ``heads``.

    Arcs include the root arc(s) ``0 -> r``; equals ``n`` iff the input is
    projective and meets the root constraint (Nederhof 2019, §3: the value
    ``W`` of the tabular algorithm with 0/1 scores).
    """
    _, h, order, single, needs_dp = _prepare(heads, single_root)
    if not needs_dp:
        return len(h) - 1
    out = _solve_fast(_edge_weights(h, order, "first")[None], [single])[0]
    return sum(1 for a, b in zip(out[1:], h[1:]) if a == b)


# --------------------------------------------------------------------------
# counting: (max, count) semiring, counts as Python ints (object arrays)
# --------------------------------------------------------------------------


def _count_fast(ws: np.ndarray, single: bool) -> tuple[int, int]:
    n1 = ws.shape[0]
    n = n1 - 1
    obj = object
    crs = np.zeros((n1, n1), dtype=np.int64)
    clt = np.zeros((n1, n1), dtype=np.int64)
    x = np.zeros((2, n1, n1), dtype=np.int64)
    y = np.zeros((2, n1, n1), dtype=np.int64)
    crs_c = np.ones((n1, n1), dtype=obj)
    clt_c = np.ones((n1, n1), dtype=obj)
    x_c = np.ones((2, n1, n1), dtype=obj)
    y_c = np.ones((2, n1, n1), dtype=obj)
    for k in range(1, n1):
        m = n1 - k
        rev = slice(k - 1, None, -1)
        s_inc = crs[:m, :k] + clt[k:, rev]
        mx = s_inc.max(1)
        prod = crs_c[:m, :k] * clt_c[k:, rev]
        cnt = np.where(s_inc == mx[:, None], prod, 0).sum(1)
        x[0, :m, k - 1] = mx + ws[k, 0, :m]
        y[1, k:, k - 1] = mx + ws[k, 1, :m]
        x_c[0, :m, k - 1] = cnt
        y_c[1, k:, k - 1] = cnt
        s_c = x[:, :m, :k] + y[:, k:, rev]
        mc = s_c.max(2)
        prod = x_c[:, :m, :k] * y_c[:, k:, rev]
        cc = np.where(s_c == mc[:, :, None], prod, 0).sum(2)
        crs[:m, k] = mc[0]
        y[0, k:, k] = mc[0]
        x[1, :m, k] = mc[1]
        clt[k:, k] = mc[1]
        crs_c[:m, k] = cc[0]
        y_c[0, k:, k] = cc[0]
        x_c[1, :m, k] = cc[1]
        clt_c[k:, k] = cc[1]
    if single:
        tot = ws[1:, 0, 0] + x[1, 1, :n] + y[0, n, n - 1 :: -1]
        best = int(tot.max())
        prod = x_c[1, 1, :n] * y_c[0, n, n - 1 :: -1]
        return best, int(sum(prod[tot == best].tolist()))
    return int(crs[0, n]), int(crs_c[0, n])


def count_optimal_projective_trees(heads: HeadsLike, *, single_root: bool | None = None) -> int:
    """Exact number of projective trees with the optimal number of arcs in
    common with ``heads`` (Nederhof 2019, §3 "by a different semiring, we can
    count the number of trees with the highest accuracy", §8.1 Figure 8).

    The (max, count) semiring over the Eisner (1996) split-head DP; correct
    because that DP is unambiguous (one derivation per projective tree).
    Counts are Python ints (they grow exponentially with sentence length).
    Root constraint as in :func:`optimal_projectivize`.
    """
    _, h, order, single, needs_dp = _prepare(heads, single_root)
    if not needs_dp:
        return 1
    return _count_fast(_edge_weights(h, order, "first"), single)[1]


# --------------------------------------------------------------------------
# slow, obviously-correct reference implementations (for the tests)
# --------------------------------------------------------------------------


def _reference_weights(heads: Sequence[int], ties: str) -> list[list[float]]:
    """``W[h][d]`` as in the module docstring, by walking up the input tree."""
    h = [int(v) for v in heads]
    n1 = len(h)
    n = n1 - 1

    def ancestors(u: int) -> list[int]:  # proper ancestors of u, nearest first
        out = []
        while u != 0:
            u = h[u]
            out.append(u)
        return out

    big_b = n * n + 1
    big_a = n * big_b + 1
    W = [[0.0] * n1 for _ in range(n1)]
    for hd in range(n1):
        W[hd][0] = float("-inf")
    for d in range(1, n1):
        g = h[d]
        if ties == "first":
            W[g][d] = 1
            continue
        W[g][d] = big_a
        for levels, a in enumerate(ancestors(g), start=1):
            W[a][d] = big_b - levels
    return W


def _reference_tables(W: list[list[float]]):
    """Eisner's tables in plain Python, first (smallest) argmax on ties."""
    n1 = len(W)
    ninf = float("-inf")
    CR = [[ninf] * n1 for _ in range(n1)]
    CL = [[ninf] * n1 for _ in range(n1)]
    IR = [[ninf] * n1 for _ in range(n1)]
    IL = [[ninf] * n1 for _ in range(n1)]
    bCR = [[-1] * n1 for _ in range(n1)]
    bCL = [[-1] * n1 for _ in range(n1)]
    bI = [[-1] * n1 for _ in range(n1)]
    for s in range(n1):
        CR[s][s] = CL[s][s] = 0
    for width in range(1, n1):
        for s in range(n1 - width):
            t = s + width
            best, arg = ninf, -1
            for r in range(s, t):
                v = CR[s][r] + CL[r + 1][t]
                if v > best:
                    best, arg = v, r
            IR[s][t] = best + W[s][t]
            IL[s][t] = best + W[t][s]
            bI[s][t] = arg
            best, arg = ninf, -1
            for r in range(s + 1, t + 1):
                v = IR[s][r] + CR[r][t]
                if v > best:
                    best, arg = v, r
            CR[s][t], bCR[s][t] = best, arg
            best, arg = ninf, -1
            for r in range(s, t):
                v = CL[s][r] + IL[r][t]
                if v > best:
                    best, arg = v, r
            CL[s][t], bCL[s][t] = best, arg
    return CR, CL, IR, IL, bCR, bCL, bI


def _optimal_projectivize_reference(
    heads: Sequence[int], *, single_root: bool | None = None, ties: str = "lift"
) -> np.ndarray:
    """Slow reference for :func:`optimal_projectivize` (always runs the DP).

    Plain-Python Eisner (1996) / Nederhof (2019, §3) with the same weights,
    the same first-argmax tie order and the same root handling. For a
    projective input the DP returns the input itself (unique optimum), so
    skipping the DP in the fast version changes nothing.
    """
    h = [int(v) for v in heads]
    n1 = len(h)
    n = n1 - 1
    single = h.count(0) == 1 if single_root is None else bool(single_root)
    W = _reference_weights(h, ties)
    CR, CL, _, _, bCR, bCL, bI = _reference_tables(W)
    out = [-1] * n1

    def comp_r(s, t):
        if s < t:
            r = bCR[s][t]
            inc(s, r, right=True)
            comp_r(r, t)

    def comp_l(s, t):
        if s < t:
            r = bCL[s][t]
            comp_l(s, r)
            inc(r, t, right=False)

    def inc(s, t, right):
        if right:
            out[t] = s
        else:
            out[s] = t
        r = bI[s][t]
        comp_r(s, r)
        comp_l(r + 1, t)

    if single:
        best, arg = float("-inf"), -1
        for r in range(1, n1):
            v = W[0][r] + CL[1][r] + CR[r][n]
            if v > best:
                best, arg = v, r
        out[arg] = 0
        comp_l(1, arg)
        comp_r(arg, n)
    else:
        comp_r(0, n)
    return np.array(out, dtype=np.int64)


def _count_reference(heads: Sequence[int], *, single_root: bool | None = None) -> tuple[int, int]:
    """(optimal score, number of optimal projective trees), plain Python."""
    h = [int(v) for v in heads]
    n1 = len(h)
    n = n1 - 1
    single = h.count(0) == 1 if single_root is None else bool(single_root)
    W = _reference_weights(h, "first")
    ninf = float("-inf")
    zero = (ninf, 0)

    def plus(a, b):  # semiring sum: max, adding counts on ties
        if a[0] > b[0]:
            return a
        if b[0] > a[0]:
            return b
        return (a[0], a[1] + b[1])

    def times(a, b):
        return (a[0] + b[0], a[1] * b[1])

    CR = [[zero] * n1 for _ in range(n1)]
    CL = [[zero] * n1 for _ in range(n1)]
    IR = [[zero] * n1 for _ in range(n1)]
    IL = [[zero] * n1 for _ in range(n1)]
    for s in range(n1):
        CR[s][s] = CL[s][s] = (0, 1)
    for width in range(1, n1):
        for s in range(n1 - width):
            t = s + width
            acc = zero
            for r in range(s, t):
                acc = plus(acc, times(CR[s][r], CL[r + 1][t]))
            IR[s][t] = times(acc, (W[s][t], 1))
            IL[s][t] = times(acc, (W[t][s], 1))
            acc = zero
            for r in range(s + 1, t + 1):
                acc = plus(acc, times(IR[s][r], CR[r][t]))
            CR[s][t] = acc
            acc = zero
            for r in range(s, t):
                acc = plus(acc, times(CL[s][r], IL[r][t]))
            CL[s][t] = acc
    if single:
        acc = zero
        for r in range(1, n1):
            acc = plus(acc, times(times((W[0][r], 1), CL[1][r]), CR[r][n]))
    else:
        acc = CR[0][n]
    return int(acc[0]), acc[1]
