"""`--plot`: matplotlib is optional; without it a clear error, with it a valid PNG or SVG file."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import SAMPLE_DATA, run_cli

EN = SAMPLE_DATA / "en_sample.conllu"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_without_matplotlib_plot_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # any import of it now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    target = tmp_path / "out.png"
    for args in (["stats", EN], ["projectivize", EN, "--count", "-o", tmp_path / "x.conllu"]):
        result = run_cli(*args, "--plot", target)
        assert result.returncode == 2
        message = result.stderr.decode()
        assert message.startswith("treetool: error: --plot: ") and "pip install 'treetool[plot]'" in message
        assert message.count("\n") == 1
        assert list(tmp_path.iterdir()) == []  # nothing written, not even the projectivized output


def test_plot_needs_a_png_or_svg_name_and_projectivize_needs_count(tmp_path):
    bad = run_cli("stats", EN, "--plot", tmp_path / "out.pdf")
    assert bad.returncode == 2 and b".png or .svg" in bad.stderr
    no_count = run_cli("projectivize", EN, "--plot", tmp_path / "out.png")
    assert no_count.returncode == 2 and b"--plot needs --count" in no_count.stderr


def assert_png(path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR" and data.endswith(b"IEND\xaeB`\x82")


def assert_svg(path) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_stats_plot_writes_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the [plot] extra) is not installed")
    for name, check in (("a.png", assert_png), ("a.svg", assert_svg)):
        result = run_cli("stats", EN, SAMPLE_DATA / "de_sample.conllu", "--plot", tmp_path / name)
        assert result.returncode == 0, result.stderr
        check(tmp_path / name)


def test_projectivize_count_plot(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the [plot] extra) is not installed")
    out, figure = tmp_path / "out.conllu", tmp_path / "counts.svg"
    result = run_cli("projectivize", EN, "--count", "--plot", figure, "-o", out)
    assert result.returncode == 0, result.stderr
    assert_svg(figure)
    assert b"# optimal_projective_trees = " in out.read_bytes()


def test_geometric_mean_by_length_is_the_mean_of_logarithms():
    from treetool.plots import GeometricMeanByLength

    means = GeometricMeanByLength()
    for length, count in ((5, 1), (5, 100), (3, 10), (300, 10 ** 400)):  # 10**400 is beyond a float
        means.add(length, count)
    assert means.log10_points() == [(3, 1.0), (5, 1.0), (300, 400.0)]
