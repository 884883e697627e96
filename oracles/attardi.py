"""Bottom-up shift-reduce systems of Attardi (2006), as Example 2 of Cohen, Gómez-Rodríguez & Satta (2012).

Their static oracle is the canonical one of Cohen et al. (2012)
(``treetool.oracles.canonical``); arc-standard (``treetool.oracles.arc_standard``)
is the member of degree 1 and uses it unchanged.
"""

from __future__ import annotations

from typing import Any, Sequence

from treetool.budget import Budget

from .canonical import canonical_oracle
from .configuration import (Action, Configuration, DynamicOracle, attach, format_action, new_configuration, no_arcs,
                            parse_action)
from .errors import IllegalAction
from .spec import OracleSpec
from .system import TransitionSystem
from .vocabulary import ActionKinds
from .tabular_loss import AttardiDegree2Oracle

__all__ = ["Attardi", "ShiftReduce"]

CANONICAL = "Cohen, Gómez-Rodríguez & Satta 2012, §4.1 (canonical computation)"
"""The static oracle of Attardi's systems, arc-standard included."""

_TABULAR_SPEC = OracleSpec(static=CANONICAL, static_takes_budget=False,
                           published="Gómez-Rodríguez, Sartorio & Satta 2014", takes_budget=True, options=())
_SEARCH_SPEC = OracleSpec(static=CANONICAL, static_takes_budget=False)


class ShiftReduce:
    """The transitions of Attardi's system of degree d: the rules :class:`Attardi` and swap both apply.

    Stack ``[0]``, buffer ``1..n``. ``SH``: move b0 to the stack.
    ``LAk`` (1 <= k <= d): ``s(k) <- s0`` and remove s(k) from the stack
    (s(k) != 0). ``RAk``: ``s(k) -> s0`` and pop s0. s(k) is the k-th item
    below the top (s(1) = s1); ``LA1``/``RA1`` are spelled ``LA``/``RA``.
    Final: stack ``[0]`` and empty buffer. Degree 1 is arc-standard's.
    """

    def __init__(self, degree: int, system_name: str) -> None:
        self.degree, self.system_name = degree, system_name
        self._left = [format_action("LA", k) for k in range(degree + 1)]
        self._right = [format_action("RA", k) for k in range(degree + 1)]
        reductions = tuple(kind for k in range(1, degree + 1) for kind in (self._left[k], self._right[k]))
        self.action_kinds = ActionKinds(order=("SH", *reductions), plain=("SH",), labelled=reductions)

    @staticmethod
    def initial(n: int, labeled: bool) -> Configuration:
        heads, labels = no_arcs(n, labeled)
        return Configuration((0,), tuple(range(1, n + 1)), heads, labels)

    def legal(self, config: Configuration) -> list[Action]:
        stack = config.stack
        out = ["SH"] if config.buffer else []
        for k in range(1, min(self.degree, len(stack) - 1) + 1):
            if stack[-1 - k] != 0:
                out.append(self._left[k])
            out.append(self._right[k])
        return out

    def apply(self, config: Configuration, action: Action, kind: str, k: int, label: str | None) -> Configuration:
        """The configuration after ``action``, parsed into ``kind``, degree ``k`` and ``label``."""
        stack, buffer, heads, labels = config
        if kind == "SH" and k == 1 and label is None:
            if not buffer:
                raise IllegalAction(action, "the buffer is empty")
            return new_configuration((stack + buffer[:1], buffer[1:], heads, labels))
        if kind not in ("LA", "RA"):
            raise IllegalAction(action, f"{self.system_name} has no transition {action}")
        if k > self.degree:
            raise IllegalAction(action, f"degree {k} exceeds the system's degree {self.degree}")
        if len(stack) <= k:
            raise IllegalAction(action, f"needs {k + 1} items on the stack")
        if label is not None and labels is None:
            raise IllegalAction(action, "a labelled transition needs a labelled configuration")
        s0, other = stack[-1], stack[-1 - k]
        if kind == "RA":
            heads, labels = attach(config, s0, other, label)
            return new_configuration((stack[:-1], buffer, heads, labels))
        if other == 0:
            raise IllegalAction(action, "the root 0 cannot be a dependent")
        heads, labels = attach(config, other, s0, label)
        return new_configuration((stack[: -1 - k] + stack[-k:], buffer, heads, labels))

    @staticmethod
    def is_final(config: Configuration) -> bool:
        return len(config.stack) == 1 and not config.buffer

    @staticmethod
    def new_arc(config: Configuration, kind: str) -> tuple[int, int] | None:
        """``LAk``: ``s0 -> s(k)``; ``RAk``: ``s(k) -> s0``; none for the others."""
        name, k, _ = parse_action(kind)
        stack = config.stack
        if name == "LA":
            return stack[-1], stack[-1 - k]
        if name == "RA":
            return stack[-1 - k], stack[-1]
        return None


