"""Speed of the training API: ``oracle.cost_vector`` and ``actions.legal_mask`` per call, along exploring walks.

    python benchmarks/training_api.py [--sentences N] [--nonprojective N] [--attardi N] [--seed S] [FILE]

Default FILE: ../shared/data/ud-2.2/UD_English-EWT/en_ewt-ud-train.conllu
(read once, before timing). Labelled, with the vocabulary of the file's
labels (``system.actions(treetool.labels(FILE))``). Every sentence is
walked as a trainer with exploration does (Goldberg & Nivre 2012), from the
cost vector itself: with probability 0.1 a random legal action of non-zero
cost (a wrong label counts), otherwise a random one of cost 0. At each
configuration the script times ``oracle.cost_vector(config, actions)`` (the
first call on the configuration, so an oracle's bookkeeping is included),
``actions.legal_mask(config)``, and ``costs(config)`` of a second oracle
walked in step (the dict API, for the overhead of the vector). Rows:

* arc-eager, arc-hybrid, nm-arc-eager (LD): the first ``--sentences`` sentences (default all);
* arc-standard, projective gold (Nederhof's linear algorithm): the first ``--sentences`` projective ones;
* arc-standard, non-projective gold (the cubic algorithm): the first ``--nonprojective`` (default 40);
* attardi degree 2 (the tabular oracle): the first ``--attardi`` sentences (default 300).

Prints median and mean microseconds per call (``time.perf_counter_ns``
around each call, so about 0.05 us of timer is included), and one line
naming the machine, the load and the date: timings on a shared machine vary.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import treetool  # noqa: E402
from treetool.oracles import get_system  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402
from treetool.trees import is_projective  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
ERROR_RATE = 0.1


def walk(system, actions, vector_oracle, dict_oracle, n: int, rng: random.Random, times: dict) -> None:
    """One exploring walk steered by the cost vector; appends nanoseconds per call to ``times``."""
    clock = time.perf_counter_ns
    config = system.initial(n, labeled=True)
    while not system.is_final(config):
        start = clock()
        costs = vector_oracle.cost_vector(config, actions)
        middle = clock()
        actions.legal_mask(config)
        end = clock()
        dict_oracle.costs(config)
        times["cost_vector"].append(middle - start)
        times["legal_mask"].append(end - middle)
        times["costs"].append(clock() - end)
        wrong = np.flatnonzero(costs > 0)
        chosen = wrong if len(wrong) and rng.random() < ERROR_RATE else np.flatnonzero(costs == 0)
        config = system.apply(config, actions[int(rng.choice(chosen))])


def run(system, actions, sentences, seed: int) -> dict:
    times: dict[str, list[int]] = {"cost_vector": [], "legal_mask": [], "costs": []}
    rng = random.Random(seed)
    for heads, labels in sentences:
        vector_oracle, dict_oracle = system.dynamic_oracle(heads, labels), system.dynamic_oracle(heads, labels)
        walk(system, actions, vector_oracle, dict_oracle, len(heads) - 1, rng, times)
    return times


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        names = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")]
        cpu = f"{names[0]} x{len(names)}" if names else cpu
    except OSError:
        pass
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (f"{datetime.date.today()}, {platform.system()} {platform.machine()}, {cpu}{load}, "
            f"Python {platform.python_version()}, numpy {np.__version__}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT))
    parser.add_argument("--sentences", type=int, default=None, help="sentences for the fast rows (default: all)")
    parser.add_argument("--nonprojective", type=int, default=40, help="non-projective sentences for arc-standard")
    parser.add_argument("--attardi", type=int, default=300, help="sentences for attardi degree 2")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    corpus = [(s.head_list, s.deprels) for s in read_treebank(args.file)]
    labels = treetool.labels(args.file)
    projective = [s for s in corpus if is_projective(s[0])]
    rows = [
        ("arc-eager", get_system("arc-eager"), corpus[:args.sentences]),
        ("arc-hybrid", get_system("arc-hybrid"), corpus[:args.sentences]),
        ("nm-arc-eager LD", get_system("nm-arc-eager", variant="LD"), corpus[:args.sentences]),
        ("arc-standard, projective gold", get_system("arc-standard"), projective[:args.sentences]),
        ("arc-standard, non-projective gold", get_system("arc-standard"),
         [s for s in corpus if not is_projective(s[0])][:args.nonprojective]),
        ("attardi degree 2", get_system("attardi", degree=2), corpus[:args.attardi]),
    ]
    print(f"{Path(args.file).name}: {len(labels)} labels; exploring walks, error rate {ERROR_RATE}, labelled")
    print(machine())
    print(f"{'system':34} {'sentences':>9} {'calls':>8}   {'cost_vector median / mean':>26}   "
          f"{'legal_mask median / mean':>25}   {'costs() median / mean':>22}   (us per call)")
    for name, system, sentences in rows:
        times = run(system, system.actions(labels), sentences, args.seed)
        cells = [f"{statistics.median(t) / 1e3:>10.1f} / {statistics.mean(t) / 1e3:<10.1f}"
                 for t in (times["cost_vector"], times["legal_mask"], times["costs"])]
        print(f"{name:34} {len(sentences):>9} {len(times['costs']):>8}   {cells[0]:>26}   {cells[1]:>25}   "
              f"{cells[2]:>22}", flush=True)


if __name__ == "__main__":
    main()
