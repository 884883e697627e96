"""The API a training loop wants (issue 23): action vocabularies, cost vectors, legal masks, children, checks.

Every expected vector is built here from the definitions: an action is legal
when ``system.apply`` takes it (in a labelled vocabulary, a label exactly
when it attaches a word), and its cost is ``loss(apply(c, a)) - loss(c)``
by the exhaustive search, for each labelled spelling separately, so the
rule for wrong labels (+1 when the head is right) is checked, not assumed.
"""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest

import treetool
import treetool.oracles.features
import treetool.oracles.vocabulary
from conftest import SAMPLE_DATA
from oracle_trees import all_trees, bf_projective, make, random_tree
from test_oracles_dynamic import all_configurations
from treetool.oracles import (
    ILLEGAL, Children, ConfigurationMismatch, Configuration, ExhaustiveSearch, IllegalAction, get_system,
)
from treetool.oracles.dynamic import exploring_walk
from treetool.oracles.configuration import parse_action

# (id, system spec, dynamic_oracle options, gold trees the oracle is exact for)
ORACLES = [
    ("arc-eager", ("arc-eager", {}), {}, "projective"),
    ("arc-eager-root-first", ("arc-eager", {"root": "first"}), {}, "projective"),
    ("arc-hybrid", ("arc-hybrid", {}), {}, "projective"),
    ("arc-hybrid-root-last", ("arc-hybrid", {"root": "last"}), {}, "projective"),
    ("nm-L", ("nm-arc-eager", {"variant": "L"}), {}, "projective"),
    ("nm-LD-root-first", ("nm-arc-eager", {"variant": "LD", "root": "first"}), {}, "projective"),
    ("nm-D-corrected", ("nm-arc-eager", {"variant": "D"}), {"published": False}, "projective"),
    ("nm-D-corrected-root-first", ("nm-arc-eager", {"variant": "D", "root": "first"}), {"published": False},
     "projective"),
    ("arc-standard", ("arc-standard", {}), {}, "any"),
    ("attardi-2", ("attardi", {"degree": 2}), {}, "any"),
    ("attardi-3", ("attardi", {"degree": 3}), {}, "any"),  # the exact search behind the generic path
    ("swap", ("swap", {}), {}, "any"),
]
VOCABULARY = ("a", "b", "c")  # "c" is never a gold label
GOLD_ALPHABET = ("a", "b", "z")  # "z" is missing from the vocabulary


def gold_trees(n: int, exact_for: str, rng: random.Random, count: int):
    trees = [t for t in all_trees(n) if exact_for == "any" or bf_projective(t)]
    return trees if len(trees) <= count else rng.sample(trees, count)


def expected_vector(system, actions, config, search) -> list[int]:
    """Legality by ``apply``, each spelling's cost by the exhaustive search (module doc)."""
    base = search.loss(config)
    out = []
    for spelling in actions:
        try:
            after = system.apply(config, spelling)
        except IllegalAction:
            out.append(ILLEGAL)
            continue
        labelled = parse_action(spelling)[2] is not None
        if actions.labels is not None and labelled != (after.heads != config.heads):
            out.append(ILLEGAL)  # a label on an action that attaches nothing, or none on one that does
        elif actions.labels is None:
            out.append(int(search.costs(config)[spelling]))  # the best labelling's cost
        else:
            out.append(int(search.loss(after) - base))
    return out


@pytest.mark.parametrize("name, spec, options, exact_for", ORACLES, ids=[o[0] for o in ORACLES])
def test_cost_vector_and_legal_mask_match_the_exhaustive_search(name, spec, options, exact_for):
    """Every labelled configuration (built arcs labelled a or b) of trees of up to 3 words (4 for a sample)."""
    system = make(spec)
    rng = random.Random(name)
    labelled, plain = system.actions(VOCABULARY), system.actions()
    checked = 0
    for n, count in ((1, 99), (2, 99), (3, 99), (4, 6)):
        configs = all_configurations(system, n, labeled=True)
        for tree in gold_trees(n, exact_for, rng, count):
            gold = ["", *(rng.choice(GOLD_ALPHABET) for _ in range(n))]
            oracle = system.dynamic_oracle(tree, gold, **options)
            search = ExhaustiveSearch(system, tree, gold)
            for config in configs if n < 4 else rng.sample(configs, min(len(configs), 120)):
                expected = expected_vector(system, labelled, config, search)
                vector = oracle.cost_vector(config, labelled)
                assert vector.dtype == np.intc and vector.itemsize == 4 and vector.tolist() == expected, (tree, gold, config)
                assert labelled.legal_mask(config).tolist() == [cost != ILLEGAL for cost in expected]
                expected = expected_vector(system, plain, config, search)
                assert oracle.cost_vector(config, plain).tolist() == expected, (tree, gold, config)
                assert plain.legal_mask(config).tolist() == [cost != ILLEGAL for cost in expected]
                checked += 1
    assert checked > 300


