"""``--loss authors``: the in-order oracle of the authors' released parser (Fernández-González & Gómez-Rodríguez
2018, §3.2), and the rule every loss keeps: some legal action costs 0 at every step.

Hand-worked configurations check each rule where it departs from the paper's
text; the fast :class:`AuthorsCosts` is compared with the literal restatement
of the parser's bookkeeping (``reference_authors_loss``) on every step of
exploring walks; on the gold path of trees without unary chains its optimal
actions are those of the exact loss (the exhaustive search where the parser's
limits may bind).
"""

from __future__ import annotations

import random

import pytest
from nltk import Tree

from treetool.oracles.annotate import Explore
from treetool.oracles.constituency import from_nltk, get_constituency_system
from treetool.oracles.constituency.annotate import annotate_tree
from treetool.oracles.constituency.authors_loss import AuthorsCosts, authors_choice
from treetool.oracles.constituency.dynamic import ConstituencyOracle
from treetool.oracles.constituency.gold_index import GoldIndex
from treetool.oracles.constituency.tree import Node, preorder

import reference_authors_loss as reference
from conftest import run_cli
from test_constituency_annotate import sample_golds, write

IN_ORDER = get_constituency_system("in-order")
TOP_DOWN = get_constituency_system("top-down")


def scorer(tree: str, labels: list[str]) -> AuthorsCosts:
    return AuthorsCosts(IN_ORDER, GoldIndex(from_nltk(Tree.fromstring(tree)), IN_ORDER), labels)


# "Compromises are possible .": NP(0,1) S(0,4) VP(1,3) ADJP(2,3), opened in that order (ranks 0-3).
COMPROMISES = "(S (NP (NNS Compromises)) (VP (VBP are) (ADJP (JJ possible))) (. .))"
COMPROMISES_LABELS = ["S", "NP", "VP", "ADJP"]
AFTER_W1 = ["SHIFT", "PJ(NP)", "REDUCE", "PJ(S)", "SHIFT"]  # stack [NP(0,1), S*, w1], buffer 2


def test_condition_iii_as_the_prose_says():
    """[NP(0,1), S*, w1]: SHIFT buries w1, the first child of the gold VP(1,3) (no longer the top nor below an
    open non-terminal): 1 created + S(0,4) + ADJP(2,3) = 3, while PJ(VP) keeps all four (1 + ADJP in the buffer +
    S and VP with their non-terminals open in gold order). The paper's formula gives SHIFT 0 here; the prose
    reading (our paper loss too) does not."""
    authors = scorer(COMPROMISES, COMPROMISES_LABELS)
    config = IN_ORDER.run(AFTER_W1, 4)
    assert authors.scores(config) == {"SHIFT": 3, "PJ(S)": 1, "PJ(NP)": 1, "PJ(VP)": 4, "PJ(ADJP)": 1,
                                      "REDUCE": 2}
    assert authors.costs(config) == {"SHIFT": 1, "PJ(S)": 3, "PJ(NP)": 3, "PJ(VP)": 0, "PJ(ADJP)": 3, "REDUCE": 2}
    gold = from_nltk(Tree.fromstring(COMPROMISES))
    assert ConstituencyOracle(IN_ORDER, gold, COMPROMISES_LABELS, "paper").optimal(config) == ["PJ(VP)"]
    assert ConstituencyOracle(IN_ORDER, gold, COMPROMISES_LABELS, "exact").optimal(config) == ["PJ(VP)"]


def test_no_out_of_order_term_but_every_open_non_terminal_gold_and_in_order():
    """A wrong PJ(ADJP) above w1: the penalty, and S (its non-terminal open below a wrong one) and VP (its first
    child below a wrong one) both lost: 4 - 3 = 1, cost 3. The paper loses neither (cost 1, the wrong
    non-terminal only)."""
    authors = scorer(COMPROMISES, COMPROMISES_LABELS)
    config = IN_ORDER.run(AFTER_W1, 4)
    assert authors.costs(config)["PJ(ADJP)"] == 3
    gold = from_nltk(Tree.fromstring(COMPROMISES))
    assert ConstituencyOracle(IN_ORDER, gold, COMPROMISES_LABELS, "paper").costs(config)["PJ(ADJP)"] == 1


def test_identity_is_the_kth_non_terminal_ever_applied():
    """(S (NP a) (VP b)) after SHIFT PJ(NP) REDUCE: NP(0,1) is built; PJ(NP) again is the 2nd NP applied and the
    gold tree has one: wrong (penalty 1, and S's first child is now below a wrong non-terminal). The paper matches
    open (NP, 1) on the stack with the gold NP, so re-opening it costs 0 there."""
    tree, labels = "(S (NP (NN a)) (VP (VB b)))", ["S", "NP", "VP"]
    config = IN_ORDER.run(["SHIFT", "PJ(NP)", "REDUCE"], 2)
    assert scorer(tree, labels).scores(config) == {"PJ(S)": 3, "PJ(NP)": 1, "PJ(VP)": 1}
    paper = ConstituencyOracle(IN_ORDER, from_nltk(Tree.fromstring(tree)), labels, "paper")
    assert paper.costs(config)["PJ(NP)"] == 0


