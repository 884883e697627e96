"""treetool oracle --system top-down|in-order against the reference scripts, end to end, on N trees.

    python benchmarks/constituency.py --scripts DIR [--python2 PATH] [--trees 20000] [--repeat 3]

DIR holds the reference scripts, fetched by you (they are not part of treetool
and not in ../shared): RNNG's ``get_oracle.py`` and ``get_dictionary.py`` in
DIR/rnng/, In-Order's ``scripts/get_oracle.py`` and ``get_dictionary.py`` in
DIR/inorder/. They are Python 2 programs; ``--python2`` names the interpreter
(default: ``python2`` on the PATH).

Input: the trees of ../shared/data/ptb-sample repeated to N trees. The
scripts get what they need, the cleaned trees one per line (the same file as
vocabulary and input); treetool gets the raw trees (traces, function tags,
outer brackets) and cleans them itself, and also the cleaned file. Each run is
a separate process; a system's three runs alternate for ``--repeat`` rounds,
and the table gives the best wall time and CPU time (user + system of the
child) of each; the outputs are compared byte for byte.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.formats.ptb import read_ptb_file, tree_to_line  # noqa: E402

SAMPLE = ROOT.parent / "shared" / "data" / "ptb-sample"


def make_inputs(folder: Path, count: int) -> tuple[Path, Path]:
    """``raw.mrg`` and ``clean.txt``: the sample's trees repeated to ``count`` trees, one per line."""
    raw, clean = [], []
    for path in sorted(SAMPLE.glob("*.mrg")):
        raw.extend(tree_to_line(t) for t in read_ptb_file(path))
        clean.extend(tree_to_line(t) for t in read_ptb_file(path, drop_traces=True, strip_functions=True,
                                                              remove_wrapper=True))
    if not raw:
        sys.exit(f"{SAMPLE} not found: put ../shared beside the clone")
    raw_path, clean_path = folder / "raw.mrg", folder / "clean.txt"
    raw_path.write_text("".join(raw[i % len(raw)] + "\n" for i in range(count)), encoding="utf-8")
    clean_path.write_text("".join(clean[i % len(clean)] + "\n" for i in range(count)), encoding="utf-8")
    return raw_path, clean_path


def timed(command: list[str], output: Path, cwd: Path | None = None) -> tuple[float, float]:
    """Run ``command`` with stdout to ``output``; (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(output, "wb") as out:
        subprocess.run(command, stdout=out, cwd=cwd, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scripts", type=Path, required=True, help="folder with rnng/ and inorder/ scripts")
    parser.add_argument("--python2", default=shutil.which("python2") or "python2")
    parser.add_argument("--trees", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the three runs, alternating (default 3)")
    args = parser.parse_args()
    treetool = [sys.executable, "-m", "treetool", "oracle"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        raw, clean = make_inputs(folder, args.trees)
        cases = [
            ("top-down", [args.python2, "get_oracle.py", str(clean), str(clean)], args.scripts / "rnng"),
            ("in-order", [args.python2, "get_oracle.py", "en", str(clean), str(clean)], args.scripts / "inorder"),
        ]
        print(f"{args.trees} trees; CPU = user + system of the process; best of {args.repeat} rounds, each round "
              f"the three runs in turn; load average {os.getloadavg()[0]:.1f}")
        print(f"{'system':<9} {'run':<34} {'wall s':>7} {'CPU s':>7} {'CPU speed-up':>13}  output")
        for system, reference, cwd in cases:
            runs = [("reference script (clean input)", reference, cwd),
                    ("treetool (raw .mrg, cleans)", [*treetool, str(raw), "--system", system], ROOT),
                    ("treetool (clean input)", [*treetool, str(clean), "--system", system, "--from", "ptb",
                                                "--no-clean"], ROOT)]
            best = {name: (float("inf"), float("inf")) for name, _, _ in runs}
            outputs = {name: folder / f"{system}.{index}" for index, (name, _, _) in enumerate(runs)}
            for _ in range(args.repeat):
                for name, command, where in runs:
                    wall, cpu = timed(command, outputs[name], where)
                    best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
            expected = outputs[runs[0][0]].read_bytes()
            ref_cpu = best[runs[0][0]][1]
            for name, _, _ in runs:
                wall, cpu = best[name]
                same = "" if name == runs[0][0] else \
                    "identical" if outputs[name].read_bytes() == expected else "DIFFERENT"
                print(f"{system:<9} {name:<34} {wall:>7.2f} {cpu:>7.2f} {ref_cpu / cpu:>12.1f}x  {same}")


if __name__ == "__main__":
    main()
