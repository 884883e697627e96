"""`treetool view`: the drawing is read back and checked against the tree it draws.

The checks derive everything from the heads: each arc must appear as one
vertical line (a run of cells with an up or down stroke) spanning exactly
the rows of its head and dependent, an arrowhead beside the line on the
dependent's row, dashed exactly when the arc is non-projective by the
definition (a word between h and d that h does not dominate, computed here
by walking up the heads).
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from conftest import SAMPLE_DATA, run_cli
from treetool.drawing import draw_comparison, draw_tree

EN = SAMPLE_DATA / "en_sample.conllu"

STROKES = {  # glyph -> (up, down)
    "│": (1, 1), "┆": (1, 1), "╭": (0, 1), "╮": (0, 1), "╰": (1, 0), "╯": (1, 0), "├": (1, 1), "┤": (1, 1),
    "┬": (0, 1), "┴": (1, 0), "┼": (1, 1),
}


def dominates(heads: list[int], h: int, w: int) -> bool:
    while w > 0:
        if w == h:
            return True
        w = heads[w]
    return h == 0


def non_projective(heads: list[int], d: int) -> bool:
    h = heads[d]
    return any(not dominates(heads, h, w) for w in range(min(h, d) + 1, max(h, d)))


def vertical_runs(rows: list[str], width: int) -> list[tuple[int, int, int]]:
    """(column, first row, last row) of every vertical line in the first ``width`` columns (rows 1-based)."""
    runs = []
    for col in range(width):
        start = None
        for r, line in enumerate(rows, 1):
            up, down = STROKES.get(line[col], (0, 0))
            if down and not up:
                assert start is None, f"line starts inside a line at row {r}, column {col}"
                start = r
            elif up and not down:
                assert start is not None, f"line ends without a start at row {r}, column {col}"
                runs.append((col, start, r))
                start = None
            elif up and down:
                assert start is not None, f"line passes without a start at row {r}, column {col}"
        assert start is None
    return runs


def lane_width(rows: list[str]) -> int:
    """The lane area ends where the label field starts: the first column no row has a stroke or arrow after."""
    return max((max((i for i, c in enumerate(line) if c in STROKES or c == "►"), default=-1) + 1 for line in rows),
               default=0)


def check_drawing(heads: list[int], rows: list[str], deprels: list[str], forms: list[str]) -> None:
    n = len(heads) - 1
    assert len(rows) == n
    width = lane_width(rows)
    runs = vertical_runs(rows, width)
    expected = Counter((min(heads[d], d), max(heads[d], d)) for d in range(1, n + 1) if heads[d] > 0)
    assert Counter((a, b) for _, a, b in runs) == expected
    by_span = {}
    for col, a, b in runs:
        by_span.setdefault((a, b), []).append(col)
    for d in range(1, n + 1):
        row = rows[d - 1]
        assert row.endswith(f" {d} {forms[d]}") and f"{deprels[d]}" in row[width:]
        if heads[d] == 0:
            assert "►" not in row
            continue
        span = (min(heads[d], d), max(heads[d], d))
        col = by_span[span][0] if len(by_span[span]) == 1 else None
        if col is not None:
            assert row[col + 1] == "►", (d, row)
            dashed = any(rows[r - 1][col] == "┆" for r in range(span[0] + 1, span[1]))
            crossed_everywhere = all(rows[r - 1][col] == "┼" for r in range(span[0] + 1, span[1]))
            assert dashed == non_projective(heads, d) or (crossed_everywhere and not dashed), (d, rows)
    assert sum(row.count("►") for row in rows) == sum(h > 0 for h in heads[1:])


@st.composite
def trees(draw, max_words: int = 9):
    n = draw(st.integers(1, max_words))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [-1] + [0] * n
    placed = [0]
    for k, w in enumerate(order):
        heads[w] = 0 if k == 0 else draw(st.sampled_from(placed[1:]))
        placed.append(w)
    return heads


@settings(max_examples=200, deadline=None)
@given(trees())
def test_every_arc_is_one_line_between_its_words(heads):
    n = len(heads) - 1
    deprels = [""] + [f"l{i}" for i in range(1, n + 1)]
    forms = [""] + [f"w{i}" for i in range(1, n + 1)]
    rows = [line.plain for line in draw_tree(heads, deprels, forms)]
    check_drawing(heads, rows, deprels, forms)


def test_a_hand_checked_non_projective_tree():
    # 1 <- 3 -> 2 is projective; 4 -> 1 crosses nothing; 2 -> 5 passes 3 and 4, which 2 does not dominate
    heads = [-1, 3, 3, 0, 3, 2]
    rows = [line.plain for line in draw_tree(heads, ["", "a", "b", "root", "c", "d"], ["", "A", "B", "C", "D", "E"])]
    check_drawing(heads, rows, ["", "a", "b", "root", "c", "d"], ["", "A", "B", "C", "D", "E"])
    assert [non_projective(heads, d) for d in range(1, 6)] == [False, False, False, False, True]
    # the longest arc, 2 -> 5, overlaps 3 -> 1 (rows 1-3), so it takes the outer lane, dashed over rows 3 and 4
    assert [row[0] for row in rows] == [" ", "╭", "┆", "┆", "╰"] and rows[4][1] == "►"


def test_comparison_mirrors_the_other_tree_and_marks_differences():
    heads, other = [-1, 2, 0, 2], [-1, 3, 0, 2]
    deprels, other_deprels = ["", "det", "root", "obj"], ["", "det", "root", "nmod"]
    forms = ["", "A", "B", "C"]
    rows = [line.plain for line in draw_comparison(heads, deprels, forms, other, other_deprels)]
    marked = [r for r, row in enumerate(rows, 1) if "≠" in row]
    assert marked == [1, 3]
    mark = rows[0].index("≠")  # the marks' column: the words and the first tree left of it, the other tree right
    left = [row[:mark] for row in rows]
    right = [row[mark + 1:][::-1].translate(str.maketrans("╭╮╰╯├┤►◄", "╮╭╯╰┤├◄►")) for row in rows]
    assert {(a, b) for _, a, b in vertical_runs(left, lane_width(left))} == {(1, 2), (2, 3)}
    assert {(a, b) for _, a, b in vertical_runs(right, lane_width(right))} == {(1, 3), (2, 3)}


def display_width(text: str) -> int:
    """Terminal columns: East Asian wide and fullwidth characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@pytest.mark.parametrize("forms", [["", "中國", "3354.7", "平方公里"], ["", "e\u0301te\u0301", "abcdef", "x"]],
                         ids=["wide", "combining"])
