"""Published dynamic oracles: arc-hybrid, arc-eager and non-monotonic arc-eager.

All three are *arc-decomposable* oracles (Goldberg & Nivre 2012, 2013): the
cost of an action is the number of gold arcs that are reachable before it
and no longer reachable after it. For projective gold trees and the two
monotonic systems this count is exactly the loss difference of
Gómez-Rodríguez, Sartorio & Satta (2014) §2.2 (Goldberg & Nivre 2013, §5); for non-projective gold trees it
is not, and for the non-monotonic system (Honnibal, Goldberg & Johnson 2013,
§5.2) the published Δ adjustments are not exact either: the measured rates
are in each class's docstring and pinned in tests/test_oracles_dynamic.py.

Speed: an oracle object serves one sentence and keeps counters (which words
are on the stack, how many gold dependents of each word are still in the
buffer or are on the stack) so that every cost is a constant number of
lookups. A walker that calls :meth:`costs` on successive configurations
moves the counters by one action (recognised by comparing the two
configurations); any other configuration rebuilds them in O(n).

Normalisation: some legal action always has cost 0 under the definition
(the loss of a configuration is the loss of one of its successors). With a
non-projective gold tree, however, every action may foreclose some
individually reachable arc, and then all published counts are positive;
the costs returned are the counts minus their minimum, so that the optimal
actions are the cheapest ones (this changes nothing for projective gold
trees, and lowers the disagreement with the exact costs for non-projective
ones).

Configurations must be reachable from the system's initial configuration:
the buffer is then always a suffix of ``1..n`` (followed by the root 0 when
the root is last), which is how buffer membership is read off its length.
A configuration that cannot be (another length, a head on the root, the
root in the other position; ``treetool.oracles.layout``) raises
``ConfigurationMismatch``, a ``ValueError``.

Both dict (:meth:`costs`) and vector (:meth:`cost_vector`,
``treetool.oracles.vocabulary``) are read off one list of entries
``(key, head, dependent, cost)`` per legal action, so the formulas are
written once.
"""

from __future__ import annotations

import random
from typing import Callable, Iterable, Iterator, Sequence

from .annotate import walk
from .configuration import Action, Configuration, DynamicOracle, gold_tree, with_label
from .errors import ConfigurationMismatch
from .layout import check_arrangement, check_configuration, check_root
from .system import TransitionSystem
from .vocabulary import ActionVocabulary, CostVectors, Entry

__all__ = [
    "ArcHybridOracle", "ArcEagerOracle", "NonMonotonicArcEagerOracle", "exploring_walk", "disagreement",
]


