"""``treetool oracle``: gold transition sequences for every sentence, for any transition system."""

from __future__ import annotations

import functools
import json
import pickle
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from treetool.oracles.gold import UNPARSABLE_MODES, GoldSequence, NotDerivable, gold_sequence
from treetool.oracles.constituency import CONSTITUENCY_SYSTEMS, get_constituency_system
from treetool.budget import Budget, SentenceTimeout
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput
from treetool.formats.oracle_file import FORMAT_COMMENT, LANGS, RECORDED_FORMAT, SPELLINGS
from treetool.formats.step_columns import SequenceColumns
from treetool.report import JsonReportFile
from treetool.treebank import TreebankWriter, display_name, read_treebank

from .common import (
    Files, FromFormat, InapplicableOption, Jobs, MaxSeconds, OnError, OnErrorOpt, OnlyWhen, OnTimeoutOpt, Output, Quiet, PtbRejects, choices,
    ShardOpt, cli_command, error, error_policy, dependency_inputs, no_lift, parquet_output, refuse_inapplicable,
    run_options, shard_input, on_timeout_rule,
)
from .out_of_reach import OutOfReach, out_of_reach_reason
from .constituency_oracle import CONSTITUENCY_FORMATS, RULES as CONSTITUENCY_RULES, Run, check_format, write_constituency_oracle
from .systems import AnySystemOpt, DegreeOpt, LabeledOpt, OrderOpt, RootOpt, ReduceOpt, VariantOpt, static_oracle_jobs, system_from_options

if TYPE_CHECKING:
    from treetool.parallel import Outcome
    from treetool.sentence import Sentence

SEQUENCE_FORMATS = ("conllu", "jsonl", "lines", "parquet", *(f for f in CONSTITUENCY_FORMATS if f != "jsonl"))
#: The comment ``oracle`` writes and ``replay`` reads.
TRANSITIONS_COMMENT = "transitions"

SequenceFormat = choices("SequenceFormat", SEQUENCE_FORMATS)
Lang = choices("Lang", LANGS)
Spelling = choices("Spelling", tuple(SPELLINGS))
_DEPENDENCY_ONLY = ("degree", "variant", "reduce", "order", "root", "labeled", "max_seconds", "on_timeout")
RULES = (
    OnlyWhen(_DEPENDENCY_ONLY, lambda v: v["system"] not in CONSTITUENCY_SYSTEMS,
             "acts with dependency systems only"),
    OnlyWhen(("on_unparsable",), lambda v: v["system"] not in CONSTITUENCY_SYSTEMS or v["on_unparsable"] != "projectivize",
             "projectivize applies to dependency trees only; constituency systems take skip or fail"),
    OnlyWhen(("on_unparsable",), lambda v: v["system"] != "swap" or v["on_unparsable"] != "projectivize",
             "projectivize cannot act with --system swap: swap derives every tree, projective or not"),
    OnlyWhen(("max_seconds",), lambda v: v["searches"] or v["on_unparsable"] == "projectivize",
             "acts only on super-linear work: a system without a static oracle of its own (generic search), "
             "swap's static oracle (a swap per pair of words at worst), or --on-unparsable projectivize"),
    no_lift("oracle"),
    on_timeout_rule(),
)
OnUnparsable = choices("OnUnparsable", UNPARSABLE_MODES)


class SequenceCounts:
    """What the run did, for stderr and ``--report-file``."""

    def __init__(self, file: str) -> None:
        self.file, self.sentences, self.words = file, 0, 0
        self.derived, self.unparsable, self.projectivized, self.timed_out = 0, 0, 0, 0

    def add(self, n: int, result: GoldSequence) -> None:
        self.sentences += 1
        self.words += n
        self.derived += result.actions is not None
        self.unparsable += result.actions is None and not result.timed_out
        self.projectivized += result.projectivized
        self.timed_out += result.timed_out

    def merge(self, other: SequenceCounts) -> None:
        for name in ("sentences", "words", "derived", "unparsable", "projectivized", "timed_out"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))


