"""The values of the dependency systems' options, in a module of their own: the command line offers them as
choices without importing the systems (``swap`` and ``arc-eager`` pull in the search and tabular-loss code, a
noticeable part of the start-up of every command)."""

from __future__ import annotations

__all__ = ["REDUCE_MODES", "NM_VARIANTS", "SWAP_ORDERS"]

REDUCE_MODES = ("eager", "lazy")
"""When the arc-eager static oracle reduces: as soon as it is safe, or only when it must."""

NM_VARIANTS = ("L", "D", "LD")
"""Non-monotonic arc-eager variants: L (Left-Arc may replace a head), D (Reduce may add s1 -> s0), or both."""

SWAP_ORDERS = ("eager", "lazy")
"""Swap's static-oracle orders: swap as soon as possible (Nivre 2009) or as late as possible (Nivre et al. 2009)."""
