"""``treetool annotate`` on PTB trees with ``--system top-down`` or ``in-order`` (issue 12).

One JSON object per step: ``{"sent_id", "step", "stack", "buffer", "built",
["finished",] "costs", "optimal", "action"}`` (see
:func:`treetool.oracles.constituency.annotate.step_record`, which :func:`_jsonl` writes
byte for byte). Trees are cleaned as ``treetool oracle`` cleans them (traces
and function tags dropped, the outer wrapper removed). The sentence id is the
tree's position in its file. ``--jobs N`` walks the trees in N processes
(:mod:`treetool.parallel`); the output is the same, since the random stream
of ``--policy explore`` depends only on the seed and the tree's position.
"""

from __future__ import annotations

import functools
from typing import Any, Iterator, NamedTuple, Optional

import typer

from treetool.oracles.annotate import Explore, Predicted, Static
from treetool.oracles.constituency import GoldTreeError, from_nltk, get_constituency_system
from treetool.oracles.constituency.annotate import ConstituencyStep, annotate_tree
from treetool.oracles.constituency.dynamic import LOSSES
from treetool.oracles.constituency.system import ConstituencySystem, Open, Word
from treetool.oracles.constituency.tree import preorder
from treetool.oracles.errors import OracleUnavailable
from treetool.budget import SentenceTimeout
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput, read_text_file, readable_twice
from treetool.formats.ptb import tree_to_line
from treetool.parallel import SentencePool
from treetool.treebank import display_name, read_treebank

from .common import InapplicableOption, OnlyWhen, choices, error_policy, input_formats, no_lift, refuse_inapplicable
from .progress import SentenceProgress

__all__ = ["LossKind", "SearchLimits", "annotate_constituency"]

LossKind = choices("LossKind", LOSSES)

#: Options of ``annotate`` that only dependency systems use.
DEPENDENCY_ONLY = ("degree", "variant", "reduce", "order", "labeled", "prefer_monotonic", "oracle", "algorithm",
                   "strategy", "align")

RULES = (
    OnlyWhen(("error_rate", "seed"), lambda v: v["policy"] == "explore", "needs --policy explore"),
    OnlyWhen(("predicted",), lambda v: v["policy"] == "predicted", "needs --policy predicted"),
    OnlyWhen(DEPENDENCY_ONLY, lambda v: False, "is for dependency systems, not top-down or in-order"),
    OnlyWhen(("max_length", "max_states"), lambda v: v["loss"] != "paper",
             "acts only with exhaustive search (--loss exact or search), not with --loss paper"),
    no_lift("annotate"),
    OnlyWhen(("output_format",), lambda v: v["output_format"] == "jsonl",
             "tsv is for dependency systems; constituency steps are written as jsonl only"),
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
                          rejects: Optional[str], quiet: bool, jobs: int = 1) -> None:
    """The constituency branch of ``treetool annotate`` (options already parsed by the command)."""
    from .annotate import OutOfReach, out_of_reach_reason  # here: treetool.commands.annotate imports this module

    refuse_inapplicable(ctx, RULES)
    inputs = input_formats(files, from_format)
    for path, fmt in inputs:
        if fmt != "ptb":
            raise TreebankError(f"{system_name} is a constituency system and needs Penn Treebank trees "
                                "(.mrg/.ptb/.tree or --from ptb)", filename=path)
    if policy == "predicted" and predicted is None:
        raise InapplicableOption("--policy predicted needs --predicted FILE")
    system = get_constituency_system(system_name)
    kind = "exact" if loss is None else loss.value
    labels = _labels(labels_file, inputs)
    walk_policy = Explore(error_rate, seed) if policy == "explore" else Static()
    walk = functools.partial(_walk_text, system, tuple(labels), walk_policy, kind, limits)
    beyond = OutOfReach("exhaustive search" if kind == "search" else "oracle", fail=limits.fail)
    with (
        error_policy(on_error, rejects) as errors,
        AtomicOutput(output) as out,
        SentenceProgress(quiet) as progress,
        SentencePool(jobs, on_error=errors) as pool,
    ):
        others = _predicted_trees(predicted, pool.report) if predicted is not None else None
        files = ((path, _tasks(path, pool.report, others)) for path, _ in inputs)
        for path, results in pool.map_files(walk, files):
            for (line, tree), outcome in progress.track(results, path):
                try:
                    text = outcome.get()
                except SentenceTimeout as err:
                    reason = out_of_reach_reason(err, limits.max_seconds, limits.max_states)
                    beyond.add(_Located(path, line), reason, err)
                    continue
                except OracleUnavailable as err:  # longer than --max-length where the search must decide
                    beyond.add(_Located(path, line), f"longer than --max-length {limits.max_length}", err)
                    continue
                except GoldTreeError as err:  # --rejects gets the tree as cleaned, one line
                    errors(TreebankError(str(err), filename=path, line=line, raw=tree_to_line(tree) + "\n"))
                    continue
                out.write(text)
        if others is not None and next(others, None) is not None:
            raise TreebankError("--predicted holds more trees than the gold files", filename=predicted)
    beyond.report()


