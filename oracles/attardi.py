"""Bottom-up shift-reduce systems of Attardi (2006), and their canonical oracle.

The canonical oracle (:func:`bottom_up_run`) is the one of Cohen,
Gómez-Rodríguez & Satta (2012), papers/002, written for the systems of their
Example 2; arc-standard (``treetool.oracles.arc_standard``) is the member of degree 1
and uses it unchanged.
"""

from __future__ import annotations

from typing import Any, Sequence

from .system import (
    Action, Configuration, DynamicOracle, IllegalAction, TransitionSystem, as_heads, attach, format_action, parse_action,
)
from .vocabulary import ActionKinds

__all__ = ["Attardi", "bottom_up_run", "canonical_oracle", "label_actions", "min_degree", "MAX_DEGREE"]

MAX_DEGREE = 4
"""Default largest degree tried by :func:`min_degree` (the ``coverage --max-degree`` default)."""


def bottom_up_run(gold_heads: Sequence[int], degree: int) -> tuple[list[Action], list[int], list[int]]:
    """The canonical computation of Cohen et al. (2012) for ``attardi`` of ``degree``.

    Cohen, Gómez-Rodríguez & Satta (2012), §4.1 ("canonical form"): at every
    configuration take, among the reductions of the system that build a gold
    arc, the one whose dependent is closest to the top of the stack; shift
    only when there is none (§3.2, the priority relation; shift has the
    lowest priority). A reduction is only taken when its dependent has
    already collected all of its gold dependents: the stop feature of §3.1
    (predicate ``bu``), since a bottom-up system removes the dependent from
    the stack. For Attardi's systems (Example 2: sh, la_{p<-1}, ra_{p->1},
    p <= degree + 1) every reduction involves s0, so the candidates in
    priority order are: s0 as dependent (``RAk``, head s(k)), then s1, s2, ...
    as dependent of s0 (``LAk``).

    The system is μ-closed ("monotonic" in §2.3), so by §4.1 a tree is
    derivable iff this computation succeeds. Returns ``(actions, dependents,
    stack)``: the unlabelled actions, the dependent each one attaches (0 for
    SH) and the final stack; the run succeeded iff the stack is ``[0]``.
    Linear in n for a fixed degree; tight loop over plain lists.
    """
    heads = as_heads(gold_heads)
    n = len(heads) - 1
    left_arc = [format_action("LA", k) for k in range(degree + 1)]
    right_arc = [format_action("RA", k) for k in range(degree + 1)]
    pending = [0] * (n + 1)  # gold dependents not yet attached
    for d in range(1, n + 1):
        pending[heads[d]] += 1
    stack = [0]
    actions: list[Action] = []
    dependents: list[int] = []
    act, dep = actions.append, dependents.append
    nxt = 1
    while True:
        top = len(stack) - 1
        if top:
            s0 = stack[top]
            low = top - degree if top > degree else 0  # deepest position a reduction reaches
            if not pending[s0]:  # s0 complete: RAk with its gold head at s(k)?
                head = heads[s0]
                pos = top - 1
                while pos >= low and stack[pos] != head:
                    pos -= 1
                if pos >= low:
                    act(right_arc[top - pos])
                    dep(s0)
                    pending[head] -= 1
                    stack.pop()
                    continue
            pos = top - 1
            while pos >= low:  # LAk: the complete gold dependent of s0 closest to the top
                x = stack[pos]
                if heads[x] == s0 and not pending[x]:  # heads[0] == -1: the root is never taken
                    break
                pos -= 1
            if pos >= low:
                act(left_arc[top - pos])
                dep(stack[pos])
                pending[s0] -= 1
                del stack[pos]
                continue
        if nxt > n:
            return actions, dependents, stack
        stack.append(nxt)
        act("SH")
        dep(0)
        nxt += 1


def canonical_oracle(
    gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, degree: int = 1
) -> list[Action] | None:
    """The canonical sequence (:func:`bottom_up_run`), labelled when ``gold_labels`` is given; ``None`` if underivable."""
    actions, dependents, stack = bottom_up_run(gold_heads, degree)
    return label_actions(actions, dependents, gold_labels) if len(stack) == 1 else None


def label_actions(actions: list[Action], dependents: list[int], gold_labels: Sequence[str] | None) -> list[Action]:
    """Add to each arc action the gold label of the dependent it attaches (``dependents``: 0 for none)."""
    if gold_labels is None:
        return actions
    return [a if d == 0 else f"{a}({gold_labels[d]})" for a, d in zip(actions, dependents)]


def min_degree(gold_heads: Sequence[int], max_degree: int = MAX_DEGREE) -> int | None:
    """The smallest degree d <= ``max_degree`` whose Attardi system derives the tree, else ``None``.

    The systems are nested (degree d has every transition of degree d - 1),
    and the canonical run of each degree is exact (Cohen et al. 2012, §4.1),
    so the first degree whose canonical run succeeds is the answer.
    """
    heads = as_heads(gold_heads)
    for degree in range(1, max_degree + 1):
        if len(bottom_up_run(heads, degree)[2]) == 1:
            return degree
    return None


