"""Speed of the published dynamic oracles along exploring walks (library only, no I/O in the timings).

    python benchmarks/dynamic_oracles.py [--repeat N] [--limit SENTENCES] [FILE]

Default FILE: ../shared/data/ud-2.2/UD_English-EWT/en_ewt-ud-train.conllu
(read once, before timing). For each oracle, every sentence is walked from
the initial configuration to a final one as a trainer with exploration does
(Goldberg & Nivre 2012): at each step the oracle's costs and optimal
actions (as ``treetool annotate`` writes both), then with probability 0.1 a
random costly action, otherwise a random optimal one
(``random.Random(1)``), then ``system.apply``. Prints steps per second of
CPU time (``time.process_time``, best of N runs: on a shared machine wall
time mostly measures the other processes), and from a second, instrumented
run the share of time in
``oracle.costs`` + ``oracle.optimal`` and in ``system.apply`` (the rest: choosing the action and
the loop). Unlabelled and labelled (real labels) rows. Target: well above
150k steps/s, so that ``treetool annotate`` reaches 50k steps/s end to end.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.oracles import get_system  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
ORACLES = [
    ("arc-eager", "arc-eager", {}, {}),
    ("arc-hybrid", "arc-hybrid", {}, {}),
    ("nm-arc-eager L", "nm-arc-eager", {"variant": "L"}, {}),
    ("nm-arc-eager D", "nm-arc-eager", {"variant": "D"}, {}),
    ("nm-arc-eager LD", "nm-arc-eager", {"variant": "LD"}, {}),
    ("nm-arc-eager LD prefer-mono", "nm-arc-eager", {"variant": "LD"}, {"prefer_monotonic": True}),
]
ERROR_RATE = 0.1


def walk(system, oracle, n: int, rng: random.Random, labeled: bool, clock=None) -> int:
    """One exploring walk; returns its number of steps. ``clock``: [costs_s, apply_s] accumulated when given."""
    config = system.initial(n, labeled=labeled)
    is_final, apply, costs_of, optimal_of = system.is_final, system.apply, oracle.costs, oracle.optimal
    steps = 0
    while not is_final(config):
        if clock is None:
            costs, best = costs_of(config), optimal_of(config)
        else:
            t0 = time.perf_counter()
            costs, best = costs_of(config), optimal_of(config)
            clock[0] += time.perf_counter() - t0
        if rng.random() < ERROR_RATE and (wrong := [a for a, c in costs.items() if c]):
            action = rng.choice(wrong)
        else:
            action = rng.choice(best)
        if clock is None:
            config = apply(config, action)
        else:
            t0 = time.perf_counter()
            config = apply(config, action)
            clock[1] += time.perf_counter() - t0
        steps += 1
    return steps


def run(system, oracle_options, sentences, labeled: bool, clock=None) -> int:
    rng = random.Random(1)
    steps = 0
    for heads, labels in sentences:
        oracle = system.dynamic_oracle(heads, labels if labeled else None, **oracle_options)
        steps += walk(system, oracle, len(heads) - 1, rng, labeled, clock)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N sentences only")
    args = parser.parse_args()
    sentences = [(s.head_list, s.deprels) for s in read_treebank(args.file)][: args.limit]
    print(f"{Path(args.file).name}: {len(sentences)} sentences; error rate {ERROR_RATE}, best of {args.repeat}")
    print(f"{'oracle':30} {'labels':>6} {'steps':>9} {'steps/s':>10} {'costs':>6} {'apply':>6}  (CPU time)")
    for label, name, options, oracle_options in ORACLES:
        system = get_system(name, **options)
        for labeled in (False, True):
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.process_time()
                steps = run(system, oracle_options, sentences, labeled)
                best = min(best, time.process_time() - t0)
            clock = [0.0, 0.0]
            t0 = time.perf_counter()
            run(system, oracle_options, sentences, labeled, clock)
            total = time.perf_counter() - t0
            shares = f"{100 * clock[0] / total:5.1f}% {100 * clock[1] / total:5.1f}%"
            print(f"{label:30} {'yes' if labeled else 'no':>6} {steps:>9} {steps / best:>10,.0f} {shares}", flush=True)


if __name__ == "__main__":
    main()
