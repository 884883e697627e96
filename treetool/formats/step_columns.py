"""Steps (``annotate``) and gold sequences (``oracle``) as Arrow record batches: the columns of their Parquet files.

One row per step, or per sentence, with the fields of the JSON lines
(:mod:`treetool.formats.steps`), typed: lists of 32-bit ints for ``stack``,
``buffer`` and ``heads``; the action spellings dictionary-encoded, their ids
in the order the run met them (the list is the file's ``actions``
metadata). Costs are either a list aligned with ``legal`` (the step's legal
actions, in the system's legal order) or, with an action vocabulary
(``treetool.oracles.vocabulary``), one int column per action id, ``cost:SPELLING``,
-1 where illegal, as ``oracle.cost_vector`` gives them.

Writing must stay cheap beside the walk, so the run's process does little more
than pickle what each walk did (:func:`walk_record`: its costs and actions
taken); the writer process
(:class:`~treetool.formats.parquet.ParquetOutput`) replays the configurations
from the actions (:func:`replayed`), derives the optimal actions from the
costs (where the oracle's are the cost-0 ones) and does the rest on the other core
(``--jobs`` workers pack their own walks: :func:`walk_record`'s ``packed``).
In packing no Python code runs per step:
a walk's columns (:data:`SEGMENTS`) are packed into one run of C ints by a
single ``struct.pack`` over C iterators (``zip``, ``map``, ``chain``), its
spellings as ids of the walk's own (the run's ids are given in input order,
so that ``--jobs`` writes the same file), and a row group's walks are joined
as a few growing buffers (no small objects per walk left to scatter over the
heap while a group fills). Each distinct tuple of a walk (the buffer and the
heads change at some steps only) is packed once and its steps' rows gathered
from it by numpy, which with pyarrow builds the record batch. A step is read
as the tuple of the fields of ``treetool.oracles.annotate.Step``, in order,
so the core encodes the oracles' records without importing them.
"""

from __future__ import annotations

import collections
import functools
import itertools
import operator
import pickle
import struct
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

from .parquet import pyarrow_modules

__all__ = ["ROWS_PER_GROUP", "SEGMENTS", "Replayable", "SequenceColumns", "SentenceSteps", "StepColumns", "gather",
           "replayed", "sentence_steps", "walk_record"]

#: Rows per row group: the unit of writing and of the reader's shuffling. The writer process's memory grows with
#: it (a group filling, the previous one being turned into columns and written); at 16,384 it peaks at about
#: 120 MB on EWT (60 MB of them pyarrow and numpy), with the same file size and reading speed.
ROWS_PER_GROUP = 16_384


#: The int columns of a walk, one after the other in :attr:`SentenceSteps.ints`. A list column is its lengths
#: (one per row) and its items; ``buffer``, ``heads`` and ``labels`` hold the walk's distinct tuples (the
#: walk passes unchanged tuples on, so most steps repeat the one before), with per step the ``index`` of its
#: own; ``legal``, ``optimal``, ``action`` and ``labels`` are ids into the walk's spellings (labels: -1 for
#: no label yet); ``costs`` is aligned with ``legal``.
SEGMENTS = ("stack_lengths", "stack", "buffer_lengths", "buffer", "buffer_index", "heads_lengths", "heads",
            "heads_index", "legal_lengths", "legal", "costs", "optimal_lengths", "optimal", "action", "labels_lengths",
            "labels", "labels_index")
_SEGMENT = {name: position for position, name in enumerate(SEGMENTS)}


class SentenceSteps(NamedTuple):
    """One sentence's walk as a worker hands it back: its columns as one run of C ints (cheap to pickle, and
    cheap to join into a row group: a few objects per walk, not one per step or per column)."""

    sent_id: str
    sizes: tuple[int, ...]
    """The number of ints of each of :data:`SEGMENTS` (the first: the walk's steps)."""
    ints: bytes
    spellings: tuple[str, ...]
    """The walk's action spellings, in order of first appearance (legal actions, optimal ones, actions taken)."""
    label_spellings: tuple[str, ...]
    vectors: bytes | None
    """With a vocabulary: the steps' cost vectors (C ints, one vector after the other)."""