class _CountingOracle(CostVectors):
    """Counters over the gold tree for one sentence, kept in step with the configurations seen.

    ``on_stack[w]``; ``in_buffer_deps[h]``: gold dependents of h in the buffer;
    ``stack_deps[h]``: gold dependents of h on the stack; ``headless_deps[h]``:
    those among them without a head yet. Subclasses define ``_costs``, which
    returns one :data:`~treetool.oracles.vocabulary.Entry` per legal action
    (legal order): the dict of :meth:`costs` and the vector of
    :meth:`cost_vector` are both read off it.
    ``root`` is where the system keeps the root 0 (``treetool.oracles.layout``).
    """

    def __init__(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                 root: str = "last") -> None:
        check_root(root)
        self.gold, self.labels = gold_tree(gold_heads, gold_labels)
        self.n = n = len(self.gold) - 1
        self.root_last = root == "last"
        labels = self.labels
        self.la_keys = ["LA"] * (n + 1) if labels is None else [f"LA({label})" for label in labels]
        self.ra_keys = ["RA"] * (n + 1) if labels is None else [f"RA({label})" for label in labels]
        self.re_keys = ["RE"] * (n + 1) if labels is None else [f"RE({label})" for label in labels]
        self._last: Configuration | None = None  # the configuration the counters describe
        self._answer: tuple[Configuration | None, tuple] = (None, ())  # the last costs() call
        self.on_stack = [False] * (n + 1)
        self.in_buffer_deps = [0] * (n + 1)
        self.stack_deps = [0] * (n + 1)
        self.headless_deps = [0] * (n + 1)

    # ------------------------------------------------------------ bookkeeping
    def _rebuild(self, config: Configuration) -> None:
        """All counters from scratch (O(n)), after the O(n) checks of ``config``."""
        check_arrangement(config, self.n, self.root_last)
        n, gold, heads = self.n, self.gold, config.heads
        self.on_stack = on_stack = [False] * (n + 1)
        self.in_buffer_deps = in_buffer = [0] * (n + 1)
        self.stack_deps = stack_deps = [0] * (n + 1)
        self.headless_deps = headless = [0] * (n + 1)
        for w in config.buffer:
            if w:
                in_buffer[gold[w]] += 1
        for w in config.stack:
            on_stack[w] = True
            if w:
                stack_deps[gold[w]] += 1
                headless[gold[w]] += heads[w] == -1

    def _advance(self, config: Configuration) -> bool:
        """Move the counters from the last configuration to ``config`` if one push or pop leads there.

        The comparisons of whole tuples run in C; the Python work is constant.
        """
        last = self._last
        if last is None:
            return False
        stack, old = config.stack, last.stack
        grown = len(stack) - len(old)
        shrunk = len(last.buffer) - len(config.buffer)  # reachable: equal lengths, equal buffers
        if grown == 1 and shrunk == 1:
            w = stack[-1]
            if w != last.buffer[0] or stack[:-1] != old:
                return False
        elif grown == -1 and not shrunk:
            w = old[-1]
            if old[:-1] != stack:
                return False
        else:
            return False
        heads, old_heads = config.heads, last.heads
        if heads is old_heads:  # SH and RE pass the tuple on unchanged
            pass
        elif heads[w] == old_heads[w]:
            if heads != old_heads:
                return False
        elif heads[:w] != old_heads[:w] or heads[w + 1 :] != old_heads[w + 1 :]:
            return False
        if not w:
            self.on_stack[0] = grown == 1
            return True
        g = self.gold[w]
        if grown == 1:
            self.on_stack[w] = True
            self.in_buffer_deps[g] -= 1
            self.stack_deps[g] += 1
            if heads[w] == -1:
                self.headless_deps[g] += 1
        else:
            self.on_stack[w] = False
            self.stack_deps[g] -= 1
            if old_heads[w] == -1:
                self.headless_deps[g] -= 1
        return True

    def _entries_of(self, config: Configuration) -> list[Entry]:
        """The :data:`Entry` of every legal action, costs normalised (module doc); counters moved to ``config``.

        ``config`` is checked first (``treetool.oracles.layout``): O(1) on every
        new configuration, O(n) when the counters are rebuilt.
        """
        if config is not self._last:
            check_configuration(config, self.n, self.root_last)
            if self.labels is not None and config.labels is None:
                raise ConfigurationMismatch("gold labels were given but the configuration is unlabelled")
            if not self._advance(config):
                self._rebuild(config)
            self._last = config
        entries = self._costs(config)
        for entry in entries:
            if not entry[3]:
                return entries
        if entries:  # no cost 0: only with a non-projective gold tree (module doc)
            cheapest = min(entry[3] for entry in entries)
            entries = [(key, head, dep, cost - cheapest) for key, head, dep, cost in entries]
        return entries

    def costs(self, config: Configuration) -> dict[Action, int]:
        """Cost of every legal action (see the class docstring for exactness); a new dict each call."""
        costs = {key: cost for key, _, _, cost in self._entries_of(config)}
        self._answer = (config, self._best(config, costs))  # for optimal(config): a walk asks for both
        return costs

    def _entries(self, config: Configuration, actions: ActionVocabulary) -> list[Entry]:
        """The entries of :meth:`cost_vector`, straight from the counters (no dict, no key)."""
        return self._entries_of(config)

    def optimal(self, config: Configuration) -> list[Action]:
        """The optimal actions, in ``legal()`` order (reusing the answer for ``config`` if just computed)."""
        answered, best = self._answer
        if answered is not config:
            self.costs(config)
            best = self._answer[1]
        return list(best)

    def _best(self, config: Configuration, costs: dict[Action, int]) -> list[Action]:
        """What :meth:`optimal` answers for ``config``: the actions of cost 0."""
        return [action for action, cost in costs.items() if cost == 0]

    def _costs(self, config: Configuration) -> list[Entry]:
        raise NotImplementedError


