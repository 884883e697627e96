"""Steps (``annotate``) and gold sequences (``oracle``) as Arrow record batches: the columns of their Parquet files.

One row per step, or per sentence, with the fields of the JSON lines
(:mod:`treetool.formats.steps`), typed: lists of 32-bit ints for ``stack``,
``buffer`` and ``heads``; the action spellings dictionary-encoded, their ids
in the order the run met them (the list is the file's ``actions``
metadata). Costs are either a list aligned with ``legal`` (the step's legal
actions, in the system's legal order) or, with an action vocabulary
(``treetool.oracles.vocabulary``), one int column per action id, ``cost:SPELLING``,
-1 where illegal, as ``oracle.cost_vector`` gives them.

A walk's transitions pass unchanged tuples on (the buffer and the heads
change at some steps only), so each distinct tuple of a row group is
converted once and its rows taken from it (``take``): the values of a
step file are mostly repeats. A step is read as the tuple of the fields of
``treetool.oracles.annotate.Step``, in order, so the core encodes the
oracles' records without importing them.
"""

from __future__ import annotations

import itertools
import operator
import struct
from array import array
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, NamedTuple

from .parquet import pyarrow_modules

__all__ = ["ROWS_PER_GROUP", "SequenceColumns", "SentenceSteps", "StepColumns", "sentence_steps"]

#: Rows per row group: the unit of writing (memory stays at one group) and of the reader's shuffling.
ROWS_PER_GROUP = 65_536


class Shared(NamedTuple):
    """A column of tuples that repeat from step to step (buffer, heads, labels): each distinct one once."""

    lengths: array
    values: Any
    """The distinct tuples' items one after the other (an ``array('i')``; a list of strings for labels)."""
    index: array
    """Per step, the position of its tuple among the sentence's distinct ones."""


class SentenceSteps(NamedTuple):
    """One sentence's walk as a worker hands it back: flat arrays (cheap to pickle, and nothing per step is
    left for the garbage collector to scan while a row group fills)."""

    sent_id: str
    steps: int
    stack_lengths: array
    stack_values: array
    buffer: Shared
    heads: Shared
    labels: Shared | None
    legal_lengths: array
    legal: list[str]
    """The legal actions' spellings, step after step; their costs are ``costs``."""
    costs: array
    optimal_lengths: array
    optimal: list[str]
    actions: list[str]
    vectors: bytes | None
    """With a vocabulary: the steps' cost vectors (C ints, one vector after the other)."""


def sentence_steps(sent_id: str, steps: Iterable[Any], vector: Any = None) -> SentenceSteps:
    """The columns of one walk; ``vector(step)``, when given, is the step's cost vector (numpy, C ints)."""
    steps = list(steps)
    vectors = b"".join([vector(s).tobytes() for s in steps]) if vector is not None else None
    if not steps:
        empty = Shared(array("i"), array("i"), array("i"))
        return SentenceSteps(sent_id, 0, array("i"), array("i"), empty, empty, None, array("i"), [], array("i"),
                             array("i"), [], [], vectors)
    _, stacks, buffers, heads, labels, costs, optimal, actions = zip(*steps)
    chain = itertools.chain.from_iterable
    return SentenceSteps(
        sent_id, len(steps), array("i", map(len, stacks)), _ints(stacks), _shared(buffers, _ints), _shared(heads, _ints),
        None if labels[0] is None else _shared(labels, _strings), array("i", map(len, costs)), list(chain(costs)),
        _ints(tuple(map(dict.values, costs))), array("i", map(len, optimal)), list(chain(optimal)), list(actions),
        vectors)


def _shared(tuples: tuple[tuple, ...], values: Callable[[list], Any]) -> Shared:
    """The distinct tuples of a walk's column: a run of the same object (a walk passes unchanged tuples on) is
    one tuple, which the steps of the run point to."""
    distinct = [tuples[0], *itertools.compress(tuples[1:], map(operator.is_not, tuples[1:], tuples))]
    index = array("i", itertools.accumulate(map(operator.is_not, tuples[1:], tuples), initial=0))
    return Shared(array("i", map(len, distinct)), values(distinct), index)


def _ints(collections: Sequence[Collection[int]]) -> array:
    """The ints of ``collections`` one after the other, as an ``array('i')``: packed by ``struct`` (about a
    third faster than ``array`` or ``numpy.fromiter`` taking them one by one)."""
    count = sum(map(len, collections))
    return array("i", struct.pack(f"{count}i", *itertools.chain.from_iterable(collections)))


def _strings(collections: Sequence[Collection[str | None]]) -> list[str | None]:
    return list(itertools.chain.from_iterable(collections))


