"""Dependency configurations, the spelling of transitions, and what systems, oracles and searches share.

Conventions (fixed project-wide):

* Token 0 is the artificial root. A gold tree is ``gold_heads`` (n+1 ints,
  ``gold_heads[0] == -1``) and optionally ``gold_labels`` (n+1 strings,
  ``gold_labels[0] == ""``).
* A :class:`Configuration` holds the stack (bottom .. top), the buffer (front
  first), the heads built so far (-1: no head yet) and, when labelled, the
  labels built so far (the contract of ``treetool.oracles.base``).
* Transitions are spelled as strings: ``SH`` shift, ``LA`` left-arc (the head
  is the right item), ``RA`` right-arc (the head is the left item), ``RE``
  reduce, ``SW`` swap, ``LAk`` / ``RAk`` (k >= 2) Attardi reductions of degree
  k; a labelled transition adds its label: ``LA(nsubj)``, ``RA2(obj)``.
  :func:`parse_action` and :func:`format_action` are the only places that
  know the spelling.

Below the systems (``treetool.oracles.system``) and the exhaustive search
(``treetool.oracles.search``), which both import it: :class:`SearchableSystem`
is what the search needs of a system, :class:`DynamicOracle` what every
oracle offers.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from treetool.tree_check import check_tree

from .errors import IllegalAction, InvalidGoldTree

Action = str

__all__ = [
    "Action",
    "Configuration",
    "new_configuration",
    "DynamicOracle",
    "SearchableSystem",
    "parse_action",
    "format_action",
    "with_label",
    "attach",
    "as_heads",
    "gold_tree",
    "no_arcs",
]


class Configuration(NamedTuple):
    """An immutable parser configuration (hashable, so searches can memoise on it).

    A named tuple rather than a frozen dataclass: a walk builds one per
    transition, and a tuple is built and hashed in C (about half the time).
    """

    stack: tuple[int, ...]  # bottom .. top (s0 is stack[-1])
    buffer: tuple[int, ...]  # front first (b0 is buffer[0])
    heads: tuple[int, ...]  # n+1 entries, heads[0] = -1, -1 = no head yet
    labels: tuple[str | None, ...] | None = None  # n+1 entries when labelled

    @property
    def n(self) -> int:
        """Number of words (the root 0 not counted)."""
        return len(self.heads) - 1


new_configuration: Callable[[tuple[Any, ...]], Configuration] = functools.partial(tuple.__new__, Configuration)
"""A :class:`Configuration` from its four fields in one tuple, unchecked, made in C: the named tuple's own
``__new__`` is Python code, and a walk makes a configuration at every step."""


class DynamicOracle(Protocol):
    """Costs of actions in any configuration, for one gold tree (one sentence).

    Definitions (Gómez-Rodríguez, Sartorio & Satta 2014, §2.2): the loss of a configuration is the
    smallest number of wrong words (wrong head; with gold labels, or wrong
    label) over the final configurations reachable from it; the cost of a
    legal action is the loss after it minus the loss before it.

    Keys of :meth:`costs` are the spellings of ``legal(config)`` when the
    oracle has no gold labels; with gold labels an action that attaches a
    word is keyed by its spelling labelled with that word's gold label
    (``"LA(nsubj)"``, nm-arc-eager's attaching ``"RE(obj)"``), its best
    labelling. Costs are ints. An oracle may keep bookkeeping along a walk
    (successive calls on successive configurations) but answers correctly on
    any configuration.
    """

    def costs(self, config: Configuration) -> dict[Action, int]:
        """The cost of every legal action of ``config``, and of no other."""
        ...

    def optimal(self, config: Configuration) -> list[Action]:
        """The actions of cost 0, in the order of :meth:`costs` (``legal()`` order; keys spelled as in
        :meth:`costs`), or a preferred part of them under an option the system's ``oracle_spec`` lists as
        ``narrowing``."""
        ...


# --------------------------------------------------------------------------
# action spelling
# --------------------------------------------------------------------------

_SPELLING = re.compile(r"([A-Z]+)([0-9]*)(?:\((.+)\))?")


@functools.lru_cache(maxsize=8192)
def parse_action(action: Action) -> tuple[str, int, str | None]:
    """Split a spelling into ``(kind, degree, label)``: ``"RA2(obj)" -> ("RA", 2, "obj")``.

    ``degree`` is 1 unless a number follows the kind (``LA1`` is ``LA``);
    ``label`` is ``None`` for an unlabelled spelling. A malformed spelling
    raises :class:`IllegalAction`.
    """
    match = _SPELLING.fullmatch(action) if isinstance(action, str) else None
    if match is None:
        raise IllegalAction(str(action), "not a transition spelling (e.g. SH, LA, RA2, LA(nsubj))")
    kind, digits, label = match.groups()
    degree = int(digits) if digits else 1
    if degree < 1:
        raise IllegalAction(action, "the degree of a reduction is at least 1")
    return kind, degree, label


def format_action(kind: str, degree: int = 1, label: str | None = None) -> Action:
    """The canonical spelling: degree shown only when >= 2, label in parentheses."""
    text = kind if degree == 1 else f"{kind}{degree}"
    return text if label is None else f"{text}({label})"


def with_label(action: Action, label: str | None) -> Action:
    """``action`` respelled with ``label`` (``None`` drops the label)."""
    kind, degree, _ = parse_action(action)
    return format_action(kind, degree, label)


def attach(
    config: Configuration, dep: int, head: int, label: str | None
) -> tuple[tuple[int, ...], tuple[str | None, ...] | None]:
    """New ``(heads, labels)`` of ``config`` with the arc ``head -> dep`` (replacing any old one).

    Copied through a list, changed in place: two copies, not the four tuples of slices and concatenations (a walk
    makes a new head tuple at every arc)."""
    heads = list(config.heads)
    heads[dep] = head
    labels = config.labels
    if labels is not None:
        labels = list(labels)
        labels[dep] = label
        labels = tuple(labels)
    return tuple(heads), labels


def no_arcs(n: Any, labeled: bool) -> tuple[tuple[int, ...], tuple[None, ...] | None]:
    """The heads and labels of an initial configuration of ``n`` words: none built yet (every system's ``initial``).

    ``n`` must be a non-negative int (numpy's too): ``-1`` would give a
    configuration without even the root and ``"3"`` a TypeError about str
    concatenation, so ``initial`` calls this before anything else.
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"n, the number of words, must be a non-negative int, not {n!r}") from None
    if n < 0:
        raise ValueError(f"n, the number of words, must be a non-negative int, not {n}")
    return (-1,) * (n + 1), (None,) * (n + 1) if labeled else None


def as_heads(gold_heads: Any) -> list[int]:
    """``gold_heads`` as a plain list of ints (numpy arrays included), for tight loops."""
    if isinstance(gold_heads, list):
        return gold_heads
    if hasattr(gold_heads, "tolist"):
        return gold_heads.tolist()
    return [int(h) for h in gold_heads]


def gold_tree(gold_heads: Any, gold_labels: Any = None) -> tuple[list[int], list[str] | None]:
    """The gold tree as plain lists, checked: the one check every oracle makes before it builds anything.

    An oracle given a head list that is not a tree would answer for
    something that is not the gold tree (a cycle gets cost-0 paths) or fail
    mid-walk with a bare ``IndexError``, so every static and dynamic oracle
    and exact search calls this once per sentence (O(n); a few microseconds
    for 25 words: ``treetool.tree_check``). :class:`InvalidGoldTree` (a
    ``ValueError``) names the fault: a head out of range, a cycle,
    ``heads[0] != -1``, or another number of labels than heads; a head that
    is not an integer raises ``TypeError``.
    """
    heads = as_heads(gold_heads)
    try:
        check_tree(heads)
    except ValueError as err:
        raise InvalidGoldTree(f"the gold heads are not a tree: {err}") from None
    if gold_labels is None:
        return heads, None
    labels = list(gold_labels)
    if len(labels) != len(heads):
        raise InvalidGoldTree(f"{len(labels)} labels for {len(heads)} heads (both count the root 0)")
    return heads, labels


class SearchableSystem(Protocol):
    """What the exhaustive search reads of a dependency system: the four rules and two declarations.

    Every ``treetool.oracles.system.TransitionSystem`` is one. The two
    declarations (both ``False`` unless the system says otherwise, which is
    always safe) are documented there: ``monotonic`` and
    ``detached_words_final``.
    """

    monotonic: bool
    detached_words_final: bool

    def initial(self, n: int, labeled: bool = False) -> Configuration: ...

    def legal(self, config: Configuration) -> list[Action]: ...

    def apply(self, config: Configuration, action: Action) -> Configuration: ...

    def is_final(self, config: Configuration) -> bool: ...
