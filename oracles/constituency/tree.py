"""Gold constituency trees as the transition systems see them (Fernández-González & Gómez-Rodríguez 2018, §2).

Conventions (fixed for both systems):

* Words are numbered from 0; a span is end-exclusive: the word ``i`` is
  ``(i, i+1)`` and the tree of Figure 1 of Fernández-González & Gómez-Rodríguez (2018) has ``(S, 0, 6)``.
* Preterminals (POS tags) are not constituents: the systems shift words, and
  a gold tree records only phrasal nodes. The top bracket of the tree is the
  root constituent (the outer unlabelled bracket / ROOT wrapper must be
  removed first, as ``treetool filter --remove-wrapper`` does).
* A constituent is ``(label, start, end)``; a tree's constituents form a
  multiset (a unary ``(NP (NP ...))`` gives the same span twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple, Union

if TYPE_CHECKING:
    from nltk import Tree

__all__ = [
    "Node", "Span", "GoldTreeError", "MissingTagError", "SinglePreterminalError", "from_nltk", "gold_and_tokens",
    "tokens", "preorder", "postorder", "is_preterminal", "tree_from_spans", "bracketed", "labels_outside",
]

Span = tuple[str, int, int]
"""A labelled span ``(label, start, end)``, end exclusive."""


class GoldTreeError(ValueError):
    """A bracketed tree that is not a constituency tree over words (the message says why)."""


class MissingTagError(GoldTreeError):
    """A word with no POS tag above it: bad input for every command, where a tree without constituents (a single
    preterminal) is only one that no system derives."""


class SinglePreterminalError(GoldTreeError):
    """A tree that is one preterminal (``(NN x)``): well-formed, but it has no constituent, and both systems need
    one above the words to reach a final configuration, so no system derives it (every command leaves it out and
    counts it, as any tree a system cannot derive)."""

    @classmethod
    def of(cls, tree: Any) -> "SinglePreterminalError":
        """The error for the preterminal ``tree`` (the message as its only argument: it crosses ``--jobs``'
        processes pickled)."""
        return cls(f"the tree is a single preterminal ({tree.label()} {tree[0]}): it has no constituent")


class Node(NamedTuple):
    """A phrasal constituent of a gold tree; ``children`` are nodes or word indices (ints).

    A named tuple rather than a dataclass: trees are built at the speed of
    reading (tens of thousands per second).
    """

    label: str
    start: int
    end: int
    children: tuple[Union["Node", int], ...]

    @property
    def span(self) -> Span:
        return (self.label, self.start, self.end)


#: ``Node``'s fields from one tuple, without the generated ``__new__`` (a third of the time; the gold walk makes
#: a node for every constituent read).
_new_node = tuple.__new__


def require_node(gold: Any) -> Node:
    """``gold`` if it is a :class:`Node` tree; a ``TypeError`` saying to convert it otherwise.

    An ``nltk.Tree`` (or a bracket string) is iterable like a node's
    children, so an oracle walking it would return nonsense (in-order) or
    fail on a missing attribute (top-down); the systems' public entries call
    this once per tree.
    """
    if not isinstance(gold, Node):
        raise TypeError(f"the gold tree must be a Node tree: convert a {type(gold).__name__} with "
                        "treetool.oracles.constituency.from_nltk(tree) first")
    return gold


def is_preterminal(tree: Any) -> bool:
    """A bracket whose only child is a word (``(NN board)``)."""
    return len(tree) == 1 and isinstance(tree[0], str)


def tokens(tree: Any) -> tuple[list[str], list[str]]:
    """The POS tags and the words of any bracketed tree (``nltk.Tree`` or ``ptb.Bracket``)."""
    tags: list[str] = []
    words: list[str] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if is_preterminal(node):
            tags.append(node.label())
            words.append(node[0])
        else:
            todo.extend(c for c in reversed(node) if not isinstance(c, str))
            words.extend(c for c in node if isinstance(c, str))  # bare words, in malformed trees only
    return tags, words


def from_nltk(tree: "Tree") -> Node:
    """The gold tree of a cleaned PTB tree: phrasal nodes become :class:`Node`, preterminals word indices.

    ``tree`` is an ``nltk.Tree`` or a ``treetool.formats.ptb.Bracket``.

    Raises :class:`SinglePreterminalError` for a tree that is a single
    preterminal (no constituent for the root), :class:`GoldTreeError` for a bracket holding several words or
    words beside brackets (``(NP the (NN cat))``).
    """
    return gold_and_tokens(tree)[0]


def gold_and_tokens(tree: Any) -> tuple[Node, list[str], list[str]]:
    """:func:`from_nltk` plus the POS tags and the words, in one walk."""
    if is_preterminal(tree):
        raise SinglePreterminalError.of(tree)
    tags: list[str] = []
    words: list[str] = []
    return _convert(tree, tags, words), tags, words


def _convert(tree: Any, tags: list[str], words: list[str]) -> Node:
    """The :class:`Node` of a bracket, its words and tags appended to ``words`` and ``tags``.

    Depth-first with an explicit stack of open brackets (bracket, its start,
    its children so far, the iterator over the rest): trees nest as deep as
    they like.
    """
    open_: list[tuple[Any, int, list, Iterator]] = [(tree, len(words), [], iter(tree))]
    while True:
        bracket, start, children, rest = open_[-1]
        for child in rest:
            if type(child) is str:
                raise MissingTagError(f"bracket ({bracket.label()} ...) holds a bare word {child!r}: "
                                    "every word needs a POS tag")
            if len(child) == 1 and type(child[0]) is str:  # a preterminal
                children.append(len(words))
                tags.append(child.label())
                words.append(child[0])
            else:  # a phrase; a bare word inside it (a preterminal with several words too) is refused there
                open_.append((child, len(words), [], iter(child)))
                break
        else:
            open_.pop()
            node = _new_node(Node, (bracket.label(), start, len(words), tuple(children)))
            if not open_:
                return node
            open_[-1][2].append(node)


def preorder(node: Node) -> Iterator[Node]:
    """The constituents top-down, left to right (the order top-down opens them)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in reversed(current.children) if isinstance(c, Node))