#: What a walk's record takes of each step when the writer replays the configurations: costs, optimal (unless
#: derived), action; the other fields (the step number and the configuration it starts from) are left None.
_COSTS, _OPTIMAL, _ACTION = map(operator.itemgetter, (5, 6, 7))


class Replayable(Protocol):
    """What the writer needs of a transition system to replay a walk: its configurations, from the initial one
    of ``n`` words by the actions taken (``treetool.oracles`` systems; the core names no system)."""

    def initial(self, n: int, labeled: bool = False) -> Any: ...

    def apply(self, config: Any, action: Any) -> Any: ...


def walk_record(sent_id: str, steps: Iterable[Any], vector: Any = None, packed: bool = False,
                configurations: bool = False, optimal: bool = True) -> bytes:
    """One walk as :meth:`StepColumns.add` takes it, pickled (the record of a Parquet output): its id, its
    number of words, its fields (one tuple per field of a step, as ``zip(*steps)`` gives them) and, with
    ``vector(step)`` given (numpy, C ints), the steps' cost vectors.

    The configurations (stack, buffer, heads, labels) are left out (None): the writer process replays them
    from the actions (:func:`replayed`), on the other core, where pickling them would cost the run's process
    three times the rest of the hand-over (unlabelled EWT: 0.33 s of CPU against 0.1). ``configurations``: they
    are handed over all the same: for a writer with too much to do already (labelled walks: with their labels
    columns, replaying too made the writer the slower side, 28% of the run against 21% on EWT), or one without
    the system (a user's own, which may neither pickle nor import in the writer process). Without ``optimal``
    the optimal actions are left out too, for a writer that derives them (:class:`StepColumns`'s
    ``derive_optimal``): pickling them was a third of the rest.

    ``packed``: the walk's :class:`SentenceSteps` instead, packed here. The run's own process leaves the
    replaying and packing to the writer process; ``--jobs`` workers pack their walks themselves, in parallel,
    or the one writer process would replay and pack every walk of all the workers (the bottleneck from three
    workers on).
    """
    steps = list(steps)
    vectors = b"".join([vector(s).tobytes() for s in steps]) if vector is not None else None
    if configurations or packed:
        fields = tuple(zip(*steps))
        if fields and not optimal:
            fields = (*fields[:6], None, fields[7])
    else:  # one C map per field taken: no tuple per step, as zip(*map(itemgetter(5, 6, 7), steps)) makes
        fields = (None,) * 5 + (tuple(map(_COSTS, steps)), tuple(map(_OPTIMAL, steps)) if optimal else None,
                                tuple(map(_ACTION, steps))) if steps else ()
    if packed:
        return pickle.dumps(sentence_steps(sent_id, fields, vectors), pickle.HIGHEST_PROTOCOL)
    n = len(steps[0][3]) - 1 if steps else 0  # heads: n + 1 entries
    return pickle.dumps((sent_id, n, fields, vectors), pickle.HIGHEST_PROTOCOL)


def replayed(system: Replayable, labelled: bool, n: int, fields: Sequence[Any]) -> tuple[Any, ...]:
    """A walk's fields (as :func:`walk_record` gives them) with the configurations (stack, buffer, heads,
    labels), left None there, replayed from the initial one of ``n`` words by the actions taken; the step
    numbers stay None. The same ``apply`` as the walk's gives the same tuples, unchanged ones passed on as the
    same objects (which :func:`sentence_steps` packs once)."""
    if not fields:
        return ()
    actions = fields[7]
    apply, config = system.apply, system.initial(n, labeled=labelled)
    configs = [config]
    for action in itertools.islice(actions, len(actions) - 1):  # the last action's result is no step's
        config = apply(config, action)
        configs.append(config)
    return (None, *zip(*configs), *fields[5:])


