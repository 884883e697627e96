"""Exhaustive search over the computations of any constituency system (the reference for tests).

Written once against :class:`~treetool.oracles.constituency.system.ConstituencySystem`
(``initial``, ``legal_actions``, ``apply``, ``is_final``), with no
system-specific code. Labels: ``NT(X)``/``PJ(X)`` are tried for every X of the
label set given (e.g. the gold labels plus one wrong label).

Definitions (Fernández-González & Gómez-Rodríguez 2018, §3.1): the loss of a final configuration is the
Hamming distance between its built constituents and the gold ones, as
multisets of ``(label, start, end)``: missed gold constituents plus wrong
built ones. The loss of any configuration is the smallest loss of a final
configuration reachable from it; the cost of an action is the loss after it
minus the loss before it.

Both systems are acyclic (every action but ``NT``/``PJ`` consumes a word or an
open non-terminal, and their limits bound the rest), so plain memoised
depth-first search terminates; a ``treetool.budget.Budget`` bounds the work. The memo of
:func:`min_loss` is keyed on what the future reads (:class:`_Futures`
argues each reduction; tests check them against an unreduced search): a
5-word in-order tree from the initial configuration takes 736 keys and
0.05 s CPU (keyed on the stack's spans: 314k and 18 s), 6 words 2,300 keys
and 0.2 s (before: stopped after 5 min CPU and 3 GB).
"""

from __future__ import annotations

from collections import Counter
from typing import Generator, Iterable, Iterator

from treetool.budget import Budget
from treetool.recursion import run_nested

from .in_order import InOrder
from .system import Built, Configuration, ConstituencySystem, Open, span_of
from .top_down import TopDown
from .tree import Node, Span, postorder, preorder

__all__ = [
    "successors", "reachable_trees", "derivable", "hamming", "min_loss", "exact_costs", "gold_labels",
]


def gold_labels(gold: Node) -> list[str]:
    """The distinct labels of a gold tree, in order of first appearance (pre-order)."""
    return list(dict.fromkeys(node.label for node in preorder(gold)))


def successors(
    system: ConstituencySystem, config: Configuration, labels: Iterable[str]
) -> Iterator[tuple[str, Configuration]]:
    """Every legal action of ``config`` (labelled ones once per label) with the configuration it leads to."""
    for action in system.legal_actions(config, labels):
        yield action, system.apply(config, action)


def reachable_trees(
    system: ConstituencySystem, n: int, labels: Iterable[str], budget: Budget | None = None
) -> set[tuple[Span, ...]]:
    """The ``built`` sequences (post-order spans, i.e. trees) of every final configuration for ``n`` words.

    ``budget`` (``treetool.budget.Budget``) counts each configuration expanded.
    """
    labels = list(labels)
    seen: set[Configuration] = set()
    trees: set[tuple[Span, ...]] = set()
    budget = Budget() if budget is None else budget
    todo = [system.initial(n)]
    while todo:
        config = todo.pop()
        if config in seen:
            continue
        seen.add(config)
        budget.count_state()
        if system.is_final(config):
            trees.add(config.built)
        todo.extend(nxt for _, nxt in successors(system, config, labels))
    return trees


def derivable(system: ConstituencySystem, gold: Node, budget: Budget | None = None) -> bool:
    """True when some computation ends with exactly ``gold`` built.

    Searches every computation whose built constituents stay a prefix of
    the gold post-order (any computation of ``gold`` builds it in that order);
    ``budget`` counts each configuration expanded.
    """
    target = tuple(postorder(gold))
    labels = gold_labels(gold)
    seen: set[Configuration] = set()
    budget = Budget() if budget is None else budget
    todo = [system.initial(gold.end)]
    while todo:
        config = todo.pop()
        if config in seen or config.built != target[: len(config.built)]:
            continue
        seen.add(config)
        budget.count_state()
        if system.is_final(config) and config.built == target:
            return True
        todo.extend(nxt for _, nxt in successors(system, config, labels))
    return False


