"""Speed of the Attardi degree-2 dynamic oracle (Gómez-Rodríguez, Sartorio & Satta 2014, ``treetool.oracles.tabular_loss``): mean time per step.

Walks sentences of a treebank (default: UD 2.2 Greek-GDT train) with
``--policy explore --error-rate 0.1`` as ``treetool annotate`` does, timing
every ``costs`` call (which builds the tables of the configuration and of
the successors it cannot share), and prints the mean time per step against
the sentence length and against |γ| = stack + reduced buffer, with the share
of the time spent in the buffer reduction (§5.2) versus the tables
(Algorithm 1). CPU time (``time.process_time``); the load average is printed
because the machine is shared. A sentence whose walk exceeds
``--max-seconds`` is counted as skipped, as ``annotate`` would (``annotate``'s
budget is wall-clock time; here, as there, the walk stops at the deadline).
``--slowest N`` lists the N sentences with the most CPU time; ``--every K``
walks every K-th sentence only; ``--seed`` is ``annotate --seed``.

    python benchmarks/attardi.py [--file PATH] [--limit N] [--every K] [--max-words N] [--max-seconds S]
                                 [--seed S] [--slowest N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.annotate import Explore, annotate_sentence  # noqa: E402
from treetool.oracles.tabular_loss import TabularLoss  # noqa: E402
from treetool.budget import SentenceTimeout  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

GDT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_Greek-GDT" / "el_gdt-ud-train.conllu"


class Timed:
    """Wraps the two stages of :class:`TabularLoss` to add up their CPU time."""

    def __init__(self) -> None:
        self.seconds = {"reduction": 0.0, "tables": 0.0}
        self._reduced = TabularLoss.reduced_buffer
        self._tables = TabularLoss.first_action_losses

    def untimed_reduction(self, loss: TabularLoss, stack, b0: int) -> list[int]:
        """The reduced buffer for the table of this benchmark (not counted in the oracle's time)."""
        return self._reduced(loss, stack, b0)

    def install(self) -> None:
        for name, stage, original in (("reduced_buffer", "reduction", self._reduced),
                                      ("first_action_losses", "tables", self._tables)):
            setattr(TabularLoss, name, self._wrap(stage, original))

    def _wrap(self, stage, original):
        seconds = self.seconds

        def timed(*args, **options):
            start = time.process_time()
            try:
                return original(*args, **options)
            finally:
                seconds[stage] += time.process_time() - start

        return timed


def bucket(value: int, width: int) -> str:
    low = (value // width) * width
    return f"{low}-{low + width - 1}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(GDT))
    parser.add_argument("--limit", type=int, default=None, help="first N sentences only")
    parser.add_argument("--max-words", type=int, default=None, help="skip longer sentences")
    parser.add_argument("--max-seconds", type=float, default=10.0)
    parser.add_argument("--every", type=int, default=1, help="every K-th sentence only")
    parser.add_argument("--seed", type=int, default=1, help="annotate --seed")
    parser.add_argument("--slowest", type=int, default=5, help="list the N sentences with the most CPU time")
    args = parser.parse_args()
    system = get_system("attardi", degree=2)
    timer = Timed()
    timer.install()
    by_length, by_gamma = defaultdict(lambda: [0.0, 0]), defaultdict(lambda: [0.0, 0])
    skipped = sentences = steps = 0
    per_sentence: list[tuple[float, str, int, bool]] = []  # CPU s, id, words, skipped
    started, load = time.process_time(), os.getloadavg()
    for position, sentence in enumerate(read_treebank(args.file), 1):
        if args.limit is not None and position > args.limit:
            break
        if (position - 1) % args.every or args.max_words is not None and sentence.n_words > args.max_words:
            continue
        sentences += 1
        sentence_start = time.process_time()
        walk = annotate_sentence(system, sentence.head_list, policy=Explore(0.1, args.seed), position=position,
                                 max_seconds=args.max_seconds)
        loss = TabularLoss(sentence.head_list)
        timed_out = False
        try:
            before = time.process_time()
            for step in walk:
                now = time.process_time()
                reduced = timer.untimed_reduction(loss, step.stack, step.buffer[0]) if step.buffer else []
                gamma = len(step.stack) + len(reduced)
                for table, key in ((by_length, bucket(sentence.n_words, 10)), (by_gamma, bucket(gamma, 5))):
                    table[key][0] += now - before
                    table[key][1] += 1
                steps += 1
                before = time.process_time()
        except SentenceTimeout:
            skipped += 1
            timed_out = True
        per_sentence.append((time.process_time() - sentence_start, sentence.identifier(position), sentence.n_words,
                             timed_out))
    total = time.process_time() - started
    print(f"{args.file}: {sentences} sentences, {steps} steps, {skipped} skipped at --max-seconds "
          f"{args.max_seconds:g}; CPU {total:.1f} s; load average at start {load[0]:.2f}, at end "
          f"{os.getloadavg()[0]:.2f}")
    print(f"reduction {timer.seconds['reduction']:.1f} s, tables {timer.seconds['tables']:.1f} s")
    for title, table in (("sentence length", by_length), ("|stack| + |reduced buffer|", by_gamma)):
        print(f"\n| {title} | steps | ms/step |\n|---|---|---|")
        for key in sorted(table, key=lambda k: int(k.split("-")[0])):
            seconds, count = table[key]
            print(f"| {key} | {count} | {1000 * seconds / count:.2f} |")
    print("\n| slowest sentences | words | CPU s |\n|---|---|---|")
    for seconds, name, words, timed_out in sorted(per_sentence, reverse=True)[:args.slowest]:
        print(f"| {name}{' (skipped)' if timed_out else ''} | {words} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
