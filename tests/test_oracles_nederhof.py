"""Nederhof (2019) arc-standard oracle (oracles/nederhof.py) against exhaustive search, and its algorithms against each other.

References: ``ExactOracle`` (the exhaustive search, tested against brute force
in test_oracles_search.py / test_oracles_dynamic.py) for the strategy
``none``; the same search restricted by ``StrategyRestriction`` (the strategy's
definition, anchored at the configuration costed) for the other strategies.
"""

from __future__ import annotations

import random

import pytest

from conftest import shared_path
from oracle_trees import all_trees, bf_projective, random_interval_tree, random_nonprojective, random_tree, word_labels
from treetool.oracles import ExactOracle, get_system
from treetool.oracles.dynamic import exploring_walk
from treetool.oracles.nederhof import STRATEGIES, NederhofOracle, StrategyRestriction
from test_oracles_dynamic import all_configurations, random_projective
from treetool.budget import Budget, SentenceTimeout
from treetool.treebank import read_treebank
import treetool.oracles.nederhof as nederhof
from reference_nederhof import reference_score

SYSTEM = get_system("arc-standard")


def algorithms(tree) -> list[str]:
    return ["cubic", "quadratic", "linear"] if bf_projective(tree) else ["cubic"]


def restricted_costs(tree, labels, strategy, config):
    """Exact costs under ``strategy`` anchored at ``config`` (a fresh search: the restriction depends on the anchor)."""
    return ExactOracle(SYSTEM, tree, labels, restriction=StrategyRestriction(strategy, config)).costs(config)


def test_every_configuration_of_every_tree_up_to_4_words():
    """Every algorithm = exhaustive search, on every reachable configuration (arbitrary order) of every tree."""
    for n in range(1, 5):
        configs = [c for c in all_configurations(SYSTEM, n) if not SYSTEM.is_final(c)]
        for tree in all_trees(n):
            exact = SYSTEM.exact_oracle(tree)
            oracles = [NederhofOracle(tree, algorithm=a) for a in algorithms(tree)]
            for config in configs:
                expected = exact.costs(config)
                for oracle in oracles:
                    costs = oracle.costs(config)
                    assert costs == expected, (oracle.algorithm, tree, config)
                    assert all(type(c) is int for c in costs.values())


@pytest.mark.parametrize("strategy", STRATEGIES[1:])
def test_strategies_on_every_configuration_of_every_tree_up_to_3_words(strategy):
    for n in range(1, 4):
        configs = [c for c in all_configurations(SYSTEM, n) if not SYSTEM.is_final(c)]
        for tree in all_trees(n):
            oracles = [NederhofOracle(tree, algorithm=a, strategy=strategy) for a in algorithms(tree)]
            for config in configs:
                expected = restricted_costs(tree, None, strategy, config)
                assert all(o.costs(config) == expected for o in oracles), (tree, config)


def test_labelled_keys_and_costs():
    """With labels the costs are the unlabelled ones (future arcs take gold labels); keys carry the attached word's label."""
    for n in (2, 3):
        configs = [c for c in all_configurations(SYSTEM, n, labeled=True) if not SYSTEM.is_final(c)]
        for tree in all_trees(n):
            for labels in (["", *"ab"[:n]], ["", *"ba"[:n]]) if n == 2 else (["", "a", "b", "a"],):
                exact, oracle = SYSTEM.exact_oracle(tree, labels), SYSTEM.dynamic_oracle(tree, labels)
                for config in configs:
                    assert oracle.costs(config) == exact.costs(config), (tree, labels, config)
                    assert oracle.optimal(config) == exact.optimal(config)


def _walk_check(tree, labels, rng, strategies=STRATEGIES, error_rate=0.3, stride=1):
    """Along one exploring walk: every algorithm and strategy = (restricted) exhaustive search.

    The restricted search starts afresh at every configuration (its memo
    depends on the anchor), so strategies are checked on every ``stride``-th
    configuration only. Returns (configurations checked under left-before-right,
    those whose costs differ from none's).
    """
    n = len(tree) - 1
    exact = SYSTEM.exact_oracle(tree, labels, max_length=None)
    oracles = {(a, s): NederhofOracle(tree, labels, algorithm=a, strategy=s) for a in algorithms(tree) for s in strategies}
    alphabet = sorted(set(labels[1:])) if labels else ()
    walked = differ = 0
    for step, (config, costs) in enumerate(exploring_walk(SYSTEM, exact, n, rng, error_rate, alphabet)):
        for strategy in strategies:
            if strategy != "none" and step % stride:
                continue
            expected = costs if strategy == "none" else restricted_costs(tree, labels, strategy, config)
            for algorithm in algorithms(tree):
                assert oracles[algorithm, strategy].costs(config) == expected, (algorithm, strategy, tree, config)
            if strategy == "left-before-right":
                walked += 1
                differ += expected != costs
    return walked, differ


