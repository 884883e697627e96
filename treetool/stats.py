"""Dependency treebank statistics: size, non-projectivity, gap and edge degree, ill-nestedness.

The definitions (non-projective arc, gap degree, edge degree,
well-nestedness) live in :mod:`treetool.trees`; this module only counts.
Label inventories count DEPREL values, and, for a pseudo-projective scheme,
the values ``treetool projectivize --method pseudo`` would write: the
sentence goes through the same :class:`~treetool.projectivization.driver.Projectivizer`.
Constituency statistics, which count what each constituency system derives,
are :mod:`treetool.oracles.constituency.stats`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .projectivization.driver import ProjectivizeOptions, Projectivizer
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
    labels: Counter | None = None  # DEPREL -> words, when asked for
    labels_after_scheme: str | None = None  # pseudo-projective scheme of labels_after, when asked for
    labels_after: Counter = field(default_factory=Counter)  # DEPREL after pseudo-projectivization -> words

    def __post_init__(self) -> None:
        self._pseudo = None
        if self.labels_after_scheme is not None:
            self._pseudo = Projectivizer(ProjectivizeOptions(method="pseudo", scheme=self.labels_after_scheme))

    def add(self, sentence: Sentence) -> None:
        self._add_tree(sentence)
        if self.labels is not None:
            self.labels.update(sentence.deprels[1:])
        if self._pseudo is not None:
            self._pseudo.apply(sentence)  # in place: the tree is counted above
            self.labels_after.update(sentence.deprels[1:])

    def _add_tree(self, sentence: Sentence) -> None:
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
        if self.labels is not None and other.labels is not None:
            self.labels.update(other.labels)
        self.labels_after.update(other.labels_after)
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
        if self.labels is not None:
            out["labels"] = dict(_by_frequency(self.labels))
        if self.labels_after_scheme is not None:
            out["labels_after"] = {
                "scheme": self.labels_after_scheme,
                "distinct": len(self.labels_after),
                "counts": dict(_by_frequency(self.labels_after)),
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


def _by_frequency(counts: Counter) -> list[tuple[str, int]]:
    """Most frequent first, ties in label order (a stable order for reports and tests)."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def new_labels(stats: TreebankStats, top: int) -> list[tuple[str, int]]:
    """The ``top`` most frequent labels of ``labels_after`` that the input does not have: the labels
    pseudo-projectivization adds to a classifier's output layer (needs ``labels`` counted)."""
    known = stats.labels or Counter()
    return [(label, n) for label, n in _by_frequency(stats.labels_after) if label not in known][:top]


def treebank_stats(
    sentences: Iterable[Sentence], name: str = "total", *, labels: bool = False, labels_after: str | None = None
) -> TreebankStats:
    """Count the statistics of a stream of sentences (constant memory).

    ``labels`` counts DEPREL values; ``labels_after`` names a pseudo-projective
    scheme (``head``, ``path``, ``head+path``) whose output labels are counted,
    with ``projectivize``'s defaults for the other options.  Sentences are
    changed in place by the latter.
    """
    stats = TreebankStats(name=name, labels=Counter() if labels else None, labels_after_scheme=labels_after)
    for sentence in sentences:
        stats.add(sentence)
    return stats
