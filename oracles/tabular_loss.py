"""The polynomial-time loss of Attardi's degree-2 system (Gómez-Rodríguez, Sartorio & Satta 2014, papers/000).

The system (papers/000 §3, Figure 1; ``oracles.attardi.Attardi(degree=2)``):
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

What this module adds for speed and for costs (not in the paper):

* One table gives the cost of every action: each item that contains c is
  tagged with the first transition taken after c, so min over the items with
  tag a is loss(a(c)) (when the reduced buffer of c is valid for a(c), checked;
  otherwise a(c) gets its own table).
* Cells entirely in the reduced buffer do not depend on the stack except
  through ``h1``; they are memoised per sentence on (nodes, h1), so
  successive configurations of a walk, and the successors of one
  configuration, share them.
* Branch and bound: a greedy completion after each action gives an upper
  bound on every action's loss; stack-cell items above it are dropped.
* The labelled loss differs from the unlabelled one only by the arcs already
  built (future arcs take the gold label), so costs are computed unlabelled.
"""

from __future__ import annotations

from typing import Any, Sequence

from treetool.budget import UNLIMITED

from .attardi import bottom_up_run
from .system import Action, Configuration, OracleUnavailable, as_heads

__all__ = ["TabularLoss", "AttardiDegree2Oracle", "FIRST_ACTIONS"]

FIRST_ACTIONS = ("SH", "LA", "RA", "LA2", "RA2")
_SHIFT, _LA, _RA, _LA2, _RA2 = FIRST_ACTIONS
_NONE = None  # tag of the one item that ends exactly in c (no transition after c yet)
_BOTTOM = -1  # "$", the bottom of the stack below the root (Algorithm 1, line 1)


