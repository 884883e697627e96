"""Top-down and in-order systems: hand-checked sequences, replay, and exhaustive search vs the stated rules.

The derivable trees are enumerated independently (every tree over n words
with unary chains up to 5 long) and filtered by the conditions the docstrings
state; the exhaustive search over the systems' computations must reach
exactly those.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest
from nltk import Tree

from treetool.oracles.constituency import (
    Configuration, InOrder, Node, TopDown, from_nltk, get_constituency_system, postorder,
)
from treetool.oracles.constituency.search import derivable, exact_costs, hamming, min_loss, reachable_trees, successors
from treetool.oracles.constituency.tree import GoldTreeError, gold_and_tokens
from treetool.oracles.errors import IllegalAction
from treetool.formats.ptb import read_ptb_file, tree_to_line

from conftest import shared_path

# Fernández-González & Gómez-Rodríguez 2018, Figure 1 and the sequences of Figures 3 and 5 (SH, NT_X / PJ, RE, FI written out).
FIGURE_1 = "(S (NP (DT The) (NN public)) (VP (VBZ is) (ADVP (RB still)) (ADJP (JJ cautious))) (. .))"
FIGURE_3 = ["NT(S)", "NT(NP)", "SHIFT", "SHIFT", "REDUCE", "NT(VP)", "SHIFT", "NT(ADVP)", "SHIFT", "REDUCE",
            "NT(ADJP)", "SHIFT", "REDUCE", "REDUCE", "SHIFT", "REDUCE"]
FIGURE_5 = ["SHIFT", "PJ(NP)", "SHIFT", "REDUCE", "PJ(S)", "SHIFT", "PJ(VP)", "SHIFT", "PJ(ADVP)", "REDUCE",
            "SHIFT", "PJ(ADJP)", "REDUCE", "REDUCE", "SHIFT", "REDUCE", "TERM"]


def gold(text: str) -> Node:
    return from_nltk(Tree.fromstring(text))


def test_figures_3_and_5() -> None:
    tree = gold(FIGURE_1)
    assert TopDown().static_oracle(tree) == FIGURE_3
    assert InOrder().static_oracle(tree) == FIGURE_5
    assert set(postorder(tree)) == {("S", 0, 6), ("NP", 0, 2), ("VP", 2, 5), ("ADVP", 3, 4), ("ADJP", 4, 5)}


def test_replay_figure_5_stack() -> None:
    """The stack of Figure 5 after RE at step 13: [NP, S, is, VP, ADVP, ADJP] (NP, ADVP, ADJP built)."""
    config = InOrder().run(FIGURE_5[:13], 6)
    kinds = [type(item).__name__ for item in config.stack]
    assert kinds == ["Built", "Open", "Word", "Open", "Built", "Built"]
    assert config.built == (("NP", 0, 2), ("ADVP", 3, 4), ("ADJP", 4, 5))


@pytest.mark.parametrize("system", [TopDown(), InOrder()], ids=lambda s: s.name)
def test_static_oracle_replays_sample(system) -> None:
    folder = shared_path("data", "ptb-sample")
    for path in sorted(folder.glob("wsj_00[0-4]*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            node = from_nltk(tree)
            actions = system.static_oracle(node)
            if actions is None:
                continue
            final = system.replay(actions, node.end)
            assert final.built == tuple(postorder(node))


def test_gold_tree_errors() -> None:
    with pytest.raises(GoldTreeError):
        from_nltk(Tree.fromstring("(NN yes)"))
    with pytest.raises(GoldTreeError):
        from_nltk(Tree.fromstring("(NP the (NN cat))"))


def test_illegal_actions_named() -> None:
    with pytest.raises(IllegalAction) as err:
        TopDown().run(["SHIFT"], 1)
    assert err.value.step == 1
    with pytest.raises(IllegalAction):
        InOrder().run(["SHIFT", "PJ(X)", "PJ(Y)"], 2)  # PJ right after PJ
    with pytest.raises(IllegalAction):
        TopDown().run(["NT(S)", "SHIFT", "REDUCE"], 2)  # root closed with words left


# ------------------------------------------------------------------ independent enumeration of trees

def _trees(i: int, j: int, labels: list[str], max_chain: int, top: bool) -> list[tuple]:
    """Every tree over words i..j-1 as nested tuples (label, children...) / int words, chains up to max_chain."""
    bases: list = [i] if j == i + 1 else []
    for cuts in _splits(i, j):
        parts = [_trees(a, b, labels, max_chain, False) for a, b in zip(cuts, cuts[1:])]
        for children in itertools.product(*parts):
            bases.extend((label, *children) for label in labels)
    out = [b for b in bases if not (top and isinstance(b, int))]
    for base in bases:
        chain_level = [base]
        for _ in range(max_chain):
            chain_level = [(label, t) for t in chain_level for label in labels]
            out.extend(chain_level)
    return out


def _splits(i: int, j: int):
    """Boundaries of 2 or more children over [i, j)."""
    inner = range(i + 1, j)
    for k in range(1, j - i):
        for cut in itertools.combinations(inner, k):
            yield (i, *cut, j)


def _chain(t) -> tuple[int, object]:
    """Unary nodes chained on top of t, and its base."""
    k = 0
    while not isinstance(t, int) and len(t) == 2:
        k, t = k + 1, t[1]
    return k, t


def _in_order_ok(t, n: int) -> bool:
    """In-order rules (in_order.py docstring) as tree conditions: every maximal unary chain has length <= 4;
    a 4-chain ends before the last word and is not the last child of its parent."""
    def ok(t, end: int, last_child: bool) -> bool:
        k, base = _chain(t)
        if k > 4 or (k == 4 and (end == n or last_child)):
            return False
        if isinstance(base, int):
            return True
        children = base[1:]
        ends = list(itertools.accumulate(_width(c) for c in children))
        start = end - ends[-1]
        return all(ok(c, start + e, idx == len(children) - 1) for idx, (c, e) in enumerate(zip(children, ends)))
    return ok(t, n, True)


def _width(t) -> int:
    return 1 if isinstance(t, int) else sum(_width(c) for c in t[1:])


def _top_down_ok(t, max_open: int, depth: int = 0) -> bool:
    """Every constituent has at most max_open ancestors (RNNG: NT needs open <= MAX_OPEN_NTS)."""
    if isinstance(t, int):
        return True
    return depth <= max_open and all(_top_down_ok(c, max_open, depth + 1) for c in t[1:])


def _spans(t) -> tuple:
    node = from_nltk(Tree.fromstring(_bracket(t)))
    return tuple(postorder(node))


def _bracket(t) -> str:
    if isinstance(t, int):
        return f"(T w{t})"
    return f"({t[0]} {' '.join(_bracket(c) for c in t[1:])})"


@pytest.mark.parametrize("n,labels", [(1, ["A", "B"]), (2, ["A"]), (3, ["A"])])
def test_in_order_reachable_trees_are_the_stated_ones(n: int, labels: list[str]) -> None:
    every = _trees(0, n, labels, 5, top=True)
    expected = {_spans(t) for t in every if _in_order_ok(t, n)}
    assert reachable_trees(InOrder(), n, labels) == expected
    rejected = [t for t in every if not _in_order_ok(t, n)]
    assert rejected  # the limits bite on these sizes


@pytest.mark.parametrize("max_open", [0, 1, 2])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_top_down_reachable_trees_are_the_stated_ones(n: int, max_open: int) -> None:
    every = _trees(0, n, ["A"], 4, top=True)
    expected = {_spans(t) for t in every if _top_down_ok(t, max_open)}
    assert reachable_trees(TopDown(max_open_nts=max_open), n, ["A"]) == expected


def _random_tree(rng: random.Random, n: int, labels: str, chain_p: float) -> str:
    words = [f"(T w{i})" for i in range(n)]
    nodes = list(words)
    while len(nodes) > 1 or nodes[0].startswith("(T "):
        if len(nodes) > 1 and rng.random() < 0.7:
            k = rng.randint(0, len(nodes) - 2)
            m = rng.randint(2, min(4, len(nodes) - k))
            nodes[k:k + m] = [f"({rng.choice(labels)} {' '.join(nodes[k:k + m])})"]
        else:
            k = rng.randrange(len(nodes))
            nodes[k] = f"({rng.choice(labels)} {nodes[k]})"
        if rng.random() < chain_p:
            k = rng.randrange(len(nodes))
            nodes[k] = f"({rng.choice(labels)} {nodes[k]})"
    return nodes[0]


@pytest.mark.parametrize("system", [InOrder(), InOrder(max_unary=1), InOrder(max_unary=2), TopDown(max_open_nts=3)],
                         ids=lambda s: f"{s.name}{s.options() or ''}")
def test_static_oracle_succeeds_iff_derivable(system) -> None:
    rng = random.Random(12)
    seen = {True: 0, False: 0}
    for _ in range(150):
        node = gold(_random_tree(rng, rng.randint(1, 4), "AB", 0.5))
        ok = derivable(system, node)
        assert (system.static_oracle(node) is not None) == ok
        seen[ok] += 1
    assert seen[True] and seen[False]


@pytest.mark.parametrize("system", [InOrder(), InOrder(max_unary=0), InOrder(max_unary=1), InOrder(max_unary=2),
                                    TopDown(), TopDown(max_open_nts=0), TopDown(max_open_nts=2)],
                         ids=lambda s: f"{s.name}{s.options() or ''}")
def test_bracket_oracle_is_the_static_oracle(system) -> None:
    """The one-walk oracle (text, tags, words, actions) agrees with the Node-based static oracle, refusals
    included, on random trees with unary chains and on the sample."""
    rng = random.Random(7)
    texts = [_random_tree(rng, rng.randint(1, 6), "ABC", 0.5) for _ in range(300)]
    texts += [tree_to_line(tree) for path in sorted(shared_path("data", "ptb-sample").glob("wsj_00[0-1]*.mrg"))
              for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True)]
    refused = 0
    for text in texts:
        tree = Tree.fromstring(text)
        node, tags, words = gold_and_tokens(tree)
        walk = system.bracket_oracle(tree)
        assert (walk.text, walk.tags, walk.words) == (text, tags, words)
        assert walk.actions == system.static_oracle(node)
        refused += walk.actions is None
    assert refused or system.options() == {}


def test_bracket_oracle_refuses_what_from_nltk_refuses() -> None:
    for text, message in [("(NN yes)", "single preterminal"), ("(NP the (NN cat))", "bare word 'the'"),
                          ("(S (NP (NN a b)))", "bare word 'a'"), ("(S (NP (DT a)) b)", "bare word 'b'")]:
        with pytest.raises(GoldTreeError, match=message):
            TopDown().bracket_oracle(Tree.fromstring(text))
        with pytest.raises(GoldTreeError, match=message):
            from_nltk(Tree.fromstring(text))


def test_min_loss_hand_checked() -> None:
    """(S (A w0) w1): after SHIFT, PJ(B) the best is a wrong unary B under the gold A
    (B, then PJ(A) over it, then PJ(S)): loss 1, so PJ(B) costs 1 and PJ(A) 0."""
    node = gold("(S (A (T w0)) (T w1))")
    system = InOrder()
    assert min_loss(system, system.initial(2), node) == 0
    after = system.run(["SHIFT", "PJ(B)"], 2)
    assert min_loss(system, after, node, ["S", "A", "B"]) == 1
    costs = exact_costs(system, system.run(["SHIFT"], 2), node, ["S", "A", "B"])
    assert costs["PJ(A)"] == 0 and costs["PJ(B)"] == 1 and "REDUCE" not in costs


def _unreduced_losses(system, tree: Node, labels: list[str]) -> dict:
    """Every reachable configuration's loss by plain recursion on whole configurations (no memo reduction):
    the smallest Hamming distance between the gold spans and a reachable final configuration's."""
    spans = postorder(tree)
    losses: dict = {}

    def visit(config: Configuration) -> float:
        if config not in losses:
            here = [hamming(config.built, spans)] if system.is_final(config) else []
            losses[config] = min(here + [visit(nxt) for _, nxt in successors(system, config, labels)],
                                 default=math.inf)
        return losses[config]

    visit(system.initial(tree.end))
    return losses


