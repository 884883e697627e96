"""Tree generators and system lists shared by the tests of ``oracles``.

Not a test module: plain helpers, written from the definitions.
"""

from __future__ import annotations

import random
from typing import Iterator

from treetool.oracles import get_system

# every built-in system, with every option value that changes its transitions or its oracle
SYSTEM_SPECS: list[tuple[str, dict]] = [
    ("arc-standard", {}),
    ("arc-hybrid", {}),
    ("arc-hybrid", {"root": "last"}),
    ("arc-eager", {"reduce": "eager"}),
    ("arc-eager", {"reduce": "lazy"}),
    ("arc-eager", {"reduce": "eager", "root": "first"}),
    ("arc-eager", {"reduce": "lazy", "root": "first"}),
    ("nm-arc-eager", {"variant": "L", "reduce": "eager"}),
    ("nm-arc-eager", {"variant": "D", "reduce": "lazy"}),
    ("nm-arc-eager", {"variant": "LD", "reduce": "eager"}),
    ("nm-arc-eager", {"variant": "LD", "reduce": "lazy"}),
    ("nm-arc-eager", {"variant": "L", "reduce": "lazy", "root": "first"}),
    ("nm-arc-eager", {"variant": "D", "reduce": "eager", "root": "first"}),
    ("nm-arc-eager", {"variant": "LD", "reduce": "eager", "root": "first"}),
    ("attardi", {"degree": 1}),
    ("attardi", {"degree": 2}),
    ("attardi", {"degree": 3}),
    ("swap", {"order": "eager"}),
    ("swap", {"order": "lazy"}),
]

# one spec per distinct set of transitions (the options above that only choose an oracle are dropped)
TRANSITION_SPECS: list[tuple[str, dict]] = [
    ("arc-standard", {}),
    ("arc-hybrid", {}),
    ("arc-hybrid", {"root": "last"}),
    ("arc-eager", {"reduce": "eager"}),
    ("arc-eager", {"reduce": "eager", "root": "first"}),
    ("nm-arc-eager", {"variant": "L", "reduce": "eager"}),
    ("nm-arc-eager", {"variant": "D", "reduce": "lazy"}),
    ("nm-arc-eager", {"variant": "LD", "reduce": "eager"}),
    ("nm-arc-eager", {"variant": "L", "reduce": "eager", "root": "first"}),
    ("nm-arc-eager", {"variant": "D", "reduce": "eager", "root": "first"}),
    ("nm-arc-eager", {"variant": "LD", "reduce": "eager", "root": "first"}),
    ("attardi", {"degree": 2}),
    ("attardi", {"degree": 3}),
    ("swap", {"order": "eager"}),
]


def spec_id(spec: tuple[str, dict]) -> str:
    name, options = spec
    return name + "".join(f"-{v}" for v in options.values())


def make(spec: tuple[str, dict]):
    name, options = spec
    return get_system(name, **options)


def all_trees(n: int) -> Iterator[tuple[int, ...]]:
    """Every dependency tree over words 1..n rooted at 0 (any number of root children).

    Heads are assigned word by word; a head is refused when following the
    heads assigned so far from it leads back to the word (a cycle). There are
    (n+1)^(n-1) trees (Cayley), which tests check.
    """
    heads: list[int | None] = [-1] + [None] * n

    def extend(w: int) -> Iterator[tuple[int, ...]]:
        if w > n:
            yield tuple(heads)  # type: ignore[arg-type]
            return
        for c in range(n + 1):
            x = c
            while x != w and x > 0 and heads[x] is not None:
                x = heads[x]
            if x == w:
                continue
            heads[w] = c
            yield from extend(w + 1)
            heads[w] = None

    return extend(1)


def rooted_tree(n: int, rng: random.Random) -> list[int]:
    """A random tree with exactly one word attached to the root (as CoNLL-U requires)."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] * (n + 1)
    heads[order[0]] = 0
    for i, w in enumerate(order[1:], 1):
        heads[w] = rng.choice(order[:i])
    return heads


def random_tree(n: int, rng: random.Random) -> tuple[int, ...]:
    """A random tree: words attached in random order to a random already-attached node."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] * (n + 1)
    placed = [0]
    for w in order:
        heads[w] = rng.choice(placed)
        placed.append(w)
    return tuple(heads)


def bf_projective(heads) -> bool:
    """No arc h -> d with a word strictly between h and d that h does not dominate."""
    def dominates(u: int, v: int) -> bool:
        while v != -1:
            if v == u:
                return True
            v = heads[v]
        return False

    return all(
        dominates(heads[d], x)
        for d in range(1, len(heads))
        for x in range(min(heads[d], d) + 1, max(heads[d], d))
    )


def random_nonprojective(n: int, rng: random.Random) -> tuple[int, ...]:
    while True:
        tree = random_tree(n, rng)
        if not bf_projective(tree):
            return tree


def random_interval_tree(n: int, rng: random.Random) -> tuple[int, ...]:
    """A random projective tree of any size: every subtree an interval (rejection sampling stalls past 12 words).

    The words 1..n are cut into consecutive intervals, each the subtree of a
    random word of it attached to the root; each side of that word is cut
    again under it, and so on.
    """
    heads = [-1] * (n + 1)
    todo = [(1, n, 0)]  # (first, last, head): cut first..last into subtrees under head
    while todo:
        first, last, head = todo.pop()
        while first <= last:
            end = rng.randint(first, last)
            root = rng.randint(first, end)
            heads[root] = head
            todo += [(first, root - 1, root), (root + 1, end, root)]
            first = end + 1
    return tuple(heads)


def word_labels(n: int) -> list[str]:
    """Distinct labels per word (so a label on the wrong word is noticed), some with ':' like UD."""
    return [""] + [f"l{i}" if i % 2 else f"x:{i}" for i in range(1, n + 1)]
