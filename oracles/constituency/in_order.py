"""The in-order system of Liu & Zhang (2017), as in Fernández-González & Gómez-Rodríguez (2018), §2 (Figs 4-5).

Actions: ``SHIFT`` pushes the next word; ``PJ(X)`` (projection; written
``NT(X)`` in Fernández-González & Gómez-Rodríguez (2018)) pushes an open non-terminal X above a completed item,
which becomes X's first child; ``REDUCE`` pops the items above the topmost
open non-terminal, that non-terminal and the item below it (the first child),
and pushes the completed constituent; ``TERM`` ends the computation.

Legality follows In-Order's Kparser (``IsActionForbidden_Discriminative`` in
LeonCrashCode/InOrderParser ``impl/Kparser.cc``, ``MAX_UNARY = 3``).
Kparser keeps a counter ``unary``: 0 after ``SHIFT``; a ``REDUCE`` right after
``PJ`` (a unary node) adds 1, a ``REDUCE`` right after ``REDUCE`` resets it to 0.
Here it is ``Built.unary`` of the top completed item (of the item below the
open non-terminal when one is on top; 0 for a word): the length of the chain
of unary nodes built last. The rules:

* empty stack: only ``SHIFT``;
* ``SHIFT``: the buffer is not empty and some non-terminal is open;
* ``PJ(X)``: the top of the stack is not an open non-terminal, and not (the
  buffer is empty and ``unary >= 3``);
* ``REDUCE``: some non-terminal is open and ``unary <= 3``;
* ``TERM``: the stack is one completed constituent (not a word) and the
  buffer is empty.

Open non-terminals: ``SHIFT`` and ``REDUCE`` need one; there is no maximum
(Kparser's ``MAX_OPEN_NTS`` test is commented out). So a chain of 3 unary
nodes is the most that can end the sentence, and a chain of 4 is possible only
as a first child with words still in the buffer (the ``REDUCE`` that would
close a constituent whose last child is a 4-chain is refused). Final: after
``TERM``.
"""

from __future__ import annotations

from .oracle_walk import OracleWalk
from .system import Built, Configuration, ConstituencySystem, Open, last_open, span_of
from .tree import Node, require_node

__all__ = ["InOrder", "KPARSER_MAX_UNARY"]

#: Kparser's ``MAX_UNARY``.
KPARSER_MAX_UNARY = 3


