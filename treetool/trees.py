"""Tree algorithms on dependency trees: projectivity and mild non-projectivity.

Tree convention (project-wide)
------------------------------
A tree over ``n`` words is an integer array ``heads`` of length ``n + 1``.
``heads[0] == -1`` (the artificial root 0 has no head) and ``heads[i]`` in
``0..n`` is the head of word ``i`` (words are 1-based). Several words may be
attached to 0 (multi-root trees, allowed in CoNLL-X). Every function also
accepts any sequence of ints following the same convention. The input is
assumed to be a tree (acyclic, heads in range); validation is done elsewhere,
though a cycle or an unreachable node is reported as ``ValueError``.

Terminology
-----------
* *dominance*: ``u`` dominates ``v`` when ``u`` is ``v`` or an ancestor of
  ``v`` (reflexive-transitive closure of the head relation). The root 0
  dominates every node.
* *yield* of ``u`` (its *projection* in Kuhlmann & Nivre 2006): the set of
  nodes dominated by ``u``, ``u`` included.
* *span* of an arc ``h -> d``: the positions strictly between ``h`` and ``d``,
  i.e. the open interval ``(min(h, d), max(h, d))``.

Measures (definitions used)
---------------------------
* Non-projective arc: ``h -> d`` is non-projective when some word in its span is
  not dominated by ``h``. Arcs from 0 are never non-projective. A tree is
  projective when it has no non-projective arc, which is equivalent to every
  yield being a contiguous interval.
* Gap degree (Kuhlmann & Nivre 2006, "Mildly Non-Projective Dependency
  Structures", COLING/ACL, Sect. 3.4): a *gap* of a node is a maximal run of
  positions not in its yield that lies between two positions of its yield;
  the gap degree of a node is its number of gaps (number of blocks minus 1),
  and that of a tree is the maximum over its nodes.
* Edge degree (Nivre 2006, "Constraints on Non-Projective Dependency Parsing",
  EACL; restated as Kuhlmann & Nivre 2006, Sect. 3.5): the degree of an arc
  ``e = h -> d`` is the number of connected components ``c`` of the subgraph
  induced by the nodes in the span of ``e`` (undirected tree edges with both
  ends in the span) such that ``c`` is not dominated by ``h``, i.e. the root of
  ``c`` (its unique node whose head lies outside the span) is not dominated
  by ``h``. The edge degree of a tree is the maximum degree of its arcs (0 for
  a tree without words). Arcs from the root 0 have degree 0 (0 dominates
  everything). Taking the closed interval ``[min(h, d), max(h, d)]`` instead
  gives the same numbers (dominance being reflexive): the component holding
  ``h`` and ``d`` only ever adds an undominated root that is already counted
  through ``h``'s parent in the open interval; ``tests/test_trees.py`` checks
  both readings against this module. An arc has degree >= 1 exactly when it is
  non-projective.
* Well-nestedness (Kuhlmann & Nivre 2006, Def. 8): a tree is *ill-nested* when
  two nodes ``u``, ``v``, neither dominating the other, have interleaving
  yields: ``a1 < b1 < a2 < b2`` with ``a1, a2`` in ``yield(u)`` and ``b1, b2``
  in ``yield(v)`` (or with the roles swapped); otherwise it is *well-nested*.
  It suffices to test sibling pairs: if disjoint ``u``, ``v`` interleave, so do
  the two children of their lowest common ancestor on the paths to them.

Implementation notes
--------------------
Yields are represented as Python-int bitmasks (bit ``i`` set when word ``i``
is in the yield), built bottom-up in O(n) big-int operations. Projectivity
and gap degree are then a few bit operations per node, the degree of every
arc a few per arc (two sweeps over the heads, :func:`_arc_degrees`), and
well-nestedness one stack pass per node over its gappy children's blocks
(:func:`_ill_nested`): no measure visits the words of a span or the pairs of
siblings one at a time, so a sentence of 10,000 words takes milliseconds.
Each measure first checks projectivity; a projective tree has no
non-projective arc, gap degree 0, edge degree 0 and is well-nested, so the
per-arc work is done only for non-projective trees.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple, Sequence, Union

import numpy as np

from .tree_check import check_range, cycle_in

__all__ = [
    "HeadsLike",
    "TreeMeasures",
    "find_cycle",
    "breadth_first_order",
    "depths",
    "dominance_matrix",
    "yields",
    "yield_masks",
    "non_projective_arcs",
    "is_projective",
    "gap_degrees",
    "gap_degree",
    "edge_degrees",
    "edge_degree",
    "is_well_nested",
    "is_ill_nested",
    "tree_measures",
]

HeadsLike = Union[np.ndarray, Sequence[int]]


# --------------------------------------------------------------------------
# internal helpers (pure Python on lists of ints; fast for sentence sizes)
# --------------------------------------------------------------------------


def _as_list(heads: HeadsLike) -> list[int]:
    """Return ``heads`` as a list of Python ints, checking the basic shape."""
    if isinstance(heads, np.ndarray):
        if heads.ndim != 1:
            raise ValueError(f"heads must be one-dimensional, got shape {heads.shape}")
        h = heads.tolist()
    else:
        h = [int(x) for x in heads]
    if not h or h[0] != -1:
        raise ValueError("heads[0] must be -1 (the artificial root has no head)")
    return h


def _reachable_order(h: list[int]) -> tuple[list[list[int]], list[int]]:
    """Children lists and the breadth-first order of the nodes reachable from 0.

    A head list is a tree exactly when every node is reachable from 0 (a
    node that is not lies on a cycle or leads into one), so the tree
    functions below, which need the order anyway, test tree-ness by its
    length and name the cycle with ``treetool.tree_check.cycle_in``, the
    project's one cycle check (numpy-free, for the oracles too).
    """
    check_range(h)
    n1 = len(h)
    children: list[list[int]] = [[] for _ in range(n1)]
    for d in range(1, n1):
        children[h[d]].append(d)
    order = [0]
    for u in order:  # the list grows while we iterate: breadth-first search
        order.extend(children[u])
    return children, order


def _children_order(h: list[int]) -> tuple[list[list[int]], list[int]]:
    """Children lists and a breadth-first order of the nodes from 0; ValueError if not a tree."""
    children, order = _reachable_order(h)
    if len(order) != len(h):
        cycle = cycle_in(h)
        assert cycle is not None  # a word 0 does not reach lies on a cycle or leads into one
        raise ValueError(
            "heads do not form a tree: cycle " + " -> ".join(map(str, cycle)) + f" -> {cycle[0]}"
        )
    return children, order


def _yield_masks(h: list[int], order: list[int]) -> list[int]:
    """Bitmask of each node's yield (bit i set when node i is dominated)."""
    masks = [1 << i for i in range(len(h))]
    for u in reversed(order):  # children before parents
        if u:
            masks[h[u]] |= masks[u]
    return masks


