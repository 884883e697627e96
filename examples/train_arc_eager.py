"""Train a greedy arc-eager parser twice: with the static oracle, and with the dynamic oracle and exploration.

    python examples/train_arc_eager.py TRAIN DEV [TEST] [--epochs 5] [--limit N] [--seed 1]

A small averaged perceptron (Collins 2002) over a few dozen feature templates
(words and tags of the top of the stack and the front of the buffer, the
children built so far, distance), trained two ways on the same sentences:

* static: follow the static oracle's transition sequence and update the
  weights where the model would have chosen another action;
* dynamic: Goldberg & Nivre (2012), Algorithm 3 (§4, "online training with
  exploration"): at every step the model's best legal action is compared
  with the best action of cost 0 under the dynamic oracle; after the first
  ``--explore-after`` epochs the parser follows its own prediction with
  probability ``--explore`` (0.9), mistakes included, and learns to recover.

Only treetool's public API is used: ``treetool.labels``, ``get_system``,
``system.actions``, ``system.static_oracle``/``dynamic_oracle``,
``oracle.cost_vector``, ``actions.legal_mask`` and ``Children``. Both runs
train on the sentences whose gold tree arc-eager can derive (the projective
ones: the static oracle has no sequence for the others), and are scored on
every word of DEV (and TEST). Each epoch prints the unlabelled and labelled
attachment scores, the seconds spent training and the share of them spent
inside treetool's calls.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

import treetool
from treetool.oracles import Children, get_system
from treetool.treebank import read_treebank


class Sentence(NamedTuple):
    forms: list[str]
    tags: list[str]
    heads: list[int]
    labels: list[str]


def read(path: str, limit: int | None = None) -> list[Sentence]:
    """The first ``limit`` sentences of a CoNLL-U/CoNLL-X file (index 0 is the root)."""
    out = []
    for sentence in read_treebank(path):
        out.append(Sentence(sentence.forms, sentence.upos, sentence.head_list, sentence.deprels))
        if limit is not None and len(out) == limit:
            break
    return out


class Perceptron:
    """An averaged perceptron: one weight row per feature string, one column per action id.

    Averaging is lazy (Daumé's trick): ``total`` accumulates each update times the
    step it happened at, and the average is ``weights - total / steps``.
    """

    def __init__(self, n_actions: int) -> None:
        self.n_actions = n_actions
        self.weights: dict[str, np.ndarray] = {}
        self.total: dict[str, np.ndarray] = {}
        self.steps = 1

    def scores(self, features: list[str]) -> np.ndarray:
        rows = [self.weights[f] for f in features if f in self.weights]
        return np.add.reduce(rows) if rows else np.zeros(self.n_actions)

    def update(self, features: list[str], good: int, bad: int) -> None:
        for f in features:
            if f not in self.weights:
                self.weights[f] = np.zeros(self.n_actions)
                self.total[f] = np.zeros(self.n_actions)
            self.weights[f][good] += 1
            self.weights[f][bad] -= 1
            self.total[f][good] += self.steps
            self.total[f][bad] -= self.steps

    def averaged(self) -> Perceptron:
        model = Perceptron(self.n_actions)
        model.weights = {f: w - self.total[f] / self.steps for f, w in self.weights.items()}
        return model


def features(config, sentence: Sentence, children: Children) -> list[str]:
    """Feature strings of a configuration (arc-eager, root last: the root 0 ends the buffer)."""
    stack, buffer, labels = config.stack, config.buffer, config.labels

    def word(i: int) -> str:
        return sentence.forms[i] if i > 0 else ("<root>" if i == 0 else "<none>")

    def tag(i: int) -> str:
        return sentence.tags[i] if i > 0 else ("<root>" if i == 0 else "<none>")

    def label(i: int) -> str:
        return (labels[i] or "_") if i > 0 else "<none>"

    s0 = stack[-1] if stack else -1
    s1 = stack[-2] if len(stack) > 1 else -1
    b0, b1, b2 = (list(buffer[:3]) + [-1, -1, -1])[:3]
    s0l, s0r = (children.leftmost(config, s0), children.rightmost(config, s0)) if s0 > 0 else (-1, -1)
    b0l = children.leftmost(config, b0) if b0 > 0 else -1
    distance = str(min(b0 - s0, 5)) if s0 > 0 and b0 > 0 else "-"
    s0w, s0t, b0w, b0t, b1t, b2t, s1t = word(s0), tag(s0), word(b0), tag(b0), tag(b1), tag(b2), tag(s1)
    return [
        "bias", "s0w=" + s0w, "s0t=" + s0t, "s0wt=" + s0w + s0t, "b0w=" + b0w, "b0t=" + b0t,
        "b0wt=" + b0w + b0t, "b1w=" + word(b1), "b1t=" + b1t, "b2t=" + b2t, "s1t=" + s1t,
        "s0l=" + label(s0), "s0t,b0t=" + s0t + b0t, "s0w,b0w=" + s0w + b0w, "s0t,b0w=" + s0t + b0w,
        "s0w,b0t=" + s0w + b0t, "b0t,b1t=" + b0t + b1t, "b0t,b1t,b2t=" + b0t + b1t + b2t,
        "s0t,b0t,b1t=" + s0t + b0t + b1t, "s1t,s0t,b0t=" + s1t + s0t + b0t, "d=" + distance,
        "d,s0t,b0t=" + distance + s0t + b0t, "s0lt=" + tag(s0l), "s0rt=" + tag(s0r), "b0lt=" + tag(b0l),
        "s0ll=" + label(s0l), "s0rl=" + label(s0r), "b0ll=" + label(b0l),
        "s0t,s0lt,b0t=" + s0t + tag(s0l) + b0t, "s0t,s0rt,b0t=" + s0t + tag(s0r) + b0t,
        "b0t,b0lt=" + b0t + tag(b0l), "s0rc=%d" % children.right_count(config, s0) if s0 > 0 else "s0rc=-",
    ]


class Clock:
    """Seconds spent inside treetool's calls, for the share printed per epoch."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self, function, *args):
        start = time.perf_counter()
        try:
            return function(*args)
        finally:
            self.seconds += time.perf_counter() - start


def best(scores: np.ndarray, allowed: np.ndarray) -> int:
    """The highest-scoring action id among the allowed ones."""
    return int(np.argmax(np.where(allowed, scores, -np.inf)))


def train_static(system, actions, model: Perceptron, sentence: Sentence, clock: Clock) -> None:
    """One sentence along the static oracle's sequence, updating where the model disagrees."""
    children = Children()
    config = clock(system.initial, len(sentence.heads) - 1, True)
    for action in clock(system.static_oracle, sentence.heads, sentence.labels):
        feats = features(config, sentence, children)
        predicted, gold = best(model.scores(feats), clock(actions.legal_mask, config)), actions.index(action)
        if predicted != gold:
            model.update(feats, gold, predicted)
        model.steps += 1
        config = clock(system.apply, config, action)


def train_dynamic(system, actions, model: Perceptron, sentence: Sentence, clock: Clock,
                  rng: random.Random, explore: float) -> None:
    """One sentence under Goldberg & Nivre (2012), Algorithm 3: update toward the best zero-cost action,
    then follow the prediction with probability ``explore`` (0 in the first epochs)."""
    children = Children()
    oracle = clock(system.dynamic_oracle, sentence.heads, sentence.labels)
    config = clock(system.initial, len(sentence.heads) - 1, True)
    while not clock(system.is_final, config):
        feats = features(config, sentence, children)
        costs = clock(oracle.cost_vector, config, actions)
        scores = model.scores(feats)
        predicted, optimal = best(scores, costs >= 0), best(scores, costs == 0)
        if costs[predicted] > 0:
            model.update(feats, optimal, predicted)
        model.steps += 1
        taken = predicted if rng.random() < explore else optimal
        config = clock(system.apply, config, actions[taken])


def parse(system, actions, model: Perceptron, sentence: Sentence) -> tuple[tuple[int, ...], tuple]:
    """Greedy parse: the highest-scoring legal action at every step."""
    children = Children()
    config = system.initial(len(sentence.heads) - 1, labeled=True)
    while not system.is_final(config):
        choice = best(model.scores(features(config, sentence, children)), actions.legal_mask(config))
        config = system.apply(config, actions[choice])
    return config.heads, config.labels


def attachment_scores(system, actions, model: Perceptron, sentences: list[Sentence]) -> tuple[float, float]:
    """UAS and LAS in percent over every word."""
    heads_right = both_right = words = 0
    for sentence in sentences:
        heads, labels = parse(system, actions, model, sentence)
        for i in range(1, len(heads)):
            heads_right += heads[i] == sentence.heads[i]
            both_right += heads[i] == sentence.heads[i] and labels[i] == sentence.labels[i]
        words += len(heads) - 1
    return 100 * heads_right / words, 100 * both_right / words


def epochs(oracle: str, args: argparse.Namespace, system, actions, train: list[Sentence],
           evaluations: dict[str, list[Sentence]]) -> Iterator[dict[str, float]]:
    """Train with ``oracle`` ('static' or 'dynamic'); after each epoch, the figures printed for it."""
    model, rng = Perceptron(len(actions)), random.Random(args.seed)
    for epoch in range(1, args.epochs + 1):
        order = list(train)
        rng.shuffle(order)
        clock, start = Clock(), time.perf_counter()
        explore = args.explore if epoch > args.explore_after else 0.0
        for sentence in order:
            if oracle == "static":
                train_static(system, actions, model, sentence, clock)
            else:
                train_dynamic(system, actions, model, sentence, clock, rng, explore)
        seconds = time.perf_counter() - start
        averaged = model.averaged()
        row = {"epoch": epoch, "seconds": seconds, "treetool": 100 * clock.seconds / seconds}
        for name, sentences in evaluations.items():
            row[f"{name} UAS"], row[f"{name} LAS"] = attachment_scores(system, actions, averaged, sentences)
        yield row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("train")
    parser.add_argument("dev")
    parser.add_argument("test", nargs="?")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--limit", type=int, help="read only the first N sentences of each file")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--explore", type=float, default=0.9, help="dynamic: how often to follow the model")
    parser.add_argument("--explore-after", type=int, default=1, help="dynamic: epochs without exploration")
    args = parser.parse_args(argv)
    system = get_system("arc-eager")
    train = [s for s in read(args.train, args.limit) if system.can_derive(s.heads)]
    evaluations = {"dev": read(args.dev, args.limit)}
    if args.test:
        evaluations["test"] = read(args.test, args.limit)
    actions = system.actions(treetool.labels(args.train))
    print(f"{len(train)} training sentences ({sum(len(s.heads) - 1 for s in train)} words), "
          f"{len(actions)} actions", flush=True)
    for oracle in ("static", "dynamic"):
        for row in epochs(oracle, args, system, actions, train, evaluations):
            scores = "  ".join(f"{k} {v:.2f}" for k, v in row.items() if k.endswith("AS"))
            print(f"{oracle:7} epoch {row['epoch']}: {scores}  ({row['seconds']:.1f} s, "
                  f"{row['treetool']:.0f}% in treetool)", flush=True)


if __name__ == "__main__":
    main()