def test_comparison_columns_line_up_on_a_terminal(forms):
    """The other tree starts in the same terminal column on every row, whatever the words' widths."""
    heads, deprels = [-1, 3, 3, 0], ["", "nmod", "nummod", "root"]
    rows = [line.plain for line in draw_comparison(heads, deprels, forms, heads, deprels)]
    assert len({display_width(row) for row in rows}) == 1, rows
    # the other tree's labels start one column after the mark column, on every row
    assert len({display_width(row[:row.rindex(label) - 1]) for row, label in zip(rows, deprels[1:])}) == 1, rows


def test_view_is_plain_text_when_piped_and_marks_the_non_projective_arc():
    result = run_cli("view", EN)
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "\x1b[" not in text
    assert text.count("# sent_id = ") == 3
    assert "non-projective arcs (dashed): 2→7" in text and text.count("non-projective arcs") == 1


def test_view_colours_on_a_terminal():
    from rich.console import Console
    from treetool.drawing import NON_PROJECTIVE_STYLE

    lines = draw_tree([-1, 3, 0, 2, 3], ["", "a", "root", "b", "c"], ["", "A", "B", "C", "D"])
    console = Console(force_terminal=True, color_system="standard", width=80)
    with console.capture() as capture:
        for line in lines:
            console.print(line)
    assert "\x1b[31m" in capture.get()  # red: the non-projective arc 3 -> 1 passes 2, not dominated by 3
    assert NON_PROJECTIVE_STYLE == "red"


def test_view_selects_by_id_and_projectivity():
    by_id = run_cli("view", EN, "--sent-id", "en-3", "--sent-id", "en-1").stdout.decode()
    assert [line for line in by_id.splitlines() if line.startswith("# sent_id")] == [
        "# sent_id = en-1   (%s:1)" % EN, "# sent_id = en-3   (%s:26)" % EN]
    nonproj = run_cli("view", EN, "--non-projective").stdout.decode()
    assert nonproj.count("# sent_id = ") == 1 and "en-2" in nonproj
    missing = run_cli("view", EN, "--sent-id", "nope")
    assert missing.returncode == 0 and b"1 of 1 ids matched no sentence" in missing.stderr


def test_view_compare_marks_what_projectivize_changed(tmp_path):
    out = tmp_path / "proj.conllu"
    assert run_cli("projectivize", EN, "-o", out).returncode == 0
    text = run_cli("view", EN, "--compare", out).stdout.decode()
    marked = [line for line in text.splitlines() if "≠" in line]
    assert len(marked) == 1 and " 7 issue" in marked[0]


def test_view_draws_ptb_as_brackets_and_refuses_dependency_options():
    result = run_cli("view", SAMPLE_DATA / "wsj_sample.mrg")
    assert result.returncode == 0 and b"(NP-SBJ-1 (DT The) (NN company))" in result.stdout
    for option in (["--non-projective"], ["--compare", EN]):
        refused = run_cli("view", SAMPLE_DATA / "wsj_sample.mrg", *option)
        assert refused.returncode == 2 and b"needs a dependency treebank" in refused.stderr