class _Group:
    """The walks of one row group, column by column."""

    def __init__(self) -> None:
        self.rows = 0
        self.sentences: list[SentenceSteps] = []

    def add(self, sentence: SentenceSteps) -> None:
        self.sentences.append(sentence)
        self.rows += sentence.steps


class StepColumns:
    """Collects walks (:class:`SentenceSteps`) into row groups of :data:`ROWS_PER_GROUP` steps, and makes each a
    record batch (:meth:`batch`, which may run in another thread than :meth:`add`).

    ``vocabulary``: the action spellings by id, for ``cost:`` columns (None:
    ``legal`` + ``costs`` lists). ``actions`` lists every spelling met, by
    dictionary id; with a vocabulary it starts as the vocabulary.
    """

    def __init__(self, labelled: bool, vocabulary: Sequence[str] | None = None) -> None:
        self.pa, _ = pyarrow_modules()
        self.labelled, self.vocabulary = labelled, vocabulary
        self.actions: list[str] = list(vocabulary or ())
        self._action_ids = {a: i for i, a in enumerate(self.actions)}
        self.schema = self._schema()
        self._group = _Group()

    def _schema(self) -> Any:
        pa = self.pa
        ints, spelled = pa.list_(pa.int32()), pa.dictionary(pa.int32(), pa.string())
        fields = [("sent_id", spelled), ("step", pa.int32()), ("stack", ints), ("buffer", ints), ("heads", ints)]
        if self.labelled:
            fields.append(("labels", pa.list_(spelled)))
        if self.vocabulary is None:
            fields += [("legal", pa.list_(spelled)), ("costs", ints)]
        else:
            fields += [(f"cost:{a}", pa.int32()) for a in self.vocabulary]
        fields += [("optimal", pa.list_(spelled)), ("action", spelled)]
        return pa.schema(fields)

    def add(self, sentence: SentenceSteps) -> _Group | None:
        """Take one walk; the row group when it is full, else None."""
        self._group.add(sentence)
        return self.flush() if self._group.rows >= ROWS_PER_GROUP else None

    def flush(self) -> _Group | None:
        """The row group of the walks taken since the last one (None if none)."""
        group, self._group = self._group, _Group()
        return group if group.rows else None

    def batch(self, group: _Group) -> Any:
        """The record batch of a row group."""
        np, pa = _numpy(), self.pa
        walks = group.sentences
        counts = np.array([w.steps for w in walks], dtype=np.int64)
        starts = np.cumsum(counts) - counts
        sentence = pa.array(np.repeat(np.arange(len(counts), dtype=np.int32), counts))
        columns = [pa.DictionaryArray.from_arrays(sentence, pa.array([w.sent_id for w in walks], pa.string())),
                   pa.array((np.arange(group.rows) - np.repeat(starts, counts) + 1).astype(np.int32)),
                   _list_array(pa, _joined(w.stack_lengths for w in walks), pa.array(_joined(w.stack_values for w in walks))),
                   _taken(pa, [w.buffer for w in walks], counts), _taken(pa, [w.heads for w in walks], counts)]
        if self.labelled:
            columns.append(_taken(pa, [w.labels for w in walks], counts))
        taken = self._ids(_chained(w.actions for w in walks), group.rows)
        legal = None
        if self.vocabulary is None:
            legal_lengths = _joined(w.legal_lengths for w in walks)
            legal = (legal_lengths, self._ids(_chained(w.legal for w in walks), int(legal_lengths.sum())))
        optimal_lengths = _joined(w.optimal_lengths for w in walks)
        optimal = (optimal_lengths, self._ids(_chained(w.optimal for w in walks), int(optimal_lengths.sum())))
        spellings = pa.array(self.actions, pa.string())  # after the ids: complete
        if legal is not None:
            columns += [_spelled(pa, legal, spellings), _list_array(pa, legal[0], pa.array(_joined(w.costs for w in walks)))]
        else:
            matrix = np.frombuffer(b"".join([w.vectors for w in walks]), dtype=np.intc).reshape(group.rows, -1)
            columns += [pa.array(np.ascontiguousarray(column, dtype=np.int32)) for column in matrix.T]
        columns += [_spelled(pa, optimal, spellings), pa.DictionaryArray.from_arrays(pa.array(taken), spellings)]
        return pa.record_batch(columns, schema=self.schema)

    def _ids(self, spellings: list[str], count: int) -> Any:
        """The ids of ``count`` action spellings (a numpy array); a spelling not met before gets the next id."""
        np = _numpy()
        try:
            return np.fromiter(map(self._action_ids.__getitem__, spellings), np.int32, count)
        except KeyError:
            _learn(self._action_ids, self.actions, spellings)
            return np.fromiter(map(self._action_ids.__getitem__, spellings), np.int32, count)


