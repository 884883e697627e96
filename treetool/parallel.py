"""An ordered parallel map over sentences: the machinery behind ``--jobs N``.

Every command that takes ``--jobs`` is a per-sentence map: each sentence's
work (a DP, an oracle walk) depends on that sentence only.
:class:`SentencePool` runs that work in worker processes, in chunks, and
hands the results back in input order, so the output, the reports, the skip
counts and the first error are those of a run in one process.

* The work is ``work(task)``, a picklable module-level function (or a
  ``functools.partial`` of one) applied to a small picklable ``task`` (head
  lists, not sentences: what crosses a pipe is paid twice); the ``key``
  paired with it (the sentence, its position) stays here.  A task of
  ``None`` has no work and keeps its place.  ``batch``, when given, does the
  work of a list of tasks at once and must give what ``work`` gives.
* What ``work`` raises is kept per task (an :class:`Outcome`) and raised
  here when that task's turn comes; an exception of the input itself, and a
  bad sentence its reader reports (:meth:`SentencePool.report`), wait
  likewise for every earlier task: ``--on-error``, ``--max-seconds`` and
  warnings see what one process sees.
* The workers start by a fixed rule, never a measurement: with ``jobs > 1``
  the pool reads ahead, working on nothing, until more than
  ``START_SENTENCES`` sentences of the run are read, then starts all
  ``jobs`` workers; an input that ends first is done here, as with one job.  So a
  short input never pays for workers (importing :mod:`multiprocessing`,
  forking, a pipe per chunk), the same input starts them or not whatever the
  machine's load, and they get the input from its first sentence (this
  process reads it anyway).  Work too cheap to send (a linear static oracle)
  is kept in one process by its command, declared.
* Chunk sizes, not the output, depend on timing: ``FIRST_CHUNK`` tasks until
  the workers report a chunk's CPU time, then about ``CHUNK_SECONDS`` of
  work.  At the input's end the chunks not yet handed to a worker are sent
  again ``TAPER`` times smaller, so the workers end together.  Memory is
  bounded: ``START_SENTENCES`` items read ahead, ``WINDOW_PER_JOB * jobs``
  chunks outstanding of at most ``MAX_CHUNK`` tasks and ``MAX_KEYS`` items.
* A worker that dies (a signal, out of memory) ends the run with
  :class:`WorkerDied`: one line, no traceback.

Start method: ``fork`` where it is the platform's ordinary method (not macOS,
whose system libraries are not fork-safe) and this process runs one thread (a
thread, such as rich's progress display, may hold a lock at the fork, which
the worker would wait for forever); else ``spawn``, a fresh interpreter with
the parent's ``sys.path`` that imports what the work needs (0.5 s of CPU
against 0.02 s for a fork, hence ten times the sentences before they start).
A forked worker ends with ``os._exit``: the unwritten buffers of open outputs
in its copy are never written.  A corpus too large for one machine is split
and run per shard on any scheduler, not here.
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
# multiprocessing and concurrent.futures.process (0.05 s to import) are imported when the workers start.

K = TypeVar("K")
T = TypeVar("T")
R = TypeVar("R")

#: The workers start once more than this many sentences of the run have been read, by start method (module doc):
#: 300 sentences of ``annotate --system arc-eager`` are a tenth of a second of work, which importing the pool and
#: forking (0.05 s) could not pay back; a spawned worker costs 25 times what a forked one does.
START_SENTENCES = {"fork": 500, "spawn": 5000}
#: Tasks in each chunk sent before the workers have reported a chunk's cost.
FIRST_CHUNK = 16
#: Seconds of work aimed at per chunk once costs are known (a chunk's trip costs well under a millisecond).
CHUNK_SECONDS = 0.05
#: Once the input has ended, every chunk still waiting in the executor is sent again in this many pieces.
TAPER = 4
#: Tasks per chunk at most; keys (tasks and pass-through items) per chunk at most.
MAX_CHUNK = 1024
MAX_KEYS = 4096
#: Outstanding chunks per worker: enough to keep every worker busy behind one slow chunk.
WINDOW_PER_JOB = 4
#: How often a run waiting for a chunk checks that no worker has died halfway through sending a result.
WORKER_CHECK_SECONDS = 1.0


def start_method() -> str:
    """``fork`` where it is the ordinary method and this process runs one thread, else ``spawn`` (module doc)."""
    if sys.platform == "darwin" or not hasattr(os, "fork"):
        return "spawn"
    return "fork" if threading.active_count() == 1 else "spawn"


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
    """An exception on its way back from a worker: rebuilt without ``__init__`` (whose signature need not match
    ``args``, e.g. :class:`~treetool.budget.SentenceTimeout`), with its attributes and a note of where the worker
    raised it (a formatted traceback costs a millisecond, thousands of times per run with ``--on-error skip``)."""

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
    outcomes = batch(tasks) if batch is not None else [attempt(work, task) for task in tasks]
    return [_portable(outcome) for outcome in outcomes], time.process_time() - start


def _worker_init(parent: int) -> None:
    """Ctrl-C is the main process's to handle: it stops the workers itself; SIGTERM and SIGHUP end a worker
    at once (the command line's handlers, inherited by a fork, are for the main process's clean-up). A worker
    whose main process (``parent``: given, as a main process killed before this runs would leave the worker
    an orphan from the start) is gone ends (:func:`_end_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None and signal.getsignal(signum) not in (signal.SIG_IGN, None):
            signal.signal(signum, signal.SIG_DFL)
    threading.Thread(target=_end_with_parent, args=(parent,), name="parent-watch", daemon=True).start()


#: How often a worker checks that its main process is still there.
PARENT_CHECK_SECONDS = 0.5


def _end_with_parent(parent: int) -> None:
    """End this worker once its main process is gone. A main process killed outright (SIGKILL, the
    out-of-memory killer) stops nothing; its idle workers would wait for work for ever, and hold open what
    they inherited (a Parquet writer's input, which then never ends)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


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

    def pairs(self, results: list[Any]) -> Iterator[tuple[Any, Any]]:
        """Each key with the next of ``results`` (the tasks' outcomes, or the tasks) when it has a task, else None."""
        taken = iter(results)
        for key, has_task in self.keys:
            yield key, next(taken) if has_task else None

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


def _one_file(stream: Iterator[tuple[Any, Any]], head: list[Any]) -> Iterator[tuple[Any, Any]]:
    """The items of ``stream`` up to the next input's mark, which is left in ``head`` (None at the end)."""
    for item in stream:
        if type(item[0]) is _FileStart:
            head[0] = item
            return
        yield item
    head[0] = None


def _read_chunk(source: Iterator[tuple[Any, Any]], size: int,
                keys: int = MAX_KEYS) -> tuple[_Chunk, BaseException | None, bool]:
    """The next chunk of ``source`` (at most ``size`` tasks and ``keys`` items, the marks between inputs
    not counted), the exception that ended the input early if any, and whether the input ended."""
    chunk, items = _Chunk(), 0
    try:
        while len(chunk.tasks) < size and items < keys:
            key, task = next(source)
            chunk.keys.append((key, task is not None))
            items += type(key) is not _FileStart
            if task is not None:
                chunk.tasks.append(task)
    except StopIteration:
        return chunk, None, True
    except Exception as err:  # noqa: BLE001 -- raised after the items before it (SentencePool.map)
        return chunk, err, True
    return chunk, None, False


def _replayed(ahead: _Chunk, failure: BaseException | None,
              rest: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
    """The items read ahead, then the exception that ended the input (if any), then the rest of the input."""
    yield from ahead.pairs(ahead.tasks)
    if failure is not None:
        raise failure
    yield from rest


class SentencePool:
    """``jobs`` processes for an ordered map (see the module doc); a context manager.

    One pool serves every file of a run (:meth:`map` once per file, or
    :meth:`map_files`); the sentences read count over the run, and the
    workers, once started, stay until the ``with`` block ends: joined when
    it ends normally, stopped at once when it ends by an exception.

    ``on_error``: the handler of bad input (an :class:`~treetool.policy.ErrorPolicy`).
    Readers get :attr:`report` instead, which keeps each error in its place
    in the stream: ``on_error`` sees it, and in fail mode raises, when the
    sentences read before it have been handed back, as in one process
    (rejects files in input order, the first error first).
    """

    def __init__(self, jobs: int = 1, on_error: Callable[[Exception], None] | None = None) -> None:
        self.jobs = resolve_jobs(jobs)
        self.on_error = on_error
        self._reports: list[Exception] = []
        self._read = 0  # sentences read ahead in the run
        self._executor: ProcessPoolExecutor | None = None
        self._sent = 0  # chunks sent to the workers
        self._task_seconds = 0.0  # cost of one task as the workers report it, for chunk sizes
        self._refused = False  # the work cannot be pickled: it stays in this process

    def __enter__(self) -> SentencePool:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(ok=exc_type is None)

    def report(self, error: Exception) -> None:
        """The ``on_error`` to give readers (see the class doc)."""
        self._reports.append(error)

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
        processes = _worker_processes(executor)
        manager = getattr(executor, "_executor_manager_thread", None)
        _end_results(executor)  # a worker stopped while it sends a result must not leave the thread waiting
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
        take them before the next input's (what is left is skipped).  One
        stream, so the workers run on across the inputs' ends (a treebank of
        many small files, the Penn Treebank's 20-50 trees each, is no slower
        to share out than one file).  An input is opened when the read-ahead
        reaches it, and its reader's errors still come in order.
        """
        stream = self.map(work, _tagged(files), **options)
        head = [next(stream, None)]
        while head[0] is not None:
            results = _one_file(stream, head)
            yield head[0][0].name, results
            for _ in results:  # what the caller left of this input
                pass

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
        """Read ahead until the workers start (module doc); then in them, else all in this process."""
        if self.jobs > 1 and self._executor is None and not self._refused:
            left = START_SENTENCES[start_method()] + 1 - self._read
            ahead, failure, ended = _read_chunk(source, left, left)
            self._read += sum(type(key) is not _FileStart for key, _ in ahead.keys)
            if not ended:
                self._start(work)
            source = _replayed(ahead, failure, source)
        if self._executor is None:
            yield from self._map_here(work, source) if batch is None else \
                self._map_batches_here(batch, batch_size, source)
            return
        yield from self._map_parallel(work, batch, source)

    def _map_here(self, work: Callable[[Any], Any], source: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """One task at a time in this process."""
        for key, task in source:
            yield key, None if task is None else attempt(work, task)

    def _map_batches_here(self, batch: Callable[[list[Any]], list[Outcome]], batch_size: int,
                          source: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """Batches of ``batch_size`` items in this process."""
        ended = False
        while not ended:
            chunk, failure, ended = _read_chunk(source, batch_size, batch_size)
            yield from chunk.pairs(batch(chunk.tasks) if chunk.tasks else [])
            if failure is not None:
                raise failure

    def _start(self, work: Callable[[Any], Any]) -> None:
        try:
            pickle.dumps(work)
        except Exception:  # noqa: BLE001 -- e.g. a user's system defined in a script: it runs here
            self._refused = True
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._executor = ProcessPoolExecutor(
            self.jobs, mp_context=multiprocessing.get_context(start_method()), initializer=_worker_init,
            initargs=(os.getpid(),))

    def _chunk_size(self) -> int:
        """Tasks for the next chunk: ``FIRST_CHUNK`` until the workers have reported a cost, then about
        ``CHUNK_SECONDS`` of work."""
        if self._task_seconds <= 0:
            return FIRST_CHUNK
        return max(1, min(MAX_CHUNK, int(CHUNK_SECONDS / self._task_seconds)))

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
        ``TAPER`` pieces, which end closer together (a chunk in its call queue to the workers, ``jobs + 1`` at
        most, can no longer be cancelled: it stays whole and runs before the pieces)."""
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
            outcomes, seconds = self._result(chunk.future)
        except BrokenProcessPool:
            raise self._died() from None
        each = seconds / len(chunk.tasks)
        self._task_seconds = (self._task_seconds + each) / 2 if self._task_seconds else each
        return [_received(outcome) for outcome in outcomes]

    def _result(self, future: Future) -> Any:
        """``future.result()``. A worker killed halfway through sending a result leaves the executor's thread
        waiting for the rest, so the pool would never break: once a worker has gone, the others are stopped (as
        the executor does with a broken pool) and the results pipe ended (:func:`_end_results`), and the thread
        finds the pool broken."""
        from concurrent.futures import TimeoutError as Waiting

        while True:
            try:
                return future.result(timeout=WORKER_CHECK_SECONDS)
            except Waiting:
                processes = _worker_processes(self._executor)
                if any(process.exitcode is not None for process in processes):
                    for process in processes:
                        process.terminate()
                    _end_results(self._executor)

    def _died(self) -> WorkerDied:
        """The error for a broken pool, naming the signal that killed a worker when it is known.

        The executor stops the other workers with SIGTERM: that signal is
        named only when no other is seen.
        """
        processes = _worker_processes(self._executor)
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


def _worker_processes(executor: ProcessPoolExecutor) -> list[Any]:
    """The executor's worker processes (a private attribute: Python 3.11 has no public way to reach them)."""
    return list((getattr(executor, "_processes", None) or {}).values())


def _end_results(executor: ProcessPoolExecutor) -> None:
    """Close this process's end of the executor's results pipe (nothing here writes to it), so that the pipe ends
    once the workers are gone. A worker stopped halfway through sending a result (terminated, or killed) leaves
    half a message, whose rest the executor's thread would wait for for ever, and the interpreter's exit joins
    that thread; the end of the pipe ends that wait, and the thread, which takes the pool for broken."""
    writer = getattr(getattr(executor, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