def sentence_steps(sent_id: str, fields: Sequence[tuple], vectors: bytes | None = None) -> SentenceSteps:
    """The columns of one walk from its fields (one tuple per field of a step, as :func:`walk_record` gives them,
    the configurations filled in; empty for no step) and its cost vectors. Optimal actions left out (None)
    leave their segments empty, for :meth:`StepColumns.batch` to derive.

    One ``struct.pack`` over C iterators (``map``, ``chain``, ``accumulate``): no Python code runs per step.
    """
    if not fields:
        return SentenceSteps(sent_id, (0,) * len(SEGMENTS), b"", (), (), vectors)
    _, stacks, buffers, heads, labels, costs, optimal, actions = fields
    chain = itertools.chain.from_iterable
    # A spelling's id is its order of first appearance as struct.pack reads them (legal, optimal, taken).
    numbered = _numbering()
    ids = numbered.__getitem__
    count, legal = len(actions), sum(map(len, costs))
    sizes, parts = [count, sum(map(len, stacks))], [map(len, stacks), chain(stacks)]
    for column in (buffers, heads):
        _distinct(column, sizes, parts)
    sizes += [count, legal, legal]
    parts += [map(len, costs), map(ids, chain(costs)), chain(map(dict.values, costs))]
    if optimal is None:
        sizes += [0, 0]
    else:
        sizes += [count, sum(map(len, optimal))]
        parts += [map(len, optimal), map(ids, chain(optimal))]
    sizes.append(count)
    parts.append(map(ids, actions))
    label_ids = _numbering()
    label_ids[None] = -1  # no label yet
    if labels[0] is None:
        sizes += [0, 0, 0]
    else:
        parts[-2] = map(label_ids.__getitem__, chain(_distinct(labels, sizes, parts)))
    ints = struct.pack(f"{sum(sizes)}i", *chain(parts))
    return SentenceSteps(sent_id, tuple(sizes), ints, tuple(numbered), tuple(label_ids)[1:], vectors)


def _distinct(tuples: tuple[tuple, ...], sizes: list[int], parts: list[Iterable]) -> list[tuple]:
    """Add a shared column's segments (lengths, items, index: :data:`SEGMENTS`) to ``sizes`` and ``parts``; its
    distinct tuples. A run of the same object (a walk passes unchanged tuples on) is one tuple."""
    changed = list(map(operator.is_not, tuples[1:], tuples))
    distinct = [tuples[0], *itertools.compress(tuples[1:], changed)]
    sizes += [len(distinct), sum(map(len, distinct)), len(tuples)]
    parts += [map(len, distinct), itertools.chain.from_iterable(distinct), itertools.accumulate(changed, initial=0)]
    return distinct


def _numbering() -> collections.defaultdict:
    """Numbers its keys from 0 in order of first lookup, in C (a walk looks up dozens of new labelled spellings:
    a ``__missing__`` in Python cost 0.1 s on EWT); numbers set by hand are kept and not counted."""
    return collections.defaultdict(itertools.count().__next__)


class _Numbered(dict):
    """Numbers its keys in order of first lookup: ``numbered[key]`` is ``key``'s number, a new key the next.
    (Unlike :func:`_numbering`'s, it pickles: :class:`StepColumns` goes to the writer process.)"""

    def __missing__(self, key: Any) -> int:
        self[key] = number = len(self)
        return number


