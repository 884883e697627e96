"""The polynomial-time loss of Attardi's degree-2 system (Gómez-Rodríguez, Sartorio & Satta 2014).

The system (Gómez-Rodríguez et al. 2014, §3, Figure 1; ``treetool.oracles.attardi.Attardi(degree=2)``):
SH, LA, RA, LA2, RA2 over a stack and a buffer. The loss of a configuration c
(§2.2, eq. 2) is the smallest number of words with a wrong head (labelled: or
label) over the trees reachable from c; the cost of an action a is
loss(a(c)) - loss(c) (eq. 3).

How the loss is computed, as the paper does:

1. **Buffer reduction** (§5.2, :meth:`TabularLoss.reduced_buffer`): a gold
   subtree whose nodes in the buffer form a contiguous span is replaced by its
   root when it is *bottom-up complete* (no node of the span but the root has
   a gold dependent on the stack). Reconstructed / added here, and decided by
   exhaustive search (tests/test_oracles_attardi2.py): the span must be a tree
   by itself (every node but the root has its gold head in the span; a node
   whose gold head is on the stack or already attached cannot be built inside
   the span), and it must be derivable by the system on its own (the paper
   assumes a derivable gold tree; without this the reduction would count an
   underivable fragment as free).
2. **Tabular loss** (§4-5.3, Algorithm 1): items ``[h1, h2 h3]`` over spans of
   γ = stack + reduced buffer (computations that start with ``h1`` on top and
   end with ``h2 h3`` on top, never touching the stack below ``h1``; §4), each
   with its smallest number of wrong arcs; two adjacent items combine with one
   reduction (lines 14-28). Cells that start in the stack only admit the
   computations that pass through c (shifts of the stack nodes in order, no
   reduction before the last one; the ranges of lines 8-12). The tables
   start at "$" below the root (line 1) and end with ``[$, $0]`` (line 13).
   Not used: the pruning of lines 18-27 (cells inside the reduced buffer
   build a wrong arc only when the dependent's gold head is not in γ; the
   conversion garbles the condition, "h5 ∉ γ" names the head). Read as the
   prose says, exhaustive search refutes it: gold tree 1<-0, 2<-1, 3<-0,
   4<-2, 5<-2, stack [0, 1], buffer [2..5]: the loss is 1 and both SH and
   RA cost 0 (after SH, 1 is buried and 2 must take a wrong head inside the
   buffer, while its gold head 1 is still in γ), the pruned table costs
   SH 1. Without it the table is exact on every configuration of every tree
   of up to 5 words (4.7 million) and along random walks.

What this module adds for speed and for costs (not in the paper). The
paper computes one table per loss; a walk needs the loss of every successor
of every configuration, and a full table per successor was about 100 times
too slow on Greek-GDT (issue 11). The tables below compute the same minima
(Algorithm 1's items and reductions, unchanged); what changes is which items
are built:

* Each action's value loss(a(c)) + δ(a) is first pinned between a lower
  bound and an upper bound. Lower: δ(a) plus the *orphans* of a(c)
  (unattached words whose gold head was already reduced;
  :meth:`TabularLoss.orphans`), plus one when the canonical completion of
  a(c) gives some other word a wrong head (it then has no completion
  without one: :meth:`TabularLoss.canonical_future`); and the loss of c
  when c is a successor seen before (no action goes below it). Upper: δ(a)
  plus the best of a few greedy completions
  (:meth:`TabularLoss.greedy_future`), and for a reduction the loss of c
  plus the orphans it makes (:meth:`AttardiDegree2Oracle._bounds`). When
  they meet, no table is built: along exploring walks over English-EWT
  (error rate 0.1) only 0.4% of the actions need one. The greedy
  completions are memoised per sentence on the configurations they pass
  (:meth:`TabularLoss._greedy_wrong_arcs`), the successors' orphans are
  counted from c's (:meth:`TabularLoss.orphans_after_reduction`) and handed
  to the next configuration, and a reduction from a configuration with no
  wrong arc to come but its orphans runs no completion at all, so most
  actions cost a few look-ups along a walk, not O(n).
* The other actions share c's table: each item that contains c is tagged
  with the first transition taken after c, so min over the items with tag a
  is loss(a(c)) + δ(a), when the reduced buffer of c is also a(c)'s (or a
  shifts a b0 that starts no fragment, :meth:`AttardiDegree2Oracle._same_reduction`)
  and a makes no new orphan (checked; otherwise a(c) gets its own table, in
  which those orphans are free, see the next point).
* Orphans of γ (words of γ whose gold head is not in γ) get a wrong head in
  every completion: the tables count their arcs as 0 and the caller adds
  their number, so an unavoidable error does not widen the search.
* Branch and bound with iterative deepening: a table is asked "is there a
  computation of value ``b``?" with b from the lower bound up; an item is
  dropped when its value plus a lower bound on what any completion still
  adds exceeds b (stack cells: live words whose gold head the item has
  reduced, :meth:`TabularLoss._rest_terms`; buffer cells: such words right
  of the span, :meth:`TabularLoss._right_orphans`). The bound is admissible,
  so the sub-items of an optimal computation are never dropped and the
  answer is exact; the small bounds come first because they prune the most.
  A table for a successor's own loss needs no tags (``merged``), and a
  stack cell forms no pair that its bound already rules out (``slack`` of
  :meth:`TabularLoss._rest_terms`; right parts only for the bound left).
* Cells entirely in the reduced buffer do not depend on the stack except
  through ``h1``; they are memoised per sentence on (nodes, h1, which nodes
  are orphans) with the bound they were built for, so successive
  configurations of a walk and the successors of one configuration share
  them. Stack cells are filled by loops and buffer cells from an explicit
  list, without recursion, so a long reduced buffer meets the time budget,
  never Python's recursion limit.
* The labelled loss differs from the unlabelled one only by the arcs already
  built (future arcs take the gold label), so costs are computed unlabelled.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Sequence

from treetool.budget import UNLIMITED

from .canonical import bottom_up_run
from .configuration import Action, Configuration, gold_tree
from .errors import ConfigurationMismatch
from .layout import check_arrangement, check_configuration
from .vocabulary import CostVectors

__all__ = ["TabularLoss", "AttardiDegree2Oracle", "FIRST_ACTIONS", "ANY_FIRST"]

FIRST_ACTIONS = ("SH", "LA", "RA", "LA2", "RA2")
_SHIFT, _LA, _RA, _LA2, _RA2 = FIRST_ACTIONS
_NONE = None  # tag of the one item that ends exactly in c (no transition after c yet)
ANY_FIRST = "any"  # the one tag of every item of a merged table (TabularLoss.first_action_losses)
_BOTTOM = -1  # "$", the bottom of the stack below the root (Algorithm 1, line 1)
_GREEDY_MEMO_SIZE = 1 << 15  # configurations of greedy completions remembered per sentence (_greedy_wrong_arcs)


class TabularLoss:
    """Future losses of configurations and of their successors for one gold tree (Gómez-Rodríguez, Sartorio & Satta
    2014, §5.2 and Algorithm 1; module doc)."""

    def __init__(self, gold_heads: Sequence[int], budget: Any = None) -> None:
        self.heads = gold_tree(gold_heads)[0]
        self.n = len(self.heads) - 1
        self.children: list[list[int]] = [[] for _ in range(self.n + 1)]
        for d in range(1, self.n + 1):
            self.children[self.heads[d]].append(d)
        self.budget = UNLIMITED if budget is None else budget
        # gold heads for the bounds, where "$" (index -1) and the root's -1 match no node
        self._up = [-2, *self.heads[1:], -2]
        self._buffer_cells: dict[tuple, tuple[int, list[tuple[int, int, int, int]]]] = {}
        self._candidates: dict[int, list[list[tuple[int, int, frozenset[int]]]]] = {}
        self._derivable: dict[tuple[int, int], bool] = {}
        self._crossing: list[int] | None = None
        self._greedy_memo: dict[tuple, int] = {}
        self._pending: dict[int, list[int]] = {}

    # ------------------------------------------------------------------ §5.2
    def reduced_buffer(self, stack: Sequence[int], b0: int) -> list[int]:
        """β_R for the buffer ``b0..n`` under ``stack`` (module doc, step 1): the root of each maximal fragment."""
        if b0 > self.n:
            return []
        starting = self._fragments(b0)
        on_stack = set(stack)
        out = []
        p = b0
        while p <= self.n:
            for last, root, forbidden in starting[p - b0]:  # largest first
                if on_stack.isdisjoint(forbidden):
                    out.append(root)
                    p = last + 1
                    break
            else:
                out.append(p)
                p += 1
        return out

    def _fragments(self, b0: int) -> list[list[tuple[int, int, frozenset[int]]]]:
        """Per first node p >= b0: the fragments ``(last, root, forbidden)`` spanning p..last, largest first.

        A fragment is the gold subtree of ``root`` within the buffer, contiguous,
        a tree by itself and derivable on its own; ``forbidden`` are the nodes
        left of b0 whose gold head is a non-root node of the fragment (it is
        bottom-up complete for a stack that holds none of them).
        """
        cached = self._candidates.get(b0)
        if cached is not None:
            return cached
        children, n = self.children, self.n
        size, low, high, ok, outside = {}, {}, {}, {}, {}
        for k in self._postorder():
            if k < b0:
                outside[k] = any(outside[c] or c >= b0 for c in children[k])  # some buffer node below k
                continue
            s, lo, hi, good = 1, k, k, True
            for c in children[k]:
                if c >= b0:
                    s += size[c]
                    lo, hi = min(lo, low[c]), max(hi, high[c])
                    good = good and ok[c]
                elif outside[c]:
                    good = False  # a buffer node whose gold head is not in the buffer
            size[k], low[k], high[k] = s, lo, hi
            ok[k] = good
            outside[k] = True
        starting: list[list[tuple[int, int, frozenset[int]]]] = [[] for _ in range(n - b0 + 1)]
        check = self.budget.check
        for k in range(b0, n + 1):
            check()  # quadratic: a fragment's inner nodes (a chain: every later word), its derivability
            if size[k] > 1 and ok[k] and high[k] - low[k] + 1 == size[k] and self._derivable_span(k, low[k], high[k]):
                inner = range(low[k], high[k] + 1)
                forbidden = frozenset(x for w in inner if w != k for x in children[w] if x < b0)
                starting[low[k] - b0].append((high[k], k, forbidden))
        for options in starting:
            options.sort(reverse=True)
        self._candidates[b0] = starting
        return starting

    def _postorder(self) -> list[int]:
        order, todo = [], [0]
        while todo:
            k = todo.pop()
            order.append(k)
            todo.extend(self.children[k])
        order.reverse()
        return order

    def _derivable_span(self, root: int, first: int, last: int) -> bool:
        """The gold subtree of ``root`` over the span ``first..last`` is derivable by itself (degree 2).

        The caller knows the span holds exactly the subtree's buffer words.
        """
        key = (root, first)
        known = self._derivable.get(key)
        if known is None:
            self.budget.check()
            heads = [-1] + [0 if w == root else self.heads[w] - first + 1 for w in range(first, last + 1)]
            known = len(bottom_up_run(heads, 2)[2]) == 1
            self._derivable[key] = known
        return known

    # ------------------------------------------------------------------ §5.3
    def first_action_losses(self, stack: Sequence[int], gamma: Sequence[int],
                            bounds: dict[str, int], merged: bool = False) -> dict[str, int]:
        """Smallest number of wrong future arcs, per first transition after c, over γ = stack + reduced buffer.

        Algorithm 1 with tags (module doc), for the first transitions in
        ``bounds`` only, each with a bound: an item of tag a is dropped as soon
        as its value plus :meth:`_rest_terms`' lower bound on what any
        completion still adds exceeds ``bounds[a]`` (branch and bound, exact:
        the sub-items of an optimal computation never exceed its value). A
        first transition missing from the answer has a value above its bound.
        ``merged``: the caller only asks whether any first transition is
        within ``max(bounds.values())`` (the loss of a configuration, not of
        its successors); every item then carries the one tag ``ANY_FIRST``, so a
        stack cell holds up to five times fewer items, and the answer is
        ``{ANY_FIRST: value}`` or empty.
        The stack cells are filled by loops from the top of the stack down
        (T[i, ·] needs T[i+1, ·] and T[i, k < j]), so their depth is not limited.
        """
        ell, g = len(stack), len(gamma)
        if g == 1 or not bounds:
            return {}
        self._set_gamma(gamma)
        up, free = self._gh, self._free
        full: dict[Any, int] = {tag: bounds.get(tag, -1) for tag in FIRST_ACTIONS}
        full[_NONE] = max(bounds.values())
        first = ANY_FIRST if merged else _NONE  # the tag of the item that ends in c
        full[ANY_FIRST] = full[_NONE]
        shift = first or _SHIFT
        below: list[list[tuple[int, int, int, Any]]] = []  # T[i + 1, ·], indexed by j - ell
        for i in range(ell - 1, -1, -1):
            h1 = gamma[i - 1] if i else _BOTTOM
            row: list[list[tuple[int, int, int, Any]]] = []
            for j in range(ell, g + 1):
                self.budget.check()
                base, adj, slack = self._rest_terms(i, j)
                limits = {tag: b - base for tag, b in full.items()}
                reach = {tag: b + slack for tag, b in limits.items()}  # v above reach[tag]: no reduction is kept
                cell: dict[tuple[int, int, Any], int] = {}
                if i == ell - 1 and j == ell:
                    cell[(h1, gamma[i], first)] = 0
                elif i + 1 < ell:  # shift γ[i] onto h1, then an item with γ[i] below (split k = i + 1)
                    for v, h4, h5, tag in below[j - ell]:
                        if v <= reach[tag]:
                            _reduce_tagged(cell, up, free, adj, limits, h1, h4, h5, v, tag)
                elif full[shift] >= 0:  # i = ℓ - 1: the shift of γ[i] ends in c, the next transition is a shift
                    for v, h4, h5, _ in self._buffer_cell(ell, j, gamma[i], full[shift]):
                        if v > reach[shift]:
                            break
                        _reduce_tagged(cell, up, free, adj, limits, h1, h4, h5, v, shift)
                for k in range(max(i + 2, ell), j):
                    left = [(v1, h2, h3, tag, min(reach[tag], full[tag]) - v1) for v1, h2, h3, tag in row[k - ell]]
                    right_parts = {h3: self._buffer_cell(k, j, h3, cap) for h3, cap in _right_caps(left, full).items()}
                    for v1, h2, h3, tag, room in left:
                        if room < 0:
                            continue
                        for v2, h4, h5, _ in right_parts[h3]:
                            if v2 > room:
                                break
                            _reduce_tagged(cell, up, free, adj, limits, h2, h4, h5, v1 + v2, tag)
                row.append(sorted((v, a, b, tag) for (a, b, tag), v in cell.items()))
            below = row
        out: dict[str, int] = {}
        for v, h2, h3, tag in below[g - ell]:  # T[0, |γ|], item [$, $0] (line 13)
            if h2 == _BOTTOM and h3 == 0 and v < out.get(tag, 1 << 30):
                out[tag] = v
        return out

    def _set_gamma(self, gamma: Sequence[int]) -> None:
        """γ for the next cells, with its orphans: the words of γ whose gold head is not in γ (already reduced).

        An orphan gets a wrong head in every completion, so the tables count
        its arc as 0 (``self._free``) and callers add their number
        (:meth:`orphans`) once: a wrong arc that cannot be avoided then does
        not use up the bounds of the branch and bound. ``self._gh``: the gold
        heads with the orphans' replaced by -3, which matches nothing.
        """
        self._gamma = gamma = tuple(gamma)
        at = {x: p for p, x in enumerate(gamma)}
        self._gh = gh = list(self._up)
        self._free = free = [0] * len(gh)
        self._head_at = head_at = [-1] * len(gamma)  # per position of γ: its gold head's, -1 for an orphan or the root
        self._children_at: list[list[int]] = [[] for _ in gamma]  # per position: its gold dependents' in γ
        for p, x in enumerate(gamma):
            h = gh[x]
            if h in at:
                head_at[p] = at[h]
                self._children_at[at[h]].append(p)
            elif x:
                gh[x], free[x] = -3, 1
        self._cells_of_gamma: dict[tuple[int, int, int], tuple[int, list[tuple[int, int, int, int]]]] = {}

    def _rest_terms(self, i: int, j: int) -> tuple[int, dict[int, int], int]:
        """A lower bound on the wrong arcs still to come after an item of T[i, j], as ``base + adj[h2] + adj[h3]``.

        After an item ``[h1, h2 h3]`` of T[i, j] the live nodes are
        outside = γ[:i-1] + γ[j:] and h2, h3; every other node of γ[i-1:j]
        has been reduced and can head nothing more. A live node (not the root)
        whose gold head is not live gets a wrong head later, in every
        completion (orphans of γ excepted, :meth:`_set_gamma`): their number is
        ``base + adj[h2] + adj[h3]``, less one for
        each of h2, h3 whose gold head is the other (subtracted by the caller).
        Third: ``slack``, the most those adj and mutual terms can take off
        (an adj term is at least minus the outside words the node heads, and
        one is subtracted only when the other adj term counted it), so an item
        of value v > limit + slack is dropped whatever it reduces to: the
        table does not form such pairs.
        """
        gamma, head_at, children_at = self._gamma, self._head_at, self._children_at
        first = i - 1 if i else 0  # γ[first:j]: the nodes of the item, reduced but for h2 and h3
        base = 0
        adj = {_BOTTOM: 0}
        most = [0, 0]
        for p in range(first, j):
            headed = 0  # live nodes outside whose gold head is γ[p]
            for c in children_at[p]:
                if c < first or c >= j:
                    headed += 1
            base += headed
            adj[gamma[p]] = (first <= head_at[p] < j) - headed
            most.append(headed)
        most.sort()
        return base, adj, most[-1] + most[-2]

    def orphans(self, stack: Sequence[int], b0: int) -> int:
        """Words of (stack, b0..n) whose gold head was already reduced: a lower bound on the future loss, O(n)."""
        up, n = self._up, self.n
        live = set(stack)
        return sum(1 for x in stack if x and up[x] not in live and up[x] < b0) + \
            sum(1 for x in range(b0, n + 1) if up[x] < b0 and up[x] not in live)

    def orphans_after_reduction(self, orphans: int, live: set[int], b0: int, dep: int) -> int:
        """:meth:`orphans` of (stack, b0..n) once ``dep`` is reduced, from their number before, in O(degree of dep).

        ``live``: the words on the stack. A shift makes no orphan and unmakes
        none (b0's gold dependents in the buffer find their head on the
        stack); a reduction takes ``dep`` out (one orphan less if it was one)
        and orphans its gold dependents still on the stack or in the buffer.
        """
        children = self.children[dep]
        made = len(children) - bisect_left(children, b0) + sum(1 for x in children if x in live)
        head = self.heads[dep]
        return orphans + made - (head < b0 and head not in live)

    def canonical_future(self, stack: Sequence[int], b0: int) -> int:
        """Wrong arcs of the canonical completion of (stack, b0..n) (:meth:`_greedy_wrong_arcs`, no variant).

        Exact where it matters most: the future loss equals :meth:`orphans`
        exactly when this does. If some completion gives every non-orphan
        word its gold head, the canonical one does: it builds gold arcs as
        soon as their dependent is complete and gives a complete orphan a
        wrong head as soon as it is within reach (the exchange argument of
        Cohen et al. 2012, §4.1, with the orphans' arcs free: such a
        completion can be made to start with either step, a word it would
        attach to the word taken out being an orphan that goes to a
        neighbour instead; and its first reduction, if any, is one of them,
        so when the canonical completion shifts, it can too). Checked against
        the definition on every configuration of every tree of up to 6 words
        and of 3,000 random non-projective trees of 7-9 words (once; the
        unit test in tests/test_oracles_attardi2.py takes up to 5 words and
        a sample of 7-9). So orphans + [this > orphans] is a lower bound, one
        more than the orphans alone when the canonical completion fails.
        """
        return self._greedy_wrong_arcs(stack, b0)

    def greedy_future(self, stack: Sequence[int], b0: int, floor: int = 0) -> int:
        """An upper bound on the future loss of (stack, b0..n): the best of a few greedy completions, down to ``floor``.

        The canonical completion alone (Cohen et al. 2012) was loose by 1-7
        arcs on the underivable Greek-GDT sentences of issue 11, and after
        an exploring error (a shift that buries a complete word) by up to 10
        on English-EWT; each arc of slack costs the branch and bound one more
        table (module doc). The variants of :meth:`_greedy_wrong_arcs`, in
        this order until one reaches ``floor`` (a lower bound): canonical;
        sacrificing s0, s1 or s2 (a buried word); ``buried``; with
        ``buried``, sacrificing one unattached word of a crossing gold arc
        (up to 4, nearest b0 first); sacrificing each deeper stack word, from
        the top down (along exploring walks over English-EWT, the deeper words
        spare a fifth of the tables, for a few greedy steps each).
        """
        best = self._greedy_wrong_arcs(stack, b0)
        if best <= floor:
            return best
        live = set(stack)
        crossing = sorted((abs(x - b0), x) for x in self._crossing_words() if x in live or x >= b0)
        variants = [(False, x) for x in reversed(stack[-3:]) if x]
        variants += [(True, -1)] + [(True, x) for _, x in crossing[:4]] + [(False, x) for x in reversed(stack[1:-3])]
        for buried, sacrifice in variants:
            self.budget.check()  # one per completion, O(n) each, as many as stack words
            best = min(best, self._greedy_wrong_arcs(stack, b0, buried, sacrifice))
            if best <= floor:
                break
        return best

    def _crossing_words(self) -> list[int]:
        """The words whose gold arc crosses another gold arc (computed once per sentence)."""
        if self._crossing is None:
            heads, n = self.heads, self.n
            far_right, far_left = list(range(n + 1)), list(range(n + 1))  # per word: its arcs' other ends
            for d in range(1, n + 1):
                h = heads[d]
                far_right[d], far_left[d] = max(far_right[d], h), min(far_left[d], h)
                far_right[h], far_left[h] = max(far_right[h], d), min(far_left[h], d)
            self._crossing = []
            for d in range(1, n + 1):
                low, high = min(d, heads[d]), max(d, heads[d])
                if high - low > 1 and (max(far_right[low + 1:high]) > high or min(far_left[low + 1:high]) < low):
                    self._crossing.append(d)
        return self._crossing

    def _greedy_wrong_arcs(self, stack: Sequence[int], b0: int, buried: bool = False, sacrifice: int = -1) -> int:
        """Wrong arcs of one computation from (stack, b0..n), O(n) at most, far less along a walk (memoised).

        Reduce when a reduction builds a gold arc whose dependent has no gold
        dependent left on the stack or buffer (Cohen et al. 2012's canonical
        choice). Else give a wrong head now to a complete word of s0..s2 whose
        gold head is gone (reduced), or that is ``sacrifice``: left there
        until the buffer is empty it makes the words above it wrong too. With
        ``buried``, likewise to a complete s0 whose gold head is below s2
        (waiting for the words between to go may bury the rest of the
        sentence under it). Else shift; else attach s0 to s1. ``sacrifice``
        (of two crossing gold arcs beyond degree 2, or a word buried by a
        shift, one word must lose) is treated as an orphan from the start:
        its gold head does not wait for it either.

        The computation is a function of the configuration and the variant,
        so the wrong arcs still to come from every configuration it passes
        are memoised per sentence: the completions of the successors of one
        configuration, and of the next configuration of a walk, join one
        another after a few steps (a successor on the path of an earlier
        completion costs one look-up). ``sacrifice`` once reduced no longer
        distinguishes the variant.
        """
        heads, n, memo = self.heads, self.n, self._greedy_memo
        variant = (buried, sacrifice)
        point = (variant, tuple(stack), b0)
        known = memo.get(point)
        if known is not None:
            return known
        if len(memo) > _GREEDY_MEMO_SIZE:
            memo.clear()
        check = self.budget.check
        stack = list(stack)
        live = set(stack)
        pending = self._pending_in_buffer(b0).copy()  # per word: gold dependents still on the stack or in the buffer
        for x in stack:
            pending[heads[x]] += 1  # the root's head -1 is the last entry, never read
        if sacrifice >= 0:
            pending[heads[sacrifice]] -= 1  # its head need not wait for it
        path = [(point, 0)]  # (configuration, wrong arcs before it)
        add = path.append
        wrong = steps = 0
        while True:
            top = len(stack) - 1
            pos = -1  # the position of the word reduced, if any
            if top:
                s0, s1 = stack[top], stack[top - 1]
                head, done = heads[s0], not pending[s0]
                if done and head == s1 or s1 and heads[s1] == s0 and not pending[s1]:  # RA, LA
                    pos = top if head == s1 else top - 1
                elif top > 1:
                    s2 = stack[top - 2]
                    if done and head == s2 or s2 and heads[s2] == s0 and not pending[s2]:  # RA2, LA2
                        pos = top if head == s2 else top - 2
                if pos < 0:
                    for at in range(top, top - 3 if top > 2 else 0, -1):  # s0, s1, s2 (not the root)
                        x = stack[at]
                        if not pending[x]:
                            h = heads[x]
                            if h < b0 and h not in live or x == sacrifice or at == top and buried and h in live:
                                pos = at
                                wrong += 1
                                break
            if pos < 0 and b0 <= n:
                stack.append(b0)
                live.add(b0)
                b0 += 1
            elif pos >= 0 or top:
                if pos < 0:  # the buffer is empty: s1 -> s0
                    pos = top
                    wrong += heads[s0] != s1
                dep = stack.pop(pos)
                live.discard(dep)
                if dep == sacrifice:
                    variant = (buried, -1)
                else:
                    pending[heads[dep]] -= 1
            else:
                break
            steps += 1
            if not steps & 1023:  # O(n) per call, a few calls per action: quadratic along a walk
                check()
            point = (variant, tuple(stack), b0)
            known = memo.get(point)
            if known is not None:
                wrong += known
                break
            add((point, wrong))
        for point, before in path:
            memo[point] = wrong - before
        return wrong

    def _pending_in_buffer(self, b0: int) -> list[int]:
        """Per word (and one more entry for the root's head -1): its gold dependents in b0..n; kept for a few b0."""
        known = self._pending.get(b0)
        if known is None:
            if len(self._pending) > 64:
                self._pending.clear()
            known = [0] * (self.n + 2)
            for x in range(b0, self.n + 1):
                known[self.heads[x]] += 1
            self._pending[b0] = known
        return known

    def _buffer_cell(self, k: int, j: int, h1: int, cap: int) -> list[tuple[int, int, int, int]]:
        """T[k, j] for ℓ <= k with ``h1`` below: items ``(loss, h2, h3, r)`` that may serve a bound ``cap``.

        Cheapest first.

        Depends only on the nodes γ[k:j], on h1 and on which of them are
        orphans (:meth:`_set_gamma`), which is the memo key: shared by every
        configuration of the sentence (module doc). An item whose loss plus
        :meth:`_right_orphans` exceeds ``cap`` cannot serve the table that
        asks (its bounds are at most ``cap``); the memo keeps the cap a cell
        was built with, and the cell is rebuilt when a larger cap is asked for.
        ``r``: the words right of γ[j-1] whose gold head is h2 or h3 (:meth:`_right_orphans`).
        The cells it needs are built first, from an explicit list rather than
        by recursion, so a long reduced buffer cannot exhaust Python's stack.
        """
        items = self._ready(k, j, h1, cap)
        if items is not None:
            return items
        pending = [(k, j, h1, cap)]
        while pending:
            cell = pending[-1]
            if self._ready(*cell) is not None:
                pending.pop()
                continue
            splits, missing = self._parts(*cell)
            if missing:
                pending.extend(missing)
                continue
            self._store(*cell, self._combine_buffer_cell(*cell, splits))
            pending.pop()
        return self._ready(k, j, h1, cap)

    def _ready(self, k: int, j: int, h1: int, cap: int) -> list[tuple[int, int, int, int]] | None:
        """The items of T[k, j] with ``h1`` below if built for a cap of at least ``cap`` (a one-node cell always)."""
        local = self._cells_of_gamma.get((k, j, h1))
        if local is not None and local[0] >= cap:
            return local[1]
        known = self._buffer_cells.get(self._cell_key(k, j, h1))
        if known is None and j == k + 1:
            known = self._store(k, j, h1, 1 << 30, [(0, h1, self._gamma[k], self._right_orphans(k, j, h1)[0])])
        if known is None or known[0] < cap:
            return None
        self._cells_of_gamma[(k, j, h1)] = known
        return known[1]

    def _cell_key(self, k: int, j: int, h1: int) -> tuple:
        gamma, free = self._gamma, self._free
        return gamma[k:j], h1, tuple(x for x in gamma[k:j] if free[x]), free[h1]

    def _store(self, k: int, j: int, h1: int, cap: int,
               items: list[tuple[int, int, int, int]]) -> tuple[int, list[tuple[int, int, int, int]]]:
        known = (cap, items)
        self._buffer_cells[self._cell_key(k, j, h1)] = known
        self._cells_of_gamma[(k, j, h1)] = known
        return known

    def _parts(self, k: int, j: int, h1: int, cap: int) -> tuple[list[tuple[list, dict[int, list]]], list[tuple]]:
        """The parts T[k, j] with ``h1`` below combines: ``(splits, missing)``, one pass over the splits m.

        ``splits``: per m, the items of T[k, m] with h1 below and, per top h3
        of theirs, the items of T[m, j] with h3 below; ``missing``: the cells
        ``(k, j, h1, cap)`` of those not built yet (then ``splits`` is not
        complete). A right part only needs the cap less the smallest value
        of the left items it follows: every result keeps that right part's
        right orphans (:meth:`_right_orphans`), words still to be attached.
        """
        splits, missing = [], []
        for m in range(k + 1, j):
            left = self._ready(k, m, h1, cap)
            if left is None:
                missing.append((k, m, h1, cap))
                continue
            rights: dict[int, list[tuple[int, int, int, int]]] = {}
            for v1, _, h3, _ in left:
                if v1 > cap:
                    break
                if h3 not in rights:  # left is cheapest first: the first v1 of each h3 is its smallest
                    right = rights[h3] = self._ready(m, j, h3, cap - v1)
                    if right is None:
                        missing.append((m, j, h3, cap - v1))
            splits.append((left, rights))
        return splits, missing

    def _combine_buffer_cell(self, k: int, j: int, h1: int, cap: int,
                             splits: list[tuple[list, dict[int, list]]]) -> list[tuple[int, int, int, int]]:
        """Algorithm 1's lines 10-12 for a buffer cell: every split and pair of items (:meth:`_parts`), 4 reductions."""
        self.budget.check()
        gh, free = self._gh, self._free
        total, beyond = self._right_orphans(k, j, h1)
        cell: dict[tuple[int, int], int] = {}
        get = cell.get
        for left, rights in splits:
            for v1, h2, h3, _ in left:
                if v1 > cap:
                    break
                wrong_h2 = 1 - free[h2] if h2 else None  # la2 onto h2 when h5 is not its gold head
                room = cap - total + beyond.get(h2, 0)
                for v2, h4, h5, live_beyond in rights[h3]:
                    v = v1 + v2
                    if v > cap:
                        break
                    if v - live_beyond > room:  # every result keeps two of h2 h4 h5: its right orphans exceed cap
                        continue
                    # the reductions of lines 17-28 inline (the hot loop): la h5 -> h4; ra h4 -> h5 and ra2 h2 -> h5,
                    # which give the same item; la2 h5 -> h2. An orphan's arc costs 0 (_set_gamma).
                    c = v + (gh[h4] != h5) - free[h4]
                    if c < get((h2, h5), cap + 1):
                        cell[(h2, h5)] = c
                    g5 = gh[h5]
                    c = v + (g5 != h4 and g5 != h2) - free[h5]
                    if c < get((h2, h4), cap + 1):
                        cell[(h2, h4)] = c
                    if wrong_h2 is not None:
                        c = v + wrong_h2 if gh[h2] != h5 else v
                        if c < get((h4, h5), cap + 1):
                            cell[(h4, h5)] = c
        items = []
        for (a, b), v in cell.items():
            live_beyond = beyond.get(a, 0) + beyond.get(b, 0)
            if v + total - live_beyond <= cap:
                items.append((v, a, b, live_beyond))
        items.sort()
        return items

    def _right_orphans(self, k: int, j: int, h1: int) -> tuple[int, dict[int, int]]:
        """Words right of γ[j-1] whose gold head is h1 or in γ[k:j], but not γ[j-1]: ``(number, per head)``.

        After an item ``[h1, h2 h3]`` of T[k, j] those whose head is neither
        h2 nor h3 (``number - right[h2] - right[h3]``) are still to be
        attached and their head is reduced: each costs 1 in every completion,
        a lower bound that does not depend on the configuration. Such a word
        is in γ: it lies beyond γ[j-1], and a word collapsed by the buffer
        reduction (§5.2) has its head inside its own fragment, which only
        γ[j-1]'s fragment could share with the span (hence γ[j-1] is left out).
        """
        last = self._gamma[j - 1]
        right: dict[int, int] = {}
        for h in (h1, *self._gamma[k:j - 1]):
            children = self.children[h]
            beyond = len(children) - bisect_right(children, last)
            if beyond:
                right[h] = beyond
        return sum(right.values()), right


def _right_caps(left: list[tuple[int, int, int, Any, int]], full: dict[Any, int]) -> dict[int, int]:
    """Per top h3 of the left items ``(v1, h2, h3, tag, room)`` of a split: the cap its right part is needed for.

    An item is kept only when v1 + v2 plus the right part's right orphans
    (all still to be attached wrongly, so counted by the rest bound) is
    within the bound of its tag: the right part serves ``full[tag] - v1``.
    """
    caps: dict[int, int] = {}
    for v1, _, h3, tag, room in left:
        if room >= 0 and full[tag] - v1 > caps.get(h3, -1):
            caps[h3] = full[tag] - v1
    return caps


def _reduce_tagged(cell: dict, up: list[int], free: list[int], adj: dict[int, int], limits: dict, h2: int, h4: int,
                   h5: int, v: int, tag: Any) -> None:
    """The four reductions of ``.. h2 h4 h5`` (Algorithm 1, lines 17-28) into a stack cell; tag None: this one.

    An item is kept when its value plus the lower bound on the rest
    (:meth:`TabularLoss._rest_terms`) is within ``limits`` of its tag. ``up``,
    ``free``: gold heads and orphans of γ (:meth:`TabularLoss._set_gamma`); an orphan's arc costs 0.
    """
    if h4:  # la: h5 -> h4 (the root is never a dependent)
        t = tag or _LA
        c = v + (up[h4] != h5) - free[h4]
        if c + adj[h2] + adj[h5] - (up[h2] == h5) - (up[h5] == h2) <= limits[t]:
            key = (h2, h5, t)
            if c < cell.get(key, 1 << 30):
                cell[key] = c
    rest = adj[h2] + adj[h4] - (up[h2] == h4) - (up[h4] == h2)
    t = tag or _RA  # ra: h4 -> h5
    c = v + (up[h5] != h4) - free[h5]
    if c + rest <= limits[t]:
        key = (h2, h4, t)
        if c < cell.get(key, 1 << 30):
            cell[key] = c
    if h2 == _BOTTOM:  # nothing below h4 to reduce with
        return
    if h2:  # la2: h5 -> h2
        t = tag or _LA2
        c = v + (up[h2] != h5) - free[h2]
        if c + adj[h4] + adj[h5] - (up[h4] == h5) - (up[h5] == h4) <= limits[t]:
            key = (h4, h5, t)
            if c < cell.get(key, 1 << 30):
                cell[key] = c
    t = tag or _RA2  # ra2: h2 -> h5
    c = v + (up[h5] != h2) - free[h5]
    if c + rest <= limits[t]:
        key = (h2, h4, t)
        if c < cell.get(key, 1 << 30):
            cell[key] = c


class AttardiDegree2Oracle(CostVectors):
    """The dynamic oracle of ``attardi --degree 2`` (Gómez-Rodríguez et al. 2014), exact for every gold tree.

    ``costs(config)``: every legal action -> loss(a(c)) - loss(c), the losses
    from :class:`TabularLoss` (buffer reduction §5.2, Algorithm 1 §5.3). Keys as
    ``treetool.oracles.system.DynamicOracle`` says (labelled: an arc action carries the
    gold label of the word it attaches). Each action's value is pinned between
    bounds first and a table is built only for the actions still open (module
    doc); the successors' future losses are remembered, so in a walk the next
    configuration knows its own loss, a lower bound for all its actions.
    """

    def __init__(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                 budget: Any = None) -> None:
        heads, self.labels = gold_tree(gold_heads, gold_labels)
        self.loss = TabularLoss(heads, budget)
        self.gold = self.loss.heads
        words = range(self.loss.n + 1)
        self._names = {kind: [kind if self.labels is None else f"{kind}({self.labels[d]})" for d in words]
                       for kind in FIRST_ACTIONS}  # per arc action, per word it attaches: its key in the costs
        self._future: dict[tuple[tuple[int, ...], int], int] = {}
        self._orphans: dict[tuple[tuple[int, ...], int], int] = {}  # of the last configuration's successors
        self._last: tuple[Configuration | None, dict[Action, int]] = (None, {})

    def costs(self, config: Configuration) -> dict[Action, int]:
        """Every legal action -> its cost (a new dict; the last answer is kept for :meth:`optimal`)."""
        last, answer = self._last
        if last is not config:
            check_configuration(config, self.loss.n, root_last=False)  # O(n): the costs are O(n) at least
            check_arrangement(config, self.loss.n, root_last=False)
            if self.labels is not None and config.labels is None:
                raise ConfigurationMismatch("gold labels were given but the configuration is unlabelled")
            answer = self._costs(config)
            self._last = (config, answer)
        return dict(answer)

    def _costs(self, config: Configuration) -> dict[Action, int]:
        """loss(a(c)) + δ(a) per legal action a, each pinned between a lower and an upper bound, minus loss(c)."""
        loss = self.loss
        stack, buffer = config.stack, config.buffer
        b0 = buffer[0] if buffer else loss.n + 1
        orphans = self._orphans.get((stack, b0))  # the tables leave them out (TabularLoss._set_gamma)
        if orphans is None:
            orphans = loss.orphans(stack, b0)
        own = self._future.get((stack, b0))  # c's future loss when c is a successor seen before
        live = set(stack)
        self._orphans = successors_orphans = {}
        answers: dict[str, int] = {}
        open_: dict[str, list[int]] = {}  # actions whose value c's own table decides: [low, high]
        names: dict[str, Action] = {}
        reduced: list[int] | None = None  # c's reduced buffer, once a table needs it
        successors = self._successors(stack, b0)
        if len(successors) == 1:  # the only action costs 0 whatever its loss (the first shift, the last RA)
            return {successors[0][1]: 0}
        for kind, name, after_stack, after_b0, arc, dep in successors:
            names[kind] = name
            after_orphans = loss.orphans_after_reduction(orphans, live, b0, dep) if dep else orphans
            successors_orphans[(after_stack, after_b0)] = after_orphans
            known = self._future.get((after_stack, after_b0))
            if known is not None:
                answers[kind] = arc + known
                continue
            # a reduction's orphans less c's: the gold dependents it orphans, less its word if an orphan itself
            made = after_orphans - orphans if dep else None
            low, high = self._bounds(after_stack, after_b0, arc, after_orphans, own, made)
            if low == high:
                answers[kind] = low
                continue
            if reduced is None:
                reduced = loss.reduced_buffer(stack, b0)
            if after_orphans <= orphans and self._same_reduction(kind, stack, b0, reduced, after_stack):
                open_[kind] = [low, high]
            else:
                answers[kind] = arc + self._future_of(after_stack, after_b0, low - arc, high - arc)
        if open_:
            self._share_table(stack, list(stack) + reduced, orphans, open_, answers)
        if not answers:
            return {}
        for kind, _, after_stack, after_b0, arc, _ in successors:
            self._remember((after_stack, after_b0), answers[kind] - arc)
        best = min(answers.values())
        return {name: answers[kind] - best for kind, name in names.items()}  # legal order

    def _bounds(self, stack: tuple[int, ...], b0: int, arc: int, orphans: int, own: int | None,
                made: int | None) -> tuple[int, int]:
        """[low, high] around loss(a(c)) + δ(a), for a(c) = (stack, b0..n) with ``orphans``; ``arc`` = δ(a).

        ``own``: the future loss of c if known (no action is below it).
        ``made``: for a reduction of a word d, a(c)'s orphans less c's (d's
        gold dependents still to attach, less one if d is an orphan). Then
        a(c)'s future loss is at most ``own + made``: replay c's optimal
        completion without d. Each transition acts on the same words (one
        that reached over d reaches one less deep); the one that attaches d
        is dropped (d's arc was wrong there if d is an orphan: one wrong arc
        less); one that attaches a gold dependent y of d attaches y to its
        neighbour instead (y is s0 above d: to the new s1; y is under s0 = d:
        to the new s0 or s1), at most one more wrong arc per such y. When c
        has no wrong arc to come but its orphans, this meets the lower bound
        δ(a) + orphans and no completion is run.
        """
        loss = self.loss
        floor = 0 if own is None else own
        high = 1 << 30
        if made is not None and own is not None:
            high = arc + own + made
            if high <= max(arc + orphans, floor):
                return high, high
        canonical = loss.canonical_future(stack, b0)
        low = max(arc + orphans + (canonical > orphans), floor)  # TabularLoss.canonical_future
        high = min(high, arc + canonical)
        if high > low:
            high = min(high, arc + loss.greedy_future(stack, b0, low - arc))
        return low, high

    def _share_table(self, stack: tuple[int, ...], gamma: list[int], orphans: int, open_: dict[str, list[int]],
                     answers: dict[str, int]) -> None:
        """The values of the ``open_`` actions ``kind -> [low, high]`` from c's tagged table, into ``answers``.

        Iterative deepening: each table asks "exactly ``low``?", which prunes the most.
        """
        while open_:
            found = self.loss.first_action_losses(stack, gamma, {kind: b[0] - orphans for kind, b in open_.items()})
            for kind in list(open_):
                bounds = open_[kind]
                bounds[0] += kind not in found
                if kind in found or bounds[0] == bounds[1]:
                    answers[kind] = bounds[0]
                    del open_[kind]

    def _successors(self, stack: tuple[int, ...], b0: int) -> list[tuple[str, Action, tuple[int, ...], int, int, int]]:
        """Per legal action, in legal order: (kind, key in the costs, stack after, b0 after, wrong arc built 0/1,
        the word it attaches or 0)."""
        loss = self.loss
        gold = loss.heads
        out = []
        if b0 <= loss.n:
            out.append((_SHIFT, _SHIFT, stack + (b0,), b0 + 1, 0, 0))
        top = len(stack) - 1
        for k, (left, right) in ((1, (_LA, _RA)), (2, (_LA2, _RA2))):
            if top < k:
                break
            below = stack[-1 - k]
            for kind, head, dep, after_stack in ((left, stack[-1], below, stack[:-1 - k] + stack[-k:]),
                                                 (right, below, stack[-1], stack[:-1])):
                if dep:
                    out.append((kind, self._names[kind][dep], after_stack, b0, int(gold[dep] != head), dep))
        return out

    def _same_reduction(self, kind: str, stack: tuple[int, ...], b0: int, reduced: list[int],
                        after_stack: tuple[int, ...]) -> bool:
        """Whether c's table, tagged with a, holds loss(a(c)) + δ(a): a(c) has c's γ, or a is a shift of b0 itself.

        A shift of b0 when b0 starts no fragment of c's reduced buffer: the
        fragments after it stay bottom-up complete with b0 on the stack (b0
        is no dependent of a node inside them, or it would belong to the
        fragment), so c's reduced buffer less b0 is a reduction of a(c)'s
        buffer, if a coarser or finer one than a(c)'s own (checked against
        the definition, tests/test_oracles_attardi2.py).
        """
        loss = self.loss
        if kind == _SHIFT:
            return reduced[0] == b0
        return loss.reduced_buffer(after_stack, b0) == reduced

    def _future_of(self, stack: tuple[int, ...], b0: int, low: int, high: int) -> int:
        """loss(stack, b0..n) (future arcs), known to lie in [low, high]: its own table, iterative deepening."""
        key = (stack, b0)
        known = self._future.get(key)
        if known is None:
            loss = self.loss
            gamma = list(stack) + loss.reduced_buffer(stack, b0)
            orphans = loss.orphans(stack, b0)
            while low < high and not loss.first_action_losses(stack, gamma,
                                                              {ANY_FIRST: low - orphans}, merged=True):
                low += 1
            known = low
            self._remember(key, known)
        return known

    def _remember(self, key: tuple[tuple[int, ...], int], future_loss: int) -> None:
        if len(self._future) > 256:
            self._future.clear()
        self._future[key] = future_loss

    def optimal(self, config: Configuration) -> list[Action]:
        """The cost-0 actions; after :meth:`costs` on the same configuration, without a new table."""
        last, answer = self._last
        if last is not config:
            self.costs(config)
            answer = self._last[1]
        return [action for action, cost in answer.items() if cost == 0]
