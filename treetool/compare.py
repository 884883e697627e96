"""Comparing two analyses of the same sentences: the library behind ``treetool diff`` and ``view --compare``.

Two files are aligned sentence by sentence, in order: the i-th sentences
must have the same id (``# sent_id``, else the position; with
``align="position"`` the order alone pairs them), the same number of words
and the same word forms, or the comparison stops with a
:class:`~treetool.errors.TreebankError` naming the file and line where they
part.  Attachment scores follow the CoNLL 2018 shared task's evaluation
script (``conll18_ud_eval.py``): on aligned words, UAS counts the words
whose HEAD matches and LAS those whose HEAD and DEPREL match, punctuation
included; the script compares DEPREL without its subtype (``nsubj:pass`` is
``nsubj``), which ``deprel_base=True`` selects.  With the same words in both
files the script's F1 is this share of words.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from .errors import TreebankError
from .report import percent

if TYPE_CHECKING:  # numpy comes with it: the command layer imports ALIGNMENTS at start-up
    from .sentence import Sentence

#: How two files' sentences are paired (``--align``): by ``# sent_id``, or the n-th with the n-th.
ALIGNMENTS = ("id", "position")

#: The separator of a DEPREL's subtype (``nsubj:pass``).
SUBTYPE_SEP = ":"


def base_deprel(label: str) -> str:
    """The universal part of a DEPREL, as the CoNLL 2018 script compares it: ``obl:tmod`` -> ``obl``."""
    return label.split(SUBTYPE_SEP, 1)[0]


def aligned_sentences(gold: Iterable[Sentence], other: Iterable[Sentence],
                      align: str = "id") -> Iterator[tuple[int, Sentence, Sentence]]:
    """Pair the sentences of two streams in order, yielding ``(position, gold, other)``.

    Raises :class:`TreebankError` at the first sentence of ``other`` that is
    not its counterpart in ``gold`` (see :func:`check_counterpart`), or at
    the first sentence one stream has beyond the end of the other.  Both
    streams are read in step: memory stays constant.
    """
    for position, (g, o) in enumerate(zip_longest(gold, other), 1):
        if g is None:
            raise TreebankError(_no_counterpart(position), filename=o.filename, line=o.line, sent_id=o.sent_id)
        if o is None:
            raise TreebankError(_no_counterpart(position), filename=g.filename, line=g.line, sent_id=g.sent_id)
        check_counterpart(position, g, o, align)
        yield position, g, o


def _no_counterpart(position: int) -> str:
    ended = position - 1
    return f"sentence {position} has no counterpart: the other file ends after {ended} sentence{'s' * (ended != 1)}"


def check_counterpart(position: int, g: Sentence, o: Sentence, align: str) -> None:
    """Raise :class:`TreebankError` at ``o`` unless it is ``g``'s counterpart, the ``position``-th of each file.

    ``id``: the same ``# sent_id`` (else the position), words and forms; one
    file without sent_ids (parser output often drops the comments) gets a
    hint to pair by position.  ``position``: the same words, a difference
    naming the sentence only, since it means the files hold other sentences.
    """
    if align not in ALIGNMENTS:
        raise ValueError(f"align must be one of {ALIGNMENTS}, not {align!r}")
    if align == "id":
        _check_same_id(position, g, o)
        _check_same_words(position, g, o)
    elif len(g) != len(o) or g.forms != o.forms:
        raise TreebankError(f"sentence {position} has different words from {g.filename}:{g.line}",
                            filename=o.filename, line=o.line, sent_id=o.sent_id)


def _check_same_id(position: int, g: Sentence, o: Sentence) -> None:
    gid, oid = g.identifier(position), o.identifier(position)
    if gid != oid:
        raise TreebankError(f"sentence id {oid!r} does not match {gid!r} at {g.filename}:{g.line}"
                            f"{missing_id_hint(g, o)}", filename=o.filename, line=o.line)


def missing_id_hint(g: Sentence, o: Sentence) -> str:
    """A hint for ids that differ because only one file has ``# sent_id`` comments: pair by position instead."""
    if (g.sent_id is None) == (o.sent_id is None):
        return ""
    without = o if o.sent_id is None else g
    return f" ({without.filename} has no sent_id here: --align position pairs the n-th sentences, checking their words)"