class _Group:
    """One row group's walks: their ints, sizes, sent_ids and vectors joined (a few growing buffers), their
    spellings' and labels' run ids joined with how many each walk has; and the run's spellings and labels as
    they were when the group was full."""

    def __init__(self) -> None:
        self.rows = 0
        self.ints, self.sent_ids, self.vectors = bytearray(), bytearray(), bytearray()
        self.sizes, self.sent_id_ends = array("i"), array("i")
        self.spelling_ids, self.spellings, self.label_ids, self.label_spellings = (array("i") for _ in range(4))
        self.actions: list[str] = []
        self.labels: list[str] = []

    def add(self, walk: SentenceSteps, spelling_ids: array, label_ids: array) -> None:
        self.rows += walk.sizes[0]
        self.ints += walk.ints
        self.sizes.extend(walk.sizes)
        self.sent_ids += walk.sent_id.encode("utf-8")
        self.sent_id_ends.append(len(self.sent_ids))
        self.spelling_ids += spelling_ids
        self.spellings.append(len(spelling_ids))
        self.label_ids += label_ids
        self.label_spellings.append(len(label_ids))
        if walk.vectors is not None:
            self.vectors += walk.vectors

    def columns(self) -> dict[str, Any]:
        """Each of :data:`SEGMENTS` over the group's walks (numpy), and per walk (``steps``, ``*_distinct``,
        ``*_items``) the sizes the batch needs."""
        np = _numpy()
        sizes = np.frombuffer(self.sizes, dtype=np.int32).reshape(-1, len(SEGMENTS))
        ints, self.ints = np.frombuffer(self.ints, dtype=np.int32), bytearray()  # freed once split
        starts = _starts(sizes.ravel()).reshape(sizes.shape)
        columns = {name: ints[_ranges(starts[:, k], sizes[:, k])] for k, name in enumerate(SEGMENTS)}
        for name in ("buffer", "heads", "labels"):
            columns[f"{name}_distinct"] = sizes[:, _SEGMENT[f"{name}_lengths"]]
        for name in ("labels", "legal", "optimal"):
            columns[f"{name}_items"] = sizes[:, _SEGMENT[name]]
        columns["steps"] = sizes[:, 0]
        for name in ("spelling_ids", "spellings", "label_ids", "label_spellings"):
            columns[name] = np.frombuffer(getattr(self, name), dtype=np.int32)
        return columns


