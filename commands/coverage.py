"""``treetool coverage``: how many trees a transition system can derive, per file and in total."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from oracles.attardi import MAX_DEGREE
from oracles.coverage import Coverage, CoverageCounter, is_bottom_up
from treetool.errors import TreebankError
from treetool.report import render
from treetool.treebank import read_treebank

from .common import (
    Files, FromFormat, OnError, OnErrorOpt, OnlyWhen, Rejects, ReportFormat, ReportFormatOpt, cli_command,
    error_policy, input_formats, refuse_inapplicable,
)
from .systems import DegreeOpt, OrderOpt, ReduceOpt, SystemOpt, VariantOpt, system_from_options

COLUMNS = ["file", "sentences", "words", "non_projective", "derivable", "canonical_failures", "min_degree"]
RULES = (OnlyWhen(("max_degree",), lambda v: v["bottom_up"], "applies to attardi and arc-standard only"),)


@cli_command
def coverage_command(
    ctx: typer.Context,
    files: Files,
    system: SystemOpt = "attardi",
    degree: DegreeOpt = None,
    variant: VariantOpt = None,
    reduce: ReduceOpt = None,
    order: OrderOpt = None,
    max_degree: Annotated[int, typer.Option("--max-degree", min=1, metavar="D", help="Attardi: the largest degree tried for the smallest-degree distribution.")] = MAX_DEGREE,
    report_format: ReportFormatOpt = ReportFormat.table,
    from_format: FromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
) -> None:
    """Count the sentences a transition system can derive, and the canonical oracle's failures.

    Per file and in total: sentences, words, non-projective sentences,
    derivable sentences, failures of the canonical oracle of Cohen,
    Gomez-Rodriguez & Satta (2012) (bottom-up systems), and for Attardi's
    system the smallest degree each tree needs (up to --max-degree; "none"
    beyond). This is their Table 1 measure for the system of their Example 2.

    Examples:

    \b
      treetool coverage sample_data/en_sample.conllu
      treetool coverage ud/*/*train.conllu --system attardi --degree 2 --format json
      treetool coverage train.conllu --system arc-eager
    """
    chosen = system_from_options(ctx)
    refuse_inapplicable(ctx, RULES, bottom_up=is_bottom_up(chosen))
    inputs = input_formats(files, from_format)
    per_file: list[Coverage] = []
    total = Coverage("total")
    with error_policy(on_error, rejects) as policy:
        for path, fmt in inputs:
            if fmt == "ptb":
                raise TreebankError("coverage needs a dependency treebank (CoNLL-U or CoNLL-X)", filename=path)
            counter = CoverageCounter(chosen, max_degree, path)
            for sentence in read_treebank(path, fmt, on_error=policy):
                counter.add(sentence.head_list)
            per_file.append(counter.result)
            total.merge(counter.result)
    rows = [c.as_dict(max_degree) for c in per_file]
    render(report_format.value, f"treetool coverage: {chosen.describe()}", COLUMNS, rows,
           total.as_dict(max_degree), sys.stdout)
