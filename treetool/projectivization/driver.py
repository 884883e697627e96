"""Projectivizing whole treebanks: the library behind ``treetool projectivize``/``deprojectivize``.

The tree algorithms are in :mod:`treetool.projectivization.optimal` (optimal, Nederhof
2019) and :mod:`treetool.projectivization.pseudo` (Nivre & Nilsson 2005 as MaltParser does
it); this module applies them to :class:`~treetool.sentence.Sentence` objects
(so only changed HEAD/DEPREL fields are rewritten) and keeps the counts of the
report: sentences, non-projective sentences, arcs changed, and arc accuracy
of the output against the input, the measure of Nederhof (2019), Table 6.

With a per-sentence time budget (``max_seconds``), a sentence whose DP runs
out of time is, by ``on_timeout``: written with MaltParser's baseline lifting
(``lift``: projective, labels untouched), left out (``skip``), or an error
naming it (``fail``); the report counts them as ``timed_out``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .optimal import optimal_projective_score, optimal_projectivize_counted, optimal_projectivize_many
from .pseudo import deprojectivize, pseudo_projectivize
from ..budget import ON_TIMEOUT_MODES, UNLIMITED, Budget, SentenceTimeout
from ..errors import TreebankError
from ..parallel import Outcome, SentencePool, attempt
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
    max_seconds: float | None = None
    on_timeout: str = "lift"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if self.root is not None and self.root not in ROOT_MODES:
            raise ValueError(f"root must be one of {ROOT_MODES} or None, not {self.root!r}")
        if self.on_timeout not in ON_TIMEOUT_MODES:
            raise ValueError(f"on_timeout must be one of {ON_TIMEOUT_MODES}, not {self.on_timeout!r}")
        if self.max_seconds is not None:
            Budget(self.max_seconds)  # validates
        if self.method == "pseudo" and self.on_timeout == "lift" and self.max_seconds is not None:
            raise ValueError("on_timeout='lift' applies to the optimal method: pseudo-projectivization is the "
                             "lifting (use 'skip' or 'fail')")

    @property
    def single_root(self) -> bool | None:
        return None if self.root is None else self.root == "single"


@dataclass
class ProjectivizeStats:
    """Counts for one file (or the total) of a projectivization run.

    ``sentences``, ``words`` and the arcs describe the sentences written
    (a timed-out sentence left out by ``on_timeout="skip"`` is only counted
    in ``timed_out``); the Table 6 measures are over the sentences whose DP
    finished (``compared_words``).
    """

    file: str = "total"
    sentences: int = 0
    words: int = 0
    non_projective_sentences: int = 0
    changed_sentences: int = 0
    arcs_changed: int = 0
    seconds: float = 0.0  # wall-clock time of the whole run: read, projectivize, write
    timed_out: int = 0
    budget: bool = False  # a sentence can run out of its bound (time, or tables' size): report timed_out
    # Nederhof (2019) Table 6: words whose head the method keeps.
    compare: bool = False
    compared_words: int = 0
    pseudo_head_kept: int = 0
    optimal_kept: int = 0

    def merge(self, other: ProjectivizeStats) -> None:
        for name in ("sentences", "words", "non_projective_sentences", "changed_sentences", "arcs_changed",
                     "seconds", "timed_out", "compared_words", "pseudo_head_kept", "optimal_kept"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.compare = self.compare or other.compare
        self.budget = self.budget or other.budget

    def as_dict(self) -> dict[str, Any]:
        def pct(part: int, whole: int) -> float | None:
            return percent(part, whole)

        out: dict[str, Any] = {
            "file": self.file,
            "sentences": self.sentences,
            "words": self.words,
            "non_projective_sentences": self.non_projective_sentences,
            "changed_sentences": self.changed_sentences,
            "arcs_changed": self.arcs_changed,
            "accuracy": pct(self.words - self.arcs_changed, self.words),
            "ms_per_tree": ratio(1000.0 * self.seconds, self.sentences, 4),
        }
        if self.budget:
            out["timed_out"] = self.timed_out
        if self.compare:
            out["pseudo_head_accuracy"] = pct(self.pseudo_head_kept, self.compared_words)
            out["optimal_accuracy"] = pct(self.optimal_kept, self.compared_words)
        return out


def _kept(old: np.ndarray, new: np.ndarray) -> int:
    return int((old[1:] == new[1:]).sum())


@dataclass
class _Job:
    """A sentence read for projectivization, analysed once."""

    sentence: Sentence
    heads: np.ndarray
    projective: bool
    needs_dp: bool  # for the optimal method: not projective, or not meeting the root constraint

    @classmethod
    def of(cls, sentence: Sentence, single_root: bool | None) -> _Job:
        heads = sentence.heads
        projective = is_projective(heads)
        root_ok = single_root is not True or int((heads[1:] == 0).sum()) == 1
        return cls(sentence, heads, projective, not (projective and root_ok))


#: The least time the ``lift`` fallback gets: a budget set tight for the DP must not starve the lifting of an
#: ordinary long sentence (a few milliseconds idle, more on a loaded machine).
LIFT_MIN_SECONDS = 1.0


class Projectivizer:
    """Projectivize sentences in place, counting as it goes.

    With ``compare=True`` it also measures, for every sentence, the accuracy
    of the other method (pseudo with the head scheme, ignoring the label
    decorations, and optimal), which is what Nederhof's Table 6 compares.
    ``timed_out`` names the sentences that ran out of time (the first
    ``SHOWN_TIMEOUTS``; ``timed_out_count`` counts them all). With
    ``on_timeout="lift"`` the lifting gets a budget of ``max_seconds`` of its
    own (at least ``LIFT_MIN_SECONDS``); a sentence that exhausts it too is left out (``lift_timed_out``).
    """

    SHOWN_TIMEOUTS = 10

    def __init__(self, options: ProjectivizeOptions = ProjectivizeOptions(), compare: bool = False) -> None:
        self.options = options
        self.compare = compare
        self.timed_out: list[str] = []
        self.timed_out_count = 0
        self.lift_timed_out = 0  # of those, lifting ran out of time too: left out
        self.reasons: dict[str, None] = {}  # why, in the order first met (a dict as an ordered set)

    def new_stats(self, name: str) -> ProjectivizeStats:
        # Optimal projectivization has a bound even without --max-seconds: its tables' size (refuse_large_table).
        bounded = self.options.max_seconds is not None or self.options.method == "optimal"
        return ProjectivizeStats(file=name, compare=self.compare, budget=bounded)

    def apply(self, sentence: Sentence, stats: ProjectivizeStats | None = None) -> bool:
        """Projectivize ``sentence`` in place and count it; False when it ran
        out of time and is to be left out (``on_timeout="skip"``).

        Raises :class:`TreebankError` naming the sentence when it ran out of
        time with ``on_timeout="fail"``.
        """
        job = _Job.of(sentence, self.options.single_root)
        solved = attempt(functools.partial(solve_tree, self.options), job.heads) if job.needs_dp else None
        return self._finish(job, stats, solved)

    def run(self, sentences: Iterable[Sentence], stats: ProjectivizeStats | None = None,
            pool: SentencePool | None = None) -> Iterator[Sentence]:
        """Projectivize a stream of sentences, in place, yielding each one to write.

        The optimal DPs run in ``pool`` (one process by default), in input
        order; the short non-projective trees of ``WINDOW`` sentences at a
        time go through one batched DP (:func:`optimal_projectivize_many`,
        the same trees, about twice as fast), unless counting is asked for.
        """
        opts = self.options
        optimal = opts.method == "optimal"
        jobs = (_Job.of(sentence, opts.single_root) for sentence in sentences)
        tasks = ((job, job.heads if optimal and job.needs_dp else None) for job in jobs)
        batch = functools.partial(solve_trees, opts, self.BATCH_MAX_WORDS) if optimal and not opts.count else None
        for job, outcome in (pool or SentencePool()).map(functools.partial(solve_tree, opts), tasks,
                                                          batch=batch, batch_size=self.WINDOW):
            if self._finish(job, stats, outcome):
                yield job.sentence

    #: Sentences read ahead by :meth:`run` for a batched DP.
    WINDOW = 512
    #: Trees of at most this many words are batched; longer ones are solved
    #: alone (narrower keys, see ``optimal._solve_one``).
    BATCH_MAX_WORDS = 100

    def _finish(self, job: _Job, stats: ProjectivizeStats | None, solved: Outcome | None) -> bool:
        """:meth:`apply` for an analysed sentence; ``solved``: the outcome of :func:`solve_tree` when it needs the DP."""
        opts, sentence, heads = self.options, job.sentence, job.heads
        finished = True
        if opts.method == "optimal":
            count = 1
            if job.needs_dp:
                try:
                    new, count = solved.get()  # type: ignore[union-attr]
                except SentenceTimeout as err:
                    if not self._timed_out(sentence, stats, err):
                        return False
                    new, count, finished = self._lift(sentence, heads), None, False
                    if new is None:
                        return False
                if _kept(heads, new) < len(heads) - 1:
                    sentence.set_tree(new)
            if opts.count and count is not None:
                sentence.add_comment(f"{COUNT_COMMENT} = {count}")
        elif not job.projective or opts.covered_roots != "none":
            try:
                new_heads, new_rels = pseudo_projectivize(
                    heads, sentence.deprels, scheme=opts.scheme,
                    covered_roots=opts.covered_roots, lift_order=opts.lift_order, budget=self._budget(),
                )
            except SentenceTimeout as err:  # a tree whose arcs mostly cross needs O(n) lifts of O(n) each
                self._timed_out(sentence, stats, err)
                return False
            sentence.set_tree(new_heads, new_rels)
        if stats is not None:
            self._count(sentence, heads, job.projective, finished, stats)
        return True

    def _timed_out(self, sentence: Sentence, stats: ProjectivizeStats | None, err: SentenceTimeout) -> bool:
        """Record a sentence that ran out of time (or whose tables would not fit in memory); True when it is to be lifted."""
        reason = self._reason(err)
        self.reasons.setdefault(reason, None)
        if self.options.on_timeout == "fail":
            what = "optimal projectivization" if self.options.method == "optimal" else "pseudo-projectivization"
            raise TreebankError(f"{what} {reason}", filename=sentence.filename, line=sentence.line,
                                sent_id=sentence.sent_id)
        self.timed_out_count += 1
        if len(self.timed_out) < self.SHOWN_TIMEOUTS:
            self.timed_out.append(sentence.location())
        if stats is not None:
            stats.timed_out += 1
        return self.options.on_timeout == "lift"

    def _reason(self, err: SentenceTimeout) -> str:
        """What stopped a sentence: the time budget, or the size of its tables (``refuse_large_table``)."""
        if err.seconds is not None:
            return f"ran out of time (--max-seconds {self.options.max_seconds:g})"
        return f"stopped: {err}"

    def _budget(self) -> Budget:
        """A fresh per-sentence budget of ``max_seconds`` (unlimited without it)."""
        return UNLIMITED if self.options.max_seconds is None else Budget(self.options.max_seconds)

    def _lift(self, sentence: Sentence, heads: list[int]) -> np.ndarray | None:
        """``--on-timeout lift``: MaltParser's baseline lifting, under a budget of its own (None: out of time too)."""
        try:
            seconds = self.options.max_seconds  # None: the DP's tables were too large, and no time limit was set
            budget = UNLIMITED if seconds is None else Budget(max(seconds, LIFT_MIN_SECONDS))
            return pseudo_projectivize(heads, sentence.deprels, scheme="baseline", budget=budget)[0]
        except SentenceTimeout:
            self.lift_timed_out += 1
            return None

    def timeout_summary(self) -> str | None:
        """One line for stderr naming the sentences that ran out of time, or None."""
        if not self.timed_out_count:
            return None
        count = self.timed_out_count
        what = "lifted (baseline)" if self.options.on_timeout == "lift" else "left out"
        more = f" and {count - len(self.timed_out)} more" if count > len(self.timed_out) else ""
        also = ""
        if self.lift_timed_out:
            also = f"; lifting ran out of time too for {self.lift_timed_out}, left out"
        return (
            f"{count} sentence{'s' if count != 1 else ''} {'; '.join(self.reasons)} and "
            f"{'were' if count != 1 else 'was'} {what}: {', '.join(self.timed_out)}{more}{also}"
        )

    def _count(
        self, sentence: Sentence, heads: np.ndarray, projective: bool, finished: bool, stats: ProjectivizeStats
    ) -> None:
        n = len(heads) - 1
        changed = n - _kept(heads, sentence.heads) if sentence.changed else 0
        stats.sentences += 1
        stats.words += n
        stats.non_projective_sentences += not projective
        stats.changed_sentences += sentence.changed
        stats.arcs_changed += changed
        if self.compare and finished:
            try:
                optimal_kept, pseudo_kept = self._compare(heads, projective, changed)
            except SentenceTimeout:  # the other method's answer is out of reach: the sentence is not compared
                return
            stats.compared_words += n
            stats.optimal_kept += optimal_kept
            stats.pseudo_head_kept += pseudo_kept

    def _compare(self, heads: np.ndarray, projective: bool, changed: int) -> tuple[int, int]:
        """Words each method keeps (optimal, pseudo with the head scheme); the run's own result is reused where it
        answers the question, the other method runs under the sentence's budget."""
        n = len(heads) - 1
        opts = self.options
        if opts.method == "optimal" or projective:
            optimal_kept = n - changed if opts.method == "optimal" else n  # every tie rule keeps the optimal number
        else:
            optimal_kept = optimal_projective_score(heads, single_root=opts.single_root, budget=self._budget())
        if projective:
            pseudo_kept = n
        elif opts.method == "pseudo" and opts.covered_roots == "none" and opts.lift_order == "shortest":
            pseudo_kept = n - changed  # the lifts do not depend on the label scheme
        else:
            pseudo_heads, _ = pseudo_projectivize(heads, ["", *["_"] * n], scheme="head", budget=self._budget())
            pseudo_kept = _kept(heads, pseudo_heads)
        return optimal_kept, pseudo_kept


