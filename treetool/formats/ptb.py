"""Penn Treebank bracketed trees: streaming reader, cleaning, one-line writer.

The reader tokenizes the brackets itself (nltk's corpus readers refuse paths
outside nltk's data directories) and builds :class:`nltk.Tree` objects:
phrasal nodes and preterminals are ``Tree``; leaves (words) are ``str``.

It consumes an iterable of lines one at a time and keeps only the tree being
built, so memory does not grow with the input.  Trees may span any number of
lines, several trees may share a line, and the outer unlabeled bracket of the
WSJ files (``( (S ...) )``) or a ``ROOT``/``TOP`` wrapper is accepted.

Cleaning ("the standard way"), each step optional and independent:

* ``drop_traces``: remove ``-NONE-`` elements and every constituent that
  becomes empty because of that;
* ``strip_functions``: cut labels at the first ``-`` or ``=``
  (``NP-SBJ-1`` -> ``NP``, ``PP-LOC=3`` -> ``PP``); labels that start with
  ``-`` (``-LRB-``, ``-RRB-``, ``-LCB-``, ``-RCB-``, ``-NONE-``) are kept;
* ``remove_wrapper``: drop the outer unlabeled bracket, or a ``ROOT``/``TOP``
  node, when it has a single child tree.

Malformed input raises :class:`treetool.errors.TreebankError` with the file
name and the 1-based line number, or is handed to ``on_error`` so reading can
continue with the next tree.
"""

from __future__ import annotations

import functools
import io
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from os import PathLike
from typing import TextIO

from typing import TYPE_CHECKING, Any

from ..errors import StrayText, TreebankError
from .damage import refuse_nul

if TYPE_CHECKING:
    from nltk import Tree

__all__ = [
    "Bracket",
    "TRACE_LABEL",
    "WRAPPER_LABELS",
    "drop_trace_elements",
    "opens_next_tree",
    "outside_brackets",
    "parse_ptb_string",
    "read_ptb",
    "read_ptb_file",
    "read_ptb_with_lines",
    "remove_outer_wrapper",
    "single_root_problem",
    "strip_function_tags",
    "strip_label",
    "tree_to_line",
    "word_count",
    "write_ptb",
]

#: Labels of a wrapper node that ``remove_wrapper`` removes ("" is the bare outer bracket).
WRAPPER_LABELS = frozenset({"", "ROOT", "TOP"})

#: The label of an empty element (a trace), which ``drop_traces`` removes.
TRACE_LABEL = "-NONE-"
_ONLY_TRACES = "tree contains only -NONE- elements (empty after drop_traces)"

ErrorHandler = Callable[[TreebankError], object]

#: The deepest bracket nesting read (Penn Treebank trees stay under 40). treetool's own tree code is iterative, but
#: ``nltk.Tree`` (the default node of :func:`read_ptb`) recurses in ``leaves``, ``pformat`` and more: a tree ten
#: times deeper than any real one is refused at its line rather than ending in Python's recursion limit there.
MAX_DEPTH = 400

#: ``( (`` at the start of a line: the outer, unlabelled bracket of a WSJ tree (see :func:`opens_next_tree`).
_WRAPPED_TREE_START = re.compile(r"\([ \t]*\(")


def opens_next_tree(line: str) -> bool:
    """Whether ``line``, met inside a tree, starts the next one: the tree being read was never closed.

    A line starting with ``( (`` (not indented) is how each tree of the WSJ files starts; inside a tree it could
    only be a bracket without a label, which no tree has (an indented one is reported as that). A tree that lacks
    its last ``)`` is then reported at its own first line, and the reading goes on with the next tree, rather
    than that tree's wrapper being reported as a bracket without a label.
    """
    return _WRAPPED_TREE_START.match(line) is not None


# Parser modes.
_NORMAL = 0
_SKIP_TO_TOP = 1  # after a stray ")" or leaf: discard until the next "(" or the line's end
_SKIP_TREE = 2  # after an error inside a tree: discard until it closes

_BRACKET_CHAR = re.compile("[()]")


