"""The sentences an oracle could not finish within ``annotate``'s limits, dependency and constituency alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from treetool.budget import SentenceTimeout
from treetool.errors import TreebankError
from treetool.oracles.errors import OracleUnavailable

from .common import error

if TYPE_CHECKING:
    from treetool.sentence import Sentence

__all__ = ["OutOfReach", "out_of_reach_reason"]


def out_of_reach_reason(err: SentenceTimeout, max_seconds: float | None, max_states: int | None) -> str:
    """Why a budget stopped a sentence, as the skip summary groups it."""
    if err.seconds is not None and max_seconds is not None:
        return f"ran out of --max-seconds {max_seconds:g}"
    if max_states is not None and f"more than {max_states} configurations" in str(err):
        return f"exact search needs more than --max-states {max_states} configurations"
    return str(err)


class OutOfReach:
    """The sentences an oracle could not finish within the limits: skipped and counted, or the run's error.

    A sentence beyond the reach of a search (longer than ``--max-length``,
    more than ``--max-states`` configurations, past ``--max-seconds``, or a
    table too large for memory) is not bad input: by default it is left
    out, and the run ends with one line per reason on stderr (how many,
    which, and the option that raises the limit); ``--on-timeout fail``
    makes the first one the run's error, naming what ran out.
    """

    def __init__(self, what: str, *, fail: bool) -> None:
        self.what = what
        self.fail = fail
        self.skipped: dict[str, list[str]] = {}

    def add(self, sentence: Sentence, reason: str, err: Exception) -> None:
        """Count ``sentence`` as skipped for ``reason``, or raise the run's error when asked to fail."""
        if self.fail:
            # a budget's message says what ran out, not whose work; a search's refusal names the search itself
            said = str(err) if isinstance(err, OracleUnavailable) else f"{self.what}: {err}"
            raise TreebankError(said, filename=sentence.filename, line=sentence.line, sent_id=sentence.sent_id) from None
        self.skipped.setdefault(reason, []).append(sentence.location())

    def report(self) -> None:
        """One warning per reason: the count, the option that raises the limit, the sentences."""
        for reason, where in self.skipped.items():
            many = len(where) != 1
            if reason.startswith("ran out of"):  # the wording of every command's timeouts
                head = f"{len(where)} sentence{'s' * many} {reason} and {'were' if many else 'was'} skipped"
            else:
                head = f"{len(where)} sentence{'s' * many} skipped: {reason}"
            option = next((o for o in ("--max-length", "--max-states") if o in reason), None)
            hint = f" ({option} raises the limit)" if option else ""
            error(f"warning: {head}{hint}: {' '.join(where)}")