def test_all_trees_of_5_words_and_a_sample_of_6_along_exploring_walks():
    rng = random.Random(5)
    trees = list(all_trees(5)) + rng.sample(list(all_trees(6)), 60)
    for tree in trees:
        _walk_check(tree, None, rng, strategies=("none",))
    for tree in rng.sample(trees, 30):
        _walk_check(tree, None, rng, stride=2)


# Measured along exploring walks (error rate 0.3) over these random trees, every other configuration:
# configurations where left-before-right changes some cost relative to none (3.1%; the issue's
# "29 of 980" on random trees is 3.0%).
LBR_DIFFER = (3, 96)


def test_random_trees_up_to_9_words_every_strategy():
    rng = random.Random(9)
    trees = [random_projective(n, rng) for n in (7, 8, 9) for _ in range(2)]
    trees += [random_nonprojective(n, rng) for n in (7, 8, 9) for _ in range(2)]
    walked = differ = 0
    for i, tree in enumerate(trees):
        w, d = _walk_check(tree, word_labels(len(tree) - 1) if i % 2 else None, rng, stride=2)
        walked, differ = walked + w, differ + d
    assert (differ, walked) == LBR_DIFFER


def _real(folder, name, count, max_words=9, min_words=5):
    path = shared_path("data", "ud-2.2", folder, name)
    out = []
    for sentence in read_treebank(str(path)):
        if min_words <= sentence.n_words <= max_words:
            out.append((sentence.head_list, sentence.deprels))
            if len(out) == count:
                break
    return out


def test_real_sentences_up_to_9_words():
    rng = random.Random(3)
    sentences = _real("UD_English-EWT", "en_ewt-ud-dev.conllu", 4)
    sentences += [s for s in _real("UD_Ancient_Greek-PROIEL", "grc_proiel-ud-dev.conllu", 40)
                  if not bf_projective(s[0])][:4]
    assert any(not bf_projective(h) for h, _ in sentences)
    for heads, labels in sentences:
        _walk_check(heads, labels, rng, stride=3)


def test_algorithms_agree_on_long_real_sentences():
    """§8.2's own check beyond exhaustive search: identical scores on every configuration of exploring walks."""
    rng = random.Random(4)
    sentences = _real("UD_English-EWT", "en_ewt-ud-dev.conllu", 15, max_words=30, min_words=15)
    sentences = [s for s in sentences if bf_projective(s[0])][:6]
    for heads, labels in sentences:
        oracles = [NederhofOracle(heads, algorithm=a) for a in ("cubic", "quadratic", "linear")]
        for config, costs in exploring_walk(SYSTEM, oracles[2], len(heads) - 1, rng, 0.2):
            assert oracles[0].scores(config) == oracles[1].scores(config) == oracles[2].scores(config)


def test_static_path_costs_nothing_on_long_projective_sentences():
    for heads, labels in _real("UD_English-EWT", "en_ewt-ud-dev.conllu", 200, max_words=80, min_words=30)[:10]:
        if not bf_projective(heads):
            continue
        oracle = SYSTEM.dynamic_oracle(heads, labels)
        config = SYSTEM.initial(len(heads) - 1, labeled=True)
        for action in SYSTEM.static_oracle(heads, labels):
            assert oracle.costs(config)[action] == 0
            config = SYSTEM.apply(config, action)


# --------------------------------------------------------------------------
# the fast implementations against the plain ones (chart, kept items, restarts)
# --------------------------------------------------------------------------


