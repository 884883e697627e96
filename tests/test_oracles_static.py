"""Static oracles against exhaustive search.

The reference is ``reachable_trees`` (plain enumeration of every configuration
a system can reach) on all trees of up to 6 words (swap: 5) and, for the
Attardi systems of degree 1-3, of 7 words; on larger random trees it is
``derivable`` (exhaustive depth-first search). For every system and tree:
the static oracle succeeds exactly when the system can derive the tree,
``can_derive`` agrees, and the oracle's labelled sequence replays through the
generic ``apply`` to exactly the gold heads and labels.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from oracle_trees import (
    SYSTEM_SPECS,
    all_trees,
    bf_projective,
    make,
    random_nonprojective,
    random_tree,
    spec_id,
    word_labels,
)
from treetool.oracles import canonical_oracle, derivable, get_system, min_degree, reachable_trees
from treetool.oracles.swap import SWAP_ORDERS, projective_components, projective_order, swap_oracle, swap_run

MAX_N = {"swap": 5}  # swap's configuration space grows fastest; its n = 6 enumeration takes seconds


@lru_cache(maxsize=None)
def derivable_set(spec_key: tuple, n: int) -> frozenset:
    """The trees among the heads of the final configurations (root-first arc-eager may end with headless words)."""
    finals = frozenset(reachable_trees(make((spec_key[0], dict(spec_key[1]))), n))
    trees = frozenset(heads for heads in finals if -1 not in heads[1:])
    assert trees == finals or (spec_key[0] in ("arc-eager", "nm-arc-eager") and ("root", "first") in spec_key[1])
    return trees


def _key(spec):
    """The options that change the transitions (reduce and order only choose an oracle)."""
    return spec[0], tuple(sorted((k, v) for k, v in spec[1].items() if k not in ("reduce", "order")))


def _check_oracle(system, tree, expected: bool) -> None:
    n = len(tree) - 1
    labels = word_labels(n)
    sequence = system.static_oracle(tree, labels)
    assert (sequence is not None) == expected, (system.describe(), tree)
    assert system.can_derive(tree) == expected, (system.describe(), tree)
    plain = system.static_oracle(tree)
    if sequence is None:
        assert plain is None
        return
    assert plain == [a.split("(")[0] for a in sequence]
    final = system.replay(sequence, n)
    assert final.heads == tuple(tree) and final.labels[1:] == tuple(labels[1:]), (system.describe(), tree, sequence)


@pytest.mark.parametrize("spec", SYSTEM_SPECS, ids=spec_id)
def test_static_oracle_exact_on_every_small_tree(spec):
    system = make(spec)
    for n in range(1, MAX_N.get(spec[0], 6) + 1):
        reachable = derivable_set(_key(spec), n)
        for tree in all_trees(n):
            _check_oracle(system, tree, tree in reachable)


def test_derivable_tree_sets():
    """arc-standard, arc-hybrid, arc-eager and nm-arc-eager derive exactly the projective trees,
    Attardi's systems are nested, swap derives every tree (all by enumeration)."""
    for n in range(1, 7):
        trees = set(all_trees(n))
        projective = {t for t in trees if bf_projective(t)}
        for spec in SYSTEM_SPECS:
            if spec[0] in ("arc-standard", "arc-hybrid", "arc-eager", "nm-arc-eager") or spec == ("attardi", {"degree": 1}):
                assert derivable_set(_key(spec), n) == projective, spec
        degrees = [derivable_set(_key(("attardi", {"degree": d})), n) for d in (1, 2, 3)]
        assert degrees[0] <= degrees[1] <= degrees[2] <= trees
        if n <= MAX_N["swap"]:
            assert derivable_set(_key(("swap", {"order": "eager"})), n) == trees
    assert len(derivable_set(_key(("attardi", {"degree": 2})), 4)) == 117  # 8 of the 125 trees are not derivable


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_canonical_oracle_exact_on_every_7_word_tree(degree):
    """Cohen et al. (2012) §4: the canonical computation exists iff the tree is derivable; all 8^6 trees of 7 words."""
    reachable = derivable_set(_key(("attardi", {"degree": degree})), 7)
    failures = 0
    for tree in all_trees(7):
        sequence = canonical_oracle(tree, None, degree)
        assert (sequence is not None) == (tree in reachable), tree
        failures += sequence is None
    assert failures == 8**6 - len(reachable)


@pytest.mark.parametrize("spec", SYSTEM_SPECS, ids=spec_id)
def test_static_oracle_exact_on_random_trees(spec):
    """Random trees of 7-10 words (swap: 7-8), half non-projective, against exhaustive search."""
    system = make(spec)
    rng = random.Random(hash(spec_id(spec)) % 1000)
    sizes = (7, 8) if spec[0] == "swap" else (7, 8, 9, 10)
    for n in sizes:
        for i in range(12):
            tree = random_nonprojective(n, rng) if i % 2 else random_tree(n, rng)
            _check_oracle(system, tree, derivable(system, tree))


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_canonical_oracle_on_random_nonprojective_trees(degree):
    system = get_system("attardi", degree=degree)
    rng = random.Random(degree)
    for n in range(7, 11):
        for _ in range(25):
            tree = random_nonprojective(n, rng)
            _check_oracle(system, tree, derivable(system, tree))


