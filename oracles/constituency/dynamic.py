"""Dynamic oracles for the top-down and in-order constituency systems (Fernández-González & Gómez-Rodríguez 2018).

The loss of a configuration c is the smallest Hamming distance (missed gold
constituents plus wrong built ones, as multisets of ``(label, start, end)``)
between the gold tree and the constituents of any final configuration
reachable from c; the cost of an action is the loss after it minus the loss
before it (§3.1). Two ways of computing it:

``paper`` (:func:`paper_loss`)
    The paper's formula (§3.1, §3.2): individually unreachable gold
    constituents + wrong built constituents + wrong non-terminals on the
    stack + ``out_of_order`` (gold non-terminals on the stack minus the
    longest subsequence of them in gold order). Not exact under the real
    parsers' rules: the documentation's Constituency page gives the measured rate and the corners.

``authors`` (:class:`~treetool.oracles.constituency.authors_loss.AuthorsCosts`, in-order only)
    The scores of the authors' released in-order parser (gold constituents
    still reachable after the action, minus their two penalties), as costs
    relative to the best-scoring action: not a loss of the configuration
    (:meth:`ConstituencyOracle.loss` refuses it). Their top-down code is not
    public, so top-down has no ``authors`` loss (:data:`LOSSES_OF`).

``exact`` (:class:`~treetool.oracles.constituency.exact_loss.ExactLoss`)
    The true minimum, by a different decomposition: a min-plus chain over
    the ends at which the open non-terminals will be reduced, with a
    per-sentence cut table (module doc of :mod:`.exact_loss`, which lists
    the corners). Exact for the systems without limits; where the parsers'
    limits (RNNG's open non-terminals, Kparser's unary chains) might change
    the answer (:meth:`ExactLoss.limits_may_bind`) the exhaustive search
    decides (sentences of at most ``max_length`` words, else
    ``OracleUnavailable``).

Corners where the paper's formula differs from the exact loss (each found by
comparing with exhaustive search, see tests/test_constituency_dynamic.py):

* a wrong non-terminal opened as the root (top-down: the first ``NT``) must
  span the whole sentence, so it can never become the gold constituent
  ``(X, 0, r)`` it is counted as (and costs 1 the paper does not see);
* an open non-terminal whose gold span was already built (a duplicate that
  cannot be gold a second time);
* ends are shared: two open non-terminals whose gold ends are out of order
  cannot both be right, and one wrong non-terminal forced to close at an end
  inside a gold constituent that starts in the buffer destroys that
  constituent (the paper counts each gold constituent only individually);
* in-order: a gold constituent whose first child is the top item can only
  be built if the open non-terminals above that item close early enough.
"""

from __future__ import annotations

from typing import Sequence

from treetool.budget import Budget

from ..base import SYSTEM_MAX_LENGTH
from ..errors import OracleUnavailable
from .gold_index import GoldIndex
from .authors_loss import AuthorsCosts
from .paper_loss import PaperCosts, paper_loss
from .search import min_loss
from .system import Configuration, ConstituencySystem, Open, span_of
from .tree import GoldTreeError, Node, labels_outside

__all__ = ["LOSSES", "LOSSES_OF", "ConstituencyOracle"]

LOSSES = ("exact", "paper", "authors", "search")
"""``--loss`` values: the exact loss, the paper's formula, the authors' released scoring, the exhaustive search."""

LOSSES_OF = {"top-down": ("exact", "paper", "search"), "in-order": LOSSES}
"""The losses each system offers: the authors published dynamic-oracle code for in-order only."""

