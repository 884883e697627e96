"""What the constituency losses need to know about one gold tree (Fernández-González & Gómez-Rodríguez 2018, §3), computed once per sentence."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .system import ConstituencySystem
from .tree import Node, Span, postorder, preorder

__all__ = ["GoldIndex"]


class GoldIndex:
    """What the losses need to know about one gold tree, computed once per sentence."""

    def __init__(self, gold: Node, system: ConstituencySystem) -> None:
        self.gold = gold
        self.n = gold.end
        self.in_order = system.nonterminal_kind == "PJ"
        self.spans = postorder(gold)
        self.counts = Counter(self.spans)
        self.size = len(self.spans)
        self.labels = frozenset(label for label, _, _ in self.spans)
        self.ends = sorted({end for _, _, end in self.spans})
        # Non-terminal index (the paper's (X, j)) of each gold node, and the order the static oracle opens them.
        order = _in_order_nodes(gold) if self.in_order else list(preorder(gold))
        #: The gold nodes in the order the static oracle opens their non-terminals (Figures 3 and 5).
        self.nonterminals: tuple[Node, ...] = tuple(order)
        self.nt_rank: dict[tuple[str, int], list[int]] = {}
        for rank, node in enumerate(order):
            self.nt_rank.setdefault((node.label, self.nt_position(node)), []).append(rank)
        self.nt_counts = Counter({key: len(ranks) for key, ranks in self.nt_rank.items()})
        self.nt_second = {node.span: self.nt_position(node) for node in order}

    def nt_position(self, node: Node) -> int:
        """The paper's index of a gold non-terminal: its start (top-down), the start of its 2nd child (in-order)."""
        if not self.in_order:
            return node.start
        first = node.children[0]
        return first.end if isinstance(first, Node) else first + 1

    def remaining(self, built: Iterable[Span]) -> tuple[Counter, int]:
        """Gold constituents not built yet (a multiset), and how many built ones are wrong."""
        made = Counter(built)
        return self.counts - made, sum((made - self.counts).values())

    def hamming(self, built: Iterable[Span]) -> int:
        """Missed gold constituents plus wrong built ones: the loss of a final configuration."""
        remaining, wrong = self.remaining(built)
        return sum(remaining.values()) + wrong


def _in_order_nodes(gold: Node) -> list[Node]:
    """The nodes in the order in-order pushes their non-terminals (after the first child, before the rest)."""
    out: list[Node] = []
    todo: list[tuple[Node, bool]] = [(gold, False)]  # (node, its first child is done: its own turn)
    while todo:
        node, turn = todo.pop()
        if turn:
            out.append(node)
            continue
        todo.extend((c, False) for c in reversed(node.children[1:]) if isinstance(c, Node))
        todo.append((node, True))
        if isinstance(node.children[0], Node):
            todo.append((node.children[0], False))
    return out
