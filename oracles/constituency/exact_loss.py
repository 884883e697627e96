"""The exact loss of the top-down and in-order systems (Fernández-González & Gómez-Rodríguez 2018, §3.1): a min-plus chain over the open ends.

Loss of a configuration = the smallest Hamming distance (missed gold + wrong
built, multisets of ``(label, start, end)``) between the gold tree and any
final configuration reachable from it. Nobody has published an exact
formula for these systems; this one is derived here and checked against
exhaustive search (tests/test_constituency_dynamic.py).

**Decomposition.** The open non-terminals X_1 (bottom) .. X_k (top) will be
reduced at ends ``n >= e_1 >= ... >= e_k >= b`` (b = the buffer position).
Given the ends, the best future builds every gold constituent that is still
buildable and nothing else wrong, so

    loss = wrong built + gold not built yet - buildable(e) + wrong opens(e),

minimised over the ends. What is buildable:

* gold spans starting in the buffer (``s >= b``; none of them is built yet):
  all except those with an end strictly inside, ``s < e_i < t`` (they would
  cross X_i). Charged to the smallest such cut, the destroyed ones are
  ``sum T[c_(j-1)][c_j]`` over consecutive cuts ``b = c_0 <= c_1 <= ...``,
  with ``T[u][v] = #{gold (s, t): u <= s < v < t}`` (a per-sentence table);
* top-down: nothing else: a stack item's inside is fixed and the only new
  constituents start in the buffer. X_i becomes ``(X_i, p_i, e_i)``;
* in-order: X_t (its first child, the item below it, starts at s_t) is
  ``(X_t, s_t, e_t)``; after its reduction new non-terminals can be
  projected over it: the gold spans ``(s_t, r)`` with ``e_t <= r <= e_(t-1)``
  (``e_0 = n``) are buildable ("wrappers", X_t's own span included); so are
  the gold spans ``(a, r)``, ``b <= r <= e_k``, over the top completed item
  (start a). Nothing else: other items are fixed children. The starts s_t
  and a are all distinct, so the terms never count a span twice.

The loss is then a chain of min-plus steps over vectors indexed by an end
(numpy, O(n^2) per open non-terminal), computed bottom-up: the vector of a
stack prefix depends only on the prefix and the gold tree (not on b, except
at the entry ``e = b``, corrected at query time), so it is cached per
sentence and each step of a walk adds at most one level.

**Corners** (each has a test; all are where the paper's loss can differ):

1. top-down root: X_1 must end at n (RNNG reduces the last open
   non-terminal only with an empty buffer): a wrong root costs 1 and never
   becomes a smaller gold ``(X, 0, r)``;
2. top-down multisets: open non-terminals at the same position with the
   same label and end compete for the gold copies of that span, so the
   non-terminals of one position are grouped and split into blocks of equal
   ends (a block of m X's matches ``min(m, copies)``);
3. top-down, opens pushed at b (top of the stack): the innermost block ends
   at e_k with no cut inside ``(b, e_k)``, so new constituents can build the
   gold copies of ``(X, b, e_k)`` anyway: only surplus opens cost (1 each);
4. a gold span already built (a REDUCE since the last SHIFT, ending at b)
   cannot be matched again by an open non-terminal or wrapper ending at b:
   the entries at ``e = b`` use the remaining counts;
5. shared ends: a wrong or misplaced open non-terminal that closes inside a
   gold constituent starting in the buffer destroys it, and two open
   non-terminals whose gold ends are out of order cannot both be right;
6. in-order: X_t may close right at b with no child of its own (a unary
   node over its first child), and gold spans around the top item or
   around X_t are buildable only up to the end of the open non-terminal
   below;
7. in-order, Kparser's chains (exploring builds wrong unary chains): a
   chain of 4 unary nodes can be a first or middle child but not a last
   one (REDUCE needs the top's chain <= 3) nor end the sentence, and 5
   cannot be built. The chain on (s_k, b) if X_k closes at b (first child's
   chain + X_k + the gold wrappers left there), and on the top item's span
   (a, b), is priced at query time: when it is too long for where it ends
   up (the next end at b: a last child, 3; after b: 4), the DP leaves out
   gold wrappers (1 each), or that end is impossible.

**Limits.** The decomposition ignores the parsers' limits.
:func:`limits_may_bind` says when they might matter (then the caller asks
the exhaustive search): top-down when the open non-terminals plus the
nesting of the gold spans still to come could exceed RNNG's limit; in-order
when some span could carry a chain of more than 3 unary nodes (Kparser), i.e.
existing chain + gold constituents left on the span + an open non-terminal
that may close there.
"""

