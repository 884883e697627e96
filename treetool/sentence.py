"""The dependency sentence type: a tree over the words, plus the exact input text.

A :class:`Sentence` keeps the bytes it was read from (``raw``) and a parsed
view of its word lines.  Writing a sentence whose tree was not changed returns
``raw`` untouched, which is what makes every command lossless; after
:meth:`Sentence.set_tree` only the HEAD and DEPREL fields of the words that
changed are rewritten, every other byte (comments, multiword tokens, empty
nodes, spacing inside fields, CRLF line ends) stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Column positions shared by CoNLL-U and CoNLL-X.
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)


class Sentence:
    """One sentence of a CoNLL-U or CoNLL-X treebank.

    Per-word views are indexed by word position, with position 0 the
    artificial root: ``heads[0] == -1``, ``heads[i]`` is the head of word i,
    ``deprels[0] == ""``; likewise ``forms``, ``lemmas``, ``upos``, ``xpos``
    (for CoNLL-X, ``upos`` is CPOSTAG and ``xpos`` POSTAG).  Multiword-token
    lines and empty nodes are kept in ``lines`` but are not words.
    """

    __slots__ = (
        "filename", "line", "format", "prefix", "lines", "sep", "ncols",
        "_fields", "_word_rows", "_row0", "_heads", "_deprels", "_changed", "_raw",
    )

    def __init__(
        self,
        *,
        lines: list[str],
        sep: str,
        fields: list[str],
        ncols: int,
        head_values: list[int],
        word_rows: list[int] | None,
        row0: int,
        filename: str = "<input>",
        line: int = 1,
        format: str = "conllu",
        prefix: str = "",
        raw: str | None = None,
    ) -> None:
        self.filename = filename
        self.line = line
        self.format = format
        self.prefix = prefix
        self.lines = lines
        self.sep = sep
        self.ncols = ncols
        self._fields = fields          # flat fields of the word lines only
        self._word_rows = word_rows    # row in ``lines`` of each word, or None
        self._row0 = row0              # when None: words are rows row0, row0+1, ...
        self._heads = head_values      # list of ints for words 1..n (validated)
        self._deprels: list[str] | None = None
        self._changed: set[int] = set()
        self._raw = raw

    # ----------------------------------------------------------------- views
    def __len__(self) -> int:
        return len(self._heads)

    @property
    def n_words(self) -> int:
        return len(self._heads)

    @property
    def heads(self) -> np.ndarray:
        """Heads as an int32 array of length n+1; ``heads[0] == -1``."""
        out = np.empty(len(self._heads) + 1, dtype=np.int32)
        out[0] = -1
        out[1:] = self._heads
        return out

    @property
    def head_list(self) -> list[int]:
        """Heads as a plain list of length n+1 (``[-1, h1, ..., hn]``), for tight Python loops."""
        return [-1, *self._heads]

    def _column(self, col: int) -> list[str]:
        return ["", *self._fields[col :: self.ncols]]

    @property
    def deprels(self) -> list[str]:
        if self._deprels is None:
            self._deprels = self._column(DEPREL)
            self._deprels[0] = ""
        return list(self._deprels)

    @property
    def forms(self) -> list[str]:
        return self._column(FORM)

    @property
    def lemmas(self) -> list[str]:
        return self._column(LEMMA)

    @property
    def upos(self) -> list[str]:
        return self._column(UPOS)

    @property
    def xpos(self) -> list[str]:
        return self._column(XPOS)

    @property
    def comments(self) -> list[str]:
        """Comment lines, without their line ends."""
        return [line.rstrip("\r") for line in self.lines if line.startswith("#")]

    @property
    def sent_id(self) -> str | None:
        for line in self.lines:
            if not line.startswith("#"):
                if line[:1].isdigit():
                    return None
                continue
            key, eq, value = line[1:].partition("=")
            if eq and key.strip() == "sent_id":
                return value.strip()
        return None

    def word_row(self, i: int) -> int:
        """Index in ``lines`` of word i (1-based)."""
        if self._word_rows is None:
            return self._row0 + i - 1
        return self._word_rows[i - 1]

    @property
    def has_extra_lines(self) -> bool:
        """True when the sentence has multiword tokens or empty nodes."""
        return self._word_rows is not None

    # ---------------------------------------------------------------- change
    def set_tree(self, heads: Sequence[int], deprels: Sequence[str] | None = None) -> None:
        """Replace the tree; only words whose HEAD or DEPREL differ are rewritten on output.

        ``heads`` and ``deprels`` follow the position-0-is-root convention
        (length n+1; entry 0 is ignored).
        """
        n = len(self._heads)
        if len(heads) != n + 1 or (deprels is not None and len(deprels) != n + 1):
            raise ValueError(f"expected {n + 1} heads/deprels (root + {n} words), got {len(heads)}")
        old_rels = self.deprels
        new_heads = [int(h) for h in heads[1:]]
        new_rels = list(old_rels) if deprels is None else ["", *deprels[1:]]
        for i in range(1, n + 1):
            if new_heads[i - 1] != self._heads[i - 1] or new_rels[i] != old_rels[i]:
                self._changed.add(i)
        self._heads = new_heads
        self._deprels = new_rels
        if self._changed:
            self._raw = None

    @property
    def changed(self) -> bool:
        return bool(self._changed)

    # ---------------------------------------------------------------- output
    def to_text(self) -> str:
        """The sentence as text: the input bytes exactly, unless the tree changed."""
        if self._raw is not None:
            return self._raw
        lines = self.lines
        if self._changed:
            lines = list(lines)
            rels = self._deprels
            for i in sorted(self._changed):
                row = self.word_row(i)
                cols = lines[row].split("\t")
                cols[HEAD] = str(self._heads[i - 1])
                cols[DEPREL] = rels[i]
                lines[row] = "\t".join(cols)
        return self.prefix + "\n".join(lines) + self.sep

    def to_bytes(self) -> bytes:
        """The sentence as bytes: the input bytes exactly, unless the tree changed."""
        return self.to_text().encode("utf-8", "surrogateescape")

    @property
    def raw(self) -> bytes:
        """The exact input bytes of the sentence (comments, separator and all)."""
        return self.to_bytes() if not self._changed else None  # type: ignore[return-value]

    @property
    def n_multiword(self) -> int:
        """Number of multiword-token lines."""
        return sum(1 for line in self.lines if not line.startswith("#") and "-" in line.split("\t", 1)[0])

    @property
    def n_empty(self) -> int:
        """Number of empty-node lines."""
        return sum(1 for line in self.lines if not line.startswith("#") and "." in line.split("\t", 1)[0])

    def word_lines(self) -> list[str]:
        """The current text of the word lines only (no comments, multiword tokens or empty nodes)."""
        text = self.to_text() if self._changed else None
        lines = self.lines if text is None else (text[len(self.prefix):len(text) - len(self.sep)]).split("\n")
        return [lines[self.word_row(i)] for i in range(1, len(self._heads) + 1)]

    def __repr__(self) -> str:
        sid = self.sent_id
        return f"<Sentence {self.filename}:{self.line} {sid or ''} {len(self)} words>"