class StepColumns:
    """Collects walks (records of :func:`walk_record`) into row groups of :data:`ROWS_PER_GROUP` steps, and makes
    each a record batch (:meth:`batch`). Made in the run's process and pickled to the writer process, where
    pyarrow is imported (:meth:`schema`), so the run never imports it.

    ``system``: the walks' transition system, which replays their configurations (:func:`replayed`); None
    when every record carries them (``walk_record``'s ``configurations``). ``derive_optimal``: the records
    leave the optimal actions out (``walk_record``'s ``optimal``), and :meth:`batch` derives them, all at once
    with numpy, as each step's legal actions of cost 0 in order: for oracles whose ``optimal`` is just that
    (``treetool.oracles.annotate.optimal_is_cost_zero``).
    ``vocabulary``: the action spellings by id, for ``cost:`` columns (None:
    ``legal`` + ``costs`` lists). ``actions`` lists every spelling met, by
    dictionary id; with a vocabulary it starts as the vocabulary.
    """

    def __init__(self, system: Replayable | None, labelled: bool, vocabulary: Sequence[str] | None = None,
                 derive_optimal: bool = False) -> None:
        self.system, self.labelled, self.vocabulary = system, labelled, vocabulary
        self.derive_optimal = derive_optimal
        # Read here, in the run's process, and pickled with the object: the writer process imports the module
        # afresh, so a group size set for the run (tests use small groups) would not reach it otherwise.
        self.rows_per_group = ROWS_PER_GROUP
        self._action_ids = _Numbered((a, i) for i, a in enumerate(vocabulary or ()))
        self._label_ids = _Numbered()
        self._group = _Group()

    @property
    def actions(self) -> list[str]:
        """Every action spelling met so far, by dictionary id."""
        return list(self._action_ids)

    def schema(self) -> Any:
        """The Arrow schema of the record batches."""
        pa, _ = pyarrow_modules()
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

    def add(self, record: SentenceSteps | tuple[str, int, tuple[tuple, ...], bytes | None]) -> _Group | None:
        """Take one walk (a record of :func:`walk_record`, unpickled); the row group when it is full, else None."""
        if isinstance(record, SentenceSteps):
            walk = record
        else:
            sent_id, n, fields, vectors = record
            if fields and fields[1] is None:  # the configurations left to replay
                fields = replayed(self.system, self.labelled, n, fields)  # type: ignore[arg-type]
            walk = sentence_steps(sent_id, fields, vectors)
        if walk.sizes[0] and (walk.sizes[_SEGMENT["optimal_lengths"]] == 0) != self.derive_optimal:
            raise ValueError(f"a walk's record {'has' if self.derive_optimal else 'lacks'} its optimal actions, "
                             f"for columns that {'derive' if self.derive_optimal else 'do not derive'} them")
        self._group.add(walk, array("i", map(self._action_ids.__getitem__, walk.spellings)),
                        array("i", map(self._label_ids.__getitem__, walk.label_spellings)))
        return self.flush() if self._group.rows >= self.rows_per_group else None

    def flush(self) -> _Group | None:
        """The row group of the walks taken since the last one (None if none)."""
        group, self._group = self._group, _Group()
        if not group.rows:
            return None
        group.actions, group.labels = self.actions, list(self._label_ids)
        return group

    def batch(self, group: _Group) -> Any:
        """The record batch of a row group."""
        np, (pa, _) = _numpy(), pyarrow_modules()
        columns = group.columns()
        counts = columns["steps"]
        ints = functools.partial(_ints_array, pa)
        sent_ids = pa.StringArray.from_buffers(len(counts), pa.py_buffer(_offsets(np.frombuffer(group.sent_id_ends, dtype=np.int32), ends=True)),
                                               pa.py_buffer(group.sent_ids))
        batch = [pa.DictionaryArray.from_arrays(_ints_array(pa, np.repeat(np.arange(len(counts), dtype=np.int32), counts)),
                                                sent_ids),
                 _ints_array(pa, np.arange(1, group.rows + 1, dtype=np.int32) - np.repeat(_starts(counts), counts)),
                 _list_array(pa, columns["stack_lengths"], _ints_array(pa, columns["stack"])),
                 _taken(pa, columns, "buffer", columns["buffer"], ints),
                 _taken(pa, columns, "heads", columns["heads"], ints)]
        if self.labelled:
            labels = _run_ids(columns, "labels", "labels_items", "label_ids", "label_spellings")
            spelled_labels = _strings_array(pa, group.labels)
            batch.append(_taken(pa, columns, "labels", labels, lambda taken: pa.DictionaryArray.from_arrays(
                _ints_array(pa, taken, valid=taken >= 0), spelled_labels)))
        spellings = _strings_array(pa, group.actions)

        def spelled(ids: Any) -> Any:
            return pa.DictionaryArray.from_arrays(_ints_array(pa, ids), spellings)

        def run_ids(name: str, items: str) -> Any:
            return _run_ids(columns, name, items, "spelling_ids", "spellings")

        legal = run_ids("legal", "legal_items")
        legal_offsets = _offsets(columns["legal_lengths"])
        if self.vocabulary is None:
            offsets = _ints_array(pa, legal_offsets)
            batch += [pa.ListArray.from_arrays(offsets, spelled(legal)),
                      pa.ListArray.from_arrays(offsets, _ints_array(pa, columns["costs"]))]
        else:
            matrix = np.frombuffer(group.vectors, dtype=np.intc).reshape(group.rows, -1)
            batch += [_ints_array(pa, column) for column in matrix.T]
        if self.derive_optimal:
            optimal_lengths, optimal = _cost_zero(legal_offsets, columns["costs"], legal)
        else:
            optimal_lengths, optimal = columns["optimal_lengths"], run_ids("optimal", "optimal_items")
        batch += [_list_array(pa, optimal_lengths, spelled(optimal)), spelled(run_ids("action", "steps"))]
        return pa.record_batch(batch, schema=self.schema())


