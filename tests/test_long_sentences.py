"""Long sentences: the tiled, narrow-integer optimal DP, time budgets, progress display.

The DP's results are compared with the plain-Python reference
(``reference_projectivize``) with the tile size shrunk so that short trees
cross many tiles, with every integer type forced, and with the guessed loss bound made too small (the fallback); long
trees are checked against answers derived by hand. The budget tests time a
3,000-word tree whose DP would take seconds; the CLI tests check what
``--on-timeout lift|skip|fail`` write, and the progress display is looked for
on a pseudo-terminal.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from treetool.commands.app import app
from treetool.formats.files import input_size
from conftest import ROOT, SAMPLE_DATA
from reference_projectivize import count_reference, optimal_projectivize_reference
from treetool.budget import Budget, SentenceTimeout
from treetool.formats.conll import read_conll
from treetool.projectivization import optimal as P
from treetool.projectivization.driver import ProjectivizeOptions, Projectivizer
from treetool.treebank import read_treebank
from treetool.trees import is_projective

runner = CliRunner()


def random_tree(n: int, rng: random.Random, roots: int = 1) -> list[int]:
    """A random tree: a random order, each word attached to an earlier one (the first ``roots`` to 0)."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    h = [-1] * (n + 1)
    for i, d in enumerate(order):
        h[d] = 0 if i < roots else order[rng.randrange(i)]
    return h


def one_crossing_chain(n: int) -> list[int]:
    """0 -> 1 -> 3 -> 4 -> ... -> n, and 2 attached to 4.

    The arc 4 -> 2 crosses 1 -> 3 (3, between 2 and 4, is 4's head); every
    other arc is kept by re-attaching 2 to 1 or to 3, so the optimum loses
    one arc, there are two optimal trees, and the tie rule (lift, fewest
    levels: 3 is 4's head, 1 its grandparent) attaches 2 to 3. This is also
    MaltParser's baseline lifting (one lift, 2 -> 4's head 3).
    """
    return [-1, 0, 4, 1] + list(range(3, n))


def ancestors(h: list[int], u: int) -> list[int]:
    out = []
    while u > 0:
        u = h[u]
        out.append(u)
    return out


# --------------------------------------------------------------------------
# the DP against the reference, across tiles, integer types and loss bounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize("tile", [3, 7])
def test_tiled_dp_equals_reference(tile, monkeypatch):
    # Trees of 13-40 words cross several tiles of 3 or 7 spans; above a tile
    # the guessed-loss (int16) attempt and its check run too.
    monkeypatch.setattr(P, "_TILE", tile)
    rng = random.Random(tile)
    for i in range(40):
        h = random_tree(rng.randint(13, 40), rng, roots=1 + (i % 4 == 0))
        for single_root in (None, i % 2 == 0):
            ties = "first" if i % 3 == 0 else "lift"
            got = P.optimal_projectivize(h, single_root=single_root, ties=ties)
            assert got.tolist() == optimal_projectivize_reference(h, single_root=single_root, ties=ties).tolist()
        if i % 4 == 0:
            score, count = count_reference(h)
            assert (P.optimal_projective_score(h), P.count_optimal_projective_trees(h)) == (score, count)
            assert P.optimal_projectivize_counted(h)[1] == count


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_every_integer_type_gives_the_same_trees(dtype, monkeypatch):
    scale = P._scale
    monkeypatch.setattr(P, "_scale", lambda *args: dataclasses.replace(scale(*args), dtype=dtype))
    rng = random.Random(5)
    trees = [random_tree(rng.randint(5, 30), rng, roots=1 + (i % 3 == 0)) for i in range(30)]
    for h in trees:
        for ties in ("lift", "first"):
            assert P.optimal_projectivize(h, ties=ties).tolist() == optimal_projectivize_reference(h, ties=ties).tolist()
    assert [t.tolist() for t in P.optimal_projectivize_many(trees)] == [
        optimal_projectivize_reference(h).tolist() for h in trees
    ]


