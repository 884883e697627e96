"""``--loss paper`` costs (Fernández-González & Gómez-Rodríguez 2018, §3.1-3.2) and ``treetool annotate`` on PTB trees.

The fast costs (:class:`treetool.oracles.constituency.paper_loss.PaperCosts`, every
action in one pass) are checked against the definition: the straightforward
:func:`paper_loss` of the successor minus that of the configuration, each
successor built by ``system.apply``. The CLI's hand-written JSON is checked
against ``json.dumps`` of :func:`step_record`.
"""

from __future__ import annotations

import json
import pickle
import random

import pytest
from nltk import Tree

from treetool.oracles.annotate import Explore
from treetool.oracles.constituency import SinglePreterminalError, from_nltk, get_constituency_system
from treetool.oracles.constituency.annotate import annotate_tree, step_record
from treetool.oracles.constituency.dynamic import ConstituencyOracle
from treetool.oracles.constituency.gold_index import GoldIndex
from treetool.oracles.constituency.paper_loss import paper_loss
from treetool.formats.ptb import read_ptb_file

from conftest import SAMPLE_DATA, force_workers, run_cli, shared_path

SYSTEMS = {"top-down": {}, "in-order": {}, "top-down, 3 open": {"max_open_nts": 3}}


def system_named(name: str):
    return get_constituency_system(name.split(",")[0], **SYSTEMS[name])


def by_definition(system, index: GoldIndex, config, labels) -> dict[str, int]:
    """paper_loss(a(c)) minus the least paper_loss(a'(c)) over the legal actions, successors by ``apply``."""
    after = {a: paper_loss(system.apply(config, a), index) for a in system.legal_actions(config, labels)}
    least = min(after.values())
    return {a: loss - least for a, loss in after.items()}


def exploring_walk(system, gold, labels, rng: random.Random, error_rate: float) -> list:
    """(configuration, costs by the definition) along one walk: a cheapest action by the definition,
    else (error_rate) any legal action. The costs are returned so that callers compare against them
    instead of computing the definition a second time for the same configuration."""
    index = GoldIndex(gold, system)
    config = system.initial(gold.end)
    out = []
    while not system.is_final(config):
        costs = by_definition(system, index, config, labels)
        out.append((config, costs))
        least = min(costs.values())
        cheapest = [a for a, c in costs.items() if c == least]
        config = system.apply(config, rng.choice(list(costs) if rng.random() < error_rate else cheapest))
    return out


