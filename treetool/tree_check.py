"""Whether a head list is a tree: the project's one range and cycle check, without numpy.

The tree convention is that of ``treetool.trees``: ``heads[0] == -1`` and
``heads[w]`` in ``0..n`` for each word ``w``. :func:`treetool.trees.find_cycle`
and the tree measures use :func:`check_range` and :func:`cycle_in`; the
oracles check every gold tree with :func:`check_tree` before building
anything (``treetool.oracles.configuration.gold_tree``). This module imports
nothing, so that a command that never touches numpy can still check a tree,
and it is fast enough to run once per sentence of a training loop (a few
microseconds for 25 words: ``min``/``max`` and one walk that marks each
word once).
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["check_range", "check_tree", "cycle_in"]


def check_range(heads: Sequence[int]) -> None:
    """Raise ``ValueError`` unless ``heads[0] == -1`` and every other head is in ``0..n``.

    A non-integer head raises ``TypeError`` (here when it cannot be compared
    with an int, otherwise in :func:`cycle_in`, which indexes with it).
    """
    last = len(heads) - 1
    try:  # max first: comparing a str with an int raises
        in_range = last <= 0 or (max(heads) <= last and min(heads) == -1 and heads.count(-1) == 1)
    except TypeError:
        raise TypeError(f"heads must be integers, not {_first_non_int(heads)!r}") from None
    if not heads or heads[0] != -1:
        raise ValueError("heads[0] must be -1 (the artificial root has no head)")
    if not in_range:
        word = next(w for w in range(1, last + 1) if not 0 <= heads[w] <= last)
        raise ValueError(f"word {word}'s head {heads[word]} is out of range 0..{last}")


def cycle_in(heads: Sequence[int]) -> list[int] | None:
    """The words of a cycle in ``heads`` (heads in range: :func:`check_range`), or None when it is a tree.

    When some word does not reach the root 0, the result is the cycle that
    the lowest such word leads into, starting at the word where its walk up
    the heads enters the cycle: ``heads[c[i]] == c[i + 1]`` and
    ``heads[c[-1]] == c[0]`` (a self-loop gives ``[w]``). Each word's walk
    marks the words it visits with the word it started from and stops at the
    first marked one: a mark of its own is a cycle, any other leads to 0.
    Every word is marked once, so the whole test is linear.
    """
    mark = [0] * len(heads)
    mark[0] = -1
    try:
        for word, node in enumerate(heads):
            if mark[word]:  # the root, or met by an earlier walk: it leads to 0
                continue
            mark[word] = word
            while not mark[node]:
                mark[node] = word
                node = heads[node]
            if mark[node] == word:
                return _cycle_from(heads, node)
    except TypeError:
        raise TypeError(f"heads must be integers, not {_first_non_int(heads)!r}") from None
    return None


def check_tree(heads: Sequence[int]) -> None:
    """Raise ``ValueError`` naming what makes ``heads`` not a tree (``TypeError`` for a non-integer head)."""
    check_range(heads)
    cycle = cycle_in(heads)
    if cycle is not None:
        raise ValueError("the heads form a cycle: " + " -> ".join(map(str, [*cycle, cycle[0]])))


def _cycle_from(heads: Sequence[int], start: int) -> list[int]:
    cycle = [start]
    node = heads[start]
    while node != start:
        cycle.append(node)
        node = heads[node]
    return cycle


def _first_non_int(heads: Sequence[object]) -> object:
    return next((h for h in heads if not hasattr(h, "__index__")), None)
