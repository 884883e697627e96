"""The paper's loss for the top-down and in-order systems (Fernández-González & Gómez-Rodríguez 2018, §3.1-3.2); not exact, see dynamic.py."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from typing import Any, Sequence

from treetool.budget import UNLIMITED, refuse_large_table

from .gold_index import GoldIndex
from .system import Configuration, ConstituencySystem, Open, span_of

__all__ = ["PaperCosts", "paper_loss"]


def paper_loss(config: Configuration, gold: GoldIndex) -> int:
    """Fernández-González & Gómez-Rodríguez 2018, §3.1-3.2: |U(c)| + |γ_c \\ γ_G| + |α_c \\ α_G| + out_of_order(α_c, α_G).

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
    """Gold constituents not built yet that none of the paper's reachability conditions (§3.2) covers.

    In-order condition (iii) as the paper's prose states it, not as its
    formula does: the formula asks only that ``l`` start *some* stack item,
    the prose that the first child be "a totally- or partially-built
    constituent on top of the stack" — the completed item starting at ``l``
    is the top, or sits directly below an open non-terminal (it is the first
    child of a constituent still being built, which will start at ``l``).
    Any other item starting at ``l`` has a completed item directly above it,
    so both are children of the same open non-terminal, and no reduction can
    make it the first child of anything again. The prose is also what the
    authors' parser implements (``authors_loss``, rule 3), and with the
    formula's reading SHIFT looks optimal on the gold path where ``PJ(X)`` is
    needed (e.g. stack ``[NP(0,1), S*, w1]``: SHIFT buries ``w1``, the first
    child of the gold VP). (iv)'s adjacency implies the same set of starts.
    """
    j = config.buffer
    starts = set()  # in-order: the starts of the items that can still be a first child (iii, prose reading)
    adjacent = set()  # in-order (iv): (label, l, m) of an open X at m whose item below spans (l, m)
    stack = config.stack
    for k, item in enumerate(stack):
        if type(item) is Open and gold.in_order and k > 0 and type(stack[k - 1]) is not Open:
            start, end = span_of(stack[k - 1])
            starts.add(start)
            if end == item.position:
                adjacent.add((item.label, start, end))
    if stack and type(stack[-1]) is not Open:
        starts.add(span_of(stack[-1])[0])
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


#: Memory of one entry of ``PaperCosts.crossing``: a list slot (the entry tuples are shared), with over-allocation.
_BYTES_PER_CROSSING = 9


