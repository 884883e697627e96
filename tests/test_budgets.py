"""Budgets that hold for every system and every length (issue 22, part 3).

Every command that runs super-linear work, with every transition system, on
a 10,000-word right-branching chain and a 10,000-word random tree (and PTB
trees nested as deep as the reader allows over 10,000 words): each run ends
with exit 0 and either writes the sentence or skips and counts it, never a
RecursionError or a traceback. The budgets are tiny so the runs stay short;
no assertion reads a clock. The algorithms that used to recurse on the
sentence or the tree are then driven past Python's recursion limit directly,
with budgets that count work (states) instead of seconds.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from treetool.commands.app import app
from conftest import ROOT, SAMPLE_DATA

runner = CliRunner()

N = 10_000
BUDGET = "0.05"
DEPENDENCY_SYSTEMS = ("arc-standard", "arc-eager", "arc-hybrid", "nm-arc-eager", "swap", "attardi")


def conllu(heads: list[int], sent_id: str) -> str:
    rows = [f"# sent_id = {sent_id}"]
    rows += [f"{i}\tw{i}\tw{i}\tX\tX\t_\t{heads[i]}\t{'root' if heads[i] == 0 else 'dep'}\t_\t_"
             for i in range(1, len(heads))]
    return "\n".join(rows) + "\n\n"


def chain(n: int) -> list[int]:
    """Right-branching: word i heads word i + 1 (arc-standard's stack grows to n)."""
    return [-1, 0, *range(1, n)]


def random_tree(n: int, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] * (n + 1)
    for i, word in enumerate(order):
        heads[word] = 0 if i == 0 else order[rng.randrange(i)]
    return heads


def deep_ptb(words: int, depth: int) -> str:
    """A tree over ``words`` words whose brackets nest ``depth`` deep: a right-branching spine, then flat."""
    spine = depth - 3  # the wrapper, Y and the preterminals take the other three levels
    head = "".join(f"(X (NN w{i}) " for i in range(spine))
    rest = " ".join(f"(NN w{i})" for i in range(spine, words))
    return f"( {head}(Y {rest}){')' * spine} )\n"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    from treetool.formats.ptb import MAX_DEPTH

    folder = tmp_path_factory.mktemp("long")
    files = {"chain": folder / "chain.conllu", "random": folder / "random.conllu", "ptb": folder / "deep.mrg"}
    files["chain"].write_text(conllu(chain(N), "chain"))
    files["random"].write_text(conllu(random_tree(N), "random"))
    files["ptb"].write_text(deep_ptb(N, MAX_DEPTH))
    return files


def bounded(command: str, system: str) -> list[str]:
    """The budget options ``command`` takes for ``system`` (the others refuse options that cannot act)."""
    if command == "annotate":
        return ["--max-seconds", BUDGET, "--on-timeout", "skip"]
    if command == "oracle" and system == "swap":
        return ["--max-seconds", BUDGET, "--on-timeout", "skip"]
    return []


CASES = [(command, system, tree) for command in ("annotate", "oracle", "coverage") for system in DEPENDENCY_SYSTEMS
         for tree in ("chain", "random")]
CASES += [("stats", None, tree) for tree in ("chain", "random")]
CASES += [("projectivize", None, tree) for tree in ("chain", "random")]
CASES += [("annotate", system, "ptb") for system in ("top-down", "in-order")]
CASES += [("oracle", system, "ptb") for system in ("top-down", "in-order")]
CASES += [("stats", None, "ptb")]
CASES += [(command, None, tree) for command in ("view", "filter", "deprojectivize") for tree in ("chain", "random")]
CASES += [(command, None, "ptb") for command in ("view", "filter")]


@pytest.mark.parametrize("command, system, tree", CASES)
def test_long_sentences_end_within_their_budget(inputs, command, system, tree):
    args = [command, str(inputs[tree])]
    if system is not None:
        args += ["--system", system, *bounded(command, system)]
    if command == "projectivize":
        args += ["--max-seconds", BUDGET, "--on-timeout", "skip"]
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    skipped = "skipped" in result.stderr or "ran out" in result.stderr or "left out" in result.stderr
    assert skipped or result.stdout.strip(), result.stderr  # written, or skipped and counted


def test_tables_too_large_are_refused_and_counted(inputs):
    """The cubic algorithm (a non-projective tree) and the optimal DP would need GBs: refused before allocating."""
    annotate = runner.invoke(app, ["annotate", str(inputs["random"]), "--system", "arc-standard"])
    assert annotate.exit_code == 0, annotate.stderr
    assert "1 sentence skipped: the cubic algorithm's tables for 10000 buffer words would take" in annotate.stderr
    project = runner.invoke(app, ["projectivize", str(inputs["random"]), "--on-timeout", "skip"])
    assert project.exit_code == 0 and project.stdout == ""
    assert "the optimal projectivization's tables for 10000 words would take" in project.stderr


@pytest.mark.parametrize("command", [["projectivize"], ["annotate", "--system", "arc-standard"]])
def test_on_timeout_acts_on_the_table_limit_without_max_seconds(inputs, command):
    """The 1 GB table limit skips a sentence with no --max-seconds given: --on-timeout says what to do with it."""
    what = "optimal projectivization's" if command[0] == "projectivize" else "cubic algorithm's"
    failed = runner.invoke(app, [command[0], str(inputs["random"]), *command[1:], "--on-timeout", "fail"])
    assert failed.exit_code == 2 and failed.stdout == ""
    assert failed.stderr.startswith(f"{inputs['random']}:1: ") and f"the {what} tables for 10000" in failed.stderr
    skipped = runner.invoke(app, [command[0], str(inputs["random"]), *command[1:], "--on-timeout", "skip"])
    assert skipped.exit_code == 0 and skipped.stdout == "" and f"the {what} tables for 10000" in skipped.stderr


# --------------------------------------------------------------------------
# the algorithms that recursed, driven past the recursion limit
# --------------------------------------------------------------------------


def test_nederhof_table5_on_a_deep_stack():
    """The linear algorithm on a stack of 3,000 words (Table 5's items chain down the stack)."""
    from treetool.oracles.nederhof import NederhofOracle
    from treetool.oracles.configuration import Configuration

    n = 4000
    heads = chain(n)
    stack = tuple(range(0, 3001))
    config = Configuration(stack, tuple(range(3001, n + 1)), (-1,) * (n + 1), None)
    costs = NederhofOracle(heads, algorithm="linear").costs(config)
    # SH keeps every gold arc; RA cuts 3000 off its gold dependent 3001; LA gives 2999 a wrong head and leaves
    # 3000 without its gold head 2999
    assert costs == {"SH": 0, "LA": 2, "RA": 1}


def test_exhaustive_search_deeper_than_the_recursion_limit():
    """Depth-first, the search's first path is a whole computation (2n steps): stopped by states, not the stack."""
    from treetool.budget import Budget, SentenceTimeout
    from treetool.oracles.search import ExactOracle
    from treetool.oracles.registry import make_system

    system = make_system("arc-standard")
    oracle = ExactOracle(system, chain(1500), budget=Budget(max_states=4000))
    with pytest.raises(SentenceTimeout, match="more than 4000 configurations"):
        oracle.costs(system.initial(1500))


def test_constituency_search_deeper_than_the_recursion_limit():
    """min_loss depth-first from the start of 2,000 words (its first path thousands of steps deep): stopped by states."""
    from treetool.oracles.constituency import from_nltk, get_constituency_system
    from treetool.budget import Budget, SentenceTimeout
    from treetool.oracles.constituency.search import min_loss

    system = get_constituency_system("top-down")
    with pytest.raises(SentenceTimeout, match="more than 5000 configurations"):
        min_loss(system, system.initial(2000), from_nltk(spine(2000)), budget=Budget(max_states=5000))


def spine(words: int):
    """A right-branching :class:`Bracket` tree over ``words`` words (as deep as it is long)."""
    from treetool.formats.ptb import Bracket

    node = Bracket("NN", [f"w{words - 1}"])
    for i in range(words - 2, -1, -1):
        node = Bracket("X", [Bracket("NN", [f"w{i}"]), node])
    return node


def nested(depth: int):
    """A :class:`Bracket` tree nested ``depth`` deep with traces and function tags (the reader stops at MAX_DEPTH)."""
    from treetool.formats.ptb import Bracket

    node = Bracket("NN", ["w"])
    for i in range(depth):
        node = Bracket("X-SBJ" if i % 2 else "X", [Bracket("-NONE-", ["*T*"]), node, Bracket("NN", [f"v{i}"])])
    return node


def test_tree_code_on_trees_nested_5000_deep():
    """Cleaning, writing and converting a tree: no recursion on its depth."""
    from treetool.oracles.constituency import from_nltk
    from treetool.oracles.constituency.tree import postorder
    from treetool.formats.ptb import drop_trace_elements, indented_tree, strip_function_tags, tree_to_line

    depth = 5000
    tree = strip_function_tags(drop_trace_elements(nested(depth)))
    line = tree_to_line(tree)
    assert line.startswith("(X (X (X ") and line.count("(X ") == depth and "-NONE-" not in line and "SBJ" not in line
    assert " ".join(indented_tree(tree).split()) == line  # the same brackets, broken over lines
    gold = from_nltk(tree)
    assert len(postorder(gold)) == depth and gold.end == depth + 1


@pytest.mark.parametrize("name", ["top-down", "in-order"])
def test_exact_loss_under_3000_open_non_terminals(name):
    """A unary chain of 3,000 constituents over one word: the exact loss's vectors per open non-terminal."""
    from treetool.oracles.constituency import from_nltk, get_constituency_system
    from treetool.oracles.constituency.annotate import annotate_tree
    from treetool.formats.ptb import Bracket

    node = Bracket("NN", ["w"])
    for _ in range(3000):
        node = Bracket("X", [node])
    steps = list(annotate_tree(get_constituency_system(name), from_nltk(node), ["X"], loss="exact"))
    assert steps and all(step.costs[step.action] == 0 for step in steps)  # the static oracle: every step optimal


# --------------------------------------------------------------------------
# defaults end
# --------------------------------------------------------------------------


def test_swap_defaults_skip_and_count_what_the_search_cannot_reach(tmp_path):
    """The bundled sample's 8-word sentence needs ~550,000 configurations: swap's default --max-length (7)
    skips it at once, counted; with the length allowed, the default --max-states cap skips it, counted."""
    sample = (SAMPLE_DATA / "en_sample.conllu").read_text(encoding="utf-8")
    first = sample.split("\n\n")[0] + "\n\n"
    path = tmp_path / "sample.conllu"
    path.write_text(conllu([-1, 2, 0, 2], "short") + first, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "treetool", "annotate", str(path), "--system", "swap"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)  # a hang guard only
    assert result.returncode == 0, result.stderr
    assert '"sent_id": "short"' in result.stdout and '"sent_id": "en-1"' not in result.stdout
    assert result.stderr == "warning: 1 sentence skipped: longer than --max-length 7 (--max-length raises the limit): en-1\n"
    searched = subprocess.run([sys.executable, "-m", "treetool", "annotate", str(path), "--system", "swap",
                               "--max-length", "10"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert searched.returncode == 0, searched.stderr
    assert searched.stdout == result.stdout
    assert searched.stderr == ("warning: 1 sentence skipped: exact search needs more than --max-states 100000 "
                               "configurations (--max-states raises the limit): en-1\n")
