"""An ordered parallel map over sentences: the machinery behind ``--jobs N``.

Every command that takes ``--jobs`` is a per-sentence map: each sentence's
work (a DP, an oracle walk) depends on that sentence only.  :class:`SentencePool`
runs that work in worker processes, in chunks, and hands the results back
in input order, so the output, the reports, the skip counts and the first
error are those of a run in one process.  The parts:

* The work is ``work(task)``, a picklable module-level function (or a
  ``functools.partial`` of one) applied to a small picklable ``task``
  (head lists, not whole sentences: what crosses a pipe is paid twice).
  What stays in the main process (the sentence, its position) is the
  ``key`` paired with the task; a task of ``None`` has no work and keeps its
  place in the stream.
* Whatever ``work`` raises is captured per task (an :class:`Outcome`) and
  raised by :meth:`Outcome.get` in the main process when that task's turn
  comes, so ``--on-error``, ``--max-seconds`` and warnings see the same
  sequence of events as with one process.  An exception raised by the input
  itself (the reader) waits likewise until every earlier task is handed
  back, and so does a bad sentence the reader reports to its ``on_error``
  (:meth:`SentencePool.report`).
* ``batch``, when given, does the work of a list of tasks at once (the
  batched projectivization DP); it must give what ``work`` gives.
* Memory is constant: at most ``WINDOW_PER_JOB * jobs`` chunks are
  outstanding, each of at most ``MAX_CHUNK`` tasks and ``MAX_KEYS`` items
  (at the input's end some may be cut in pieces: the same items).
* Small or cheap runs do not pay for workers: sentences are processed in
  the main process first, timing the work, and the workers start only when
  the work took at least ``MIN_WORK_SHARE`` of the process's CPU time
  (reading and writing stay in the main process, so below that share
  workers cannot win much), a task costs on average ten times what sending
  it to a worker and back costs (``MIN_TASK_SECONDS``), and the work pays
  for their start; checked after a warm-up, and again after every further
  one.  This is the break-even rule of renting versus buying, with a margin.
  When the input's size is unknown (stdin, a pipe, a compressed file), the
  work must first have cost 2.5 times what starting the workers costs
  (``WARMUP_SECONDS`` per worker when they are forked, in proportion to
  ``START_SECONDS`` when spawned): starting them then costs at most 40% of
  the work done before, and an expensive run hands its work over after a
  tenth of a second (with the 2 s warm-up of spawned workers,
  ``projectivize --count`` over English-EWT train, 4 s in one process, could
  not get past 1.02x with 2 jobs).  When it is known (``unread``: regular
  uncompressed files), the warm-up is shorter (``KNOWN_SIZE_WARMUP_SECONDS``)
  and as many workers start as the work left repays ``PAYBACK`` times over
  (:meth:`SentencePool._work_left` estimates it from the work seen and the
  share of the input read), none when it repays fewer than two: on
  ``projectivize --count`` over English-EWT train they are forked 0.26-0.29 s
  into the run instead of 0.33-0.35 s (the run with 2 jobs ends about 0.04 s
  sooner), and an input too short to repay them does not start them (with
  the warm-up alone, its first 300-400 sentences took 8-12% longer with 2
  jobs than with 1; now the same time).  The estimate is a guess from the
  sentences seen: an input whose first part costs far more per byte than
  the rest (beyond its single costliest batch, which is left out) can still
  start workers it does not repay.
  The work goes on in the main process while the workers start, so a run
  that ends meanwhile does not wait for them.  Chunks are sized from the
  measured cost of a task, about ``CHUNK_SECONDS`` of work each, and
  re-sized from the CPU time the workers report for each chunk: every chunk
  costs a pickled round trip and a wake-up of the executor's threads
  (measured on ``annotate --system arc-standard`` over English-EWT train:
  20-60% more CPU than ``--jobs 1`` at 0.05 s per chunk, where the first,
  slower sentences made chunks of 1-3 sentences; none measurable at 0.3 s).
  Where a worker would otherwise wait on a whole chunk, chunks are ``TAPER``
  times smaller: the first ``jobs`` (read while the workers wait), and, once
  the input has ended, every chunk still waiting in the executor (cancelled
  and sent again in pieces; the ``jobs + 1`` in its call queue to the
  workers can no longer be cancelled), so the workers end together.
* A worker that dies (killed by a signal, out of memory) leaves the run
  incomplete: :class:`WorkerDied`, one line for the user, no traceback.

Start method: ``fork`` when it is safe, else ``spawn``.  A forked worker
costs about 0.02 s of CPU and has every module the work needs already
imported; a spawned one starts a fresh interpreter with the parent's
``sys.path`` and working directory and imports what the work needs (about
0.5 s of CPU each).  ``fork`` is used only where it is the platform's
ordinary method (Linux and the other Unixes, not macOS, whose system
libraries are not fork-safe) and when this process runs a single Python
thread: a thread (rich's progress display on a terminal, a host program's
own) may hold a lock at the fork, which the worker would then wait for
forever.  The buffered standard streams are flushed by
:mod:`multiprocessing` before it forks; other open outputs keep their
unwritten buffers in the worker's copy, which ends with ``os._exit`` and
never writes them.  ``forkserver`` is no cheaper than ``spawn`` for one run
(its server is a fresh interpreter) and in Python 3.11 starts without the
parent's ``sys.path`` unless modules are preloaded.

A corpus too large for one machine is not this module's business: split it
and run the same command per shard on any scheduler.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from .errors import WorkerDied

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
# concurrent.futures.process and multiprocessing (a twentieth of a second to import) are imported when
# workers start: most runs never start them.

K = TypeVar("K")
T = TypeVar("T")
R = TypeVar("R")

#: CPU seconds starting one worker costs, by start method (measured on this 2-core machine, the parent
#: having imported every command: 0.015 s in the parent and 0.01 s in each forked worker; 0.5-0.7 s for each
#: spawned interpreter to import numpy and the work's modules).
START_SECONDS = {"fork": 0.02, "spawn": 0.4}
#: Seconds of work done in the main process, per worker, before forked workers are considered (and between
#: re-checks): 2.5 times what starting them costs.  Spawned workers wait in proportion to their start cost, 2 s for
#: two (at 1 s, ``coverage --jobs 2`` over English-EWT train, 1.3 s in one process, started them and ran 28% slower).
WARMUP_SECONDS = 0.05
#: With the input's size known (``unread``), the warm-up is this many seconds of work in all (scaled like
#: ``WARMUP_SECONDS`` for spawned workers): enough tasks for a mean cost and for the work left to be estimated.
KNOWN_SIZE_WARMUP_SECONDS = 0.02
#: With the input's size known, workers start only when the work left (estimated as :meth:`SentencePool._work_left`
#: says) is at least this many times what starting them costs (``START_SECONDS`` per worker), and only as many as it
#: repays so: 2 jobs save about half of it, while the fork and the workers' first and last chunks cost the main
#: process a few hundredths of a second of wall time (measured: 0.04 s for 2 workers forked near the input's end).
PAYBACK = 5
#: Workers start only when the work took at least this share of this process's CPU time (CPU, not wall: on a
#: loaded machine the wall time counts the other processes' turns).
MIN_WORK_SHARE = 0.5
#: Workers start only for tasks costing at least this many seconds on average: ten times what it costs to send
#: one to a worker and take its outcome back (pickling both ways, in both processes: about 25 microseconds for a
#: sentence's head list), so the transfer takes at most a tenth of the gain.  Below it the transfer's CPU, taken
#: from the same cores, eats the gain: ``coverage`` (50 microseconds a sentence) took 48% more CPU with 2 forked
#: jobs over English-EWT train.
MIN_TASK_SECONDS = 250e-6
#: Work done in this process is handed to the warm-up rule per batch of this many tasks, or of this many seconds
#: (whichever comes first): one CPU-clock read per batch, and an expensive first sentence still counts at once.
SAMPLE_TASKS = 32
SAMPLE_SECONDS = 0.01
#: Seconds of work aimed at per chunk sent to a worker (amortises the pipe and pickling).
CHUNK_SECONDS = 0.25
#: Where a worker would wait for a whole chunk (the first ``jobs``, and, once the input has ended, every chunk still
#: waiting in the executor), chunks are this many times smaller (see :meth:`SentencePool._tapered`).
TAPER = 4
#: Tasks per chunk at most; keys (tasks and pass-through items) per chunk at most.
MAX_CHUNK = 1024
MAX_KEYS = 4096
#: Outstanding chunks per worker: enough to keep every worker busy behind one slow chunk.
WINDOW_PER_JOB = 4


def start_method() -> str:
    """``fork`` where it is the ordinary method and this process runs one thread, else ``spawn`` (module doc)."""
    if sys.platform == "darwin" or not hasattr(os, "fork"):
        return "spawn"
    return "fork" if threading.active_count() == 1 else "spawn"


def warmup_seconds(method: str, jobs: int, size_known: bool = False) -> float:
    """The work seen here before ``jobs`` workers started by ``method`` are considered: ``WARMUP_SECONDS`` per
    worker (``KNOWN_SIZE_WARMUP_SECONDS`` in all when the input's size tells the work left), scaled by what the
    method costs to start one."""
    seconds = KNOWN_SIZE_WARMUP_SECONDS if size_known else WARMUP_SECONDS * jobs
    return seconds * START_SECONDS[method] / START_SECONDS["fork"]


def resolve_jobs(jobs: int) -> int:
    """The number of processes for ``--jobs``: ``0`` means every core this process may run on."""
    if jobs < 0:
        raise ValueError(f"jobs must be 0 (all cores) or positive, not {jobs}")
    if jobs:
        return jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Outcome(NamedTuple, Generic[R]):
    """The result of one task, or what it raised (re-raised by :meth:`get`)."""

    value: Any = None
    error: BaseException | None = None

    def get(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


def attempt(work: Callable[[T], R], task: T) -> Outcome:
    """``work(task)`` as an :class:`Outcome` (an ``Exception`` is kept, not raised)."""
    try:
        return Outcome(work(task))
    except Exception as err:  # noqa: BLE001 -- handed to the main process, raised there in order
        return Outcome(error=err)


class _CarriedError:
    """An exception on its way back from a worker.

    Rebuilt without calling ``__init__`` (whose signature need not match
    ``args``, e.g. :class:`~treetool.budget.SentenceTimeout`), with its
    attributes and, as a note shown only in a traceback, where the worker
    raised it (a full formatted traceback costs a millisecond: too much for
    the expected errors, thousands per run with ``--on-error skip``).
    """

    def __init__(self, err: BaseException) -> None:
        self.type, self.args, self.state = type(err), err.args, dict(getattr(err, "__dict__", {}))
        self.where = _innermost(err.__traceback__)

    def rebuild(self) -> BaseException:
        err = self.type.__new__(self.type, *self.args)
        err.args = self.args
        err.__dict__.update(self.state)
        err.add_note(f"(raised in a worker process at {self.where})")
        return err


def _innermost(tb: TracebackType | None) -> str:
    """``file:line in function`` where a traceback ends (no source lines read)."""
    if tb is None:
        return "?"
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return f"{code.co_filename}:{tb.tb_lineno} in {code.co_name}"


def _portable(outcome: Outcome) -> Outcome:
    """``outcome`` made picklable: an error travels as a :class:`_CarriedError`
    (one that cannot be pickled as a RuntimeError naming it)."""
    if outcome.error is None:
        return outcome
    carried = _CarriedError(outcome.error)
    try:
        pickle.dumps(carried)
    except Exception:  # noqa: BLE001
        carried = _CarriedError(RuntimeError(f"{type(outcome.error).__name__}: {outcome.error}"))
    return Outcome(error=carried)  # type: ignore[arg-type]


def _received(outcome: Outcome) -> Outcome:
    error = outcome.error
    return Outcome(error=error.rebuild()) if isinstance(error, _CarriedError) else outcome


def _run_chunk(work: Callable[[Any], Any], batch: Callable[[list[Any]], list[Outcome]] | None,
               tasks: list[Any]) -> tuple[list[Outcome], float]:
    """In a worker: the outcomes of ``tasks``, made picklable, and the CPU seconds they took (for chunk sizes)."""
    start = time.process_time()
    outcomes = [_portable(outcome) for outcome in _solve(work, batch, tasks)]
    return outcomes, time.process_time() - start


def _solve(work: Callable[[Any], Any], batch: Callable[[list[Any]], list[Outcome]] | None,
           tasks: list[Any]) -> list[Outcome]:
    return batch(tasks) if batch is not None else [attempt(work, task) for task in tasks]


def _ready() -> None:
    """A no-op: done once a worker has started (see :meth:`SentencePool._start`)."""


def _worker_init() -> None:
    """Ctrl-C is the main process's to handle: it stops the workers itself; SIGTERM and SIGHUP end a worker
    at once (the command line's handlers, inherited by a fork, are for the main process's clean-up)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None and signal.getsignal(signum) not in (signal.SIG_IGN, None):
            signal.signal(signum, signal.SIG_DFL)


class _Reported(NamedTuple):
    """An error a reader reported to :attr:`SentencePool.report`, travelling in the stream in its place."""

    error: Exception


class _Chunk:
    """Consecutive items: every key, the tasks that have work, and the worker's result once sent."""

    __slots__ = ("keys", "tasks", "future")

    def __init__(self) -> None:
        self.keys: list[tuple[Any, bool]] = []  # (key, has a task)
        self.tasks: list[Any] = []
        self.future: Future | None = None

    def pairs(self, outcomes: list[Outcome]) -> Iterator[tuple[Any, Outcome | None]]:
        results = iter(outcomes)
        for key, has_task in self.keys:
            yield key, next(results) if has_task else None

    def split(self, count: int) -> list[_Chunk]:
        """The items as up to ``count`` consecutive chunks of about equal numbers of tasks (none sent)."""
        size = -(-len(self.tasks) // count)
        tasks = iter(self.tasks)
        pieces = [_Chunk()]
        for key, has_task in self.keys:
            piece = pieces[-1]
            if has_task and len(piece.tasks) == size:
                piece = _Chunk()
                pieces.append(piece)
            piece.keys.append((key, has_task))
            if has_task:
                piece.tasks.append(next(tasks))
        return pieces


class _FileStart(NamedTuple):
    """The mark :meth:`SentencePool.map_files` puts before an input's items (an item without a task)."""

    name: Any


def _tagged(files: Iterable[tuple[Any, Iterable[tuple[Any, Any]]]]) -> Iterator[tuple[Any, Any]]:
    for name, items in files:
        yield _FileStart(name), None
        yield from items


class _FileResults:
    """One input's share of a :meth:`SentencePool.map_files` stream: up to the next input's mark."""

    def __init__(self, stream: Iterator[tuple[Any, Any]]) -> None:
        self.stream = stream
        self.next_head: tuple[_FileStart, None] | None = None
        self.done = False

    def __iter__(self) -> _FileResults:
        return self

    def __next__(self) -> tuple[Any, Any]:
        if self.done:
            raise StopIteration
        item = next(self.stream, None)
        if item is None or type(item[0]) is _FileStart:
            self.done, self.next_head = True, item
            raise StopIteration
        return item


def _read_chunk(source: Iterator[tuple[Any, Any]], size: int,
                keys: int = MAX_KEYS) -> tuple[_Chunk, BaseException | None, bool]:
    """The next chunk of ``source`` (at most ``size`` tasks and ``keys`` items), the exception that
    ended the input early if any, and whether the input ended."""
    chunk = _Chunk()
    try:
        while len(chunk.tasks) < size and len(chunk.keys) < keys:
            key, task = next(source)
            chunk.keys.append((key, task is not None))
            if task is not None:
                chunk.tasks.append(task)
    except StopIteration:
        return chunk, None, True
    except Exception as err:  # noqa: BLE001 -- raised after the items before it (SentencePool.map)
        return chunk, err, True
    return chunk, None, False


class SentencePool:
    """``jobs`` processes for an ordered map (see the module doc); a context manager.

    One pool serves every file of a run (:meth:`map` once per file); the
    workers, once started, stay until the ``with`` block ends: joined when
    it ends normally, stopped at once when it ends by an exception.

    ``on_error``: the handler of bad input (an :class:`~treetool.policy.ErrorPolicy`).
    ``unread``: the share of the run's input not read yet (0 to 1, None when
    unknown), e.g. :meth:`~treetool.treebank.ReadShare.unread`: with it the
    workers start as soon as the work left, as estimated from the sentences
    seen, pays for them, and not when it does not (module doc).
    Readers get :attr:`report` instead, which keeps each error in its place
    in the stream: ``on_error`` sees it, and in fail mode raises, when the
    sentences read before it have been handed back, as in one process
    (rejects files in input order, the first error first).
    """

    def __init__(self, jobs: int = 1, on_error: Callable[[Exception], None] | None = None,
                 unread: Callable[[], float | None] | None = None) -> None:
        self.jobs = resolve_jobs(jobs)
        self.on_error = on_error
        self._unread = unread if self.jobs > 1 else None  # one process never asks
        self._reports: list[Exception] = []
        self._executor: ProcessPoolExecutor | None = None
        self._booting: list[Future] = []  # one no-op per worker: the workers are up when one is done
        self._sent = 0  # chunks sent to the workers
        self._task_seconds = 0.0  # measured cost of one task, for chunk sizes
        self._work_seen = 0.0  # seconds of work done in this process, and its costliest batch of tasks
        self._costliest = 0.0
        self._last_window_rate: float | None = None  # of the window before the current one
        self._new_window()
        self._refused = False  # the work cannot be pickled: it stays in this process

    def __enter__(self) -> SentencePool:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(ok=exc_type is None)

    def report(self, error: Exception) -> None:
        """The ``on_error`` to give readers (see the class doc)."""
        self._reports.append(error)

    @property
    def parallel(self) -> bool:
        """True once the workers run (until then, and while they start, the work is done here)."""
        return self._executor is not None and any(future.done() for future in self._booting)

    def close(self, ok: bool = True) -> None:
        """Join the workers (``ok``), else, or when they were never used, stop them at once."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if ok and self._sent:
            executor.shutdown(wait=True)
            return
        # Python 3.11 has no public way to stop a running task (3.14: terminate_workers);
        # shutdown forgets the processes, so they are taken first.
        processes = list((getattr(executor, "_processes", None) or {}).values())
        manager = getattr(executor, "_executor_manager_thread", None)
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        # The executor's thread ends once it has seen them go (a few milliseconds): joined, so that this process
        # runs one thread again and a next pool may fork (start_method).
        if manager is not None:
            manager.join(timeout=5.0)

    def map(
        self,
        work: Callable[[T], R],
        items: Iterable[tuple[K, T | None]],
        *,
        batch: Callable[[list[T]], list[Outcome]] | None = None,
        batch_size: int = 1,
    ) -> Iterator[tuple[K, Outcome | None]]:
        """``(key, outcome)`` for each ``(key, task)`` of ``items``, in order (``None`` for a ``None`` task).

        An exception raised by ``items`` itself is raised after every earlier
        item has been handed back.  ``batch(tasks)``, when given, returns the
        outcomes of a list of tasks at once (what ``work`` would give, faster);
        in this process it gets the tasks of ``batch_size`` items at a time.
        """
        source = self._with_reports(iter(items))
        for key, outcome in self._map(work, source, batch, batch_size):
            if isinstance(key, _Reported):
                self.on_error(key.error)  # type: ignore[misc]
            else:
                yield key, outcome

    def map_files(
        self,
        work: Callable[[T], R],
        files: Iterable[tuple[Any, Iterable[tuple[K, T | None]]]],
        **options: Any,
    ) -> Iterator[tuple[Any, Iterator[tuple[K, Outcome | None]]]]:
        """:meth:`map` over several inputs as one stream: ``(name, results)`` per ``(name, items)`` of ``files``.

        ``results`` is what :meth:`map` would give for that input's items;
        take them before the next input's (what is left is skipped). One
        stream, so the chunks in the workers run on across the inputs' ends:
        mapped one input at a time, each end drained the workers, and a
        treebank of many small files (the Penn Treebank: 20-50 trees a file)
        ran no faster with 2 jobs than with 1. An input is opened when the
        read-ahead reaches it, and its reader's errors still come in order.
        """
        stream = self.map(work, _tagged(files), **options)
        head = next(stream, None)
        while head is not None:
            results = _FileResults(stream)
            yield head[0].name, results
            for _ in results:  # what the caller left of this input
                pass
            head = results.next_head

    def _with_reports(self, source: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """``source`` with the errors its reader reported, each before the item read after it."""
        try:
            for item in source:
                yield from self._take_reports()
                yield item
        except Exception:
            yield from self._take_reports()
            raise
        yield from self._take_reports()

    def _take_reports(self) -> Iterator[tuple[_Reported, None]]:
        reports, self._reports = self._reports, []
        for error in reports:
            yield _Reported(error), None

    def _map(self, work: Callable[[Any], Any], source: Iterator[tuple[Any, Any]],
             batch: Callable[[list[Any]], list[Outcome]] | None, batch_size: int) -> Iterator[tuple[Any, Any]]:
        """In this process until the workers pay (module doc), then in the workers."""
        if batch is None:
            yield from self._map_here(work, source)
        else:
            yield from self._map_batches_here(work, batch, batch_size, source)
        if self.parallel:
            yield from self._map_parallel(work, batch, source)

    def _map_here(self, work: Callable[[Any], Any], source: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """One task at a time in this process, until the workers are up (or the input ends).

        The work is counted in CPU seconds, as the workers count theirs: on a loaded machine wall
        time would count the other processes' turns as work. Reading the CPU clock is a system call
        (about 5 microseconds here: 7% of a cheap ``oracle`` run when read around every sentence),
        so each task is timed by the wall clock (vDSO, 0.06 us) and a batch of them is turned into
        CPU time by this process's share of the CPU over the batch, read once per batch."""
        wall_clock, cpu_clock = time.perf_counter, time.process_time
        timed = self.jobs > 1
        wall, tasks = 0.0, 0
        mark_wall, mark_cpu = (wall_clock(), cpu_clock()) if timed else (0.0, 0.0)
        for key, task in source:
            if task is None:
                yield key, None
                continue
            start = wall_clock() if timed else 0.0
            outcome = attempt(work, task)
            if timed:
                wall += wall_clock() - start
                tasks += 1
                if tasks >= SAMPLE_TASKS or wall >= SAMPLE_SECONDS:
                    now_wall, now_cpu = wall_clock(), cpu_clock()
                    share = min(1.0, (now_cpu - mark_cpu) / max(now_wall - mark_wall, 1e-9))
                    self._measure(wall * share, tasks, work)
                    wall, tasks, mark_wall, mark_cpu = 0.0, 0, now_wall, now_cpu
            yield key, outcome
            if self.parallel:
                return

    def _map_batches_here(self, work: Callable[[Any], Any], batch: Callable[[list[Any]], list[Outcome]],
                          batch_size: int, source: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """Batches of ``batch_size`` items in this process, until the workers are up (or the input ends)."""
        ended = False
        while not ended and not self.parallel:
            chunk, failure, ended = _read_chunk(source, batch_size, batch_size)
            start = time.process_time()
            outcomes = batch(chunk.tasks) if chunk.tasks else []
            if chunk.tasks:
                self._measure(time.process_time() - start, len(chunk.tasks), work)
            yield from chunk.pairs(outcomes)
            if failure is not None:
                raise failure

    def _measure(self, seconds: float, tasks: int, work: Callable[[Any], Any]) -> None:
        """Count a batch of work done here; start the workers when the warm-up says they pay (module doc)."""
        each = seconds / tasks
        self._task_seconds = each if not self._task_seconds else 0.9 * self._task_seconds + 0.1 * each
        self._work_seen += seconds
        self._costliest = max(self._costliest, seconds)
        self._window_work += seconds
        self._window_tasks += tasks
        if self.jobs < 2 or self._refused or self._executor is not None:
            return
        method, left = start_method(), self._work_left()
        if self._window_work < warmup_seconds(method, self.jobs, size_known=left is not None):
            return
        spent = time.process_time() - self._window_start
        workers = self._workers_repaid(method, left)
        if (workers >= 2 and self._window_work >= MIN_WORK_SHARE * spent
                and self._window_work >= MIN_TASK_SECONDS * self._window_tasks):
            self.jobs = workers
            self._start(work)
        self._last_window_rate = self._window_rate()
        self._new_window()

    def _new_window(self) -> None:
        """Begin a warm-up window: its work and tasks, and the CPU clock and share of the input read at its start."""
        self._window_work, self._window_tasks = 0.0, 0
        self._window_start = time.process_time()
        self._window_read_at = self._read_share() or 0.0

    def _window_rate(self) -> float | None:
        """Seconds of work per share of input read in the current window (None when unknown or nothing read)."""
        read = self._read_share()
        if read is None or read <= self._window_read_at:
            return None
        return self._window_work / (read - self._window_read_at)

    def _workers_repaid(self, method: str, left: float | None) -> int:
        """How many of the ``jobs`` workers to start: all when the work left is unknown, else as many as it repays
        ``PAYBACK`` times over (with ``--jobs 0`` on many cores, all or none would mean none)."""
        cost = PAYBACK * START_SECONDS[method]
        if left is None or cost <= 0:
            return self.jobs
        return min(self.jobs, int(left / cost))

    def _read_share(self) -> float | None:
        """The share of the input read so far (None when its size is unknown)."""
        unread = self._unread() if self._unread is not None else None
        return None if unread is None else 1.0 - unread

    def _work_left(self) -> float | None:
        """Seconds of work the unread input holds, None when its size is unknown.

        The work per share of input read is taken over all the input read,
        less its costliest batch of tasks (one costly sentence at the start of
        a short input would otherwise promise more of the same), or over the
        last two windows, the lower of their rates, whichever is higher: over
        all the input alone, an input sorted by length, its costly sentences
        last, would seem to have little work left until the end, and a costly
        stretch lasts two windows where a single costly sentence fills one.
        """
        read = self._read_share()
        if not read:
            return None
        rate = (self._work_seen - self._costliest) / read
        current = self._window_rate()
        if current is not None and self._last_window_rate is not None:
            rate = max(rate, min(current, self._last_window_rate))
        return (1.0 - read) * rate

    def _start(self, work: Callable[[Any], Any]) -> None:
        try:
            pickle.dumps(work)
        except Exception:  # noqa: BLE001 -- e.g. a user's system defined in a script: it runs here
            self._refused = True
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._executor = ProcessPoolExecutor(
            self.jobs, mp_context=multiprocessing.get_context(start_method()), initializer=_worker_init)
        # Work goes on here while the workers start (half a second each when spawned): a run that
        # ends meanwhile loses almost nothing (close stops them).
        self._booting = [self._executor.submit(_ready) for _ in range(self.jobs)]

    def _chunk_size(self) -> int:
        """Tasks for the next chunk: about ``CHUNK_SECONDS`` of work, a ``TAPER``-th of it for the first ``jobs``
        (the workers wait while this process reads them)."""
        if self._task_seconds <= 0:
            return MAX_CHUNK
        seconds = CHUNK_SECONDS if self._sent >= self.jobs else CHUNK_SECONDS / TAPER
        return max(1, min(MAX_CHUNK, int(seconds / self._task_seconds)))

    def _map_parallel(self, work: Callable[[Any], Any], batch: Callable[[list[Any]], list[Outcome]] | None,
                      source: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """The map once the workers run: a bounded window of chunks, handed back in order."""
        pending: deque[_Chunk] = deque()
        failure: BaseException | None = None
        ended = False
        while True:
            while not ended and len(pending) < WINDOW_PER_JOB * self.jobs:
                chunk, failure, ended = _read_chunk(source, self._chunk_size())
                if chunk.tasks:
                    chunk.future = self._submit(work, batch, chunk.tasks)
                if chunk.keys:
                    pending.append(chunk)
                if ended:
                    pending = self._tapered(pending, work, batch)
            if not pending:
                break
            chunk = pending.popleft()
            yield from chunk.pairs(self._outcomes(chunk))
        if failure is not None:
            raise failure

    def _tapered(self, pending: deque[_Chunk], work: Callable[[Any], Any],
                 batch: Callable[[list[Any]], list[Outcome]] | None) -> deque[_Chunk]:
        """``pending`` once the input has ended: each chunk still waiting in the executor is sent again in
        ``TAPER`` pieces (a chunk in its call queue to the workers, ``jobs + 1`` at most, cannot be cancelled and
        stays whole: it runs before the pieces).

        Whole chunks at the end left one worker on the last of them while the
        other had nothing to do, and this process then wrote that chunk's
        sentences alone: on ``projectivize --count`` over English-EWT train, the
        two workers ended 0.07-0.24 s apart in a 2-2.5 s run (now 0-0.03 s).  Smaller pieces end
        closer together and come back a little at a time.
        """
        tapered: deque[_Chunk] = deque()
        for chunk in pending:
            if len(chunk.tasks) > 1 and chunk.future is not None and chunk.future.cancel():
                for piece in chunk.split(TAPER):
                    piece.future = self._submit(work, batch, piece.tasks)
                    tapered.append(piece)
            else:
                tapered.append(chunk)
        return tapered

    def _submit(self, work: Callable[[Any], Any], batch: Callable[[list[Any]], list[Outcome]] | None,
                tasks: list[Any]) -> Future:
        from concurrent.futures.process import BrokenProcessPool

        try:
            future = self._executor.submit(_run_chunk, work, batch, tasks)  # type: ignore[union-attr]
        except BrokenProcessPool:
            raise self._died() from None
        self._sent += 1
        return future

    def _outcomes(self, chunk: _Chunk) -> list[Outcome]:
        """The outcomes of a sent chunk (waiting for them); its cost re-sizes the next chunks."""
        if chunk.future is None:
            return []
        from concurrent.futures.process import BrokenProcessPool

        try:
            outcomes, seconds = chunk.future.result()
        except BrokenProcessPool:
            raise self._died() from None
        self._task_seconds = 0.5 * self._task_seconds + 0.5 * seconds / len(chunk.tasks)
        return [_received(outcome) for outcome in outcomes]

    def _died(self) -> WorkerDied:
        """The error for a broken pool, naming the signal that killed a worker when it is known.

        The executor stops the other workers with SIGTERM: that signal is
        named only when no other is seen.
        """
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        # A killed process is reaped a moment after its pipe closes, by this thread or by the executor's own
        # (which joins the workers too): its exit code is read until it is known, not joined from two threads.
        deadline = time.monotonic() + 1.0
        while any(process.exitcode is None for process in processes) and time.monotonic() < deadline:
            time.sleep(0.01)
        killed = {-process.exitcode for process in processes if process.exitcode is not None and process.exitcode < 0}
        if len(killed) > 1:
            killed.discard(signal.SIGTERM)
        how = f"was killed by {', '.join(map(_signal_name, sorted(killed)))}" if killed else "ended abruptly"
        return WorkerDied(f"a --jobs worker process {how} (out of memory?): the output is incomplete; "
                          "try fewer --jobs")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