class Bracket(list):
    """A bracket node without nltk: the children in a list, the label from :meth:`label` (as ``nltk.Tree``)."""

    __slots__ = ("_label",)

    def __init__(self, label: str, children: list) -> None:
        list.__init__(self, children)
        self._label = label

    def label(self) -> str:
        return self._label

    def set_label(self, label: str) -> None:
        self._label = label

    def leaves(self) -> list[str]:
        """The words, left to right (as ``nltk.Tree.leaves``; iterative: trees may nest 400 deep)."""
        words: list[str] = []
        todo: list = [self]
        while todo:
            node = todo.pop()
            if isinstance(node, str):
                words.append(node)
            else:
                todo.extend(reversed(node))
        return words


# --------------------------------------------------------------------------
# Cleaning
# --------------------------------------------------------------------------


def strip_label(label: str) -> str:
    """Cut a label at its first ``-`` or ``=`` (function tags, indices).

    Labels starting with ``-`` (``-LRB-``, ``-NONE-``...) are returned
    unchanged, and so is a label that would become empty.
    """
    if not label or label[0] == "-":
        return label
    cut = len(label)
    i = label.find("-")
    if i != -1:
        cut = i
    i = label.find("=", 0, cut)
    if i != -1:
        cut = i
    return label[:cut] if cut else label


