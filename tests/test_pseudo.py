"""Pseudo-projectivization (Nivre & Nilsson 2005) against MaltParser 1.9.2.

The reference outputs in ../shared/reference/maltparser/ were made by MaltParser
itself (see ../shared/reference/README.md); every file is one test case and must
match HEAD and DEPREL of every word of every sentence.
"""

from __future__ import annotations

import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path

from treetool.projectivization.pseudo import (
    COVERED_ROOT_MODES,
    LIFT_ORDERS,
    PSEUDO_SCHEMES,
    deprojectivize,
    pseudo_projectivize,
    strip_pseudo_labels,
)
from treetool.trees import is_projective

# ../shared beside the clone; only used to list the reference files at collection
# time (the tests themselves go through shared_path, which skips when it is absent).
SHARED_GUESS = Path(__file__).resolve().parents[2] / "shared"
REFERENCE_DIR = ("reference", "maltparser")
INPUTS = {
    "de_gsd-ud-dev": ("data", "ud-2.2", "UD_German-GSD", "de_gsd-ud-dev.conllu"),
    "got_proiel-ud-train": ("data", "ud-2.2", "UD_Gothic-PROIEL", "got_proiel-ud-train.conllu"),
    "maltparser-input-random-multiroot": ("reference", "maltparser-input-random-multiroot.conllu"),
}


# --------------------------------------------------------------------------- helpers


def read_trees(path: Path) -> list[tuple[str, list[int], list[str]]]:
    """(sent_id, heads, deprels) per sentence; word lines only (integer ids).

    A small stand-in for the project's reader, which is being written elsewhere.
    """
    sents: list[tuple[str, list[int], list[str]]] = []
    sent_id, heads, labels = "", [-1], [""]
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if len(heads) > 1:
                    sents.append((sent_id or str(len(sents) + 1), heads, labels))
                sent_id, heads, labels = "", [-1], [""]
            elif line.startswith("#"):
                if line.startswith("# sent_id = "):
                    sent_id = line[len("# sent_id = ") :]
            else:
                cols = line.split("\t")
                if cols[0].isdigit():
                    heads.append(int(cols[6]))
                    labels.append(cols[7])
    if len(heads) > 1:
        sents.append((sent_id or str(len(sents) + 1), heads, labels))
    return sents


@lru_cache(maxsize=None)
def _read_cached(path: str) -> tuple:
    return tuple(read_trees(Path(path)))


def parse_reference_name(name: str) -> tuple[str, str, str, str, str]:
    """``<input>.<scheme>.pcr-<c>.plo-<o>.<mode>.conllu`` -> its five parts."""
    inp, scheme, pcr, plo, mode, ext = name.rsplit(".", 5)
    assert ext == "conllu" and pcr.startswith("pcr-") and plo.startswith("plo-"), name
    return inp, scheme.replace("head_path", "head+path"), pcr[4:], plo[4:], mode


def reference_names() -> list[str]:
    folder = SHARED_GUESS.joinpath(*REFERENCE_DIR)
    names = sorted(p.name for p in folder.glob("*.conllu")) if folder.is_dir() else []
    return names or ["<reference files missing>"]


def nonprojective_words(heads) -> list[int]:
    """Naive definition, independent of the module: word d (head h != 0) whose arc
    spans a word that does not descend from h."""
    h = list(heads)
    out = []
    for d in range(1, len(h)):
        g = h[d]
        if g == 0:
            continue
        for k in range(min(g, d) + 1, max(g, d)):
            t = k
            while t not in (g, 0):
                t = h[t]
            if t != g:
                out.append(d)
                break
    return out


def random_tree(rng: np.random.Generator, n: int, extra_roots: int = 0) -> list[int]:
    order = rng.permutation(n) + 1
    h = [-1] + [0] * n
    for k in range(1, n):
        h[int(order[k])] = int(order[rng.integers(0, k)])
    for w in rng.choice(np.arange(1, n + 1), size=extra_roots, replace=False):
        if not any(h[c] == w for c in range(1, n + 1)):
            h[int(w)] = 0
    return h


def run_reference(name: str):
    ref_path = shared_path(*REFERENCE_DIR, name)
    inp, scheme, pcr, plo, mode = parse_reference_name(name)
    source = _read_cached(str(shared_path(*INPUTS[inp])))
    expected = _read_cached(str(ref_path))
    return source, expected, scheme, pcr, plo, mode


# ------------------------------------------------------- agreement with MaltParser


