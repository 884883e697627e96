"""Penn Treebank statistics: size, labels, unary chains, depth, and the share of trees each constituency system
derives under its limits (``treetool stats`` on PTB files)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from treetool.report import percent, ratio

from . import CONSTITUENCY_SYSTEMS
from .tree import Node, from_nltk, is_preterminal, preorder

__all__ = ["ConstituencyStats"]


@dataclass
class ConstituencyStats:
    """Counts over PTB trees (cleaned): size, labels, unary chains, depth, derivability by each system.

    A unary node has one child (a word or a constituent); a unary chain is a
    maximal run of nested unary nodes (``(S (NP (NN x)))``: one chain of 2).
    Depth counts constituents on the longest root-to-word path (preterminals
    are not constituents). ``derivable`` counts the trees each constituency
    system derives under its limits (RNNG's open-non-terminal limit,
    Kparser's unary limit); a tree that is a bare preterminal has no
    constituent and counts for none. Any other tree that is not a
    constituency tree over tagged words (``(NP the (NN cat))``) raises
    :class:`GoldTreeError`: counting it would under-count its constituents.
    """

    name: str = "total"
    trees: int = 0
    words: int = 0
    constituents: int = 0
    unary_nodes: int = 0
    unary_chains: int = 0
    max_unary_chain: int = 0
    max_depth: int = 0
    skipped: int = 0
    labels: Counter = field(default_factory=Counter)
    derivable: Counter = field(default_factory=Counter)

    def add(self, tree: Any) -> None:
        if is_preterminal(tree):
            self.trees += 1
            self.words += 1
            return
        gold = from_nltk(tree)
        self.trees += 1
        self.words += gold.end
        depth_of = {id(gold): 1}
        for node in preorder(gold):
            depth = depth_of.pop(id(node))
            self.max_depth = max(self.max_depth, depth)
            self.constituents += 1
            self.labels[node.label] += 1
            for child in node.children:
                if type(child) is not int:
                    depth_of[id(child)] = depth + 1
            if len(node.children) == 1:
                self.unary_nodes += 1
        for chain in _unary_chains(gold):
            self.unary_chains += 1
            self.max_unary_chain = max(self.max_unary_chain, chain)
        for name, cls in CONSTITUENCY_SYSTEMS.items():
            self.derivable[name] += cls().can_derive(gold)

    def merge(self, other: ConstituencyStats) -> None:
        for name in ("trees", "words", "constituents", "unary_nodes", "unary_chains", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.max_unary_chain = max(self.max_unary_chain, other.max_unary_chain)
        self.max_depth = max(self.max_depth, other.max_depth)
        self.labels.update(other.labels)
        self.derivable.update(other.derivable)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary; shares are percentages, n/a (None) over no trees."""
        out: dict[str, Any] = {
            "file": self.name, "trees": self.trees, "words": self.words,
            "mean_length": ratio(self.words, self.trees), "constituents": self.constituents,
            "unary_nodes": self.unary_nodes, "unary_chains": self.unary_chains,
            "max_unary_chain": self.max_unary_chain if self.trees else None,
            "max_depth": self.max_depth if self.trees else None,
        }
        for name in CONSTITUENCY_SYSTEMS:
            out[f"derivable_{name}_pct"] = percent(self.derivable[name], self.trees)
        out["labels"] = dict(self.labels.most_common())
        out["skipped"] = self.skipped
        return out


def _unary_chains(gold: Node) -> Iterator[int]:
    """The length of every maximal chain of unary nodes of a gold tree."""
    inside: set[int] = set()  # ids of unary nodes whose parent is unary too
    for node in preorder(gold):
        if len(node.children) == 1 and type(node.children[0]) is not int:
            child = node.children[0]
            if len(child.children) == 1:
                inside.add(id(child))
    for node in preorder(gold):
        if len(node.children) == 1 and id(node) not in inside:
            length, current = 1, node
            while type(current.children[0]) is not int and len(current.children[0].children) == 1:
                length, current = length + 1, current.children[0]
            yield length
