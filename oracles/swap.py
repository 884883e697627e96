"""The swap system (Nivre 2009) and its eager and lazy static oracles."""

from __future__ import annotations

from typing import Sequence

from treetool.budget import UNLIMITED, Budget

from .attardi import ShiftReduce
from .canonical import bottom_up_run, label_actions
from .configuration import Action, Configuration, as_heads, gold_tree, parse_action
from .errors import IllegalAction
from .option_values import SWAP_ORDERS
from .spec import OracleSpec
from .system import TransitionSystem
from .vocabulary import ActionKinds

__all__ = ["Swap", "swap_oracle", "swap_run", "projective_order", "projective_components", "SWAP_ORDERS"]

_CHECK_EVERY = 8192  # transitions of the static oracle between two budget checks


def _children(heads: list[int]) -> list[list[int]]:
    """Gold dependents of every node, in word order (``heads`` checked: :func:`~.configuration.gold_tree`)."""
    children: list[list[int]] = [[] for _ in heads]
    for d in range(1, len(heads)):
        children[heads[d]].append(d)
    return children


def projective_order(gold_heads: Sequence[int]) -> list[int]:
    """Position of every node in the projective order of Nivre (2009), §3.

    The order is the in-order traversal of the gold tree: each node comes
    after the subtrees of its left dependents and before those of its right
    dependents, siblings in word order. Sorting the words by it makes the
    tree projective. Iterative, linear time.
    """
    heads = gold_tree(gold_heads)[0]
    children = _children(heads)
    position = [0] * len(heads)
    count = 0
    todo: list[tuple[int, bool]] = [(0, False)]  # (node, its own turn has come)
    while todo:
        node, emit = todo.pop()
        if emit:
            position[node] = count
            count += 1
            continue
        kids = children[node]
        for child in reversed(kids):  # pushed right to left: popped left to right
            if child > node:
                todo.append((child, False))
        todo.append((node, True))
        for child in reversed(kids):
            if child < node:
                todo.append((child, False))
    return position


def projective_components(gold_heads: Sequence[int]) -> list[int]:
    """Maximal projective component of every node (Nivre, Kuhlmann & Hall 2009, §3).

    The components are the subtrees that arc-standard builds without swapping:
    run its canonical oracle (:func:`~treetool.oracles.canonical.bottom_up_run`, degree
    1) over the words in their original order until the buffer is empty;
    every word is attached, through gold arcs built in that run, to one of
    the items left on the stack, which names its component. (UDPipe's
    Parsito computes its lazy oracle's components the same way.)
    """
    heads = as_heads(gold_heads)
    return _components(heads, bottom_up_run(heads, 1)[2])


def _components(heads: list[int], roots: list[int]) -> list[int]:
    component = [-1] * len(heads)
    for root in roots:
        component[root] = root
    for w in range(1, len(heads)):
        path = []
        while component[w] < 0:
            path.append(w)
            w = heads[w]
        for v in path:
            component[v] = component[w]
    return component


def swap_oracle(
    gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, order: str = "eager",
    budget: Budget = UNLIMITED,
) -> list[Action] | None:
    """Static oracle of the swap system, eager (Nivre 2009 §3) or lazy (Nivre, Kuhlmann & Hall 2009).

    With s1, s0 the two top items: ``LA`` when s1's gold head is s0 and s1
    has all its gold dependents; ``RA`` when s0's gold head is s1 and s0 is
    complete; ``SW`` when s0 precedes s1 in the projective order
    (:func:`projective_order`) and, for ``lazy``, the buffer is empty or s0
    and b0 lie in different maximal projective components
    (:func:`projective_components`), which delays swaps until a component is
    built; otherwise ``SH``. Every tree is derived (Nivre 2009, Theorem 2);
    ``None`` is returned only for input that is not a tree.

    Fast path: on a projective tree the projective order is the word order,
    so no swap is ever taken and, LA and RA never being both applicable, the
    sequence is arc-standard's canonical one, which is tried first (its final
    stack also gives the components).

    A non-projective tree may need a swap per pair of words (n^2 / 4 for a
    random order): ``budget.check()`` runs every ``_CHECK_EVERY`` transitions.
    """
    if order not in SWAP_ORDERS:
        raise ValueError(f"order must be one of {', '.join(SWAP_ORDERS)}, got {order!r}")
    heads, gold_labels = gold_tree(gold_heads, gold_labels)
    actions, dependents, roots = bottom_up_run(heads, 1)
    if len(roots) == 1:
        return label_actions(actions, dependents, gold_labels)
    try:
        position = projective_order(heads)
    except ValueError:
        return None
    return swap_run(heads, gold_labels, position, _components(heads, roots) if order == "lazy" else None, budget)


