"""Speed of arc-standard's dynamic oracle (Nederhof 2019) per call, and of `treetool annotate --system arc-standard`.

    python benchmarks/arc_standard_oracle.py [--projective 2000] [--nonprojective 200] [--seed 0]
                                             [--annotate 2000] [--annotate-nonprojective 100] [FILE]

Default FILE: ../shared/data/ud-2.2/UD_English-EWT/en_ewt-ud-train.conllu.

Table 1, per call: sentences of FILE whose gold tree is projective (the
linear algorithm, §6) and whose gold tree is not (the cubic one, §4), a
random sample of each (``--seed``); each is walked once as a trainer with
exploration does (Goldberg & Nivre 2012: with probability 0.1 a random costly
action, with a random label, else a random optimal one;
``treetool.oracles.dynamic.exploring_walk``), labelled, with one oracle per
sentence, and every ``costs(config)`` call is timed in CPU time
(``time.process_time``: other work on a shared machine inflates wall time).
Rows by sentence length; median and mean microseconds per call. Targets
(issue 23): median <= 60 us for projective trees, mean <= 1 ms for
non-projective ones.

Table 2, end to end (issue 25): one `python -m treetool annotate --system
arc-standard --policy explore --error-rate 0.1` process on the first
``--annotate`` sentences of FILE, optimally projectivized (JSONL to
/dev/null, start-up included), and on the first ``--annotate-nonprojective``
non-projective ones as they are; steps per second of the process's CPU time
(user + system) and of wall time. Target: 50,000 steps/s on the projectivized
sentences. The inputs are written to a temporary folder, deleted afterwards.
"""

from __future__ import annotations

import argparse
import datetime
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.dynamic import exploring_walk  # noqa: E402
from treetool.oracles.nederhof import NederhofOracle  # noqa: E402
from treetool.projectivization.optimal import optimal_projectivize  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402
from treetool.trees import is_projective  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
SYSTEM = get_system("arc-standard")
BUCKETS = [(1, 10), (11, 20), (21, 30), (31, 40), (41, 60), (61, 10_000)]
TARGETS = {"projective": ("median", 60.0), "non-projective": ("mean", 1000.0)}
ANNOTATE_TARGET = 50_000


class TimedOracle:
    """Wraps an oracle and records the CPU seconds of each ``costs`` call (``optimal`` reuses its answer)."""

    def __init__(self, oracle: NederhofOracle) -> None:
        self.oracle = oracle
        self.seconds: list[float] = []

    def costs(self, config):
        start = time.process_time()
        answer = self.oracle.costs(config)
        self.seconds.append(time.process_time() - start)
        return answer

    def optimal(self, config):
        return self.oracle.optimal(config)


def per_call(sentences, rng: random.Random) -> dict[tuple[int, int], list[float]]:
    """Seconds of each ``costs`` call along one labelled exploring walk per sentence, by length bucket."""
    times: dict[tuple[int, int], list[float]] = {bucket: [] for bucket in BUCKETS}
    for sentence in sentences:
        heads, labels = sentence.head_list, sentence.deprels
        timed = TimedOracle(NederhofOracle(heads, labels))
        for _ in exploring_walk(SYSTEM, timed, len(heads) - 1, rng, 0.1, sorted(set(labels[1:]))):
            pass
        bucket = next(b for b in BUCKETS if b[0] <= len(heads) - 1 <= b[1])
        times[bucket] += timed.seconds
    return times


def call_table(kind: str, sentences, times) -> str:
    counts = {b: sum(1 for s in sentences if b[0] <= len(s.head_list) - 1 <= b[1]) for b in BUCKETS}
    lines = [f"{kind} gold trees: {len(sentences)} sentences",
             "| words | sentences | calls | median us | mean us |", "|---|---|---|---|---|"]
    rows = [(f"{lo}-{hi}" if hi < 10_000 else f"{lo}+", counts[(lo, hi)], times[(lo, hi)]) for lo, hi in BUCKETS]
    rows.append(("all", len(sentences), [x for xs in times.values() for x in xs]))
    for name, count, xs in rows:
        if xs:
            lines.append(f"| {name} | {count} | {len(xs):,} | {1e6 * statistics.median(xs):,.1f} | "
                         f"{1e6 * statistics.fmean(xs):,.1f} |")
    statistic, limit = TARGETS[kind]
    everything = rows[-1][2]
    value = 1e6 * (statistics.median(everything) if statistic == "median" else statistics.fmean(everything))
    lines.append(f"target: {statistic} <= {limit:g} us: {value:,.1f} us, {'met' if value <= limit else 'MISSED'}")
    return "\n".join(lines)