class PaperCosts:
    """The cost ``paper_loss(a(c)) - paper_loss(c)`` of every legal action of a configuration, in one pass.

    Fernández-González & Gómez-Rodríguez (2018, §3.1-3.2) define the loss as a sum of per-constituent and
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
    * ``SHIFT``, ``REDUCE``, ``TERM``: the terms of the one successor, from
      the stack state changed in place and restored (``O(crossing)``).

    The stack terms (:class:`_StackState`) and ``built`` (the successor's is
    the same tuple or one span longer) are kept in step along a walk; any
    other configuration is summarised from scratch, so ``costs`` may be
    called on configurations in any order.
    """

    def __init__(self, system: ConstituencySystem, gold: GoldIndex, labels: Sequence[str],
                 budget: Any = UNLIMITED) -> None:
        """The per-sentence lists; ``crossing`` holds a gold span once per word it covers, O(n * depth) in all:
        refused beyond the memory limit, and ``budget`` checked once per span while it is filled."""
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
        self.by_second: dict[tuple[str, int], list[tuple]] = {}  # in-order: crossing entries by (X, m)
        refuse_large_table(sum(r - l for _, l, r in gold.counts), _BYTES_PER_CROSSING,
                           f"the paper loss's lists for {n} words")
        for span, count in gold.counts.items():
            budget.check()
            label, l, r = span
            m = gold.nt_second[span] if self.in_order else l
            entry = (span, count, (label, l), (label, m), (label, l, m), l)
            for j in range(l + 1, r + 1):
                self.crossing[j].append(entry)
            if self.in_order:
                self.second_labels[m].add(label)
                self.by_second.setdefault((label, m), []).append(entry)
        self.nt_labels: list[set[str]] = [set() for _ in range(n + 2)]
        for label, position in gold.nt_rank:
            self.nt_labels[position].add(label)
        kind = system.nonterminal_kind
        self.spelled = {label: f"{kind}({label})" for label in labels}
        self.all_wrong = dict.fromkeys(self.spelled.values(), 1)
        self._built: tuple | None = None
        self._made: dict = {}
        self._matched = 0
        self.stack = _StackState(gold.nt_rank, self.in_order)

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
        """Every legal action's cost (legal order; ``NT``/``PJ`` once per label): paper_loss(after) minus the
        least paper_loss(after) over the legal actions.

        Relative to the best action rather than to ``paper_loss(before)``:
        the formula is not the true minimum, so the loss before can be
        below every successor's (no action would cost 0) or above one (a
        negative cost); measured from the best, every step has an optimal action.
        """
        losses = self.losses_after(config)
        least = min(losses.values(), default=0)
        return {action: loss - least for action, loss in losses.items()}

    def losses_after(self, config: Configuration) -> dict[str, int]:
        """Every legal action's paper_loss(after) - paper_loss(before) (legal order; ``NT``/``PJ`` once per label)."""
        kinds = self.system.legal(config)
        if not kinds:
            return {}
        made, matched = self._match(config.built)
        now = self.stack
        now.sync(config.stack)
        j = config.buffer
        top = self._top_start(config)
        reach = self._reach(self.crossing[j], made, top)
        wrong_built = len(config.built) - matched
        base = ((self.gold.size - matched) - self.from_count[j] - reach + wrong_built
                + now.wrong + len(now.ranks) - len(now.tails))
        out: dict[str, int] = {}
        for kind in kinds:
            if kind == "SHIFT":
                out["SHIFT"] = self._shift_cost(j, made, reach)
            elif kind == "REDUCE":
                out["REDUCE"] = self._reduce_loss(config, made, matched) - base
            elif kind == "TERM":
                out["TERM"] = (self.gold.size - matched) + wrong_built - base
            else:
                self._labelled_costs(out, config, made, top)
        return out

    def _top_start(self, config: Configuration) -> int | None:
        """In-order: the start of the top item when it is completed (it can be a first child, §3.2 iii)."""
        stack = config.stack
        if not self.in_order or not stack or type(stack[-1]) is Open:
            return None
        return span_of(stack[-1])[0]

    def _shift_cost(self, j: int, made: dict, reach: int) -> int:
        """SHIFT: gold constituents starting at j leave ``from``; the crossing ones are those of j+1, the shifted
        word the top (the item it buries has a completed item above it: no longer a first child)."""
        after = self._reach(self.crossing[j + 1], made, j if self.in_order else None)
        return self.from_count[j] - self.from_count[j + 1] + reach - after

    def _labelled_costs(self, out: dict[str, int], config: Configuration, made: dict, top: int | None) -> None:
        """``NT(X)``/``PJ(X)`` for every label: 1 unless a gold non-terminal (X, j) makes X special."""
        j, now = config.buffer, self.stack
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
            entries = self.by_second.get(key) if self.in_order else None
            if entries:  # (iii)/(iv) change only for the gold constituents whose second child starts at j under X
                cost += self._reach(entries, made, top) - self._reach_with_open(config, label, made, entries, top)
            out[spelled] = cost

    def _reach_with_open(self, config: Configuration, label: str, made: dict, entries: list[tuple],
                         top: int | None) -> int:
        """In-order: how many of the crossing constituents ``entries`` are reachable once ``PJ(label)`` is pushed
        (the top item becomes a first child: the starts that count are the same)."""
        j, now = config.buffer, self.stack
        key = (label, j)
        now.opened[key] = now.opened.get(key, 0) + 1
        start, end = span_of(config.stack[-1])
        adjacency = (label, start, j) if end == j else None
        if adjacency is not None:
            now.adjacent[adjacency] = now.adjacent.get(adjacency, 0) + 1
        reach = self._reach(entries, made, top)
        _discount(now.opened, key)
        if adjacency is not None:
            _discount(now.adjacent, adjacency)
        return reach

    def _reduce_loss(self, config: Configuration, made: dict, matched: int) -> int:
        """paper_loss after REDUCE, from the stack summary before it (undone and redone in place)."""
        stack, j, now = config.stack, config.buffer, self.stack
        k = now.opens[-1]
        top = stack[k]
        adjacency = top_start = None
        if self.in_order:
            # The first child leaves the first-child starts and the built constituent, with its start, is the
            # top: the starts that count are the same.
            start = top_start = span_of(stack[k - 1])[0]
            adjacency = now.log[k][2]
        else:
            start = span_of(stack[k + 1])[0]
        span = (top.label, start, j)
        done = made.get(span, 0)
        matched += done < self.gold.counts.get(span, 0)
        _discount(now.opened, top)
        if adjacency is not None:
            _discount(now.adjacent, adjacency)
        made[span] = done + 1  # built once more, for the reach only: undone below
        reach = self._reach(self.crossing[j], made, top_start)
        _discount(made, span)
        now.opened[top] = now.opened.get(top, 0) + 1
        if adjacency is not None:
            now.adjacent[adjacency] = now.adjacent.get(adjacency, 0) + 1
        change = now.log[k][1]
        if change is None:  # the top open non-terminal was wrong
            wrong, out_of_order = now.wrong - 1, len(now.ranks) - len(now.tails)
        else:  # its rank leaves: the tails lose their last entry if it was appended for it
            wrong = now.wrong
            out_of_order = len(now.ranks) - 1 - (len(now.tails) - (change[1] is None))
        return ((self.gold.size - matched) - self.from_count[j] - reach + (len(config.built) + 1 - matched)
                + wrong + out_of_order)

    def _reach(self, crossing: list[tuple], made: dict, top: int | None) -> int:
        """Gold constituents with l < j <= r still to build and individually reachable (§3.2 iii, iv), counted.

        In-order: ``l`` must start the top item (``top``, None when the top
        is open) or an item directly below an open non-terminal (prose
        reading of (iii), :func:`_paper_unreachable`).
        """
        total = 0
        opened = self.stack.opened
        if self.in_order:
            starts, adjacent = self.stack.starts, self.stack.adjacent
            for span, count, _, key_m, adjacency, l in crossing:
                if (l == top or l in starts) and (not opened.get(key_m) or adjacency in adjacent):
                    left = count - made.get(span, 0)
                    if left > 0:
                        total += left
        else:
            for span, count, key_l, _, _, _ in crossing:
                if opened.get(key_l):
                    left = count - made.get(span, 0)
                    if left > 0:
                        total += left
        return total


