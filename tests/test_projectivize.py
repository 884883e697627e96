"""Tests for treetool.projectivization.optimal (Nederhof 2019, §3 and §8.1).

Independent oracles used here (none shares code with the module):

* ``all_trees(n)``: every head assignment over n words, filtered by
  acyclicity -- all (n+1)^(n-1) trees;
* ``projective_by_filter(n)``: those trees whose yields are all intervals
  (sets of positions, checked naively);
* ``projective_by_generator(n)``: a recursive generator of projective trees
  (a tree is a sequence of contiguous subtrees under the parent, each with
  its own root, recursively) -- a different method, cross-checked against the
  filter for n <= 6 and against the closed formulas up to 7 words:
  C(3n, n)/(2n+1) projective trees, C(3n-2, n-1)/n of them single-rooted.

Exhaustive checks against enumeration: every tree up to 6 words (counts: up
to 5 words, plus a sample at 6), a seeded random sample at 7 words
(projective trees from the generator). For 8..12 words the projective trees
are too many to enumerate (5e7 at n = 12); there, and on real Gothic
sentences, ``interval_optimum`` -- a memoised recursion over intervals written
from the definition of projectivity, cross-checked against enumeration up to
6 words -- gives the optimal score, the number of optimal trees, and the best
(arcs, lifts, -levels) key of the tie rule, compared lexicographically without
the module's integer-weight trick. Random trees up to 30 words are also
compared with the plain-Python reference DP (``reference_projectivize``).
"""

from __future__ import annotations

import itertools
import random
from functools import cache
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import shared_path
from reference_projectivize import count_reference, optimal_projectivize_reference, reference_weights
from treetool.projectivization import optimal as P
from treetool.projectivization.optimal import (
    count_optimal_projective_trees,
    optimal_projective_score,
    optimal_projectivize,
    optimal_projectivize_many,
)

# --------------------------------------------------------------------------
# independent oracles
# --------------------------------------------------------------------------


def is_tree(h) -> bool:
    n1 = len(h)
    if h[0] != -1 or any(not 0 <= h[d] < n1 or h[d] == d for d in range(1, n1)):
        return False
    for d in range(1, n1):
        seen = set()
        u = d
        while u != 0:
            if u in seen:
                return False
            seen.add(u)
            u = h[u]
    return True


def yields(h) -> list[set[int]]:
    n1 = len(h)
    out = [set() for _ in range(n1)]
    for d in range(n1):
        u = d
        while True:
            out[u].add(d)
            if u == 0:
                break
            u = h[u]
    return out


def is_projective(h) -> bool:
    return all(max(y) - min(y) + 1 == len(y) for y in yields(h))


def n_roots(h) -> int:
    return sum(1 for v in h[1:] if v == 0)


@cache
def all_trees(n: int) -> np.ndarray:
    choices = [[v for v in range(n + 1) if v != d] for d in range(1, n + 1)]
    rows = [(-1,) + c for c in itertools.product(*choices) if is_tree((-1,) + c)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), n + 1)


@cache
def projective_by_filter(n: int) -> np.ndarray:
    t = all_trees(n)
    return t[[is_projective(list(r)) for r in t]]


@cache
def _subtrees(i: int, j: int) -> tuple:
    """All projective trees over words i..j: tuples of (root, {word: head})."""
    out = []
    for r in range(i, j + 1):
        for left in _sequences(i, r - 1, r):
            for right in _sequences(r + 1, j, r):
                out.append((r, {**left, **right}))
    return tuple(out)


@cache
def _sequences(i: int, j: int, parent: int) -> tuple:
    """All ways to cover i..j by consecutive projective subtrees whose roots
    attach to ``parent``: tuples of {word: head}."""
    if i > j:
        return ({},)
    out = []
    for e in range(i, j + 1):
        for root, arcs in _subtrees(i, e):
            for rest in _sequences(e + 1, j, parent):
                out.append({**arcs, root: parent, **rest})
    return tuple(out)


@cache
def projective_by_generator(n: int) -> np.ndarray:
    rows = [[-1] + [arcs[d] for d in range(1, n + 1)] for arcs in _sequences(1, n, 0)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), n + 1)


