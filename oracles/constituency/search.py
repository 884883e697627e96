"""Exhaustive search over the computations of any constituency system (the reference for tests).

Written once against :class:`~oracles.constituency.system.ConstituencySystem`
(``initial``, ``legal_actions``, ``apply``, ``is_final``), with no
system-specific code. Labels: ``NT(X)``/``PJ(X)`` are tried for every X of the
label set given (e.g. the gold labels plus one wrong label).

Definitions (papers/001 §3.1): the loss of a final configuration is the
Hamming distance between its built constituents and the gold ones, as
multisets of ``(label, start, end)``: missed gold constituents plus wrong
built ones. The loss of any configuration is the smallest loss of a final
configuration reachable from it; the cost of an action is the loss after it
minus the loss before it.

Both systems are acyclic (every action but ``NT``/``PJ`` consumes a word or an
open non-terminal, and their limits bound the rest), so plain memoised
depth-first search terminates; ``max_states`` bounds the work.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator

from .system import Built, Configuration, ConstituencySystem, Open, span_of
from .tree import Node, Span, postorder, preorder

__all__ = [
    "SearchLimit", "successors", "reachable_trees", "derivable", "hamming", "min_loss", "exact_costs", "gold_labels",
]


class SearchLimit(RuntimeError):
    """The search expanded more configurations than allowed."""


def gold_labels(gold: Node) -> list[str]:
    """The distinct labels of a gold tree, in order of first appearance (pre-order)."""
    return list(dict.fromkeys(node.label for node in preorder(gold)))


def successors(
    system: ConstituencySystem, config: Configuration, labels: Iterable[str]
) -> Iterator[tuple[str, Configuration]]:
    """Every legal action of ``config`` (labelled ones once per label) with the configuration it leads to."""
    for action in system.legal_actions(config, labels):
        yield action, system.apply(config, action)


class _Counter:
    def __init__(self, max_states: int | None) -> None:
        self.max_states, self.states = max_states, 0

    def tick(self) -> None:
        self.states += 1
        if self.max_states is not None and self.states > self.max_states:
            raise SearchLimit(f"search expanded more than {self.max_states} configurations")


def reachable_trees(
    system: ConstituencySystem, n: int, labels: Iterable[str], max_states: int | None = 1_000_000
) -> set[tuple[Span, ...]]:
    """The ``built`` sequences (post-order spans, i.e. trees) of every final configuration for ``n`` words."""
    labels = list(labels)
    seen: set[Configuration] = set()
    trees: set[tuple[Span, ...]] = set()
    counter = _Counter(max_states)
    todo = [system.initial(n)]
    while todo:
        config = todo.pop()
        if config in seen:
            continue
        seen.add(config)
        counter.tick()
        if system.is_final(config):
            trees.add(config.built)
        todo.extend(nxt for _, nxt in successors(system, config, labels))
    return trees


def derivable(system: ConstituencySystem, gold: Node, max_states: int | None = 1_000_000) -> bool:
    """True when some computation ends with exactly ``gold`` built.

    Searches every computation whose built constituents stay a prefix of
    the gold post-order (any computation of ``gold`` builds it in that order).
    """
    target = tuple(postorder(gold))
    labels = gold_labels(gold)
    seen: set[Configuration] = set()
    counter = _Counter(max_states)
    todo = [system.initial(gold.end)]
    while todo:
        config = todo.pop()
        if config in seen or config.built != target[: len(config.built)]:
            continue
        seen.add(config)
        counter.tick()
        if system.is_final(config) and config.built == target:
            return True
        todo.extend(nxt for _, nxt in successors(system, config, labels))
    return False


def hamming(built: Iterable[Span], gold: Iterable[Span]) -> int:
    """Missed gold constituents plus wrong built ones, as multisets."""
    b, g = Counter(built), Counter(gold)
    return sum((g - b).values()) + sum((b - g).values())


def min_loss(
    system: ConstituencySystem,
    config: Configuration,
    gold: Node,
    labels: Iterable[str] | None = None,
    max_states: int | None = 1_000_000,
    memo: dict | None = None,
) -> float:
    """The smallest Hamming loss of a final configuration reachable from ``config`` (inf if none).

    ``labels`` (default: the gold labels) are the non-terminals tried;
    ``memo`` may be shared between calls for the same gold tree and labels.

    Memoised on what the future depends on: the stack with completed items
    reduced to their spans and unary counts (their labels are never looked
    at again), the buffer, the flag, and how many copies of each gold
    constituent ending at the buffer position are built (every future
    constituent ends at or after it, so copies of gold constituents that
    end before it can neither be matched nor made wrong again). The memo
    holds the best future *change*: wrong constituents built from here on
    minus gold ones matched from here on. Without this the unary chains of
    wrong labels make even 3 words intractable.
    """
    labels = gold_labels(gold) if labels is None else list(labels)
    spans = postorder(gold)
    wanted = Counter(spans)
    memo = {} if memo is None else memo
    counter = _Counter(max_states)

    starts = {(label, start) for label, start, _ in spans}

    def key(current: Configuration) -> tuple:
        stack = []
        for k, item in enumerate(current.stack):
            if type(item) is Built:
                stack.append((item.start, item.end, item.unary))
            elif type(item) is Open:  # a label no gold constituent at its start has is as wrong as any other
                start = span_of(current.stack[k - 1])[0] if system.nonterminal_kind == "PJ" else item.position
                stack.append(item if (item.label, start) in starts else ("*", item.position))
            else:
                stack.append(item)
        b = current.buffer
        made = Counter(span for span in current.built if span[2] == b and span in wanted)
        return tuple(stack), b, current.finished, tuple(sorted(made.items()))

    def distinct_successors(current: Configuration) -> Iterator[Configuration]:
        """The successors, one labelled action per label class (labels with no gold constituent at the start
        the new non-terminal gets are all alike: same key, same future)."""
        stack = current.stack
        if system.nonterminal_kind == "PJ" and stack and type(stack[-1]) is not Open:
            start = span_of(stack[-1])[0]
        else:
            start = current.buffer
        seen: set[str] = set()
        for action in system.legal_actions(current, labels):
            if action.endswith(")"):
                label = action[action.index("(") + 1:-1]
                kind = label if (label, start) in starts else "*"
                if kind in seen:
                    continue
                seen.add(kind)
            yield system.apply(current, action)

    def future(current: Configuration) -> float:
        """Smallest (wrong constituents built from here) - (gold ones matched from here) of a reachable final."""
        k = key(current)
        known = memo.get(k)
        if known is not None:
            return known
        counter.tick()
        best: float = 0 if system.is_final(current) else float("inf")
        for nxt in distinct_successors(current):
            added = nxt.built[len(current.built):]
            change = 0
            if added:
                span = added[0]
                have = sum(1 for s in current.built if s == span)
                change = 1 if have >= wanted[span] else -1
            best = min(best, change + future(nxt))
        memo[k] = best
        return best

    made = Counter(config.built)
    matched = sum((made & wanted).values())
    return sum((made - wanted).values()) + (len(spans) - matched) + future(config)


def exact_costs(
    system: ConstituencySystem,
    config: Configuration,
    gold: Node,
    labels: Iterable[str] | None = None,
    max_states: int | None = 1_000_000,
) -> dict[str, float]:
    """``{action: min_loss(apply(config, action)) - min_loss(config)}`` for every legal action."""
    labels = gold_labels(gold) if labels is None else list(labels)
    memo: dict = {}
    here = min_loss(system, config, gold, labels, max_states, memo)
    return {
        action: min_loss(system, nxt, gold, labels, max_states, memo) - here
        for action, nxt in successors(system, config, labels)
    }
