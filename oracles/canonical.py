"""The canonical oracle of Cohen, Gómez-Rodríguez & Satta (2012) for the bottom-up systems of Attardi (2006).

Written for the systems of their Example 2 (``treetool.oracles.attardi``;
arc-standard is the member of degree 1); swap's static oracle starts with it
and the tabular loss of Gómez-Rodríguez, Sartorio & Satta (2014) reduces the
buffer with it. Below all three, which import it.
"""

from __future__ import annotations

from typing import Sequence

from .configuration import Action, as_heads, format_action, gold_tree

__all__ = ["bottom_up_run", "canonical_oracle", "label_actions", "min_degree", "MAX_DEGREE"]

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
    """The canonical sequence (Cohen, Gómez-Rodríguez & Satta 2012, §4.1; :func:`bottom_up_run`), labelled when
    ``gold_labels`` is given; ``None`` if underivable (:class:`~treetool.oracles.errors.InvalidGoldTree` if not a
    tree: :func:`~treetool.oracles.configuration.gold_tree`)."""
    heads, gold_labels = gold_tree(gold_heads, gold_labels)
    actions, dependents, stack = bottom_up_run(heads, degree)
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
