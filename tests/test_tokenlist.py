"""Conversion to and from conllu.TokenList: the conllu library's own parse is the independent reference."""

from __future__ import annotations

import conllu
import pytest

from conftest import SAMPLE_DATA
from treetool.errors import TreebankError
from treetool.formats.tokenlist import from_tokenlist, to_tokenlist
from treetool.treebank import read_treebank

EN = SAMPLE_DATA / "en_sample.conllu"


def test_to_tokenlist_equals_conllu_parse_of_the_file():
    expected = conllu.parse(EN.read_text(encoding="utf-8"))
    got = [to_tokenlist(s) for s in read_treebank(str(EN))]
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected):
        assert ours.metadata == theirs.metadata
        assert [dict(t) for t in ours] == [dict(t) for t in theirs]


def test_to_tokenlist_carries_a_changed_tree():
    sentence = next(iter(read_treebank(str(EN))))
    heads = list(sentence.heads)
    rels = list(sentence.deprels)
    word = next(i for i in range(1, len(heads)) if heads[i] != 0)
    root = heads.index(0, 1)
    heads[word], rels[word] = root, "dep"
    sentence.set_tree(heads, rels)
    token = next(t for t in to_tokenlist(sentence) if t["id"] == word)
    assert (token["head"], token["deprel"]) == (root, "dep")


def test_from_tokenlist_round_trips_heads_labels_and_comments():
    for theirs in conllu.parse(EN.read_text(encoding="utf-8")):
        sentence = from_tokenlist(theirs)
        words = [t for t in theirs if isinstance(t["id"], int)]
        assert list(sentence.heads[1:]) == [t["head"] for t in words]
        assert sentence.deprels[1:] == [t["deprel"] for t in words]
        assert sentence.sent_id == theirs.metadata["sent_id"]


def test_from_tokenlist_validates_the_tree():
    tokens = conllu.parse("1\ta\t_\t_\t_\t_\t2\tdep\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n")[0]
    with pytest.raises(TreebankError, match="no root|cycle"):
        from_tokenlist(tokens)
