"""``treetool deprojectivize``: undo pseudo-projectivization, as MaltParser does."""

from __future__ import annotations

import typer

from treetool.projectivization.driver import deprojectivize_sentence
from treetool.treebank import TreebankWriter, read_treebank

from .common import (
    Files, DependencyFromFormat, OnError, OnErrorOpt, Output, Rejects, ShardOpt, DependencyToFormat, cli_command,
    dependency_inputs, error_policy, shard_input, treebank_output_format, warn_dropped,
)
from .projectivize import Scheme, SchemeOpt


@cli_command
def deprojectivize_command(
    ctx: typer.Context,
    files: Files,
    output: Output = "-",
    scheme: SchemeOpt = Scheme.head,
    from_format: DependencyFromFormat = None,
    to: DependencyToFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
    shard: ShardOpt = None,
) -> None:
    """Put lifted words back under their original heads and strip the label encodings.

    The inverse of `treetool projectivize --method pseudo` (MaltParser -m
    deproj): give the same --scheme as for projectivizing, since, as in
    MaltParser, the encoding is not guessed from the labels.

    Examples:

    \b
      treetool deprojectivize parsed.conllu --scheme head -o parsed.nonproj.conllu
      treetool projectivize train.conllu --method pseudo --scheme path | treetool deprojectivize - --scheme path
    """
    shard_input(files, shard)
    inputs = dependency_inputs(ctx, files, from_format)
    out_format = treebank_output_format(output, to, inputs)
    with error_policy(on_error, rejects) as policy, TreebankWriter(output, out_format, on_error=policy) as writer:
        for path, fmt in inputs:
            for sentence in read_treebank(path, fmt, on_error=policy, shard=shard):
                deprojectivize_sentence(sentence, scheme.value)
                writer.write(sentence)
    warn_dropped(writer)
