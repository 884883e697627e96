"""The arc-hybrid system (Kuhlmann, Gómez-Rodríguez & Satta 2011) and its static oracle, the root first or last."""

from __future__ import annotations

from typing import Sequence

from treetool.budget import Budget

from .configuration import Action, Configuration, attach, gold_tree, no_arcs, parse_action
from .dynamic import ArcHybridOracle
from .errors import IllegalAction
from .layout import check_root
from .spec import OracleSpec
from .system import TransitionSystem
from .vocabulary import ActionKinds

__all__ = ["ArcHybrid", "arc_hybrid_oracle"]


def arc_hybrid_oracle(
    gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, root: str = "first"
) -> list[Action] | None:
    """The usual static oracle of arc-hybrid (Kuhlmann et al. 2011; Goldberg & Nivre 2013, §3).

    ``LA`` when s0's gold head is b0, ``RA`` when it is s1, both only once s0
    has collected all of its gold dependents (it leaves the stack); otherwise
    ``SH`` (with the root last, the root only onto an empty stack). Only gold
    arcs are ever built, so the run succeeds (stack ``[0]``, empty buffer)
    exactly when it derives the tree; it does for every projective tree and
    for no other (checked against exhaustive search). Returns ``None`` when
    it gets stuck.
    """
    check_root(root)
    heads, gold_labels = gold_tree(gold_heads, gold_labels)
    n = len(heads) - 1
    pending = [0] * (n + 1)
    for d in range(1, n + 1):
        pending[heads[d]] += 1
    stack = [0] if root == "first" else []
    out: list[Action] = []
    act = out.append
    nxt = 1  # b0 = nxt for nxt <= n, the root 0 for nxt == n + 1 (root last); empty buffer after
    last = n if root == "first" else n + 1
    while True:
        b0 = nxt if nxt <= n else 0 if nxt == last else -1
        s0 = stack[-1] if stack else 0
        if s0 and not pending[s0]:
            head = heads[s0]
            if head == b0:  # b0 -> s0
                act("LA" if gold_labels is None else f"LA({gold_labels[s0]})")
            elif len(stack) >= 2 and head == stack[-2]:
                act("RA" if gold_labels is None else f"RA({gold_labels[s0]})")
            else:
                head = -1
            if head >= 0:
                pending[head] -= 1
                stack.pop()
                continue
        if nxt > last:
            return out if stack == [0] else None
        if b0 == 0 and stack:
            return None  # the root may only be shifted onto an empty stack
        stack.append(b0)
        act("SH")
        nxt += 1


class ArcHybrid(TransitionSystem):
    """Arc-hybrid (Kuhlmann, Gómez-Rodríguez & Satta 2011), the root first (the default) or last.

    ``root="first"``: stack ``[0]``, buffer ``1..n``. ``SH``: move b0 to the
    stack. ``LA``: ``b0 -> s0``, pop s0 (s0 != 0, buffer non-empty). ``RA``:
    ``s1 -> s0``, pop s0. Final: stack ``[0]`` and empty buffer.
    ``root="last"`` (Ballesteros & Nivre 2013's placement): stack ``[]``,
    buffer ``1..n, 0``; the same transitions, the root shifted only onto an
    empty stack (so ``LA`` may attach s0 to the root, and the final stack is
    ``[0]`` again). Both derive exactly the projective trees
    (tests/test_oracles_static.py checks it against exhaustive search).
    """

    name = "arc-hybrid"
    monotonic = True
    detached_words_final = True
    action_kinds = ActionKinds(order=("SH", "LA", "RA"), plain=("SH",), labelled=("LA", "RA"))
    oracle_spec = OracleSpec(static="Kuhlmann, Gómez-Rodríguez & Satta 2011; Goldberg & Nivre 2013, §3",
                             static_takes_budget=False, published="Goldberg & Nivre 2013", exact_on="projective",
                             takes_budget=False, options=())
    option_names = ("root",)

    def __init__(self, root: str = "first") -> None:
        check_root(root)
        self.root = root
        self.root_last = root == "last"

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        heads, labels = no_arcs(n, labeled)
        stack, buffer = ((), tuple(range(1, n + 1)) + (0,)) if self.root_last else ((0,), tuple(range(1, n + 1)))
        return Configuration(stack, buffer, heads, labels)

    def legal(self, config: Configuration) -> list[Action]:
        stack, buffer = config.stack, config.buffer
        out = ["SH"] if buffer and (buffer[0] != 0 or not stack) else []
        if buffer and stack and stack[-1] != 0:
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
            if buffer[0] == 0 and stack:
                raise IllegalAction(action, "the root 0 may only be shifted onto an empty stack")
            return Configuration(stack + buffer[:1], buffer[1:], config.heads, config.labels)
        if kind == "LA":
            if not buffer or not stack or stack[-1] == 0:
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
        """:func:`arc_hybrid_oracle` with this system's ``root`` (linear: no budget needed)."""
        return arc_hybrid_oracle(gold_heads, gold_labels, self.root)

    def dynamic_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                       budget: Budget | None = None) -> ArcHybridOracle:
        """Goldberg & Nivre (2013)'s oracle (:class:`treetool.oracles.dynamic.ArcHybridOracle`); any length.

        Constant time per step: no budget needed.
        """
        return ArcHybridOracle(gold_heads, gold_labels, root=self.root).built_by(self)

    def new_arc(self, config: Configuration, kind: str) -> tuple[int, int] | None:
        """``LA``: ``b0 -> s0``; ``RA``: ``s1 -> s0``."""
        stack = config.stack
        if kind == "LA":
            return config.buffer[0], stack[-1]
        if kind == "RA":
            return stack[-2], stack[-1]
        return None

    def can_derive(self, gold_heads: Sequence[int], *, budget: Budget | None = None) -> bool:
        """Exact: arc-hybrid derives exactly the projective trees."""
        from treetool.trees import is_projective  # not at the top: it imports numpy, which other commands skip

        return is_projective(gold_tree(gold_heads)[0])
