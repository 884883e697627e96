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
#: label after it ("" when none follows), a closing bracket, a word elsewhere. ``\s`` is what ``str.split``
#: splits on, so the items are those of the reader's tokens; every character but white space is in one.
_ITEMS = re.compile(r"\(\s*([^\s()]+)\s+([^\s()]+)\s*\)|\(\s*([^\s()]*)|(\))|([^\s()]+)")

#: The most phrases open at once: with a preterminal inside, the reader's limit of nested brackets.
_MAX_PHRASES = MAX_DEPTH - 1


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
        self.labels: dict[str, str] = {}  # label as read -> as written (cleaning once per distinct label)

    def clean_label(self, label: str) -> str:
        """``label`` as written, remembered for the next time it is read."""
        clean = self.labels[label] = strip_label(label) if self.strip_functions else label
        return clean

    def __call__(self, text: str) -> OracleWalk | None:
        """The walk of the one tree of ``text``, or ``None`` (module docstring).

        ``stack``: the open phrases, each ``[label, children kept]``; the first
        ``wrappers`` of them are wrappers to remove, the first ``written``
        have had their ``(X`` written (the others may yet be emptied).
        """
        labels, kind, label_first, trace, wrapper_labels = (self.labels, self.kind, self.label_first, self.trace,
                                                            self.wrappers)
        stack: list[list] = []
        written = wrappers = deepest = chain = longest = 0  # chain: the one-child chain ending at the last item
        done = after_open = False
        texts: list[str] = []
        tags: list[str] = []
        words: list[str] = []
        actions: list[str] = []
        for tag, word, label, close, stray in _ITEMS.findall(text):
            if tag:  # a preterminal
                after_open = False
                if tag == trace:
                    continue
                if len(stack) <= wrappers:
                    return None  # the tree is a preterminal, or there is no tree around it
                if written < len(stack):  # write the phrases around the first word written in them
                    for name, _ in stack[max(written, wrappers):]:
                        texts.append(" (" + name)
                        if label_first:
                            actions.append(f"{kind}({name})")
                    written = len(stack)
                    if written - 1 - wrappers > deepest:
                        deepest = written - 1 - wrappers
                tag = labels.get(tag) or self.clean_label(tag)
                tags.append(tag)
                words.append(word)
                texts.append(f" ({tag} {word})")
                actions.append("SHIFT")
                chain = 0
                top = stack[-1]
                top[1] += 1
                if top[1] == 1 and not label_first:
                    actions.append(f"{kind}({top[0]})")
            elif close:
                if after_open or not stack:
                    return None  # "()", "(X)" or a stray ")"
                name, kept = stack.pop()
                if not kept:
                    continue  # emptied by dropping traces: dropped too
                written -= 1
                if len(stack) >= wrappers:
                    texts.append(")")
                    actions.append("REDUCE")
                    chain = chain + 1 if kept == 1 else 0
                    if chain > longest:
                        longest = chain
                elif kept == 1:
                    wrappers -= 1
                else:
                    return None  # a wrapper around several constituents: not one tree
                if not stack:
                    done = True
                    continue
                top = stack[-1]
                top[1] += 1
                if top[1] == 1 and not label_first and len(stack) > wrappers:
                    actions.append(f"{kind}({top[0]})")
            elif not stray:  # an opening bracket
                if done or len(stack) == _MAX_PHRASES or label == trace or not (label or (
                        not stack and "" in wrapper_labels)):
                    return None  # a second tree, too deep, a -NONE- phrase, a bracket without a label
                after_open = True
                label = labels.get(label) or self.clean_label(label)
                if len(stack) == wrappers and label in wrapper_labels:
                    wrappers += 1
                stack.append([label, 0])
            else:
                return None  # a word beside brackets
        if not done:
            return None  # no tree, or only traces
        texts[0] = texts[0][1:]  # the root's "(X" without the space before it
        return OracleWalk("".join(texts), tags, words, actions, deepest, longest)