def test_after_a_wrong_non_terminal_the_next_of_its_label_is_wrong():
    """(S (NP a b) (VP c (NP d))) after a wrong PJ(VP) at 1, reduced, then the gold S and w2: PJ(VP) at 3 is where
    the gold VP is opened, but it is the 2nd VP applied and the gold tree has one: wrong, and it buries S and
    VP(2,4): 0 + NP(3,4) in the buffer - 1 = 0, against SHIFT's 2. The exact loss (and the paper) take it."""
    tree = "(S (NP (DT a) (NN b)) (VP (VB c) (NP (NN d))))"
    labels = ["S", "NP", "VP"]
    config = IN_ORDER.run(["SHIFT", "PJ(VP)", "SHIFT", "REDUCE", "PJ(S)", "SHIFT"], 4)
    assert scorer(tree, labels).scores(config) == {"SHIFT": 2, "PJ(S)": 0, "PJ(NP)": 0, "PJ(VP)": 0, "REDUCE": 1}
    gold = from_nltk(Tree.fromstring(tree))
    assert "PJ(VP)" in ConstituencyOracle(IN_ORDER, gold, labels, "exact").optimal(config)


def test_a_reduce_building_a_wrong_constituent_is_penalised():
    """[NP(0,1), S*, w1, ADJP*] (ADJP opened at 2, the gold one is at 3): REDUCE builds ADJP(1,2), not gold: 1
    created + ADJP(2,3) + S + VP (its first child is the new top) - 1 = 3. The paper counts the wrong non-terminal
    before and the wrong constituent after: no change, REDUCE and SHIFT are both optimal there."""
    authors = scorer(COMPROMISES, COMPROMISES_LABELS)
    config = IN_ORDER.run(AFTER_W1 + ["PJ(ADJP)"], 4)
    assert authors.scores(config) == {"SHIFT": 2, "REDUCE": 3}
    gold = from_nltk(Tree.fromstring(COMPROMISES))
    paper = ConstituencyOracle(IN_ORDER, gold, COMPROMISES_LABELS, "paper")
    assert paper.costs(config) == {"SHIFT": 0, "REDUCE": 0}


def test_every_score_negative_the_loop_takes_the_first_legal_action():
    """(S a b c) after SHIFT PJ(ZZ) SHIFT REDUCE: [ZZ(0,2)], buffer 2. The gold S was opened at 1, so any PJ now
    is wrong and nothing is left to build: every score is -1. The training loop (best score floored at 0) then
    finds no optimal action and follows the first legal one; the costs, relative to the best, are all 0."""
    authors = scorer("(S (A a) (B b) (C c))", ["S", "ZZ"])
    config = IN_ORDER.run(["SHIFT", "PJ(ZZ)", "SHIFT", "REDUCE"], 3)
    scores = authors.scores(config)
    assert scores == {"PJ(S)": -1, "PJ(ZZ)": -1}
    assert authors_choice(scores) == ["PJ(S)"]
    assert authors.costs(config) == {"PJ(S)": 0, "PJ(ZZ)": 0}
    assert authors_choice({"SHIFT": -1, "REDUCE": -2, "PJ(S)": -1}) == ["SHIFT"]
    assert authors_choice({"SHIFT": 0, "REDUCE": -2, "PJ(S)": 0}) == ["SHIFT", "PJ(S)"]


def test_top_down_has_no_authors_loss(tmp_path):
    gold = from_nltk(Tree.fromstring("(S (NP (NN a)) (VP (VB b)))"))
    with pytest.raises(ValueError):
        ConstituencyOracle(TOP_DOWN, gold, ["S"], "authors")
    result = run_cli("annotate", write(tmp_path, "(S (NP (NN a)) (VP (VB b)))\n"), "--system", "top-down",
                     "--loss", "authors")
    assert result.returncode == 2
    assert result.stderr.count(b"\n") == 1 and b"not public" in result.stderr


# ------------------------------------------------------------------ the fast scoring against the restatement


def compare_along_walks(golds: list[Node], rng: random.Random, error_rate: float) -> int:
    """Walk each tree (a best action, else with ``error_rate`` any legal one), comparing the fast scores with
    the restatement's at every step; the number of steps."""
    steps = 0
    for gold in golds:
        labels = sorted({node.label for node in preorder(gold)}) + ["ZZ"]
        fast = AuthorsCosts(IN_ORDER, GoldIndex(gold, IN_ORDER), labels)
        restated, history = reference.Gold(gold), reference.History()
        config = IN_ORDER.initial(gold.end)
        while not IN_ORDER.is_final(config):
            scores = fast.scores(config)
            assert scores == {a: reference.score(history, a, restated) for a in scores}, (gold, config)
            steps += 1
            best = [a for a, c in fast.costs(config).items() if c == 0]
            action = rng.choice(list(scores) if rng.random() < error_rate else best)
            history.apply(action, restated.nts)
            config = IN_ORDER.apply(config, action)
    return steps