def _blocks(mask: int) -> int:
    """Number of maximal runs of set bits in ``mask``."""
    return (mask & ~(mask << 1)).bit_count()


def _all_contiguous(masks: list[int]) -> bool:
    # m + lowbit(m) carries through the lowest run of ones; the run is the
    # whole mask exactly when no set bit survives the AND.
    for m in masks:
        if m & (m + (m & -m)):
            return False
    return True


def _span_bits(lo: int, hi: int) -> int:
    """Bits lo+1 .. hi-1 (positions strictly between lo and hi)."""
    return ((1 << hi) - 1) ^ ((1 << (lo + 1)) - 1)


def _arc_degrees(h: list[int], masks: list[int]) -> list[int]:
    """Nivre (2006) degree of every arc ``h[d] -> d`` (entry 0 is 0; see module docstring), O(n) big-int operations.

    The degree of ``d``'s arc counts the words x of its span, not dominated
    by the head, whose own head lies outside the span: ``h[x] <= lo`` or
    ``h[x] >= hi`` (two disjoint conditions, as lo < hi). ``below`` holds the
    words whose head is at most ``t`` while t sweeps up, ``above`` those whose
    head is at least ``t`` while t sweeps down; each arc reads one mask in
    each sweep, so no word is visited one at a time.
    """
    n1 = len(h)
    headed = [0] * n1  # headed[t]: bitmask of the words whose head is t
    for x in range(1, n1):
        headed[h[x]] |= 1 << x
    foreign = [0] * n1
    starts: list[list[int]] = [[] for _ in range(n1)]
    ends: list[list[int]] = [[] for _ in range(n1)]
    for d in range(1, n1):
        head = h[d]
        if head > 0:
            lo, hi = (head, d) if head < d else (d, head)
            foreign[d] = _span_bits(lo, hi) & ~masks[head]
            if foreign[d]:
                starts[lo].append(d)
                ends[hi].append(d)
    degrees = [0] * n1
    below = 0
    for t in range(n1):
        below |= headed[t]
        for d in starts[t]:
            degrees[d] += (foreign[d] & below).bit_count()
    above = 0
    for t in range(n1 - 1, -1, -1):
        above |= headed[t]
        for d in ends[t]:
            degrees[d] += (foreign[d] & above).bit_count()
    return degrees


