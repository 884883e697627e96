"""The documentation site: it builds with ``mkdocs build --strict``, and its command page is the CLI's own help.

The build needs the ``docs`` extra (``pip install -e '.[docs]'``); without it the build test skips and says so.
The command page is checked against the typer application itself: every command it registers, and every option
of each, must appear in that command's section, whatever the terminal the page was built in.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import click
import pytest
import typer.main

from conftest import ROOT
from treetool.commands.app import app


def _cli_reference():
    """docs/cli_reference.py, the MkDocs hook that renders the command page (not an installed module)."""
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "docs" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sections(markdown: str) -> dict[str, str]:
    """The rendered page cut at its ``## `treetool NAME` `` headings: name -> that section's text."""
    parts = re.split(r"^## `treetool ?([a-z-]*)`$", markdown, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def test_command_page_has_every_command_and_option_of_the_app():
    group = typer.main.get_command(app)
    context = click.Context(group)
    names = group.list_commands(context)
    sections = _sections(_cli_reference().render())
    assert set(sections) == {"", *names}
    for name in names:
        command = group.get_command(context, name)
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for flag in param.opts + param.secondary_opts:
                    assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", sections[name]), (name, flag)


def test_command_page_does_not_depend_on_the_terminal(monkeypatch):
    reference = _cli_reference()
    wide = reference.render()
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("TERM", "xterm-256color")
    narrow = reference.render()
    assert narrow == wide
    long_lines = [line for line in wide.splitlines() if len(line) > reference.HELP_WIDTH]
    assert all(line.startswith("    treetool ") for line in long_lines)  # only examples, which click never wraps
    assert "\x1b[" not in wide


def test_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        pytest.skip("mkdocs and mkdocstrings are not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, capture_output=True, text=True, env={"NO_MKDOCS_2_WARNING": "1",
                                                                          "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    commands = (site / "commands" / "index.html").read_text()
    assert "treetool annotate" in commands and "--max-seconds" in commands
    training = (site / "reference" / "training" / "index.html").read_text()
    assert "ActionVocabulary" in training and "cost_vector" in training
