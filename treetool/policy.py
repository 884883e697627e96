"""What to do with a bad sentence: stop (the default) or skip it, count it, keep it.

An :class:`ErrorPolicy` is passed as ``on_error`` to the readers.  In
``"fail"`` mode it re-raises, so the command stops with ``file:line:
message`` and exit status 2; in ``"skip"`` mode it counts the sentence and,
with a rejects file, writes its exact input there, so nothing is ever
dropped silently.
"""

from __future__ import annotations

from .errors import TreebankError
from .formats.files import AtomicOutput, missing_separator

ON_ERROR_MODES = ("fail", "skip")


class ErrorPolicy:
    """Callable ``on_error`` handler that fails, or skips and counts."""

    def __init__(self, mode: str = "fail", rejects: str | None = None) -> None:
        if mode not in ON_ERROR_MODES:
            raise ValueError(f"on_error must be one of {ON_ERROR_MODES}, not {mode!r}")
        self.mode = mode
        self.skipped = 0
        self.first: TreebankError | None = None
        self._rejects = AtomicOutput(rejects, may_replace_input=False) if rejects else None
        self._unended = b""  # what the last rejected sentence lacks before another (see missing_separator)

    def __call__(self, error: TreebankError) -> None:
        if self.mode == "fail":
            raise error
        self.skipped += 1
        if self.first is None:
            self.first = error
        if self._rejects is not None and error.raw is not None:
            if isinstance(error.raw, bytes):  # a CoNLL sentence: it may lack the blank line before the next one
                self._rejects.write(self._unended + error.raw)
                self._unended = missing_separator(error.raw)
            else:  # PTB text or an oracle block: no blank line needed, but a line end (a last one may lack it)
                self._rejects.write(self._unended + error.raw.encode("utf-8", "surrogateescape"))
                self._unended = b"" if error.raw.endswith("\n") else b"\n"

    def close(self, ok: bool = True) -> None:
        """Finish the rejects file (renamed into place only when ``ok``)."""
        if self._rejects is not None:
            if ok:
                self._rejects.commit()
            else:
                self._rejects.abort()
            self._rejects = None

    def summary(self) -> str | None:
        """One line for stderr: how many sentences were skipped, and the first reason."""
        if not self.skipped:
            return None
        plural = "s" if self.skipped != 1 else ""
        return f"skipped {self.skipped} bad sentence{plural} (first: {self.first})"
