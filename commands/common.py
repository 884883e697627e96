"""Options and behaviour shared by every subcommand.

Conventions fixed here for all commands: ``--from``/``--to`` name treebank
formats, ``--format`` names report formats, ``-o`` names the output
(``-`` is stdout), bad input prints ``file:line: message`` and exits 2,
``--on-error skip`` skips and counts, ``--rejects FILE`` keeps what was
skipped, and a closed pipe ends quietly with status 0. Commands that run a
polynomial algorithm per sentence take ``--max-seconds S`` with
``--on-timeout lift|skip|fail``, and long runs show progress on a terminal
unless ``--quiet``.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import Annotated, Any, Callable, Optional, TypeVar

import typer

from treetool.budget import ON_TIMEOUT_MODES
from treetool.errors import TreebankError
from treetool.formats.files import FORMATS
from treetool.policy import ON_ERROR_MODES, ErrorPolicy
from treetool.report import REPORT_FORMATS

F = TypeVar("F", bound=Callable[..., Any])

EXIT_BAD_INPUT = 2


def choices(name: str, values: Sequence[str]) -> Any:
    """A str Enum for typer whose members are the library's own allowed values.

    The library constants stay the one list of what is accepted; members are
    named after their values (``Scheme("head+path")`` for names that are not
    identifiers).
    """
    return Enum(name, {value: value for value in values}, type=str)


TreebankFormat = choices("TreebankFormat", FORMATS)
ReportFormat = choices("ReportFormat", REPORT_FORMATS)
OnError = choices("OnError", ON_ERROR_MODES)
OnTimeout = choices("OnTimeout", ON_TIMEOUT_MODES)


Files = Annotated[
    list[str],
    typer.Argument(metavar="FILE", help="Treebank files (.conllu, .conll/.conllx, .mrg/.ptb/.tree; .gz/.bz2/.xz too); - is stdin.", show_default=False),
]
FromFormat = Annotated[
    Optional[TreebankFormat],
    typer.Option("--from", help="Input format [default: from the file name, else the content].", show_default=False),
]
ToFormat = Annotated[
    Optional[TreebankFormat],
    typer.Option("--to", help="Output format [default: from the -o name, else the input's].", show_default=False),
]
Output = Annotated[str, typer.Option("--output", "-o", metavar="FILE", help="Output file; - is stdout. Written under a temporary name and renamed when complete.")]
ReportFormatOpt = Annotated[ReportFormat, typer.Option("--format", help="Report format.")]
OnErrorOpt = Annotated[
    OnError,
    typer.Option("--on-error", help="fail: stop at the first bad sentence (exit 2); skip: skip bad sentences and count them."),
]
Rejects = Annotated[
    Optional[str],
    typer.Option("--rejects", metavar="FILE", help="With --on-error skip: write the skipped sentences here, unchanged.", show_default=False),
]


def _positive_seconds(value: Optional[float]) -> Optional[float]:
    if value is not None and not value > 0:
        raise typer.BadParameter("must be a positive number of seconds")
    return value


MaxSeconds = Annotated[
    Optional[float],
    typer.Option(
        "--max-seconds", metavar="S", callback=_positive_seconds, show_default=False,
        help="Time budget of each sentence's computation, in seconds; see --on-timeout [default: no limit].",
    ),
]
OnTimeoutOpt = Annotated[
    Optional[OnTimeout],
    typer.Option(
        "--on-timeout", show_default=False,
        help="With --max-seconds, a sentence that runs out of time is: lift = written with the command's cheap "
        "fallback, skip = left out, fail = an error (exit 2). Their ids go to stderr [default: lift].",
    ),
]
Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress display (shown only when stderr is a terminal)."),
]


def timeout_mode(max_seconds: Optional[float], on_timeout: Optional[OnTimeout]) -> str:
    """The ``--on-timeout`` mode (default ``lift``); refused without ``--max-seconds``."""
    if on_timeout is not None and max_seconds is None:
        raise typer.BadParameter("--on-timeout needs --max-seconds", param_hint="--on-timeout")
    return on_timeout.value if on_timeout is not None else "lift"


def error(message: str) -> None:
    """Print a message for the user to stderr (plain text: never read as markup)."""
    sys.stderr.write(message.rstrip("\n") + "\n")


@contextmanager
def error_policy(on_error: OnError, rejects: str | None) -> Iterator[ErrorPolicy]:
    """The ``on_error`` handler for a command run; reports what was skipped at the end."""
    if rejects and on_error is not OnError.skip:
        raise typer.BadParameter("--rejects needs --on-error skip", param_hint="--rejects")
    policy = ErrorPolicy(on_error.value, rejects)
    ok = False
    try:
        yield policy
        ok = True
    finally:
        policy.close(ok)
    summary = policy.summary()
    if summary:
        error(summary)


def cli_command(fn: F) -> F:
    """Run a command body with the shared error conventions (no tracebacks for bad input)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TreebankError as err:
            _flush_quietly()
            error(str(err))
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except BrokenPipeError:
            # The reader of our output went away (e.g. `| head`): not an error.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(0) from None
        except KeyboardInterrupt:
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _flush_quietly() -> None:
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