def strip_function_tags(tree: Tree) -> Tree:
    """Apply :func:`strip_label` to every phrasal and POS label, in place (a loop: trees nest arbitrarily deep)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        node.set_label(strip_label(node.label()))
        todo.extend(child for child in node if not isinstance(child, str))
    return tree


def word_count(tree: Tree) -> int:
    """The words of ``tree``: its leaves, those of ``-NONE-`` elements (traces, null elements) excepted.

    The sentence length a parser sees, with or without the traces in the file (a loop: trees nest deep).
    """
    count, todo = 0, [tree]
    while todo:
        node = todo.pop()
        if node.label() == TRACE_LABEL:
            continue
        for child in node:
            if isinstance(child, str):
                count += 1
            else:
                todo.append(child)
    return count


def drop_trace_elements(tree: Tree) -> Tree | None:
    """Remove ``-NONE-`` nodes and the constituents left empty, in place.

    Returns the tree, or ``None`` when nothing but empty elements was in it.
    Constituents that were empty before (not because of ``-NONE-``) stay.
    """
    order, todo = [], [tree]  # the nodes below no -NONE- node, parents first
    while todo:
        node = todo.pop()
        order.append(node)
        if node.label() != TRACE_LABEL:
            todo.extend(child for child in node if not isinstance(child, str))
    dropped: set[int] = set()  # ids of the nodes that are empty now
    for node in reversed(order):  # children before parents
        if node.label() == TRACE_LABEL:
            dropped.add(id(node))
            continue
        kept = [child for child in node if isinstance(child, str) or id(child) not in dropped]
        if len(kept) < len(node):
            if not kept:
                dropped.add(id(node))
                continue
            node[:] = kept
    return None if id(tree) in dropped else tree


def remove_outer_wrapper(tree: Tree) -> Tree:
    """Return the child of an unlabeled / ``ROOT`` / ``TOP`` node with one child tree.

    Repeats while the result is again such a wrapper (``( (TOP (S ...)) )``).
    A wrapper with several children, or whose only child is a word, is kept.
    """
    while (
        tree.label() in WRAPPER_LABELS
        and len(tree) == 1
        and not isinstance(tree[0], str)
    ):
        tree = tree[0]
    return tree


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


def read_ptb_with_lines(
    lines: Iterable[str],
    filename: str = "<stdin>",
    *,
    drop_traces: bool = False,
    strip_functions: bool = False,
    remove_wrapper: bool = False,
    on_error: ErrorHandler | None = None,
    node: Callable[[str, list], Any] | None = None,
    one_root: bool = False,
    positions: bool = False,
    first_line: int = 1,
    first_position: int = 1,
    fast: Callable[[str], Any] | None = None,
    source_text: bool = False,
) -> Iterator[tuple[int, Tree]] | Iterator[tuple[int, int, Tree]]:
    """Like :func:`read_ptb`, yielding ``(line, tree)``, or ``(line, position, tree)`` with ``positions``.

    ``line`` is the 1-based number of the line where the tree's opening
    bracket is, ``position`` the tree's 1-based place among the input's
    trees (malformed ones, skipped with ``on_error``, count too). ``node``:
    the class of the nodes built, ``nltk.Tree`` by default; :class:`Bracket`
    is a lighter one for callers that need only labels and children (and
    spares them importing nltk). ``first_line`` and ``first_position`` number
    an input that starts inside a file (``--shard``).

    ``fast``: a caller's own reading of one tree's text (lines whose brackets
    balance), cleaned as the options say, in place of the tree, or ``None``
    for a text it leaves to this reader: from that text on, the trees are
    this reader's (see :func:`_fast_then_general`).

    ``source_text`` (not with ``fast``): each tree comes as a
    :class:`~treetool.formats.ptb_source.SourcedTree` holding its text in the
    input, and a refused tree's ``error.raw`` is its own text rather than its
    whole lines, for a command that copies trees unchanged (``filter``).
    """
    if node is None:
        from nltk import Tree as node
    texts = None
    if source_text:
        if fast is not None:
            raise ValueError("source_text is for the general parser: not with fast")
        from .ptb_source import TreeTexts  # here: the other readers of PTB do not pay for importing it

        texts = TreeTexts(opens_next_tree)
        lines = texts.lines(lines)  # before the byte order mark is dropped: it is text to copy

    def general(lines: Iterable[str], first_line: int, first_position: int) -> Iterator[tuple[int, int, Any]]:
        root_problem = functools.partial(single_root_problem, remove_wrapper=remove_wrapper) if one_root else None
        handler = on_error if texts is None else texts.refusals(on_error)
        for line, position, tree in _parse(lines, filename, handler, drop_traces, strip_functions, node,
                                           root_problem, first_line, first_position):
            yield line, position, remove_outer_wrapper(tree) if remove_wrapper else tree

    lines = _without_bom(lines)
    if fast is None:
        found = general(lines, first_line, first_position)
        if texts is not None:
            found = texts.sourced(found, filename)
    else:
        found = _fast_then_general(lines, filename, fast, general, first_line, first_position)
    if positions:
        yield from found
    else:
        for line, _, tree in found:
            yield line, tree


def _without_bom(lines: Iterable[str]) -> Iterator[str]:
    """``lines`` without the byte-order mark some editors write at the start of the first."""
    lines = iter(lines)
    first = next(lines, None)
    return lines if first is None else itertools.chain((first.removeprefix("\ufeff"),), lines)


def _fast_then_general(
    lines: Iterator[str],
    filename: str,
    fast: Callable[[str], Any],
    general: Callable[[Iterable[str], int, int], Iterator[tuple[int, int, Any]]],
    first_line: int,
    first_position: int,
) -> Iterator[tuple[int, int, Any]]:
    """``(start line, position, fast(text))`` for the text of each tree, until ``fast`` returns ``None``; from
    that tree's first line on, the general parser's trees.

    A tree's text is its lines, up to the one where as many ``)`` as ``(``
    have been read. The general parser is then in the state it starts in
    (no tree open, no error being skipped): started there, it reads the
    rest exactly as it would have read the whole input. So it also takes
    over at a line with a NUL, or where reading the input fails (invalid
    UTF-8), and meets them after the same lines as without the fast path;
    and at a line that opens the next tree inside one never closed
    (:func:`opens_next_tree`), rather than holding the rest of the input.
    """
    group: list[str] = []  # the lines of the tree being read
    depth = 0  # "(" less ")" in them
    start = first_line  # the line the group starts on
    position = first_position - 1  # of the last tree read
    rest: Iterable[str] = lines
    try:
        for lineno, text in enumerate(lines, first_line):
            if not group:
                start = lineno
            group.append(text)
            depth += text.count("(") - text.count(")")
            if "\x00" in text:
                break
            if depth > 0:
                if text[:1] == "(" and len(group) > 1 and opens_next_tree(text):
                    break  # the tree being read was never closed: the general parser says so, not after the input
                continue
            if depth == 0:
                whole = text if len(group) == 1 else "".join(group)
                if whole.isspace() or not whole:
                    group.clear()
                    continue
                found = fast(whole)
                if found is not None:
                    position += 1
                    yield start, position, found
                    group.clear()
                    continue
            break
        else:
            if not group:
                return
    except TreebankError as err:  # raised by the lines themselves
        rest = _failing(err)
    yield from general(itertools.chain(group, rest), start, position + 1)


def _failing(error: TreebankError) -> Iterator[str]:
    """Lines whose reading fails with ``error`` at once."""
    raise error
    yield  # not reached: makes this a generator, which raises when it is first read


def read_ptb(
    lines: Iterable[str],
    filename: str = "<stdin>",
    *,
    drop_traces: bool = False,
    strip_functions: bool = False,
    remove_wrapper: bool = False,
    on_error: ErrorHandler | None = None,
    node: Callable[[str, list], Any] | None = None,
    one_root: bool = False,
) -> Iterator[Tree]:
    """Stream the trees of Penn Treebank bracketed text (``node``: see :func:`read_ptb_with_lines`).

    ``lines`` is any iterable of text lines (an open file, a list, ``sys.stdin``),
    each one line, with or without ``"\\n"`` / ``"\\r\\n"``.  Only the tree being
    built is kept in memory.

    Errors (a :class:`TreebankError` with ``filename`` and 1-based ``line``):

    * extra ``)``: the line of that bracket;
    * ``(`` still open at the end of the input, or where a line opening with ``( (`` starts the next tree
      (:func:`opens_next_tree`): the line where the unclosed tree starts;
    * a word (or ``)``) outside any bracket: the line of the word (a
      :class:`~treetool.errors.StrayText`, one for each stretch of such text
      on a line, its ``raw`` that text);
    * empty brackets ``()``, a constituent with no children, a bracket
      without a label inside a tree: the line of the offending ``(``;
    * with ``drop_traces``, a tree made only of ``-NONE-`` elements;
    * with ``one_root`` (commands that derive or measure one constituency
      tree), a tree whose root has no label (:func:`single_root_problem`):
      the line where the tree starts;
    * a NUL byte (binary data): its line, raised even with ``on_error``.

    Without ``on_error`` the error is raised.  With it, ``on_error(error)`` is
    called and reading goes on: after an error inside a tree the rest of that
    tree is skipped (``error.raw`` then holds the whole input lines it spans);
    after a stray ``)`` or word everything up to the next ``(`` or the line's end is skipped.
    """
    for _, tree in read_ptb_with_lines(
        lines,
        filename,
        drop_traces=drop_traces,
        strip_functions=strip_functions,
        remove_wrapper=remove_wrapper,
        on_error=on_error,
        node=node,
        one_root=one_root,
    ):
        yield tree


def read_ptb_file(
    path: str | PathLike[str],
    *,
    drop_traces: bool = False,
    strip_functions: bool = False,
    remove_wrapper: bool = False,
    on_error: ErrorHandler | None = None,
    encoding: str = "utf-8",
) -> Iterator[Tree]:
    """Stream the trees of one file (see :func:`read_ptb`); errors name the file."""
    with open(path, encoding=encoding) as handle:
        yield from read_ptb(
            handle,
            str(path),
            drop_traces=drop_traces,
            strip_functions=strip_functions,
            remove_wrapper=remove_wrapper,
            on_error=on_error,
        )


def parse_ptb_string(
    text: str,
    filename: str = "<string>",
    *,
    drop_traces: bool = False,
    strip_functions: bool = False,
    remove_wrapper: bool = False,
) -> Tree:
    """Parse exactly one tree from a string (which may span several lines)."""
    trees = list(
        read_ptb_with_lines(
            io.StringIO(text),
            filename,
            drop_traces=drop_traces,
            strip_functions=strip_functions,
            remove_wrapper=remove_wrapper,
        )
    )
    if len(trees) != 1:
        line = trees[1][0] if len(trees) > 1 else None
        raise TreebankError(
            f"expected exactly one tree, found {len(trees)}",
            filename=filename,
            line=line,
        )
    return trees[0][1]


def single_root_problem(tree: Tree, remove_wrapper: bool = False) -> str | None:
    """Why ``tree`` is not one tree with one labelled root, or None (the tree as read; ``remove_wrapper``: as
    :func:`remove_outer_wrapper` leaves it).

    The outer bracket of the WSJ files has no label. With one child it is a
    wrapper that cleaning removes; with several (one stray ``)`` in the text
    closes a tree early and makes one) it is no constituent at all: a
    derivation would open it as ``NT()`` / ``PJ()``, which no parser reads.
    Commands that derive or measure one tree refuse it; ``filter`` and
    ``view`` keep it as it is.
    """
    if remove_wrapper:
        tree = remove_outer_wrapper(tree)
    if tree.label() != "":
        return None
    if len(tree) > 1:
        return (f"the outer bracket, without a label, holds {len(tree)} constituents, not one tree "
                "(a stray ')' closes a tree early?)")
    return "the outer bracket has no label: clean the tree (--clean) to remove it, or label it"


def outside_brackets(line: str, depth: int = 0) -> list[str]:
    """The texts of ``line`` outside every bracket that the parser skips as errors, in order (see :class:`StrayText`).

    ``depth``: the brackets open when the line starts.  One text between two
    top-level brackets (a ``)`` with none open is part of it), without the
    blanks around it, each with the line's end, so that ``--rejects`` holds
    it as a line of its own.  Blank stretches hold no token and are no
    error: they are left out.
    """
    body = line.rstrip("\r\n")
    end = line[len(body):]
    stretches, start = [], 0 if depth == 0 else -1
    for match in _BRACKET_CHAR.finditer(body):
        if match.group() == "(":
            if depth == 0:
                stretches.append(body[start:match.start()])
            depth += 1
        elif depth:
            depth -= 1
            start = match.end() if depth == 0 else start
    if depth == 0:
        stretches.append(body[start:])
    return [text.strip() + end for text in stretches if text.strip()]


def _parse(
    lines: Iterable[str],
    filename: str,
    on_error: ErrorHandler | None,
    drop_traces: bool = False,
    strip_functions: bool = False,
    node: Callable[[str, list], Any] = None,  # type: ignore[assignment]
    root_problem: Callable[[Any], str | None] | None = None,
    first_line: int = 1,
    first_position: int = 1,
) -> Iterator[tuple[int, int, Tree]]:
    """Bracket parser: yields ``(start line, position, tree)`` for each top-level bracket.

    ``root_problem``: a tree for which it returns a message is reported at
    its first line instead (see :func:`single_root_problem`).

    Each open node on the stack is ``[label, children, line, dropped]``;
    ``label`` is ``None`` until the token after its ``(`` is seen ("" when that
    token is another ``(``); ``dropped`` is set when ``drop_traces`` removed a
    child.  Cleaning is done here, as each node closes, rather than in extra
    passes over the finished tree (this roughly halves the cost of cleaning).
    """
    stack: list[list] = []
    tree_line = 0
    mode = _NORMAL
    skip_depth = 0
    # An error found inside a tree is reported once the tree has closed, so
    # that ``raw`` can hold all of its lines.
    pending: tuple[str, int] | None = None
    raw_lines: list[str] = []
    stripped: dict[str, str] = {}
    lineno = 0
    # Bracket nodes are filled in place: the children list of an open bracket is the node itself (no copy, no
    # Python __init__ per node), its label set when it closes. Other node types are built from the list.
    light = node is Bracket
    new_children = Bracket.__new__ if light else None

    def report(message: str, line: int, raw: str | None = None, error_type: type = TreebankError) -> None:
        error = error_type(message, filename=filename, line=line, raw=raw)
        if on_error is None:
            raise error
        on_error(error)

    position = first_position - 1  # of the last tree started
    stray: str | None = None  # the error of the stray text being skipped (mode _SKIP_TO_TOP), reported at its end
    strays = 0  # stray texts reported on this line
    for lineno, text in enumerate(lines, first_line):
        if "\x00" in text:
            refuse_nul(text, lineno, filename)  # binary data: raised, never skipped (see .damage)
        if stack:
            raw_lines.append(text)
        elif mode != _SKIP_TREE:
            raw_lines = [text]
        elif opens_next_tree(text):  # the tree being skipped was never closed: its error, then the next tree
            assert pending is not None
            report(pending[0], pending[1], "".join(raw_lines))
            mode, pending, raw_lines = _NORMAL, None, [text]
        else:
            raw_lines.append(text)
        depth = skip_depth if mode == _SKIP_TREE else len(stack)  # the brackets open as the line starts
        strays = 0
        if "(" in text or ")" in text:
            tokens = text.replace("(", " ( ").replace(")", " ) ").split()
        else:
            tokens = text.split()
        for tok in tokens:
            if mode:  # not _NORMAL
                if mode == _SKIP_TO_TOP:
                    if tok != "(":
                        continue
                    report(stray, lineno, outside_brackets(text, depth)[strays], StrayText)  # type: ignore[arg-type]
                    strays += 1
                    mode = _NORMAL  # and handle this "(" below
                else:  # _SKIP_TREE
                    if tok == "(":
                        skip_depth += 1
                    elif tok == ")":
                        skip_depth -= 1
                        if skip_depth == 0:
                            mode = _NORMAL
                            assert pending is not None
                            report(pending[0], pending[1], "".join(raw_lines))
                            pending = None
                    continue

            if tok == "(":
                if stack:
                    top = stack[-1]
                    if top[0] is None:
                        if tree_line < top[2] == lineno and opens_next_tree(text):
                            # "( (" opening a line inside the tree: the next tree; this one was never closed
                            report(f"unbalanced brackets: the tree starting on this line is not closed "
                                   f"({len(stack) - 1} '(' still open at line {lineno}, where the next tree "
                                   "starts)", tree_line, "".join(raw_lines[:-1]))
                            stack[:] = [top]
                            tree_line, position, raw_lines = lineno, position + 1, [text]
                            depth = 0  # the line's brackets are the new tree's: none open before them
                        elif len(stack) > 1:
                            # "(X ( (Y ...": a nested bracket without a label.
                            pending = ("missing label: bracket without a label", top[2])
                            skip_depth = len(stack) + 1
                            stack.clear()
                            mode = _SKIP_TREE
                            continue
                        top[0] = ""  # the outer wrapper "( (S ...) )"
                else:
                    tree_line = lineno
                    position += 1
                if len(stack) == MAX_DEPTH:  # deeper trees would meet Python's recursion limit downstream
                    pending = (f"brackets nested more than {MAX_DEPTH} deep (treetool reads trees up to "
                               f"{MAX_DEPTH} levels)", lineno)
                    skip_depth = len(stack) + 1
                    stack.clear()
                    mode = _SKIP_TREE
                    continue
                stack.append([None, new_children(Bracket) if light else [], lineno, False])
            elif tok == ")":
                if not stack:
                    stray, mode = "unbalanced brackets: extra ')'", _SKIP_TO_TOP
                    continue
                label, children, line, dropped = stack.pop()
                if label is None or not children:
                    if label is None:
                        message = "empty tree '()'" if not stack else "empty brackets '()'"
                    elif dropped:  # emptied by drop_traces: remove it as well
                        if stack:
                            stack[-1][3] = True
                        else:
                            report(_ONLY_TRACES, tree_line, "".join(raw_lines))
                        continue
                    else:
                        message = f"constituent ({label}) has no children"
                    if stack:
                        pending = (message, line)
                        skip_depth = len(stack)
                        stack.clear()
                        mode = _SKIP_TREE
                    else:
                        report(message, line, "".join(raw_lines))
                    continue
                if drop_traces and label == TRACE_LABEL:
                    if stack:
                        stack[-1][3] = True
                    else:
                        report(_ONLY_TRACES, tree_line, "".join(raw_lines))
                    continue
                if strip_functions:
                    new_label = stripped.get(label)
                    if new_label is None:
                        new_label = stripped[label] = strip_label(label)
                    label = new_label
                if light:
                    children._label = label
                    tree = children
                else:
                    tree = node(label, children)
                if stack:
                    stack[-1][1].append(tree)
                elif root_problem is not None and (problem := root_problem(tree)) is not None:
                    report(problem, tree_line, "".join(raw_lines))
                else:
                    yield tree_line, position, tree
            else:
                if not stack:
                    stray, mode = f"leaf {tok!r} outside any bracket", _SKIP_TO_TOP
                    continue
                top = stack[-1]
                if top[0] is None:
                    top[0] = tok
                else:
                    top[1].append(tok)
        if mode == _SKIP_TO_TOP:  # stray text is skipped line by line: its report holds one line's text
            report(stray, lineno, outside_brackets(text, depth)[strays], StrayText)  # type: ignore[arg-type]
            mode = _NORMAL

    if mode == _SKIP_TREE:
        assert pending is not None
        report(pending[0], pending[1], "".join(raw_lines))
    elif stack:
        report(
            f"unbalanced brackets: {len(stack)} '(' not closed at end of input"
            " (the tree starts on this line)",
            tree_line,
            "".join(raw_lines),
        )


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def tree_to_line(tree: Tree | str) -> str:
    """One-line bracket text with single spaces: ``(S (NP (DT The) (NN cat)) (VP (VBD sat)))``.

    (nltk 3.10's ``Tree._pformat_flat("", "()", False)`` raises TypeError on
    string leaves, and gives ``"(X )"`` for a node without children.)
    """
    if isinstance(tree, str):
        return tree
    parts: list[str] = []
    _flat(tree, parts)
    return "".join(parts)


def indented_tree(tree: Tree, margin: int = 70) -> str:
    """The tree as ``nltk.Tree.pformat(margin=margin)`` draws it, for ``nltk.Tree`` and :class:`Bracket` alike.

    A subtree that fits before ``margin`` (its indentation included) is one
    line; a longer one is its label, then each child on a line of its own,
    indented two more spaces. (Here so drawing a tree does not need nltk.)
    """
    parts: list[str] = []
    _indented(tree, margin, 0, parts)
    return "".join(parts)


def _indented(tree: Tree, margin: int, indent: int, parts: list[str]) -> None:
    """Append the text of :func:`indented_tree`; a loop over pending texts and subtrees, not recursion.

    Whether a subtree fits on one line is read from its one-line width,
    computed for every node in one pass, so each node's text is made once.
    """
    widths = _flat_widths(tree)
    todo: list[tuple[Tree | str, int]] = [(tree, indent)]  # (a subtree and its indentation, or a text)
    while todo:
        node, depth = todo.pop()
        if isinstance(node, str):
            parts.append(node)
            continue
        if widths[id(node)] + depth < margin:
            parts.append(tree_to_line(node))
            continue
        parts.append(f"({node.label()}")
        pad = "\n" + " " * (depth + 2)
        todo.append((")", 0))
        for child in reversed(node):
            todo.append((child, depth + 2) if not isinstance(child, str) else (pad + child, 0))
            if not isinstance(child, str):
                todo.append((pad, 0))


def _flat_widths(tree: Tree) -> dict[int, int]:
    """``len(tree_to_line(node))`` for every subtree, by ``id``: its label and brackets, a space and the width of
    each child (a word's width is its length)."""
    order, todo = [], [tree]
    while todo:
        node = todo.pop()
        order.append(node)
        todo.extend(child for child in node if not isinstance(child, str))
    widths: dict[int, int] = {}
    for node in reversed(order):  # children first
        widths[id(node)] = len(node.label()) + 2 + sum(
            1 + (len(child) if isinstance(child, str) else widths[id(child)]) for child in node)
    return widths


def _flat(tree: Tree, parts: list[str]) -> None:
    """Append the one-line text of ``tree``; a loop over pending texts and subtrees, not recursion."""
    todo: list[Tree | tuple[str]] = [tree]  # a subtree, or a text in a 1-tuple
    while todo:
        node = todo.pop()
        if type(node) is tuple:
            parts.append(node[0])
            continue
        parts.append(f"({node.label()}")
        todo.append((")",))
        for child in reversed(node):
            if isinstance(child, str):
                todo.append((f" {child}",))
            elif len(child) == 1 and isinstance(child[0], str):  # a preterminal, the commonest node
                todo.append((f" ({child.label()} {child[0]})",))
            else:
                todo.append(child)
                todo.append((" ",))


def write_ptb(trees: Iterable[Tree], out: TextIO) -> int:
    """Write one tree per line (``\\n``-terminated); return how many were written."""
    count = 0
    for tree in trees:
        out.write(tree_to_line(tree))
        out.write("\n")
        count += 1
    return count
