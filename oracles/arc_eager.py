"""Arc-eager (Nivre 2003) with the root at the end of the buffer or at the bottom of the stack, and its non-monotonic variants.

Conventions follow Honnibal, Goldberg & Johnson (2013), §2, by
default (``root="last"``): the stack starts empty and the buffer holds
``1..n`` followed by the root 0, which may be shifted only onto an empty
stack. ``root="first"`` is arc-eager as in Nivre (2008) and Goldberg &
Nivre (2012) §3: the stack starts as ``[0]``, the buffer is ``1..n``.
"""

from __future__ import annotations

from typing import Sequence

from treetool.budget import Budget

from .configuration import Action, Configuration, attach, gold_tree, no_arcs, parse_action
from .dynamic import ArcEagerOracle, NonMonotonicArcEagerOracle
from .errors import IllegalAction
from .layout import check_root
from .option_values import NM_VARIANTS, REDUCE_MODES
from .spec import OracleSpec
from .system import TransitionSystem
from .vocabulary import ActionKinds

__all__ = ["ArcEager", "NonMonotonicArcEager", "arc_eager_oracle", "REDUCE_MODES", "NM_VARIANTS"]


def arc_eager_oracle(
    gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, reduce: str = "eager", root: str = "last",
    *, empty_stack: bool = False,
) -> list[Action] | None:
    """The usual static oracle of arc-eager (Nivre 2003, 2008), with the root ``last`` or ``first``.

    In priority order: ``LA`` when s0's gold head is b0; ``RA`` when b0's gold
    head is s0; ``RE`` when s0 has its head and all its gold dependents and
    ``reduce`` says so; otherwise ``SH``. ``reduce="eager"`` reduces as soon
    as that is safe; ``"lazy"`` only when it is needed, i.e. when b0's gold
    head or a headless gold dependent of b0 lies below s0 on the stack, or b0
    is the root (Nivre 2008 §4.2's condition). A reduction of s0 while it
    still misses dependents would lose them, so the oracle then returns
    ``None``, as it does when it gets stuck or, root first, when the buffer
    runs out with a word still headless. ``empty_stack`` (root first, for
    variant D, whose final stack is ``[0]``): then reduce the words left on
    the stack. Only gold arcs are built; the
    oracle derives every projective tree and no other (checked against
    exhaustive search). Linear time: the lazy test uses two counters.
    """
    if reduce not in REDUCE_MODES:
        raise ValueError(f"reduce must be one of {', '.join(REDUCE_MODES)}, got {reduce!r}")
    check_root(root)
    lazy = reduce == "lazy"
    heads, gold_labels = gold_tree(gold_heads, gold_labels)
    n = len(heads) - 1
    pending = [0] * (n + 1)  # gold dependents not yet attached
    for d in range(1, n + 1):
        pending[heads[d]] += 1
    has_head = [False] * (n + 1)
    on_stack = [False] * (n + 1)
    waiting = [0] * (n + 1)  # headless words on the stack, counted at their gold head
    stack: list[int] = [] if root == "last" else [0]
    on_stack[0] = root == "first"
    out: list[Action] = []
    act = out.append
    nxt = 1  # b0 = nxt for nxt <= n, the root 0 for nxt == n + 1 (root last); empty buffer after
    last = n + 1 if root == "last" else n
    while nxt <= last:
        b0 = nxt if nxt <= n else 0
        if stack:
            s0 = stack[-1]
            if heads[s0] == b0 and not has_head[s0]:  # heads[0] == -1: never for s0 = 0
                if pending[s0]:
                    return None  # s0 must leave now, but still lacks dependents
                act("LA" if gold_labels is None else f"LA({gold_labels[s0]})")
                pending[b0] -= 1
                waiting[b0] -= 1
                has_head[s0] = True
                on_stack[s0] = False
                stack.pop()
                continue
            if b0 and heads[b0] == s0:
                act("RA" if gold_labels is None else f"RA({gold_labels[b0]})")
                pending[s0] -= 1
                has_head[b0] = on_stack[b0] = True
                stack.append(b0)
                nxt += 1
                continue
            if has_head[s0]:
                needed = b0 == 0 or on_stack[heads[b0]] or waiting[b0]  # s0 hides b0's arc
                if needed and pending[s0]:
                    return None  # s0 must leave for b0, but still lacks dependents
                if needed or not (lazy or pending[s0]):
                    act("RE")
                    on_stack[s0] = False
                    stack.pop()
                    continue
            if b0 == 0:
                return None  # the root may only be shifted onto an empty stack
        act("SH")
        if b0:
            on_stack[b0] = True
            waiting[heads[b0]] += 1
        stack.append(b0)
        nxt += 1
    if not all(has_head[1:]):
        return None
    return out + ["RE"] * (len(stack) - 1) if empty_stack and root == "first" else out


