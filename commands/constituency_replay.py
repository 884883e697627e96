"""``treetool replay --system top-down|in-order``: the trees that RNNG / In-Order oracle files' actions build.

The inverse of ``treetool oracle --format rnng|inorder``: each block's actions
are applied from the initial configuration under the system's rules, and the
tree they build is written as one line of brackets with the block's POS tags
and tokens, as the block's ``# <tree>`` line holds it. A parser that writes
its predicted actions in these files gets trees for evalb this way.
``commands/replay.py`` hands over to :func:`replay_constituency` when
``--system`` names a constituency system.
"""

from __future__ import annotations

from typing import Any

from treetool.oracles.constituency import get_constituency_system
from treetool.oracles.constituency.tree import bracketed, tree_from_spans
from treetool.oracles.errors import IllegalAction, IncompleteDerivation
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput
from treetool.formats.oracle_file import OracleBlock, read_oracle_file
from treetool.shard import Shard

#: The replay options that act on dependency trees only.
DEPENDENCY_ONLY = ("degree", "variant", "reduce", "order", "root", "from_format", "to")


def replay_constituency(system_name: str, paths: list[str], output: str, on_error: Any,
                        shard: Shard | None = None) -> int:
    """Write the tree of every block of ``paths``; return how many were written.

    In-order files in the other spellings (``NT(X)`` for ``PJ(X)``,
    ``FINISH`` for ``TERM``) are read as well. An illegal action is an error
    at its line; actions that stop before a final configuration, at the
    block's first line.
    """
    system = get_constituency_system(system_name)
    written = 0
    with AtomicOutput(output) as out:  # replaced only when complete
        for path in paths:
            for block in read_oracle_file(path, on_error, shard):
                try:
                    line = derived_line(system_name, system, block)
                except TreebankError as err:
                    on_error(err)
                    continue
                out.write((line + "\n").encode("utf-8", "surrogateescape"))
                written += 1
    return written


def derived_line(system_name: str, system: Any, block: OracleBlock) -> str:
    """The bracketed tree that the block's actions build (a :class:`TreebankError` if they build none)."""
    actions = [_system_spelling(system_name, action) for action in block.actions]
    try:
        final = system.replay(actions, len(block.words))
    except IllegalAction as err:
        step = err.step or 1
        raise block.error(f"{system_name}: step {step}: illegal action {block.actions[step - 1]!r}: {err.reason}",
                          block.action_lines[step - 1]) from None
    except IncompleteDerivation:
        raise block.error(f"{system_name}: the {len(actions)} actions end before a final configuration "
                          f"(every word shifted and one constituent left{', then TERM' if system_name == 'in-order' else ''})") from None
    return bracketed(tree_from_spans(final.built, final.n), block.tags, block.words)


def _system_spelling(system_name: str, action: str) -> str:
    """In-order actions as the system spells them (``PJ(X)``, ``TERM``); others unchanged."""
    if system_name == "in-order":
        if action.startswith("NT("):
            return "PJ" + action[2:]
        if action == "FINISH":
            return "TERM"
    return action
