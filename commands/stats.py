"""``treetool stats``: size and non-projectivity figures per file and in total."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from treetool.report import render
from treetool.stats import LENGTH_BUCKET_NAMES, TreebankStats, treebank_stats
from treetool.treebank import read_treebank

from .common import Files, FromFormat, OnError, OnErrorOpt, Rejects, ReportFormat, ReportFormatOpt, cli_command, dependency_inputs, error_policy

COLUMNS = [
    "file", "sentences", "words", "mean_length", "max_length",
    "non_projective_sentences", "non_projective_sentences_pct",
    "non_projective_arcs", "non_projective_arcs_pct",
    "multi_root_sentences", "max_gap_degree", "gap_degree", "max_edge_degree", "edge_degree",
    "ill_nested", "skipped",
]


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
    from_format: FromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
) -> None:
    """Count sentences, words, non-projective trees and arcs, gap and edge degree, ill-nested and multi-root trees.

    Per file and in total.  A non-projective arc h->d has a word between h
    and d that h does not dominate.

    Examples:

    \b
      treetool stats sample_data/en_sample.conllu
      treetool stats train.conllu dev.conllu --by-length --format json
    """
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
