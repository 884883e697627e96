"""``treetool deprojectivize``: undo pseudo-projectivization, as MaltParser does."""

from __future__ import annotations

import typer

from treetool.errors import TreebankError
from treetool.projectivization.driver import deprojectivize_sentence
from treetool.treebank import TreebankWriter, output_format, read_treebank, treebank_format

from .common import Files, FromFormat, OnError, OnErrorOpt, Output, Rejects, ToFormat, cli_command, error_policy
from .projectivize import Scheme, SchemeOpt


@cli_command
def deprojectivize_command(
    ctx: typer.Context,
    files: Files,
    output: Output = "-",
    scheme: SchemeOpt = Scheme.head,
    from_format: FromFormat = None,
    to: ToFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: Rejects = None,
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
    source = treebank_format(files[0], from_format.value if from_format else None)
    with error_policy(on_error, rejects) as policy, TreebankWriter(output, output_format(output, to.value if to else None, source)) as writer:
        for path in files:
            fmt = treebank_format(path, from_format.value if from_format else None)
            if fmt == "ptb":
                raise TreebankError("deprojectivize needs a dependency treebank (CoNLL-U or CoNLL-X)", filename=path)
            for sentence in read_treebank(path, fmt, on_error=policy):
                deprojectivize_sentence(sentence, scheme.value)
                writer.write(sentence)
