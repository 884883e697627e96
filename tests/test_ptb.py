"""Tests for treetool.formats.ptb: streaming Penn Treebank reader, cleaning, writer."""

from __future__ import annotations

import copy
import io
import itertools

import pytest
from conftest import run_cli, shared_path
from nltk import Tree

from treetool.errors import TreebankError
from treetool.formats.ptb import (
    drop_trace_elements,
    parse_ptb_string,
    read_ptb,
    read_ptb_file,
    read_ptb_with_lines,
    remove_outer_wrapper,
    strip_function_tags,
    strip_label,
    tree_to_line,
    write_ptb,
)

# A hand-written tree with traces, function tags, an index and brackets.
SAMPLE = (
    "( (S (NP-SBJ-1 (-NONE- *T*-1)) (VP (VBD ran) (NP (-NONE- *)) "
    "(PP-LOC (IN in) (NP (-LRB- -LRB-) (NN park) (-RRB- -RRB-))))) )"
)
# Expected results, worked out by hand.
SAMPLE_RAW = (
    "( (S (NP-SBJ-1 (-NONE- *T*-1)) (VP (VBD ran) (NP (-NONE- *)) "
    "(PP-LOC (IN in) (NP (-LRB- -LRB-) (NN park) (-RRB- -RRB-))))))"
)
SAMPLE_NO_TRACES = (
    "( (S (VP (VBD ran) (PP-LOC (IN in) (NP (-LRB- -LRB-) (NN park) (-RRB- -RRB-))))))"
)
SAMPLE_STRIPPED = (
    "( (S (NP (-NONE- *T*-1)) (VP (VBD ran) (NP (-NONE- *)) "
    "(PP (IN in) (NP (-LRB- -LRB-) (NN park) (-RRB- -RRB-))))))"
)
SAMPLE_UNWRAPPED = (
    "(S (NP-SBJ-1 (-NONE- *T*-1)) (VP (VBD ran) (NP (-NONE- *)) "
    "(PP-LOC (IN in) (NP (-LRB- -LRB-) (NN park) (-RRB- -RRB-)))))"
)
SAMPLE_CLEAN = "(S (VP (VBD ran) (PP (IN in) (NP (-LRB- -LRB-) (NN park) (-RRB- -RRB-)))))"


def lines_of(text: str) -> list[str]:
    return io.StringIO(text).readlines()


def read_lines(text: str, **options) -> list[str]:
    return [tree_to_line(t) for t in read_ptb(lines_of(text), "t.mrg", **options)]


def collect_errors(text: str, **options) -> tuple[list[str], list[TreebankError]]:
    errors: list[TreebankError] = []
    trees = [
        tree_to_line(t)
        for t in read_ptb(lines_of(text), "t.mrg", on_error=errors.append, **options)
    ]
    return trees, errors


# --------------------------------------------------------------------------
# Reading: layout
# --------------------------------------------------------------------------


def test_tree_structure_leaves_are_strings_preterminals_have_one_word():
    (tree,) = read_ptb(["(S (NP (DT The) (NN cat)) (VP (VBD sat)))\n"])
    assert isinstance(tree, Tree)
    assert tree.label() == "S"
    assert tree.leaves() == ["The", "cat", "sat"]
    assert all(type(leaf) is str for leaf in tree.leaves())
    assert tree[0][0] == Tree("DT", ["The"])
    assert [t.label() for t in tree.subtrees(lambda t: t.height() == 2)] == ["DT", "NN", "VBD"]


def test_multiple_trees_per_line():
    text = "(S (NN a)) (S (NN b))(S (NN c))\n( (S (NN d)) )\n"
    got = list(read_ptb_with_lines(lines_of(text)))
    assert [tree_to_line(t) for _, t in got] == [
        "(S (NN a))",
        "(S (NN b))",
        "(S (NN c))",
        "( (S (NN d)))",
    ]
    assert [line for line, _ in got] == [1, 1, 1, 2]


