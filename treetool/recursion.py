"""Recursions run on an explicit stack: deep trees and long sentences never meet Python's recursion limit.

A recursive function is written as a generator that yields the arguments of
each nested call and is resumed with its result (``value = yield args``);
:func:`run_nested` drives the generators, one suspended frame per pending
call, on a list instead of the interpreter's stack.  The searches and the
Nederhof (2019) score recursions, which go as deep as a computation is long,
all run this way.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeVar

T = TypeVar("T")

Frame = Generator[tuple[Any, ...], T, T]


def run_nested(first: Frame[T], call: Callable[..., Frame[T]]) -> T:
    """The result of the recursion that starts with the frame ``first``; ``call(*args)`` starts the frame of
    a nested call whose arguments a frame yielded.

    >>> def depth(n):  # a chain of n links: depth(n) = 1 + depth(n - 1), far past the recursion limit
    ...     return 0 if n == 0 else 1 + (yield (n - 1,))
    >>> run_nested(depth(100_000), depth)
    100000
    """
    pending = [first]
    value: Any = None
    while True:
        try:
            args = pending[-1].send(value)
        except StopIteration as done:
            pending.pop()
            if not pending:
                return done.value
            value = done.value
            continue
        value = None
        pending.append(call(*args))