def level_matrix(h) -> np.ndarray:
    """lv[a, g] = depth(g) - depth(a) when a is a proper ancestor of g, else 0."""
    n1 = len(h)
    lv = np.zeros((n1, n1), dtype=np.int64)
    for g in range(1, n1):
        a, levels = h[g], 1
        while True:
            lv[a, g] = levels
            if a == 0:
                break
            a, levels = h[a], levels + 1
    return lv


def lift_stats(h, lv: np.ndarray, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lifts, total levels) of each candidate tree relative to the input."""
    gold = np.asarray(h)[1:]
    new = cands[:, 1:]
    levels = lv[new, gold]
    lifted = (new != gold) & (levels > 0)
    return lifted.sum(1), (levels * lifted).sum(1)


def check_against_enumeration(
    h, single_root, proj_all, proj_single, ties="lift", lv=None, score=True
):
    """Assert everything the spec promises, against explicit candidates."""
    h = np.asarray(h)
    single = (n_roots(h) == 1) if single_root is None else single_root
    cands = proj_single if single else proj_all
    matches = (cands[:, 1:] == h[1:]).sum(1)
    best = matches.max()
    out = optimal_projectivize(h, single_root=single_root, ties=ties)
    outl = out.tolist()
    assert out.shape == h.shape and out.dtype.kind == "i"
    assert is_tree(outl), (h, out)
    assert is_projective(outl), (h, out)
    if single:
        assert n_roots(outl) == 1
    assert int((out[1:] == h[1:]).sum()) == best, (h, single_root, out)
    if score:
        assert optimal_projective_score(h, single_root=single_root) == best
    if ties == "lift":
        lv = level_matrix(h.tolist()) if lv is None else lv
        opt = cands[matches == best]
        lifts, levels = lift_stats(h, lv, opt)
        key = max(zip(lifts.tolist(), (-levels).tolist()))
        got_l, got_v = lift_stats(h, lv, out[None, :])
        assert (int(got_l[0]), -int(got_v[0])) == key, (h, single_root, out)
    return matches, best


def random_tree(n: int, rng: random.Random, single_root: bool = False) -> list[int]:
    """A random tree: attach the words, in random order, to a random earlier
    one (or to 0), which yields all shapes including non-projective ones."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    h = [-1] + [0] * n
    placed = [0]
    for i, v in enumerate(order):
        if single_root and i > 0:
            h[v] = rng.choice(placed[1:])
        else:
            h[v] = rng.choice(placed)
        placed.append(v)
    return h


# --------------------------------------------------------------------------
# the oracles themselves
# --------------------------------------------------------------------------


def test_enumerators_agree():
    for n in range(1, 7):
        assert len(all_trees(n)) == (n + 1) ** (n - 1)  # Cayley, rooted at 0
        a = {tuple(r) for r in projective_by_filter(n).tolist()}
        b = {tuple(r) for r in projective_by_generator(n).tolist()}
        assert a == b
        assert len(b) == len(projective_by_generator(n))  # no duplicates
    for n in range(1, 8):
        trees = projective_by_generator(n).tolist()
        single = [r for r in trees if n_roots(r) == 1]
        assert len(trees) == comb(3 * n, n) // (2 * n + 1)
        assert len(single) == comb(3 * n - 2, n - 1) // n


# --------------------------------------------------------------------------
# exhaustive and sampled checks against enumeration
# --------------------------------------------------------------------------


#: (n, head of word 1 or None for all): the 16,807 trees of 6 words (~20 s) are checked in six parts, by the
#: head of word 1 (0, 2, ..., 6: every tree has exactly one), so that xdist can run them on both cores.
ENUMERATION_PARTS = [(n, None) for n in range(1, 6)] + [(6, head) for head in (0, 2, 3, 4, 5, 6)]