def _check_same_words(position: int, g: Sentence, o: Sentence) -> None:
    if len(g) != len(o):
        raise TreebankError(f"{len(o)} words, but {g.filename}:{g.line} has {len(g)}",  # the id: said after
                            filename=o.filename, line=o.line, sent_id=o.sent_id)
    for i, (gf, of) in enumerate(zip(g.forms, o.forms)):
        if gf != of:
            raise TreebankError(f"word {i} is {of!r}, but {g.filename}:{g.line + g.word_row(i)} has {gf!r}",
                                filename=o.filename, line=o.line + o.word_row(i), sent_id=o.sent_id)


@dataclass(frozen=True)
class WordDifference:
    """A word whose HEAD or DEPREL differs between the two analyses."""

    word: int
    form: str
    gold_head: int
    gold_deprel: str
    other_head: int
    other_deprel: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.word, "form": self.form,
            "gold": {"head": self.gold_head, "deprel": self.gold_deprel},
            "other": {"head": self.other_head, "deprel": self.other_deprel},
        }


@dataclass
class SentenceComparison:
    """One aligned pair of sentences: its attachment counts and the words that differ."""

    sent_id: str
    gold_line: int
    other_line: int
    words: int
    heads_match: int
    labelled_match: int
    differences: list[WordDifference]

    @property
    def uas(self) -> float | None:
        return percent(self.heads_match, self.words)

    @property
    def las(self) -> float | None:
        return percent(self.labelled_match, self.words)

    def as_dict(self) -> dict[str, Any]:
        return {
            "sent_id": self.sent_id, "gold_line": self.gold_line, "other_line": self.other_line,
            "words": self.words, "uas": self.uas, "las": self.las,
            "differences": [d.as_dict() for d in self.differences],
        }


def compare_sentences(position: int, gold: Sentence, other: Sentence, deprel_base: bool = False) -> SentenceComparison:
    """Compare two analyses of the same words (see :func:`aligned_sentences`).

    A word matches unlabelled when its HEAD is the same, labelled when its
    DEPREL is the same too (only up to the subtype with ``deprel_base``, as
    the CoNLL 2018 script compares it); it differs when it does not match
    labelled.
    """
    gh, oh = gold.head_list, other.head_list
    gd, od = gold.deprels, other.deprels
    forms = gold.forms
    label = base_deprel if deprel_base else str
    heads = labelled = 0
    differences = []
    for i in range(1, len(gh)):
        same_head = gh[i] == oh[i]
        heads += same_head
        if same_head and label(gd[i]) == label(od[i]):
            labelled += 1
        else:
            differences.append(WordDifference(i, forms[i], gh[i], gd[i], oh[i], od[i]))
    return SentenceComparison(gold.identifier(position), gold.line, other.line, len(gh) - 1, heads, labelled, differences)


@dataclass
class ComparisonTotal:
    """Totals over the compared sentences; percentages are over all words."""

    sentences: int = 0
    words: int = 0
    heads_match: int = 0
    labelled_match: int = 0
    differing_sentences: int = 0
    differing_words: int = 0

    def add(self, comparison: SentenceComparison) -> None:
        self.sentences += 1
        self.words += comparison.words
        self.heads_match += comparison.heads_match
        self.labelled_match += comparison.labelled_match
        self.differing_sentences += bool(comparison.differences)
        self.differing_words += len(comparison.differences)

    @property
    def identical(self) -> bool:
        return self.differing_words == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "sentences": self.sentences, "words": self.words, "differing_sentences": self.differing_sentences,
            "uas": percent(self.heads_match, self.words), "las": percent(self.labelled_match, self.words),
        }
