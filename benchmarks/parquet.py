"""`annotate --format parquet` against JSON lines on UD 2.2 English-EWT train, and `treetool.steps.read` (issue 26).

Goals (issue 26, parts 1 and 2), with `--system arc-eager --policy explore --error-rate 0.1`:

* encoding + writing under 10% of the run with Parquet (about 30% with JSONL), so the run is at least
  1.3x faster end to end;
* the Parquet file at least 5x smaller than the JSONL (gzip JSONL shown beside it);
* at least 1 M steps/s read back from Parquet by `treetool.steps.read` on one core.

Table 1, end to end: one `python -m treetool annotate` process per format writing a file, start-up included,
best of --repeat runs; wall-clock and CPU seconds (user + system, the Parquet writer thread included) and the
process's peak resident memory (row groups bound it: it does not grow with the input).
Table 2, in one process (CPU seconds): the walks alone (steps made and dropped), and the same walks encoded
and written; the share is (run - walks) / run. Table 3, sizes. Table 4, the reader (pyarrow on one thread),
batches of 1024 steps, best of --repeat passes.

The machine's load average is printed first: on a shared machine CPU seconds are the steadier figure.

    python benchmarks/parquet.py [--repeat N] [--file PATH] [--system NAME] [--labeled]
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool import steps  # noqa: E402
from treetool.formats.parquet import ParquetOutput  # noqa: E402
from treetool.formats.step_columns import StepColumns, sentence_steps  # noqa: E402
from treetool.formats.steps import dependency_jsonl  # noqa: E402
from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.annotate import Explore, annotate_sentence  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

EWT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
EXPLORE = ["--policy", "explore", "--error-rate", "0.1"]


def end_to_end(path: Path, system: str, labeled: bool, fmt: str, out: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one `treetool annotate` process writing ``out``."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "treetool", "annotate", str(path), "--system", system, *EXPLORE,
                              *(["--labeled"] if labeled else []), "--format", fmt, "-o", str(out)], cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        sys.exit(f"treetool annotate --format {fmt} failed (exit {child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cpu_seconds(run: Callable[[], object], repeat: int) -> float:
    """The least CPU time (all threads of this process) of ``repeat`` calls of ``run``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def in_process(path: Path, system_name: str, labeled: bool, folder: Path, repeat: int) -> dict[str, float]:
    """CPU seconds of the walks alone, and of the walks written as JSONL and as Parquet."""
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
        with ParquetOutput(str(folder / "inprocess.parquet"), StepColumns(labeled), {"command": "annotate"}) as out:
            for sent_id, walk in walks():
                out.write(sentence_steps(sent_id, walk))

    return {name: cpu_seconds(run, repeat) for name, run in
            (("walks", walk_only), ("jsonl", jsonl), ("parquet", parquet))}


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
        runs = {fmt: min((end_to_end(args.file, args.system, args.labeled, fmt, out) for _ in range(args.repeat)),
                         key=lambda r: r[1]) for fmt, out in files.items()}
        print("| format | wall s | CPU s | peak RSS MB |\n| --- | ---: | ---: | ---: |")
        for fmt, (wall, cpu, rss) in runs.items():
            print(f"| {fmt} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
        print(f"\nParquet end to end: {runs['jsonl'][0] / runs['parquet'][0]:.2f}x faster (wall), "
              f"{runs['jsonl'][1] / runs['parquet'][1]:.2f}x (CPU); goal 1.3x\n")
        cpu = in_process(args.file, args.system, args.labeled, folder, args.repeat)
        print("| in one process | CPU s | encoding + writing |\n| --- | ---: | ---: |")
        print(f"| walks alone | {cpu['walks']:.2f} | |")
        for fmt in ("jsonl", "parquet"):
            print(f"| walks + {fmt} | {cpu[fmt]:.2f} | {(cpu[fmt] - cpu['walks']) / cpu[fmt]:.0%} |")
        print("\ngoal: under 10% with Parquet\n")
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
