"""The dependency sentence type: a tree over the words, plus the exact input bytes.

A :class:`Sentence` keeps the bytes it was read from (``raw``) and a parsed
view of its word lines.  Writing a sentence whose tree was not changed returns
``raw`` untouched, which is what makes every command lossless; after
:meth:`Sentence.set_tree` only the HEAD and DEPREL fields of the words that
changed are rewritten, every other byte (comments, multiword tokens, empty
nodes, spacing inside fields, CRLF line ends) stays as it was.

The fast reader (:mod:`treetool.formats.conll`) builds a sentence from a slice of the
input bytes and a view of a chunk-wide heads array; everything else (decoded
lines, fields, word rows) is computed on first use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Column positions shared by CoNLL-U and CoNLL-X.
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)

#: The head of every word of a sentence read without a tree (HEAD ``_``, ``read_conll(unparsed=True)``).
NO_TREE = -1


def _is_word_id(text: str) -> bool:
    return text.isascii() and text.isdigit()


class Sentence:
    """One sentence of a CoNLL-U or CoNLL-X treebank.

    Per-word views are indexed by word position, with position 0 the
    artificial root: ``heads[0] == -1``, ``heads[i]`` is the head of word i,
    ``deprels[0] == ""``; likewise ``forms``, ``lemmas``, ``upos``, ``xpos``
    (for CoNLL-X, ``upos`` is CPOSTAG and ``xpos`` POSTAG).  Multiword-token
    lines and empty nodes are kept in ``lines`` but are not words.

    ``raw`` is the exact input bytes: blank lines before the first sentence
    of a file (and a byte-order mark) belong to the first sentence, the blank
    lines after a sentence belong to it.  ``lines`` are the decoded lines of
    the sentence itself, without those blank lines; in a CRLF file each line
    keeps its ``"\\r"``.

    ``line`` is the line of its first line in its file, ``position`` its
    1-based place among the file's sentences (malformed ones, which readers
    skip with ``--on-error skip``, count too, so a sentence keeps its position
    whatever was skipped before it or which ``--shard`` read it).
    """

    __slots__ = (
        "filename", "line", "position", "format", "ncols",
        "_raw",        # bytes: exact input (prefix + content + separator)
        "_cs", "_ce",  # content start / end offsets in _raw
        "_n",          # number of words
        "_H", "_off",  # heads of words 1..n are _H[_off + 1 : _off + n + 1], _H[_off] == -1
        "_row0",       # >= 0: words are lines[_row0:], everything before is comments; -1: see _word_rows
        "_lines", "_fields", "_word_rows",  # lazy views (None until used)
        "_heads",      # list of ints after set_tree, else None
        "_deprels",    # list (position 0 == "") once computed or set
        "_changed",    # set of changed word positions, or None
        "_dirty",      # True once the output differs from _raw (tree changed, comment added)
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
        position: int = 1,
        format: str = "conllu",
        prefix: str = "",
        raw: str | bytes | None = None,
    ) -> None:
        """Build a sentence from parsed parts (the slow reference parser uses this).

        ``fields`` are the flat fields of the word lines, ``word_rows`` the
        row in ``lines`` of each word (None when the words are ``lines[row0:]``).
        """
        prefix_b = prefix.encode("utf-8", "surrogateescape")
        sep_b = sep.encode("utf-8", "surrogateescape")
        if raw is None:
            raw_b = prefix_b + "\n".join(lines).encode("utf-8", "surrogateescape") + sep_b
        elif isinstance(raw, str):
            raw_b = raw.encode("utf-8", "surrogateescape")
        else:
            raw_b = bytes(raw)
        self.filename = filename
        self.line = line
        self.position = position
        self.format = format
        self.ncols = ncols
        self._raw = raw_b
        self._cs = len(prefix_b)
        self._ce = len(raw_b) - len(sep_b)
        self._n = len(head_values)
        heads = np.empty(len(head_values) + 1, dtype=np.int32)
        heads[0] = -1
        heads[1:] = head_values
        self._H = heads
        self._off = 0
        self._row0 = row0 if word_rows is None else -1
        self._lines = lines
        self._fields = fields
        self._word_rows = word_rows
        self._heads = None
        self._deprels = None
        self._changed = None
        self._dirty = False

    # ------------------------------------------------------------ internals
    def _get_fields(self) -> list[str]:
        fields = self._fields
        if fields is None:
            lines = self.lines
            if self._row0 >= 0:
                body = lines[self._row0:] if self._row0 else lines
            else:
                body = [lines[r] for r in self._rows()]
            fields = self._fields = "\t".join(body).split("\t")
        return fields

    def _rows(self) -> list[int]:
        rows = self._word_rows
        if rows is None:
            if self._row0 >= 0:
                return list(range(self._row0, self._row0 + self._n))
            rows = self._word_rows = [
                r for r, text in enumerate(self.lines)
                if not text.startswith("#") and _is_word_id(text.split("\t", 1)[0])
            ]
        return rows

    # ----------------------------------------------------------------- views
    def __len__(self) -> int:
        return self._n

    @property
    def n_words(self) -> int:
        return self._n

    @property
    def has_tree(self) -> bool:
        """False for a sentence read without a tree (every HEAD ``_``; see ``read_conll(unparsed=True)``)."""
        if self._n == 0:
            return True
        first = self._heads[0] if self._heads is not None else self._H[self._off + 1]
        return int(first) != NO_TREE

    @property
    def heads(self) -> np.ndarray:
        """Heads as an int32 array of length n+1 (a fresh copy); ``heads[0] == -1``."""
        if self._heads is not None:
            out = np.empty(self._n + 1, dtype=np.int32)
            out[0] = -1
            out[1:] = self._heads
            return out
        off = self._off
        return self._H[off:off + self._n + 1].copy()

    @property
    def head_list(self) -> list[int]:
        """Heads as a plain list of length n+1 (``[-1, h1, ..., hn]``), for tight Python loops."""
        if self._heads is not None:
            return [-1, *self._heads]
        off = self._off
        return self._H[off:off + self._n + 1].tolist()

    def _column(self, col: int) -> list[str]:
        return ["", *self._get_fields()[col :: self.ncols]]

    @property
    def deprels(self) -> list[str]:
        if self._deprels is None:
            self._deprels = self._column(DEPREL)
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
    def lines(self) -> list[str]:
        """Decoded lines of the sentence (comments, words, multiword tokens, empty nodes), no line ends."""
        lines = self._lines
        if lines is None:
            lines = self._lines = self._raw[self._cs:self._ce].decode("utf-8", "surrogateescape").split("\n")
        return lines

    @property
    def prefix(self) -> str:
        """Text before the sentence (a byte-order mark and blank lines at the start of a file)."""
        return self._raw[:self._cs].decode("utf-8", "surrogateescape")

    @property
    def sep(self) -> str:
        """The line end of the last line and the blank lines after the sentence."""
        return self._raw[self._ce:].decode("utf-8", "surrogateescape")

    @property
    def comments(self) -> list[str]:
        """Comment lines, without their line ends."""
        return [line.rstrip("\r") for line in self.lines if line.startswith("#")]

    @property
    def sent_id(self) -> str | None:
        return self.comment_value("sent_id")

    def _comment_row(self, key: str) -> tuple[int, str] | None:
        """Row and value of the first leading comment ``# key = value``."""
        for row, line in enumerate(self.lines):
            if not line.startswith("#"):
                if line[:1].isdigit():
                    return None
                continue
            name, eq, value = line[1:].partition("=")
            if eq and name.strip() == key:
                return row, value.strip()
        return None

    def identifier(self, position: int) -> str:
        """How reports and JSON name this sentence: its ``# sent_id``, else its 1-based position in the file.

        CoNLL-X files have no sent_id; the position keeps per-sentence output
        (``oracle --format jsonl``, warnings) aligned with the input all the same.
        """
        return self.sent_id or str(position)

    def location(self) -> str:
        """How messages for a human name this sentence: its ``# sent_id``, else ``file:line`` (where an editor opens it).

        :meth:`identifier` is for output records, which stay aligned with the
        input; a warning on stderr is read by someone who wants to go and look.
        """
        return self.sent_id or f"{self.filename}:{self.line}"

    def comment_value(self, key: str) -> str | None:
        """The value of the comment ``# key = value`` before the first word, or None."""
        found = self._comment_row(key)
        return None if found is None else found[1]

    def comment_line(self, key: str) -> int | None:
        """The line in its file of the comment ``# key = value`` before the first word, or None (the sentence's
        lines as read: before any comment is added or removed). Errors about a comment's value point there."""
        found = self._comment_row(key)
        return None if found is None else self.line + found[0]

    def remove_comment(self, key: str) -> str | None:
        """Remove the comment ``# key = value`` (the inverse of :meth:`add_comment`); return its value.

        ``replay`` uses it to take off the ``# transitions`` line ``oracle``
        added, so that the sentence reads back byte for byte as it was.
        """
        found = self._comment_row(key)
        if found is None:
            return None
        row, value = found
        del self.lines[row]
        if self._row0 >= 0:
            self._row0 -= 1
        elif self._word_rows is not None:
            self._word_rows = [r - 1 if r > row else r for r in self._word_rows]
        self._dirty = True
        return value

    def word_row(self, i: int) -> int:
        """Index in ``lines`` of word i (1-based)."""
        if self._row0 >= 0:
            return self._row0 + i - 1
        return self._rows()[i - 1]

    @property
    def has_extra_lines(self) -> bool:
        """True when the sentence has multiword tokens or empty nodes (or comments between words)."""
        return self._row0 < 0

    # ---------------------------------------------------------------- change
    def set_tree(self, heads: Sequence[int], deprels: Sequence[str] | None = None) -> None:
        """Replace the tree; only words whose HEAD or DEPREL differ are rewritten on output.

        ``heads`` and ``deprels`` follow the position-0-is-root convention
        (length n+1; entry 0 is ignored).
        """
        n = self._n
        if len(heads) != n + 1 or (deprels is not None and len(deprels) != n + 1):
            raise ValueError(f"expected {n + 1} heads/deprels (root + {n} words), got {len(heads)}")
        old_heads = self.head_list
        old_rels = self.deprels
        new_heads = [int(h) for h in heads]
        new_rels = old_rels if deprels is None else ["", *deprels[1:]]
        changed = self._changed if self._changed is not None else set()
        for i in range(1, n + 1):
            if new_heads[i] != old_heads[i] or new_rels[i] != old_rels[i]:
                changed.add(i)
        self._heads = new_heads[1:]
        self._deprels = new_rels
        self._changed = changed or None
        if changed:
            self._dirty = True

    def add_comment(self, text: str) -> None:
        """Add the comment line ``# text`` after the sentence's leading comments, before its words.

        The new line takes the sentence's line ending (CRLF stays CRLF); the
        tree is not touched (``changed`` stays as it was).
        """
        if "\n" in text:
            raise ValueError("a comment is one line")
        lines = self.lines
        k = 0
        while k < len(lines) and lines[k].startswith("#"):
            k += 1
        ending = "\r" if lines[0].endswith("\r") else ""
        lines.insert(k, "# " + text + ending)
        if self._row0 >= 0:
            self._row0 += 1
        elif self._word_rows is not None:
            self._word_rows = [r + 1 if r >= k else r for r in self._word_rows]
        self._dirty = True

    @property
    def changed(self) -> bool:
        return bool(self._changed)

    # ---------------------------------------------------------------- output
    def _rewritten_lines(self) -> list[str]:
        lines = list(self.lines)
        heads = self._heads if self._heads is not None else self.head_list[1:]
        rels = self._deprels
        for i in sorted(self._changed or ()):
            row = self.word_row(i)
            cols = lines[row].split("\t")
            cols[HEAD] = str(heads[i - 1])
            cols[DEPREL] = rels[i]
            lines[row] = "\t".join(cols)
        return lines

    def to_bytes(self) -> bytes:
        """The sentence as bytes: the input bytes exactly, unless the tree changed."""
        if not self._dirty:
            return self._raw
        raw = self._raw
        body = "\n".join(self._rewritten_lines()).encode("utf-8", "surrogateescape")
        return raw[:self._cs] + body + raw[self._ce:]

    def to_text(self) -> str:
        """The sentence as text: the input exactly, unless the tree changed."""
        return self.to_bytes().decode("utf-8", "surrogateescape")

    @property
    def raw(self) -> bytes:
        """The exact input bytes of the sentence (prefix, comments, separator and all).

        This stays the input even after :meth:`set_tree`; use :meth:`to_bytes` for the current text.
        """
        return self._raw

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
        lines = self._rewritten_lines() if self._changed else self.lines
        return [lines[r] for r in self._rows()]

    def __repr__(self) -> str:
        sid = self.sent_id
        return f"<Sentence {self.filename}:{self.line} {sid or ''} {len(self)} words>"