from __future__ import annotations

import weakref
from collections import Counter
from typing import Any, Iterable

import numpy as np

from treetool.budget import refuse_large_table

from .gold_index import GoldIndex
from .system import Built, Configuration, ConstituencySystem, Open, span_of

__all__ = ["ExactLoss", "exact_loss", "limits_may_bind"]

INF = 1 << 40
"""An impossible cost (int64 arithmetic: a few INF sums stay far from overflow)."""


class _Group:
    """Top-down: the open non-terminals of one position at the top of a stack prefix, and the DP vectors.

    ``vectors[j]`` (j = 0..len(labels)): the best cost of the prefix whose
    last block of equal ends stops after the group's j-th non-terminal, as a
    function of that end; ``vectors[0]`` is the input from the group below.
    """

    __slots__ = ("position", "labels", "vectors", "first")

    def __init__(self, position: int, labels: tuple[str, ...], vectors: list[np.ndarray], first: bool) -> None:
        self.position, self.labels, self.vectors, self.first = position, labels, vectors, first


#: Memory per (s, t) of the per-sentence tables: ten int64 tables and temporaries of size (n+1)^2 (spans, the cut
#: table's two sums, the cuts twice, wrap, lengths, chain excess, and a row-broadcast sum per query).
_BYTES_PER_CELL = 80


