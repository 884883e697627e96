"""``treetool annotate`` on PTB trees with ``--system top-down`` or ``in-order`` (issue 12).

One JSON object per step: ``{"sent_id", "step", "stack", "buffer", "built",
["finished",] "costs", "optimal", "action"}`` (:mod:`treetool.formats.steps`
writes :func:`treetool.oracles.constituency.annotate.step_record` byte for
byte). Trees are cleaned as ``treetool oracle`` cleans them (traces and
function tags dropped, the outer wrapper removed). The sentence id is the
tree's position in its file. ``--jobs N`` walks the trees in N processes
(:mod:`treetool.parallel`); the output is the same, since the random stream
of ``--policy explore`` depends only on the seed and the tree's position.
"""

from __future__ import annotations

import functools
from typing import Any, Iterator, NamedTuple, Optional

import typer

from treetool.oracles.annotate import Explore, Predicted, Static
from treetool.oracles.constituency import GoldTreeError, SinglePreterminalError, from_nltk, get_constituency_system
from treetool.oracles.constituency.annotate import PredictedTreeError, annotate_tree
from treetool.oracles.constituency.dynamic import LOSSES, LOSSES_OF
from treetool.oracles.constituency.system import ConstituencySystem
from treetool.oracles.constituency.tree import preorder
from treetool.oracles.errors import OracleUnavailable
from treetool.budget import SentenceTimeout
from treetool.shard import Shard
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput, read_text_file, readable_twice
from treetool.formats.steps import constituency_jsonl
from treetool.parallel import SentencePool
from treetool.treebank import display_name, read_treebank

from .common import (SEARCH_LIMITS, TABLE_LIMIT, InapplicableOption, OnlyWhen, choices, error_policy, input_formats,
                     no_lift, on_timeout_rule, refuse_inapplicable, refused_tree_text)
from .out_of_reach import OutOfReach, out_of_reach_reason
from .progress import SentenceProgress

__all__ = ["LossKind", "SearchLimits", "annotate_constituency"]

LossKind = choices("LossKind", LOSSES)

#: Options of ``annotate`` that only dependency systems use.
DEPENDENCY_ONLY = ("degree", "variant", "reduce", "order", "root", "labeled", "prefer_monotonic", "oracle", "algorithm",
                   "strategy", "align", "vocabulary")

RULES = (
    OnlyWhen(("error_rate", "seed"), lambda v: v["policy"] == "explore", "needs --policy explore"),
    OnlyWhen(("predicted",), lambda v: v["policy"] == "predicted", "needs --policy predicted"),
    OnlyWhen(DEPENDENCY_ONLY, lambda v: False, "is for dependency systems, not top-down or in-order"),
    OnlyWhen(("max_length", "max_states"), lambda v: v["loss"] not in ("paper", "authors"),
             "acts only with exhaustive search (--loss exact or search), not with --loss paper or authors"),
    no_lift("annotate"),
    on_timeout_rule(lambda v: v["loss"] != "authors", f"{SEARCH_LIMITS}, or --loss paper ({TABLE_LIMIT})"),
    *(OnlyWhen(("output_format",), lambda v, fmt=fmt: v["output_format"] != fmt,
               f"{fmt} is for dependency systems; constituency steps are written as jsonl only") for fmt in ("tsv", "parquet")),
)


class SearchLimits(NamedTuple):
    """The limits of ``annotate`` that bound a tree's work: exhaustive search's length and states, the time budget."""

    max_length: int
    max_states: int
    max_seconds: float | None
    fail: bool  # --on-timeout fail: a tree beyond them is an error, not skipped and counted


