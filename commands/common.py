"""Options and behaviour shared by every subcommand.

Conventions fixed here for all commands: ``--from``/``--to`` name treebank
formats, ``--format`` names report formats, ``-o`` names the output
(``-`` is stdout), bad input prints ``file:line: message`` and exits 2,
``--on-error skip`` skips and counts, ``--rejects FILE`` keeps what was
skipped, an operating-system error on a file prints ``treetool: error:
PATH: reason`` (exit 2 reading, 1 writing), and a closed pipe ends quietly
with status 0. Commands that run a polynomial algorithm per sentence take
``--max-seconds S`` with ``--on-timeout``, and long runs show progress on a
terminal unless ``--quiet``.
"""

from __future__ import annotations

import _thread
import errno
import functools
import io
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Callable, Optional, Protocol, TypeVar

import typer
from typer.core import TyperCommand

from treetool.shard import Shard, splittable_size
from treetool.budget import MAX_TABLE_BYTES, ON_TIMEOUT_MODES
from treetool.compare import ALIGNMENTS
from treetool.errors import TreebankError, WorkerDied
from treetool.formats.files import FORMATS, STDOUT_NAME, FileAccessError
from treetool.formats.parquet import ParquetOutput, PyarrowMissing, refusal as parquet_refusal, require_pyarrow
from treetool.formats.run_files import FileClash, checked_run, current as current_run_files
from treetool.plots import INSTALL_HINT, MatplotlibMissing, PlotFile, plot_format
from treetool.policy import ON_ERROR_MODES, ErrorPolicy
from treetool.report import REPORT_FORMATS
from treetool.treebank import display_name, output_format, treebank_format

F = TypeVar("F", bound=Callable[..., Any])

EXIT_BAD_INPUT = 2
EXIT_WRITE_FAILED = 1
#: The key of ``ctx.meta`` where a command whose status 1 is an answer (diff: the files differ) puts the status
#: of a failed write instead.
WRITE_FAILED_STATUS = "treetool.write_failed_status"


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


class TreetoolCommand(TyperCommand):
    """A typer command whose arguments read ``FILE...`` (``GOLD``) in usage and help, and whose parser notes every
    option given (see :meth:`make_parser`).

    typer shows arguments as ``{FILE}...`` and ``FILE <list[str]>``: Python
    types mean nothing to a user of the command line.
    """

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:
        # Built here rather than taken from typer, whose spelling of a list argument changes between releases.
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = f"{param.metavar or (param.name or '').upper()}{'...' if param.nargs != 1 else ''}"
                pieces.append(name if param.required else f"[{name}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: typer.Context, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                dots = "..." if param.nargs != 1 else ""
                record = (f"{param.metavar or (param.name or '').upper()}{dots}", getattr(param, "help", "") or "")
                arguments.append(record)
            else:
                options.append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)

    def make_parser(self, ctx: typer.Context) -> Any:
        """click's parser, made to note every option given, in order, for :class:`GivenOnce` and :class:`OneOfPair`.

        ``ctx.params`` keeps only the last value of an option given twice
        (``-o a -o b`` writes ``b``, silently); the parser is the one place
        that sees each occurrence, with the spelling of a flag pair's side.
        """
        parser = super().make_parser(ctx)
        noted: list[Occurrence] = []
        ctx.meta[OCCURRENCES] = noted
        options = {id(option): option for option in (*parser._long_opt.values(), *parser._short_opt.values())}
        for option in options.values():
            option.process = _noting(option, noted)
        return parser


#: The key of ``ctx.meta`` under which :meth:`TreetoolCommand.make_parser` lists the options given.
OCCURRENCES = "treetool.occurrences"


@dataclass(frozen=True)
class Occurrence:
    """One option on the command line: its parameter, the spelling (``--non-projective``), the value (None: a flag)."""

    param: Any
    spelling: str
    value: Optional[str]