def solve_tree(options: ProjectivizeOptions, heads: np.ndarray) -> tuple[np.ndarray, int | None]:
    """An optimal projective tree of ``heads`` and, with ``options.count``, how many there are
    (Nederhof 2019, section 3), under a budget of ``options.max_seconds``: the per-sentence work of ``--jobs``."""
    budget = UNLIMITED if options.max_seconds is None else Budget(options.max_seconds)
    return optimal_projectivize_counted(heads, single_root=options.single_root, ties=options.ties,
                                        count=options.count, budget=budget)


def solve_trees(options: ProjectivizeOptions, batch_max_words: int, trees: list[np.ndarray]) -> list[Outcome]:
    """:func:`solve_tree` for each tree (not counting), the short ones through one batched DP.

    The batch runs under one budget of ``max_seconds``: if it runs out,
    which a tree that would finish alone in time cannot cause by itself,
    the trees are solved one by one, each under its own budget, so what
    times out is the same as without batching.
    """
    solve = functools.partial(solve_tree, options)
    short = [i for i, heads in enumerate(trees) if len(heads) <= batch_max_words + 1]
    solved: dict[int, Outcome] = {}
    if len(short) >= 2:
        budget = UNLIMITED if options.max_seconds is None else Budget(options.max_seconds)
        try:
            many = optimal_projectivize_many([trees[i] for i in short], single_root=options.single_root,
                                             ties=options.ties, budget=budget)
            solved = {i: Outcome((heads, None)) for i, heads in zip(short, many)}
        except SentenceTimeout:
            pass
    return [solved[i] if i in solved else attempt(solve, heads) for i, heads in enumerate(trees)]


def deprojectivize_sentence(sentence: Sentence, scheme: str = "head") -> int:
    """Undo pseudo-projectivization of ``sentence`` in place (MaltParser's ``-m deproj``).

    Returns the number of words whose head changed.
    """
    heads = sentence.heads
    new_heads, new_rels = deprojectivize(heads, sentence.deprels, scheme=scheme)
    sentence.set_tree(new_heads, new_rels)
    return len(heads) - 1 - _kept(heads, new_heads)