@pytest.mark.parametrize("name, spec, options, exact_for", ORACLES, ids=[o[0] for o in ORACLES])
def test_an_unlabelled_oracle_prices_every_label_alike(name, spec, options, exact_for):
    """No gold labels: the loss counts heads only, so each labelling of an arc costs what the search says for it."""
    system = make(spec)
    rng = random.Random(name)
    actions = system.actions(VOCABULARY)
    for n in (2, 3):
        configs = all_configurations(system, n, labeled=True)
        for tree in gold_trees(n, exact_for, rng, 8):
            oracle, search = system.dynamic_oracle(tree, **options), ExhaustiveSearch(system, tree)
            for config in configs:
                assert oracle.cost_vector(config, actions).tolist() == expected_vector(system, actions, config, search)


def test_vocabulary_order_is_the_documented_one():
    labels = ["nsubj", "obj"]
    assert get_system("arc-eager").actions(labels).actions == (
        "SH", "RE", "LA(nsubj)", "LA(obj)", "RA(nsubj)", "RA(obj)")
    assert get_system("arc-eager").actions().actions == ("SH", "LA", "RA", "RE")
    assert get_system("nm-arc-eager", variant="L").actions(labels).actions == (
        "SH", "RE", "LA(nsubj)", "LA(obj)", "RA(nsubj)", "RA(obj)")
    assert get_system("nm-arc-eager", variant="D").actions(labels).actions == (
        "SH", "RE", "LA(nsubj)", "LA(obj)", "RA(nsubj)", "RA(obj)", "RE(nsubj)", "RE(obj)")
    assert get_system("arc-hybrid").actions(labels).actions == ("SH", "LA(nsubj)", "LA(obj)", "RA(nsubj)", "RA(obj)")
    assert get_system("attardi", degree=2).actions(labels).actions == (
        "SH", "LA(nsubj)", "LA(obj)", "RA(nsubj)", "RA(obj)", "LA2(nsubj)", "LA2(obj)", "RA2(nsubj)", "RA2(obj)")
    assert get_system("attardi", degree=3).actions().actions == ("SH", "LA", "RA", "LA2", "RA2", "LA3", "RA3")
    assert get_system("swap").actions(labels).actions == ("SH", "SW", "LA(nsubj)", "LA(obj)", "RA(nsubj)", "RA(obj)")
    actions = get_system("arc-standard").actions(["x:y", "a"])
    assert len(actions) == 5 and actions[1] == "LA(x:y)" and actions.index("RA(a)") == 4 and list(actions)[0] == "SH"
    with pytest.raises(ValueError, match="RA"):
        actions.index("RA")  # an unlabelled spelling is not in a labelled vocabulary


def test_a_system_of_your_own_declares_its_transitions():
    """No action_kinds: no vocabulary. Declared: the exact search's vector, arcs found by the generic new_arc."""
    from example_system import MyArcStandard

    with pytest.raises(ValueError, match="declares no action_kinds"):
        MyArcStandard().actions()
    system = type("Declared", (MyArcStandard,), {"action_kinds": get_system("arc-standard").action_kinds})()
    actions = system.actions(VOCABULARY)
    for tree in all_trees(3):
        gold = ["", "a", "z", "b"]
        oracle, search = system.dynamic_oracle(tree, gold), ExhaustiveSearch(system, tree, gold)
        for config in all_configurations(system, 3, labeled=True):
            assert oracle.cost_vector(config, actions).tolist() == expected_vector(system, actions, config, search)


@pytest.mark.parametrize("labels, message", [
    ([], "no labels"), (["a", "a"], "not distinct"), ([""], "cannot be a label"), (["a\nb"], "cannot be a label"),
])
def test_vocabulary_refuses_bad_labels(labels, message):
    with pytest.raises(ValueError, match=message):
        get_system("arc-eager").actions(labels)


