"""``treetool projectivize``: optimal or pseudo-projective trees, streaming and lossless."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Optional

import typer

from treetool.projectivization.optimal import TIE_RULES
from treetool.plots import GeometricMeanByLength, optimal_counts_figure
from treetool.projectivization.driver import COUNT_COMMENT, METHODS, ROOT_MODES, ProjectivizeOptions, ProjectivizeStats, Projectivizer
from treetool.projectivization.pseudo import COVERED_ROOT_MODES, LIFT_ORDERS, PSEUDO_SCHEMES
from treetool.parallel import SentencePool
from treetool.report import JsonReportFile, render
from treetool.sentence import Sentence
from treetool.treebank import TreebankWriter, display_name, read_treebank

from .common import (
    Files, DependencyFromFormat, Jobs, MaxSeconds, OnError, OnErrorOpt, OnlyWhen, Output, Quiet, Rejects, ReportFormat,
    ReportFormatOpt, DependencyToFormat, choices, cli_command, error, error_policy, given_options, dependency_inputs,
    ShardOpt, plot_file, plot_option, refuse_inapplicable, shard_input, timeout_mode, treebank_output_format,
    TABLE_LIMIT, TABLE_SIZE, on_timeout_option, on_timeout_rule, warn_dropped,
)
from .progress import SentenceProgress


Method = choices("Method", METHODS)
RootMode = choices("RootMode", ROOT_MODES)
Ties = choices("Ties", TIE_RULES)
Scheme = choices("Scheme", PSEUDO_SCHEMES)
CoveredRoots = choices("CoveredRoots", COVERED_ROOT_MODES)
LiftOrder = choices("LiftOrder", LIFT_ORDERS)


SchemeOpt = Annotated[Scheme, typer.Option("--scheme", help="Pseudo: label encoding of the lifts (MaltParser -pp).")]
ProjectivizeOnTimeout = on_timeout_option(f" or, with --method optimal, {TABLE_SIZE}",
                                          ", lift = --method optimal only: written with its cheap fallback (lifted)",
                                          "lift for --method optimal, else skip")

RULES = (
    OnlyWhen(("root", "ties", "count"), lambda v: v["method"] == "optimal", "applies to --method optimal only"),
    OnlyWhen(("scheme", "covered_roots", "lift_order"), lambda v: v["method"] == "pseudo",
             "applies to --method pseudo only"),
    OnlyWhen(("plot",), lambda v: v["count"], "needs --count (it plots the counts)"),
    OnlyWhen(("on_timeout",), lambda v: v["method"] == "optimal" or v["on_timeout"] != "lift",
             "lift applies to --method optimal only: pseudo-projectivization is the lifting (use skip or fail)"),
    on_timeout_rule(lambda v: v["method"] == "optimal", f"--method optimal ({TABLE_LIMIT})"),
)

REPORT_COLUMNS = [
    "file", "sentences", "words", "non_projective_sentences", "changed_sentences", "arcs_changed",
    "accuracy", "pseudo_head_accuracy", "optimal_accuracy", "timed_out", "ms_per_tree",
]


def print_report(rows: list[ProjectivizeStats], total: ProjectivizeStats, fmt: ReportFormat) -> None:
    """The report on stderr in ``fmt``."""
    files = [r.as_dict() for r in rows]
    columns = [c for c in REPORT_COLUMNS if c in files[0]] if files else REPORT_COLUMNS
    render(fmt.value, "treetool projectivize", columns, files, total.as_dict(), sys.stderr)


def _input_bytes(sentence: Sentence) -> int:
    return len(sentence.raw)


def _count_trees(means: GeometricMeanByLength, sentence: Sentence) -> None:
    """Add the sentence's count of optimal trees (the comment --count wrote; none when it timed out and was lifted)."""
    count = sentence.comment_value(COUNT_COMMENT)
    if count is not None:
        means.add(len(sentence), int(count))


