"""The exact loss for the top-down and in-order systems: a dynamic program over the open non-terminals' ends."""

from __future__ import annotations

from collections import Counter

from .gold_index import GoldIndex
from .system import Built, Configuration, ConstituencySystem, Open, Word, span_of

__all__ = ["exact_loss", "limits_may_bind"]


def exact_loss(config: Configuration, gold: GoldIndex) -> int:
    """The smallest Hamming loss of a final configuration reachable from ``config`` (no limits; module doc)."""
    if gold.in_order:
        if config.finished:
            return gold.hamming(config.built)
    elif config.stack and not any(type(item) is Open for item in config.stack):
        return gold.hamming(config.built)  # top-down: the root is reduced, the computation is over
    remaining, wrong_built = gold.remaining(config.built)
    best = _in_order_levels(config, gold, remaining) if gold.in_order else _top_down_levels(config, gold, remaining)
    return wrong_built + sum(remaining.values()) + best


def _candidates(config: Configuration, gold: GoldIndex) -> list[int]:
    """The ends worth considering for an open non-terminal: the buffer position, j+1, gold ends after it, n.

    Moving an end down to the next candidate never loses a gold constituent
    (no gold constituent ends in between) and never makes a match wrong.
    """
    j = config.buffer
    ends = {e for e in gold.ends if e >= j}
    ends.update((j, min(j + 1, gold.n), gold.n))
    return sorted(ends)


def _inside(remaining: Counter, lo: int, hi: int) -> int:
    """Gold constituents (not built yet) entirely within [lo, hi)."""
    return sum(c for (_, l, r), c in remaining.items() if lo <= l and r <= hi)


def _in_order_levels(config: Configuration, gold: GoldIndex, remaining: Counter) -> int:
    """The in-order part of :func:`exact_loss`: minus the most gold constituents buildable, plus wrong opens.

    Stack: ``I_0 X_1 I_1 ... X_k I_k`` (``I_t`` completed items; the last item
    of ``I_{t-1}`` is X_t's first child, whose start is X_t's start s_t). With
    X_t reduced at e_t (e_k <= ... <= e_1 <= e_0 = n, all >= j; X_k may be
    reduced at j even without a child of its own: a unary node), the constituents still buildable are exactly:
    those starting at s_t (built around X_t, "wrappers") with
    e_t <= r <= e_{t-1}; those lying in [e_t, e_{t-1}); around the top item
    (start a) with j <= r <= e_k; and those in [j, e_k). Nothing else: items
    other than first children are fixed children, and new constituents start
    either in the buffer or at a first child. X_t is right iff a gold
    ``(X_t, s_t, e_t)`` is left (it then is one of the wrappers counted).
    """
    j, n, stack = config.buffer, gold.n, config.stack
    levels = [(item.label, span_of(stack[k - 1])[0]) for k, item in enumerate(stack) if type(item) is Open]
    by_start: dict[int, list[tuple[int, int]]] = {}
    for (_, l, r), c in remaining.items():
        by_start.setdefault(l, []).append((r, c))

    def around(start: int | None, lo: int, hi: int) -> int:
        if start is None:
            return 0
        return sum(c for r, c in by_start.get(start, ()) if lo <= r <= hi)

    if not levels:
        top = span_of(stack[-1])[0] if stack else None
        return -(around(top, j, n) + _inside(remaining, j, n))
    top = None if type(stack[-1]) is Open else span_of(stack[-1])[0]
    cands = _candidates(config, gold)
    label, start = levels[-1]
    best = {v: (remaining[(label, start, v)] == 0) - around(top, j, v) - _inside(remaining, j, v) for v in cands}
    for t in range(len(levels) - 2, -1, -1):
        label, start = levels[t]
        inner_start = levels[t + 1][1]
        step = {}
        for w in cands:
            values = [cost - around(inner_start, v, w) - _inside(remaining, v, w) for v, cost in best.items() if v <= w]
            if values:
                step[w] = min(values) + (remaining[(label, start, w)] == 0)
        best = step
    first_start = levels[0][1]
    return min(cost - around(first_start, v, n) - _inside(remaining, v, n) for v, cost in best.items())


