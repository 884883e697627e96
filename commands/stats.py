"""``treetool stats``: size and non-projectivity figures per file and in total."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from treetool.report import render
from treetool.stats import LENGTH_BUCKET_NAMES, ConstituencyStats, TreebankStats, treebank_stats
from treetool.treebank import read_treebank

from .common import (
    Files, FromFormat, InapplicableOption, OnError, OnErrorOpt, OnlyWhen, Rejects, ReportFormat, ReportFormatOpt,
    cli_command, dependency_inputs, error_policy, input_formats, refuse_inapplicable,
)

COLUMNS = [
    "file", "sentences", "words", "mean_length", "max_length",
    "non_projective_sentences", "non_projective_sentences_pct",
    "non_projective_arcs", "non_projective_arcs_pct",
    "multi_root_sentences", "max_gap_degree", "gap_degree", "max_edge_degree", "edge_degree",
    "ill_nested", "skipped",
]


PTB_COLUMNS = [
    "file", "trees", "words", "mean_length", "constituents", "unary_nodes", "unary_chains", "max_unary_chain",
    "max_depth", "derivable_top-down_pct", "derivable_in-order_pct", "labels", "skipped",
]
RULES = (
    OnlyWhen(("by_length",), lambda v: v["formats"] != {"ptb"}, "acts on dependency treebanks only"),
    OnlyWhen(("clean",), lambda v: v["formats"] == {"ptb"}, "acts on Penn Treebank input only"),
)


def _flatten_by_length(row: dict) -> dict:
    flat = dict(row)
    for bucket, figures in flat.pop("by_length", {}).items():
        flat[f"non_projective_pct[{bucket}]"] = figures["non_projective_pct"]
    return flat


@cli_command
def stats_command(
    ctx: typer.Context,
    files: Files,
    by_length: Annotated[bool, typer.Option("--by-length", help="Add the non-projective share per sentence-length bucket.")] = False,
    report_format: ReportFormatOpt = ReportFormat.table,
    clean: Annotated[bool, typer.Option("--clean/--no-clean", help="PTB: clean the trees first as filter --drop-traces --strip-functions --remove-wrapper does (on by default).")] = True,
    from_format: FromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
) -> None:
    """Count sentences, words, non-projective trees and arcs, gap and edge degree, ill-nested and multi-root trees.

    Per file and in total.  A non-projective arc h->d has a word between h
    and d that h does not dominate.

    On Penn Treebank files (cleaned first unless --no-clean): trees, words,
    constituents, label counts, unary nodes and chains, maximum depth, and
    the share of trees the top-down and in-order systems derive under their
    limits.

    Examples:

    \b
      treetool stats sample_data/en_sample.conllu
      treetool stats train.conllu dev.conllu --by-length --format json
      treetool stats wsj_*.mrg --format json
    """
    inputs = input_formats(files, from_format)
    formats = {fmt for _, fmt in inputs}
    refuse_inapplicable(ctx, RULES, formats=formats)
    if "ptb" in formats:
        if formats != {"ptb"}:
            raise InapplicableOption("stats takes either Penn Treebank files or dependency treebanks, not both")
        _ptb_stats(inputs, clean, report_format, on_error, rejects)
        return
    per_file: list[TreebankStats] = []
    total = TreebankStats(name="total")
    with error_policy(on_error, rejects) as policy:
        for path, fmt in dependency_inputs(ctx, files, from_format):
            before = policy.skipped
            stats = treebank_stats(read_treebank(path, fmt, on_error=policy), name=path)
            stats.skipped = policy.skipped - before
            per_file.append(stats)
            total.merge(stats)
    rows = [s.as_dict(by_length) for s in per_file]
    total_row = total.as_dict(by_length)
    columns = list(COLUMNS)
    if by_length:
        columns += [f"non_projective_pct[{b}]" for b in LENGTH_BUCKET_NAMES]
    if report_format is ReportFormat.json:
        render("json", "", columns, rows, total_row, sys.stdout)
    else:
        render(report_format.value, "treetool stats", columns,
               [_flatten_by_length(r) for r in rows], _flatten_by_length(total_row), sys.stdout)


def _ptb_stats(inputs: list[tuple[str, str]], clean: bool, report_format: ReportFormat, on_error: OnError,
               rejects: str | None) -> None:
    per_file: list[ConstituencyStats] = []
    total = ConstituencyStats(name="total")
    options = dict(drop_traces=clean, strip_functions=clean, remove_wrapper=clean)
    with error_policy(on_error, rejects) as policy:
        for path, fmt in inputs:
            before = policy.skipped
            stats = ConstituencyStats(name=path)
            for tree in read_treebank(path, fmt, on_error=policy, **options):
                stats.add(tree)
            stats.skipped = policy.skipped - before
            per_file.append(stats)
            total.merge(stats)
    rows, total_row = [s.as_dict() for s in per_file], total.as_dict()
    columns = list(PTB_COLUMNS)
    if report_format is ReportFormat.table:  # the terminal table shows how many labels; the others list them
        columns[columns.index("labels")] = "distinct_labels"
        for row in (*rows, total_row):
            row["distinct_labels"] = len(row["labels"])
    render(report_format.value, "treetool stats", columns, rows, total_row, sys.stdout)