class ArcHybridOracle(_CountingOracle):
    """Dynamic oracle of arc-hybrid (Goldberg & Nivre 2013, §4.1; the loss of Gómez-Rodríguez et al. 2014, §2.2).

    A gold arc ``h -> d`` is reachable while d has no head and either h is in
    the buffer (d in the stack or buffer), or d is in the buffer and h on the
    stack, or d is on the stack directly above h. Costs count the reachable
    gold arcs an action forecloses:

    * ``SH``: b0's gold head on the stack below s0; gold dependents of b0 on the stack.
    * ``LA`` (b0 -> s0): s0's gold head if it is s1 or in the buffer after b0; s0's gold dependents in the buffer.
    * ``RA`` (s1 -> s0): s0's gold head if it is in the buffer; s0's gold dependents in the buffer.

    ``root="first"`` (the default: stack ``[0]``, Kuhlmann et al. 2011) or
    ``"last"`` (buffer ``1..n, 0``, the root shifted only onto an empty
    stack): the root counts as in the buffer until it is shifted, so the
    same counts hold under both (checked against exhaustive search).

    Exact for projective gold trees: identical costs to exhaustive search on
    every reachable configuration of every projective tree of up to 6 words
    (benchmarks/dynamic_oracles_exhaustive.py), and along exploring walks
    over random and real projective trees of up to 9 words, labelled too.
    Non-projective gold trees: the (normalised) costs differ from the exact
    ones on 14.5% of the configurations met along exploring walks (error
    rate 0.1) over random non-projective trees of 5-9 words, and on 8.4% over
    the non-projective UD dev sentences of 5-9 words
    (benchmarks/dynamic_oracle_agreement.py; pinned in
    tests/test_oracles_dynamic.py).
    """

    def __init__(self, gold_heads: Sequence[int], gold_labels: Sequence[str] | None = None, *,
                 root: str = "first") -> None:
        super().__init__(gold_heads, gold_labels, root=root)

    def _costs(self, config: Configuration) -> list[Entry]:
        gold, stack, buffer = self.gold, config.stack, config.buffer
        first = self.n + 1 - len(buffer) + (self.root_last and bool(buffer))  # the buffer is first..n (, 0)
        root = 0 if self.root_last and buffer else -2  # the root, while it is in the buffer
        out: list[Entry] = []
        s0 = stack[-1] if stack else -1
        if buffer:
            b0 = buffer[0]
            if b0:
                g = gold[b0]
                out.append(("SH", -1, -1, (g != s0 and self.on_stack[g]) + self.stack_deps[b0]))
            elif not stack:
                out.append(("SH", -1, -1, 0))  # the root, last: every word has left the stack
            if s0 > 0:
                g = gold[s0]
                lost_head = g != b0 and ((len(stack) >= 2 and g == stack[-2]) or g >= first or g == root)
                out.append((self.la_keys[s0], b0, s0, lost_head + self.in_buffer_deps[s0]))
        if len(stack) >= 2:
            s1, g = stack[-2], gold[s0]
            lost_head = g != s1 and (g >= first or g == root)
            out.append((self.ra_keys[s0], s1, s0, lost_head + self.in_buffer_deps[s0]))
        return out


