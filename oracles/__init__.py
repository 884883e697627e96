"""Transition systems with their static oracles and an exhaustive reference search.

>>> from treetool.oracles import get_system
>>> system = get_system("arc-standard")
>>> system.static_oracle([-1, 2, 0], ["", "nsubj", "root"])
['SH', 'SH', 'LA(nsubj)', 'RA(root)']

The contract shared with the constituency systems is in :mod:`treetool.oracles.base` (errors in
:mod:`treetool.oracles.errors`); the dependency interface in :mod:`treetool.oracles.system` (configurations and
action spellings in :mod:`treetool.oracles.configuration`); one module per family of systems
(:mod:`~treetool.oracles.attardi` with :mod:`~treetool.oracles.arc_standard` and their canonical oracle
:mod:`~treetool.oracles.canonical`,
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
    "Action": "configuration",
    "ActionKinds": "vocabulary",
    "ActionVocabulary": "vocabulary",
    "ArcEager": "arc_eager",
    "ArcEagerOracle": "dynamic",
    "ArcHybrid": "arc_hybrid",
    "ArcHybridOracle": "dynamic",
    "ArcStandard": "arc_standard",
    "Attardi": "attardi",
    "AttardiDegree2Oracle": "tabular_loss",
    "BaseSystem": "base",
    "Children": "features",
    "Configuration": "configuration",
    "ConfigurationMismatch": "errors",
    "DynamicOracle": "configuration",
    "ExactOracle": "search",
    "ExhaustiveSearch": "search",
    "Explore": "annotate",
    "ILLEGAL": "vocabulary",
    "IllegalAction": "errors",
    "IncompleteDerivation": "errors",
    "InvalidGoldTree": "errors",
    "MAX_DEGREE": "canonical",
    "NM_VARIANTS": "arc_eager",
    "NederhofOracle": "nederhof",
    "NonMonotonicArcEager": "arc_eager",
    "NonMonotonicArcEagerOracle": "dynamic",
    "OracleError": "errors",
    "OracleSpec": "spec",
    "OracleUnavailable": "errors",
    "Predicted": "annotate",
    "REDUCE_MODES": "arc_eager",
    "ROOT_POSITIONS": "layout",
    "SEARCH_ONLY": "spec",
    "SWAP_ORDERS": "swap",
    "SYSTEMS": "registry",
    "SearchError": "search",
    "Static": "annotate",
    "Step": "annotate",
    "StrategyRestriction": "nederhof",
    "Swap": "swap",
    "SystemSpecError": "errors",
    "TabularLoss": "tabular_loss",
    "TransitionSystem": "system",
    "annotate_sentence": "annotate",
    "canonical_oracle": "canonical",
    "derivable": "search",
    "disagreement": "dynamic",
    "exact_costs": "search",
    "exploring_walk": "dynamic",
    "format_action": "configuration",
    "get_system": "registry",
    "load_system": "registry",
    "make_system": "registry",
    "min_degree": "canonical",
    "min_loss": "search",
    "parse_action": "configuration",
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
    "BaseSystem",
    "Children",
    "Configuration",
    "ConfigurationMismatch",
    "DynamicOracle",
    "ExactOracle",
    "ExhaustiveSearch",
    "Explore",
    "ILLEGAL",
    "IllegalAction",
    "IncompleteDerivation",
    "InvalidGoldTree",
    "MAX_DEGREE",
    "NM_VARIANTS",
    "NederhofOracle",
    "NonMonotonicArcEager",
    "NonMonotonicArcEagerOracle",
    "OracleError",
    "OracleSpec",
    "OracleUnavailable",
    "Predicted",
    "REDUCE_MODES",
    "ROOT_POSITIONS",
    "SEARCH_ONLY",
    "SWAP_ORDERS",
    "SYSTEMS",
    "SearchError",
    "Static",
    "Step",
    "StrategyRestriction",
    "Swap",
    "SystemSpecError",
    "TabularLoss",
    "TransitionSystem",
    "annotate_sentence",
    "canonical_oracle",
    "derivable",
    "disagreement",
    "exact_costs",
    "exploring_walk",
    "format_action",
    "get_system",
    "load_system",
    "make_system",
    "min_degree",
    "min_loss",
    "parse_action",
    "reachable_trees",
    "search_oracle",
]