class SequenceColumns:
    """Collects gold sequences (``oracle``), one row per sentence: ``sent_id``, ``n``, ``system``, ``actions``
    (null when not derivable), ``reason`` (why not, else null), ``projectivized``."""

    def __init__(self) -> None:
        self.pa, _ = pyarrow_modules()
        pa = self.pa
        spelled = pa.dictionary(pa.int32(), pa.string())
        self.schema = pa.schema([("sent_id", pa.string()), ("n", pa.int32()), ("system", spelled),
                                 ("actions", pa.list_(spelled)), ("reason", pa.string()),
                                 ("projectivized", pa.bool_())])
        self.actions: list[str] = []
        self._action_ids: dict[str, int] = {}
        self.rows: list[tuple[str, int, str, Sequence[str] | None, str | None, bool]] = []

    def add(self, row: tuple[str, int, str, Sequence[str] | None, str | None, bool]) -> list[tuple] | None:
        """Take one sentence's row (the columns in order); the row group when it is full, else None."""
        self.rows.append(row)
        return self.flush() if len(self.rows) >= ROWS_PER_GROUP else None

    def flush(self) -> list[tuple] | None:
        """The row group of the rows taken since the last one (None if none)."""
        group, self.rows = self.rows, []
        return group or None

    def batch(self, group: list[tuple]) -> Any:
        """The record batch of a row group."""
        np, pa = _numpy(), self.pa
        sent_ids, ns, systems, sequences, reasons, projectivized = zip(*group)
        ids = self._action_ids
        _learn(ids, self.actions, itertools.chain.from_iterable(s for s in sequences if s))
        lengths = np.fromiter((len(s or ()) for s in sequences), np.int32, len(sequences))
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        values = np.fromiter(map(ids.__getitem__, itertools.chain.from_iterable(s for s in sequences if s)),
                             np.int32, int(offsets[-1]))
        missing = pa.array([s is None for s in sequences])
        spellings = pa.DictionaryArray.from_arrays(pa.array(values), pa.array(self.actions, pa.string()))
        system = pa.array(systems, pa.string()).dictionary_encode().cast(self.schema.field("system").type)
        return pa.record_batch([pa.array(sent_ids, pa.string()), pa.array(ns, pa.int32()), system,
                                pa.ListArray.from_arrays(pa.array(offsets), spellings, mask=missing),
                                pa.array(reasons, pa.string()), pa.array(projectivized, pa.bool_())],
                               schema=self.schema)


def _learn(ids: dict[str, int], spellings: list[str], met: Iterable[str]) -> None:
    """Give each spelling of ``met`` not in ``ids`` the next id, in order of first appearance (so that a run
    writes the same ids every time)."""
    for spelling in dict.fromkeys(met):
        if spelling not in ids:
            ids[spelling] = len(spellings)
            spellings.append(spelling)


def _numpy() -> Any:
    import numpy

    return numpy


def _joined(arrays: Iterable[array]) -> Any:
    """``array('i')`` pieces as one numpy int32 array."""
    joined = array("i")
    for piece in arrays:
        joined += piece
    return _numpy().frombuffer(joined, dtype=_numpy().int32)


def _chained(lists: Iterable[list[str]]) -> list[str]:
    return list(itertools.chain.from_iterable(lists))


def _offsets(lengths: Any) -> Any:
    np = _numpy()
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _list_array(pa: Any, lengths: Any, values: Any) -> Any:
    """An Arrow list array of the lists of ``lengths`` over ``values``."""
    return pa.ListArray.from_arrays(pa.array(_offsets(lengths)), values)


def _taken(pa: Any, columns: list[Shared], counts: Any) -> Any:
    """The rows of the walks' shared columns: their distinct tuples converted once, each taken by its steps."""
    np = _numpy()
    lengths = _joined(c.lengths for c in columns)
    if isinstance(columns[0].values, list):  # labels: strings, None for no label yet
        spelled = pa.array(_chained(c.values for c in columns), pa.string()).dictionary_encode()
        values = spelled.cast(pa.dictionary(pa.int32(), pa.string()))
    else:
        values = pa.array(_joined(c.values for c in columns))
    bases = np.cumsum([len(c.lengths) for c in columns]) - np.array([len(c.lengths) for c in columns])
    index = _joined(c.index for c in columns) + np.repeat(bases, counts).astype(np.int32)
    return _list_array(pa, lengths, values).take(pa.array(index))


def _spelled(pa: Any, lists: tuple[Any, Any], spellings: Any) -> Any:
    """(lengths, ids) over ``spellings`` as an Arrow list<dictionary<int32, string>> array."""
    lengths, ids = lists
    return _list_array(pa, lengths, pa.DictionaryArray.from_arrays(pa.array(ids), spellings))
