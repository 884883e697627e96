"""The transition-system interface shared by every system, oracle and search.

Conventions (fixed project-wide, see ``notes/oracle_interface.md``):

* Token 0 is the artificial root. A gold tree is ``gold_heads`` (n+1 ints,
  ``gold_heads[0] == -1``) and optionally ``gold_labels`` (n+1 strings,
  ``gold_labels[0] == ""``).
* A :class:`Configuration` holds the stack (bottom .. top), the buffer (front
  first), the heads built so far (-1: no head yet) and, when labelled, the
  labels built so far.
* Transitions are spelled as strings: ``SH`` shift, ``LA`` left-arc (the head
  is the right item), ``RA`` right-arc (the head is the left item), ``RE``
  reduce, ``SW`` swap, ``LAk`` / ``RAk`` (k >= 2) Attardi reductions of degree
  k; a labelled transition adds its label: ``LA(nsubj)``, ``RA2(obj)``.
  :func:`parse_action` and :func:`format_action` are the only places that
  know the spelling.

Two optional class attributes describe a system to the generic search
(``treetool.oracles.search``); both default to ``False``, which is always safe:

* ``monotonic``: an arc, once built, is never removed or changed (Honnibal et
  al. 2013 §2.1 sense; not Cohen et al. 2012's closure property, which the
  bottom-up module calls "μ-closed").
* ``detached_words_final``: a word on neither the stack nor the buffer is
  finished: no later transition adds, removes or changes an arc touching it
  (as head or as dependent) and ``legal``/``apply``/``is_final`` do not look
  at it. True of every stack-and-buffer system of Nivre (2008), hence of all
  built-in systems; it lets the search memoise on the active words only and
  prune configurations that can no longer reach the gold tree.
"""

from __future__ import annotations

import importlib
import inspect
import re
from abc import ABC, abstractmethod
from functools import lru_cache
from typing import Any, Iterable, NamedTuple, Protocol, Sequence

from .vocabulary import ActionKinds, ActionVocabulary

Action = str

__all__ = [
    "Action",
    "Configuration",
    "DynamicOracle",
    "IllegalAction",
    "OracleUnavailable",
    "IncompleteDerivation",
    "SystemSpecError",
    "TransitionSystem",
    "SYSTEMS",
    "parse_action",
    "format_action",
    "with_label",
    "attach",
    "as_heads",
    "get_system",
    "load_system",
    "make_system",
    "has_own_static_oracle",
]


class Configuration(NamedTuple):
    """An immutable parser configuration (hashable, so searches can memoise on it).

    A named tuple rather than a frozen dataclass: a walk builds one per
    transition, and a tuple is built and hashed in C (about half the time).
    """

    stack: tuple[int, ...]  # bottom .. top (s0 is stack[-1])
    buffer: tuple[int, ...]  # front first (b0 is buffer[0])
    heads: tuple[int, ...]  # n+1 entries, heads[0] = -1, -1 = no head yet
    labels: tuple[str | None, ...] | None = None  # n+1 entries when labelled

    @property
    def n(self) -> int:
        """Number of words (the root 0 not counted)."""
        return len(self.heads) - 1


class IllegalAction(ValueError):
    """An action that is misspelled or not legal in the configuration it is applied to.

    ``step`` (1-based position in the replayed sequence) is filled in by
    :meth:`TransitionSystem.run`; ``apply`` alone leaves it ``None``.
    """

    def __init__(self, action: str, reason: str, step: int | None = None) -> None:
        super().__init__(action, reason, step)
        self.action = action
        self.reason = reason
        self.step = step

    def __str__(self) -> str:
        where = f"step {self.step}: " if self.step is not None else ""
        return f"{where}illegal action {self.action!r}: {self.reason}"


class IncompleteDerivation(ValueError):
    """A replayed sequence that ends before reaching a final configuration."""


class SystemSpecError(ValueError):
    """An unknown system name, a bad option, or a user class that cannot be loaded."""


class OracleUnavailable(ValueError):
    """No dynamic oracle can serve this sentence (e.g. too long for the exact search); the message says why."""


class DynamicOracle(Protocol):
    """Costs of actions in any configuration, for one gold tree (one sentence).

    Definitions (papers/000 §2.2): the loss of a configuration is the
    smallest number of wrong words (wrong head; with gold labels, or wrong
    label) over the final configurations reachable from it; the cost of a
    legal action is the loss after it minus the loss before it.

    Keys of :meth:`costs` are the spellings of ``legal(config)`` when the
    oracle has no gold labels; with gold labels an action that attaches a
    word is keyed by its spelling labelled with that word's gold label
    (``"LA(nsubj)"``, nm-arc-eager's attaching ``"RE(obj)"``), its best
    labelling. Costs are ints. An oracle may keep bookkeeping along a walk
    (successive calls on successive configurations) but answers correctly on
    any configuration.
    """

    def costs(self, config: Configuration) -> dict[Action, int]:
        """The cost of every legal action of ``config``, and of no other."""
        ...

    def optimal(self, config: Configuration) -> list[Action]:
        """The actions of cost 0, in ``legal()`` order (keys spelled as in :meth:`costs`)."""
        ...