@pytest.mark.parametrize("n, head_of_1", ENUMERATION_PARTS)
def test_all_trees_against_enumeration(n, head_of_1):
    proj = projective_by_filter(n)
    proj_single = proj[(proj[:, 1:] == 0).sum(1) == 1]
    trees = all_trees(n)
    if head_of_1 is not None:
        trees = trees[trees[:, 1] == head_of_1]
    for h in trees:
        lv = level_matrix(h.tolist())
        for single_root in (True, False):
            check_against_enumeration(h, single_root, proj, proj_single, lv=lv, score=n <= 5)
        if n <= 5:
            check_against_enumeration(h, None, proj, proj_single)
            for single_root in (True, False):
                check_against_enumeration(h, single_root, proj, proj_single, ties="first")


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_counts_all_trees(n):
    proj = projective_by_filter(n)
    proj_single = proj[(proj[:, 1:] == 0).sum(1) == 1]
    for h in all_trees(n):
        for single_root in (True, False, None):
            single = (n_roots(h) == 1) if single_root is None else single_root
            cands = proj_single if single else proj
            matches = (cands[:, 1:] == h[1:]).sum(1)
            expected = int((matches == matches.max()).sum())
            assert count_optimal_projective_trees(h, single_root=single_root) == expected


def test_sample_6_and_7_words_against_enumeration():
    rng = random.Random(7)
    for n, samples in ((6, 150), (7, 150)):
        proj = projective_by_generator(n)
        proj_single = proj[(proj[:, 1:] == 0).sum(1) == 1]
        for i in range(samples):
            h = np.array(random_tree(n, rng, single_root=i % 2 == 0))
            for single_root in (True, False):
                matches, best = check_against_enumeration(h, single_root, proj, proj_single)
                if n == 7 or i % 3 == 0:
                    got = count_optimal_projective_trees(h, single_root=single_root)
                    assert got == int((matches == best).sum())


def test_eisner_is_unambiguous_on_projective_trees():
    # A projective tree is its own unique optimum, so the counting DP (run
    # directly, bypassing the fast path) must find exactly one derivation.
    for n in (5, 6):
        for h in projective_by_filter(n):
            hl = h.tolist()
            single = n_roots(hl) == 1
            for mode in {single, False}:
                tree = P._prepare(hl, mode)
                chart, value, root = P._solve_one(tree, "first", P.UNLIMITED)
                assert (n + value, P._count_fast(chart, root, tree.single)) == (n, 1)
                if n == 5:
                    assert count_reference(hl, single_root=mode) == (n, 1)


# --------------------------------------------------------------------------
# fast implementation against the plain-Python reference
# --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.integers(1, 12),
    st.randoms(use_true_random=False),
    st.booleans(),
    st.sampled_from([None, True, False]),
)
def test_fast_equals_reference_up_to_12_words(n, rnd, one_root, single_root):
    h = random_tree(n, rnd, single_root=one_root)
    for ties in ("lift", "first"):
        a = optimal_projectivize(h, single_root=single_root, ties=ties)
        b = optimal_projectivize_reference(h, single_root=single_root, ties=ties)
        assert a.tolist() == b.tolist()
    score, count = count_reference(h, single_root=single_root)
    assert optimal_projective_score(h, single_root=single_root) == score
    assert count_optimal_projective_trees(h, single_root=single_root) == count


def test_fast_equals_reference_up_to_30_words():
    rng = random.Random(30)
    for i in range(120):
        n = rng.randint(13, 30)
        h = random_tree(n, rng, single_root=i % 2 == 0)
        for single_root in (None, not (i % 4 < 2)):
            ties = "first" if i % 5 == 0 else "lift"
            a = optimal_projectivize(h, single_root=single_root, ties=ties)
            b = optimal_projectivize_reference(h, single_root=single_root, ties=ties)
            assert a.tolist() == b.tolist(), (h, single_root, ties)
            assert is_projective(a.tolist())
        if i % 6 == 0:
            ref = count_reference(h)
            assert (optimal_projective_score(h), count_optimal_projective_trees(h)) == ref


def test_counts_exceed_int64_exactly():
    # Words 1..m hang from m+1..2m (pairwise crossing arcs), the rest from 0:
    # the optimum keeps few arcs, so the other words are nearly free and the
    # number of optimal trees passes 2**63; it must stay exact (Python ints).
    m = 30
    h = [-1] + [0] * (2 * m)
    for i in range(1, m + 1):
        h[i] = i + m
    got = count_optimal_projective_trees(h)
    assert isinstance(got, int) and got > 2**63
    assert (optimal_projective_score(h), got) == count_reference(h)


