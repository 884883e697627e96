"""The writer process of a Parquet output (:class:`~treetool.formats.parquet.ParquetOutput`), which starts it
(:func:`serve`, from the run's own treetool), never by hand.

Turning records into columns and pages is work the run's process would do
holding the interpreter lock, so it would not overlap the walks even in a
thread; here it runs on another core. Standard input is a stream of
pickles: the columns object (``StepColumns`` or ``SequenceColumns``) with
the number of the inherited descriptor to write to, the records one by
one, then ``None`` and the file's metadata. Only then is the footer
written: an input that ends before (the run failed, or was killed) leaves
the file unfinished, and the run drops it. Standard output gets one pickle,
the outcome: ``"written"``, or the exception that stopped the writing.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import sys
from typing import IO, Any

from .parquet import METADATA_KEY, WRITTEN, pyarrow_modules

__all__ = ["serve", "write_records"]


def serve() -> None:
    """Write the file that standard input describes, and report the outcome on standard output."""
    try:
        outcome: Any = write_records(sys.stdin.buffer)
    except BaseException as err:  # reported to the run, which raises it
        outcome = err
    with contextlib.suppress(OSError):  # the run, if still writing, gets a broken pipe, not a wait for a report
        os.close(0)
    report = sys.stdout.buffer
    try:
        message = pickle.dumps(outcome)
    except Exception:  # an exception that does not pickle: its text
        message = pickle.dumps(RuntimeError(f"{type(outcome).__name__}: {outcome}"))
    with contextlib.suppress(OSError):  # the run has ended: no one to tell
        report.write(message)
        report.flush()
    # Nothing is left to flush or close (the file is written, the report sent): ending here spares the run,
    # which waits for this process, the interpreter's tear-down of pyarrow and numpy (about 30 ms).
    os._exit(0)


def write_records(source: IO[bytes]) -> str:
    """The file of the pickles read from ``source`` (module doc) written: :data:`WRITTEN`. Each pickle is
    read by an unpickler of its own (one left over would shift the next one's memo)."""
    columns, descriptor = pickle.load(source)
    pyarrow, parquet = pyarrow_modules()
    schema = columns.schema()
    with os.fdopen(descriptor, "wb", closefd=False) as sink:
        writer = parquet.ParquetWriter(sink, schema, compression="zstd", store_schema=False,
                                       use_dictionary=_dictionary_columns(pyarrow, schema),
                                       memory_pool=pyarrow.system_memory_pool())  # returns freed memory
        try:
            while (record := pickle.load(source)) is not None:
                _write_group(writer, columns, columns.add(record))
            metadata = pickle.load(source)
            _write_group(writer, columns, columns.flush())
            metadata["actions"] = columns.actions
            writer.add_key_value_metadata({METADATA_KEY: json.dumps(metadata, ensure_ascii=False)})
        except BaseException:
            with contextlib.suppress(Exception):  # the file is dropped; else it would close at exit, into a closed sink
                writer.close()
            raise
        writer.close()
    return WRITTEN


def _write_group(writer: Any, columns: Any, group: Any) -> None:
    """Write ``group`` (None: no group yet) as one row group."""
    if group is not None:
        batch = columns.batch(group)
        writer.write_batch(batch, row_group_size=batch.num_rows)


def _dictionary_columns(pyarrow: Any, schema: Any) -> list[str]:
    """The column paths of dictionary type (strings, and the items of lists of strings): those get dictionary
    pages, the ints not (their values are too many and too varied for a dictionary to pay)."""
    found = []
    for field in schema:
        if pyarrow.types.is_dictionary(field.type):
            found.append(field.name)
        elif pyarrow.types.is_list(field.type) and pyarrow.types.is_dictionary(field.type.value_type):
            found.append(f"{field.name}.list.element")
    return found