def table2_scores(tree, strategy, config):
    """σ of each successor by the Table 2 transcription (tests/reference_nederhof.py), with §4's bans.

    After SH the old top takes no more left children (left-before-right,
    strict); after LA (s1 <- s0) s0 no more right children
    (right-before-left); strict bans left children of every stack word below
    the new top, and after RA of the new top s1 too.
    """
    stack, buffer = list(config.stack), list(config.buffer)
    strict = strategy == "strict"
    out = {}
    if buffer:
        banned = set(stack) if strict else set(stack[-1:]) if strategy == "left-before-right" else set()
        out["SH"] = reference_score(stack + buffer, len(stack), tree, frozenset(banned))
    if len(stack) > 1:
        s1, s0 = stack[-2], stack[-1]
        if s1 != 0:
            after = stack[:-2] + [s0]
            no_left = frozenset(stack[:-2]) if strict else frozenset()
            no_right = frozenset([s0]) if strategy == "right-before-left" else frozenset()
            out["LA"] = (tree[s1] == s0) + reference_score(after + buffer, len(after) - 1, tree, no_left, no_right)
        after = stack[:-1]
        no_left = frozenset(after) if strict else frozenset()
        out["RA"] = (tree[s0] == s1) + reference_score(after + buffer, len(after) - 1, tree, no_left)
    return out


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_cubic_chart_equals_table2_on_every_configuration_of_walks(strategy):
    """The chart (oracles/buffer_chart.py) = Table 2 as the paper states it, one oracle kept along each walk.

    Non-projective trees of 7 to 13 words (the cubic algorithm), and projective
    ones with the whole buffer (``reduce_critical=False``) and with §5's
    critical words (a chart per buffer), walked with errors.
    """
    rng = random.Random(11)
    trees = [random_nonprojective(n, rng) for n in range(7, 14)]
    trees += [random_interval_tree(n, rng) for n in (9, 12)]
    for tree in trees:
        options = [{"algorithm": "cubic"}] + ([{"algorithm": "cubic", "reduce_critical": False}]
                                             if bf_projective(tree) else [])
        for option in options:
            oracle = NederhofOracle(tree, strategy=strategy, **option)
            for config, _ in exploring_walk(SYSTEM, oracle, len(tree) - 1, rng, 0.3):
                assert oracle.scores(config) == table2_scores(tree, strategy, config), (tree, option, config)


