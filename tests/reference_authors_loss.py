"""The authors' in-order oracle restated from their bookkeeping: the reference for ``authors_loss.AuthorsCosts``.

Fernández-González & Gómez-Rodríguez (2018, §3.2) as their released parser
runs it: it replays the *history* of actions, numbering each ``PJ(X)`` by
how many ``PJ(X)`` came before it, instead of reading identities off the
configuration as the fast version does. Slow and literal: for each action,
copy the state, apply the action, then test every gold constituent with the
rules in the order the parser tests them.
"""

from __future__ import annotations

from treetool.oracles.constituency.tree import Node

WRONG = None


def gold_sequence(node: Node) -> list[str]:
    """The in-order static sequence (Figure 5), without TERM: first child, PJ(X), the other children, REDUCE."""
    out: list[str] = []
    for index, child in enumerate(node.children):
        out += gold_sequence(child) if isinstance(child, Node) else ["SHIFT"]
        if index == 0:
            out.append(f"PJ({node.label})")
    return out + ["REDUCE"]


class History:
    """The parser's bookkeeping along one walk: stack entries, applied non-terminals, built constituents."""

    def __init__(self) -> None:
        self.stack: list[tuple] = []  # ("span", start, end) or ("nt", label, position, order or WRONG)
        self.buffer = 0
        self.applied: dict[str, int] = {}
        self.built: list[tuple] = []  # (label, start, end, order or WRONG)

    def copy(self) -> "History":
        other = History()
        other.stack, other.buffer = list(self.stack), self.buffer
        other.applied, other.built = dict(self.applied), list(self.built)
        return other

    def apply(self, action: str, gold_nts: list[tuple]) -> int:
        """Apply ``action``; return its penalty (a wrong PJ, or a REDUCE building a non-gold constituent)."""
        if action == "SHIFT":
            self.stack.append(("span", self.buffer, self.buffer + 1))
            self.buffer += 1
            return 0
        if action.startswith("PJ("):
            label = action[3:-1]
            self.applied[label] = order = self.applied.get(label, 0) + 1
            gold = (label, self.buffer, order) in gold_nts
            self.stack.append(("nt", label, self.buffer, order if gold else WRONG))
            return 0 if gold else 1
        if action == "REDUCE":
            while self.stack[-1][0] != "nt":
                self.stack.pop()
            _, label, _, order = self.stack.pop()
            start = self.stack.pop()[1]
            self.stack.append(("span", start, self.buffer))
            self.built.append((label, start, self.buffer, order))
            return 0
        return 0  # TERM


class Gold:
    """The gold non-terminals ``(label, position, order)`` in static order and constituents ``(label, l, r, order)``."""

    def __init__(self, tree: Node) -> None:
        replay = History()
        self.nts: list[tuple] = []
        for action in gold_sequence(tree):
            if action.startswith("PJ("):
                label = action[3:-1]
                order = replay.applied.get(label, 0) + 1
                self.nts.append((label, replay.buffer, order))
                replay.applied[label] = order
                replay.stack.append(("nt", label, replay.buffer, order))
            else:
                replay.apply(action, [])
        self.constituents = replay.built

    def rank(self, label: str, order) -> int | None:
        """Index in the static order of the gold non-terminal numbered ``order`` of ``label``."""
        for index, (gold_label, _, gold_order) in enumerate(self.nts):
            if gold_label == label and gold_order == order:
                return index
        return None


def before(gold: Gold, first: tuple, second: tuple) -> bool:
    """Open non-terminal ``first`` is (the same as or) earlier than ``second`` in gold order; False if either is wrong."""
    if first[1] == second[1] and first[3] == second[3]:
        return True
    a, b = gold.rank(first[1], first[3]), gold.rank(second[1], second[3])
    return a is not None and b is not None and a < b


def score(history: History, action: str, gold: Gold) -> int:
    """The number of gold constituents reachable after ``action`` minus its penalty (the parser's score)."""
    if not history.stack:
        return len(gold.constituents)
    after = history.copy()
    penalty = after.apply(action, gold.nts)
    if action == "REDUCE" and after.built[-1] not in gold.constituents:
        penalty = 1
    stack, j = after.stack, after.buffer
    reachable = 0
    for constituent in gold.constituents:
        label, l, r, order = constituent
        if constituent in after.built:
            reachable += 1
        elif action != "TERM":
            reachable += j <= l or _stack_allows(stack, j, constituent, gold)
    return reachable - penalty


def _stack_allows(stack: list[tuple], j: int, constituent: tuple, gold: Gold) -> bool:
    label, l, r, order = constituent
    own = ("nt", label, None, order)
    for e in range(len(stack) - 1, -1, -1):
        entry = stack[e]
        if entry[0] == "nt" and entry[1] == label and entry[3] == order:
            if not (stack[e - 1][1] == l and l != j and j <= r):
                return False
            above = all(before(gold, own, other) for other in stack[e + 1:] if other[0] == "nt")
            below = all(before(gold, other, own) for other in stack[: e + 1] if other[0] == "nt")
            return above and below
    for e in range(len(stack) - 1, -1, -1):
        entry = stack[e]
        if entry[0] == "span" and entry[1] == l and l != j and j <= r:
            if e + 1 == len(stack):
                return True
            if stack[e + 1][0] != "nt":
                return False
            return all(before(gold, other, own) for other in stack if other[0] == "nt")
    return False