REDUCTION_CASES = [  # (system, trees): small enough for the unreduced search; duplicates, unaries, both labels
    (TopDown(max_open_nts=1), ["(A (A (T a) (T b)))", "(A (B (T a) (T b)) (B (T c) (T d)))",
                               "(A (B (T a)) (A (T b) (T c)) (T d))"]),
    (TopDown(max_open_nts=2), ["(A (B (B (T a))) (T b))", "(A (T a) (A (T b) (T c)))"]),
    (InOrder(max_unary=0), ["(A (B (T a) (T b)) (T c))", "(A (T a) (B (T b) (T c)))"]),
    (InOrder(max_unary=1), ["(A (B (T a)) (T b))", "(A (B (B (T a)) (T b)))", "(A (A (T a) (T b)) (T c))"]),
    (InOrder(), ["(A (A (T a)))", "(B (A (A (T a))))"]),
]


@pytest.mark.parametrize("system,trees", REDUCTION_CASES, ids=lambda x: getattr(x, "name", None))
def test_min_loss_reductions_equal_unreduced_search(system, trees) -> None:
    """min_loss (memo keys reduced, search.py _Futures) = the unreduced search, on every reachable configuration,
    asked in a random order with one memo per tree (reductions that merge unequal futures would show)."""
    for text in trees:
        tree = gold(text)
        labels = sorted({label for label, _, _ in postorder(tree)}) + ["Z"]
        losses = _unreduced_losses(system, tree, labels)
        configs = list(losses)
        random.Random(text).shuffle(configs)
        memo: dict = {}
        for config in configs:
            assert min_loss(system, config, tree, labels, memo) == losses[config], (text, config)


def test_named_systems() -> None:
    assert get_constituency_system("top-down").static_oracle(gold("(S (T a))")) == ["NT(S)", "SHIFT", "REDUCE"]
    with pytest.raises(ValueError):
        get_constituency_system("bottom-up")
    assert Configuration((), 0, 1) == InOrder().initial(1)