class ArcEager(TransitionSystem):
    """Arc-eager (Nivre 2003), the root last as in Honnibal et al. (2013) §2 or first as in Nivre (2008).

    ``root="last"`` (the default): stack ``[]``, buffer ``1..n, 0``. ``SH``:
    move b0 to the stack (the root 0 only onto an empty stack). ``LA``:
    ``b0 -> s0``, pop (s0 has no head). ``RA``: ``s0 -> b0``, push b0 (b0 !=
    0). ``RE``: pop (s0 has a head). Final: empty buffer.

    ``root="first"``: stack ``[0]``, buffer ``1..n``; the same transitions,
    with ``LA`` refused on the root (s0 != 0) and ``RA`` from it allowed
    (``0 -> b0``). Final: empty buffer (Nivre 2008's terminal condition),
    where the computation ends: no transition is legal then, and the words
    left on the stack without a head stay headless (wrong, for the loss);
    with the root last the same holds by construction (the stack is
    ``[0]``). Goldberg & Nivre (2012) §3 define the dynamic oracle on this
    system (§4: training with it). Variant D of :class:`NonMonotonicArcEager`
    differs at the end (its docstring).

    Both derive exactly the projective trees (checked against exhaustive
    search). ``reduce`` (``eager``/``lazy``) selects the static oracle's
    reduce policy (:func:`arc_eager_oracle`).
    """

    name = "arc-eager"
    monotonic = True
    detached_words_final = True
    action_kinds = ActionKinds(order=("SH", "LA", "RA", "RE"), plain=("SH", "RE"), labelled=("LA", "RA"))
    oracle_spec = OracleSpec(static="Nivre 2003; Goldberg & Nivre 2012, §3 (eager or lazy reduce)",
                             static_takes_budget=False, published="Goldberg & Nivre 2012", exact_on="projective",
                             takes_budget=False, options=())
    option_names = ("reduce", "root")
    nm_left = False  # Left-Arc may replace an existing head (variant L)
    nm_reduce = False  # Reduce may attach a headless s0 to s1 (variant D)

    def __init__(self, reduce: str = "eager", root: str = "last") -> None:
        if reduce not in REDUCE_MODES:
            raise ValueError(f"reduce must be one of {', '.join(REDUCE_MODES)}, got {reduce!r}")
        check_root(root)
        self.reduce = reduce
        self.root = root
        self.root_last = root == "last"

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        heads, labels = no_arcs(n, labeled)
        stack, buffer = ((), tuple(range(1, n + 1)) + (0,)) if self.root_last else ((0,), tuple(range(1, n + 1)))
        return Configuration(stack, buffer, heads, labels)

    def legal(self, config: Configuration) -> list[Action]:
        return [kind for kind in ("SH", "LA", "RA", "RE") if self._is_legal(config, kind)]

    def _is_legal(self, config: Configuration, kind: str) -> bool:
        """The rules of ``legal`` for one transition: ``apply`` checks only the one it is asked for."""
        stack, buffer = config.stack, config.buffer
        if kind == "SH":
            return bool(buffer) and (buffer[0] != 0 or not stack)
        if not stack or not (buffer or self.root_last or (kind == "RE" and self.nm_reduce)):
            return False  # root first: the computation ends with the buffer (variant D: once reduced to [0])
        if kind == "RE":
            return config.heads[stack[-1]] != -1 or (self.nm_reduce and len(stack) >= 2)
        if not buffer:
            return False
        if kind == "LA":
            return stack[-1] != 0 and (self.nm_left or config.heads[stack[-1]] == -1)
        return buffer[0] != 0  # RA

    def apply(self, config: Configuration, action: Action) -> Configuration:
        kind, degree, label = parse_action(action)
        if degree != 1 or kind not in ("SH", "LA", "RA", "RE"):
            raise IllegalAction(action, f"{self.name} has no transition {action}")
        if label is not None and config.labels is None:
            raise IllegalAction(action, "a labelled transition needs a labelled configuration")
        if not self._is_legal(config, kind):
            raise IllegalAction(action, self._why_not(config, kind))
        stack, buffer = config.stack, config.buffer
        if kind == "SH":
            if label is not None:
                raise IllegalAction(action, "SH takes no label")
            return Configuration(stack + buffer[:1], buffer[1:], config.heads, config.labels)
        if kind == "LA":
            heads, labels = attach(config, stack[-1], buffer[0], label)
            return Configuration(stack[:-1], buffer, heads, labels)
        if kind == "RA":
            heads, labels = attach(config, buffer[0], stack[-1], label)
            return Configuration(stack + buffer[:1], buffer[1:], heads, labels)
        if config.heads[stack[-1]] != -1:  # an ordinary reduce
            if label is not None:
                raise IllegalAction(action, "RE takes a label only when it attaches a headless s0 (variant D)")
            return Configuration(stack[:-1], buffer, config.heads, config.labels)
        heads, labels = attach(config, stack[-1], stack[-2], label)  # variant D: s1 -> s0
        return Configuration(stack[:-1], buffer, heads, labels)

    def _why_not(self, config: Configuration, kind: str) -> str:
        stack, buffer = config.stack, config.buffer
        if kind == "SH":
            return "the buffer is empty" if not buffer else "the root 0 may only be shifted onto an empty stack"
        if not stack:
            return "the stack is empty"
        if not buffer:
            return "the buffer is empty: the computation has ended"
        if kind == "LA":
            return "the root 0 cannot be a dependent" if stack[-1] == 0 else "s0 already has a head"
        if kind == "RA":
            return "the buffer is empty" if not buffer else "the root 0 cannot be a dependent"
        return "s0 has no head yet"

    def is_final(self, config: Configuration) -> bool:
        return not config.buffer and (self.root_last or not self.nm_reduce or len(config.stack) == 1)

    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                      budget: Budget | None = None) -> list[Action] | None:
        """:func:`arc_eager_oracle` with this system's ``reduce`` and ``root`` (linear: no budget needed)."""
        return arc_eager_oracle(gold_heads, gold_labels, self.reduce, self.root)

    def dynamic_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                       budget: Budget | None = None) -> ArcEagerOracle:
        """Goldberg & Nivre (2012)'s oracle (:class:`treetool.oracles.dynamic.ArcEagerOracle`); any length.

        Constant time per step: no budget needed.
        """
        return ArcEagerOracle(gold_heads, gold_labels, root=self.root).built_by(self)

    def new_arc(self, config: Configuration, kind: str) -> tuple[int, int] | None:
        """``LA``: ``b0 -> s0``; ``RA``: ``s0 -> b0``; ``RE``: none, or ``s1 -> s0`` when it attaches (variant D)."""
        stack = config.stack
        if kind == "LA":
            return config.buffer[0], stack[-1]
        if kind == "RA":
            return stack[-1], config.buffer[0]
        if kind == "RE" and config.heads[stack[-1]] == -1:
            return stack[-2], stack[-1]
        return None

    def can_derive(self, gold_heads: Sequence[int], *, budget: Budget | None = None) -> bool:
        """Exact: the system derives exactly the projective trees."""
        from treetool.trees import is_projective  # not at the top: it imports numpy, which other commands skip

        return is_projective(gold_tree(gold_heads)[0])


