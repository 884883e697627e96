"""Transition systems with their static oracles and an exhaustive reference search.

>>> from oracles import get_system
>>> system = get_system("arc-standard")
>>> system.static_oracle([-1, 2, 0], ["", "nsubj", "root"])
['SH', 'SH', 'LA(nsubj)', 'RA(root)']

The interface is in :mod:`oracles.system`; one module per family of systems
(:mod:`~oracles.attardi` with :mod:`~oracles.arc_standard`,
:mod:`~oracles.arc_hybrid`, :mod:`~oracles.arc_eager`, :mod:`~oracles.swap`);
the exhaustive search in :mod:`oracles.search`; the published dynamic oracles in
:mod:`oracles.dynamic`, :mod:`oracles.nederhof` (arc-standard) and, for attardi of degree 2,
:mod:`oracles.tabular_loss`
(``system.dynamic_oracle(gold_heads, gold_labels)``).
"""

from .annotate import Explore, Predicted, Static, Step, annotate_sentence
from .arc_eager import NM_VARIANTS, REDUCE_MODES, ArcEager, NonMonotonicArcEager
from .arc_hybrid import ArcHybrid
from .arc_standard import ArcStandard
from .attardi import MAX_DEGREE, Attardi, canonical_oracle, min_degree
from .nederhof import NederhofOracle, StrategyRestriction
from .dynamic import ArcEagerOracle, ArcHybridOracle, NonMonotonicArcEagerOracle, disagreement, exploring_walk
from .search import (
    Budget,
    BudgetExceeded,
    ExactOracle,
    ExhaustiveSearch,
    SearchError,
    derivable,
    exact_costs,
    min_loss,
    reachable_trees,
    search_oracle,
)
from .swap import SWAP_ORDERS, Swap
from .tabular_loss import AttardiDegree2Oracle, TabularLoss
from .system import (
    SYSTEMS,
    Action,
    Configuration,
    DynamicOracle,
    IllegalAction,
    IncompleteDerivation,
    OracleUnavailable,
    SystemSpecError,
    TransitionSystem,
    format_action,
    get_system,
    has_own_static_oracle,
    load_system,
    make_system,
    parse_action,
)

__all__ = [
    "Explore",
    "Predicted",
    "Static",
    "Step",
    "annotate_sentence",
    "Action",
    "ArcEager",
    "ArcEagerOracle",
    "ArcHybrid",
    "ArcHybridOracle",
    "ArcStandard",
    "Attardi",
    "AttardiDegree2Oracle",
    "Budget",
    "BudgetExceeded",
    "Configuration",
    "DynamicOracle",
    "ExactOracle",
    "ExhaustiveSearch",
    "IllegalAction",
    "IncompleteDerivation",
    "MAX_DEGREE",
    "NederhofOracle",
    "NM_VARIANTS",
    "NonMonotonicArcEager",
    "NonMonotonicArcEagerOracle",
    "OracleUnavailable",
    "REDUCE_MODES",
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
