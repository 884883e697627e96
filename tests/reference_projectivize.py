"""Slow, obviously-correct references for the optimal projectivization DP (:mod:`treetool.projectivization.optimal`).

Not a test module: plain-Python Eisner (1996) / Nederhof (2019, §3) tables
with the weights of the fast module's docstring, which the tests compare the
vectorised, tiled, narrow-integer DP and its counting with.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def reference_weights(heads: Sequence[int], ties: str) -> list[list[float]]:
    """``W[h][d]`` as in :mod:`treetool.projectivization.optimal`'s docstring, by walking up the input tree."""
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


def _tables(W: list[list[float]]):
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


def optimal_projectivize_reference(
    heads: Sequence[int], *, single_root: bool | None = None, ties: str = "lift"
) -> np.ndarray:
    """Slow reference for :func:`~treetool.projectivization.optimal.optimal_projectivize` (always runs the DP).

    Plain-Python Eisner (1996) / Nederhof (2019, §3) with the same weights,
    the same first-argmax tie order and the same root handling. For a
    projective input the DP returns the input itself (unique optimum), so
    skipping the DP in the fast version changes nothing.
    """
    h = [int(v) for v in heads]
    n1 = len(h)
    n = n1 - 1
    single = h.count(0) == 1 if single_root is None else bool(single_root)
    W = reference_weights(h, ties)
    CR, CL, _, _, bCR, bCL, bI = _tables(W)
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


def count_reference(heads: Sequence[int], *, single_root: bool | None = None) -> tuple[int, int]:
    """(optimal score, number of optimal projective trees), plain Python."""
    h = [int(v) for v in heads]
    n1 = len(h)
    n = n1 - 1
    single = h.count(0) == 1 if single_root is None else bool(single_root)
    W = reference_weights(h, "first")
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