class Attardi(TransitionSystem):
    """Attardi's (2006) non-projective system of degree d, as Example 2 of Cohen et al. (2012).

    Stack ``[0]``, buffer ``1..n``. ``SH``: move b0 to the stack.
    ``LAk`` (1 <= k <= d): ``s(k) <- s0`` and remove s(k) from the stack
    (s(k) != 0). ``RAk``: ``s(k) -> s0`` and pop s0. s(k) is the k-th item
    below the top (s(1) = s1); ``LA1``/``RA1`` are spelled ``LA``/``RA``.
    Final: stack ``[0]`` and empty buffer. Degree 1 is arc-standard; degree 2
    is the system of papers/000. In Cohen et al.'s notation (§2.3) LAk is
    la_{k+1<-1} and RAk is ra_{k+1->1}; the system is bottom-up and μ-closed,
    so its static oracle is the canonical one and is complete (§4.1).

    Note: DeSR, whose oracle Cohen et al.'s Table 1 measured, pushes a node
    back to the buffer after degree-3 reductions (their footnote 4); this class
    implements Example 2 exactly as specified, without that variation.
    """

    name = "attardi"
    monotonic = True
    detached_words_final = True
    bottom_up = True

    def __init__(self, degree: int = 2) -> None:
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        self.degree = degree
        self._left = [format_action("LA", k) for k in range(degree + 1)]
        self._right = [format_action("RA", k) for k in range(degree + 1)]
        reductions = tuple(kind for k in range(1, degree + 1) for kind in (self._left[k], self._right[k]))
        self.action_kinds = ActionKinds(order=("SH", *reductions), plain=("SH",), labelled=reductions)

    def options(self) -> dict[str, int]:
        return {"degree": self.degree}

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        return Configuration((0,), tuple(range(1, n + 1)), (-1,) * (n + 1), (None,) * (n + 1) if labeled else None)

    def legal(self, config: Configuration) -> list[Action]:
        stack = config.stack
        out = ["SH"] if config.buffer else []
        for k in range(1, min(self.degree, len(stack) - 1) + 1):
            if stack[-1 - k] != 0:
                out.append(self._left[k])
            out.append(self._right[k])
        return out

    def apply(self, config: Configuration, action: Action) -> Configuration:
        kind, k, label = parse_action(action)
        stack, buffer = config.stack, config.buffer
        if kind == "SH" and k == 1 and label is None:
            if not buffer:
                raise IllegalAction(action, "the buffer is empty")
            return Configuration(stack + buffer[:1], buffer[1:], config.heads, config.labels)
        if kind not in ("LA", "RA"):
            raise IllegalAction(action, f"{self.name} has no transition {action}")
        if k > self.degree:
            raise IllegalAction(action, f"degree {k} exceeds the system's degree {self.degree}")
        if len(stack) <= k:
            raise IllegalAction(action, f"needs {k + 1} items on the stack")
        if label is not None and config.labels is None:
            raise IllegalAction(action, "a labelled transition needs a labelled configuration")
        s0, other = stack[-1], stack[-1 - k]
        if kind == "RA":
            heads, labels = attach(config, s0, other, label)
            return Configuration(stack[:-1], buffer, heads, labels)
        if other == 0:
            raise IllegalAction(action, "the root 0 cannot be a dependent")
        heads, labels = attach(config, other, s0, label)
        return Configuration(stack[: -1 - k] + stack[-k:], buffer, heads, labels)

    def is_final(self, config: Configuration) -> bool:
        return len(config.stack) == 1 and not config.buffer

    def new_arc(self, config: Configuration, kind: str) -> tuple[int, int] | None:
        """``LAk``: ``s0 -> s(k)``; ``RAk``: ``s(k) -> s0``; none for the others."""
        name, k, _ = parse_action(kind)
        stack = config.stack
        if name == "LA":
            return stack[-1], stack[-1 - k]
        if name == "RA":
            return stack[-1 - k], stack[-1]
        return None

    @property
    def published_oracle(self) -> bool:
        """Degree 2 has a published dynamic oracle (papers/000); other degrees only the exact search."""
        return self.degree == 2

    def dynamic_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                       max_length: int | None = 10, budget: Any = None) -> DynamicOracle:
        """Degree 2: the tabular oracle of papers/000 (``treetool.oracles.tabular_loss``), exact for every gold tree, any length.

        ``budget`` (``treetool.budget.Budget``) bounds the whole sentence
        (``SentenceTimeout`` when it runs out). Other degrees: no published
        oracle, the exact search, limited to ``max_length`` words. Either way
        ``exact_dynamic_oracle`` is ``"any"``.
        """
        if self.degree != 2:
            return self.exact_oracle(gold_heads, gold_labels, max_length=max_length, budget=budget)
        from .tabular_loss import AttardiDegree2Oracle

        return AttardiDegree2Oracle(gold_heads, gold_labels, budget=budget)

    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None) -> list[Action] | None:
        """The canonical computation (:func:`bottom_up_run`); ``None`` exactly when the tree is underivable."""
        return canonical_oracle(gold_heads, gold_labels, self.degree)

    def can_derive(self, gold_heads: Sequence[int]) -> bool:
        """Exact (Cohen et al. 2012, §4.1): the canonical run succeeds."""
        return len(bottom_up_run(gold_heads, self.degree)[2]) == 1
