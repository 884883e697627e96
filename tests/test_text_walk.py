"""The fast path of ``treetool oracle``: a tree's text straight to its oracle walk (oracles/constituency/text_walk.py).

The reference is the general path, written independently: the PTB reader
builds the tree (reporting what is malformed), the oracle walk derives the
sequence from it. On any text, the fast path must give exactly the general
path's walk, or ``None`` (hand the text to the general path); on trees as the
treebanks write them it must not decline. Handing over is checked on the
reader: with the fast path, the trees, errors and their lines are the same.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import shared_path
from treetool.errors import TreebankError
from treetool.formats.ptb import Bracket, read_ptb_with_lines
from treetool.oracles.constituency import GoldTreeError, InOrder, TopDown
from treetool.oracles.constituency.oracle_walk import OracleWalk

SYSTEMS = [TopDown(), InOrder(), TopDown(max_open_nts=2), InOrder(max_unary=1)]
CLEANINGS = [(True, True, True), (False, False, False), (True, False, False), (False, True, True)]

#: Texts the fast path reads itself (with full cleaning), and texts it must leave to the reader.
WELL_FORMED = [
    "( (S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NN chairman))) (. .)) )",
    "(S (NP (DT The) (NN cat)) (VP (VBD sat)))",
    "(TOP (ROOT (S (NN x))))",
    "( (S (NN x)) (-NONE- *))",
    "(S (NP (-NONE- *T*-1)) (NN x) (-NONE- *))",
    "(S (NP (NP (-NONE- *)) (-NONE- *)) (VP (VB go)))",
    "(S-1 (NP-SBJ=2 (NN-X x)))",
    "(S (-LRB- -LRB-) (NP (NP (NP (NN x)))) (-RRB- -RRB-))",
    "( (S \n    (NP-SBJ (NNP Pierre) (NNP Vinken) )\n    (VP (MD will) )\n    (. .) ))\n",
    "(S (NP (NN a)) (NP (NN b)) (NP (NN c)))",
]
DECLINED = [
    "", " \n", "(NN x)", "( (NN x))", "(TOP word)", "(S (-NONE- *))", "(-NONE- *) (S (NN x))",
    "(S (NN x)) (S (NN y))", "(S (NN x)) (NN y)", "(TOP (S (NN x)) (S (NN y)))", "( (S (NN x)) (S (NN y)))",
    "()", "(S )", "(S (NP ) (NN x))", "( S (NN x))", "(S (NN  x))", "(S (NN\tx))", "(S x (NN x))",
    "(S (NN x) y)", "(S (NN x)))", "(S (NN x)", ")", "word", "(S (NN x y))", "(-NONE- (NN x))",
    "(S ( (NN x)))", "(S (NN (x)))", "( ( (S (NN x))))",
    # A wrapper emptied by dropping traces, beside the tree (the fast path once took the tree for the wrapper)
    "( (TOP (-NONE- *)) (S (NP (NN a))))", "(TOP (ROOT (-NONE- *)) (S (NP (NN a))))",
]


def general(text: str, system: Any, cleaning: tuple[bool, bool, bool]) -> OracleWalk | None:
    """The general path's walk of ``text`` if the reader finds exactly one tree, without errors, that the walk
    accepts; else ``None``."""
    errors: list[TreebankError] = []
    trees = list(read_ptb_with_lines(io.StringIO(text), drop_traces=cleaning[0], strip_functions=cleaning[1],
                                     remove_wrapper=cleaning[2], node=Bracket, one_root=True,
                                     on_error=errors.append))
    if errors or len(trees) != 1:
        return None
    try:
        return system.bracket_oracle(trees[0][1])
    except GoldTreeError:
        return None


def fast(text: str, system: Any, cleaning: tuple[bool, bool, bool]) -> OracleWalk | None:
    return system.text_oracle(*cleaning)(text)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: f"{s.name}{s.options()}")
@pytest.mark.parametrize("cleaning", CLEANINGS, ids=str)
def test_fast_path_is_the_general_path_or_declines(system: Any, cleaning: tuple[bool, bool, bool]) -> None:
    rng = random.Random(25)
    texts = WELL_FORMED + DECLINED + [mutated(rng, rng.choice(WELL_FORMED)) for _ in range(3000)]
    for text in texts:
        got = fast(text, system, cleaning)
        if got is not None:
            assert got == general(text, system, cleaning), text


@pytest.mark.parametrize("system", SYSTEMS[:2], ids=lambda s: s.name)
def test_fast_path_reads_well_formed_trees_and_declines_the_others(system: Any) -> None:
    for text in WELL_FORMED:
        assert fast(text, system, (True, True, True)) is not None, text
    for text in DECLINED:
        assert fast(text, system, (True, True, True)) is None, text


def test_fast_path_reads_every_tree_of_the_sample() -> None:
    files = sorted(shared_path("data", "ptb-sample").glob("*.mrg"))
    for system in SYSTEMS[:2]:
        read_fast = system.text_oracle(True, True, True)
        for path in files:
            found = list(read_ptb_with_lines(path.open(encoding="utf-8"), str(path), drop_traces=True,
                                             strip_functions=True, remove_wrapper=True, node=Bracket, one_root=True,
                                             fast=read_fast))
            slow = list(read_ptb_with_lines(path.open(encoding="utf-8"), str(path), drop_traces=True,
                                            strip_functions=True, remove_wrapper=True, node=Bracket, one_root=True))
            assert all(type(walk) is OracleWalk for _, walk in found)
            assert found == [(line, system.bracket_oracle(tree)) for line, tree in slow]


def random_text(rng: random.Random, depth: int = 0) -> str:
    """A random bracketed tree as the treebanks space it: phrases (function tags, wrappers' labels, the empty
    label among them), preterminals, traces, nested up to 5 deep (the shapes cleaning acts on, mixed at random)."""
    if depth >= 5 or rng.random() < 0.3 * depth:
        return rng.choice(["(NN w)", "(DT the)", "(-NONE- *T*-1)", "(-NONE- *)", "(VB go)"])
    label = rng.choice(["S", "NP", "NP-SBJ", "VP", "TOP", "ROOT", "", "-NONE-", "PP-LOC=2"])
    children = " ".join(random_text(rng, depth + 1) for _ in range(rng.choice([1, 1, 2, 3])))
    return f"({label} {children})"


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: f"{s.name}{s.options()}")
@pytest.mark.parametrize("cleaning", CLEANINGS, ids=str)
def test_fast_path_on_random_trees_is_the_general_path_or_declines(system: Any,
                                                                    cleaning: tuple[bool, bool, bool]) -> None:
    rng = random.Random(19)
    accepted = 0
    for _ in range(1500):
        text = random_text(rng)
        got = fast(text, system, cleaning)
        if got is not None:
            accepted += 1
            assert got == general(text, system, cleaning), text
    assert accepted > 100  # the comparison is not vacuous


def mutated(rng: random.Random, text: str) -> str:
    """``text`` with one random change: a character removed, doubled or replaced by a bracket, space or word."""
    at = rng.randrange(len(text))
    change = rng.choice(["drop", "double", "(", ")", " ", "  ", "w", "-NONE-", "\n"])
    if change == "drop":
        return text[:at] + text[at + 1:]
    if change == "double":
        return text[:at] + text[at] + text[at:]
    return text[:at] + change + text[at:]


HANDED_OVER = """\
(S (NP (DT The) (NN cat)) (VP (VBD sat)))
( (S (NP-SBJ (-NONE- *)) (VP (VB go))) )

