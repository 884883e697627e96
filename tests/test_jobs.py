"""``--jobs N``: the output, reports, errors and skip counts of a run in worker processes are those of ``--jobs 1``.

The reference is the one-process run, which the other test files check
against independent derivations; here the workers are forced on from the
first sentence (warm-up of zero), so the parallel path is the one compared.
Inputs are small slices so the file stays fast.  The workers start by fork
here (pytest runs one thread); the tests marked with ``method`` run with
spawned workers too, the start method of a process that runs threads.
"""

from __future__ import annotations

import gzip
import multiprocessing
import os
import re
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
from treetool.treebank import ReadShare, read_treebank

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
    "oracle attardi": ["oracle", "--system", "attardi", "--format", "jsonl", "--labeled", "--report-file",
                       "{out}/report.json"],
    "coverage": ["coverage", "--system", "attardi", "--degree", "1", "--format", "json"],
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
    ["projectivize", "--count"], ["oracle"], ["coverage"], ["annotate", "--system", "arc-eager"],
])
def test_first_bad_sentence_stops_both_runs_alike(args, real, tmp_path, forced):
    bad = with_bad_sentences(real, tmp_path / "bad.conllu")
    one, two = both(tmp_path, *args, bad)
    assert one[0] == 2
    assert one[2].startswith(f"{bad}:".encode()) and b"found 'x'" in one[2]
    assert one == two


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


def test_cheap_small_runs_stay_in_one_process(monkeypatch, real):
    """With the real thresholds a small input never pays for workers."""
    starts = []
    monkeypatch.setattr(SentencePool, "_start", lambda self, work: starts.append(1))
    assert run_cli("coverage", real, "--jobs", "2").returncode == 0
    assert starts == []


def busy(seconds: float) -> float:
    """Module-level work that keeps the CPU busy for ``seconds`` of CPU time (as the pool times work)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


@pytest.mark.parametrize("task_seconds, started", [(20e-6, False), (2e-3, True)])
def test_workers_start_only_for_tasks_worth_sending(monkeypatch, task_seconds, started):
    """Past the warm-up, tasks much cheaper than their transfer stay here; costly ones go to workers."""
    monkeypatch.setattr(parallel, "WARMUP_SECONDS", 0.005)  # a window of 10 ms of work: the mean of many tasks
    monkeypatch.setattr(parallel, "MIN_WORK_SHARE", 0.0)
    assert 20e-6 < parallel.MIN_TASK_SECONDS < 2e-3
    with SentencePool(2) as pool:
        for _ in pool.map(busy, ((i, task_seconds) for i in range(2000))):
            pass
        assert (pool._executor is not None) == started


def _workers_started(costs: list[float], unread, monkeypatch, jobs: int = 2) -> tuple[int, int]:
    """(workers a pool of ``jobs`` starts, tasks read by then; 0, all when none) over tasks of ``costs`` seconds,
    the input's unread share after ``n`` tasks read being ``unread(n)``."""
    monkeypatch.setattr(parallel, "MIN_WORK_SHARE", 0.0)
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")  # whatever threads an earlier test left
    monkeypatch.setattr(SentencePool, "_start", lambda self, work: setattr(self, "_refused", True))
    read = [0]

    def items():
        for read[0], cost in enumerate(costs, 1):
            yield read[0], cost

    with SentencePool(jobs, unread=lambda: unread(read[0])) as pool:
        for _ in pool.map(busy, items()):
            if pool._refused:
                return pool.jobs, read[0]
    return 0, read[0]


def test_a_known_long_input_starts_the_workers_after_a_short_warm_up(monkeypatch):
    """With the size known and most of the input unread, 20 ms of work decide (not 50 ms per worker)."""
    assert parallel.KNOWN_SIZE_WARMUP_SECONDS < 2e-3 * 15 < 2 * parallel.WARMUP_SECONDS
    assert _workers_started([2e-3] * 15, lambda n: 0.99, monkeypatch)[0] == 2
    assert _workers_started([2e-3] * 15, lambda n: None, monkeypatch)[0] == 0


def test_a_known_short_input_never_pays_for_workers(monkeypatch):
    """Expensive tasks, but the unread share says little work is left: no workers; unknown size: workers."""
    work_left = 0.4 * 0.01 / 0.99  # after 0.4 s of work with 1% of the input unread
    assert work_left < parallel.PAYBACK * parallel.START_SECONDS["fork"] * 2
    assert _workers_started([2e-3] * 200, lambda n: 0.01, monkeypatch)[0] == 0
    assert _workers_started([2e-3] * 200, lambda n: None, monkeypatch)[0] == 2


