"""Nederhof (2019) Figure 9: mean time per step against k + m, for the arc-standard oracle's algorithms.

    python benchmarks/nederhof.py [--sentences 60] [--long 30] [--walks 5] [--cap 8] [--cubic-share 0.02]
                                  [--seed 0] [--png fig9.png]

k + m is the stack height (words other than the root) plus the remaining
input at the configuration whose optimal step is computed; a step's time is
one ``NederhofOracle.scores(config)`` call (SH, LA and RA) on an oracle made
for that step alone, as in the paper (§7: values are not reused across
steps), so the per-sentence chart of the cubic algorithm and the Table 5
items an oracle keeps between calls are paid at every step (the speed of an
oracle kept along a walk, as a trainer uses it, is
benchmarks/arc_standard_oracle.py's). Configurations
come from ``--walks`` exploring walks per sentence (error rate 0.1, steered
by the linear oracle on the projectivized tree; every curve is timed on the
same configurations, as in the paper's second pass) over a sample of each
treebank: ``--sentences`` drawn at random (seed ``--seed``) plus up to
``--long`` of the sentences of more than 75 words (English-EWT train has 27;
German-GSD dev none, so its table stops short of k + m = 80), so that k + m
around 80 has data. Several walks per sentence, because the cubic
algorithm's time grows with the cube of the stack plus the critical words,
which a walk's errors inflate.
Curves, as in the paper:

* projectivized trees (optimal projectivization, treetool.projectivization):
  ``cubic (proj)`` (§4 on the stack plus the critical buffer words),
  ``quadratic`` (§5), ``linear`` (§6);
* original trees: ``cubic`` (§4 on the whole buffer, every tree).

The three algorithms on the projectivized tree are timed on every
configuration of the walks, so their means at a given k + m are over the
same configurations. ``cubic`` on the whole buffer builds the sentence's
chart at every step (milliseconds at k + m = 80), so it is timed on a
random share of the configurations (``--cubic-share``, seeded), at most
``--cap`` per 10-wide k + m bucket. Every timed configuration is
also checked: the algorithms on the projectivized tree give identical
scores (§8.2). Prints one table per
treebank and the linear speed-up at k + m around 80; writes a PNG of the
curves when matplotlib is importable (not a dependency of treetool).
Steps are timed in CPU time (``time.process_time``), so that other work on
a shared machine does not inflate them; the table header prints the load
average all the same.
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

from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.dynamic import exploring_walk  # noqa: E402
from treetool.oracles.nederhof import NederhofOracle  # noqa: E402
from treetool.projectivization.optimal import optimal_projectivize  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402
from treetool.trees import is_projective  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "ud-2.2"
TREEBANKS = [("German-GSD dev", "UD_German-GSD/de_gsd-ud-dev.conllu"),
             ("English-EWT train", "UD_English-EWT/en_ewt-ud-train.conllu")]
CURVES = ["cubic (proj)", "quadratic", "linear", "cubic"]
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


def measure(trees: list[list[int]], walks: int, cap: int, share: float, seed: int) -> dict[str, dict[int, list[float]]]:
    """Per curve, per k + m bucket: the seconds of each timed step."""
    times: dict[str, dict[int, list[float]]] = {c: defaultdict(list) for c in CURVES}
    rng, pick = random.Random(seed), random.Random(seed + 1)
    for heads in trees:
        proj = projectivized(heads)
        makers = {"cubic (proj)": lambda: NederhofOracle(proj, algorithm="cubic"),
                  "quadratic": lambda: NederhofOracle(proj, algorithm="quadratic"),
                  "linear": lambda: NederhofOracle(proj, algorithm="linear"),
                  "cubic": lambda: NederhofOracle(heads, algorithm="cubic", reduce_critical=False)}
        for _ in range(walks):
            _timed_walk(makers, NederhofOracle(proj), len(heads) - 1, rng, times, lambda bucket: (
                len(times["cubic"][bucket]) < cap and pick.random() < share))
    return times


def _timed_walk(makers, steer, n, rng, times, time_unreduced) -> None:
    """One walk steered by ``steer`` (projectivized tree); each curve timed on a new oracle per configuration."""
    for config, _ in exploring_walk(SYSTEM, steer, n, rng, 0.1):
        bucket = (len(config.stack) - 1 + len(config.buffer)) // 10 * 10
        scores = {}
        for name, make in makers.items():
            if name == "cubic" and not time_unreduced(bucket):
                continue
            oracle = make()
            start = time.process_time()
            scores[name] = oracle.scores(config)
            times[name][bucket].append(time.process_time() - start)
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
    parser.add_argument("--long", type=int, default=30)
    parser.add_argument("--walks", type=int, default=5)
    parser.add_argument("--cap", type=int, default=8)
    parser.add_argument("--cubic-share", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--png", default="nederhof_fig9.png")
    args = parser.parse_args()
    results = []
    for title, rel in TREEBANKS:
        start = time.time()
        trees = sample(DATA / rel, args.sentences, args.long, args.seed)
        times = measure(trees, args.walks, args.cap, args.cubic_share, args.seed)
        print(table(title, times))
        for slow in ("cubic (proj)", "cubic"):
            r = ratio(times, slow, "linear")
            print(f"  {slow} / linear at k+m 70-89: " + ("n/a" if r is None else f"{r:.0f}x"))
        print(f"  ({time.time() - start:.0f} s)\n")
        results.append((title, times))
    plot(results, args.png)


if __name__ == "__main__":
    main()
