"""The degree-2 Attardi oracle of Gómez-Rodríguez, Sartorio & Satta 2014 (``treetool.oracles.tabular_loss``) against exhaustive search (issue 11).

The reference is ``system.exact_oracle`` (``treetool.oracles.search.ExhaustiveSearch``,
itself checked against plain enumeration in test_oracles_search.py): costs
straight from the definition loss(a(c)) - loss(c). Configurations come from
exploring walks (random errors, wrong labels) steered by the exact oracle,
so the sample does not depend on the oracle under test. Gold trees include
trees degree 2 cannot derive (checked with ``can_derive``), where the loss is
positive from the start.

Every configuration of every tree of up to 5 words (4.7 million) and
exploring walks over all 16,807 trees of 6 words were checked once the same
way (README, "Attardi degree-2 dynamic oracle"); too slow for a unit test,
which walks every tree of up to 5 words and a sample of 6.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import time

import pytest

from conftest import SAMPLE_DATA, run_cli, shared_path
from oracle_trees import all_trees, bf_projective, random_nonprojective, word_labels
from treetool.oracles import Configuration, get_system
from treetool.oracles.annotate import Explore, annotate_sentence
from treetool.oracles.dynamic import exploring_walk
from treetool.oracles.search import ExactOracle
from treetool.oracles.configuration import with_label
from treetool.oracles.tabular_loss import ANY_FIRST, AttardiDegree2Oracle, TabularLoss
from treetool.budget import Budget, SentenceTimeout
from treetool.treebank import read_treebank

SYSTEM = get_system("attardi", degree=2)


def differing(trees, rng, error_rate=0.3):
    """``(configurations whose costs differ from the exact ones, configurations, underivable trees)``."""
    differ = total = underivable = 0
    for heads, labels in trees:
        n = len(heads) - 1
        exact, fast = SYSTEM.exact_oracle(heads, labels, max_length=None), SYSTEM.dynamic_oracle(heads, labels)
        underivable += not SYSTEM.can_derive(heads)
        alphabet = sorted(set(labels[1:])) if labels else ()
        for config, costs in exploring_walk(SYSTEM, exact, n, rng, error_rate, alphabet):
            total += 1
            found = fast.costs(config)
            differ += found != costs or fast.optimal(config) != [a for a, c in costs.items() if c == 0]
    return differ, total, underivable


def test_dynamic_oracle_of_degree_2_is_the_tabular_one_and_others_the_search():
    assert isinstance(SYSTEM.dynamic_oracle([-1, 0]), AttardiDegree2Oracle)
    assert SYSTEM.oracle_spec.exact_on == "any" and SYSTEM.oracle_spec.published is not None
    with pytest.raises(TypeError):  # the tabular oracle takes no option (its spec lists none)
        SYSTEM.dynamic_oracle([-1, 0], max_length=10)
    for degree in (1, 3):
        system = get_system("attardi", degree=degree)
        assert isinstance(system.dynamic_oracle([-1, 0]), ExactOracle)
        assert system.oracle_spec.exact_on == "any" and system.oracle_spec.published is None


def test_every_tree_of_up_to_5_words_and_a_sample_of_6():
    rng = random.Random(1)
    trees = [(t, None) for n in range(1, 6) for t in all_trees(n)]
    six = list(all_trees(6))
    trees += [(t, None) for t in rng.sample(six, 200)]
    differ, total, underivable = differing(trees, rng)
    assert differ == 0 and total > 15000 and underivable > 30


def test_random_nonprojective_trees_of_7_to_9_words_labelled_half_the_time():
    rng = random.Random(2)
    trees = [random_nonprojective(n, rng) for n in (7, 8, 9) for _ in range(12)]
    labelled = [(t, word_labels(len(t) - 1) if i % 2 else None) for i, t in enumerate(trees)]
    differ, total, underivable = differing(labelled, rng)
    assert differ == 0 and total > 36 * 14 and underivable > 0


def _real_nonprojective(max_words=9):
    """Non-projective sentences of 4..9 words from the UD 2.2 files with the most degree-2 failures, with labels."""
    out, underivable = [], 0
    for folder, name in (("UD_Portuguese-Bosque", "pt_bosque-ud-train.conllu"),
                         ("UD_Ancient_Greek-PROIEL", "grc_proiel-ud-dev.conllu"),
                         ("UD_Greek-GDT", "el_gdt-ud-train.conllu")):
        taken = 0
        for sentence in read_treebank(str(shared_path("data", "ud-2.2", folder, name))):
            heads = sentence.head_list
            if 4 <= sentence.n_words <= max_words and not bf_projective(heads):
                derivable = SYSTEM.can_derive(heads)
                if taken >= 8 and derivable:
                    continue
                out.append((heads, sentence.deprels))
                underivable += not derivable
                taken += 1
                if taken >= 14:
                    break
    return out, underivable


def test_real_nonprojective_sentences_including_underivable_ones():
    sentences, underivable = _real_nonprojective()
    assert underivable >= 3  # loss >= 1 from the start: checked below
    for heads, labels in sentences:
        if not SYSTEM.can_derive(heads):
            oracle = SYSTEM.exact_oracle(heads)
            assert oracle.search.loss(SYSTEM.initial(len(heads) - 1)) >= 1
    differ, total, _ = differing(sentences, random.Random(3), error_rate=0.2)
    assert differ == 0 and total > 200


def test_long_sentences_static_path_is_optimal_and_the_loss_stays_zero():
    """Beyond exhaustive search: along the canonical sequence of a derivable tree every step costs 0."""
    path = shared_path("data", "ud-2.2", "UD_Greek-GDT", "el_gdt-ud-dev.conllu")
    checked = 0
    for sentence in read_treebank(str(path)):
        heads = sentence.head_list
        if not 15 <= sentence.n_words <= 30 or bf_projective(heads) or not SYSTEM.can_derive(heads):
            continue
        oracle = SYSTEM.dynamic_oracle(heads, sentence.deprels)
        config = SYSTEM.initial(sentence.n_words, labeled=True)
        for action in SYSTEM.static_oracle(heads, sentence.deprels):
            costs = oracle.costs(config)
            assert costs[action] == 0
            assert [with_label(a, None) for a in costs] == SYSTEM.legal(config)
            config = SYSTEM.apply(config, action)
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_buffer_reduction_of_the_papers_sample_run():
    """§5.4: the subtree of 7 over 5..12 collapses to 7 (its dependent 1 is on the stack); 13 stays."""
    # A tree with the properties the sample run states: 7 heads 5..12 (contiguous, complete), 1 <- 7,
    # 3 -> 2 built, 13 elsewhere.
    heads = [-1, 7, 3, 0, 3, 6, 7, 3, 9, 7, 9, 12, 7, 3]
    loss = TabularLoss(heads)
    assert loss.reduced_buffer((0, 1, 3, 4), 5) == [7, 13]
    # with 6 (a non-root node of the span) heading a stack node, the span is not bottom-up complete
    heads[4] = 6
    assert TabularLoss(heads).reduced_buffer((0, 1, 3, 4), 5) == [6, 7, 9, 12, 13]


def test_a_budget_bounds_the_oracle():
    """A random 40-word tree reduces nothing: the first table (after the first shift, the only action there) alone
    takes minutes; the budget stops it."""
    heads = random_nonprojective(40, random.Random(4))
    started = time.monotonic()
    with pytest.raises(SentenceTimeout):
        list(annotate_sentence(SYSTEM, heads, policy=Explore(0.5, 1), max_seconds=0.2))
    with pytest.raises(SentenceTimeout):
        SYSTEM.dynamic_oracle(heads, budget=Budget(0.2)).costs(SYSTEM.run(["SH"], 40))
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("policy", [["--policy", "static"], ["--policy", "explore", "--error-rate", "0.3"],
                                    ["--policy", "predicted", "--predicted", str(SAMPLE_DATA / "de_sample.conllu")]])
def test_annotate_uses_it_with_every_policy(policy):
    """Short sentences: every step's costs equal the exact ones; `--max-seconds` is accepted."""
    path = SAMPLE_DATA / "de_sample.conllu"
    result = run_cli("annotate", path, "--system", "attardi", "--degree", "2", "--labeled", "--max-seconds", "30",
                     *policy)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    trees = {s.identifier(i): s for i, s in enumerate(read_treebank(str(path)), 1)}
    checked = 0
    for record in records:
        sentence = trees[record["sent_id"]]
        if sentence.n_words > 8:
            continue
        config = Configuration(tuple(record["stack"]), tuple(record["buffer"]), tuple(record["heads"]),
                               tuple(record["labels"]))
        assert record["costs"] == SYSTEM.exact_oracle(sentence.head_list, sentence.deprels).costs(config)
        checked += 1
    assert checked > 0 and len(records) == sum(2 * s.n_words for s in trees.values())