@pytest.mark.parametrize("before", [0, 500])
def test_one_costly_sentence_does_not_make_a_short_input_long(before, monkeypatch):
    """One task of 50 ms among 999 of 50 microseconds (0.1 s in all), first or halfway: it alone promises seconds."""
    costs = [50e-6] * before + [50e-3] + [50e-6] * (999 - before)
    assert _workers_started(costs, lambda n: 1 - n / 1000, monkeypatch)[0] == 0


@pytest.mark.parametrize("count, cost", [(300, 2e-3), (20, 30e-3)])
def test_costly_sentences_at_the_end_still_start_the_workers(count, cost, monkeypatch):
    """An input sorted by length: 95% of it costs almost nothing, its last 5% (0.6 s) repays workers, whether its
    sentences are many and short or few and long (one to a window: the window's rate is not a single outlier)."""
    def unread(n: int) -> float:
        return 1 - 0.95 * min(n, 2000) / 2000 - 0.05 * max(n - 2000, 0) / count

    workers, read = _workers_started([2e-6] * 2000 + [cost] * count, unread, monkeypatch)
    assert workers == 2 and unread(read) > 0.01


def test_as_many_workers_start_as_the_work_left_repays(monkeypatch):
    """``--jobs 16`` over 1 s of work: some workers, not none (16 would not be repaid PAYBACK times)."""
    assert 1.0 < parallel.PAYBACK * parallel.START_SECONDS["fork"] * 16
    workers, _ = _workers_started([2e-3] * 500, lambda n: 1 - n / 500, monkeypatch, jobs=16)
    assert 2 <= workers <= 1.0 / (parallel.PAYBACK * parallel.START_SECONDS["fork"])  # 1 s repays at most 10


@pytest.mark.parametrize("args", [["projectivize", "--count"], ["oracle"], ["coverage"],
                                  ["annotate", "--system", "arc-standard"]])
def test_commands_tell_the_pool_how_much_input_is_left(args, tmp_path, monkeypatch):
    """Each ``--jobs`` command gives its pool the unread share: none left after a plain file, unknown for gzip."""
    told = []
    init = SentencePool.__init__

    def recording(self, *given, unread=None, **options):
        told.append(unread)
        init(self, *given, unread=unread, **options)

    monkeypatch.setattr(SentencePool, "__init__", recording)
    plain = SAMPLE_DATA / "en_sample.conllu"
    packed = tmp_path / "en_sample.conllu.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path, left in ((plain, 0.0), (packed, None)):
        assert run_cli(args[0], path, *args[1:], "--jobs", "2").returncode == 0
        assert told[-1] is not None and told[-1]() == left


def test_read_share_is_the_share_of_the_inputs_bytes_not_read_yet(tmp_path):
    first, second = SAMPLE_DATA / "en_sample.conllu", SAMPLE_DATA / "de_sample.conllu"
    data, total = first.read_bytes(), first.stat().st_size + second.stat().st_size
    ends = [match.end() for match in re.finditer(rb"\n\n", data)]  # each sentence ends with its blank line
    share = ReadShare([str(first), str(second)])
    assert share.unread() == 1.0
    for end, _ in zip(ends, share.count(read_treebank(str(first)))):
        assert share.unread() == pytest.approx(1 - end / total)
    assert share.unread() == pytest.approx(second.stat().st_size / total)
    for _ in share.count(read_treebank(str(second))):
        pass
    assert share.unread() == 0.0
    packed = tmp_path / "a.conllu.gz"
    packed.write_bytes(gzip.compress(data))
    assert ReadShare([str(first), str(packed)]).unread() is None
    assert ReadShare(["-"]).unread() is None


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
        assert pool.parallel
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
        assert pool.parallel
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
            for _ in pool.map(busy, ((i, 1e-3) for i in range(1 if ending == "unused" else 50))):
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
            assert pool.parallel
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
        yield from ((i, None if i % 3 == 0 else i) for i in range(122))  # 81 tasks: one here, ten chunks of 8
        time.sleep(0.2)  # the executor's thread hands chunks out to the waiting workers before the input ends

    try:
        with SentencePool(2) as pool:
            results = [(key, _value(outcome)) for key, outcome in pool.map(gated_square, items())]
            assert pool._sent == len(sent)
    finally:
        GATE.set()
    assert results == [(i, None if i % 3 == 0 else i * i) for i in range(122)]
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


def test_the_first_chunks_are_a_taper_smaller():
    """A worker waits while this process reads its first chunk: the first ``jobs`` chunks are a quarter of the rest."""
    pool = SentencePool(3)
    pool._task_seconds = parallel.CHUNK_SECONDS / 100  # a hundred tasks per chunk
    sizes = []
    for _ in range(5):
        sizes.append(pool._chunk_size())
        pool._sent += 1
    assert sizes == [100 // parallel.TAPER] * 3 + [100] * 2


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
