"""The ``treetool`` application: registers one thin module per subcommand."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from treetool import __version__

from .common import TreetoolCommand
from . import annotate as annotate_module
from . import coverage as coverage_module
from . import deprojectivize as deprojectivize_module
from . import diff as diff_module
from . import filter as filter_module
from . import oracle as oracle_module
from . import projectivize as projectivize_module
from . import replay as replay_module
from . import stats as stats_module
from . import view as view_module
from .common import run_app

app = typer.Typer(
    name="treetool",
    help=(
        "Prepare treebanks for transition-based parsing: statistics, filtering and conversion, "
        "projectivization and its inverse.\n\n"
        "Example: treetool stats sample_data/en_sample.conllu"
    ),
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


app.command("projectivize", cls=TreetoolCommand)(projectivize_module.projectivize_command)
app.command("deprojectivize", cls=TreetoolCommand)(deprojectivize_module.deprojectivize_command)
app.command("stats", cls=TreetoolCommand)(stats_module.stats_command)
app.command("filter", cls=TreetoolCommand)(filter_module.filter_command)
app.command("oracle", cls=TreetoolCommand)(oracle_module.oracle_command)
app.command("replay", cls=TreetoolCommand)(replay_module.replay_command)
app.command("coverage", cls=TreetoolCommand)(coverage_module.coverage_command)
app.command("annotate", cls=TreetoolCommand)(annotate_module.annotate_command)
app.command("view", cls=TreetoolCommand)(view_module.view_command)
app.command("diff", cls=TreetoolCommand)(diff_module.diff_command)


def main() -> None:
    run_app(app)
