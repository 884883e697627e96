"""The README's examples run as written (issue 24): every command line of its Commands section, every Python example.

The install and test lines of its Install and Quick start sections are what ``.ci/run`` executes, and its
Documentation line is CI's site build; everything else is here. Each command line runs in a fresh folder holding a
copy of ``sample_data/``, in the README's order (later lines read what earlier ones wrote), through the installed
``treetool``; it must succeed (``diff`` says "different" with status 1, as the README notes), print no traceback and
write a non-empty ``-o`` file. The Python examples are doctests.
"""

from __future__ import annotations

import doctest
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"the README has no section {title!r}"
    return match.group(1)


def command_lines() -> list[str]:
    """The ``treetool ...`` lines of the Commands section's shell blocks (comments after ``#`` dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", _section("Commands"), re.S)
    return [shlex.split(line, comments=True) for block in blocks for line in block.splitlines()
            if line.startswith("treetool ")]


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_the_commands_section_shows_every_command_and_only_those():
    import typer.main

    from treetool.commands.app import app

    registered = set(typer.main.get_command(app).list_commands(None))
    assert {words[1] for words in command_lines()} == registered


def test_every_command_line_runs(tmp_path):
    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data")
    treetool = [sys.executable, "-m", "treetool"]
    for words in command_lines():
        run = subprocess.run(treetool + words[1:], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        expected = 1 if words[1] == "diff" else 0
        assert run.returncode == expected, f"{shlex.join(words)}: {run.stderr}"
        assert "Traceback" not in run.stderr, shlex.join(words)
        if "-o" in words:
            output = tmp_path / words[words.index("-o") + 1]
            assert output.stat().st_size > 0, shlex.join(words)


@pytest.mark.parametrize("block", re.findall(r"```pycon\n(.*?)```", README, re.S))
def test_python_examples_are_doctests(block):
    test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize().failed == 0
