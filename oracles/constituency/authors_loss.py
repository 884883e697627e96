"""The in-order dynamic oracle as its authors ran it (Fernández-González & Gómez-Rodríguez 2018, §3.2, §4.3).

Read from the authors' released parser (``num_reachable_constituents`` and
the training loop of ``impl/Kparser.cc`` in danifg/Dynamic-InOrderParser,
the code behind the paper's 92.0 F1) and written here from that reading.
Their oracle does not compute the §3.1 loss: it gives each legal action a
*score*, the number of gold constituents still reachable after the action
minus two penalties, and trains towards the best-scoring actions. The rules,
with where they depart from the paper's text:

1. **Identity of a non-terminal** (the paper's footnote 2 numbers repeated
   non-terminals apart). The k-th ``PJ(X)`` *ever applied* in the sentence
   (reduced ones included, wrong ones included) is the gold non-terminal of
   the k-th gold ``PJ(X)`` of the static sequence (Figure 5) if that one was
   pushed at the same buffer position, else it is wrong. So after one wrong
   or skipped ``PJ(X)`` the later X's match only by coincidence of count and
   position, and re-opening a gold span already built is wrong. The paper
   matches the k-th open ``(X, j)`` on the stack instead.
2. **Built gold constituents** count only if built with their gold identity
   (same label, identity, start and end).
3. **Condition (iii)** follows the paper's prose, not its formula: a gold
   constituent whose non-terminal is not open is reachable when a completed
   stack item starts at its start l and that item is the top of the stack,
   or sits directly below an open non-terminal (its first child is "a
   totally- or partially-built constituent on top of the stack").
4. **Out of order** (the paper's LIS term, §3.1): none. Instead, in case
   (iii) with an open non-terminal above the item, *every* open non-terminal
   must be gold and come before the constituent's own in gold order; in case
   (iv) (its own non-terminal is open, and the item below it starts at l)
   every open non-terminal below it must be gold and earlier in gold order,
   every one above it gold and later.
5. **Penalties**: 1 for a ``PJ(X)`` that is wrong by rule 1 (the paper's
   ``|α_c \\ α_G|``), and 1 for a ``REDUCE`` that builds a constituent that
   is not gold by rules 1-2 (the paper: neutral; its cost shows only
   through what becomes unreachable).
6. Gold constituents wholly in the buffer are reachable (condition ii);
   ``TERM`` scores only the gold constituents built.

Choice: the training loop takes as optimal the actions whose score equals
the largest score, *floored at 0*: when every legal action scores below 0
no action is optimal and the loop trains towards the first legal action
(in its action dictionary's order; here :meth:`ConstituencySystem.legal_actions`
order), see :func:`authors_choice`. :class:`AuthorsCosts` gives costs relative
to the best score (``best - score``), so some action always costs 0.

Identities are read off the configuration, not a history: every
non-terminal applied is open on the stack or built, a built constituent's
position is the end of its first child (the last constituent built before
it with the same start, else the word there), and non-terminals are applied
in order of position, those at one position in the order they were built,
an open one last.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from .gold_index import GoldIndex
from .system import Configuration, ConstituencySystem, Open, span_of

__all__ = ["AuthorsCosts", "authors_choice", "nonterminal_identities"]


class _GoldNT(NamedTuple):
    """A gold non-terminal: its rank in the static sequence, the buffer position of its ``PJ``, its span."""

    rank: int
    position: int
    start: int
    end: int


def gold_nonterminals(gold: GoldIndex) -> dict[str, list[_GoldNT]]:
    """Per label, the gold non-terminals in the order the static sequence (Figure 5) applies them."""
    out: dict[str, list[_GoldNT]] = {}
    for rank, node in enumerate(gold.nonterminals):
        out.setdefault(node.label, []).append(_GoldNT(rank, gold.nt_position(node), node.start, node.end))
    return out


def nonterminal_identities(config: Configuration, by_label: dict[str, list[_GoldNT]]
                           ) -> tuple[list[_GoldNT | None], list[_GoldNT | None], dict[str, int]]:
    """Rule 1 (module doc): the gold non-terminal (or None) of each built constituent (``config.built`` order)
    and of each open non-terminal (stack order), and how many ``PJ(X)`` were applied per label."""
    last_end: dict[int, int] = {}
    applied: list[tuple[int, int, int, str, bool]] = []  # (position, phase, index, label, open)
    for index, (label, start, end) in enumerate(config.built):
        applied.append((last_end.get(start, start + 1), 0, index, label, False))
        last_end[start] = end
    for index, item in enumerate(config.stack):
        if type(item) is Open:
            applied.append((item.position, 1, index, item.label, True))
    applied.sort()
    built_ids: list[_GoldNT | None] = [None] * len(config.built)
    open_ids: dict[int, _GoldNT | None] = {}
    counts: dict[str, int] = {}
    for position, _, index, label, is_open in applied:
        k = counts.get(label, 0)
        counts[label] = k + 1
        candidates = by_label.get(label, ())
        identity = candidates[k] if k < len(candidates) and candidates[k].position == position else None
        if is_open:
            open_ids[index] = identity
        else:
            built_ids[index] = identity
    return built_ids, [open_ids[k] for k in sorted(open_ids)], counts


def authors_choice(scores: dict[str, int]) -> list[str]:
    """The actions the authors' training loop treats as optimal: those scoring the largest score floored at 0;
    when every score is negative, none is, and the loop follows the first legal action (module doc)."""
    best = max(0, max(scores.values()))
    optimal = [action for action, score in scores.items() if score == best]
    return optimal or [next(iter(scores))]


class _After(NamedTuple):
    """What the reachability rules read of the stack after an action."""

    starts: dict[int, int]  # start -> stack index of each completed item
    opens: list[tuple[int, _GoldNT | None]]  # (stack index, identity) of each open non-terminal
    below: dict[int, int]  # stack index of an open non-terminal -> start of the item below it
    top: int  # index of the top item


class AuthorsCosts:
    """The authors' score of every legal in-order action (module doc), and costs ``best score - score``."""

    def __init__(self, system: ConstituencySystem, gold: GoldIndex, labels: Sequence[str]) -> None:
        if not gold.in_order:
            raise ValueError("the authors' dynamic oracle is published for the in-order system only")
        self.system, self.gold, self.labels = system, gold, list(labels)
        self.by_label = gold_nonterminals(gold)
        n = gold.n
        nts = [nt for group in self.by_label.values() for nt in group]
        self.from_count = [sum(1 for nt in nts if nt.start >= j) for j in range(n + 2)]
        self.crossing = [[nt for nt in nts if nt.start < j <= nt.end] for j in range(n + 2)]

    def costs(self, config: Configuration) -> dict[str, int]:
        """Every legal action's cost: the best score minus its score (0 = one of the best)."""
        scores = self.scores(config)
        best = max(scores.values(), default=0)
        return {action: best - score for action, score in scores.items()}

    def scores(self, config: Configuration) -> dict[str, int]:
        """Every legal action's score (legal order; ``PJ`` once per label)."""
        actions = self.system.legal_actions(config, self.labels)
        if not config.stack:
            return dict.fromkeys(actions, self.gold.size)
        built_ids, open_ids, counts = nonterminal_identities(config, self.by_label)
        created = {nt.rank for nt, span in zip(built_ids, config.built)
                   if nt is not None and (nt.start, nt.end) == span[1:]}
        stack, j = config.stack, config.buffer
        items = [(type(item) is Open, _start(item)) for item in stack]
        wrong_pj: int | None = None
        out: dict[str, int] = {}
        for action in actions:
            if action == "TERM":
                out[action] = len(created)
            elif action == "SHIFT":
                out[action] = self._reachable(items + [(False, j)], list(open_ids), j + 1, created)
            elif action == "REDUCE":
                out[action] = self._reduce_score(config, items, open_ids, created)
            else:
                label = action[3:-1]
                k = counts.get(label, 0)
                candidates = self.by_label.get(label, ())
                identity = candidates[k] if k < len(candidates) and candidates[k].position == j else None
                if identity is None and wrong_pj is not None:
                    out[action] = wrong_pj
                    continue
                score = self._reachable(items + [(True, j)], open_ids + [identity], j, created)
                if identity is None:
                    wrong_pj = score = score - 1
                out[action] = score
        return out

    def _reduce_score(self, config: Configuration, items: list, open_ids: list, created: set) -> int:
        """REDUCE builds the topmost open non-terminal over the items above it and the first child below it."""
        k = max(index for index, (is_open, _) in enumerate(items) if is_open)
        identity = open_ids[-1]
        start, j = items[k - 1][1], config.buffer
        gold_built = identity is not None and (identity.start, identity.end) == (start, j)
        after = created | {identity.rank} if gold_built else created
        return self._reachable(items[: k - 1] + [(False, start)], open_ids[:-1], j, after) - (not gold_built)

    def _reachable(self, items: list[tuple[bool, int]], open_ids: list, j: int, created: set) -> int:
        """Gold constituents reachable once the stack is ``items`` ((open?, start or position) each) at buffer j."""
        opens = list(zip([index for index, (is_open, _) in enumerate(items) if is_open], open_ids))
        starts = {start: index for index, (is_open, start) in enumerate(items) if not is_open}
        after = _After(starts, opens, {index: items[index - 1][1] for index, _ in opens}, len(items) - 1)
        total = len(created) + self.from_count[j]
        for nt in self.crossing[j]:
            if nt.rank not in created and _reachable_crossing(nt, after, items):
                total += 1
        return total


def _start(item) -> int:
    """An item's start (a completed item) or its position (an open non-terminal)."""
    return item.position if type(item) is Open else span_of(item)[0]


def _reachable_crossing(nt: _GoldNT, after: _After, items: list[tuple[bool, int]]) -> bool:
    """Rules 3-4 (module doc) for a gold constituent not built with l < j <= r."""
    for position, (index, identity) in enumerate(after.opens):
        if identity is not None and identity.rank == nt.rank:  # its own non-terminal is open (iv)
            if after.below[index] != nt.start:
                return False
            before, later = after.opens[:position], after.opens[position + 1:]
            return (all(i is not None and i.rank < nt.rank for _, i in before)
                    and all(i is not None and i.rank > nt.rank for _, i in later))
    index = after.starts.get(nt.start)
    if index is None:
        return False
    if index == after.top:
        return True
    if not items[index + 1][0]:
        return False
    return all(i is not None and i.rank < nt.rank for _, i in after.opens)