@pytest.mark.parametrize("name", reference_names())
def test_matches_maltparser(name: str) -> None:
    source, expected, scheme, pcr, plo, mode = run_reference(name)
    assert len(source) == len(expected)
    bad = []
    for (sid, heads, labels), (rsid, rheads, rlabels) in zip(source, expected):
        assert sid == rsid
        ph, pl = pseudo_projectivize(
            np.asarray(heads), labels, scheme=scheme, covered_roots=pcr, lift_order=plo
        )
        if mode == "deproj":
            ph, pl = deprojectivize(ph, pl, scheme=scheme)
        if ph.tolist() != rheads or pl != rlabels:
            bad.append((sid, list(zip(ph.tolist()[1:], pl[1:])), list(zip(rheads[1:], rlabels[1:]))))
    assert not bad, f"{len(bad)}/{len(source)} sentences differ; first: {bad[0]}"


# ------------------------------------------------------------------ hand examples


def test_readme_tree_lifts_by_original_length() -> None:
    # Words 1..5 with heads 4, 3, 0, 5, 2. Non-projective: 1 (4->1) and 5 (2->5),
    # both of original length 3. Ties go to the lowest index, and word 1 keeps its
    # original length 3 after its first lift (current length 4), so it is lifted
    # again before 5. Ranking by current length would lift 5 first and end with
    # heads 3, 3, 0, 5, 3.
    heads = np.array([-1, 4, 3, 0, 5, 2])
    labels = ["", "a", "b", "c", "d", "e"]
    ph, pl = pseudo_projectivize(heads, labels, scheme="head", lift_order="shortest")
    assert ph.tolist() == [-1, 2, 3, 0, 5, 3]
    assert pl == ["", "a|d", "b", "c", "d", "e|b"]
    assert _lift_by_current_length(heads.tolist()) == [-1, 3, 3, 0, 5, 3]
    assert is_projective(ph)
    dh, dl = deprojectivize(ph, pl, scheme="head")
    assert dh.tolist() == heads.tolist() and dl == labels
    ph2, _ = pseudo_projectivize(heads, labels, lift_order="deepest")
    assert ph2.tolist() == [-1, 2, 3, 0, 5, 3]


def _lift_by_current_length(h: list[int]) -> list[int]:
    """The paper's / spaCy's order (current arc length, ties to the lowest index)."""
    h = list(h)
    while npj := nonprojective_words(h):
        d = min(npj, key=lambda w: (abs(w - h[w]), w))
        h[d] = h[h[d]]
    return h


HEARING = (
    # A hearing is scheduled on the issue today: "issue" (7) hangs from "hearing" (2)
    [-1, 2, 4, 4, 0, 7, 7, 2, 4],
    ["", "det", "nsubj", "aux", "root", "case", "det", "nmod", "obl"],
)


@pytest.mark.parametrize(
    "scheme, labels",
    [
        ("baseline", ["", "det", "nsubj", "aux", "root", "case", "det", "nmod", "obl"]),
        ("head", ["", "det", "nsubj", "aux", "root", "case", "det", "nmod|nsubj", "obl"]),
        ("path", ["", "det", "nsubj%", "aux", "root", "case", "det", "nmod|", "obl"]),
        ("head+path", ["", "det", "nsubj%", "aux", "root", "case", "det", "nmod|nsubj", "obl"]),
    ],
)
def test_label_encodings(scheme: str, labels: list[str]) -> None:
    heads, deprels = HEARING
    ph, pl = pseudo_projectivize(np.array(heads), deprels, scheme=scheme)
    assert ph.tolist() == [-1, 2, 4, 4, 0, 7, 7, 4, 4]
    assert pl == labels
    dh, dl = deprojectivize(ph, pl, scheme=scheme)
    assert dl == deprels
    assert dh.tolist() == (ph.tolist() if scheme == "baseline" else heads)


@pytest.mark.parametrize(
    "scheme, labels",
    [
        ("head", ["", "l1|l3", "l2", "l3", "l4|l1"]),
        ("path", ["", "l1|%", "l2", "l3%", "l4|"]),
        ("head+path", ["", "l1|l3%", "l2", "l3%", "l4|l1"]),
    ],
)
def test_lifted_word_that_is_also_on_a_path(scheme: str, labels: list[str]) -> None:
    # 3->1 (length 2) is lifted first, to 2, marking 3; then 1->4 is lifted to 2,
    # marking 1, which is itself lifted: "l1|%" / "l1|l3%".
    heads, deprels = [-1, 3, 0, 2, 1], ["", "l1", "l2", "l3", "l4"]
    ph, pl = pseudo_projectivize(heads, deprels, scheme=scheme)
    assert ph.tolist() == [-1, 2, 0, 2, 2]
    assert pl == labels
    dh, dl = deprojectivize(ph, pl, scheme=scheme)
    assert dh.tolist() == heads and dl == deprels