def test_a_sentence_with_a_long_reduced_buffer_is_skipped_by_the_budget_not_a_traceback(tmp_path):
    """A random 1,000-word tree: ~1,000 nodes in the reduced buffer, no recursion; --max-seconds skips it."""
    rng = random.Random(1)
    rows = ["# sent_id = long"] + [f"{i}\tw\tw\tX\tX\t_\t{0 if i == 1 else rng.randrange(1, i)}\tdep\t_\t_"
                                   for i in range(1, 1001)]
    path = tmp_path / "long.conllu"
    path.write_text("\n".join(rows) + "\n\n")
    result = run_cli("annotate", path, "--system", "attardi", "--degree", "2", "--max-seconds", "1",
                     "-o", tmp_path / "out.jsonl")
    assert result.returncode == 0
    assert b"Traceback" not in result.stderr
    assert result.stderr.decode().strip() == "warning: 1 sentence ran out of --max-seconds 1 and was skipped: long"


def _future_loss(search, heads, config):
    """Exhaustive search's loss of ``config`` less the wrong arcs it has already built: the future loss."""
    built = sum(1 for d, h in enumerate(config.heads) if d and h != -1 and h != heads[d])
    return search.loss(config) - built


def _walked_configurations():
    """Configurations of exploring walks (steered by exhaustive search) over every tree of up to 4 words and samples of
    5 and 6 words, with each tree's search."""
    rng = random.Random(5)
    trees = [t for n in range(1, 5) for t in all_trees(n)]
    trees += rng.sample(list(all_trees(5)), 150) + rng.sample(list(all_trees(6)), 30)
    for heads in trees:
        exact = SYSTEM.exact_oracle(heads, max_length=None)
        for config, _ in exploring_walk(SYSTEM, exact, len(heads) - 1, rng, 0.3):
            yield heads, exact.search, config


