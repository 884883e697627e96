"""Input a training loop can get wrong is refused at the entry, with a message naming the fault.

Each case was silently accepted (or failed with a bare IndexError/TypeError deep inside) before: a gold head list
that is not a tree, a bare string as the label inventory, k < 1 for the k-th child, an action file spelling
missing from the given vocabulary, a negative sentence length, an nltk tree given to a constituency oracle.
The expected messages are written here from the inputs, not read off the code.
"""

from __future__ import annotations

import pytest

from treetool.oracles import get_system
from treetool.tree_check import check_tree

SYSTEMS = [
    ("arc-standard", {}),
    ("arc-eager", {}),
    ("arc-eager", {"root": "first"}),
    ("arc-hybrid", {}),
    ("nm-arc-eager", {}),
    ("nm-arc-eager", {"variant": "D", "root": "first"}),
    ("attardi", {}),
    ("attardi", {"degree": 3}),
    ("swap", {}),
]
SYSTEM_IDS = [name + "".join(f"-{v}" for v in options.values()) for name, options in SYSTEMS]

LABELS4 = ["", "a", "b", "c"]
# (id, heads, labels, what the message must say): each fault written out from the input
INVALID_TREES = [
    ("cycle", [-1, 2, 1, 2], LABELS4, r"cycle:? 1 -> 2 -> 1"),
    ("self-loop", [-1, 0, 2, 2], LABELS4, r"cycle:? 2 -> 2"),
    ("cycle-below-a-word", [-1, 0, 3, 2], LABELS4, r"cycle:? 2 -> 3 -> 2"),
    ("root-has-a-head", [0, 2, 0, 2], LABELS4, r"heads\[0\] must be -1"),
    ("head-too-large", [-1, 2, 7, 2], LABELS4, r"word 2's head 7 is out of range 0\.\.3"),
    ("head-negative", [-1, 2, 0, -3], LABELS4, r"word 3's head -3 is out of range 0\.\.3"),
    ("word-without-head", [-1, 2, -1, 2], LABELS4, r"word 2's head -1 is out of range 0\.\.3"),
    ("too-few-labels", [-1, 2, 0, 2], ["", "a", "b"], r"3 labels for 4 heads"),
    ("too-many-labels", [-1, 2, 0, 2], ["", "a", "b", "c", "d"], r"5 labels for 4 heads"),
]


def _entry_points(system):
    """Every public way of building an oracle (or asking derivability) for one gold tree."""
    return {
        "dynamic_oracle": lambda heads, labels: system.dynamic_oracle(heads, labels),
        "static_oracle": lambda heads, labels: system.static_oracle(heads, labels),
        "exact_oracle": lambda heads, labels: system.exact_oracle(heads, labels),
        "can_derive": lambda heads, labels: system.can_derive(heads),
    }


@pytest.mark.parametrize("spec", SYSTEMS, ids=SYSTEM_IDS)
@pytest.mark.parametrize("case", INVALID_TREES, ids=[c[0] for c in INVALID_TREES])
def test_every_oracle_refuses_a_gold_tree_that_is_not_one(spec, case):
    name, options = spec
    kind, heads, labels, message = case
    system = get_system(name, **options)
    for entry, build in _entry_points(system).items():
        if entry == "can_derive" and "labels" in kind:
            continue  # it takes no labels
        with pytest.raises(ValueError, match=message):
            build(heads, labels)


@pytest.mark.parametrize("case", INVALID_TREES, ids=[c[0] for c in INVALID_TREES])
def test_an_oracle_class_built_directly_refuses_it_too(case):
    """The check is the oracle's own, not its system's factory's: NederhofOracle is public."""
    from treetool.oracles import NederhofOracle

    _, heads, labels, message = case
    with pytest.raises(ValueError, match=message):
        NederhofOracle(heads, labels)


@pytest.mark.parametrize("spec", SYSTEMS, ids=SYSTEM_IDS)
def test_string_heads_are_a_type_error(spec):
    system = get_system(spec[0], **spec[1])
    for build in _entry_points(system).values():
        with pytest.raises(TypeError, match="heads must be integers"):
            build([-1, "2", "0", "2"], LABELS4)


def test_a_refused_gold_tree_is_an_oracle_error():
    from treetool.oracles import OracleError
    from treetool.oracles.errors import InvalidGoldTree

    with pytest.raises(InvalidGoldTree) as caught:
        get_system("arc-eager").dynamic_oracle([-1, 2, 1, 2], ["", "nsubj", "root", "obj"])
    assert isinstance(caught.value, OracleError) and isinstance(caught.value, ValueError)


def test_check_tree_accepts_trees_and_names_the_first_fault():
    for heads in ([-1], [-1, 0], [-1, 2, 0, 2], [-1, 0, 1, 2, 3, 3], [-1, 3, 3, 0, 3]):
        check_tree(heads)  # no error
    with pytest.raises(ValueError, match="heads\\[0\\] must be -1"):
        check_tree([])
    with pytest.raises(TypeError, match="heads must be integers, not 1.0"):
        check_tree([-1, 0, 1.0])  # in range, but not an index


