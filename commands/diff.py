"""``treetool diff``: the words whose HEAD or DEPREL differ between two files, and UAS/LAS."""

from __future__ import annotations

import json
import sys
from typing import Annotated, TextIO

import typer

from treetool.compare import ComparisonTotal, SentenceComparison, aligned_sentences, compare_sentences
from treetool.report import NOT_APPLICABLE
from treetool.treebank import read_treebank

from .common import (
    EXIT_BAD_INPUT, WRITE_FAILED_STATUS, Align, DependencyFromFormat, ReadToTheEnd, align_option, choices, cli_command,
    dependency_inputs,
)

DIFF_FORMATS = ("text", "json", "tsv")
DiffFormat = choices("DiffFormat", DIFF_FORMATS)
EXIT_DIFFERENT = 1

TSV_COLUMNS = ("sent_id", "id", "form", "gold_head", "gold_deprel", "other_head", "other_deprel")


def _score(value: float | None) -> str:
    return NOT_APPLICABLE if value is None else f"{value:.2f}"


class _TextOut:
    """The human-readable report: each differing sentence with its words, then a summary."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def sentence(self, c: SentenceComparison, gold: str, other: str) -> None:
        n = len(c.differences)
        self.stream.write(f"sentence {c.sent_id} ({gold}:{c.gold_line}, {other}:{c.other_line}): "
                          f"{n} of {c.words} word{'s' if c.words != 1 else ''} differ{'s' if n == 1 else ''}\n")
        width = max(len(d.form) for d in c.differences)
        for d in c.differences:
            self.stream.write(f"  {d.word:>4}  {d.form:<{width}}  head {d.gold_head} {d.gold_deprel}"
                              f"  ->  head {d.other_head} {d.other_deprel}\n")

    def total(self, t: ComparisonTotal) -> None:
        d = t.as_dict()
        self.stream.write(f"{t.sentences} sentences ({t.differing_sentences} differ), {t.words} words "
                          f"({t.differing_words} differ); UAS {_score(d['uas'])}, LAS {_score(d['las'])}\n")


class _JsonOut:
    """``{"sentences": [...], "total": {...}}`` written as it goes (constant memory)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.first = True
        stream.write('{"sentences": [')

    def sentence(self, c: SentenceComparison, gold: str, other: str) -> None:
        self.stream.write(("\n  " if self.first else ",\n  ") + json.dumps(c.as_dict(), ensure_ascii=False))
        self.first = False

    def total(self, t: ComparisonTotal) -> None:
        self.stream.write(("" if self.first else "\n") + '],\n"total": ' + json.dumps(t.as_dict()) + "}\n")


class _TsvOut:
    """One row per differing word."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        stream.write("\t".join(TSV_COLUMNS) + "\n")

    def sentence(self, c: SentenceComparison, gold: str, other: str) -> None:
        for d in c.differences:
            fields = (c.sent_id, d.word, d.form, d.gold_head, d.gold_deprel, d.other_head, d.other_deprel)
            self.stream.write("\t".join(str(f) for f in fields) + "\n")

    def total(self, t: ComparisonTotal) -> None:
        pass


OUTPUTS = {"text": _TextOut, "json": _JsonOut, "tsv": _TsvOut}


@cli_command
def diff_command(
    ctx: typer.Context,
    gold: Annotated[str, typer.Argument(metavar="GOLD", help="The reference treebank (CoNLL-U or CoNLL-X); - is stdin.", show_default=False)],
    other: Annotated[str, typer.Argument(metavar="OTHER", help="The same sentences analysed otherwise (parser output, projectivize output).", show_default=False)],
    deprel_base: Annotated[bool, typer.Option("--deprel-base", help="Compare DEPREL without its subtype (nsubj:pass = nsubj), as the CoNLL 2018 evaluation script does for LAS.")] = False,
    diff_format: Annotated[DiffFormat, typer.Option("--format", help="text: for reading; json: every differing sentence and the total; tsv: one row per differing word.")] = DiffFormat.text,
    from_format: DependencyFromFormat = None,
    align: Annotated[Align, align_option("OTHER")] = Align.id,
) -> None:
    """Show the words whose HEAD or DEPREL differ between GOLD and OTHER, with UAS and LAS.

    Sentences are aligned in order and must have the same ids and words (a
    mismatch is an error naming the file and line); with --align position
    the n-th sentences are paired whatever their ids (parser output without
    '# sent_id' comments).  UAS and LAS are the CoNLL 2018 shared task's (punctuation counted; with --deprel-base, LAS
    as its script computes it).  Exit status: 0 identical, 1 different,
    2 error.

    Examples:

    \b
      treetool diff train.conllu train.proj.conllu
      treetool diff gold.conllu parsed.conllu --deprel-base --format json
      treetool diff gold.conllu parser_output.conllx --align position
    """
    (gold_path, gold_fmt), (other_path, other_fmt) = dependency_inputs(ctx, [gold, other], from_format)
    ctx.meta[WRITE_FAILED_STATUS] = EXIT_BAD_INPUT  # 1 says "the files differ": a failed write is diff's error, 2
    stdout = ReadToTheEnd(sys.stdout)  # `diff a b | head -1` still exits 1 when a later sentence differs
    out = OUTPUTS[diff_format.value](stdout)
    total = ComparisonTotal()
    pairs = aligned_sentences(read_treebank(gold_path, gold_fmt), read_treebank(other_path, other_fmt), align.value)
    for position, g, o in pairs:
        comparison = compare_sentences(position, g, o, deprel_base)
        total.add(comparison)
        if comparison.differences:
            out.sentence(comparison, g.filename, o.filename)
    out.total(total)
    stdout.flush()
    if not total.identical:
        raise typer.Exit(EXIT_DIFFERENT)
