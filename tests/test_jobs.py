"""``--jobs N``: the output, reports, errors and skip counts of a run in worker processes are those of ``--jobs 1``.

The reference is the one-process run, which the other test files check
against independent derivations; here the workers are forced on from the
first sentence (``START_SENTENCES`` of zero), so the parallel path is the one compared.
Inputs are small slices so the file stays fast.  The workers start by fork
here (pytest runs one thread); the tests marked with ``method`` run with
spawned workers too, the start method of a process that runs threads.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from contextlib import nullcontext
from pathlib import Path

import pytest

import treetool.parallel as parallel
from conftest import SAMPLE_DATA, force_workers, run_cli, shared_path
from treetool.budget import SentenceTimeout
from treetool.errors import WorkerDied
from treetool.parallel import Outcome, SentencePool, resolve_jobs
from treetool.projectivization import driver
from treetool.projectivization.driver import solve_tree

EWT = ("data", "ud-2.2", "UD_English-EWT", "en_ewt-ud-dev.conllu")


@pytest.fixture
def forced(monkeypatch) -> list[int]:
    """Workers start after the first task and take over; returns the list of pool starts (one entry per start)."""
    return force_workers(monkeypatch)


@pytest.fixture(params=["fork", "spawn"])
def method(request, monkeypatch) -> str:
    """Each start method in turn: what :func:`parallel.start_method` answers."""
    monkeypatch.setattr(parallel, "start_method", lambda: request.param)
    return request.param


def sentences(path: Path, count: int, skip: int = 0) -> bytes:
    """``count`` sentences of ``path`` after the first ``skip`` (blocks separated by a blank line)."""
    blocks = path.read_bytes().split(b"\n\n")
    return b"\n\n".join(blocks[skip:skip + count]) + b"\n\n"


@pytest.fixture
def real(tmp_path) -> Path:
    """120 sentences of English-EWT dev (non-projective trees included)."""
    path = tmp_path / "ewt.conllu"
    path.write_bytes(sentences(shared_path(*EWT), 120, skip=200))
    return path


def with_bad_sentences(path: Path, out: Path) -> Path:
    """``path`` with a non-numeric HEAD in sentence 40 and a HEAD out of range in sentence 80."""
    blocks = path.read_bytes().split(b"\n\n")
    for index, head in ((40, b"x"), (80, b"999")):
        lines = blocks[index].split(b"\n")
        row = next(i for i, line in enumerate(lines) if line[:1].isdigit())
        fields = lines[row].split(b"\t")
        fields[6] = head
        lines[row] = b"\t".join(fields)
        blocks[index] = b"\n".join(lines)
    out.write_bytes(b"\n\n".join(blocks))
    return out


def both(tmp_path: Path, *args: object, files: tuple[str, ...] = ()) -> tuple:
    """Run ``args`` with --jobs 1 and --jobs 2; each run's (status, stdout, stderr, files written), paths made equal."""
    results = []
    for jobs in ("1", "2"):
        where = tmp_path / f"j{jobs}"
        where.mkdir()
        given = [str(a).replace("{out}", str(where)) for a in args]
        result = run_cli(*given, "--jobs", jobs)
        written = {name: (where / name).read_bytes() if (where / name).exists() else None for name in files}
        results.append((result.returncode, result.stdout, result.stderr.replace(str(where).encode(), b"{out}"),
                        written))
    return tuple(results)