def test_a_vocabulary_of_another_system_is_refused():
    oracle = get_system("swap").dynamic_oracle([-1, 2, 0])
    config = get_system("swap").run(["SH", "SH"], 2)
    with pytest.raises(ConfigurationMismatch, match="vocabulary is one of arc-standard; the oracle prices swap"):
        oracle.cost_vector(config, get_system("arc-standard").actions())


def test_an_oracle_built_directly_refuses_a_vocabulary_without_its_transitions():
    from treetool.oracles import ArcEagerOracle

    oracle = ArcEagerOracle([-1, 2, 0])  # no system noted: the vocabulary's spellings are all it can check
    config = get_system("arc-eager").run(["SH", "RA"], 2)  # RE is legal: 2 has its head 1
    with pytest.raises(ValueError, match="no transition 'RE'"):
        oracle.cost_vector(config, get_system("arc-hybrid").actions())


SHE_EATS_FISH = ([-1, 2, 0, 2], ["", "nsubj", "root", "obj"])


@pytest.mark.parametrize("own, other", [
    (("arc-standard", {}), ("arc-hybrid", {})),  # the same spellings, another arc for LA
    (("arc-hybrid", {}), ("arc-standard", {})),
    (("arc-eager", {}), ("arc-eager", {"root": "first"})),
    (("nm-arc-eager", {"variant": "L"}), ("nm-arc-eager", {"variant": "LD"})),
    (("attardi", {"degree": 2}), ("attardi", {"degree": 3})),
    (("attardi", {"degree": 3}), ("arc-standard", {})),  # the exhaustive search
])
def test_a_vocabulary_of_another_system_with_the_same_spellings_is_refused(own, other):
    """arc-standard's LA attaches s1 to s0, arc-hybrid's s0 to b0: read with arc-hybrid's vocabulary, an
    arc-standard oracle priced the labels of the wrong word (LA(obj) cost 0 where s1 = 1 is the nsubj)."""
    system = get_system(own[0], **own[1])
    oracle = system.dynamic_oracle(*SHE_EATS_FISH)
    config = system.initial(3, labeled=True)
    config = system.apply(config, system.legal(config)[0])
    theirs = get_system(other[0], **other[1]).actions(["nsubj", "obj", "root"])
    with pytest.raises(ConfigurationMismatch, match="the action vocabulary is one of " + other[0]):
        oracle.cost_vector(config, theirs)
    ours = get_system(own[0], **own[1]).actions(["nsubj", "obj", "root"])  # another object, the same system
    assert len(oracle.cost_vector(config, ours)) == len(ours)


def test_cost_vector_wants_a_vocabulary():
    system = get_system("arc-eager")
    oracle = system.dynamic_oracle(*SHE_EATS_FISH)
    with pytest.raises(TypeError, match="actions must be an ActionVocabulary .*system.actions.*not list"):
        oracle.cost_vector(system.initial(3, labeled=True), ["SH", "RE", "LA(nsubj)"])


def test_cost_vector_is_a_new_array_each_call():
    system = get_system("arc-hybrid")
    actions = system.actions(["a"])
    oracle = system.dynamic_oracle([-1, 0], ["", "a"])
    config = system.initial(1, labeled=True)
    first = oracle.cost_vector(config, actions)
    first[:] = 7
    assert oracle.cost_vector(config, actions).tolist() == [0, ILLEGAL, ILLEGAL]


# --------------------------------------------------------------------------
# children
# --------------------------------------------------------------------------


def brute_children(heads, word):
    return [d for d in range(len(heads)) if heads[d] == word]


@pytest.mark.parametrize("spec", [o[1] for o in ORACLES], ids=[o[0] for o in ORACLES])
def test_children_equal_a_scan_of_the_heads(spec):
    """Every configuration of exploring walks (error rate 0.3), every word; walks interleaved so the index jumps."""
    system = make(spec)
    rng = random.Random(str(spec))
    children = Children()
    walks = []
    for n in (1, 4, 6, 6) if spec[0] == "swap" else (1, 4, 7, 9):  # swap: the exact search, of a few words
        oracle = system.dynamic_oracle(random_tree(n, rng))
        walks.append(list(exploring_walk(system, oracle, n, rng, 0.3)))
    configs = [config for walk in walks for config, _ in walk] + [config for config, _ in walks[2]][::-3]
    for config in configs:
        heads = config.heads
        for word in range(len(heads)):
            kids = brute_children(heads, word)
            left, right = [d for d in kids if d < word], [d for d in kids if d > word]
            for k in (1, 2, 3):
                assert children.leftmost(config, word, k) == (left[k - 1] if len(left) >= k else -1)
                assert children.rightmost(config, word, k) == (right[-k] if len(right) >= k else -1)
            assert children.left_count(config, word) == len(left)
            assert children.right_count(config, word) == len(right)
            assert children.count(config, word) == len(kids)
            assert children.children(config, word) == tuple(kids)