def hamming(built: Iterable[Span], gold: Iterable[Span]) -> int:
    """Missed gold constituents plus wrong built ones, as multisets."""
    b, g = Counter(built), Counter(gold)
    return sum((g - b).values()) + sum((b - g).values())


class _Futures:
    """Memo keys for :func:`min_loss`: a configuration reduced to what its future depends on.

    The search charges each constituent when it is built: +1 if it is wrong
    or a copy beyond the gold count, -1 if it matches a gold copy not built
    yet; the loss of a final configuration is ``|gold|`` plus the charges of
    everything built, so the loss of any configuration is what is charged so
    far plus the smallest sum of future charges, a shortest path over the
    configurations. That future sum depends on less than the configuration:
    two configurations with the same key have the same future (the same
    legal action sequences, building constituents with the same charges):

    1. ``built``: every future constituent ends at ``b`` or later (the stack
       covers ``[0, b)`` and a reduction ends at the buffer), so of what is
       built only the gold copies ending at ``b`` can change a future
       charge, and only those with a start that a constituent ending at
       ``b`` can still have: the position of an open non-terminal
       (top-down), the start of an open non-terminal's first child or of
       the top item (in-order). A wrong constituent costs +1 however many
       exist.
    2. completed stack items: their labels were charged when they were
       built and are never read again. Top-down: a reduction starts at the
       position of its non-terminal (its first child was pushed there), and
       legality asks only whether the stack is empty, whether its top is
       open and how many non-terminals are open: only the open
       non-terminals and those flags count. In-order: a reduction starts at
       its first child's start, legality reads the chain count (Kparser's
       ``unary``) of the top item, or of the first child under an open top,
       PJ starts at the top item's start and TERM needs the stack to be one
       constituent; the other children are popped unread. So: each open
       non-terminal with its first child's start, and the top item's start
       and chain count (the first child's count under an open top).
    3. labels of open non-terminals: one with no gold copy left at its start
       and an end ``>= b`` (at ``b``: not built yet) is wrong wherever it
       closes, like any other such label: all become ``*``.

    Other systems are keyed on the whole configuration (no reduction). Each
    reduction is checked against an unreduced search on every reachable
    configuration of small trees (tests/test_constituency_systems.py).
    """

    def __init__(self, system: ConstituencySystem, gold: Node) -> None:
        self.kind = "PJ" if isinstance(system, InOrder) else "NT" if isinstance(system, TopDown) else None
        self.wanted = Counter(postorder(gold))
        self.ends: dict[tuple[str, int], list[int]] = {}
        for label, start, end in self.wanted:
            self.ends.setdefault((label, start), []).append(end)

    def charge(self, built: tuple[Span, ...], span: Span) -> int:
        """+1 for a wrong constituent or a copy beyond the gold count, -1 for a gold copy not built yet."""
        return 1 if built.count(span) >= self.wanted[span] else -1

    def key(self, config: Configuration) -> object:
        """The reduced configuration (class docstring)."""
        if self.kind is None:
            return config
        b, stack = config.buffer, config.stack
        made: Counter = Counter()
        for span in reversed(config.built):  # built in order of their ends: those ending at b are a suffix
            if span[2] != b:
                break
            if span in self.wanted:
                made[span] += 1
        if self.kind == "NT":
            starts = [item.position for item in stack if type(item) is Open]
            shape: tuple = (bool(stack), bool(stack) and type(stack[-1]) is Open)
            live = set(starts)
        else:
            starts = [span_of(stack[k - 1])[0] for k, item in enumerate(stack) if type(item) is Open]
            shape = self._in_order_top(stack, bool(starts))
            live = set(starts) if not shape or shape[0] == "open" else {*starts, shape[0]}
        opens = tuple((self._label(item.label, start, b, made), start)
                      for item, start in zip((item for item in stack if type(item) is Open), starts))
        kept = tuple(sorted((span, count) for span, count in made.items() if span[1] in live))
        return opens, shape, b, config.finished, kept

    @staticmethod
    def _in_order_top(stack: tuple, has_open: bool) -> tuple:
        """``("open", first child's chain)`` under an open top, else the top item's (start, chain, TERM shape)."""
        if not stack:
            return ()
        top = stack[-1]
        if type(top) is Open:
            below = stack[-2]
            return ("open", below.unary if type(below) is Built else 0)
        return (span_of(top)[0], top.unary if type(top) is Built else 0, not has_open and type(top) is Built)

    def _label(self, label: str, start: int, b: int, made: Counter) -> str:
        """``label``, or ``*`` when no gold copy ``(label, start, e >= b)`` can still be matched (reduction 3)."""
        for end in self.ends.get((label, start), ()):
            if end > b or (end == b and made[(label, start, b)] < self.wanted[(label, start, b)]):
                return label
        return "*"


