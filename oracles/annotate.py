"""Walks a sentence from the initial configuration to a final one, with the dynamic oracle's costs at every step.

The library behind ``treetool annotate``, for a parser's training loop as
much as for files: :func:`annotate_sentence` returns the :class:`Step`
records of one sentence under a policy that picks the action taken at each
step. The costs are those of the oracle for the gold tree (Gómez-Rodríguez, Sartorio & Satta 2014, §2.2:
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
  optimal one; nothing is drawn where there is no choice (one legal
  action, or a single optimal one when no error is drawn). Its random stream
  is ``random.Random(f"{seed}:{position}")`` (string seeds are hashed with
  SHA-512, independent of ``PYTHONHASHSEED``): one stream per sentence, so
  sentences can be walked in any order or in parallel and give the same
  steps. With labels, a non-optimal action is priced with the gold label
  like every action, so exploration makes attachment errors, not label
  errors.
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
from typing import Any, Callable, NamedTuple

from treetool.budget import UNLIMITED, Budget

from .configuration import Action, Configuration, DynamicOracle, as_heads
from .errors import IncompleteDerivation
from .system import SYSTEM_MAX_LENGTH, TransitionSystem

__all__ = [
    "ORACLE_KINDS",
    "POLICIES",
    "Chooser",
    "Explore",
    "Predicted",
    "SentenceContext",
    "Static",
    "Step",
    "annotate_sentence",
    "make_oracle",
    "optimal_is_cost_zero",
    "sentence_random",
    "walk",
]

ORACLE_KINDS = ("exact", "dynamic")
"""``exact``: exhaustive search (any system, short sentences); ``dynamic``: the system's own oracle."""

POLICIES = ("static", "explore", "predicted")


class Step(NamedTuple):
    """One step of a walk: the configuration before ``action``, the costs of its legal actions, the action taken.

    ``step`` counts from 1. ``heads`` has n+1 entries (``heads[0] = -1``,
    -1 for a word without a head yet); ``labels`` likewise (``None`` for no
    label yet) when the walk is labelled, else ``None``. A named tuple: a
    walk makes one per transition, and a tuple is the cheapest record to build.
    """

    step: int
    stack: tuple[int, ...]
    buffer: tuple[int, ...]
    heads: tuple[int, ...]
    labels: tuple[str | None, ...] | None
    costs: dict[Action, int]
    optimal: list[Action]
    action: Action


Chooser = Callable[[Configuration, dict[Action, int], list[Action]], Action]
"""Picks the action taken in ``config`` from its costs and its optimal actions."""


# ---------------------------------------------------------------- oracles


def make_oracle(
    system: TransitionSystem,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    *,
    kind: str = "dynamic",
    max_length: int | None = SYSTEM_MAX_LENGTH,
    max_seconds: float | None = None,
    max_states: int | None = None,
    **options: Any,
) -> DynamicOracle:
    """The oracle for one gold tree: ``dynamic`` (``system.dynamic_oracle``) or ``exact`` (the search).

    ``dynamic`` is the exact search too for a system whose ``oracle_spec``
    declares no published oracle. One budget serves the sentence: for the
    search, a sentence longer than ``max_length`` words raises
    ``OracleUnavailable`` (default: the system's ``exact_max_length``;
    ``None``: no limit), ``max_states`` bounds the
    configurations it expands for the whole sentence (its memory and, unlike
    a clock, the same on every machine) and ``max_seconds`` its time; a
    published oracle is bounded by ``max_seconds`` where its spec says it
    takes a budget (arc-standard's cubic algorithm, attardi degree 2). A call
    that finds the time or the states spent raises
    ``treetool.budget.SentenceTimeout``. ``options`` go to a published
    ``dynamic_oracle`` (its spec's ``options``: nm-arc-eager
    ``prefer_monotonic``; arc-standard ``algorithm``, ``strategy``).
    """
    if kind not in ORACLE_KINDS:
        raise ValueError(f"oracle kind must be one of {ORACLE_KINDS}, not {kind!r}")
    budget = Budget(max_seconds, max_states)
    if kind == "dynamic" and system.oracle_spec.published is not None:
        return system.dynamic_oracle(gold_heads, gold_labels, budget=budget, **options)
    return system.exact_oracle(gold_heads, gold_labels, budget=budget, max_length=max_length)


def optimal_is_cost_zero(system: TransitionSystem, kind: str = "dynamic", options: dict[str, Any] | None = None) -> bool:
    """Whether every step's ``optimal`` of :func:`make_oracle`'s oracle (same arguments) is its actions of cost
    0 in the order of its ``costs``, so that a writer may leave it out and derive it: yes for the search, and
    for a published oracle unless ``options`` set one its spec declares ``narrowing``
    (``DynamicOracle.optimal``). Trusted for this package's systems: a user's oracle may not keep to it."""
    if kind != "dynamic" or system.oracle_spec.published is None:
        return True
    return not any((options or {}).get(option) for option in system.oracle_spec.narrowing)


