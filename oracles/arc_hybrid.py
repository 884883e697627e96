"""The arc-hybrid system (Kuhlmann, Gómez-Rodríguez & Satta 2011) and its static oracle."""

from __future__ import annotations

from typing import Sequence

from treetool.budget import Budget

from .configuration import Action, Configuration, as_heads, attach, parse_action
from .dynamic import ArcHybridOracle
from .errors import IllegalAction
from .spec import OracleSpec
from .system import TransitionSystem

__all__ = ["ArcHybrid", "arc_hybrid_oracle"]


def arc_hybrid_oracle(gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None) -> list[Action] | None:
    """The usual static oracle of arc-hybrid (Kuhlmann et al. 2011; Goldberg & Nivre 2013, §3).

    ``LA`` when s0's gold head is b0, ``RA`` when it is s1, both only once s0
    has collected all of its gold dependents (it leaves the stack); otherwise
    ``SH``. Only gold arcs are ever built, so the run succeeds (stack ``[0]``,
    empty buffer) exactly when it derives the tree; it does for every
    projective tree and for no other (checked against exhaustive search).
    Returns ``None`` when it gets stuck.
    """
    heads = as_heads(gold_heads)
    n = len(heads) - 1
    pending = [0] * (n + 1)
    for d in range(1, n + 1):
        pending[heads[d]] += 1
    stack = [0]
    out: list[Action] = []
    act = out.append
    nxt = 1
    while True:
        s0 = stack[-1]
        if s0 and not pending[s0]:
            head = heads[s0]
            if head == nxt:  # b0 -> s0 (nxt <= n here: heads are <= n)
                act("LA" if gold_labels is None else f"LA({gold_labels[s0]})")
            elif head == stack[-2]:
                act("RA" if gold_labels is None else f"RA({gold_labels[s0]})")
            else:
                head = -1
            if head >= 0:
                pending[head] -= 1
                stack.pop()
                continue
        if nxt > n:
            return out if len(stack) == 1 else None
        stack.append(nxt)
        act("SH")
        nxt += 1


class ArcHybrid(TransitionSystem):
    """Arc-hybrid (Kuhlmann, Gómez-Rodríguez & Satta 2011).

    Stack ``[0]``, buffer ``1..n``. ``SH``: move b0 to the stack. ``LA``:
    ``b0 -> s0``, pop s0 (s0 != 0, buffer non-empty). ``RA``: ``s1 -> s0``,
    pop s0. Final: stack ``[0]`` and empty buffer. Derives exactly the
    projective trees (tests/test_oracles_systems.py checks it against
    exhaustive search).
    """

    name = "arc-hybrid"
    monotonic = True
    detached_words_final = True
    oracle_spec = OracleSpec(static="Kuhlmann, Gómez-Rodríguez & Satta 2011; Goldberg & Nivre 2013, §3",
                             static_takes_budget=False, published="Goldberg & Nivre 2013", exact_on="projective",
                             takes_budget=False, options=())

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        return Configuration((0,), tuple(range(1, n + 1)), (-1,) * (n + 1), (None,) * (n + 1) if labeled else None)

    def legal(self, config: Configuration) -> list[Action]:
        stack, buffer = config.stack, config.buffer
        out = ["SH"] if buffer else []
        if buffer and stack[-1] != 0:
            out.append("LA")
        if len(stack) >= 2:
            out.append("RA")
        return out

    def apply(self, config: Configuration, action: Action) -> Configuration:
        kind, degree, label = parse_action(action)
        stack, buffer = config.stack, config.buffer
        if degree != 1 or kind not in ("SH", "LA", "RA") or (kind == "SH" and label is not None):
            raise IllegalAction(action, f"{self.name} has no transition {action}")
        if label is not None and config.labels is None:
            raise IllegalAction(action, "a labelled transition needs a labelled configuration")
        if kind == "SH":
            if not buffer:
                raise IllegalAction(action, "the buffer is empty")
            return Configuration(stack + buffer[:1], buffer[1:], config.heads, config.labels)
        if kind == "LA":
            if not buffer or stack[-1] == 0:
                raise IllegalAction(action, "needs a word on the stack and a non-empty buffer")
            heads, labels = attach(config, stack[-1], buffer[0], label)
            return Configuration(stack[:-1], buffer, heads, labels)
        if len(stack) < 2:
            raise IllegalAction(action, "needs two items on the stack")
        heads, labels = attach(config, stack[-1], stack[-2], label)
        return Configuration(stack[:-1], buffer, heads, labels)

    def is_final(self, config: Configuration) -> bool:
        return len(config.stack) == 1 and not config.buffer

    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                      budget: Budget | None = None) -> list[Action] | None:
        """:func:`arc_hybrid_oracle` (linear: no budget needed)."""
        return arc_hybrid_oracle(gold_heads, gold_labels)

    def dynamic_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                       budget: Budget | None = None) -> ArcHybridOracle:
        """Goldberg & Nivre (2013)'s oracle (:class:`treetool.oracles.dynamic.ArcHybridOracle`); any length.

        Constant time per step: no budget needed.
        """
        return ArcHybridOracle(gold_heads, gold_labels)

    def can_derive(self, gold_heads: Sequence[int], *, budget: Budget | None = None) -> bool:
        """Exact: arc-hybrid derives exactly the projective trees."""
        from treetool.trees import is_projective  # not at the top: it imports numpy, which other commands skip

        return is_projective(gold_heads)
