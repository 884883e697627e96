"""``treetool replay``: the trees that ``# transitions`` comments derive (the inverse of ``oracle``)."""

from __future__ import annotations

import typer

from treetool.oracles.constituency import CONSTITUENCY_SYSTEMS
from treetool.oracles.gold import replay_tree
from treetool.oracles.errors import IllegalAction, IncompleteDerivation
from treetool.errors import TreebankError
from treetool.formats.oracle_file import FORMAT_COMMENT, RECORDED_FORMAT
from treetool.sentence import Sentence
from treetool.treebank import TreebankWriter, read_treebank

from .common import (
    Files, FromFormat, OnError, OnErrorOpt, OnlyWhen, Output, Quiet, Rejects, ShardOpt, ToFormat, cli_command, error_policy,
    dependency_inputs, refuse_inapplicable, shard_input, treebank_output_format, warn_dropped,
)
from .constituency_replay import DEPENDENCY_ONLY, replay_constituency
from .progress import SentenceProgress
from .oracle import TRANSITIONS_COMMENT
from .systems import DegreeOpt, OrderOpt, RootOpt, ReduceOpt, AnySystemOpt, VariantOpt, system_from_options


@cli_command
def replay_command(
    ctx: typer.Context,
    files: Files,
    system: AnySystemOpt = "arc-standard",
    degree: DegreeOpt = None,
    variant: VariantOpt = None,
    reduce: ReduceOpt = None,
    order: OrderOpt = None,
    root: RootOpt = None,
    output: Output = "-",
    from_format: FromFormat = None,
    to: ToFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
    quiet: Quiet = False,
    shard: ShardOpt = None,
) -> None:
    """Apply each sentence's '# transitions' and write the tree they build.

    HEAD comes from the transitions, and DEPREL too when they are labelled
    (LA(nsubj)); unlabelled transitions leave DEPREL as it was. The
    '# transitions' line is removed, so `treetool oracle x | treetool replay -`
    gives back x byte for byte on every sentence the system derives. An
    illegal action is an error at the '# transitions' line, naming the
    sentence and the step.

    With --system top-down or in-order the input is an RNNG / In-Order oracle
    file (as `treetool oracle --format rnng|inorder` writes it, any in-order
    spelling), and the output one bracketed tree per line, built by each
    block's actions with its POS tags and tokens. An illegal action is an
    error at its line.

    Examples:

    \b
      treetool oracle train.conllu --system attardi | treetool replay - --system attardi
      treetool replay parser_actions.conllu --system arc-eager -o parsed.conllu
      treetool replay predicted.oracle --system in-order -o predicted.mrg
    """
    shard_input(files, shard)
    if system in CONSTITUENCY_SYSTEMS:
        refuse_inapplicable(ctx, [OnlyWhen(DEPENDENCY_ONLY, lambda v: False, f"acts on dependency trees only, "
                                           f"not with --system {system}")])
        treebank_output_format(output, None, [(path, "ptb") for path in files])  # the trees it writes: PTB
        with error_policy(on_error, rejects) as policy:
            replay_constituency(system, list(files), output, policy, shard)
        return
    chosen = system_from_options(ctx)
    inputs = dependency_inputs(ctx, files, from_format)
    with (
        error_policy(on_error, rejects) as policy,
        TreebankWriter(output, treebank_output_format(output, to, inputs), on_error=policy) as writer,
        SentenceProgress(quiet) as progress,
    ):
        for path, fmt in inputs:
            for sentence in progress.track(read_treebank(path, fmt, on_error=policy, shard=shard), path,
                                                 lambda s: len(s.raw)):
                try:
                    _replay(chosen, sentence)
                except TreebankError as err:
                    policy(err)
                    continue
                writer.write(sentence)
    warn_dropped(writer)


def _replay(system, sentence: Sentence) -> None:
    """Set the sentence's tree from its transitions comment (which is removed); an error about the transitions
    points at that comment's line, a missing comment at the sentence's first line."""
    def fail(message: str, line: int | None) -> TreebankError:
        return TreebankError(message, filename=sentence.filename, line=line if line is not None else sentence.line,
                             sent_id=sentence.sent_id, raw=sentence.raw)

    line = sentence.comment_line(TRANSITIONS_COMMENT)
    actions = sentence.remove_comment(TRANSITIONS_COMMENT)
    if actions is None:
        raise fail(f"no '# {TRANSITIONS_COMMENT} = ...' comment", None)
    _remove_recorded_format(sentence)
    try:
        heads, labels = replay_tree(system, actions.split(), len(sentence))
    except (IllegalAction, IncompleteDerivation) as err:
        raise fail(f"{system.describe()}: {err}", line) from None
    sentence.set_tree(heads, labels)


def _remove_recorded_format(sentence: Sentence) -> None:
    """Take off the ``# format = conllx`` line ``oracle`` adds to CoNLL-X sentences (any other value stays)."""
    if sentence.comment_value(FORMAT_COMMENT) == RECORDED_FORMAT:
        sentence.remove_comment(FORMAT_COMMENT)