def sample_golds(limit: int) -> list:
    folder = shared_path("data", "ptb-sample")
    out = []
    for path in sorted(folder.glob("*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            if len(tree) and not isinstance(tree[0], str):
                out.append(from_nltk(tree))
                if len(out) == limit:
                    return out
    return out


def random_gold(rng: random.Random, n: int):
    """Random brackets over n words, labels A/B (C only in unary chains, so duplicates of spans occur)."""
    def build(lo: int, hi: int) -> Tree:
        if hi - lo == 1:
            node = Tree("P", [f"w{lo}"])
        else:
            cuts = sorted(rng.sample(range(lo + 1, hi), rng.randint(1, min(3, hi - lo - 1))))
            bounds = [lo, *cuts, hi]
            node = Tree(rng.choice("AB"), [build(a, b) for a, b in zip(bounds, bounds[1:])])
        while rng.random() < 0.25:
            node = Tree(rng.choice("ABC"), [node])
        return node
    tree = build(0, n)
    return from_nltk(tree if tree.label() != "P" else Tree("A", [tree]))


def assert_costs_match(system, gold, walks: int, rng: random.Random, error_rate: float) -> int:
    labels = sorted(GoldIndex(gold, system).labels) + ["ZZ"]
    walked = [pair for _ in range(walks) for pair in exploring_walk(system, gold, labels, rng, error_rate)]
    configs = [config for config, _ in walked]
    oracle = ConstituencyOracle(system, gold, labels, "paper")
    in_walk_order = [oracle.costs(c) for c in configs]
    shuffled = list(range(len(configs)))
    rng.shuffle(shuffled)  # the incremental state must also follow arbitrary jumps
    jumped = {k: oracle.costs(configs[k]) for k in shuffled}
    for k, (config, expected) in enumerate(walked):
        assert list(in_walk_order[k].items()) == list(expected.items()), (gold, config)
        assert jumped[k] == expected, (gold, config)
    return len(configs)


@pytest.mark.parametrize("name", SYSTEMS)
def test_paper_costs_equal_the_definition_on_sample_trees(name):
    system = system_named(name)
    rng = random.Random(name)
    trees = 20 if name == "top-down" else 40  # top-down's exploring walks under the paper loss are 3x longer
    checked = sum(assert_costs_match(system, gold, 1, rng, 0.15) for gold in sample_golds(trees))
    assert checked > 1500


@pytest.mark.parametrize("name", SYSTEMS)
def test_paper_costs_equal_the_definition_on_random_trees(name):
    system = system_named(name)
    rng = random.Random(7)
    checked = sum(assert_costs_match(system, random_gold(rng, rng.randint(1, 9)), 2, rng, 0.3) for _ in range(60))
    assert checked > 1500


def test_paper_costs_by_hand():
    """Top-down on (S (NP a b) (VP c)): the paper's terms worked out by hand."""
    system = get_constituency_system("top-down")
    gold = from_nltk(Tree.fromstring("(S (NP (D a) (N b)) (VP (V c)))"))
    oracle = ConstituencyOracle(system, gold, ["S", "NP", "VP", "ZZ"], "paper")
    # (NP, 0) is a gold non-terminal: the paper counts nothing (the root corner); (VP, 0), (ZZ, 0) are wrong.
    assert oracle.costs(system.initial(3)) == {"NT(S)": 0, "NT(NP)": 0, "NT(VP)": 1, "NT(ZZ)": 1}
    after_np = system.run(["NT(NP)"], 3)
    # SHIFT leaves (S, 0, 3) with no open (S, 0): unreachable; S (rank 0) above NP (rank 1) is out of order;
    # a second (NP, 0) is wrong (the gold tree has one). Each successor's loss is one more than now: relative
    # to the best action (the paper's loss before is below every successor's), every action costs 0.
    assert oracle.costs(after_np) == {"SHIFT": 0, "NT(S)": 0, "NT(NP)": 0, "NT(VP)": 0, "NT(ZZ)": 0}
    after_s = system.run(["NT(S)"], 3)
    # SHIFT now leaves (NP, 0, 2) with no open (NP, 0) below it: individually unreachable.
    assert oracle.costs(after_s) == {"SHIFT": 1, "NT(S)": 1, "NT(NP)": 0, "NT(VP)": 1, "NT(ZZ)": 1}


# ------------------------------------------------------------------ the CLI


def write(tmp_path, text: str, name: str = "t.mrg"):
    path = tmp_path / name
    path.write_text(text)
    return path


def records(result) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


@pytest.mark.parametrize("system_name", ["top-down", "in-order"])
def test_cli_lines_are_json_dumps_of_step_record(system_name):
    path = shared_path("data", "ptb-sample", "wsj_0003.mrg")
    result = run_cli("annotate", path, "--system", system_name, "--loss", "paper", "--policy", "explore",
                     "--error-rate", "0.2", "--seed", "3")
    assert result.returncode == 0, result.stderr
    system = get_constituency_system(system_name)
    trees = read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True)
    golds = [from_nltk(tree) for tree in trees]
    labels = list(dict.fromkeys(label for gold in golds for label, _, _ in _spans(gold)))
    expected = "".join(
        json.dumps(step_record(str(position), step, system_name == "in-order"), ensure_ascii=False) + "\n"
        for position, gold in enumerate(golds, 1)
        for step in annotate_tree(system, gold, labels, policy=Explore(0.2, 3), position=position, loss="paper"))
    assert result.stdout.decode() == expected


def _spans(gold):
    from treetool.oracles.constituency.tree import preorder

    return [node.span for node in preorder(gold)]


@pytest.fixture
def forced_workers(monkeypatch) -> list[int]:
    """Workers start after the first tree and take over (as in test_jobs); the list counts pool starts."""
    return force_workers(monkeypatch)


def test_jobs_output_equals_one_process(tmp_path, forced_workers):
    sample = [shared_path("data", "ptb-sample", f"wsj_000{k}.mrg").read_text() for k in (1, 2)]
    # a word without a tag (an error of the walk, in a worker) and a bare preterminal (not derivable: left out,
    # counted) between good trees, unbalanced brackets at the end
    path = write(tmp_path, sample[0] + "((S the (NN cat)))\n((NN alone))\n" + sample[1]
                 + "(S (NP (DT a)) (VP (VB b))\n")
    args = ("annotate", path, "--system", "in-order", "--loss", "paper", "--policy", "explore", "--seed", "5",
            "--on-error", "skip")
    one = run_cli(*args)
    assert not forced_workers
    two = run_cli(*args, "--jobs", "2")
    assert forced_workers, "the workers never started"
    assert one.returncode == two.returncode == 0, two.stderr
    assert two.stdout == one.stdout and two.stderr == one.stderr
    assert one.stderr.startswith(b"skipped 2 bad sentences")


def test_jobs_over_several_files_equal_one_process(tmp_path, forced_workers):
    """The workers run one stream across the files (SentencePool.map_files): output, skip count, rejects and the
    files named in messages are still those of one process."""
    sample = [shared_path("data", "ptb-sample", f"wsj_000{k}.mrg").read_text() for k in (1, 2, 3)]
    paths = [tmp_path / "a.mrg", tmp_path / "b.mrg", tmp_path / "c.mrg"]
    paths[0].write_text(sample[0])
    paths[1].write_text("((S the (NN cat)))\n((NN alone))\n" + sample[1])
    paths[2].write_text(sample[2] + "(S (NP (DT a)) (VP (VB b))\n")
    runs = []
    for jobs in ("1", "2"):
        rejects = tmp_path / f"rejects{jobs}.mrg"
        runs.append(run_cli("annotate", *paths, "--system", "top-down", "--loss", "paper", "--policy", "explore",
                            "--seed", "3", "--on-error", "skip", "--rejects", rejects, "--jobs", jobs))
        runs[-1] = (runs[-1].returncode, runs[-1].stdout, runs[-1].stderr, rejects.read_bytes())
    assert forced_workers, "the workers never started"
    assert runs[0] == runs[1]
    assert runs[0][0] == 0 and runs[0][2].startswith(b"skipped 2 bad sentences")
    assert runs[0][3].count(b"\n") == 2  # both bad trees, one line each


def test_unbalanced_brackets_name_file_and_line(tmp_path):
    path = write(tmp_path, "(S (NP (DT a) (NN b)) (VP (VB c)))\n\n(S (NP (DT a)\n")
    result = run_cli("annotate", path, "--system", "top-down", "--loss", "paper")
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"{path}:3:") and b"Traceback" not in result.stderr


