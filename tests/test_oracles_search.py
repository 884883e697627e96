"""The exhaustive search (treetool.oracles.search) against an even plainer brute force.

``bf_finals`` enumerates every complete action sequence from a configuration
(no memo, no pruning, labels tried from a fixed alphabet) and the loss is then
the minimum number of wrong words over the final configurations it reaches.
"""

from __future__ import annotations

import math
from functools import reduce
import random

import numpy as np
import pytest

from oracle_trees import (
    TRANSITION_SPECS,
    all_trees,
    make,
    random_nonprojective,
    random_tree,
    spec_id,
    word_labels,
)
from treetool.budget import Budget, SentenceTimeout
from treetool.oracles import (
    Configuration,
    ExhaustiveSearch,
    IllegalAction,
    SearchError,
    TransitionSystem,
    derivable,
    exact_costs,
    min_loss,
    search_oracle,
)


def bf_finals(system, config, alphabet=()):
    """Every final configuration at which some action sequence from ``config`` may stop."""
    finals = []

    def walk(c):
        if system.is_final(c):
            finals.append(c)
        for action in system.legal(c):
            for candidate in [action] + [f"{action}({label})" for label in alphabet]:
                try:
                    after = system.apply(c, candidate)
                except IllegalAction:
                    continue
                walk(after)

    walk(config)
    return finals


def bf_wrong(final, heads, labels=None):
    return sum(
        final.heads[w] != heads[w] or (labels is not None and final.labels[w] != labels[w])
        for w in range(1, len(heads))
    )


def bf_outcomes(finals, labelled=False) -> tuple[np.ndarray, np.ndarray | None]:
    """The distinct (heads, labels) of ``finals`` as arrays, one row each: the brute force's minimum over
    final configurations is a minimum over what they assign, and many sequences assign the same
    (swap: 22,843 finals, 642 distinct head assignments, over the sampled configurations of 1-4 words)."""
    distinct = list({(f.heads, f.labels if labelled else ()) for f in finals})
    heads = np.array([h for h, _ in distinct], dtype=np.int64)
    labels = np.array([lab for _, lab in distinct], dtype=object) if labelled else None
    return heads, labels


def bf_min_wrong(outcomes, heads, labels=None) -> int:
    """``min(bf_wrong(f, heads, labels) for f in finals)`` over ``bf_outcomes(finals)``, one array operation."""
    final_heads, final_labels = outcomes
    wrong = final_heads[:, 1:] != np.asarray(heads)[1:]
    if labels is not None:
        wrong |= final_labels[:, 1:] != np.array(labels[1:], dtype=object)
    return int(wrong.sum(axis=1).min())


def random_walk(system, n, rng, labeled=False, alphabet=("a", "b")):
    """The configurations along one random computation (labels drawn from ``alphabet``)."""
    config = system.initial(n, labeled=labeled)
    path = [config]
    while system.legal(config):
        action = rng.choice(system.legal(config))
        if labeled:
            try:
                config = system.apply(config, f"{action}({rng.choice(alphabet)})")
                path.append(config)
                continue
            except IllegalAction:
                pass
        config = system.apply(config, action)
        path.append(config)
    return path


def _sample_configurations(system, n, rng, walks, labeled=False):
    seen = {}
    for _ in range(walks):
        for config in random_walk(system, n, rng, labeled):
            seen.setdefault(config, None)
    return list(seen)


@pytest.mark.parametrize("spec", TRANSITION_SPECS, ids=spec_id)
def test_min_loss_equals_brute_force(spec):
    """Every tree of up to 4 words, at the initial configuration and along random computations."""
    system = make(spec)
    rng = random.Random(5)
    for n in range(1, 5):
        configs = _sample_configurations(system, n, rng, walks=4)
        outcomes = {c: bf_outcomes(bf_finals(system, c)) for c in configs}
        for tree in all_trees(n):
            search = ExhaustiveSearch(system, tree)
            for config in configs:
                expected = bf_min_wrong(outcomes[config], tree)
                assert search.loss(config) == expected, (tree, config)
        tree = next(iter(all_trees(n)))
        assert min_loss(system, configs[-1], tree) == bf_min_wrong(outcomes[configs[-1]], tree)


@pytest.mark.parametrize("spec", TRANSITION_SPECS, ids=spec_id)
def test_labelled_min_loss_equals_brute_force(spec):
    """Labels count: a word is wrong when its head or its label is; trees of up to 3 words."""
    system = make(spec)
    rng = random.Random(6)
    alphabet = ("a", "b")
    for n in range(1, 4):
        configs = _sample_configurations(system, n, rng, walks=3, labeled=True)
        outcomes = {c: bf_outcomes(bf_finals(system, c, alphabet), labelled=True) for c in configs}
        for tree in all_trees(n):
            labels = [""] + [rng.choice(alphabet) for _ in range(n)]
            search = ExhaustiveSearch(system, tree, labels)
            for config in configs:
                expected = bf_min_wrong(outcomes[config], tree, labels)
                assert search.loss(config) == expected, (tree, labels, config)


@pytest.mark.parametrize("spec", TRANSITION_SPECS, ids=spec_id)
def test_costs_are_sane_along_random_computations(spec):
    """Costs cover exactly the legal actions, are >= 0, some action costs 0; loss 0 at the start iff derivable."""
    system = make(spec)
    rng = random.Random(8)
    sizes = (4, 6) if spec[0] == "swap" else (5, 7)
    for n in sizes:
        for i in range(6):
            tree = random_nonprojective(n, rng) if i % 2 else random_tree(n, rng)
            labels = word_labels(n) if i % 3 == 0 else None
            search = ExhaustiveSearch(system, tree, labels)
            path = random_walk(system, n, rng, labeled=labels is not None)
            assert (search.loss(path[0]) == 0) == derivable(system, tree)
            for config in path:
                costs = search.costs(config)
                assert set(costs) == set(system.legal(config))
                assert all(cost >= 0 for cost in costs.values())
                if costs:
                    assert min(costs.values()) == 0
                for action, cost in costs.items():
                    if labels is None:
                        assert search.loss(system.apply(config, action)) == search.loss(config) + cost
        assert exact_costs(system, path[0], tree, labels) == ExhaustiveSearch(system, tree, labels).costs(path[0])