class TabularLoss:
    """Future losses of configurations and of their successors for one gold tree (module doc)."""

    def __init__(self, gold_heads: Sequence[int], budget: Any = None) -> None:
        self.heads = as_heads(gold_heads)
        self.n = len(self.heads) - 1
        self.children: list[list[int]] = [[] for _ in range(self.n + 1)]
        for d in range(1, self.n + 1):
            self.children[self.heads[d]].append(d)
        self.budget = UNLIMITED if budget is None else budget
        self._buffer_cells: dict[tuple, dict[tuple[int, int], int]] = {}
        self._candidates: dict[int, list[list[tuple[int, int, frozenset[int]]]]] = {}
        self._derivable: dict[tuple[int, int], bool] = {}

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
        heads, children, n = self.heads, self.children, self.n
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
        for k in range(b0, n + 1):
            if size[k] > 1 and ok[k] and high[k] - low[k] + 1 == size[k] and self._derivable_span(k, low[k]):
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

    def _derivable_span(self, root: int, first: int) -> bool:
        """The gold subtree of ``root`` over the span starting at ``first`` is derivable by itself (degree 2)."""
        key = (root, first)
        known = self._derivable.get(key)
        if known is None:
            last = first
            heads = [-1]
            w = first
            while w <= self.n and (w == root or self._below(w, root)):
                heads.append(0 if w == root else self.heads[w] - first + 1)
                last = w
                w += 1
            known = len(bottom_up_run(heads, 2)[2]) == 1
            self._derivable[key] = known
        return known

    def _below(self, w: int, root: int) -> bool:
        while w > 0:
            w = self.heads[w]
            if w == root:
                return True
        return False

    # ------------------------------------------------------------------ §5.3
    def first_action_losses(self, stack: Sequence[int], gamma: Sequence[int], bound: int = 1 << 29) -> dict[str, int]:
        """Smallest number of wrong future arcs, per first transition after c, over γ = stack + reduced buffer.

        Algorithm 1 with tags (module doc). An empty dict: c is final. ``bound``:
        an upper bound on every first action's value (:meth:`greedy_future`);
        stack-cell items above it cannot give a minimum and are dropped
        (values only grow as items combine).
        """
        ell = len(stack)
        g = len(gamma)
        if g == 1:
            return {}
        self._gamma, self._ell = tuple(gamma), ell
        self._bound = bound
        out: dict[str, int] = {}
        for (h2, h3, tag), v in self._stack_cell(0, g, {}).items():  # [$, $0] (line 13)
            if h2 == _BOTTOM and h3 == 0 and v < out.get(tag, 1 << 30):
                out[tag] = v
        return out

    def greedy_future(self, stack: Sequence[int], b0: int) -> int:
        """Wrong arcs of one computation from (stack, b0..n): an upper bound on the future loss, O(n).

        Reduce when a reduction builds a gold arc whose dependent has no gold
        dependent left on the stack or buffer (Cohen et al. 2012's canonical
        choice), else shift, else attach s0 to s1.
        """
        heads, n = self.heads, self.n
        stack = list(stack)
        pending = [0] * (n + 1)
        for x in stack[1:]:
            pending[heads[x]] += 1
        for x in range(b0, n + 1):
            pending[heads[x]] += 1
        wrong = 0
        while True:
            top = len(stack) - 1
            if top:
                s0 = stack[top]
                for pos in range(top - 1, max(top - 2, 0) - 1, -1):  # s1, s2: degree 2
                    x = stack[pos]
                    if heads[s0] == x and not pending[s0]:
                        dep = stack.pop()
                        break
                    if heads[x] == s0 and not pending[x] and x:
                        dep = stack.pop(pos)
                        break
                else:
                    dep = None
                if dep is not None:
                    pending[heads[dep]] -= 1
                    continue
            if b0 <= n:
                stack.append(b0)
                b0 += 1
                continue
            if not top:
                return wrong
            dep = stack.pop()
            wrong += heads[dep] != stack[-1]
            pending[heads[dep]] -= 1

    def _stack_cell(self, i: int, j: int, memo: dict) -> dict[tuple[int, int, Any], int]:
        """T[i, j] for i < ℓ <= j: items ``(h2, h3, first action after c) -> loss``; h1 is γ[i-1]."""
        key = (i, j)
        cell = memo.get(key)
        if cell is not None:
            return cell
        self.budget.check()
        gamma, ell, bound = self._gamma, self._ell, self._bound
        h1 = gamma[i - 1] if i else _BOTTOM
        cell = {}
        if i == ell - 1 and j == ell:
            cell[(h1, gamma[i], _NONE)] = 0
            memo[key] = cell
            return cell
        if i + 1 < ell:  # split k = i + 1: shift γ[i] onto h1, then an item with γ[i] below
            for (h4, h5, tag), v in self._stack_cell(i + 1, j, memo).items():
                _reduce_tagged(cell, self.heads, h1, h4, h5, v, tag, bound)
        else:  # i = ℓ - 1: the shift of γ[i] ends in c, the next transition is a shift
            for (h4, h5), v in self._buffer_cell(ell, j, gamma[i]).items():
                _reduce_tagged(cell, self.heads, h1, h4, h5, v, _SHIFT, bound)
        for k in range(max(i + 2, ell), j):
            for (h2, h3, tag), v1 in self._stack_cell(i, k, memo).items():
                for (h4, h5), v2 in self._buffer_cell(k, j, h3).items():
                    _reduce_tagged(cell, self.heads, h2, h4, h5, v1 + v2, tag, bound)
        memo[key] = cell
        return cell

    def _buffer_cell(self, k: int, j: int, h1: int) -> dict[tuple[int, int], int]:
        """T[k, j] for ℓ <= k with ``h1`` below: items ``(h2, h3) -> loss``.

        Depends only on the nodes γ[k:j] and on h1, which is the memo key:
        shared by every configuration of the sentence (module doc).
        """
        gamma = self._gamma
        key = (gamma[k:j], h1)
        cell = self._buffer_cells.get(key)
        if cell is not None:
            return cell
        cell = {}
        if j == k + 1:
            cell[(h1, gamma[k])] = 0
        else:
            self.budget.check()
            heads = self.heads
            for m in range(k + 1, j):
                for (h2, h3), v1 in self._buffer_cell(k, m, h1).items():
                    for (h4, h5), v2 in self._buffer_cell(m, j, h3).items():
                        _reduce_plain(cell, heads, h2, h4, h5, v1 + v2)
        self._buffer_cells[key] = cell
        return cell


def _reduce_tagged(cell: dict, heads: list[int], h2: int, h4: int, h5: int, v: int, tag: Any, bound: int) -> None:
    """The four reductions of ``.. h2 h4 h5`` (Algorithm 1, lines 17-28) into a stack cell; tag None: this one."""
    if h4:  # la: h5 -> h4 (the root is never a dependent)
        key = (h2, h5, tag or _LA)
        c = v + (heads[h4] != h5)
        if c <= bound and c < cell.get(key, 1 << 30):
            cell[key] = c
    key = (h2, h4, tag or _RA)  # ra: h4 -> h5
    c = v + (heads[h5] != h4)
    if c <= bound and c < cell.get(key, 1 << 30):
        cell[key] = c
    if h2 == _BOTTOM:  # nothing below h4 to reduce with
        return
    if h2:  # la2: h5 -> h2
        key = (h4, h5, tag or _LA2)
        c = v + (heads[h2] != h5)
        if c <= bound and c < cell.get(key, 1 << 30):
            cell[key] = c
    key = (h2, h4, tag or _RA2)  # ra2: h2 -> h5
    c = v + (heads[h5] != h2)
    if c <= bound and c < cell.get(key, 1 << 30):
        cell[key] = c


