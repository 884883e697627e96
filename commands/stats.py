"""``treetool stats``: size and non-projectivity figures per file and in total."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from treetool.plots import PlotFile, non_projectivity_figure
from treetool.report import bar_chart, print_table, render
from treetool.stats import LENGTH_BUCKET_NAMES, TreebankStats, new_labels, treebank_stats
from treetool.shard import Shard
from treetool.treebank import display_name, read_treebank

from .common import (
    Files, FromFormat, InapplicableOption, OnError, OnErrorOpt, OnlyWhen, PtbRejects, ReportFormat, ReportFormatOpt,
    ShardOpt, choices, cli_command, dependency_inputs, error_policy, input_formats, plot_file, plot_option,
    refuse_inapplicable, refused_tree_text, report_on_stdout, shard_input,
)

#: The pseudo-projective schemes whose labels ``--labels-after`` counts (``baseline`` adds none).
LABEL_SCHEMES = ("head", "path", "head+path")
LabelScheme = choices("LabelScheme", LABEL_SCHEMES)
#: How many labels the table shows (JSON and TSV have them all).
TABLE_LABELS = 10

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
    OnlyWhen(("by_length", "labels", "labels_after", "plot"), lambda v: v["formats"] != {"ptb"},
             "acts on dependency treebanks only"),
    OnlyWhen(("clean",), lambda v: v["formats"] == {"ptb"}, "acts on Penn Treebank input only"),
)


def _flatten(row: dict, stats: TreebankStats, table: bool) -> dict:
    """A report row for the flat formats; the table shows only the most frequent labels."""
    flat = dict(row)
    for bucket, figures in flat.pop("by_length", {}).items():
        flat[f"non_projective_pct[{bucket}]"] = figures["non_projective_pct"]
    if "labels" in flat:
        flat["labels_distinct"] = len(flat["labels"])
        if table:
            flat["labels"] = _top(list(flat["labels"].items()), len(flat["labels"]))
    after = flat.pop("labels_after", None)
    if after is not None:
        flat["labels_after_distinct"] = after["distinct"]
        added = new_labels(stats, len(after["counts"]))
        flat["labels_after_new"] = _top(added, len(added)) if table else dict(added)
    return flat


def _top(items: list[tuple[str, int]], total: int) -> dict[str, Any]:
    shown = dict(items[:TABLE_LABELS])
    if total > TABLE_LABELS:
        shown["..."] = f"{total - TABLE_LABELS} more"
    return shown


def _columns(by_length: bool, labels: bool, labels_after: bool) -> list[str]:
    columns = list(COLUMNS)
    if by_length:
        columns += [f"non_projective_pct[{b}]" for b in LENGTH_BUCKET_NAMES]
    if labels:
        columns += ["labels_distinct", "labels"]
    if labels_after:
        columns += ["labels_after_distinct", "labels_after_new"]
    return columns


def _length_chart(total: dict) -> list[str]:
    """The total's non-projective share per length bucket as a terminal bar chart."""
    lines = bar_chart([(bucket, figures["non_projective_pct"], f"(n={figures['sentences']})")
                       for bucket, figures in total["by_length"].items()])
    return ["non-projective % by length", *lines]


def _plot(out: PlotFile, per_file: list[TreebankStats], total: TreebankStats) -> None:
    shown = per_file if len(per_file) == 1 else [*per_file, total]
    rows = [s.as_dict(by_length=True) for s in shown]
    shares = {r["file"]: [(b, f["non_projective_pct"]) for b, f in r["by_length"].items()] for r in rows}
    out.save(non_projectivity_figure(shares, {s.name: dict(s.gap_degrees) for s in shown}))


