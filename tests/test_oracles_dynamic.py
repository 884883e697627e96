"""Dynamic oracles (issue 9): the interface, the exact oracle, and the published oracles against it.

The reference is the exhaustive search (``ExhaustiveSearch``, itself tested
against a plain brute force in test_oracles_search.py); the exact oracle is
additionally checked here against that brute force directly.
"""

from __future__ import annotations

import random

import pytest

from oracle_trees import TRANSITION_SPECS, all_trees, make, random_tree, spec_id, word_labels
from oracles import ExactOracle, OracleUnavailable, get_system
from test_oracles_search import bf_finals, bf_wrong, random_walk


def test_exact_oracle_matches_brute_force_costs():
    """cost(a) = min wrong over finals after a - min wrong over finals now, by plain enumeration."""
    rng = random.Random(1)
    for spec in TRANSITION_SPECS:
        system = make(spec)
        for tree in all_trees(3):
            oracle = system.exact_oracle(tree)
            for config in random_walk(system, 3, rng):
                now = min(bf_wrong(f, tree) for f in bf_finals(system, config))
                expected = {
                    a: min(bf_wrong(f, tree) for f in bf_finals(system, system.apply(config, a))) - now
                    for a in system.legal(config)
                }
                costs = oracle.costs(config)
                assert costs == expected, (spec, tree, config)
                assert all(type(c) is int for c in costs.values())
                assert oracle.optimal(config) == [a for a in system.legal(config) if expected[a] == 0]


def test_labelled_keys_carry_the_gold_label_of_the_attached_word():
    system = get_system("nm-arc-eager", variant="LD")
    labels = ["", "root", "obj"]
    oracle = system.dynamic_oracle([-1, 0, 1], labels)
    config = system.run(["SH", "SH"], 2, labeled=True)  # stack [1, 2], buffer [0]: 2 is headless
    assert oracle.costs(config) == {"LA(obj)": 1, "RE(obj)": 0}  # RE adds 1 -> 2 (gold); LA makes 2 a root
    assert oracle.optimal(config) == ["RE(obj)"]
    config = system.run(["SH", "RA(obj)", "RE"], 2, labeled=True)  # stack [1], buffer [0]
    assert oracle.costs(config) == {"LA(root)": 0}


def test_exact_oracle_is_the_default_and_refuses_long_sentences():
    for name in ("swap", "attardi", "arc-standard"):
        system = get_system(name)
        assert isinstance(system.dynamic_oracle([-1, 0]), ExactOracle)
        with pytest.raises(OracleUnavailable, match="exact search is limited to 10 words; this sentence has 11"):
            system.dynamic_oracle(random_tree(11, random.Random(0)))
        assert isinstance(system.dynamic_oracle(random_tree(11, random.Random(0)), max_length=None), ExactOracle)
    system = get_system("swap")
    tree, labels = (-1, 2, 0), word_labels(2)
    config = system.initial(2, labeled=True)
    assert system.costs(config, tree, labels) == {"SH": 0}
    assert system.optimal(system.run(["SH", "SH"], 2, labeled=True), tree, labels) == [f"LA({labels[1]})", "SW"]  # SW, SH, RA also builds 2 -> 1
