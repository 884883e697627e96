"""Speed of `treetool annotate` for the constituency systems, in steps per second (issue 12).

Target (issue 12): `--loss paper` at least 20,000 steps/s.

Table 1, the oracle alone (library, in process, CPU time): the walks of
`--policy explore --error-rate 0.1 --seed 1` over every tree are recorded
first, then a fresh :class:`ConstituencyOracle` per tree gives ``costs`` for
each recorded configuration, in walk order.

Table 2, end to end: one `python -m treetool annotate FILES --policy explore
--error-rate 0.1 --seed 1 -o FILE.jsonl` process per system and loss (start-up,
the label pass, reading, the walk, JSON and writing included), with wall
seconds, CPU seconds (user + system of the process) and the load average
before and after: the machine may be shared, and the wall clock then counts
time spent waiting for a core. `--loss exact` is slow: only with `--exact`
(it needs `--on-error skip` for trees its search cannot serve).

    python benchmarks/constituency_annotate.py [--files GLOB] [--exact] [--jobs N] [--skip-library]
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.oracles.annotate import Explore  # noqa: E402
from treetool.oracles.constituency import from_nltk, get_constituency_system  # noqa: E402
from treetool.oracles.constituency.annotate import annotate_tree  # noqa: E402
from treetool.oracles.constituency.dynamic import ConstituencyOracle  # noqa: E402
from treetool.oracles.constituency.tree import preorder  # noqa: E402
from treetool.formats.ptb import Bracket  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

SAMPLE = str(ROOT.parent / "shared" / "data" / "ptb-sample" / "*.mrg")
SYSTEMS = ("top-down", "in-order")
TARGET = 20_000
EXPLORE = ["--policy", "explore", "--error-rate", "0.1", "--seed", "1"]


def gold_trees(paths: list[str]) -> list:
    """The trees of ``paths``, cleaned as annotate cleans them (a tree with no constituent is left out)."""
    out = []
    for path in paths:
        for _, tree in read_treebank(path, "ptb", ptb_lines=True, on_error=lambda err: None, drop_traces=True,
                                     strip_functions=True, remove_wrapper=True, node=Bracket):
            try:
                out.append(from_nltk(tree))
            except ValueError:
                continue
    return out


def library(golds: list, system_name: str) -> tuple[int, float]:
    """(steps, CPU seconds) of ``ConstituencyOracle.costs`` alone along recorded exploring walks."""
    system = get_constituency_system(system_name)
    labels = list(dict.fromkeys(node.label for gold in golds for node in preorder(gold)))
    walks = [[step.config for step in annotate_tree(system, gold, labels, policy=Explore(0.1, 1), position=k,
                                                    loss="paper")]
             for k, gold in enumerate(golds, 1)]
    start = time.process_time()
    for gold, configs in zip(golds, walks):
        oracle = ConstituencyOracle(system, gold, labels, "paper")
        for config in configs:
            oracle.costs(config)
    return sum(map(len, walks)), time.process_time() - start


def end_to_end(paths: list[str], system: str, loss: str, jobs: int) -> dict:
    """One annotate process: steps, wall and CPU seconds, load averages (1 min) before and after."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "steps.jsonl")
        extra = ["--on-error", "skip", "--quiet"] if loss == "exact" else ["--quiet"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "treetool", "annotate", *paths, "--system", system, "--loss", loss,
                        *EXPLORE, *extra, "--jobs", str(jobs), "-o", out], cwd=ROOT, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(out, "rb") as handle:
            steps = sum(1 for _ in handle)
        size = os.path.getsize(out)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"steps": steps, "wall": wall, "cpu": cpu, "load": (load_before, os.getloadavg()[0]), "mb": size / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default=SAMPLE, help="a glob of PTB files [default: the WSJ sample]")
    parser.add_argument("--exact", action="store_true", help="also measure --loss exact end to end (slow)")
    parser.add_argument("--jobs", type=int, default=1, help="--jobs of the annotate processes [default: 1]")
    parser.add_argument("--skip-library", action="store_true", help="end to end only")
    args = parser.parse_args()
    paths = sorted(glob.glob(args.files))
    if not paths:
        sys.exit(f"no file matches {args.files}")
    print(f"{len(paths)} files; target {TARGET:,} steps/s for --loss paper; load average at start "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    if not args.skip_library:
        golds = gold_trees(paths)
        print(f"oracle alone (ConstituencyOracle.costs, --loss paper, {len(golds)} trees, CPU time)")
        print(f"{'system':<10} {'steps':>9} {'cpu s':>7} {'steps/s':>9}")
        for system in SYSTEMS:
            steps, cpu = library(golds, system)
            print(f"{system:<10} {steps:>9,} {cpu:>7.2f} {steps / cpu:>9,.0f}")
        print()
    losses = ["paper", "exact"] if args.exact else ["paper"]
    print(f"end to end (treetool annotate {' '.join(EXPLORE)} --jobs {args.jobs} -o FILE.jsonl)")
    print(f"{'system':<10} {'loss':<6} {'steps':>9} {'MB':>6} {'wall s':>7} {'cpu s':>7} {'steps/s wall':>13} "
          f"{'steps/s cpu':>12} {'load before/after':>18}")
    for system in SYSTEMS:
        for loss in losses:
            r = end_to_end(paths, system, loss, args.jobs)
            print(f"{system:<10} {loss:<6} {r['steps']:>9,} {r['mb']:>6.0f} {r['wall']:>7.2f} {r['cpu']:>7.2f} "
                  f"{r['steps'] / r['wall']:>13,.0f} {r['steps'] / r['cpu']:>12,.0f} "
                  f"{r['load'][0]:>9.2f}/{r['load'][1]:.2f}")


if __name__ == "__main__":
    main()