def _noting(option: Any, noted: list[Occurrence]) -> Callable[[Any, Any], None]:
    """``option.process`` of click's parser, also adding each occurrence to ``noted``."""
    process = option.process
    param = option.obj
    negative = param.is_flag and option.const is False and bool(param.secondary_opts)
    spelling = param.secondary_opts[0] if negative else param.opts[0]

    def process_and_note(value: Any, state: Any) -> None:
        noted.append(Occurrence(param, spelling, value if isinstance(value, str) else None))
        process(value, state)

    return process_and_note


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
#: ``--from`` and ``--to`` of the commands that work on dependency trees only: their help lists no PTB.
DependencyFormat = choices("DependencyFormat", tuple(f for f in FORMATS if f != "ptb"))
DependencyFromFormat = Annotated[Optional[DependencyFormat], FromFormat.__metadata__[0]]
DependencyToFormat = Annotated[Optional[DependencyFormat], ToFormat.__metadata__[0]]
Output = Annotated[str, typer.Option("--output", "-o", metavar="FILE", help="Output file; - is stdout. A regular file is replaced only when complete; devices and FIFOs are written in place.")]
ReportFormatOpt = Annotated[ReportFormat, typer.Option("--format", help="Report format.")]
OnErrorOpt = Annotated[
    OnError,
    typer.Option("--on-error", help="fail: stop at the first bad sentence (exit 2); skip: skip bad sentences and count them."),
]
Rejects = Annotated[
    Optional[str],
    typer.Option("--rejects", metavar="FILE", help="With --on-error skip: write the skipped sentences here, unchanged.", show_default=False),
]
PtbRejects = Annotated[
    Optional[str],
    typer.Option("--rejects", metavar="FILE", help="With --on-error skip: write the skipped sentences or trees here, unchanged (and the text outside brackets of PTB input).", show_default=False),
]


MaxSeconds = Annotated[
    Optional[float],
    typer.Option(
        "--max-seconds", metavar="S", show_default=False,
        help="Time budget of each sentence's computation, in seconds; see --on-timeout [default: no limit].",
    ),
]


def on_timeout_option(limits: str = "", lift: str = "", default: str = "skip") -> Any:
    """``--on-timeout``, its help naming the command's own ``limits`` besides --max-seconds, and ``lift``; a
    command without ``lift`` shows only skip and fail (and refuses lift with its own message)."""
    return Annotated[Optional[OnTimeout], typer.Option(
        "--on-timeout", show_default=False, metavar=None if lift else "<skip|fail>",
        help=f"A sentence beyond --max-seconds{limits} is: skip = left out, fail = an error (exit 2){lift}. Their "
        f"ids go to stderr [default: {default}].",
    )]


OnTimeoutOpt = on_timeout_option()


def _jobs(value: int) -> int:
    if value < 0:
        raise typer.BadParameter("must be 0 (all cores) or a positive number of processes")
    return value


Jobs = Annotated[
    int,
    typer.Option(
        "--jobs", "-j", metavar="N", callback=_jobs,
        help="Worker processes (0: all cores). The output is the same as with 1; inputs of up to 500 sentences run in one process.",
    ),
]
Align = choices("Align", ALIGNMENTS)


def _shard(value: Optional[str]) -> Optional[Shard]:
    if value is None:
        return None
    try:
        return Shard.parse(value)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


ShardOpt = Annotated[
    Optional[Shard],
    typer.Option(
        "--shard", metavar="K/N", parser=_shard, show_default=False,
        help="Read only shard K of N of the input file: the sentences that start in its K-th N-th of bytes. "
        "The outputs of shards 1..N concatenated are the output of one run (one regular, uncompressed file).",
    ),
]


def shard_input(files: Sequence[str], shard: Optional[Shard]) -> None:
    """``--shard`` splits one file: with several, the shards' outputs concatenated would interleave them."""
    if shard is None:
        return
    if len(files) != 1:
        raise InapplicableOption(f"--shard splits one input file ({len(files)} given): run each file on its own")
    if files[0] == "-":
        raise InapplicableOption("--shard needs a file it can cut by bytes, not stdin")
    splittable_size(files[0])  # a FIFO, a device or compressed data: refused before anything opens it