def annotate_constituency(ctx: typer.Context, files: list[str], system_name: str, policy: str, error_rate: float,
                          seed: int, predicted: Optional[str], loss: Any, labels_file: Optional[str],
                          limits: SearchLimits, output_format: str, output: str, from_format: Any, on_error: Any,
                          rejects: Optional[str], quiet: bool, jobs: int = 1, shard: Shard | None = None) -> None:
    """The constituency branch of ``treetool annotate`` (options already parsed by the command)."""
    refuse_inapplicable(ctx, RULES)
    inputs = input_formats(files, from_format)
    for path, fmt in inputs:
        if fmt != "ptb":
            raise TreebankError(f"{system_name} is a constituency system and needs Penn Treebank trees "
                                "(.mrg/.ptb/.tree or --from ptb)", filename=path)
    if policy == "predicted" and predicted is None:
        raise InapplicableOption("--policy predicted needs --predicted FILE")
    if shard is not None and labels_file is None:
        raise InapplicableOption("--shard needs --labels FILE: the labels costed are those of the whole file, "
                                 "which one shard does not see")
    system = get_constituency_system(system_name)
    kind = "exact" if loss is None else loss.value
    if kind not in LOSSES_OF[system_name]:
        raise InapplicableOption(f"--loss {kind} is for in-order only: the authors' top-down dynamic-oracle code "
                                 "is not public")
    labels = _labels(labels_file, inputs)
    walk_policy = Explore(error_rate, seed) if policy == "explore" else Static()
    walk = functools.partial(_walk_text, system, tuple(labels), walk_policy, kind, limits)
    beyond = OutOfReach("exhaustive search" if kind == "search" else "oracle", fail=limits.fail)
    underivable = OutOfReach("oracle", fail=False)  # no system derives them: left out and counted, as by oracle
    with (
        error_policy(on_error, rejects) as errors,
        AtomicOutput(output) as out,
        SentenceProgress(quiet) as progress,
        SentencePool(jobs, on_error=errors) as pool,
    ):
        others = _PredictedTrees(predicted, pool.report) if predicted is not None else None
        files = ((path, _tasks(path, pool.report, others, shard, sourced=rejects is not None)) for path, _ in inputs)
        for path, results in pool.map_files(walk, files):
            for (line, tree, predicted_line), outcome in progress.track(results, path):
                try:
                    text = outcome.get()
                except SentenceTimeout as err:
                    reason = out_of_reach_reason(err, limits.max_seconds, limits.max_states)
                    beyond.add(_Located(path, line), reason, err)
                    continue
                except OracleUnavailable as err:  # longer than --max-length where the search must decide
                    beyond.add(_Located(path, line), f"longer than --max-length {limits.max_length}", err)
                    continue
                except SinglePreterminalError as err:
                    underivable.add(_Located(path, line), f"not derivable by {system_name} (a single preterminal: "
                                    "no constituent above the words)", err)
                    continue
                except GoldTreeError as err:  # --rejects gets the tree's own text
                    errors(TreebankError(str(err), filename=path, line=line, raw=refused_tree_text(tree)))
                    continue
                except PredictedTreeError as err:  # located in --predicted; the gold tree is what is skipped
                    errors(TreebankError(str(err), filename=predicted, line=predicted_line,
                                         raw=refused_tree_text(tree)))
                    continue
                out.write(text)
        if others is not None:
            others.finish()
    beyond.report()
    underivable.report()


class _Located(NamedTuple):
    """A tree where :class:`~treetool.commands.out_of_reach.OutOfReach` wants a sentence: its file and line name it."""

    filename: str
    line: int
    sent_id: str | None = None

    def location(self) -> str:
        return f"{self.filename}:{self.line}"


def _tasks(path: str, report: Any, others: _PredictedTrees | None, shard: Shard | None,
           sourced: bool) -> Iterator[tuple[tuple[int, Any, int | None], tuple]]:
    """``((line, tree, predicted tree's line or None), (tree, predicted tree or None, position))`` for each tree of
    ``path`` (of its ``shard``); with ``others``, not a tree whose predicted tree was refused (that is its error).
    ``sourced`` (``--rejects``): the first ``tree`` with its text in the input (a ``SourcedTree``), which stays
    in this process."""
    on_error = report if others is None else others.gold_refused
    for line, position, item in read_treebank(path, "ptb", on_error=on_error, ptb_positions=True, shard=shard,
                                              source_text=sourced, **_cleaning()):
        other_line, other = None, None
        if others is not None:
            found = others.for_gold()
            if found is None:
                raise TreebankError(f"tree {position} has no predicted tree (--predicted ends before it)",
                                    filename=path, line=line)
            if found is _REFUSED:
                continue
            other_line, other = found
        yield (line, item, other_line), (item.tree if sourced else item, other, position)