def test_children_follow_a_replaced_head():
    """nm-arc-eager L: a Left-Arc moves a word from one head's children to another's."""
    system = get_system("nm-arc-eager", variant="L")
    children = Children()
    config = system.run(["SH", "RA"], 3)  # 1 -> 2
    assert children.rightmost(config, 1) == 2
    config = system.apply(config, "LA")  # 3 -> 2 replaces it
    assert children.count(config, 1) == 0 and children.leftmost(config, 3) == 2


# --------------------------------------------------------------------------
# configurations that cannot belong to the oracle's sentence and system
# --------------------------------------------------------------------------

ROOT_FIRST = Configuration((0, 1), (2, 3), (-1, -1, -1, -1))
ROOT_LAST = Configuration((1,), (2, 3, 0), (-1, -1, -1, -1))


@pytest.mark.parametrize("name, options, good, bad, message", [
    ("arc-eager", {}, ROOT_LAST, ROOT_FIRST, "root-first configuration"),
    ("arc-eager", {"root": "first"}, ROOT_FIRST, ROOT_LAST, "root-last configuration"),
    ("nm-arc-eager", {}, ROOT_LAST, ROOT_FIRST, "root-first configuration"),
    ("nm-arc-eager", {"root": "first"}, ROOT_FIRST, ROOT_LAST, "root-last configuration"),
    ("arc-hybrid", {}, ROOT_FIRST, ROOT_LAST, "root-last configuration"),
    ("arc-hybrid", {"root": "last"}, ROOT_LAST, ROOT_FIRST, "root-first configuration"),
    ("arc-standard", {}, ROOT_FIRST, ROOT_LAST, "root-last configuration"),
    ("attardi", {"degree": 2}, ROOT_FIRST, ROOT_LAST, "root-last configuration"),
])
def test_a_configuration_of_the_other_root_position_is_refused(name, options, good, bad, message):
    oracle = get_system(name, **options).dynamic_oracle([-1, 2, 0, 2])
    oracle.costs(good)
    with pytest.raises(ConfigurationMismatch, match=message):
        oracle.costs(bad)
    with pytest.raises(ValueError):  # ConfigurationMismatch is one
        oracle.cost_vector(bad, get_system(name, **options).actions())


@pytest.mark.parametrize("spec", [o[1] for o in ORACLES], ids=[o[0] for o in ORACLES])
def test_another_length_a_head_on_the_root_and_unlabelled_configurations_are_refused(spec):
    system = make(spec)
    oracle = system.dynamic_oracle([-1, 2, 0, 2], ["", "a", "b", "a"])
    start = system.initial(3, labeled=True)
    oracle.costs(start)
    cases = [
        (system.initial(4, labeled=True), "has 4 words; the oracle's sentence has 3"),
        (start._replace(heads=(2, -1, -1, -1)), "the root 0 has a head"),
        (start._replace(labels=(None, None)), "2 labels for 3 words"),
        (system.initial(3), "unlabelled"),
    ]
    for config, message in cases:
        with pytest.raises(ConfigurationMismatch, match=message):
            oracle.costs(config)


@pytest.mark.parametrize("name, options", [("arc-eager", {}), ("arc-eager", {"root": "first"}), ("arc-hybrid", {}),
                                           ("nm-arc-eager", {"variant": "LD"}), ("arc-standard", {}),
                                           ("attardi", {"degree": 2})])
def test_arrangements_no_computation_reaches_are_refused(name, options):
    """The O(n) checks: a gap in the buffer, a stack out of order, a word in the buffer with a head, a word gone from
    both without one."""
    system = get_system(name, **options)
    oracle = system.dynamic_oracle([-1, 2, 0, 2, 3])
    first = system.initial(4).stack == (0,)
    bottom, end = ((0,), ()) if first else ((), (0,))
    cases = [
        (Configuration(bottom + (1,), (2, 4) + end, (-1,) * 5), "is not the words"),
        (Configuration(bottom + (2, 1), (3, 4) + end, (-1,) * 5), "increasing order"),
        (Configuration(bottom + (1,), (2, 3, 4) + end, (-1, -1, 1, -1, -1)), "in the buffer has a head"),
        (Configuration(bottom + (2,), (3, 4) + end, (-1, -1, -1, -1, -1)), "left the stack has no head"),
    ]
    for config, message in cases:
        with pytest.raises(ConfigurationMismatch, match=message):
            oracle.costs(config)


