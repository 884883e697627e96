"""Oracle files: the format ``oracle`` records for ``replay``, and RNNG / In-Order oracle files.

``treetool oracle`` on a CoNLL-X treebank writes CoNLL-X sentences with
comments (``# transitions = ...``), which a reader that sniffs the content
would take for CoNLL-U (and then refuse CoNLL-X's several roots). So each such
sentence also carries ``# format = conllx`` (:func:`recorded_format` finds it
in the first bytes of a stream), and ``replay`` removes it with the
transitions: ``treetool oracle x.conllx | treetool replay -`` gives x back.

RNNG / In-Order oracle files are the training input of those parsers, byte for
byte as their scripts write them.

Per tree (RNNG's ``get_oracle.py``, In-Order's ``scripts/get_oracle.py``):
``# <tree on one line>``, the POS tags, the tokens, the tokens lower-cased, the
unknown-word classes, one action per line, a blank line.

Unknown-word classes (the scripts' ``unkify``, Berkeley-parser signatures):
a word is known when it occurs more than once in the vocabulary (training)
trees; an unknown word gets ``UNK`` plus ``-INITC`` (first letter the only
capital; ``-KNOWNLC`` if its lower-case form is known), ``-CAPS`` (more
capitals, or a capital after a non-letter start), ``-LC`` (has a lower-case
letter), ``-NUM``, ``-DASH`` and one suffix class (``-s``; for 5+ characters
without dash and not digits-with-capitals: ``-ed -ing -ion -er -est -ly -ity
-y -al``). ``lang="ch"``: every unknown word is ``UNK``. The scripts are
Python 2 and work on bytes, so letters, digits, case and lengths are those of
the ASCII bytes of the UTF-8 text (``é`` is neither a letter nor lower-case,
and counts 2); lower-casing is ASCII only, as in the scripts.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from ..errors import TreebankError
from ..shard import Shard, Window, WindowReader, find_window
from .damage import decoding_errors, refuse_nul_bytes
from .files import close_input, open_binary_input, reject_binary

__all__ = ["Vocabulary", "unknown_class", "ascii_lower", "oracle_record", "oracle_record_from_lines", "OracleBlock",
           "read_oracle_file", "SPELLINGS", "LANGS", "FORMAT_COMMENT", "RECORDED_FORMAT", "recorded_format"]

#: The comment key (``# format = conllx``) and its one value: CoNLL-U is what a comment already suggests.
FORMAT_COMMENT = "format"
RECORDED_FORMAT = "conllx"

#: In-order action spellings: (non-terminal kind, final action, comment prefix).
SPELLINGS = {
    "pj-term": ("PJ", "TERM", "# "),  # In-Order (Liu & Zhang 2017)
    "nt-term": ("NT", "TERM", "!# "),  # Dynamic-In-Order (Fernandez-Gonzalez & Gomez-Rodriguez 2018)
    "nt-finish": ("NT", "FINISH", "# "),
}
LANGS = ("en", "ch")

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SUFFIXES = ("ed", "ing", "ion", "er", "est", "ly", "ity", "y", "al")


def ascii_lower(word: str) -> str:
    """Lower-case ASCII letters only (Python 2 ``str.lower`` on bytes); ``str.lower`` does just that on ASCII text,
    several times faster than the translation."""
    return word.lower() if word.isascii() else word.translate(_ASCII_LOWER)


def recorded_format(head: bytes) -> str | None:
    """``conllx`` when the first sentence of ``head`` (an input's first bytes) says ``# format = conllx``, else None.

    Only the comments before its first word line count: a format is a
    property of the whole stream, stated at its start.
    """
    for line in head.split(b"\n"):
        text = line.strip()
        if not text:
            continue
        if not text.startswith(b"#"):
            return None
        key, eq, value = text[1:].partition(b"=")
        if eq and key.strip() == FORMAT_COMMENT.encode() and value.strip() == RECORDED_FORMAT.encode():
            return RECORDED_FORMAT
    return None


class Vocabulary:
    """The known words: those occurring more than once in the vocabulary trees."""

    def __init__(self, counts: Counter[str], lang: str = "en") -> None:
        self.known = frozenset(word for word, count in counts.items() if count > 1)
        self.lang = lang
        self._classes: dict[str, str] = {}

    @classmethod
    def from_words(cls, words: Iterable[str], lang: str = "en") -> "Vocabulary":
        return cls(Counter(words), lang)

    def classify(self, word: str) -> str:
        """The word itself when known, else its unknown-word class (cached per word)."""
        cls = self._classes.get(word)
        if cls is None:
            cls = self._classes[word] = word if word in self.known else unknown_class(word, self.known, self.lang)
        return cls

    def class_line(self, words: list[str]) -> str:
        """The class of each of ``words`` (:meth:`classify`), joined by spaces: a dictionary look-up per word
        once every word has been classified (the oracle file's fifth line, written for every tree)."""
        try:
            return " ".join(map(self._classes.__getitem__, words))
        except KeyError:  # words not seen before: classify them, then look up again
            return " ".join([self.classify(word) for word in words])


def unknown_class(word: str, known: Iterable[str] | frozenset[str], lang: str = "en") -> str:
    """The scripts' class of an unknown word (module docstring), computed on its UTF-8 bytes."""
    if lang == "ch" or not word:
        return "UNK"
    raw = word.encode("utf-8", "surrogateescape")
    caps = sum(1 for b in raw if 65 <= b <= 90)
    has_digit = any(48 <= b <= 57 for b in raw)
    has_dash = 45 in raw
    has_lower = any(97 <= b <= 122 for b in raw)
    lower = raw.lower()
    first = raw[0]
    result = "UNK"
    if 65 <= first <= 90:
        if caps == 1:
            result += "-INITC"
            if lower.decode("utf-8", "surrogateescape") in known:
                result += "-KNOWNLC"
        else:
            result += "-CAPS"
    elif not (65 <= first <= 90 or 97 <= first <= 122) and caps > 0:
        result += "-CAPS"
    elif has_lower:
        result += "-LC"
    if has_digit:
        result += "-NUM"
    if has_dash:
        result += "-DASH"
    if lower.endswith(b"s") and len(lower) >= 3:
        if lower[-2:-1] not in (b"s", b"i", b"u"):
            result += "-s"
    elif len(lower) >= 5 and not has_dash and not (has_digit and caps > 0):
        for suffix in _SUFFIXES:
            if lower.endswith(suffix.encode()):
                result += "-" + suffix
                break
    return result


def oracle_record(tree_line: str, tags: list[str], words: list[str], vocabulary: Vocabulary,
                  actions: list[str], comment: str = "# ") -> str:
    """One tree's block, ending with the blank line."""
    return oracle_record_from_lines(tree_line, " ".join(tags), " ".join(words), vocabulary, "\n".join(actions),
                                    comment)


def oracle_record_from_lines(tree_line: str, tag_line: str, word_line: str, vocabulary: Vocabulary,
                             action_lines: str, comment: str = "# ") -> str:
    """:func:`oracle_record` from the tags and the words each joined by a space and the actions by a newline:
    ``treetool oracle`` keeps them so while it counts the words, and need not split and join them again."""
    return "".join((comment, tree_line, "\n", tag_line, "\n", word_line, "\n", ascii_lower(word_line), "\n",
                    vocabulary.class_line(word_line.split(" ")), "\n", action_lines, "\n\n"))


@dataclass
class OracleBlock:
    """One tree's block of an oracle file, as :func:`read_oracle_file` finds it.

    ``line`` is the line of its ``# <tree>`` comment, ``action_lines`` the line
    of each action (for errors), ``raw`` the block's text (for ``--rejects``).
    """

    path: str
    line: int
    tree: str
    tags: list[str]
    words: list[str]
    actions: list[str]
    action_lines: list[int]
    raw: str

    def error(self, message: str, line: int | None = None) -> TreebankError:
        return TreebankError(message, filename=self.path, line=line or self.line, raw=self.raw)


#: The comment prefixes that start a block (``!# ``: Dynamic-In-Order's spelling).
_COMMENTS = ("# ", "!# ")


def read_oracle_file(path: str, on_error, shard: Shard | None = None) -> Iterator[OracleBlock]:
    """The blocks of an RNNG / In-Order oracle file (``-``: stdin; compressed files too; ``shard``: the blocks
    of that shard, cut like CoNLL sentences at blank lines, numbered as in the whole file).

    A block is a ``# <tree>`` (or ``!# <tree>``) line, the POS tags, the tokens,
    the lower-cased tokens, the unknown-word classes, then one action per line
    up to a blank line or the end. A malformed block is passed to ``on_error``
    as a :class:`TreebankError` naming its file and line (``--on-error skip``:
    the block is dropped and reading goes on after it).
    """
    stream = open_binary_input(path)
    window = Window(0, -1, 1, 1)
    if shard is not None:
        window = find_window(path, "conllu", shard)  # blocks end at blank lines, as CoNLL sentences do
        stream.close()
        stream = io.BufferedReader(WindowReader(path, window))
    try:
        for start, block in _blocks(_text_lines(stream, path), window.first_line):
            try:
                yield _parse_block(path, start, block)
            except TreebankError as err:
                on_error(err)
    finally:
        close_input(path, stream)


def _text_lines(stream: IO[bytes], path: str) -> Iterator[str]:
    """The lines of ``stream`` without their ends; binary data (an archive, a NUL byte anywhere) or damaged
    compressed data is an error (see :mod:`.damage`)."""
    with decoding_errors(stream, path):
        reject_binary(stream.peek(4096)[:4096], path)
        for number, raw in enumerate(stream, 1):
            if b"\x00" in raw:
                refuse_nul_bytes(raw, number, path)
            yield raw.decode("utf-8", "surrogateescape").rstrip("\r\n")


def _blocks(lines: Iterable[str], first_line: int = 1) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of every run of non-blank lines."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines, first_line):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _parse_block(path: str, start: int, block: list[str]) -> OracleBlock:
    raw = "".join(line + "\n" for line in block) + "\n"
    first = block[0]
    if first.lstrip().startswith("{"):
        raise TreebankError("a jsonl record: replay reads rnng and inorder oracle files (jsonl records carry no "
                            "words; write the oracle with --format rnng or inorder)", filename=path, line=start, raw=raw)
    tabbed = next((k for k, line in enumerate(block) if "\t" in line), None)
    if tabbed is not None:  # no oracle line holds a tab: PTB tokens and actions are split on whitespace
        raise TreebankError("a tab-separated line, as in a CoNLL treebank: replay with a constituency system reads "
                            "rnng and inorder oracle files (treetool oracle FILE.mrg --system top-down|in-order "
                            "writes them)", filename=path, line=start + tabbed, raw=raw)
    comment = next((c for c in _COMMENTS if first.startswith(c)), None)
    if comment is None:
        raise TreebankError("expected a '# <tree>' line starting an oracle block", filename=path, line=start, raw=raw)
    if len(block) < 5:
        raise TreebankError("the block ends before its actions (after the '# <tree>' line: POS tags, tokens, "
                            "lower-cased tokens, unknown-word classes, actions)", filename=path, line=start, raw=raw)
    tags, words = block[1].split(), block[2].split()
    if len(tags) != len(words) or not words:
        raise TreebankError(f"{len(tags)} POS tags for {len(words)} tokens", filename=path, line=start + 2, raw=raw)
    actions = [line.strip() for line in block[5:]]
    return OracleBlock(path, start, first[len(comment):], tags, words, actions,
                       list(range(start + 5, start + len(block))), raw)