# ---------------------------------------------------------------- policies


@dataclass(frozen=True)
class SentenceContext:
    """What a policy may look at to build its chooser for one sentence."""

    system: TransitionSystem
    gold_heads: list[int]
    gold_labels: Sequence[str] | None
    position: int
    oracle_for: Callable[[Sequence[int], Sequence[str] | None], DynamicOracle]
    """The oracle of the walk for another tree (:class:`Predicted`)."""


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
            if len(best) == len(costs):  # nothing to get wrong: no error drawn
                return best[0] if len(best) == 1 else rng.choice(best)
            if rng.random() < error_rate:
                return rng.choice([a for a in costs if a not in best])
            return best[0] if len(best) == 1 else rng.choice(best)

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
        oracle = sentence.oracle_for(heads, labels)

        def choose(config: Configuration, costs: dict[Action, int], best: list[Action]) -> Action:
            return (oracle.optimal(config) or _cheapest(oracle.costs(config)))[0]

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


def _cheapest(costs: dict[Action, int]) -> list[Action]:
    """What a policy treats as optimal when an approximate oracle leaves no action of cost 0."""
    least = min(costs.values())
    return [a for a, c in costs.items() if c == least]


# ---------------------------------------------------------------- the walk


def annotate_sentence(
    system: TransitionSystem,
    gold_heads: Sequence[int],
    gold_labels: Sequence[str] | None = None,
    *,
    policy: Any = Static(),
    position: int = 1,
    oracle: str = "dynamic",
    max_length: int | None = SYSTEM_MAX_LENGTH,
    max_seconds: float | None = None,
    max_states: int | None = None,
    oracle_options: dict[str, Any] | None = None,
) -> Iterator[Step]:
    """The steps of one sentence from the initial configuration to the first final one.

    ``policy`` is :class:`Static`, :class:`Explore` or :class:`Predicted`
    (any object with ``chooser(SentenceContext) -> Chooser`` works);
    ``position`` (1-based) seeds :class:`Explore`'s stream; ``oracle``,
    ``max_length``, ``max_seconds``, ``max_states`` and ``oracle_options``
    choose the oracle (:func:`make_oracle`). ``max_seconds`` also bounds the
    walk itself: a walk is super-linear for every system (each of its O(n)
    steps copies O(n) heads), so a step past the deadline raises
    ``treetool.budget.SentenceTimeout`` whatever the oracle. The oracle and the
    policy are set up before this returns, so ``OracleUnavailable`` (a
    sentence too long for exact search) is raised here, before any step.
    A labelled walk (``gold_labels`` given) prices arc actions with the gold
    label of the word they attach.
    """
    heads = as_heads(gold_heads)
    deadline = UNLIMITED if max_seconds is None else Budget(max_seconds)

    def oracle_for(tree: Sequence[int], labels: Sequence[str] | None) -> DynamicOracle:
        return make_oracle(system, tree, labels, kind=oracle, max_length=max_length, max_seconds=max_seconds,
                           max_states=max_states, **(oracle_options or {}))

    dynamic = oracle_for(heads, gold_labels)
    context = SentenceContext(system, heads, gold_labels, position, oracle_for)
    choose = policy.chooser(context)
    return walk(system, dynamic, len(heads) - 1, gold_labels is not None, choose, deadline)


def walk(system: TransitionSystem, oracle: DynamicOracle, n: int, labeled: bool, choose: Chooser,
         budget: Budget = UNLIMITED) -> Iterator[Step]:
    """The steps from the initial configuration of ``n`` words to the first final one, ``choose`` picking each action.

    The one walk loop of the package: :func:`annotate_sentence` runs it with
    a policy's chooser, :func:`treetool.oracles.dynamic.exploring_walk` with the
    sampler that measures oracles. ``budget.check()`` runs before each step
    when the budget has a deadline (it checks nothing else). A :class:`Step`
    is made from its fields by ``tuple.__new__``: the named tuple's own
    ``__new__`` is Python code, 7% of an arc-eager walk's time.
    """
    is_final, apply, costs_of, optimal_of = system.is_final, system.apply, oracle.costs, oracle.optimal
    record = tuple.__new__
    timed = budget.max_seconds is not None
    config = system.initial(n, labeled=labeled)
    step = 0
    while not is_final(config):
        if timed:
            budget.check()
        costs = costs_of(config)
        if not costs:
            raise IncompleteDerivation(f"{system.describe()} has no legal action after {step} steps, "
                                       "in a configuration that is not final")
        optimal = optimal_of(config)
        action = choose(config, costs, optimal or _cheapest(costs))
        step += 1
        stack, buffer, heads, labels = config  # a tuple of the fields built at once: no list behind ``*config``
        yield record(Step, (step, stack, buffer, heads, labels, costs, optimal, action))
        config = apply(config, action)