def min_loss(
    system: ConstituencySystem,
    config: Configuration,
    gold: Node,
    labels: Iterable[str] | None = None,
    memo: dict | None = None,
    budget: Budget | None = None,
) -> float:
    """The smallest Hamming loss of a final configuration reachable from ``config`` (inf if none).

    ``labels`` (default: the gold labels) are the non-terminals tried;
    ``memo`` may be shared between calls for the same system, gold tree and
    labels. A shortest path: what is charged so far plus the smallest sum of
    future charges, memoised on :class:`_Futures` keys (whose docstring
    argues each reduction); successors with the same key and charge (e.g.
    every label that is wrong at the new non-terminal's start) are expanded
    once. ``budget`` (``treetool.budget.Budget``) counts each key expanded
    and bounds the time (``SentenceTimeout`` when either runs out). The
    depth-first search keeps its path on an explicit stack of generators
    (:func:`_future`), not Python's, as deep as the computation is long.
    """
    labels = gold_labels(gold) if labels is None else list(labels)
    memo = {} if memo is None else memo
    futures = memo.get(_Futures)  # the memo also keeps the tree's key maker, under the class itself
    if futures is None:
        futures = memo[_Futures] = _Futures(system, gold)
    search = _Search(system, labels, futures, memo, Budget() if budget is None else budget)
    made, wanted = Counter(config.built), futures.wanted
    matched = sum((made & wanted).values())
    return sum((made - wanted).values()) + (sum(wanted.values()) - matched) + search.future(config, futures.key(config))


class _Search:
    """The memoised future charges of :func:`min_loss`, evaluated without recursion."""

    def __init__(self, system: ConstituencySystem, labels: list[str], futures: _Futures, memo: dict,
                 budget: Budget) -> None:
        self.system, self.labels, self.futures, self.memo, self.budget = system, labels, futures, memo, budget

    def future(self, config: Configuration, key: object) -> float:
        """Smallest sum of the charges of the constituents built from ``config`` to a final configuration."""
        known = self.memo.get(key)
        if known is not None:
            return known
        return run_nested(self._expand(config, key), self._expand)

    def _expand(self, current: Configuration, key: object) -> Generator[tuple[Configuration, object], float, float]:
        """:meth:`future` of one configuration not in the memo; yields each successor not in the memo either."""
        self.budget.count_state()
        system, futures, memo = self.system, self.futures, self.memo
        best: float = 0 if system.is_final(current) else float("inf")
        tried = set()
        for _, nxt in successors(system, current, self.labels):
            added = nxt.built[len(current.built):]
            change = futures.charge(current.built, added[0]) if added else 0
            nxt_key = futures.key(nxt)
            if (change, nxt_key) not in tried:
                tried.add((change, nxt_key))
                value = memo.get(nxt_key)
                if value is None:
                    value = yield nxt, nxt_key
                best = min(best, change + value)
        memo[key] = best
        return best


def exact_costs(
    system: ConstituencySystem,
    config: Configuration,
    gold: Node,
    labels: Iterable[str] | None = None,
    budget: Budget | None = None,
) -> dict[str, float]:
    """``{action: min_loss(apply(config, action)) - min_loss(config)}`` for every legal action (one memo and budget)."""
    labels = gold_labels(gold) if labels is None else list(labels)
    memo: dict = {}
    here = min_loss(system, config, gold, labels, memo, budget)
    return {
        action: min_loss(system, nxt, gold, labels, memo, budget) - here
        for action, nxt in successors(system, config, labels)
    }