def _reduce_plain(cell: dict, heads: list[int], h2: int, h4: int, h5: int, v: int) -> None:
    """The four reductions of ``.. h2 h4 h5`` into a buffer cell (lines 17-28, without the pruning; module doc)."""
    c = v + (heads[h4] != h5)  # la: h5 -> h4 (h4 is never the root here)
    if c < cell.get((h2, h5), 1 << 30):
        cell[(h2, h5)] = c
    c = v + (heads[h5] != h4 and heads[h5] != h2)  # ra: h4 -> h5, ra2: h2 -> h5, same item
    if c < cell.get((h2, h4), 1 << 30):
        cell[(h2, h4)] = c
    if h2:  # la2: h5 -> h2
        c = v + (heads[h2] != h5)
        if c < cell.get((h4, h5), 1 << 30):
            cell[(h4, h5)] = c


class AttardiDegree2Oracle:
    """The dynamic oracle of ``attardi --degree 2`` (papers/000), exact for every gold tree.

    ``costs(config)``: every legal action -> loss(a(c)) - loss(c), the losses
    from :class:`TabularLoss` (buffer reduction §5.2, Algorithm 1 §5.3). Keys as
    ``oracles.system.DynamicOracle`` says (labelled: an arc action carries the
    gold label of the word it attaches). The table of a configuration is kept
    for its successors, so a walk computes about one table per step.
    """

    def __init__(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                 budget: Any = None) -> None:
        self.loss = TabularLoss(gold_heads, budget)
        self.labels = None if gold_labels is None else list(gold_labels)
        self._future: dict[tuple[tuple[int, ...], int], int] = {}
        self._last: tuple[Configuration | None, dict[Action, int]] = (None, {})

    def costs(self, config: Configuration) -> dict[Action, int]:
        """Every legal action -> its cost (a new dict; the last answer is kept for :meth:`optimal`)."""
        last, answer = self._last
        if last is not config:
            try:
                answer = self._costs(config)
            except RecursionError:  # the table recurses along the reduced buffer: hundreds of words deep
                raise OracleUnavailable(f"the tabular loss recurses too deep for this configuration "
                                        f"({len(config.stack)} stack and {len(config.buffer)} buffer words)") from None
            self._last = (config, answer)
        return dict(answer)

    def _costs(self, config: Configuration) -> dict[Action, int]:
        loss = self.loss
        stack, buffer = config.stack, config.buffer
        b0 = buffer[0] if buffer else loss.n + 1
        reduced = loss.reduced_buffer(stack, b0)
        tagged = loss.first_action_losses(stack, list(stack) + reduced, self._bound(stack, b0))
        if not tagged:
            return {}
        best = min(tagged.values())
        self._remember((stack, b0), best)
        out: dict[Action, int] = {}
        if buffer:
            if reduced[0] == b0 and loss.reduced_buffer(stack + (b0,), b0 + 1) == reduced[1:]:
                after = tagged[_SHIFT]
            else:
                after = self._future_of(stack + (b0,), b0 + 1)
            out["SH"] = after - best
        top = len(stack) - 1
        gold = loss.heads
        for k, (left, right) in ((1, (_LA, _RA)), (2, (_LA2, _RA2))):
            if top < k:
                break
            below = stack[-1 - k]
            for kind, head, dep, after_stack in ((left, stack[-1], below, stack[:-1 - k] + stack[-k:]),
                                                 (right, below, stack[-1], stack[:-1])):
                if dep == 0:
                    continue
                if loss.reduced_buffer(after_stack, b0) == reduced:
                    after = tagged[kind]
                else:
                    after = self._future_of(after_stack, b0) + (gold[dep] != head)
                out[kind if self.labels is None else f"{kind}({self.labels[dep]})"] = after - best
        return out

    def _bound(self, stack: tuple[int, ...], b0: int) -> int:
        """Upper bound on the future loss after any legal action (greedy completions, :meth:`TabularLoss.greedy_future`)."""
        loss = self.loss
        gold = loss.heads
        bounds = [loss.greedy_future(stack + (b0,), b0 + 1)] if b0 <= loss.n else []
        top = len(stack) - 1
        for k in (1, 2):
            if top < k:
                break
            below = stack[-1 - k]
            if below:
                bounds.append((gold[below] != stack[-1]) + loss.greedy_future(stack[:-1 - k] + stack[-k:], b0))
            bounds.append((gold[stack[-1]] != below) + loss.greedy_future(stack[:-1], b0))
        return max(bounds) if bounds else 0

    def _future_of(self, stack: tuple[int, ...], b0: int) -> int:
        key = (stack, b0)
        known = self._future.get(key)
        if known is None:
            loss = self.loss
            tagged = loss.first_action_losses(stack, list(stack) + loss.reduced_buffer(stack, b0))
            known = min(tagged.values()) if tagged else 0
            self._remember(key, known)
        return known

    def _remember(self, key: tuple[tuple[int, ...], int], value: int) -> None:
        if len(self._future) > 64:
            self._future.clear()
        self._future[key] = value

    def optimal(self, config: Configuration) -> list[Action]:
        """The cost-0 actions; after :meth:`costs` on the same configuration, without a new table."""
        return [action for action, cost in self.costs(config).items() if cost == 0]
