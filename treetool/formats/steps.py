"""Step records: a walk's steps (``treetool annotate``) as JSON lines or TSV lines.

Dependency steps, JSON lines: ``{"sent_id", "step", "stack", "buffer", "heads", ["labels",] "costs", "optimal",
"action"}``, one object per step; heads has n+1 entries, ``heads[0] = -1``, -1 = no head yet; labels (labelled
walks only) likewise, ``null`` = no label yet; step counts from 1.  TSV: ``sent_id TAB step TAB taken TAB optimal
TAB costs``, where optimal is the optimal actions separated by spaces and costs is ``ACTION=COST`` separated by
spaces, in the system's legal order.

Constituency steps, JSON lines only: ``{"sent_id", "step", "stack", "buffer", "built", ["finished",] "costs",
"optimal", "action"}``; a stack item is ``{"word": i}``, ``{"open": label}`` or ``{"label", "start", "end"}``, words
count from 0, spans are end-exclusive, ``buffer`` is the next word, ``finished`` (in-order only) says whether
``TERM`` was taken.

Every JSON line is byte for byte what ``json.dumps(record, ensure_ascii=False)`` writes; it is spelled out here
because ``json.dumps`` per record took half of an ``annotate`` run.  The encoders read a step by its attributes
(``treetool.oracles.annotate.Step``, ``treetool.oracles.constituency.annotate.ConstituencyStep``), so the core
encodes the oracles' records without importing them; :func:`dependency_jsonl` unpacks a dependency step as the
tuple it is, in the order of its fields (as ``treetool.formats.step_columns.walk_record`` reads them): eight
attribute reads a step were a sixth of its encoding.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["DEPENDENCY_FORMATS", "constituency_jsonl", "dependency_jsonl", "dependency_tsv"]


def dependency_jsonl(sent_id: str, steps: Iterable[Any]) -> str:
    """The JSON lines of one walk over a dependency tree.

    Lists of ints are written as ``str(list)`` writes them (the same text,
    :func:`_ints_text`); the buffer, heads and labels are encoded again only
    when a step changed them (transitions pass unchanged tuples on), and a
    buffer that lost its first word is cut from the text before
    (:func:`_buffer_text`); the end of a record (costs, optimal, action)
    comes from :func:`_record_end`, which sees few distinct values.
    """
    head = f'{{"sent_id": {_quoted(sent_id)}, "step": '
    lines = []
    heads = labels = buffer = heads_text = buffer_text = None
    labels_text = ""
    for step, stack, s_buffer, s_heads, s_labels, costs, optimal, action in steps:  # the fields in order
        if s_buffer is not buffer:
            buffer_text = _buffer_text(s_buffer, buffer, buffer_text)
            buffer = s_buffer
        if s_heads is not heads:
            heads, heads_text = s_heads, _ints_text(s_heads)
        if s_labels is not labels:
            labels, labels_text = s_labels, f'"labels": [{", ".join([_quoted(x) for x in s_labels])}], '
        lines.append(f'{head}{step}, "stack": {_ints_text(stack)}, "buffer": {buffer_text}, "heads": {heads_text}, '
                     f'{labels_text}{_record_end(tuple(costs.items()), tuple(optimal), action)}')
    return "".join(lines)


#: ``str(i)`` for the ints a step's lists hold (-1 and words), grown on demand (:func:`_ints_text`).
_INT_TEXTS: dict[int, str] = {-1: "-1"}
_INT_TEXT = _INT_TEXTS.__getitem__  # bound once, not per call


def _ints_text(ints: tuple[int, ...]) -> str:
    """``str(list(ints))`` from the cached texts of the ints: half the time (it writes each int anew)."""
    try:
        return f"[{', '.join(map(_INT_TEXT, ints))}]"
    except KeyError:
        _INT_TEXTS.update((i, str(i)) for i in ints)
        return f"[{', '.join(map(_INT_TEXT, ints))}]"


def _buffer_text(buffer: tuple[int, ...], before: tuple[int, ...] | None, before_text: str | None) -> str:
    """The JSON of ``buffer``; when it is ``before`` less its first word (a shift), cut from ``before_text``."""
    if before and len(buffer) == len(before) - 1 and buffer == before[1:]:
        return f"[{before_text[before_text.index(' ') + 1 :]}" if buffer else "[]"
    return _ints_text(buffer)


def dependency_tsv(sent_id: str, steps: Iterable[Any]) -> str:
    """The TSV lines of one walk over a dependency tree."""
    return "".join(
        f"{sent_id}\t{s.step}\t{s.action}\t{' '.join(s.optimal)}\t"
        f"{' '.join(f'{a}={c}' for a, c in s.costs.items())}\n"
        for s in steps
    )


#: The formats of dependency steps: name -> the encoder of one walk.
DEPENDENCY_FORMATS: dict[str, Callable[[str, Iterable[Any]], str]] = {
    "jsonl": dependency_jsonl, "tsv": dependency_tsv,
}


def constituency_jsonl(sent_id: str, steps: Iterable[Any], in_order: bool) -> str:
    """The JSON lines of one walk over a constituency tree (``in_order``: records say ``finished``).

    Each configuration of a walk is the successor of the one before: its
    stack is the previous stack below its top item (SHIFT, NT/PJ push one
    item; REDUCE pops several and pushes one; TERM keeps the stack), and
    its ``built`` is the previous one or that plus one span. So the stack
    and ``built`` texts are kept as running prefixes (one per stack depth)
    and extended, not re-encoded or compared; the end of a record (costs,
    optimal, action) takes few distinct values and comes from a cache.
    """
    head = f'{{"sent_id": {_quoted(sent_id)}, "step": '
    stack: tuple = ()
    prefixes = [""]  # prefixes[i]: the JSON of the stack's first i items
    built: tuple = ()
    built_text = ""
    lines = []
    for s in steps:
        config = s.config
        if config.stack is not stack:
            stack = config.stack
            del prefixes[len(stack):]
            last, top = prefixes[-1], _item_text(stack[-1])
            prefixes.append(f"{last}, {top}" if last else top)
        if config.built is not built:
            built = config.built
            span = _span_text(built[-1])
            built_text = f"{built_text}, {span}" if built_text else span
        finished = ('"finished": true, ' if config.finished else '"finished": false, ') if in_order else ""
        lines.append(f'{head}{s.step}, "stack": [{prefixes[-1]}], "buffer": {config.buffer}, "built": [{built_text}], '
                     f'{finished}{_end_text(tuple(s.costs), tuple(s.costs.values()), tuple(s.optimal), s.action)}')
    return "".join(lines)


@functools.lru_cache(maxsize=65536)
def _record_end(costs: tuple[tuple[str, int], ...], optimal: tuple[str, ...], action: str) -> str:
    """``"costs": {...}, "optimal": [...], "action": ...}`` and the line end, as JSON."""
    pairs = ", ".join([f"{_quoted(a)}: {c}" for a, c in costs])
    return f'"costs": {{{pairs}}}, "optimal": [{", ".join(map(_quoted, optimal))}], "action": {_quoted(action)}}}\n'


@functools.lru_cache(maxsize=65536)
def _end_text(actions: tuple[str, ...], costs: tuple[int, ...], optimal: tuple[str, ...], action: str) -> str:
    """``_record_end`` keyed by the actions and their costs apart: two flat tuples hash faster than one of pairs
    (a constituency step has a cost per label: about 30 pairs), which is 2% of an in-order ``--loss paper`` run."""
    return _record_end(tuple(zip(actions, costs)), optimal, action)


@functools.lru_cache(maxsize=65536)
def _item_text(item: Any) -> str:
    """A constituency stack item as JSON: a constituent has a ``label``, ``start`` and ``end``, an open
    non-terminal a ``label`` and no ``end``, a word neither, only its ``index`` (every tuple has an ``index``
    method, so that one cannot tell a word)."""
    if hasattr(item, "end"):
        return f'{{"label": {_quoted(item.label)}, "start": {item.start}, "end": {item.end}}}'
    if hasattr(item, "label"):
        return f'{{"open": {_quoted(item.label)}}}'
    return f'{{"word": {item.index}}}'


@functools.lru_cache(maxsize=65536)
def _span_text(span: tuple[str, int, int]) -> str:
    """A ``built`` span ``(label, start, end)`` as a JSON list."""
    return f"[{_quoted(span[0])}, {span[1]}, {span[2]}]"


@functools.lru_cache(maxsize=65536)
def _quoted(text: str | None) -> str:
    """``text`` as JSON (``null`` for None), cached: a treebank has few distinct spellings."""
    return json.dumps(text, ensure_ascii=False)