def test_orphans_and_greedy_completion_bound_the_exhaustive_future_loss():
    """The pins of every action's value: orphans <= future loss <= greedy completion, equal where they meet."""
    checked = met = 0
    for heads, search, config in _walked_configurations():
        loss = TabularLoss(heads)
        b0 = config.buffer[0] if config.buffer else len(heads)
        future = _future_loss(search, heads, config)
        low, high = loss.orphans(config.stack, b0), loss.greedy_future(config.stack, b0)
        assert low <= future <= high, (heads, config)
        checked += 1
        met += low == high
    assert checked > 2000 and 0 < met < checked


def test_the_greedy_bound_gives_complete_words_without_their_gold_head_a_wrong_head_early():
    """Hand-checked configurations where waiting (the canonical greedy) costs more than the future loss."""
    # 2 <- 1 reduced (SH SH RA SH SH): 3 and 4 lost their gold head 2 and block 5 <- 1. Waiting: 5 -> 4, 4 -> 3,
    # 3 -> 1 (3 wrong); reducing 4 and 3 first: 2 wrong, which is the loss (both are orphans).
    heads = [-1, 0, 1, 2, 2, 1]
    search = SYSTEM.exact_oracle(heads, max_length=None).search
    config = SYSTEM.run(["SH", "SH", "RA", "SH", "SH"], 5)
    assert config.stack == (0, 1, 3, 4)
    assert TabularLoss(heads).greedy_future(config.stack, 5) == _future_loss(search, heads, config) == 2
    # 4 <- 1 with 2 and 3 between it and 1 (3 <- 2 must wait for 4 to go): waiting buries 5 <- 1 under 4 and ends
    # with 5 -> 4, 4 -> 3 (2 wrong); giving 4 a wrong head at once costs 1, the loss (no orphan).
    heads = [-1, 0, 1, 2, 1, 1]
    search = SYSTEM.exact_oracle(heads, max_length=None).search
    config = SYSTEM.run(["SH"] * 4, 5)
    loss = TabularLoss(heads)
    assert loss.orphans(config.stack, 5) == 0
    assert loss.greedy_future(config.stack, 5) == _future_loss(search, heads, config) == 1
    # 3 <- 6 crosses 2 <- 4 and 4 <- 1 beyond degree 2: when 6 comes, 4 and 5 (its head's ancestors) sit between 3
    # and 6. Waiting buries 7 <- 1 under them (2 wrong); giving 3 a wrong head when it is s0 costs 1, the loss.
    heads = [-1, 0, 4, 6, 1, 4, 5, 1]
    loss = TabularLoss(heads)
    assert SYSTEM.exact_oracle(heads).search.loss(SYSTEM.initial(7)) == loss.greedy_future((0,), 1) == 1
    assert sorted(loss._crossing_words()) == [2, 3, 4]


