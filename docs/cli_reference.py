"""The command reference, rendered from the typer application at build time (an MkDocs hook).

Each command's help is the text ``treetool COMMAND --help`` prints, produced by click's ``get_help`` with a
fixed width and no colour, so the page is the same on every machine and there is no second copy to drift.
"""

from __future__ import annotations

from typing import Any

import click
import typer.main

from treetool.commands.app import app

#: The width the help is wrapped to: fixed, so the page does not depend on the terminal that built it.
HELP_WIDTH = 100

#: The page the hook fills; docs/commands.md holds only a placeholder line.
PAGE = "commands.md"
PLACEHOLDER = "<!-- command help is generated here -->"


def help_text(group: click.Group, name: str | None = None) -> str:
    """``treetool [NAME] --help`` as printed at :data:`HELP_WIDTH` columns (the group's own help if no name)."""
    parent = click.Context(group, info_name="treetool", terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH)
    if name is None:
        return group.get_help(parent)
    command = group.get_command(parent, name)
    context = click.Context(command, info_name=name, parent=parent,
                            terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH)
    return command.get_help(context)


def command_names() -> tuple[click.Group, list[str]]:
    """The application's click group and its commands in the order ``treetool --help`` lists them."""
    group = typer.main.get_command(app)
    return group, group.list_commands(click.Context(group))


def render() -> str:
    """The Markdown of the generated part of the page: the group's help, then one section per command."""
    group, names = command_names()
    sections = ["## `treetool`", "", "```text", help_text(group).rstrip(), "```", ""]
    for name in names:
        sections += [f"## `treetool {name}`", "", "```text", help_text(group, name).rstrip(), "```", ""]
    return "\n".join(sections)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs hook: replace the placeholder of the command page with the rendered help."""
    if page.file.src_uri != PAGE:
        return markdown
    return markdown.replace(PLACEHOLDER, render())