def test_tree_spanning_lines():
    text = (
        "\n"
        "( (S \n"
        "    (NP-SBJ (NNP Mr.) (NNP Vinken) )\n"
        "    (VP (VBZ is) \n"
        "      (NP-PRD (NN chairman) ))\n"
        "    (. .) ))\n"
        "\n"
        "(S\n(NN x)\n)\n"
    )
    got = list(read_ptb_with_lines(lines_of(text)))
    assert [tree_to_line(t) for _, t in got] == [
        "( (S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NN chairman))) (. .)))",
        "(S (NN x))",
    ]
    assert [line for line, _ in got] == [2, 8]


def test_with_and_without_outer_bracket():
    bare = "(S (NP (DT The) (NN cat)) (VP (VBD sat)))\n"
    wrapped = "( (S (NP (DT The) (NN cat)) (VP (VBD sat))) )\n"
    assert read_lines(bare) == ["(S (NP (DT The) (NN cat)) (VP (VBD sat)))"]
    # kept by default, as an unlabeled node, and written back as such
    (tree,) = read_ptb([wrapped])
    assert tree.label() == "" and len(tree) == 1 and tree[0].label() == "S"
    assert tree_to_line(tree) == "( (S (NP (DT The) (NN cat)) (VP (VBD sat))))"
    assert read_lines(wrapped, remove_wrapper=True) == read_lines(bare)
    assert read_lines(bare, remove_wrapper=True) == read_lines(bare)
    # without a space: "((S ...))"
    assert read_lines("((S (NN a)))", remove_wrapper=True) == ["(S (NN a))"]


@pytest.mark.parametrize("label", ["ROOT", "TOP"])
def test_root_top_wrapper(label):
    text = f"({label} (S (NN a) (VB b)))\n"
    assert read_lines(text) == [f"({label} (S (NN a) (VB b)))"]
    assert read_lines(text, remove_wrapper=True) == ["(S (NN a) (VB b))"]
    # nested wrappers go too
    assert read_lines(f"( ({label} (S (NN a))) )", remove_wrapper=True) == ["(S (NN a))"]


def test_wrapper_with_several_children_or_a_word_is_kept():
    assert read_lines("(ROOT (S (NN a)) (S (NN b)))", remove_wrapper=True) == [
        "(ROOT (S (NN a)) (S (NN b)))"
    ]
    assert read_lines("( (S (NN a)) (S (NN b)))", remove_wrapper=True) == [
        "( (S (NN a)) (S (NN b)))"
    ]
    assert read_lines("(ROOT word)", remove_wrapper=True) == ["(ROOT word)"]
    assert read_lines("(S (NN a))", remove_wrapper=True) == ["(S (NN a))"]


def test_crlf_input():
    text = "( (S (NP-SBJ (-NONE- *))\r\n    (VP (VBD ran) ))\r\n)\r\n(S (NN b))\r\n"
    lf = text.replace("\r\n", "\n")
    crlf_lines = text.splitlines(keepends=True)
    assert crlf_lines[0].endswith("\r\n")  # the test really feeds CRLF
    got = [tree_to_line(t) for t in read_ptb(crlf_lines)]
    assert got == read_lines(lf)
    assert got == ["( (S (NP-SBJ (-NONE- *)) (VP (VBD ran))))", "(S (NN b))"]
    assert not any("\r" in s for t in read_ptb(crlf_lines) for s in t.leaves() + [t.label()])
    got = [tree_to_line(t) for t in read_ptb(crlf_lines, drop_traces=True, remove_wrapper=True)]
    assert got == ["(S (VP (VBD ran)))", "(S (NN b))"]


def test_crlf_file(tmp_path):
    path = tmp_path / "crlf.mrg"
    path.write_bytes(b"( (S (NN a)\r\n  (VB b)) )\r\n")
    assert [tree_to_line(t) for t in read_ptb_file(path, remove_wrapper=True)] == [
        "(S (NN a) (VB b))"
    ]


