"""Constituency transition systems (Fernández-González & Gómez-Rodríguez 2018, §2): top-down and in-order.

>>> from nltk import Tree
>>> from treetool.oracles.constituency import get_constituency_system, from_nltk
>>> gold = from_nltk(Tree.fromstring("(S (NP (DT The) (NN cat)) (VP (VBD sat)))"))
>>> get_constituency_system("top-down").static_oracle(gold)
['NT(S)', 'NT(NP)', 'SHIFT', 'SHIFT', 'REDUCE', 'NT(VP)', 'SHIFT', 'REDUCE', 'REDUCE']
>>> get_constituency_system("in-order").static_oracle(gold)
['SHIFT', 'PJ(NP)', 'SHIFT', 'REDUCE', 'PJ(S)', 'SHIFT', 'PJ(VP)', 'REDUCE', 'REDUCE', 'TERM']

The interface is in :mod:`treetool.oracles.constituency.system`, the gold trees in
:mod:`~treetool.oracles.constituency.tree`, one module per system
(:mod:`~treetool.oracles.constituency.top_down`, :mod:`~treetool.oracles.constituency.in_order`)
and the exhaustive search in :mod:`~treetool.oracles.constituency.search`.
"""

from __future__ import annotations

from typing import Any

from ..base import instantiate
from ..errors import SystemSpecError
from .in_order import KPARSER_MAX_UNARY, InOrder
from .system import LABELLED_KINDS, Built, Configuration, ConstituencySystem, Item, Open, Word, parse_action
from .top_down import RNNG_MAX_OPEN_NTS, TopDown
from .tree import GoldTreeError, MissingTagError, Node, SinglePreterminalError, Span, from_nltk, postorder, preorder

CONSTITUENCY_SYSTEMS: dict[str, type[ConstituencySystem]] = {"top-down": TopDown, "in-order": InOrder}
"""Constituency system names -> classes."""


def get_constituency_system(name: str, **options: Any) -> ConstituencySystem:
    """A constituency system by name (options: ``max_open_nts`` for top-down, ``max_unary`` for in-order).

    An unknown name or option is a :class:`~treetool.oracles.errors.SystemSpecError`.
    """
    if name not in CONSTITUENCY_SYSTEMS:
        raise SystemSpecError(f"unknown constituency system {name!r} (choose from {', '.join(CONSTITUENCY_SYSTEMS)})")
    return instantiate(CONSTITUENCY_SYSTEMS[name], name, options)


__all__ = [
    "CONSTITUENCY_SYSTEMS", "get_constituency_system", "TopDown", "InOrder", "RNNG_MAX_OPEN_NTS",
    "KPARSER_MAX_UNARY", "ConstituencySystem", "Configuration", "Word", "Open", "Built", "Item", "parse_action",
    "LABELLED_KINDS", "Node", "Span", "GoldTreeError", "MissingTagError",
    "SinglePreterminalError", "from_nltk", "postorder", "preorder",
]