_NM_SPEC = OracleSpec(static=ArcEager.oracle_spec.static, static_takes_budget=False,
                      published="Honnibal, Goldberg & Johnson 2013, §5.2", exact_on="projective", takes_budget=False,
                      options=("prefer_monotonic", "published"), narrowing=("prefer_monotonic",))
_NM_D_SPEC = OracleSpec(static=ArcEager.oracle_spec.static, static_takes_budget=False,
                        published="Honnibal, Goldberg & Johnson 2013, §5.2", exact_on="none", takes_budget=False,
                        options=("prefer_monotonic", "published"), narrowing=("prefer_monotonic",))


class NonMonotonicArcEager(ArcEager):
    """Non-monotonic arc-eager of Honnibal, Goldberg & Johnson (2013) §3.

    Arc-eager (:class:`ArcEager`) with, per ``variant``:

    * ``L`` (§3.1): ``LA`` is also legal when s0 already has a head; the old
      arc is replaced by ``b0 -> s0``.
    * ``D`` (§3.2): ``RE`` is also legal when s0 has no head and the stack
      has at least two items; it then adds ``s1 -> s0`` before popping. The
      paper reuses the label scored when s0 was pushed; here ``RE(x)`` sets
      label x (the alternative of the paper's footnote 2) and a bare ``RE``
      leaves the label unset.
    * ``LD``: both.

    Every arc-eager sequence is a valid sequence here with the same effect,
    and these systems derive exactly the projective trees too (checked
    against exhaustive search), so the static oracle is arc-eager's.
    ``root`` as in :class:`ArcEager`: the paper puts the root last; with it
    first the variants change the same transitions of Nivre (2008)'s
    arc-eager (``LA`` still never takes the root as dependent), and variant
    D keeps reducing once the buffer is empty, attaching each headless s0
    to s1, until the stack is ``[0]``, its final configuration. With the
    root last the root at the end of the buffer guarantees that chance;
    without it Δ_NMD(SH) = -[g(b0) = s0] would not hold for the last word.
    """

    name = "nm-arc-eager"
    monotonic = False
    option_names = ("variant", "reduce", "root")

    def __init__(self, variant: str = "LD", reduce: str = "eager", root: str = "last") -> None:
        if variant not in NM_VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(NM_VARIANTS)}, got {variant!r}")
        super().__init__(reduce, root)
        self.variant = variant
        self.nm_left = "L" in variant
        self.nm_reduce = "D" in variant
        if self.nm_reduce:  # RE also attaches a headless s0, with a label
            self.action_kinds = ActionKinds(order=("SH", "LA", "RA", "RE"), plain=("SH", "RE"),
                                            labelled=("LA", "RA", "RE"))

    def dynamic_oracle(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        *,
        budget: Budget | None = None,
        prefer_monotonic: bool = False,
        published: bool = True,
    ) -> NonMonotonicArcEagerOracle:
        """Honnibal et al. (2013) §5.2's oracle for this variant (:class:`treetool.oracles.dynamic.NonMonotonicArcEagerOracle`).

        ``prefer_monotonic``: §6's preference in ``optimal``; ``published=False``
        corrects variant D's reduce cost, which makes it exact for projective
        gold trees (L and LD are already). Any length; constant time per step, so no budget is needed.
        """
        return NonMonotonicArcEagerOracle(gold_heads, gold_labels, self.variant, prefer_monotonic, published,
                                          root=self.root).built_by(self)

    @property
    def oracle_spec(self) -> OracleSpec:  # type: ignore[override]
        """Exact for projective gold trees, but for variant D, whose published reduce cost is not (class doc)."""
        return _NM_D_SPEC if self.variant == "D" else _NM_SPEC

    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                      budget: Budget | None = None) -> list[Action] | None:
        """Arc-eager's (:func:`arc_eager_oracle`); with the root first, variant D then reduces the stack to ``[0]``."""
        return arc_eager_oracle(gold_heads, gold_labels, self.reduce, self.root, empty_stack=self.nm_reduce)

    def _why_not(self, config: Configuration, kind: str) -> str:
        if kind == "RE" and config.stack and self.nm_reduce:
            return "s0 has no head and no s1 to attach it to"
        return super()._why_not(config, kind)
