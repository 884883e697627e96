"""``treetool coverage``: how many trees a transition system can derive, per file and in total."""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from treetool.oracles.canonical import MAX_DEGREE
from treetool.oracles.constituency import CONSTITUENCY_SYSTEMS
from treetool.oracles.coverage import Coverage, CoverageCounter, is_bottom_up
from treetool.oracles.system import TransitionSystem
from treetool.budget import Budget, SentenceTimeout
from treetool.errors import TreebankError
from treetool.parallel import SentencePool
from treetool.report import render
from treetool.treebank import display_name, read_treebank

from .common import (
    Files, DependencyFromFormat, InapplicableOption, Jobs, MaxSeconds, OnError, OnErrorOpt, OnlyWhen, OnTimeoutOpt, Quiet,
    Rejects, ReportFormat, ReportFormatOpt, ShardOpt, cli_command, error, error_policy, dependency_inputs, no_lift,
    refuse_inapplicable, report_on_stdout, shard_input, on_timeout_rule,
)
from .progress import SentenceProgress
from .systems import DegreeOpt, OrderOpt, RootOpt, ReduceOpt, SystemOpt, VariantOpt, static_oracle_jobs, system_from_options

COLUMNS = ["file", "sentences", "words", "non_projective", "derivable", "canonical_failures", "min_degree", "skipped"]
RULES = (
    OnlyWhen(("max_degree",), lambda v: v["bottom_up"], "applies to attardi and arc-standard only"),
    OnlyWhen(("max_seconds",), lambda v: v["searches"],
             "acts only on a system without a static oracle of its own (generic search)"),
    no_lift("coverage"),
    on_timeout_rule(),
)


@cli_command
def coverage_command(
    ctx: typer.Context,
    files: Files,
    system: SystemOpt = "attardi",
    degree: DegreeOpt = None,
    variant: VariantOpt = None,
    reduce: ReduceOpt = None,
    order: OrderOpt = None,
    root: RootOpt = None,
    max_degree: Annotated[int, typer.Option("--max-degree", min=1, metavar="D", help="Attardi: the largest degree tried for the smallest-degree distribution.")] = MAX_DEGREE,
    max_seconds: MaxSeconds = None,
    on_timeout: OnTimeoutOpt = None,
    report_format: ReportFormatOpt = ReportFormat.table,
    from_format: DependencyFromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
    quiet: Quiet = False,
    jobs: Jobs = 1,
    shard: ShardOpt = None,
) -> None:
    """Count the sentences a transition system can derive, and the canonical oracle's failures.

    Per file and in total: sentences, words, non-projective sentences,
    derivable sentences, failures of the canonical oracle of Cohen,
    Gomez-Rodriguez & Satta (2012) (bottom-up systems), and for Attardi's
    system the smallest degree each tree needs (up to --max-degree; "none"
    beyond). This is their Table 1 measure for the system of their Example 2.
    A system of your own without a static oracle is searched per sentence;
    --max-seconds bounds that, and a sentence that runs out of time is left
    out of every count (skip, the default, with its id on stderr) or an error.
    "skipped" counts the sentences read but not counted (out of time, or bad
    input under --on-error skip): sentences + skipped = sentences read.

    Examples:

    \b
      treetool coverage sample_data/en_sample.conllu
      treetool coverage ud/*/*train.conllu --system attardi --degree 2 --format json
      treetool coverage train.conllu --system arc-eager
      treetool coverage silver.conllu --shard 1/4 --format json
    """
    shard_input(files, shard)
    report_on_stdout()
    if system in CONSTITUENCY_SYSTEMS:
        raise InapplicableOption(f"--system {system}: coverage counts dependency trees; `treetool stats FILE.mrg` "
                                 "gives the share of PTB trees each constituency system derives")
    chosen = system_from_options(ctx)
    refuse_inapplicable(ctx, RULES, bottom_up=is_bottom_up(chosen), searches=chosen.oracle_spec.static is None)
    inputs = dependency_inputs(ctx, files, from_format)
    per_file: list[Coverage] = []
    total = Coverage("total")
    timed_out: list[str] = []
    work = functools.partial(_tree_coverage, chosen, max_degree, max_seconds)
    with (
        error_policy(on_error, rejects) as policy,
        SentenceProgress(quiet) as progress,
        SentencePool(static_oracle_jobs(chosen, jobs), on_error=policy) as pool,
    ):
        files = ((path, (((s.position, s), s.head_list)
                         for s in read_treebank(path, fmt, on_error=pool.report, shard=shard)))
                 for path, fmt in inputs)
        for path, counted in pool.map_files(work, files):
            counter = CoverageCounter(chosen, max_degree, display_name(path))
            bad_before = policy.skipped  # the pool hands the reader's errors to the policy in input order
            for (position, sentence), outcome in progress.track(counted, path, lambda r: len(r[0][1].raw)):
                try:
                    counter.result.merge(outcome.get())
                except SentenceTimeout as err:
                    if on_timeout is not None and on_timeout.value == "fail":
                        raise TreebankError(str(err), filename=path, line=sentence.line,
                                            sent_id=sentence.sent_id) from None
                    timed_out.append(sentence.location())
                    counter.result.skipped += 1
            counter.result.skipped += policy.skipped - bad_before
            per_file.append(counter.result)
            total.merge(counter.result)
    if timed_out:
        shown = ", ".join(timed_out[:10]) + (", ..." if len(timed_out) > 10 else "")
        error(f"warning: {len(timed_out)} sentences ran out of --max-seconds and are not counted: {shown}")
    rows = [c.as_dict(max_degree) for c in per_file]
    render(report_format.value, f"treetool coverage: {chosen.describe()}", COLUMNS, rows,
           total.as_dict(max_degree), sys.stdout)


def _tree_coverage(system: TransitionSystem, max_degree: int, max_seconds: float | None,
                   heads: Sequence[int]) -> Coverage:
    """The counts of one tree (the per-sentence work of ``--jobs``; the caller merges them)."""
    counter = CoverageCounter(system, max_degree)
    counter.add(heads, Budget(max_seconds))
    return counter.result