@cli_command
def stats_command(
    ctx: typer.Context,
    files: Files,
    by_length: Annotated[bool, typer.Option("--by-length", help="Add the non-projective share per sentence-length bucket (the table adds a bar chart).")] = False,
    labels: Annotated[bool, typer.Option("--labels", help="Add the DEPREL counts.")] = False,
    labels_after: Annotated[Optional[LabelScheme], typer.Option("--labels-after", help="Add the DEPREL counts of the output of projectivize --method pseudo --scheme SCHEME (its defaults otherwise): the labels a classifier must learn.", show_default=False)] = None,
    plot: Annotated[Optional[str], plot_option("the non-projective share by sentence length and the gap-degree distribution")] = None,
    clean: Annotated[bool, typer.Option("--clean/--no-clean", help="PTB: clean the trees first as filter --drop-traces --strip-functions --remove-wrapper does (on by default).")] = True,
    report_format: ReportFormatOpt = ReportFormat.table,
    from_format: FromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: PtbRejects = None,
    shard: ShardOpt = None,
) -> None:
    """Count sentences, words, non-projective trees and arcs, gap and edge degree, ill-nested and multi-root trees.

    Per file and in total.  A non-projective arc h->d has a word between h
    and d that h does not dominate.  --labels adds the DEPREL counts,
    --labels-after those that projectivize --method pseudo would write.

    On Penn Treebank files (cleaned first unless --no-clean): trees, words,
    constituents, label counts, unary nodes and chains, maximum depth, and
    the share of trees the top-down and in-order systems derive under their
    limits.

    Examples:

    \b
      treetool stats sample_data/en_sample.conllu
      treetool stats train.conllu dev.conllu --by-length --format json
      treetool stats train.conllu --labels --labels-after head+path
      treetool stats train.conllu --plot nonprojectivity.svg
      treetool stats wsj_*.mrg --format json
      treetool stats silver.conllu --shard 5/16 --format json
    """
    shard_input(files, shard)
    report_on_stdout()
    inputs = input_formats(files, from_format)
    formats = {fmt for _, fmt in inputs}
    refuse_inapplicable(ctx, RULES, formats=formats)
    if "ptb" in formats:
        if formats != {"ptb"}:
            raise InapplicableOption("stats takes either Penn Treebank files or dependency treebanks, not both")
        _ptb_stats(inputs, clean, report_format, on_error, rejects, shard)
        return
    inputs = dependency_inputs(ctx, files, from_format)
    scheme = labels_after.value if labels_after else None
    count_labels = labels or scheme is not None  # labels_after's new labels are those the input lacks
    per_file: list[TreebankStats] = []
    total = treebank_stats((), "total", labels=count_labels, labels_after=scheme)
    with plot_file(plot) as plot_out, error_policy(on_error, rejects) as policy:
        for path, fmt in inputs:
            before = policy.skipped
            stats = treebank_stats(read_treebank(path, fmt, on_error=policy, shard=shard), name=display_name(path),
                                   labels=count_labels, labels_after=scheme)
            stats.skipped = policy.skipped - before
            per_file.append(stats)
            total.merge(stats)
        if plot_out is not None:
            _plot(plot_out, per_file, total)
    _report(report_format, per_file, total, by_length, labels, scheme is not None)


def _report(fmt: ReportFormat, per_file: list[TreebankStats], total: TreebankStats,
            by_length: bool, labels: bool, labels_after: bool) -> None:
    def row(stats: TreebankStats) -> dict:
        out = stats.as_dict(by_length)
        if not labels:
            out.pop("labels", None)
        return out

    rows, total_row = [row(s) for s in per_file], row(total)
    columns = _columns(by_length, labels, labels_after)
    if fmt is ReportFormat.json:
        render("json", "", columns, rows, total_row, sys.stdout)
        return
    table = fmt is ReportFormat.table
    flat = [_flatten(r, s, table) for r, s in zip(rows, per_file)]
    flat_total = _flatten(total_row, total, table)
    if table:
        chart = _length_chart(total_row) if by_length and total.sentences else []
        print_table("treetool stats", columns, flat, flat_total, sys.stdout, beside=chart)
    else:
        render(fmt.value, "treetool stats", columns, flat, flat_total, sys.stdout)


def _ptb_stats(inputs: list[tuple[str, str]], clean: bool, report_format: ReportFormat, on_error: OnError,
               rejects: str | None, shard: Shard | None) -> None:
    from treetool.oracles.constituency.stats import ConstituencyStats  # the systems: not for dependency treebanks
    from treetool.oracles.constituency.tree import GoldTreeError
    from treetool.errors import TreebankError
    from treetool.formats.ptb import Bracket

    per_file: list[ConstituencyStats] = []
    total = ConstituencyStats(name="total")
    # light brackets: nltk (with scipy installed, 2 s to import) is not needed to count
    options = dict(drop_traces=clean, strip_functions=clean, remove_wrapper=clean, node=Bracket, one_root=True)
    with error_policy(on_error, rejects) as policy:
        for path, fmt in inputs:
            before = policy.skipped
            stats = ConstituencyStats(name=display_name(path))
            for line, item in read_treebank(path, fmt, on_error=policy, ptb_lines=True, shard=shard,
                                            source_text=rejects is not None, **options):
                try:
                    stats.add(item.tree if rejects is not None else item)
                except GoldTreeError as err:  # --rejects gets the tree's own text
                    policy(TreebankError(str(err), filename=path, line=line, raw=refused_tree_text(item)))
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
