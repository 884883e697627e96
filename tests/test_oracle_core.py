"""One core for every transition system: one error hierarchy, one budget, declared oracle specs.

* The dependency and constituency systems raise the same errors, so one
  ``except`` clause catches either family's.
* One ``treetool.budget.Budget`` bounds both exhaustive searches, by states
  (counted exactly: a cap one below the count of an unbounded run stops the
  search, the count itself does not) and by time (a budget whose deadline
  has passed, without reading a clock), for a whole sentence.
* Every built-in system's ``oracle_spec`` is checked against what its
  oracles do: the exactness it declares against the exhaustive search on
  every reachable configuration of every tree it covers, of up to 4 or 5
  words (and not more exact than declared: a system declaring ``projective``
  is inexact on some non-projective tree, ``none`` on some projective one),
  the options and the budget it declares against calls.
"""

from __future__ import annotations

import random

import pytest
from nltk import Tree

from oracle_trees import SYSTEM_SPECS, all_trees, bf_projective, make, random_nonprojective, random_tree, spec_id
from test_oracles_dynamic import all_configurations
from treetool.budget import Budget, SentenceTimeout
from treetool.oracles import (
    ExactOracle, ExhaustiveSearch, IllegalAction, IncompleteDerivation, OracleError, OracleUnavailable, SystemSpecError,
    get_system,
)
from treetool.oracles.constituency import InOrder, TopDown, from_nltk, get_constituency_system
from treetool.oracles.constituency.dynamic import ConstituencyOracle
from treetool.oracles.constituency.search import gold_labels, min_loss

PTB = "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (NN mats)))))"
CONSTITUENCY = [InOrder(), TopDown(max_open_nts=3)]  # RNNG's 100 open non-terminals: too many states to search


class Expired(Budget):
    """A budget whose time has run out, without reading a clock (the tests never depend on timing)."""

    def check(self) -> None:
        raise SentenceTimeout(1.0)


# ---------------------------------------------------------------- one error hierarchy


def test_one_except_clause_catches_both_families_illegal_actions():
    for system, actions, n in ((get_system("arc-standard"), ["SH", "LA"], 2), (TopDown(), ["SHIFT"], 1)):
        try:
            system.run(actions, n)
        except IllegalAction as err:
            assert err.step == len(actions) and isinstance(err, OracleError)
        else:
            pytest.fail(f"{system.name} accepted {actions}")
    with pytest.raises(IllegalAction, match="not a constituency action"):
        TopDown().apply(TopDown().initial(1), "NT(")


def test_replay_of_either_family_raises_the_one_incomplete_derivation():
    with pytest.raises(IncompleteDerivation, match=r"the 1 transitions .* not final \(stack \[0, 1\], buffer \[2\]\)"):
        get_system("arc-standard").replay(["SH"], 2)
    with pytest.raises(IncompleteDerivation, match="the 2 transitions end in a configuration that is not final"):
        TopDown().replay(["NT(S)", "SHIFT"], 2)


def test_constituency_options_are_declared_and_refused_like_dependency_ones():
    with pytest.raises(SystemSpecError, match="unknown constituency system"):
        get_constituency_system("bottom-up")
    with pytest.raises(SystemSpecError, match=r"top-down does not take option max_unary \(its options: max_open_nts\)"):
        get_constituency_system("top-down", max_unary=2)
    assert get_constituency_system("in-order", max_unary=2).describe() == "in-order (max_unary=2)"
    assert get_constituency_system("top-down", max_open_nts=None).describe() == "top-down"  # None: not given


# ---------------------------------------------------------------- one budget


def _states_needed(run) -> int:
    """How many configurations ``run(budget)`` counts with no limit."""
    budget = Budget()
    run(budget)
    return budget.states


def _bounded_exactly_by_states(run) -> None:
    needed = _states_needed(run)
    assert needed > 10
    run(Budget(max_states=needed))
    with pytest.raises(SentenceTimeout, match=f"more than {needed - 1} configurations"):
        run(Budget(max_states=needed - 1))


def test_one_budget_bounds_the_dependency_search_by_states():
    system, tree = get_system("arc-eager"), random_nonprojective(7, random.Random(3))
    _bounded_exactly_by_states(lambda budget: ExhaustiveSearch(system, tree, budget=budget).loss(system.initial(7)))