@pytest.mark.parametrize(
    "mode, heads, labels",
    [
        ("none", [-1, 0, 0, 0], ["", "x|root", "punct", "root"]),  # 1 lifted over the root word
        ("ignore", [-1, 3, 0, 0], ["", "x", "punct", "root"]),  # left non-projective
        ("left", [-1, 3, 1, 0], ["", "x", "punct|null", "root"]),
        ("right", [-1, 3, 3, 0], ["", "x", "punct|null", "root"]),
        ("head", [-1, 3, 3, 0], ["", "x", "punct|null", "root"]),
    ],
)
def test_covered_roots(mode: str, heads: list[int], labels: list[str]) -> None:
    # Word 2 hangs from the root inside the arc 3 -> 1.
    src_heads, src_labels = [-1, 3, 0, 0], ["", "x", "punct", "root"]
    ph, pl = pseudo_projectivize(src_heads, src_labels, covered_roots=mode)
    assert (ph.tolist(), pl) == (heads, labels)
    dh, dl = deprojectivize(ph, pl, scheme="head")
    assert dh.tolist() == src_heads and dl == src_labels


def test_projective_tree_is_unchanged_in_every_mode() -> None:
    heads, labels = [-1, 2, 0, 2, 3], ["", "a", "root", "b", "c"]
    for scheme in PSEUDO_SCHEMES:
        for mode in COVERED_ROOT_MODES:
            for order in LIFT_ORDERS:
                ph, pl = pseudo_projectivize(heads, labels, scheme=scheme, covered_roots=mode, lift_order=order)
                assert ph.tolist() == heads and pl == labels


def test_inputs_untouched_and_output_types() -> None:
    heads, deprels = np.array(HEARING[0]), list(HEARING[1])
    ph, pl = pseudo_projectivize(heads, deprels)
    assert heads.tolist() == HEARING[0] and deprels == HEARING[1]
    assert isinstance(ph, np.ndarray) and ph.dtype.kind == "i" and ph[0] == -1
    assert isinstance(pl, list) and pl[0] == ""
    before = list(pl)
    deprojectivize(ph, pl)
    assert pl == before


def test_defaults_reproduce_maltparser_head_none_shortest() -> None:
    # The documented defaults (-pp head, -pcr none, -plo shortest), checked
    # against MaltParser's own output rather than against a restated constant:
    # on the random multi-root trees both -pcr and -plo change the result.
    source = _read_cached(str(shared_path(*INPUTS["maltparser-input-random-multiroot"])))
    name = "maltparser-input-random-multiroot.head.pcr-none.plo-shortest.proj.conllu"
    expected = _read_cached(str(shared_path(*REFERENCE_DIR, name)))
    for (sid, heads, labels), (_, rheads, rlabels) in zip(source, expected, strict=True):
        ph, pl = pseudo_projectivize(heads, labels)
        assert (ph.tolist(), pl) == (rheads, rlabels), sid


def test_scheme_none_lifts_nothing() -> None:
    # MaltParser's -pp none: no lifting at all
    heads, deprels = HEARING
    ph, pl = pseudo_projectivize(heads, deprels, scheme="none")
    assert ph.tolist() == heads and pl == deprels


def test_strip_pseudo_labels() -> None:
    assert strip_pseudo_labels(["", "nmod|nsubj", "nsubj%", "obj|%", "obj|", "a|b%", "punct|null", "acl:relcl"]) == [
        "", "nmod", "nsubj", "obj", "obj", "a", "punct", "acl:relcl"
    ]


def test_deprojectivize_restores_covered_roots_without_lifts() -> None:
    dh, dl = deprojectivize([-1, 3, 3, 0], ["", "x", "punct|null", "root"], scheme="path")
    assert dh.tolist() == [-1, 3, 0, 0] and dl == ["", "x", "punct", "root"]


def test_deprojectivize_failed_search_keeps_head_but_strips_label() -> None:
    dh, dl = deprojectivize([-1, 2, 0, 2], ["", "a", "root", "b|nosuchlabel"], scheme="head")
    assert dh.tolist() == [-1, 2, 0, 2] and dl == ["", "a", "root", "b"]


def test_deep_failing_tree_is_fast() -> None:
    # MaltParser retries each level once when something below fails: naively
    # 2^depth visits. A chain of 2000 words with an unresolvable lift at the bottom.
    n = 2000
    heads = [-1] + list(range(n))
    labels = [""] + ["dep"] * (n - 1) + ["x|"]
    limit = sys.getrecursionlimit()
    t = time.perf_counter()
    dh, dl = deprojectivize(heads, labels, scheme="path")
    assert time.perf_counter() - t < 5
    assert dh.tolist() == heads and dl[-1] == "x"
    assert sys.getrecursionlimit() == limit


