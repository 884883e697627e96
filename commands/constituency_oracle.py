"""``treetool oracle --system top-down|in-order``: RNNG / In-Order oracle files (or jsonl) from PTB trees.

The command-line part of :mod:`treetool.oracles.constituency` and
:mod:`treetool.formats.oracle_file`; ``commands/oracle.py`` hands over to
:func:`write_constituency_oracle` when ``--system`` names a constituency system.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterator

from treetool.oracles.constituency import CONSTITUENCY_SYSTEMS, ConstituencySystem, GoldTreeError, MissingTagError
from treetool.oracles.constituency.oracle_walk import OracleWalk
from treetool.oracles.constituency.tree import tokens
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput
from treetool.formats.oracle_file import SPELLINGS, Vocabulary, oracle_record, oracle_record_from_lines
from treetool.shard import Shard
from treetool.treebank import display_name, read_treebank, treebank_format

from .common import InapplicableOption, OnlyWhen, error, refused_tree_text

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
    from_format: str | None = None
    shard: Shard | None = None
    sourced: bool = False
    """``--rejects`` given: the trees are read with their text in the input (not by the fast reader), which a
    tree refused after reading leaves in the rejects."""


def check_format(system_name: str, fmt: str | None) -> str:
    """The output format for a constituency system (default: its own file format); a mismatch is a usage error."""
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


def _ptb_options(clean: bool) -> dict[str, Any]:
    from treetool.formats.ptb import Bracket  # light nodes: no nltk needed here

    return dict(drop_traces=clean, strip_functions=clean, remove_wrapper=clean, node=Bracket, one_root=True)


def read_vocabulary(paths: list[str], clean: bool, lang: str, on_error: Any) -> Vocabulary:
    """The known words of the vocabulary (training) files, cleaned like the input."""
    counts: Counter[str] = Counter()
    for path in paths:
        for *_, tree in _trees([path], clean, on_error, "ptb"):  # vocabulary files are read as PTB, whatever their name
            counts.update(tokens(tree)[1])
    return Vocabulary(counts, lang)


def _trees(paths: list[str], clean: bool, on_error: Any, from_format: str | None = None,
           system: ConstituencySystem | None = None, shard: Shard | None = None,
           sourced: bool = False) -> Iterator[tuple[int, str, int, int, Any]]:
    """(input index, path, line, position in its file, tree) of every tree of every file (``shard``: of that
    shard of the one file); a file that is not PTB (by ``--from``, name or content) is an error naming it.

    With ``system``, a tree the reader's fast path reads comes as the system's
    :class:`OracleWalk` of it, already judged (:meth:`~ConstituencySystem.text_oracle`);
    ``sourced``: every tree as a ``SourcedTree``, with its text (no fast path).
    """
    options = _ptb_options(clean)
    if sourced:
        options["source_text"] = True
    elif system is not None:
        options["fast"] = system.text_oracle(clean, clean, clean)
    for index, path in enumerate(paths):
        fmt = treebank_format(path, from_format)
        if fmt != "ptb":
            name = system.name if system is not None else ""
            raise TreebankError(f"--system {name} reads Penn Treebank trees; this file is {fmt}", filename=path)
        for line, position, tree in read_treebank(path, "ptb", on_error=on_error, ptb_positions=True, shard=shard,
                                                  **options):
            yield index, path, line, position, tree


@dataclass
class Tree:
    """One input tree ready to write: where it is, its line, tokens and actions (``None``: not derivable)."""

    position: int
    path: str
    line: int
    text: str
    tags: list[str]
    words: list[str]
    actions: list[str] | None
    reason: str | None
    read: Any = None
    """The tree as read (a ``SourcedTree`` when the run is ``sourced``): what ``--rejects`` gets of it."""


def write_constituency_oracle(
    run: Run, paths: list[str], vocab_paths: list[str] | None, output: str, on_error: Any, on_unparsable: str,
) -> dict[str, Any]:
    """Write the oracle of every tree; return the counts (trees, words, derived, unparsable) of each file and in
    all, as ``oracle --report-file`` writes them: ``{"files": [{"file", ...}], "total": {"file": "total", ...}}``.

    The vocabulary is read first from ``vocab_paths``; when it is the input
    itself (``None``), the input is read once: the records go to a temporary
    file without their unknown-word line while the words are counted, and
    are copied to the output with it (constant memory, one parse).
    """
    if run.shard is not None and vocab_paths is None and run.format != "jsonl":
        raise InapplicableOption(f"--shard with --format {run.format} needs --vocab: the known words are those of "
                                 "the whole training file, which one shard does not see")
    counts = [dict(file=display_name(path), trees=0, words=0, derived=0, unparsable=0) for path in paths]
    with AtomicOutput(output) as out:  # replaced only when complete
        trees = _derivations(run, paths, on_error, on_unparsable, counts)
        if run.format == "jsonl":
            for tree in trees:
                out.write(_json(tree, run))
        elif vocab_paths is not None:
            vocabulary = read_vocabulary(vocab_paths, run.clean, run.lang, on_error)
            for tree in _written(trees, run, on_error):
                out.write(_record(tree, run, vocabulary).encode("utf-8", "surrogateescape"))
        else:
            _write_with_own_vocabulary(_written(trees, run, on_error), run, out)
    total = {"file": "total", **{key: sum(c[key] for c in counts) for key in ("trees", "words", "derived",
                                                                                  "unparsable")}}
    if total["unparsable"]:
        error(f"{total['unparsable']} of {total['trees']} trees not derivable by {run.system.name}: "
              f"{'written without actions' if run.format == 'jsonl' else 'left out'}")
    return {"files": counts, "total": total}


def _derivations(run: Run, paths: list[str], on_error: Any, on_unparsable: str,
                 counts: list[dict[str, Any]]) -> Iterator[Tree]:
    """Every input tree with its static sequence; not derivable: an error (fail) or ``actions=None``; a word
    without a POS tag: bad input (``on_error``)."""
    from treetool.formats.ptb import tree_to_line

    for index, path, line, position, read in _trees(paths, run.clean, on_error, run.from_format, run.system, run.shard,
                                                    run.sourced):
        tree = read.tree if run.sourced else read
        try:
            text, tags, words, actions = (tree if type(tree) is OracleWalk else run.system.bracket_oracle(tree))[:4]
            reason = None
        except MissingTagError as err:  # bad input, as for stats and annotate: --on-error decides
            on_error(TreebankError(str(err), filename=display_name(path), line=line, raw=refused_tree_text(read)))
            continue
        except GoldTreeError as err:
            actions, reason = None, str(err)
            tags, words = tokens(tree)
            text = tree_to_line(tree)
        if actions is None and reason is None:
            reason = "beyond the system's limits (see the system's rules on the Constituency page of the documentation)"
        tally = counts[index]
        tally["trees"] += 1
        tally["words"] += len(words)
        tally["derived" if actions is not None else "unparsable"] += 1
        if actions is None and on_unparsable == "fail":
            raise TreebankError(f"{run.system.name} cannot derive this tree: {reason}", filename=display_name(path),
                                line=line, raw=text + "\n")
        yield Tree(position, path, line, text, tags, words, actions, None if actions is not None else reason, read)


def _written(trees: Iterator[Tree], run: Run, on_error: Any) -> Iterator[Tree]:
    """The trees an oracle file can hold: derivable, and not read as a comment by the parsers' loaders."""
    comment = _spelling(run)[2]
    for tree in trees:
        if tree.actions is None:
            continue
        if comment == "# " and tree.tags[0].startswith("#"):
            raw = refused_tree_text(tree.read) if run.sourced else tree.text + "\n"  # read fast: no tree, its line
            on_error(TreebankError(
                f"the POS line would start with '{tree.tags[0]}', which the {run.format} loaders skip as a "
                "comment ('#' lines); use --system in-order --spelling nt-term ('!# ' comments) or retag",
                filename=tree.path, line=tree.line, raw=raw))
            continue
        yield tree


