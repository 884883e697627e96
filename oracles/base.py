"""The contract every transition system shares, dependency and constituency alike.

A system is four rules, :meth:`BaseSystem.initial`, :meth:`~BaseSystem.legal`,
:meth:`~BaseSystem.apply` and :meth:`~BaseSystem.is_final`, over
configurations; what follows from them alone (replaying a sequence, naming
the system, building it from options) is implemented here once.

The configuration contract: a configuration is an immutable, hashable named
tuple (searches memoise on it; a walk builds one per transition, and a tuple
is built and hashed in C) with at least

* ``stack``: the stack, bottom .. top, as a tuple;
* ``buffer``: the input not read yet (dependency systems: a tuple of word
  indices, front first; constituency systems: the index of the next word).

Each family adds what its trees need (dependency: ``heads``, ``labels``;
constituency: ``n``, ``built``, ``finished``). Actions are strings; a
misspelled action, or one not legal where it is applied, raises
:class:`~treetool.oracles.errors.IllegalAction`.

Options are declared too: :attr:`BaseSystem.option_names` lists the keyword
arguments of the constructor, each kept in the attribute of the same name,
so that a registry refuses an unknown option before building anything.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar

from .errors import IllegalAction, IncompleteDerivation, SystemSpecError

__all__ = ["SYSTEM_MAX_LENGTH", "BaseSystem", "ConfigurationT", "instantiate"]

SYSTEM_MAX_LENGTH = -1
"""The default of ``max_length`` (exact search): the system's declared ``exact_max_length`` (``None``: no limit)."""

ConfigurationT = TypeVar("ConfigurationT")
"""The configuration type of a family of systems (module doc: the contract)."""


class BaseSystem(ABC, Generic[ConfigurationT]):
    """Base class of every transition system: the four rules, and replay, naming and options built on them."""

    name: str = "custom"
    option_names: tuple[str, ...] = ()
    """The constructor's keyword options, each kept in the attribute of the same name (module doc)."""
    exact_max_length: int = 10
    """The longest sentence the exact search takes by default (``annotate --max-length``): a longer one is
    refused at once, where searching it would take too long to be worth it (swap: 7)."""

    @abstractmethod
    def initial(self, n: int) -> ConfigurationT:
        """The initial configuration for a sentence of ``n`` words."""

    @abstractmethod
    def legal(self, config: ConfigurationT) -> list[str]:
        """The transitions legal in ``config``, unlabelled, in a fixed order."""

    @abstractmethod
    def apply(self, config: ConfigurationT, action: str) -> ConfigurationT:
        """The configuration after ``action``; raises :class:`IllegalAction` if it is not legal."""

    @abstractmethod
    def is_final(self, config: ConfigurationT) -> bool:
        """True when a computation may end in ``config``."""

    def start(self, n: int, actions: Sequence[str]) -> ConfigurationT:
        """The configuration a replay of ``actions`` over ``n`` words starts from: :meth:`initial`.

        A family whose initial configuration depends on the actions (dependency
        systems: labelled when an action carries a label) says so here.
        """
        return self.initial(n)

    def run(self, actions: Iterable[str], n: int) -> ConfigurationT:
        """Apply ``actions`` from :meth:`start`; the configuration reached.

        An illegal action raises :class:`IllegalAction` naming its 1-based step.
        """
        actions = list(actions)
        config = self.start(n, actions)
        for step, action in enumerate(actions, 1):
            try:
                config = self.apply(config, action)
            except IllegalAction as err:
                raise IllegalAction(err.action, err.reason, step) from None
        return config

    def replay(self, actions: Iterable[str], n: int) -> ConfigurationT:
        """Like :meth:`run`, but the sequence must end in a final configuration (else :class:`IncompleteDerivation`)."""
        actions = list(actions)
        config = self.run(actions, n)
        if not self.is_final(config):
            stack, buffer = config.stack, config.buffer  # type: ignore[attr-defined]
            shown = list(buffer) if isinstance(buffer, tuple) else buffer
            raise IncompleteDerivation(f"the {len(actions)} transitions end in a configuration that is not final "
                                       f"(stack {list(stack)}, buffer {shown})")
        return config

    def options(self) -> dict[str, Any]:
        """The options this instance was built with (default: every declared option's value)."""
        return {name: getattr(self, name) for name in self.option_names}

    def describe(self) -> str:
        """Name with options, e.g. ``attardi (degree=2)``."""
        options = ", ".join(f"{k}={v}" for k, v in self.options().items())
        return f"{self.name} ({options})" if options else self.name


def instantiate(cls: type, label: str, options: dict[str, Any]) -> Any:
    """``cls(**options)`` with every failure turned into a one-line :class:`SystemSpecError`.

    Options whose value is ``None`` are left out (so a CLI can pass every
    option it has); one that ``cls.option_names`` does not declare is refused.
    """
    options = {k: v for k, v in options.items() if v is not None}
    accepted = tuple(getattr(cls, "option_names", ()))  # a duck-typed user class may declare none
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        allowed = ", ".join(accepted) if accepted else "none"
        raise SystemSpecError(f"{label} does not take option {', '.join(unknown)} (its options: {allowed})")
    try:
        return cls(**options)
    except (TypeError, ValueError) as err:
        raise SystemSpecError(f"{label}: {err}") from None
