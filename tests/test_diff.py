"""`treetool diff`: differing words, exit status, and UAS/LAS as the CoNLL 2018 evaluation script defines them.

The scores are checked against an independent count over the files' own
columns (conll18_ud_eval.py: UAS = words whose HEAD matches, LAS = HEAD and
DEPREL up to the first ':' match, punctuation included, over all words when
both files have the same words).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, run_cli, shared_path

EN = SAMPLE_DATA / "en_sample.conllu"


def word_columns(path: Path) -> list[tuple[str, str]]:
    """(HEAD, DEPREL) of every word of a CoNLL-U file, read directly: no multiword tokens, no empty nodes."""
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if line.startswith("#") or len(cols) < 8 or not cols[0].isdigit():
            continue
        words.append((cols[6], cols[7]))
    return words


def conll18_scores(gold: Path, other: Path, base: bool) -> tuple[float, float]:
    g, o = word_columns(gold), word_columns(other)
    assert len(g) == len(o)
    label = (lambda d: d.split(":")[0]) if base else (lambda d: d)
    uas = sum(gh == oh for (gh, _), (oh, _) in zip(g, o))
    las = sum(gh == oh and label(gd) == label(od) for (gh, gd), (oh, od) in zip(g, o))
    return 100 * uas / len(g), 100 * las / len(g)


def diff_json(*args: object) -> tuple[int, dict]:
    result = run_cli("diff", *args, "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize("scheme", ["head", "path"])
def test_uas_las_equal_the_conll18_definitions_on_a_real_treebank(tmp_path, scheme):
    gold = shared_path("data", "ud-2.2", "UD_Ancient_Greek-PROIEL", "grc_proiel-ud-dev.conllu")
    other = tmp_path / "pseudo.conllu"
    assert run_cli("projectivize", gold, "--method", "pseudo", "--scheme", scheme, "-o", other).returncode == 0
    scores = {base: conll18_scores(gold, other, base) for base in (True, False)}
    assert scores[True][0] < 100  # heads differ; with the path scheme, labels of words that keep their head too
    if scheme == "path":
        assert scores[False][1] < scores[True][1] < scores[True][0]
    for base, (uas, las) in scores.items():
        status, doc = diff_json(gold, other, *(["--deprel-base"] if base else []))
        assert status == 1
        assert doc["total"]["uas"] == pytest.approx(uas, abs=0.005)
        assert doc["total"]["las"] == pytest.approx(las, abs=0.005)
        assert doc["total"]["words"] == len(word_columns(gold))


def test_optimal_projectivization_keeps_labels_so_las_equals_uas(tmp_path):
    gold = shared_path("data", "ud-2.2", "UD_German-GSD", "de_gsd-ud-dev.conllu")
    other = tmp_path / "optimal.conllu"
    assert run_cli("projectivize", gold, "-o", other).returncode == 0
    uas, _ = conll18_scores(gold, other, True)
    _, doc = diff_json(gold, other)
    assert doc["total"]["uas"] == doc["total"]["las"] == pytest.approx(uas, abs=0.005)


def test_identical_files_exit_0_and_score_100():
    status, doc = diff_json(EN, EN)
    assert status == 0
    assert doc == {"sentences": [], "total": {"sentences": 3, "words": 27, "differing_sentences": 0,
                                              "uas": 100.0, "las": 100.0}}


SENTENCE = """# sent_id = s1
1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_
2\tdog\tdog\tNOUN\t_\t_\t3\tnsubj:pass\t_\t_
3\tbarks\tbark\tVERB\t_\t_\t0\troot\t_\t_

"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_differing_words_are_listed_with_both_analyses(tmp_path):
    gold = write(tmp_path, "g.conllu", SENTENCE)
    other = write(tmp_path, "o.conllu", SENTENCE.replace("3\tnsubj:pass", "3\tnsubj").replace("2\tdet", "3\tdet"))
    status, doc = diff_json(gold, other)
    assert status == 1
    (sentence,) = doc["sentences"]
    assert sentence["sent_id"] == "s1"
    assert [d["id"] for d in sentence["differences"]] == [1, 2]
    assert sentence["differences"][0] == {"id": 1, "form": "A", "gold": {"head": 2, "deprel": "det"},
                                          "other": {"head": 3, "deprel": "det"}}
    # 2 of 3 heads right; labelled: word 2 differs only by its subtype, which --deprel-base ignores
    assert (doc["total"]["uas"], doc["total"]["las"]) == (66.67, 33.33)
    status, doc = diff_json(gold, other, "--deprel-base")
    assert (doc["total"]["uas"], doc["total"]["las"]) == (66.67, 66.67)
    assert [d["id"] for d in doc["sentences"][0]["differences"]] == [1]
    tsv = run_cli("diff", gold, other, "--format", "tsv").stdout.decode().splitlines()
    assert tsv == ["sent_id\tid\tform\tgold_head\tgold_deprel\tother_head\tother_deprel",
                   "s1\t1\tA\t2\tdet\t3\tdet", "s1\t2\tdog\t3\tnsubj:pass\t3\tnsubj"]
    text = run_cli("diff", gold, other)
    assert text.returncode == 1
    assert b"UAS 66.67, LAS 33.33" in text.stdout


@pytest.mark.parametrize("other_text, where, message", [
    (SENTENCE.replace("s1", "s2"), "o.conllu:1", "sentence id 's2' does not match 's1'"),
    (SENTENCE.replace("3\tbarks\tbark\tVERB\t_\t_\t0\troot\t_\t_\n", "").replace("\t3\tnsubj", "\t0\tnsubj"),
     "o.conllu:1", "2 words, but"),
    (SENTENCE.replace("\tdog\t", "\tcat\t"), "o.conllu:3", "word 2 is 'cat'"),
    (SENTENCE + SENTENCE.replace("s1", "s9"), "o.conllu:6", "sentence 2 has no counterpart"),
    ("", "g.conllu:1", "sentence 1 has no counterpart"),
])
def test_a_mismatch_is_a_located_error(tmp_path, other_text, where, message):
    gold = write(tmp_path, "g.conllu", SENTENCE)
    other = write(tmp_path, "o.conllu", other_text)
    result = run_cli("diff", gold, other)
    assert result.returncode == 2
    line = result.stderr.decode()
    assert line.startswith(str(tmp_path / where) + ": ") and message in line, line
    assert line.count("\n") == 1
    assert line.count("(sentence ") <= 1 and " 1 sentences" not in line, line  # the id said once; "1 sentence"


def test_ptb_input_is_refused():
    result = run_cli("diff", SAMPLE_DATA / "wsj_sample.mrg", EN)
    assert result.returncode == 2
    assert b"needs a dependency treebank" in result.stderr
