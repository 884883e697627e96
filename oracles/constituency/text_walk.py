"""The oracle walk read straight from a tree's bracket text: the fast path of ``treetool oracle``.

Reading the brackets into ``ptb.Bracket`` nodes and walking them again
(:mod:`.oracle_walk`) is most of the time ``treetool oracle`` takes. A
:class:`TextOracle` gives the same :class:`~.oracle_walk.OracleWalk` in one
pass over the text of one tree, cleaning it as the PTB reader does: ``-NONE-``
elements and the constituents they leave empty dropped, function tags
stripped, the wrapper removed (see :mod:`treetool.formats.ptb`).

It handles well-formed trees only. Anything else (a bracket the reader
reports, a tree the oracle walk refuses, a tree that trace removal empties,
several trees in one text) gives ``None``; the PTB reader then hands the
input from that tree on to its general parser (``fast`` of
:func:`~treetool.formats.ptb.read_ptb_with_lines`), so errors, their
messages and the recovery after them are the reader's own.

A constituent's text and its ``NT(X)`` wait until a word is written inside
it: until then, dropping traces may still empty it. The deepest nesting and
the longest unary chain are measured as :func:`~.oracle_walk.oracle_walk`
measures them, for the systems' limits.
"""

from __future__ import annotations

import re

from treetool.formats.ptb import MAX_DEPTH, TRACE_LABEL, WRAPPER_LABELS, strip_label

from .oracle_walk import OracleWalk

__all__ = ["TextOracle"]

#: The items of bracket text, as tuples of ``findall``: a preterminal ``(tag word)``, an opening bracket and the
#: label right after it ("" when none), a closing bracket or a word elsewhere; every character but white space
#: (``\s``: what the reader's ``str.split`` splits on) is in one. Written as the treebanks write them: other
#: spacing (``( S``, ``(NN  word)``) makes a bracket without a label or a word beside brackets, left to the reader.
_ITEMS = re.compile(r"\(([^\s()]+) ([^\s()]+)\)|\(([^\s()]*)|(\)|[^\s()]+)")


class TextOracle:
    """One tree's text -> its :class:`OracleWalk`, or ``None`` for a text this fast path leaves to the reader.

    ``kind`` and ``label_first`` as for :func:`~.oracle_walk.oracle_walk`;
    the cleaning options as for :func:`treetool.formats.ptb.read_ptb`.
    """

    def __init__(self, kind: str, label_first: bool, drop_traces: bool, strip_functions: bool,
                 remove_wrapper: bool) -> None:
        self.kind = kind
        self.label_first = label_first
        self.trace = TRACE_LABEL if drop_traces else None
        self.strip_functions = strip_functions
        self.wrappers = WRAPPER_LABELS if remove_wrapper else frozenset()
        #: Label as read -> as written, for the labels read before but the trace label and "" (so that one look-up
        #: tells a label to write from one to check).
        self.labels: dict[str, str] = {}
        #: Label as written -> its labelled action (``NT(X)`` / ``PJ(X)``), made once.
        self.label_actions: dict[str, str] = {}

    def clean_label(self, label: str) -> str:
        """``label`` as written, remembered for the next time it is read (not "": see :attr:`labels`)."""
        clean = strip_label(label) if self.strip_functions else label
        if label:
            self.labels[label] = clean
        self.label_actions[clean] = f"{self.kind}({clean})"
        return clean

    def __call__(self, text: str) -> OracleWalk | None:
        """The walk of the one tree of ``text``, or ``None`` (module docstring).

        ``stack``: ``[label, constituents kept, whether one was dropped]`` for
        the input (the bottom, where exactly one tree must be kept) and each
        open phrase; the first ``wrappers`` entries are not written (the input
        and the wrappers to remove), the first ``written`` (at least those)
        have had their ``(X`` written or need none (the others may yet be
        emptied). One loop, without a function call per item: it is the hot
        path of ``treetool oracle``.
        """
        labels, label_action, label_first, trace, wrapper_labels = (self.labels, self.label_actions,
                                                                    self.label_first, self.trace, self.wrappers)
        top = [None, 0, False]
        stack: list[list] = [top]  # top: stack[-1]
        depth = written = wrappers = 1  # depth: len(stack), counted (a call to len per item costs)
        deepest = chain = longest = 0  # chain: the one-child chain ending at the last item
        texts: list[str] = []
        tags: list[str] = []
        words: list[str] = []
        actions: list[str] = []
        for tag, word, label, other in _ITEMS.findall(text):
            if tag:  # a preterminal
                pos = labels.get(tag)
                if pos is None:
                    if tag == trace:
                        top[2] = True
                        continue
                    pos = self.clean_label(tag)
                if written < depth:  # write the phrases around the first word written in them
                    for name, _, _ in stack[written:]:
                        texts.append(" (" + name)
                        if label_first:
                            actions.append(label_action[name])
                    written = depth
                    if written - 1 - wrappers > deepest:
                        deepest = written - 1 - wrappers
                tags.append(pos)
                words.append(word)
                texts.append(f" ({pos} {word})")
                actions.append("SHIFT")
                chain = 0
                top[1] += 1
                if not label_first and top[1] == 1 and depth > wrappers:
                    actions.append(label_action[top[0]])
            elif other == ")":
                if depth == 1:
                    return None  # a stray ")"
                _, kept, dropped = stack.pop()
                depth -= 1
                top = stack[-1]
                if not kept:
                    if not dropped or depth < wrappers:
                        return None  # "()" or "(X)"; or a wrapper emptied by dropping traces (the reader's case)
                    top[2] = True  # emptied by dropping traces: dropped too
                    continue
                written -= 1
                if depth >= wrappers:
                    texts.append(")")
                    actions.append("REDUCE")
                    chain = chain + 1 if kept == 1 else 0
                    if chain > longest:
                        longest = chain
                elif kept == 1:
                    wrappers -= 1
                else:
                    return None  # a wrapper around several constituents: not one tree
                top[1] += 1
                if not label_first and top[1] == 1 and depth > wrappers:
                    actions.append(label_action[top[0]])
            elif not other:  # an opening bracket
                name = labels.get(label)
                if name is None:
                    if label == trace or not (label or (depth == 1 and "" in wrapper_labels)):
                        return None  # a -NONE- phrase, a bracket without a label
                    name = self.clean_label(label)
                if depth == MAX_DEPTH:
                    return None  # too deep (with a preterminal inside)
                if depth == wrappers and name in wrapper_labels:
                    wrappers += 1
                    written += 1  # a wrapper needs no text
                top = [name, 0, False]
                stack.append(top)
                depth += 1
            else:
                return None  # a word beside brackets
        if stack != [[None, 1, False]] or actions[-1] != "REDUCE":
            return None  # open brackets, no tree or several, traces beside the tree, a preterminal alone
        texts[0] = texts[0][1:]  # the root's "(X" without the space before it
        return OracleWalk("".join(texts), tags, words, actions, deepest, longest)
