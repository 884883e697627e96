"""run_nested: a recursion as deep as a 10,000-word sentence's computation runs without Python's stack."""

from __future__ import annotations

import doctest
import sys

import treetool.recursion
from treetool.recursion import run_nested


def test_the_doctest_holds():
    assert doctest.testmod(treetool.recursion).failed == 0


def test_a_tree_recursion_far_deeper_than_the_limit_gives_the_recursive_answer():
    """The size of every subtree of a chain and of a complete binary tree, against plain arithmetic."""
    depth = 5 * sys.getrecursionlimit()
    children = {i: [i + 1] for i in range(depth)} | {depth: []}

    def size(node):
        total = 1
        for child in children[node]:
            total += yield (child,)
        return total

    assert run_nested(size(0), size) == depth + 1
    binary = {i: [c for c in (2 * i + 1, 2 * i + 2) if c < 1023] for i in range(1023)}
    children = binary
    assert run_nested(size(0), size) == 1023