def swap_run(
    heads: list[int], gold_labels: Sequence[str] | None, position: list[int], component: list[int] | None,
    budget: Budget = UNLIMITED,
) -> list[Action] | None:
    """The rules of :func:`swap_oracle` (``component`` None: eager), without the projective fast path."""
    n = len(heads) - 1
    pending = [0] * (n + 1)
    for d in range(1, n + 1):
        pending[heads[d]] += 1
    stack = [0]
    buffer = list(range(n, 0, -1))  # front at the end
    out: list[Action] = []
    act = out.append
    while True:
        if not len(out) % _CHECK_EVERY:
            budget.check()
        if len(stack) >= 2:
            s0, s1 = stack[-1], stack[-2]
            if heads[s1] == s0 and not pending[s1]:  # heads[0] == -1: never for s1 = 0
                act("LA" if gold_labels is None else f"LA({gold_labels[s1]})")
                pending[s0] -= 1
                del stack[-2]
                continue
            if heads[s0] == s1 and not pending[s0]:
                act("RA" if gold_labels is None else f"RA({gold_labels[s0]})")
                pending[s1] -= 1
                stack.pop()
                continue
            if position[s0] < position[s1] and (
                component is None or not buffer or component[s0] != component[buffer[-1]]
            ):
                act("SW")
                stack[-2] = s0
                stack.pop()
                buffer.append(s1)
                continue
        if not buffer:
            return out if len(stack) == 1 else None
        stack.append(buffer.pop())
        act("SH")


class Swap(TransitionSystem):
    """The swap system of Nivre (2009): arc-standard's transitions plus ``SW``.

    Stack ``[0]``, buffer ``1..n``. ``SH``, ``LA``, ``RA`` as in arc-standard
    (:class:`~treetool.oracles.attardi.ShiftReduce` of degree 1: ``LA``:
    ``s1 <- s0``, pop s1, s1 != 0; ``RA``: ``s1 -> s0``, pop s0); ``SW``: move
    s1 back to the front of the buffer (0 < s1 < s0, word indices). Final:
    stack ``[0]`` and empty buffer. Derives every tree (Nivre 2009; checked
    against exhaustive search). ``order`` selects the static oracle:
    ``eager`` (Nivre 2009) or ``lazy`` (Nivre, Kuhlmann & Hall 2009), see
    :func:`swap_oracle`. No dynamic oracle is published: the exhaustive search
    serves (arc-standard's, Nederhof 2019, does not know ``SW``).
    """

    name = "swap"
    monotonic = True  # SW moves a word, never an arc
    detached_words_final = True  # a word leaves the stack and buffer only when reduced, as in arc-standard
    option_names = ("order",)
    oracle_spec = OracleSpec(static="Nivre 2009, §3 (eager); Nivre, Kuhlmann & Hall 2009 (lazy)",
                             static_takes_budget=True)
    action_kinds = ActionKinds(order=("SH", "LA", "RA", "SW"), plain=("SH", "SW"), labelled=("LA", "RA"))
    exact_max_length = 7  # the search takes 61,650 configurations for 7 words, about 550,000 for 8 (14 s, labelled)

    def __init__(self, order: str = "eager") -> None:
        if order not in SWAP_ORDERS:
            raise ValueError(f"order must be one of {', '.join(SWAP_ORDERS)}, got {order!r}")
        self.order = order
        self._rules = ShiftReduce(1, self.name)

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        return self._rules.initial(n, labeled)

    def legal(self, config: Configuration) -> list[Action]:
        out = self._rules.legal(config)
        stack = config.stack
        if len(stack) >= 2 and 0 < stack[-2] < stack[-1]:
            out.append("SW")
        return out

    def apply(self, config: Configuration, action: Action) -> Configuration:
        kind, degree, label = parse_action(action)
        if kind != "SW":
            return self._rules.apply(config, action, kind, degree, label)
        stack = config.stack
        if degree != 1 or label is not None:
            raise IllegalAction(action, "SW takes no degree or label")
        if len(stack) < 2 or not 0 < stack[-2] < stack[-1]:
            raise IllegalAction(action, "needs 0 < s1 < s0")
        return Configuration(stack[:-2] + stack[-1:], stack[-2:-1] + config.buffer, config.heads, config.labels)

    def is_final(self, config: Configuration) -> bool:
        return self._rules.is_final(config)

    def new_arc(self, config: Configuration, kind: str) -> tuple[int, int] | None:
        """As arc-standard's (:meth:`ShiftReduce.new_arc`); ``SW`` builds none."""
        return self._rules.new_arc(config, kind)

    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                      budget: Budget | None = None) -> list[Action] | None:
        """:func:`swap_oracle`; quadratic in the worst case, hence the ``budget``."""
        return swap_oracle(gold_heads, gold_labels, self.order, UNLIMITED if budget is None else budget)

    def can_derive(self, gold_heads: Sequence[int], *, budget: Budget | None = None) -> bool:
        """Exact: the swap system derives every tree (Nivre 2009); a head list that is not one raises
        :class:`~treetool.oracles.errors.InvalidGoldTree`, as every oracle does."""
        gold_tree(gold_heads)
        return True
