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

import io
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from treetool.errors import TreebankError
from treetool.formats.files import open_binary_input

T = TypeVar("T")

_REFRESH = 0.1  # seconds between updates of the display's counters


class _SentencesColumn(ProgressColumn):
    """``N sentences, R/s``: the count done and the rate so far."""

    def render(self, task: Task) -> Text:
        done = task.fields.get("sentences", 0)
        elapsed = task.elapsed or 0.0
        rate = f"{done / elapsed:,.0f}/s" if elapsed > 0 else "-/s"
        return Text(f"{done:,} sentences, {rate}")


class _TimeLeftColumn(ProgressColumn):
    """``H:MM:SS left`` when the input size is known, else nothing."""

    def render(self, task: Task) -> Text:
        left = task.time_remaining
        if task.total is None or left is None:
            return Text("")
        minutes, seconds = divmod(int(left), 60)
        hours, minutes = divmod(minutes, 60)
        return Text(f"{hours}:{minutes:02d}:{seconds:02d} left", style="progress.remaining")


def input_size(path: str) -> int | None:
    """Bytes of ``path`` as the readers see them, or None when unknown
    (stdin, pipes, compressed files, files that cannot be opened)."""
    if path == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        stream = open_binary_input(path)
    except (OSError, TreebankError):
        return None
    try:
        plain = isinstance(stream, io.BufferedReader)  # not wrapped by a decompressor
    finally:
        stream.close()
    return os.path.getsize(path) if plain else None


class SentenceProgress:
    """Context manager showing the progress of the items passed through :meth:`track`."""

    def __init__(self, quiet: bool = False) -> None:
        self.enabled = not quiet and sys.stderr.isatty()
        self._progress: Progress | None = None

    def __enter__(self) -> SentenceProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                _SentencesColumn(),
                TimeElapsedColumn(),
                _TimeLeftColumn(),
                console=Console(stderr=True),
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
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
        task = progress.add_task("<stdin>" if path == "-" else os.path.basename(path), total=total, sentences=0)
        done = consumed = 0
        next_update = time.monotonic() + _REFRESH
        try:
            for item in items:
                done += 1
                if size_of is not None:
                    consumed += size_of(item)
                if time.monotonic() >= next_update:
                    progress.update(task, completed=consumed, sentences=done)
                    next_update = time.monotonic() + _REFRESH
                yield item
        finally:
            progress.remove_task(task)
