"""Per-sentence budgets: the one bound on the super-linear work of every algorithm (DPs, oracles, searches).

A :class:`Budget` is started for one sentence and handed down to the
algorithm. Two limits, either or both:

* ``max_seconds``: the polynomial algorithms (the optimal projectivization
  DP, the cubic oracles, the walks) call :meth:`Budget.check` at regular
  points inside their loops (e.g. once per block of spans), so the time spent
  is bounded by the budget plus one block of work, instead of being measured
  after the fact;
* ``max_states``: the exhaustive searches call :meth:`Budget.count_state`
  once per configuration they expand, which bounds their time and memory
  the same way on every machine.

Either limit running out raises :class:`SentenceTimeout`. The caller decides
what that means (``--on-timeout lift|skip|fail``).
"""

from __future__ import annotations

import time

#: What a command does with a sentence that runs out of time: ``lift`` writes
#: a cheap fallback (for projectivization, MaltParser's baseline lifting),
#: ``skip`` leaves it out, ``fail`` stops with an error naming it.
ON_TIMEOUT_MODES: tuple[str, ...] = ("lift", "skip", "fail")


class SentenceTimeout(Exception):
    """The budget of one sentence ran out (its time or its states) before the algorithm finished.

    The one exception every per-sentence budget raises, so a command catches
    one type. ``seconds`` is the time limit that ran out, ``None`` when
    another limit did (the message says which).
    """

    def __init__(self, seconds: float | None, message: str | None = None) -> None:
        super().__init__(message or f"time budget of {seconds:g} s exceeded")
        self.seconds = seconds


class Budget:
    """A deadline ``max_seconds`` from now and a cap of ``max_states`` expanded configurations; ``None``: no limit.

    ``check`` costs one clock read, so algorithms may call it every few
    milliseconds of work; ``count_state`` adds one to :attr:`states` and
    checks both limits. A budget serves one sentence: its clock starts when
    it is made and its count is never reset.
    """

    __slots__ = ("max_seconds", "max_states", "states", "_deadline")

    def __init__(self, max_seconds: float | None = None, max_states: int | None = None) -> None:
        if max_seconds is not None and max_seconds <= 0:
            raise ValueError(f"max_seconds must be positive, got {max_seconds}")
        if max_states is not None and max_states < 0:
            raise ValueError(f"max_states must be at least 0, got {max_states}")
        self.max_seconds = max_seconds
        self.max_states = max_states
        self.states = 0  # configurations counted so far (by count_state)
        self._deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def check(self) -> None:
        """Raise :class:`SentenceTimeout` if the deadline has passed."""
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise SentenceTimeout(self.max_seconds)

    def count_state(self) -> None:
        """Count one more expanded configuration; raise :class:`SentenceTimeout` past ``max_states`` or the deadline."""
        self.states += 1
        if self.max_states is not None and self.states > self.max_states:
            raise SentenceTimeout(None, f"search expanded more than {self.max_states} configurations")
        self.check()


#: The budget that never runs out: the default of the algorithms that only call :meth:`~Budget.check` (a search
#: given no budget counts its states in a ``Budget()`` of its own).
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
