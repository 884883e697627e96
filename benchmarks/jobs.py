"""Speed-up of ``--jobs N`` (issue 13): wall-clock and CPU time of one ``treetool`` process per command and job count.

Goal: at least 1.7x with 2 jobs on a 2-core machine for the expensive
commands (``annotate --system arc-standard``, ``projectivize --count``), and
never more than 10% slower than ``--jobs 1`` for the cheap ones (``oracle``,
``coverage``), which stay in one process when workers would not pay.

The input is projectivized first (``treetool projectivize``, into a
temporary folder): on the original trees, ``annotate --system arc-standard``
runs Nederhof's cubic algorithm on every non-projective sentence (seconds per
step on long ones) and the run over English-EWT train does not end in ten
minutes; on projective trees it runs the linear algorithm, and the whole
benchmark takes two to three minutes on an idle machine. ``projectivize
--count`` reads the original trees: on projectivized ones it has no DP to
run (one second in all, too little for workers to pay).

Each run is a separate process (start-up included) writing to a temporary
file, the job counts in turn (1, 2, 4, 1, 2, 4, ...: the machine's speed
drifts, and a slow minute then falls on every job count alike). The table
gives the best wall-clock time of --repeat runs, the CPU time
of that process and its workers (user + system, from ``RUSAGE_CHILDREN``),
the wall speed-up over ``--jobs 1`` and the CPU efficiency: the CPU time of
``--jobs 1`` over that of N jobs (100% = the workers cost no CPU beyond the
work itself; 80% = 25% more CPU per sentence). The outputs of every job count
are checked to be byte-identical. The load average is printed first: on a
shared machine the wall speed-ups are not meaningful (other processes take
the cores the workers would use); the CPU efficiency mostly is.

The last column is the best speed-up N jobs could give (Amdahl's law): the
start-up of a run (interpreter, imports, the command line's parsing; the
wall time of the same command over the input's first sentence, shown once
per command) is not shared by workers, the rest at best over min(N, cores)
processes: ``T1 / (start + (T1 - start) / min(N, cores))``.  On
``projectivize --count`` over English-EWT train (about 2.9 s in one
process, 0.17-0.20 s of which start-up) this is about 1.9x for 2 jobs.

Then ``projectivize --count`` over the first 300 and 1,000 sentences of
the input (``--short``), held to the cheap commands' goal: an input too
short to repay workers must not be slowed down by them.

The machine's own share in a speed-up is printed before and after the
table: the same CPU-bound work (the optimal DP with counting over the
input's first non-projective trees, no input or output) run alone and then as
two copies side by side, each copy a process of its own, in rounds (at least
3, or --repeat).  On a machine whose two cores slow each other down (a
virtual machine whose cores share a physical one, or a busy host), two
copies take longer than one, and a program split over two processes can
hardly beat ``2 * alone / side by side`` (median of the rounds' ratios).
The probe is short and the machine noisy (single rounds where two copies
beat one alone have been seen), so the line is a rough sign of the moment,
not a bound.

    python benchmarks/jobs.py [--file PATH] [--sentences N] [--jobs 1 2 4] [--repeat N] [--only NAME...]
                              [--short N...]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EWT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"

#: name -> (arguments after the input file, expensive: held to the 1.7x goal, else to "not 10% slower")
COMMANDS: dict[str, tuple[list[str], bool]] = {
    "annotate --system arc-standard": (["annotate", "--system", "arc-standard", "--policy", "explore"], True),
    "projectivize --count": (["projectivize", "--count"], True),
    "oracle": (["oracle"], False),
    "coverage": (["coverage"], False),
}
GOAL_EXPENSIVE = 1.7
GOAL_CHEAP = 1 / 1.1


def run_once(args: list[str], path: Path, jobs: int, out: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its workers, sha256 of stdout + output file)."""
    command = [sys.executable, "-m", "treetool", args[0], str(path), *args[1:], "--jobs", str(jobs), "--quiet"]
    if args[0] != "coverage":
        command += ["-o", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    digest = hashlib.sha256(done.stdout)
    if out.exists():
        digest.update(out.read_bytes())
        out.unlink()
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), digest.hexdigest()


#: The probe of :func:`side_by_side`: the DP with counting over the first non-projective trees, timed in-process.
PROBE = """
import sys, time
from treetool.treebank import read_treebank
from treetool.trees import is_projective
from treetool.projectivization.optimal import optimal_projectivize_counted
trees = [s.heads for s in read_treebank(sys.argv[1]) if not is_projective(s.heads)][:250]
if not trees:
    sys.exit("the machine probe needs non-projective trees in " + sys.argv[1])
start = time.perf_counter()
for heads in trees:
    optimal_projectivize_counted(heads, count=True)
print(time.perf_counter() - start)
"""


def side_by_side(path: Path, rounds: int) -> tuple[float, list[float]]:
    """The probe's best seconds alone and, per round, the seconds of the slower of two copies run at once over
    those of one copy alone run just before (the machine's speed drifts, so each pair is compared with its
    neighbour)."""
    def start() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", PROBE, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)

    def seconds(process: subprocess.Popen) -> float:
        out, _ = process.communicate()
        if process.returncode != 0:
            sys.exit(f"the machine probe failed (status {process.returncode})")
        return float(out)

    alone, ratios = [], []
    for _ in range(rounds):
        alone.append(seconds(start()))
        both = [start(), start()]
        ratios.append(max(seconds(process) for process in both) / alone[-1])
    return min(alone), ratios