def report_on_stdout() -> None:
    """The command prints its report on stdout: no other output of the run may go there (it would be mixed in)."""
    current_run_files().report_on_stdout()


def align_option(other: str) -> Any:
    """The ``--align`` option of a command reading ``other`` beside the gold files."""
    return typer.Option(
        "--align",
        help=f"How {other}'s sentences are paired with the gold ones: id: by '# sent_id', a sentence without one "
        "named by its position (so both files must have ids, or neither); position: the n-th with the n-th, whose "
        "words must agree (parser output without sent_ids).",
    )


Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress display (shown only when stderr is a terminal)."),
]


def _plot_suffix(value: Optional[str]) -> Optional[str]:
    if value is not None:
        try:
            plot_format(value)
        except ValueError as err:
            raise typer.BadParameter(str(err)) from None
    return value


def plot_option(what: str) -> Any:
    """The ``--plot FILE`` option of a command whose figure shows ``what``."""
    return typer.Option(
        "--plot", metavar="FILE", callback=_plot_suffix, show_default=False,
        help=f"Draw {what} into FILE (.png or .svg); needs matplotlib: {INSTALL_HINT}.",
    )


@contextmanager
def plot_file(path: Optional[str]) -> Iterator[Optional[PlotFile]]:
    """The ``--plot`` output (None without the option), opened before any work; without matplotlib
    a usage error saying how to install it."""
    if path is None:
        yield None
        return
    try:
        out = PlotFile(path)
    except MatplotlibMissing as err:
        raise InapplicableOption(f"--plot: {err}") from None
    with out:
        yield out


def parquet_output(path: str, columns: Callable[[], Any], metadata: dict[str, Any]) -> ParquetOutput:
    """The ``--format parquet`` output at ``path`` for the rows of ``columns()``; without pyarrow, or to stdout,
    a pipe or a compressed name, a usage error in one line saying why (exit 2)."""
    try:
        require_pyarrow()
    except PyarrowMissing as err:
        raise InapplicableOption(f"--format parquet: {err}") from None
    reason = parquet_refusal(path)
    if reason is not None:
        raise InapplicableOption(f"--format parquet: {reason}")
    return ParquetOutput(path, columns(), metadata)


def run_options(ctx: typer.Context) -> dict[str, Any]:
    """The running command's parameters as JSON values (enums by their value, other objects such as a
    :class:`~treetool.shard.Shard` by their text), for a file's metadata."""
    return {name: _json_value(value) for name, value in ctx.params.items() if name != "ctx"}


