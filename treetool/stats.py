"""Treebank statistics: size, non-projectivity, gap and edge degree, ill-nestedness.

The definitions (non-projective arc, gap degree, edge degree,
well-nestedness) live in :mod:`treetool.trees`; this module only counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .report import percent, ratio
from .sentence import Sentence
from .trees import tree_measures

#: Upper bounds of the sentence-length buckets of ``--by-length``.
LENGTH_BUCKETS = (10, 20, 30, 40, 50)


def length_bucket(n: int) -> str:
    low = 1
    for high in LENGTH_BUCKETS:
        if n <= high:
            return f"{low}-{high}"
        low = high + 1
    return f">{LENGTH_BUCKETS[-1]}"


#: The bucket names of ``--by-length``, in order.
LENGTH_BUCKET_NAMES: tuple[str, ...] = tuple(length_bucket(b) for b in (*LENGTH_BUCKETS, LENGTH_BUCKETS[-1] + 1))


@dataclass
class TreebankStats:
    """Counts over a set of sentences; ``add`` one sentence, ``merge`` another set."""

    name: str = "total"
    sentences: int = 0
    words: int = 0
    max_length: int = 0
    non_projective_sentences: int = 0
    non_projective_arcs: int = 0
    multi_root_sentences: int = 0
    ill_nested: int = 0
    skipped: int = 0
    gap_degrees: Counter = field(default_factory=Counter)
    edge_degrees: Counter = field(default_factory=Counter)
    by_length: dict[str, list[int]] = field(default_factory=dict)  # bucket -> [sentences, non-projective]

    def add(self, sentence: Sentence) -> None:
        heads = sentence.heads
        n = len(heads) - 1
        self.sentences += 1
        self.words += n
        self.max_length = max(self.max_length, n)
        if int((heads[1:] == 0).sum()) > 1:
            self.multi_root_sentences += 1
        bucket = self.by_length.setdefault(length_bucket(n), [0, 0])
        bucket[0] += 1
        measures = tree_measures(heads)
        self.gap_degrees[measures.gap_degree] += 1
        self.edge_degrees[measures.edge_degree] += 1
        if measures.projective:
            return
        self.non_projective_sentences += 1
        self.non_projective_arcs += measures.non_projective_arcs
        bucket[1] += 1
        if not measures.well_nested:
            self.ill_nested += 1

    def merge(self, other: TreebankStats) -> None:
        for name in ("sentences", "words", "non_projective_sentences", "non_projective_arcs",
                     "multi_root_sentences", "ill_nested", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.max_length = max(self.max_length, other.max_length)
        self.gap_degrees.update(other.gap_degrees)
        self.edge_degrees.update(other.edge_degrees)
        for key, (count, nonproj) in other.by_length.items():
            mine = self.by_length.setdefault(key, [0, 0])
            mine[0] += count
            mine[1] += nonproj

    def as_dict(self, by_length: bool = False) -> dict[str, Any]:
        """A flat, JSON-ready summary; shares are percentages."""
        out: dict[str, Any] = {
            "file": self.name,
            "sentences": self.sentences,
            "words": self.words,
            "mean_length": ratio(self.words, self.sentences),
            "max_length": self.max_length if self.sentences else None,
            "non_projective_sentences": self.non_projective_sentences,
            "non_projective_sentences_pct": percent(self.non_projective_sentences, self.sentences),
            "non_projective_arcs": self.non_projective_arcs,
            "non_projective_arcs_pct": percent(self.non_projective_arcs, self.words),
            "multi_root_sentences": self.multi_root_sentences,
            "max_gap_degree": max(self.gap_degrees, default=None),
            "gap_degree": {str(k): self.gap_degrees[k] for k in sorted(self.gap_degrees)},
            "max_edge_degree": max(self.edge_degrees, default=None),
            "edge_degree": {str(k): self.edge_degrees[k] for k in sorted(self.edge_degrees)},
            "ill_nested": self.ill_nested,
            "skipped": self.skipped,
        }
        if by_length:
            out["by_length"] = {
                key: {
                    "sentences": self.by_length[key][0],
                    "non_projective": self.by_length[key][1],
                    "non_projective_pct": percent(self.by_length[key][1], self.by_length[key][0]),
                }
                for key in LENGTH_BUCKET_NAMES
                if key in self.by_length
            }
        return out


def treebank_stats(sentences: Iterable[Sentence], name: str = "total") -> TreebankStats:
    """Count the statistics of a stream of sentences (constant memory)."""
    stats = TreebankStats(name=name)
    for sentence in sentences:
        stats.add(sentence)
    return stats
