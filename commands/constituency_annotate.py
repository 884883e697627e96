"""``treetool annotate`` on PTB trees with ``--system top-down`` or ``in-order`` (issue 12).

One JSON object per step: ``{"sent_id", "step", "stack", "buffer", "built",
["finished",] "costs", "optimal", "action"}`` (see
:func:`oracles.constituency.annotate.step_record`). Trees are cleaned as
``treetool oracle`` cleans them (traces and function tags dropped, the outer
wrapper removed). The sentence id is the tree's position in its file.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import typer

from oracles.annotate import Explore, Predicted, Static
from oracles.constituency import CONSTITUENCY_SYSTEMS, GoldTreeError, from_nltk, get_constituency_system
from oracles.constituency.annotate import annotate_tree, step_record
from oracles.constituency.dynamic import LOSSES
from oracles.constituency.tree import preorder
from oracles.system import OracleUnavailable
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput
from treetool.treebank import read_treebank

from .common import InapplicableOption, choices, error_policy, input_formats

__all__ = ["CONSTITUENCY_SYSTEMS", "LossKind", "annotate_constituency"]

LossKind = choices("LossKind", LOSSES)

CLEANING = {"drop_traces": True, "strip_functions": True, "remove_wrapper": True}


def annotate_constituency(ctx: typer.Context, files: list[str], system_name: str, policy: str, error_rate: float,
                          seed: int, predicted: Optional[str], loss: Any, labels_file: Optional[str],
                          max_length: int, output_format: str, output: str, from_format: Any, on_error: Any,
                          rejects: Optional[str], quiet: bool) -> None:
    """The constituency branch of ``treetool annotate`` (options already parsed by the command)."""
    inputs = input_formats(files, from_format)
    for path, fmt in inputs:
        if fmt != "ptb":
            raise TreebankError(f"{system_name} is a constituency system and needs Penn Treebank trees "
                                "(.mrg/.ptb/.tree or --from ptb)", filename=path)
    if output_format != "jsonl":
        raise InapplicableOption("--format tsv is for dependency systems; constituency steps are jsonl")
    system = get_constituency_system(system_name)
    kind = "exact" if loss is None else loss.value
    labels = _labels(labels_file, inputs)
    walk_policy = Explore(error_rate, seed) if policy == "explore" else Static()
    predictions = _predicted_trees(predicted) if policy == "predicted" else None
    if policy == "predicted" and predictions is None:
        raise InapplicableOption("--policy predicted needs --predicted FILE")
    in_order = system.nonterminal_kind == "PJ"
    with error_policy(on_error, rejects) as errors, AtomicOutput(output) as out:
        for path, _ in inputs:
            for position, tree in enumerate(read_treebank(path, "ptb", on_error=errors, **CLEANING), 1):
                other = next(predictions, None) if predictions is not None else None
                try:
                    gold = from_nltk(tree)
                    wanted = Predicted(()) if other is not None else walk_policy
                    steps = annotate_tree(system, gold, labels, policy=wanted, position=position, loss=kind,
                                          max_length=max_length, predicted=_predicted_node(other, gold, path))
                    text = "".join(json.dumps(step_record(str(position), s, in_order), ensure_ascii=False) + "\n"
                                   for s in steps)
                except (GoldTreeError, OracleUnavailable) as err:
                    errors(TreebankError(f"tree {position}: {err}", filename=path))
                    continue
                out.write(text.encode("utf-8"))


def _predicted_node(tree: Any, gold: Any, path: str) -> Any:
    if tree is None:
        return None
    node = from_nltk(tree)
    if node.end != gold.end:
        raise GoldTreeError(f"the predicted tree has {node.end} words, the gold one {gold.end}")
    return node


def _predicted_trees(path: Optional[str]) -> Any:
    if path is None:
        return None
    return iter(read_treebank(path, "ptb", **CLEANING))


def _labels(labels_file: Optional[str], inputs: list[tuple[str, str]]) -> list[str]:
    """``--labels FILE`` (one per line), else every label of the gold trees in the input files (first seen first)."""
    if labels_file is not None:
        with open(labels_file, encoding="utf-8") as handle:
            return list(dict.fromkeys(line.strip() for line in handle if line.strip()))
    seen: dict[str, None] = {}
    for path, _ in inputs:
        for tree in read_treebank(path, "ptb", on_error=lambda err: None, **CLEANING):
            try:
                seen.update((node.label, None) for node in preorder(from_nltk(tree)))
            except GoldTreeError:
                continue
    return list(seen)