class Attardi(TransitionSystem):
    """Attardi's (2006) non-projective system of degree d, as Example 2 of Cohen et al. (2012).

    The transitions of :class:`ShiftReduce`. Degree 1 is arc-standard;
    degree 2 is the system of Gómez-Rodríguez, Sartorio & Satta (2014). In
    Cohen et al.'s notation (§2.3) LAk is la_{k+1<-1} and RAk is
    ra_{k+1->1}; the system is bottom-up and μ-closed, so its static oracle
    is the canonical one and is complete (§4.1).

    Note: DeSR, whose oracle Cohen et al.'s Table 1 measured, pushes a node
    back to the buffer after degree-3 reductions (their footnote 4); this class
    implements Example 2 exactly as specified, without that variation.
    """

    name = "attardi"
    monotonic = True
    detached_words_final = True
    bottom_up = True
    option_names = ("degree",)

    def __init__(self, degree: int = 2) -> None:
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        self.degree = degree
        self._rules = ShiftReduce(degree, self.name)
        self.action_kinds = self._rules.action_kinds

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        return self._rules.initial(n, labeled)

    def legal(self, config: Configuration) -> list[Action]:
        return self._rules.legal(config)

    def apply(self, config: Configuration, action: Action) -> Configuration:
        kind, k, label = parse_action(action)  # passed one by one: a call with *args is slower, on every step
        return self._rules.apply(config, action, kind, k, label)

    is_final = staticmethod(ShiftReduce.is_final)  # the rule itself, not a call through self._rules per step

    def new_arc(self, config: Configuration, kind: str) -> tuple[int, int] | None:
        return self._rules.new_arc(config, kind)

    @property
    def oracle_spec(self) -> OracleSpec:  # type: ignore[override]
        """Degree 2 has a published dynamic oracle (Gómez-Rodríguez, Sartorio & Satta 2014), other degrees none."""
        return _TABULAR_SPEC if self.degree == 2 else _SEARCH_SPEC

    def dynamic_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                       budget: Budget | None = None, **options: Any) -> DynamicOracle:
        """Degree 2: the tabular oracle (``treetool.oracles.tabular_loss``), exact for every gold tree, any length.

        Gómez-Rodríguez, Sartorio & Satta (2014), §5: ``budget``
        (``treetool.budget.Budget``) bounds the whole sentence
        (``SentenceTimeout`` when it runs out); it takes no option. Other
        degrees: no published oracle, the exhaustive search (option
        ``max_length``). Either way exact on any gold tree.
        """
        if self.degree != 2:
            return self.exact_oracle(gold_heads, gold_labels, budget=budget, **options)
        return AttardiDegree2Oracle(gold_heads, gold_labels, budget=budget, **options).built_by(self)

    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                      budget: Budget | None = None) -> list[Action] | None:
        """The canonical computation (:func:`~treetool.oracles.canonical.bottom_up_run`), linear: ``None`` exactly
        when the tree is underivable."""
        return canonical_oracle(gold_heads, gold_labels, self.degree)

    def can_derive(self, gold_heads: Sequence[int], *, budget: Budget | None = None) -> bool:
        """Exact (Cohen et al. 2012, §4.1): the canonical run succeeds."""
        return canonical_oracle(gold_heads, None, self.degree) is not None  # which checks the tree first
