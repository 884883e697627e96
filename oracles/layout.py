"""Where the words of a configuration are, and the checks that a configuration fits an oracle's sentence and system.

Every built-in dependency system keeps the root 0 in one of two places
(``ROOT_POSITIONS``):

* ``"first"``: the stack starts as ``[0]`` and the root never leaves it;
  the buffer is a suffix ``first..n`` of the sentence (arc-standard,
  attardi, swap, arc-hybrid as in Kuhlmann et al. 2011, arc-eager as in
  Nivre 2008 and Goldberg & Nivre 2012 §3).
* ``"last"``: the stack starts empty and the buffer is ``1..n, 0``; the root
  is shifted only onto an empty stack, which ends the computation
  (Ballesteros & Nivre 2013; arc-eager as in Honnibal et al. 2013 §2).

An oracle serves one sentence of one system; a configuration of another
length, with a head on the root, or with the root where the other position
puts it cannot belong to it, and would get silent, wrong costs. The checks
here raise :class:`ConfigurationMismatch` (a ``ValueError``) instead:
:func:`check_configuration` is O(1), for every call of an oracle;
:func:`check_arrangement` is O(n), for where an oracle rebuilds its state in
O(n) anyway.
"""

from __future__ import annotations

from operator import lt

from .configuration import Configuration
from .errors import ConfigurationMismatch

__all__ = [
    "ROOT_POSITIONS", "check_root", "check_sentence", "check_configuration", "check_arrangement",
    "first_in_buffer",
]

ROOT_POSITIONS = ("first", "last")
"""Where the root 0 starts: at the bottom of the stack, or at the end of the buffer (module doc)."""


def check_root(root: str) -> None:
    """A ``ValueError`` unless ``root`` is one of :data:`ROOT_POSITIONS`."""
    if root not in ROOT_POSITIONS:
        raise ValueError(f"root must be one of {', '.join(ROOT_POSITIONS)}, got {root!r}")


def first_in_buffer(config: Configuration, n: int, root_last: bool) -> int:
    """The first word of the buffer ``first..n`` (n + 1 when no word is left), read off its length."""
    buffer = config.buffer
    return n + 1 - len(buffer) + (root_last and bool(buffer))


def check_sentence(config: Configuration, n: int) -> None:
    """O(1), for any system: the sentence length, a headless root, the labels' length."""
    heads, labels = config.heads, config.labels
    if len(heads) != n + 1:
        raise ConfigurationMismatch(f"the configuration has {len(heads) - 1} words; the oracle's sentence has {n}")
    if heads[0] != -1:
        raise ConfigurationMismatch(f"the root 0 has a head ({heads[0]}); it never gets one")
    if labels is not None and len(labels) != n + 1:
        raise ConfigurationMismatch(f"the configuration has {len(labels)} labels for {n} words and the root")


def check_configuration(config: Configuration, n: int, root_last: bool) -> None:
    """O(1): :func:`check_sentence`, and the root where ``root_last`` puts it (one test on the fast path)."""
    stack, buffer, heads, labels = config
    if len(heads) == n + 1 and heads[0] == -1 and (labels is None or len(labels) == n + 1):
        if root_last:
            if (buffer[-1] == 0 and (not stack or stack[0] != 0)) if buffer else stack == (0,):
                return
        elif stack and stack[0] == 0 and (not buffer or buffer[-1] == n):
            return
    _refuse(config, n, root_last)


def _refuse(config: Configuration, n: int, root_last: bool) -> None:
    """Raise what :func:`check_configuration` found wrong."""
    check_sentence(config, n)
    if root_last:
        raise ConfigurationMismatch("the root 0 is not at the end of the buffer, where a root-last system keeps it "
                                    "until the stack is empty (a root-first configuration?)")
    raise ConfigurationMismatch("the root 0 is not at the bottom of the stack with the buffer ending in word "
                                f"{n}, as a root-first system keeps them (a root-last configuration?)")


def check_arrangement(config: Configuration, n: int, root_last: bool) -> None:
    """O(n), after :func:`check_configuration`: what every built-in system but swap keeps true.

    The buffer is ``first..n`` (then 0 when the root is last), none of its
    words has a head; the stack holds earlier words in increasing order; a
    word on neither has a head (it left the stack by an arc or a reduce).
    """
    stack, buffer, heads = config.stack, config.buffer, config.heads
    first = first_in_buffer(config, n, root_last)
    expected = tuple(range(first, n + 1)) + ((0,) if root_last and buffer else ())
    if buffer != expected:
        raise ConfigurationMismatch(f"the buffer {list(buffer)} is not the words {first}..{n} in order"
                                    + (" then the root 0" if root_last else ""))
    if heads[first:].count(-1) != n + 1 - first:
        raise ConfigurationMismatch("a word in the buffer has a head")
    if not all(map(lt, stack, stack[1:])) or (stack and stack[-1] >= first):
        raise ConfigurationMismatch(f"the stack {list(stack)} does not hold words before the buffer in increasing order")
    placed = heads[1:first]  # the others are -1: the root's (check_configuration) and the buffer's
    if placed and (max(placed) > n or min(placed) < -1):
        raise ConfigurationMismatch(f"a head outside 0..{n}")
    headless_on_stack = list(map(heads.__getitem__, stack)).count(-1) - (0 in stack)  # heads[0] is -1
    if placed.count(-1) != headless_on_stack:
        raise ConfigurationMismatch("a word that left the stack has no head")
