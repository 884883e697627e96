"""Selecting sentences by projectivity, length and id, without changing them."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any

from .formats.files import read_text_file
from .formats.ptb import word_count
from .formats.ptb_source import SourcedTree
from .sentence import Sentence
from .trees import is_projective


def _length(item: Any) -> int:
    if isinstance(item, Sentence):
        return len(item)
    return word_count(item.tree if isinstance(item, SourcedTree) else item)


def select_sentences(
    items: Iterable[Any],
    *,
    projective: bool | None = None,
    min_words: int | None = None,
    max_words: int | None = None,
    ids: Collection[str] | None = None,
    seen_ids: set[str] | None = None,
) -> Iterator[Any]:
    """Yield the items that pass every given test, unchanged.

    ``projective`` keeps projective (True) or non-projective (False) trees
    and needs dependency sentences; lengths count words (for PTB trees the
    leaves, empty elements excepted; a tree with its input text,
    :class:`SourcedTree`, by its tree); ``ids`` keeps sentences whose name
    is in the collection: the name ``diff`` reports them by
    (:meth:`Sentence.identifier`), the ``# sent_id``, else the 1-based
    position in the file, so that sentences without ids can be selected.
    """
    for item in items:
        n = _length(item)
        if min_words is not None and n < min_words:
            continue
        if max_words is not None and n > max_words:
            continue
        if ids is not None:
            if not isinstance(item, Sentence):
                continue
            name = item.identifier(item.position)
            if name not in ids:
                continue
            if seen_ids is not None:
                seen_ids.add(name)
        if projective is not None and is_projective(item.heads) != projective:
            continue
        yield item


#: The byte order mark some editors put at the start of a UTF-8 file: not part of the first id.
BOM = "\ufeff"


def read_ids(path: str) -> set[str]:
    """Sentence ids, one per line (a leading BOM, CRLF line ends, blank lines and surrounding spaces ignored)."""
    lines = read_text_file(path).removeprefix(BOM).splitlines()
    return {line.strip() for line in lines if line.strip()}