def test_byte_order_mark_is_ignored():
    assert read_lines("\ufeff(S (NN a))\n") == ["(S (NN a))"]


def test_streaming_does_not_read_ahead():
    consumed = 0

    def endless():
        nonlocal consumed
        for line in itertools.cycle(["( (S\n", "  (NN a) )\n", ")\n"]):
            consumed += 1
            yield line

    trees = read_ptb(endless(), remove_wrapper=True)
    first = list(itertools.islice(trees, 3))
    assert [tree_to_line(t) for t in first] == ["(S (NN a))"] * 3
    assert consumed == 9


# --------------------------------------------------------------------------
# Cleaning options
# --------------------------------------------------------------------------


def test_no_options_keeps_everything():
    assert read_lines(SAMPLE) == [SAMPLE_RAW]


def test_drop_traces_only():
    assert read_lines(SAMPLE, drop_traces=True) == [SAMPLE_NO_TRACES]


def test_strip_functions_only():
    assert read_lines(SAMPLE, strip_functions=True) == [SAMPLE_STRIPPED]


def test_remove_wrapper_only():
    assert read_lines(SAMPLE, remove_wrapper=True) == [SAMPLE_UNWRAPPED]


def test_all_options():
    assert read_lines(
        SAMPLE, drop_traces=True, strip_functions=True, remove_wrapper=True
    ) == [SAMPLE_CLEAN]


def test_drop_traces_removes_nested_empty_constituents():
    text = (
        "(S (NP (NNS People)) (VP (VBD said) (SBAR (-NONE- 0) (S (-NONE- *T*-1)))) (. .))"
    )
    assert read_lines(text, drop_traces=True) == [
        "(S (NP (NNS People)) (VP (VBD said)) (. .))"
    ]


def test_tree_of_only_traces():
    text = "( (S (NP (-NONE- *))) )\n(S (NN a))\n"
    assert read_lines(text) == ["( (S (NP (-NONE- *))))", "(S (NN a))"]
    with pytest.raises(TreebankError) as info:
        read_lines(text, drop_traces=True)
    assert "only -NONE-" in info.value.message
    assert info.value.line == 1
    trees, errors = collect_errors(text, drop_traces=True)
    assert trees == ["(S (NN a))"]
    assert [e.line for e in errors] == [1]


@pytest.mark.parametrize(
    "label, expected",
    [
        ("NP-SBJ-1", "NP"),
        ("NP=2", "NP"),
        ("PP-LOC=3", "PP"),
        ("PP-TMP=3", "PP"),
        ("S-TPC-1", "S"),
        ("ADVP-LOC-PRD-TPC-1", "ADVP"),
        ("NP", "NP"),
        ("PRP$", "PRP$"),
        ("-LRB-", "-LRB-"),
        ("-RRB-", "-RRB-"),
        ("-LCB-", "-LCB-"),
        ("-RCB-", "-RCB-"),
        ("-NONE-", "-NONE-"),
        ("-FOO-1", "-FOO-1"),
        ("=1", "=1"),
        ("", ""),
    ],
)
def test_strip_label(label, expected):
    assert strip_label(label) == expected


def test_strip_functions_applies_to_pos_labels_not_words():
    assert read_lines("(S-1 (NN-X a-b=c) (-LCB- -LCB-))", strip_functions=True) == [
        "(S (NN a-b=c) (-LCB- -LCB-))"
    ]


def test_standalone_cleaning_functions():
    tree = parse_ptb_string(SAMPLE)
    assert tree_to_line(remove_outer_wrapper(copy.deepcopy(tree))) == SAMPLE_UNWRAPPED
    assert tree_to_line(strip_function_tags(copy.deepcopy(tree))) == SAMPLE_STRIPPED
    assert tree_to_line(drop_trace_elements(copy.deepcopy(tree))) == SAMPLE_NO_TRACES
    assert drop_trace_elements(parse_ptb_string("( (S (NP (-NONE- *))) )")) is None
    assert tree_to_line(tree) == SAMPLE_RAW  # the copies were changed, not tree


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def first_error(text: str, **options) -> TreebankError:
    with pytest.raises(TreebankError) as info:
        read_lines(text, **options)
    assert info.value.filename == "t.mrg"
    return info.value