@pytest.mark.parametrize("system", ["top-down", "in-order"])
def test_bare_preterminal_tree_is_left_out_and_counted_as_by_oracle(tmp_path, system):
    """A single preterminal is a well-formed tree that no system derives (both need a constituent above the
    words): as ``treetool oracle`` and ``stats`` do, annotate leaves it out and says so, status 0; not bad input."""
    path = write(tmp_path, "(S (NP (DT a)))\n\n\n( (NN alone) )\n(UH yes)\n")
    result = run_cli("annotate", path, "--system", system, "--loss", "paper")
    assert result.returncode == 0 and {r["sent_id"] for r in records(result)} == {"1"}
    assert result.stderr.decode() == (f"warning: 2 sentences skipped: not derivable by {system} (a single "
                                      f"preterminal: no constituent above the words): {path}:4 {path}:5\n")


def test_bare_preterminal_trees_walked_by_workers_are_left_out_alike(tmp_path, forced_workers):
    """The error a worker raises for a bare preterminal crosses to the main process pickled (its message its only
    argument): with --jobs 2 the run is that of one process."""
    path = write(tmp_path, "(S (NP (DT a)))\n(NN alone)\n(S (NP (DT b)))\n(UH yes)\n")
    one = run_cli("annotate", path, "--system", "top-down", "--loss", "paper")
    two = run_cli("annotate", path, "--system", "top-down", "--loss", "paper", "--jobs", "2")
    assert forced_workers, "the workers never started"
    assert two.returncode == one.returncode == 0 and two.stdout == one.stdout and two.stderr == one.stderr
    assert one.stderr.decode().endswith(f"{path}:2 {path}:4\n")
    with pytest.raises(SinglePreterminalError) as raised:
        from_nltk(Tree.fromstring("(NN alone)"))
    message = "the tree is a single preterminal (NN alone): it has no constituent"
    assert str(pickle.loads(pickle.dumps(raised.value))) == message


def test_empty_file_gives_no_steps(tmp_path):
    result = run_cli("annotate", write(tmp_path, ""), "--system", "top-down", "--loss", "paper")
    assert result.returncode == 0 and result.stdout == b""


