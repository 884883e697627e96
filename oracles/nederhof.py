"""The arc-standard dynamic oracle of Nederhof (2019): exact for any gold tree.

Nederhof, *Calculating the Optimal Step in Shift-Reduce Dependency Parsing:
From Cubic to Linear Time* (TACL 7, 2019). For a configuration c and each
transition a, the *score* σ_a is the largest number of gold arcs that a
computation starting with a can still build (§2: gold arcs found before c
are left out, the new arc of a reduction counts). Every word on the stack
or in the buffer gets exactly one head in the future, so the loss after a
is ``wrong(c) + (k + m) - σ_a`` (k stack words other than the root, m buffer
words) and the cost of a is ``max_b σ_b - σ_a``: the loss difference
(Gómez-Rodríguez, Sartorio & Satta 2014, §2.2) that every oracle of this package returns. With gold
labels the labelled loss moves exactly like the unlabelled one (each future
arc can carry the gold label), so the costs are the same and only the keys
carry the label of the word attached (``LA(nsubj)``), as elsewhere.

Algorithms (``algorithm=``):

* ``cubic`` (§4): the generic tabular algorithm of §3 (Table 2, Eisner &
  Satta style, split heads) run for the grammar of Table 4 over the stack
  and the buffer of the configuration after a; any gold tree. The items
  within the buffer come from one chart per sentence, the rest are vectors
  over the buffer (:mod:`treetool.oracles.buffer_chart`). On a
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

The paper's formulas survive only in a machine conversion of the PDF, where some
are garbled; where this module reconstructs one it says so, and the tests
(tests/test_oracles_nederhof.py) hold every algorithm and strategy to the
exhaustive search on all trees of up to 6 words and on random and real
trees of up to 9.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any, Hashable, NamedTuple, Sequence

from treetool.budget import UNLIMITED

from .configuration import Action, Configuration, gold_tree
from .errors import ConfigurationMismatch, OracleUnavailable
from .layout import check_arrangement, check_configuration
from .vocabulary import CostVectors

if TYPE_CHECKING:
    from .buffer_chart import BufferChart

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
_NO_CHILDREN: list[int] = []  # shared, never changed


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
    ``len(words) - 1``, computed as :mod:`treetool.oracles.buffer_chart`
    arranges it; ``budget.check()`` between blocks of work.
    """
    from .buffer_chart import BufferChart  # not at the top: numpy, which other commands skip

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