@pytest.mark.parametrize("error_rate", [0.1, 0.2])
def test_fast_scores_equal_the_restatement_on_sample_trees(error_rate):
    golds = sample_golds(120)[60:]  # held out from the hand-worked checks and the other tests' first trees
    assert compare_along_walks(golds, random.Random(error_rate), error_rate) > 3000


def random_gold(rng: random.Random, n: int, chains: bool) -> Node:
    """Random brackets over n words; labels A/B/C; unary nodes over words, and (``chains``) over nodes."""
    def build(lo: int, hi: int) -> Tree:
        if hi - lo == 1:
            node = Tree("P", [f"w{lo}"])
            return Tree(rng.choice("AB"), [node]) if rng.random() < 0.3 else node
        cuts = sorted(rng.sample(range(lo + 1, hi), rng.randint(1, min(3, hi - lo - 1))))
        bounds = [lo, *cuts, hi]
        node = Tree(rng.choice("ABC"), [build(a, b) for a, b in zip(bounds, bounds[1:])])
        while chains and rng.random() < 0.25:
            node = Tree(rng.choice("ABC"), [node])
        return node
    tree = build(0, n)
    return from_nltk(tree if tree.label() != "P" else Tree("A", [tree]))


def test_fast_scores_equal_the_restatement_on_random_trees():
    rng = random.Random(11)
    golds = [random_gold(rng, rng.randint(1, 9), chains=True) for _ in range(150)]
    assert compare_along_walks(golds, rng, 0.3) > 3000


# ------------------------------------------------------------------ exactness where it is claimed


def has_unary_chain(gold: Node) -> bool:
    return any(len(node.children) == 1 and isinstance(node.children[0], Node) for node in preorder(gold))


def assert_gold_path_optimal_is_exact(gold: Node) -> int:
    labels = sorted({node.label for node in preorder(gold)}) + ["ZZ"]
    authors = ConstituencyOracle(IN_ORDER, gold, labels, "authors")
    exact = ConstituencyOracle(IN_ORDER, gold, labels, "exact", max_length=12)
    config = IN_ORDER.initial(gold.end)
    steps = 0
    for action in IN_ORDER.static_oracle(gold):
        assert authors.optimal(config) == exact.optimal(config), (gold, config)
        config = IN_ORDER.apply(config, action)
        steps += 1
    return steps


def test_gold_path_optimal_actions_are_exact_without_unary_chains_random():
    rng = random.Random(5)
    golds = [random_gold(rng, rng.randint(1, 8), chains=False) for _ in range(120)]
    assert sum(assert_gold_path_optimal_is_exact(gold) for gold in golds) > 1500


def test_gold_path_optimal_actions_are_exact_without_unary_chains_sample():
    golds = [gold for gold in sample_golds(2000) if gold.end <= 12 and not has_unary_chain(gold)]
    assert sum(assert_gold_path_optimal_is_exact(gold) for gold in golds) > 1000


# ------------------------------------------------------------------ every loss has an optimal action


LOSSES = [("in-order", "exact"), ("in-order", "paper"), ("in-order", "authors"), ("top-down", "exact"),
          ("top-down", "paper")]


@pytest.mark.parametrize("system_name, loss", LOSSES)
def test_every_step_has_a_cost_0_action_sample(system_name, loss):
    golds = [gold for gold in sample_golds(2000) if gold.end <= 8]
    assert walk_checking_an_optimal_action(get_constituency_system(system_name), loss, golds) > 1000


@pytest.mark.parametrize("system_name, loss", LOSSES)
def test_every_step_has_a_cost_0_action_random(system_name, loss):
    rng = random.Random(3)
    golds = [random_gold(rng, rng.randint(1, 7), chains=True) for _ in range(40)]
    assert walk_checking_an_optimal_action(get_constituency_system(system_name), loss, golds) > 500


def walk_checking_an_optimal_action(system, loss: str, golds: list[Node]) -> int:
    """Exploring walks (error rate 0.2): at every step some action costs 0 and none less; the number of steps."""
    steps = 0
    for position, gold in enumerate(golds, 1):
        labels = sorted({node.label for node in preorder(gold)}) + ["ZZ"]
        for step in annotate_tree(system, gold, labels, policy=Explore(0.2, 9), position=position, loss=loss):
            assert step.optimal and all(step.costs[a] == 0 for a in step.optimal), (gold, step.config)
            assert min(step.costs.values()) == 0
            steps += 1
    return steps
