"""A progress display on stderr for commands that work through long inputs.

Shown only when stderr is a terminal and ``--quiet`` is not given, so logs,
pipes and tests see nothing: sentences done, sentences per second and, when
the input size is known (an uncompressed regular file), percent done and
time left, measured in bytes of input consumed. Used as::

    with SentenceProgress(quiet) as progress:
        for sentence in progress.track(read_treebank(path), path, size_of=lambda s: len(s.raw)):
            ...

It never writes to stdout and leaves no trace on the terminal when done
(messages printed after the ``with`` block appear normally).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from treetool.formats.files import input_size

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

T = TypeVar("T")

_REFRESH = 0.1  # seconds between updates of the display's counters


class SentenceProgress:
    """Context manager showing the progress of the items passed through :meth:`track`."""

    def __init__(self, quiet: bool = False) -> None:
        self.enabled = not quiet and sys.stderr.isatty()
        self._progress: Progress | None = None

    def __enter__(self) -> SentenceProgress:
        if self.enabled:
            self._progress = _display()
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def track(self, items: Iterable[T], path: str, size_of: Callable[[T], int] | None = None) -> Iterator[T]:
        """Yield ``items`` (the sentences of ``path``), counting them on the display.

        ``size_of(item)``: the input bytes an item was read from; with it and
        a known input size the display shows percent done and time left.
        """
        progress = self._progress
        if progress is None:
            yield from items
            return
        total = input_size(path) if size_of is not None else None
        task = progress.add_task("<stdin>" if path == "-" else os.path.basename(path), total=total,
                                 counts="0 sentences, -/s", left="")
        done = consumed = 0
        started = time.monotonic()
        next_update = started + _REFRESH
        try:
            for item in items:
                done += 1
                if size_of is not None:
                    consumed += size_of(item)
                now = time.monotonic()
                if now >= next_update:
                    _show(progress, task, consumed, done, now - started)
                    next_update = now + _REFRESH
                yield item
        finally:
            progress.remove_task(task)


def _display() -> Progress:
    """The display: file name, bar, percent, ``N sentences, R/s``, time elapsed, ``H:MM:SS left``.

    rich is imported here, only when there is a terminal to show it on (a twentieth of a second of start-up).
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
        TextColumn("{task.fields[left]}", style="progress.remaining"),
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )


def _show(progress: Progress, task: TaskID, consumed: int, done: int, elapsed: float) -> None:
    """Update the display: bytes consumed, sentences done and their rate, and the time left when it is known."""
    progress.update(task, completed=consumed, counts=f"{done:,} sentences, {done / elapsed:,.0f}/s")
    state = next(t for t in progress.tasks if t.id == task)
    left = state.time_remaining if state.total is not None else None
    if left is not None:
        minutes, seconds = divmod(int(left), 60)
        hours, minutes = divmod(minutes, 60)
        progress.update(task, left=f"{hours}:{minutes:02d}:{seconds:02d} left")