class InOrder(ConstituencySystem):
    """In-order transition system (Liu & Zhang 2017) with Kparser's legality rules (module docstring)."""

    name = "in-order"
    option_names = ("max_unary",)
    nonterminal_kind = "PJ"
    label_first = False

    def __init__(self, max_unary: int = KPARSER_MAX_UNARY) -> None:
        if max_unary < 0:
            raise ValueError("max_unary must be >= 0")
        self.max_unary = max_unary

    @staticmethod
    def unary(config: Configuration) -> int:
        """Kparser's ``unary`` counter, read off the stack (module docstring)."""
        stack = config.stack
        if not stack:
            return 0
        top = stack[-1] if type(stack[-1]) is not Open else stack[-2]
        return top.unary if type(top) is Built else 0

    def legal(self, config: Configuration) -> list[str]:
        stack = config.stack
        if config.finished:
            return []
        buffer_empty = config.buffer >= config.n
        if not stack:
            return [] if buffer_empty else ["SHIFT"]
        has_open = last_open(stack) >= 0  # from the top: an open non-terminal is usually near it
        unary = self.unary(config)
        top_is_open = type(stack[-1]) is Open
        out = []
        if not buffer_empty and has_open:
            out.append("SHIFT")
        if not top_is_open and not (buffer_empty and unary >= self.max_unary):
            out.append("PJ")
        if has_open and unary <= self.max_unary:
            out.append("REDUCE")
        if len(stack) == 1 and type(stack[0]) is Built and buffer_empty:
            out.append("TERM")
        return out

    def is_final(self, config: Configuration) -> bool:
        return config.finished

    def _reduce(self, config: Configuration) -> Configuration:
        stack = config.stack
        k = last_open(stack)
        first = stack[k - 1]
        if k == len(stack) - 1:  # right after PJ: a unary node
            chain = (first.unary if type(first) is Built else 0) + 1
        else:
            chain = 0
        built = Built(stack[k].label, span_of(first)[0], config.buffer, chain)
        return Configuration(stack[: k - 1] + (built,), config.buffer, config.n, config.built + (built[:3],),
                             config.finished)

    def static_oracle(self, gold: Node) -> list[str] | None:
        """Figure 5 of Fernández-González & Gómez-Rodríguez (2018): first child, ``PJ(X)``, the other children,
        ``REDUCE``; ``TERM`` at the end.

        ``None`` when Kparser's rules forbid the sequence (unary chains, see
        the module docstring); checked by :meth:`kparser_allows`. ``gold`` must be a :class:`Node`
        (``from_nltk``), else ``TypeError``.
        """
        actions: list[str] = []
        todo: list[Node | int | str] = [require_node(gold)]
        # Only Kparser's unary counter can refuse a Figure 5 sequence, and it reaches max_unary only along
        # max_unary nested one-child nodes: without such a chain the check is skipped (most trees).
        chained = self.max_unary < 1
        while todo:
            entry = todo.pop()
            if type(entry) is Node:
                children = entry.children
                if len(children) == 1 and not chained:
                    chained = _unary_chain(entry, self.max_unary) >= self.max_unary
                todo.append("REDUCE")
                for child in reversed(children[1:]):
                    todo.append(child)
                todo.append(f"PJ({entry.label})")
                todo.append(children[0])
            elif type(entry) is int:
                actions.append("SHIFT")
            else:
                actions.append(entry)
        actions.append("TERM")
        return actions if not chained or self.kparser_allows(actions, gold.end) else None

    def judged(self, walk: OracleWalk) -> OracleWalk:
        """Figure 5's sequence of one walk, ``TERM`` added; refused as :meth:`static_oracle` refuses it
        (checked only when a unary chain reaches ``max_unary``, as there)."""
        walk.actions.append("TERM")
        if walk.longest_unary < self.max_unary or self.kparser_allows(walk.actions, len(walk.words)):
            return walk
        return walk._replace(actions=None)

    def kparser_allows(self, actions: list[str], n: int) -> bool:
        """True when Kparser's rules allow ``actions`` on ``n`` words.

        A direct transcription of Kparser's counters (stack and buffer sizes,
        open brackets, ``unary``, previous action), independent of
        :meth:`legal`, and fast enough for every static sequence.
        """
        stack = buffer_used = unary = 0
        marks: list[int] = []  # stack size below each open non-terminal's first child
        prev = ""
        for action in actions:
            a = action[0]
            if a == "T":
                if not (stack == 1 and buffer_used == n and prev == "R"):
                    return False
            elif stack == 0 and a != "S":
                return False
            elif a == "S":
                if buffer_used == n or (stack and not marks):
                    return False
                stack, buffer_used, unary = stack + 1, buffer_used + 1, 0
            elif a == "P":
                if (buffer_used == n and unary >= self.max_unary) or prev == "P":
                    return False
                marks.append(stack - 1)
                stack += 1
            else:  # REDUCE
                if unary > self.max_unary or not marks:
                    return False
                unary = unary + 1 if prev == "P" else (0 if prev == "R" else unary)
                stack = marks.pop() + 1
            prev = a
        return prev == "T"

    def options(self) -> dict[str, int]:
        return {} if self.max_unary == KPARSER_MAX_UNARY else {"max_unary": self.max_unary}


def _unary_chain(node: Node, limit: int) -> int:
    """How many nested one-child nodes start at ``node`` (counted up to ``limit``): Kparser's unary counter's reach."""
    length = 0
    while type(node) is Node and len(node.children) == 1 and length < limit:
        length += 1
        node = node.children[0]
    return length