def test_error_extra_closing_bracket():
    text = "(S (NN a))\n(S (NN b)))\n(S (NN c))\n"
    error = first_error(text)
    assert error.message == "unbalanced brackets: extra ')'"
    assert error.line == 2
    assert str(error).startswith("t.mrg:2: ")
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))", "(S (NN b))", "(S (NN c))"]
    assert [(e.message, e.line) for e in errors] == [("unbalanced brackets: extra ')'", 2)]


def test_error_extra_closing_bracket_resynchronises_at_next_open_bracket():
    # the stray ")" ends (S ...) early; its words are skipped without further
    # errors, up to the next top-level "("
    text = "(S (NN a)) ) (NN b) ) x y\n\n(S (NN c))\n"
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))", "(NN b)", "(S (NN c))"]
    assert [(e.message, e.line) for e in errors] == [
        ("unbalanced brackets: extra ')'", 1),
        ("unbalanced brackets: extra ')'", 1),
    ]


def test_error_unclosed_bracket_reports_line_where_tree_starts():
    text = "(S (NN a))\n\n( (S (NN b)\n  (VB c))\n"
    error = first_error(text)
    assert error.message.startswith("unbalanced brackets: 1 '(' not closed at end of input")
    assert error.line == 3
    assert error.raw == "( (S (NN b)\n  (VB c))\n"
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))"]
    assert [e.line for e in errors] == [3]


NOT_CLOSED = ("unbalanced brackets: the tree starting on this line is not closed (1 '(' still open at line {}, "
              "where the next tree starts)")


def test_a_tree_missing_its_last_bracket_is_reported_at_its_own_line_not_as_the_next_trees_missing_label():
    """The WSJ files start every tree with ``( (`` at the start of a line; met inside a tree, that is the next
    tree, the one being read lacking its last ``)``: reported at that tree's first line, and read on from the next
    one (it was reported as a bracket without a label at the next tree's line, every later tree lost)."""
    broken = "( (S\n    (NP (NN a))\n    (VP (VB b)))\n\n"  # its outer bracket is not closed
    text = "( (S (NN z)) )\n" + broken + "( (S (NN c)) )\n( (S (NN d)) )\n"
    error = first_error(text)
    assert (error.message, error.line) == (NOT_CLOSED.format(6), 2)
    assert str(error).startswith("t.mrg:2: unbalanced brackets: the tree starting on this line is not closed")
    trees, errors = collect_errors(text)
    assert trees == ["( (S (NN z)))", "( (S (NN c)))", "( (S (NN d)))"]
    assert [(e.message, e.line, e.raw) for e in errors] == [(NOT_CLOSED.format(6), 2, broken)]


def test_an_error_inside_a_tree_never_closed_ends_where_the_next_tree_starts():
    text = "( (S (NP ) (VB b))\n( (S (NN c)) )\n"
    trees, errors = collect_errors(text)
    assert trees == ["( (S (NN c)))"]
    assert [(e.message, e.line) for e in errors] == [("constituent (NP) has no children", 1)]


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_stray_text_after_a_tree_that_ends_a_tree_never_closed_is_reported_as_its_own_text(end):
    """The next tree starts on the line (``( (``) and closes there, stray text after it: the line's brackets
    are the new tree's (it was an IndexError: the brackets of the tree never closed were counted as open)."""
    text = f"( (S (NP x){end}( (S (NP y))) junk ) more{end}( (S (NN z)) ){end}"
    trees, errors = collect_errors(text)
    assert trees == ["( (S (NP y)))", "( (S (NN z)))"]
    assert [(type(e).__name__, e.line, e.raw) for e in errors] == [
        ("TreebankError", 1, f"( (S (NP x){end}"), ("StrayText", 2, f"junk ) more{end}")]


