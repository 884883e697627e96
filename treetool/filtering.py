"""Selecting sentences by projectivity, length and id, without changing them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from .errors import TreebankError
from .formats.files import read_text_file
from .formats.ptb import word_count
from .formats.ptb_source import SourcedTree
from .sentence import Sentence
from .trees import is_projective


def _length(item: Any) -> int:
    if isinstance(item, Sentence):
        return len(item)
    return word_count(item.tree if isinstance(item, SourcedTree) else item)


def sentence_name(item: Any) -> str | None:
    """The name ``--ids`` selects ``item`` by, the one ``diff`` reports it by: a CoNLL sentence's
    :meth:`Sentence.identifier` (its ``# sent_id``, else its 1-based position in its file); a PTB tree read with its
    text (:class:`SourcedTree`) its position, the number ``view`` heads it with; None for a tree without one."""
    if isinstance(item, Sentence):
        return item.identifier(item.position)
    return str(item.position) if isinstance(item, SourcedTree) else None


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
    :class:`SourcedTree`, by its tree); ``ids`` keeps the items whose
    :func:`sentence_name` is in the collection.
    """
    for item in items:
        n = _length(item)
        if min_words is not None and n < min_words:
            continue
        if max_words is not None and n > max_words:
            continue
        if ids is not None:
            name = sentence_name(item)
            if name is None or name not in ids:
                continue
            if seen_ids is not None:
                seen_ids.add(name)
        if projective is not None and is_projective(item.heads) != projective:
            continue
        yield item


def refuse_unparsed(items: Iterable[Any], needed_by: str,
                    on_error: Callable[[TreebankError], None]) -> Iterator[Any]:
    """``items`` without the sentences read without a tree (every HEAD ``_``), each passed to ``on_error``.

    For a selection that judges trees (projectivity) of a file read with
    ``unparsed=True``: the error names ``needed_by``, the option that needs
    heads, since reading the file without it is no error.
    """
    for item in items:
        if isinstance(item, Sentence) and not item.has_tree:
            on_error(TreebankError(f"HEAD is '_' (the sentence is not parsed): {needed_by} needs its heads",
                                   filename=item.filename, line=item.line + item.word_row(1), sent_id=item.sent_id,
                                   raw=item.raw))
            continue
        yield item


#: The byte order mark some editors put at the start of a UTF-8 file: not part of the first id.
BOM = "\ufeff"


def read_ids(path: str) -> set[str]:
    """Sentence ids, one per line (a leading BOM, CRLF line ends, blank lines and surrounding spaces ignored)."""
    lines = read_text_file(path).removeprefix(BOM).splitlines()
    return {line.strip() for line in lines if line.strip()}