@pytest.mark.parametrize("name", ["arc-standard", "arc-eager", "attardi", "swap"])
def test_a_bare_string_is_not_a_label_inventory(name):
    system = get_system(name)
    with pytest.raises(TypeError, match="labels must be a list of labels .*treetool.labels.*'nsubj'"):
        system.actions("nsubj")
    assert "LA(nsubj)" in system.actions(["nsubj"]).actions  # a list of one label is fine


@pytest.mark.parametrize("k", [0, -1])
def test_the_kth_child_counts_from_one(k):
    from treetool.oracles import Children

    system = get_system("arc-standard")
    config = system.run(["SH", "SH", "SH", "LA", "LA", "SH", "RA"], 4)  # 3 -> 1, 3 -> 2, 3 -> 4
    children = Children()
    for query in (children.leftmost, children.rightmost):
        for word in (3, 4):  # with children on that side (3 left), and without any (4)
            with pytest.raises(ValueError, match=f"k counts the children from 1 .*not {k}"):
                query(config, word, k)
    assert [children.leftmost(config, 3, k) for k in (1, 2, 3)] == [1, 2, -1]
    assert [children.rightmost(config, 3, k) for k in (1, 2)] == [4, -1]


def _chain(n):
    """The tree 0 -> 1 -> 2 -> ... -> n (labels "x")."""
    return [-1, *range(n)], ["", *["x"] * n]


@pytest.mark.parametrize("spec, longest", [(("swap", {}), 7), (("swap", {"order": "lazy"}), 7),
                                           (("attardi", {"degree": 3}), 10), (("attardi", {"degree": 1}), 10)])
def test_the_exact_search_refuses_what_annotate_refuses_by_default(spec, longest):
    """The library's default max_length is annotate's (7 for swap, 10 otherwise): one declared value per system."""
    from treetool.oracles import OracleUnavailable
    from treetool.oracles.annotate import annotate_sentence

    system = get_system(spec[0], **spec[1])
    assert system.exact_max_length == longest
    heads, labels = _chain(longest + 1)
    for build in (system.exact_oracle, system.dynamic_oracle, lambda h, l: list(annotate_sentence(system, h, l))):
        if build == system.dynamic_oracle and system.oracle_spec.published is not None:
            continue
        with pytest.raises(OracleUnavailable, match=f"limited to {longest} words; this sentence has {longest + 1}"):
            build(heads, labels)
    system.exact_oracle(*_chain(longest))  # the longest it takes: built (no search yet)
    system.exact_oracle(heads, labels, max_length=None)  # None lifts the limit


@pytest.mark.parametrize("spec", SYSTEMS, ids=SYSTEM_IDS)
def test_initial_takes_a_non_negative_int(spec):
    import numpy as np

    system = get_system(spec[0], **spec[1])
    with pytest.raises(ValueError, match="n, the number of words, must be a non-negative int, not -1"):
        system.initial(-1)
    for bad in ("3", 2.0, None):
        with pytest.raises(TypeError, match=f"n, the number of words, must be a non-negative int, not {bad!r}"):
            system.initial(bad)
    assert system.initial(np.int64(2), labeled=True).heads == (-1, -1, -1)  # numpy's ints are ints
    assert system.initial(0).heads == (-1,)


@pytest.mark.parametrize("name, expected", [
    ("in-order", "SHIFT PJ(NP) SHIFT REDUCE PJ(S) SHIFT PJ(VP) REDUCE REDUCE TERM"),  # first child, PJ(X), the rest
    ("top-down", "NT(S) NT(NP) SHIFT SHIFT REDUCE NT(VP) SHIFT REDUCE REDUCE"),  # NT(X), the children, REDUCE
])
def test_a_constituency_static_oracle_wants_the_node_tree(name, expected):
    nltk = pytest.importorskip("nltk")
    from treetool.oracles.constituency import from_nltk, get_constituency_system

    system = get_constituency_system(name)
    text = "(S (NP (DT The) (NN cat)) (VP (VBD sat)))"
    tree = nltk.Tree.fromstring(text)
    for raw, kind in ((tree, "Tree"), (text, "str")):
        with pytest.raises(TypeError, match=f"must be a Node tree: convert a {kind} with .*from_nltk"):
            system.static_oracle(raw)
    assert system.static_oracle(from_nltk(tree)) == expected.split()  # the converted tree, derived by hand


@pytest.mark.parametrize("name", ["top-down", "in-order"])
def test_the_constituency_search_refuses_beyond_the_systems_declared_length(name, monkeypatch):
    """The constituency systems declare their exact_max_length as the dependency ones do; the oracle's default
    max_length is that declaration (a subclass's own value is what counts), None lifts it."""
    from treetool.oracles import OracleUnavailable
    from treetool.oracles.constituency import from_nltk, get_constituency_system
    from treetool.oracles.constituency.dynamic import ConstituencyOracle
    from nltk import Tree

    system = get_constituency_system(name)
    assert system.exact_max_length == 10
    words = " ".join(f"(N w{i})" for i in range(5))
    gold = from_nltk(Tree.fromstring(f"(S {words})"))
    ConstituencyOracle(system, gold, ["S"], "search")  # 5 words: taken
    monkeypatch.setattr(type(system), "exact_max_length", 4)
    with pytest.raises(OracleUnavailable, match="limited to 4 words; this sentence has 5"):
        ConstituencyOracle(system, gold, ["S"], "search")
    ConstituencyOracle(system, gold, ["S"], "search", max_length=None)