class NederhofOracle(CostVectors):
    """Scores and costs of SH, LA and RA in any arc-standard configuration, for one gold tree (Nederhof 2019).

    ``algorithm``: ``auto`` | ``cubic`` | ``quadratic`` | ``linear``; the last
    two need a projective gold tree (``OracleUnavailable``, a ``ValueError``, otherwise). ``strategy``:
    one of :data:`STRATEGIES`. ``budget`` (``treetool.budget.Budget``) bounds
    the algorithms: ``check()`` raises ``SentenceTimeout`` when it is
    spent. The oracle serves one sentence and keeps what later calls can
    reuse (§7): the cubic algorithm's chart of the buffer words and the
    top's rows (:mod:`treetool.oracles.buffer_chart`), and Table 5's items
    per buffer (:class:`_Table5`; a buffer a SHIFT makes starts from the
    items of the one before that the shift leaves valid), each valid for any configuration, so any
    configuration may still be asked, in any order; a walk, whose
    configurations share most of their stack and buffer, asks them in the
    cheapest one. It also keeps the last configuration costed and its
    scores: one a transition after it is checked in O(1) (:func:`_transition`)
    and its σ is known, which spares one action's score (:meth:`_table5_scores`). ``reduce_critical=False`` runs the cubic algorithm on the
    whole buffer even for a projective gold tree (§4 exactly as published;
    benchmarks/nederhof.py's "cubic" curve).
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

        self.gold, self.labels = gold_tree(gold_heads, gold_labels)  # InvalidGoldTree, as every oracle
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
        self.reach = ([h if h < low else low for h, low in zip(self.gold, leftmost_descendants(self.gold))]
                      if self.projective else None)
        self._critical_buffers: dict[int | None, _BufferSide] = {}  # first buffer word -> its critical words
        # word f -> the words b > f with reach[b] == f, critical from the buffer f+1..n on (see _buffer_side)
        self._reach_from: list[list[int]] = [[] for _ in self.gold]
        reach_from = self._reach_from
        for word, low in enumerate(self.reach or ()):
            if 0 <= low < word:
                reach_from[low].append(word)
        self._charts: dict[int | None | str, BufferChart] = {}  # see _chart
        self._tables: dict[int | None, _Table5] = {}  # see _table5
        # for _Table5: a word's gold children left of it, the only ones that can lie below it on the stack
        self._left_children: list[list[int]] = [[] for _ in self.gold]
        left_children = self._left_children
        for word, head in enumerate(self.gold):
            if head > word:
                left_children[head].append(word)
        n = len(self.gold) - 1
        labels = self.labels
        self.la_keys = ["LA"] * (n + 1) if labels is None else [f"LA({label})" for label in labels]
        self.ra_keys = ["RA"] * (n + 1) if labels is None else [f"RA({label})" for label in labels]
        self._answer: tuple[Configuration | None, dict[Action, int], list[Action]] = (None, {}, [])
        # the last configuration costs() took (checked, valid) and the σ of its SH, LA and RA (_NO: illegal)
        self._scored: tuple[Configuration | None, int, int, int] = (None, _NO, _NO, _NO)
        # whether every successor is scored by a kept Table 5 (see _table5)
        self._kept_tables = algorithm in PROJECTIVE_ONLY and strategy == "none"

    def scores(self, config: Configuration) -> dict[Action, int]:
        """σ of every legal action (unlabelled keys, legal order): the most gold arcs still buildable after it."""
        if self._kept_tables:
            return {action: score for action, score in zip(("SH", "LA", "RA"), self._table5_scores(config, None))
                    if score != _NO}
        buffer = config.buffer
        successors = self._successors(config)
        values = [0] * len(successors)
        last = len(successors) - 1
        for n in ([0, *range(last, 0, -1)] if buffer else range(last, -1, -1)):  # SH, RA, LA: see _table5
            _, stack, offset, arc, no_left, no_right = successors[n]
            values[n] = arc + self._score(stack, buffer, offset, no_left, no_right)
        return {successor[0]: value for successor, value in zip(successors, values)}

    def costs(self, config: Configuration) -> dict[Action, int]:
        """Every legal action -> its cost; a configuration that cannot be arc-standard's for this sentence
        raises ``ConfigurationMismatch`` (``treetool.oracles.layout``; O(n), as the scores are)."""
        n = len(self.gold) - 1
        check_configuration(config, n, False)  # positional: a keyword costs a slower call, on every step
        last, shift, left, right = self._scored
        action = None if last is None else _transition(last, config, n)
        if action is None:
            check_arrangement(config, n, root_last=False)
        if self.labels is not None and config.labels is None:
            raise ConfigurationMismatch("gold labels were given but the configuration is unlabelled")
        if self._kept_tables:  # σ(config) = σ of the action that led here less its arc (§2), when one did
            known = None if action is None else shift
            if action == "LA" or action == "RA":
                s0, s1 = last.stack[-1], last.stack[-2]
                known = left - (self.gold[s1] == s0) if action == "LA" else right - (self.gold[s0] == s1)
            shift, left, right = self._table5_scores(config, known)
        else:
            scores = self.scores(config)
            shift, left, right = scores.get("SH", _NO), scores.get("LA", _NO), scores.get("RA", _NO)
        self._scored = (config, shift, left, right)
        best = shift if shift > left else left  # not max(): a builtin call costs more than two comparisons
        if right > best:
            best = right
        stack = config.stack
        costs = {}
        optimal = []  # for optimal(config): a walk asks for both
        if shift != _NO:
            costs["SH"] = best - shift
            if shift == best:
                optimal.append("SH")
        if left != _NO:
            key = self.la_keys[stack[-2]]
            costs[key] = best - left
            if left == best:
                optimal.append(key)
        if right != _NO:
            key = self.ra_keys[stack[-1]]
            costs[key] = best - right
            if right == best:
                optimal.append(key)
        self._answer = (config, costs, optimal)
        return costs

    def optimal(self, config: Configuration) -> list[Action]:
        answered, _, optimal = self._answer
        if answered is not config:
            self.costs(config)
            optimal = self._answer[2]
        return optimal[:]

    def _table5_scores(self, config: Configuration, known: int | None) -> tuple[int, int, int]:
        """σ of SH, LA and RA (``_NO`` for an illegal one) when every successor is scored by a kept Table 5 (§5-6,
        no strategy): what :meth:`_successors` and :meth:`_score` do, with no bans to carry (the walk's hot path).

        RA and LA are read off this buffer's table at the stack itself
        (:meth:`_Table5.reduced_total`), which stays there for the next
        configuration; SH comes last, its buffer's table started (when new)
        from this one at the stack. ``known``: σ(config) (None if not
        known), the largest σ of its actions (§2), so the action scored last
        is not scored when no other reaches ``known``: its σ is ``known``.
        SH, the most costly to score, is the only optimal action in about
        a third of the configurations of an exploring walk.
        """
        stack, buffer, gold = [*config.stack], config.buffer, self.gold
        remaining = len(buffer)
        shift = left = right = _NO
        tables = self._tables
        if len(stack) > 1:
            first = buffer[0] if remaining else None
            table = tables.get(first) or self._kept_table(first)
            s0, s1 = stack[-1], stack[-2]
            if known is not None and not s1 and not remaining:
                right = known
            else:
                right = (gold[s0] == s1) + remaining + table.reduced_total(stack, False)
            if s1:
                if known is not None and right != known and not remaining:
                    left = known
                else:
                    left = (gold[s1] == s0) + remaining + table.reduced_total(stack, True)
        if remaining:
            if known is not None and known != right and known != left:
                shift = known
            else:
                after = buffer[1] if remaining > 1 else None
                table = tables.get(after) or self._kept_table(after)
                shift = remaining - 1 + table.total([*stack, buffer[0]])
        return shift, left, right

    def _kept_table(self, first: int | None) -> _Table5:
        """The kept Table 5 of the buffer ``first..n`` (:meth:`_table5`), started from the one of the buffer before
        the shift that makes it when that is kept (:meth:`_Table5.rebased`), or that very table when the shift
        leaves the critical words as they were (:meth:`_buffer_side` then gives the same side): Table 5 reads the
        buffer through its critical words alone (§5), so the two buffers have the same items, and one table serves
        both (about half the shifts of an exploring walk on EWT); the oldest of :data:`_BUFFERS_KEPT` goes."""
        tables = self._tables
        table = tables.get(first)
        if table is None:
            side = self._buffer_side(first)
            shifted = len(self.gold) - 1 if first is None else first - 1  # the word whose shift makes this buffer
            before = tables.get(shifted)
            if len(tables) >= _BUFFERS_KEPT:
                del tables[next(iter(tables))]  # the oldest
            if before is None:
                table = _Table5(side, self.gold, self._left_children, self.algorithm == "linear", budget=self.budget)
            else:
                table = before if before.side is side else _Table5.rebased(before, shifted, side)
            tables[first] = table
        return table

    def _score(self, stack: list[int], buffer: Sequence[int], offset: int, no_left: frozenset[int],
               no_right: frozenset[int]) -> int:
        """σ of the configuration with stack ``stack`` and buffer ``buffer[offset:]``."""
        first = buffer[offset] if offset < len(buffer) else None
        if not (self.projective and self.reduce_critical):  # the chart of the sentence: its words 1..n
            start = len(self.gold) - 1 if first is None else first - 1
            return self._chart("sentence").score(stack, start, no_left, no_right, self.budget)
        side = self._buffer_side(first)
        if self.algorithm == "cubic":
            return len(buffer) - offset - side.size + self._chart(first).score(stack, 0, no_left, no_right, self.budget)
        return len(buffer) - offset + self._table5(first, side, no_left, no_right).total(stack)

    def _chart(self, first: int | None | str) -> BufferChart:
        """The cubic algorithm's chart of the sentence (``first="sentence"``) or of the critical words of ``first..n``.

        The sentence's serves every configuration, whose buffer is always a
        suffix of it; a projective tree's critical words change with the
        buffer's first word, so there is one chart per first word, as
        :meth:`_buffer_side` keeps one set of critical words.
        """
        from .buffer_chart import BufferChart  # not at the top: numpy, which other commands skip

        chart = self._charts.get(first)
        if chart is None:
            words = range(1, len(self.gold)) if first == "sentence" else self._buffer_side(first).critical
            chart = self._charts[first] = BufferChart(words, self.gold, self.budget)
        return chart

    def _table5(self, first: int | None, side: _BufferSide, no_left: frozenset[int],
                no_right: frozenset[int]) -> _Table5:
        """Table 5's items for the buffer ``first..n``: kept for the last few buffers, unless a strategy bans arcs.

        Successive configurations ask for the same buffer (after LA or RA, and
        SH's successor's buffer is the next configuration's), so their items
        are kept (:class:`_Table5`); bans differ per successor, so a table
        with bans is used once. A new buffer's table starts from the one of
        the buffer before the shift that makes it, when that is kept
        (:meth:`_Table5.rebased`). :meth:`scores` asks SH's successor first:
        after a SHIFT the table of the buffer before it holds the very stack
        SH's successor extends. It asks RA's successor before LA's: after
        the last call the table holds a stack close to RA's, and LA's then
        differs from it in its top word only.
        """
        if no_left or no_right:
            return _Table5(side, self.gold, self._left_children, self.algorithm == "linear", no_left, no_right,
                           self.budget)
        return self._kept_table(first)

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
        steps share them (with the buffer-only tables built from them). When
        the buffer ``first - 1..n`` has been seen, its critical words are
        updated (``first - 1`` leaves; the words b with ``reach[b] == first - 1``
        come) rather than found again among all of ``first..n``; when none
        leaves or comes, the buffer gets the very side of the one before (and
        its table, :meth:`_kept_table`).
        """
        side = self._critical_buffers.get(first)
        if side is None:
            reach = self.reach
            before = None if first is None else self._critical_buffers.get(first - 1)
            if first is None:
                critical = []
            elif before is None:
                critical = list(compress(range(first, len(reach)), map(first.__gt__, reach[first:])))
            else:  # first - 1, when critical, is the smallest critical word of the buffer before
                leaving = 1 if before.critical and before.critical[0] == first - 1 else 0
                arriving = self._reach_from[first - 1]
                if not (leaving or arriving):
                    self._critical_buffers[first] = before
                    return before
                critical = sorted(before.critical[leaving:] + arriving) if arriving else before.critical[1:]
            side = self._critical_buffers[first] = _BufferSide.build(critical, self.gold)
        return side

    def _successors(self, config: Configuration) -> list[tuple[Action, list[int], int, int, frozenset[int],
                                                                  frozenset[int]]]:
        """Per legal action: its stack and buffer offset after it, its arc's gold-ness, the strategy's bans.

        §4: after SH the old top can take no more left children under
        (strict) left-before-right; after RA (s1 -> s0) s1 has a right child,
        so under strict it takes no more left children; after LA (s1 <- s0) s0
        has a left child, so under right-before-left it takes no more right
        children; strict bans left children of every lower stack word.
        """
        stack, buffer, gold, strategy = list(config.stack), config.buffer, self.gold, self.strategy
        strict = strategy == "strict"
        out = []
        if buffer:
            no_left = frozenset(stack) if strict else frozenset(stack[-1:]) if strategy == "left-before-right" else _NONE
            out.append(("SH", stack + [buffer[0]], 1, 0, no_left, _NONE))
        if len(stack) < 2:
            return out
        s0, s1 = stack[-1], stack[-2]
        if s1 != 0:
            no_right = frozenset([s0]) if strategy == "right-before-left" else _NONE
            no_left = frozenset(stack[:-2]) if strict else _NONE
            out.append(("LA", stack[:-2] + [s0], 0, int(gold[s1] == s0), no_left, no_right))
        no_left = frozenset(stack[:-1]) if strict else _NONE
        out.append(("RA", stack[:-1], 0, int(gold[s0] == s1), no_left, _NONE))
        return out


# --------------------------------------------------------------------------
# §5-6: quadratic and linear algorithms (projective gold trees)
# --------------------------------------------------------------------------


# buffer states of Table 5 (the paper's N, C, F), small ints so that memo keys are ints
_N, _C, _F = 0, 1, 2

#: Table 5 items started between two budget checks (a few milliseconds of work).
_CHECK_EVERY = 4096
#: Buffers whose Table 5 items an oracle keeps (:meth:`NederhofOracle._table5`).
_BUFFERS_KEPT = 3
#: The level of a word off the stack or of a component not linked to it (above every level).
_ABSENT = 1 << 62
#: Nested item calls before :meth:`_Table5._evaluate` restarts from the deepest (Python's default limit is 1000).
_MAX_DEPTH = 200


class _BufferSide(NamedTuple):
    """The critical words of one buffer and the tables of §5 that depend on them alone, keyed by word.

    ``critical``: the critical words, ascending (the paper's b_1..b_m);
    ``root`` (the paper's R): critical word -> the root of its component,
    its topmost gold ancestor among the critical words; ``inner`` (the
    paper's M): how many critical words have a critical gold head;
    ``attached``: gold head -> its critical children, ascending (every one
    a component root: its head is a stack word or outside the
    configuration). Keyed by word rather than by position in ``critical``,
    so that what a SHIFT leaves unchanged keeps its name
    (:meth:`_Table5.rebased`).
    """

    critical: list[int]
    root: dict[int, int]
    inner: int
    attached: dict[int, list[int]]
    size: int

    @classmethod
    def build(cls, critical: list[int], gold: Sequence[int]) -> "_BufferSide":
        root: dict[int, int] = {}
        for word in reversed(critical):  # a critical head lies right of its critical dependents (projective)
            root[word] = root.get(gold[word], word)
        attached: dict[int, list[int]] = {}
        inner = 0
        for word in critical:
            if gold[word] in root:
                inner += 1
            else:
                attached.setdefault(gold[word], []).append(word)
        # tuple.__new__: the named tuple's own __new__ is Python code, a call more per new side
        return tuple.__new__(cls, (critical, root, inner, attached, len(critical)))


class _Table5:
    """The recursions of Nederhof (2019) Table 5 (§5), with the pruning of §6 when ``linear``, for one buffer side.

    Items over the stacks asked with the critical words ``b[1..m]`` of one
    :class:`_BufferSide`, one level per stack position: ``p[i]``: the
    critical gold head of a_i (a word, or None); ``c[i]``: a_i's
    leftmost critical gold child; ``children[i]`` (nchildren): how many it has
    (0 when the strategy bans a_i's right children); ``head[i]``: a_i's gold
    head (the arc weights w between stack words: 1 gold, 0 not, impossible
    into the root or when banned, ``ban_left``/``ban_right``); for §6,
    ``kappa[i]`` and ``first_below[i]`` (the lowest position linked to a_i by
    a gold arc, i if none) and ``component_first`` (component -> the lowest
    position linked to it; a component is named by its root). ``p_ge[i]``:
    p[i], else p_ge[i+1] (p_ge[k] = p[k]; 0, never critical, for none), and
    ``top[i]``, its component; they look up the stack, so a push or pop
    resets them on the levels above the highest with a p. Critical words
    are named by themselves, not by their index j in b (the paper's b_j),
    so that the names survive a SHIFT (:meth:`rebased`).

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

    Reuse (§7: "all but a constant number of values ... can be reused"):
    score(i, j, q) reads the stack a_0..a_j and p_ge (through tau) at
    positions i..j, which a_0..a_j and p_ge[j] determine; score'(i, j)
    likewise reads a_0..a_i and p_ge[i]. So the items are kept per level
    (j for score, i for score'), keyed by their arguments and p_ge at their
    level, and a new stack keeps the levels of the prefix it shares with the
    last one (:meth:`_sync`). An item in state N needs no p_ge in its key:
    with q = N neither tau (N again) nor the lost child reads top or p_ge,
    and option 3 needs p(j) defined, when p_ge[j] = p(j) is a_j's own; by
    induction over the items it reads (N ones, and score' ones at levels
    where p is defined, below the words that set p_ge[j] otherwise), it
    depends on a_0..a_j alone. So pushing a word with a critical head, which
    gives the levels above the last defined one a new p_ge, leaves their N
    items valid (an exploring walk computed a sixth more items without
    this). The successors LA and RA of a configuration,
    and the successors of the next ones with the same buffer, share most of
    them. A strategy's bans differ per successor, so a table made with bans
    serves one stack only (the oracle builds a new one each time). The
    table of the buffer after a SHIFT starts from the levels of the one
    before that the shifted word leaves unchanged (:meth:`rebased`), or is that
    very table when the shift changes no critical word
    (``NederhofOracle._kept_table``).
    """

    __slots__ = ("side", "base", "gold", "left_children", "linear", "budget", "no_left", "no_right", "span", "words",
                 "position", "level", "component_first", "linked", "memo", "p_ge", "top", "defined", "unchecked")

    def __init__(self, side: _BufferSide, gold: Sequence[int], left_children: Sequence[Sequence[int]], linear: bool,
                 no_left: frozenset[int] = _NONE, no_right: frozenset[int] = _NONE, budget: Any = UNLIMITED) -> None:
        self.side, self.gold, self.left_children, self.linear, self.budget = side, gold, left_children, linear, budget
        self.base = side.inner - side.size  # what every total adds to the top item (§5: M, less the critical words)
        self.no_left, self.no_right = no_left, no_right
        self.span = len(gold)  # keys: p_ge is a critical word 1..n, or 0
        self.words: list[int] = []
        # word -> its level, _ABSENT when off the stack; one slot more than words, never set, for the head -1 of
        # the root (so that position[gold[word]] needs no test)
        self.position: list[int] = [_ABSENT] * (len(gold) + 1)
        # per level i: (a_i, head, p, c, children, ban_left, ban_right, first_below, kappa), see the class doc
        self.level: list[tuple[int, int, int | None, int | None, int, bool, bool, int, int]] = []
        self.component_first: list[int] = [_ABSENT] * len(gold)  # component root -> its first level, or _ABSENT
        self.linked: list[int] = []  # the components linked to the stack, by their first level (ascending)
        # per level: score(i, j, q) at j, key i for q = N (no p_ge: see the class doc; no arithmetic, and a small
        # int, for most items), else (i * 2 + q) * span + p_ge[j] (>= span > i); score'(i, j) at i, key
        # -1 - j * span - p_ge[i]
        self.memo: list[dict[int, int]] = []
        # p_ge and its component per level, 0 for none (the root is never critical); the levels whose p is defined
        self.p_ge: list[int] = []
        self.top: list[int] = []
        self.defined: list[int] = []
        self.unchecked = _CHECK_EVERY  # items to start before the next budget check

    @classmethod
    def rebased(cls, before: "_Table5", shifted: int, side: _BufferSide) -> "_Table5":
        """The table of the buffer after SHIFT from ``before``'s buffer, whose first word is ``shifted``.

        Keeps ``before``'s levels below the lowest stack word that is the gold
        head or a gold child of ``shifted`` (their items shared, not copied).
        Why they hold for the new buffer (projective gold; Nederhof 2019 §5):
        the shift makes ``shifted`` non-critical and, as critical words, adds
        its right children (new components, attached to ``shifted`` alone)
        and its ancestors whose subtree starts at it (which join an existing
        component below its root, and are no stack word's head). So a stack
        word not linked to ``shifted`` keeps its critical head, its critical
        children and their components, and an item of the levels below every
        linked word reads only those (and ``shifted`` only under a key that
        names it, which the new buffer never asks).
        """
        table = cls.__new__(cls)
        table.side, table.gold, table.left_children = side, before.gold, before.left_children
        table.base = side.inner - side.size
        table.linear, table.budget, table.no_left, table.no_right = before.linear, before.budget, _NONE, _NONE
        table.span, table.unchecked = before.span, _CHECK_EVERY
        position = before.position
        keep = position[before.gold[shifted]]  # the lowest level linked to shifted (_ABSENT: off the stack)
        for child in before.left_children[shifted]:
            if position[child] < keep:
                keep = position[child]
        if keep > len(before.words):
            keep = len(before.words)
        table.words, table.level, table.memo = before.words[:], before.level[:], before.memo[:]
        table.p_ge, table.top, table.defined = before.p_ge[:], before.top[:], before.defined[:]
        table.position, table.component_first, table.linked = position[:], before.component_first[:], before.linked[:]
        table._truncate(keep)
        return table

    def total(self, stack: list[int]) -> int:
        """σ of the stack ``stack`` with this side's buffer, less the non-critical buffer words (§5's M added,
        the buffer's critical words taken away: what the caller adds is the buffer's length)."""
        if self.words != stack:
            self._sync(stack)
        k = len(stack) - 1
        score = 0
        if k:  # score(k-1, k, N), looked up here first (an item of the last stack, usually)
            score = self.memo[k].get(k - 1)
            if score is None:
                try:  # _evaluate's first attempt, without its frame (it restarts from the memo filled so far)
                    score = self._score(k - 1, k, _N, 0)
                except _TooDeep:
                    score = self._evaluate(False, k - 1, k, _N)
        return self.base + score + self.level[k][4]

    def reduced_total(self, stack: list[int], left: bool) -> int:
        """:meth:`total` of the stack after LA (``left``) or RA on ``stack``, from the levels of ``stack`` itself.

        Nederhof (2019) §7 (reuse): the item score(i, j, q) is the score of the
        stack a_0..a_i a_j; what it reads of the levels (their words, p,
        kappa and links at most i, a_j's own) is the same whether a_j sits
        at level j or at level i + 1, but for p_ge and top, which look up
        the stack. So the top item after RA, score(k-2, k-1, N), and after
        LA, score(k-2, k, N), are items of the levels of ``stack`` once the
        levels just above the last defined one below the reduced word take
        the p_ge (and top) of the reduced stack: none after RA, s0's after
        LA. They take it for this evaluation only (the items it memoises are
        keyed by p_ge as always), and the levels are kept for the next
        configuration, which usually extends them. The top item is in state
        N, so a value already kept for it holds whatever p_ge (class doc).
        Checked against fresh tables of the reduced stacks, exhaustive search
        and the cubic algorithm (tests/test_oracles_nederhof.py).
        """
        if self.words != stack:
            self._sync(stack)
        k = len(stack) - 1
        j = k if left else k - 1  # the top after the action
        score = 0
        if k > 1:  # score(k-2, j, N)
            score = self.memo[j].get(k - 2)
            if score is None:
                last = k - 2 if left else k - 1  # the highest level below the reduced word
                if self.level[last][2] is not None or self.p_ge[last] == (self.p_ge[k] if left else 0):
                    try:  # no level's p_ge changes; _evaluate's first attempt, as in total
                        score = self._score(k - 2, j, _N, 0)
                    except _TooDeep:
                        score = self._evaluate(False, k - 2, j, _N)
                else:
                    score = self._reduced_item(left)
        return self.base + score + self.level[j][4]

    def _reduced_item(self, left: bool) -> int:
        """:meth:`reduced_total`'s top item evaluated with the p_ge and top of the reduced stack (see there), when
        they differ from those of ``stack``: the level below the reduced word has no p (so its p_ge looks up) and its
        p_ge changes (one evaluation in thirteen along an exploring walk)."""
        k = len(self.words) - 1
        j, last = (k, k - 2) if left else (k - 1, k - 1)  # the top after the action; the highest level below it
        p_ge, top, defined = self.p_ge, self.top, self.defined
        value = p_ge[k] if left else 0
        at = len(defined) - 1
        while at >= 0 and defined[at] > last:
            at -= 1
        start = defined[at] + 1 if at >= 0 else 0  # the levels start..last look up past the reduced word
        saved_p_ge, saved_top = p_ge[start : last + 1], top[start : last + 1]
        p_ge[start : last + 1] = [value] * (last + 1 - start)
        top[start : last + 1] = [top[k] if left else 0] * (last + 1 - start)
        try:
            return self._evaluate(False, k - 2, j, _N)
        finally:
            p_ge[start : last + 1], top[start : last + 1] = saved_p_ge, saved_top

    def _sync(self, stack: list[int]) -> None:
        """Keep the levels of the longest prefix ``stack`` shares with the last stack; rebuild the others."""
        words = self.words
        height, kept = len(stack), len(words)
        keep = height - 1  # the usual cases of a walk: a word more, or the top removed or replaced
        if keep >= kept:  # a word more, or a table just started from the buffer before (rebased): a prefix
            keep = kept if stack[:kept] == words else _common_prefix(words, stack)
        elif words[:keep] != stack[:keep]:
            keep = _common_prefix(words, stack)
        elif words[keep] == stack[keep]:
            keep += 1
        if kept > keep:
            self._truncate(keep)
        if keep == height - 1:  # one word (no slice to loop over)
            self._push(stack[-1])
        else:
            for word in stack[keep:]:
                self._push(word)

    def _push(self, word: int) -> None:
        """A level for ``word`` on top of the stack."""
        words, position, side = self.words, self.position, self.side
        at = len(words)
        root = side.root
        head = self.gold[word]
        p = head if head in root else None
        kids = side.attached.get(word, _NO_CHILDREN)
        ban_right = word in self.no_right
        first = at
        if self.linear:
            first = position[head]
            for child in self.left_children[word]:
                if position[child] < first:
                    first = position[child]
            if first > at:
                first = at
            component_first, linked = self.component_first, self.linked
            if p is not None and component_first[root[p]] == _ABSENT:
                component_first[root[p]] = at
                linked.append(root[p])
            for component in kids:  # kids: component roots
                if component_first[component] == _ABSENT:
                    component_first[component] = at
                    linked.append(component)
        self.level.append((word, head, p, kids[0] if kids else None, 0 if ban_right else len(kids),
                           word in self.no_left, ban_right, first, first if first < at else at - 1))
        words.append(word)
        position[word] = at
        self.memo.append({})
        if p is None:
            self.p_ge.append(0)
            self.top.append(0)
        else:  # p_ge of the levels above the last defined one (none so far) and of this one becomes p (_set_run)
            defined = self.defined
            start = defined[-1] + 1 if defined else 0
            self.p_ge[start:] = [p] * (at + 1 - start)
            self.top[start:] = [root[p]] * (at + 1 - start)
            defined.append(at)

    def _truncate(self, keep: int) -> None:
        """Drop the levels from ``keep`` up (a walk drops one to three at a time: one slice each, not a pop each;
        :meth:`rebased` drops those a shift invalidates)."""
        position, component_first, linked = self.position, self.component_first, self.linked
        for word in self.words[keep:]:
            position[word] = _ABSENT
        while linked and component_first[linked[-1]] >= keep:
            component_first[linked.pop()] = _ABSENT
        del self.words[keep:], self.level[keep:], self.memo[keep:], self.p_ge[keep:], self.top[keep:]
        defined = self.defined
        if defined and defined[-1] >= keep:
            while defined and defined[-1] >= keep:
                defined.pop()
            self._set_run(0, 0, keep)

    def _set_run(self, p_ge: int, top: int, end: int) -> None:
        """Make p_ge and top of the levels from just above the last defined level to ``end`` (exclusive) ``p_ge``
        and ``top`` (their p is None), and of none above (``end`` is the stack's height, or one more)."""
        start = self.defined[-1] + 1 if self.defined else 0
        self.p_ge[start:] = [p_ge] * (end - start)
        self.top[start:] = [top] * (end - start)

    def _evaluate(self, prime: bool, i: int, j: int, q: int) -> int:
        """score(i, j, q) (or score'(i, j) when ``prime``), not in the memo yet, Python's stack bounded however deep the
        stack is.

        The recursions of Table 5 go as deep as the stack is long (thousands
        of words). :meth:`_score` and :meth:`_score_prime` recurse plainly
        (a generator per item, resumed by a trampoline, took twice as long),
        but an item more than ``_MAX_DEPTH`` calls below the one evaluated
        here raises :class:`_TooDeep` instead of recursing: it is evaluated
        first, from here, and the interrupted item is started again, now
        finding it in the memo. Each restart redoes at most ``_MAX_DEPTH``
        items, so a deep stack costs a constant factor more, not a deeper
        Python stack. The budget is checked once per ``_CHECK_EVERY`` items
        (the quadratic algorithm computes O(k m) of them per configuration).
        """
        try:
            return self._score_prime(i, j, 0) if prime else self._score(i, j, q, 0)
        except _TooDeep as deep:
            pending = [(prime, i, j, q), deep.item]
        value = 0
        while pending:
            prime, i, j, q = pending[-1]
            try:
                value = self._score_prime(i, j, 0) if prime else self._score(i, j, q, 0)
            except _TooDeep as deep:
                pending.append(deep.item)
                continue
            pending.pop()
        return value

    def _score(self, i: int, j: int, q: int, depth: int) -> int:
        """Table 5's score(i, j, q), for i >= 0 (the callers skip score(-1, ...) = 0: a fifth of all calls), not in the
        memo (the callers look it up first, with the key this stores it under).

        ``depth``: calls between this one and :meth:`_evaluate`'s (see there).
        """
        if depth > _MAX_DEPTH:
            raise _TooDeep((False, i, j, q))
        self.unchecked -= 1
        if not self.unchecked:
            self.unchecked = _CHECK_EVERY
            self.budget.check()
        depth += 1
        span, p_ge = self.span, self.p_ge
        memo = self.memo[j]
        best = _NO
        word_i, head_i, _, c_i, children_i, _, ban_right_i, _, kappa_i = self.level[i]
        word_j, head_j, p_j, _, _, ban_left_j, _, first_below_j, _ = self.level[j]
        if not ban_right_i:  # w(i, j), a_j into a_i
            lost, tau = False, _N  # in state N no child is lost and tau(i, j, N) = N
            if q != _N:
                top = self.top
                lost = c_i is not None and c_i == top[j]
                if top[i] == top[j]:  # tau(i, j, q)
                    tau = _F if p_ge[i] != p_ge[j] else q
            inner = 0
            if i:
                inner = self.memo[i].get(i - 1 if tau == _N else ((i - 1) * 2 + tau) * span + p_ge[i])
                if inner is None:
                    inner = self._score(i - 1, i, tau, depth)
            best = children_i - lost + (head_j == word_i) + inner
        if i > 0 and not ban_left_j:  # w(j, i), a_i into a_j
            gold = head_i == word_j
            below = None
            if gold or not self.linear:
                below = i - 1
            elif first_below_j < i:
                below = kappa_i
            if below is not None:
                other = memo.get(below if q == _N else (below * 2 + q) * span + p_ge[j])
                if other is None:
                    other = self._score(below, j, q, depth)
                other += gold
                if other > best:
                    best = other
        if p_j is not None and q != _C:
            other = self.memo[i].get(-1 - p_j * span - p_ge[i])
            if other is None:
                other = self._score_prime(i, p_j, depth)
            other += q == _N
            if other > best:
                best = other
        memo[i if q == _N else (i * 2 + q) * span + p_ge[j]] = best
        return best

    def _score_prime(self, i: int, j: int, depth: int) -> int:
        """Table 5's score'(i, j), for i >= 0, not in the memo (``depth`` and the memo as in :meth:`_score`)."""
        if depth > _MAX_DEPTH:
            raise _TooDeep((True, i, j, _N))
        self.unchecked -= 1
        if not self.unchecked:
            self.unchecked = _CHECK_EVERY
            self.budget.check()
        depth += 1
        span, p_ge = self.span, self.p_ge
        memo = self.memo[i]
        best = _NO
        root = self.side.root
        _, _, p_i, _, children_i, _, _, _, kappa_i = self.level[i]
        if i > 0:
            below, target, arc = None, j, 0
            if p_i is not None and root[p_i] == root[j]:  # a_i into its head, in b_j's component
                below, target, arc = i - 1, p_i, 1
            elif not self.linear:
                below = i - 1
            elif self.component_first[root[j]] < i:
                below = kappa_i
            if below is not None:
                best = self.memo[below].get(-1 - target * span - p_ge[below])
                if best is None:
                    best = self._score_prime(below, target, depth)
                best += arc
        if self.top[i] != root[j]:  # tau'(i, j)
            tau = _N
        else:
            tau = _F if p_ge[i] != j else _C
        inner = 0
        if i:
            inner = memo.get(i - 1 if tau == _N else ((i - 1) * 2 + tau) * span + p_ge[i])
            if inner is None:
                inner = self._score(i - 1, i, tau, depth)
        other = children_i + inner
        if other > best:
            best = other
        memo[-1 - j * span - p_ge[i]] = best
        return best


def _transition(last: Configuration, config: Configuration, n: int) -> Action | None:
    """The arc-standard action that leads from ``last`` to ``config`` with some head, or None: O(1) Python work.

    The tuples are compared whole, in C. When ``last`` passed
    ``check_arrangement`` and ``config`` passes ``check_configuration``, a
    SHIFT, or the removal of s0 or s1 from the stack with a head in 0..n and
    nothing else changed, keeps every property ``check_arrangement`` checks,
    so the caller need not run it (O(n) Python work).
    """
    stack, buffer, heads, _ = config  # unpacked at once: cheaper than a named tuple's attributes one by one
    old, old_buffer, before, _ = last
    if len(stack) == len(old) + 1:
        if old_buffer and stack[-1] == old_buffer[0] and stack[:-1] == old and buffer == old_buffer[1:] \
                and (heads is before or heads == before):
            return "SH"
        return None
    if len(stack) != len(old) - 1 or (buffer is not old_buffer and buffer != old_buffer):
        return None
    if stack == old[:-1]:
        action, word = "RA", old[-1]
    elif stack[:-1] == old[:-2] and stack[-1] == old[-1]:
        action, word = "LA", old[-2]
    else:
        return None
    if 0 <= heads[word] <= n and heads[:word] == before[:word] and heads[word + 1 :] == before[word + 1 :]:
        return action
    return None


def _common_prefix(a: list[int], b: list[int]) -> int:
    """The length of the longest common prefix of ``a`` and ``b``.

    Slices are compared in C: first the longest candidates (successive
    stacks usually differ in their top one or two words), then by bisection.
    """
    high = len(a) if len(a) < len(b) else len(b)
    for length in range(high, high - 3 if high > 2 else -1, -1):
        if a[:length] == b[:length]:
            return length
    low, high = 0, high - 3  # a[:low] == b[:low]; the prefix is at most high long
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class _TooDeep(Exception):
    """An item deeper than ``_MAX_DEPTH`` calls below the one being evaluated (:meth:`_Table5._evaluate`)."""

    def __init__(self, item: tuple[bool, int, int, int]) -> None:
        super().__init__(item)
        self.item = item
