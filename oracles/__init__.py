"""Transition systems with their static oracles and an exhaustive reference search.

>>> from treetool.oracles import get_system
>>> system = get_system("arc-standard")
>>> system.static_oracle([-1, 2, 0], ["", "nsubj", "root"])
['SH', 'SH', 'LA(nsubj)', 'RA(root)']

The interface is in :mod:`treetool.oracles.system`; one module per family of systems
(:mod:`~treetool.oracles.attardi` with :mod:`~treetool.oracles.arc_standard`,
:mod:`~treetool.oracles.arc_hybrid`, :mod:`~treetool.oracles.arc_eager`, :mod:`~treetool.oracles.swap`);
the exhaustive search in :mod:`treetool.oracles.search`; the published dynamic oracles in
:mod:`treetool.oracles.dynamic`, :mod:`treetool.oracles.nederhof` (arc-standard) and, for attardi of degree 2,
:mod:`treetool.oracles.tabular_loss`
(``system.dynamic_oracle(gold_heads, gold_labels)``).
For a training loop: the action vocabulary, cost vectors and legal masks in
:mod:`~treetool.oracles.vocabulary` (``system.actions(labels)``), the children
of words so far in :mod:`~treetool.oracles.features`, the root positions and
the checks of configurations in :mod:`~treetool.oracles.layout`.
"""

import importlib
from typing import Any

#: Where each name of the package lives: a name is imported from its module on first use (PEP 562), so that
#: ``import treetool.oracles.constituency`` (or any one module) does not load every system, numpy and the searches.
_HOME = {
    "Explore": "annotate",
    "Predicted": "annotate",
    "Static": "annotate",
    "Step": "annotate",
    "annotate_sentence": "annotate",
    "Action": "system",
    "ActionKinds": "vocabulary",
    "ActionVocabulary": "vocabulary",
    "ArcEager": "arc_eager",
    "ArcEagerOracle": "dynamic",
    "ArcHybrid": "arc_hybrid",
    "ArcHybridOracle": "dynamic",
    "ArcStandard": "arc_standard",
    "Attardi": "attardi",
    "AttardiDegree2Oracle": "tabular_loss",
    "Budget": "search",
    "BudgetExceeded": "search",
    "Children": "features",
    "Configuration": "system",
    "ConfigurationMismatch": "layout",
    "DynamicOracle": "system",
    "ExactOracle": "search",
    "ExhaustiveSearch": "search",
    "ILLEGAL": "vocabulary",
    "IllegalAction": "system",
    "IncompleteDerivation": "system",
    "MAX_DEGREE": "attardi",
    "NederhofOracle": "nederhof",
    "NM_VARIANTS": "arc_eager",
    "NonMonotonicArcEager": "arc_eager",
    "NonMonotonicArcEagerOracle": "dynamic",
    "OracleUnavailable": "system",
    "REDUCE_MODES": "arc_eager",
    "ROOT_POSITIONS": "layout",
    "SWAP_ORDERS": "swap",
    "SYSTEMS": "system",
    "SearchError": "search",
    "StrategyRestriction": "nederhof",
    "Swap": "swap",
    "SystemSpecError": "system",
    "TabularLoss": "tabular_loss",
    "TransitionSystem": "system",
    "canonical_oracle": "attardi",
    "derivable": "search",
    "disagreement": "dynamic",
    "exact_costs": "search",
    "exploring_walk": "dynamic",
    "format_action": "system",
    "get_system": "system",
    "has_own_static_oracle": "system",
    "load_system": "system",
    "make_system": "system",
    "min_degree": "attardi",
    "min_loss": "search",
    "parse_action": "system",
    "reachable_trees": "search",
    "search_oracle": "search",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])


__all__ = [
    "Explore",
    "Predicted",
    "Static",
    "Step",
    "annotate_sentence",
    "Action",
    "ActionKinds",
    "ActionVocabulary",
    "ArcEager",
    "ArcEagerOracle",
    "ArcHybrid",
    "ArcHybridOracle",
    "ArcStandard",
    "Attardi",
    "AttardiDegree2Oracle",
    "Budget",
    "BudgetExceeded",
    "Children",
    "Configuration",
    "ConfigurationMismatch",
    "DynamicOracle",
    "ExactOracle",
    "ExhaustiveSearch",
    "ILLEGAL",
    "IllegalAction",
    "IncompleteDerivation",
    "MAX_DEGREE",
    "NederhofOracle",
    "NM_VARIANTS",
    "NonMonotonicArcEager",
    "NonMonotonicArcEagerOracle",
    "OracleUnavailable",
    "REDUCE_MODES",
    "ROOT_POSITIONS",
    "SWAP_ORDERS",
    "SYSTEMS",
    "SearchError",
    "StrategyRestriction",
    "Swap",
    "SystemSpecError",
    "TabularLoss",
    "TransitionSystem",
    "canonical_oracle",
    "derivable",
    "disagreement",
    "exact_costs",
    "exploring_walk",
    "format_action",
    "get_system",
    "has_own_static_oracle",
    "load_system",
    "make_system",
    "min_degree",
    "min_loss",
    "parse_action",
    "reachable_trees",
    "search_oracle",
]
