"""Time per ``costs`` call of the Attardi degree-2 oracle along exploring walks, and ``annotate`` steps per second.

Table 1 (issue 23, part 3; target: median <= 100 µs): CPU µs per
``costs(config)`` call of ``AttardiDegree2Oracle`` (``treetool.oracles.tabular_loss``)
along exploring walks (Goldberg & Nivre 2012: error rate 0.1, wrong labels
too; ``treetool.oracles.dynamic.exploring_walk``), labelled, one oracle per
sentence, over English-EWT train (``--limit``: the first N sentences).
Each walk's random stream is seeded by the sentence's position, so every
module walks the same configurations (its costs being exact).

Table 2 (issue 25, part 3; target: >= 10,000 steps/s on one core):
``treetool annotate --system attardi --degree 2 --policy explore
--error-rate 0.1`` end to end (JSONL to /dev/null, start-up included) on
the first 2,000 sentences of English-EWT train projectivized by
``treetool projectivize`` (made once in a temporary folder). Wall-clock and
CPU seconds (user + system of the process); on a shared machine the wall
clock also counts time spent waiting for a core.

``--compare OLD.py``: an older ``tabular_loss.py`` (for example ``git show
REV:oracles/tabular_loss.py > old.py``; its imports must still resolve),
loaded in place of the current module and timed in alternation with it,
``--rounds`` times each, because other processes load the machine: each
row of a table is one run.

    python benchmarks/attardi_calls.py [--compare OLD.py] [--rounds R] [--limit N] [--skip-annotate]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.oracles import get_system  # noqa: E402
from treetool.oracles import tabular_loss  # noqa: E402
from treetool.oracles.dynamic import exploring_walk  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

EWT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
SYSTEM = get_system("attardi", degree=2)
ANNOTATE = ["annotate", "--system", "attardi", "--degree", "2", "--policy", "explore", "--error-rate", "0.1"]

# Run as ``python -c`` before the command line: the module under test replaces tabular_loss for the whole process.
SWAP = """import importlib.util, sys
path = sys.argv.pop(1)
if path != "-":
    spec = importlib.util.spec_from_file_location("treetool.oracles.tabular_loss", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["treetool.oracles.tabular_loss"] = module
    spec.loader.exec_module(module)
from treetool.commands.app import main
main()
"""


def load_module(path: str) -> ModuleType:
    """An older ``tabular_loss.py`` as a module of the package (its relative imports resolve)."""
    spec = importlib.util.spec_from_file_location("treetool.oracles._compared_tabular_loss", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TimedOracle:
    """Adds the CPU time of every ``costs`` call to ``times`` (ns); ``optimal`` passes through."""

    def __init__(self, oracle, times: list[int]) -> None:
        self.oracle, self.times = oracle, times

    def costs(self, config):
        start = time.process_time_ns()
        answer = self.oracle.costs(config)
        self.times.append(time.process_time_ns() - start)
        return answer

    def optimal(self, config):
        return self.oracle.optimal(config)


def call_times(module: ModuleType, path: Path, limit: int | None) -> list[int]:
    """CPU ns of every ``costs`` call along one labelled exploring walk per sentence."""
    times: list[int] = []
    for position, sentence in enumerate(read_treebank(str(path)), 1):
        if limit is not None and position > limit:
            break
        labels = sentence.deprels
        oracle = TimedOracle(module.AttardiDegree2Oracle(sentence.head_list, labels), times)
        rng = random.Random(position)
        for _ in exploring_walk(SYSTEM, oracle, sentence.n_words, rng, 0.1, sorted(set(labels[1:]))):
            pass
    return times


def first_sentences_projectivized(source: Path, folder: Path, count: int = 2000) -> tuple[Path, int]:
    """``treetool projectivize`` of ``source``, cut to its first ``count`` sentences: (file, steps of a walk)."""
    whole = folder / "projectivized.conllu"
    subprocess.run([sys.executable, "-m", "treetool", "projectivize", str(source), "-o", str(whole)], cwd=ROOT,
                   check=True)
    blocks = [block for block in whole.read_text(encoding="utf-8").split("\n\n") if block.strip()][:count]
    words = sum(1 for block in blocks for line in block.splitlines() if line.split("\t", 1)[0].isdigit())
    first = folder / f"first-{count}.conllu"
    first.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return first, 2 * words  # SH and one reduction per word


def annotate_seconds(module_path: str, path: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``treetool annotate`` process with ``module_path`` ("-": the current one)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", SWAP, module_path, *ANNOTATE, str(path), "-o", os.devnull], cwd=ROOT,
                   check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", metavar="OLD.py", help="an older tabular_loss.py, timed in alternation")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each module, alternating")
    parser.add_argument("--file", default=str(EWT), help="the treebank of table 1 (default: English-EWT train)")
    parser.add_argument("--limit", type=int, default=None, help="table 1: the first N sentences only")
    parser.add_argument("--skip-annotate", action="store_true", help="table 1 only")
    args = parser.parse_args()
    modules = [("current", tabular_loss, "-")]
    if args.compare:
        modules.insert(0, (f"old ({Path(args.compare).name})", load_module(args.compare), args.compare))
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M}, {platform.node()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")
    print(f"\nTable 1: costs() along exploring walks (error rate 0.1, labelled), {args.file}"
          f"{'' if args.limit is None else f', first {args.limit} sentences'}")
    print("| module | calls | median µs | mean µs | 90th pct µs | max ms |\n|---|---|---|---|---|---|")
    for _ in range(args.rounds):
        for name, module, _ in modules:
            times = sorted(call_times(module, Path(args.file), args.limit))
            print(f"| {name} | {len(times)} | {statistics.median(times) / 1e3:.1f} | "
                  f"{statistics.fmean(times) / 1e3:.1f} | {times[len(times) * 9 // 10] / 1e3:.1f} | "
                  f"{times[-1] / 1e6:.1f} |", flush=True)
    if args.skip_annotate:
        return
    with tempfile.TemporaryDirectory() as folder:
        first, steps = first_sentences_projectivized(EWT, Path(folder))
        print(f"\nTable 2: treetool {' '.join(ANNOTATE)}, first 2,000 sentences of English-EWT train projectivized "
              f"({steps} steps)")
        print("| module | wall s | CPU s | steps/s (wall) | steps/s (CPU) |\n|---|---|---|---|---|")
        for _ in range(args.rounds):
            for name, _, path in modules:
                wall, cpu = annotate_seconds(path, first)
                print(f"| {name} | {wall:.1f} | {cpu:.1f} | {steps / wall:,.0f} | {steps / cpu:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