COMMANDS = {
    "projectivize --count": ["projectivize", "--count", "--report-file", "{out}/report.json"],
    "projectivize batched": ["projectivize", "--report", "--format", "json"],
    "projectivize pseudo": ["projectivize", "--method", "pseudo", "--scheme", "head+path", "--report", "--format", "json"],
    # oracle and coverage use workers only for a super-linear static oracle (swap's; see static_oracle_jobs).
    "oracle swap": ["oracle", "--system", "swap", "--format", "jsonl", "--labeled", "--report-file",
                    "{out}/report.json"],
    "coverage": ["coverage", "--system", "swap", "--format", "json"],
    "annotate explore": ["annotate", "--system", "arc-eager", "--policy", "explore", "--error-rate", "0.3",
                         "--seed", "7", "--labeled"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_two_jobs_write_what_one_job_writes(name, real, tmp_path, forced):
    args = COMMANDS[name]
    one, two = both(tmp_path, *args, real, SAMPLE_DATA / "en_sample.conllu", files=("report.json",))
    assert one[0] == 0, one[2]
    if "batched" not in name and "pseudo" not in name:  # pseudo has no DP to farm out; see the test below
        assert forced, "the workers never started"
    if name.startswith("projectivize"):  # the report's time per tree is a measurement, not a result
        one, two = (tuple(_drop_timing(part) for part in run) for run in (one, two))
    assert one == two
    assert one[1]  # something was written


def test_spawned_and_forked_workers_write_the_same(method, real, tmp_path, forced):
    one, two = both(tmp_path, "projectivize", "--count", real)
    assert one[0] == 0 and one[1] and forced
    assert one == two


def _drop_timing(part):
    if isinstance(part, bytes):
        return b"\n".join(line for line in part.split(b"\n") if b"ms_per_tree" not in line and b"\xe2" not in line)
    if isinstance(part, dict):
        return {k: _drop_timing(v) for k, v in part.items()}
    return part


def test_predicted_policy_stays_aligned(real, tmp_path, forced):
    """The predicted trees are taken in reading order (before the work is sent), skips included."""
    bad = with_bad_sentences(real, tmp_path / "bad.conllu")
    one, two = both(tmp_path, "annotate", bad, "--system", "arc-hybrid", "--policy", "predicted",
                    "--predicted", real, "--on-error", "skip", "--format", "tsv")
    assert one[0] == 0 and b"skipped 2 bad sentences" in one[2]
    assert one == two and forced


@pytest.mark.parametrize("args", [
    ["projectivize", "--count"], ["oracle", "--system", "swap"], ["coverage", "--system", "swap"],
    ["annotate", "--system", "arc-eager"],
])
def test_first_bad_sentence_stops_both_runs_alike(args, real, tmp_path, forced):
    bad = with_bad_sentences(real, tmp_path / "bad.conllu")
    one, two = both(tmp_path, *args, bad)
    assert one[0] == 2
    assert one[2].startswith(f"{bad}:".encode()) and b"found 'x'" in one[2]
    assert one == two and forced


@pytest.mark.parametrize("args", [
    ["projectivize", "--count", "--report", "--format", "json"],
    # Exact search on sentences of up to 5 words: the work itself rejects the longer ones, interleaved
    # with the reader's rejects; the rejects file keeps input order.
    ["annotate", "--system", "swap", "--max-length", "5"],
])
def test_skip_counts_and_rejects_are_the_same(args, real, tmp_path, forced):
    bad = with_bad_sentences(real, tmp_path / "bad.conllu")
    one, two = both(tmp_path, *args, bad, "--on-error", "skip", "--rejects", "{out}/rejects.conllu",
                    files=("rejects.conllu",))
    one, two = (tuple(_drop_timing(part) for part in run) for run in (one, two))
    assert one[0] == 0 and b"skipped" in one[2] and one[3]["rejects.conllu"]
    assert one == two and forced


def chain_sentence(n: int, sent_id: str) -> str:
    """A tree whose optimal DP takes seconds for n in the thousands: 0 -> 1 -> 3 -> ... -> n, 2 attached to 4."""
    heads = [-1, 0, 4, 1, *range(3, n)]
    rows = [f"# sent_id = {sent_id}"]
    rows += [f"{i}\tw\tw\tX\tX\t_\t{heads[i]}\t{'root' if heads[i] == 0 else 'dep'}\t_\t_" for i in range(1, n + 1)]
    return "\n".join(rows) + "\n\n"


@pytest.mark.parametrize("mode", ["skip", "fail"])
def test_timeouts_are_reported_alike(mode, real, tmp_path, forced):
    """A sentence far over its budget between ordinary ones: the same sentence times out with 2 jobs.

    The budget is 2 s: the long sentence needs about 6 s of CPU, an ordinary one milliseconds, so a loaded
    machine that stalls a worker for a second cannot time out another sentence (0.3 s could, at load 5).
    """
    path = tmp_path / "long.conllu"
    path.write_bytes(sentences(real, 30) + chain_sentence(3000, "long-1").encode() + sentences(real, 30, skip=30))
    one, two = both(tmp_path, "projectivize", path, "--count", "--max-seconds", "2", "--on-timeout", mode)
    assert b"long-1" in one[2] and one[0] == (2 if mode == "fail" else 0)
    assert one == two and forced


def busy(seconds: float) -> float:
    """Module-level work that keeps the CPU busy for ``seconds`` of CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def _starts(monkeypatch, items) -> tuple[bool, list]:
    """(whether a pool of 2 jobs over ``items`` of :func:`busy` started its workers, the results' keys and values)."""
    monkeypatch.setattr(SentencePool, "_start", lambda self, work: setattr(self, "_refused", True))
    with SentencePool(2) as pool:
        results = [(key, _value(outcome)) for key, outcome in pool.map(busy, items)]
        return pool._refused, results


@pytest.mark.parametrize("command", [["coverage", "--system", "swap"], ["annotate", "--system", "arc-eager"]])
def test_a_short_input_stays_in_one_process(command, monkeypatch, real):
    """120 sentences, the real rule: no workers (the pool's start is recorded, not run; swap's oracle would take
    them on a long input)."""
    starts = []
    monkeypatch.setattr(SentencePool, "_start", lambda self, work: starts.append(1))
    assert run_cli(command[0], real, *command[1:], "--jobs", "2").returncode == 0
    assert starts == []


@pytest.mark.parametrize("method_name", ["fork", "spawn"])
@pytest.mark.parametrize("cost", [0.0, 2e-3])
def test_workers_start_once_more_than_start_sentences_are_read(method_name, cost, monkeypatch):
    """The rule counts sentences read (items, with or without work), never their cost: 500 (forked) or 5,000
    (spawned) stay in this process, one more starts the workers, cheap or costly."""
    monkeypatch.setattr(parallel, "start_method", lambda: method_name)
    limit = {"fork": 500, "spawn": 5000}[method_name]
    assert parallel.START_SENTENCES[method_name] == limit
    monkeypatch.setattr(parallel, "START_SENTENCES", {method_name: 20})  # the same rule, a short input for tests
    for count, started in ((20, False), (21, True)):
        items = [(i, None if i % 3 == 0 else cost) for i in range(count)]
        assert _starts(monkeypatch, items) == (started, [(i, None if i % 3 == 0 else cost) for i in range(count)])


def test_one_job_never_reads_ahead(monkeypatch):
    """With ``--jobs 1`` each result comes back before the next sentence is read (a pipe's output streams)."""
    read: list[int] = []

    def items():
        for i in range(30):
            read.append(i)
            yield i, i

    with SentencePool(1) as pool:
        for key, outcome in pool.map(square_or_timeout, items()):
            assert read[-1] == key and _value(outcome) == (("timeout", 1.5) if key % 7 == 3 else key * key)


def test_the_sentences_read_count_over_the_run_not_the_file(monkeypatch):
    """Files of a run read one by one (``projectivize``) or as a stream (``map_files``): their sentences add up."""
    monkeypatch.setattr(parallel, "START_SENTENCES", {"fork": 20, "spawn": 20})
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    monkeypatch.setattr(SentencePool, "_start", lambda self, work: setattr(self, "_refused", True))
    with SentencePool(2) as pool:
        for _ in pool.map(square_or_timeout, ((i, i) for i in range(15))):
            pass
        assert not pool._refused
        for _ in pool.map(square_or_timeout, ((i, i) for i in range(6))):
            pass
        assert pool._refused
    for each, started in ((10, False), (11, True)):  # the marks between inputs are not sentences
        files = [(name, [((name, i), i) for i in range(each)]) for name in "ab"]
        with SentencePool(2) as pool:
            for _, results in pool.map_files(square_or_timeout, files):
                list(results)
            assert pool._refused == started


@pytest.mark.parametrize("count, started", [(500, False), (501, True)])
def test_more_than_500_sentences_start_the_workers(count, started, monkeypatch, tmp_path):
    """The documented rule, through the command line (the pool's start is recorded, not run)."""
    starts = []
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    monkeypatch.setattr(SentencePool, "_start", lambda self, work: starts.append(setattr(self, "_refused", True)))
    path = tmp_path / "input.conllu"
    path.write_bytes(sentences(shared_path(*EWT), count))
    assert run_cli("annotate", path, "--system", "arc-eager", "--jobs", "2", "-o", os.devnull).returncode == 0
    assert len(starts) == int(started)


def test_an_input_failing_during_the_read_ahead_fails_after_its_items(monkeypatch):
    """The read-ahead keeps the reader's exception in its place: after every item before it, workers unstarted."""
    def items():
        yield from ((i, i) for i in range(10))
        raise OSError("input broke")

    seen = []
    with SentencePool(2) as pool, pytest.raises(OSError, match="input broke"):
        for key, outcome in pool.map(square_or_timeout, items()):
            seen.append(key)
    assert seen == list(range(10)) and pool._executor is None


@pytest.mark.parametrize("system, started", [("arc-standard", False), ("attardi", False), ("swap", True)])
@pytest.mark.parametrize("command", ["oracle", "coverage"])
def test_oracle_and_coverage_use_workers_only_for_a_super_linear_static_oracle(command, system, started, real,
                                                                              forced):
    """Declared, not measured: a linear static oracle's walk costs less than its trip to a worker."""
    assert run_cli(command, real, "--system", system, "--jobs", "2").returncode == 0
    assert bool(forced) == started


def test_jobs_zero_is_every_usable_core_and_negative_is_refused(real):
    assert resolve_jobs(0) == len(os.sched_getaffinity(0))
    result = run_cli("oracle", real, "--jobs", "-1")
    assert result.returncode == 2 and b"--jobs" in result.stderr


# ---------------------------------------------------------------- the pool itself


def square_or_timeout(x: int) -> int:
    """Module-level (picklable) work: x*x, or a timeout for x = 3 mod 7."""
    if x % 7 == 3:
        raise SentenceTimeout(1.5)
    return x * x


def test_pool_hands_back_in_order_with_errors_and_reports(method, forced):
    reported: list[Exception] = []
    seen: list[object] = []
    with SentencePool(2, on_error=reported.append) as pool:
        def items():
            for i in range(300):
                if i == 150:
                    pool.report(ValueError("bad"))  # as a reader does: a bad sentence between 149 and 150
                yield i, (None if i % 5 == 0 else i)
            raise OSError("input broke")

        with pytest.raises(OSError, match="input broke"):
            for key, outcome in pool.map(square_or_timeout, items()):
                if key == 149:
                    assert reported == [], "a report came out before the items read before it"
                if key == 150:
                    assert len(reported) == 1
                seen.append((key, _value(outcome)))
        assert pool._sent
    assert [key for key, _ in seen] == list(range(300))  # every item before the input's failure
    for key, value in seen:
        expected = None if key % 5 == 0 else ("timeout", 1.5) if key % 7 == 3 else key * key
        assert value == expected


def test_map_files_keeps_the_workers_busy_across_the_inputs(forced):
    """Several inputs as one stream: each input's results come back in order and grouped (an empty input
    included); the next input is read while the previous one's results are still being handed back, which
    one map per input (the workers drained at every file's end) could not do; a failing input's error comes
    after every earlier result, and what a caller leaves of an input is skipped."""
    opened: list[str] = []

    def items(name: str, count: int, fail: bool = False):
        opened.append(name)
        for i in range(count):
            yield (name, i), i
        if fail:
            raise OSError(f"{name} broke")

    files = [("a", items("a", 40)), ("empty", items("empty", 0)), ("b", items("b", 40)),
             ("c", items("c", 5, fail=True))]
    seen: dict[str, list[object]] = {}
    opened_before_a_ended = None
    with SentencePool(2) as pool:
        with pytest.raises(OSError, match="c broke"):
            for name, results in pool.map_files(square_or_timeout, files):
                seen[name] = []
                for (owner, i), outcome in results:
                    assert owner == name
                    seen[name].append(_value(outcome))
                    if name == "a" and i == 39:
                        opened_before_a_ended = list(opened)
                    if name == "b" and i == 2:
                        break  # the rest of b is skipped, c still comes
        assert pool._sent
    expected = [("timeout", 1.5) if i % 7 == 3 else i * i for i in range(40)]
    assert seen["a"] == expected and seen["empty"] == [] and seen["b"] == expected[:3]
    assert seen["c"] == expected[:5]
    assert opened_before_a_ended is not None and "b" in opened_before_a_ended


def test_fork_only_when_this_process_runs_one_thread():
    """A thread may hold a lock at the fork (module doc of treetool.parallel): then workers are spawned."""
    if sys.platform == "darwin":
        assert parallel.start_method() == "spawn"
        return
    assert threading.active_count() == 1 and parallel.start_method() == "fork"
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert parallel.start_method() == "spawn"
    finally:
        release.set()
        thread.join()


@pytest.mark.parametrize("ending", ["unused", "error"])
def test_a_pool_stopped_at_once_leaves_one_thread_so_the_next_can_fork(ending, forced):
    """Workers stopped without joining (never sent work, or the run failed): the executor's thread is gone too."""
    with pytest.raises(KeyError) if ending == "error" else nullcontext():
        with SentencePool(2) as pool:
            for _ in pool.map(busy, ((i, None if ending == "unused" else 1e-3) for i in range(50))):
                pass
            assert pool._executor is not None and (pool._sent == 0) == (ending == "unused")
            if ending == "error":
                raise KeyError("the caller failed")
    assert threading.active_count() == 1 and parallel.start_method() == "fork"


def test_forked_workers_leave_unwritten_output_alone(tmp_path, forced):
    """A buffered output holding unwritten bytes at the fork gets them once: a worker never flushes its copy."""
    if parallel.start_method() != "fork":
        pytest.skip("workers are not forked here")
    path = tmp_path / "out.txt"
    with path.open("w") as out:
        out.write("written before the workers\n")  # still in the buffer when they fork
        with SentencePool(2) as pool:
            squares = [outcome.get() for _, outcome in pool.map(square_or_timeout, ((i, i) for i in range(0, 60, 7)))]
            assert pool._sent
        out.write("after\n")
    assert forced and squares == [i * i for i in range(0, 60, 7)]
    assert path.read_text() == "written before the workers\nafter\n"


#: Opened by the taper test once the input has ended, and the count of tasks the workers ran; forked workers
#: inherit both.
GATE = multiprocessing.get_context("fork").Event() if hasattr(os, "fork") else None
RUN_IN_WORKERS = multiprocessing.get_context("fork").Value("i", 0) if hasattr(os, "fork") else None


def gated_square(x: int) -> int:
    """Module-level work that, in a worker, waits for :data:`GATE` (no worker gets past its first task before the
    input ends) and counts itself."""
    if multiprocessing.parent_process() is not None:
        GATE.wait(10)
        with RUN_IN_WORKERS.get_lock():
            RUN_IN_WORKERS.value += 1
    return x * x


def test_chunks_no_worker_began_are_sent_again_in_pieces_at_the_end(monkeypatch, forced):
    """Once the input has ended, the chunks still waiting are cancelled and sent again a ``TAPER``-th at a time;
    every result still comes back once, in order, items without work included."""
    if parallel.start_method() != "fork":
        pytest.skip("workers are not forked here")
    monkeypatch.setattr(SentencePool, "_chunk_size", lambda self: 8)
    monkeypatch.setattr(parallel, "WINDOW_PER_JOB", 8)  # the input ends before any result is taken
    sent: list[int] = []
    submit, tapered = SentencePool._submit, SentencePool._tapered

    def recorded(self, work, batch, tasks):
        sent.append(len(tasks))
        return submit(self, work, batch, tasks)

    def then_open(self, *args):
        try:
            return tapered(self, *args)
        finally:
            GATE.set()

    monkeypatch.setattr(SentencePool, "_submit", recorded)
    monkeypatch.setattr(SentencePool, "_tapered", then_open)
    GATE.clear()
    RUN_IN_WORKERS.value = 0
    def items():
        yield from ((i, None if i % 3 == 0 else i) for i in range(121))  # 80 tasks: ten chunks of 8
        time.sleep(0.2)  # the executor's thread hands chunks out to the waiting workers before the input ends

    try:
        with SentencePool(2) as pool:
            results = [(key, _value(outcome)) for key, outcome in pool.map(gated_square, items())]
            assert pool._sent == len(sent)
    finally:
        GATE.set()
    assert results == [(i, None if i % 3 == 0 else i * i) for i in range(121)]
    assert RUN_IN_WORKERS.value == 80, "every task sent to the workers ran once: none of a begun chunk again"
    assert sent[:10] == [8] * 10, "the chunks read before the end are sent whole"
    pieces = sent[10:]
    # The workers wait in their first task, so at most five chunks have left the executor's queue (two running,
    # three in its call queue, one more than there are workers), where they can no longer be cancelled: five to
    # ten chunks (all, when the executor's thread had handed out none yet) are sent again as four pieces of two tasks.
    assert len(pieces) >= 5 * parallel.TAPER and set(pieces) == {8 // parallel.TAPER}


def test_split_keeps_every_item_in_order_with_tasks_shared_out_evenly():
    chunk = parallel._Chunk()
    for i in range(30):
        has_task = i % 4 != 1
        chunk.keys.append((i, has_task))
        if has_task:
            chunk.tasks.append(-i)
    pieces = chunk.split(4)  # 22 tasks: 6, 6, 6, 4
    assert [len(piece.tasks) for piece in pieces] == [6, 6, 6, 4]
    assert [key for piece in pieces for key in piece.keys] == chunk.keys
    for piece in pieces:
        assert piece.tasks == [-key for key, has_task in piece.keys if has_task] and piece.future is None
    assert [len(piece.tasks) for piece in chunk.split(8)] == [3] * 7 + [1]
    assert len(chunk.split(40)) == 22


def test_chunks_are_first_chunk_tasks_until_a_cost_is_reported_then_chunk_seconds_of_work():
    pool = SentencePool(3)
    assert pool._chunk_size() == parallel.FIRST_CHUNK
    pool._task_seconds = parallel.CHUNK_SECONDS / 100  # a hundred tasks per chunk
    assert pool._chunk_size() == 100
    pool._task_seconds = parallel.CHUNK_SECONDS * 10  # one costly task: a chunk of its own
    assert pool._chunk_size() == 1
    pool._task_seconds = parallel.CHUNK_SECONDS / 1e6
    assert pool._chunk_size() == parallel.MAX_CHUNK


def _value(outcome: Outcome | None) -> object:
    if outcome is None:
        return None
    try:
        return outcome.get()
    except SentenceTimeout as err:  # rebuilt in this process with its attributes
        return ("timeout", err.seconds)


# ---------------------------------------------------------------- a worker that dies


def square_or_die(x: int) -> int:
    """Module-level work that kills its own process (as the OOM killer would) at x = 40."""
    if x == 40:
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


def test_pool_names_a_killed_worker(method, forced):
    with SentencePool(2) as pool, pytest.raises(WorkerDied, match="killed by SIGKILL"):
        for _ in pool.map(square_or_die, ((i, i) for i in range(100))):
            pass


def solve_or_die(options, heads):
    """``solve_tree``, except in a worker process, which it kills."""
    if multiprocessing.parent_process() is not None:
        os.kill(os.getpid(), signal.SIGKILL)
    return solve_tree(options, heads)


def test_a_killed_worker_is_one_line_not_a_traceback(real, monkeypatch, forced):
    monkeypatch.setattr(driver, "solve_tree", solve_or_die)
    result = run_cli("projectivize", "--count", real, "--jobs", "2", "-o", os.devnull)
    assert result.returncode == 1
    assert result.stderr.startswith(b"treetool: error: a --jobs worker process was killed by SIGKILL")
    assert result.stderr.count(b"\n") == 1


ORPHANED = """
import os, signal
from treetool import parallel
parallel.START_SENTENCES = {"fork": 0, "spawn": 0}
with parallel.SentencePool(2) as pool:
    for _ in pool.map(abs, ((i, -i) for i in range(100))):
        pass
    print(*pool._executor._processes, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has: nobody may be reaping it here)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes' states from /proc")
def test_workers_end_when_their_main_process_is_killed(tmp_path):
    """A main process killed outright (SIGKILL) cleans nothing up: its workers notice it is gone and end, where
    they would otherwise wait for work for ever (and hold open the pipes they inherited)."""
    import subprocess

    printed, said = tmp_path / "pids", tmp_path / "stderr"
    with printed.open("w") as out, said.open("w") as err:  # files, not pipes: the workers would hold a pipe open
        done = subprocess.run([sys.executable, "-c", ORPHANED], stdout=out, stderr=err, timeout=60)
    assert done.returncode == -signal.SIGKILL, said.read_text()
    workers = [int(pid) for pid in printed.read_text().split()]
    assert len(workers) == 2
    deadline = time.monotonic() + 30  # they check twice a second: far more than enough on any machine
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(_running, workers))



HALF_SENT = """
import os, signal, struct, sys, time
from treetool import parallel
parallel.START_SENTENCES = {"fork": 0, "spawn": 0}
signal.signal(signal.SIGINT, signal.default_int_handler)


def stall(task):
    if task == 0:  # half a result sent, then Ctrl-C for the main process while this worker is still sending
        frame = sys._getframe()
        while frame.f_code.co_name != "_process_worker":
            frame = frame.f_back
        os.write(frame.f_locals["result_queue"]._writer.fileno(), struct.pack("!i", 1 << 20) + b"half")
        if sys.argv[1] == "killed":  # by the out-of-memory killer, say
            os.kill(os.getpid(), signal.SIGKILL)
        os.kill(os.getppid(), signal.SIGINT)
        time.sleep(600)
    return task


try:
    with parallel.SentencePool(2) as pool:
        for _ in pool.map(stall, ((i, i) for i in range(100))):
            pass
except (KeyboardInterrupt, parallel.WorkerDied) as err:
    print(type(err).__name__, flush=True)
"""


@pytest.mark.parametrize("how, ending", [("interrupted", b"KeyboardInterrupt"), ("killed", b"WorkerDied")])
def test_a_worker_stopped_while_it_sends_a_result_ends_the_run(how, ending):
    """A run that stops early (Ctrl-C, a bad sentence in fail mode) stops its workers; one stopped halfway
    through sending a result left the executor's thread waiting for the rest for ever, and the interpreter's
    exit waits for that thread: `annotate BAD --jobs 2` printed its error and often never ended. A worker
    killed so (out of memory) left the run waiting for its result for ever."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", HALF_SENT, how], capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout == ending + b"\n", done.stderr.decode()
