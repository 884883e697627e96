"""What a dependency system's oracles are, declared by the system (never found by looking at its methods).

Every :class:`~treetool.oracles.system.TransitionSystem` has an
``oracle_spec`` (a class attribute, or a property where the options decide
it: attardi has a published dynamic oracle for degree 2 only). The commands
and :func:`treetool.oracles.annotate.make_oracle` read it to choose an oracle,
to refuse an option that cannot act, and to say what a system offers.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXACTNESS", "OracleSpec", "SEARCH_ONLY"]

EXACTNESS = ("any", "projective", "none")
"""Values of :attr:`OracleSpec.exact_on`."""


@dataclass(frozen=True)
class OracleSpec:
    """A system's static and dynamic oracles. The defaults describe a system with none of its own (:data:`SEARCH_ONLY`).

    Both oracle methods take the same arguments on every system:
    ``static_oracle(gold_heads, gold_labels=None, *, budget=None)`` and
    ``dynamic_oracle(gold_heads, gold_labels=None, *, budget=None, **options)``
    (``budget`` a ``treetool.budget.Budget`` or ``None``).
    """

    static: str | None = None
    """Whose static oracle ``static_oracle`` is (e.g. "Nivre 2009, §3"); ``None``: the generic search
    (``treetool.oracles.search.search_oracle``)."""
    static_takes_budget: bool = True
    """Whether ``budget`` bounds ``static_oracle``: always for the search; for an own oracle when it is
    super-linear (swap's)."""
    published: str | None = None
    """Whose dynamic oracle ``dynamic_oracle`` is (e.g. "Goldberg & Nivre 2012"); ``None``: the exhaustive search
    (``exact_oracle``), which refuses sentences longer than its ``max_length`` option."""
    exact_on: str = "any"
    """The gold trees on which ``dynamic_oracle`` gives the exact costs: ``"any"``, ``"projective"`` or ``"none"``
    (approximate everywhere; the system's docstring gives the measured rate)."""
    takes_budget: bool = True
    """Whether ``budget`` bounds ``dynamic_oracle``: always for the search; for a published oracle when it is
    super-linear (Nederhof's cubic algorithm, the tabular loss)."""
    options: tuple[str, ...] = ("max_length",)
    """The keyword options ``dynamic_oracle`` takes besides ``budget``."""
    narrowing: tuple[str, ...] = ()
    """The options of ``options`` under which ``dynamic_oracle``'s ``optimal`` is a preferred part of the
    actions of cost 0, not all of them (nm-arc-eager's ``prefer_monotonic``). Without them it is all of them,
    in the order of ``costs`` (a Parquet writer derives it so: ``treetool.oracles.annotate.optimal_is_cost_zero``)."""

    def __post_init__(self) -> None:
        if self.exact_on not in EXACTNESS:
            raise ValueError(f"exact_on must be one of {', '.join(EXACTNESS)}, not {self.exact_on!r}")
        if self.static is None and not self.static_takes_budget:
            raise ValueError("the generic search (static=None) always takes a budget")
        if self.published is None and (self.exact_on != "any" or not self.takes_budget):
            raise ValueError("the exhaustive search (published=None) is exact on any tree and takes a budget")
        if not set(self.narrowing) <= set(self.options):
            raise ValueError("narrowing options must be options of dynamic_oracle")


SEARCH_ONLY = OracleSpec()
"""The spec of a system without oracles of its own: the generic search and the exhaustive search serve."""
