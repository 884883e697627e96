"""Dynamic oracles of the constituency systems (Fernández-González & Gómez-Rodríguez 2018, §3) against exhaustive search.

The reference is ``treetool.oracles.constituency.search.min_loss`` (every final
configuration reachable under the systems' rules; its memo reductions are
tested against an unreduced search in tests/test_constituency_systems.py).
Labels: the gold labels plus one wrong label ``ZZ``. Limits: in-order with
Kparser's (3 chained unaries, no open limit); top-down with
``max_open_nts=3`` (at most 4 open non-terminals: with RNNG's 100 the search
is intractable; the exact loss checks the limit itself, see
``limits_may_bind``, and where it may bind the oracle's costs come from the
search). Exploring paths are chosen by the search alone (error rates 0.1 and
0.3). Verified here: every configuration on those paths, loss and every
legal action's cost, over every derivable sample tree of up to 6 words
(in-order 2,092 configurations, top-down 1,498) and 24 seeded random trees
of 1-6 words per system; 28-37 s CPU for the module (2026-11-23, loaded machine).
``benchmarks/constituency_exactness.py`` runs the same checks with more
random trees, other error rates and other open limits, and prints a table.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass, field

import pytest
from nltk import Tree

from treetool.oracles.constituency import from_nltk, get_constituency_system
from treetool.oracles.constituency.dynamic import ConstituencyOracle
from treetool.oracles.constituency.exact_loss import exact_loss, limits_may_bind
from treetool.oracles.constituency.gold_index import GoldIndex
from treetool.oracles.constituency.paper_loss import paper_loss
from treetool.oracles.constituency.search import gold_labels, min_loss, successors
from treetool.formats.ptb import read_ptb_file

from conftest import run_cli, shared_path

SYSTEMS = {"in-order": {}, "top-down": {"max_open_nts": 3}}
LABELS_EXTRA = ["ZZ"]


def sample_trees(max_words: int, min_words: int = 1) -> list:
    folder = shared_path("data", "ptb-sample")
    out = []
    for path in sorted(folder.glob("*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            if min_words <= len(tree.leaves()) <= max_words and len(tree) and not isinstance(tree[0], str):
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


def exploring_configurations(system, gold, paths=((0, 0.1), (1, 0.3))):
    """(configuration, reference loss, reference costs) on exploring paths chosen by exhaustive search alone.

    Each path follows a random optimal action, or with probability ``rate``
    a random non-optimal one; costs are ``min_loss(after) - min_loss(before)``.
    """
    labels = gold_labels(gold) + LABELS_EXTRA
    memo: dict = {}
    out = []
    for seed, rate in paths:
        rng = random.Random(f"{gold}:{seed}")
        config = system.initial(gold.end)
        while not system.is_final(config):
            base = min_loss(system, config, gold, labels, memo)
            moves = {action: (nxt, min_loss(system, nxt, gold, labels, memo) - base)
                     for action, nxt in successors(system, config, labels)}
            out.append((config, base, {action: cost for action, (_, cost) in moves.items()}))
            good = [nxt for nxt, cost in moves.values() if cost == 0]
            bad = [nxt for nxt, cost in moves.values() if cost != 0]
            config = rng.choice(bad) if bad and rng.random() < rate else rng.choice(good)
    return out


def random_trees(system, rng: random.Random, n: int, count: int) -> list:
    """``count`` derivable random trees of ``n`` words (fewer if 50 tries each do not find them)."""
    out = []
    for _ in range(50 * count):
        gold = from_nltk(random_tree(rng, n))
        if system.can_derive(gold):
            out.append(gold)
            if len(out) == count:
                break
    return out


@functools.lru_cache(maxsize=None)
def sample_cases(name: str, max_words: int) -> tuple:
    """(gold, configuration, loss, costs) on the exploring paths of every derivable sample tree of <= max_words."""
    system = get_constituency_system(name, **SYSTEMS[name])
    cases = []
    for gold in sample_trees(max_words):
        if system.can_derive(gold):
            cases.extend((gold, *case) for case in exploring_configurations(system, gold))
    return tuple(cases)


@dataclass
class Tally:
    """What :func:`check_cases` compared: configurations, action costs, where the search decided, mismatches."""

    configurations: int = 0
    actions: int = 0
    by_dp: int = 0  # configurations whose loss the exact loss answered (the limits cannot bind)
    fallback: int = 0  # configurations where limits_may_bind fired (the oracle's loss came from the search)
    fallback_needed: int = 0  # ... where the exact loss (which ignores the limits) is indeed not the loss
    fallback_actions: int = 0  # action costs whose successor's loss came from the search
    mismatches: list = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        for name in ("configurations", "actions", "by_dp", "fallback", "fallback_needed", "fallback_actions"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.mismatches += other.mismatches


def check_cases(system, cases) -> Tally:
    """Exact loss (where the limits cannot bind) and the oracle's costs (everywhere) against the references."""
    tally = Tally()
    oracles: dict = {}
    for gold, config, base, costs in cases:
        if gold not in oracles:
            oracles[gold] = ConstituencyOracle(system, gold, gold_labels(gold) + LABELS_EXTRA, max_length=None)
        oracle = oracles[gold]
        tally.configurations += 1
        tally.actions += len(costs)
        if limits_may_bind(system, config, oracle.gold):
            tally.fallback += 1
            tally.fallback_needed += exact_loss(config, oracle.gold) != base
        else:
            tally.by_dp += 1
            if exact_loss(config, oracle.gold) != base:
                tally.mismatches.append(("loss", gold, config))
        tally.fallback_actions += sum(limits_may_bind(system, system.apply(config, action), oracle.gold)
                                      for action in costs)
        if oracle.costs(config) != costs:
            tally.mismatches.append(("costs", gold, config))
    return tally


