"""Walks a sentence from the initial configuration to a final one, with the dynamic oracle's costs at every step.

The library behind ``treetool annotate``, for a parser's training loop as
much as for files: :func:`annotate_sentence` returns the :class:`Step`
records of one sentence under a policy that picks the action taken at each
step. The costs are those of the oracle for the gold tree (papers/000 §2.2:
cost(a) = loss(a(c)) - loss(c), the loss counting words with a wrong head, or
label when labelled), given for every legal action and only for those.

Policies (Goldberg & Nivre 2012 §3-4, "training with exploration"):

* :class:`Static` follows the static oracle's sequence, so every action
  taken has cost 0 and the walk ends in the gold tree. When the system
  cannot derive the gold tree it takes, at each step, the first optimal
  action in the system's legal order (a deterministic path to a tree of the
  smallest loss the oracle sees).
* :class:`Explore` takes, with probability ``error_rate``, a uniformly random
  non-optimal legal action (when there is one), otherwise a uniformly random
  optimal one. Its random stream is ``random.Random(f"{seed}:{position}")``
  (string seeds are hashed with SHA-512, independent of ``PYTHONHASHSEED``):
  one stream per sentence, so sentences can be walked in any order or in
  parallel and give the same steps.
* :class:`Predicted` follows the path that derives another tree of the same
  words (a parser's output): the static oracle's sequence for that tree, or,
  when the system cannot derive it, the first action of cost 0 with respect
  to that tree. With labels, the actions taken carry the predicted labels,
  so ``action`` may be a labelling absent from ``costs`` (whose arc actions
  carry the gold label, their best labelling).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from .search import ExhaustiveSearch
from .system import Action, Configuration, TransitionSystem, as_heads, with_label

__all__ = [
    "ORACLE_KINDS",
    "POLICIES",
    "Explore",
    "OracleUnavailable",
    "Predicted",
    "Static",
    "Step",
    "annotate_sentence",
    "has_published_oracle",
    "make_oracle",
]

ORACLE_KINDS = ("exact", "dynamic")
"""``exact``: exhaustive search (any system, short sentences); ``dynamic``: the system's own oracle."""