@pytest.mark.parametrize("cells", [P._BATCH_CELLS, 50])
def test_many_equals_one_by_one(cells, monkeypatch):
    # cells=50 forces batches of one or two trees (several chunks per length)
    monkeypatch.setattr(P, "_BATCH_CELLS", cells)
    rng = random.Random(11)
    trees = [
        random_tree(rng.choice([1, 2, 5, 9, 9, 9, 14, 14, 30]), rng, rng.random() < 0.5)
        for _ in range(150)
    ]
    trees += [np.array(t) for t in trees[:20]] + [[-1, 0, 0, 2]]
    for single_root in (None, True, False):
        for ties in ("lift", "first"):
            many = optimal_projectivize_many(iter(trees), single_root=single_root, ties=ties)
            assert len(many) == len(trees)
            for h, got in zip(trees, many):
                assert (
                    got.tolist()
                    == optimal_projectivize(h, single_root=single_root, ties=ties).tolist()
                )
                assert got is not h


def test_many_errors_and_empty():
    assert optimal_projectivize_many([]) == []
    with pytest.raises(ValueError):
        optimal_projectivize_many([[-1, 0], [-1, 2, 1]])
    with pytest.raises(ValueError):
        optimal_projectivize_many([[-1, 0]], ties="nope")


# --------------------------------------------------------------------------
# the tie rule's weights, root handling, fast path, errors
# --------------------------------------------------------------------------