class SequenceColumns:
    """Collects gold sequences (``oracle``), one row per sentence: ``sent_id``, ``n``, ``system``, ``actions``
    (null when not derivable), ``reason`` (why not, else null), ``projectivized``."""

    def __init__(self) -> None:
        self.rows_per_group = ROWS_PER_GROUP  # read in the run's process (StepColumns)
        self.actions: list[str] = []
        self._action_ids: dict[str, int] = {}
        self.rows: list[tuple[str, int, str, Sequence[str] | None, str | None, bool]] = []

    def add(self, row: tuple[str, int, str, Sequence[str] | None, str | None, bool]) -> list[tuple] | None:
        """Take one sentence's row (the columns in order); the row group when it is full, else None."""
        self.rows.append(row)
        return self.flush() if len(self.rows) >= self.rows_per_group else None

    def schema(self) -> Any:
        """The Arrow schema of the record batches."""
        pa, _ = pyarrow_modules()
        spelled = pa.dictionary(pa.int32(), pa.string())
        return pa.schema([("sent_id", pa.string()), ("n", pa.int32()), ("system", spelled),
                          ("actions", pa.list_(spelled)), ("reason", pa.string()), ("projectivized", pa.bool_())])

    def flush(self) -> list[tuple] | None:
        """The row group of the rows taken since the last one (None if none)."""
        group, self.rows = self.rows, []
        return group or None

    def batch(self, group: list[tuple]) -> Any:
        """The record batch of a row group (built from buffers: :func:`_ints_array`)."""
        np, (pa, _) = _numpy(), pyarrow_modules()
        sent_ids, ns, systems, sequences, reasons, projectivized = zip(*group)
        ids = self._action_ids
        _learn(ids, self.actions, itertools.chain.from_iterable(s for s in sequences if s))
        lengths = np.fromiter((len(s or ()) for s in sequences), np.int32, len(sequences))
        values = np.fromiter(map(ids.__getitem__, itertools.chain.from_iterable(s for s in sequences if s)),
                             np.int32, int(lengths.sum()))
        spellings = pa.DictionaryArray.from_arrays(_ints_array(pa, values), _strings_array(pa, self.actions))
        system_names = list(dict.fromkeys(systems))
        system_ids = np.fromiter(map({name: i for i, name in enumerate(system_names)}.__getitem__, systems),
                                 np.int32, len(systems))
        system = pa.DictionaryArray.from_arrays(_ints_array(pa, system_ids), _strings_array(pa, system_names))
        derived = np.fromiter((s is not None for s in sequences), bool, len(sequences))
        actions = pa.ListArray.from_arrays(_ints_array(pa, _offsets(lengths)), spellings, mask=_bools_array(pa, ~derived))
        return pa.record_batch([_strings_array(pa, sent_ids), _ints_array(pa, np.array(ns, dtype=np.int32)), system,
                                actions, _strings_array(pa, reasons), _bools_array(pa, np.array(projectivized, bool))],
                               schema=self.schema())


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


def _offsets(lengths: Any, ends: bool = False) -> Any:
    """The offsets (int32, one more than the lists) of lists of ``lengths`` (``ends``: given their ends)."""
    np = _numpy()
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    if ends:
        offsets[1:] = lengths
    else:
        np.cumsum(lengths, out=offsets[1:])
    return offsets


def _starts(counts: Any) -> Any:
    """Where each of pieces of ``counts`` items starts among them all (int32, as every index of a row group:
    half the memory of numpy's default int64)."""
    np = _numpy()
    return np.cumsum(counts, dtype=np.int32) - counts.astype(np.int32, copy=False)


def _ranges(starts: Any, lengths: Any) -> Any:
    """The positions of the ranges ``starts[i]`` to ``starts[i] + lengths[i]``, one range after the other."""
    np = _numpy()
    positions = np.repeat((starts - _starts(lengths)).astype(np.int32, copy=False), lengths)
    positions += np.arange(len(positions), dtype=np.int32)
    return positions