def _stack_depth() -> int:
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _call_at_depth(levels: int, fn):
    """Call ``fn`` from ``levels`` nested Python frames below the current one."""
    return fn() if levels == 0 else _call_at_depth(levels - 1, fn)


def test_long_chain_round_trips_from_a_deep_stack() -> None:
    # A chain 0 -> 1 -> ... -> m with two more words at the bottom: m -> m+2
    # crosses m+1, which hangs from m-1, so m+2 is lifted once, to m-1
    # ("l{m+2}|l{m}"). The inverse walks the whole 1,200-deep chain, called
    # while nearly all of Python's default recursion limit is already in use
    # (the old recursive visit raised the limit to n + 100 and still overflowed).
    m = 1200
    heads = [-1] + list(range(m)) + [m - 1, m]
    labels = [""] + [f"l{i}" for i in range(1, m + 3)]
    assert nonprojective_words(heads) == [m + 2]
    proj = (heads[: m + 2] + [m - 1], labels[: m + 2] + [f"l{m + 2}|l{m}"])
    limit = sys.getrecursionlimit()
    levels = limit - _stack_depth() - 60  # room for a few calls, none for recursion
    assert levels >= 800
    ph, pl = _call_at_depth(levels, lambda: pseudo_projectivize(heads, labels))
    assert (ph.tolist(), pl) == proj
    for scheme in ("head", "path", "head+path"):
        ph, pl = pseudo_projectivize(heads, labels, scheme=scheme)
        dh, dl = _call_at_depth(levels, lambda: deprojectivize(ph, pl, scheme=scheme))
        assert (dh.tolist(), dl) == (heads, labels), scheme
    assert sys.getrecursionlimit() == limit


def test_no_code_changes_the_recursion_limit() -> None:
    root = Path(__file__).resolve().parents[1]
    needle = "setrecursion" + "limit"
    offenders = [str(p) for p in root.rglob("*.py") if needle in p.read_text(encoding="utf-8")]
    assert not offenders


def test_invalid_arguments() -> None:
    heads, deprels = HEARING
    with pytest.raises(ValueError):
        pseudo_projectivize(heads, deprels, scheme="trace")
    with pytest.raises(ValueError):
        pseudo_projectivize(heads, deprels, covered_roots="middle")
    with pytest.raises(ValueError):
        pseudo_projectivize(heads, deprels, lift_order="longest")
    with pytest.raises(ValueError):
        pseudo_projectivize([0, 0], ["", "root"])
    with pytest.raises(ValueError):
        pseudo_projectivize([-1, 0], ["", "root", "extra"])
    with pytest.raises(ValueError):
        deprojectivize([-1, 5], ["", "root"])


def test_cycle_passes_through_unchanged() -> None:
    ph, pl = pseudo_projectivize([-1, 2, 1, 0], ["", "a", "b", "root"])
    assert ph.tolist() == [-1, 2, 1, 0] and pl == ["", "a", "b", "root"]
    # a self-loop is a cycle like any other (it used to be a ValueError here only)
    ph, pl = pseudo_projectivize([-1, 0, 2, 0], ["", "a", "b", "c"])
    assert ph.tolist() == [-1, 0, 2, 0] and pl == ["", "a", "b", "c"]
    dh, dl = deprojectivize([-1, 0, 2, 0], ["", "a", "b|a", "c"])
    assert dh.tolist() == [-1, 0, 2, 0] and dl == ["", "a", "b", "c"]


# ------------------------------------------------------------------ random trees


def test_random_trees_properties() -> None:
    rng = np.random.default_rng(12345)
    for t in range(1500):
        n = int(rng.integers(1, 14))
        heads = random_tree(rng, n, extra_roots=int(rng.integers(0, 3)) if n > 2 else 0)
        labels = [""] + [f"L{int(x)}" for x in rng.integers(0, 4, n)]
        # the module's O(n log n) projectivity test agrees with the definition
        assert is_projective(heads) == (not nonprojective_words(heads)), heads
        for scheme in PSEUDO_SCHEMES:
            for mode in COVERED_ROOT_MODES:
                ph, pl = pseudo_projectivize(heads, labels, scheme=scheme, covered_roots=mode)
                assert strip_pseudo_labels(pl) == labels
                if mode != "ignore":
                    assert not nonprojective_words(ph), (heads, scheme, mode)
                dh, dl = deprojectivize(ph, pl, scheme=scheme)
                assert dl == labels
                if not nonprojective_words(heads):
                    assert ph.tolist() == heads and dh.tolist() == heads
