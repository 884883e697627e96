"""Speed of `treetool annotate` on UD 2.2 English-EWT train, in annotated steps per second, and where the time goes.

Target (issue 9): at least 50,000 steps/s end to end (JSONL written) for
arc-eager, arc-hybrid and nm-arc-eager with `--policy explore --error-rate 0.1`.

Table 1, end to end: one `python -m treetool annotate` process per system and
policy, JSONL to /dev/null, start-up included; best of --repeat runs. Both
wall-clock and CPU seconds (user + system of the process) are shown: on a
shared machine the wall clock also counts time spent waiting for a core.
`predicted` follows the gold file itself (the command's alignment and path
code, on a path equal to the static one).

Table 2, time shares (in process, CPU time, explore 0.1): reading the
treebank, the oracle's `costs` + `optimal` calls (the walk's time minus that
of the same walk with the answers replayed from memory), the rest of the walk
(`apply`, the policy, the records), and encoding + writing the JSONL.

    python benchmarks/annotate.py [--repeat N] [--file PATH] [--systems ...] [--policies ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.formats.steps import dependency_jsonl  # noqa: E402
from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.annotate import Explore, annotate_sentence  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

EWT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
TARGET = 50_000
SYSTEMS = ("arc-eager", "arc-hybrid", "nm-arc-eager")
POLICIES = {"explore": ["--policy", "explore", "--error-rate", "0.1"], "static": ["--policy", "static"],
            "predicted": ["--policy", "predicted", "--predicted", "{file}"]}


def end_to_end(path: Path, system: str, policy: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `treetool annotate` process writing to /dev/null."""
    args = [a.replace("{file}", str(path)) for a in POLICIES[policy]]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "treetool", "annotate", str(path), "--system", system, *args,
                    "-o", os.devnull], cwd=ROOT, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


class ReplayedOracle:
    """Gives back recorded ``(costs, optimal)`` answers in order: a walk with no oracle work left in it."""

    def __init__(self, answers: list) -> None:
        self.answers = iter(answers)
        self.current = None

    def costs(self, config):
        self.current = next(self.answers)
        return self.current[0]

    def optimal(self, config):
        return self.current[1]


def shares(path: Path, system_name: str) -> tuple[int, dict[str, float]]:
    """Steps and CPU seconds per phase for explore 0.1 (see the module docstring).

    The oracle's share is the walk's time minus the time of the same walk
    with the oracle's answers replayed from memory (the same random stream
    takes the same actions).
    """
    system = get_system(system_name)
    start = time.process_time()
    trees = [(s.identifier(i), s.head_list) for i, s in enumerate(read_treebank(str(path)), 1)]
    read = time.process_time() - start
    policy = Explore(0.1, 0)
    start = time.process_time()
    walks = [list(annotate_sentence(system, heads, policy=policy, position=position))
             for position, (_, heads) in enumerate(trees, 1)]
    walk = time.process_time() - start
    answers = [[(s.costs, s.optimal) for s in walked] for walked in walks]
    own = system.dynamic_oracle
    system.dynamic_oracle = lambda *a, **k: ReplayedOracle(next(replies))  # type: ignore[method-assign]
    replies = iter(answers)
    start = time.process_time()
    for position, (_, heads) in enumerate(trees, 1):
        list(annotate_sentence(system, heads, policy=policy, position=position))
    without_oracle = time.process_time() - start
    system.dynamic_oracle = own  # type: ignore[method-assign]
    start = time.process_time()
    with open(os.devnull, "wb") as sink:
        for (sent_id, _), walked in zip(trees, walks):
            sink.write(dependency_jsonl(sent_id, iter(walked)).encode("utf-8"))
    write = time.process_time() - start
    steps = sum(map(len, walks))
    return steps, {"read": read, "oracle": walk - without_oracle, "walk": without_oracle, "write": write}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--file", type=Path, default=EWT)
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS), choices=SYSTEMS)
    parser.add_argument("--policies", nargs="*", default=list(POLICIES), choices=list(POLICIES))
    args = parser.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file} not found")
    counted = {name: shares(args.file, name) for name in args.systems}
    print(f"{args.file.name}; target {TARGET:,} steps/s end to end (explore 0.1)\n")
    print("| system | policy | steps | wall s | steps/s (wall) | CPU s | steps/s (CPU) | target |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.systems:
        for policy in args.policies:
            runs = [end_to_end(args.file, name, policy) for _ in range(args.repeat)]
            wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            steps = counted[name][0] if policy == "explore" else _steps(args.file, name, policy)
            verdict = ("met" if steps / cpu >= TARGET else "MISSED") if policy == "explore" else ""
            print(f"| {name} | {policy} | {steps:,} | {wall:.2f} | {steps / wall:,.0f} | {cpu:.2f} | "
                  f"{steps / cpu:,.0f} | {verdict} |")
    print("\nCPU time shares, in process, explore 0.1:\n")
    print("| system | steps | read | oracle | rest of walk | encode + write | steps/s |")
    print("|---|---|---|---|---|---|---|")
    for name, (steps, phases) in counted.items():
        total = sum(phases.values())
        cells = " | ".join(f"{phases[k]:.2f} s ({phases[k] / total:.0%})" for k in ("read", "oracle", "walk", "write"))
        print(f"| {name} | {steps:,} | {cells} | {steps / total:,.0f} |")


def _steps(path: Path, system_name: str, policy: str) -> int:
    """Steps of the static path (predicted follows the gold file itself: the same path)."""
    system = get_system(system_name)
    return sum(sum(1 for _ in annotate_sentence(system, s.head_list)) for s in read_treebank(str(path)))


if __name__ == "__main__":
    main()