class ArcEagerOracle(_CountingOracle):
    """Dynamic oracle of arc-eager (Goldberg & Nivre 2012, §3; 2013, §4.2), the root last or first.

    Arc-eager as in Honnibal et al. (2013) §2 (``root="last"``, the default)
    or Nivre (2008) and Goldberg & Nivre (2012) §3 (``root="first"``; see
    ``treetool.oracles.arc_eager.ArcEager``).
    A gold arc ``h -> d`` is reachable while d has no head and either both are
    in the buffer (with the root last, 0 counts as in the buffer until it is
    shifted; with the root first, it is on the stack),
    or one is in the buffer and the other on the stack (Honnibal, Goldberg & Johnson 2013, §5.1,
    conditions (a)-(c), with its footnote 4: a stack word loses only
    *headless* stack dependents when it is pushed). Costs count the reachable
    gold arcs an action forecloses:

    * ``SH``: b0's gold head on the stack; headless gold dependents of b0 on the stack.
    * ``LA`` (b0 -> s0): s0's gold head if it is in the buffer after b0; s0's gold dependents in the buffer.
    * ``RA`` (s0 -> b0): b0's gold head if it is on the stack below s0 or in the buffer;
      headless gold dependents of b0 on the stack.
    * ``RE``: s0's gold dependents in the buffer.

    Labels never change a cost: every reachability condition concerns
    headless words, and each arc action is keyed with its gold label.
    Exact for projective gold trees, under both root positions: identical
    costs to exhaustive search on
    every reachable configuration of every projective tree of up to 6 words
    (benchmarks/dynamic_oracles_exhaustive.py), and along exploring walks
    over random and real projective trees of up to 9 words, labelled too.
    Non-projective gold trees (root last): the (normalised) costs differ from the exact
    ones on 23.4% of the configurations met along exploring walks (error
    rate 0.1) over random non-projective trees of 5-9 words, and on 10.1% over
    the non-projective UD dev sentences of 5-9 words
    (benchmarks/dynamic_oracle_agreement.py; pinned in
    tests/test_oracles_dynamic.py).
    """

    def _monotonic_costs(self, config: Configuration) -> list[Entry]:
        """The Goldberg & Nivre costs of the actions legal in monotonic arc-eager (this class's costs)."""
        stack, buffer = config.stack, config.buffer
        if not buffer:
            return []
        if not stack:
            return [("SH", -1, -1, 0)]  # root last: nothing on the stack to lose
        gold, on_stack = self.gold, self.on_stack
        first = self.n + 1 - len(buffer) + self.root_last  # the buffer is first..n (, 0)
        root = 0 if self.root_last else -2  # the root, while it is in the buffer
        s0, b0 = stack[-1], buffer[0]
        headless = config.heads[s0] == -1
        out: list[Entry] = []
        if b0:
            out.append(("SH", -1, -1, on_stack[gold[b0]] + self.headless_deps[b0]))
        if headless and s0:
            g = gold[s0]
            out.append((self.la_keys[s0], b0, s0, (g != b0 and (g >= first or g == root)) + self.in_buffer_deps[s0]))
        if b0:
            g = gold[b0]
            lost_head = g != s0 and (on_stack[g] or g >= first or g == root)
            out.append((self.ra_keys[b0], s0, b0, lost_head + self.headless_deps[b0]))
        if not headless:
            out.append(("RE", -1, -1, self.in_buffer_deps[s0]))
        return out

    _costs = _monotonic_costs