def test_canonical_computation_of_example_4():
    """Cohen et al. (2012) Example 4: the only computation of {0->2, 2->1, 2->3} is sh, sh, la, sh, ra, ra."""
    assert canonical_oracle([-1, 2, 0, 2]) == ["SH", "SH", "LA", "SH", "RA", "RA"]
    assert get_system("arc-standard").static_oracle([-1, 2, 0, 2]) == ["SH", "SH", "LA", "SH", "RA", "RA"]


def test_attardi_degree_1_is_arc_standard():
    arc_standard, attardi = get_system("arc-standard"), get_system("attardi", degree=1)
    for tree in all_trees(5):
        assert attardi.static_oracle(tree, word_labels(5)) == arc_standard.static_oracle(tree, word_labels(5))


def test_degree_2_reductions_by_hand():
    """1 <- 3 across 2, 0 -> 2, 0 -> 3: non-projective. At [0, 1, 2] the complete 2 reaches
    its head 0 by RA2 (reduce as soon as possible), then 3 takes 1 by LA."""
    system = get_system("attardi", degree=2)
    sequence = system.static_oracle([-1, 3, 0, 0])
    assert sequence == ["SH", "SH", "RA2", "SH", "LA", "RA"]
    assert system.replay(sequence, 3).heads == (-1, 3, 0, 0)
    assert get_system("arc-standard").static_oracle([-1, 3, 0, 0]) is None


def test_min_degree_against_enumeration():
    for n in range(1, 7):
        sets = [derivable_set(_key(("attardi", {"degree": d})), n) for d in (1, 2, 3)]
        for tree in all_trees(n):
            expected = next((d for d, s in zip((1, 2, 3), sets) if tree in s), None)
            assert min_degree(tree, max_degree=3) == expected, tree


def test_min_degree_on_random_trees():
    rng = random.Random(11)
    systems = {d: get_system("attardi", degree=d) for d in range(1, 5)}
    for n in (8, 10):
        for _ in range(15):
            tree = random_nonprojective(n, rng)
            expected = next((d for d in range(1, 5) if derivable(systems[d], tree)), None)
            assert min_degree(tree, max_degree=4) == expected, tree


def test_projective_order_makes_every_tree_projective():
    """Nivre (2009): reordering the words by the projective order yields a projective tree."""
    for n in range(1, 7):
        for tree in all_trees(n):
            position = projective_order(tree)
            assert sorted(position) == list(range(n + 1)) and position[0] == 0
            moved = [-1] * (n + 1)
            for d in range(1, n + 1):
                moved[position[d]] = position[tree[d]]
            assert bf_projective(moved), tree


def test_projective_components_of_a_projective_tree_are_one():
    for tree in all_trees(5):
        if bf_projective(tree):
            assert set(projective_components(tree)) == {0}


def test_lazy_swap_never_swaps_more_than_eager():
    """Nivre, Kuhlmann & Hall (2009): the lazy order delays swaps; on every tree up to 6 words it never uses more."""
    fewer = 0
    for n in range(1, 7):
        for tree in all_trees(n):
            eager = swap_oracle(tree, None, "eager").count("SW")
            lazy = swap_oracle(tree, None, "lazy").count("SW")
            assert lazy <= eager, tree
            fewer += lazy < eager
    assert fewer > 0


def test_swap_fast_path_equals_the_rules():
    """On projective trees the oracle returns arc-standard's canonical run; it must equal the swap rules' own run."""
    for n in range(1, 7):
        labels = word_labels(n)
        for tree in all_trees(n):
            for order in SWAP_ORDERS:
                component = projective_components(tree) if order == "lazy" else None
                expected = swap_run(list(tree), labels, projective_order(tree), component)
                assert swap_oracle(tree, labels, order) == expected, tree


def test_swap_example():
    """Words 1 2 3 with 0 -> 2, 2 -> 3... and 3 -> 1 crossing: eager swaps once."""
    tree = [-1, 3, 0, 2]  # 3 -> 1 crosses 0 -> 2
    sequence = get_system("swap").static_oracle(tree)
    assert sequence.count("SW") == 1
    assert get_system("swap").replay(sequence, 3).heads == tuple(tree)


def test_oracles_accept_numpy_heads():
    np = pytest.importorskip("numpy")
    heads = np.array([-1, 2, 0, 2], dtype=np.int32)
    for spec in SYSTEM_SPECS:
        system = make(spec)
        assert system.static_oracle(heads) == system.static_oracle([-1, 2, 0, 2])
        assert system.can_derive(heads)
