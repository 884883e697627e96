"""``treetool view``: draw trees in the terminal, one sentence after another."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Optional

import typer
from rich.text import Text

from treetool.compare import aligned_sentences
from treetool.drawing import MAX_LANES, NON_PROJECTIVE_STYLE, TooWide, draw_comparison, draw_tree, non_projective_legend
from treetool.filtering import read_ids, select_sentences
from treetool.formats.ptb import Bracket, indented_tree
from treetool.formats.ptb_source import SourcedTree
from treetool.report import plain_console
from treetool.sentence import Sentence
from treetool.treebank import read_treebank

from .common import Files, FromFormat, OnlyWhen, cli_command, dependency_inputs, error, input_formats, refuse_inapplicable

DEPENDENCY_ONLY = "needs a dependency treebank (CoNLL-U or CoNLL-X)"
RULES = (
    OnlyWhen(("non_projective", "compare", "max_lanes"), lambda v: "ptb" not in v["formats"], DEPENDENCY_ONLY),
    OnlyWhen(("compare",), lambda v: len(v["files"]) == 1, "compares one FILE with OTHER"),
    OnlyWhen(("sent_id",), lambda v: v["ids"] is None, "cannot be combined with --ids"),
)


def _console() -> Any:
    """stdout through rich: colour on a terminal, plain text (never wrapped) to a pipe or file."""
    return plain_console(sys.stdout, soft_wrap=True)


def _header(sentence: Sentence, where: str) -> Iterator[Text]:
    # without a sent_id, the name diff and --ids use, never a made-up "# sent_id" comment
    title = f"sent_id = {sentence.sent_id}" if sentence.sent_id else f"sentence {sentence.position}"
    yield Text(f"# {title}   ({where})", style="bold")
    text = sentence.comment_value("text")
    if text is not None:
        yield Text(f"# text = {text}")
    legend = non_projective_legend(sentence.head_list)
    if legend is not None:
        yield Text(legend, style=NON_PROJECTIVE_STYLE)


def _draw(sentence: Sentence, max_lanes: int) -> list[Text]:
    header = list(_header(sentence, f"{sentence.filename}:{sentence.line}"))
    try:
        return [*header, *draw_tree(sentence.head_list, sentence.deprels, sentence.forms, max_lanes)]
    except TooWide as err:
        return [*header, _not_drawn(err)]


def _draw_pair(sentence: Sentence, other: Sentence, max_lanes: int) -> list[Text]:
    header = list(_header(sentence, f"{sentence.filename}:{sentence.line} left, {other.filename}:{other.line} right"))
    try:
        return [*header, *draw_comparison(sentence.head_list, sentence.deprels, sentence.forms, other.head_list,
                                          other.deprels, max_lanes)]
    except TooWide as err:
        return [*header, _not_drawn(err)]


def _not_drawn(err: TooWide) -> Text:
    """The line in place of a drawing too wide to read (and to build: its size is words times lanes)."""
    return Text(f"(not drawn: {err}; --max-lanes N draws wider trees)")


def _draw_ptb(trees: Iterable[SourcedTree], path: str, width: int) -> Iterator[list[Text]]:
    """Each tree indented, headed by its position in its file: the name --ids and --sent-id select it by."""
    for item in trees:
        yield [Text(f"# tree {item.position}   ({path})", style="bold"),
               Text(indented_tree(item.tree, margin=max(40, width)))]


@cli_command
def view_command(
    ctx: typer.Context,
    files: Files,
    ids: Annotated[Optional[str], typer.Option("--ids", metavar="FILE", help="Draw the sentences listed in FILE (one per line) by sent_id, or, for a sentence without one (and a PTB tree), by its position in its file as diff names it (3 = the third).", show_default=False)] = None,
    sent_id: Annotated[Optional[list[str]], typer.Option("--sent-id", metavar="ID", help="Draw the sentence with this sent_id, or at this position if it has none, as for --ids (repeat for several).", show_default=False)] = None,
    non_projective: Annotated[bool, typer.Option("--non-projective", help="Draw only the non-projective trees.")] = False,
    compare: Annotated[Optional[str], typer.Option("--compare", metavar="OTHER", help="Draw OTHER's analysis of the same sentences on the right, marking (≠) the words whose HEAD or DEPREL differ.", show_default=False)] = None,
    max_lanes: Annotated[int, typer.Option("--max-lanes", min=1, metavar="N", help="Draw trees whose arcs fit in N lanes (two columns each); a wider one gets a line saying so.")] = MAX_LANES,
    from_format: FromFormat = None,
) -> None:
    """Draw dependency trees: one word per line, arcs as lines on the left, labels beside the words.

    An arrowhead marks the dependent's end of each arc; non-projective arcs
    are dashed (and red on a terminal).  PTB input is drawn as indented
    brackets.  Colour only on a terminal: piped, the output is plain text.
    Each drawing starts with a line naming the sentence: "# sent_id = ID",
    or "# sentence N" (its position in its file) when it has no sent_id;
    a PTB tree's, "# tree N".

    Examples:

    \b
      treetool view sample_data/en_sample.conllu
      treetool view train.conllu --non-projective | less
      treetool view train.conllu --compare train.proj.conllu --sent-id en-2
    """
    inputs = input_formats(files, from_format)
    refuse_inapplicable(ctx, RULES, formats={fmt for _, fmt in inputs})
    wanted = read_ids(ids) if ids else (set(sent_id) if sent_id else None)
    console = _console()
    seen: set[str] = set()
    for drawing in _drawings(ctx, inputs, compare, from_format, wanted, non_projective, seen, console.width,
                             max_lanes):
        for line in drawing:
            console.print(line)
        console.print()
        if wanted is not None and len(seen) == len(wanted):
            break  # every sentence asked for is drawn: no need to read on
    if wanted is not None and len(seen) < len(wanted):
        error(f"warning: {len(wanted) - len(seen)} of {len(wanted)} ids matched no sentence")


def _drawings(ctx: typer.Context, inputs: list[tuple[str, str]], compare: Optional[str], from_format: Any, wanted: Optional[set[str]],
              non_projective: bool, seen: set[str], width: int, max_lanes: int) -> Iterator[list[Text]]:
    """The drawing of every selected sentence, in input order."""
    projective = False if non_projective else None

    def selected(item: Any) -> bool:
        return any(select_sentences((item,), projective=projective, ids=wanted, seen_ids=seen))

    if compare is not None:
        (path, fmt), = inputs
        ((_, other_fmt),) = dependency_inputs(ctx, [compare], from_format)
        for _, sentence, other in aligned_sentences(read_treebank(path, fmt), read_treebank(compare, other_fmt)):
            if selected(sentence):
                yield _draw_pair(sentence, other, max_lanes)
        return
    for path, fmt in inputs:
        if fmt == "ptb":  # read with their text, which gives their positions
            trees = read_treebank(path, fmt, node=Bracket, source_text=True)
            yield from _draw_ptb((tree for tree in trees if selected(tree)), path, width)
            continue
        for sentence in read_treebank(path, fmt):
            if selected(sentence):
                yield _draw(sentence, max_lanes)