@pytest.mark.parametrize("system", CONSTITUENCY, ids=lambda system: system.name)
def test_one_budget_bounds_the_constituency_search_by_states(system):
    gold = from_nltk(Tree.fromstring(PTB))
    _bounded_exactly_by_states(lambda budget: min_loss(system, system.initial(gold.end), gold, budget=budget))


def _path(system, actions, n) -> list:
    """The configurations along ``actions`` from the last one back to the initial one.

    Backwards, each search reaches configurations the previous ones (memoised, under the same oracle) did not.
    """
    configs = [system.initial(n)]
    for action in actions[:-1]:
        configs.append(system.apply(configs[-1], action))
    return configs[::-1]


def _bounds_the_sentence(new_oracle, configs) -> None:
    """One oracle's budget counts the states of all its searches: the cap is for the sentence, not each call."""
    def walk(budget: Budget) -> None:
        oracle = new_oracle(budget)
        for config in configs:
            oracle.costs(config)

    first_call = _states_needed(lambda budget: new_oracle(budget).costs(configs[0]))
    assert _states_needed(walk) > first_call
    _bounded_exactly_by_states(walk)


def test_the_budget_of_a_dependency_oracle_bounds_the_whole_sentence():
    system, tree = get_system("swap"), random_nonprojective(6, random.Random(5))
    configs = _path(system, system.static_oracle(tree), 6)
    _bounds_the_sentence(lambda budget: system.exact_oracle(tree, budget=budget), configs)


@pytest.mark.parametrize("system", CONSTITUENCY, ids=lambda system: system.name)
def test_the_budget_of_a_constituency_oracle_bounds_the_whole_sentence(system):
    gold = from_nltk(Tree.fromstring(PTB))
    labels, configs = gold_labels(gold) + ["X"], _path(system, system.static_oracle(gold), gold.end)
    _bounds_the_sentence(lambda budget: ConstituencyOracle(system, gold, labels, "search", None, budget=budget),
                         configs)


def test_one_budget_bounds_both_searches_by_time():
    system, tree = get_system("arc-hybrid"), random_tree(6, random.Random(1))
    with pytest.raises(SentenceTimeout, match="time budget of 1 s exceeded"):
        ExhaustiveSearch(system, tree, budget=Expired()).loss(system.initial(6))
    in_order, gold = InOrder(), from_nltk(Tree.fromstring(PTB))
    with pytest.raises(SentenceTimeout, match="time budget of 1 s exceeded"):
        min_loss(in_order, in_order.initial(gold.end), gold, budget=Expired())


def test_budget_refuses_limits_that_cannot_be_met():
    with pytest.raises(ValueError, match="max_seconds must be positive"):
        Budget(max_seconds=0)
    with pytest.raises(ValueError, match="max_states must be at least 0"):
        Budget(max_states=-1)
    with pytest.raises(SentenceTimeout, match="more than 0 configurations"):
        Budget(max_states=0).count_state()


# ---------------------------------------------------------------- declared oracle specs

PUBLISHED_SPECS = [spec for spec in SYSTEM_SPECS if make(spec).oracle_spec.published is not None]


def _differs_somewhere(system, trees, n) -> bool:
    configs = all_configurations(system, n)
    for tree in trees:
        exact, fast = system.exact_oracle(tree), system.dynamic_oracle(tree)
        if any(fast.costs(config) != exact.costs(config) for config in configs):
            return True
    return False


