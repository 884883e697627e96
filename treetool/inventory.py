"""The label inventory of a dependency treebank: what a parser's labelled action vocabulary is built from."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Union

from .sentence import Sentence
from .treebank import read_treebank

__all__ = ["labels"]


def labels(treebank: Union[str, os.PathLike, Iterable[Sentence]]) -> list[str]:
    """The sorted, distinct dependency labels (DEPREL, subtypes kept: ``acl:relcl``) of ``treebank``.

    ``treebank`` is a path (CoNLL-U or CoNLL-X, read with
    :func:`treetool.treebank.read_treebank`: compressed files and ``-`` for
    stdin too) or an iterable of :class:`~treetool.sentence.Sentence`. The
    root's empty label is not one. For ``system.actions(labels(path))``
    (``treetool.oracles.vocabulary``); sorted, so that the same treebank
    always gives the same action ids. A constituency (PTB) file raises
    ``TypeError``: its trees have no dependency labels.
    """
    sentences = read_treebank(os.fspath(treebank)) if isinstance(treebank, (str, os.PathLike)) else treebank
    found: set[str] = set()
    for sentence in sentences:
        if not isinstance(sentence, Sentence):
            raise TypeError(f"labels() reads dependency sentences, not {type(sentence).__name__} objects")
        found.update(sentence.deprels[1:])
    return sorted(found)
