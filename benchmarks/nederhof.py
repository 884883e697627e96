"""Nederhof (2019) Figure 9: mean time per step against k + m, for the arc-standard oracle's algorithms.

    python benchmarks/nederhof.py [--sentences 60] [--long 10] [--cap 24] [--seed 0] [--png fig9.png]

k + m is the stack height (words other than the root) plus the remaining
input at the configuration whose optimal step is computed; a step's time is
one ``NederhofOracle.scores(config)`` call (SH, LA and RA). Configurations
come from one exploring walk per sentence (error rate 0.1, steered by the
linear oracle on the projectivized tree; every curve is timed on the same
configurations, as in the paper's second pass) over a sample of
each treebank: ``--sentences`` drawn at random (seed ``--seed``) plus up to
``--long`` of the sentences of more than 75 words, so that k + m around 80
has data. Curves, as in the paper:

* projectivized trees (optimal projectivization, treetool.projectivization):
  ``cubic (proj)`` (§4 on the stack plus the critical buffer words),
  ``quadratic`` (§5), ``linear`` (§6);
* original trees: ``cubic`` (§4 on the whole buffer, every tree).

The cubic algorithms are timed on at most ``--cap`` configurations per
k + m bucket (10 wide; ``cubic`` on the whole buffer: at most a third of
that, it takes seconds per step at k + m = 80 in Python); every timed configuration is also
checked: the algorithms on the projectivized tree give identical scores (§8.2). Prints one table per
treebank and the linear speed-up at k + m around 80; writes a PNG of the
curves when matplotlib is importable (not a dependency of treetool).
Timings depend on the load: the table header prints ``os.getloadavg()``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from oracles import get_system  # noqa: E402
from oracles.dynamic import exploring_walk  # noqa: E402
from oracles.nederhof import NederhofOracle  # noqa: E402
from treetool.projectivization.optimal import optimal_projectivize  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402
from treetool.trees import is_projective  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "ud-2.2"
TREEBANKS = [("German-GSD dev", "UD_German-GSD/de_gsd-ud-dev.conllu"),
             ("English-EWT train", "UD_English-EWT/en_ewt-ud-train.conllu")]
CURVES = ["cubic (proj)", "quadratic", "linear", "cubic"]
FAST = {"linear", "quadratic"}
SYSTEM = get_system("arc-standard")


def sample(path: Path, count: int, long: int, seed: int) -> list[list[int]]:
    trees = [s.head_list for s in read_treebank(str(path))]
    rng = random.Random(seed)
    longs = [t for t in trees if len(t) > 75]
    return rng.sample(trees, min(count, len(trees))) + rng.sample(longs, min(long, len(longs)))


def projectivized(heads: list[int]) -> list[int]:
    if is_projective(heads):
        return heads
    return optimal_projectivize(heads).tolist()


def measure(trees: list[list[int]], cap: int, seed: int) -> dict[str, dict[int, list[float]]]:
    """Per curve, per k + m bucket: the seconds of each timed step."""
    times: dict[str, dict[int, list[float]]] = {c: defaultdict(list) for c in CURVES}
    rng = random.Random(seed)
    for heads in trees:
        proj = projectivized(heads)
        oracles = {"cubic (proj)": NederhofOracle(proj, algorithm="cubic"),
                   "quadratic": NederhofOracle(proj, algorithm="quadratic"),
                   "linear": NederhofOracle(proj, algorithm="linear"),
                   "cubic": NederhofOracle(heads, algorithm="cubic", reduce_critical=False)}
        _timed_walk(oracles, len(heads) - 1, rng, times, cap)
    return times


def _timed_walk(oracles, n, rng, times, cap) -> None:
    """One walk steered by the linear oracle (projectivized tree); each oracle timed on its configurations."""
    for config, _ in exploring_walk(SYSTEM, oracles["linear"], n, rng, 0.1):
        bucket = (len(config.stack) - 1 + len(config.buffer)) // 10 * 10
        scores = {}
        for name, oracle in oracles.items():
            limit = cap if name == "cubic (proj)" else max(1, cap // 3)
            if name not in FAST and len(times[name][bucket]) >= limit:
                continue
            start = time.perf_counter()
            scores[name] = oracle.scores(config)
            times[name][bucket].append(time.perf_counter() - start)
        same = [s for name, s in scores.items() if name != "cubic"]  # cubic scores the original tree
        assert all(s == same[0] for s in same), (config, scores)


def table(title: str, times) -> str:
    buckets = sorted({b for c in CURVES for b in times[c]})
    lines = [f"{title} (load {os.getloadavg()[0]:.1f}): mean ms per step (steps timed)",
             "k+m      " + "".join(f"{c:>22}" for c in CURVES)]
    for b in buckets:
        cells = []
        for c in CURVES:
            xs = times[c].get(b, [])
            cells.append(f"{1000 * sum(xs) / len(xs):>14.3f} ({len(xs):>5})" if xs else f"{'n/a':>22}")
        lines.append(f"{b:>3}-{b + 9:<4} " + "".join(cells))
    return "\n".join(lines)


def ratio(times, slow: str, fast: str, lo: int = 70, hi: int = 90) -> float | None:
    s = [x for b, xs in times[slow].items() if lo <= b < hi for x in xs]
    f = [x for b, xs in times[fast].items() if lo <= b < hi for x in xs]
    return (sum(s) / len(s)) / (sum(f) / len(f)) if s and f else None


def plot(results, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure written")
        return
    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4))
    for ax, (title, times) in zip(axes, results):
        for c in CURVES:
            xs = sorted(times[c])
            ax.plot([b + 5 for b in xs], [1000 * sum(times[c][b]) / len(times[c][b]) for b in xs], label=c)
        ax.set(yscale="log", xlabel="k + m", ylabel="ms per step", title=title)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    print(f"figure written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=60)
    parser.add_argument("--long", type=int, default=10)
    parser.add_argument("--cap", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--png", default="nederhof_fig9.png")
    args = parser.parse_args()
    results = []
    for title, rel in TREEBANKS:
        start = time.time()
        times = measure(sample(DATA / rel, args.sentences, args.long, args.seed), args.cap, args.seed)
        print(table(title, times))
        for slow in ("cubic (proj)", "cubic"):
            r = ratio(times, slow, "linear")
            print(f"  {slow} / linear at k+m 70-89: " + ("n/a" if r is None else f"{r:.0f}x"))
        print(f"  ({time.time() - start:.0f} s)\n")
        results.append((title, times))
    plot(results, args.png)


if __name__ == "__main__":
    main()