def test_a_bounded_table_finds_exactly_the_actions_within_its_bound():
    """Branch and bound (rest bounds, right orphans, free orphans): at bound b the table answers the actions of
    value <= b + orphans with their exact value and no other, for b below, at and above the exact values; merged
    (one tag), it answers the configuration's own future loss when that is within b + orphans."""
    checked = 0
    for heads, search, config in _walked_configurations():
        if SYSTEM.is_final(config):
            continue
        loss = TabularLoss(heads)
        stack, b0 = config.stack, (config.buffer[0] if config.buffer else len(heads))
        reduced = loss.reduced_buffer(stack, b0)
        orphans = loss.orphans(stack, b0)
        exact = {}  # loss(a(c)) + δ(a) for the actions c's own table serves (same reduced buffer)
        for action in SYSTEM.legal(config):
            after = SYSTEM.apply(config, action)
            after_b0 = after.buffer[0] if after.buffer else len(heads)
            same = [b0, *loss.reduced_buffer(after.stack, after_b0)] if action == "SH" else \
                loss.reduced_buffer(after.stack, after_b0)
            if same == reduced:
                dep = next((d for d in range(1, len(heads)) if after.heads[d] != config.heads[d]), None)
                arc = 0 if dep is None else int(after.heads[dep] != heads[dep])
                exact[action] = arc + _future_loss(search, heads, after)
        own = _future_loss(search, heads, config) - orphans
        for bound in range(0, 4):
            found = loss.first_action_losses(stack, list(stack) + reduced, dict.fromkeys(exact, bound))
            expected = {a: v - orphans for a, v in exact.items() if v - orphans <= bound}
            assert found == expected, (heads, config, bound)
            merged = loss.first_action_losses(stack, list(stack) + reduced, {ANY_FIRST: bound}, merged=True)
            assert merged == ({ANY_FIRST: own} if own <= bound else {}), (heads, config, bound)
            checked += 1
    assert checked > 8000


def _future_losses_by_definition(heads):
    """The future loss of every (stack, b0) of ``attardi --degree 2`` over ``heads``, straight from the transitions.

    future(stack, b0) = the fewest wrong arcs still to build (a word's arc is
    wrong when its head is not its gold head): 0 in the final configuration,
    else the best over SH, LA, RA, LA2, RA2 of the arc it builds plus the
    future of what it leads to. Independent of the search and of the oracle.
    """
    n = len(heads) - 1

    @functools.lru_cache(maxsize=None)
    def future(stack, b0):
        if len(stack) == 1 and b0 > n:
            return 0
        options = [future(stack + (b0,), b0 + 1)] if b0 <= n else []
        for k in (1, 2):
            if len(stack) <= k:
                break
            top, below = stack[-1], stack[-1 - k]
            if below:  # LAk: below <- top
                options.append((heads[below] != top) + future(stack[:-1 - k] + stack[-k:], b0))
            options.append((heads[top] != below) + future(stack[:-1], b0))  # RAk: below -> top
        return min(options)

    return future


def _every_state(n):
    """Every (stack, b0) of n words: the stack is 0 and any subset of the words before b0 (all are reachable)."""
    for b0 in range(1, n + 2):
        for size in range(b0):
            for words in itertools.combinations(range(1, b0), size):
                yield (0, *words), b0