def _non_projective(h: list[int], masks: list[int], d: int) -> bool:
    head = h[d]
    if head <= 0:
        return False
    lo, hi = (head, d) if head < d else (d, head)
    return bool(_span_bits(lo, hi) & ~masks[head])


def _leading_interleave(u: int, v: int) -> bool:
    """True when disjoint bitmasks contain a1 < b1 < a2 < b2, a in u, b in v.

    Greedy leftmost choice is optimal: a1 = min(u), b1 = first v after a1,
    a2 = first u after b1, then any v after a2.
    """
    a1 = u & -u
    rest = v & -(a1 << 1)  # bits of v above a1
    if not rest:
        return False
    b1 = rest & -rest
    rest = u & -(b1 << 1)
    if not rest:
        return False
    a2 = rest & -rest
    return bool(v & -(a2 << 1))


def _runs(mask: int) -> Iterator[tuple[int, int]]:
    """The maximal runs of set bits of ``mask``, left to right, as (first, last) positions."""
    while mask:
        low = mask & -mask
        run = mask & ~(mask + low)  # adding the lowest bit carries through the lowest run
        yield low.bit_length() - 1, run.bit_length() - 1
        mask ^= run


def _ill_nested(children: list[list[int]], masks: list[int]) -> bool:
    """Whether two siblings have interleaving yields: a crossing in each node's partition of its children.

    Only yields with a gap can interleave. The blocks of a node's gappy
    children, in order, form a sequence of child labels, and two children
    interleave exactly when the partition of that sequence by child is
    crossing (a1 < b1 < a2 < b2); the stack test for non-crossing partitions
    decides it in one pass: a label seen again must find itself on top once
    the labels above it, each finished, are popped (one still unfinished is
    a crossing). O(blocks log blocks) per node instead of a test per pair.
    """
    for kids in children:
        if len(kids) < 2:
            continue
        gappy = [c for c in kids if _blocks(masks[c]) > 1]
        if len(gappy) < 2:
            continue
        blocks = sorted((first, c) for c in gappy for first, _ in _runs(masks[c]))
        total = dict.fromkeys(gappy, 0)
        for _, c in blocks:
            total[c] += 1
        left = dict(total)
        stack: list[int] = []
        for _, c in blocks:
            if left[c] == total[c]:  # its first block
                stack.append(c)
            else:
                while stack[-1] != c:
                    if left[stack.pop()]:
                        return True
            left[c] -= 1
    return False


def _analyse(heads: HeadsLike) -> tuple[list[int], list[list[int]], list[int], bool]:
    h = _as_list(heads)
    children, order = _children_order(h)
    masks = _yield_masks(h, order)
    return h, children, masks, _all_contiguous(masks)


# --------------------------------------------------------------------------
# tree-ness: the one cycle check
# --------------------------------------------------------------------------