POLICIES = ("static", "explore", "predicted")


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a walk: the configuration before ``action``, the costs of its legal actions, the action taken.

    ``step`` counts from 1. ``heads`` has n+1 entries (``heads[0] = -1``,
    -1 for a word without a head yet); ``labels`` likewise (``None`` for no
    label yet) when the walk is labelled, else ``None``.
    """

    step: int
    stack: tuple[int, ...]
    buffer: tuple[int, ...]
    heads: tuple[int, ...]
    labels: tuple[str | None, ...] | None
    costs: dict[Action, int]
    optimal: list[Action]
    action: Action


class DynamicOracle(Protocol):
    """The per-sentence oracle of ``notes/dynamic_interface.md`` (see ``TransitionSystem.dynamic_oracle``)."""

    def costs(self, config: Configuration) -> dict[Action, int]: ...


Chooser = Callable[[Configuration, dict[Action, int], list[Action]], Action]
"""Picks the action taken in ``config`` from its costs and its optimal actions."""


# ---------------------------------------------------------------- oracles
# Stand-in until the dynamic-oracle interface lands on TransitionSystem (branch `dynamic`).


class OracleUnavailable(ValueError):
    """The oracle asked for cannot serve this sentence (e.g. exact search on a sentence that is too long)."""


class _SearchOracle:
    def __init__(self, system: TransitionSystem, gold_heads: Sequence[int], gold_labels: Sequence[str] | None) -> None:
        self.search = ExhaustiveSearch(system, gold_heads, gold_labels)
        self.labels = gold_labels
        self.system = system

    def costs(self, config: Configuration) -> dict[Action, int]:
        plain = self.search.costs(config)
        if self.labels is None:
            return {a: int(c) for a, c in plain.items()}
        out = {}
        for action, cost in plain.items():
            after = self.system.apply(config, action)
            changed = [w for w in range(1, len(config.heads)) if after.heads[w] != config.heads[w]]
            out[with_label(action, self.labels[changed[0]]) if changed else action] = int(cost)
        return out


def has_published_oracle(system: TransitionSystem) -> bool:
    """True when ``system`` overrides the exact search with a dynamic oracle of its own."""
    method = getattr(type(system), "dynamic_oracle", None)
    return method is not None and method is not getattr(TransitionSystem, "dynamic_oracle", None)


def make_oracle(
    system: TransitionSystem,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    *,
    kind: str = "dynamic",
    max_length: int | None = 10,
) -> DynamicOracle:
    """The oracle for one gold tree: ``dynamic`` (the system's own, else exact search) or ``exact``.

    Raises :class:`OracleUnavailable` when exact search is asked for a
    sentence longer than ``max_length`` words (``None``: no limit).
    """
    if kind not in ORACLE_KINDS:
        raise ValueError(f"oracle kind must be one of {ORACLE_KINDS}, not {kind!r}")
    if kind == "dynamic" and has_published_oracle(system):
        return system.dynamic_oracle(gold_heads, gold_labels, max_length=max_length)  # type: ignore[attr-defined]
    n = len(gold_heads) - 1
    if max_length is not None and n > max_length:
        raise OracleUnavailable(f"exact search is limited to {max_length} words; this sentence has {n}")
    return _SearchOracle(system, gold_heads, gold_labels)


# ---------------------------------------------------------------- policies


@dataclass(frozen=True)
class SentenceContext:
    """What a policy may look at to build its chooser for one sentence."""

    system: TransitionSystem
    gold_heads: list[int]
    gold_labels: Sequence[str] | None
    position: int
    oracle_kind: str
    max_length: int | None


@dataclass(frozen=True)
class Static:
    """Follow the static oracle (the first optimal action when the gold tree is not derivable; module doc)."""

    def chooser(self, sentence: SentenceContext) -> Chooser:
        actions = sentence.system.static_oracle(sentence.gold_heads, sentence.gold_labels)
        return _first_optimal if actions is None else _sequence(actions)


@dataclass(frozen=True)
class Explore:
    """With probability ``error_rate`` a random non-optimal action, else a random optimal one (module doc)."""

    error_rate: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.error_rate <= 1.0:
            raise ValueError(f"error_rate must be between 0 and 1, not {self.error_rate}")

    def chooser(self, sentence: SentenceContext) -> Chooser:
        rng = sentence_random(self.seed, sentence.position)
        error_rate = self.error_rate

        def choose(config: Configuration, costs: dict[Action, int], best: list[Action]) -> Action:
            if rng.random() < error_rate:
                wrong = [a for a in costs if a not in best]
                if wrong:
                    return rng.choice(wrong)
            return rng.choice(best)

        return choose


@dataclass(frozen=True)
class Predicted:
    """Follow the path that derives the tree ``heads`` (with ``labels`` in a labelled walk; module doc)."""

    heads: Sequence[int]
    labels: Sequence[str] | None = None

    def chooser(self, sentence: SentenceContext) -> Chooser:
        heads = as_heads(self.heads)
        if len(heads) != len(sentence.gold_heads):
            raise ValueError(f"the predicted tree has {len(heads) - 1} words, the gold tree "
                             f"{len(sentence.gold_heads) - 1}")
        labels = None
        if sentence.gold_labels is not None:
            if self.labels is None:
                raise ValueError("a labelled walk needs the predicted labels")
            labels = self.labels
        actions = sentence.system.static_oracle(heads, labels)
        if actions is not None:
            return _sequence(actions)
        oracle = make_oracle(sentence.system, heads, labels, kind=sentence.oracle_kind,
                             max_length=sentence.max_length)

        def choose(config: Configuration, costs: dict[Action, int], best: list[Action]) -> Action:
            return _first_optimal(config, *_with_optimal(oracle.costs(config)))

        return choose


def sentence_random(seed: int, position: int) -> random.Random:
    """The random stream of the sentence at ``position``: the same on every run, machine and worker."""
    return random.Random(f"{seed}:{position}")


def _sequence(actions: Sequence[Action]) -> Chooser:
    """A chooser that takes ``actions`` one after the other, whatever the costs."""
    upcoming = iter(actions)

    def choose(config: Configuration, costs: dict[Action, int], best: list[Action]) -> Action:
        return next(upcoming)

    return choose


def _first_optimal(config: Configuration, costs: dict[Action, int], best: list[Action]) -> Action:
    return best[0]


def _with_optimal(costs: dict[Action, int]) -> tuple[dict[Action, int], list[Action]]:
    """``costs`` and the actions a policy treats as optimal: cost 0, else (approximate oracles) the cheapest."""
    optimal = [a for a, c in costs.items() if c == 0]
    if not optimal and costs:
        least = min(costs.values())
        optimal = [a for a, c in costs.items() if c == least]
    return costs, optimal


# ---------------------------------------------------------------- the walk


def annotate_sentence(
    system: TransitionSystem,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    *,
    policy: Any = Static(),
    position: int = 1,
    oracle: str = "dynamic",
    max_length: int | None = 10,
) -> Iterator[Step]:
    """The steps of one sentence from the initial configuration to the first final one.

    ``policy`` is :class:`Static`, :class:`Explore` or :class:`Predicted`
    (any object with ``chooser(SentenceContext) -> Chooser`` works);
    ``position`` (1-based) seeds :class:`Explore`'s stream; ``oracle`` and
    ``max_length`` choose the oracle (:func:`make_oracle`). The oracle and the
    policy are set up before this returns, so :class:`OracleUnavailable`
    (sentence too long for exact search) is raised here, before any step.
    A labelled walk (``gold_labels`` given) prices arc actions with the gold
    label of the word they attach.
    """
    heads = as_heads(gold_heads)
    dynamic = make_oracle(system, heads, gold_labels, kind=oracle, max_length=max_length)
    context = SentenceContext(system, heads, gold_labels, position, oracle, max_length)
    choose = policy.chooser(context)
    return _walk(system, dynamic, len(heads) - 1, gold_labels is not None, choose)


def _walk(system: TransitionSystem, oracle: DynamicOracle, n: int, labeled: bool, choose: Chooser) -> Iterator[Step]:
    config = system.initial(n, labeled=labeled)
    step = 0
    while not system.is_final(config):
        costs = oracle.costs(config)
        optimal = [a for a, c in costs.items() if c == 0]
        action = choose(config, costs, optimal or _with_optimal(costs)[1])
        step += 1
        yield Step(step, config.stack, config.buffer, config.heads, config.labels, costs, optimal, action)
        config = system.apply(config, action)
