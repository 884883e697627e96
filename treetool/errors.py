"""The one error type for bad input (and the one for a ``--jobs`` run cut short by a dead worker).

Every reader raises :class:`TreebankError` for malformed input, so the CLI can
print ``file:line: message`` and exit 2 without a traceback, and a training
loop can catch a single exception type.
"""

from __future__ import annotations


def display_name(path: str) -> str:
    """How messages and reports name an input: ``<stdin>`` for ``-``."""
    return "<stdin>" if path == "-" else path


class TreebankError(ValueError):
    """Malformed treebank input, located by file, line and sentence id.

    ``raw`` holds the offending sentence as it was read, when the reader
    could delimit it (bytes from the CoNLL reader, text from the PTB reader),
    so ``--rejects FILE`` can keep it byte for byte.
    """

    def __init__(
        self,
        message: str,
        *,
        filename: str | None = None,
        line: int | None = None,
        sent_id: str | None = None,
        raw: bytes | str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.sent_id = sent_id
        self.raw = raw

    def __str__(self) -> str:
        where = display_name(self.filename) if self.filename else "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        text = f"{where}: {self.message}"
        if self.sent_id:
            text += f" (sentence {self.sent_id})"
        return text

    @property
    def refuses_item(self) -> bool:
        """Whether the error refuses a sentence or tree (its ``raw`` that item's text), which keeps its place in
        its file's order of items: a reader's error without the text, or about text between items, does not."""
        return self.raw is not None


class WorkerDied(RuntimeError):
    """A ``--jobs`` worker process ended abruptly (killed, out of memory): the run cannot be completed.

    Not bad input (the same input may pass with fewer jobs): the CLI prints
    one line and exits 1, like a failed write.
    """


class StrayText(TreebankError):
    """Text outside every bracket of a Penn Treebank input (a stray word or ``)``), which the reader skips.

    ``raw`` is that text (one line's stretch of it, see
    :func:`treetool.formats.ptb.outside_brackets`): ``--rejects`` keeps it,
    and it is no tree's text, so a reader that cuts the input into the trees'
    texts (``filter``) leaves it as it is.
    """

    @property
    def refuses_item(self) -> bool:
        """Never: the text is between trees."""
        return False