@pytest.mark.parametrize("system_name, actions", [("top-down", ["NT(NP)", "SHIFT", "REDUCE"]),
                                                  ("in-order", ["SHIFT", "PJ(NP)", "REDUCE", "TERM"])])
def test_one_word_tree(tmp_path, system_name, actions):
    result = run_cli("annotate", write(tmp_path, "( (NP (NN hello)) )\n"), "--system", system_name, "--loss", "paper")
    steps = records(result)
    assert [r["action"] for r in steps] == actions
    assert all(r["costs"][r["action"]] == 0 for r in steps)


def test_policy_predicted_with_ptb(tmp_path):
    gold = write(tmp_path, "(S (NP (DT a) (NN b)) (VP (VB c)))\n")
    other = write(tmp_path, "(S (DT a) (VP (NN b) (VB c)))\n", "p.mrg")
    steps = records(run_cli("annotate", gold, "--system", "top-down", "--loss", "paper", "--policy", "predicted",
                            "--predicted", other))
    assert [r["action"] for r in steps] == ["NT(S)", "SHIFT", "NT(VP)", "SHIFT", "SHIFT", "REDUCE", "REDUCE"]
    assert steps[1]["costs"]["SHIFT"] == 1  # the predicted tree has no NP: (NP, 0, 2) is lost
    short = write(tmp_path, "(S (DT a) (NN b))\n", "s.mrg")
    result = run_cli("annotate", gold, "--system", "top-down", "--policy", "predicted", "--predicted", short)
    assert result.returncode == 2 and result.stderr.decode().startswith(f"{gold}:1: the predicted tree has 2 words")
    two = write(tmp_path, gold.read_text() * 2, "two.mrg")
    fewer = run_cli("annotate", two, "--system", "top-down", "--policy", "predicted", "--predicted", other)
    assert fewer.returncode == 2 and fewer.stderr.decode().startswith(f"{two}:2: tree 2 has no predicted tree")
    more = run_cli("annotate", gold, "--system", "top-down", "--policy", "predicted", "--predicted", two)
    assert more.returncode == 2 and b"--predicted holds more trees than the gold files" in more.stderr


