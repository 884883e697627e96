"""The dependency transition systems' interface (the registry of built-in and user systems: ``treetool.oracles.registry``).

:class:`TransitionSystem` is the dependency family of
``treetool.oracles.base.BaseSystem``: its configurations, actions and gold
trees are those of ``treetool.oracles.configuration``, its errors those of
``treetool.oracles.errors``.

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

from abc import abstractmethod
from typing import Iterable, Sequence

from treetool.budget import Budget

from .base import SYSTEM_MAX_LENGTH, BaseSystem
from .configuration import Action, Configuration, DynamicOracle, format_action, parse_action
from .errors import OracleUnavailable
from .search import ExactOracle, derivable, search_oracle
from .spec import SEARCH_ONLY, OracleSpec
from .vocabulary import ActionKinds, ActionVocabulary

__all__ = ["SYSTEM_MAX_LENGTH", "TransitionSystem"]

# --------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------


class TransitionSystem(BaseSystem[Configuration]):
    """Base class of every dependency transition system (built-in or user-defined).

    Subclasses implement :meth:`initial`, :meth:`legal`, :meth:`apply` and
    :meth:`is_final`. What their oracles are is declared in ``oracle_spec``
    (``treetool.oracles.spec.OracleSpec``); by default (:data:`SEARCH_ONLY`)
    the static oracle is the generic search of ``treetool.oracles.search``
    (complete for monotonic systems) and the dynamic oracle the exhaustive
    search. A system with an oracle of its own overrides the method and
    declares it. Every oracle method takes the same arguments on every
    system, ``budget`` included (``treetool.budget.Budget`` or ``None``); an
    oracle linear in the sentence has nothing to bound and ignores it (its
    spec says so).
    """

    monotonic: bool = False
    detached_words_final: bool = False
    bottom_up: bool = False  # bottom-up shift-reduce (Cohen et al. 2012 §2.3): the static oracle is the canonical one
    oracle_spec: OracleSpec = SEARCH_ONLY
    action_kinds: ActionKinds | None = None
    """The transitions, for :meth:`actions` (``treetool.oracles.vocabulary``); ``None``: no vocabulary."""

    @abstractmethod
    def initial(self, n: int, labeled: bool = False) -> Configuration:
        """The initial configuration for a sentence of ``n`` words (recording labels when ``labeled``)."""

    def start(self, n: int, actions: Sequence[Action]) -> Configuration:
        """Labelled when any action carries a label (``LA(nsubj)``), so that a labelled sequence replays as written."""
        return self.initial(n, labeled=any(a.endswith(")") for a in actions if isinstance(a, str)))

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

    # ---------------------------------------------------------- static oracles
    def static_oracle(
        self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *, budget: Budget | None = None
    ) -> list[Action] | None:
        """A transition sequence deriving the gold tree, or ``None`` when there is none.

        Default: the generic memoised search (``treetool.oracles.search.search_oracle``)
        under ``budget``; built-in systems override it with a linear-time oracle.
        """
        return search_oracle(self, gold_heads, gold_labels, budget)

    def can_derive(self, gold_heads: Sequence[int], *, budget: Budget | None = None) -> bool:
        """True when some computation of the system builds exactly this tree.

        Default: the exhaustive reachability search (``treetool.oracles.search.derivable``)
        under ``budget``; built-in systems override it with their fastest exact test.
        """
        return derivable(self, gold_heads, budget)

    # ---------------------------------------------------------- dynamic oracles
    def dynamic_oracle(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        *,
        budget: Budget | None = None,
        max_length: int | None = SYSTEM_MAX_LENGTH,
    ) -> DynamicOracle:
        """The system's dynamic oracle for one gold tree (reuse it for every configuration of the sentence).

        Default: :meth:`exact_oracle`, the exhaustive search, which refuses
        sentences longer than ``max_length`` (default: the system's
        ``exact_max_length``; ``None``: no limit) with
        :class:`OracleUnavailable`. A system with a published oracle
        overrides this with the same ``gold_heads, gold_labels, *, budget``
        and the options its ``oracle_spec`` lists.
        """
        return self.exact_oracle(gold_heads, gold_labels, budget=budget, max_length=max_length)

    def exact_oracle(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        *,
        budget: Budget | None = None,
        max_length: int | None = SYSTEM_MAX_LENGTH,
    ) -> ExactOracle:
        """The exact oracle (exhaustive search, ``treetool.oracles.search.ExactOracle``) for any system.

        Its cost grows exponentially with the sentence, hence ``max_length``:
        by default the system's ``exact_max_length`` (10; swap 7, whose
        search of one 8-word sentence took 14 s for the first configuration
        and a walk over 8-10-word sentences 4 GB), the same as ``annotate``'s
        ``--max-length``; ``None``: no limit. ``budget``
        (``treetool.budget.Budget``) bounds the searches of the whole
        sentence, raising ``treetool.budget.SentenceTimeout`` when it runs out.
        """
        if max_length == SYSTEM_MAX_LENGTH:
            max_length = self.exact_max_length
        n = len(gold_heads) - 1
        if max_length is not None and n > max_length:
            raise OracleUnavailable(f"exact search is limited to {max_length} words; this sentence has {n}")
        return ExactOracle(self, gold_heads, gold_labels, budget).built_by(self)

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

    parse_action = staticmethod(parse_action)
    format_action = staticmethod(format_action)
