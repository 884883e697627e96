"""Pseudo-projective transformation and its inverse, as MaltParser 1.9.2 does it.

Nivre & Nilsson (2005), "Pseudo-Projective Dependency Parsing" (ACL), §2, lift
non-projective arcs until the tree is projective (a *lift* moves a word from its
head to its grandparent) and encode the lifts in the arc labels, so that an
inverse transformation can put the words back after a projective parser has
learnt and predicted the encoded labels. Three encodings are
defined there: ``head`` (``d|h``: the lifted word's label plus its original
head's label), ``path`` (``d|`` on the lifted word, ``%`` on every word a lift
passed through) and ``head+path``. MaltParser's ``-pp baseline`` lifts without
encoding anything.

This module reproduces MaltParser 1.9.2's ``-m proj`` and ``-m deproj``
(``org.maltparser.transform.pseudo.PseudoProjectivity``) label for label; the
tests compare it with MaltParser's own output. Where MaltParser departs from the
paper (the points are repeated in the function docstrings):

* *Which word is lifted first.* The paper lifts the shortest non-projective arc
  first, by its current length. MaltParser's ``shortest`` compares the length of
  each word's ORIGINAL arc (measured before any lift, never updated), ties to
  the lowest word index; ``deepest`` lifts the non-projective word deepest in
  the current tree, ties to the lowest index.
* *Projectivity* is MaltParser's: an arc h -> d (h not the root) is projective
  when every word strictly between h and d is a descendant of h; arcs from the
  root 0 are always projective.
* *Path marks* go on every word a word was lifted away from (its head at the
  time of each lift), written ``dep%``; a word that is both lifted and marked
  gets ``dep|%`` (path) or ``dep|hl%`` (head+path).
* *Covered roots* (words attached to the root that lie inside another arc), a
  MaltParser extension (``-pcr``): ``left``/``right``/``head`` re-attach them to
  the left end / right end / head of the covering arc before lifting and label
  them ``dep|null``; ``ignore`` attaches them only while lifting (instead of
  lifting the covering arc's dependent) and puts them back on the root at the
  end, so the output may stay non-projective; ``none`` treats them as any word.
* *Inverse.* Deprojectivization visits the tree top-down (left dependents
  leftmost-first, then right dependents rightmost-first, each level retried once
  when something below failed); each lifted word searches breadth-first below
  its current head for the first node that fits its encoding. Each node's
  dependents are enqueued by distance to the lifted word, ordered with
  MaltParser's (unstable) selection sort, so equal distances do not always keep
  index order. The decorations are always removed from the labels, even where
  no head is found.

Trees follow the project convention: ``heads`` is an int array of length n+1
with ``heads[0] == -1``; ``deprels`` is a list of n+1 strings, ``deprels[0] ==
""``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from ..trees import is_projective

__all__ = [
    "PSEUDO_SCHEMES",
    "COVERED_ROOT_MODES",
    "LIFT_ORDERS",
    "MALTPARSER_DEFAULTS",
    "pseudo_projectivize",
    "deprojectivize",
    "strip_pseudo_labels",
]

#: Label encodings (MaltParser ``-pp``; ``head_path`` is accepted for ``head+path``).
PSEUDO_SCHEMES: tuple[str, ...] = ("baseline", "head", "path", "head+path")
#: Covered-root strategies (MaltParser ``-pcr``).
COVERED_ROOT_MODES: tuple[str, ...] = ("none", "ignore", "left", "right", "head")
#: Lifting orders (MaltParser ``-plo``).
LIFT_ORDERS: tuple[str, ...] = ("shortest", "deepest")
#: MaltParser 1.9.2's own option defaults (appdata/options.xml, option group
#: ``pproj``). ``-pp none`` means "no transformation at all"; this module's
#: default scheme is ``head`` instead (see :func:`pseudo_projectivize`).
MALTPARSER_DEFAULTS: dict[str, str] = {
    "marking_strategy": "none",
    "covered_root": "none",
    "lifting_order": "shortest",
}

#: Path mark, lift separator and covered-root suffix written into labels.
PATH_MARK = "%"
LIFT_SEP = "|"
COVERED_SUFFIX = "|null"


_SCHEME_ALIASES = {"head_path": "head+path"}


def _check_scheme(scheme: str) -> str:
    scheme = _SCHEME_ALIASES.get(scheme, scheme)
    if scheme in PSEUDO_SCHEMES or scheme == "none":
        return scheme
    raise ValueError(f"unknown pseudo-projective scheme {scheme!r}; expected one of {PSEUDO_SCHEMES}")


def _as_lists(heads: Sequence[int] | np.ndarray, deprels: Sequence[str]) -> tuple[list[int], list[str]]:
    h = [int(x) for x in heads]
    labels = list(deprels)
    n = len(h) - 1
    if n < 0 or h[0] != -1:
        raise ValueError("heads must have length n+1 with heads[0] == -1")
    if len(labels) != n + 1:
        raise ValueError(f"deprels has length {len(labels)}, expected {n + 1}")
    for i in range(1, n + 1):
        if not 0 <= h[i] <= n or h[i] == i:
            raise ValueError(f"word {i} has invalid head {h[i]}")
    return h, labels


def _children(h: list[int]) -> list[list[int]]:
    """Dependents of every node (0..n), in increasing order."""
    kids: list[list[int]] = [[] for _ in h]
    for i in range(1, len(h)):
        kids[h[i]].append(i)
    return kids


def _euler(h: list[int]) -> tuple[list[int], list[int], list[int]] | None:
    """Pre-order entry/exit numbers and depths; None when the graph is not a tree."""
    n = len(h) - 1
    kids = _children(h)
    tin = [0] * (n + 1)
    tout = [0] * (n + 1)
    depth = [0] * (n + 1)
    clock = 0
    stack = [(0, 0)]
    seen = 0
    while stack:
        node, state = stack.pop()
        if state == 0:
            tin[node] = clock
            clock += 1
            seen += 1
            stack.append((node, 1))
            dn = depth[node] + 1
            for c in reversed(kids[node]):
                depth[c] = dn
                stack.append((c, 0))
        else:
            tout[node] = clock
    if seen != n + 1:  # a cycle: some words are not reachable from the root
        return None
    return tin, tout, depth


def _nonprojective(h: list[int], tin: list[int], tout: list[int]) -> list[int]:
    """Words whose arc is non-projective (MaltParser's DependencyNode.isProjective)."""
    out = []
    for d in range(1, len(h)):
        g = h[d]
        if g == 0:
            continue
        lo, hi = (g, d) if g < d else (d, g)
        a, b = tin[g], tout[g]
        for k in range(lo + 1, hi):
            t = tin[k]
            if t < a or t >= b:
                out.append(d)
                break
    return out


def pseudo_projectivize(
    heads: Sequence[int] | np.ndarray,
    deprels: Sequence[str],
    *,
    scheme: str = "head",
    covered_roots: str = "none",
    lift_order: str = "shortest",
) -> tuple[np.ndarray, list[str]]:
    """Projectivize a tree by lifting, encoding the lifts in the labels.

    Nivre & Nilsson (2005) §2: while the tree is non-projective, lift one
    non-projective arc (re-attach its dependent to its grandparent), and record
    the lifts in the dependents' labels with ``scheme``:

    * ``"baseline"``: no encoding;
    * ``"head"``: a lifted word gets ``dep|hl`` with ``hl`` the label of its
      original head;
    * ``"path"``: a lifted word gets ``dep|``; every word some word was lifted
      away from gets ``%`` appended (``dep%``, or ``dep|%`` when both);
    * ``"head+path"``: ``dep|hl`` and ``dep%`` combined (``dep|hl%``).

    As in MaltParser 1.9.2 (``-m proj -pp scheme -pcr covered_roots -plo
    lift_order``), which departs from the paper in the lifting order:
    ``lift_order="shortest"`` lifts the non-projective word whose ORIGINAL arc
    (before any lift) is shortest, not the currently shortest arc;
    ``"deepest"`` lifts the non-projective word deepest in the current tree;
    ties go to the lowest word index. An arc h -> d is non-projective when a
    word between h and d does not descend from h; arcs from the root never are.

    ``covered_roots`` (MaltParser's ``-pcr``; words attached to the root lying
    inside another arc): ``"none"`` treats them as any other word;
    ``"left"``/``"right"``/``"head"`` first re-attach each to the left end /
    right end / head of the covering arc and label it ``dep|null``;
    ``"ignore"`` attaches them to the covering arc's head while lifting (instead
    of lifting that arc) and returns them to the root afterwards, unlabelled, so
    the output may stay non-projective.

    Defaults: MaltParser's ``-pcr`` default is ``none`` and its ``-plo`` default
    ``shortest``, as here. Its ``-pp`` default is ``none`` (no transformation at
    all); this function defaults to ``"head"`` instead. ``scheme="none"`` is
    accepted and, like MaltParser, only applies the covered-root step.

    A projective tree is returned unchanged (copies). A graph with a cycle is
    returned unchanged too, as MaltParser does for non-trees.

    Returns new ``(heads, deprels)``; the inputs are not modified.
    """
    scheme = _check_scheme(scheme)
    if covered_roots not in COVERED_ROOT_MODES:
        raise ValueError(f"unknown covered_roots {covered_roots!r}; expected one of {COVERED_ROOT_MODES}")
    if lift_order not in LIFT_ORDERS:
        raise ValueError(f"unknown lift_order {lift_order!r}; expected one of {LIFT_ORDERS}")
    h, labels = _as_lists(heads, deprels)
    n = len(h) - 1
    if scheme == "none" and covered_roots == "none":
        return np.array(h, dtype=np.int64), labels
    if _euler(h) is None or is_projective(h):
        # No covered roots either: a covered root makes its covering arc non-projective.
        return np.array(h, dtype=np.int64), labels

    original_labels = list(labels)
    length = [0] + [abs(i - h[i]) for i in range(1, n + 1)]
    lifted = [False] * (n + 1)
    first_head = [0] * (n + 1)  # original head of a lifted word (its first lift)
    path = [False] * (n + 1)
    covered = [False] * (n + 1)

    def attach_covered(d: int) -> bool:
        g = h[d]
        if g == 0:
            return False
        lo, hi = (g, d) if g < d else (d, g)
        found = False
        for i in range(lo + 1, hi):
            if lifted[i] or h[i] != 0:
                continue
            tin, tout, _ = _euler(h)  # type: ignore[misc]
            a, b = tin[i], tout[i]
            left = right = i
            for k in range(1, n + 1):
                if a <= tin[k] < b:
                    if k < left:
                        left = k
                    if k > right:
                        right = k
            if lo < left and right < hi:
                if covered_roots == "left":
                    target = g if g < d else d
                elif covered_roots == "right":
                    target = g if d < g else d
                else:  # "head" and "ignore"
                    target = g
                h[i] = target
                covered[i] = True
                found = True
        return found

    def pick(candidates: list[int], depth: list[int]) -> int:
        best = candidates[0]
        if lift_order == "deepest":
            for i in candidates[1:]:
                if depth[i] > depth[best]:
                    best = i
        else:
            for i in candidates[1:]:
                li, lb = length[i], length[best]  # ties: the lowest index stays
                if li < lb:
                    best = i
        return best

    def lift(d: int) -> None:
        g = h[d]
        lifted[d] = True
        if not first_head[d]:
            first_head[d] = g
        path[g] = True
        h[d] = h[g]

    def lifting_loop(use_covered: bool) -> None:
        while True:
            tin, tout, depth = _euler(h)  # type: ignore[misc]
            cands = _nonprojective(h, tin, tout)
            if not cands:
                return
            d = pick(cands, depth)
            if use_covered and attach_covered(d):
                continue
            lift(d)

    if covered_roots == "ignore":
        if scheme != "none":
            lifting_loop(use_covered=True)
            for i in range(1, n + 1):
                if covered[i]:
                    h[i] = 0
    else:
        if covered_roots != "none":
            for t in range(1, n + 1):
                attach_covered(t)
        if scheme != "none":
            lifting_loop(use_covered=False)

    mark_covered = covered_roots not in ("none", "ignore")
    for i in range(1, n + 1):
        lab = original_labels[i]
        if covered[i]:
            if mark_covered:
                labels[i] = lab + COVERED_SUFFIX
            continue
        if scheme == "head":
            if lifted[i]:
                labels[i] = lab + LIFT_SEP + original_labels[first_head[i]]
        elif scheme == "path":
            if lifted[i]:
                labels[i] = lab + LIFT_SEP + (PATH_MARK if path[i] else "")
            elif path[i]:
                labels[i] = lab + PATH_MARK
        elif scheme == "head+path":
            if lifted[i]:
                labels[i] = lab + LIFT_SEP + original_labels[first_head[i]] + (PATH_MARK if path[i] else "")
            elif path[i]:
                labels[i] = lab + PATH_MARK
    return np.array(h, dtype=np.int64), labels


def strip_pseudo_labels(deprels: Sequence[str]) -> list[str]:
    """Remove pseudo-projective decorations: everything from the first ``%`` and
    then from the first ``|`` (``dep|hl%``, ``dep|%``, ``dep%``, ``dep|null`` ->
    ``dep``), the label clean-up of MaltParser's deprojectivization."""
    out = []
    for lab in deprels:
        p = lab.find(PATH_MARK)
        if p != -1:
            lab = lab[:p]
        p = lab.find(LIFT_SEP)
        if p != -1:
            lab = lab[:p]
        out.append(lab)
    return out


def deprojectivize(
    heads: Sequence[int] | np.ndarray,
    deprels: Sequence[str],
    *,
    scheme: str = "head",
) -> tuple[np.ndarray, list[str]]:
    """Undo :func:`pseudo_projectivize` (the inverse transformation of Nivre &
    Nilsson 2005 §2) as MaltParser 1.9.2's ``-m deproj`` does.

    MaltParser does not infer the encoding from the labels: ``-m deproj`` reads
    it from the options saved by the ``proj`` run. So ``scheme`` must be the one
    used to projectivize (default ``"head"``, like :func:`pseudo_projectivize`);
    ``"baseline"``/``"none"`` only strip labels.

    Steps, as in MaltParser: split the labels (``%`` marks a path word, ``|x``
    a lifted word whose original head had label ``x``, ``|null`` a covered root,
    which goes back to the root); then visit the tree top-down (left dependents
    leftmost-first, then right dependents rightmost-first; a level is retried
    once when something below it failed) and, for each lifted word, search
    breadth-first below its current head (the word itself excluded) for the
    first node that fits:

    * ``"head"``: a node labelled ``x`` (done only when at least one lifted word
      of the sentence can find such a node);
    * ``"path"``: the end of a chain of ``%`` nodes;
    * ``"head+path"``: the end of a ``%`` chain labelled ``x``, else the first
      ``%`` node labelled ``x`` that has ``%`` children.

    Each node's dependents are enqueued by distance to the lifted word, sorted
    with MaltParser's unstable selection sort (mirrored, tie order included).
    Labels are always stripped, even when no head is found.
    """
    scheme = _check_scheme(scheme)
    h, labels = _as_lists(heads, deprels)
    n = len(h) - 1
    lifted = [False] * (n + 1)
    path = [False] * (n + 1)
    want: list[str | None] = [None] * (n + 1)
    covered = []
    any_lifted = False
    for i in range(1, n + 1):
        lab = labels[i]
        p = lab.find(PATH_MARK)
        if p != -1:
            lab = lab[:p]
            path[i] = True
        p = lab.find(LIFT_SEP)
        if p != -1 and COVERED_SUFFIX not in lab:
            if p + 1 < len(lab):
                want[i] = lab[p + 1 :]
            lifted[i] = True
            any_lifted = True
            lab = lab[:p]
        p = lab.find(COVERED_SUFFIX)
        if p != -1:
            lab = lab[:p]
            covered.append(i)
        labels[i] = lab
    for i in covered:
        h[i] = 0
    if not any_lifted or scheme in ("baseline", "none") or _euler(h) is None:
        return np.array(h, dtype=np.int64), labels

    # Dependents kept as sorted lists, updated on every move.
    kids = _children(h)

    def move(d: int, new_head: int) -> None:
        kids[h[d]].remove(d)
        lst = kids[new_head]
        j = len(lst)
        while j and lst[j - 1] > d:
            j -= 1
        lst.insert(j, d)
        h[d] = new_head

    def sorted_dependents(gov: int, avoid: int, percent_only: bool) -> list[int]:
        # MaltParser's findAllDependentsVectorSortedByDistanceToPProjNode: the
        # dependents in index order, then a selection sort on the distance to
        # the lifted word that swaps the minimum into place (so it is not
        # stable: ties can come out of index order).
        deps = list(kids[gov])
        m = len(deps)
        if m > 1:
            dist = [abs(x - avoid) for x in deps]
            for i in range(m):
                smallest = i
                ds = dist[i]
                for j in range(i + 1, m):
                    if dist[j] < ds:
                        smallest = j
                        ds = dist[j]
                if smallest != i:
                    dist[i], dist[smallest] = dist[smallest], dist[i]
                    deps[i], deps[smallest] = deps[smallest], deps[i]
        if percent_only:
            return [x for x in deps if x != avoid and path[x]]
        return [x for x in deps if x != avoid]

    def search_head(start: int, avoid: int, label: str | None) -> int | None:
        queue = sorted_dependents(start, avoid, False)
        qi = 0
        while qi < len(queue):
            dep = queue[qi]
            qi += 1
            if labels[dep] == label:
                return dep
            queue.extend(sorted_dependents(dep, avoid, False))
        return None

    def search_path(start: int, avoid: int) -> int | None:
        queue = sorted_dependents(start, avoid, True)
        qi = 0
        while qi < len(queue):
            dep = queue[qi]
            qi += 1
            nxt = sorted_dependents(dep, avoid, True)
            if not nxt:
                return dep
            queue.extend(nxt)
        return None

    def search_head_path(start: int, avoid: int, label: str | None) -> int | None:
        queue = sorted_dependents(start, avoid, True)
        second: int | None = None
        qi = 0
        while qi < len(queue):
            dep = queue[qi]
            qi += 1
            nxt = sorted_dependents(dep, avoid, True)
            if not nxt and labels[dep] == label:
                return dep
            queue.extend(nxt)
            if nxt and second is None and labels[dep] == label:
                second = dep
        return second

    if scheme == "head":

        def find(node: int) -> int | None:
            return search_head(h[node], node, want[node])

    elif scheme == "path":

        def find(node: int) -> int | None:
            return search_path(h[node], node)

    else:

        def find(node: int) -> int | None:
            return search_head_path(h[node], node, want[node])

    if scheme == "head" and not any(lifted[i] and find(i) is not None for i in range(1, n + 1)):
        return np.array(h, dtype=np.int64), labels

    # The recursion below is MaltParser's deprojectivizeWith{Head,Path,HeadAndPath}.
    # Its retry rule can revisit a failing subtree 2^depth times; a call is a pure
    # function of the current tree, so a call that changed nothing is cached
    # against a version counter that every move bumps.
    version = [0]
    clean: dict[int, tuple[int, bool]] = {}

    def visit(node: int) -> bool:
        cached = clean.get(node)
        if cached is not None and cached[0] == version[0]:
            return cached[1]
        start = version[0]
        success = True
        if lifted[node]:
            # (the path variants try the same search twice; the second attempt
            # can only repeat the first one's result)
            target = find(node)
            if target is not None:
                move(node, target)
                version[0] += 1
                lifted[node] = False
            else:
                success = False
        child_success = False
        attempts = 2
        while not child_success and attempts > 0:
            child_success = True
            ks = kids[node]
            s = 0
            while s < len(ks) and ks[s] < node:
                s += 1
            children = ks[:s] + ks[s:][::-1]
            for c in children:
                if not visit(c):
                    child_success = False
            attempts -= 1
        result = child_success and success
        if version[0] == start:
            clean[node] = (start, result)
        return result

    need = n + 100  # recursion depth is at most the tree depth, at most n
    old_limit = sys.getrecursionlimit()
    if need > old_limit:
        sys.setrecursionlimit(need)
    try:
        visit(0)
    finally:
        if need > old_limit:
            sys.setrecursionlimit(old_limit)
    return np.array(h, dtype=np.int64), labels
