"""Conversion between treetool sentences and the ``conllu`` library's ``TokenList``.

Many parser codebases already hold their data as ``conllu.TokenList``
objects; these two functions let them use treetool's tree algorithms and
oracles on that data, and hand treetool's output back, without a file in
between.  ``conllu`` is imported here only, so commands that never convert
do not pay for it.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from ..errors import TreebankError
from ..sentence import Sentence
from .conll import read_conll

if TYPE_CHECKING:
    from conllu.models import TokenList


def to_tokenlist(sentence: Sentence) -> TokenList:
    """The sentence as a ``conllu.TokenList`` (comments become its metadata).

    Uses the current tree: HEAD and DEPREL changed by :meth:`Sentence.set_tree`
    are what the token list holds.
    """
    import conllu

    return conllu.parse(sentence.to_text().rstrip("\r\n") + "\n\n")[0]


def from_tokenlist(tokens: TokenList, filename: str = "<tokenlist>") -> Sentence:
    """A CoNLL-U :class:`Sentence` from a ``conllu.TokenList``, validated like any input.

    A token list whose tree is not valid CoNLL-U (a cycle, several roots, a
    HEAD outside the sentence) raises :class:`~treetool.errors.TreebankError`.
    """
    data = tokens.serialize().encode("utf-8")
    sentences = list(read_conll(io.BytesIO(data), filename, "conllu"))
    if len(sentences) != 1:
        raise TreebankError(f"expected one sentence, found {len(sentences)}", filename=filename)
    return sentences[0]