def test_error_leaf_outside_brackets():
    text = "(S (NN a))\nstray words\n(S (NN b))\n"
    error = first_error(text)
    assert error.message == "leaf 'stray' outside any bracket"
    assert error.line == 2
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))", "(S (NN b))"]
    assert len(errors) == 1  # "words" is skipped with "stray"


def test_error_empty_tree():
    text = "(S (NN a))\n()\n(S (NN b))\n"
    error = first_error(text)
    assert error.message == "empty tree '()'"
    assert error.line == 2
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))", "(S (NN b))"]
    assert [e.line for e in errors] == [2]


def test_error_empty_brackets_inside_tree():
    text = "(S (NN a))\n( (S\n  (NP ( ))\n  (VP (VB x))))\n(S (NN b))\n"
    error = first_error(text)
    assert error.message == "empty brackets '()'"
    assert error.line == 3
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))", "(S (NN b))"]
    assert [e.line for e in errors] == [3]
    assert errors[0].raw == "( (S\n  (NP ( ))\n  (VP (VB x))))\n"


def test_error_constituent_without_children():
    text = "(S\n (NP)\n (VP (VB x)))\n"
    error = first_error(text)
    assert error.message == "constituent (NP) has no children"
    assert error.line == 2


def test_error_missing_label():
    text = "(S (NN a))\n(S\n  ( (NN a) (NN b))\n  (VP (VB x)))\n(S (NN b))\n"
    error = first_error(text)
    assert error.message == "missing label: bracket without a label"
    assert error.line == 3
    trees, errors = collect_errors(text)
    assert trees == ["(S (NN a))", "(S (NN b))"]
    assert [e.line for e in errors] == [3]
    assert errors[0].raw == "(S\n  ( (NN a) (NN b))\n  (VP (VB x)))\n"


def test_outer_wrapper_is_not_a_missing_label():
    assert read_lines("( (S (NN a)) )") == ["( (S (NN a)))"]


def test_on_error_continues_after_each_bad_tree():
    text = (
        "( (S (NN one)) )\n"
        "( (S (NP ()) (VB bad)) )\n"  # empty brackets, line 2
        "( (S (NN two)) )\n"
        "(S ( (NN bad)))\n"  # missing label, line 4
        "( (S (NN three)) ))\n"  # extra ")", line 5
        "( (S (NN four)) )\n"
        "oops\n"  # leaf outside, line 7
        "( (S (NN unclosed)\n"  # never closed, line 8
    )
    trees, errors = collect_errors(text, remove_wrapper=True)
    assert trees == ["(S (NN one))", "(S (NN two))", "(S (NN three))", "(S (NN four))"]
    assert [e.line for e in errors] == [2, 4, 5, 7, 8]
    assert [e.message.split(":")[0] for e in errors] == [
        "empty brackets '()'",
        "missing label",
        "unbalanced brackets",
        "leaf 'oops' outside any bracket",
        "unbalanced brackets",
    ]
    assert all(e.filename == "t.mrg" for e in errors)
    # without on_error the first one is raised, after the trees before it
    got = []
    with pytest.raises(TreebankError) as info:
        for tree in read_ptb(lines_of(text), "t.mrg", remove_wrapper=True):
            got.append(tree_to_line(tree))
    assert got == ["(S (NN one))"]
    assert info.value.line == 2


# --------------------------------------------------------------------------
# Single strings and writing
# --------------------------------------------------------------------------


def test_parse_ptb_string():
    tree = parse_ptb_string(SAMPLE, drop_traces=True, strip_functions=True, remove_wrapper=True)
    assert tree_to_line(tree) == SAMPLE_CLEAN
    assert tree_to_line(parse_ptb_string("(S\n  (NN a))\n")) == "(S (NN a))"
    with pytest.raises(TreebankError, match="found 2"):
        parse_ptb_string("(S (NN a))\n(S (NN b))")
    with pytest.raises(TreebankError, match="found 0"):
        parse_ptb_string("   \n")


