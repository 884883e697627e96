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

from collections.abc import Callable, Sequence

import numpy as np

from .. import trees
from ..budget import UNLIMITED, Budget

__all__ = [
    "PSEUDO_SCHEMES",
    "COVERED_ROOT_MODES",
    "LIFT_ORDERS",
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

#: Path mark, lift separator and covered-root suffix written into labels.
PATH_MARK = "%"
LIFT_SEP = "|"
COVERED_SUFFIX = "|null"


_SCHEME_ALIASES = {"head_path": "head+path"}


def _check_scheme(scheme: str) -> str:
    """The canonical name of ``scheme`` (``head_path`` -> ``head+path``); ValueError if unknown."""
    scheme = _SCHEME_ALIASES.get(scheme, scheme)
    if scheme in PSEUDO_SCHEMES or scheme == "none":
        return scheme
    raise ValueError(f"unknown pseudo-projective scheme {scheme!r}; expected one of {PSEUDO_SCHEMES}")


def _as_lists(heads: Sequence[int] | np.ndarray, deprels: Sequence[str]) -> tuple[list[int], list[str]]:
    """Copies of the inputs as plain lists (fast for sentence sizes); ValueError for bad shapes or heads.

    Heads must be in range; whether they form a tree is :func:`treetool.trees.find_cycle`'s
    question (a self-loop is a cycle like any other).
    """
    h = [int(x) for x in heads]
    labels = list(deprels)
    n = len(h) - 1
    if n < 0 or h[0] != -1:
        raise ValueError("heads must have length n+1 with heads[0] == -1")
    if len(labels) != n + 1:
        raise ValueError(f"deprels has length {len(labels)}, expected {n + 1}")
    for i in range(1, n + 1):
        if not 0 <= h[i] <= n:
            raise ValueError(f"word {i} has invalid head {h[i]}")
    return h, labels


def _children(h: list[int]) -> list[list[int]]:
    """Dependents of every node (0..n), in increasing order."""
    kids: list[list[int]] = [[] for _ in h]
    for i in range(1, len(h)):
        kids[h[i]].append(i)
    return kids


# --------------------------------------------------------------------------
# projectivization
# --------------------------------------------------------------------------


def pseudo_projectivize(
    heads: Sequence[int] | np.ndarray,
    deprels: Sequence[str],
    *,
    scheme: str = "head",
    covered_roots: str = "none",
    lift_order: str = "shortest",
    budget: Budget = UNLIMITED,
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
    ``shortest`` (its appdata/options.xml), as here. Its ``-pp`` default is
    ``none`` (no transformation at all); this function defaults to ``"head"``
    instead. ``scheme="none"`` is accepted and, like MaltParser, only applies
    the covered-root step.

    A projective tree is returned unchanged (copies). A graph with a cycle is
    returned unchanged too, as MaltParser does for non-trees.

    Each lift recomputes the non-projective arcs of the whole tree, and a tree
    may need O(n) lifts: ``budget`` is checked before every lift and raises
    :class:`~treetool.budget.SentenceTimeout` when it runs out (pathological
    trees of thousands of words; real sentences take milliseconds).

    Returns new ``(heads, deprels)``; the inputs are not modified.
    """
    scheme = _check_scheme(scheme)
    if covered_roots not in COVERED_ROOT_MODES:
        raise ValueError(f"unknown covered_roots {covered_roots!r}; expected one of {COVERED_ROOT_MODES}")
    if lift_order not in LIFT_ORDERS:
        raise ValueError(f"unknown lift_order {lift_order!r}; expected one of {LIFT_ORDERS}")
    h, labels = _as_lists(heads, deprels)
    nothing_to_do = scheme == "none" and covered_roots == "none"
    # A projective tree has no covered roots either: a covered root makes its covering arc non-projective.
    if nothing_to_do or trees.find_cycle(h) is not None or trees.is_projective(h):
        return np.array(h, dtype=np.int64), labels
    lifting = _Lifting(h, covered_roots, lift_order, budget)
    lifting.run(lift=scheme != "none")
    return np.array(lifting.heads, dtype=np.int64), lifting.encode(labels, scheme)


class _Lifting:
    """One pseudo-projectivization in progress: the current heads and what happened to each word.

    Kept as one object because MaltParser's covered-root step, lifting order
    and label encoding all read the same per-word record (original arc
    length, lifted or not, first head, path mark, covered root).
    """

    def __init__(self, heads: list[int], covered_roots: str, lift_order: str, budget: Budget) -> None:
        n = len(heads) - 1
        self.heads = heads
        self.budget = budget
        self.covered_roots = covered_roots
        self.lift_order = lift_order
        self.length = [0] + [abs(i - heads[i]) for i in range(1, n + 1)]  # ORIGINAL arc lengths
        self.lifted = [False] * (n + 1)
        self.first_head = [0] * (n + 1)  # original head of a lifted word (its first lift)
        self.path = [False] * (n + 1)
        self.covered = [False] * (n + 1)

    def run(self, lift: bool) -> None:
        """MaltParser's order of steps: covered roots first (or during lifting for ``ignore``), then lifting."""
        h = self.heads
        words = range(1, len(h))
        if self.covered_roots == "ignore":
            if lift:
                self._lift_until_projective(use_covered=True)
                for i in words:
                    if self.covered[i]:
                        h[i] = 0
            return
        if self.covered_roots != "none":
            for d in words:
                self._attach_covered(d)
        if lift:
            self._lift_until_projective(use_covered=False)

    def _lift_until_projective(self, use_covered: bool) -> None:
        """Nivre & Nilsson's loop: lift the chosen non-projective word until none is left.

        With ``use_covered`` (``-pcr ignore``) a chosen arc that covers root
        words attaches them instead of being lifted, in that round.
        """
        while True:
            self.budget.check()
            candidates = np.flatnonzero(trees.non_projective_arcs(self.heads)).tolist()
            if not candidates:
                return
            d = self._pick(candidates)
            if use_covered and self._attach_covered(d):
                continue
            self._lift(d)

    def _pick(self, candidates: list[int]) -> int:
        """The word to lift next: MaltParser's ``shortest`` (ORIGINAL arc length) or ``deepest``; ties to the lowest index."""
        if self.lift_order == "deepest":
            depth = trees.depths(self.heads).tolist()
            key = [-depth[i] for i in candidates]
        else:
            key = [self.length[i] for i in candidates]
        return candidates[key.index(min(key))]

    def _lift(self, d: int) -> None:
        """Move ``d`` to its grandparent, recording its first head and the path mark of the word left."""
        h = self.heads
        g = h[d]
        self.lifted[d] = True
        if not self.first_head[d]:
            self.first_head[d] = g
        self.path[g] = True
        h[d] = h[g]

    def _attach_covered(self, d: int) -> bool:
        """Attach the root words covered by the arc ``heads[d] -> d`` per ``covered_roots``; True if any.

        A root word is covered when its whole yield lies strictly inside the
        arc (MaltParser recomputes the yields after each attachment, which
        can only grow a later root word's yield).
        """
        h = self.heads
        g = h[d]
        if g == 0:
            return False
        lo, hi = (g, d) if g < d else (d, g)
        target = self._covered_target(g, d)
        found = False
        for i in range(lo + 1, hi):
            if self.lifted[i] or h[i] != 0:
                continue
            m = trees.yield_masks(h)[i]
            if lo < (m & -m).bit_length() - 1 and m.bit_length() - 1 < hi:
                h[i] = target
                self.covered[i] = True
                found = True
        return found

    def _covered_target(self, g: int, d: int) -> int:
        """Where a root word covered by ``g -> d`` goes: the arc's left end, right end or head."""
        if self.covered_roots == "left":
            return min(g, d)
        if self.covered_roots == "right":
            return max(g, d)
        return g  # "head" and "ignore"

    def encode(self, original: list[str], scheme: str) -> list[str]:
        """The output labels: each word's original label plus its lift / path / covered-root decoration."""
        labels = list(original)
        mark_covered = self.covered_roots not in ("none", "ignore")
        for i in range(1, len(labels)):
            lab = original[i]
            if self.covered[i]:
                if mark_covered:
                    labels[i] = lab + COVERED_SUFFIX
                continue
            path = PATH_MARK if self.path[i] else ""
            if self.lifted[i]:
                head_label = original[self.first_head[i]]
                if scheme == "head":
                    labels[i] = lab + LIFT_SEP + head_label
                elif scheme == "path":
                    labels[i] = lab + LIFT_SEP + path
                elif scheme == "head+path":
                    labels[i] = lab + LIFT_SEP + head_label + path
            elif path and scheme in ("path", "head+path"):
                labels[i] = lab + path
        return labels


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


# --------------------------------------------------------------------------
# deprojectivization
# --------------------------------------------------------------------------


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
    Labels are always stripped, even when no head is found. The traversal is
    iterative, so any tree depth works at any call depth.
    """
    scheme = _check_scheme(scheme)
    h, labels = _as_lists(heads, deprels)
    marks = _Marks(labels)
    for i in marks.covered:
        h[i] = 0
    if any(marks.lifted) and scheme not in ("baseline", "none") and trees.find_cycle(h) is None:
        _Deprojectivizer(h, marks, scheme).run()
    return np.array(h, dtype=np.int64), marks.labels


class _Marks:
    """The decorations read off (and stripped from) the labels: MaltParser's first deproj step.

    ``%`` marks a path word, ``|x`` a lifted word whose original head had
    label ``x`` (``want``; None for a bare ``|``), ``|null`` a covered root.
    """

    def __init__(self, labels: list[str]) -> None:
        n = len(labels) - 1
        self.labels = labels
        self.lifted = [False] * (n + 1)
        self.path = [False] * (n + 1)
        self.want: list[str | None] = [None] * (n + 1)
        self.covered: list[int] = []
        for i in range(1, n + 1):
            labels[i] = self._split(i, labels[i])

    def _split(self, i: int, lab: str) -> str:
        """Record word ``i``'s decorations and return its bare label."""
        p = lab.find(PATH_MARK)
        if p != -1:
            lab = lab[:p]
            self.path[i] = True
        p = lab.find(LIFT_SEP)
        if p != -1 and COVERED_SUFFIX not in lab:
            if p + 1 < len(lab):
                self.want[i] = lab[p + 1 :]
            self.lifted[i] = True
            lab = lab[:p]
        p = lab.find(COVERED_SUFFIX)
        if p != -1:
            lab = lab[:p]
            self.covered.append(i)
        return lab


class _Visit:
    """One pending call of MaltParser's recursive deprojectivizeWith* on ``node``, as an explicit stack frame."""

    __slots__ = ("node", "start", "success", "children_ok", "attempts", "children", "next")

    def __init__(self, node: int, start: int, success: bool) -> None:
        self.node = node
        self.start = start  # version of the tree when the call began
        self.success = success  # the node's own lift (if any) found its head
        self.children_ok = True
        self.attempts = 2  # a level is visited again once when something below failed
        self.children: list[int] = []
        self.next = 0


class _Deprojectivizer:
    """MaltParser's deprojectivization of one tree: the breadth-first head searches and the top-down visit."""

    def __init__(self, heads: list[int], marks: _Marks, scheme: str) -> None:
        self.heads = heads
        self.labels = marks.labels
        self.lifted = marks.lifted
        self.path = marks.path
        self.want = marks.want
        self.kids = _children(heads)  # kept sorted, updated on every move
        self.find: Callable[[int], int | None] = {
            "head": self._find_by_head,
            "path": self._find_by_path,
            "head+path": self._find_by_head_and_path,
        }[scheme]
        self.scheme = scheme
        # A visit is a pure function of the current tree, so a visit that moved
        # nothing is cached against a version counter that every move bumps:
        # MaltParser's retry rule could otherwise revisit a failing subtree 2^depth times.
        self.version = 0
        self.clean: dict[int, tuple[int, bool]] = {}

    def run(self) -> None:
        """Visit the tree from the root, unless (head scheme) no lifted word can find a head at all."""
        words = range(1, len(self.heads))
        if self.scheme == "head" and not any(self.lifted[i] and self.find(i) is not None for i in words):
            return
        self._visit_all(0)

    # ---- the top-down visit (MaltParser's deprojectivizeWith{Head,Path,HeadAndPath})

    def _visit_all(self, root: int) -> bool:
        """The recursive visit of ``root``, run on an explicit stack (trees can be deeper than Python's stack)."""
        entered = self._enter(root)
        if isinstance(entered, bool):
            return entered
        stack = [entered]
        while True:
            frame = stack[-1]
            if frame.next < len(frame.children):
                child = frame.children[frame.next]
                frame.next += 1
                entered = self._enter(child)
                if isinstance(entered, _Visit):
                    stack.append(entered)
                elif not entered:
                    frame.children_ok = False
                continue
            if self._retry(frame):
                continue
            result = self._leave(frame)
            stack.pop()
            if not stack:
                return result
            if not result:
                stack[-1].children_ok = False

    def _enter(self, node: int) -> _Visit | bool:
        """Start visiting ``node``: its cached result, or a frame after moving the node itself if it was lifted."""
        cached = self.clean.get(node)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        frame = _Visit(node, self.version, self._reattach(node))
        frame.children = self._visit_order(node)
        return frame

    def _retry(self, frame: _Visit) -> bool:
        """After a round over the children: start the second round if one failed and a round is left."""
        frame.attempts -= 1
        if frame.children_ok or not frame.attempts:
            return False
        frame.children_ok = True
        frame.children = self._visit_order(frame.node)
        frame.next = 0
        return True

    def _leave(self, frame: _Visit) -> bool:
        """The visit's result (own lift and every child succeeded), cached when the tree did not change."""
        result = frame.children_ok and frame.success
        if self.version == frame.start:
            self.clean[frame.node] = (frame.start, result)
        return result

    def _reattach(self, node: int) -> bool:
        """Move a lifted ``node`` to the head its encoding asks for; False when none is found.

        (MaltParser's path variants try the same search twice; the second
        attempt can only repeat the first one's result.)
        """
        if not self.lifted[node]:
            return True
        target = self.find(node)
        if target is None:
            return False
        self._move(node, target)
        self.version += 1
        self.lifted[node] = False
        return True

    def _visit_order(self, node: int) -> list[int]:
        """MaltParser's child order: left dependents leftmost-first, then right dependents rightmost-first."""
        ks = self.kids[node]
        s = 0
        while s < len(ks) and ks[s] < node:
            s += 1
        return ks[:s] + ks[s:][::-1]

    def _move(self, d: int, new_head: int) -> None:
        """Re-attach ``d`` to ``new_head``, keeping the dependent lists sorted."""
        self.kids[self.heads[d]].remove(d)
        lst = self.kids[new_head]
        j = len(lst)
        while j and lst[j - 1] > d:
            j -= 1
        lst.insert(j, d)
        self.heads[d] = new_head

    # ---- the breadth-first head searches

    def _sorted_dependents(self, gov: int, avoid: int, percent_only: bool) -> list[int]:
        """MaltParser's findAllDependentsVectorSortedByDistanceToPProjNode.

        The dependents in index order, then a selection sort on the distance
        to the lifted word that swaps the minimum into place (so it is not
        stable: ties can come out of index order); the lifted word itself is
        left out, and with ``percent_only`` every word without a path mark.
        """
        deps = list(self.kids[gov])
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
            path = self.path
            return [x for x in deps if x != avoid and path[x]]
        return [x for x in deps if x != avoid]

    def _find_by_head(self, node: int) -> int | None:
        """``head`` scheme: the first node below the current head labelled as the original head was."""
        label = self.want[node]
        queue = self._sorted_dependents(self.heads[node], node, False)
        qi = 0
        while qi < len(queue):
            dep = queue[qi]
            qi += 1
            if self.labels[dep] == label:
                return dep
            queue.extend(self._sorted_dependents(dep, node, False))
        return None

    def _find_by_path(self, node: int) -> int | None:
        """``path`` scheme: the first end of a chain of ``%`` nodes below the current head."""
        queue = self._sorted_dependents(self.heads[node], node, True)
        qi = 0
        while qi < len(queue):
            dep = queue[qi]
            qi += 1
            nxt = self._sorted_dependents(dep, node, True)
            if not nxt:
                return dep
            queue.extend(nxt)
        return None

    def _find_by_head_and_path(self, node: int) -> int | None:
        """``head+path``: the end of a ``%`` chain with the wanted label, else the first ``%`` node with it that has ``%`` children."""
        label = self.want[node]
        queue = self._sorted_dependents(self.heads[node], node, True)
        second: int | None = None
        qi = 0
        while qi < len(queue):
            dep = queue[qi]
            qi += 1
            nxt = self._sorted_dependents(dep, node, True)
            if not nxt and self.labels[dep] == label:
                return dep
            queue.extend(nxt)
            if nxt and second is None and self.labels[dep] == label:
                second = dep
        return second