# --------------------------------------------------------------------------
# action spelling
# --------------------------------------------------------------------------

_SPELLING = re.compile(r"([A-Z]+)([0-9]*)(?:\((.+)\))?")


@lru_cache(maxsize=8192)
def parse_action(action: Action) -> tuple[str, int, str | None]:
    """Split a spelling into ``(kind, degree, label)``: ``"RA2(obj)" -> ("RA", 2, "obj")``.

    ``degree`` is 1 unless a number follows the kind (``LA1`` is ``LA``);
    ``label`` is ``None`` for an unlabelled spelling. A malformed spelling
    raises :class:`IllegalAction`.
    """
    match = _SPELLING.fullmatch(action) if isinstance(action, str) else None
    if match is None:
        raise IllegalAction(str(action), "not a transition spelling (e.g. SH, LA, RA2, LA(nsubj))")
    kind, digits, label = match.groups()
    degree = int(digits) if digits else 1
    if degree < 1:
        raise IllegalAction(action, "the degree of a reduction is at least 1")
    return kind, degree, label


def format_action(kind: str, degree: int = 1, label: str | None = None) -> Action:
    """The canonical spelling: degree shown only when >= 2, label in parentheses."""
    text = kind if degree == 1 else f"{kind}{degree}"
    return text if label is None else f"{text}({label})"


def with_label(action: Action, label: str | None) -> Action:
    """``action`` respelled with ``label`` (``None`` drops the label)."""
    kind, degree, _ = parse_action(action)
    return format_action(kind, degree, label)


def attach(
    config: Configuration, dep: int, head: int, label: str | None
) -> tuple[tuple[int, ...], tuple[str | None, ...] | None]:
    """New ``(heads, labels)`` of ``config`` with the arc ``head -> dep`` (replacing any old one)."""
    heads = config.heads[:dep] + (head,) + config.heads[dep + 1 :]
    labels = config.labels
    if labels is not None:
        labels = labels[:dep] + (label,) + labels[dep + 1 :]
    return heads, labels


def as_heads(gold_heads: Any) -> list[int]:
    """``gold_heads`` as a plain list of ints (numpy arrays included), for tight loops."""
    if isinstance(gold_heads, list):
        return gold_heads
    if hasattr(gold_heads, "tolist"):
        return gold_heads.tolist()
    return [int(h) for h in gold_heads]


# --------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------