def test_exact_oracle_refuses_another_sentence():
    oracle = get_system("swap").dynamic_oracle([-1, 2, 0])
    with pytest.raises(ConfigurationMismatch, match="has 3 words"):
        oracle.costs(get_system("swap").initial(3))


# --------------------------------------------------------------------------
# the root position
# --------------------------------------------------------------------------


def test_root_first_arc_eager_rules():
    """Nivre (2008): the root never a dependent, arcs from it by RA; the computation ends with the buffer."""
    system = get_system("arc-eager", root="first")
    start = system.initial(2)
    assert (start.stack, start.buffer) == ((0,), (1, 2))
    assert system.legal(start) == ["SH", "RA"]
    after = system.apply(start, "RA")
    assert after.heads == (-1, 0, -1) and system.legal(after) == ["SH", "RA", "RE"]
    end = system.run(["SH", "SH"], 2)
    assert system.is_final(end) and system.legal(end) == []  # 1 and 2 stay headless
    with pytest.raises(IllegalAction, match="the root 0 cannot be a dependent"):
        system.apply(start, "LA")
    d = get_system("nm-arc-eager", variant="D", root="first")
    end = d.run(["SH", "SH"], 2)  # variant D reduces to [0] once the buffer is empty
    assert not d.is_final(end) and d.legal(end) == ["RE"]
    assert d.run(["SH", "SH", "RE", "RE"], 2).heads == (-1, 0, 1)


def test_root_last_arc_hybrid_rules():
    system = get_system("arc-hybrid", root="last")
    start = system.initial(2)
    assert (start.stack, start.buffer) == ((), (1, 2, 0))
    config = system.run(["SH", "SH", "RA"], 2)  # 1 -> 2; buffer [0]
    assert system.legal(config) == ["LA"]  # the root only onto an empty stack
    config = system.apply(config, "LA")
    assert system.legal(config) == ["SH"] and system.is_final(system.apply(config, "SH"))
    assert system.static_oracle([-1, 0, 1]) == ["SH", "SH", "RA", "LA", "SH"]


def test_root_option_is_refused_where_it_does_not_apply():
    with pytest.raises(ValueError, match="root must be one of first, last"):
        get_system("arc-eager", root="middle")
    with pytest.raises(ValueError, match="does not take option root"):
        get_system("arc-standard", root="first")


# --------------------------------------------------------------------------
# label inventory, doctests
# --------------------------------------------------------------------------


def test_labels_of_a_treebank():
    path = SAMPLE_DATA / "en_sample.conllu"
    expected = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            expected.add(fields[7])
    assert treetool.labels(path) == treetool.labels(str(path)) == sorted(expected)
    from treetool.treebank import read_treebank

    assert treetool.labels(read_treebank(str(path))) == sorted(expected)
    with pytest.raises(TypeError, match="dependency sentences"):
        treetool.labels(SAMPLE_DATA / "wsj_sample.mrg")


def test_the_doctests_hold():
    assert doctest.testmod(treetool.oracles.vocabulary).failed == 0
    assert doctest.testmod(treetool.oracles.features).failed == 0


def test_a_missing_word_has_no_children_and_a_word_outside_the_sentence_is_refused():
    """-1, what a query answers for a missing child, used to be read from the end of the heads: the last word's
    children (lc_1 of lc_1 of a word without a left child gave a child of word n)."""
    from treetool.oracles import Children

    system = get_system("arc-standard")
    config = system.run(["SH", "SH", "SH", "SH", "LA", "LA"], 4)  # 4 -> 3, 4 -> 2; word 1 alone
    children = Children()
    assert children.leftmost(config, 4) == 2 and children.leftmost(config, 1) == -1
    assert children.leftmost(config, children.leftmost(config, 1)) == -1  # not 2, word 4's leftmost child
    assert children.rightmost(config, -1) == -1
    assert (children.left_count(config, -1), children.right_count(config, -1), children.count(config, -1)) == (0, 0, 0)
    assert children.children(config, -1) == ()
    for word in (5, -2):
        for query in (children.leftmost, children.rightmost, children.left_count, children.right_count,
                      children.count, children.children):
            with pytest.raises(ValueError, match=f"word {word} is not in the configuration's sentence \\(0..4"):
                query(config, word)
