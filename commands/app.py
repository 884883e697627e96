"""The ``treetool`` application: one thin module per subcommand, imported when that command runs."""

from __future__ import annotations

import importlib
import os
from typing import Annotated, Any, Optional

import typer
import typer.main
from typer.core import TyperGroup
from typer.models import CommandInfo

from treetool import __version__

from .common import TreetoolCommand, run_app

#: The commands in the order ``--help`` lists them: name -> module under ``commands/`` (its function is
#: ``<name>_command``).  A module is imported only when its command runs (or ``--help`` lists them all): start-up
#: is a noticeable part of a short run, and the commands' modules import numpy, the oracles, rich...
COMMANDS = {
    "projectivize": "projectivize",
    "deprojectivize": "deprojectivize",
    "stats": "stats",
    "filter": "filter",
    "oracle": "oracle",
    "replay": "replay",
    "coverage": "coverage",
    "annotate": "annotate",
    "view": "view",
    "diff": "diff",
}


class LazyCommands(TyperGroup):
    """The ``treetool`` group: each command is built from its module on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if cmd_name not in self.commands:
            module = importlib.import_module(f"{__package__}.{COMMANDS[cmd_name]}")
            info = CommandInfo(name=cmd_name, cls=TreetoolCommand, callback=getattr(module, f"{cmd_name}_command"))
            self.commands[cmd_name] = typer.main.get_command_from_info(
                info, pretty_exceptions_short=True, rich_markup_mode=None)
        return self.commands[cmd_name]


app = typer.Typer(
    name="treetool",
    help=(
        "Prepare treebanks for transition-based parsing: statistics, filtering and conversion, "
        "projectivization and its inverse, drawing and comparing trees, gold transition sequences and their "
        "replay, coverage, and dynamic-oracle training files, for CoNLL-U/CoNLL-X dependency and Penn Treebank "
        "constituency trees.\n\n"
        "Examples:\n\n\b\n"
        "  treetool stats sample_data/en_sample.conllu\n"
        "  treetool oracle sample_data/wsj_sample.mrg --system in-order\n"
        "  treetool COMMAND --help"
    ),
    cls=LazyCommands,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"treetool {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    """treetool: treebanks in, parser training data out."""


def main() -> None:
    # numpy's OpenBLAS starts a thread per core when it is imported, and they spin: 0.35 s of CPU for
    # `projectivize --count` over one sentence, 0.24 s with one thread, on every run and in every shard of a
    # split corpus.  No command does linear algebra.  A user's own setting stands.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_app(app)