def _walk_configurations(tree, rng, error_rate=0.3):
    exact = NederhofOracle(tree)
    return [config for config, _ in exploring_walk(SYSTEM, exact, len(tree) - 1, rng, error_rate)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_kept_items_equal_a_fresh_oracle_per_configuration(strategy):
    """One oracle asked along a walk, and asked in a shuffled order, = a new oracle for each configuration.

    The chart, x's tables and Table 5's items are kept between calls; a new
    oracle per configuration has nothing kept, so a stale value shows.
    """
    rng = random.Random(12)
    trees = [random_interval_tree(n, rng) for n in (8, 11, 14, 17)] + [random_nonprojective(n, rng) for n in (8, 11)]
    for tree in trees:
        for algorithm in algorithms(tree):
            configs = _walk_configurations(tree, rng)
            fresh = [NederhofOracle(tree, algorithm=algorithm, strategy=strategy).costs(c) for c in configs]
            kept = NederhofOracle(tree, algorithm=algorithm, strategy=strategy)
            assert [kept.costs(c) for c in configs] == fresh, (tree, algorithm)
            order = list(range(len(configs)))
            rng.shuffle(order)
            shuffled = NederhofOracle(tree, algorithm=algorithm, strategy=strategy)
            assert all(shuffled.costs(configs[i]) == fresh[i] for i in order), (tree, algorithm)


def test_kept_items_on_real_sentences():
    """As above on EWT sentences of 15 to 40 words, linear and quadratic (Table 5 kept per buffer), deeper stacks."""
    rng = random.Random(13)
    sentences = _real("UD_English-EWT", "en_ewt-ud-dev.conllu", 40, max_words=40, min_words=15)
    sentences = [heads for heads, _ in sentences if bf_projective(heads)][:8]
    for heads in sentences:
        configs = _walk_configurations(heads, rng, error_rate=0.2)
        for algorithm in ("linear", "quadratic"):
            kept = NederhofOracle(heads, algorithm=algorithm)
            for config in configs:
                assert kept.costs(config) == NederhofOracle(heads, algorithm=algorithm).costs(config), config


def _reference_side(tree, first):
    """§5's critical words of the buffer ``first..n`` by their definition, and their components, read off the tree."""
    n = len(tree) - 1

    def descendants(word):
        return [d for d in range(1, n + 1) if d != word and _dominates(tree, word, d)]

    buffer = range(first, n + 1)
    critical = [b for b in buffer if tree[b] < first or any(d < first for d in descendants(b))]
    root = {}
    for b in critical:
        top = b
        while tree[top] in critical:
            top = tree[top]
        root[b] = top
    attached = {}
    for b in critical:
        if tree[b] not in critical:
            attached.setdefault(tree[b], []).append(b)
    inner = sum(1 for b in critical if tree[b] in critical)
    return critical, root, inner, attached


def _dominates(tree, u, v):
    while v != -1:
        if v == u:
            return True
        v = tree[v]
    return False


def test_buffer_sides_follow_the_definition_of_critical_words():
    """The critical words, components (named by their root), M and attachments of every buffer (§5), against a
    direct reading of the definition: a buffer word is critical when its head or one of its descendants is not in
    the buffer."""
    rng = random.Random(21)
    trees = [t for n in range(1, 6) for t in all_trees(n) if bf_projective(t)]
    trees += [random_interval_tree(n, rng) for n in (12, 20, 30) for _ in range(3)]
    for tree in trees:
        oracle = NederhofOracle(tree)
        n = len(tree) - 1
        for first in range(1, n + 2):
            side = oracle._buffer_side(first if first <= n else None)
            assert (side.critical, side.root, side.inner, side.attached) == _reference_side(tree, first), (tree, first)


def _random_action_configurations(tree, rng):
    """The configurations of one computation taking uniformly random legal actions (any tree the system derives)."""
    config = SYSTEM.initial(len(tree) - 1)
    out = []
    while not SYSTEM.is_final(config):
        out.append(config)
        config = SYSTEM.apply(config, rng.choice(SYSTEM.legal(config)))
    return out


def test_tables_started_from_the_previous_buffer_equal_fresh_ones(monkeypatch):
    """A buffer's Table 5 started from the levels of the buffer before the SHIFT (``_Table5.rebased``) scores as a
    new oracle does, along computations of random actions (deep stacks, many wrong arcs) on random and real
    projective trees, in their order and shuffled; and levels were indeed kept, so the test reaches the reuse."""
    kept = []
    rebased = nederhof._Table5.rebased.__func__

    def counting(cls, before, shifted, side):
        table = rebased(cls, before, shifted, side)
        kept.append(len(table.words))
        return table

    monkeypatch.setattr(nederhof._Table5, "rebased", classmethod(counting))
    rng = random.Random(22)
    trees = [random_interval_tree(n, rng) for n in (8, 12, 16, 24) for _ in range(3)]
    trees += [heads for heads, _ in _real("UD_English-EWT", "en_ewt-ud-dev.conllu", 30, max_words=30, min_words=10)
              if bf_projective(heads)][:6]
    for tree in trees:
        configs = _random_action_configurations(tree, rng) + _walk_configurations(tree, rng, error_rate=0.1)
        for algorithm in ("linear", "quadratic"):
            fresh = [NederhofOracle(tree, algorithm=algorithm).costs(c) for c in configs]
            walked = NederhofOracle(tree, algorithm=algorithm)
            assert [walked.costs(c) for c in configs] == fresh, (tree, algorithm)
            order = list(range(len(configs)))
            rng.shuffle(order)
            shuffled = NederhofOracle(tree, algorithm=algorithm)
            assert all(shuffled.costs(configs[i]) == fresh[i] for i in order), (tree, algorithm)
    assert sum(1 for k in kept if k >= 3) > 100, kept


def test_a_shift_that_keeps_the_critical_words_keeps_the_table():
    """A SHIFT after which the buffer has the same critical words (§5) gives the new buffer the very table of the one
    before (``_kept_table``); its costs = a new oracle's, along computations of random actions and exploring walks on
    random and real projective trees, in their order and shuffled; and such shifts are reached."""
    rng = random.Random(26)
    shared = 0
    for tree in _projective_trees(rng):
        configs = _random_action_configurations(tree, rng) + _walk_configurations(tree, rng, error_rate=0.1)
        for algorithm in ("linear", "quadratic"):
            fresh = [NederhofOracle(tree, algorithm=algorithm).costs(c) for c in configs]
            walked = NederhofOracle(tree, algorithm=algorithm)
            for config, expected in zip(configs, fresh):
                assert walked.costs(config) == expected, (tree, algorithm, config)
                tables = list(walked._tables.values())
                shared += len(tables) - len({id(table) for table in tables})
            order = list(range(len(configs)))
            rng.shuffle(order)
            shuffled = NederhofOracle(tree, algorithm=algorithm)
            assert all(shuffled.costs(configs[i]) == fresh[i] for i in order), (tree, algorithm)
    assert shared > 100, shared


def _projective_trees(rng):
    """Random projective trees of 8 to 24 words and EWT dev sentences of 10 to 30 (when the data is there)."""
    trees = [random_interval_tree(n, rng) for n in (8, 12, 16, 24) for _ in range(3)]
    return trees + [heads for heads, _ in _real("UD_English-EWT", "en_ewt-ud-dev.conllu", 30, max_words=30,
                                                min_words=10) if bf_projective(heads)][:6]


def test_scores_after_reductions_read_off_the_stack_equal_fresh_tables():
    """σ after RA and LA read off the levels of the configuration's own stack (``_Table5.reduced_total``, p_ge of
    the reduced stack set for the evaluation) = ``total`` of the reduced stack in a new table, along computations of
    random actions and exploring walks on random and real projective trees; and the evaluations under a changed
    p_ge are reached."""
    rng = random.Random(23)
    changed = 0
    for tree in _projective_trees(rng):
        configs = _random_action_configurations(tree, rng) + _walk_configurations(tree, rng, error_rate=0.1)
        for algorithm in ("linear", "quadratic"):
            oracle = NederhofOracle(tree, algorithm=algorithm)
            for config in configs:
                stack = list(config.stack)
                first = config.buffer[0] if config.buffer else None
                side = oracle._buffer_side(first)
                for left in (False, True)[: 1 + bool(len(stack) > 2)]:
                    reduced = stack[:-2] + stack[-1:] if left else stack[:-1]
                    if not reduced:
                        continue
                    fresh = nederhof._Table5(side, oracle.gold, oracle._left_children, algorithm == "linear")
                    expected = fresh.total(reduced)
                    kept = oracle._kept_table(first)
                    assert kept.reduced_total(stack, left) == expected, (tree, algorithm, config, left)
                    below = len(reduced) - 1 if left else len(reduced)  # the levels whose p_ge may change
                    changed += fresh.p_ge[:below] != kept.p_ge[:below]
    assert changed > 100, changed


def test_items_in_state_n_equal_fresh_tables_whatever_lies_above():
    """Table 5's items score(i, j, N) are kept under a key without p_ge[j] (``_Table5`` doc): every one memoised
    along computations of random actions and exploring walks, in every kept table (levels shared across SHIFTs
    included), = the item evaluated in a new table holding the stack up to a_j only (its p_ge found without the words
    above); and items kept where the words above had changed p_ge[j] are reached."""
    rng = random.Random(24)
    checked = changed = 0
    for tree in _projective_trees(rng)[::2]:
        configs = _random_action_configurations(tree, rng) + _walk_configurations(tree, rng, error_rate=0.1)
        for algorithm in ("linear", "quadratic"):
            oracle = NederhofOracle(tree, algorithm=algorithm)
            for config in configs:
                oracle.costs(config)
                for table in oracle._tables.values():
                    span = table.span
                    for j, memo in enumerate(table.memo):
                        items = [(key, value) for key, value in memo.items() if 0 <= key < span]  # state N: key i
                        if not items:
                            continue
                        fresh = nederhof._Table5(table.side, oracle.gold, oracle._left_children, algorithm == "linear")
                        fresh.total(table.words[: j + 1])
                        for i, value in items:
                            assert fresh._evaluate(False, i, j, nederhof._N) == value, (tree, algorithm, config, i, j)
                        checked += len(items)
                        changed += len(items) * (fresh.p_ge[j] != table.p_ge[j])
    assert checked > 10_000 and changed > 1_000, (checked, changed)


def _steps(tree, rng):
    """(configuration, action, next configuration) along one computation of random legal actions."""
    config, out = SYSTEM.initial(len(tree) - 1), []
    while not SYSTEM.is_final(config):
        action = rng.choice(SYSTEM.legal(config))
        out.append((config, action, SYSTEM.apply(config, action)))
        config = out[-1][2]
    return out


def test_one_transition_is_recognised_and_nothing_else():
    """``_transition`` (which spares the O(n) ``check_arrangement`` of a configuration one step after the last) names
    the action between consecutive configurations of random computations, whatever head the reduction gives; every
    configuration it accepts passes ``check_arrangement``; any other change (a headless reduced word, another head, a
    buffer or stack not one step on, two steps) gives None."""
    from treetool.oracles.errors import ConfigurationMismatch
    from treetool.oracles.layout import check_arrangement

    rng = random.Random(24)
    for tree in [random_tree(n, rng) for n in (3, 6, 10, 15) for _ in range(3)]:
        n = len(tree) - 1
        steps = _steps(tree, rng)
        for (last, action, config), (_, _, later) in zip(steps, steps[1:] + [steps[-1]]):
            assert nederhof._transition(last, config, n) == action
            assert later is config or nederhof._transition(last, later, n) is None
            variants = []
            if action != "SH":
                word = last.stack[-1] if action == "RA" else last.stack[-2]
                heads = list(config.heads)
                heads[word] = rng.randrange(n + 1)
                assert nederhof._transition(last, config._replace(heads=tuple(heads)), n) == action
                check_arrangement(config._replace(heads=tuple(heads)), n, root_last=False)
                heads[word] = -1
                variants.append(config._replace(heads=tuple(heads)))
            others = [w for w in range(1, n + 1) if config.heads[w] == -1 and w not in config.stack[-1:]]
            if others:
                heads = list(config.heads)
                heads[rng.choice(others)] = 0
                variants.append(config._replace(heads=tuple(heads)))
            if config.buffer:
                variants.append(config._replace(buffer=config.buffer[1:]))
            if len(config.stack) > 1:
                variants.append(config._replace(stack=config.stack[:-2] + config.stack[-1:]))
            for variant in variants:
                assert nederhof._transition(last, variant, n) is None, (last, variant)
            for variant in variants[:1] if action != "SH" else []:
                with pytest.raises(ConfigurationMismatch):
                    check_arrangement(variant, n, root_last=False)


def test_critical_words_updated_from_the_previous_buffer_equal_fresh_ones():
    """The critical words of each buffer updated from those of the buffer one word longer (``_buffer_side``, first
    words in increasing order) = those found afresh (first words in decreasing order, nothing to update from)."""
    rng = random.Random(25)
    for tree in _projective_trees(rng):
        n = len(tree) - 1
        firsts = [*range(1, n + 1), None]
        updated, fresh = NederhofOracle(tree), NederhofOracle(tree)
        expected = {first: fresh._buffer_side(first) for first in reversed(firsts)}
        assert all(updated._buffer_side(first) == expected[first] for first in firsts), tree


def test_restarts_of_deep_recursions_change_nothing(monkeypatch):
    """Table 5's items restart from the deepest one past ``_MAX_DEPTH`` nested calls: with a depth of 2 they
    restart all the time, and every score is the one of the plain recursion (a depth no stack here reaches)."""
    rng = random.Random(14)
    cases = []
    for n in (20, 30):
        tree = random_interval_tree(n, rng)
        configs = _walk_configurations(tree, rng, error_rate=0.4)
        configs += [SYSTEM.run(["SH"] * k, n) for k in (n // 2, n)]
        for algorithm in ("linear", "quadratic"):
            cases.append((tree, algorithm, configs, [NederhofOracle(tree, algorithm=algorithm).scores(c)
                                                     for c in configs]))
    monkeypatch.setattr(nederhof, "_MAX_DEPTH", 2)
    for tree, algorithm, configs, expected in cases:
        oracle = NederhofOracle(tree, algorithm=algorithm)
        assert [oracle.scores(c) for c in configs] == expected, (tree, algorithm)


def test_auto_and_refusals():
    assert NederhofOracle([-1, 2, 0]).algorithm == "linear"
    tree = [-1, 3, 4, 0, 3]  # 3 -> 1 crosses 4 -> 2
    assert not bf_projective(tree)
    assert NederhofOracle(tree).algorithm == "cubic"
    for algorithm in ("quadratic", "linear"):
        with pytest.raises(ValueError, match="needs a projective gold tree"):
            NederhofOracle(tree, algorithm=algorithm)
    with pytest.raises(ValueError, match="strategy"):
        NederhofOracle(tree, strategy="greedy")
    assert SYSTEM.oracle_spec.exact_on == "any"
    assert isinstance(SYSTEM.dynamic_oracle(tree), NederhofOracle)


def test_budget_stops_the_cubic_algorithm():
    rng = random.Random(1)
    tree = random_nonprojective(60, rng)
    oracle = SYSTEM.dynamic_oracle(tree, budget=Budget(1e-6))
    config = SYSTEM.run(["SH"] * 3, 60)
    with pytest.raises(SentenceTimeout):
        oracle.costs(config)


def test_random_tree_helper_is_not_always_projective():
    rng = random.Random(2)
    assert not all(bf_projective(random_tree(8, rng)) for _ in range(20))


# --------------------------------------------------------------------------
# treetool annotate
# --------------------------------------------------------------------------

NONPROJECTIVE = "".join(f"{w}\tw{w}\t_\t_\t_\t_\t{h}\tdep\t_\t_\n" for w, h in zip(range(1, 5), (3, 4, 0, 3))) + "\n"
PROJECTIVE = "".join(f"{w}\tw{w}\t_\t_\t_\t_\t{h}\tdep\t_\t_\n" for w, h in zip(range(1, 4), (2, 0, 2))) + "\n"


def _annotate(tmp_path, text, *args):
    from conftest import run_cli

    path = tmp_path / "in.conllu"
    path.write_text(text)
    return run_cli("annotate", path, "--system", "arc-standard", "--format", "tsv", *args)


def test_cli_uses_nederhof_by_default_and_takes_algorithm_and_strategy(tmp_path):
    text = PROJECTIVE + NONPROJECTIVE
    default = _annotate(tmp_path, text, "--policy", "explore", "--error-rate", "0.5")
    assert default.returncode == 0 and default.stdout.count(b"\n") > 10
    for algorithm in ("cubic", "auto"):
        assert _annotate(tmp_path, text, "--policy", "explore", "--error-rate", "0.5",
                         "--algorithm", algorithm).stdout == default.stdout
    exact = _annotate(tmp_path, text, "--policy", "explore", "--error-rate", "0.5", "--oracle", "exact")
    assert exact.stdout == default.stdout
    assert _annotate(tmp_path, text, "--strategy", "strict").returncode == 0


def test_cli_projective_only_algorithm_on_a_non_projective_sentence_is_a_sentence_error(tmp_path):
    failed = _annotate(tmp_path, PROJECTIVE + NONPROJECTIVE, "--algorithm", "linear")
    assert failed.returncode == 2 and b"needs a projective gold tree" in failed.stderr
    assert b"Traceback" not in failed.stderr
    skipped = _annotate(tmp_path, PROJECTIVE + NONPROJECTIVE, "--algorithm", "quadratic", "--on-error", "skip")
    assert skipped.returncode == 0
    assert skipped.stdout == _annotate(tmp_path, PROJECTIVE, "--algorithm", "quadratic").stdout


@pytest.mark.parametrize("args, message", [
    (["--system", "arc-hybrid", "--strategy", "strict"], b"--strategy needs --system arc-standard"),
    (["--system", "arc-eager", "--algorithm", "cubic"], b"--algorithm needs --system arc-standard"),
    (["--system", "arc-standard", "--oracle", "exact", "--strategy", "strict"], b"--strategy needs"),
    (["--system", "arc-hybrid", "--max-states", "3"], b"--max-states acts only"),
    (["--system", "arc-standard", "--max-length", "3"], b"--max-length acts only"),
])
def test_cli_refuses_options_that_cannot_act(tmp_path, args, message):
    from conftest import run_cli

    path = tmp_path / "in.conllu"
    path.write_text(PROJECTIVE)
    result = run_cli("annotate", path, *args)
    assert result.returncode == 2 and message in result.stderr


def test_cli_max_seconds_bounds_the_cubic_algorithm(tmp_path):
    rng = random.Random(3)
    heads = list(random_nonprojective(70, rng))
    root = heads.index(0)
    heads = [h if h or w == root else root for w, h in enumerate(heads)]  # one root child, as CoNLL-U wants
    assert not bf_projective(heads)
    text = "".join(f"{w}\tw{w}\t_\t_\t_\t_\t{heads[w]}\tdep\t_\t_\n" for w in range(1, 71)) + "\n"
    result = _annotate(tmp_path, PROJECTIVE + text, "--max-seconds", "0.05")
    assert result.returncode == 0 and b"1 sentence ran out of --max-seconds" in result.stderr
    assert result.stdout == _annotate(tmp_path, PROJECTIVE).stdout
    failed = _annotate(tmp_path, PROJECTIVE + text, "--max-seconds", "0.05", "--on-timeout", "fail")
    assert failed.returncode == 2 and b"oracle:" in failed.stderr