def test_tree_to_line_format():
    tree = Tree("S", [Tree("NP", [Tree("DT", ["The"]), Tree("NN", ["cat"])]),
                      Tree("VP", [Tree("VBD", ["sat"])])])
    assert tree_to_line(tree) == "(S (NP (DT The) (NN cat)) (VP (VBD sat)))"
    assert tree_to_line(Tree("", [Tree("X", ["y"])])) == "( (X y))"


def test_write_ptb_round_trip():
    out = io.StringIO()
    trees = list(read_ptb(lines_of(SAMPLE + "\n(S (NN a))\n")))
    assert write_ptb(trees, out) == 2
    assert out.getvalue() == SAMPLE_RAW + "\n(S (NN a))\n"
    again = list(read_ptb(lines_of(out.getvalue())))
    assert again == trees


# --------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------


def sample_files():
    files = sorted(shared_path("data", "ptb-sample").glob("*.mrg"))
    assert files, "no .mrg files in ptb-sample"
    return files


def test_ptb_sample_matches_reference_clean_file():
    reference = shared_path("reference", "constituency", "ptb-sample.clean.txt")
    files = sample_files()
    assert files[0].name == "wsj_0001.mrg" and files[-1].name == "wsj_0099.mrg"
    out = io.StringIO()
    count = 0
    for path in files:
        count += write_ptb(
            read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True),
            out,
        )
    got = out.getvalue().splitlines(keepends=True)
    expected = reference.read_text(encoding="utf-8").splitlines(keepends=True)
    assert count == len(expected) == 1921
    for i, (g, e) in enumerate(zip(got, expected), 1):
        assert g == e, f"first difference at output line {i}"
    assert out.getvalue() == reference.read_text(encoding="utf-8")


def test_ptb_sample_fused_cleaning_equals_standalone_functions():
    for path in sample_files()[:20]:
        raw = list(read_ptb_file(path))
        clean = list(
            read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True)
        )
        assert len(raw) == len(clean)
        for tree, expected in zip(raw, clean):
            tree = remove_outer_wrapper(strip_function_tags(drop_trace_elements(tree)))
            assert tree == expected


def _chain(depth: int) -> str:
    """A right-branching tree whose brackets nest ``depth`` deep (preterminals included)."""
    n = depth
    return "".join(f"(X (T w{i}) " for i in range(n - 1)) + f"(T w{n - 1})" + ")" * (n - 1)


def test_trees_up_to_max_depth_work_through_the_commands(tmp_path):
    from treetool.formats.ptb import MAX_DEPTH

    path = tmp_path / "deep.mrg"
    path.write_text(_chain(MAX_DEPTH) + "\n")
    oracle = run_cli("oracle", path, "--system", "in-order")
    assert oracle.returncode == 0, oracle.stderr
    back = run_cli("replay", "-", "--system", "in-order", stdin=oracle.stdout)
    assert back.returncode == 0 and back.stdout.decode() == _chain(MAX_DEPTH) + "\n"
    for args in (["stats"], ["view"], ["annotate", "--system", "in-order", "--loss", "paper"]):
        assert run_cli(*args[:1], path, *args[1:]).returncode == 0, args


def test_deeper_trees_are_refused_at_their_line(tmp_path):
    from treetool.formats.ptb import MAX_DEPTH

    path = tmp_path / "deeper.mrg"
    path.write_text("(S (NN a))\n" + _chain(MAX_DEPTH + 1) + "\n(S (NN b))\n")
    result = run_cli("filter", path)
    assert result.returncode == 2 and result.stderr.decode().startswith(f"{path}:2: brackets nested more than")
    skipped = run_cli("filter", path, "--on-error", "skip")
    assert skipped.returncode == 0 and skipped.stdout.decode() == "(S (NN a))\n(S (NN b))\n"