def _json_value(value: Any) -> Any:
    value = getattr(value, "value", value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    return str(value)


def timeout_mode(on_timeout: Optional[OnTimeout], default: str = "lift") -> str:
    """The ``--on-timeout`` mode, else the command's ``default`` (the rules refuse it without ``--max-seconds``)."""
    return on_timeout.value if on_timeout is not None else default


def error(message: str) -> None:
    """Print a message for the user to stderr (plain text: never read as markup)."""
    sys.stderr.write(message.rstrip("\n") + "\n")


def warn_dropped(writer: Any) -> None:
    """One warning line for each kind of thing a treebank conversion dropped (``TreebankWriter.warnings``:
    comment lines, multiword tokens... that CoNLL-X cannot hold), so that no conversion loses data silently."""
    for warning in writer.warnings():
        error(f"warning: {warning}")


@contextmanager
def error_policy(on_error: OnError, rejects: str | None) -> Iterator[ErrorPolicy]:
    """The ``on_error`` handler for a command run; reports what was skipped at the end."""
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


def refused_tree_text(item: Any) -> str:
    """What ``--rejects`` gets for a PTB tree a command refuses after reading it: its own text in the input when
    read with it (a ``SourcedTree``: the PTB commands read so when ``--rejects`` is given), else the tree as read
    (cleaned), on one line."""
    from treetool.formats.ptb import tree_to_line
    from treetool.formats.ptb_source import SourcedTree

    if isinstance(item, SourcedTree):
        return item.source.alone()
    return tree_to_line(item) + "\n"


def cli_command(fn: F) -> F:
    """Run a command body with the shared error conventions: one line on stderr, no traceback.

    Bad input prints ``file:line: message`` (exit 2), an operating-system
    error ``treetool: error: PATH: reason`` (see :func:`os_error_line`).
    Stdout is flushed here, so that a failure of the interpreter's own exit
    flush (a full disk) cannot end in a traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            refuse_inapplicable(kwargs["ctx"], ())
            with checked_run():
                result = fn(*args, **kwargs)
            sys.stdout.flush()
            return result
        except (InapplicableOption, FileClash, PyarrowMissing) as err:  # pyarrow found, failing in the writer
            error(f"treetool: error: {err}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except TreebankError as err:
            _print_last_words(str(err))
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except BrokenPipeError:
            # The reader of our output went away (e.g. `| head`): not an error.
            _silence_stdout()
            raise typer.Exit(0) from None
        except OSError as err:
            message, status = os_error_line(err)
            _print_last_words(message)
            if status == EXIT_WRITE_FAILED:
                status = kwargs["ctx"].meta.get(WRITE_FAILED_STATUS, status)
            raise typer.Exit(status) from None
        except KeyboardInterrupt:
            raise typer.Exit(128 + signal.SIGINT) from None
        except Terminated as err:
            raise typer.Exit(128 + err.signum) from None
        except WorkerDied as err:
            _print_last_words(f"treetool: error: {err}")
            raise typer.Exit(EXIT_WRITE_FAILED) from None

    return wrapper  # type: ignore[return-value]


def os_error_line(err: OSError) -> tuple[str, int]:
    """The one line ``treetool: error: PATH: reason`` for ``err``, and the exit status.

    Named files are opened by :mod:`treetool.formats.files`, which says the
    path and the side: 2 for reading (the input is wrong, like bad content),
    1 for writing (the result could not be delivered).  Any other OSError
    comes from writing to stdout, where reports and help are printed directly.
    """
    if isinstance(err, FileAccessError):
        return f"treetool: error: {err}", EXIT_WRITE_FAILED if err.writing else EXIT_BAD_INPUT
    path = err.filename if err.filename is not None else STDOUT_NAME
    return f"treetool: error: {path}: {err.strerror or err}", EXIT_WRITE_FAILED


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived (``timeout``, a batch scheduler, a closed terminal): unwind like Ctrl-C.

    A BaseException, as KeyboardInterrupt is, so that no ``except Exception`` swallows it: the outputs'
    context managers drop their temporary files on the way out, and the command exits 128 + the signal.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_handled = [0]  # how many times a handler below has raised: the resenders' sign that their signal arrived


def _terminate(signum: int, frame: Any) -> None:
    if _left_to_resender(frame, signum):
        return
    _handled[0] += 1
    raise Terminated(signum)


def _interrupt(signum: int, frame: Any) -> None:
    if _left_to_resender(frame, signum):
        return
    _handled[0] += 1
    raise KeyboardInterrupt


def _left_to_resender(frame: Any, signum: int) -> bool:
    """Whether a handler runs inside :func:`_resend_lost_signals` (at any depth), and so leaves its signal to a
    resender (:func:`_send_again`, started here) instead of raising: its exception would escape the hook and be
    lost for good (seen under load: a resent signal landing in the hook, and the run waiting for ever)."""
    while frame is not None:
        if frame.f_code is _resend_lost_signals.__code__:
            _send_again(signum)
            return True
        frame = frame.f_back
    return False


def unwind_on_termination() -> None:
    """Make SIGTERM and SIGHUP raise :class:`Terminated`, SIGINT KeyboardInterrupt (a signal ignored or
    handled otherwise on entry, as under nohup, stays so).

    Python runs a signal's handler at the next instruction of the main thread, which may be inside a
    finaliser (an abandoned generator being closed, a ``__del__``): an exception raised there is "ignored",
    and the run would go on, or wait for ever on a pipe.  So a lost Terminated or KeyboardInterrupt sends
    its signal again (see :func:`_resend_lost_signals`) until it lands in the run's own code.
    """
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None and signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    if sys.unraisablehook is not _resend_lost_signals:
        global _unraisable_before
        _unraisable_before = sys.unraisablehook
        sys.unraisablehook = _resend_lost_signals


_unraisable_before: Callable[[Any], None] = sys.unraisablehook


def _resend_lost_signals(unraisable: Any) -> None:
    """``sys.unraisablehook``: a signal's exception raised in a finaliser is sent again, not lost.

    A signal that comes while this hook runs is not raised here (:func:`_left_to_resender`): it too is sent again.
    """
    err = unraisable.exc_value
    if not isinstance(err, (Terminated, KeyboardInterrupt)):
        return _unraisable_before(unraisable)
    if not sys.is_finalizing():  # else the run's work is over (its outputs committed): nothing left to stop
        _send_again(err.signum if isinstance(err, Terminated) else signal.SIGINT)
    return None


def _send_again(signum: int) -> None:
    """Send ``signum`` to the main thread from a short thread, again every 50 ms until a handler raises.

    From the main thread itself the handler would run inside the hook (``os.kill`` runs pending handlers
    before it returns); sent to the process, another thread could take it, and a main thread blocked on a
    read would never wake.  Once is not enough: a signal that arrives after the main thread's last check
    but before it blocks in ``read`` only sets Python's flag, and the read waits for ever (seen under load).
    Sending again only while no handler has raised keeps a delivered signal from raising twice.
    """
    _thread.start_new_thread(_send_until_handled, (signum, _handled[0]))


def _send_until_handled(signum: int, handled: int) -> None:
    main = threading.main_thread()
    while main.is_alive() and _handled[0] == handled:
        signal.pthread_kill(main.ident, signum)  # type: ignore[arg-type]
        time.sleep(0.05)


def run_app(app: typer.Typer) -> None:
    """Run ``app`` as the ``treetool`` program.

    An OSError that escapes it was raised outside any command, by the
    parser printing ``--help`` or ``--version``: it is one line too.
    (Click itself handles a broken pipe there.) A signal that arrives
    before a command runs (while its module is imported: ``timeout`` on a
    run that had barely started) ends the program as inside one: silently,
    with 128 + the signal's number.
    """
    unwind_on_termination()
    _stand_in_for_closed_streams()  # started with `<&-` or `>&-`
    try:
        app(prog_name="treetool")
    except OSError as err:
        message, status = os_error_line(err)
        _print_last_words(message)
        sys.exit(status)
    except KeyboardInterrupt:
        sys.exit(128 + signal.SIGINT)
    except Terminated as err:
        sys.exit(128 + err.signum)


class _ClosedDescriptor(io.RawIOBase):
    """The binary stream of stdin or stdout when the program started with that descriptor closed (``<&-``,
    ``>&-``): reading or writing it fails as on a closed descriptor, naming the stream (status 2 for stdin, an
    input; 1 for stdout)."""

    def __init__(self, name: str, writing: bool) -> None:
        super().__init__()
        self._name, self._writing = name, writing

    def readable(self) -> bool:
        return not self._writing

    def writable(self) -> bool:
        return self._writing

    def readinto(self, buffer: Any) -> int:
        raise self.error()

    def write(self, data: Any) -> int:
        raise self.error()

    def error(self) -> FileAccessError:
        return FileAccessError(self._name, OSError(errno.EBADF, os.strerror(errno.EBADF)), writing=self._writing)


class _ClosedText(io.TextIOBase):
    """``sys.stdin`` or ``sys.stdout`` over a :class:`_ClosedDescriptor` (Python leaves None, and the first use
    was a traceback). Unbuffered: nothing waits to fail again at the interpreter's exit."""

    def __init__(self, buffer: _ClosedDescriptor) -> None:
        super().__init__()
        self.buffer = buffer

    @property
    def encoding(self) -> str:
        return "utf-8"

    def readable(self) -> bool:
        return self.buffer.readable()

    def writable(self) -> bool:
        return self.buffer.writable()

    def read(self, size: int | None = -1) -> str:
        raise self.buffer.error()

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise self.buffer.error()

    def write(self, text: str) -> int:
        return self.buffer.write(text.encode())


def _stand_in_for_closed_streams() -> None:
    """A :class:`_ClosedText` for stdin or stdout when its descriptor was closed at the start, so that printing
    fails in one line and a run that prints nothing (``-o FILE``) succeeds; the descriptor gets the null device
    meanwhile, so that no file the run opens takes its number (a worker or a tool the run starts would read
    or write it as its own stdin or stdout)."""
    for descriptor, attribute, name, writing in ((0, "stdin", "<stdin>", False), (1, "stdout", STDOUT_NAME, True)):
        if getattr(sys, attribute) is None:
            devnull = os.open(os.devnull, os.O_RDWR)
            if devnull != descriptor:
                os.dup2(devnull, descriptor)
                os.close(devnull)
            setattr(sys, attribute, _ClosedText(_ClosedDescriptor(name, writing)))


def _print_last_words(message: str) -> None:
    """Print ``message`` on stderr after whatever stdout still holds (or gave up on)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _silence_stdout()
    error(message)


class ReadToTheEnd:
    """Stdout for a command whose exit status is its answer (``diff``): when the reader goes away (``| head``),
    what follows is dropped and the command reads on, so that the status still tells the whole answer."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        self._call(self._stream.write, text)
        return len(text)

    def flush(self) -> None:
        self._call(self._stream.flush)

    def _call(self, method: Callable[..., Any], *args: Any) -> None:
        if self._gone:
            return
        try:
            method(*args)
        except BrokenPipeError:
            self._gone = True
            _silence_stdout()


def _silence_stdout() -> None:
    """Point stdout at the null device, so the exit flush of what it could not take succeeds quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass  # stdout is not a file descriptor (a test runner's capture): nothing is flushed at exit


class Rule(Protocol):
    """A rule of the command layer: :func:`refuse_inapplicable` refuses the options as given when one says why."""

    def refusal(self, ctx: typer.Context, values: dict[str, Any], given: set[str]) -> Optional[str]:
        """Why the options as given cannot act (the message after ``treetool: error: ``), else None.

        ``values`` holds the command's parameters (choices as strings) and the
        facts the command passed; ``given`` the parameters the user set.
        """


@dataclass(frozen=True)
class OnlyWhen:
    """These options act only when ``condition`` holds.

    An option the user gave that cannot act on this input or with these other
    options is refused (exit 2, one line saying why) instead of being silently
    ignored.  ``condition`` sees the command's parsed parameters plus the facts
    the command passes (e.g. ``formats``: the set of input formats).
    ``reason`` completes the sentence "OPTION ...".
    """

    options: tuple[str, ...]
    condition: Callable[[dict[str, Any]], bool]
    reason: str

    def refusal(self, ctx: typer.Context, values: dict[str, Any], given: set[str]) -> Optional[str]:
        for name in self.options:
            if name in given and name in ctx.params and not self.condition(values):
                return f"{_flag(ctx, name)} {self.reason}"
        return None


@dataclass(frozen=True)
class InRange:
    """A number option whose value must pass ``test``.

    Checked here rather than by click's ``min``/``max``: a range lets nan
    through (every comparison with nan is false) and click's message is not
    one line.  ``reason`` completes "OPTION ..."; the value follows it.
    """

    option: str
    test: Callable[[float], bool]
    reason: str

    def refusal(self, ctx: typer.Context, values: dict[str, Any], given: set[str]) -> Optional[str]:
        if self.option in given and not self.test(values[self.option]):
            return f"{_flag(ctx, self.option)} {self.reason} (got {values[self.option]:g})"
        return None


class NotANumber:
    """A float option given ``nan``: no command can act on it, and every comparison with it is false, so a
    bound checked later (``x > limit``) would take it for a value within range."""

    def refusal(self, ctx: typer.Context, values: dict[str, Any], given: set[str]) -> Optional[str]:
        for name in sorted(given):
            value = values.get(name)
            if isinstance(value, float) and math.isnan(value):
                return f"{_flag(ctx, name)} must be a number (got nan)"
        return None


class GivenOnce:
    """An option that takes one value, given more than once: click would keep the last value silently
    (``-o a -o b`` writes b), so whichever the user meant, one of them could not act.  An option that collects
    values (``multiple=True``) takes each; a repeated plain flag means the same thing twice."""

    def refusal(self, ctx: typer.Context, values: dict[str, Any], given: set[str]) -> Optional[str]:
        taken: dict[str, list[str]] = {}
        for occurrence in occurrences(ctx):
            if occurrence.value is not None and not occurrence.param.multiple:
                taken.setdefault(occurrence.spelling, []).append(occurrence.value)
        for spelling, texts in taken.items():
            if len(texts) > 1:
                return f"{spelling} is given {len(texts)} times ({', '.join(texts)}): it takes one value"
        return None


class OneOfPair:
    """Both sides of a flag pair (``--projective --non-projective``): they contradict each other, and click
    would keep the last one silently."""

    def refusal(self, ctx: typer.Context, values: dict[str, Any], given: set[str]) -> Optional[str]:
        sides: dict[str, set[str]] = {}
        for occurrence in occurrences(ctx):
            if occurrence.param.secondary_opts:
                sides.setdefault(occurrence.param.opts[0], set()).add(occurrence.spelling)
        for first, spellings in sides.items():
            if len(spellings) > 1:
                (second,) = spellings - {first}
                return f"{first} and {second} exclude each other: give one of them"
        return None


def occurrences(ctx: typer.Context) -> list[Occurrence]:
    """The options given to the running command, in order, repeats included (see :class:`TreetoolCommand`)."""
    return ctx.meta.get(OCCURRENCES, [])


class InapplicableOption(Exception):
    """A usage error: an option that cannot act on this input or with these options."""


def given_options(ctx: typer.Context) -> set[str]:
    """The parameters of the running command that the user set (not left at their default)."""
    return {
        name for name in ctx.params
        if ctx.get_parameter_source(name).name not in ("DEFAULT", "DEFAULT_MAP")
    }


def refuse_inapplicable(ctx: typer.Context, rules: Sequence[Rule], **facts: Any) -> None:
    """Raise :class:`InapplicableOption` for the first rule the options as given break.

    :data:`COMMON_RULES` are always checked: ``cli_command`` calls this with no
    rules of its own before the command body runs, so every command inherits
    them (every command takes ``ctx: typer.Context`` for this).  A command adds
    its own rules, and facts about its input, by calling it again once it
    knows them.
    """
    values = {**{name: plain_value(value) for name, value in ctx.params.items()}, **facts}
    given = given_options(ctx)
    for rule in (*COMMON_RULES, *rules):
        refusal = rule.refusal(ctx, values, given)
        if refusal is not None:
            raise InapplicableOption(refusal)


def plain_value(value: Any) -> Any:
    """A value of ``ctx.params`` with a choice as its string: typer 0.29 stores enum members there, earlier
    releases the strings."""
    return value.value if isinstance(value, Enum) else value


def _flag(ctx: typer.Context, name: str) -> str:
    """The option as the user spells it (``--non-projective`` for the negative of a flag pair)."""
    for param in ctx.command.params:
        if param.name == name and param.opts:
            if ctx.params.get(name) is False and getattr(param, "secondary_opts", None):
                return param.secondary_opts[0]
            return param.opts[0]
    return name


#: Rules checked for every command (a rule about an option a command does not take never applies to it): the
#: options given once, numbers that are numbers, then rules of options several commands share.
COMMON_RULES: tuple[Rule, ...] = (
    GivenOnce(),
    OneOfPair(),
    NotANumber(),
    InRange("max_seconds", lambda seconds: seconds > 0, "must be a positive number of seconds"),
    InRange("error_rate", lambda rate: 0 <= rate <= 1, "must be between 0 and 1"),
    OnlyWhen(("rejects",), lambda v: v["on_error"] == "skip", "needs --on-error skip"),
)


#: What bounds exhaustive search besides ``--max-seconds`` (the defaults of both act), for :func:`on_timeout_rule`.
SEARCH_LIMITS = "exhaustive search (bounded by --max-length and --max-states)"

#: The size of tables that stops an algorithm whose tables grow faster than the sentence
#: (:func:`treetool.budget.refuse_large_table`) ...
TABLE_SIZE = f"the {MAX_TABLE_BYTES >> 30} GB its tables may take"
#: ... as :func:`on_timeout_rule` names it.
TABLE_LIMIT = f"bounded by {TABLE_SIZE}"


def on_timeout_rule(bounded: Callable[[dict[str, Any]], bool] | None = None, bounds: str = "") -> OnlyWhen:
    """``--on-timeout`` acts where a sentence can run out of a bound: ``--max-seconds``, or, where ``bounded``
    holds, a limit of the work itself, which ``bounds`` names (:data:`SEARCH_LIMITS`, :data:`TABLE_LIMIT`).
    A command's rule, not a common one: which of its algorithms runs is known only once its options are read."""
    if bounded is None:
        return OnlyWhen(("on_timeout",), lambda v: v["max_seconds"] is not None, "needs --max-seconds")
    return OnlyWhen(("on_timeout",), lambda v: v["max_seconds"] is not None or bounded(v),
                    f"needs --max-seconds, or {bounds}")


def no_lift(command: str) -> OnlyWhen:
    """The rule of a command whose timeouts can only be skipped or fail: ``lift`` is projectivize's fallback."""
    return OnlyWhen(("on_timeout",), lambda v: v["on_timeout"] != "lift",
                    f"lift applies to projectivize only; {command} takes skip or fail")


def dependency_inputs(ctx: typer.Context, files: Sequence[str], from_format: Any) -> list[tuple[str, str]]:
    """:func:`input_formats` for a command that works on dependency trees: PTB input is refused up front,
    before any file is read or written, naming the file."""
    inputs = input_formats(files, from_format)
    for path, fmt in inputs:
        if fmt == "ptb":
            raise TreebankError(f"{ctx.info_name} needs a dependency treebank (CoNLL-U or CoNLL-X)", filename=path)
    return inputs


def treebank_output_format(output: str, to: Any, inputs: Sequence[tuple[str, str]]) -> str:
    """The format the treebank output is written in (``--to``, else the ``-o`` name, else the first input's),
    refused up front when it cannot hold an input's trees: PTB brackets for dependency trees, CoNLL for PTB trees
    (before any output is opened, instead of at the first tree)."""
    fmt = output_format(output, to.value if to else None, inputs[0][1])
    for path, source in inputs:
        if (source == "ptb") != (fmt == "ptb"):
            how = (f"--to {fmt}" if to else f"-o {output}" if fmt != inputs[0][1]
                   else f"the output ({fmt}, as {display_name(inputs[0][0])})")
            held = "constituency trees" if source == "ptb" else "dependency trees"
            raise InapplicableOption(f"{how} cannot hold the {held} of {display_name(path)}")
    return fmt


def input_formats(files: Sequence[str], from_format: Any) -> list[tuple[str, str]]:
    """Each input file with the format it will be read in (``--from``, the name, else the content)."""
    return [(path, treebank_format(path, from_format.value if from_format else None)) for path in files]