class TransitionSystem(ABC):
    """Base class of every transition system (built-in or user-defined).

    Subclasses implement :meth:`initial`, :meth:`legal`, :meth:`apply` and
    :meth:`is_final`; a system without its own :meth:`static_oracle` gets the
    generic search of ``treetool.oracles.search`` (complete for monotonic systems).
    """

    name: str = "custom"
    monotonic: bool = False
    detached_words_final: bool = False
    bottom_up: bool = False  # bottom-up shift-reduce (Cohen et al. 2012 §2.3): the static oracle is the canonical one
    exact_dynamic_oracle: str = "any"
    """How exact :meth:`dynamic_oracle` is: ``"any"`` (exact for every gold tree), ``"projective"``
    (exact for projective gold trees only) or ``"none"`` (approximate; the docstring gives the rate)."""
    action_kinds: ActionKinds | None = None
    """The transitions, for :meth:`actions` (``treetool.oracles.vocabulary``); ``None``: no vocabulary."""

    @abstractmethod
    def initial(self, n: int, labeled: bool = False) -> Configuration:
        """The initial configuration for a sentence of ``n`` words."""

    @abstractmethod
    def legal(self, config: Configuration) -> list[Action]:
        """The unlabelled transitions legal in ``config``, in a fixed order."""

    @abstractmethod
    def apply(self, config: Configuration, action: Action) -> Configuration:
        """The configuration after ``action``; raises :class:`IllegalAction` if it is not legal."""

    @abstractmethod
    def is_final(self, config: Configuration) -> bool:
        """True when a computation may end in ``config``."""

    # ---------------------------------------------------------- training
    def actions(self, labels: Iterable[str] | None = None) -> ActionVocabulary:
        """Every action with an integer id, labelled with ``labels`` (e.g. ``treetool.labels(treebank)``).

        The fixed order, the cost vectors and legal masks over it:
        ``treetool.oracles.vocabulary``. ``None``: the unlabelled transitions.
        """
        return ActionVocabulary(self, labels)

    def new_arc(self, config: Configuration, kind: str) -> tuple[int, int] | None:
        """The arc ``(head, dependent)`` that the legal unlabelled transition ``kind`` builds in ``config``, if any.

        Default: apply it and compare the heads (O(n)); built-in systems
        answer in O(1) from the stack and buffer.
        """
        after = self.apply(config, kind)
        for word, (before, now) in enumerate(zip(config.heads, after.heads)):
            if before != now:
                return now, word
        return None

    # ---------------------------------------------------------- oracles
    def static_oracle(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None) -> list[Action] | None:
        """A transition sequence deriving the gold tree, or ``None`` when there is none.

        Default: the generic memoised search (``treetool.oracles.search.search_oracle``)
        without a budget; built-in systems override it with a linear-time oracle.
        """
        from .search import search_oracle

        return search_oracle(self, gold_heads, gold_labels)

    def can_derive(self, gold_heads: Sequence[int]) -> bool:
        """True when some computation of the system builds exactly this tree.

        Default: the static oracle succeeds (exact when the oracle is complete);
        built-in systems override it with their fastest exact test.
        """
        return self.static_oracle(gold_heads) is not None

    # ---------------------------------------------------------- dynamic oracles
    def dynamic_oracle(
        self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *, max_length: int | None = 10
    ) -> DynamicOracle:
        """The system's dynamic oracle for one gold tree (reuse it for every configuration of the sentence).

        Default: :meth:`exact_oracle`, the exhaustive search, which refuses
        sentences longer than ``max_length`` (``None``: no limit) with
        :class:`OracleUnavailable`. Systems with a published oracle override
        this and ignore ``max_length``.
        """
        return self.exact_oracle(gold_heads, gold_labels, max_length=max_length)

    def exact_oracle(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        *,
        max_length: int | None = 10,
        budget: Any = None,
    ) -> DynamicOracle:
        """The exact oracle (exhaustive search, ``treetool.oracles.search.ExactOracle``) for any system.

        Its cost grows exponentially with the sentence, hence ``max_length``;
        ``budget`` (``treetool.oracles.search.Budget``) bounds each search and raises
        ``BudgetExceeded`` when exceeded.
        """
        from .search import ExactOracle

        n = len(gold_heads) - 1
        if max_length is not None and n > max_length:
            raise OracleUnavailable(f"exact search is limited to {max_length} words; this sentence has {n}")
        return ExactOracle(self, gold_heads, gold_labels, budget)

    def costs(
        self, config: Configuration, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None
    ) -> dict[Action, int]:
        """``dynamic_oracle(gold_heads, gold_labels).costs(config)``: one-off use (no reuse across steps)."""
        return self.dynamic_oracle(gold_heads, gold_labels).costs(config)

    def optimal(
        self, config: Configuration, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None
    ) -> list[Action]:
        """``dynamic_oracle(gold_heads, gold_labels).optimal(config)``: one-off use."""
        return self.dynamic_oracle(gold_heads, gold_labels).optimal(config)

    # ---------------------------------------------------------- replay
    def run(self, actions: Iterable[Action], n: int, labeled: bool | None = None) -> Configuration:
        """Apply ``actions`` from the initial configuration; the configuration reached.

        ``labeled=None`` starts a labelled configuration when any action in
        ``actions`` carries a label. An illegal action raises
        :class:`IllegalAction` naming its 1-based step.
        """
        actions = list(actions)
        if labeled is None:
            labeled = any(a.endswith(")") for a in actions if isinstance(a, str))
        config = self.initial(n, labeled=labeled)
        for step, action in enumerate(actions, 1):
            try:
                config = self.apply(config, action)
            except IllegalAction as err:
                raise IllegalAction(err.action, err.reason, step) from None
        return config

    def replay(self, actions: Iterable[Action], n: int, labeled: bool | None = None) -> Configuration:
        """Like :meth:`run`, but the sequence must end in a final configuration."""
        actions = list(actions)
        config = self.run(actions, n, labeled)
        if not self.is_final(config):
            raise IncompleteDerivation(
                f"the {len(actions)} transitions end in a configuration that is not final "
                f"(stack {list(config.stack)}, buffer {list(config.buffer)})"
            )
        return config

    def describe(self) -> str:
        """Name with options, e.g. ``attardi (degree=2)``."""
        options = ", ".join(f"{k}={v}" for k, v in self.options().items())
        return f"{self.name} ({options})" if options else self.name

    def options(self) -> dict[str, Any]:
        """The constructor options of this instance (empty for option-less systems)."""
        return {}

    parse_action = staticmethod(parse_action)
    format_action = staticmethod(format_action)


def has_own_static_oracle(system: TransitionSystem) -> bool:
    """True when ``system`` overrides the generic search with a static oracle of its own."""
    method = system.static_oracle
    return getattr(method, "__func__", method) is not TransitionSystem.static_oracle