def _top_down_levels(config: Configuration, gold: GoldIndex, remaining: Counter) -> int:
    """The top-down part of :func:`exact_loss`.

    Stack: ``X_1 I_1 ... X_k I_k``; X_t opened at s_t (its start), X_1 the
    root (e_1 = n). New constituents start in the buffer, so besides the
    open non-terminals' own spans the gold constituents still buildable are
    those in [e_t, e_{t-1}) and in [j, e_k). Open non-terminals with the same
    start, label and end compete for the gold copies of that span; when such
    a span lies in [j, e_k) (opened at j, closing at e_k) new constituents
    can build every copy anyway and only surplus opens are wrong.
    """
    j, n, stack = config.buffer, gold.n, config.stack
    if not stack:
        return -_inside(remaining, j, n)
    levels = [(item.label, item.position) for item in stack if type(item) is Open]
    cands = _candidates(config, gold)
    low = j + 1 if type(stack[-1]) is Open else j
    label, start = levels[-1]
    # state: (end, same end as e_k, labels in the run of opens sharing start and end) -> cost
    best: dict[tuple[int, bool, tuple[str, ...]], int] = {}
    for v in cands:
        if v >= low:
            key = (v, True, (label,))
            best[key] = _own(remaining, label, start, v, 0, start == j) - _inside(remaining, j, v)
    for t in range(len(levels) - 2, -1, -1):
        label, start = levels[t]
        inner_start = levels[t + 1][1]
        step: dict[tuple[int, bool, tuple[str, ...]], int] = {}
        for (v, same, run), cost in best.items():
            for w in cands if t else (n,):
                if w < v:
                    continue
                keep = w == v and start == inner_start
                run_now = run if keep else ()
                value = cost - _inside(remaining, v, w) + _own(
                    remaining, label, start, w, run_now.count(label), start == j and same and w == v)
                key = (w, same and w == v, tuple(sorted(run_now + (label,))))
                if value < step.get(key, value + 1):
                    step[key] = value
        best = step
    return min(cost for (v, _, _), cost in best.items() if v == n)


def _own(remaining: Counter, label: str, start: int, end: int, before: int, counted_inside: bool) -> int:
    """Cost of one open non-terminal closing at ``end``: +1 if wrong, -1 if it builds a gold copy not counted inside."""
    if before + 1 > remaining[(label, start, end)]:
        return 1
    return 0 if counted_inside else -1


# ---------------------------------------------------------------- limits


def limits_may_bind(system: ConstituencySystem, config: Configuration, gold: GoldIndex, remaining: Counter) -> bool:
    """True when the parsers' limits might make :func:`exact_loss` too small here (then search decides).

    Top-down: reaching the gold constituents needs at most (open now) +
    (nesting depth of the gold constituents in the buffer) open
    non-terminals. In-order: a unary chain longer than 3 could be needed
    where some span has, counting the chain already on the top item, more
    than 3 constituents still to come.
    """
    if not gold.in_order:
        limit = getattr(system, "max_open_nts", None)
        if limit is None:
            return False
        return config.open_count() + _depth(remaining, config.buffer) > limit + 1
    limit = getattr(system, "max_unary", 3)
    per_span: Counter = Counter()
    for (_, l, r), c in remaining.items():
        per_span[(l, r)] += c
    top = config.stack[-1] if config.stack else None
    chain = top.unary + 1 if type(top) is Built else 0
    top_span = span_of(top) if type(top) in (Built, Word) else None
    for (l, r), c in per_span.items():
        c += 1  # an open non-terminal may close there too
        if (l, r) == top_span:
            c += chain
        if c > limit:
            return True
    return chain + 1 > limit


def _depth(remaining: Counter, j: int) -> int:
    """Greatest nesting of the gold constituents not built yet that start at or after ``j``."""
    spans = sorted(((l, -r) for (_, l, r), c in remaining.items() if l >= j for _ in range(c)))
    depth, ends = 0, []
    for l, neg_r in spans:
        while ends and ends[-1] <= l:
            ends.pop()
        ends.append(-neg_r)
        depth = max(depth, len(ends))
    return depth