def test_too_small_loss_guess_is_detected_and_redone(monkeypatch):
    # Make the first attempt assume at most one lost arc: trees that lose
    # more must be detected by their best key and solved again for any loss.
    monkeypatch.setattr(P, "_TILE", 4)
    monkeypatch.setattr(P, "_loss_guess", lambda tree: 1)
    runs = []
    solve = P._solve_fast
    monkeypatch.setattr(P, "_solve_fast", lambda *args: runs.append(args[2].max_loss) or solve(*args))
    rng = random.Random(8)
    redone = 0
    for _ in range(25):
        h = random_tree(rng.randint(15, 30), rng)
        runs.clear()
        got = P.optimal_projectivize(h)
        assert got.tolist() == optimal_projectivize_reference(h).tolist()
        loss = len(h) - 1 - count_reference(h)[0]
        assert runs[-1] == (1 if loss <= 1 else len(h) - 1)  # the guess held, or the DP was redone
        redone += runs == [1, len(h) - 1]
    assert redone > 10


def test_long_chain_with_one_crossing_arc():
    # 600 words: several tiles, int16 keys; answers derived by hand (see one_crossing_chain).
    n = 600
    h = one_crossing_chain(n)
    expected = list(h)
    expected[2] = 3
    got, count = P.optimal_projectivize_counted(h)
    assert got.tolist() == expected and count == 2
    assert P.optimal_projective_score(h) == n - 1
    assert P.optimal_projectivize_many([h])[0].tolist() == expected


# --------------------------------------------------------------------------
# budgets
# --------------------------------------------------------------------------


def test_budget_object():
    with pytest.raises(ValueError):
        Budget(0)
    Budget().check()  # no limit
    budget = Budget(0.01)
    time.sleep(0.02)
    with pytest.raises(SentenceTimeout):
        budget.check()


def test_budget_stops_the_dp_from_inside():
    # The unbounded DP of this tree takes seconds (cubic in 3,000 words).
    h = one_crossing_chain(3000)
    for run in (P.optimal_projectivize, P.count_optimal_projective_trees):
        start = time.perf_counter()
        with pytest.raises(SentenceTimeout):
            run(h, budget=Budget(0.2))
        assert time.perf_counter() - start < 3  # a tile of work past the deadline, not the seconds of the whole DP


