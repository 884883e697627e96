"""Report rendering shared by every command: ``--format table|json|tsv|markdown``.

A report is a list of rows (one per file, then the total), each a flat dict
from column name to a number, string or distribution (dict).  JSON keeps the
structure (``{"files": [...], "total": {...}}``); TSV and Markdown flatten
distributions to ``key:count`` lists; the terminal table uses rich with
every cell built as plain :class:`rich.text.Text`, so text that comes from a
corpus (file names, labels) is never read as markup.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

REPORT_FORMATS = ("table", "json", "tsv", "markdown")

#: How a measure over nothing (a share of zero sentences, a mean of no words) is shown.
NOT_APPLICABLE = "n/a"


def percent(part: float, whole: float) -> float | None:
    """``100 * part / whole`` to two decimals, or None (shown "n/a", JSON null) over nothing.

    A share of nothing is undefined, not 0 % or 100 %: reporting a number
    there would claim a result the input cannot support.
    """
    return round(100.0 * part / whole, 2) if whole else None


def ratio(part: float, whole: float, digits: int = 2) -> float | None:
    """``part / whole`` rounded, or None over nothing (see :func:`percent`)."""
    return round(part / whole, digits) if whole else None


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, Mapping):
        return " ".join(f"{k}:{v}" for k, v in value.items())
    if value is None:
        return NOT_APPLICABLE
    return str(value)


def render_json(files: Sequence[Mapping[str, Any]], total: Mapping[str, Any] | None, **extra: Any) -> str:
    doc: dict[str, Any] = {"files": list(files)}
    if total is not None:
        doc["total"] = total
    doc.update(extra)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _rows(files: Sequence[Mapping[str, Any]], total: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    return [*files, *([total] if total is not None and len(files) != 1 else [])]


def render_tsv(columns: Sequence[str], files: Sequence[Mapping[str, Any]], total: Mapping[str, Any] | None) -> str:
    lines = ["\t".join(columns)]
    for row in _rows(files, total):
        lines.append("\t".join(_cell(row.get(c)).replace("\t", " ") for c in columns))
    return "\n".join(lines) + "\n"


def render_markdown(columns: Sequence[str], files: Sequence[Mapping[str, Any]], total: Mapping[str, Any] | None) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in _rows(files, total):
        lines.append("| " + " | ".join(esc(_cell(row.get(c))) for c in columns) + " |")
    return "\n".join(lines) + "\n"


_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: float, largest: float, width: int) -> str:
    """A horizontal bar of ``value`` on a scale where ``largest`` fills ``width`` cells (in eighths of a cell)."""
    eighths = round(8 * width * value / largest) if largest > 0 else 0
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def bar_chart(rows: Sequence[tuple[str, float | None, str]], width: int = 30) -> list[str]:
    """A terminal bar chart, one line per ``(label, value, note)``: the bar scaled to the largest
    value, then the value (``n/a`` for None) and the note."""
    largest = max((v for _, v, _ in rows if v is not None), default=0.0)
    label_width = max((len(label) for label, _, _ in rows), default=0)
    lines = []
    for label, value, note in rows:
        drawn = bar(value, largest, width) if value is not None else ""
        shown = _cell(value)
        lines.append(f"{label:>{label_width}} │{drawn:<{width}} {shown:>6} {note}".rstrip())
    return lines


def print_table(
    title: str,
    columns: Sequence[str],
    files: Sequence[Mapping[str, Any]],
    total: Mapping[str, Any] | None,
    stream: TextIO | None = None,
    beside: Sequence[str] = (),
) -> None:
    """A rich table with one column per report field (transposed: files are columns).

    ``beside`` are lines of plain text (a :func:`bar_chart`) shown to the
    right of the table when the width allows, else below it.
    """
    from rich.columns import Columns
    from rich.table import Table
    from rich.text import Text

    rows = _rows(files, total)
    table = Table(title=Text(title), show_lines=False)
    table.add_column(Text(""), style="bold", no_wrap=True)
    for row in rows:
        name = str(row.get(columns[0], ""))
        table.add_column(Text(name.rsplit("/", 1)[-1]), justify="right", overflow="fold")
    for column in columns[1:]:
        table.add_row(Text(column), *(Text(_cell(row.get(column))) for row in rows))
    console = plain_console(stream)
    console.print(Columns([table, Text("\n".join(beside), no_wrap=True)], padding=(0, 3)) if beside else table)


def plain_console(stream: TextIO, **options: Any) -> Any:
    """A rich console on ``stream`` that reads no markup, and lets a closed pipe raise BrokenPipeError.

    rich's own answer to a closed pipe is ``SystemExit(1)``, which would make
    ``treetool view x | head -1`` fail where every other command ends
    quietly: the command line decides what a closed pipe means.
    """
    from rich.console import Console

    class _PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # drop what is still buffered
            raise BrokenPipeError(32, "Broken pipe")

    return _PipeConsole(file=stream, highlight=False, markup=False, emoji=False, **options)


def render(
    fmt: str,
    title: str,
    columns: Sequence[str],
    files: Sequence[Mapping[str, Any]],
    total: Mapping[str, Any] | None,
    stream: TextIO,
    **extra: Any,
) -> None:
    """Write a report in ``fmt`` to ``stream``."""
    if fmt == "json":
        stream.write(render_json(files, total, **extra))
    elif fmt == "tsv":
        stream.write(render_tsv(columns, files, total))
    elif fmt == "markdown":
        stream.write(render_markdown(columns, files, total))
    elif fmt == "table":
        print_table(title, columns, files, total, stream)
    else:
        raise ValueError(f"unknown report format {fmt!r} (choose from {', '.join(REPORT_FORMATS)})")


class JsonReportFile:
    """A ``--report-file`` opened when the run starts and written when it ends.

    Opening first means a path that cannot be written fails at once (one
    line, exit 1) instead of after hours of work; the file appears only when
    the run succeeds, by the rules of :class:`~treetool.formats.files.AtomicOutput`.
    ``None`` as the path makes every call a no-op.
    """

    def __init__(self, path: str | None) -> None:
        from .formats.files import AtomicOutput

        self._out = AtomicOutput(path, may_replace_input=False) if path else None

    def write(self, doc: Mapping[str, Any]) -> None:
        if self._out is not None:
            self._out.write((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))

    def __enter__(self) -> JsonReportFile:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._out is not None:
            if exc_type is None:
                self._out.commit()
            else:
                self._out.abort()
