"""The paper's loss for the top-down and in-order systems (papers/001 §3.1-3.2); not exact, see dynamic.py."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from typing import Sequence

from .gold_index import GoldIndex
from .system import Configuration, ConstituencySystem, Open, span_of
from .tree import Span

__all__ = ["PaperCosts", "paper_loss"]


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
    return len(_tails(values))


class PaperCosts:
    """The cost ``paper_loss(a(c)) - paper_loss(c)`` of every legal action of a configuration, in one pass.

    papers/001 §3.1-3.2 define the loss as a sum of per-constituent and
    per-non-terminal terms, so an action changes only a few of them; this
    class evaluates those changes directly instead of applying every action
    and recomputing :func:`paper_loss` (which stays the test reference).
    Decomposition used (``j`` = buffer, ``matched`` = built constituents that
    are gold, as multisets)::

        |U(c)| = (size - matched) - from[j] - reach(crossing[j])

    Gold constituents starting at or after ``j`` (``from[j]`` of them, none
    built yet) are always reachable (conditions ii); those ending before
    ``j`` never are; only the gold constituents with ``l < j <= r``
    (``crossing[j]``, at most the tree's depth) depend on the stack, through
    the open non-terminals (top-down iii; in-order iii/iv: stack starts,
    open ``(X, m)``, adjacency of the first child). Per action:

    * ``NT(X)``/``PJ(X)``: one more open ``(X, j)`` — wrong (+1), or the next
      gold rank of ``(X, j)``, out of order unless it extends the longest
      increasing subsequence (+1 unless it is above the patience tails'
      last). Top-down reachability is unchanged; in-order only gold
      constituents whose second child starts at ``j`` with label X change.
      A label with no gold non-terminal ``(X, j)`` costs 1; those are the
      same dict for every configuration, copied once.
    * ``SHIFT``, ``REDUCE``, ``TERM``: the terms recomputed for the one
      successor from the stack summary (``O(stack + crossing)``).

    ``built`` is summarised incrementally along a walk (the successor's
    ``built`` is the same tuple or one span longer).
    """

    def __init__(self, system: ConstituencySystem, gold: GoldIndex, labels: Sequence[str]) -> None:
        self.system, self.gold = system, gold
        self.in_order = gold.in_order
        n = gold.n
        self.from_count = [0] * (n + 2)
        for (_, l, _), count in gold.counts.items():
            self.from_count[l] += count
        for j in range(n - 1, -1, -1):
            self.from_count[j] += self.from_count[j + 1]
        self.crossing: list[list[tuple]] = [[] for _ in range(n + 2)]
        self.second_labels: list[set[str]] = [set() for _ in range(n + 2)]
        for span, count in gold.counts.items():
            label, l, r = span
            m = gold.nt_second[span] if self.in_order else l
            entry = (span, count, (label, l), (label, m), (label, l, m), l)
            for j in range(l + 1, r + 1):
                self.crossing[j].append(entry)
            if self.in_order:
                self.second_labels[m].add(label)
        self.nt_labels: list[set[str]] = [set() for _ in range(n + 2)]
        for label, position in gold.nt_rank:
            self.nt_labels[position].add(label)
        kind = system.nonterminal_kind
        self.spelled = {label: f"{kind}({label})" for label in labels}
        self.all_wrong = dict.fromkeys(self.spelled.values(), 1)
        self._built: tuple | None = None
        self._made: dict = {}
        self._matched = 0

    def _match(self, built: tuple) -> tuple[dict, int]:
        """How many of each span are built, and how many built spans are gold (multiset intersection)."""
        if built is not self._built:
            previous = self._built
            if previous is not None and len(built) == len(previous) + 1 and built[:-1] == previous:
                span = built[-1]
                made = self._made
                done = made.get(span, 0)
                made[span] = done + 1
                if done < self.gold.counts.get(span, 0):
                    self._matched += 1
            else:
                counts = self.gold.counts
                self._made = made = {}
                for span in built:
                    made[span] = made.get(span, 0) + 1
                self._matched = sum(min(k, counts.get(span, 0)) for span, k in made.items())
            self._built = built
        return self._made, self._matched

    def costs(self, config: Configuration) -> dict[str, int]:
        """Every legal action's cost (legal order; ``NT``/``PJ`` once per label): paper_loss(after) - paper_loss(before)."""
        kinds = self.system.legal(config)
        if not kinds:
            return {}
        made, matched = self._match(config.built)
        now = _Summary(config.stack, self.gold.nt_rank, self.in_order)
        j = config.buffer
        reach = self._reach(self.crossing[j], now.opened, now.starts, now.adjacent, made, None)
        wrong_built = len(config.built) - matched
        base = (self.gold.size - matched) - self.from_count[j] - reach + wrong_built + now.wrong + now.out_of_order
        out: dict[str, int] = {}
        for kind in kinds:
            if kind == "SHIFT":
                starts = now.starts | {j} if self.in_order else now.starts
                after = self._reach(self.crossing[j + 1], now.opened, starts, now.adjacent, made, None)
                out["SHIFT"] = self.from_count[j] - self.from_count[j + 1] + reach - after
            elif kind == "REDUCE":
                out["REDUCE"] = self._reduce_loss(config, now, made, matched) - base
            elif kind == "TERM":
                out["TERM"] = (self.gold.size - matched) + wrong_built - base
            else:
                self._labelled_costs(out, config, now, made, reach)
        return out

    def _labelled_costs(self, out: dict[str, int], config: Configuration, now: "_Summary", made: dict,
                        reach: int) -> None:
        """``NT(X)``/``PJ(X)`` for every label: 1 unless a gold non-terminal (X, j) makes X special."""
        j = config.buffer
        out.update(self.all_wrong)
        special = self.nt_labels[j] | self.second_labels[j] if self.in_order else self.nt_labels[j]
        for label in special:
            spelled = self.spelled.get(label)
            if spelled is None:
                continue
            key = (label, j)
            seen = now.opened.get(key, 0)
            ranks = self.gold.nt_rank.get(key, ())
            if seen < len(ranks):
                cost = 0 if not now.tails or ranks[seen] > now.tails[-1] else 1
            else:
                cost = 1
            if self.in_order:
                opened = dict(now.opened)
                opened[key] = seen + 1
                start, end = span_of(config.stack[-1])
                adjacent = now.adjacent | {(label, start, j)} if end == j else now.adjacent
                cost += reach - self._reach(self.crossing[j], opened, now.starts, adjacent, made, None)
            out[spelled] = cost

    def _reduce_loss(self, config: Configuration, now: "_Summary", made: dict, matched: int) -> int:
        """paper_loss after REDUCE, from the summary of the stack before it."""
        stack, j, k = config.stack, config.buffer, now.top
        top = stack[k]
        if self.in_order:
            start = span_of(stack[k - 1])[0]
            starts = set(now.start_list[:k])
            adjacent = now.adjacent - {(top.label, start, top.position)}
        else:
            start = span_of(stack[k + 1])[0]
            starts, adjacent = now.starts, now.adjacent
        span = (top.label, start, j)
        gained = made.get(span, 0) < self.gold.counts.get(span, 0)
        opened = dict(now.opened)
        opened[top] -= 1
        reach = self._reach(self.crossing[j], opened, starts, adjacent, made, span)
        matched += gained
        if now.top_ranked:
            wrong, ranks = now.wrong, now.ranks[:-1]
            out_of_order = len(ranks) - len(_tails(ranks))
        else:
            wrong, out_of_order = now.wrong - 1, now.out_of_order
        return ((self.gold.size - matched) - self.from_count[j] - reach + (len(config.built) + 1 - matched)
                + wrong + out_of_order)

    def _reach(self, crossing: list[tuple], opened: dict, starts: set[int], adjacent: set, made: dict,
               extra: Span | None) -> int:
        """Gold constituents with l < j <= r still to build and individually reachable (§3.2 iii, iv), counted."""
        total = 0
        in_order = self.in_order
        for span, count, key_l, key_m, adjacency, l in crossing:
            left = count - made.get(span, 0) - (span == extra)
            if left <= 0:
                continue
            if in_order:
                if l in starts and (not opened.get(key_m) or adjacency in adjacent):
                    total += left
            elif opened.get(key_l):
                total += left
        return total


class _Summary:
    """What :class:`PaperCosts` reads off a stack in one pass (papers/001 §3.1-3.2 terms)."""

    __slots__ = ("opened", "ranks", "tails", "wrong", "out_of_order", "top", "top_ranked", "start_list", "starts",
                 "adjacent")

    def __init__(self, stack: tuple, nt_rank: dict, in_order: bool) -> None:
        self.opened: dict = {}
        self.ranks: list[int] = []
        self.wrong = 0
        self.top = -1
        self.top_ranked = False
        self.start_list: list[int] = []
        self.adjacent: set = set()
        for k, item in enumerate(stack):
            if type(item) is Open:
                seen = self.opened.get(item, 0)
                candidates = nt_rank.get(item, ())
                self.top_ranked = seen < len(candidates)
                if self.top_ranked:
                    self.ranks.append(candidates[seen])
                else:
                    self.wrong += 1
                self.opened[item] = seen + 1
                self.top = k
                if in_order:
                    self.start_list.append(item.position)
                    below = stack[k - 1] if k else None
                    if below is not None and type(below) is not Open:
                        start, end = span_of(below)
                        if end == item.position:
                            self.adjacent.add((item.label, start, end))
            elif in_order:
                self.start_list.append(span_of(item)[0])
        self.starts = set(self.start_list)
        self.tails = _tails(self.ranks)
        self.out_of_order = len(self.ranks) - len(self.tails)


def _tails(values: Sequence[int]) -> list[int]:
    """Patience-sorting tails: ``len`` is the longest strictly increasing subsequence (Fredman 1975), and
    ``tails[-1]`` the smallest value such a subsequence can end with (a new value above it extends it)."""
    tails: list[int] = []
    for v in values:
        i = bisect_left(tails, v)
        if i == len(tails):
            tails.append(v)
        else:
            tails[i] = v
    return tails
