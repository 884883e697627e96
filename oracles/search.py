"""Exhaustive search over the configurations of any transition system.

Written once against the interface of ``treetool.oracles.configuration.SearchableSystem`` (``initial``,
``legal``, ``apply``, ``is_final`` and the two optional declarations
``monotonic`` / ``detached_words_final``), with no system-specific code. It is
the reference that every fast oracle is tested against, and the fallback
oracle for user systems.

Definitions (Gómez-Rodríguez, Sartorio & Satta 2014, §2.2; Honnibal et al. 2013, §5): a word is *wrong* in a
configuration when its head differs from the gold head (with gold labels:
or its label differs from the gold label); the *loss* of a configuration c
is the smallest number of wrong words over the final configurations
reachable from c; the *cost* of a legal action a is loss(a(c)) - loss(c).

Labels: the dynamics never look at labels, so among the labellings of an
arc-building action the gold label of the word it attaches is always at
least as good as any other. The search therefore tries, for each legal
(unlabelled) action, the action labelled with the gold label of each word
whose head it changes (one word for every built-in system).

Restrictions: :class:`ExhaustiveSearch` and :class:`ExactOracle` take an
optional ``restriction`` (:class:`Restriction`): only the actions it
allows are followed, and the part of a configuration it reads is added to
the memo key. This is how a parsing strategy that limits the computations
counted (e.g. Nederhof 2019 §2, left-before-right) gets its exact reference
without system-specific code here.

Memoisation: on the whole configuration in general. When the system
declares ``detached_words_final`` (words off the stack and buffer never
change and are never looked at), the loss splits into the wrong detached
words, which are fixed, plus a part that depends only on the stack, the
buffer and the arcs of the active words; that part is memoised on exactly
those, which makes n <= 10 cheap for the built-in systems.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Generator, Hashable, Iterator, Protocol, Sequence

from treetool.budget import Budget
from treetool.recursion import run_nested

from .configuration import Action, Configuration, SearchableSystem, gold_tree, with_label
from .errors import ConfigurationMismatch
from .layout import check_sentence
from .vocabulary import CostVectors

__all__ = [
    "Restriction",
    "SearchError",
    "ExhaustiveSearch",
    "ExactOracle",
    "derivable",
    "reachable_trees",
    "min_loss",
    "exact_costs",
    "search_oracle",
]


class SearchError(RuntimeError):
    """The configuration graph has a cycle, which the loss search does not handle."""


class Restriction(Protocol):
    """Limits the computations a search counts (e.g. a parsing strategy anchored at one configuration)."""

    def allows(self, config: Configuration, action: Action) -> bool:
        """True when the (unlabelled) legal ``action`` may be taken in ``config``."""
        ...

    def memo_state(self, config: Configuration) -> Hashable:
        """Everything :meth:`allows` reads beyond the stack, the buffer and the arcs of the active words."""
        ...


class _Gold:
    """A gold tree and the per-word tests every search needs."""

    def __init__(
        self,
        system: SearchableSystem,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None,
        restriction: Restriction | None = None,
    ) -> None:
        self.system = system
        self.restriction = restriction
        heads, labels = gold_tree(gold_heads, gold_labels)
        self.heads = tuple(heads)
        self.labels = None if labels is None else tuple(labels)
        self.n = len(self.heads) - 1
        self.words = frozenset(range(1, self.n + 1))
        self.children: list[list[int]] = [[] for _ in range(self.n + 1)]
        for d in range(1, self.n + 1):
            self.children[self.heads[d]].append(d)

    def wrong(self, config: Configuration, w: int) -> bool:
        if config.heads[w] != self.heads[w]:
            return True
        return self.labels is not None and config.labels[w] != self.labels[w]

    def consistent(self, config: Configuration, w: int) -> bool:
        """w has no arc yet, or its gold arc."""
        return config.heads[w] == -1 or not self.wrong(config, w)

    def active(self, config: Configuration) -> frozenset[int]:
        """Words whose arcs may still change: all of them unless the system declares otherwise."""
        if not self.system.detached_words_final:
            return self.words
        return self.words.intersection(config.stack + config.buffer)

    def is_gold(self, config: Configuration) -> bool:
        return self.system.is_final(config) and not any(self.wrong(config, w) for w in self.words)

    def moves(self, config: Configuration) -> Iterator[tuple[Action, Configuration]]:
        """Every legal action with its successor; arc actions labelled with the gold label (module doc)."""
        system, restriction = self.system, self.restriction
        for action in system.legal(config):
            if restriction is not None and not restriction.allows(config, action):
                continue
            after = system.apply(config, action)
            if self.labels is None or config.labels is None:
                yield action, after
                continue
            changed = [w for w in self.words if after.heads[w] != config.heads[w] or after.labels[w] != config.labels[w]]
            if not changed:
                yield action, after
            for label in dict.fromkeys(self.labels[w] for w in changed):
                labelled = with_label(action, label)
                yield labelled, system.apply(config, labelled)

    def finished_well(self, before: Configuration, after: Configuration) -> bool:
        """Words that ``after`` detaches are right and have all their gold dependents attached to them.

        Only meaningful under ``detached_words_final``: such a word can never
        change, nor gain or lose a dependent, again.
        """
        for w in self.active(before) - self.active(after):
            if self.wrong(after, w) or any(after.heads[d] != w for d in self.children[w]):
                return False
        return True


def _first_path(
    gold: _Gold, viable: Callable[[Configuration, Configuration], bool], budget: Budget | None, arcs_first: bool = False
) -> list[Action] | None:
    """Depth-first search for a computation from the initial configuration to the gold tree.

    Only successors with ``viable(before, after)`` are entered; configurations
    that failed are remembered, so each is expanded once. Iterative (no
    recursion limit on long sentences).
    """
    start = gold.system.initial(gold.n, labeled=gold.labels is not None)
    if gold.is_gold(start):
        return []
    budget = Budget() if budget is None else budget
    dead: set[Configuration] = set()
    on_path = {start}
    path: list[Action] = []
    frames = [(start, _ordered(gold, start, arcs_first))]
    while frames:
        config, successors = frames[-1]
        for action, after in successors:
            if after in dead or after in on_path or not viable(config, after):
                continue
            if gold.is_gold(after):
                return path + [action]
            budget.count_state()
            on_path.add(after)
            path.append(action)
            frames.append((after, _ordered(gold, after, arcs_first)))
            break
        else:
            frames.pop()
            on_path.discard(config)
            dead.add(config)
            if path:
                path.pop()
    return None


def _ordered(gold: _Gold, config: Configuration, arcs_first: bool) -> Iterator[tuple[Action, Configuration]]:
    """Successors in legal order, or with the arc-building ones first (a speed heuristic)."""
    moves = list(gold.moves(config))
    if arcs_first:
        moves.sort(key=lambda move: move[1].heads == config.heads)
    return iter(moves)


def derivable(system: SearchableSystem, gold_heads: Sequence[int], budget: Budget | None = None) -> bool:
    """True when some complete computation builds exactly ``gold_heads``: min loss 0 from the start.

    A depth-first reachability search for a final configuration equal to the
    gold tree, pruning only configurations whose loss is already >= 1 by the
    system's own declarations: with ``detached_words_final``, one that
    detaches a wrong word or a word whose gold dependents are not all
    attached; with ``monotonic``, one holding a wrong arc. A system declaring
    neither has every configuration explored.
    """
    gold = _Gold(system, gold_heads, None)

    def viable(before: Configuration, after: Configuration) -> bool:
        if system.monotonic and not all(gold.consistent(after, w) for w in gold.words):
            return False
        return not system.detached_words_final or gold.finished_well(before, after)

    return _first_path(gold, viable, budget, arcs_first=True) is not None


def search_oracle(
    system: SearchableSystem,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    budget: Budget | None = None,
) -> list[Action] | None:
    """A sequence deriving the gold tree that never builds a wrong arc, or ``None``.

    The generic static oracle for systems without one of their own:
    memoised depth-first search over configurations whose arcs are all gold
    (with ``detached_words_final``, also pruning detached words that miss
    gold dependents), trying arc-building actions first. Complete for
    monotonic systems, where a wrong arc can never be repaired; for
    non-monotonic ones it may miss sequences that repair a wrong arc.
    ``budget`` (``treetool.budget.Budget``) bounds the configurations expanded
    and the time; running out raises ``treetool.budget.SentenceTimeout``.
    """
    gold = _Gold(system, gold_heads, gold_labels)

    def viable(before: Configuration, after: Configuration) -> bool:
        if not all(gold.consistent(after, w) for w in gold.words):
            return False
        return not system.detached_words_final or gold.finished_well(before, after)

    return _first_path(gold, viable, budget, arcs_first=True)


def reachable_trees(system: SearchableSystem, n: int, budget: Budget | None = None) -> set[tuple[int, ...]]:
    """Heads of every final configuration reachable from the initial one (for tiny n).

    Plain depth-first enumeration of all configurations, each visited once.
    """
    budget = Budget() if budget is None else budget
    start = system.initial(n)
    seen = {start}
    todo = [start]
    trees: set[tuple[int, ...]] = set()
    legal, apply, is_final = system.legal, system.apply, system.is_final
    while todo:
        config = todo.pop()
        budget.count_state()
        if is_final(config):
            trees.add(config.heads)
        for action in legal(config):
            after = apply(config, action)
            if after not in seen:
                seen.add(after)
                todo.append(after)
    return trees


class ExhaustiveSearch:
    """Exact loss and costs for one gold tree, memoised across calls.

    Reuse one instance for every configuration of a sentence (e.g. along a
    parser's path) so that the memo is shared. ``loss`` may be ``math.inf``
    when no final configuration is reachable (never for built-in systems).
    ``restriction`` (module doc): only the computations it allows are counted.
    """

    def __init__(
        self,
        system: SearchableSystem,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        budget: Budget | None = None,
        restriction: Restriction | None = None,
    ) -> None:
        self.gold = _Gold(system, gold_heads, gold_labels, restriction)
        self.restriction = restriction
        self.system = system
        self.budget = Budget() if budget is None else budget
        self._memo: dict[Any, float] = {}
        self._open: set[Any] = set()

    def _key(self, config: Configuration) -> Any:
        """The whole configuration, or (detached_words_final) the stack, buffer and arcs of active words.

        With a restriction, the state it reads is added.
        """
        if self.restriction is not None:
            return self._plain_key(config), self.restriction.memo_state(config)
        return self._plain_key(config)

    def _plain_key(self, config: Configuration) -> Any:
        if not self.system.detached_words_final:
            return config
        active = [w for w in config.stack + config.buffer if w]  # ordered by the key's own stack and buffer
        heads, labels = config.heads, config.labels
        return (
            config.stack,
            config.buffer,
            tuple([heads[w] for w in active]),
            None if labels is None else tuple([labels[w] for w in active]),
        )

    def _future(self, config: Configuration) -> float:
        """Smallest number of wrong words among the active words of ``config``, over reachable finals.

        A depth-first search as deep as the longest computation (2n steps
        and more): each configuration being expanded is a generator
        (:meth:`_expand`) on an explicit stack, resumed with the value of the
        successor it yielded, so no sentence length meets Python's recursion limit.
        """
        key = self._key(config)
        if key in self._memo:
            return self._memo[key]
        return run_nested(self._expand(config, key), self._expand)

    def _expand(self, config: Configuration, key: Any) -> Generator[tuple[Configuration, Any], float, float]:
        """:meth:`_future` of one configuration not in the memo; yields each successor not in the memo either."""
        if key in self._open:
            raise SearchError(f"{self.system.name}: the configuration graph has a cycle")
        self.budget.count_state()
        self._open.add(key)
        gold, memo = self.gold, self._memo
        wrong = gold.wrong
        active = gold.active(config)
        best = sum(wrong(config, w) for w in active) if self.system.is_final(config) else math.inf
        projected = self.system.detached_words_final
        for _, after in gold.moves(config):
            after_key = self._key(after)
            value = memo.get(after_key)
            if value is None:
                value = yield after, after_key
            if projected:  # the words this move detaches are settled now
                for w in active.difference(after.stack, after.buffer):
                    value += wrong(after, w)
            if value < best:
                best = value
        self._open.discard(key)
        memo[key] = best
        return best

    def _check_labels(self, config: Configuration) -> None:
        if self.gold.labels is not None and config.labels is None:
            raise ConfigurationMismatch("gold labels were given but the configuration is unlabelled")

    def loss(self, config: Configuration) -> float:
        """Smallest number of wrong words in any final configuration reachable from ``config``."""
        self._check_labels(config)
        gold = self.gold
        detached = gold.words - gold.active(config)
        return sum(gold.wrong(config, w) for w in detached) + self._future(config)

    def costs(self, config: Configuration, actions: Sequence[Action] | None = None) -> dict[Action, float]:
        """``{action: loss(apply(config, action)) - loss(config)}``.

        By default for every legal action (unlabelled spellings; with gold
        labels an arc action is costed with the gold label of the word it
        attaches, its best labelling); ``actions`` costs exactly the given
        spellings instead, e.g. ``["LA(obj)", "LA(nsubj)"]``.
        """
        base = self.loss(config)
        if math.isinf(base):
            raise SearchError("no final configuration is reachable from this configuration")
        out: dict[Action, float] = {}
        if actions is not None:
            for action in actions:
                out[action] = self.loss(self.system.apply(config, action)) - base
            return out
        for action, after in self.gold.moves(config):
            plain = with_label(action, None)
            cost = self.loss(after) - base
            out[plain] = min(cost, out.get(plain, math.inf))
        return out


class ExactOracle(CostVectors):
    """The exact dynamic oracle of any system: :class:`ExhaustiveSearch` behind the ``DynamicOracle`` interface.

    Costs are ints and keyed as ``treetool.oracles.configuration.DynamicOracle`` says: with
    gold labels an action that attaches a word carries that word's gold
    label (the best labelling, module doc). The memo is shared by every call,
    so walking a sentence costs about one search. ``restriction``: see
    :class:`ExhaustiveSearch` (with one, the memo is valid for its anchor only).
    """

    def __init__(
        self,
        system: SearchableSystem,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        budget: Budget | None = None,
        restriction: Restriction | None = None,
    ) -> None:
        self.search = ExhaustiveSearch(system, gold_heads, gold_labels, budget, restriction)
        self.gold, self.labels = self.search.gold.heads, self.search.gold.labels

    def costs(self, config: Configuration) -> dict[Action, int]:
        """Every legal action -> its cost; another sentence's configuration raises ``ConfigurationMismatch``
        (``treetool.oracles.layout.check_sentence``: the oracle knows nothing else of the system's layout)."""
        search = self.search
        check_sentence(config, search.gold.n)
        base = search.loss(config)
        if math.isinf(base):
            raise SearchError("no final configuration is reachable from this configuration")
        best: dict[Action, tuple[float, Action]] = {}  # unlabelled action -> (cost, best spelling)
        for action, after in search.gold.moves(config):
            plain = with_label(action, None)
            cost = search.loss(after) - base
            if plain not in best or cost < best[plain][0]:
                best[plain] = (cost, action)
        return {action: int(cost) for cost, action in best.values()}

    def optimal(self, config: Configuration) -> list[Action]:
        return [action for action, cost in self.costs(config).items() if cost == 0]


def min_loss(
    system: SearchableSystem,
    config: Configuration,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    budget: Budget | None = None,
) -> float:
    """Loss of ``config`` (module doc); ``math.inf`` if no final configuration is reachable."""
    return ExhaustiveSearch(system, gold_heads, gold_labels, budget).loss(config)


def exact_costs(
    system: SearchableSystem,
    config: Configuration,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    budget: Budget | None = None,
) -> dict[Action, float]:
    """Cost of every legal action of ``config`` (see :meth:`ExhaustiveSearch.costs`)."""
    return ExhaustiveSearch(system, gold_heads, gold_labels, budget).costs(config)
