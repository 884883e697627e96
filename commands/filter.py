"""``treetool filter``: write the selected sentences unchanged (or converted, or PTB trees cleaned)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from treetool.filtering import read_ids, refuse_unparsed, select_sentences
from treetool.formats.ptb_source import SourcedTree
from treetool.treebank import TreebankWriter, read_treebank

from .common import (
    Files, FromFormat, OnErrorOpt, OnError, OnlyWhen, Output, PtbRejects, ShardOpt, ToFormat, cli_command, error, error_policy,
    input_formats, refuse_inapplicable, shard_input, treebank_output_format, warn_dropped,
)

PTB_OPTIONS = ("drop_traces", "strip_functions", "remove_wrapper")
RULES = (
    OnlyWhen(PTB_OPTIONS, lambda v: v["formats"] == {"ptb"}, "acts on Penn Treebank input only"),
    OnlyWhen(("projective",), lambda v: "ptb" not in v["formats"],
             "needs a dependency treebank (CoNLL-U or CoNLL-X): PTB trees have no arcs"),
    OnlyWhen(("max_words",), lambda v: v["min_words"] is None or v["min_words"] <= v["max_words"],
             "is below --min-words: no sentence can match"),
)


@cli_command
def filter_command(
    ctx: typer.Context,
    files: Files,
    output: Output = "-",
    projective: Annotated[
        Optional[bool],
        typer.Option("--projective/--non-projective", help="Keep only projective / only non-projective trees.", show_default=False),
    ] = None,
    min_words: Annotated[Optional[int], typer.Option("--min-words", min=0, metavar="N", help="Keep sentences with at least N words.", show_default=False)] = None,
    max_words: Annotated[Optional[int], typer.Option("--max-words", min=0, metavar="N", help="Keep sentences with at most N words.", show_default=False)] = None,
    ids: Annotated[Optional[str], typer.Option("--ids", metavar="FILE", help="Keep the sentences listed in FILE (one per line) by sent_id, or, for a sentence without one (and a PTB tree), by its position in its file as diff names it (3 = the third).", show_default=False)] = None,
    from_format: FromFormat = None,
    to: ToFormat = None,
    drop_traces: Annotated[bool, typer.Option("--drop-traces", help="PTB: remove -NONE- elements and the constituents left empty.")] = False,
    strip_functions: Annotated[bool, typer.Option("--strip-functions", help="PTB: NP-SBJ-1 -> NP (keeps -LRB-, -RRB-, -NONE-).")] = False,
    remove_wrapper: Annotated[bool, typer.Option("--remove-wrapper", help="PTB: remove the outer empty bracket or ROOT/TOP wrapper.")] = False,
    on_error: OnErrorOpt = OnError.fail,
    rejects: PtbRejects = None,
    shard: ShardOpt = None,
) -> None:
    """Write the selected sentences; with no option, every sentence.

    A lossless copy: CoNLL sentences and PTB trees are written as they are
    in the input (a PTB tree sharing its line with a tree left out: its own
    text, then the line's end).  It can also decompress, convert (CoNLL-U to
    CoNLL-X, with a count of what CoNLL-X cannot hold) and clean PTB
    brackets (--drop-traces, --strip-functions, --remove-wrapper: then each
    tree is written on one line, single-spaced).  CoNLL sentences not yet
    parsed (every HEAD '_') are selected too, except by --projective and
    --non-projective, which need their heads.

    Examples:

    \b
      treetool filter train.conllu.gz -o train.conllu
      treetool filter train.conllu --non-projective --max-words 40
      treetool filter train.conllu -o train.conllx
      treetool filter wsj_*.mrg --drop-traces --strip-functions --remove-wrapper -o clean.ptb
      treetool filter silver.conllu --max-words 40 --shard 2/4 -o part2.conllu
    """
    shard_input(files, shard)
    inputs = input_formats(files, from_format)
    refuse_inapplicable(ctx, RULES, formats={fmt for _, fmt in inputs})
    wanted = read_ids(ids) if ids else None
    fmt = treebank_output_format(output, to, inputs)
    # PTB trees as light brackets: nltk (with scipy installed, 2 s to import) is not needed to select or clean them
    from treetool.formats.ptb import Bracket

    changes_trees = drop_traces or strip_functions or remove_wrapper
    # A tree read with its text also knows its position, which --ids selects PTB trees by, and a refused one
    # gives --rejects only its own text (its whole lines would repeat stray text on them, reported on its own).
    ptb_options = dict(drop_traces=drop_traces, strip_functions=strip_functions, remove_wrapper=remove_wrapper,
                       node=Bracket, source_text=not changes_trees or wanted is not None or rejects is not None)
    seen: set[str] = set()
    with error_policy(on_error, rejects) as policy, TreebankWriter(output, fmt, on_error=policy) as writer:
        for path, in_fmt in inputs:
            options = ptb_options if in_fmt == "ptb" else {"unparsed": True}  # heads needed by --projective only
            items = read_treebank(path, in_fmt, on_error=policy, shard=shard, **options)
            if projective is not None:
                items = refuse_unparsed(items, "--projective" if projective else "--non-projective", policy)
            for item in select_sentences(items, projective=projective, min_words=min_words, max_words=max_words, ids=wanted, seen_ids=seen):
                writer.write(item.tree if changes_trees and isinstance(item, SourcedTree) else item)
    warn_dropped(writer)
    if wanted is not None and len(seen) < len(wanted):
        missing = len(wanted) - len(seen)
        error(f"warning: {missing} of {len(wanted)} ids in {ids} matched no sentence")
