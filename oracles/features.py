"""The children each word has so far in a configuration, for a parser's features, without re-implementing the parser.

Feature sets of transition-based parsers read, for the words on top of the
stack and at the front of the buffer, their leftmost and rightmost children
built so far (Zhang & Nivre 2011; Chen & Manning 2014: lc1, lc2, rc1,
rc2) and how many there are on each side (Zhang & Nivre 2011's valency). A configuration holds the heads only, so a scan of them per query
would be O(n); :class:`Children` keeps, per word, its left and its right
children in word order, so that every query is O(1). The labels of the
children are ``config.labels[child]``.

>>> from treetool.oracles import Children, get_system
>>> system = get_system("arc-standard")
>>> config = system.run(["SH", "SH", "SH", "LA", "LA", "SH", "RA"], 4)   # 3 -> 1, 3 -> 2, 3 -> 4
>>> children = Children()
>>> children.leftmost(config, 3), children.leftmost(config, 3, 2), children.rightmost(config, 3)
(1, 2, 4)
>>> children.left_count(config, 3), children.right_count(config, 3), children.leftmost(config, 4)
(2, 1, -1)
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence

from .configuration import Configuration

__all__ = ["Children", "NONE"]

NONE = -1
"""What a query answers when the word has no such child."""

_CANDIDATES = 4  # the stack items (from the top) whose head one transition may change, besides b0


class Children:
    """The left and right children of every word of a configuration, in word order; every query O(1).

    Queries take the configuration. The index follows the heads of the last
    configuration asked about: the same heads cost nothing; the heads of
    the next configuration of a walk (one transition changes the head of
    one word among the top stack items and the front of the buffer, in
    every built-in system) move one child from list to list; any other
    configuration (another sentence, a jump) rebuilds the index in O(n).
    One object can serve any number of sentences, one after the other.
    ``word`` is a word of the configuration's sentence (0..n), or
    :data:`NONE`, which has no children (so a query takes another's answer:
    ``leftmost(config, leftmost(config, s0))``); any other is a ``ValueError``.
    """

    def __init__(self) -> None:
        self._config: Configuration | None = None
        self._left: list[list[int]] = []  # per word: its children before it, in word order
        self._right: list[list[int]] = []  # per word: its children after it, in word order

    # ------------------------------------------------------------ queries
    def leftmost(self, config: Configuration, word: int, k: int = 1) -> int:
        """The k-th (k >= 1) leftmost child of ``word`` among those before it (lc_k), :data:`NONE` if it has fewer.

        ``k < 1`` is a ``ValueError``: ``k`` counts from 1, and a 0 would
        otherwise index from the other end (the check costs one comparison).
        """
        left = self._sides(config, word)[0]
        if len(left) >= k >= 1:
            return left[k - 1]
        return _none_for(k)

    def rightmost(self, config: Configuration, word: int, k: int = 1) -> int:
        """The k-th (k >= 1) rightmost child of ``word`` among those after it (rc_k), :data:`NONE` if it has fewer
        (``k < 1``: ``ValueError``, as :meth:`leftmost`)."""
        right = self._sides(config, word)[1]
        if len(right) >= k >= 1:
            return right[-k]
        return _none_for(k)

    def left_count(self, config: Configuration, word: int) -> int:
        """How many children ``word`` has before it."""
        return len(self._sides(config, word)[0])

    def right_count(self, config: Configuration, word: int) -> int:
        """How many children ``word`` has after it."""
        return len(self._sides(config, word)[1])

    def count(self, config: Configuration, word: int) -> int:
        """How many children ``word`` has."""
        left, right = self._sides(config, word)
        return len(left) + len(right)

    def children(self, config: Configuration, word: int) -> tuple[int, ...]:
        """All the children of ``word``, in word order (O(number of children))."""
        left, right = self._sides(config, word)
        return (*left, *right)

    # ------------------------------------------------------------ the index
    def _sides(self, config: Configuration, word: int) -> tuple[Sequence[int], Sequence[int]]:
        """The children of ``word`` before it and after it; none for :data:`NONE`, so that a query can take
        another's answer (lc_1 of lc_1 of s0) without a test; a ``ValueError`` for any other word outside the
        sentence (Python would read a negative one from the end: another word's children, silently)."""
        left, right = self._lists(config)
        if 0 <= word < len(left):
            return left[word], right[word]
        if word == NONE:
            return (), ()
        raise ValueError(f"word {word!r} is not in the configuration's sentence (0..{len(left) - 1}, or NONE)")

    def _lists(self, config: Configuration) -> tuple[list[list[int]], list[list[int]]]:
        last = self._config
        if last is None or config.heads is not last.heads:
            if last is None or not self._move(last, config):
                self._rebuild(config)
        self._config = config
        return self._left, self._right

    def _rebuild(self, config: Configuration) -> None:
        heads = config.heads
        self._left = left = [[] for _ in heads]
        self._right = right = [[] for _ in heads]
        for word, head in enumerate(heads):
            if head >= 0:
                (left if word < head else right)[head].append(word)

    def _move(self, last: Configuration, config: Configuration) -> bool:
        """Update the index if ``config``'s heads differ from ``last``'s in one word of its top: True if done.

        The candidates are the top stack items and b0 of ``last``; the
        comparisons of the rest of the heads run in C.
        """
        old, heads = last.heads, config.heads
        if len(old) != len(heads):
            return False
        for word in (*last.stack[-_CANDIDATES:], *last.buffer[:1]):
            if heads[word] != old[word]:
                if heads[:word] != old[:word] or heads[word + 1:] != old[word + 1:]:
                    return False
                self._detach(word, old[word])
                self._attach(word, heads[word])
                return True
        return heads == old

    def _detach(self, word: int, head: int) -> None:
        if head >= 0:
            (self._left if word < head else self._right)[head].remove(word)

    def _attach(self, word: int, head: int) -> None:
        if head >= 0:
            insort((self._left if word < head else self._right)[head], word)


def _none_for(k: int) -> int:
    """:data:`NONE` for a word with fewer than ``k`` children on that side; ``ValueError`` when ``k < 1``."""
    if k < 1:
        raise ValueError(f"k counts the children from 1 (the first is k=1), not {k!r}")
    return NONE
