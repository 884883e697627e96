"""One walk over a read bracket tree giving everything an oracle file holds (Fernández-González &
Gómez-Rodríguez 2018, §2, Figures 3 and 5).

``treetool oracle`` needs, for every tree, its one-line text, its POS tags,
its words and its static action sequence. Building the :class:`~.tree.Node`
tree first and walking it again for the sequence costs twice the walk; here
the bracket tree as :mod:`treetool.formats.ptb` reads it is walked once. Both
systems' sequences come from the same depth-first walk: top-down writes
``NT(X)`` when it enters X (Figure 3), in-order writes ``PJ(X)`` once X's
first child is complete (Figure 5); both write ``SHIFT`` for a word and
``REDUCE`` when X closes. The walk also measures what the systems' limits
need (how deep constituents nest, the longest chain of one-child
constituents), so that each system decides whether its sequence is allowed
(:meth:`~.system.ConstituencySystem.bracket_oracle`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .tree import MissingTagError, SinglePreterminalError, is_preterminal

__all__ = ["OracleWalk", "oracle_walk"]


class OracleWalk(NamedTuple):
    """What one walk over a bracket tree found.

    ``deepest``: the most non-terminals open above a constituent (0: the
    root only); ``longest_unary``: the longest chain of nested constituents
    with one child each (``(S (VP (VB go)))`` is 2).
    """

    text: str
    tags: list[str]
    words: list[str]
    actions: list[str]
    deepest: int
    longest_unary: int


def oracle_walk(tree: Any, kind: str, label_first: bool) -> OracleWalk:
    """Walk ``tree`` (a ``ptb.Bracket`` tree as the reader builds it) once; ``kind(X)`` is written before X's
    children (``label_first``, top-down) or after its first child (in-order).

    Depth-first with an explicit stack (bracket, iterator over its other
    children, its label action not yet written): trees nest as deep as the
    reader allows. Raises as :func:`~.tree.from_nltk`
    does (:class:`SinglePreterminalError`; :class:`MissingTagError`, a bare word beside brackets).
    """
    if is_preterminal(tree):
        raise SinglePreterminalError.of(tree)
    tags: list[str] = []
    words: list[str] = []
    actions: list[str] = []
    label = tree._label
    texts = ["(" + label]
    pending: str | None = f"{kind}({label})"  # the label action, until it is written
    if label_first:
        actions.append(pending)
        pending = None
    rest = iter(tree)
    open_: list[tuple[Any, Any, str | None]] = []
    deepest = chain = longest = 0  # chain: the one-child chain ending at the item completed last
    while True:
        for child in rest:
            if type(child) is str:
                raise MissingTagError(f"bracket ({tree.label()} ...) holds a bare word {child!r}: "
                                    "every word needs a POS tag")
            if len(child) == 1 and type(child[0]) is str:  # a preterminal
                tag, word = child._label, child[0]
                tags.append(tag)
                words.append(word)
                texts.append(f" ({tag} {word})")
                actions.append("SHIFT")
                chain = 0
                if pending is not None:
                    actions.append(pending)
                    pending = None
            else:  # a phrase: walk into it
                open_.append((tree, rest, pending))
                if len(open_) > deepest:
                    deepest = len(open_)
                tree, rest = child, iter(child)
                label = child._label
                texts.append(" (" + label)
                pending = f"{kind}({label})"
                if label_first:
                    actions.append(pending)
                    pending = None
                break
        else:  # the bracket closes
            texts.append(")")
            actions.append("REDUCE")
            chain = chain + 1 if len(tree) == 1 else 0
            if chain > longest:
                longest = chain
            if not open_:
                return OracleWalk("".join(texts), tags, words, actions, deepest, longest)
            tree, rest, pending = open_.pop()
            if pending is not None:
                actions.append(pending)
                pending = None
