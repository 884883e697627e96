"""`treetool annotate` and the walker behind it (``treetool.oracles.annotate``).

Expected values come from outside the walker: the exhaustive search of
``treetool.oracles.search`` (costs and losses straight from the definitions), replaying
the actions taken through the system's own ``apply`` (the tree a walk ends
in), and counting by hand (Hamming distances, error rates, record shapes).
"""

from __future__ import annotations

import gzip
import json
import random

import pytest

from treetool.oracles import Configuration, ExhaustiveSearch, get_system
from treetool.oracles.annotate import Explore, Predicted, Static, annotate_sentence

from conftest import SAMPLE_DATA, run_cli as run
from oracle_trees import bf_projective, random_nonprojective, random_tree, rooted_tree, spec_id, word_labels

EN = SAMPLE_DATA / "en_sample.conllu"
KEYS = ["sent_id", "step", "stack", "buffer", "heads", "costs", "optimal", "action"]
SYSTEMS = [("arc-eager", {}), ("arc-hybrid", {}), ("nm-arc-eager", {"variant": "LD"}), ("arc-standard", {}),
           ("attardi", {"degree": 2}), ("swap", {})]




def conllu(trees: list[tuple[str | None, list[int], list[str] | None]]) -> str:
    """A CoNLL-U text of the given (sent_id, heads, labels) trees; labels default to "dep"."""
    out = []
    for sent_id, heads, labels in trees:
        if sent_id is not None:
            out.append(f"# sent_id = {sent_id}\n")
        for w in range(1, len(heads)):
            label = labels[w] if labels else ("root" if heads[w] == 0 else "dep")
            out.append(f"{w}\tw{w}\t_\t_\t_\t_\t{heads[w]}\t{label}\t_\t_\n")
        out.append("\n")
    return "".join(out)


def random_projective(n: int, rng: random.Random) -> tuple[int, ...]:
    while True:
        tree = random_tree(n, rng)
        if bf_projective(tree):
            return tree