def _discount(counts: dict, key: Any) -> None:
    """One less ``key`` in a dict of counts (a count of 0 is removed, so membership means > 0)."""
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]


class _StackState:
    """The stack terms of Fernández-González & Gómez-Rodríguez 2018, §3.1-3.2, kept in step with the stack along a walk.

    One undo entry per stack item, so a successor (one item pushed, or
    items popped and one pushed) costs O(1) amortised instead of a pass over
    the stack: open non-terminals by key (counts), gold ranks in stack order
    with their patience tails (Fredman 1975), wrong open non-terminals, and
    for in-order the starts of the first children of the open non-terminals
    and the (X, l, m) adjacencies (iv).
    """

    def __init__(self, nt_rank: dict, in_order: bool) -> None:
        self.nt_rank, self.in_order = nt_rank, in_order
        self.stack: tuple = ()
        self.log: list[tuple] = []
        self.opened: dict = {}
        self.ranks: list[int] = []
        self.tails: list[int] = []
        self.wrong = 0
        self.opens: list[int] = []
        self.starts: dict[int, int] = {}
        self.adjacent: dict[tuple, int] = {}

    def sync(self, stack: tuple) -> None:
        """Make the state that of ``stack`` (cheap when it is a successor of the last one)."""
        old = self.stack
        if stack is old:
            return
        keep = len(stack) - 1
        if not (keep >= 0 and len(old) >= keep and stack[:keep] == old[:keep]):
            keep = 0
        while len(self.log) > keep:
            self._pop()
        for index in range(keep, len(stack)):
            self._push(stack, index)
        self.stack = stack

    def _push(self, stack: tuple, index: int) -> None:
        item = stack[index]
        if type(item) is not Open:
            self.log.append((None, None, None, None))
            return
        start = None
        if self.in_order and index and type(stack[index - 1]) is not Open:  # its first child
            start = span_of(stack[index - 1])[0]
            self.starts[start] = self.starts.get(start, 0) + 1
        seen = self.opened.get(item, 0)
        self.opened[item] = seen + 1
        self.opens.append(index)
        candidates = self.nt_rank.get(item, ())
        change = None
        if seen < len(candidates):
            rank = candidates[seen]
            self.ranks.append(rank)
            place = bisect_left(self.tails, rank)
            if place == len(self.tails):
                change = (place, None)
                self.tails.append(rank)
            else:
                change = (place, self.tails[place])
                self.tails[place] = rank
        else:
            self.wrong += 1
        adjacency = None
        if self.in_order and index and type(stack[index - 1]) is not Open:
            first, end = span_of(stack[index - 1])
            if end == item.position:
                adjacency = (item.label, first, end)
                self.adjacent[adjacency] = self.adjacent.get(adjacency, 0) + 1
        self.log.append((item, change, adjacency, start))

    def _pop(self) -> None:
        item, change, adjacency, start = self.log.pop()
        if start is not None:
            _discount(self.starts, start)
        if item is None:
            return
        _discount(self.opened, item)
        self.opens.pop()
        if change is None:
            self.wrong -= 1
        else:
            self.ranks.pop()
            place, previous = change
            if previous is None:
                self.tails.pop()
            else:
                self.tails[place] = previous
        if adjacency is not None:
            _discount(self.adjacent, adjacency)


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
