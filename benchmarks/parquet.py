"""`annotate --format parquet` against JSON lines on UD 2.2 English-EWT train, and `treetool.steps.read` (issue 26).

Goals (issue 26, parts 1 and 2), with `--system arc-eager --policy explore --error-rate 0.1`:

* encoding + writing under 10% of the run with Parquet (about 30% with JSONL), so the run is at least
  1.3x faster end to end;
* the Parquet file at least 5x smaller than the JSONL (gzip JSONL shown beside it);
* at least 1 M steps/s read back from Parquet by `treetool.steps.read` on one core.

Table 1, end to end: one `python -m treetool annotate` run per format writing a file, start-up included,
the formats alternating, best of --repeat runs (wall and CPU each the least of its runs); CPU seconds are user +
system of the run and of its Parquet writer process; peak resident memory is each process's own peak, the
run's and the writer's added (sampled from /proc every 50 ms; row groups bound it: it does not grow with the
input). Table 2, in this process: the walks alone (steps made and dropped), and the same walks encoded and
written, wall and CPU seconds (the writer process's included), each the least of at least 5 rounds that
alternate the three; the share is (run - walks) / run, also given for each round and their median. Table 3,
sizes. Table 4, the reader (pyarrow on one thread), batches of 1024 steps, best of --repeat passes.

The machine's load average is printed first. The Parquet writer process runs on the second core: on a
machine whose other core is busy, its CPU seconds come out of the run's wall-clock time.

    python benchmarks/parquet.py [--repeat N] [--file PATH] [--system NAME] [--labeled]
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool import steps  # noqa: E402
from treetool.formats.parquet import ParquetOutput  # noqa: E402
from treetool.formats.step_columns import StepColumns, walk_record  # noqa: E402
from treetool.formats.steps import dependency_jsonl  # noqa: E402
from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.annotate import Explore, annotate_sentence, optimal_is_cost_zero  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

EWT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
EXPLORE = ["--policy", "explore", "--error-rate", "0.1"]


def end_to_end(path: Path, system: str, labeled: bool, fmt: str, out: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one `treetool annotate` run writing ``out``: CPU of the
    process and of the writer process it waits for; RSS each process's peak, added (:class:`PeakMemory`)."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "treetool", "annotate", str(path), "--system", system, *EXPLORE,
                              *(["--labeled"] if labeled else []), "--format", fmt, "-o", str(out)], cwd=ROOT)
    with PeakMemory(child.pid) as memory:
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        sys.exit(f"treetool annotate --format {fmt} failed (exit {child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, memory.total_mb()


class PeakMemory:
    """The peak resident memory (VmHWM) of a process and of its children, read from /proc every 50 ms while
    the block runs (the kernel reports only the largest process's peak for a process tree)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peaks, self._done = pid, {}, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._done.wait(0.05):
            for pid in (self.pid, *self._children()):
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
                self.peaks[pid] = max(self.peaks.get(pid, 0), kb)

    def _children(self) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.pid:
                    found.append(int(entry.name))
        return found

    def total_mb(self) -> float:
        return sum(self.peaks.values()) / 1024


def wall_and_cpu(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The least wall-clock and the least CPU seconds (this process's threads and the children it waited for,
    such as the Parquet writer process) of ``repeat`` calls of ``run``."""
    walls, cpus = [], []
    for _ in range(repeat):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(time.process_time() - cpu + after.ru_utime + after.ru_stime - children.ru_utime
                    - children.ru_stime)
    return min(walls), min(cpus)


def cpu_seconds(run: Callable[[], object], repeat: int) -> float:
    """The least CPU time (all threads of this process) of ``repeat`` calls of ``run``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def in_process(path: Path, system_name: str, labeled: bool, folder: Path, repeat: int) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds of the walks alone, and of the walks written as JSONL and as Parquet, in each of
    ``repeat`` rounds."""
    sentences = list(enumerate(read_treebank(str(path)), 1))
    system = get_system(system_name)

    def walks():
        for position, s in sentences:
            yield s.identifier(position), annotate_sentence(system, s.head_list, s.deprels if labeled else None,
                                                            policy=Explore(0.1, 0), position=position)

    def walk_only() -> None:
        for _, walk in walks():
            for _ in walk:
                pass

    def jsonl() -> None:
        with open(folder / "inprocess.jsonl", "wb") as out:
            for sent_id, walk in walks():
                out.write(dependency_jsonl(sent_id, walk).encode("utf-8"))

    def parquet() -> None:
        derived = optimal_is_cost_zero(system)  # as annotate's: declared, not assumed of the system benchmarked
        columns = StepColumns(None if labeled else system, labeled, derive_optimal=derived)
        with ParquetOutput(str(folder / "inprocess.parquet"), columns, {"command": "annotate"}) as out:
            for sent_id, walk in walks():
                out.write(walk_record(sent_id, walk, configurations=labeled, optimal=not derived))

    rounds: dict[str, list[tuple[float, float]]] = {"walks": [], "jsonl": [], "parquet": []}
    for _ in range(repeat):  # alternating, so that a change in the machine's speed hits all three
        for name, run in (("walks", walk_only), ("jsonl", jsonl), ("parquet", parquet)):
            rounds[name].append(wall_and_cpu(run, 1))
    return rounds


def reader(path: Path, shuffle: bool, repeat: int) -> tuple[int, float]:
    """(steps, least CPU seconds) of reading ``path`` whole in batches of 1024."""
    count = 0

    def read_all() -> None:
        nonlocal count
        count = sum(len(batch) for batch in steps.read(str(path), batch_size=1024, shuffle=shuffle, seed=1))

    seconds = cpu_seconds(read_all, repeat)
    return count, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--file", type=Path, default=EWT)
    parser.add_argument("--system", default="arc-eager")
    parser.add_argument("--labeled", action="store_true")
    args = parser.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file} not found: ../shared is not beside the clone")
    import pyarrow

    pyarrow.set_cpu_count(1)  # the reader's goal is for one core; the writer thread is one more thread anyway
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print(f"{args.file.name}, --system {args.system}{' --labeled' if args.labeled else ''} "
          f"{' '.join(EXPLORE)}, best of {args.repeat}\n")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {fmt: folder / f"steps.{fmt}" for fmt in ("jsonl", "parquet")}
        measured: dict[str, list[tuple[float, float, float]]] = {fmt: [] for fmt in files}
        for _ in range(args.repeat):  # alternating, so that a change in the machine's load hits both
            for fmt, out in files.items():
                measured[fmt].append(end_to_end(args.file, args.system, args.labeled, fmt, out))
        runs = {fmt: tuple(min(column) if k < 2 else max(column) for k, column in enumerate(zip(*results)))
                for fmt, results in measured.items()}
        print("| format | wall s | CPU s | peak RSS MB |\n| --- | ---: | ---: | ---: |")
        for fmt, (wall, cpu, rss) in runs.items():
            print(f"| {fmt} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
        print(f"\nParquet end to end: {runs['jsonl'][0] / runs['parquet'][0]:.2f}x faster (wall), "
              f"{runs['jsonl'][1] / runs['parquet'][1]:.2f}x (CPU); goal 1.3x\n")
        rounds = in_process(args.file, args.system, args.labeled, folder, max(args.repeat, 5))
        timed = {name: tuple(map(min, zip(*runs))) for name, runs in rounds.items()}
        walls, cpus = timed["walks"]
        print("| in this process | wall s | CPU s | encoding + writing, wall | CPU |\n| --- | ---: | ---: | ---: | ---: |")
        print(f"| walks alone | {walls:.2f} | {cpus:.2f} | | |")
        for fmt in ("jsonl", "parquet"):
            wall, cpu = timed[fmt]
            print(f"| walks + {fmt} | {wall:.2f} | {cpu:.2f} | {(wall - walls) / wall:.0%} | {(cpu - cpus) / cpu:.0%} |")
        for fmt in ("jsonl", "parquet"):
            shares = [(run[0] - walk[0]) / run[0] for walk, run in zip(rounds["walks"], rounds[fmt])]
            print(f"\n{fmt}, wall share of each round: {' '.join(f'{x:.0%}' for x in shares)}; "
                  f"median {statistics.median(shares):.0%}", end="")
        print("\n\ngoal: under 10% with Parquet\n")
        with open(files["jsonl"], "rb") as plain, gzip.open(folder / "steps.jsonl.gz", "wb") as packed:
            shutil.copyfileobj(plain, packed, 1 << 20)
        sizes = {"JSONL": files["jsonl"].stat().st_size, "gzip JSONL": (folder / "steps.jsonl.gz").stat().st_size,
                 "Parquet (zstd)": files["parquet"].stat().st_size}
        print("| file | MB | JSONL / file |\n| --- | ---: | ---: |")
        for name, size in sizes.items():
            print(f"| {name} | {size / 1e6:.1f} | {sizes['JSONL'] / size:.1f}x |")
        print("\ngoal: Parquet at least 5x smaller than JSONL\n")
        print("| treetool.steps.read | steps | CPU s | steps/s |\n| --- | ---: | ---: | ---: |")
        for name, path, shuffle in (("Parquet", files["parquet"], False), ("Parquet, shuffled", files["parquet"], True),
                                    ("JSONL", files["jsonl"], False)):
            count, seconds = reader(path, shuffle, args.repeat if path.suffix == ".parquet" else 1)
            print(f"| {name} | {count:,} | {seconds:.2f} | {count / seconds:,.0f} |")
        print("\ngoal: at least 1,000,000 steps/s from Parquet on one core")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
