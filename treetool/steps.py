"""Batches of annotated steps for a training loop, read from ``treetool annotate``'s Parquet or JSON lines.

In a training loop (``model`` and ``cost_weighted_loss`` are the trainer's)::

    from treetool import steps

    for batch in steps.read("steps.parquet", batch_size=512, shuffle=True, seed=1):
        features = model.features(batch.stack_offsets, batch.stack, batch.buffer_offsets, batch.buffer)
        loss = cost_weighted_loss(model(features), batch.costs, batch.legal)

Each :class:`StepBatch` holds numpy arrays, one row per step: the stack,
buffer and heads as offsets + values (row i is ``values[offsets[i]:offsets[i+1]]``),
and, over the file's action vocabulary (``batch.actions``, ids = positions),
the legal mask, the cost vectors (-1 where illegal) and the optimal mask,
and the id of the action taken. They equal ``oracle.cost_vector`` and
``actions.legal_mask`` only for an unlabelled file or a Parquet file written
with ``annotate --vocabulary``: any other labelled file records each arc
action with the gold label only, so its other labellings, legal as they are,
read as -1 in ``costs`` and False in ``legal``. From Parquet nothing is
parsed in Python: the columns are decoded by pyarrow and turned into these
arrays by numpy, a row group at a time (memory: one row group). ``shuffle`` visits the row groups in a
random order and the steps of each group in a random order (a row group
holds 16,384 steps: :data:`treetool.formats.step_columns.ROWS_PER_GROUP`).
JSON lines are parsed with :mod:`json` (slower; for small files and checks),
in groups of as many lines.

Dependency step files only (``annotate`` with a dependency system); a file's
action vocabulary is the ``actions`` of its metadata (the order in which the
run met the spellings, or the ``--vocabulary`` ids first), or for JSON lines
the spellings in order of first appearance. ``actions=`` fixes it instead
(``system.actions(labels)``, a list of spellings), so that files share ids.
"""

from __future__ import annotations

import itertools
import json
import operator
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .formats.damage import decoding_errors
from .formats.files import open_decompressed
from .formats.parquet import METADATA_KEY, pyarrow_modules
from .formats.step_columns import ROWS_PER_GROUP, gather

__all__ = ["StepBatch", "read"]

_PARQUET_MAGIC = b"PAR1"
_RAGGED = ("stack", "buffer", "heads")


@dataclass(frozen=True)
class StepBatch:
    """Steps as numpy arrays, row i for step i of the batch (module doc)."""

    actions: tuple[str, ...]
    """The spelling of each action id: the columns of ``legal``, ``costs`` and ``optimal``."""
    step: np.ndarray
    """The step's number in its walk (1 for a walk's first step)."""
    stack_offsets: np.ndarray
    stack: np.ndarray
    buffer_offsets: np.ndarray
    buffer: np.ndarray
    heads_offsets: np.ndarray
    heads: np.ndarray
    legal: np.ndarray
    """Bool, rows x actions."""
    costs: np.ndarray
    """int32, rows x actions, -1 where the action is illegal."""
    optimal: np.ndarray
    """Bool, rows x actions: the optimal actions the file records."""
    action: np.ndarray
    """The id of the action taken."""

    def __len__(self) -> int:
        return len(self.step)


def read(path: str, batch_size: int = 1024, *, shuffle: bool = False, seed: int = 0,
         actions: Iterable[str] | None = None) -> Iterator[StepBatch]:
    """The steps of the Parquet or JSON-lines file ``path`` (compressed JSON lines too), ``batch_size`` at a time.
    ``path`` is a regular file: it is read in two passes (a pipe or FIFO cannot be).

    A batch never spans two row groups, so a group's last batch may be
    shorter. ``shuffle`` (with ``seed``): row groups and the steps within
    each in a random order. ``actions``: the action vocabulary (module doc),
    distinct spellings. The arguments are checked and the file opened when
    ``read`` is called, before the first batch is asked for.
    """
    try:
        batch_size = operator.index(batch_size)  # an int, numpy's included
    except TypeError:
        raise TypeError(f"batch_size must be an int, not {batch_size!r}") from None
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    if isinstance(actions, str):  # an iterable of spellings too: "SH" would give S, H
        raise TypeError(f"actions must be a list of action spellings (e.g. system.actions(labels)), not the "
                        f"string {actions!r}")
    vocabulary = None if actions is None else tuple(actions)
    if vocabulary is not None and len(set(vocabulary)) != len(vocabulary):
        twice = sorted({a for a in vocabulary if vocabulary.count(a) > 1})
        raise ValueError(f"actions must be distinct (an id per spelling): {', '.join(map(repr, twice))} given "
                         f"more than once")
    with open(path, "rb") as file:
        parquet = file.read(4) == _PARQUET_MAGIC
    groups = (_parquet_groups if parquet else _jsonl_groups)(path, vocabulary, shuffle, seed)
    return _batches(groups, batch_size, shuffle, seed)