def print_machine(path: Path, rounds: int) -> None:
    alone, ratios = side_by_side(path, max(rounds, 3))
    ratios.sort()
    middle = ratios[len(ratios) // 2]
    print(f"machine: two copies of a {alone:.2f} s DP side by side take {middle:.2f}x the time of one (median of "
          f"{len(ratios)} rounds, {ratios[0]:.2f}-{ratios[-1]:.2f}): 2 processes can hardly beat {2 / middle:.2f}x now")


def first_sentences(path: Path, count: int, into: Path) -> Path:
    """The first ``count`` sentences of ``path`` (blank-line separated) written to ``into``."""
    with path.open("rb") as src, into.open("wb") as dst:
        seen = 0
        for line in src:
            dst.write(line)
            if not line.strip():
                seen += 1
                if seen == count:
                    break
    return into


def projectivized(path: Path, into: Path) -> Path:
    """``path`` projectivized by ``treetool projectivize`` into ``into`` (see the module doc)."""
    subprocess.run([sys.executable, "-m", "treetool", "projectivize", str(path), "-o", str(into), "--quiet"],
                   cwd=ROOT, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=EWT)
    parser.add_argument("--sentences", type=int, default=0, help="only the first N sentences (0: all)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="+", choices=list(COMMANDS), default=list(COMMANDS))
    parser.add_argument("--short", type=int, nargs="*", default=[300, 1000],
                        help="also projectivize --count over the first N sentences of --file (none: skip)")
    options = parser.parse_args()
    if not options.file.exists():
        sys.exit(f"{options.file} not found: ../shared is not beside the clone")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print_machine(options.file, options.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = options.file
        if options.sentences:
            path = first_sentences(path, options.sentences, Path(tmp) / "slice.conllu")
        original, path = path, projectivized(path, Path(tmp) / "projective.conllu")
        print(f"input: {options.file}" + (f", first {options.sentences} sentences" if options.sentences else "")
              + " (projectivized, except for projectivize --count)")
        print(f"{'command':32} {'jobs':>4} {'wall s':>8} {'CPU s':>8} {'speed-up':>8} {'CPU eff.':>8}  "
              f"{'goal':24} {'limit':>6}")
        for name in options.only:
            source = original if name == "projectivize --count" else path
            first = first_sentences(source, 1, Path(tmp) / "first.conllu")
            startup = min(run_once(COMMANDS[name][0], first, 1, Path(tmp) / "out")[0] for _ in range(options.repeat))
            print(f"{name:32} {'':>4} {startup:>8.2f} {'':>8} {'':>8} {'':>8}  (start-up: one sentence)")
            if not measure(name, COMMANDS[name], source, options.jobs, options.repeat, Path(tmp) / "out", startup):
                print(f"{name}: OUTPUTS DIFFER between job counts")
                sys.exit(1)
        measure_short(options.file, options.short, options.jobs, options.repeat, Path(tmp))
    print_machine(options.file, options.repeat)
    print(f"(load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())})")


def measure_short(path: Path, counts: list[int], job_counts: list[int], repeat: int, tmp: Path) -> None:
    """``projectivize --count`` over the first ``count`` sentences of ``path``, for each count: an input too short to
    repay workers must not be slowed down by them (the cheap commands' goal)."""
    args = COMMANDS["projectivize --count"][0]
    first = first_sentences(path, 1, tmp / "first.conllu")  # every slice's first sentence: one start-up for all
    startup = min(run_once(args, first, 1, tmp / "out")[0] for _ in range(repeat)) if counts else 0.0
    for count in counts:
        source = first_sentences(path, count, tmp / f"first{count}.conllu")
        if not measure(f"projectivize --count, first {count}", (args, False), source, job_counts, repeat,
                       tmp / "out", startup):
            sys.exit(f"projectivize --count over {count} sentences: OUTPUTS DIFFER between job counts")


def measure(name: str, command: tuple[list[str], bool], path: Path, job_counts: list[int], repeat: int, out: Path,
            startup: float) -> bool:
    """Print one row per job count; False when the outputs differ.  ``command``: arguments and whether the
    command is held to the expensive commands' goal."""
    args, expensive = command
    base_wall = base_cpu = None
    digests = set()
    runs: dict[int, list[tuple[float, float, str]]] = {jobs: [] for jobs in job_counts}
    for _ in range(repeat):  # the job counts in turn, so a drift in the machine's speed falls on each alike
        for jobs in job_counts:
            runs[jobs].append(run_once(args, path, jobs, out))
    for jobs in job_counts:
        wall, cpu, _ = min(runs[jobs])
        digests.update(run[2] for run in runs[jobs])
        if jobs == 1:
            base_wall, base_cpu = wall, cpu
        speedup = f"{base_wall / wall:7.2f}x" if base_wall else f"{'':>8}"
        efficiency = f"{100 * base_cpu / cpu:7.0f}%" if base_cpu else f"{'':>8}"
        goal = ""
        if jobs == 2 and base_wall:
            wanted = GOAL_EXPENSIVE if expensive else GOAL_CHEAP
            goal = f"{'met' if base_wall / wall >= wanted else 'MISSED'} (>= {wanted:.2f}x)"
        limit = f"{amdahl(base_wall, startup, jobs):5.2f}x" if base_wall else ""
        print(f"{name:32} {jobs:>4} {wall:>8.2f} {cpu:>8.2f} {speedup} {efficiency}  {goal:24} {limit:>6}", flush=True)
    return len(digests) == 1


def amdahl(one_job: float, startup: float, jobs: int) -> float:
    """The best speed-up of ``jobs`` processes when ``startup`` of the ``one_job`` seconds is not shared."""
    shared = max(one_job - startup, 0.0)
    return one_job / (min(one_job, startup) + shared / min(jobs, os.cpu_count() or 1))


if __name__ == "__main__":
    main()