class NonMonotonicArcEagerOracle(ArcEagerOracle):
    """The published oracles of non-monotonic arc-eager: Honnibal, Goldberg & Johnson (2013), §5.2 and §6.

    ``C_NML = C + Δ_NML``, ``C_NMD = C + Δ_NMD``, ``C_NML+D = C + Δ_NML + Δ_NMD``
    where C is the monotonic arc-eager oracle (:class:`ArcEagerOracle`) and,
    for words w, gold heads g(w), B the buffer, S the stack:

    * Δ_NML(RA) = -[g(b0) ∈ B] + #{w ∈ S headed, g(w) = b0}
    * Δ_NML(RE) = +[g(s0) ∈ B]
    * Δ_NML(LA) = +[s0 has its gold arc] + [s0 headed wrongly, g(s0) ∈ B, g(s0) ≠ b0]
    * Δ_NML(SH) = +#{w ∈ S headed, g(w) = b0}
    * Δ_NMD(SH) = -[g(b0) = s0];  Δ_NMD(LA) = +[s0 headless, g(s0) = s1];  Δ_NMD(RE) = Δ_NMD(RA) = 0

    Reconstruction (the text is clear in prose but says nothing of how C
    treats actions the monotonic system forbids): C is evaluated with the
    monotonic reachability conditions, so C(LA) counts s0's own head arc only
    when s0 is headless (a headed s0 is the Δ_NML(LA) case) and C(RE) is
    s0's gold dependents in the buffer whether or not the reduce attaches s0.
    With gold labels, "has its gold arc" means head and label; the attaching
    reduce is keyed ``RE(label)`` with s0's gold label (footnote 5's label
    cost is then 0). The paper puts the root last; with ``root="first"``
    the root is never in B and the same formulas hold (checked against
    exhaustive search).

    Exactness, measured against exhaustive search (benchmarks/dynamic_oracles_exhaustive.py:
    every reachable configuration of every tree of up to 6 words;
    benchmarks/dynamic_oracle_agreement.py: exploring walks, error rate 0.1,
    trees of 5-9 words; both rates pinned in tests/test_oracles_dynamic.py):

    * Projective gold, L and LD: exact (no difference found).
    * Projective gold, D as published: not exact in exactly one case, the
      attaching ``RE`` of a headless s0 whose gold head is still in the
      buffer (the root included). Δ_NMD(RE) = 0 leaves C(RE) = s0's buffer
      dependents, but the reduce makes s1 the head of s0, foreclosing its
      gold arc: the published cost is 1 too low there. 7.7% of all
      (configuration, tree) pairs at 6 words; 34.6% of the configurations
      along exploring walks. ``published=False`` adds that 1 (the Δ_NML(RE)
      term, which LD already has), and is then exact on projective gold.
    * Non-projective gold (normalised costs, module docstring): along walks
      over random trees / non-projective UD dev sentences, L differs on
      20.3% / 10.5%, D on 40.0% / 26.7%, D corrected on 21.9% / 9.8%, LD on
      19.7% / 10.0% of the configurations.

    ``prefer_monotonic`` (§6): :meth:`optimal` returns, among the actions of
    non-monotonic cost 0, those that monotonic arc-eager allows and its oracle
    C costs 0, when there are any (all cost-0 actions otherwise); ``costs``
    are unchanged. ``optimal`` is then a subset of the cost-0 actions.
    """

    def __init__(
        self,
        gold_heads: Sequence[int],
        gold_labels: Sequence[str] | None = None,
        variant: str = "LD",
        prefer_monotonic: bool = False,
        published: bool = True,
        *,
        root: str = "last",
    ) -> None:
        super().__init__(gold_heads, gold_labels, root=root)
        self.nm_left = "L" in variant
        self.nm_reduce = "D" in variant
        self.prefer_monotonic = prefer_monotonic
        self.reduce_loses_buffer_head = self.nm_left or not published  # Δ_NML(RE), or D's correction

    def _costs(self, config: Configuration) -> list[Entry]:
        stack, buffer, heads = config.stack, config.buffer, config.heads
        if not buffer and self.nm_reduce and len(stack) >= 2:  # root first, D: reduce to [0], the only action
            s0 = stack[-1]
            return [("RE", -1, -1, 0) if heads[s0] != -1 else (self.re_keys[s0], stack[-2], s0, 0)]
        if not stack or not buffer:
            return self._monotonic_costs(config)
        gold, on_stack, nm_left = self.gold, self.on_stack, self.nm_left
        first = self.n + 1 - len(buffer) + self.root_last  # the buffer is first..n (, 0)
        root = 0 if self.root_last else -2  # the root, while it is in the buffer
        s0, b0 = stack[-1], buffer[0]
        headless = heads[s0] == -1
        out: list[Entry] = []
        if b0:  # SH: C + Δ_NML + Δ_NMD
            headed_deps = self.stack_deps[b0] - self.headless_deps[b0] if nm_left else 0
            g = gold[b0]
            out.append(("SH", -1, -1, on_stack[g] + self.headless_deps[b0] + headed_deps - (self.nm_reduce and g == s0)))
        g = gold[s0]
        in_buffer = g >= first or g == root
        if not s0:  # root first, alone on the stack: no LA
            pass
        elif headless:  # LA: C + Δ_NMD
            lost_head = g != b0 and in_buffer
            lost_reduce = self.nm_reduce and len(stack) >= 2 and g == stack[-2]
            out.append((self.la_keys[s0], b0, s0, lost_head + self.in_buffer_deps[s0] + lost_reduce))
        elif nm_left:  # LA on a headed s0: C + Δ_NML
            if g == heads[s0] and (self.labels is None or config.labels[s0] == self.labels[s0]):
                lost_head = True  # s0 loses its gold arc
            else:
                lost_head = g != b0 and in_buffer
            out.append((self.la_keys[s0], b0, s0, lost_head + self.in_buffer_deps[s0]))
        if b0:  # RA: C + Δ_NML
            g = gold[b0]
            b0_head_in_buffer = g >= first or g == root
            lost_head = g != s0 and (on_stack[g] or b0_head_in_buffer)
            cost = lost_head + self.headless_deps[b0]
            if nm_left:
                cost += self.stack_deps[b0] - self.headless_deps[b0] - b0_head_in_buffer
            out.append((self.ra_keys[b0], s0, b0, cost))
        if not headless:  # RE: C + Δ_NML
            out.append(("RE", -1, -1, self.in_buffer_deps[s0] + (nm_left and in_buffer)))
        elif self.nm_reduce and len(stack) >= 2:  # the attaching RE: C (+ the correction)
            cost = self.in_buffer_deps[s0] + (self.reduce_loses_buffer_head and in_buffer)
            out.append((self.re_keys[s0], stack[-2], s0, cost))
        return out

    def _best(self, config: Configuration, costs: dict[Action, int]) -> list[Action]:
        best = [action for action, cost in costs.items() if cost == 0]
        if not self.prefer_monotonic or len(best) < 2:
            return best
        mono = {key: cost for key, _, _, cost in self._monotonic_costs(config)}
        both = [action for action in best if mono.get(action) == 0]
        return both or best


