"""The arc-standard dynamic oracle of Nederhof (2019), papers/003: exact for any gold tree.

Nederhof, *Calculating the Optimal Step in Shift-Reduce Dependency Parsing:
From Cubic to Linear Time* (TACL 7, 2019). For a configuration c and each
transition a, the *score* σ_a is the largest number of gold arcs that a
computation starting with a can still build (§2: gold arcs found before c
are left out, the new arc of a reduction counts). Every word on the stack
or in the buffer gets exactly one head in the future, so the loss after a
is ``wrong(c) + (k + m) - σ_a`` (k stack words other than the root, m buffer
words) and the cost of a is ``max_b σ_b - σ_a``: the loss difference of
papers/000 §2.2 that every oracle of this package returns. With gold
labels the labelled loss moves exactly like the unlabelled one (each future
arc can carry the gold label), so the costs are the same and only the keys
carry the label of the word attached (``LA(nsubj)``), as elsewhere.

Algorithms (``algorithm=``):

* ``cubic`` (§4): the generic tabular algorithm of §3 (Table 2, Eisner &
  Satta style, split heads) run for the grammar of Table 4 over the stack
  and the buffer of the configuration after a; any gold tree. On a
  projective gold tree the buffer is first reduced to its critical nodes
  (§5, properties (1)-(3)): the non-critical words get their gold heads and
  are counted without entering the cubic part (the paper's "Section 4
  (proj)" curve of Figure 9).
* ``quadratic`` (§5) and ``linear`` (§6): projective gold trees only.
* ``auto``: ``linear`` for a projective gold tree, ``cubic`` otherwise.

Strategies (``strategy=``, §2): restrict the computations counted,
anchored at the configuration c being costed (the restriction covers the
step costed and every later one):

* ``none``: every computation (the plain loss; the default).
* ``left-before-right``: the top of c's stack and every word of c's buffer
  take all their future left children before any future right child.
* ``strict``: in addition, the other words on c's stack take no future left
  child.
* ``right-before-left``: the mirror of ``left-before-right`` (right children
  first); there is no strict variant (§2).

Under a strategy cost(a) = max_b σ_b - σ_a with both scores restricted; as
in §4 the restriction is imposed through weights -inf on the arcs it
forbids (:class:`StrategyRestriction` is the definition itself, used by the
tests to drive the exhaustive search).

The paper's formulas are machine-converted (papers/README.md) and some
are garbled; where this module reconstructs one it says so, and the tests
(tests/test_oracles_nederhof.py) hold every algorithm and strategy to the
exhaustive search on all trees of up to 6 words and on random and real
trees of up to 9.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator, Hashable, NamedTuple, Sequence

from treetool.budget import UNLIMITED
from treetool.recursion import run_nested

from .system import Action, Configuration, OracleUnavailable, as_heads

if TYPE_CHECKING:
    from .nederhof_cubic import BufferChart

__all__ = [
    "ALGORITHMS",
    "STRATEGIES",
    "NederhofOracle",
    "StrategyRestriction",
    "tabular_score",
]

ALGORITHMS = ("auto", "cubic", "quadratic", "linear")
STRATEGIES = ("none", "left-before-right", "strict", "right-before-left")
PROJECTIVE_ONLY = ("quadratic", "linear")

_NO = -1  # an impossible item (scores are >= 0 otherwise)
_NONE: frozenset[int] = frozenset()


# --------------------------------------------------------------------------
# the definition of the strategies (reference for the exhaustive search)
# --------------------------------------------------------------------------


class StrategyRestriction:
    """Nederhof (2019) §2 strategies as a restriction of arc-standard computations anchored at ``anchor``.

    For ``treetool.oracles.search.ExhaustiveSearch(restriction=...)``: ``LA`` gives s0
    a left child, ``RA`` gives s1 a right child; a *future* child is one
    attached after the anchor. left-before-right (and strict) refuse a left
    child to a restricted word (the anchor's top or a word of its buffer)
    that already has a future right child; strict refuses any left child to
    the anchor's other stack words; right-before-left refuses a right child
    to a restricted word that already has a future left child.
    """

    def __init__(self, strategy: str, anchor: Configuration) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
        self.strategy = strategy
        self.anchor_heads = anchor.heads
        self.restricted = frozenset(anchor.stack[-1:] + anchor.buffer)
        self.lower_stack = frozenset(anchor.stack[:-1])

    def _future_child(self, config: Configuration, word: int, left: bool) -> bool:
        heads, before = config.heads, self.anchor_heads
        children = range(1, word) if left else range(word + 1, len(heads))
        return any(heads[d] == word and before[d] != word for d in children)

    def allows(self, config: Configuration, action: Action) -> bool:
        strategy = self.strategy
        if strategy == "none" or action == "SH":
            return True
        stack = config.stack
        if action == "LA" and strategy in ("left-before-right", "strict"):
            s0 = stack[-1]
            if strategy == "strict" and s0 in self.lower_stack:
                return False
            return not (s0 in self.restricted and self._future_child(config, s0, left=False))
        if action == "RA" and strategy == "right-before-left":
            s1 = stack[-2]
            return not (s1 in self.restricted and self._future_child(config, s1, left=True))
        return True

    def memo_state(self, config: Configuration) -> Hashable:
        """Which stack words have future left and right children (all that :meth:`allows` reads).

        One pass over the heads (the search calls this at every configuration it
        memoises; asking :meth:`_future_child` per stack word scanned them twice per word).
        """
        heads, before = config.heads, self.anchor_heads
        left: set[int] = set()
        right: set[int] = set()
        for d in range(1, len(heads)):
            head = heads[d]
            if head != before[d]:
                (left if d < head else right).add(head)
        return tuple((w in left, w in right) for w in config.stack)


# --------------------------------------------------------------------------
# §3-4: the tabular algorithm for the grammar of Table 4
# --------------------------------------------------------------------------


def tabular_score(
    words: Sequence[int],
    top: int,
    gold: Sequence[int],
    no_left: frozenset[int] = frozenset(),
    no_right: frozenset[int] = frozenset(),
    budget: Any = UNLIMITED,
) -> int:
    """Most gold arcs of any computation from stack ``words[:top+1]``, buffer ``words[top+1:]`` (§4, cubic).

    Nederhof (2019) §3 Table 2 (weighted split-head tabular parsing, as Eisner
    & Satta 1999) for the grammar of Table 4 over ``p^top s^(N+1-top)``: the
    stack words below the top are ``p`` nodes, the top and the buffer ``s``.
    Reconstruction of the grammar's meaning (Table 4 is garbled; checked
    against exhaustive search): a ``p`` node with no child is a leaf ``P``; a
    ``p`` node that takes a right child whose subtree reaches an ``s`` node
    becomes ``S`` (it will be on top of the stack again) and may then also
    take left children; a ``p`` node never takes a ``P`` right child, and one
    with left children but no right child is impossible (no rule
    ``A -> (S,P)``). ``s`` nodes are always ``S``; every right child must be
    ``S``. Arc weights: 1 for a gold arc, 0 otherwise, impossible for an arc
    into the root and for the arcs the strategy forbids: a left child of a
    word in ``no_left``, a right child of one in ``no_right`` (stack words
    only: the strategies restrict nothing else). O(N^3) for N =
    ``len(words) - 1``, computed as :mod:`treetool.oracles.nederhof_cubic`
    arranges it; ``budget.check()`` between blocks of work.
    """
    from .nederhof_cubic import BufferChart  # not at the top: numpy, which other commands skip

    if (no_left | no_right) & set(words[top + 1 :]):
        raise ValueError("no_left and no_right may hold stack words only")
    return BufferChart(words[top + 1 :], gold, budget).score(words[: top + 1], 0, no_left, no_right, budget)


# --------------------------------------------------------------------------
# §5: critical nodes
# --------------------------------------------------------------------------


def leftmost_descendants(gold: Sequence[int]) -> list[int]:
    """``leftmost[w]``: the smallest word in w's gold subtree (w included)."""
    leftmost = list(range(len(gold)))
    for w in range(1, len(gold)):
        h = gold[w]
        while h > 0 and leftmost[h] > w:  # w is left of everything h has seen so far
            leftmost[h] = w
            h = gold[h]
    return leftmost


