"""treetool: prepare treebanks for transition-based parsing.

The core package: sentence and tree types, streaming readers and writers,
errors, and tree algorithms (projectivity, gap degree, projectivization).
"""

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "labels"]


def __getattr__(name: str) -> Any:
    """``treetool.labels`` (:func:`treetool.inventory.labels`), imported on first use (PEP 562): ``import
    treetool`` alone, which every command does, loads neither the readers nor numpy."""
    if name == "labels":
        from .inventory import labels

        return labels
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