def test_the_canonical_completion_meets_the_orphans_exactly_when_the_future_loss_does():
    """The lower bound of the oracle (TabularLoss.canonical_future): future loss == orphans iff the canonical
    completion's wrong arcs == orphans; every state of every tree of up to 5 words and of random trees of 7-9.
    Also: the orphans after a reduction, counted from those before, are the orphans counted afresh, and the
    reduction's future loss is at most c's plus the orphans it makes (AttardiDegree2Oracle._bounds)."""
    rng = random.Random(6)
    trees = [t for n in range(1, 6) for t in all_trees(n)]
    trees += [random_nonprojective(n, rng) for n in (7, 8, 9) for _ in range(15)]
    checked = failing = 0
    for heads in trees:
        future, loss, n = _future_losses_by_definition(heads), TabularLoss(heads), len(heads) - 1
        for stack, b0 in _every_state(n):
            orphans, canonical = loss.orphans(stack, b0), loss.canonical_future(stack, b0)
            assert orphans <= future(stack, b0) <= min(canonical, loss.greedy_future(stack, b0))
            assert (future(stack, b0) == orphans) == (canonical == orphans), (heads, stack, b0)
            failing += canonical > orphans
            checked += 1
            live = set(stack)
            for k in (1, 2):
                if len(stack) > k:
                    for dep, after in ((stack[-1], stack[:-1]), (stack[-1 - k], stack[:-1 - k] + stack[-k:])):
                        if dep:
                            made = loss.orphans_after_reduction(orphans, live, b0, dep) - orphans
                            assert made == loss.orphans(after, b0) - orphans
                            assert future(after, b0) <= future(stack, b0) + made, (heads, stack, b0, dep)
    assert checked > 100000 and failing > 15000


def test_costs_along_walks_with_one_oracle_equal_a_fresh_oracle_and_the_search():
    """The oracle remembers work between calls (greedy completions, successors' losses, buffer cells): along
    exploring walks over random non-projective trees of up to 9 words, labelled half the time, its costs equal
    those of a fresh oracle per configuration and the exhaustive search's; then the same configurations in a
    shuffled order to the first oracle, so nothing remembered depends on the order of the calls."""
    rng = random.Random(8)
    checked = 0
    for i, heads in enumerate(random_nonprojective(n, rng) for n in (4, 5, 6, 7, 8, 9) for _ in range(8)):
        labels = word_labels(len(heads) - 1) if i % 2 else None
        exact, kept = SYSTEM.exact_oracle(heads, labels, max_length=None), SYSTEM.dynamic_oracle(heads, labels)
        alphabet = sorted(set(labels[1:])) if labels else ()
        seen = []
        for config, costs in exploring_walk(SYSTEM, exact, len(heads) - 1, rng, 0.2, alphabet):
            assert kept.costs(config) == costs == SYSTEM.dynamic_oracle(heads, labels).costs(config), (heads, config)
            seen.append((config, costs))
            checked += 1
        rng.shuffle(seen)
        for config, costs in seen:
            assert kept.costs(config) == costs, (heads, config)
    assert checked > 48 * 8


def test_a_shift_of_b0_reads_its_loss_from_the_table_of_c_when_b0_starts_no_fragment():
    """c's table, tagged SH, gives loss(SH(c)) whenever b0 starts no fragment of c's reduced buffer, also where
    SH(c)'s own reduced buffer differs from c's less b0 (the oracle then builds no table of SH(c)); every state of
    every tree of up to 5 words and of random trees of 7-9, against the definition."""
    rng = random.Random(9)
    trees = [t for n in range(1, 6) for t in all_trees(n)]
    trees += [random_nonprojective(n, rng) for n in (7, 8, 9) for _ in range(15)]
    checked = 0
    for heads in trees:
        future, loss, n = _future_losses_by_definition(heads), TabularLoss(heads), len(heads) - 1
        for stack, b0 in _every_state(n):
            reduced = loss.reduced_buffer(stack, b0) if b0 <= n else None
            if not reduced or reduced[0] != b0 or loss.reduced_buffer(stack + (b0,), b0 + 1) == reduced[1:]:
                continue
            found = loss.first_action_losses(stack, list(stack) + reduced, {"SH": 2 * n})
            assert found["SH"] == future(stack + (b0,), b0 + 1) - loss.orphans(stack, b0), (heads, stack, b0)
            checked += 1
    assert checked > 3000
