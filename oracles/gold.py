"""Gold transition sequences for whole sentences: the library behind ``treetool oracle`` and ``replay``.

:func:`gold_sequence` runs a system's static oracle on a gold tree and says
what to do when the system cannot derive it (skip, fail, or derive the
optimal projective tree instead, Nederhof 2019 §3); :func:`replay_tree`
applies a sequence and returns the tree it builds, with errors that name the
step. Both work on plain head/label lists, so a training loop can call them
without any file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from treetool.budget import Budget

from .configuration import Action
from .errors import IncompleteDerivation
from .system import TransitionSystem

#: What ``gold_sequence`` does with a tree the system cannot derive.
UNPARSABLE_MODES = ("skip", "fail", "projectivize")


class NotDerivable(ValueError):
    """The system cannot derive the gold tree (raised in ``on_unparsable="fail"`` mode)."""


@dataclass(frozen=True)
class GoldSequence:
    """The oracle's answer for one tree.

    ``actions`` is None when the tree was not derivable, or when its budget
    ran out (``timed_out``); ``reason`` says why. ``heads`` is the tree the
    actions derive: the gold tree itself, or its optimal projectivization
    when ``projectivized``.
    """

    actions: list[Action] | None
    heads: list[int]
    projectivized: bool = False
    reason: str | None = None
    timed_out: bool = False


def gold_sequence(
    system: TransitionSystem,
    heads: Sequence[int],
    labels: Sequence[str] | None = None,
    *,
    on_unparsable: str = "skip",
    budget: Budget | None = None,
) -> GoldSequence:
    """A gold transition sequence for the tree ``heads`` (labelled when ``labels`` is given).

    ``on_unparsable``: ``skip`` returns ``actions=None`` with a reason,
    ``fail`` raises :class:`NotDerivable`, ``projectivize`` replaces the tree
    by an optimal projective one (the most gold arcs kept, Nederhof 2019 §3;
    labels stay with their words) and derives that.

    ``budget`` bounds the super-linear work: the static oracle where the
    system's ``oracle_spec`` says it takes a budget (the generic search of a
    system without one of its own, swap's), and the projectivization DP.
    When it runs out, :class:`~treetool.budget.SentenceTimeout` is raised
    (``None``: no limit).
    """
    if on_unparsable not in UNPARSABLE_MODES:
        raise ValueError(f"on_unparsable must be one of {UNPARSABLE_MODES}, not {on_unparsable!r}")
    budget = Budget() if budget is None else budget
    tree = [int(h) for h in heads]
    actions = system.static_oracle(tree, labels, budget=budget)
    if actions is not None:
        return GoldSequence(actions, tree)
    reason = f"{system.describe()} cannot derive this tree"
    if on_unparsable == "fail":
        raise NotDerivable(reason)
    if on_unparsable == "skip":
        return GoldSequence(None, tree, reason=reason)
    from treetool.projectivization.optimal import optimal_projectivize  # numpy: imported only when needed

    projective = [int(h) for h in optimal_projectivize(tree, budget=budget)]
    actions = system.static_oracle(projective, labels, budget=budget)
    if actions is None:
        return GoldSequence(None, tree, reason=f"{reason}, nor its optimal projectivization")
    return GoldSequence(actions, projective, projectivized=True)


def replay_tree(
    system: TransitionSystem, actions: Sequence[Action], n: int
) -> tuple[list[int], list[str] | None]:
    """The tree ``actions`` build for ``n`` words: ``(heads, labels)``, labels None when unlabelled.

    Raises :class:`IllegalAction` (naming the 1-based step) for an action
    that is not legal where it stands, and :class:`IncompleteDerivation` when
    the sequence stops before a final configuration or leaves a word without
    a head.
    """
    config = system.replay(actions, n)
    heads = list(config.heads)
    orphans = [i for i in range(1, n + 1) if heads[i] < 0]
    if orphans:
        raise IncompleteDerivation(f"the transitions leave word {orphans[0]} without a head")
    labels = None if config.labels is None else ["", *(label or "_" for label in config.labels[1:])]
    return heads, labels


__all__ = ["UNPARSABLE_MODES", "GoldSequence", "NotDerivable", "gold_sequence", "replay_tree"]