def find_cycle(heads: HeadsLike) -> list[int] | None:
    """The words of a cycle in ``heads``, or None when ``heads`` is a tree.

    ``heads`` is a head list (heads in range; ValueError otherwise) that may
    or may not be a tree. When some word does not reach the root 0, the
    result is the cycle that the lowest such word leads into, starting at the
    word where its walk up the heads enters the cycle: ``heads[c[i]] ==
    c[i + 1]`` and ``heads[c[-1]] == c[0]`` (a self-loop gives ``[w]``).
    This is the project's single cycle check, ``treetool.tree_check.cycle_in``
    on any head list (readers, pseudo-projectivization and the optimal DP all
    use it or :func:`breadth_first_order`; the oracles check gold trees with
    ``tree_check.check_tree``); the CoNLL reader's vectorised batch check is
    tested against it.
    """
    h = _as_list(heads)
    check_range(h)
    return cycle_in(h)


def breadth_first_order(heads: HeadsLike) -> list[int]:
    """The nodes 0..n in breadth-first order from the root 0 (parents before children).

    Raises ``ValueError`` naming a cycle (see :func:`find_cycle`) when
    ``heads`` is not a tree, so it doubles as the tree check of callers that
    need the order anyway.
    """
    return _children_order(_as_list(heads))[1]


# --------------------------------------------------------------------------
# basic helpers
# --------------------------------------------------------------------------


def depths(heads: HeadsLike) -> np.ndarray:
    """Depth of every node: 0 for the root 0, 1 for words attached to 0, ...

    Returns an integer array of length n+1.
    """
    h = _as_list(heads)
    _, order = _children_order(h)
    depth = [0] * len(h)
    for u in order[1:]:
        depth[u] = depth[h[u]] + 1
    return np.asarray(depth, dtype=np.int64)


def dominance_matrix(heads: HeadsLike) -> np.ndarray:
    """Boolean matrix ``D`` of shape (n+1, n+1): ``D[u, v]`` iff u dominates v.

    Dominance is reflexive (``D[u, u]`` is True) and transitive; row 0 is all
    True. ``D[u, v] and not D[v, u]`` means u is a proper ancestor of v, and
    row ``u`` is the indicator of ``yield(u)``.
    """
    h = _as_list(heads)
    _, order = _children_order(h)
    n1 = len(h)
    dom = np.zeros((n1, n1), dtype=bool)
    dom[0, :] = True
    for u in order[1:]:  # parents before children
        row = dom[:, h[u]].copy()
        row[u] = True
        dom[:, u] = row
    return dom


def yield_masks(heads: HeadsLike) -> list[int]:
    """Yield of every node as a Python-int bitmask: bit ``v`` of entry ``u`` is set iff u dominates v.

    The cheap form of :func:`yields` (O(n) big-int operations): the lowest
    and highest word of a yield are ``(m & -m).bit_length() - 1`` and
    ``m.bit_length() - 1``.
    """
    h = _as_list(heads)
    _, order = _children_order(h)
    return _yield_masks(h, order)


def yields(heads: HeadsLike) -> list[np.ndarray]:
    """Yield (projection) of every node: sorted array of the nodes it dominates.

    ``yields(heads)[u]`` includes ``u`` itself; ``yields(heads)[0]`` is
    ``0..n``.
    """
    out = []
    for m in yield_masks(heads):
        bits = []
        while m:
            low = m & -m
            bits.append(low.bit_length() - 1)
            m ^= low
        out.append(np.asarray(bits, dtype=np.int64))
    return out


# --------------------------------------------------------------------------
# projectivity
# --------------------------------------------------------------------------


def non_projective_arcs(heads: HeadsLike) -> np.ndarray:
    """Boolean array of length n+1: entry d flags the arc heads[d] -> d.

    The arc ``h -> d`` is non-projective when some word strictly between h and
    d is not dominated by h. Arcs from the root 0 are never non-projective
    (0 dominates everything); entry 0 (no arc) is False.
    """
    h, _, masks, projective = _analyse(heads)
    out = np.zeros(len(h), dtype=bool)
    if not projective:
        out[:] = [_non_projective(h, masks, d) if d else False for d in range(len(h))]
    return out


def is_projective(heads: HeadsLike) -> bool:
    """True when the tree has no non-projective arc.

    Equivalently, the yield of every node is a contiguous interval (the
    classic definition, e.g. Kuhlmann & Nivre 2006, Def. 3); checked that way
    in O(n) bit operations.
    """
    return _analyse(heads)[3]


