"""The interface of the constituency transition systems (Fernández-González & Gómez-Rodríguez 2018, §2).

:class:`ConstituencySystem` is the constituency family of
``treetool.oracles.base.BaseSystem`` (which gives it ``run``, ``replay`` and
the errors it raises).

A configuration is the paper's ``<Σ, i, f, γ, α>`` without α (the open
non-terminals on the stack are α's live part; the others are in γ):

* ``stack``: bottom .. top, each item one of
  :class:`Word` (a shifted word ``i``), :class:`Open` (a non-terminal pushed
  by ``NT(X)`` / ``PJ(X)``, not yet reduced) or :class:`Built` (a completed
  constituent);
* ``buffer``: the index of the next word (words ``buffer .. n-1`` are unread);
* ``n``: the number of words;
* ``built``: every constituent built so far, ``(label, start, end)`` in the
  order of building (a tuple, so a multiset: duplicates are kept);
* ``finished``: in-order's flag, set by ``TERM`` (always False for top-down).

Actions are strings: ``SHIFT``, ``REDUCE``, ``NT(X)`` (top-down), ``PJ(X)`` and
``TERM`` (in-order). :meth:`ConstituencySystem.legal` returns the *kinds*
(``"SHIFT"``, ``"NT"``, ``"PJ"``, ``"REDUCE"``, ``"TERM"``) in a fixed order: a
labelled kind (``NT``/``PJ``) stands for that action with any label.

A gold tree is a :class:`~treetool.oracles.constituency.tree.Node` (``from_nltk``).
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import Any, Callable, Iterable, NamedTuple, Union

from ..base import BaseSystem
from ..errors import IllegalAction
from .oracle_walk import OracleWalk, oracle_walk
from .text_walk import TextOracle
from .tree import Node, Span

__all__ = [
    "Word", "Open", "Built", "Item", "Configuration", "ConstituencySystem", "parse_action", "LABELLED_KINDS",
]


class Word(NamedTuple):
    """A shifted word: span ``(index, index+1)``."""

    index: int


class Open(NamedTuple):
    """A non-terminal on the stack, not yet reduced.

    ``position`` is the buffer index when it was pushed (the paper's ``(X, j)``):
    for top-down the start of the constituent it will become, for in-order
    the start of its second child (its first child is the item below it).
    """

    label: str
    position: int


class Built(NamedTuple):
    """A completed constituent ``(label, start, end)``.

    ``unary`` is the number of unary nodes chained at its top: in-order's
    Kparser counts them (a ``REDUCE`` right after ``PJ`` builds a unary node:
    ``unary`` = the child's + 1; any other ``REDUCE``: 0). Top-down keeps 0.
    """

    label: str
    start: int
    end: int
    unary: int = 0


Item = Union[Word, Open, Built]

#: Action kinds that carry a non-terminal label.
LABELLED_KINDS = frozenset({"NT", "PJ"})

_SPELLING = re.compile(r"(SHIFT|REDUCE|TERM)|(NT|PJ)\((.+)\)")


def parse_action(action: str) -> tuple[str, str | None]:
    """``"NT(NP)" -> ("NT", "NP")``, ``"SHIFT" -> ("SHIFT", None)``; anything else is :class:`IllegalAction`."""
    match = _SPELLING.fullmatch(action) if isinstance(action, str) else None
    if match is None:
        raise IllegalAction(str(action), "not a constituency action (SHIFT, REDUCE, TERM, NT(X), PJ(X))")
    if match.group(1):
        return match.group(1), None
    return match.group(2), match.group(3)


class Configuration(NamedTuple):
    """An immutable parser configuration (hashable, for searches).

    A named tuple rather than a frozen dataclass: a walk makes one per step,
    and a frozen dataclass sets each field through ``object.__setattr__``
    (2% of an in-order ``--loss paper`` annotate run).
    """

    stack: tuple[Item, ...]
    buffer: int
    n: int
    built: tuple[Span, ...] = ()
    finished: bool = False

    def open_count(self) -> int:
        """How many non-terminals are open on the stack."""
        return sum(1 for item in self.stack if type(item) is Open)


def span_of(item: Item) -> tuple[int, int]:
    """Start and end of a completed stack item (a word or a built constituent)."""
    if type(item) is Word:
        return item.index, item.index + 1
    if type(item) is Built:
        return item.start, item.end
    raise TypeError("an open non-terminal has no span yet")


class ConstituencySystem(BaseSystem[Configuration]):
    """Base class of the constituency systems: ``initial``, ``legal``, ``apply``, ``is_final``, static oracle."""

    #: The kind of the labelled action: ``"NT"`` (top-down) or ``"PJ"`` (in-order).
    nonterminal_kind: str = "NT"
    #: Whether ``NT(X)`` / ``PJ(X)`` comes before X's children (top-down) or after its first child (in-order).
    label_first: bool = True

    def initial(self, n: int) -> Configuration:
        """Empty stack, all ``n`` words in the buffer."""
        if n < 1:
            raise ValueError("a sentence has at least one word")
        return Configuration((), 0, n)

    @abstractmethod
    def legal(self, config: Configuration) -> list[str]:
        """The legal action kinds in a fixed order (``NT``/``PJ`` stand for any label)."""

    @abstractmethod
    def static_oracle(self, gold: Node) -> list[str] | None:
        """The paper's static sequence for ``gold``, or ``None`` when the rules forbid it."""

    def bracket_oracle(self, tree: Any) -> OracleWalk:
        """:meth:`static_oracle` straight from a bracket tree as the PTB reader builds it, with the tree's text,
        tags and words from the same walk (:mod:`.oracle_walk`); ``actions`` is ``None`` when the rules forbid
        the sequence. What ``treetool oracle`` writes, without building the :class:`Node` tree."""
        return self.judged(oracle_walk(tree, self.nonterminal_kind, self.label_first))

    def text_oracle(self, drop_traces: bool, strip_functions: bool,
                    remove_wrapper: bool) -> Callable[[str], OracleWalk | None]:
        """:meth:`bracket_oracle` from the text of one tree, cleaned with these PTB reader options, or ``None``
        for a text left to the reader (:mod:`.text_walk`): the fast path of ``treetool oracle``."""
        read = TextOracle(self.nonterminal_kind, self.label_first, drop_traces, strip_functions, remove_wrapper)

        def text_oracle(text: str) -> OracleWalk | None:
            walk = read(text)
            return None if walk is None else self.judged(walk)

        return text_oracle

    @abstractmethod
    def judged(self, walk: OracleWalk) -> OracleWalk:
        """The sequence of ``walk`` as the system writes it, its actions ``None`` when the rules forbid it."""

    def legal_actions(self, config: Configuration, labels: Iterable[str]) -> list[str]:
        """Every legal action spelled out, ``NT``/``PJ`` once per label of ``labels`` (in their order)."""
        out: list[str] = []
        for kind in self.legal(config):
            if kind in LABELLED_KINDS:
                out.extend(f"{kind}({label})" for label in labels)
            else:
                out.append(kind)
        return out

    def apply(self, config: Configuration, action: str) -> Configuration:
        """The configuration after ``action``; :class:`IllegalAction` if it is not legal in ``config``."""
        kind, label = parse_action(action)
        if kind not in self.legal(config):
            raise IllegalAction(action, f"not legal here (legal: {', '.join(self.legal(config)) or 'none'})")
        return self.successor(config, kind, label)

    def successor(self, config: Configuration, kind: str, label: str | None) -> Configuration:
        """The configuration after the parsed action ``(kind, label)``, which must be legal (:meth:`apply` checks;
        a caller that has just computed the legal actions skips the second check)."""
        if kind == "SHIFT":
            return Configuration(config.stack + (Word(config.buffer),), config.buffer + 1, config.n, config.built,
                                 config.finished)
        if kind in LABELLED_KINDS:
            return Configuration(config.stack + (Open(label, config.buffer),), config.buffer, config.n, config.built,
                                 config.finished)
        if kind == "REDUCE":
            return self._reduce(config)
        return config._replace(finished=True)  # TERM

    @abstractmethod
    def _reduce(self, config: Configuration) -> Configuration:
        """Pop the children and their open non-terminal, push the built constituent."""

    def can_derive(self, gold: Node) -> bool:
        """True when some computation builds exactly ``gold`` (the static sequence is the only candidate)."""
        return self.static_oracle(gold) is not None


def last_open(stack: tuple[Item, ...]) -> int:
    """Index in ``stack`` of the topmost open non-terminal (-1 if none)."""
    for k in range(len(stack) - 1, -1, -1):
        if type(stack[k]) is Open:
            return k
    return -1
