"""Which trees a transition system can derive: the library behind ``treetool coverage``.

For the bottom-up systems of Attardi (arc-standard is degree 1) it also counts
the failures of the canonical oracle of Cohen, Gómez-Rodríguez & Satta
(2012, §4) and the smallest degree each tree needs: the measure of their
Table 1 ("this paper" column) for the system of their Example 2.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from treetool.trees import is_projective

from treetool.budget import Budget

from .canonical import MAX_DEGREE, min_degree
from .system import TransitionSystem

#: The key of ``min_degree`` for trees no degree up to the maximum derives.
NO_DEGREE = "none"


@dataclass
class Coverage:
    """Counts for one file (or the total); JSON keys are the field names.

    ``sentences`` are those counted; ``skipped`` those read but not counted
    (bad input under ``--on-error skip``, a search out of time), so that
    the two add up to the sentences read.
    """

    file: str = "total"
    sentences: int = 0
    words: int = 0
    non_projective: int = 0
    derivable: int = 0
    canonical_failures: int | None = None  # bottom-up systems only
    min_degree: Counter | None = None  # Attardi systems only: degree (or "none") -> trees
    skipped: int = 0

    def merge(self, other: Coverage) -> None:
        for name in ("sentences", "words", "non_projective", "derivable", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.canonical_failures is not None:
            self.canonical_failures = (self.canonical_failures or 0) + other.canonical_failures
        if other.min_degree is not None:
            self.min_degree = (self.min_degree or Counter()) + other.min_degree

    def as_dict(self, max_degree: int = MAX_DEGREE) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file, "sentences": self.sentences, "words": self.words,
            "non_projective": self.non_projective, "derivable": self.derivable,
            "canonical_failures": self.canonical_failures, "min_degree": None, "skipped": self.skipped,
        }
        if self.min_degree is not None:
            keys = [*(str(d) for d in range(1, max_degree + 1)), NO_DEGREE]
            out["min_degree"] = {key: self.min_degree.get(key, 0) for key in keys}
        return out


def is_bottom_up(system: TransitionSystem) -> bool:
    """True for Attardi's systems (arc-standard included), where the canonical oracle and degrees apply.

    The system's declaration (``TransitionSystem.bottom_up``), not ``isinstance``: a user's system may be
    bottom-up too.
    """
    return system.bottom_up


@dataclass
class CoverageCounter:
    """Counts trees one at a time for ``system`` (see :func:`coverage`)."""

    system: TransitionSystem
    max_degree: int = MAX_DEGREE
    file: str = "total"
    result: Coverage = field(init=False)

    def __post_init__(self) -> None:
        bottom_up = is_bottom_up(self.system)
        self.result = Coverage(self.file, canonical_failures=0 if bottom_up else None,
                               min_degree=Counter() if bottom_up else None)

    def add(self, heads: Sequence[int], budget: Budget | None = None) -> None:
        """Count one tree; ``budget`` bounds ``can_derive`` where it searches (a system without an own static oracle).

        When it runs out, :class:`~treetool.budget.SentenceTimeout` is raised
        before anything is counted, so a caller may skip the tree cleanly.
        """
        tree = [int(h) for h in heads]
        derived = None if self.result.min_degree is not None else self.system.can_derive(tree, budget=budget)
        result = self.result
        result.sentences += 1
        result.words += len(tree) - 1
        if not is_projective(tree):
            result.non_projective += 1
        if self.result.min_degree is not None:
            self._add_bottom_up(tree)
        elif derived:
            result.derivable += 1

    def _add_bottom_up(self, tree: list[int]) -> None:
        """Canonical-oracle failures (Cohen et al. 2012 §4.1) and the smallest degree that derives the tree.

        One pass serves both: the systems are nested and the canonical oracle
        is complete, so the oracle of degree d fails exactly when no degree
        up to d derives the tree (tests/test_oracles_static.py checks the
        completeness against exhaustive search).
        """
        result = self.result
        degree = self.system.degree  # type: ignore[attr-defined]
        needed = min_degree(tree, max(self.max_degree, degree))
        if needed is not None and needed <= degree:
            result.derivable += 1
        else:
            result.canonical_failures += 1  # type: ignore[operator]
        key = NO_DEGREE if needed is None or needed > self.max_degree else str(needed)
        result.min_degree[key] += 1  # type: ignore[index]


def coverage(trees: Iterable[Sequence[int]], system: TransitionSystem, *, max_degree: int = MAX_DEGREE,
             file: str = "total") -> Coverage:
    """Coverage of ``system`` over head arrays ``trees`` (constant memory)."""
    counter = CoverageCounter(system, max_degree, file)
    for heads in trees:
        counter.add(heads)
    return counter.result