def test_budget_is_checked_while_counting(monkeypatch):
    # Counting walks the optimal items after the DP: a budget that expires
    # after the DP's checks must stop it there too.
    h = random_tree(200, random.Random(2))
    n1, tile = len(h), P._TILE
    checks = sum((min(n1, t0 + tile) - 1) // tile + 1 for t0 in range(0, n1, tile))  # one per tile

    class Countdown(Budget):
        def __init__(self, allowed: int) -> None:
            super().__init__()
            self.left = allowed

        def check(self) -> None:
            self.left -= 1
            if self.left < 0:
                raise SentenceTimeout(0)

    P.count_optimal_projective_trees(h, budget=Countdown(10**9))
    with pytest.raises(SentenceTimeout):
        P.count_optimal_projective_trees(h, budget=Countdown(checks))


# --------------------------------------------------------------------------
# --max-seconds / --on-timeout
# --------------------------------------------------------------------------


def conllu(heads: list[int], sent_id: str) -> str:
    rows = [f"# sent_id = {sent_id}"]
    for i in range(1, len(heads)):
        rel = "root" if heads[i] == 0 else f"rel{i % 3}"
        rows.append(f"{i}\tw{i}\tw{i}\tX\tX\t_\t{heads[i]}\t{rel}\t_\t_")
    return "\n".join(rows) + "\n\n"


@pytest.fixture
def long_input(tmp_path) -> Path:
    path = tmp_path / "long.conllu"
    path.write_text(
        conllu([-1, 2, 0, 2], "short-1") + conllu(one_crossing_chain(3000), "long-1") + conllu([-1, 3, 0, 4, 2], "short-2")
    )
    return path


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("mode", ["lift", "skip"])
def test_on_timeout_lift_and_skip(mode, long_input, tmp_path):
    out, report = tmp_path / "out.conllu", tmp_path / "report.json"
    start = time.perf_counter()
    result = invoke("projectivize", long_input, "--max-seconds", "0.3", "--on-timeout", mode,
                    "--report-file", report, "-o", out)
    assert time.perf_counter() - start < 5  # the DP alone would take several seconds
    assert result.exit_code == 0, result.stderr
    assert "long-1" in result.stderr and "ran out of time" in result.stderr
    got = {s.sent_id: s for s in read_treebank(str(out))}
    source = {s.sent_id: s for s in read_treebank(str(long_input))}
    assert got["short-2"].heads.tolist() == [-1, 2, 0, 4, 2]  # solved as usual
    total = json.loads(report.read_text())["total"]
    assert total["timed_out"] == 1
    if mode == "skip":
        assert list(got) == ["short-1", "short-2"] and total["sentences"] == 2
        return
    assert list(got) == ["short-1", "long-1", "short-2"] and total["sentences"] == 3
    old, new = source["long-1"].head_list, got["long-1"].head_list
    assert is_projective(new)
    for d in range(1, len(old)):
        if new[d] != old[d]:
            assert new[d] in ancestors(old, old[d])  # lifted to an ancestor of its old head
    assert new == [-1, 0, 3, 1] + list(range(3, 3000))  # the baseline lifting, by hand
    assert got["long-1"].deprels == source["long-1"].deprels  # labels untouched


def test_table6_measures_are_null_when_no_sentence_finished(tmp_path):
    path = tmp_path / "only-long.conllu"
    path.write_text(conllu(one_crossing_chain(3000), "long-1"))
    report = tmp_path / "report.json"
    result = invoke("projectivize", path, "--max-seconds", "0.2", "--report-file", report, "-o", tmp_path / "out.conllu")
    assert result.exit_code == 0, result.stderr
    total = json.loads(report.read_text())["total"]
    assert total["timed_out"] == 1 and total["arcs_changed"] == 1
    assert total["optimal_accuracy"] is None and total["pseudo_head_accuracy"] is None  # over nothing
    assert total["accuracy"] == round(100 * 2999 / 3000, 2)


def test_on_timeout_fail_names_the_sentence(long_input, tmp_path):
    result = invoke("projectivize", long_input, "--max-seconds", "0.2", "--on-timeout", "fail", "-o", tmp_path / "out.conllu")
    assert result.exit_code == 2
    assert f"{long_input}:6:" in result.stderr and "long-1" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out.conllu").exists()


def test_timed_out_sentence_gets_no_count(long_input):
    result = invoke("projectivize", long_input, "--max-seconds", "0.2", "--count")
    assert result.exit_code == 0, result.stderr
    blocks = result.stdout.split("\n\n")
    assert "optimal_projective_trees" in blocks[0] and "optimal_projective_trees" in blocks[2]
    assert "optimal_projective_trees" not in blocks[1]


def test_budget_options_are_refused_where_they_cannot_act():
    sample = SAMPLE_DATA / "en_sample.conllu"
    for args, word in (
        (["--method", "pseudo", "--max-seconds", "1", "--on-timeout", "lift"], "--on-timeout"),
        (["--method", "pseudo", "--on-timeout", "skip"], "--on-timeout"),
        (["--max-seconds", "0"], "--max-seconds"),
        (["--max-seconds", "-1"], "--max-seconds"),
    ):
        result = invoke("projectivize", sample, *args)
        assert result.exit_code == 2, args
        assert word in result.stderr


def test_report_has_timed_out_only_where_a_sentence_can_run_out_of_its_bound(tmp_path):
    """--max-seconds bounds both methods; optimal projectivization is bounded by its tables' size (1 GB) even
    without it, so its report always counts the sentences that hit a bound (they add up with the others)."""
    sample = SAMPLE_DATA / "en_sample.conllu"
    for extra, present in ((["--method", "pseudo"], False), (["--method", "pseudo", "--max-seconds", "5"], True),
                           (["--method", "optimal"], True), (["--method", "optimal", "--max-seconds", "5"], True)):
        report = tmp_path / "r.json"
        assert invoke("projectivize", sample, *extra, "--report-file", report, "-o", tmp_path / "o.conllu").exit_code == 0
        total = json.loads(report.read_text())["total"]
        assert ("timed_out" in total) is present
        if present:
            assert total["timed_out"] == 0


@pytest.mark.parametrize("on_timeout, written", [("skip", 0), ("lift", 1)])
def test_a_sentence_stopped_by_the_table_limit_is_counted_in_the_report(tmp_path, monkeypatch, on_timeout, written):
    """No --max-seconds: the 1 GB table limit (made tiny here) stops the one non-projective sentence; the
    report says so, so that its counts add up (it had no timed_out without --max-seconds)."""
    import treetool.budget

    monkeypatch.setattr(treetool.budget, "MAX_TABLE_BYTES", 16)
    source = tmp_path / "t.conllu"
    source.write_text(conllu([-1, 3, 4, 0, 3], "crossing"), encoding="utf-8")  # 1 -> 3 crosses 2 -> 4
    report = tmp_path / "r.json"
    result = invoke("projectivize", source, "--on-timeout", on_timeout, "--report-file", report, "-o",
                    tmp_path / "o.conllu")
    assert result.exit_code == 0, result.output
    total = json.loads(report.read_text())["total"]
    assert total["timed_out"] == 1
    assert (tmp_path / "o.conllu").read_text().count("# sent_id = crossing") == written


# --------------------------------------------------------------------------
# the driver's batches give the same trees as one sentence at a time
# --------------------------------------------------------------------------


def test_batched_run_equals_one_by_one(monkeypatch):
    rng = random.Random(3)
    text = "".join(conllu(random_tree(rng.randint(2, 40), rng), f"s{i}") for i in range(120))
    text += conllu(random_tree(130, rng), "long")  # above the batched length

    def sentences():
        import io

        return list(read_conll(io.BytesIO(text.encode()), "<test>", "conllu"))

    expected = []
    for sentence in sentences():
        assert Projectivizer().apply(sentence)
        expected.append(sentence.to_bytes())
    monkeypatch.setattr(Projectivizer, "WINDOW", 50)
    assert [s.to_bytes() for s in Projectivizer().run(sentences())] == expected

    def too_slow(*args, **kwargs):
        raise SentenceTimeout(1)

    # A batch that runs out of time is redone one sentence at a time, each under its own budget.
    monkeypatch.setattr("treetool.projectivization.driver.optimal_projectivize_many", too_slow)
    projectivizer = Projectivizer(ProjectivizeOptions(max_seconds=30))
    assert [s.to_bytes() for s in projectivizer.run(sentences())] == expected
    assert projectivizer.timed_out_count == 0


# --------------------------------------------------------------------------
# progress display
# --------------------------------------------------------------------------


def run_on_terminal(args: list[str]) -> str:
    """Run ``python -m treetool ARGS`` with stderr on a pseudo-terminal; return what it showed there."""
    master, slave = os.openpty()
    env = dict(os.environ, TERM="xterm", COLUMNS="120")
    proc = subprocess.Popen(
        [sys.executable, "-m", "treetool", *args], cwd=ROOT, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
    )
    os.close(slave)
    shown = b""
    try:
        while select.select([master], [], [], 30)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
        proc.wait(30)
    assert proc.returncode == 0
    return shown.decode("utf-8", "replace")


def test_progress_shown_on_a_terminal_only(tmp_path):
    sample = str(SAMPLE_DATA / "de_sample.conllu")
    args = ["projectivize", sample, "-o", str(tmp_path / "out.conllu")]
    shown = run_on_terminal(args)
    assert "sentences" in shown and "de_sample.conllu" in shown
    assert "sentences" not in run_on_terminal([*args, "--quiet"])
    piped = subprocess.run([sys.executable, "-m", "treetool", *args], cwd=ROOT, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == ""


def test_input_size_known_only_for_plain_regular_files(tmp_path):
    import gzip

    plain = tmp_path / "a.conllu"
    plain.write_bytes(b"x" * 100)
    packed = tmp_path / "b.conllu.gz"
    packed.write_bytes(gzip.compress(b"x" * 100))
    assert input_size(str(plain)) == 100
    assert input_size(str(packed)) is None
    assert input_size("-") is None
    assert input_size(str(tmp_path / "missing.conllu")) is None


def test_on_timeout_lift_is_bounded_too(tmp_path):
    """A random tree of 1,500 words needs hundreds of lifts (over a minute): the lifting gets its own budget."""
    path = _scattered_input(tmp_path)
    out = tmp_path / "out.conllu"
    start = time.perf_counter()
    result = invoke("projectivize", path, "--max-seconds", "0.3", "--on-timeout", "lift", "-o", out)
    assert time.perf_counter() - start < 10
    assert result.exit_code == 0, result.stderr
    assert "lifting ran out of time too for 1, left out" in result.stderr
    assert [s.sent_id for s in read_treebank(str(out))] == ["short-1"]


def _scattered_input(tmp_path):
    """A short tree and a random 1,500-word tree whose arcs mostly cross (hundreds of lifts: over a minute)."""
    rng = random.Random(5)
    heads = [-1, 0] + [rng.randrange(1, d) for d in range(2, 1501)]
    perm = list(range(1, 1501))
    rng.shuffle(perm)
    position = {w: i + 1 for i, w in enumerate(perm)}
    scattered = [-1] * 1501
    for w in range(1, 1501):
        scattered[position[w]] = 0 if heads[w] == 0 else position[heads[w]]
    path = tmp_path / "scattered.conllu"
    path.write_text(conllu([-1, 2, 0, 2], "short-1") + conllu(scattered, "scattered-1"))
    return path


def test_pseudo_projectivization_is_bounded_by_max_seconds(tmp_path):
    """Pseudo-projectivization is not linear-time: --max-seconds bounds it, skip by default, fail on request."""
    path, out = _scattered_input(tmp_path), tmp_path / "out.conllu"
    start = time.perf_counter()
    result = invoke("projectivize", path, "--method", "pseudo", "--max-seconds", "0.3", "--report", "-o", out)
    assert time.perf_counter() - start < 10
    assert result.exit_code == 0, result.stderr
    assert "1 sentence ran out of time (--max-seconds 0.3) and was left out: scattered-1" in result.stderr
    assert [s.sent_id for s in read_treebank(str(out))] == ["short-1"]
    failed = invoke("projectivize", path, "--method", "pseudo", "--max-seconds", "0.3", "--on-timeout", "fail",
                    "-o", tmp_path / "f.conllu")
    assert failed.exit_code == 2
    assert "scattered.conllu:6: pseudo-projectivization ran out of time (--max-seconds 0.3)" in failed.stderr
    refused = invoke("projectivize", path, "--method", "pseudo", "--max-seconds", "1", "--on-timeout", "lift")
    assert refused.exit_code == 2 and "applies to --method optimal only" in refused.stderr


def test_report_comparison_is_bounded_too(tmp_path):
    """The report runs the other method per sentence: under the budget, one it cannot finish is not compared.

    One crossing arc in 1,500 words: pseudo-projectivization lifts once (fast),
    the optimal DP the report compares with is cubic (minutes unbounded).
    """
    n = 1500
    heads = [-1, 3, 0, 2, 2] + [w - 1 for w in range(5, n + 1)]
    path, out = tmp_path / "one_cross.conllu", tmp_path / "out.conllu"
    path.write_text(conllu(heads, "one-cross"))
    start = time.perf_counter()
    result = invoke("projectivize", path, "--method", "pseudo", "--max-seconds", "0.3", "--format", "json", "-o", out)
    assert time.perf_counter() - start < 20
    assert result.exit_code == 0, result.stderr
    total = json.loads(result.stderr[result.stderr.index("{"):])["total"]
    assert total["timed_out"] == 0 and total["arcs_changed"] == 1  # the sentence itself was pseudo-projectivized
    assert total["optimal_accuracy"] is None and total["pseudo_head_accuracy"] is None  # a measure over nothing