def labels_outside(tree: Node, labels: Iterable[str]) -> list[str]:
    """The labels of ``tree``'s constituents that ``labels`` lacks, sorted: no action costed over ``labels`` builds
    their constituents (an oracle would cost no step's gold action, a walk following ``tree`` would take
    uncosted actions)."""
    return sorted({node.label for node in preorder(tree)}.difference(labels))


def postorder(node: Node) -> list[Span]:
    """The spans in the order both systems complete them (children before parents).

    Both systems build a tree's constituents in this order, so a ``built``
    sequence equal to it means exactly this tree was built.
    """
    out: list[Span] = []
    todo: list[tuple[Node, bool]] = [(node, False)]  # (node, its children are done)
    while todo:
        current, done = todo.pop()
        if done:
            out.append(current.span)
            continue
        todo.append((current, True))
        todo.extend((c, False) for c in reversed(current.children) if isinstance(c, Node))
    return out


def tree_from_spans(spans: Iterable[Span], n: int) -> Node:
    """The tree over ``n`` words whose constituents were built in the order ``spans`` (a ``built`` sequence).

    The inverse of :func:`postorder`: both systems build children before
    parents, so each new span takes the adjacent roots built so far (words or
    constituents) that it covers as its children; a unary node takes the one
    root of its own span. The last span must cover every word.
    """
    roots: list[Node | int] = list(range(n))
    for label, start, end in spans:
        first = next((k for k, root in enumerate(roots) if _bounds(root)[0] == start), None)
        last = first
        while last is not None and last < len(roots) and _bounds(roots[last])[1] <= end:
            last += 1
        if first is None or last == first or _bounds(roots[last - 1])[1] != end:
            raise ValueError(f"({label}, {start}, {end}) does not cover whole constituents built before it")
        roots[first:last] = [Node(label, start, end, tuple(roots[first:last]))]
    if len(roots) != 1 or not isinstance(roots[0], Node):
        raise ValueError("the spans do not make one tree over every word")
    return roots[0]


def _bounds(root: Node | int) -> tuple[int, int]:
    return (root, root + 1) if isinstance(root, int) else (root.start, root.end)


def bracketed(tree: Node, tags: list[str], words: list[str]) -> str:
    """One-line bracket text of ``tree`` with its preterminals, as ``treetool oracle`` writes the ``# `` line.

    Iterative, so a 2,000-deep tree does not meet Python's recursion limit.
    """
    parts: list[str] = []
    todo: list[Node | int | str] = [tree]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, int):
            parts.append(f" ({tags[item]} {words[item]})")
        else:
            parts.append(f"({item.label}" if not parts else f" ({item.label}")
            todo.append(")")
            todo.extend(reversed(item.children))
    return "".join(parts)