def test_bracket_leaves_are_nltk_leaves():
    """``Bracket.leaves`` (what ``filter --min-words/--max-words`` counts) against nltk's, on the bundled WSJ
    sample, raw and cleaned, and on a tree nested 400 deep (the reader's limit)."""
    from conftest import SAMPLE_DATA

    from treetool.formats.ptb import Bracket

    text = (SAMPLE_DATA / "wsj_sample.mrg").read_text() + "(X " * 399 + "(NN deep)" + ")" * 399 + "\n"
    for clean in (False, True):
        options = dict(drop_traces=clean, strip_functions=clean, remove_wrapper=clean)
        nltk_trees = list(read_ptb(io.StringIO(text), **options))
        light = list(read_ptb(io.StringIO(text), node=Bracket, **options))
        assert len(light) == len(nltk_trees) > 3
        assert [t.leaves() for t in light] == [t.leaves() for t in nltk_trees]
        assert [tree_to_line(t) for t in light] == [tree_to_line(t) for t in nltk_trees]


@pytest.mark.parametrize("args", [["stats", "--format", "json"], ["stats", "--clean", "--format", "json"],
                                  ["filter", "--drop-traces", "--min-words", "3", "-o", "{out}"], ["view"]])
def test_stats_filter_and_view_on_ptb_do_not_import_nltk(args, tmp_path):
    """nltk is not needed to count, select or draw PTB trees, and importing it costs up to 2 s (it loads scipy
    when that is installed): start-up of every ``stats``/``filter``/``view`` run on a PTB file."""
    import subprocess
    import sys

    from conftest import ROOT, SAMPLE_DATA

    given = [a.replace("{out}", str(tmp_path / "out.mrg")) for a in args]
    script = ("import sys; from treetool.commands.app import app; app(sys.argv[1:], standalone_mode=False); "
              "print('nltk' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", script, given[0], str(SAMPLE_DATA / "wsj_sample.mrg"), *given[1:]],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False"


def test_indented_tree_draws_as_nltk_pformat():
    """``view`` draws PTB trees without nltk: ``indented_tree`` against ``nltk.Tree.pformat`` (the reference) on the
    WSJ sample, raw and cleaned, at margins from narrower than any label to wider than any tree, from both node
    kinds."""
    from treetool.formats.ptb import Bracket, indented_tree

    text = shared_path("data", "ptb-sample", "wsj_0001.mrg").read_text()
    text += shared_path("data", "ptb-sample", "wsj_0003.mrg").read_text()
    for clean in (False, True):
        options = dict(drop_traces=clean, strip_functions=clean, remove_wrapper=clean)
        nltk_trees = list(read_ptb(io.StringIO(text), **options))
        light = list(read_ptb(io.StringIO(text), node=Bracket, **options))
        for margin in (5, 40, 70, 120, 400):
            expected = [tree.pformat(margin=margin) for tree in nltk_trees]
            assert [indented_tree(tree, margin) for tree in light] == expected
            assert [indented_tree(tree, margin) for tree in nltk_trees] == expected


def test_filter_lengths_count_words_not_empty_elements(tmp_path):
    """``filter --min-words/--max-words`` on PTB count the words, as ``stats`` does: a ``-NONE-`` element is a
    trace or a null element, not a word, whether or not ``--drop-traces`` removes it from the output."""
    two_words = "( (S (NP-SBJ (-NONE- *)) (VP (VBD sat)) (. .)) )\n"  # 2 words, 3 leaves
    three_words = "( (S (NP (DT The) (NN cat)) (VP (VBD sat))) )\n"
    path = tmp_path / "t.mrg"
    path.write_text(two_words + three_words)
    at_most_two = run_cli("filter", path, "--max-words", "2")
    assert at_most_two.returncode == 0 and at_most_two.stdout.decode().count("\n") == 1
    assert b"(VBD sat)" in at_most_two.stdout and b"cat" not in at_most_two.stdout
    at_least_three = run_cli("filter", path, "--min-words", "3")
    assert at_least_three.returncode == 0 and at_least_three.stdout.decode().count("\n") == 1
    assert b"cat" in at_least_three.stdout