@cli_command
def projectivize_command(
    ctx: typer.Context,
    files: Files,
    output: Output = "-",
    method: Annotated[Method, typer.Option("--method", help="optimal: keep the most gold arcs (Nederhof 2019); pseudo: reversible lifting (Nivre & Nilsson 2005, as MaltParser).")] = Method.optimal,
    root: Annotated[Optional[RootMode], typer.Option("--root", help="Optimal: single = exactly one dependent of the root, any = several allowed [default: keep what the input had].", show_default=False)] = None,
    ties: Annotated[Ties, typer.Option("--ties", help="Optimal: among optimal trees prefer lifts to ancestors, then the fewest levels lifted (lift), or keep the plain DP choice (first).")] = Ties.lift,
    count: Annotated[bool, typer.Option("--count", help="Optimal: add '# optimal_projective_trees = N' to every sentence.")] = False,
    scheme: SchemeOpt = Scheme.head,
    covered_roots: Annotated[CoveredRoots, typer.Option("--covered-roots", help="Pseudo: root dependents inside another arc (MaltParser -pcr).")] = CoveredRoots.none,
    lift_order: Annotated[LiftOrder, typer.Option("--lift-order", help="Pseudo: lift the shortest original arc or the deepest word first (MaltParser -plo).")] = LiftOrder.shortest,
    max_seconds: MaxSeconds = None,
    on_timeout: ProjectivizeOnTimeout = None,
    report: Annotated[bool, typer.Option("--report", help="Print a report to stderr: sentences, non-projective, arcs changed, accuracy, time per tree (implied by --format).")] = False,
    report_file: Annotated[Optional[str], typer.Option("--report-file", metavar="FILE", help="Write the report as JSON to FILE.", show_default=False)] = None,
    report_format: ReportFormatOpt = ReportFormat.table,
    plot: Annotated[Optional[str], plot_option("the number of optimal projective trees against sentence length (geometric mean per length, one line per file; Nederhof 2019, Figure 8); needs --count")] = None,
    from_format: DependencyFromFormat = None,
    to: DependencyToFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
    quiet: Quiet = False,
    jobs: Jobs = 1,
    shard: ShardOpt = None,
) -> None:
    """Make every tree projective: optimally (most gold arcs kept) or pseudo-projectively (reversibly).

    Projective sentences pass through byte-identical; re-attached words keep
    their DEPREL (optimal) or get MaltParser's encoded labels (pseudo).
    The report also gives, per file, the accuracy of both methods (Nederhof
    2019, Table 6: pseudo with the head scheme, labels stripped, vs optimal).
    A sentence whose optimal DP runs out of time (--max-seconds) or would
    need tables of more than 1 GB is written with MaltParser's baseline
    lifting (projective, labels untouched), left out, or an error
    (--on-timeout lift|skip|fail). Pseudo-projectivization
    takes --max-seconds too (a tree whose arcs mostly cross needs a lift per
    word: minutes for a few thousand words); its default is skip.

    Examples:

    \b
      treetool projectivize sample_data/en_sample.conllu
      treetool projectivize train.conllu -o train.proj.conllu --report
      treetool projectivize train.conllu --method pseudo --scheme head+path -o train.pproj.conllu
      treetool projectivize ud/*/*train.conllu --report-file table6.json -o /dev/null --to conllu
      treetool projectivize long.conllu --max-seconds 10 --on-timeout skip -o out.conllu
      treetool projectivize train.conllu --count --plot counts.svg -o /dev/null
      treetool projectivize silver.conllu --shard 3/8 -o silver.proj.3.conllu
    """
    refuse_inapplicable(ctx, RULES)
    shard_input(files, shard)
    inputs = dependency_inputs(ctx, files, from_format)
    show_report = report or "report_format" in given_options(ctx)
    options = ProjectivizeOptions(
        method=method.value, root=root.value if root else None, ties=ties.value, count=count,
        scheme=scheme.value, covered_roots=covered_roots.value, lift_order=lift_order.value,
        max_seconds=max_seconds,
        on_timeout=timeout_mode(on_timeout, default="lift" if method.value == "optimal" else "skip"),
    )
    want_report = show_report or report_file is not None
    projectivizer = Projectivizer(options, compare=want_report)
    per_file: list[ProjectivizeStats] = []
    total = projectivizer.new_stats("total")
    counts: dict[str, GeometricMeanByLength] = {}
    with (
        plot_file(plot) as plot_out,
        JsonReportFile(report_file) as report_out,
        error_policy(on_error, rejects) as policy,
        TreebankWriter(output, treebank_output_format(output, to, inputs), on_error=policy) as writer,
        SentenceProgress(quiet) as progress,
        SentencePool(jobs, on_error=policy) as pool,
    ):
        for path, fmt in inputs:
            stats = projectivizer.new_stats(display_name(path))
            start = time.perf_counter()
            sentences = read_treebank(path, fmt, on_error=pool.report, shard=shard)
            means = counts.setdefault(display_name(path), GeometricMeanByLength()) if plot_out is not None else None
            for sentence in progress.track(projectivizer.run(sentences, stats, pool), path, size_of=_input_bytes):
                writer.write(sentence)
                if means is not None:
                    _count_trees(means, sentence)
            stats.seconds = time.perf_counter() - start
            per_file.append(stats)
            total.merge(stats)
        report_out.write({"files": [r.as_dict() for r in per_file], "total": total.as_dict()})
        if plot_out is not None:
            plot_out.save(optimal_counts_figure(counts))
    warn_dropped(writer)
    summary = projectivizer.timeout_summary()
    if summary:
        error(f"warning: {summary}")
    if show_report:
        print_report(per_file, total, report_format)
