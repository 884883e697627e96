"""The paper's loss for the top-down and in-order systems (papers/001 §3.1-3.2); not exact, see dynamic.py."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from typing import Sequence

from .gold_index import GoldIndex
from .system import Configuration, Open, span_of

__all__ = ["paper_loss"]


def paper_loss(config: Configuration, gold: GoldIndex) -> int:
    """papers/001 §3.1-3.2: |U(c)| + |γ_c \\ γ_G| + |α_c \\ α_G| + out_of_order(α_c, α_G).

    Multisets throughout (the paper's footnote 2 numbers repeated
    non-terminals apart): the k-th open ``(X, j)`` on the stack, bottom up,
    stands for the k-th gold non-terminal ``(X, j)`` in gold order.
    """
    if config.finished:
        return gold.hamming(config.built)
    remaining, wrong_built = gold.remaining(config.built)
    opens = [(k, item) for k, item in enumerate(config.stack) if type(item) is Open]
    seen: Counter = Counter()
    ranks: list[int] = []
    wrong_nts = 0
    for _, item in opens:
        key = (item.label, item.position)
        candidates = gold.nt_rank.get(key, ())
        if seen[key] < len(candidates):
            ranks.append(candidates[seen[key]])
        else:
            wrong_nts += 1
        seen[key] += 1
    unreachable = _paper_unreachable(config, gold, remaining, seen)
    return unreachable + wrong_built + wrong_nts + len(ranks) - _lis(ranks)


def _paper_unreachable(config: Configuration, gold: GoldIndex, remaining: Counter, opened: Counter) -> int:
    """Gold constituents not built yet that none of the paper's reachability conditions (§3.2) covers."""
    j = config.buffer
    starts = set()
    adjacent = set()  # in-order (iv): (label, l, m) of an open X at m whose item below spans (l, m)
    stack = config.stack
    for k, item in enumerate(stack):
        if type(item) is Open:
            starts.add(item.position)
            if gold.in_order and k > 0 and type(stack[k - 1]) is not Open:
                start, end = span_of(stack[k - 1])
                if end == item.position:
                    adjacent.add((item.label, start, end))
        else:
            starts.add(span_of(item)[0])
    missing = 0
    for span, count in remaining.items():
        label, l, r = span
        if j <= l:
            reachable = gold.in_order or opened[(label, l)] == 0
            if not reachable:  # top-down (ii) fails: (X, l) is on the stack; (iii) may still hold
                reachable = r >= j
        elif gold.in_order:
            m = gold.nt_second.get(span, -1)
            reachable = l in starts and r >= j and (
                opened[(label, m)] == 0 or (label, l, m) in adjacent)
        else:
            reachable = opened[(label, l)] > 0 and r >= j
        if not reachable:
            missing += count
    return missing


def _lis(values: Sequence[int]) -> int:
    """Length of the longest strictly increasing subsequence (patience sorting, O(n log n); Fredman 1975)."""
    tails: list[int] = []
    for v in values:
        i = bisect_left(tails, v)
        if i == len(tails):
            tails.append(v)
        else:
            tails[i] = v
    return len(tails)