class ConstituencyOracle:
    """Costs of every legal action (``NT(X)``/``PJ(X)`` once per label) for one gold tree: the DynamicOracle interface.

    ``loss``: ``exact`` (:class:`ExactLoss`; where its ``limits_may_bind``
    says the parsers' limits might matter, the exhaustive search decides,
    which needs the sentence to have at most ``max_length`` words (by default
    the system's ``exact_max_length``), else ``OracleUnavailable``), ``paper`` (:func:`paper_loss`; every action
    costed in one pass by :class:`PaperCosts`), ``authors`` (in-order:
    :class:`AuthorsCosts`) or ``search``
    (exhaustive search only, at most ``max_length`` words). Costs are ints,
    ``loss(a(c)) - loss(c)``; with ``paper`` ``loss(a(c))`` minus the least
    over the legal actions (its loss is not the true minimum, so
    ``loss(c)`` can be below every successor's or above one), with
    ``authors`` the best score minus the action's: some action always costs 0. ``budget`` (``treetool.budget.Budget``) bounds
    the sentence: its ``max_states`` the configurations all the exhaustive
    searches expand, its ``max_seconds`` their time and the paper loss's
    tables, raising ``treetool.budget.SentenceTimeout``. A gold label outside
    ``labels`` raises :class:`GoldTreeError`: no costed action could build
    its constituent, so some steps would have no action of cost 0.
    """

    def __init__(self, system: ConstituencySystem, gold: Node, labels: Sequence[str], loss: str = "exact",
                 max_length: int | None = SYSTEM_MAX_LENGTH, *, budget: Budget | None = None) -> None:
        offered = LOSSES_OF.get(system.name, LOSSES)
        if loss not in offered:
            raise ValueError(f"loss for {system.name} must be one of {offered}, not {loss!r}")
        self.system, self.gold_tree, self.labels, self.kind = system, gold, list(labels), loss
        self.gold = GoldIndex(gold, system)
        unknown = labels_outside(gold, self.labels)
        if unknown:  # their constituents could never be built: a step would have no action of cost 0
            raise GoldTreeError(f"the tree has labels outside the label set: {', '.join(unknown)}")
        self._exact = None
        if loss == "exact":  # its tables (numpy) are built for that loss only: a tenth of a paper walk's time
            from .exact_loss import ExactLoss

            self._exact = ExactLoss(self.gold)
        self._gold_starts = {(label, start) for label, start, _ in self.gold.spans}
        if max_length == SYSTEM_MAX_LENGTH:
            max_length = system.exact_max_length
        self.max_length, self.budget = max_length, Budget() if budget is None else budget
        self._memo: dict = {}
        # A loss module that costs every action at once (``costs`` hands the configuration to it).
        self._all_costs = None
        if loss == "paper":
            self._all_costs = PaperCosts(system, self.gold, self.labels, self.budget).costs
        elif loss == "authors":
            self._all_costs = AuthorsCosts(system, self.gold, self.labels).costs
        if loss == "search" and max_length is not None and gold.end > max_length:
            raise OracleUnavailable(f"exact search is limited to {max_length} words; this sentence has {gold.end}")

    def loss(self, config: Configuration) -> int:
        """The loss of ``config`` under this oracle's ``loss`` option (``authors`` scores actions, has no loss)."""
        if self.kind == "authors":
            raise ValueError("the authors' oracle scores actions; it defines no loss of a configuration")
        if self.kind == "paper":
            return paper_loss(config, self.gold)
        if self.kind == "exact" and not self._exact.limits_may_bind(self.system, config):
            return self._exact.loss(config)
        return self._search(config)

    def _search(self, config: Configuration) -> int:
        if self.max_length is not None and self.gold.n > self.max_length:
            raise OracleUnavailable(f"the parser's limits may bind here and exact search is limited to "
                                    f"{self.max_length} words; this sentence has {self.gold.n}")
        return int(min_loss(self.system, config, self.gold_tree, self.labels, self._memo, self.budget))

    def costs(self, config: Configuration) -> dict[str, int]:
        """Every legal action's cost, ``NT(X)``/``PJ(X)`` once per label.

        ``paper``: all at once by :class:`PaperCosts`. Otherwise labels with
        no gold constituent at the start the new non-terminal would have
        (top-down: the buffer position; in-order: the top item's start) are
        all equally wrong: one of them is computed for all.
        """
        if self._all_costs is not None:
            return self._all_costs(config)
        base = self.loss(config)
        apply, at_start = self.system.apply, self._gold_starts
        start = self._new_start(config)
        out: dict[str, int] = {}
        foreign: int | None = None
        for action in self.system.legal_actions(config, self.labels):
            if action.endswith(")") and (action[3:-1], start) not in at_start:
                if foreign is None:
                    foreign = self.loss(apply(config, action)) - base
                out[action] = foreign
            else:
                out[action] = self.loss(apply(config, action)) - base
        return out

    def _new_start(self, config: Configuration) -> int:
        """Where a constituent opened now would start (top-down: b; in-order: the top item's start)."""
        if self.gold.in_order and config.stack and type(config.stack[-1]) is not Open:
            return span_of(config.stack[-1])[0]
        return config.buffer

    def optimal(self, config: Configuration) -> list[str]:
        return [action for action, cost in self.costs(config).items() if cost == 0]