# --------------------------------------------------------------------------
# the oracle
# --------------------------------------------------------------------------


class NederhofOracle:
    """Scores and costs of SH, LA and RA in any arc-standard configuration, for one gold tree (module doc).

    ``algorithm``: ``auto`` | ``cubic`` | ``quadratic`` | ``linear``; the last
    two need a projective gold tree (``OracleUnavailable``, a ``ValueError``, otherwise). ``strategy``:
    one of :data:`STRATEGIES`. ``budget`` (``treetool.budget.Budget``) bounds
    the cubic algorithm: ``check()`` raises ``SentenceTimeout`` when it is
    spent. Every call recomputes from the configuration, so any configuration
    may be asked, in any order (§7: reusing values across steps is possible
    but, as in the paper, not pursued). ``reduce_critical=False`` runs the
    cubic algorithm on the whole buffer even for a projective gold tree (§4
    exactly as published; benchmarks/nederhof.py's "cubic" curve).
    """

    def __init__(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        *,
        algorithm: str = "auto",
        strategy: str = "none",
        budget: Any = UNLIMITED,
        reduce_critical: bool = True,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
        from treetool.trees import is_projective  # not at the top: it imports numpy, which other commands skip

        self.gold = as_heads(gold_heads)
        self.labels = None if gold_labels is None else list(gold_labels)
        self.projective = is_projective(self.gold)
        if algorithm == "auto":
            algorithm = "linear" if self.projective else "cubic"
        if not reduce_critical and algorithm != "cubic":
            raise ValueError("reduce_critical=False applies to the cubic algorithm only")
        if algorithm in PROJECTIVE_ONLY and not self.projective:
            raise OracleUnavailable(f"the {algorithm} algorithm needs a projective gold tree (Nederhof 2019, "
                                    "§5-6); the cubic one takes any tree")
        self.algorithm = algorithm
        self.strategy = strategy
        self.budget = budget
        self.reduce_critical = reduce_critical
        # §5: buffer word b is critical for a buffer starting at `first` iff reach[b] < first
        self.reach = ([min(h, low) for h, low in zip(self.gold, leftmost_descendants(self.gold))]
                      if self.projective else None)
        self._critical_buffers: dict[int | None, _BufferSide] = {}  # first buffer word -> its critical words
        self._charts: dict[int | None | str, BufferChart] = {}  # see _chart
        n = len(self.gold) - 1
        labels = self.labels
        self.la_keys = ["LA"] * (n + 1) if labels is None else [f"LA({label})" for label in labels]
        self.ra_keys = ["RA"] * (n + 1) if labels is None else [f"RA({label})" for label in labels]
        self._answer: tuple[Configuration | None, dict[Action, int]] = (None, {})

    def scores(self, config: Configuration) -> dict[Action, int]:
        """σ of every legal action (unlabelled keys, legal order): the most gold arcs still buildable after it."""
        out: dict[Action, int] = {}
        buffer = config.buffer
        for action, stack, offset, arc, no_left, no_right in self._successors(config):
            out[action] = arc + self._score(stack, buffer, offset, no_left, no_right)
        return out

    def costs(self, config: Configuration) -> dict[Action, int]:
        if self.labels is not None and config.labels is None:
            raise ValueError("gold labels were given but the configuration is unlabelled")
        scores = self.scores(config)
        if not scores:
            return {}
        best = max(scores.values())
        stack = config.stack
        keys = {"SH": "SH", "LA": self.la_keys[stack[-2]] if len(stack) > 1 else "LA", "RA": self.ra_keys[stack[-1]]}
        costs = {keys[action]: best - score for action, score in scores.items()}
        self._answer = (config, costs)
        return costs

    def optimal(self, config: Configuration) -> list[Action]:
        answered, costs = self._answer
        if answered is not config:
            costs = self.costs(config)
        return [action for action, cost in costs.items() if cost == 0]

    def _score(self, stack: list[int], buffer: Sequence[int], offset: int, no_left: frozenset[int],
               no_right: frozenset[int]) -> int:
        """σ of the configuration with stack ``stack`` and buffer ``buffer[offset:]``."""
        first = buffer[offset] if offset < len(buffer) else None
        if not (self.projective and self.reduce_critical):  # the chart of the sentence: its words 1..n
            start = len(self.gold) - 1 if first is None else first - 1
            return self._chart("sentence").score(stack, start, no_left, no_right, self.budget)
        side = self._buffer_side(first)
        bonus = len(buffer) - offset - side.size
        if self.algorithm == "cubic":
            return bonus + self._chart(first).score(stack, 0, no_left, no_right, self.budget)
        return bonus + _Table5(stack, side, self.gold, no_left, no_right, self.algorithm == "linear",
                                self.budget).total()

    def _chart(self, first: int | None | str) -> BufferChart:
        """The cubic algorithm's chart of the sentence (``first="sentence"``) or of the critical words of ``first..n``.

        The sentence's serves every configuration, whose buffer is always a
        suffix of it; a projective tree's critical words change with the
        buffer's first word, so there is one chart per first word, as
        :meth:`_buffer_side` keeps one set of critical words.
        """
        from .nederhof_cubic import BufferChart  # not at the top: numpy, which other commands skip

        chart = self._charts.get(first)
        if chart is None:
            words = range(1, len(self.gold)) if first == "sentence" else self._buffer_side(first).b[1:]
            chart = self._charts[first] = BufferChart(words, self.gold, self.budget)
        return chart

    def _buffer_side(self, first: int | None) -> _BufferSide:
        """The critical words of the buffer ``first..n`` and their part of Table 5's tables (§5).

        Nederhof (2019) §5, projective gold trees: a buffer word is *critical*
        when its gold head is not in the buffer or one of its gold descendants
        is not (a stack word or a word already attached). By properties (1)-(3)
        some optimal computation gives every non-critical word its gold head and
        no stack word a non-critical head, so the score is the number of
        non-critical words plus the score over the stack and the critical words
        alone. The buffer is a suffix ``first..n`` of the sentence and a gold
        subtree is an interval starting at its leftmost descendant, so both
        tests are one comparison ``reach[b] < first``, and the critical words
        depend on ``first`` alone: cached, so that SH, LA and RA and later
        steps share them (with the buffer-only tables built from them).
        """
        side = self._critical_buffers.get(first)
        if side is None:
            reach = self.reach
            critical = [] if first is None else [b for b in range(first, len(reach)) if reach[b] < first]
            side = self._critical_buffers[first] = _BufferSide.build(critical, self.gold)
        return side

    def _successors(self, config: Configuration):
        """Per legal action: its stack and buffer offset after it, its arc's gold-ness, the strategy's bans.

        §4: after SH the old top can take no more left children under
        (strict) left-before-right; after RA (s1 -> s0) s1 has a right child,
        so under strict it takes no more left children; after LA (s1 <- s0) s0
        has a left child, so under right-before-left it takes no more right
        children; strict bans left children of every lower stack word.
        """
        stack, buffer, gold, strategy = list(config.stack), config.buffer, self.gold, self.strategy
        strict = strategy == "strict"
        if buffer:
            no_left = frozenset(stack) if strict else frozenset(stack[-1:]) if strategy == "left-before-right" else _NONE
            yield "SH", stack + [buffer[0]], 1, 0, no_left, _NONE
        if len(stack) < 2:
            return
        s0, s1 = stack[-1], stack[-2]
        if s1 != 0:
            no_right = frozenset([s0]) if strategy == "right-before-left" else _NONE
            no_left = frozenset(stack[:-2]) if strict else _NONE
            yield "LA", stack[:-2] + [s0], 0, int(gold[s1] == s0), no_left, no_right
        no_left = frozenset(stack[:-1]) if strict else _NONE
        yield "RA", stack[:-1], 0, int(gold[s0] == s1), no_left, _NONE


# --------------------------------------------------------------------------
# §5-6: quadratic and linear algorithms (projective gold trees)
# --------------------------------------------------------------------------


# buffer states of Table 5 (the paper's N, C, F), small ints so that memo keys are ints
_N, _C, _F = 0, 1, 2

#: Table 5 items started between two budget checks (a few milliseconds of work).
_CHECK_EVERY = 4096


class _BufferSide(NamedTuple):
    """The critical words ``b[1..m]`` of one buffer and the tables of §5 that depend on them alone.

    ``b``: ``[-1, *critical words]`` (1-based, Table 5's notation); ``index``:
    critical word -> j; ``root`` (the paper's R): the rightmost critical word
    of b_j's component (its gold ancestor within the critical words);
    ``inner`` (the paper's M): how many critical words have a critical gold
    head; ``attach``: ``(j, gold head)`` of every component root, right to
    left (its head is a stack word or outside the configuration).
    """

    b: list[int]
    index: dict[int, int]
    root: list[int]
    inner: int
    attach: list[tuple[int, int]]
    size: int

    @classmethod
    def build(cls, critical: list[int], gold: Sequence[int]) -> "_BufferSide":
        b = [-1, *critical]
        index = {w: j for j, w in enumerate(b) if j}
        root = list(range(len(b)))
        attach = []
        for j in range(len(b) - 1, 0, -1):
            head = gold[b[j]]
            h = index.get(head)
            if h is None:
                attach.append((j, head))
            else:
                root[j] = root[h]
        return cls(b, index, root, len(critical) - len(attach), attach, len(critical))


class _Table5:
    """The recursions of Nederhof (2019) Table 5 (§5), with the pruning of §6 when ``linear``.

    Tables for a stack ``a[0..k]`` and the critical words ``b[1..m]`` of a
    :class:`_BufferSide`: ``p[i]``: the critical gold head of a_i (index into
    b, or None); ``p_ge[i]``: p[i], else p_ge[i+1] (p_ge[k] = p[k]);
    ``top[i]``: the component of p_ge[i]; ``c[i]``: the leftmost critical
    gold child of a_i; ``children[i]`` (nchildren): a_i's critical gold
    children, 0 when the strategy bans a_i's right children. For the arc
    weights w between stack words (1 gold, 0 not, impossible into the root or
    when banned): ``head_pos[i]``, the stack position of a_i's gold head (-1
    if none), and ``ban_left[i]`` / ``ban_right[i]``, the strategy's bans.

    Reconstruction (Table 5 and §6 are garbled in the machine conversion;
    checked against the cubic algorithm on every configuration of every
    projective tree of up to 6 words and against exhaustive search):

    score(i, j, q) (stack a_0..a_i a_j, buffer state q in N/C/F) is the max of
      1. children(i) - [c(i) = P>=(j) and q != N] + w(i, j) + score(i-1, i, tau(i, j, q))  (a_j into a_i),
      2. w(j, i) + score(i-1, j, q)                                                  (a_i into a_j),
      3. if p(j) defined and q != C: [q = N] + score'(i, p(j))       (a_j into its critical head);
    score'(i, j) (stack a_0..a_i b_j) is the max of
      1. score'(i-1, j), or 1 + score'(i-1, p(i)) when a_i's head is in b_j's component (a_i into it),
      2. children(i) + score(i-1, i, tau'(i, j))                               (b_j into a_i);
    both 0 for i < 0; the root a_0 is never a dependent. tau and tau' as in
    the paper. §6 replaces option 2 of score by 1 + score(i-1, j, q) for a
    gold arc, score(kappa(i), j, q) for another arc when lambda(i, j), else
    nothing, and score'(i-1, j) by score'(kappa(i), j) when lambda'(i, j).
    The memos are keyed by one int (``(i * (k+1) + j) * 3 + q``): always
    i < j <= k in score, and i <= k, j <= m in score'. The buffer-side
    tables come from the oracle's per-buffer cache; this class builds only
    the stack side, in as few passes as possible (it is the hot loop of
    ``annotate --system arc-standard``).
    """

    def __init__(self, a: list[int], side: _BufferSide, gold: Sequence[int], no_left: frozenset[int],
                 no_right: frozenset[int], linear: bool, budget: Any = UNLIMITED) -> None:
        self.side, self.linear, self.budget = side, linear, budget
        self.width = size = len(a)
        index, root = side.index, side.root
        position = {w: i for i, w in enumerate(a)}
        heads = [gold[w] for w in a]
        self.p = p = [index.get(h) for h in heads]
        self.head_pos = head_pos = [position.get(h, -1) for h in heads]
        self.ban_left = [w in no_left for w in a] if no_left else [False] * size
        self.ban_right = ban_right = [w in no_right for w in a] if no_right else [False] * size
        # §6's lambda' per component root: the smallest stack position linked to the component by a gold arc
        self.component_first = component_first = [size] * len(root)
        self.top = top = [None] * size  # the component of P>=(i)
        self.p_ge = p_ge = list(p)
        last = None
        for i in range(size - 1, -1, -1):
            if p_ge[i] is None:
                p_ge[i] = last
            else:
                last = p_ge[i]
                component_first[root[last]] = i  # descending: the smallest i stays
            if last is not None:
                top[i] = root[last]
        self.c = c = [None] * size
        self.children = children = [0] * size
        for j, head in side.attach:  # right to left: the last one seen is the leftmost
            i = position.get(head)
            if i is not None:
                children[i] += 1
                c[i] = j
                if i < component_first[j]:  # j is its component's root
                    component_first[j] = i
        if no_right:
            for i in range(size):
                if ban_right[i]:
                    children[i] = 0
        self.memo: dict[int, int] = {}
        self.memo_prime: dict[int, int] = {}
        if linear:  # §6: first_link[j], the smallest l with a gold arc between a_l and a_j; kappa(i)
            self.first_link = first = [size] * size
            for i, h in enumerate(head_pos):
                if h >= 0:
                    if h < first[i]:
                        first[i] = h
                    if i < first[h]:
                        first[h] = i
            self.kappa = [first[i] if first[i] < i else i - 1 for i in range(size)]

    def total(self) -> int:
        k = self.width - 1
        return self.side.inner + (self._evaluate(False, k - 1, k, _N) if k else 0) + self.children[k]

    def _evaluate(self, prime: bool, i: int, j: int, q: int) -> int:
        """score(i, j, q) (or score'(i, j) when ``prime``), without recursion.

        The recursions of Table 5 go as deep as the stack is long (thousands
        of words), so each item is a generator that yields the items it needs
        (:meth:`_score`, :meth:`_score_prime`) and is resumed with their
        values: an explicit stack of suspended items instead of Python's.
        The budget is checked once per ``_CHECK_EVERY`` items started (the
        quadratic algorithm starts O(k m) of them per configuration).
        """
        started = 0
        budget = self.budget

        def item(prime: bool, i: int, j: int, q: int) -> Generator[tuple[bool, int, int, int], int, int]:
            nonlocal started
            started += 1
            if started % _CHECK_EVERY == 0:
                budget.check()
            return self._score_prime(i, j) if prime else self._score(i, j, q)

        return run_nested(item(prime, i, j, q), item)

    def _score(self, i: int, j: int, q: int) -> Generator[tuple[bool, int, int, int], int, int]:
        """Table 5's score(i, j, q), for i >= 0 (the callers skip score(-1, ...) = 0: a fifth of all calls).

        A generator for :meth:`_evaluate`: a needed item not in the memo is
        yielded as ``(prime, i, j, q)`` and its value sent back.
        """
        key = (i * self.width + j) * 3 + q
        memo = self.memo
        best = memo.get(key)
        if best is not None:
            return best
        best = _NO
        if not self.ban_right[i]:  # w(i, j), a_j into a_i
            c = self.c[i]
            top = self.top
            lost = c is not None and q != _N and c == top[j]
            if q == _N or top[i] != top[j]:  # tau(i, j, q)
                tau = _N
            else:
                p_ge = self.p_ge
                tau = _F if p_ge[i] != p_ge[j] else q
            inner = 0
            if i:
                inner = memo.get(((i - 1) * self.width + i) * 3 + tau)
                if inner is None:
                    inner = yield False, i - 1, i, tau
            best = self.children[i] - lost + (self.head_pos[j] == i) + inner
        if i > 0 and not self.ban_left[j]:  # w(j, i), a_i into a_j
            below = None
            if self.head_pos[i] == j or not self.linear:
                below = i - 1
            elif self.first_link[j] < i:
                below = self.kappa[i]
            if below is not None:
                other = memo.get((below * self.width + j) * 3 + q)
                if other is None:
                    other = yield False, below, j, q
                other += self.head_pos[i] == j
                if other > best:
                    best = other
        head = self.p[j]
        if head is not None and q != _C:
            other = self.memo_prime.get(i * len(self.side.root) + head)
            if other is None:
                other = yield True, i, head, _N
            other += q == _N
            if other > best:
                best = other
        memo[key] = best
        return best

    def _score_prime(self, i: int, j: int) -> Generator[tuple[bool, int, int, int], int, int]:
        """Table 5's score'(i, j), for i >= 0 (a generator for :meth:`_evaluate`, as :meth:`_score`)."""
        root = self.side.root
        width = len(root)
        key = i * width + j
        memo = self.memo_prime
        best = memo.get(key)
        if best is not None:
            return best
        best = _NO
        if i > 0:
            head = self.p[i]
            below, target, arc = None, j, 0
            if head is not None and root[head] == root[j]:  # a_i into its head, in b_j's component
                below, target, arc = i - 1, head, 1
            elif not self.linear:
                below = i - 1
            elif self.component_first[root[j]] < i:
                below = self.kappa[i]
            if below is not None:
                best = memo.get(below * width + target)
                if best is None:
                    best = yield True, below, target, _N
                best += arc
        if self.top[i] != root[j]:  # tau'(i, j)
            tau = _N
        else:
            tau = _F if self.p_ge[i] != j else _C
        inner = 0
        if i:
            inner = self.memo.get(((i - 1) * self.width + i) * 3 + tau)
            if inner is None:
                inner = yield False, i - 1, i, tau
        other = self.children[i] + inner
        if other > best:
            best = other
        memo[key] = best
        return best