class _Located(NamedTuple):
    """A tree where :class:`~treetool.commands.annotate.OutOfReach` wants a sentence: its file and line name it."""

    filename: str
    line: int
    sent_id: str | None = None

    def location(self) -> str:
        return f"{self.filename}:{self.line}"


def _tasks(path: str, report: Any, others: Iterator[Any] | None) -> Iterator[tuple[tuple[int, Any], tuple]]:
    """``((line, tree), (tree, predicted tree or None, position))`` for each tree of ``path``."""
    trees = read_treebank(path, "ptb", on_error=report, ptb_lines=True, **_cleaning())
    for position, (line, tree) in enumerate(trees, 1):
        other = None
        if others is not None:
            other = next(others, None)
            if other is None:
                raise TreebankError(f"tree {position} has no predicted tree (--predicted ends before it)",
                                    filename=path, line=line)
        yield (line, tree), (tree, other, position)


def _walk_text(system: ConstituencySystem, labels: tuple[str, ...], policy: Any, kind: str, limits: SearchLimits,
               task: tuple[Any, Any, int]) -> bytes:
    """The JSON lines of one tree (the work of ``--jobs``): its bracket, the predicted one or None, its position."""
    tree, other, position = task
    gold = from_nltk(tree)
    target = None
    if other is not None:
        target = from_nltk(other)
        if target.end != gold.end:
            raise GoldTreeError(f"the predicted tree has {target.end} words, the gold one {gold.end}")
        policy = Predicted(())
    steps = annotate_tree(system, gold, labels, policy=policy, position=position, loss=kind,
                          max_length=limits.max_length, predicted=target, max_seconds=limits.max_seconds,
                          max_states=limits.max_states)
    return _jsonl(str(position), steps, system.nonterminal_kind == "PJ").encode("utf-8")


def _jsonl(sent_id: str, steps: Iterator[ConstituencyStep], in_order: bool) -> str:
    """The records of one walk, byte for byte ``json.dumps(step_record(...), ensure_ascii=False)``.

    Each configuration of a walk is the successor of the one before: its
    stack is the previous stack below its top item (SHIFT, NT/PJ push one
    item; REDUCE pops several and pushes one; TERM keeps the stack), and
    its ``built`` is the previous one or that plus one span. So the stack
    and ``built`` texts are kept as running prefixes (one per stack depth)
    and extended, not re-encoded or compared; the end of a record (costs,
    optimal, action) takes few distinct values and comes from a cache.
    """
    from .annotate import _quoted  # here: treetool.commands.annotate imports this module

    head = f'{{"sent_id": {_quoted(sent_id)}, "step": '
    stack: tuple = ()
    prefixes = [""]  # prefixes[i]: the JSON of the stack's first i items
    built: tuple = ()
    built_text = ""
    lines = []
    for s in steps:
        config = s.config
        if config.stack is not stack:
            stack = config.stack
            del prefixes[len(stack):]
            last, top = prefixes[-1], _item_text(stack[-1])
            prefixes.append(f"{last}, {top}" if last else top)
        if config.built is not built:
            built = config.built
            span = _span_text(built[-1])
            built_text = f"{built_text}, {span}" if built_text else span
        finished = ('"finished": true, ' if config.finished else '"finished": false, ') if in_order else ""
        lines.append(f'{head}{s.step}, "stack": [{prefixes[-1]}], "buffer": {config.buffer}, "built": [{built_text}], '
                     f'{finished}{_end_text(tuple(s.costs), tuple(s.costs.values()), tuple(s.optimal), s.action)}')
    return "".join(lines)


@functools.lru_cache(maxsize=65536)
def _end_text(actions: tuple[str, ...], costs: tuple[int, ...], optimal: tuple[str, ...], action: str) -> str:
    """``_record_end`` keyed by the actions and their costs apart: two flat tuples hash faster than one of pairs
    (a step has a cost per label: about 30 pairs), which is 2% of an in-order ``--loss paper`` run."""
    from .annotate import _record_end

    return _record_end(tuple(zip(actions, costs)), optimal, action)


@functools.lru_cache(maxsize=65536)
def _item_text(item: Any) -> str:
    """A stack item as JSON (``step_record``'s ``{"word"}``, ``{"open"}`` or ``{"label", "start", "end"}``)."""
    from .annotate import _quoted

    if type(item) is Word:
        return f'{{"word": {item.index}}}'
    if type(item) is Open:
        return f'{{"open": {_quoted(item.label)}}}'
    return f'{{"label": {_quoted(item.label)}, "start": {item.start}, "end": {item.end}}}'


@functools.lru_cache(maxsize=65536)
def _span_text(span: tuple[str, int, int]) -> str:
    from .annotate import _quoted

    return f"[{_quoted(span[0])}, {span[1]}, {span[2]}]"


def _cleaning() -> dict[str, Any]:
    """What ``treetool oracle`` applies to raw ``.mrg`` trees, read as light brackets (no nltk)."""
    from treetool.formats.ptb import Bracket

    return {"drop_traces": True, "strip_functions": True, "remove_wrapper": True, "node": Bracket, "one_root": True}


def _predicted_trees(path: str, report: Any) -> Iterator[Any]:
    return (tree for _, tree in read_treebank(path, "ptb", on_error=report, ptb_lines=True, **_cleaning()))


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