@pytest.mark.parametrize("spec", PUBLISHED_SPECS, ids=spec_id)
def test_published_oracle_is_exactly_as_exact_as_declared(spec):
    """``exact_on`` against the exhaustive search on every reachable configuration of every tree it covers.

    Every projective tree of up to 5 words for ``projective``; every tree of up to 4 words for ``any`` (the
    modules of arc-standard's and attardi's oracles check more: tests/test_oracles_nederhof.py,
    tests/test_oracles_attardi2.py). Not more exact than declared: an inexact case among the trees not covered.
    """
    system = make(spec)
    exact_on = system.oracle_spec.exact_on
    inexact_found = False
    for n in range(1, 6 if exact_on == "projective" else 5):
        trees = list(all_trees(n))
        projective = [tree for tree in trees if bf_projective(tree)]
        covered = {"any": trees, "projective": projective, "none": []}[exact_on]
        configs = all_configurations(system, n)
        for tree in covered:
            exact, fast = system.exact_oracle(tree), system.dynamic_oracle(tree)
            for config in configs:
                assert fast.costs(config) == exact.costs(config), (tree, config)
        if not inexact_found:
            beyond = {"any": [], "projective": [t for t in trees if not bf_projective(t)], "none": projective}[exact_on]
            inexact_found = _differs_somewhere(system, beyond, n)
    assert inexact_found == (exact_on != "any"), "the oracle is more exact than its spec declares"


@pytest.mark.parametrize("spec", SYSTEM_SPECS, ids=spec_id)
def test_the_search_serves_exactly_the_systems_declaring_no_published_oracle(spec):
    system = make(spec)
    searched = system.oracle_spec.published is None
    assert isinstance(system.dynamic_oracle([-1, 0, 1]), ExactOracle) == searched
    long = random_tree(40, random.Random(2)) if searched else [-1, 0, *range(1, 40)]
    if searched:
        limit = 7 if system.name == "swap" else 10  # swap's search of 8 words takes seconds (its exact_max_length)
        with pytest.raises(OracleUnavailable, match=f"exact search is limited to {limit} words"):
            system.dynamic_oracle(long)
    else:  # any length
        assert min(system.dynamic_oracle(long).costs(system.initial(40)).values()) == 0


OPTION_VALUES = {"max_length": None, "algorithm": "cubic", "strategy": "left-before-right",
                 "prefer_monotonic": True, "published": False}
"""A valid value for every option a built-in ``dynamic_oracle`` declares."""


@pytest.mark.parametrize("spec", SYSTEM_SPECS, ids=spec_id)
def test_dynamic_oracle_takes_the_declared_options_and_no_other(spec):
    system = make(spec)
    declared = system.oracle_spec.options
    tree = [-1, 2, 0, 2]
    oracle = system.dynamic_oracle(tree, **{option: OPTION_VALUES[option] for option in declared})
    assert min(oracle.costs(system.initial(3)).values()) == 0
    for option in sorted(set(OPTION_VALUES) - set(declared)):
        with pytest.raises(TypeError):
            system.dynamic_oracle(tree, **{option: OPTION_VALUES[option]})


@pytest.mark.parametrize("spec", SYSTEM_SPECS, ids=spec_id)
def test_oracles_consult_the_budget_exactly_when_declared(spec):
    """A budget already spent stops an oracle that declares it takes a budget, and no other (non-projective gold).

    Asked after the first shift: where only one action is legal an oracle may answer without any work.
    """
    system = make(spec)
    tree = random_nonprojective(8, random.Random(4))
    declared = system.oracle_spec
    dynamic = system.dynamic_oracle
    shifted = system.apply(system.initial(8), "SH")
    unlimited = {"max_length": None} if "max_length" in declared.options else {}  # swap's default is 7 words
    for takes_budget, run in ((declared.takes_budget,
                               lambda: dynamic(tree, budget=Expired(), **unlimited).costs(shifted)),
                              (declared.static_takes_budget, lambda: system.static_oracle(tree, budget=Expired()))):
        if takes_budget:
            with pytest.raises(SentenceTimeout):
                run()
        else:
            run()


def test_swap_has_arc_standards_transitions_and_declarations_plus_sw():
    """Swap is its own class now: on every configuration it reaches (up to 4 words), its non-SW transitions are
    arc-standard's, and it keeps the declarations that make the search fast."""
    swap, arc_standard = get_system("swap"), get_system("arc-standard")
    assert swap.monotonic and swap.detached_words_final and not swap.bottom_up
    for n in range(1, 5):
        for config in all_configurations(swap, n):
            legal = swap.legal(config)
            assert [a for a in legal if a != "SW"] == arc_standard.legal(config)
            assert ("SW" in legal) == (len(config.stack) >= 2 and 0 < config.stack[-2] < config.stack[-1])
            for action in arc_standard.legal(config):
                assert swap.apply(config, action) == arc_standard.apply(config, action)
