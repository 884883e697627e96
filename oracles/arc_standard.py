"""The arc-standard system (Nivre 2004): Attardi's system of degree 1."""

from __future__ import annotations

from typing import Sequence

from treetool.budget import UNLIMITED, Budget

from .attardi import CANONICAL, Attardi
from .nederhof import NederhofOracle
from .spec import OracleSpec

__all__ = ["ArcStandard"]


class ArcStandard(Attardi):
    """Arc-standard (Nivre 2004; Cohen et al. 2012, Example 1).

    Stack ``[0]``, buffer ``1..n``. ``SH``: move b0 to the stack. ``LA``:
    ``s1 <- s0``, pop s1 (s1 != 0). ``RA``: ``s1 -> s0``, pop s0. Final:
    stack ``[0]`` and empty buffer. It is :class:`~treetool.oracles.attardi.Attardi`
    of degree 1, so its static oracle is the canonical one of Cohen et al.
    (2012, §3-4): reduce as soon as a reduction builds a gold arc whose
    dependent is complete, RA (dependent s0) before LA (dependent s1),
    otherwise shift. It derives exactly the projective trees (checked against
    exhaustive search in tests/test_oracles_static.py).
    """

    name = "arc-standard"
    option_names = ()
    oracle_spec = OracleSpec(static=CANONICAL, static_takes_budget=False, published="Nederhof 2019",
                             takes_budget=True, options=("algorithm", "strategy"))

    def __init__(self) -> None:
        super().__init__(degree=1)

    def dynamic_oracle(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        *,
        budget: Budget | None = None,
        algorithm: str = "auto",
        strategy: str = "none",
    ) -> NederhofOracle:
        """Nederhof's (2019) oracle (``treetool.oracles.nederhof``): exact for every gold tree, any length.

        ``algorithm``: ``auto`` (linear for a projective gold tree, else
        cubic), ``cubic``, ``quadratic`` or ``linear`` (the last two refuse a
        non-projective tree with ``OracleUnavailable``); ``strategy``:
        ``none``, ``left-before-right``, ``strict`` or ``right-before-left``;
        ``budget`` bounds the cubic algorithm. The oracle checks the gold tree first, as every oracle does
        (``treetool.oracles.configuration.gold_tree``).
        """
        return NederhofOracle(gold_heads, gold_labels, algorithm=algorithm, strategy=strategy,
                              budget=UNLIMITED if budget is None else budget).built_by(self)