def test_lift_weights_are_lexicographic_bounds():
    # The proof in the module docstring ("Keys") needs, for at most D arcs
    # lost: the levels of D lifts below lift, gold > (D + 1) * lift, and the
    # lowest intermediate 4 * floor inside the integer type. Check the actual
    # constants, and that the fast weights classify every arc as the
    # reference weights do (input arc, lift by how many levels, other, into 0).
    rng = random.Random(3)
    for _ in range(50):
        n = rng.randint(1, 25)
        h = random_tree(n, rng)
        w = reference_weights(h, "lift")
        big_b = n * n + 1
        big_a = n * big_b + 1
        levels = max((big_b - x for row in w for x in row if 0 < x < big_b), default=0)
        for max_loss in sorted({1, n // 2 or 1, n}):
            scale = P._scale("lift", max_loss, P._prepare(h, None).max_levels())
            assert levels < scale.lift and max_loss * levels < scale.lift
            assert scale.gold > (max_loss + 1) * scale.lift
            assert -4 * (scale.gold * max_loss + 1) >= np.iinfo(scale.dtype).min
            ws = P._edge_weights(np.array([h]), "lift", scale)[0]
            offs = P._width_offsets(n + 1)
            for a in range(n + 1):
                for d in range(n + 1):
                    if a == d:
                        continue
                    k, p, s = (d - a, 0, a) if a < d else (a - d, 1, d)
                    got = ws[p, offs[k] + s] + scale.gold
                    if d == 0:
                        assert got - scale.gold == scale.floor
                    elif w[a][d] == big_a:
                        assert got == scale.gold
                    elif w[a][d] > 0:
                        assert got == scale.lift - (big_b - w[a][d])
                    else:
                        assert got == 0


def test_lift_preferred_over_other_reattachment():
    # 0 -> 2 -> 4 -> 3 -> 1: the arcs 3 -> 1 and 2 -> 4 cross. With any number
    # of root dependents the optima (3 arcs kept) are word 1 re-attached to 2
    # (a lift by two levels) or to 0 (three levels): the rule takes 2. With a
    # single root only the first is allowed.
    h = [-1, 3, 0, 4, 2]
    assert not is_projective(h)
    assert count_optimal_projective_trees(h, single_root=False) == 2
    assert count_optimal_projective_trees(h, single_root=True) == 1
    for single_root in (None, True, False):
        assert optimal_projectivize(h, single_root=single_root).tolist() == [-1, 2, 0, 4, 2]
    proj = projective_by_filter(4)
    assert {(-1, 2, 0, 4, 2), (-1, 0, 0, 4, 2)} == {
        tuple(r) for r in proj.tolist() if sum(a == b for a, b in zip(r[1:], h[1:])) == 3
    }


def test_projective_input_returned_as_copy_without_dp(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("DP must not run for projective input")

    monkeypatch.setattr(P, "_solve_fast", boom)
    monkeypatch.setattr(P, "_count_fast", boom)
    for h in ([-1], [-1, 0], [-1, 2, 0, 2], [-1, 0, 0, 2]):
        arr = np.array(h)
        out = optimal_projectivize(arr)
        assert out.tolist() == h and out is not arr
        out[0] = 5
        assert arr[0] == -1
        assert optimal_projective_score(arr) == len(h) - 1
        assert count_optimal_projective_trees(arr) == 1
        assert optimal_projectivize(h, single_root=False).tolist() == h
    with pytest.raises(AssertionError, match="must not run"):
        optimal_projectivize([-1, 0, 0], single_root=True)  # needs the DP


def test_root_modes():
    h = [-1, 0, 0, 0]  # projective, three root dependents
    assert optimal_projectivize(h).tolist() == h
    assert optimal_projectivize(h, single_root=False).tolist() == h
    out = optimal_projectivize(h, single_root=True).tolist()
    assert n_roots(out) == 1 and is_projective(out)
    assert optimal_projective_score(h, single_root=True) == 1
    # every single-rooted projective tree keeps exactly its one root arc
    assert count_optimal_projective_trees(h, single_root=True) == 7
    # single-rooted non-projective input keeps one root by default
    h = [-1, 3, 0, 4, 2]
    assert n_roots(optimal_projectivize(h).tolist()) == 1


def test_bad_input():
    for bad in ([], [0, 0], [-1, 5], [-1, 2, 1], [-1, 1], [[-1, 0]]):
        with pytest.raises(ValueError):
            optimal_projectivize(bad)
    with pytest.raises(ValueError):
        optimal_projectivize([-1, 0], ties="nope")
    with pytest.raises(ValueError):
        optimal_projectivize([-1], single_root=True)


# --------------------------------------------------------------------------
# real sentences
# --------------------------------------------------------------------------


def read_heads(path) -> list[np.ndarray]:
    conllu = pytest.importorskip("conllu")
    with open(path, encoding="utf-8") as fh:
        return [
            np.array([-1] + [t["head"] for t in s if isinstance(t["id"], int)], dtype=np.int64)
            for s in conllu.parse_incr(fh)
        ]


def test_german_dev_nonprojective_fast_equals_reference():
    path = shared_path("data", "ud-2.2", "UD_German-GSD", "de_gsd-ud-dev.conllu")
    trees = [h for h in read_heads(path) if not is_projective(h.tolist())]
    assert len(trees) > 50
    many = optimal_projectivize_many(trees)
    for h, m in zip(trees, many):
        a = optimal_projectivize(h)
        assert m.tolist() == a.tolist()
        b = optimal_projectivize_reference(h)
        assert a.tolist() == b.tolist()
        assert is_projective(a.tolist()) and n_roots(a.tolist()) == n_roots(h.tolist())
        assert is_tree(a.tolist())


# --------------------------------------------------------------------------
# 8..14 words: an independent optimum by recursion over intervals
# --------------------------------------------------------------------------


def interval_optimum(h, single: bool, arc_value):
    """(best value, number of projective trees attaining it), straight from the
    definition of projectivity: a subtree covers an interval, and the
    dependents of a node on each side are a sequence of adjacent subtrees.

    ``arc_value(head, dep)`` returns a tuple; values add componentwise and
    compare lexicographically, so one recursion serves the plain score
    (arcs in common) and the tie rule (arcs, lifts, -levels) alike. Every
    projective tree has exactly one such decomposition, so the counts are
    counts of trees. The first subtree of a sequence (its root r and the arc
    parent -> r chosen together, ``first``) is memoised apart from the rest of
    the sequence: the best (value, count) of a sum of independent parts is the
    sum of their bests with the product of their counts, so this only groups
    the same terms. O(n^4).
    """
    n = len(h) - 1
    zero = tuple(0 for _ in arc_value(0, 1))

    def add(a, b):
        return tuple(x + y for x, y in zip(a, b))

    def better(best, value, count):
        if best is None or value > best[0]:
            return (value, count)
        if value == best[0]:
            return (value, best[1] + count)
        return best

    @cache
    def subtree(r, i, j):  # r heads exactly the interval i..j
        left_v, left_c = attached(r, i, r - 1)
        right_v, right_c = attached(r, r + 1, j)
        return add(left_v, right_v), left_c * right_c

    @cache
    def first(parent, i, k):  # one subtree covering exactly i..k, its root attached to parent
        best = None
        for r in range(i, k + 1):
            sub_v, sub_c = subtree(r, i, k)
            best = better(best, add(sub_v, arc_value(parent, r)), sub_c)
        return best

    @cache
    def attached(parent, i, j):  # i..j covered by adjacent subtrees whose roots attach to parent
        if i > j:
            return zero, 1
        best = None
        for k in range(i, j + 1):  # the first subtree covers i..k
            first_v, first_c = first(parent, i, k)
            rest_v, rest_c = attached(parent, k + 1, j)
            best = better(best, add(first_v, rest_v), first_c * rest_c)
        return best

    if not single:
        return attached(0, 1, n)
    best = None
    for r in range(1, n + 1):
        sub_v, sub_c = subtree(r, 1, n)
        best = better(best, add(sub_v, arc_value(0, r)), sub_c)
    return best


def tie_key(h, lv):
    """arc_value for the tie rule: (arc in common, lift, -levels)."""
    def value(head, dep):
        if head == h[dep]:
            return (1, 0, 0)
        levels = int(lv[head, h[dep]])
        return (0, 1, -levels) if levels > 0 else (0, 0, 0)
    return value


def tree_key(h, out, lv):
    value = tie_key(h, lv)
    total = (0, 0, 0)
    for d in range(1, len(h)):
        total = tuple(x + y for x, y in zip(total, value(int(out[d]), d)))
    return total


def test_interval_optimum_agrees_with_enumeration():
    rng = random.Random(11)
    for n in (1, 2, 3, 4, 5, 6):
        proj_all = projective_by_filter(n)
        single_mask = (proj_all[:, 1:] == 0).sum(1) == 1
        for _ in range(25):
            h = random_tree(n, rng, single_root=rng.random() < 0.5)
            for single in (False, True):
                cands = proj_all[single_mask] if single else proj_all
                matches = (cands[:, 1:] == np.asarray(h)[1:]).sum(1)
                best = int(matches.max())
                value, count = interval_optimum(h, single, lambda a, d: (int(a == h[d]),))
                assert (value, count) == ((best,), int((matches == best).sum()))


@pytest.mark.parametrize("n, trials", [(8, 30), (10, 30), (12, 30), (14, 20), (20, 6)])
def test_score_count_and_tie_rule_against_interval_optimum(n, trials):
    """Random trees of 8-20 words, too many projective trees to enumerate:
    the fast DP's score, count and tie-rule key equal the independent optimum."""
    rng = random.Random(1000 + n)
    for trial in range(trials):
        h = random_tree(n, rng, single_root=trial % 2 == 0)
        lv = level_matrix(h)
        for single in (False, True):
            (best,), count = interval_optimum(h, single, lambda a, d: (int(a == h[d]),))
            assert optimal_projective_score(h, single_root=single) == best
            assert count_optimal_projective_trees(h, single_root=single) == count
            out = optimal_projectivize(h, single_root=single)
            assert is_tree(out.tolist()) and is_projective(out.tolist())
            assert tree_key(h, out, lv) == interval_optimum(h, single, tie_key(h, lv))[0], (h, single, out)


def test_real_sentences_against_interval_optimum():
    """Non-projective Gothic-PROIEL train sentences of up to 16 words, against the independent optimum."""
    path = shared_path("data", "ud-2.2", "UD_Gothic-PROIEL", "got_proiel-ud-train.conllu")
    checked = 0
    for h in read_heads(path):
        if not 5 <= len(h) - 1 <= 16 or is_projective(h.tolist()):
            continue
        hl = h.tolist()
        lv = level_matrix(hl)
        (best,), count = interval_optimum(hl, True, lambda a, d: (int(a == hl[d]),))
        assert optimal_projective_score(h) == best
        assert count_optimal_projective_trees(h) == count
        out = optimal_projectivize(h)
        assert tree_key(hl, out, lv) == interval_optimum(hl, True, tie_key(hl, lv))[0], hl
        checked += 1
        if checked == 60:
            break
    assert checked == 60
