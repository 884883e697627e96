"""Dynamic oracles of the constituency systems (papers/001 §3) against exhaustive search.

The reference is ``oracles.constituency.search.min_loss`` (every final
configuration reachable under the systems' rules). Labels: the gold labels
plus one wrong label ``ZZ``. Limits: in-order with Kparser's (3 chained
unaries, no open limit); top-down with ``max_open_nts=3`` (at most 4 open
non-terminals: RNNG's 100 makes the search intractable; the exact loss checks
the limit itself, see ``limits_may_bind``).
"""

from __future__ import annotations

import functools
import json
import random

import pytest
from nltk import Tree

from oracles.constituency import from_nltk, get_constituency_system
from oracles.constituency.dynamic import ConstituencyOracle
from oracles.constituency.exact_loss import exact_loss, limits_may_bind
from oracles.constituency.gold_index import GoldIndex
from oracles.constituency.paper_loss import paper_loss
from oracles.constituency.search import gold_labels, min_loss, successors
from treetool.formats.ptb import read_ptb_file

from conftest import run_cli, shared_path

SYSTEMS = {"in-order": {}, "top-down": {"max_open_nts": 3}}


def sample_trees(max_words: int) -> list:
    folder = shared_path("data", "ptb-sample")
    out = []
    for path in sorted(folder.glob("*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            if len(tree.leaves()) <= max_words and len(tree) and not isinstance(tree[0], str):
                out.append(from_nltk(tree))
    return out


def random_tree(rng: random.Random, n: int) -> Tree:
    """A random tree over n words: random brackets, labels A/B, some unary nodes."""
    def build(lo: int, hi: int) -> Tree:
        if hi - lo == 1 and rng.random() < 0.5:
            node = Tree("P", [f"w{lo}"])
        else:
            cuts = sorted(rng.sample(range(lo + 1, hi), rng.randint(0, min(2, hi - lo - 1)))) if hi - lo > 1 else []
            bounds = [lo, *cuts, hi]
            kids = [build(a, b) if b - a > 1 or rng.random() < 0.5 else Tree("P", [f"w{a}"])
                    for a, b in zip(bounds, bounds[1:])]
            node = Tree(rng.choice("AB"), kids)
        if isinstance(node[0], Tree) and node.label() != "P" and rng.random() < 0.2:
            node = Tree(rng.choice("AB"), [node])
        return node
    tree = build(0, n)
    return tree if tree.label() != "P" else Tree("A", [tree])


def exploring_configurations(system, gold, seeds=2, error_rate=0.1):
    """(configuration, reference loss) on exploring paths: optimal actions by search, an error with p=0.1."""
    labels = gold_labels(gold) + ["ZZ"]
    memo: dict = {}
    out = []
    for seed in range(seeds):
        rng = random.Random(f"{gold}:{seed}")
        config = system.initial(gold.end)
        while not system.is_final(config):
            base = min_loss(system, config, gold, labels, None, memo)
            out.append((config, base))
            moves = [(nxt, min_loss(system, nxt, gold, labels, None, memo)) for _, nxt in successors(system, config, labels)]
            good = [c for c, loss in moves if loss == base]
            bad = [c for c, loss in moves if loss != base]
            config = rng.choice(bad) if bad and rng.random() < error_rate else rng.choice(good)
    return out


@functools.lru_cache(maxsize=None)
def sample_cases(name: str, max_words: int) -> tuple:
    system = get_constituency_system(name, **SYSTEMS[name])
    cases = []
    for gold in sample_trees(max_words):
        if system.can_derive(gold):
            index = GoldIndex(gold, system)
            cases.extend((config, base, index) for config, base in exploring_configurations(system, gold))
    return tuple(cases)


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_equals_search_on_sample_trees(name):
    system = get_constituency_system(name, **SYSTEMS[name])
    cases = sample_cases(name, 5)
    assert len(cases) > 200
    by_dp = [(c, base, g) for c, base, g in cases if not limits_may_bind(system, c, g, g.remaining(c.built)[0])]
    assert len(by_dp) > 0.8 * len(cases)  # the rest are answered by the search (limits may bind)
    wrong = [(c, base, exact_loss(c, g)) for c, base, g in by_dp if exact_loss(c, g) != base]
    assert not wrong, wrong[:3]


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_equals_search_on_random_trees(name):
    system = get_constituency_system(name, **SYSTEMS[name])
    rng = random.Random(12)
    checked = 0
    for _ in range(25):
        gold = from_nltk(random_tree(rng, rng.randint(1, 5)))
        if not system.can_derive(gold):
            continue
        index = GoldIndex(gold, system)
        for config, base in exploring_configurations(system, gold, seeds=1, error_rate=0.2):
            if not limits_may_bind(system, config, index, index.remaining(config.built)[0]):
                assert exact_loss(config, index) == base, (gold, config)
                checked += 1
    assert checked > 80


#: Share of configurations on exploring paths (trees of <= 5 words of the sample) where the paper's loss differs.
PAPER_DISAGREEMENT = {"in-order": (0.05, 0.20), "top-down": (0.04, 0.15)}


@pytest.mark.parametrize("name", SYSTEMS)
def test_paper_loss_disagreement_rate(name):
    cases = sample_cases(name, 5)
    rate = sum(paper_loss(c, g) != base for c, base, g in cases) / len(cases)
    low, high = PAPER_DISAGREEMENT[name]
    assert low <= rate <= high, rate


def test_wrong_root_corner_top_down():
    """NT(NP) as the root must span the sentence: it can never be the gold (NP, 0, 2); the paper counts 0."""
    system = get_constituency_system("top-down", max_open_nts=3)
    gold = from_nltk(Tree.fromstring("(S (NP (DT a) (NN b)) (VP (VB c)))"))
    config = system.apply(system.initial(3), "NT(NP)")
    index = GoldIndex(gold, system)
    assert min_loss(system, config, gold, ["S", "NP", "VP", "ZZ"]) == 1
    assert exact_loss(config, index) == 1
    assert paper_loss(config, index) == 0


def test_oracle_costs_cover_every_label():
    system = get_constituency_system("in-order")
    gold = from_nltk(Tree.fromstring("(S (NP (DT a) (NN b)) (VP (VB c)))"))
    oracle = ConstituencyOracle(system, gold, ["S", "NP", "VP", "ZZ"])
    config = system.apply(system.initial(3), "SHIFT")
    assert oracle.costs(config) == {"PJ(S)": 1, "PJ(NP)": 0, "PJ(VP)": 1, "PJ(ZZ)": 1}
    assert oracle.optimal(config) == ["PJ(NP)"]


def test_annotate_cli_jsonl(tmp_path):
    tree = tmp_path / "t.mrg"
    tree.write_text("( (S (NP (DT The) (NN cat)) (VP (VBD sat))) )\n")
    result = run_cli("annotate", tree, "--system", "in-order")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [r["action"] for r in records] == ["SHIFT", "PJ(NP)", "SHIFT", "REDUCE", "PJ(S)", "SHIFT", "PJ(VP)",
                                              "REDUCE", "REDUCE", "TERM"]
    fifth = records[4]
    assert fifth["stack"] == [{"label": "NP", "start": 0, "end": 2}] and fifth["buffer"] == 2
    assert fifth["built"] == [["NP", 0, 2]] and fifth["finished"] is False
    assert set(fifth["costs"]) == {"PJ(S)", "PJ(NP)", "PJ(VP)"} and fifth["optimal"] == ["PJ(S)"]
    top = run_cli("annotate", tree, "--system", "top-down", "--loss", "paper")
    first = json.loads(top.stdout.decode().splitlines()[1])
    assert first["stack"] == [{"open": "S"}] and "finished" not in first


def test_annotate_refuses_mismatched_inputs(tmp_path):
    tree = tmp_path / "t.mrg"
    tree.write_text("(S (NP (DT The) (NN cat)))\n")
    conll = tmp_path / "t.conllu"
    conll.write_text("1\tcat\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    dep = run_cli("annotate", tree, "--system", "arc-eager")
    assert dep.returncode == 2 and b"top-down or in-order" in dep.stderr
    con = run_cli("annotate", conll, "--system", "top-down")
    assert con.returncode == 2 and b"Penn Treebank" in con.stderr
    opt = run_cli("annotate", conll, "--system", "arc-eager", "--loss", "paper")
    assert opt.returncode == 2 and b"--loss needs a constituency system" in opt.stderr
