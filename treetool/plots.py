"""Figures (PNG or SVG) for ``--plot`` and the benchmarks; matplotlib is an optional extra.

Nothing here imports matplotlib until a figure is made: treetool's commands
and library work without it, and ``--plot`` without it is an error that says
how to install it (``pip install 'treetool[plot]'``).  Figures are built
with matplotlib's object API (``matplotlib.figure.Figure``), never pyplot, so
no global backend or state is touched.  :func:`line_figure` and
:func:`save_figure` are the general pieces a benchmark can use;
:func:`non_projectivity_figure` and :func:`optimal_counts_figure` are the
figures of ``stats --plot`` and ``projectivize --count --plot``.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from .formats.files import AtomicOutput

#: The file types ``--plot`` writes, by suffix.
PLOT_SUFFIXES = (".png", ".svg")
INSTALL_HINT = "pip install 'treetool[plot]'"


class MatplotlibMissing(ImportError):
    """A figure was asked for, and matplotlib cannot be imported."""


def figure_class() -> Any:
    """matplotlib's ``Figure``, or :class:`MatplotlibMissing` saying how to install it."""
    try:
        from matplotlib.figure import Figure
    except ImportError as err:
        raise MatplotlibMissing(f"plots need matplotlib, which is not installed ({err}): {INSTALL_HINT}") from None
    return Figure


def plot_format(path: str) -> str:
    """``png`` or ``svg`` from the name; ValueError for any other suffix."""
    for suffix in PLOT_SUFFIXES:
        if path.lower().endswith(suffix):
            return suffix[1:]
    raise ValueError(f"a plot is written as {' or '.join(PLOT_SUFFIXES)}, by the file's suffix")


class PlotFile:
    """A figure's output, opened when a run starts and written when it ends.

    Opening first means a path that cannot be written, or a missing
    matplotlib, fails at once instead of after the work; the file appears
    only if :meth:`save` was called and the run succeeded (see
    :class:`~treetool.formats.files.AtomicOutput`).
    """

    def __init__(self, path: str) -> None:
        self.format = plot_format(path)
        self._out = AtomicOutput(path, may_replace_input=False)
        self._saved = False
        try:
            figure_class()
        except MatplotlibMissing:
            self._out.abort()
            raise

    def save(self, figure: Any) -> None:
        buffer = io.BytesIO()
        figure.savefig(buffer, format=self.format, bbox_inches="tight")
        self._out.write(buffer.getvalue())
        self._saved = True

    def __enter__(self) -> PlotFile:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None and self._saved:
            self._out.commit()
        else:
            self._out.abort()


def save_figure(figure: Any, path: str) -> None:
    """Write ``figure`` to ``path`` (``.png`` or ``.svg``), replacing it only when complete."""
    with PlotFile(path) as out:
        out.save(figure)


def line_figure(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    log_y: bool = False,
) -> Any:
    """One line (with markers) per named series of (x, y) points."""
    figure = figure_class()(figsize=(7, 4.5), layout="constrained")
    _lines(figure, figure.add_subplot(), series, title=title, xlabel=xlabel, ylabel=ylabel, log_y=log_y)
    return figure


def _lines(figure: Any, ax: Any, series: Mapping[str, Sequence[tuple[float, float]]], *, title: str,
           xlabel: str, ylabel: str, log_y: bool = False) -> None:
    for name, points in series.items():
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", markersize=3, label=_short(name))
    if log_y:
        ax.set_yscale("log")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.grid(True, alpha=0.3)
    if len(series) > 1:
        figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=min(3, len(series)),
                      fontsize="small")


def non_projectivity_figure(
    shares: Mapping[str, Sequence[tuple[str, float | None]]],
    gap_degrees: Mapping[str, Mapping[int, int]],
) -> Any:
    """``stats --plot``: the non-projective share per sentence-length bucket, and the gap-degree distribution.

    ``shares`` maps a file name to its (bucket, percent) pairs in bucket order
    (None, a share of no sentences, is left out); ``gap_degrees`` maps it to
    the number of sentences per gap degree (Kuhlmann & Nivre 2006), drawn on a
    log scale because degree 0 dwarfs the rest.
    """
    figure = figure_class()(figsize=(11, 4.5), layout="constrained")
    share_ax, gap_ax = figure.subplots(1, 2)
    buckets = list(dict.fromkeys(b for points in shares.values() for b, _ in points))
    width = 0.8 / max(1, len(shares))
    for k, (name, points) in enumerate(shares.items()):
        xs = [buckets.index(b) + k * width for b, v in points if v is not None]
        share_ax.bar(xs, [v for _, v in points if v is not None], width=width, label=_short(name))
    share_ax.set_xticks([i + 0.4 - width / 2 for i in range(len(buckets))], buckets)
    share_ax.set(title="Non-projective sentences by length", xlabel="sentence length (words)",
                 ylabel="non-projective sentences (%)")
    degrees = sorted({d for counts in gap_degrees.values() for d in counts})
    for k, (name, counts) in enumerate(gap_degrees.items()):
        gap_ax.bar([degrees.index(d) + k * width for d in sorted(counts)], [counts[d] for d in sorted(counts)],
                   width=width, label=name)
    gap_ax.set_xticks([i + 0.4 - width / 2 for i in range(len(degrees))], [str(d) for d in degrees])
    gap_ax.set_yscale("log")
    gap_ax.set(title="Gap degree", xlabel="gap degree of the tree", ylabel="sentences")
    for ax in (share_ax, gap_ax):
        ax.grid(True, axis="y", alpha=0.3)
    if len(shares) > 1:
        figure.legend(*share_ax.get_legend_handles_labels(), loc="outside lower center",
                      ncols=min(3, len(shares)), fontsize="small")
    return figure


def _short(name: str) -> str:
    """A series named by a file is labelled by the file's name, without its folders."""
    return os.path.basename(name) or name


class GeometricMeanByLength:
    """The geometric mean of a positive count per sentence length, kept as sums of logarithms.

    Constant memory in the number of sentences; counts may be integers of any
    size (``math.log10`` takes them exactly).
    """

    def __init__(self) -> None:
        self._sums: dict[int, list[float]] = {}  # length -> [sum of log10(count), sentences]

    def add(self, length: int, count: int) -> None:
        entry = self._sums.setdefault(length, [0.0, 0])
        entry[0] += math.log10(count)
        entry[1] += 1

    def log10_points(self) -> list[tuple[int, float]]:
        """(length, log10 of the geometric mean), by length."""
        return [(n, total / k) for n, (total, k) in sorted(self._sums.items())]


def optimal_counts_figure(means: Mapping[str, GeometricMeanByLength]) -> Any:
    """``projectivize --count --plot``: the geometric mean of the number of optimal projective trees
    against sentence length, one line per file, log scale (Nederhof 2019, §8.1, Figure 8).

    The means are drawn from their logarithms, so counts beyond a float's range still plot.
    """
    figure = figure_class()(figsize=(7, 4.5), layout="constrained")
    ax = figure.add_subplot()
    series = {name: [(n, log) for n, log in mean.log10_points()] for name, mean in means.items()}
    _lines(figure, ax, series, title="Optimal projective trees per sentence",
           xlabel="sentence length (words)", ylabel="geometric mean of the number of optimal trees")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(lambda value, _pos: f"$10^{{{value:g}}}$")
    return figure