def _walk_text(system: ConstituencySystem, labels: tuple[str, ...], policy: Any, kind: str, limits: SearchLimits,
               task: tuple[Any, Any, int]) -> bytes:
    """The JSON lines of one tree (the work of ``--jobs``): its bracket, the predicted one or None, its position."""
    tree, other, position = task
    gold = from_nltk(tree)
    target = None
    if other is not None:
        try:
            target = from_nltk(other)
        except GoldTreeError as err:  # not a constituency tree: a fault of --predicted's tree
            raise PredictedTreeError(str(err)) from None
        if target.end != gold.end:
            raise GoldTreeError(f"the predicted tree has {target.end} words, the gold one {gold.end}")
        policy = Predicted(())
    steps = annotate_tree(system, gold, labels, policy=policy, position=position, loss=kind,
                          max_length=limits.max_length, predicted=target, max_seconds=limits.max_seconds,
                          max_states=limits.max_states)
    return constituency_jsonl(str(position), steps, system.nonterminal_kind == "PJ").encode("utf-8")


def _cleaning() -> dict[str, Any]:
    """What ``treetool oracle`` applies to raw ``.mrg`` trees, read as light brackets (no nltk)."""
    from treetool.formats.ptb import Bracket

    return {"drop_traces": True, "strip_functions": True, "remove_wrapper": True, "node": Bracket, "one_root": True}


#: :meth:`_PredictedTrees.for_gold` of a gold tree whose predicted tree the reader refused (and reported).
_REFUSED = object()


class _PredictedTrees:
    """The trees of ``--predicted``, the n-th paired with the n-th gold tree read, refused trees counted on both
    sides (as the dependency ``annotate`` pairs sentences), so that a tree ``--on-error skip`` skips in either
    file does not shift the pairs after it.

    A refused tree is one whose error ``refuses_item`` (stray text outside the brackets is not a tree).
    """

    def __init__(self, path: str, report: Any) -> None:
        self._path, self._report = path, report
        self._trees = read_treebank(path, "ptb", on_error=self._refused, ptb_positions=True, **_cleaning())
        self._gold = 0  # gold trees read, refused ones included
        self._read = 0  # predicted trees read, refused ones included
        self._held: tuple[int, int, Any] | None = None  # a predicted tree read ahead of its gold tree

    def _refused(self, err: TreebankError) -> None:
        self._read += err.refuses_item
        self._report(err)

    def gold_refused(self, err: TreebankError) -> None:
        """The gold reader's ``on_error``: a refused gold tree takes its place (its predicted tree is dropped)."""
        self._gold += err.refuses_item
        self._report(err)

    def for_gold(self) -> tuple[int, Any] | None | object:
        """``(line, tree)`` of the next gold tree's predicted tree, ``_REFUSED``, or None: ``--predicted`` ended."""
        self._gold += 1
        while True:
            if self._held is None:
                self._held = next(self._trees, None)
                if self._held is None:
                    return _REFUSED if self._read >= self._gold else None
                self._read += 1
            line, position, tree = self._held
            if position < self._gold:  # the predicted tree of a refused gold tree
                self._held = None
                continue
            if position > self._gold:
                return _REFUSED
            self._held = None
            return line, tree

    def finish(self) -> None:
        """Raise if ``--predicted`` holds trees after the last gold one."""
        if self._held is not None or next(self._trees, None) is not None or self._read > self._gold:
            raise TreebankError("--predicted holds more trees than the gold files", filename=self._path)


def _labels(labels_file: Optional[str], inputs: list[tuple[str, str]]) -> list[str]:
    """``--labels FILE`` (one per line), else every label of the gold trees in the input files (first seen first).

    The input is then read twice, so stdin, a pipe or a FIFO needs ``--labels``.
    """
    if labels_file is not None:
        lines = read_text_file(labels_file).splitlines()
        labels = list(dict.fromkeys(line.strip() for line in lines if line.strip()))
        if not labels:
            raise InapplicableOption(f"--labels {labels_file}: the file holds no labels (one per line)")
        return labels
    once = [path for path, _ in inputs if not readable_twice(path)]
    if once:
        raise InapplicableOption(f"{display_name(once[0])} can be read only once (stdin, a pipe or a FIFO): give "
                                 "--labels FILE (without it the label set is collected from the input files first)")
    seen: dict[str, None] = {}
    for path, _ in inputs:
        for _, tree in read_treebank(path, "ptb", on_error=lambda err: None, ptb_lines=True, **_cleaning()):
            try:
                seen.update((node.label, None) for node in preorder(from_nltk(tree)))
            except GoldTreeError:
                continue
    return list(seen)