(S (NP (NN a)) x (VP (VB b)))
(S (NN c)))
(S
  (NN d))
(S (NN e)) (S (NN f))
(S ()
(S (NN g))
"""


#: Read before an error of the input itself: a NUL, or (``BROKEN``) invalid UTF-8 found by the line reader.
ENDING_IN_ERRORS = "(S (NN a))\n(S (NN b)) foo (S\n  (NN c))\n(S (NN d)\x00)\n(S (NN e))\n"
BROKEN = "(S (NN a))\n(S (NN b)) foo (S\n  (NN c)\n"


def lines_then_invalid_utf8(text: str) -> Any:
    yield from io.StringIO(text)
    raise TreebankError("invalid UTF-8", filename="x.mrg", line=text.count("\n") + 1)


#: A WSJ tree lacking its last ")", then trees: the next tree's "( (" ends it (``ptb.opens_next_tree``).
NEVER_CLOSED = "( (S (NN a))\n( (S\n    (NN b)\n    (VP (VB c))))\n( (S (NN d)) )\n( (S (NN e)) )\n"


@pytest.mark.parametrize("system", SYSTEMS[:2], ids=lambda s: s.name)
def test_a_tree_never_closed_is_handed_over_where_the_next_tree_starts(system: Any) -> None:
    """The fast path reads a tree's lines until its brackets balance: one never closed would have it hold the
    rest of the input (a whole corpus) before the general parser took over; it hands over at the next tree."""
    read: list[str] = []

    def lines() -> Iterator[str]:
        for line in io.StringIO(NEVER_CLOSED + "( (S (NN f)) )\n" * 10_000):
            read.append(line)
            yield line

    errors: list[TreebankError] = []
    found = read_ptb_with_lines(lines(), "x.mrg", drop_traces=True, strip_functions=True, remove_wrapper=True,
                                node=Bracket, one_root=True, on_error=errors.append,
                                fast=system.text_oracle(True, True, True))
    assert next(found)[0] == 2  # the tree after the one never closed, at its line
    assert [e.line for e in errors] == [1] and len(read) < 10


@pytest.mark.parametrize("system", SYSTEMS[:2], ids=lambda s: s.name)
@pytest.mark.parametrize("text", [HANDED_OVER, "\ufeff" + HANDED_OVER, "(S (NN a))\n(S (NN b)\n",
                                  "(S (NN a))\n(NN b)\n(S (NN c))\n", ENDING_IN_ERRORS, BROKEN, NEVER_CLOSED])
def test_reader_hands_over_to_the_general_parser(system: Any, text: str) -> None:
    """From the first tree the fast path declines, the general parser reads on: the same trees, at the same lines
    and positions, and the same errors as without the fast path (the input's own errors too, after the same
    trees)."""
    def read(fast_path: bool) -> tuple[list, list]:
        errors: list[TreebankError] = []
        found = read_ptb_with_lines(lines_then_invalid_utf8(text) if text is BROKEN else io.StringIO(text), "x.mrg",
                                    drop_traces=True, strip_functions=True, remove_wrapper=True, node=Bracket,
                                    one_root=True, on_error=errors.append, positions=True,
                                    fast=system.text_oracle(True, True, True) if fast_path else None)
        walks = []
        try:
            for line, position, item in found:
                walks.append((line, position, item if type(item) is OracleWalk else derived(item)))
        except TreebankError as err:
            errors.append(err)
        return walks, [(str(error), error.line, error.raw) for error in errors]

    def derived(tree: Bracket) -> OracleWalk | str:
        try:
            return system.bracket_oracle(tree)
        except GoldTreeError as err:
            return str(err)

    assert read(True) == read(False)
    assert read(True)[0]  # trees were read