def _batches(groups: Iterator[StepBatch], batch_size: int, shuffle: bool, seed: int) -> Iterator[StepBatch]:
    """The batches of ``groups``, each group's steps permuted first when ``shuffle``."""
    rng = np.random.default_rng(seed)
    for group in groups:
        if shuffle:  # the whole group at once: one gather per column, not one per batch
            group = _take(group, rng.permutation(len(group)).astype(np.int32))
        for start in range(0, len(group), batch_size):
            yield _slice(group, start, min(start + batch_size, len(group)))


# ---------------------------------------------------------------- Parquet


def _parquet_groups(path: str, actions: Sequence[str] | None, shuffle: bool, seed: int) -> Iterator[StepBatch]:
    _, parquet = pyarrow_modules()
    footer = parquet.read_metadata(path)
    metadata = json.loads((footer.metadata or {}).get(METADATA_KEY.encode(), b"{}"))
    if metadata.get("command") != "annotate":
        raise ValueError(f"{path} is not a step file of treetool annotate (its metadata names no annotate run)")
    spelled = ["action", "optimal.list.element", *(["legal.list.element"] if "legal" in footer.schema.to_arrow_schema().names else [])]
    file = parquet.ParquetFile(path, read_dictionary=spelled)
    vocabulary = tuple(actions if actions is not None else metadata["actions"])
    ids = {a: i for i, a in enumerate(vocabulary)}
    names = file.schema_arrow.names
    order = list(range(file.num_row_groups))
    if shuffle:
        random.Random(seed).shuffle(order)
    for index in order:
        table = file.read_row_group(index, columns=[n for n in names if n not in ("sent_id", "labels")])
        yield _parquet_group(table, vocabulary, ids)


def _parquet_group(table: Any, vocabulary: tuple[str, ...], ids: dict[str, int]) -> StepBatch:
    """One row group's columns as a :class:`StepBatch` (numpy only: no Python object per step)."""
    rows = table.num_rows
    ragged = {}
    for name in _RAGGED:
        column = table.column(name).combine_chunks()
        offsets = column.offsets.to_numpy()
        ragged[name] = (offsets - offsets[0], column.values.to_numpy()[offsets[0]:offsets[-1]])
    costs = np.full((rows, len(vocabulary)), -1, dtype=np.int32)
    if "legal" in table.column_names:
        rows_of, legal = _spelled_lists(table.column("legal"), ids)
        costs[rows_of, legal] = table.column("costs").combine_chunks().values.to_numpy()
    else:
        for name in table.column_names:
            if name.startswith("cost:"):
                costs[:, _id(ids, name[len("cost:"):])] = table.column(name).to_numpy()
    optimal = np.zeros((rows, len(vocabulary)), dtype=bool)
    optimal[_spelled_lists(table.column("optimal"), ids)] = True
    return StepBatch(vocabulary, table.column("step").to_numpy(), *ragged["stack"], *ragged["buffer"],
                     *ragged["heads"], costs >= 0, costs, optimal, _spelled(table.column("action"), ids))


def _global_ids(dictionary: Any, ids: dict[str, int]) -> np.ndarray:
    """Per entry of a chunk's dictionary, its id in the vocabulary ``ids``."""
    spellings = dictionary.to_pylist()
    return np.array([_id(ids, s) for s in spellings], dtype=np.int32)


def _id(ids: dict[str, int], spelling: str) -> int:
    """The id of ``spelling``; a ValueError naming it when the vocabulary (``read``'s ``actions``) lacks it."""
    try:
        return ids[spelling]
    except KeyError:
        raise _not_in_vocabulary(spelling) from None


def _not_in_vocabulary(spelling: str) -> ValueError:
    return ValueError(f"the action {spelling!r} is not in the action vocabulary")


def _spelled(column: Any, ids: dict[str, int]) -> np.ndarray:
    """A dictionary column's vocabulary ids."""
    return np.concatenate([_global_ids(chunk.dictionary, ids)[chunk.indices.to_numpy()] for chunk in column.chunks])