# --------------------------------------------------------------------------
# gap degree (Kuhlmann & Nivre 2006)
# --------------------------------------------------------------------------


def gap_degrees(heads: HeadsLike) -> np.ndarray:
    """Gap degree of every node (length n+1, entry 0 is 0).

    The gap degree of a node is the number of gaps in its yield: maximal runs
    of positions outside the yield that lie between two positions inside it
    (Kuhlmann & Nivre 2006, "Mildly Non-Projective Dependency Structures").
    """
    h, _, masks, projective = _analyse(heads)
    if projective:
        return np.zeros(len(h), dtype=np.int64)
    return np.asarray([_blocks(m) - 1 for m in masks], dtype=np.int64)


def gap_degree(heads: HeadsLike) -> int:
    """Gap degree of the tree: the maximum gap degree of its nodes.

    0 exactly for projective trees (Kuhlmann & Nivre 2006).
    """
    _, _, masks, projective = _analyse(heads)
    if projective:
        return 0
    return max(_blocks(m) for m in masks) - 1


# --------------------------------------------------------------------------
# edge degree (Nivre 2006)
# --------------------------------------------------------------------------


def edge_degrees(heads: HeadsLike) -> np.ndarray:
    """Degree of every arc, indexed by dependent (length n+1, entry 0 is 0).

    Nivre (2006, "Constraints on Non-Projective Dependency Parsing", EACL):
    the degree of ``e = heads[d] -> d`` is the number of connected components
    of the subgraph induced by the words strictly between ``heads[d]`` and
    ``d`` whose root is not dominated by ``heads[d]``. Arcs from the root 0
    have degree 0; an arc has degree >= 1 iff it is non-projective. See the
    module docstring for why the closed interval gives the same values.
    """
    h, _, masks, projective = _analyse(heads)
    out = np.zeros(len(h), dtype=np.int64)
    if not projective:
        out[:] = _arc_degrees(h, masks)
    return out


def edge_degree(heads: HeadsLike) -> int:
    """Edge degree of the tree (Nivre 2006): the maximum degree of its arcs.

    0 for projective trees and for a tree without words.
    """
    h, _, masks, projective = _analyse(heads)
    if projective:
        return 0
    return max(_arc_degrees(h, masks))


# --------------------------------------------------------------------------
# well-nestedness (Kuhlmann & Nivre 2006)
# --------------------------------------------------------------------------


def is_well_nested(heads: HeadsLike) -> bool:
    """True unless two nodes, neither dominating the other, have interleaving yields.

    Kuhlmann & Nivre (2006), Def. 8: yields U and V interleave when there are
    ``a1 < b1 < a2 < b2`` with ``a1, a2`` in U and ``b1, b2`` in V, or with
    the roles of U and V swapped. Projective trees are well-nested.
    """
    _, children, masks, projective = _analyse(heads)
    if projective:
        return True
    return not _ill_nested(children, masks)


def is_ill_nested(heads: HeadsLike) -> bool:
    """Negation of :func:`is_well_nested`."""
    return not is_well_nested(heads)


# --------------------------------------------------------------------------
# all at once
# --------------------------------------------------------------------------


class TreeMeasures(NamedTuple):
    """The measures of one tree, as computed by :func:`tree_measures`."""

    projective: bool
    non_projective_arcs: int  # number of non-projective arcs
    gap_degree: int
    edge_degree: int
    well_nested: bool


def tree_measures(heads: HeadsLike) -> TreeMeasures:
    """Projectivity, number of non-projective arcs, gap degree, edge degree and
    well-nestedness of a tree, sharing one traversal (cheaper than calling the
    individual functions when all are needed, e.g. for treebank statistics)."""
    h, children, masks, projective = _analyse(heads)
    if projective:
        return TreeMeasures(True, 0, 0, 0, True)
    degrees = _arc_degrees(h, masks)[1:]
    return TreeMeasures(
        projective=False,
        non_projective_arcs=sum(1 for x in degrees if x),
        gap_degree=max(_blocks(m) for m in masks) - 1,
        edge_degree=max(degrees),
        well_nested=not _ill_nested(children, masks),
    )
