"""``treetool oracle --system top-down|in-order``: RNNG / In-Order oracle files (or jsonl) from PTB trees.

The command-line part of :mod:`oracles.constituency` and
:mod:`treetool.formats.oracle_file`; ``commands/oracle.py`` hands over to
:func:`write_constituency_oracle` when ``--system`` names a constituency system.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from oracles.constituency import CONSTITUENCY_SYSTEMS, ConstituencySystem, GoldTreeError, from_nltk
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput
from treetool.formats.oracle_file import SPELLINGS, Vocabulary, oracle_record
from treetool.treebank import read_treebank

from .common import OnlyWhen, error

#: ``--format`` values for constituency systems, and the system each file format belongs to.
CONSTITUENCY_FORMATS = {"rnng": "top-down", "inorder": "in-order", "jsonl": None}
DEFAULT_FORMAT = {"top-down": "rnng", "in-order": "inorder"}

RULES = (
    OnlyWhen(("vocab", "lang", "clean"), lambda v: v["system"] in CONSTITUENCY_SYSTEMS,
             "acts with a constituency system only (--system top-down or in-order)"),
    OnlyWhen(("spelling",), lambda v: v["system"] == "in-order", "acts with --system in-order only"),
    OnlyWhen(("vocab", "lang"), lambda v: v["format"] != "jsonl", "acts on the rnng and inorder formats only"),
)


@dataclass
class Run:
    """What the command was asked to do."""

    system: ConstituencySystem
    format: str
    spelling: str
    clean: bool
    lang: str


def check_format(system_name: str, fmt: str | None) -> str:
    """The output format for a constituency system (default: its own file format); a mismatch is a usage error."""
    from .common import InapplicableOption

    if fmt is None:
        return DEFAULT_FORMAT[system_name]
    if fmt not in CONSTITUENCY_FORMATS:
        raise InapplicableOption(f"--format {fmt} is for dependency systems; {system_name} writes "
                                 f"{DEFAULT_FORMAT[system_name]} or jsonl")
    owner = CONSTITUENCY_FORMATS[fmt]
    if owner is not None and owner != system_name:
        raise InapplicableOption(f"--format {fmt} is the {owner} oracle format; {system_name} writes "
                                 f"{DEFAULT_FORMAT[system_name]} or jsonl")
    return fmt


def _ptb_options(clean: bool) -> dict[str, bool]:
    return dict(drop_traces=clean, strip_functions=clean, remove_wrapper=clean)


def read_vocabulary(paths: list[str], clean: bool, lang: str, on_error: Any) -> Vocabulary:
    """The known words of the vocabulary (training) files, cleaned like the input."""
    counts: Counter[str] = Counter()
    for path in paths:
        for tree in read_treebank(path, "ptb", on_error=on_error, **_ptb_options(clean)):
            counts.update(tree.leaves())
    return Vocabulary(counts, lang)


def _trees(paths: list[str], clean: bool, on_error: Any) -> Iterator[tuple[str, int, Any]]:
    for path in paths:
        for line, tree in read_treebank(path, "ptb", on_error=on_error, ptb_lines=True, **_ptb_options(clean)):
            yield path, line, tree


def write_constituency_oracle(
    run: Run, paths: list[str], vocab_paths: list[str], output: str, on_error: Any, on_unparsable: str,
    track: Callable[[Iterator[Any], str], Iterator[Any]] | None = None,
) -> dict[str, int]:
    """Write the oracle of every tree; return the counts (trees, words, derived, unparsable)."""
    from treetool.formats.ptb import tree_to_line

    vocabulary = read_vocabulary(vocab_paths, run.clean, run.lang, on_error) if run.format != "jsonl" else None
    kind, final, comment = SPELLINGS[run.spelling] if run.system.name == "in-order" else ("NT", None, "# ")
    counts = dict(trees=0, words=0, derived=0, unparsable=0)
    out = AtomicOutput(output)
    ok = False
    try:
        for position, (path, line, tree) in enumerate(_trees(paths, run.clean, on_error), 1):
            counts["trees"] += 1
            tree_line = tree_to_line(tree)
            tags_words = tree.pos()
            counts["words"] += len(tags_words)
            actions, reason = _actions(run.system, tree)
            if actions is None:
                counts["unparsable"] += 1
                if on_unparsable == "fail":
                    raise TreebankError(f"{run.system.name} cannot derive this tree: {reason}", filename=path,
                                        line=line, raw=tree_line + "\n")
                if run.format == "jsonl":
                    out.write(_json(position, path, line, len(tags_words), run, None, reason))
                continue
            counts["derived"] += 1
            if run.format == "jsonl":
                out.write(_json(position, path, line, len(tags_words), run, actions, None))
                continue
            if kind != "PJ" or final != "TERM":
                actions = _respell(actions, kind, final)
            tags = [tag for _, tag in tags_words]
            if comment == "# " and tags[0].startswith("#"):
                on_error(TreebankError(
                    f"the POS line would start with '{tags[0]}', which the {run.format} loaders skip as a "
                    "comment ('#' lines); use --system in-order --spelling nt-term ('!# ' comments) or retag",
                    filename=path, line=line, raw=tree_line + "\n"))
                continue
            words = [word for word, _ in tags_words]
            record = oracle_record(tree_line, tags, words, vocabulary, actions, comment)
            out.write(record.encode("utf-8", "surrogateescape"))
        ok = True
    finally:
        if ok:
            out.commit()
        else:
            out.abort()
    if counts["unparsable"]:
        error(f"{counts['unparsable']} of {counts['trees']} trees not derivable by {run.system.name}: "
              f"{'written without actions' if run.format == 'jsonl' else 'left out'}")
    return counts


def _actions(system: ConstituencySystem, tree: Any) -> tuple[list[str] | None, str | None]:
    try:
        gold = from_nltk(tree)
    except GoldTreeError as err:
        return None, str(err)
    actions = system.static_oracle(gold)
    if actions is None:
        return None, "beyond the system's limits (see the system's rules in the README)"
    return actions, None


def _respell(actions: list[str], kind: str, final: str) -> list[str]:
    out = [f"{kind}{a[2:]}" if a.startswith("PJ(") else a for a in actions]
    if out and out[-1] == "TERM":
        out[-1] = final
    return out


def _json(position: int, path: str, line: int, n: int, run: Run, actions: list[str] | None,
          reason: str | None) -> bytes:
    record: dict[str, Any] = {"sent_id": str(position), "file": path, "line": line, "n": n,
                              "system": run.system.name, "actions": actions}
    if reason is not None:
        record["reason"] = reason
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
