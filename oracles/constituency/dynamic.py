"""Dynamic oracles for the top-down and in-order constituency systems (papers/001 §3).

The loss of a configuration c is the smallest Hamming distance (missed gold
constituents plus wrong built ones, as multisets of ``(label, start, end)``)
between the gold tree and the constituents of any final configuration
reachable from c; the cost of an action is the loss after it minus the loss
before it (papers/001 §3.1). Two ways of computing it:

``paper`` (:func:`paper_loss`)
    The paper's formula (§3.1, §3.2): individually unreachable gold
    constituents + wrong built constituents + wrong non-terminals on the
    stack + ``out_of_order`` (gold non-terminals on the stack minus the
    longest subsequence of them in gold order). Not exact under the real
    parsers' rules: see the README for the measured rate and the corners.

``exact`` (:func:`exact_loss`)
    The true minimum, by a different decomposition. Every reachable final
    tree is determined by the *ends* ``e_k <= ... <= e_1`` at which the open
    non-terminals X_k (top) .. X_1 will be reduced, plus new constituents;
    which gold constituents can still be built, given those ends, is local to
    the "level" between two consecutive ends (module-level notes in
    :func:`_in_order_levels` and :func:`_top_down_levels`). A dynamic program
    over the levels (innermost first; candidate ends are the gold ends, the
    buffer position and n) gives the minimum in O(k * m^2) for k open
    non-terminals and m candidate ends. This is exact for the unlimited
    systems; the parsers' limits (RNNG's open non-terminals, Kparser's unary
    chains) are checked by :func:`limits_may_bind`, and where they may change
    the answer the exhaustive search decides (short sentences) — see
    :class:`ConstituencyOracle`.

Corners where the paper's formula differs from the exact loss (each found by
comparing with exhaustive search, see tests/test_constituency_dynamic.py):

* a wrong non-terminal opened as the root (top-down: the first ``NT``) must
  span the whole sentence, so it can never become the gold constituent
  ``(X, 0, r)`` it is counted as (and costs 1 the paper does not see);
* an open non-terminal whose gold span was already built (a duplicate that
  cannot be gold a second time);
* ends are shared: two open non-terminals whose gold ends are out of order
  cannot both be right, and one wrong non-terminal forced to close at an end
  inside a gold constituent that starts in the buffer destroys that
  constituent (the paper counts each gold constituent only individually);
* in-order: a gold constituent whose first child is the top item can only
  be built if the open non-terminals above that item close early enough.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from typing import Iterable, Sequence

from .system import Built, Configuration, ConstituencySystem, Open, Word, span_of
from .tree import Node, Span, postorder, preorder

__all__ = [
    "LOSSES", "paper_loss", "exact_loss", "limits_may_bind", "GoldIndex", "ConstituencyOracle",
]

LOSSES = ("exact", "paper", "search")
"""``--loss`` values: the exact loss, the paper's formula, the exhaustive search (short sentences)."""


class GoldIndex:
    """What the losses need to know about one gold tree, computed once per sentence."""

    def __init__(self, gold: Node, system: ConstituencySystem) -> None:
        self.gold = gold
        self.n = gold.end
        self.in_order = system.nonterminal_kind == "PJ"
        self.spans = postorder(gold)
        self.counts = Counter(self.spans)
        self.size = len(self.spans)
        self.labels = frozenset(label for label, _, _ in self.spans)
        self.ends = sorted({end for _, _, end in self.spans})
        # Non-terminal index (the paper's (X, j)) of each gold node, and the order the static oracle opens them.
        order = _in_order_nodes(gold) if self.in_order else list(preorder(gold))
        self.nt_rank: dict[tuple[str, int], list[int]] = {}
        for rank, node in enumerate(order):
            self.nt_rank.setdefault((node.label, self.nt_position(node)), []).append(rank)
        self.nt_counts = Counter({key: len(ranks) for key, ranks in self.nt_rank.items()})
        self.nt_second = {node.span: self.nt_position(node) for node in order}

    def nt_position(self, node: Node) -> int:
        """The paper's index of a gold non-terminal: its start (top-down), the start of its 2nd child (in-order)."""
        if not self.in_order:
            return node.start
        first = node.children[0]
        return first.end if isinstance(first, Node) else first + 1

    def remaining(self, built: Iterable[Span]) -> tuple[Counter, int]:
        """Gold constituents not built yet (a multiset), and how many built ones are wrong."""
        made = Counter(built)
        return self.counts - made, sum((made - self.counts).values())