def exploring_walk(
    system: TransitionSystem,
    oracle: DynamicOracle,
    n: int,
    rng: random.Random,
    error_rate: float = 0.1,
    labels: Sequence[str] = (),
) -> Iterator[tuple[Configuration, dict[Action, int]]]:
    """The configurations of one training walk with exploration, with ``oracle``'s costs at each.

    Goldberg & Nivre (2012) §4: with probability ``error_rate`` a random
    action of non-zero cost (when there is one), otherwise a random optimal
    one. ``labels`` (labelled walks): an erroneous arc action gets a random
    label from them, so wrong labels occur too (unlike
    :class:`treetool.oracles.annotate.Explore`, which makes attachment errors only).
    """

    def choose(config: Configuration, costs: dict[Action, int], best: list[Action]) -> Action:
        wrong = [a for a, c in costs.items() if c]
        if wrong and rng.random() < error_rate:
            action = rng.choice(wrong)
            return with_label(action, rng.choice(labels)) if labels and action.endswith(")") else action
        return rng.choice([a for a, c in costs.items() if c == 0])

    for step in walk(system, oracle, n, bool(labels), choose):
        yield Configuration(step.stack, step.buffer, step.heads, step.labels), step.costs


def disagreement(
    system: TransitionSystem,
    make_oracle: Callable[[Sequence[int], Sequence[str] | None], DynamicOracle],
    trees: Iterable[tuple[Sequence[int], Sequence[str] | None]],
    rng: random.Random,
    error_rate: float = 0.1,
) -> tuple[int, int]:
    """``(configurations where make_oracle's costs differ from the exact ones, configurations)``.

    Along one :func:`exploring_walk` per ``(gold_heads, gold_labels)`` tree,
    steered by the exact oracle (so the sample does not depend on the oracle
    measured). How the rates in this module's docstrings were measured.
    """
    differ = total = 0
    for heads, labels in trees:
        exact = system.exact_oracle(heads, labels, max_length=None)
        tested = make_oracle(heads, labels)
        alphabet = sorted(set(labels[1:])) if labels else ()
        for config, costs in exploring_walk(system, exact, len(heads) - 1, rng, error_rate, alphabet):
            total += 1
            differ += tested.costs(config) != costs
    return differ, total
