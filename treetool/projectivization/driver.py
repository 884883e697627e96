"""Projectivizing whole treebanks: the library behind ``treetool projectivize``/``deprojectivize``.

The tree algorithms are in :mod:`treetool.projectivization.optimal` (optimal, Nederhof
2019) and :mod:`treetool.projectivization.pseudo` (Nivre & Nilsson 2005 as MaltParser does
it); this module applies them to :class:`~treetool.sentence.Sentence` objects
(so only changed HEAD/DEPREL fields are rewritten) and keeps the counts of the
report: sentences, non-projective sentences, arcs changed, and arc accuracy
of the output against the input, the measure of Nederhof (2019), Table 6.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .optimal import count_optimal_projective_trees, optimal_projective_score, optimal_projectivize
from .pseudo import deprojectivize, pseudo_projectivize
from ..report import percent, ratio
from ..sentence import Sentence
from ..trees import is_projective

METHODS = ("optimal", "pseudo")
ROOT_MODES = ("single", "any")
COUNT_COMMENT = "optimal_projective_trees"


@dataclass(frozen=True)
class ProjectivizeOptions:
    """How to projectivize; the defaults are the command's defaults.

    ``root``: ``None`` keeps what the input had (one root dependent stays
    one), ``"single"`` forces exactly one, ``"any"`` allows several (optimal
    method only).  ``scheme``, ``covered_roots`` and ``lift_order`` are
    MaltParser's ``-pp``, ``-pcr`` and ``-plo`` (pseudo method only).
    """

    method: str = "optimal"
    root: str | None = None
    ties: str = "lift"
    count: bool = False
    scheme: str = "head"
    covered_roots: str = "none"
    lift_order: str = "shortest"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if self.root is not None and self.root not in ROOT_MODES:
            raise ValueError(f"root must be one of {ROOT_MODES} or None, not {self.root!r}")

    @property
    def single_root(self) -> bool | None:
        return None if self.root is None else self.root == "single"


@dataclass
class ProjectivizeStats:
    """Counts for one file (or the total) of a projectivization run."""

    file: str = "total"
    sentences: int = 0
    words: int = 0
    non_projective_sentences: int = 0
    changed_sentences: int = 0
    arcs_changed: int = 0
    seconds: float = 0.0  # wall-clock time of the whole run: read, projectivize, write
    # Nederhof (2019) Table 6: words whose head the method keeps.
    compare: bool = False
    pseudo_head_kept: int = 0
    optimal_kept: int = 0

    def merge(self, other: ProjectivizeStats) -> None:
        for name in ("sentences", "words", "non_projective_sentences", "changed_sentences", "arcs_changed",
                     "seconds", "pseudo_head_kept", "optimal_kept"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.compare = self.compare or other.compare

    def as_dict(self) -> dict[str, Any]:
        def pct(part: int) -> float | None:
            return percent(part, self.words)

        out: dict[str, Any] = {
            "file": self.file,
            "sentences": self.sentences,
            "words": self.words,
            "non_projective_sentences": self.non_projective_sentences,
            "changed_sentences": self.changed_sentences,
            "arcs_changed": self.arcs_changed,
            "accuracy": pct(self.words - self.arcs_changed),
            "ms_per_tree": ratio(1000.0 * self.seconds, self.sentences, 4),
        }
        if self.compare:
            out["pseudo_head_accuracy"] = pct(self.pseudo_head_kept)
            out["optimal_accuracy"] = pct(self.optimal_kept)
        return out


def _kept(old: np.ndarray, new: np.ndarray) -> int:
    return int((old[1:] == new[1:]).sum())


class Projectivizer:
    """Projectivize sentences one at a time, in place, counting as it goes.

    With ``compare=True`` it also measures, for every sentence, the accuracy
    of the other method (pseudo with the head scheme, ignoring the label
    decorations, and optimal), which is what Nederhof's Table 6 compares.
    """

    def __init__(self, options: ProjectivizeOptions = ProjectivizeOptions(), compare: bool = False) -> None:
        self.options = options
        self.compare = compare

    def new_stats(self, name: str) -> ProjectivizeStats:
        return ProjectivizeStats(file=name, compare=self.compare)

    def apply(self, sentence: Sentence, stats: ProjectivizeStats | None = None) -> int:
        """Projectivize ``sentence`` in place; return the number of words re-attached."""
        opts = self.options
        heads = sentence.heads
        n = len(heads) - 1
        projective = is_projective(heads)
        single = opts.single_root
        root_ok = single is not True or int((heads[1:] == 0).sum()) == 1
        changed = 0
        if opts.method == "optimal":
            if not (projective and root_ok):
                new = optimal_projectivize(heads, single_root=single, ties=opts.ties)
                changed = n - _kept(heads, new)
                if changed:
                    sentence.set_tree(new)
            if opts.count:
                count = 1 if projective and root_ok else count_optimal_projective_trees(heads, single_root=single)
                sentence.add_comment(f"{COUNT_COMMENT} = {count}")
        else:
            if not projective or opts.covered_roots != "none":
                new_heads, new_rels = pseudo_projectivize(
                    heads, sentence.deprels, scheme=opts.scheme,
                    covered_roots=opts.covered_roots, lift_order=opts.lift_order,
                )
                changed = n - _kept(heads, new_heads)
                sentence.set_tree(new_heads, new_rels)
        if stats is not None:
            stats.sentences += 1
            stats.words += n
            stats.non_projective_sentences += not projective
            stats.changed_sentences += sentence.changed
            stats.arcs_changed += changed
            if self.compare:
                self._compare(heads, projective, changed, stats)
        return changed

    def _compare(self, heads: np.ndarray, projective: bool, changed: int, stats: ProjectivizeStats) -> None:
        """Words each method keeps; the run's own result is reused where it answers the question."""
        n = len(heads) - 1
        opts = self.options
        if opts.method == "optimal":
            stats.optimal_kept += n - changed  # every tie rule keeps the optimal number of arcs
        elif projective:
            stats.optimal_kept += n
        else:
            stats.optimal_kept += optimal_projective_score(heads, single_root=opts.single_root)
        if projective:
            stats.pseudo_head_kept += n
        elif opts.method == "pseudo" and opts.covered_roots == "none" and opts.lift_order == "shortest":
            stats.pseudo_head_kept += n - changed  # the lifts do not depend on the label scheme
        else:
            pseudo_heads, _ = pseudo_projectivize(heads, ["", *["_"] * n], scheme="head")
            stats.pseudo_head_kept += _kept(heads, pseudo_heads)

    def run(self, sentences: Iterable[Sentence], stats: ProjectivizeStats | None = None) -> Iterator[Sentence]:
        """Projectivize a stream of sentences, in place, yielding each one."""
        for sentence in sentences:
            self.apply(sentence, stats)
            yield sentence


def deprojectivize_sentence(sentence: Sentence, scheme: str = "head") -> int:
    """Undo pseudo-projectivization of ``sentence`` in place (MaltParser's ``-m deproj``).

    Returns the number of words whose head changed.
    """
    heads = sentence.heads
    new_heads, new_rels = deprojectivize(heads, sentence.deprels, scheme=scheme)
    sentence.set_tree(new_heads, new_rels)
    return len(heads) - 1 - _kept(heads, new_heads)
