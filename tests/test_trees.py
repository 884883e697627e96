"""Tests for treetool.trees: projectivity, gap degree, edge degree, well-nestedness.

The reference implementations below are written directly from the
definitions (explicit sets of dominated nodes, literal loops) and are compared
with the module on every tree of up to 6 words and on random trees of up to
15 words.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import results_non_projective_shares, ud_train_file
from treetool import trees

# ---------------------------------------------------------------------------
# brute-force reference definitions
# ---------------------------------------------------------------------------


def bf_dominates(heads, u, v):
    """u dominates v: u == v or u is reached by following heads up from v."""
    x = v
    while x != -1:
        if x == u:
            return True
        x = heads[x]
    return False


def bf_yield(heads, u):
    return {v for v in range(len(heads)) if bf_dominates(heads, u, v)}


def bf_depth(heads, v):
    depth = 0
    while heads[v] != -1:
        v = heads[v]
        depth += 1
    return depth


def bf_non_projective_arc(heads, d):
    h = heads[d]
    if h <= 0:
        return False
    lo, hi = min(h, d), max(h, d)
    y = bf_yield(heads, h)
    return any(x not in y for x in range(lo + 1, hi))


def bf_gap_count(heads, u):
    """Number of gaps: maximal runs of non-yield positions between yield positions."""
    positions = sorted(bf_yield(heads, u))
    return sum(1 for a, b in zip(positions, positions[1:]) if b - a > 1)


def bf_components(heads, nodes):
    """Connected components of the subgraph induced by ``nodes`` (undirected)."""
    nodes = set(nodes)
    seen, comps = set(), []
    for start in sorted(nodes):
        if start in seen:
            continue
        comp, queue = set(), deque([start])
        seen.add(start)
        while queue:
            x = queue.popleft()
            comp.add(x)
            neighbours = [y for y in nodes if heads[y] == x] + [heads[x]]
            for y in neighbours:
                if y in nodes and y not in seen:
                    seen.add(y)
                    queue.append(y)
        comps.append(comp)
    return comps


def bf_component_root(heads, comp):
    """The node of a connected component whose head is outside the component."""
    roots = [x for x in comp if heads[x] not in comp]
    assert len(roots) == 1
    return roots[0]


def bf_edge_degree_open(heads, d):
    """Nivre (2006): components in the open span whose root h does not dominate."""
    h = heads[d]
    if h <= 0:
        return 0
    lo, hi = min(h, d), max(h, d)
    comps = bf_components(heads, range(lo + 1, hi))
    return sum(1 for c in comps if not bf_dominates(heads, h, bf_component_root(heads, c)))


def bf_edge_degree_closed(heads, d):
    """Same with the closed interval [min(h, d), max(h, d)] as the span."""
    h = heads[d]
    if h <= 0:
        return 0
    lo, hi = min(h, d), max(h, d)
    comps = bf_components(heads, range(lo, hi + 1))
    return sum(1 for c in comps if not bf_dominates(heads, h, bf_component_root(heads, c)))


def bf_interleave(yu, yv):
    """a1 < b1 < a2 < b2 with a1, a2 in yu and b1, b2 in yv (this order only)."""
    for a1 in yu:
        for b1 in yv:
            if b1 <= a1:
                continue
            for a2 in yu:
                if a2 <= b1:
                    continue
                for b2 in yv:
                    if b2 > a2:
                        return True
    return False


def bf_well_nested(heads):
    n1 = len(heads)
    ys = [bf_yield(heads, u) for u in range(n1)]
    for u in range(n1):
        for v in range(n1):
            if u == v or bf_dominates(heads, u, v) or bf_dominates(heads, v, u):
                continue
            if bf_interleave(ys[u], ys[v]):  # (u, v) and (v, u) both visited
                return False
    return True


def bf_all(heads):
    n1 = len(heads)
    nonproj = [bf_non_projective_arc(heads, d) for d in range(n1)]
    gaps = [bf_gap_count(heads, u) for u in range(n1)]
    edeg = [bf_edge_degree_open(heads, d) for d in range(n1)]
    return {
        "non_projective_arcs": nonproj,
        "is_projective": not any(nonproj),
        "contiguous_yields": all(gaps[u] == 0 for u in range(n1)),
        "gap_degrees": gaps,
        "gap_degree": max(gaps),
        "edge_degrees": edeg,
        "edge_degrees_closed": [bf_edge_degree_closed(heads, d) for d in range(n1)],
        "edge_degree": max(edeg),
        "well_nested": bf_well_nested(heads),
    }


def check_against_brute_force(heads):
    expected = bf_all(heads)
    h = np.asarray(heads)

    nonproj = trees.non_projective_arcs(h)
    assert nonproj.dtype == bool and nonproj.shape == (len(heads),)
    assert nonproj.tolist() == expected["non_projective_arcs"], heads

    assert trees.is_projective(h) is expected["is_projective"], heads
    # the arc definition and the contiguous-yield definition agree
    assert expected["is_projective"] == expected["contiguous_yields"], heads

    assert trees.gap_degrees(h).tolist() == expected["gap_degrees"], heads
    assert trees.gap_degree(h) == expected["gap_degree"], heads

    assert trees.edge_degrees(h).tolist() == expected["edge_degrees"], heads
    # documented claim: the closed-interval reading gives the same degrees
    assert expected["edge_degrees_closed"] == expected["edge_degrees"], heads
    assert trees.edge_degree(h) == expected["edge_degree"], heads
    # an arc has positive degree exactly when it is non-projective
    assert [x > 0 for x in expected["edge_degrees"]] == expected["non_projective_arcs"]

    assert trees.is_well_nested(h) is expected["well_nested"], heads
    assert trees.is_ill_nested(h) is (not expected["well_nested"]), heads

    m = trees.tree_measures(h)
    assert m == trees.TreeMeasures(
        projective=expected["is_projective"],
        non_projective_arcs=sum(expected["non_projective_arcs"]),
        gap_degree=expected["gap_degree"],
        edge_degree=expected["edge_degree"],
        well_nested=expected["well_nested"],
    ), heads


# ---------------------------------------------------------------------------
# exhaustive: all trees up to 6 words
# ---------------------------------------------------------------------------


def is_tree(heads):
    for v in range(1, len(heads)):
        x, steps = v, 0
        while x != 0:
            x = heads[x]
            steps += 1
            if steps > len(heads):
                return False
    return True


def all_trees(n):
    """All head assignments over n words that are trees rooted at 0 (multi-root allowed)."""
    for assignment in itertools.product(range(n + 1), repeat=n):
        heads = (-1, *assignment)
        if all(heads[d] != d for d in range(1, n + 1)) and is_tree(heads):
            yield heads


@pytest.mark.parametrize("n", range(0, 7))
def test_all_small_trees_against_brute_force(n):
    count = 0
    for heads in all_trees(n):
        check_against_brute_force(heads)
        count += 1
    # Cayley: (n+1)^(n-1) labelled trees on n+1 nodes, rooted at node 0
    assert count == (1 if n == 0 else (n + 1) ** (n - 1))


def test_small_trees_cover_all_outcomes():
    """The exhaustive run really exercises non-trivial values."""
    seen_gd, seen_ed, ill = set(), set(), 0
    for heads in all_trees(6):
        m = trees.tree_measures(heads)
        seen_gd.add(m.gap_degree)
        seen_ed.add(m.edge_degree)
        ill += not m.well_nested
    assert seen_gd == {0, 1, 2}
    assert max(seen_ed) >= 2
    assert ill > 0


# ---------------------------------------------------------------------------
# random trees up to 15 words
# ---------------------------------------------------------------------------


@st.composite
def random_trees(draw, max_words=15):
    n = draw(st.integers(min_value=0, max_value=max_words))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [-1] + [0] * n
    placed = [0]
    for word in order:
        # attach to 0 or to any word already in the tree: always acyclic,
        # and every tree arises (from a top-down order of its nodes)
        heads[word] = placed[draw(st.integers(min_value=0, max_value=len(placed) - 1))]
        placed.append(word)
    return heads


@settings(max_examples=300, deadline=None)
@given(random_trees())
def test_random_trees_against_brute_force(heads):
    check_against_brute_force(heads)


@settings(max_examples=100, deadline=None)
@given(random_trees())
def test_helpers_against_brute_force(heads):
    n1 = len(heads)
    assert trees.depths(heads).tolist() == [bf_depth(heads, v) for v in range(n1)]
    dom = trees.dominance_matrix(heads)
    assert dom.dtype == bool and dom.shape == (n1, n1)
    assert dom.tolist() == [[bf_dominates(heads, u, v) for v in range(n1)] for u in range(n1)]
    assert [y.tolist() for y in trees.yields(heads)] == [
        sorted(bf_yield(heads, u)) for u in range(n1)
    ]
    assert trees.yield_masks(heads) == [sum(1 << v for v in bf_yield(heads, u)) for u in range(n1)]
    order = trees.breadth_first_order(heads)
    assert sorted(order) == list(range(n1)) and order[0] == 0
    assert all(order.index(heads[v]) < order.index(v) for v in range(1, n1))  # parents first


# ---------------------------------------------------------------------------
# hand examples
# ---------------------------------------------------------------------------


def test_projective_chain_and_flat():
    for heads in ([-1], [-1, 0], [-1, 0, 1, 2, 3], [-1, 2, 0, 2], [-1, 0, 0, 0]):
        assert trees.is_projective(heads)
        assert not trees.non_projective_arcs(heads).any()
        assert trees.gap_degree(heads) == 0
        assert trees.edge_degree(heads) == 0
        assert trees.is_well_nested(heads)


def test_small_non_projective():
    # 1 <- 3, 3 <- 2, 2 <- 0: arc 3 -> 1 passes over 2, which is 3's head
    heads = [-1, 3, 0, 2]
    assert trees.non_projective_arcs(heads).tolist() == [False, True, False, False]
    assert not trees.is_projective(heads)
    assert trees.gap_degrees(heads).tolist() == [0, 0, 0, 1]  # yield(3) = {1, 3}
    assert trees.gap_degree(heads) == 1
    assert trees.edge_degrees(heads).tolist() == [0, 1, 0, 0]  # component {2}
    assert trees.edge_degree(heads) == 1
    assert trees.is_well_nested(heads)  # the three words form a chain


def test_multi_root_arc_over_root_child():
    # words 1 and 2 both attached to 0; 1 -> 3 passes over 2
    heads = [-1, 0, 0, 1]
    assert trees.non_projective_arcs(heads).tolist() == [False, False, False, True]
    assert trees.gap_degree(heads) == 1
    assert trees.edge_degree(heads) == 1
    assert trees.is_well_nested(heads)
    # arcs from 0 are never non-projective, even over other material
    assert trees.is_projective([-1, 0, 1, 0])


def test_hearing_example_gap_degree_one_and_ill_nested():
    # "A hearing is scheduled on the issue today" (McDonald et al. 2005):
    # A<-hearing, hearing<-is, is<-0, scheduled<-is, on<-hearing,
    # the<-issue, issue<-on, today<-scheduled
    heads = [-1, 2, 3, 0, 3, 2, 7, 5, 4]
    assert np.flatnonzero(trees.non_projective_arcs(heads)).tolist() == [5, 8]
    # yield(hearing) = {1, 2, 5, 6, 7}, yield(scheduled) = {4, 8}
    assert trees.gap_degrees(heads).tolist() == [0, 0, 1, 0, 1, 0, 0, 0, 0]
    assert trees.gap_degree(heads) == 1
    # hearing -> on: span {3, 4} is one component rooted at "is";
    # scheduled -> today: span {5, 6, 7} is one component rooted at "on"
    assert trees.edge_degrees(heads).tolist() == [0, 0, 0, 0, 0, 1, 0, 0, 1]
    assert trees.edge_degree(heads) == 1
    # siblings hearing and scheduled interleave: 1 < 4 < 5 < 8
    assert not trees.is_well_nested(heads)
    assert trees.is_ill_nested(heads)


def test_gap_degree_two():
    # yield(1) = {1, 3, 5}; 2 and 4 hang from the root
    heads = [-1, 0, 0, 1, 0, 1]
    assert trees.gap_degrees(heads).tolist() == [0, 2, 0, 0, 0, 0]
    assert trees.gap_degree(heads) == 2
    # 1 -> 3 spans {2}; 1 -> 5 spans {2}, {3}, {4}, of which {2} and {4} are foreign
    assert trees.edge_degrees(heads).tolist() == [0, 0, 0, 1, 0, 2]
    assert trees.edge_degree(heads) == 2
    assert trees.is_well_nested(heads)  # the other yields are single words


def test_brief_example_is_well_nested():
    # words 1..4 with heads [3, 4, 0, 3]: non-projective (4 -> 2 passes over
    # the root word 3) but yields {2, 4} and {1} cannot interleave
    heads = [-1, 3, 4, 0, 3]
    assert trees.non_projective_arcs(heads).tolist() == [False, False, True, False, False]
    assert trees.gap_degree(heads) == 1
    assert trees.edge_degrees(heads).tolist() == [0, 0, 1, 0, 0]
    assert trees.is_well_nested(heads)


def test_ill_nested_single_root():
    # 5 is the root; yields of its children 1 and 2 are {1, 3} and {2, 4}
    heads = [-1, 5, 5, 1, 2, 0]
    assert not trees.is_well_nested(heads)
    assert trees.gap_degree(heads) == 1
    assert trees.edge_degrees(heads).tolist() == [0, 0, 0, 1, 1, 0]
    assert np.flatnonzero(trees.non_projective_arcs(heads)).tolist() == [3, 4]
    # same shape with both parts hanging from the root 0 (multi-root)
    assert not trees.is_well_nested([-1, 0, 0, 1, 2])


def test_ill_nested_requires_disjoint_nodes():
    # yield(1) = {1, 2, 3, 4} and yield(2) = {2, 4} contain the pattern
    # 1 < 2 < 3 < 4, but 1 dominates 2, so they do not count; the only
    # disjoint pair with more than one word each does not exist
    heads = [-1, 0, 1, 1, 2]
    assert not trees.is_projective(heads)
    assert trees.is_well_nested(heads)


# ---------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------


def test_accepts_sequences_and_arrays():
    forms = [
        [-1, 2, 3, 0, 3, 2, 7, 5, 4],
        (-1, 2, 3, 0, 3, 2, 7, 5, 4),
        np.array([-1, 2, 3, 0, 3, 2, 7, 5, 4], dtype=np.int32),
        np.array([-1, 2, 3, 0, 3, 2, 7, 5, 4], dtype=np.int64),
    ]
    results = [
        (
            trees.non_projective_arcs(f).tolist(),
            trees.is_projective(f),
            trees.gap_degrees(f).tolist(),
            trees.gap_degree(f),
            trees.edge_degrees(f).tolist(),
            trees.edge_degree(f),
            trees.is_well_nested(f),
        )
        for f in forms
    ]
    assert all(r == results[0] for r in results)
    assert isinstance(trees.gap_degree(forms[2]), int)
    assert isinstance(trees.edge_degree(forms[2]), int)
    assert isinstance(trees.is_projective(forms[2]), bool)
    assert isinstance(trees.is_well_nested(forms[2]), bool)


def test_rejects_malformed_heads():
    with pytest.raises(ValueError):
        trees.gap_degree([0, 0, 1])  # heads[0] must be -1
    with pytest.raises(ValueError):
        trees.gap_degree([])
    with pytest.raises(ValueError):
        trees.is_projective([-1, 2, 1])  # cycle
    with pytest.raises(ValueError):
        trees.is_projective([-1, 5])  # head out of range
    with pytest.raises(ValueError):
        trees.is_projective(np.zeros((2, 2), dtype=int))


# ---------------------------------------------------------------------------
# the one cycle check (find_cycle) and its callers
# ---------------------------------------------------------------------------


def bf_cycle(heads):
    """None when every word reaches 0 by walking up its heads; else the cycle the
    lowest word that does not leads into, from the first word its walk repeats."""
    n = len(heads) - 1
    for w in range(1, n + 1):
        walk = [w]
        while walk[-1] != 0 and len(walk) <= n + 1:
            walk.append(heads[walk[-1]])
        if walk[-1] != 0:
            first_repeat = next(x for i, x in enumerate(walk) if x in walk[:i])
            start = walk.index(first_repeat)
            return walk[start:walk.index(first_repeat, start + 1)]
    return None


def all_head_lists(n):
    """Every assignment of a head 0..n to each of n words (cycles and self-loops included)."""
    for rest in itertools.product(range(n + 1), repeat=n):
        yield [-1, *rest]


@pytest.mark.parametrize("n", range(0, 6))
def test_find_cycle_on_every_head_list(n):
    for heads in all_head_lists(n):
        expected = bf_cycle(heads)
        assert trees.find_cycle(heads) == expected, heads
        if expected is None:
            assert sorted(trees.breadth_first_order(heads)) == list(range(n + 1))
        else:
            with pytest.raises(ValueError, match="cycle " + " -> ".join(map(str, expected))):
                trees.breadth_first_order(heads)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.lists(st.integers(0, n), min_size=n, max_size=n)))
def test_find_cycle_on_random_head_lists(rest):
    heads = [-1, *rest]
    assert trees.find_cycle(heads) == bf_cycle(heads)


def test_callers_use_the_one_cycle_check_and_projectivity_test(monkeypatch):
    """The reader's slow path, pseudo-projectivization and the optimal DP all
    ask treetool.trees; a wrong answer there changes theirs."""
    from treetool.formats import conll
    from treetool.projectivization import optimal, pseudo

    calls = []

    def spy(name):
        real = getattr(trees, name)

        def wrapper(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(trees, name, wrapper)

    for name in ("find_cycle", "breadth_first_order", "is_projective", "non_projective_arcs"):
        spy(name)

    block = "\n".join(f"{i}\tw\t_\t_\t_\t_\t{h}\tx\t_\t_" for i, h in ((1, 0), (2, 3), (3, 2)))
    with pytest.raises(conll.TreebankError, match="cycle: words 2 -> 3 -> 2"):
        conll.parse_block("", block, "\n", 1, "<test>", "conllu")
    assert calls == ["find_cycle"]

    calls.clear()
    pseudo.pseudo_projectivize([-1, 2, 1, 0], ["", "a", "b", "c"])
    pseudo.deprojectivize([-1, 2, 1, 0], ["", "a|b", "b", "c"])
    assert calls == ["find_cycle", "find_cycle"]

    calls.clear()
    pseudo.pseudo_projectivize([-1, 2, 4, 4, 0, 7, 7, 2, 4], ["", *"abcdefgh"])
    assert calls[:2] == ["find_cycle", "is_projective"] and "non_projective_arcs" in calls

    calls.clear()
    optimal.optimal_projectivize([-1, 2, 4, 4, 0, 7, 7, 2, 4])
    assert calls == ["breadth_first_order", "is_projective"]

    # and a wrong answer from trees changes theirs
    monkeypatch.setattr(trees, "find_cycle", lambda heads: [1])
    assert pseudo.pseudo_projectivize([-1, 2, 0, 2, 1], ["", *"abcd"])[0].tolist() == [-1, 2, 0, 2, 1]
    monkeypatch.setattr(trees, "is_projective", lambda heads: True)
    assert optimal.optimal_projectivize([-1, 3, 0, 2]).tolist() == [-1, 3, 0, 2]


# ---------------------------------------------------------------------------
# published figures (Nederhof 2019, Table 7, as benchmarks/RESULTS.md states them)
# ---------------------------------------------------------------------------


def read_heads(path):
    conllu = pytest.importorskip("conllu")
    with open(path, encoding="utf-8") as f:
        for sentence in conllu.parse_incr(f):
            words = [tok for tok in sentence if isinstance(tok["id"], int)]
            assert [tok["id"] for tok in words] == list(range(1, len(words) + 1))
            yield np.array([-1] + [tok["head"] for tok in words], dtype=np.int64)


@pytest.mark.parametrize("treebank", sorted(results_non_projective_shares()))
def test_share_of_non_projective_trees(treebank):
    """Read with the conllu library (not treetool's reader): the share of
    non-projective trees is benchmarks/RESULTS.md's figure exactly, and the paper's rounded."""
    ours, paper = results_non_projective_shares()[treebank]
    total = non_projective = 0
    for heads in read_heads(ud_train_file(treebank)):
        total += 1
        projective = trees.is_projective(heads)
        non_projective += not projective
        m = trees.tree_measures(heads)
        assert m.projective is projective
        assert (m.gap_degree == 0) is projective
        assert (m.edge_degree == 0) is projective
        assert m.well_nested or not projective
    assert total > 1000
    assert f"{100 * non_projective / total:.2f}" == ours
    assert round(100 * non_projective / total) == paper


# ---------------------------------------------------------------------------
# larger random trees: the sweeps and the stack test against brute force
# ---------------------------------------------------------------------------


def sibling_tree(labels: list[int]) -> list[int]:
    """Word 1 heads one child per label; the words labelled c are that child (its first word) and its dependents.

    The yields of the children are the label classes, so they interleave
    exactly when the label sequence does (a crossing partition).
    """
    n = len(labels) + 1
    heads = [-1, 0] + [0] * len(labels)
    first: dict[int, int] = {}
    for position, label in enumerate(labels, 2):
        first.setdefault(label, position)
        heads[position] = 1 if first[label] == position else first[label]
    assert len(heads) == n + 1
    return heads


def non_crossing_labels(rng, length: int) -> list[int]:
    """A label sequence whose partition is non-crossing: labels are opened and closed like brackets."""
    stack, labels, fresh = [0], [], 1
    for _ in range(length):
        move = rng.random()
        if move < 0.3:
            stack.append(fresh)
            fresh += 1
        elif move < 0.5 and len(stack) > 1:
            stack.pop()
        labels.append(stack[-1])
    return labels


def test_long_random_trees_against_brute_force():
    """Trees of 20-30 words (shuffled, and with many gappy siblings, nested or crossing) vs the definitions."""
    import random

    rng = random.Random(7)
    shapes = {"shuffled": 0, "nested": 0, "crossing": 0}
    for i in range(45):
        n = rng.randint(20, 30)
        if i % 3 == 0:
            order = list(range(1, n + 1))
            rng.shuffle(order)
            heads = [-1] + [0] * n
            for k, word in enumerate(order):
                heads[word] = 0 if k == 0 else order[rng.randrange(k)]
            shapes["shuffled"] += 1
        elif i % 3 == 1:
            heads = sibling_tree(non_crossing_labels(rng, n))
            shapes["nested"] += trees.is_well_nested(heads) and not trees.is_projective(heads)
        else:
            heads = sibling_tree([rng.randrange(4) for _ in range(n)])
            shapes["crossing"] += trees.is_ill_nested(heads)
        check_against_brute_force(heads)
    assert min(shapes.values()) >= 5  # every shape was exercised with its interesting outcome