class SequenceWriter:
    """Writes one sentence's result in the chosen ``--format``, keeping jsonl/lines aligned with the input."""

    def __init__(self, path: str, fmt: str, source_format: str, system_name: str, on_error: Any,
                 metadata: dict[str, Any]) -> None:
        self.format, self.system_name = fmt, system_name
        if fmt == "conllu":
            self._treebank = TreebankWriter(path, source_format, on_error=on_error)
        elif fmt == "parquet":
            self._rows = parquet_output(path, SequenceColumns, {**metadata, "system": system_name})
        else:
            self._lines = AtomicOutput(path)

    def write(self, sentence: Sentence, position: int, result: GoldSequence) -> None:
        if self.format == "conllu":
            if result.actions is not None:
                sentence.remove_comment(TRANSITIONS_COMMENT)
                if result.projectivized:
                    sentence.set_tree(result.heads)
                if sentence.format == RECORDED_FORMAT:  # so that replay reads it back from a pipe: see oracle_file
                    sentence.remove_comment(FORMAT_COMMENT)
                    sentence.add_comment(f"{FORMAT_COMMENT} = {RECORDED_FORMAT}")
                sentence.add_comment(f"{TRANSITIONS_COMMENT} = {' '.join(result.actions)}")
                self._treebank.write(sentence)
            return
        if self.format == "parquet":
            self._rows.write(pickle.dumps((sentence.identifier(position), len(sentence), self.system_name,
                                           result.actions, result.reason if result.actions is None else None,
                                           bool(result.projectivized))))
            return
        if self.format == "lines":
            text = " ".join(result.actions or ())
        else:
            record: dict[str, Any] = {"sent_id": sentence.identifier(position), "n": len(sentence),
                                      "system": self.system_name, "actions": result.actions}
            if result.actions is None:
                record["reason"] = result.reason
            elif result.projectivized:
                record["projectivized"] = True
            text = json.dumps(record, ensure_ascii=False)
        self._lines.write((text + "\n").encode("utf-8"))

    def close(self, ok: bool) -> None:
        if self.format == "conllu":
            self._treebank.close(ok)
        elif self.format == "parquet":
            self._rows.close(ok)
        elif ok:
            self._lines.commit()
        else:
            self._lines.abort()