def test_costs_of_given_labelled_actions():
    system = make(("arc-standard", {}))
    tree, labels = (-1, 2, 0), ["", "nsubj", "root"]
    search = ExhaustiveSearch(system, tree, labels)
    config = reduce(system.apply, ["SH", "SH"], system.initial(2, labeled=True))
    assert search.costs(config) == {"LA": 0, "RA": 2}  # RA: 1 -> 2 (wrong), then only 0 -> 1 (wrong)
    assert search.costs(config, ["LA(nsubj)", "LA(obj)", "LA"]) == {"LA(nsubj)": 0, "LA(obj)": 1, "LA": 1}


@pytest.mark.parametrize("spec", TRANSITION_SPECS, ids=spec_id)
def test_search_oracle_agrees_with_static_oracle(spec):
    """The generic search finds a sequence exactly when the built-in oracle does, and it replays to gold."""
    system = make(spec)
    rng = random.Random(9)
    trees = [t for n in range(1, 6 if spec[0] != "swap" else 5) for t in all_trees(n)]
    trees += [random_nonprojective(n, rng) for n in (6, 7, 8) for _ in range(4)]
    for tree in trees:
        n = len(tree) - 1
        labels = word_labels(n)
        sequence = search_oracle(system, tree, labels)
        assert (sequence is not None) == (system.static_oracle(tree) is not None), tree
        if sequence is not None:
            final = system.replay(sequence, n)
            assert final.heads == tuple(tree) and final.labels == (None, *labels[1:])


class _Undeclared:
    """Mixin dropping the declarations: the search must then memoise on whole configurations."""

    monotonic = False
    detached_words_final = False


@pytest.mark.parametrize("spec", [s for s in TRANSITION_SPECS if s[0] in ("arc-eager", "nm-arc-eager", "attardi")], ids=spec_id)
def test_declarations_do_not_change_results(spec):
    system = make(spec)
    plain = type("Plain", (_Undeclared, type(system)), {})(**system.options())
    assert not plain.detached_words_final
    rng = random.Random(10)
    for n in (4, 5):
        for _ in range(4):
            tree = random_tree(n, rng)
            projected, whole = ExhaustiveSearch(system, tree), ExhaustiveSearch(plain, tree)
            for config in random_walk(system, n, rng):
                assert projected.loss(config) == whole.loss(config)
                assert projected.costs(config) == whole.costs(config)
            assert derivable(system, tree) == derivable(plain, tree)


class _Cyclic(TransitionSystem):
    """SH and UN (undo a shift) form a cycle; RA attaches s0 to s1."""

    def initial(self, n, labeled=False):
        return Configuration((0,), tuple(range(1, n + 1)), (-1,) * (n + 1))

    def legal(self, c):
        return (["SH"] if c.buffer else []) + (["UN", "RA"] if len(c.stack) > 1 else [])

    def apply(self, c, action):
        if action == "SH":
            return Configuration(c.stack + c.buffer[:1], c.buffer[1:], c.heads)
        if action == "UN":
            return Configuration(c.stack[:-1], c.stack[-1:] + c.buffer, c.heads)
        heads = c.heads[: c.stack[-1]] + (c.stack[-2],) + c.heads[c.stack[-1] + 1 :]
        return Configuration(c.stack[:-1], c.buffer, heads)

    def is_final(self, c):
        return len(c.stack) == 1 and not c.buffer


def test_cycles_are_reported_by_the_loss_search_and_survived_by_the_path_search():
    system = _Cyclic()
    with pytest.raises(SearchError, match="cycle"):
        min_loss(system, system.initial(2), [-1, 0, 1])
    assert system.replay(search_oracle(system, [-1, 0, 1]), 2).heads == (-1, 0, 1)
    assert derivable(system, [-1, 0, 1]) and not derivable(system, [-1, 2, 0])


def test_budgets():
    system = make(("arc-eager", {}))
    tree = random_tree(9, random.Random(1))
    with pytest.raises(SentenceTimeout, match="more than 10 configurations"):
        min_loss(system, system.initial(9), tree, budget=Budget(max_states=10))

    class Expired(Budget):
        """A budget whose deadline has passed: the clock is not read, so the test does not depend on timing."""

        def check(self):
            raise SentenceTimeout(1.0)

    with pytest.raises(SentenceTimeout, match="time budget of 1 s exceeded"):
        min_loss(system, system.initial(9), tree, budget=Expired())
    with pytest.raises(SentenceTimeout):
        search_oracle(system, random_nonprojective(9, random.Random(2)), budget=Expired())
    generous = Budget(max_seconds=120, max_states=10**7)
    assert (min_loss(system, system.initial(9), tree, budget=generous) == 0) == derivable(system, tree)


def test_unreachable_final_gives_infinite_loss():
    class Stuck(_Cyclic):
        def legal(self, c):
            return ["SH"] if c.buffer else []

    system = Stuck()
    assert min_loss(system, system.initial(1), [-1, 0]) == math.inf
    with pytest.raises(SearchError, match="no final configuration"):
        exact_costs(system, system.initial(1), [-1, 0])