def gather(offsets: Any, values: Any, rows: Any) -> tuple[Any, Any]:
    """Rows of a list column held as offsets + values (numpy): their new offsets and their values, in the
    order of ``rows``."""
    starts = offsets[rows]
    lengths = offsets[rows + 1] - starts
    return _offsets(lengths).astype(offsets.dtype, copy=False), values[_ranges(starts, lengths)]


def _list_array(pa: Any, lengths: Any, values: Any) -> Any:
    """An Arrow list array of the lists of ``lengths`` over ``values``."""
    return pa.ListArray.from_arrays(_ints_array(pa, _offsets(lengths)), values)


def _ints_array(pa: Any, values: Any, valid: Any = None) -> Any:
    """A numpy array as an Arrow int32 array (null where ``valid`` is False), on the same memory when it can.
    Built from buffers, not by ``pyarrow.array``, which imports pandas (when installed) to check for its
    types: 50 MB and a third of a second."""
    np = _numpy()
    values = np.ascontiguousarray(values, dtype=np.int32)
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.int32(), len(values), [bitmap, pa.py_buffer(values)])


def _strings_array(pa: Any, strings: Sequence[str | None]) -> Any:
    """An Arrow string array of ``strings``, null for None (built from buffers: :func:`_ints_array`)."""
    np = _numpy()
    encoded = [b"" if s is None else s.encode("utf-8") for s in strings]
    ends = np.fromiter(itertools.accumulate(map(len, encoded)), np.int32, len(encoded))
    valid = np.fromiter((s is not None for s in strings), bool, len(strings))
    bitmap = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.StringArray.from_buffers(len(encoded), pa.py_buffer(_offsets(ends, ends=True)),
                                       pa.py_buffer(b"".join(encoded)), bitmap)


def _bools_array(pa: Any, values: Any) -> Any:
    """A numpy bool array as an Arrow one (built from buffers: :func:`_ints_array`)."""
    bits = pa.py_buffer(_numpy().packbits(values, bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, bits])


def _run_ids(columns: dict[str, Any], name: str, items: str, table: str, tables: str) -> Any:
    """The column ``name`` of a group's walks (each walk's own ids; ``items`` per walk) as the run's ids (the
    walks' tables joined in ``table``, ``tables`` long each); -1 stays -1."""
    np = _numpy()
    local = columns[name]
    run = np.full(len(local), -1, dtype=np.int32)
    known = local >= 0  # the others are -1 (no label yet): looked up, they would index the table from its end
    run[known] = columns[table][(local + np.repeat(_starts(columns[tables]), columns[items]))[known]]
    return run


def _cost_zero(legal_offsets: Any, costs: Any, legal: Any) -> tuple[Any, Any]:
    """Each step's optimal actions as the legal ones of cost 0, in order (lengths and ids, numpy), from the
    legal actions' offsets, costs and ids."""
    np = _numpy()
    zero = costs == 0
    counted = np.zeros(len(zero) + 1, dtype=np.int32)
    np.cumsum(zero, out=counted[1:])
    return counted[legal_offsets[1:]] - counted[legal_offsets[:-1]], legal[zero]


def _taken(pa: Any, columns: dict[str, Any], name: str, values: Any, arrow: Callable[[Any], Any]) -> Any:
    """The rows of a group's shared column ``name`` (:data:`SEGMENTS`): its distinct tuples' ``values`` (numpy),
    each taken by its steps, made an Arrow array by ``arrow``."""
    np = _numpy()
    index = columns[f"{name}_index"] + np.repeat(_starts(columns[f"{name}_distinct"]), columns["steps"])
    offsets, taken = gather(_offsets(columns[f"{name}_lengths"]), values, index)
    return pa.ListArray.from_arrays(_ints_array(pa, offsets), arrow(taken))