# --------------------------------------------------------------------------
# registry and user systems
# --------------------------------------------------------------------------

SYSTEMS: dict[str, str] = {
    "arc-standard": "treetool.oracles.arc_standard:ArcStandard",
    "arc-hybrid": "treetool.oracles.arc_hybrid:ArcHybrid",
    "arc-eager": "treetool.oracles.arc_eager:ArcEager",
    "nm-arc-eager": "treetool.oracles.arc_eager:NonMonotonicArcEager",
    "attardi": "treetool.oracles.attardi:Attardi",
    "swap": "treetool.oracles.swap:Swap",
}
"""Built-in system names -> ``module:Class`` (imported on first use)."""


def _import_class(spec: str) -> type:
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise SystemSpecError(f"{spec!r}: expected package.module:ClassName")
    try:
        module = importlib.import_module(module_name)
    except Exception as err:  # an import error of any kind is the user's, report it on one line
        raise SystemSpecError(f"{spec}: cannot import {module_name}: {type(err).__name__}: {err}") from None
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise SystemSpecError(f"{spec}: module {module_name} has no attribute {class_name}") from None


_REQUIRED = ("initial", "legal", "apply", "is_final")


def _instantiate(cls: type, label: str, options: dict[str, Any]) -> TransitionSystem:
    """``cls(**options)`` with every failure turned into a one-line :class:`SystemSpecError`."""
    options = {k: v for k, v in options.items() if v is not None}
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        parameters = []
    accepted = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    takes_any = any(p.kind == p.VAR_KEYWORD for p in parameters)
    unknown = [] if takes_any else sorted(set(options) - set(accepted))
    if unknown:
        allowed = ", ".join(accepted) if accepted else "none"
        raise SystemSpecError(f"{label} does not take option {', '.join(unknown)} (its options: {allowed})")
    try:
        return cls(**options)
    except (TypeError, ValueError) as err:
        raise SystemSpecError(f"{label}: {err}") from None


def get_system(name: str, **options: Any) -> TransitionSystem:
    """A built-in system by name, e.g. ``get_system("attardi", degree=2)``.

    Options whose value is ``None`` are ignored (so a CLI can pass every
    option it has); an option the system does not take is an error.
    """
    if name not in SYSTEMS:
        raise SystemSpecError(f"unknown transition system {name!r} (choose from {', '.join(SYSTEMS)})")
    return _instantiate(_import_class(SYSTEMS[name]), name, options)


def load_system(spec: str, **options: Any) -> TransitionSystem:
    """A user's system from ``package.module:ClassName`` (the module must be importable).

    The class must implement ``initial``, ``legal``, ``apply`` and ``is_final``:
    a :class:`TransitionSystem` subclass is used as is; any other class with
    those methods is wrapped so that ``run``, ``static_oracle`` etc. work.
    """
    cls = _import_class(spec)
    if not isinstance(cls, type):
        raise SystemSpecError(f"{spec}: not a class")
    missing = [m for m in _REQUIRED if not callable(getattr(cls, m, None))]
    if missing:
        raise SystemSpecError(f"{spec}: does not implement the transition-system interface (missing {', '.join(missing)})")
    if issubclass(cls, TransitionSystem):
        abstract = sorted(getattr(cls, "__abstractmethods__", ()))
        if abstract:
            raise SystemSpecError(f"{spec}: abstract methods not implemented: {', '.join(abstract)}")
        return _instantiate(cls, spec, options)
    return _Wrapped(_instantiate(cls, spec, options), spec)


def make_system(spec: str, **options: Any) -> TransitionSystem:
    """A built-in name (:data:`SYSTEMS`) or a ``package.module:ClassName`` spec."""
    if spec in SYSTEMS or ":" not in spec:
        return get_system(spec, **options)
    return load_system(spec, **options)


class _Wrapped(TransitionSystem):
    """Adapter giving a duck-typed user class the helpers of :class:`TransitionSystem`."""

    def __init__(self, inner: Any, spec: str) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", spec)
        self.monotonic = bool(getattr(inner, "monotonic", False))
        self.detached_words_final = bool(getattr(inner, "detached_words_final", False))
        self.action_kinds = getattr(inner, "action_kinds", None)
        if callable(getattr(inner, "static_oracle", None)):
            self.static_oracle = inner.static_oracle  # type: ignore[method-assign]

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        return self.inner.initial(n, labeled)

    def legal(self, config: Configuration) -> list[Action]:
        return self.inner.legal(config)

    def apply(self, config: Configuration, action: Action) -> Configuration:
        return self.inner.apply(config, action)

    def is_final(self, config: Configuration) -> bool:
        return self.inner.is_final(config)
