"""A fixed action vocabulary with integer ids, and an oracle's costs and the legal actions as numpy vectors over it.

What a training loop needs from a dependency system: ``system.actions(labels)``
is an :class:`ActionVocabulary`, the output layer of a classifier
(``len(actions)`` units); ``actions.legal_mask(config)`` and
``oracle.cost_vector(config, actions)`` are numpy vectors over it. The dict
API (``oracle.costs(config)``, spelled actions) stays, for reading.

>>> import random
>>> from treetool.oracles import get_system
>>> system, rng = get_system("arc-eager"), random.Random(1)
>>> actions = system.actions(["nsubj", "obj", "root"])   # treetool.labels(treebank) gives a treebank's
>>> heads, labels = [-1, 2, 0, 2], ["", "nsubj", "root", "obj"]    # "she eats fish"
>>> oracle = system.dynamic_oracle(heads, labels)        # one per sentence
>>> config = system.initial(3, labeled=True)
>>> while not system.is_final(config):
...     costs = oracle.cost_vector(config, actions)       # ints, -1 (ILLEGAL) where illegal
...     scores = [rng.random() for _ in actions]          # your model's scores, len(actions) of them
...     best = max((i for i in range(len(actions)) if costs[i] == 0), key=scores.__getitem__)
...     config = system.apply(config, actions[best])     # (explore: apply a costly action sometimes)
>>> config.heads, config.labels
((-1, 2, 0, 2), (None, 'nsubj', 'root', 'obj'))

Vocabulary order (fixed; ids are positions in it):

* Unlabelled (``labels=None``): every transition in the system's ``legal()``
  order: arc-eager ``SH LA RA RE``, arc-hybrid and arc-standard ``SH LA RA``,
  attardi of degree d ``SH LA RA LA2 RA2 .. LAd RAd``, swap ``SH LA RA SW``.
* Labelled: first the transitions that take no label, in ``legal()`` order
  (``SH``; arc-eager's ``RE``; swap's ``SW``), then, for each transition
  that attaches a word, in ``legal()`` order, one action per label in the
  order given (``treetool.labels`` sorts them). Arc-eager with labels
  ``(nsubj, obj)``: ``SH RE LA(nsubj) LA(obj) RA(nsubj) RA(obj)``; attardi
  of degree 2: ``SH``, then ``LA``, ``RA``, ``LA2``, ``RA2`` each with every
  label (the reductions up to the system's degree); swap: ``SH SW LA(..)
  RA(..)``. nm-arc-eager with variant D or LD has two reduces: the plain one
  of a headed s0 (``RE``, with the unlabelled transitions) and the one that
  attaches a headless s0 to s1 (``RE(x)``, after ``RA``); variant L has the
  plain one only. Each system declares these in ``action_kinds``
  (:class:`ActionKinds`).

Cost vectors (``oracle.cost_vector(config, actions)``, numpy ``intc``, the
C int: 32 bits on Linux, macOS and Windows): entry i
is the oracle's cost of action i in ``config`` (the loss difference of
``oracle.costs``), :data:`ILLEGAL` (-1) where action i is not legal. With
gold labels, an arc action labelled with the attached word's gold label
costs what ``costs`` says; any other label costs 1 more when the head the
action gives is the gold head (the word is then wrong by its label alone,
and no built-in system changes a word's label without changing its head,
so it stays wrong), and the same when the head is wrong (the word is wrong
anyway). A gold label missing from the vocabulary (one unseen in training)
is priced like any wrong label, so the vector may then have no 0. Without
gold labels every label of an arc action costs the same (the loss counts
heads only); an unlabelled vocabulary with a labelled oracle gives each arc
transition the cost of its best labelling. Tests check all of this against
the exhaustive search's costs of each labelled spelling.

Why -1 for illegal actions: a cost is never negative, so the marker cannot
be taken for one; ``costs >= 0`` is the legal mask and ``costs == 0`` the
optimal actions. A large sentinel would look like a legitimate (huge) cost
and enter a cost-weighted loss unnoticed; with -1 an unmasked minimum picks
an illegal action at once, which is the mistake to catch early: mask first.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple, Protocol, TypeVar

from .errors import ConfigurationMismatch

if TYPE_CHECKING:  # annotations only: numpy loads with the first vocabulary
    import numpy as np

__all__ = ["ILLEGAL", "ActionKinds", "ActionVocabulary", "CostVectors", "Entry"]

ILLEGAL = -1
"""The entry of an illegal action in a cost vector (module doc: why -1)."""

Entry = tuple[str, int, int, int]
"""One legal action of an oracle: ``(key, head, dependent, cost)``; ``key`` as in ``oracle.costs`` (an arc
action labelled with the dependent's gold label when the oracle has gold labels), head = dependent = -1 when
the action builds no arc."""


class ActionKinds(NamedTuple):
    """A system's declared transitions, unlabelled, each tuple in ``legal()`` order (module doc)."""

    order: tuple[str, ...]
    """Every transition: the unlabelled vocabulary."""
    plain: tuple[str, ...]
    """Those a labelled computation takes without a label (they build no arc)."""
    labelled: tuple[str, ...]
    """Those a labelled computation takes with the label of the word they attach."""


_Configuration = Any
"""A ``treetool.oracles.system.Configuration``: system.py imports this module (for ``system.actions``), so this
one names the systems' types without importing them (no import cycle)."""


class System(Protocol):
    """What a vocabulary reads of its transition system (every ``treetool.oracles.system.TransitionSystem``)."""

    name: str
    action_kinds: ActionKinds | None

    def legal(self, config: _Configuration) -> list[str]: ...

    def new_arc(self, config: _Configuration, kind: str) -> tuple[int, int] | None: ...

    def parse_action(self, action: str) -> tuple[str, int, str | None]: ...

    def format_action(self, kind: str, degree: int = 1, label: str | None = None) -> str: ...

    def describe(self) -> str: ...


class ActionVocabulary:
    """The actions of ``system``, labelled with ``labels`` (``None``: unlabelled), in the order of the module doc.

    ``actions[i]`` is the spelling of id i, ``actions.index(spelling)`` its
    id, ``len(actions)`` the size of a classifier's output layer. Built by
    ``system.actions(labels)``; the system must declare ``action_kinds``.
    Labels must be distinct, non-empty and spell back (``LA(label)``).
    """

    def __init__(self, system: System, labels: Iterable[str] | None = None) -> None:
        import numpy  # here, not at the top: the CLI imports the systems, and numpy only when it needs it

        kinds = system.action_kinds
        if kinds is None:
            raise ValueError(f"{system.name} declares no action_kinds, so it has no action vocabulary")
        if isinstance(labels, str):  # a str is an iterable of labels too: "nsubj" would give n, s, u, b, j
            raise TypeError(f"labels must be a list of labels (e.g. treetool.labels(treebank)), not the string "
                            f"{labels!r}")
        self.system = system
        self.kinds = kinds
        self.labels = None if labels is None else tuple(labels)
        plain = kinds.order if self.labels is None else kinds.plain
        actions = list(plain)
        self._spans: dict[str, tuple[int, int]] | None = None
        if self.labels is not None:
            self._check_labels(self.labels)
            self._spans = {}
            for kind in kinds.labelled:
                low = len(actions)
                actions.extend(self._spell(kind, label) for label in self.labels)
                self._spans[kind] = (low, len(actions))
        self.actions = tuple(actions)
        self._ids = {action: i for i, action in enumerate(actions)}
        self._plain = {kind: self._ids[kind] for kind in plain}
        self._label_index = {label: i for i, label in enumerate(self.labels or ())}
        self._kind_of: dict[str, str] = {}  # a costs() key -> its unlabelled kind
        self._slots: dict[str, tuple[int, slice | None, int, bool]] = {}  # a costs() key -> where it goes (_slot)
        self._template = numpy.full(len(actions), ILLEGAL, dtype=numpy.intc)  # C int: array("i") runs fit it
        self._runs: list[array] = []  # value -> len(labels) copies of it (_run)
        self._no_mask = numpy.zeros(len(actions), dtype=bool)
        self._all_true = memoryview(numpy.ones(len(self.labels or ()), dtype=bool))  # a span of a mask
        self._plain_or_labelled = set(kinds.plain) & set(kinds.labelled)  # nm-arc-eager D's RE: new_arc decides

    def _spell(self, kind: str, label: str | None) -> str:
        name, degree, _ = self.system.parse_action(kind)
        return self.system.format_action(name, degree, label)

    def _check_labels(self, labels: tuple[str, ...]) -> None:
        if not labels:
            raise ValueError("no labels: pass labels=None for an unlabelled vocabulary")
        if len(set(labels)) != len(labels):
            raise ValueError("the labels are not distinct")
        for label in labels:
            try:
                spells_back = self.system.parse_action(f"LA({label})")[2] == label
            except ValueError:  # IllegalAction: no spelling at all
                spells_back = False
            if not isinstance(label, str) or not spells_back:
                raise ValueError(f"{label!r} cannot be a label (a non-empty string that spells back as LA(label))")

    def __len__(self) -> int:
        return len(self.actions)

    def __getitem__(self, i: int) -> str:
        return self.actions[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self.actions)

    def index(self, action: str) -> int:
        """The id of the spelling ``action`` (as ``list.index``; a dict lookup): ``ValueError`` if absent."""
        try:
            return self._ids[action]
        except KeyError:
            raise ValueError(f"{action!r} is not in {self!r}") from None

    def __reduce__(self) -> tuple[type, tuple[System, tuple[str, ...] | None]]:
        """Pickled as its system and labels (``--jobs`` hands it to worker processes); the caches are rebuilt."""
        return type(self), (self.system, self.labels)

    def __repr__(self) -> str:
        shown = f"{len(self.labels)} labels" if self.labels is not None else "unlabelled"
        return f"<ActionVocabulary of {self.system.describe()}: {len(self)} actions, {shown}>"

    # ------------------------------------------------------------ vectors
    def legal_mask(self, config: _Configuration) -> np.ndarray:
        """A new bool vector: True for the actions legal in ``config`` (every label of a legal arc transition)."""
        system, spans, plain, both = self.system, self._spans, self._plain, self._plain_or_labelled
        mask = self._no_mask.copy()
        cells = memoryview(mask)  # as in vector(): a fraction of numpy's cost per assignment
        for kind in system.legal(config):
            span = None if spans is None else spans.get(kind)
            if span is None or (kind in both and system.new_arc(config, kind) is None):
                cells[plain[kind]] = True
            else:
                cells[span[0]:span[1]] = self._all_true
        return mask

    def vector(self, entries: list[Entry], gold: Any) -> np.ndarray:
        """A new cost vector from an oracle's ``entries`` for its gold heads ``gold`` (module doc for the rules).

        Written through a memoryview, and a span of labels from a ready-made
        run of equal values: numpy's own item and slice assignments cost
        several times more per call (benchmarks/training_api.py).
        """
        vector = self._template.copy()
        cells = memoryview(vector)
        slots, runs = self._slots, self._runs
        for key, head, dep, cost in entries:
            plain, span, exact, labelled = slots.get(key) or self._slot(key)
            if dep < 0 or span is None:
                if plain < 0:
                    raise ValueError(f"the vocabulary has no transition {key!r} (a vocabulary of another system?)")
                cells[plain] = cost
                continue
            fill = cost + (gold[dep] == head) if labelled else cost  # without gold labels, every label alike
            cells[span] = runs[fill] if fill < len(runs) else self._run(fill)
            if labelled and exact >= 0:
                cells[exact] = cost
        return vector

    def _run(self, value: int) -> array:
        """``len(labels)`` copies of ``value``, for a span of :meth:`vector` (kept for every value up to it)."""
        runs, width = self._runs, len(self.labels or ())
        while len(runs) <= value:
            runs.append(array("i", [len(runs)]) * width)
        return runs[value]

    def _slot(self, key: str) -> tuple[int, slice | None, int, bool]:
        """Where the cost of an oracle's ``key`` goes: (plain id or -1, the span of its labels or None, the id of
        the key itself or -1, the key is labelled). Cached per key; a slice object saves numpy a conversion."""
        name, degree, label = self.system.parse_action(key)
        kind = self.system.format_action(name, degree)
        low, high = (-1, -1) if self._spans is None else self._spans.get(kind, (-1, -1))
        exact = low + self._label_index[label] if low >= 0 and label in self._label_index else -1
        slot = self._slots[key] = (self._plain.get(kind, -1), slice(low, high) if low >= 0 else None, exact,
                                   label is not None)
        return slot

    def entries(self, config: _Configuration, costs: dict[str, int]) -> list[Entry]:
        """An oracle's ``costs(config)`` as :data:`Entry` tuples (the arcs from ``system.new_arc``)."""
        system, kind_of, attaching = self.system, self._kind_of, self.kinds.labelled
        out: list[Entry] = []
        for key, cost in costs.items():
            kind = kind_of.get(key)
            if kind is None:
                kind = kind_of[key] = self._spell(key, None)
            arc = system.new_arc(config, kind) if kind in attaching else None
            out.append((key, -1, -1, cost) if arc is None else (key, arc[0], arc[1], cost))
        return out


class CostVectors:
    """Gives an oracle :meth:`cost_vector`; the oracle has ``costs(config)`` and ``gold`` (its gold heads).

    An oracle that has its costs before it builds a dict (the counting
    oracles of ``treetool.oracles.dynamic``) overrides :meth:`_entries`.
    """

    gold: Any
    system: System | None = None
    """The system whose configurations the oracle prices, set by the system that built it (:meth:`built_by`);
    ``None`` for an oracle class built directly. :meth:`cost_vector` refuses a vocabulary of another system: the
    vocabulary reads the arc of a labelled action off its own system (``new_arc``), so arc-hybrid's ``LA``
    (``b0 -> s0``) would price the labels of another word than arc-standard's (``s0 -> s1``), silently."""
    _vocabulary: ActionVocabulary | None = None  # the last vocabulary cost_vector accepted (checked once)

    def built_by(self: _Oracle, system: System) -> _Oracle:
        """This oracle, noted as pricing the configurations of ``system`` (:attr:`system`)."""
        self.system = system
        return self

    def costs(self, config: _Configuration) -> dict[str, int]:
        raise NotImplementedError

    def cost_vector(self, config: _Configuration, actions: ActionVocabulary) -> np.ndarray:
        """The cost of every action of ``actions`` in ``config``, :data:`ILLEGAL` where illegal (module doc).

        ``actions`` is a vocabulary of the oracle's system (``system.actions(labels)``): anything else is a
        ``TypeError``, another system's vocabulary a :class:`ConfigurationMismatch`.
        """
        if actions is not self._vocabulary:
            self._check_vocabulary(actions)
        return actions.vector(self._entries(config, actions), self.gold)

    def _check_vocabulary(self, actions: ActionVocabulary) -> None:
        if not isinstance(actions, ActionVocabulary):
            raise TypeError(f"actions must be an ActionVocabulary (system.actions(labels)), not "
                            f"{type(actions).__name__}")
        own = self.system
        if own is not None and actions.system is not own and actions.system.describe() != own.describe():
            raise ConfigurationMismatch(f"the action vocabulary is one of {actions.system.describe()}; the oracle "
                                        f"prices {own.describe()}")
        self._vocabulary = actions

    def _entries(self, config: _Configuration, actions: ActionVocabulary) -> list[Entry]:
        return actions.entries(config, self.costs(config))


_Oracle = TypeVar("_Oracle", bound=CostVectors)