def records(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def config_of(step) -> Configuration:
    return Configuration(tuple(step.stack), tuple(step.buffer), tuple(step.heads),
                         None if step.labels is None else tuple(step.labels))


def final_heads(system, actions, n) -> list[int]:
    return list(system.replay(actions, n).heads)


# ---------------------------------------------------------------- costs against the definition


@pytest.mark.parametrize("oracle", ["exact", "dynamic"])
@pytest.mark.parametrize("spec", SYSTEMS, ids=spec_id)
def test_every_step_has_the_exact_costs_of_every_legal_action(spec, oracle):
    system = get_system(spec[0], **spec[1])
    exact_for = system.oracle_spec.exact_on if oracle == "dynamic" else "any"
    rng = random.Random(5)
    for trial in range(12):
        n = rng.randint(1, 5 if spec[0] == "swap" else 7)
        if exact_for == "any":
            heads = random_tree(n, rng) if trial % 2 else random_nonprojective(max(n, 3), rng)
        else:  # exact for projective gold trees (the oracles' own tests pin the rest)
            heads = random_projective(n, rng)
        search = ExhaustiveSearch(system, heads)
        for step in annotate_sentence(system, heads, policy=Explore(0.4, trial), oracle=oracle):
            config = config_of(step)
            expected = {a: int(c) for a, c in search.costs(config).items()}
            assert step.costs == expected
            assert list(step.costs) == system.legal(config)
            assert step.optimal == [a for a in step.costs if expected[a] == 0]


@pytest.mark.parametrize("oracle", ["exact", "dynamic"])
@pytest.mark.parametrize("spec", SYSTEMS[:3], ids=spec_id)
def test_labelled_costs_price_each_arc_action_with_the_gold_label(spec, oracle):
    system = get_system(spec[0], **spec[1])
    rng = random.Random(7)
    for trial in range(8):
        n = rng.randint(2, 6)
        heads, labels = random_projective(n, rng), word_labels(n)
        search = ExhaustiveSearch(system, heads, labels)
        for step in annotate_sentence(system, heads, labels, policy=Explore(0.4, trial), oracle=oracle):
            config = config_of(step)
            assert [a.split("(")[0] for a in step.costs] == system.legal(config)
            for action, cost in step.costs.items():
                assert cost == search.costs(config, [action])[action]
            if "(" in step.action:  # a labelled arc action carries the gold label of the word it attaches
                after = system.apply(config, step.action)
                changed = [w for w in range(1, n + 1) if after.heads[w] != config.heads[w]]
                assert step.action.endswith(f"({labels[changed[0]]})")


# ---------------------------------------------------------------- policies


@pytest.mark.parametrize("spec", SYSTEMS, ids=spec_id)
def test_static_policy_on_a_derivable_tree_costs_nothing_and_ends_in_gold(spec):
    system = get_system(spec[0], **spec[1])
    rng = random.Random(11)
    for _ in range(10):
        n = rng.randint(1, 5 if spec[0] == "swap" else 8)
        heads = random_tree(n, rng)
        if not system.can_derive(heads):
            continue
        steps = list(annotate_sentence(system, heads, policy=Static(), oracle="exact"))
        assert all(s.costs[s.action] == 0 for s in steps)
        assert final_heads(system, [s.action for s in steps], n) == list(heads)


def test_static_policy_on_an_underivable_tree_takes_the_first_optimal_action():
    system = get_system("arc-hybrid")
    heads = [-1, 3, 4, 0, 3]  # 1 <- 3 crosses 2 <- 4
    assert not bf_projective(heads)
    search = ExhaustiveSearch(system, heads)
    steps = list(annotate_sentence(system, heads, policy=Static(), oracle="exact"))
    for step in steps:
        costs = search.costs(config_of(step))
        assert step.action == next(a for a in system.legal(config_of(step)) if costs[a] == 0)
    wrong = sum(h != g for h, g in zip(final_heads(system, [s.action for s in steps], 4)[1:], heads[1:]))
    assert wrong == search.loss(system.initial(4)) == 1


def test_explore_error_rate_is_close_to_p():
    system = get_system("arc-hybrid")
    rng = random.Random(3)
    p, offered, taken = 0.25, 0, 0
    for position in range(1, 330):
        heads = random_tree(rng.randint(4, 8), rng)
        search = ExhaustiveSearch(system, heads)
        for step in annotate_sentence(system, heads, policy=Explore(p, 9), position=position, oracle="exact"):
            costs = search.costs(config_of(step))
            if any(c > 0 for c in costs.values()):
                offered += 1
                taken += costs[step.action] > 0
    assert offered > 1500
    assert abs(taken / offered - p) < 0.04  # about 3.5 standard deviations


def test_explore_streams_depend_on_seed_and_position_only():
    system = get_system("arc-eager")
    heads = random_tree(9, random.Random(1))

    def taken(seed, position):
        return [s.action for s in annotate_sentence(system, heads, policy=Explore(0.5, seed), position=position,
                                                    oracle="exact")]

    assert taken(4, 2) == taken(4, 2)
    assert len({tuple(taken(4, position)) for position in range(1, 6)}) > 1
    assert len({tuple(taken(seed, 1)) for seed in range(5)}) > 1


def test_predicted_policy_derives_the_predicted_tree_and_prices_steps_against_gold():
    system = get_system("arc-hybrid")
    rng = random.Random(2)
    done = 0
    while done < 12:
        n = rng.randint(3, 8)
        gold, guess = random_tree(n, rng), random_tree(n, rng)
        if not (bf_projective(gold) and bf_projective(guess)):
            continue
        steps = list(annotate_sentence(system, gold, policy=Predicted(guess), oracle="exact"))
        assert final_heads(system, [s.action for s in steps], n) == list(guess)
        search = ExhaustiveSearch(system, gold)
        for step in steps:
            assert step.costs == {a: int(c) for a, c in search.costs(config_of(step)).items()}
        # gold derivable: loss 0 at the start, so the costs taken add up to the words the guess gets wrong
        assert sum(s.costs[s.action] for s in steps) == sum(g != h for g, h in zip(gold[1:], guess[1:]))
        for step in steps:  # arc-hybrid is monotonic: a wrong arc built where all could still be right is a loss
            built = system.apply(config_of(step), step.action).heads
            if search.loss(config_of(step)) == 0 and any(h >= 0 and h != gold[d] for d, h in enumerate(built) if d):
                assert step.costs[step.action] > 0
        done += 1


# ---------------------------------------------------------------- the command


def test_jsonl_records_have_exactly_the_specified_keys_and_shapes(tmp_path):
    path = tmp_path / "g.conllu"
    path.write_text(conllu([("a", [-1, 2, 0, 2], None), ("b", [-1, 0], None)]))
    result = run("annotate", path, "--system", "arc-hybrid", "--oracle", "exact")
    assert result.returncode == 0, result.stderr
    out = records(result.stdout)
    assert [r["sent_id"] for r in out] == ["a"] * 6 + ["b"] * 2  # arc-hybrid: 2n steps
    for r in out:
        assert list(r) == KEYS
        assert len(r["heads"]) == (4 if r["sent_id"] == "a" else 2) and r["heads"][0] == -1
    assert [r["step"] for r in out] == [1, 2, 3, 4, 5, 6, 1, 2]
    assert out[0]["stack"] == [0] and out[0]["buffer"] == [1, 2, 3] and out[0]["heads"] == [-1, -1, -1, -1]
    assert out[0]["costs"] == {"SH": 0} and out[0]["optimal"] == ["SH"] and out[0]["action"] == "SH"


@pytest.mark.parametrize("labeled", [[], ["--labeled"]], ids=["unlabeled", "labeled"])
def test_jsonl_is_what_json_dumps_writes(tmp_path, labeled):
    path = tmp_path / "g.conllu"
    path.write_text(conllu([('id "with" quotes \\ é', [-1, 2, 0, 2], ["", "a\"b", "root", "é:x"])]))
    lines = run("annotate", path, "--system", "nm-arc-eager", "--policy", "explore", "--error-rate", "0.5",
                *labeled).stdout.decode().splitlines()
    assert lines and all(json.dumps(json.loads(line), ensure_ascii=False) == line for line in lines)
    assert json.loads(lines[0])["sent_id"] == 'id "with" quotes \\ é'


def test_labeled_adds_labels_and_labelled_actions(tmp_path):
    path = tmp_path / "g.conllu"
    path.write_text(conllu([("a", [-1, 2, 0], ["", "nsubj", "root"])]))
    out = records(run("annotate", path, "--system", "arc-hybrid", "--labeled", "--oracle", "exact").stdout)
    assert list(out[0]) == KEYS[:5] + ["labels"] + KEYS[5:]
    assert [r["action"] for r in out] == ["SH", "LA(nsubj)", "SH", "RA(root)"]
    assert out[3]["labels"] == [None, "nsubj", None] and out[3]["heads"] == [-1, 2, -1]


def test_tsv_lines(tmp_path):
    path = tmp_path / "g.conllu"
    path.write_text(conllu([("a", [-1, 2, 0], None)]))
    lines = run("annotate", path, "--system", "arc-hybrid", "--format", "tsv").stdout.decode().splitlines()
    assert lines == ["a\t1\tSH\tSH\tSH=0", "a\t2\tLA\tLA\tSH=2 LA=0 RA=1", "a\t3\tSH\tSH\tSH=0", "a\t4\tRA\tRA\tRA=0"]


def test_explore_bytes_depend_on_the_seed_and_positions_within_each_file(tmp_path):
    rng = random.Random(8)
    trees = [(f"s{i}", rooted_tree(rng.randint(4, 7), rng), None) for i in range(6)]
    first, second = tmp_path / "a.conllu", tmp_path / "b.conllu"
    first.write_text(conllu(trees[:3]))
    second.write_text(conllu(trees[3:]))
    args = ["--system", "arc-eager", "--policy", "explore", "--error-rate", "0.3", "--seed", "5", "--oracle", "exact"]
    whole = run("annotate", first, second, *args).stdout
    assert whole == run("annotate", first, second, *args).stdout
    assert whole == run("annotate", first, *args).stdout + run("annotate", second, *args).stdout
    assert whole != run("annotate", first, second, *args[:-3], "6", "--oracle", "exact").stdout
    same_tree = tmp_path / "same.conllu"
    same_tree.write_text(conllu([(f"t{i}", trees[0][1], None) for i in range(4)]))
    taken = {}
    for r in records(run("annotate", same_tree, *args).stdout):
        taken.setdefault(r["sent_id"], []).append(r["action"])
    assert len({tuple(actions) for actions in taken.values()}) > 1


def test_gz_output(tmp_path):
    target = tmp_path / "steps.jsonl.gz"
    plain = run("annotate", EN, "--system", "arc-hybrid", "--on-error", "skip").stdout
    assert run("annotate", EN, "--system", "arc-hybrid", "--on-error", "skip", "-o", target).returncode == 0
    assert gzip.decompress(target.read_bytes()) == plain and plain


def test_predicted_command_follows_the_predicted_trees(tmp_path):
    gold, guess = tmp_path / "gold.conllu", tmp_path / "guess.conllu"
    gold.write_text(conllu([("a", [-1, 2, 0, 2], None), ("b", [-1, 0, 1], None)]))
    guess.write_text(conllu([("a", [-1, 0, 1, 2], None), ("b", [-1, 0, 1], None)]))
    result = run("annotate", gold, "--system", "arc-hybrid", "--policy", "predicted", "--predicted", guess)
    assert result.returncode == 0, result.stderr
    out = [r for r in records(result.stdout) if r["sent_id"] == "a"]
    system = get_system("arc-hybrid")
    assert final_heads(system, [r["action"] for r in out], 3) == [-1, 0, 1, 2]
    assert sum(r["costs"][r["action"]] for r in out) == 2  # words 1 and 3 get a wrong head


@pytest.mark.parametrize("guess_trees,message", [
    ([("a", [-1, 0], None), ("x", [-1, 0], None)], b"the predicted sentence is x"),
    ([("a", [-1, 0], None)], b"has no predicted tree"),
    ([("a", [-1, 0], None), ("b", [-1, 0], None), ("c", [-1, 0], None)], b"sentence c is not in the gold files"),
    ([("a", [-1, 0], None), ("b", [-1, 0, 1], None)], b"has 2 words, the gold one 1"),
], ids=["other id", "missing", "extra", "length"])
def test_predicted_ids_must_match(tmp_path, guess_trees, message):
    gold, guess = tmp_path / "gold.conllu", tmp_path / "guess.conllu"
    gold.write_text(conllu([("a", [-1, 0], None), ("b", [-1, 0], None)]))
    guess.write_text(conllu(guess_trees))
    result = run("annotate", gold, "--system", "arc-hybrid", "--policy", "predicted", "--predicted", guess)
    assert result.returncode == 2
    assert message in result.stderr and b"Traceback" not in result.stderr


def test_predicted_stays_aligned_when_a_bad_gold_sentence_is_skipped(tmp_path):
    gold, guess = tmp_path / "gold.conllu", tmp_path / "guess.conllu"
    text = conllu([("a", [-1, 0], None), ("b", [-1, 2, 0], None), ("c", [-1, 0, 1], None)])
    gold.write_text(text.replace("1\tw1\t_\t_\t_\t_\t2", "1\tw1\t_\t_\t_\t_\t1"))  # b: word 1 its own head
    guess.write_text(text)
    args = ["annotate", gold, "--system", "arc-hybrid", "--policy", "predicted", "--predicted", guess]
    assert run(*args).returncode == 2
    result = run(*args, "--on-error", "skip")
    assert result.returncode == 0, result.stderr
    assert b"skipped 1 bad sentence" in result.stderr
    assert [r["sent_id"] for r in records(result.stdout)] == ["a", "a", "c", "c", "c", "c"]


def test_exact_search_skips_and_counts_long_sentences(tmp_path):
    """A sentence beyond --max-length is beyond the search's reach, not bad input: skipped, counted, named."""
    path = tmp_path / "g.conllu"
    path.write_text(conllu([("short", [-1, 0, 1], None), ("long", [-1, 0, 1, 2, 3], None)]))
    result = run("annotate", path, "--system", "swap", "--max-length", "3")
    assert result.returncode == 0, result.stderr
    assert result.stderr == b"warning: 1 sentence skipped: longer than --max-length 3 (--max-length raises the limit): long\n"
    assert {r["sent_id"] for r in records(result.stdout)} == {"short"}
    failed = run("annotate", path, "--system", "swap", "--max-length", "3", "--max-seconds", "60", "--on-timeout", "fail")
    assert failed.returncode == 2
    assert b"g.conllu:5: exact search is limited to 3 words; this sentence has 4 (sentence long)" in failed.stderr


def test_exact_search_skips_and_counts_sentences_beyond_max_states(tmp_path):
    """The default state cap ends the exact search of a sentence it cannot finish (swap on 9 words: millions)."""
    path = tmp_path / "g.conllu"
    path.write_text(conllu([("tiny", [-1, 0], None), ("big", [-1, 3, 1, 0, 3, 6, 4, 5, 4], None)]))
    result = run("annotate", path, "--system", "swap", "--max-length", "10", "--max-states", "500")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (b"warning: 1 sentence skipped: exact search needs more than --max-states 500 "
                             b"configurations (--max-states raises the limit): big\n")
    assert {r["sent_id"] for r in records(result.stdout)} == {"tiny"}


def test_max_seconds_skips_and_counts_a_search_that_takes_too_long(tmp_path):
    path = tmp_path / "g.conllu"
    path.write_text(conllu([("tiny", [-1, 0], None), ("big", [-1, 3, 1, 0, 3, 6, 4, 5, 4], None)]))
    result = run("annotate", path, "--system", "swap", "--max-length", "20", "--max-seconds", "0.2")
    assert result.returncode == 0
    assert b"warning: 1 sentence ran out of --max-seconds 0.2 and was skipped: big" in result.stderr
    assert {r["sent_id"] for r in records(result.stdout)} == {"tiny"}
    failed = run("annotate", path, "--system", "swap", "--max-length", "20", "--max-seconds", "0.2", "--on-timeout", "fail")
    assert failed.returncode == 2 and b"g.conllu:4: exact search: " in failed.stderr and b"(sentence big)" in failed.stderr


def test_on_timeout_fail_acts_on_the_search_limits_without_max_seconds(tmp_path):
    """Exact search is always bounded (--max-length, --max-states, defaults included): --on-timeout fail makes a
    sentence beyond them the run's error, as the options' help says, with no --max-seconds."""
    path = tmp_path / "g.conllu"
    path.write_text(conllu([(None, [-1, 0], None), (None, [-1, 3, 1, 0, 3, 6, 4, 5, 4], None)]))
    failed = run("annotate", path, "--system", "swap", "--max-length", "5", "--on-timeout", "fail")
    assert failed.returncode == 2 and {r["sent_id"] for r in records(failed.stdout)} == {"1"}  # written before it
    assert failed.stderr.decode().endswith("g.conllu:3: exact search is limited to 5 words; this sentence has 8\n")
    skipped = run("annotate", path, "--system", "swap", "--max-length", "5", "--on-timeout", "skip")
    assert skipped.returncode == 0 and {r["sent_id"] for r in records(skipped.stdout)} == {"1"}
    assert b"1 sentence skipped: longer than --max-length 5" in skipped.stderr


def test_a_timed_out_sentence_without_sent_id_is_named_by_file_and_line(tmp_path):
    """Warnings name a sentence as the error messages do (sent_id, else file:line), not by a position to count."""
    path = tmp_path / "g.conllu"
    path.write_text(conllu([(None, [-1, 0], None), (None, [-1, 3, 1, 0, 3, 6, 4, 5, 4], None)]))
    result = run("annotate", path, "--system", "swap", "--max-length", "20", "--max-seconds", "0.2")
    assert result.returncode == 0
    assert f"was skipped: {path}:3".encode() in result.stderr


REFUSED = [
    (["--error-rate", "0.2"], "--error-rate needs --policy explore"),
    (["--seed", "3"], "--seed needs --policy explore"),
    (["--predicted", str(EN)], "--predicted needs --policy predicted"),
    (["--policy", "predicted"], "--policy predicted needs --predicted FILE"),
    (["--policy", "explore", "--error-rate", "1.5"], "--error-rate"),
    (["--system", "swap", "--oracle", "dynamic"], "--oracle dynamic: swap (order=eager) has no published dynamic"),
    (["--system", "attardi", "--degree", "3", "--oracle", "dynamic"],
     "--oracle dynamic: attardi (degree=3) has no published"),
    (["--system", "arc-eager", "--max-length", "5"], "--max-length acts only with exact search"),
    (["--system", "arc-eager", "--max-states", "5"], "--max-states acts only with exact search"),
    (["--system", "arc-eager", "--on-timeout", "skip"], "--on-timeout needs --max-seconds, or exhaustive search"),
    (["--system", "swap", "--max-seconds", "5", "--on-timeout", "lift"], "--on-timeout lift applies to projectivize"),
    (["--system", "swap", "--max-seconds", "0"], "--max-seconds"),
    (["--system", "arc-eager", "--prefer-monotonic"], "--prefer-monotonic needs --system nm-arc-eager"),
    (["--system", "nm-arc-eager", "--oracle", "exact", "--prefer-monotonic"], "--prefer-monotonic needs"),
]


@pytest.mark.parametrize("args,message", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_options_that_cannot_act_are_refused(args, message):
    if "--system" not in args:
        args = ["--system", "arc-hybrid", *args]
    result = run("annotate", EN, *args)
    assert result.returncode == 2
    assert message.encode() in result.stderr
    assert result.stdout == b""


def test_prefer_monotonic_narrows_the_optimal_actions_to_cost_0_ones():
    args = ["annotate", EN, "--system", "nm-arc-eager", "--policy", "explore", "--error-rate", "0.3"]
    for r in records(run(*args).stdout):
        assert r["optimal"] == [a for a, c in r["costs"].items() if c == 0]
    narrower = 0
    for r in records(run(*args, "--prefer-monotonic").stdout):
        zero = [a for a, c in r["costs"].items() if c == 0]
        assert set(r["optimal"]) <= set(zero)
        narrower += r["optimal"] != zero
    assert narrower


def test_a_user_system_is_served_by_exact_search():
    ours = run("annotate", EN, "--system", "arc-standard", "--oracle", "exact", "--policy", "explore",
               "--max-length", "9", "--on-error", "skip")
    theirs = run("annotate", EN, "--system", "example_system:MyArcStandard", "--policy", "explore",
                 "--max-length", "9", "--on-error", "skip")
    assert theirs.returncode == 0, theirs.stderr
    assert theirs.stdout == ours.stdout and ours.stdout


def test_a_walk_that_finds_no_legal_action_says_so():
    """A (user) system stuck in a non-final configuration: a clear error, not an endless or silent walk."""
    from treetool.oracles.annotate import walk
    from treetool.oracles.errors import IncompleteDerivation

    class NoAnswers:
        def costs(self, config):
            return {} if len(config.stack) == 2 else {"SH": 0}

        def optimal(self, config):
            return [a for a, c in self.costs(config).items() if c == 0]

    steps = walk(get_system("arc-standard"), NoAnswers(), 3, False, lambda config, costs, best: best[0])
    assert next(steps).action == "SH"
    with pytest.raises(IncompleteDerivation, match="no legal action after 1 steps"):
        next(steps)


def _conllu(heads: list[int], sent_id: str) -> str:
    rows = [f"# sent_id = {sent_id}"]
    rows += [f"{i}\tw\tw\tX\tX\t_\t{h}\t{'root' if h == 0 else 'dep'}\t_\t_" for i, h in enumerate(heads, 1)]
    return "\n".join(rows) + "\n\n"


@pytest.mark.parametrize("extra, noted", [([], True), (["--max-seconds", "5"], False),
                                          (["--algorithm", "linear", "--on-error", "skip"], False)])
def test_arc_standard_notes_the_cubic_cost_once(tmp_path, extra, noted):
    """The arc 1 -> 4 covers word 2, whose head is 0 (non-projective); the note names the first such sentence, once."""
    path = tmp_path / "trees.conllu"
    path.write_text(_conllu([0, 1, 2], "flat") + _conllu([3, 0, 2, 1], "cross-1") + _conllu([3, 0, 2, 1], "cross-2"))
    result = run("annotate", path, "--system", "arc-standard", "--quiet", "-o", tmp_path / "out.jsonl", *extra)
    assert result.returncode == 0
    assert result.stderr.count(b"note: sentence cross-1 is not projective") == (1 if noted else 0)
    assert b"cross-2" not in result.stderr or not noted