def _spelled_lists(column: Any, ids: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """A list<dictionary> column as (row of each item, its vocabulary id)."""
    rows, values, base = [], [], 0
    for chunk in column.chunks:
        offsets = chunk.offsets.to_numpy()
        items = chunk.values.slice(offsets[0], offsets[-1] - offsets[0])
        values.append(_global_ids(items.dictionary, ids)[items.indices.to_numpy()])
        rows.append(np.repeat(np.arange(base, base + len(chunk), dtype=np.int64), np.diff(offsets)))
        base += len(chunk)
    return np.concatenate(rows), np.concatenate(values)


# ---------------------------------------------------------------- JSON lines


def _jsonl_groups(path: str, actions: Sequence[str] | None, shuffle: bool, seed: int) -> Iterator[StepBatch]:
    """Groups of :data:`ROWS_PER_GROUP` lines; a first pass finds where each starts (and the spellings met)."""
    starts, met = [], {}
    with open_decompressed(path) as lines, decoding_errors(lines, path):
        for number, line in enumerate(iter(lines.readline, b""), 1):
            if (number - 1) % ROWS_PER_GROUP == 0:
                starts.append((lines.tell() - len(line), number))
            if actions is None:
                record = _step_record(line, path, number)
                met.update(dict.fromkeys(record["costs"]))
                met.update(dict.fromkeys(record["optimal"]))
                met[record["action"]] = None
    vocabulary = tuple(actions if actions is not None else met)
    ids = {a: i for i, a in enumerate(vocabulary)}
    if shuffle:
        random.Random(seed).shuffle(starts)
    with open_decompressed(path) as lines, decoding_errors(lines, path):
        for start, first in starts:
            lines.seek(start)
            group = itertools.islice(iter(lines.readline, b""), ROWS_PER_GROUP)
            yield _jsonl_group([_step_record(line, path, number) for number, line in enumerate(group, first)],
                               vocabulary, ids)


#: The fields of a dependency step record (``treetool annotate``'s JSON lines) that a batch reads.
_RECORD_FIELDS = frozenset({"step", "stack", "buffer", "heads", "costs", "optimal", "action"})


def _step_record(line: bytes, path: str, number: int) -> dict[str, Any]:
    """Line ``number`` of ``path`` as a dependency step record; anything else is a ValueError naming the line."""
    try:
        record = json.loads(line)
    except ValueError as err:
        raise ValueError(f"{path}:{number}: not a JSON line ({err})") from None
    if not isinstance(record, dict) or not _RECORD_FIELDS <= record.keys() or not isinstance(record["costs"], dict):
        raise ValueError(f"{path}:{number}: not a dependency step record of treetool annotate (one with "
                         f"{', '.join(sorted(_RECORD_FIELDS))}; constituency steps are not read)")
    return record


def _jsonl_group(records: list[dict[str, Any]], vocabulary: tuple[str, ...], ids: dict[str, int]) -> StepBatch:
    rows = len(records)
    ragged = [_offsets_values([r[name] for r in records]) for name in _RAGGED]
    costs = np.full((rows, len(vocabulary)), -1, dtype=np.int32)
    optimal = np.zeros((rows, len(vocabulary)), dtype=bool)
    try:  # one try per group, not a test per spelling: a KeyError is a spelling missing from ``actions``
        for row, record in enumerate(records):
            for spelling, cost in record["costs"].items():
                costs[row, ids[spelling]] = cost
            for spelling in record["optimal"]:
                optimal[row, ids[spelling]] = True
        taken = np.array([ids[r["action"]] for r in records], dtype=np.int32)
    except KeyError as err:
        raise _not_in_vocabulary(err.args[0]) from None
    return StepBatch(vocabulary, np.array([r["step"] for r in records], dtype=np.int32),
                     *ragged[0], *ragged[1], *ragged[2], costs >= 0, costs, optimal, taken)


def _offsets_values(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(lists) + 1, dtype=np.int32)
    np.cumsum([len(x) for x in lists], out=offsets[1:])
    return offsets, np.array([v for x in lists for v in x], dtype=np.int32)


# ---------------------------------------------------------------- batches


def _take(group: StepBatch, rows: np.ndarray) -> StepBatch:
    """The steps ``rows`` of a group, in that order (ragged columns gathered with numpy)."""
    ragged = []
    for name in _RAGGED:
        offsets, values = getattr(group, f"{name}_offsets"), getattr(group, name)
        ragged += gather(offsets, values, rows)
    return StepBatch(group.actions, group.step[rows], *ragged, group.legal[rows], group.costs[rows],
                     group.optimal[rows], group.action[rows])


def _slice(group: StepBatch, start: int, stop: int) -> StepBatch:
    """The steps ``start`` to ``stop`` of a group: views, the offsets rebased (no gather)."""
    ragged = []
    for name in _RAGGED:
        offsets, values = getattr(group, f"{name}_offsets")[start:stop + 1], getattr(group, name)
        ragged += [offsets - offsets[0], values[offsets[0]:offsets[-1]]]
    return StepBatch(group.actions, group.step[start:stop], *ragged, group.legal[start:stop],
                     group.costs[start:stop], group.optimal[start:stop], group.action[start:stop])