class ExactLoss:
    """The exact loss for one gold tree: per-sentence tables and the cache of stack-prefix vectors."""

    def __init__(self, gold: GoldIndex) -> None:
        self.gold = gold
        n = self.n = gold.n
        size = n + 1
        refuse_large_table(size * size, _BYTES_PER_CELL, f"the exact loss's tables for {n} words")
        self.in_order = gold.in_order
        self.by_label_start: dict[tuple[str, int], np.ndarray] = {}
        spans = np.zeros((size, size), dtype=np.int64)  # spans[s, t] = gold constituents (s, t), any label
        for (label, start, end), count in gold.counts.items():
            self.by_label_start.setdefault((label, start), np.zeros(size, dtype=np.int64))[end] += count
            spans[start, end] += count
        self.spans = spans
        self.cuts = _cut_table(spans)
        self.cuts_strict = self.cuts.copy()
        self.cuts_strict[np.diag_indices(size)] = INF
        self.wrap = np.cumsum(spans, axis=1)  # wrap[s, r] = gold constituents (s, r') with r' <= r
        self.new = np.cumsum(spans.sum(axis=1)[::-1])[::-1]  # new[b] = gold constituents starting at >= b
        self.zero = np.zeros(size, dtype=np.int64)
        self.start = np.full(size, INF, dtype=np.int64)
        self.start[n] = 0
        self.depth = _depth_from(gold.spans, n)
        # Unary chains (limits_may_bind): gold nodes of a span minus its lowest node when it has >= 2 words.
        lengths = np.arange(size)[None, :] - np.arange(size)[:, None]
        self.chain_excess = np.where(spans > 0, spans - (lengths >= 2), -1)
        self.fresh_chain = np.maximum.accumulate(self.chain_excess.max(axis=1)[::-1])[::-1]
        self._prefixes: dict[tuple, object] = {}

    # ------------------------------------------------------------ query

    def loss(self, config: Configuration) -> int:
        """The exact loss of ``config`` (module doc), ignoring the parsers' limits."""
        stack, b = config.stack, config.buffer
        matched = self._matched(config.built)
        base = (self.gold.size - matched) + (len(config.built) - matched)
        if config.finished or (stack and not self.in_order and type(stack[0]) is not Open):
            return base  # the computation is over (top-down: the root is reduced)
        if not stack:
            return base - int(self.new[b])
        tail = self._at_buffer(config.built, b)
        best = self._in_order(stack, b, tail) if self.in_order else self._top_down(stack, b, tail)
        return base - int(self.new[b]) + int(best)

    def _matched(self, built: tuple) -> int:
        counts = self.gold.counts
        if not built:
            return 0
        made = Counter(built)
        return sum(min(c, counts.get(span, 0)) for span, c in made.items())

    @staticmethod
    def _at_buffer(built: tuple, b: int) -> Counter:
        """The constituents built since the last SHIFT (all end at b): a suffix of ``built``."""
        out: Counter = Counter()
        for k in range(len(built) - 1, -1, -1):
            if built[k][2] != b:
                break
            out[built[k]] += 1
        return out

    def _remaining_at(self, label: str, start: int, b: int, tail: Counter) -> int:
        gold = self.gold.counts.get((label, start, b), 0)
        return max(0, gold - tail.get((label, start, b), 0))

    # ------------------------------------------------------------ limits

    def limits_may_bind(self, system: ConstituencySystem, config: Configuration) -> bool:
        """True when the parsers' limits might make :meth:`loss` too small here (module doc, "Limits").

        Top-down: the best future needs at most (open now) + (nesting of the
        gold constituents starting in the buffer) open non-terminals; RNNG
        allows ``max_open_nts + 1``. In-order: the best future builds only
        gold constituents and closes the open non-terminals, so a chain of
        unary nodes on a span (l, r), r >= b, has at most: the chain already
        on the item being extended, plus the gold constituents of the span not
        built yet, plus 1 if an open non-terminal starts at l, minus 1 for the
        span's lowest node when r - l >= 2 (it has several children);
        Kparser allows 3 everywhere such a chain can end up.
        """
        if config.finished:
            return False
        if not self.in_order:
            return config.open_count() + self.depth[config.buffer] > system.max_open_nts + 1  # a TopDown
        limit = system.max_unary  # an InOrder: the gold index was built for its derivations
        b, stack = config.buffer, config.stack
        if self.fresh_chain[b] > limit:
            return True
        top_open = bool(stack) and type(stack[-1]) is Open
        opens = [span_of(stack[k - 1])[0] for k, item in enumerate(stack) if type(item) is Open]
        for k, start in enumerate(opens):
            low = b + 1 if top_open and k == len(opens) - 1 else b  # X_k closing at b: its first child's chain
            if int(np.max(self.chain_excess[start, low:], initial=-1)) + 1 > limit:
                return True
        if stack and not top_open:  # the chain on (a, b) itself is priced by loss() (corner 7)
            start = span_of(stack[-1])[0]
            if int(np.max(self.chain_excess[start, b + 1:], initial=-1)) > limit:
                return True
        return False

    # ------------------------------------------------------------ top-down

    def _top_down(self, stack: tuple, b: int, tail: Counter) -> int:
        """min over the ends of destroyed(e) + label terms (module doc, corners 1-4)."""
        opens = tuple((item.label, item.position) for item in stack if type(item) is Open)
        group = self._group(opens)
        if type(stack[-1]) is Open:  # the top group was pushed at b: corner 3
            vec = np.min([self._block(group.vectors[j], group.labels[j:], b, j > 0, group.first and j == 0,
                                      inside=True) for j in range(len(group.labels))], axis=0)
            low = b + 1
        else:
            vec = group.vectors[-1]
            if any(start == group.position and label in group.labels for label, start, _ in tail):
                vec = vec.copy()
                vec[b] = self._last_block_at_buffer(group, b, tail)  # corner 4
            low = b
        return int(np.min(vec[low:] + self.cuts[b, low:]))

    def _group(self, opens: tuple) -> _Group:
        """The cost vectors of the stack's open non-terminals ``opens``, grouped by position (cached per prefix).

        Built from the longest cached prefix up, one open non-terminal at a
        time, in a loop: a stack holds as many as the tree is deep.
        """
        known, start = self._longest_known(opens)
        group = known if start else _Group(-1, (), [self.start], True)
        for i in range(start, len(opens)):
            group = self._extended(group, *opens[i], i == 0)
            self._prefixes[opens[: i + 1]] = group
        return group

    def _longest_known(self, opens: tuple) -> tuple[Any, int]:
        """The cached entry of the longest prefix of ``opens`` and its length (0 and None: none cached)."""
        for length in range(len(opens), 0, -1):
            known = self._prefixes.get(opens[:length])
            if known is not None:
                return known, length
        return None, 0

    def _extended(self, below: _Group, label: str, position: int, first: bool) -> _Group:
        """``below`` with one more open non-terminal ``label`` at ``position`` on top."""
        if below.position == position:
            labels = below.labels + (label,)
            new = np.min([self._block(below.vectors[j], labels[j:], position, j > 0, below.first and j == 0)
                          for j in range(len(labels))], axis=0)
            return _Group(position, labels, below.vectors + [new], below.first)
        vec = self._block(below.vectors[-1], (label,), position, False, first)
        return _Group(position, (label,), [below.vectors[-1], vec], first)

    def _block(self, before: np.ndarray, labels: tuple[str, ...], position: int, strict: bool, root: bool,
               inside: bool = False) -> np.ndarray:
        """Cost vector over the end u of a block (labels at ``position``, all reduced at u) on top of ``before``."""
        cost = self._block_cost(labels, position, inside)
        if root:  # corner 1: the block holding the root ends at n
            out = np.full(self.n + 1, INF, dtype=np.int64)
            out[self.n] = before[self.n] + cost[self.n]
            return out
        table = self.cuts_strict if strict else self.cuts
        return np.minimum((before[None, :] + table).min(axis=1) + cost, INF)

    def _block_cost(self, labels: tuple[str, ...], position: int, inside: bool) -> np.ndarray:
        """Per end u: m - 2 min(m, copies) per label (corner 2), or max(0, m - copies) (corner 3)."""
        cost = self.zero
        for label, m in Counter(labels).items():
            copies = self.by_label_start.get((label, position), self.zero)
            cost = cost + (np.maximum(0, m - copies) if inside else m - 2 * np.minimum(m, copies))
        return cost

    def _last_block_at_buffer(self, group: _Group, b: int, tail: Counter) -> int:
        """The group's vector at end b with the remaining (not gold) counts of the spans ending at b."""
        best = INF
        for j in range(len(group.labels)):
            before = group.vectors[j]
            if group.first and j == 0:
                if b != self.n:
                    continue
                lead = int(before[b])
            else:
                lead = int(np.min(before[b + (j > 0):] + self.cuts[b, b + (j > 0):], initial=INF))
            cost = 0
            for label, m in Counter(group.labels[j:]).items():
                copies = self._remaining_at(label, group.position, b, tail)
                cost += m - 2 * min(m, copies)
            best = min(best, lead + cost)
        return best

    # ------------------------------------------------------------ in-order

    def _in_order(self, stack: tuple, b: int, tail: Counter) -> int:
        """min over the ends of destroyed(e) - wrappers(e) + wrong opens(e) (module doc, corners 4-6)."""
        opens = tuple((item.label, span_of(stack[k - 1])[0]) for k, item in enumerate(stack) if type(item) is Open)
        vec = self._levels(opens)
        top = stack[-1]
        if type(top) is Open:
            label, start = opens[-1]
            gold_here = self.gold.counts.get((label, start, b), 0)
            made = self._matched_at(start, b, tail)
            right = self._remaining_at(label, start, b, tail) > 0
            fix = made + (not right) - (gold_here == 0)
            # corner 7: X_k closing at b adds 1 to its first child's chain, and the wrappers left there add theirs
            wrappers = int(self.spans[start, b]) - made - right
            chain = _unary(stack[-2]) + 1 + wrappers
            if fix or chain > 3:
                vec = vec.copy()
                later = self._level_at_buffer(opens, b, True) + _excess(chain, wrappers, 4 if b < self.n else 3)
                vec[b] = min(INF, min(later, self._level_at_buffer(opens, b, False) + _excess(chain, wrappers, 3))
                             + fix)
            return int(np.min(vec[b:] + self.cuts[b, b:]))
        start = span_of(top)[0]
        made = self._matched_at(start, b, tail)
        wrappers = self.wrap[start, b:] - (self.wrap[start, b - 1] if b else 0)
        values = vec[b:] + self.cuts[b, b:] - wrappers
        left = int(self.spans[start, b]) - made
        chain = _unary(top) + left  # corner 7: the top item's chain at (a, b)
        if chain > 3:
            values = values.copy()
            values[0] += _excess(chain, left, 3 if opens or b == self.n else 4)  # e_k = b: a last child
            values[1:] += _excess(chain, left, 4)
        return made + int(min(INF, np.min(values)))

    def _level_at_buffer(self, opens: tuple, b: int, later: bool) -> int:
        """The top level's entry at e_k = b (static counts), the next end after b (``later``) or at b."""
        label, start = opens[-1]
        before = self._levels(opens[:-1])
        wrap = self.wrap[start]
        copies = self.by_label_start.get((label, start), self.zero)
        if later:
            inner = np.min(before[b + 1:] - wrap[b + 1:] + self.cuts[b, b + 1:], initial=INF)
        else:
            inner = before[b] - wrap[b]
        return int(min(INF, inner + (wrap[b - 1] if b else 0) + (copies[b] == 0)))

    def _matched_at(self, start: int, b: int, tail: Counter) -> int:
        """Gold copies among the constituents ``(·, start, b)`` built since the last SHIFT (no longer buildable)."""
        counts = self.gold.counts
        return sum(min(c, counts.get(span, 0)) for span, c in tail.items() if span[1] == start)

    def _levels(self, opens: tuple) -> np.ndarray:
        """In-order: the cost vector of the open non-terminals ``opens`` (cached per prefix, built in a loop)."""
        known, start = self._longest_known(opens)
        out = known if start else self.start
        for i in range(start, len(opens)):
            label, begin = opens[i]
            copies = self.by_label_start.get((label, begin), self.zero)
            wrap = self.wrap[begin]
            below = np.concatenate(([0], wrap[:-1]))
            vec = (out - wrap)[None, :] + self.cuts
            out = np.minimum(vec.min(axis=1) + below + (copies == 0), INF)
            self._prefixes[opens[: i + 1]] = out
        return out