def _in_order_nodes(gold: Node) -> list[Node]:
    """The nodes in the order in-order pushes their non-terminals (after the first child, before the rest)."""
    out: list[Node] = []

    def visit(node: Node) -> None:
        first = node.children[0]
        if isinstance(first, Node):
            visit(first)
        out.append(node)
        for child in node.children[1:]:
            if isinstance(child, Node):
                visit(child)

    visit(gold)
    return out


# ---------------------------------------------------------------- the paper's loss


def paper_loss(config: Configuration, gold: GoldIndex) -> int:
    """papers/001 §3.1-3.2: |U(c)| + |γ_c \\ γ_G| + |α_c \\ α_G| + out_of_order(α_c, α_G).

    Multisets throughout (the paper's footnote 2 numbers repeated
    non-terminals apart): the k-th open ``(X, j)`` on the stack, bottom up,
    stands for the k-th gold non-terminal ``(X, j)`` in gold order.
    """
    if config.finished:
        return _hamming(config.built, gold)
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


def _hamming(built: Iterable[Span], gold: GoldIndex) -> int:
    remaining, wrong = gold.remaining(built)
    return sum(remaining.values()) + wrong


# ---------------------------------------------------------------- the exact loss


def exact_loss(config: Configuration, gold: GoldIndex) -> int:
    """The smallest Hamming loss of a final configuration reachable from ``config`` (no limits; module doc)."""
    if gold.in_order:
        if config.finished:
            return _hamming(config.built, gold)
    elif config.stack and not any(type(item) is Open for item in config.stack):
        return _hamming(config.built, gold)  # top-down: the root is reduced, the computation is over
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


# ---------------------------------------------------------------- the oracle


class ConstituencyOracle:
    """Costs of every legal action (``NT(X)``/``PJ(X)`` once per label) for one gold tree: the DynamicOracle interface.

    ``loss``: ``exact`` (:func:`exact_loss`; where :func:`limits_may_bind`
    says the parsers' limits might matter, the exhaustive search decides,
    which needs the sentence to have at most ``max_length`` words, else
    ``OracleUnavailable``), ``paper`` (:func:`paper_loss`) or ``search``
    (exhaustive search only, at most ``max_length`` words). Costs are ints,
    ``loss(a(c)) - loss(c)``; with ``paper`` they can be negative (its loss
    is not the true minimum).
    """

    def __init__(self, system: ConstituencySystem, gold: Node, labels: Sequence[str], loss: str = "exact",
                 max_length: int | None = 10) -> None:
        from oracles.system import OracleUnavailable

        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, not {loss!r}")
        self.system, self.gold_tree, self.labels, self.kind = system, gold, list(labels), loss
        self.gold = GoldIndex(gold, system)
        self.max_length = max_length
        self._memo: dict = {}
        if loss == "search" and max_length is not None and gold.end > max_length:
            raise OracleUnavailable(f"exact search is limited to {max_length} words; this sentence has {gold.end}")

    def loss(self, config: Configuration) -> int:
        """The loss of ``config`` under this oracle's ``loss`` option."""
        if self.kind == "paper":
            return paper_loss(config, self.gold)
        if self.kind == "exact":
            remaining, _ = self.gold.remaining(config.built)
            if not limits_may_bind(self.system, config, self.gold, remaining):
                return exact_loss(config, self.gold)
        return self._search(config)

    def _search(self, config: Configuration) -> int:
        from oracles.system import OracleUnavailable

        from .search import min_loss

        if self.max_length is not None and self.gold.n > self.max_length:
            raise OracleUnavailable(f"the parser's limits may bind here and exact search is limited to "
                                    f"{self.max_length} words; this sentence has {self.gold.n}")
        return int(min_loss(self.system, config, self.gold_tree, self.labels, None, self._memo))

    def costs(self, config: Configuration) -> dict[str, int]:
        """Every legal action's cost; labels absent from the gold tree all cost the same, computed once."""
        base = self.loss(config)
        apply, gold_labels = self.system.apply, self.gold.labels
        out: dict[str, int] = {}
        foreign: int | None = None
        for action in self.system.legal_actions(config, self.labels):
            if action.endswith(")") and action[3:-1] not in gold_labels:
                if foreign is None:
                    foreign = self.loss(apply(config, action)) - base
                out[action] = foreign
            else:
                out[action] = self.loss(apply(config, action)) - base
        return out

    def optimal(self, config: Configuration) -> list[str]:
        return [action for action, cost in self.costs(config).items() if cost == 0]
