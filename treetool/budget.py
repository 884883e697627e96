"""Per-sentence time budgets for the polynomial-time algorithms (DPs, oracles).

A :class:`Budget` is started for one sentence and handed down to the
algorithm, which calls :meth:`Budget.check` at regular points inside its
loops (for the optimal projectivization DP: once per block of spans). When
the deadline has passed, ``check`` raises :class:`SentenceTimeout`, so the
time spent is bounded by the budget plus one block of work, instead of
being measured after the fact. The caller decides what a timeout means
(``--on-timeout lift|skip|fail``).
"""

from __future__ import annotations

import time

#: What a command does with a sentence that runs out of time: ``lift`` writes
#: a cheap fallback (for projectivization, MaltParser's baseline lifting),
#: ``skip`` leaves it out, ``fail`` stops with an error naming it.
ON_TIMEOUT_MODES: tuple[str, ...] = ("lift", "skip", "fail")


class SentenceTimeout(Exception):
    """The budget of one sentence ran out before the algorithm finished.

    The one exception every per-sentence budget raises (the oracle searches'
    ``BudgetExceeded`` is a subclass), so a command catches one type.
    """

    def __init__(self, seconds: float | None, message: str | None = None) -> None:
        super().__init__(message or f"time budget of {seconds:g} s exceeded")
        self.seconds = seconds


class Budget:
    """A deadline ``max_seconds`` from now; ``None`` means no limit.

    ``check`` costs one clock read, so algorithms may call it every few
    milliseconds of work.
    """

    __slots__ = ("max_seconds", "_deadline")

    def __init__(self, max_seconds: float | None = None) -> None:
        if max_seconds is not None and max_seconds <= 0:
            raise ValueError(f"max_seconds must be positive, got {max_seconds}")
        self.max_seconds = max_seconds
        self._deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def check(self) -> None:
        """Raise :class:`SentenceTimeout` if the deadline has passed."""
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise SentenceTimeout(self.max_seconds)  # type: ignore[arg-type]


#: The budget that never runs out (the default of every algorithm).
UNLIMITED = Budget()


#: The largest table one sentence's algorithm may allocate. A table quadratic (or worse) in the sentence is
#: refused up front beyond it, so that a long sentence is skipped and counted instead of exhausting memory.
MAX_TABLE_BYTES = 1 << 30


def refuse_large_table(cells: int, bytes_per_cell: float, what: str) -> None:
    """Raise :class:`SentenceTimeout` when ``cells`` entries of ``bytes_per_cell`` would exceed :data:`MAX_TABLE_BYTES`.

    Called before a quadratic or cubic table is allocated: a time budget is
    checked only between blocks of work, and one allocation of several GB
    happens, and fails, before the next check.
    """
    size = cells * bytes_per_cell
    if size > MAX_TABLE_BYTES:
        raise SentenceTimeout(None, f"{what} would take {size / (1 << 30):.1f} GB, over the "
                                    f"{MAX_TABLE_BYTES / (1 << 30):g} GB a sentence may use")