#: Configurations of sample_cases(name, 6) (issue 12: every sample tree of up to 6 words); at most this share may
#: be answered by the search fallback (measured 2026-11-23: in-order 0 of 2,092, top-down 259 of 1,498).
SAMPLE_SIZE = {"in-order": (2092, 0.0), "top-down": (1498, 0.2)}


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_equals_search_on_sample_trees(name):
    """Every sample tree of up to 6 words: the exact loss and every action's cost equal the search's."""
    system = get_constituency_system(name, **SYSTEMS[name])
    tally = check_cases(system, sample_cases(name, 6))
    assert not tally.mismatches, tally.mismatches[:3]
    configurations, fallback = SAMPLE_SIZE[name]
    assert tally.configurations == configurations and tally.fallback <= fallback * configurations


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_equals_search_on_random_trees(name):
    """Seeded random trees of 1-6 words (they nest deeper and chain more unaries than the sample's)."""
    system = get_constituency_system(name, **SYSTEMS[name])
    rng = random.Random(12)
    golds = [gold for n in range(1, 7) for gold in random_trees(system, rng, n, 4)]
    tally = check_cases(system, [(gold, *case) for gold in golds for case in exploring_configurations(system, gold)])
    assert not tally.mismatches, tally.mismatches[:3]
    assert len(golds) >= 20 and tally.configurations > 500 and tally.by_dp > 0.6 * tally.configurations


#: Share of configurations on the exploring paths of sample_cases(name, 4) where the paper's loss differs from search.
PAPER_DISAGREEMENT = {"in-order": (0.01, 0.25), "top-down": (0.01, 0.25)}


@pytest.mark.parametrize("name", SYSTEMS)
def test_paper_loss_disagreement_rate(name):
    system = get_constituency_system(name, **SYSTEMS[name])
    cases = sample_cases(name, 4)
    indexes = {gold: GoldIndex(gold, system) for gold in {case[0] for case in cases}}
    rate = sum(paper_loss(c, indexes[gold]) != base for gold, c, base, _ in cases) / len(cases)
    low, high = PAPER_DISAGREEMENT[name]
    assert low <= rate <= high, rate


# ------------------------------------------------------------------ corners (exact_loss module doc)

def corner(name: str, tree: str, actions: list[str], labels: list[str] | None = None):
    """The exact loss, the search's loss and the paper's loss after ``actions`` on ``tree``."""
    system = get_constituency_system(name, **SYSTEMS[name])
    gold = from_nltk(Tree.fromstring(tree))
    config = system.run(actions, gold.end)
    labels = labels or gold_labels(gold) + LABELS_EXTRA
    index = GoldIndex(gold, system)
    assert not limits_may_bind(system, config, index)
    return exact_loss(config, index), min_loss(system, config, gold, labels), paper_loss(config, index)


