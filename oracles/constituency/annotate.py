"""``treetool annotate`` for the constituency systems: walk a gold tree with the dynamic oracle's costs at each step.

The same policies as for dependencies (:mod:`treetool.oracles.annotate`): ``static``
follows the static oracle (Fernández-González & Gómez-Rodríguez 2018, Figures 3 and 5; the first optimal
action when the parser's limits forbid the gold tree), ``explore`` takes a
random non-optimal action with probability ``error_rate`` (same random stream
per sentence position), ``predicted`` follows the static sequence of another
tree of the same words. Costs come from
:class:`~treetool.oracles.constituency.dynamic.ConstituencyOracle`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Iterator, NamedTuple, Sequence

from treetool.oracles.annotate import Explore, Predicted, Static
from treetool.oracles.base import SYSTEM_MAX_LENGTH
from treetool.budget import Budget

from .dynamic import ConstituencyOracle
from .system import Configuration, ConstituencySystem, Open, Word, parse_action
from .tree import Node, labels_outside

__all__ = ["ConstituencyStep", "PredictedTreeError", "annotate_tree", "step_record"]


class PredictedTreeError(ValueError):
    """A predicted tree that a walk cannot follow (the message says why): bad input in the predicted trees' file,
    not in the gold one."""


class ConstituencyStep(NamedTuple):
    """One step: the configuration before ``action``, the costs of its legal actions, the action taken (step from 1)."""

    step: int
    config: Configuration
    costs: dict[str, int]
    optimal: list[str]
    action: str


def annotate_tree(system: ConstituencySystem, gold: Node, labels: Sequence[str], *, policy: Any = Static(),
                  position: int = 1, loss: str = "exact", max_length: int | None = SYSTEM_MAX_LENGTH,
                  predicted: Node | None = None, max_seconds: float | None = None,
                  max_states: int | None = None) -> Iterator[ConstituencyStep]:
    """The steps of one tree from the initial configuration to the final one (oracle set up before returning).

    One budget bounds the sentence: ``max_seconds`` the whole walk (checked
    at each step: a walk is super-linear, each step's record as long as the
    stack) and the oracles' work, ``max_states`` the configurations their
    exhaustive searches expand; either raises ``treetool.budget.SentenceTimeout``.
    A ``predicted`` tree (followed under a ``Predicted`` policy) with a label
    outside ``labels`` raises :class:`PredictedTreeError`: the walk would take
    actions that no step costs.
    """
    if predicted is not None and isinstance(policy, Predicted):
        unknown = labels_outside(predicted, labels)
        if unknown:
            raise PredictedTreeError(f"the predicted tree has labels outside the label set: {', '.join(unknown)}")
    budget = Budget(max_seconds, max_states)
    oracle = ConstituencyOracle(system, gold, labels, loss, max_length, budget=budget)
    if isinstance(policy, Explore):
        choose = policy.chooser(SimpleNamespace(position=position))
    else:
        target = predicted if isinstance(policy, Predicted) else gold
        sequence = system.static_oracle(target)
        if sequence is None and target is not gold:
            follow = ConstituencyOracle(system, target, labels, loss, max_length, budget=budget)
            choose = lambda config, costs, best: (follow.optimal(config) or _cheapest(follow.costs(config)))[0]
        elif sequence is None:
            choose = lambda config, costs, best: best[0]
        else:
            upcoming = iter(sequence)
            choose = lambda config, costs, best: next(upcoming)
    return _walk(system, oracle, gold.end, choose, budget)


def _walk(system: ConstituencySystem, oracle: ConstituencyOracle, n: int, choose: Any,
          budget: Budget) -> Iterator[ConstituencyStep]:
    config = system.initial(n)
    step = 0
    parsed: dict[str, tuple[str, str | None]] = {}
    while not system.is_final(config):
        budget.check()
        costs = oracle.costs(config)
        optimal = [a for a, c in costs.items() if c == 0]
        action = choose(config, costs, optimal or _cheapest(costs))
        step += 1
        yield ConstituencyStep(step, config, costs, optimal, action)
        if action not in costs:  # not one of the legal actions just costed: apply checks it
            config = system.apply(config, action)
            continue
        if action not in parsed:
            parsed[action] = parse_action(action)
        config = system.successor(config, *parsed[action])


def _cheapest(costs: dict[str, int]) -> list[str]:
    least = min(costs.values())
    return [a for a, c in costs.items() if c == least]


def step_record(sent_id: str, step: ConstituencyStep, in_order: bool) -> dict[str, Any]:
    """The JSON object of one step (issue 12): words from 0, spans end-exclusive, ``buffer`` = next word."""
    config = step.config
    record: dict[str, Any] = {
        "sent_id": sent_id, "step": step.step, "stack": [_item(item) for item in config.stack],
        "buffer": config.buffer, "built": [list(span) for span in config.built],
    }
    if in_order:
        record["finished"] = config.finished
    record.update(costs=step.costs, optimal=step.optimal, action=step.action)
    return record


def _item(item: Any) -> dict[str, Any]:
    if type(item) is Word:
        return {"word": item.index}
    if type(item) is Open:
        return {"open": item.label}
    return {"label": item.label, "start": item.start, "end": item.end}
