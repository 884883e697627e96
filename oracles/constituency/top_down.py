"""The top-down system of Dyer et al. (2016), as in Fernández-González & Gómez-Rodríguez (2018), §2 (Figs 2-3).

Actions: ``NT(X)`` pushes an open non-terminal X; ``SHIFT`` pushes the next
word; ``REDUCE`` pops the items above the topmost open non-terminal (its
children) and that non-terminal, and pushes the completed constituent.

Legality follows RNNG's discriminative parser (``IsActionForbidden_Discriminative``
in clab/rnng ``nt-parser/nt-parser.cc``, no implicit reduce after shift):

* empty stack: only ``NT(X)``;
* ``NT(X)``: the buffer is not empty, and at most ``max_open_nts`` (RNNG: 100)
  non-terminals are open (so up to ``max_open_nts + 1`` can be open at once);
* ``SHIFT``: the buffer is not empty;
* ``REDUCE``: the top of the stack is not an open non-terminal (no empty
  constituent), the stack has at least 2 items, and if only one non-terminal
  is open (the root) the buffer is empty.

Final: the buffer is empty and the stack holds one completed constituent.
"""

from __future__ import annotations

from .oracle_walk import OracleWalk
from .system import Built, Configuration, ConstituencySystem, Open, last_open, span_of
from .tree import Node, require_node

__all__ = ["TopDown", "RNNG_MAX_OPEN_NTS"]

#: RNNG's ``MAX_OPEN_NTS``: NT is forbidden when more than this many non-terminals are open.
RNNG_MAX_OPEN_NTS = 100


class TopDown(ConstituencySystem):
    """Top-down transition system (Dyer et al. 2016) with RNNG's legality rules (module docstring)."""

    name = "top-down"
    nonterminal_kind = "NT"
    label_first = True
    option_names = ("max_open_nts",)

    def __init__(self, max_open_nts: int = RNNG_MAX_OPEN_NTS) -> None:
        if max_open_nts < 0:
            raise ValueError("max_open_nts must be >= 0")
        self.max_open_nts = max_open_nts

    def legal(self, config: Configuration) -> list[str]:
        stack, buffer_empty = config.stack, config.buffer >= config.n
        if not stack:
            return [] if buffer_empty else ["NT"]
        opens = config.open_count()
        out = []
        if not buffer_empty:
            out.append("SHIFT")
            if opens <= self.max_open_nts:
                out.append("NT")
        if type(stack[-1]) is not Open and len(stack) >= 2 and (opens > 1 or (opens == 1 and buffer_empty)):
            out.append("REDUCE")
        return out

    def is_final(self, config: Configuration) -> bool:
        return config.buffer >= config.n and len(config.stack) == 1 and type(config.stack[0]) is Built

    def _reduce(self, config: Configuration) -> Configuration:
        k = last_open(config.stack)
        label = config.stack[k].label
        start = span_of(config.stack[k + 1])[0]
        built = Built(label, start, config.buffer)
        return Configuration(config.stack[:k] + (built,), config.buffer, config.n, config.built + (built[:3],),
                             config.finished)

    def static_oracle(self, gold: Node) -> list[str] | None:
        """Figure 3 of Fernández-González & Gómez-Rodríguez (2018): ``NT(X)`` before a constituent's children,
        ``REDUCE`` after them.

        ``None`` when a non-terminal would be opened with more than
        ``max_open_nts`` already open (nesting deeper than RNNG allows). ``gold`` must be a :class:`Node`
        (``from_nltk``), else ``TypeError``.
        """
        actions: list[str] = []
        # Iterative walk: (node, depth) entries, and "REDUCE" markers.
        todo: list[tuple[Node, int] | str | int] = [(require_node(gold), 0)]
        while todo:
            entry = todo.pop()
            if type(entry) is tuple:
                node, depth = entry
                if depth > self.max_open_nts:
                    return None
                actions.append(f"NT({node.label})")
                todo.append("REDUCE")
                for child in reversed(node.children):
                    todo.append((child, depth + 1) if type(child) is Node else "SHIFT")
            else:
                actions.append(entry)
        return actions

    def judged(self, walk: OracleWalk) -> OracleWalk:
        """Figure 3's sequence of one walk, refused as :meth:`static_oracle` refuses it."""
        return walk if walk.deepest <= self.max_open_nts else walk._replace(actions=None)

    def options(self) -> dict[str, int]:
        return {} if self.max_open_nts == RNNG_MAX_OPEN_NTS else {"max_open_nts": self.max_open_nts}