def _excess(chain: int, wrappers: int, allowed: int) -> int:
    """Gold wrappers to leave out so that a chain of ``chain`` unary nodes (``wrappers`` of them gold wrappers
    that may be left out) fits in ``allowed`` (INF: it cannot)."""
    drop = max(0, chain - allowed)
    return drop if drop <= wrappers else INF


def _unary(item: object) -> int:
    """Kparser's chain count of a completed stack item (a word: 0)."""
    return item.unary if type(item) is Built else 0


def _cut_table(spans: np.ndarray) -> np.ndarray:
    """``T[u][v] = #{gold (s, t): u <= s < v < t}`` for u <= v, INF below the diagonal (module doc)."""
    size = spans.shape[0]
    after = np.zeros_like(spans)  # after[s, v] = gold (s, t) with t > v
    after[:, :-1] = np.cumsum(spans[:, ::-1], axis=1)[:, ::-1][:, 1:]
    before = np.zeros((size + 1, size), dtype=np.int64)  # before[u, v] = sum over s < u of after[s, v]
    before[1:] = np.cumsum(after, axis=0)
    table = before[np.arange(size), np.arange(size)][None, :] - before[:size]
    table[np.tril_indices(size, -1)] = INF
    return table


def _depth_from(spans: Iterable[tuple[str, int, int]], n: int) -> list[int]:
    """``depth[b]``: the greatest nesting of the gold constituents that start at or after b."""
    ordered = sorted((l, -r) for _, l, r in spans)
    depth = [0] * (n + 2)
    for b in range(n, -1, -1):
        ends: list[int] = []
        best = 0
        for l, neg_r in ordered:
            if l < b:
                continue
            while ends and ends[-1] <= l:
                ends.pop()
            ends.append(-neg_r)
            best = max(best, len(ends))
        depth[b] = best
    return depth


_TABLES: "weakref.WeakKeyDictionary[GoldIndex, ExactLoss]" = weakref.WeakKeyDictionary()


def exact_loss(config: Configuration, gold: GoldIndex) -> int:
    """The exact loss of ``config`` for ``gold``, ignoring the parsers' limits (tables kept per GoldIndex)."""
    tables = _TABLES.get(gold)
    if tables is None:
        tables = _TABLES[gold] = ExactLoss(gold)
    return tables.loss(config)


# ---------------------------------------------------------------- limits


def limits_may_bind(system: ConstituencySystem, config: Configuration, gold: GoldIndex) -> bool:
    """True when the parsers' limits might make :func:`exact_loss` too small here (then search decides)."""
    tables = _TABLES.get(gold)
    if tables is None:
        tables = _TABLES[gold] = ExactLoss(gold)
    return tables.limits_may_bind(system, config)