def _spelling(run: Run) -> tuple[str, str | None, str]:
    return SPELLINGS[run.spelling] if run.system.name == "in-order" else ("NT", None, "# ")


def _record(tree: Tree, run: Run, vocabulary: Vocabulary) -> str:
    """The tree's block in the oracle file."""
    return oracle_record(tree.text, tree.tags, tree.words, vocabulary, _spelled(tree, run), _spelling(run)[2])


def _spelled(tree: Tree, run: Run) -> list[str]:
    """The actions in the ``--spelling`` asked for (the systems spell PJ(X) ... TERM)."""
    kind, final, _ = _spelling(run)
    if kind == "PJ" or final is None:
        return tree.actions
    out = [f"{kind}{a[2:]}" if a.startswith("PJ(") else a for a in tree.actions]
    out[-1] = final  # TERM
    return out


#: Records encoded and written together: one write per tree costs more than making the record.
_RECORDS_PER_WRITE = 256


def _write_with_own_vocabulary(trees: Iterator[Tree], run: Run, out: AtomicOutput) -> None:
    """Trees to a temporary file while counting words, then to ``out`` with the unknown-word lines.

    The temporary file holds one line per tree, its fields separated by
    tabs (no field can hold a tab or a newline: PTB tokens are split on
    whitespace), the actions separated by spaces.
    """
    words: Counter[str] = Counter()
    comment = _spelling(run)[2]
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogateescape", newline="\n") as spool:
        for tree in trees:
            words.update(tree.words)
            actions = " ".join(_spelled(tree, run))
            spool.write(f"{tree.text}\t{' '.join(tree.tags)}\t{' '.join(tree.words)}\t{actions}\n")
        spool.seek(0)
        vocabulary = Vocabulary(words, run.lang)
        records = []
        for line in spool:
            text, tags, sentence, actions = line[:-1].split("\t")
            records.append(oracle_record_from_lines(text, tags, sentence, vocabulary, actions.replace(" ", "\n"),
                                                    comment))
            if len(records) == _RECORDS_PER_WRITE:
                out.write("".join(records).encode("utf-8", "surrogateescape"))
                records.clear()
        out.write("".join(records).encode("utf-8", "surrogateescape"))


def _json(tree: Tree, run: Run) -> bytes:
    record: dict[str, Any] = {"sent_id": str(tree.position), "file": display_name(tree.path), "line": tree.line,
                              "n": len(tree.words), "system": run.system.name, "actions": tree.actions}
    if tree.reason is not None:
        record["reason"] = tree.reason
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