@pytest.mark.parametrize("args, message", [
    (("--format", "tsv"), b"--format tsv is for dependency systems"),
    (("--oracle", "exact"), b"--oracle is for dependency systems"),
    (("--max-length", "5"), b"--max-length acts only with exhaustive search"),
    (("--seed", "3"), b"--seed needs --policy explore"),
])
def test_options_that_cannot_act_are_refused(tmp_path, args, message):
    path = write(tmp_path, "(S (NP (DT a) (NN b)))\n")
    result = run_cli("annotate", path, "--system", "in-order", "--loss", "paper", *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_labels_file(tmp_path):
    path = write(tmp_path, "(S (NP (DT a) (NN b)))\n")
    missing = run_cli("annotate", path, "--system", "top-down", "--labels", tmp_path / "nope.txt")
    assert missing.returncode == 2
    assert missing.stderr.decode() == f"treetool: error: {tmp_path / 'nope.txt'}: No such file or directory\n"
    empty = run_cli("annotate", path, "--system", "top-down", "--labels", write(tmp_path, "\n\n", "l.txt"))
    assert empty.returncode == 2 and b"holds no labels" in empty.stderr
    labels = write(tmp_path, "NP\nS\nX\n", "l2.txt")
    first = records(run_cli("annotate", path, "--system", "top-down", "--loss", "paper", "--labels", labels))[0]
    assert list(first["costs"]) == ["NT(NP)", "NT(S)", "NT(X)"]


@pytest.mark.parametrize("system", ["top-down", "in-order"])
def test_a_gold_label_outside_the_labels_file_is_bad_input(tmp_path, system):
    """A gold constituent whose label --labels does not list could never be built: its action would be costed
    nowhere (a step with no optimal action). The tree is an error at its line; --on-error skip skips it."""
    path = write(tmp_path, "(S (NP (DT a) (NN b)))\n(S (NP (NN c)) (VP (VBD d) (QP (CD 1))))\n")
    labels = write(tmp_path, "S\nNP\nVP\n", "l.txt")
    failed = run_cli("annotate", path, "--system", system, "--labels", labels)
    assert failed.returncode == 2
    assert failed.stderr.decode().startswith(f"{path}:2: ") and "QP" in failed.stderr.decode()
    assert b"Traceback" not in failed.stderr
    skipped = run_cli("annotate", path, "--system", system, "--labels", labels, "--on-error", "skip")
    assert skipped.returncode == 0, skipped.stderr
    steps = records(skipped)
    assert {r["sent_id"] for r in steps} == {"1"} and all(r["optimal"] for r in steps)


@pytest.mark.parametrize("system", ["top-down", "in-order"])
@pytest.mark.parametrize("labels_option", [False, True])
def test_a_predicted_label_outside_the_label_set_is_bad_input_in_the_predicted_file(tmp_path, system, labels_option):
    """A predicted tree with a label the label set lacks (here QP: the gold trees', or --labels) would make the walk
    take an action no step costs. It is bad input at the predicted tree's own line; --on-error skip skips the pair
    (the gold tree goes to --rejects) and counts it."""
    gold = write(tmp_path, "(S (NP (DT a) (NN b)) (VP (VBD c)))\n(S (NP (NN c)) (VP (VBD d)))\n")
    predicted = write(tmp_path, "(S (NP (DT a) (NN b)) (VP (VBD c)))\n\n(S (QP (NN c)) (VP (VBD d)))\n", "p.mrg")
    args = ["annotate", gold, "--system", system, "--policy", "predicted", "--predicted", predicted]
    if labels_option:
        args += ["--labels", write(tmp_path, "S\nNP\nVP\n", "l.txt")]
    failed = run_cli(*args)
    assert failed.returncode == 2
    assert failed.stderr.decode() == f"{predicted}:3: the predicted tree has labels outside the label set: QP\n"
    rejects = tmp_path / "rejects.mrg"
    skipped = run_cli(*args, "--on-error", "skip", "--rejects", rejects)
    assert skipped.returncode == 0, skipped.stderr
    assert b"skipped 1 bad sentence" in skipped.stderr
    steps = records(skipped)
    assert {r["sent_id"] for r in steps} == {"1"} and all(r["action"] in r["costs"] for r in steps)
    assert rejects.read_text() == "(S (NP (NN c)) (VP (VBD d)))\n"


@pytest.mark.parametrize("refused_in", ["gold", "predicted"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_tree_refused_in_either_file_does_not_shift_the_pairs_after_it(tmp_path, refused_in, jobs):
    """--on-error skip skips a malformed tree 2 of the gold or the predicted file and counts it; tree 3 of the gold
    file is still paired with tree 3 of the predicted one (equal to it: every action taken costs 0), not with tree
    2 (two words as well, other brackets: following it costs; it was so paired)."""
    first, third = "(S (NP (DT a) (NN b)) (VP (VBD c)))\n", "(S (NP (NN c)) (VP (VBD d)))\n"
    other, bad = "(S (NP (NN c) (VBD d)))\n", "(S (NP ) (VP (VBD r)))\n"
    gold = write(tmp_path, first + (bad if refused_in == "gold" else other) + third)
    predicted = write(tmp_path, first + (other if refused_in == "gold" else bad) + third, "p.mrg")
    labels = write(tmp_path, "S\nNP\nVP\n", "l.txt")
    result = run_cli("annotate", gold, "--system", "top-down", "--policy", "predicted", "--predicted", predicted,
                     "--labels", labels, "--on-error", "skip", "--jobs", jobs)
    bad_file = gold if refused_in == "gold" else predicted
    assert result.stderr.decode() == f"skipped 1 bad sentence (first: {bad_file}:2: constituent (NP) has no children)\n"
    steps = records(result)
    assert sorted({r["sent_id"] for r in steps}) == ["1", "3"]
    assert all(r["costs"][r["action"]] == 0 for r in steps)


@pytest.mark.parametrize("stray_in", ["gold", "predicted"])
def test_stray_text_in_either_file_does_not_shift_the_pairs(tmp_path, stray_in):
    """Text outside the brackets is skipped and counted, but it is no tree: tree 2 of the gold file is still paired
    with tree 2 of the predicted one (equal to it: every action taken costs 0) and tree 3 with tree 3 (the stray
    text had counted as a tree: tree 2 was paired with tree 3, and tree 3 had 'no predicted tree')."""
    trees = ["(S (NP (DT a) (NN b)) (VP (VBD c)))\n", "(S (NP (NN c)) (VP (VBD d)))\n", "(S (NP (NN c) (VBD d)))\n"]
    with_stray = trees[0] + "stray words\n" + trees[1] + trees[2]
    gold = write(tmp_path, with_stray if stray_in == "gold" else "".join(trees))
    predicted = write(tmp_path, with_stray if stray_in == "predicted" else "".join(trees), "p.mrg")
    labels = write(tmp_path, "S\nNP\nVP\n", "l.txt")
    result = run_cli("annotate", gold, "--system", "top-down", "--policy", "predicted", "--predicted", predicted,
                     "--labels", labels, "--on-error", "skip")
    assert result.returncode == 0, result.stderr
    stray_file = gold if stray_in == "gold" else predicted
    assert result.stderr.decode() == (f"skipped 1 bad sentence (first: {stray_file}:2: leaf 'stray' outside any "
                                      "bracket)\n")
    steps = records(result)
    assert sorted({r["sent_id"] for r in steps}) == ["1", "2", "3"]
    assert all(r["costs"][r["action"]] == 0 for r in steps)


def test_annotate_tree_refuses_a_predicted_label_outside_the_labels():
    from treetool.oracles.annotate import Predicted
    from treetool.oracles.constituency.annotate import PredictedTreeError

    gold = from_nltk(Tree.fromstring("(S (NP (NN c)) (VP (VBD d)))"))
    other = from_nltk(Tree.fromstring("(S (QP (NN c)) (VP (VBD d)))"))
    with pytest.raises(PredictedTreeError, match="outside the label set: QP$"):
        annotate_tree(get_constituency_system("in-order"), gold, ["S", "NP", "VP"], policy=Predicted(()),
                      predicted=other)


def test_a_predicted_single_preterminal_is_bad_input_in_the_predicted_file(tmp_path):
    gold = write(tmp_path, "(S (NN c))\n")
    predicted = write(tmp_path, "(NN c)\n", "p.mrg")
    failed = run_cli("annotate", gold, "--system", "top-down", "--policy", "predicted", "--predicted", predicted)
    assert failed.returncode == 2 and failed.stderr.decode().startswith(f"{predicted}:1: ")
    assert b"Traceback" not in failed.stderr


def test_stdin_needs_labels(tmp_path):
    tree = b"(S (NP (DT a) (NN b)))\n"
    refused = run_cli("annotate", "-", "--system", "top-down", "--from", "ptb", stdin=tree)
    assert refused.returncode == 2 and b"--labels" in refused.stderr
    labels = write(tmp_path, "S\nNP\n", "l.txt")
    steps = records(run_cli("annotate", "-", "--system", "top-down", "--from", "ptb", "--labels", labels,
                            "--loss", "paper", stdin=tree))
    assert [r["action"] for r in steps] == ["NT(S)", "NT(NP)", "SHIFT", "SHIFT", "REDUCE", "REDUCE"]


def test_help_shows_a_constituency_example():
    result = run_cli("annotate", "--help")
    assert b"--system in-order" in result.stdout and b"--loss paper" in result.stdout


def test_on_timeout_is_taken_by_the_losses_that_can_skip_a_tree_without_max_seconds():
    """--loss paper's lists are limited to 1 GB a tree: --on-timeout applies; the authors' loss has no limit."""
    path = SAMPLE_DATA / "wsj_sample.mrg"
    plain = run_cli("annotate", path, "--system", "in-order", "--loss", "paper")
    failing = run_cli("annotate", path, "--system", "in-order", "--loss", "paper", "--on-timeout", "fail")
    assert (failing.returncode, failing.stdout, failing.stderr) == (0, plain.stdout, plain.stderr)
    refused = run_cli("annotate", path, "--system", "in-order", "--loss", "authors", "--on-timeout", "fail")
    assert refused.returncode == 2 and refused.stderr.startswith(b"treetool: error: --on-timeout needs --max-seconds")


def test_a_tree_beyond_max_length_fails_naming_the_search_once(tmp_path):
    path = tmp_path / "t.mrg"
    path.write_text("(S (NP (DT a) (NN b)) (VP (VB c) (NP (DT d) (NN e) (NN f))))\n")
    failed = run_cli("annotate", path, "--system", "in-order", "--loss", "search", "--max-length", "5",
                     "--on-timeout", "fail")
    assert failed.returncode == 2
    assert failed.stderr.decode().endswith("t.mrg:1: exact search is limited to 5 words; this sentence has 6\n")
