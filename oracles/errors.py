"""The errors of every transition system, dependency and constituency alike.

One hierarchy, so that ``except IllegalAction`` catches an illegal action
whichever system raised it. Every one is an :class:`OracleError`, a
``ValueError``: each says that the input (a system name, an action sequence,
a sentence) does not fit, never that the program is broken. A budget running
out is not among them: that is the core's ``treetool.budget.SentenceTimeout``.
"""

from __future__ import annotations

__all__ = [
    "OracleError", "IllegalAction", "IncompleteDerivation", "OracleUnavailable", "SystemSpecError",
    "ConfigurationMismatch", "InvalidGoldTree",
]


class OracleError(ValueError):
    """Base class of the errors of the transition systems and their oracles."""


class IllegalAction(OracleError):
    """An action that is misspelled or not legal in the configuration it is applied to.

    ``step`` (1-based position in the replayed sequence) is filled in by
    ``run``; ``apply`` alone leaves it ``None``.
    """

    def __init__(self, action: str, reason: str, step: int | None = None) -> None:
        super().__init__(action, reason, step)
        self.action = action
        self.reason = reason
        self.step = step

    def __str__(self) -> str:
        where = f"step {self.step}: " if self.step is not None else ""
        return f"{where}illegal action {self.action!r}: {self.reason}"


class IncompleteDerivation(OracleError):
    """A replayed sequence that ends before reaching a final configuration (or, for a tree, leaves a word out)."""


class OracleUnavailable(OracleError):
    """No oracle can serve this sentence (e.g. too long for the exhaustive search); the message says why."""


class SystemSpecError(OracleError):
    """An unknown system name, a bad option, or a user class that cannot be loaded."""


class ConfigurationMismatch(OracleError):
    """A configuration that cannot belong to the oracle's sentence and system: another length, a root-first stack
    given to a root-last system, a head on the root (``treetool.oracles.layout`` checks); or an action vocabulary
    of another system given to ``cost_vector``."""


class InvalidGoldTree(OracleError):
    """A gold tree that is not one (a head out of range, a cycle, ``heads[0] != -1``) or whose labels do not match
    its heads in number; the message names the fault (``treetool.oracles.configuration.gold_tree`` checks)."""
