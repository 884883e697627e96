"""Transition systems by name: the built-in ones (:data:`SYSTEMS`) and a user's own ``package.module:ClassName``.

Above every system module: the registry imports the systems (by name, on
first use), and no system imports the registry, so naming the systems here
makes no import cycle with the interface they implement
(``treetool.oracles.system``).
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence

from treetool.budget import Budget

from .base import instantiate
from .configuration import Action, Configuration, DynamicOracle
from .errors import SystemSpecError
from .spec import SEARCH_ONLY
from .system import TransitionSystem

__all__ = ["SYSTEMS", "get_system", "load_system", "make_system"]

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


def get_system(name: str, **options: Any) -> TransitionSystem:
    """A built-in system by name, e.g. ``get_system("attardi", degree=2)``.

    Options whose value is ``None`` are ignored (so a CLI can pass every
    option it has); an option the system does not take is an error.
    """
    if name not in SYSTEMS:
        raise SystemSpecError(f"unknown transition system {name!r} (choose from {', '.join(SYSTEMS)})")
    return instantiate(_import_class(SYSTEMS[name]), name, options)


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
        return instantiate(cls, spec, options)
    return _Wrapped(instantiate(cls, spec, options), spec)


def make_system(spec: str, **options: Any) -> TransitionSystem:
    """A built-in name (:data:`SYSTEMS`) or a ``package.module:ClassName`` spec."""
    if spec in SYSTEMS or ":" not in spec:
        return get_system(spec, **options)
    return load_system(spec, **options)


class _Wrapped(TransitionSystem):
    """Adapter giving a duck-typed user class the helpers of :class:`TransitionSystem`.

    The declarations it makes (``name``, ``monotonic``, ``detached_words_final``,
    ``oracle_spec``, ``action_kinds``, ``exact_max_length``) are kept; its ``static_oracle`` and ``dynamic_oracle`` are
    used when its spec declares them, the searches otherwise.
    """

    def __init__(self, inner: Any, spec: str) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", spec)
        self.monotonic = bool(getattr(inner, "monotonic", False))
        self.detached_words_final = bool(getattr(inner, "detached_words_final", False))
        self.oracle_spec = getattr(inner, "oracle_spec", SEARCH_ONLY)
        self.action_kinds = getattr(inner, "action_kinds", None)
        self.exact_max_length = getattr(inner, "exact_max_length", TransitionSystem.exact_max_length)

    def static_oracle(
        self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *, budget: Budget | None = None
    ) -> list[Action] | None:
        if self.oracle_spec.static is None:
            return super().static_oracle(gold_heads, gold_labels, budget=budget)
        return self.inner.static_oracle(gold_heads, gold_labels, budget=budget)

    def dynamic_oracle(
        self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *, budget: Budget | None = None,
        **options: Any,
    ) -> DynamicOracle:
        if self.oracle_spec.published is None:
            return super().dynamic_oracle(gold_heads, gold_labels, budget=budget, **options)
        return self.inner.dynamic_oracle(gold_heads, gold_labels, budget=budget, **options)

    def initial(self, n: int, labeled: bool = False) -> Configuration:
        return self.inner.initial(n, labeled)

    def legal(self, config: Configuration) -> list[Action]:
        return self.inner.legal(config)

    def apply(self, config: Configuration, action: Action) -> Configuration:
        return self.inner.apply(config, action)

    def is_final(self, config: Configuration) -> bool:
        return self.inner.is_final(config)
