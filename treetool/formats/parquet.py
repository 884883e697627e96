"""Parquet output: the optional pyarrow dependency, and a Parquet file written in row groups under the output rules.

A Parquet file ends with its footer (the row groups' places and the
key-value metadata), so it is written to a temporary file and renamed into
place like every output (:class:`~treetool.formats.files.AtomicOutput`):
a failed run leaves no half file. Readers seek to the footer, so the output
must be a regular file: stdout, a pipe or a device is refused, and so is a
compression suffix (Parquet compresses its pages itself, with zstd here).

String columns are written with a dictionary type, which Parquet stores as
dictionary pages (``RLE_DICTIONARY``); the Arrow schema is not stored
(``store_schema=False``), so every reader sees standard Parquet types only:
strings, 32-bit ints, booleans and lists of them (pandas, polars and
Hugging Face ``datasets`` need no extension type).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import stat
import threading
from typing import Any

from .. import __version__
from .files import AtomicOutput, raise_for_write, resolve_links, split_compression

__all__ = ["EXTRA", "SCHEMA_VERSION", "ParquetOutput", "PyarrowMissing", "pyarrow_modules"]

EXTRA = "pip install 'treetool[parquet]'"
SCHEMA_VERSION = 1
"""The version of the columns the files' ``treetool`` metadata names (docs: Training files in Parquet)."""
#: The key of the file's key-value metadata that holds treetool's JSON (versions, system, options, actions).
METADATA_KEY = "treetool"


class PyarrowMissing(ImportError):
    """Parquet was asked for, and pyarrow cannot be imported."""


def pyarrow_modules() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or :class:`PyarrowMissing` naming the extra that installs them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as err:
        raise PyarrowMissing(f"Parquet needs pyarrow, which is not installed ({err}): {EXTRA}") from None
    return pyarrow, pyarrow.parquet


def refusal(path: str) -> str | None:
    """Why ``path`` cannot take a Parquet file (None: it can): the reason, in one line."""
    if path == "-":
        return "Parquet needs a file to write (-o FILE), not stdout: its readers seek to the footer at its end"
    if split_compression(path)[1] is not None:
        return f"{path}: Parquet compresses its own pages (zstd); name the file without a compression suffix"
    resolved = resolve_links(path)
    try:
        found = os.stat(resolved) if resolved is not None else None
    except FileNotFoundError:
        return None
    if resolved is None or not stat.S_ISREG(found.st_mode):
        return f"{path}: Parquet needs a regular file, not a pipe, a device or a descriptor: its readers seek"
    return None


class ParquetOutput:
    """A Parquet file of the rows of ``columns`` (:mod:`treetool.formats.step_columns`), a row group at a time.

    :meth:`write` hands a record to ``columns``, which gives back a row group
    when one is full; a writer thread makes it a record batch and writes it
    (pyarrow encodes and compresses without the interpreter lock, so that
    work overlaps the run's), while the run goes on with the next group:
    at most three groups are in memory (written, waiting, filling). ``metadata`` (JSON-able) is written
    under the key ``treetool`` with the treetool and schema versions and, at
    the end, the action spellings by dictionary id (``actions``). A context
    manager: the file is put in place when the block ends normally, else
    dropped.
    """

    def __init__(self, path: str, columns: Any, metadata: dict[str, Any]) -> None:
        pyarrow, parquet = pyarrow_modules()
        self._columns = columns
        self.metadata = {"treetool_version": __version__, "schema_version": SCHEMA_VERSION, **metadata}
        self._out = AtomicOutput(path, may_replace_input=False)  # a binary file never replaces a treebank
        try:
            self._writer = parquet.ParquetWriter(self._out.stream, columns.schema, compression="zstd",
                                                 store_schema=False, use_dictionary=_dictionary_columns(columns.schema),
                                                 memory_pool=pyarrow.system_memory_pool())  # returns freed memory (mimalloc kept ~15 MB)
        except BaseException:
            self._out.abort()
            raise
        self._groups: queue.Queue = queue.Queue(maxsize=1)
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._write_groups, name="parquet-writer", daemon=True)
        self._thread.start()

    def write(self, record: Any) -> None:
        """Add one record (a sentence's steps, or its gold sequence) to the file."""
        group = self._columns.add(record)
        if group is not None:
            self._hand_over(group)

    def _hand_over(self, group: Any) -> None:
        if self._failure is not None:
            self._raise_failure()
        self._groups.put(group)

    def _write_groups(self) -> None:
        """The writer thread: each group as a record batch (one row group), until None comes."""
        while (group := self._groups.get()) is not None:
            if self._failure is None:
                try:
                    batch = self._columns.batch(group)
                    self._writer.write_batch(batch, row_group_size=batch.num_rows)
                except BaseException as err:  # raised in the run's thread (_raise_failure)
                    self._failure = err

    def _raise_failure(self) -> None:
        err = self._failure
        if isinstance(err, OSError):
            raise_for_write(self._out.name, err)
        raise err  # type: ignore[misc]

    def close(self, ok: bool) -> None:
        """Write the last row group and the metadata and put the file in place (``ok``), else drop it."""
        try:
            if ok:
                group = self._columns.flush()
                if group is not None:
                    self._hand_over(group)
        finally:
            self._groups.put(None)
            self._thread.join()
        if not ok or self._failure is not None:
            with contextlib.suppress(Exception):  # the file is dropped: the run's own error is the one to report
                self._writer.close()  # else the writer closes at garbage collection, writing to a closed file
            self._out.abort()
            if ok:
                self._raise_failure()  # the writer thread's error
            return
        try:
            self.metadata["actions"] = self._columns.actions
            self._writer.add_key_value_metadata({METADATA_KEY: json.dumps(self.metadata, ensure_ascii=False)})
            self._writer.close()
        except BaseException:
            self._out.abort()
            raise
        self._out.commit()

    def __enter__(self) -> ParquetOutput:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(ok=exc_type is None)


def _dictionary_columns(schema: Any) -> list[str]:
    """The column paths of dictionary type (strings, and the items of lists of strings): those get dictionary
    pages, the ints not (their values are too many and too varied for a dictionary to pay)."""
    import pyarrow

    found = []
    for field in schema:
        if pyarrow.types.is_dictionary(field.type):
            found.append(field.name)
        elif pyarrow.types.is_list(field.type) and pyarrow.types.is_dictionary(field.type.value_type):
            found.append(f"{field.name}.list.element")
    return found