@cli_command
def oracle_command(
    ctx: typer.Context,
    files: Files,
    system: AnySystemOpt = "arc-standard",
    degree: DegreeOpt = None,
    variant: VariantOpt = None,
    reduce: ReduceOpt = None,
    order: OrderOpt = None,
    root: RootOpt = None,
    labeled: LabeledOpt = False,
    output_format: Annotated[Optional[SequenceFormat], typer.Option("--format", show_default=False, help="conllu: the sentence unchanged plus '# transitions = ...'; jsonl: one object per sentence; lines: one line of actions per sentence; parquet: one row per sentence, the jsonl fields typed (-o FILE; needs pyarrow: pip install 'treetool[parquet]'); rnng (top-down) / inorder (in-order): the RNNG / In-Order parsers' oracle files [default: conllu; rnng for top-down, inorder for in-order].")] = None,
    vocab: Annotated[Optional[list[str]], typer.Option("--vocab", metavar="FILE", show_default=False, help="top-down/in-order: PTB training file(s) whose words occurring more than once are known; the others get unknown-word classes [default: the input files].")] = None,
    lang: Annotated[Lang, typer.Option("--lang", help="top-down/in-order: en: Berkeley unknown-word classes (UNK-INITC-KNOWNLC...); ch: every unknown word is UNK.")] = Lang.en,
    spelling: Annotated[Spelling, typer.Option("--spelling", help="in-order: pj-term: PJ(X) ... TERM (In-Order); nt-term: NT(X) ... TERM with '!# ' tree comments (Dynamic-In-Order); nt-finish: NT(X) ... FINISH.")] = Spelling("pj-term"),
    clean: Annotated[bool, typer.Option("--clean/--no-clean", help="top-down/in-order: clean the PTB trees as filter --drop-traces --strip-functions --remove-wrapper does (on by default).")] = True,
    on_unparsable: Annotated[OnUnparsable, typer.Option("--on-unparsable", help="A tree the system cannot derive: skip it (jsonl/lines keep an entry: null / an empty line), fail (exit 2), or derive its optimal projectivization instead.")] = OnUnparsable.skip,
    max_seconds: MaxSeconds = None,
    on_timeout: OnTimeoutOpt = None,
    output: Output = "-",
    report_file: Annotated[Optional[str], typer.Option("--report-file", metavar="FILE", help="Write the counts per file and in all as JSON: sentences, words, derived, unparsable, projectivized, timed_out (constituency systems: trees, words, derived, unparsable).", show_default=False)] = None,
    from_format: FromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: PtbRejects = None,
    quiet: Quiet = False,
    jobs: Jobs = 1,
    shard: ShardOpt = None,
) -> None:
    """Write a gold transition sequence for every sentence (static oracle of the system).

    Bottom-up systems (arc-standard, attardi) use the canonical oracle of
    Cohen, Gomez-Rodriguez & Satta (2012), which derives every tree the
    system can derive at all. Every sequence replays to exactly the gold tree
    (`treetool replay`).

    Examples:

    \b
      treetool oracle sample_data/en_sample.conllu --system arc-eager
      treetool oracle train.conllu --system attardi --degree 2 --labeled --format jsonl -o train.jsonl
      treetool oracle train.conllu --system swap --order lazy --format lines
      treetool oracle train.conllu --system arc-hybrid --on-unparsable projectivize
      treetool oracle train.conllu --system mysystems:MySystem --max-seconds 2
      treetool oracle silver.conllu --system arc-eager --format jsonl --shard 3/8 -o part3.jsonl
    """
    shard_input(files, shard)
    if system in CONSTITUENCY_SYSTEMS:
        refuse_inapplicable(ctx, (*RULES, *CONSTITUENCY_RULES), searches=False, format=getattr(output_format, "value", None))
        fmt = check_format(system, getattr(output_format, "value", None))
        run = Run(get_constituency_system(system), fmt, spelling.value, clean, lang.value,
                  from_format.value if from_format else None, shard, sourced=rejects is not None)
        with JsonReportFile(report_file) as report_out, error_policy(on_error, rejects) as policy:
            report_out.write(write_constituency_oracle(run, list(files), vocab, output, policy, on_unparsable.value))
        return
    # The dependency path's imports (rich, the worker pool) are here: constituency runs skip them.
    from treetool.parallel import SentencePool

    from .progress import SentenceProgress

    if output_format is None:
        output_format = SequenceFormat.conllu
    elif output_format.value in CONSTITUENCY_FORMATS and output_format.value != "jsonl":
        raise InapplicableOption(f"--format {output_format.value} needs --system top-down or in-order")
    chosen = system_from_options(ctx)
    refuse_inapplicable(ctx, (*RULES, *CONSTITUENCY_RULES), searches=chosen.oracle_spec.static_takes_budget, format=output_format.value)
    inputs = dependency_inputs(ctx, files, from_format)
    beyond = OutOfReach("oracle", fail=on_timeout is not None and on_timeout.value == "fail")
    total = SequenceCounts("total")
    per_file: list[SequenceCounts] = []
    work = functools.partial(_gold, chosen, on_unparsable.value, max_seconds)
    with (
        JsonReportFile(report_file) as report_out,
        error_policy(on_error, rejects) as policy,
        SentenceProgress(quiet) as progress,
        SentencePool(static_oracle_jobs(chosen, jobs), on_error=policy) as pool,
    ):
        writer = SequenceWriter(output, output_format.value, inputs[0][1], chosen.describe(), policy,
                                {"command": "oracle", "seed": None, "options": run_options(ctx)})
        ok = False
        try:
            files = ((path, (((s.position, s), (s.head_list, s.deprels if labeled else None))
                             for s in read_treebank(path, fmt, on_error=pool.report, shard=shard)))
                     for path, fmt in inputs)
            for path, results in pool.map_files(work, files):
                counts = SequenceCounts(display_name(path))
                for (position, sentence), outcome in progress.track(results, path, lambda r: len(r[0][1].raw)):
                    result = _sequence(outcome, sentence, beyond, max_seconds)
                    counts.add(len(sentence), result)
                    writer.write(sentence, position, result)
                per_file.append(counts)
                total.merge(counts)
            ok = True
        finally:
            writer.close(ok)
        report_out.write({"files": [c.as_dict() for c in per_file], "total": total.as_dict()})
    beyond.report()
    if total.unparsable:
        error(f"{total.unparsable} of {total.sentences} sentences not derivable by {chosen.describe()}: "
              f"{'left out' if output_format.value == 'conllu' else 'written without actions'}")


def _gold(system: Any, on_unparsable: str, max_seconds: float | None,
          tree: tuple[list[int], list[str] | None]) -> GoldSequence:
    """The gold sequence of one tree (heads, labels or None): the per-sentence work of ``--jobs``."""
    heads, labels = tree
    budget = Budget(max_seconds)
    return gold_sequence(system, heads, labels, on_unparsable=on_unparsable, budget=budget)


def _sequence(outcome: Outcome, sentence: Sentence, beyond: OutOfReach, max_seconds: float | None) -> GoldSequence:
    """The gold sequence, with "cannot derive" a located error and "out of time" a skip ``beyond`` lists, or
    its error (``--on-timeout fail``)."""
    try:
        return outcome.get()
    except SentenceTimeout as err:
        beyond.add(sentence, out_of_reach_reason(err, max_seconds, None), err)
        return GoldSequence(None, sentence.head_list, reason=f"timed out: {err}", timed_out=True)
    except NotDerivable as err:
        raise TreebankError(str(err), filename=sentence.filename, line=sentence.line,
                            sent_id=sentence.sent_id, raw=sentence.raw) from None