def test_view_selects_ptb_trees_by_their_number(tmp_path):
    path = tmp_path / "three.mrg"
    path.write_text("(S (A a))\n(S (B b))\n(S (C c))\n")
    ids = tmp_path / "ids.txt"
    ids.write_text("3\n1\n")
    for option in (["--ids", ids], ["--sent-id", "3", "--sent-id", "1"]):
        result = run_cli("view", path, *option)
        assert result.returncode == 0 and result.stderr == b""
        headers = [line for line in result.stdout.decode().splitlines() if line.startswith("#")]
        assert headers == [f"# tree 1   ({path})", f"# tree 3   ({path})"]


def test_view_compare_needs_one_file_and_aligned_sentences(tmp_path):
    assert run_cli("view", EN, EN, "--compare", EN).returncode == 2
    result = run_cli("view", EN, "--compare", SAMPLE_DATA / "de_sample.conllu")
    assert result.returncode == 2 and b"does not match" in result.stderr


def _first_fit_reference(heads: list[int]) -> dict[int, int]:
    """Lanes by the definition: shortest arc first, each in the lowest lane where it shares no row with an
    arc already there (every span of every lane compared)."""
    lanes: list[list[tuple[int, int]]] = []
    lane_of = {}
    for _, _, d in sorted((abs(h - d), min(h, d), d) for d, h in enumerate(heads) if d and h > 0):
        top, bottom = sorted((heads[d], d))
        lane = next((k for k, spans in enumerate(lanes) if all(bottom < a or top > b for a, b in spans)), len(lanes))
        if lane == len(lanes):
            lanes.append([])
        lanes[lane].append((top, bottom))
        lane_of[d] = lane
    return lane_of


@settings(max_examples=200, deadline=None)
@given(trees(max_words=40))
def test_layout_places_arcs_as_first_fit_does(heads):
    from treetool.drawing import layout

    assert {arc.dep: arc.lane for arc in layout(heads)} == _first_fit_reference(heads)


@settings(max_examples=100, deadline=None)
@given(trees(max_words=30), st.integers(1, 6))
def test_layout_refuses_exactly_the_trees_wider_than_the_limit(heads, max_lanes):
    from treetool.drawing import TooWide, layout

    needed = 1 + max(_first_fit_reference(heads).values(), default=-1)
    if needed > max_lanes:
        with pytest.raises(TooWide):
            layout(heads, max_lanes)
    else:
        assert len(layout(heads, max_lanes)) == sum(1 for h in heads[1:] if h > 0)


def test_view_of_a_10000_word_tree_says_it_is_too_wide(tmp_path):
    """A drawing's size is words times lanes: a random 10,000-word tree gets one line instead of gigabytes."""
    import random

    rng = random.Random(7)
    order = list(range(1, 10_001))
    rng.shuffle(order)
    heads = [0] * 10_001
    for i, d in enumerate(order):
        heads[d] = 0 if i == 0 else order[rng.randrange(i)]
    path = tmp_path / "long.conllu"
    path.write_text("".join(f"{d}\tw\tw\tX\tX\t_\t{heads[d]}\tdep\t_\t_\n" for d in range(1, 10_001)) + "\n")
    result = run_cli("view", path)
    assert result.returncode == 0
    assert b"(not drawn: its arcs need more than 80 lanes; --max-lanes N draws wider trees)" in result.stdout


def test_a_limit_of_one_lane_is_said_in_the_singular(tmp_path):
    path = tmp_path / "crossing.conllu"  # 1 -> 3 and 2 -> 4 overlap: two lanes
    path.write_text("".join(f"{d}\tw\tw\tX\tX\t_\t{h}\tdep\t_\t_\n" for d, h in [(1, 0), (2, 1), (3, 1), (4, 2)]) + "\n")
    result = run_cli("view", path, "--max-lanes", "1")
    assert b"need more than 1 lane;" in result.stdout


def test_view_names_a_sentence_without_sent_id_by_position_and_selects_it_so(tmp_path):
    path = tmp_path / "no_ids.conllu"
    path.write_text("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n1\tb\t_\t_\t_\t_\t2\tx\t_\t_\n2\tc\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    ids = tmp_path / "ids.txt"
    ids.write_text("2\n")
    for option in (["--ids", ids], ["--sent-id", "2"]):
        result = run_cli("view", path, *option)
        assert result.returncode == 0 and result.stderr == b""
        headers = [line for line in result.stdout.decode().splitlines() if line.startswith("#")]
        assert headers == [f"# sentence 2   ({path}:3)"]