def test_corner_1_wrong_root_top_down():
    """NT(NP) as the root must span the sentence: never the gold (NP, 0, 2); the paper counts 0."""
    assert corner("top-down", "(S (NP (DT a) (NN b)) (VP (VB c)))", ["NT(NP)"]) == (1, 1, 0)


def test_corner_2_duplicate_opens_top_down():
    """Two open NP at 0 and one gold (NP, 0, 2): only one can match (the other is wrong)."""
    exact, search, _ = corner("top-down", "(S (NP (DT a) (NN b)) (VP (VB c)))", ["NT(S)", "NT(NP)", "NT(NP)", "SHIFT"])
    assert exact == search == 1


def test_corner_2_gold_unary_same_label():
    """Gold (NP (NP a b)): two copies of (NP, 0, 2); two open NP at 0 can both match."""
    tree = "(S (NP (NP (DT a) (NN b))) (VP (VB c)))"
    exact, search, _ = corner("top-down", tree, ["NT(S)", "NT(NP)", "NT(NP)", "SHIFT"])
    assert exact == search == 0


def test_corner_3_opens_at_buffer_top_down():
    """NT(NP) twice at b with one gold (NP, 1, 3) in the buffer: one is surplus (cost 1), none is lost."""
    tree = "(S (X (DT a)) (NP (DT b) (NN c)))"
    exact, search, _ = corner("top-down", tree, ["NT(S)", "NT(X)", "SHIFT", "REDUCE", "NT(NP)", "NT(NP)"])
    assert exact == search == 1


def test_corner_4_built_span_not_matched_again():
    """In-order: (NP, 0, 1) is built; PJ(NP) over it cannot be the gold (NP, 0, 1) a second time."""
    tree = "(S (NP (DT a)) (VP (VB b)))"
    exact, search, _ = corner("in-order", tree, ["SHIFT", "PJ(NP)", "REDUCE", "PJ(NP)"])
    assert exact == search == 1


def test_corner_5_shared_ends_top_down():
    """Open S, NP at 0 and a wrong VP at 1 (gold: NP (0, 2), VP (2, 4)): ends are shared.

    The VP must close before the NP does; closing both at 2 keeps NP right
    and lets a new VP (2, 4) be built: loss 1 (the wrong VP). Any later end
    for the NP makes it wrong too.
    """
    tree = "(S (NP (DT a) (NN b)) (VP (VB c) (NN d)))"
    exact, search, _ = corner("top-down", tree, ["NT(S)", "NT(NP)", "SHIFT", "NT(VP)", "SHIFT"])
    assert exact == search == 1


def test_corner_6_in_order_wrapper_bounded_by_open_below():
    """In-order: a gold constituent around the top item is buildable only if the open NTs above close in time."""
    tree = "(S (A (DT a) (NN b)) (C (DT c)))"
    exact, search, _ = corner("in-order", tree, ["SHIFT", "PJ(ZZ)", "SHIFT", "PJ(A)", "SHIFT"])
    assert exact == search


@pytest.mark.parametrize("chain", [3, 4])
def test_corner_7_in_order_unary_chains(chain):
    """In-order: a wrong unary chain of 3 (4) on the first child of the top open / on the top item."""
    tree = "(S (A (DT a) (NN b)) (C (DT c) (DT d)))"
    prefix = ["SHIFT"] + ["PJ(ZZ)", "REDUCE"] * chain
    for actions in (prefix + ["PJ(S)"], prefix + ["PJ(S)", "SHIFT", "PJ(A)", "SHIFT", "REDUCE"],
                    prefix + ["PJ(S)", "SHIFT"] + ["PJ(ZZ)", "REDUCE"] * chain):
        exact, search, _ = corner("in-order", tree, actions)
        assert exact == search, actions


def test_limits_never_bind_on_static_paths():
    """On the gold paths of the sample's short trees the DP answers everywhere (no search fallback)."""
    for name in ("top-down", "in-order"):
        system = get_constituency_system(name)
        for gold in sample_trees(12)[:150]:
            sequence = system.static_oracle(gold)
            if sequence is None:
                continue
            index = GoldIndex(gold, system)
            config = system.initial(gold.end)
            for action in sequence:
                assert not limits_may_bind(system, config, index), (name, gold, config)
                config = system.apply(config, action)


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