def annotate(path: Path) -> tuple[int, float, float]:
    """(steps, CPU seconds, wall seconds) of one `treetool annotate` process on ``path``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "treetool", "annotate", str(path), "--system", "arc-standard",
                           "--policy", "explore", "--error-rate", "0.1", "-o", os.devnull], cwd=ROOT,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"treetool annotate failed:\n{done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    steps = sum(2 * (len(s.head_list) - 1) for s in read_treebank(str(path)))  # arc-standard: 2n steps
    return steps, cpu, wall


def conllu(sentences, heads_of) -> str:
    """The sentences in CoNLL-U with their heads replaced by ``heads_of(sentence)`` (10 columns, labels kept)."""
    blocks = []
    for s in sentences:
        heads = heads_of(s)
        rows = [f"{w}\t{s.forms[w]}\t_\t_\t_\t_\t{heads[w]}\t{s.deprels[w]}\t_\t_" for w in range(1, len(heads))]
        blocks.append("\n".join(rows) + "\n")
    return "\n".join(blocks) + "\n"


def annotate_table(sentences, count: int, nonprojective: int) -> str:
    lines = ["| input | sentences | steps | CPU s | steps/s (CPU) | wall s | steps/s (wall) |",
             "|---|---|---|---|---|---|---|"]
    inputs = [(f"first {count}, optimally projectivized", sentences[:count],
               lambda s: s.head_list if is_projective(s.head_list) else optimal_projectivize(s.head_list).tolist()),
              (f"first {nonprojective} non-projective", [s for s in sentences if not is_projective(s.head_list)]
               [:nonprojective], lambda s: s.head_list)]
    with tempfile.TemporaryDirectory() as folder:
        for name, chosen, heads_of in inputs:
            if not chosen:
                continue
            path = Path(folder) / "input.conllu"
            path.write_text(conllu(chosen, heads_of), encoding="utf-8")
            steps, cpu, wall = annotate(path)
            lines.append(f"| {name} | {len(chosen)} | {steps:,} | {cpu:.2f} | {steps / cpu:,.0f} | {wall:.2f} | "
                         f"{steps / wall:,.0f} |")
    lines.append(f"target: {ANNOTATE_TARGET:,} steps/s on the projectivized sentences")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--projective", type=int, default=2000, help="projective sentences sampled (table 1)")
    parser.add_argument("--nonprojective", type=int, default=200, help="non-projective sentences sampled (table 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--annotate", type=int, default=2000, help="sentences for table 2 (0: no table 2)")
    parser.add_argument("--annotate-nonprojective", type=int, default=100)
    args = parser.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file} not found")
    sentences = list(read_treebank(str(args.file)))
    print(f"{platform.node()}: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
          f"{platform.python_version()}, numpy {np.__version__}; {datetime.datetime.now():%Y-%m-%d %H:%M}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.file.name}: {len(sentences):,} sentences; exploring walks, error rate 0.1, labelled\n")
    rng = random.Random(args.seed)
    projective = [s for s in sentences if is_projective(s.head_list)]
    nonprojective = [s for s in sentences if not is_projective(s.head_list)]
    for kind, pool, count in (("projective", projective, args.projective),
                              ("non-projective", nonprojective, args.nonprojective)):
        if count:  # 0: the table is left out
            chosen = rng.sample(pool, min(count, len(pool)))
            print(call_table(kind, chosen, per_call(chosen, rng)) + "\n")
    if args.annotate:
        print("treetool annotate --system arc-standard --policy explore --error-rate 0.1 -o /dev/null:")
        print(annotate_table(sentences, args.annotate, args.annotate_nonprojective))
    print(f"(load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
