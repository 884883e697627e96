"""The cubic algorithm of Nederhof (2019) §3-4 written as the paper states it: the reference for the fast one.

Table 2 (weighted split-head tabular parsing, as Eisner & Satta 1999) run
cell by cell for the grammar of Table 4 over the whole stack and buffer of
a configuration, in plain Python. This was treetool's implementation until
``treetool.oracles.nederhof`` reorganised the same recursions around a
per-sentence chart of the buffer; the tests hold that one to this one on
every configuration of exploring walks, and this one to exhaustive search.
Not a test module.
"""

from __future__ import annotations

from typing import Sequence

_NO = -1  # an impossible item (scores are >= 0 otherwise)


def reference_score(
    words: Sequence[int],
    top: int,
    gold: Sequence[int],
    no_left: frozenset[int] = frozenset(),
    no_right: frozenset[int] = frozenset(),
) -> int:
    """Most gold arcs of any computation from stack ``words[:top+1]``, buffer ``words[top+1:]`` (§4, cubic).

    Nederhof (2019) §3 Table 2 (weighted split-head tabular parsing, as Eisner
    & Satta 1999) for the grammar of Table 4 over ``p^top s^(N+1-top)``: the
    stack words below the top are ``p`` nodes, the top and the buffer ``s``.
    Reconstruction of the grammar's meaning in the state encoding used here
    (Table 4 is garbled; checked against exhaustive search): a ``p`` node with
    no child is a leaf ``P``; a ``p`` node that takes a right child whose
    subtree reaches an ``s`` node becomes ``S`` (it will be on top of the stack
    again) and may then also take left children; a ``p`` node never takes a
    ``P`` right child, and one with left children but no right child is
    impossible (no rule ``A -> (S,P)``). ``s`` nodes are always ``S``; every
    right child must be ``S``. An item's state is "has children on this side"
    (always 1 for ``s`` nodes). Arc weights: 1 for a gold arc, 0 otherwise,
    impossible (-inf) for an arc into the root and for the arcs the strategy
    forbids: a left child of a word in ``no_left``, a right child of one in
    ``no_right``. O(N^3) for N = ``len(words) - 1``.
    """
    n = len(words) - 1
    if n <= 0:
        return 0
    weight = _weights(words, gold, no_left, no_right)
    is_p = [x < top for x in range(n + 1)]
    # complete items, one value per state of the head's side (0: no child there, 1: some; s nodes: always 1)
    right = [[(_NO, _NO)] * (n + 1) for _ in range(n + 1)]  # right[h][j]: h and its right children over h..j
    left = [[(_NO, _NO)] * (n + 1) for _ in range(n + 1)]  # left[h][i]: h and its left children over i..h
    # incomplete items (the arc just made), indexed 2 * state(left end) + state(right end) before the arc
    arc_right = [[None] * (n + 1) for _ in range(n + 1)]  # arc_right[h][d]: h -> d, h < d
    arc_left = [[None] * (n + 1) for _ in range(n + 1)]  # arc_left[d][h]: d <- h, d < h
    for x in range(n + 1):
        right[x][x] = left[x][x] = (0, _NO) if is_p[x] else (_NO, 0)
    for length in range(1, n + 1):
        for i in range(n + 1 - length):
            j = i + length
            joined = _joined(right[i], left[j], i, j)
            arc_right[i][j] = _with_arc(joined, weight[i][j])
            arc_left[i][j] = _with_arc(joined, weight[j][i])
            best = _NO
            for d in range(i + 1, j + 1):  # i's outermost right child d, with its own right children up to j
                b = right[d][j][1]  # a right child is S: an s node, or a p node with a right child
                if b >= 0:
                    a = max(arc_right[i][d])
                    if a >= 0 and a + b > best:
                        best = a + b
            right[i][j] = (_NO, best)
            best = _NO
            for d in range(i, j):  # j's outermost left child d, with its own left children from i
                outer, inner = left[d][i], arc_left[d][j]
                for state_d in (0, 1):
                    a = outer[state_d]
                    if a < 0:
                        continue
                    for right_d in (0, 1):
                        if is_p[d] and state_d and not right_d:
                            continue  # a p node with left children and no right child (no rule A -> (S,P))
                        b = max(inner[2 * right_d], inner[2 * right_d + 1])
                        if b >= 0 and a + b > best:
                            best = a + b
            left[j][i] = (_NO, best)
    return right[0][n][1]


def _joined(right_i: list, left_j: list, i: int, j: int) -> list[int]:
    """max over the split m of right[i][m] + left[j][m+1], per (state of i's right side, state of j's left side)."""
    best = [_NO] * 4
    for m in range(i, j):
        r, l = right_i[m], left_j[m + 1]
        for si in (0, 1):
            a = r[si]
            if a < 0:
                continue
            for sj in (0, 1):
                b = l[sj]
                if b >= 0 and a + b > best[2 * si + sj]:
                    best[2 * si + sj] = a + b
    return best


def _with_arc(joined: list[int], w: int) -> list[int]:
    if w < 0:
        return [_NO] * 4
    return [v + w if v >= 0 else _NO for v in joined]


def _weights(words: Sequence[int], gold: Sequence[int], no_left: frozenset[int],
             no_right: frozenset[int]) -> list[list[int]]:
    """weight[h][d] for positions: 1 gold arc, 0 other arc, -1 (impossible) into the root or forbidden by a strategy."""
    n = len(words)
    out = []
    for h, head in enumerate(words):
        row = [1 if gold[d] == head else 0 for d in words]
        row[0] = _NO if words[0] == 0 else row[0]
        if head in no_left:
            row[:h] = [_NO] * h
        if head in no_right:
            row[h + 1 :] = [_NO] * (n - h - 1)
        row[h] = _NO
        out.append(row)
    return out
