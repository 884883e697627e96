"""``treetool annotate``: one record per transition, with the dynamic oracle's cost of every legal action."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from treetool.oracles.constituency import CONSTITUENCY_SYSTEMS
from treetool.oracles.annotate import (
    ORACLE_KINDS, POLICIES, Explore, Predicted, Static, Step, annotate_sentence, optimal_is_cost_zero,
)
from treetool.oracles.nederhof import ALGORITHMS, STRATEGIES
from treetool.oracles.registry import SYSTEMS
from treetool.oracles.errors import IncompleteDerivation, OracleUnavailable
from treetool.oracles.configuration import Configuration, as_heads
from treetool.oracles.system import TransitionSystem
from treetool.budget import SentenceTimeout
from treetool.compare import check_counterpart, missing_id_hint
from treetool.errors import TreebankError
from treetool.formats.files import AtomicOutput, readable_twice
from treetool.formats.step_columns import StepColumns, walk_record
from treetool.formats.steps import DEPENDENCY_FORMATS
from treetool.inventory import labels as treebank_labels
from treetool.parallel import SentencePool, resolve_jobs
from treetool.treebank import read_treebank

from .common import (
    Align, Files, FromFormat, InapplicableOption, Jobs, MaxSeconds, OnError, OnErrorOpt, OnlyWhen, Output, Quiet,
    PtbRejects, ShardOpt, align_option, choices, cli_command, error, error_policy, dependency_inputs, input_formats, no_lift,
    parquet_output, refuse_inapplicable, run_options, shard_input, on_timeout_option, on_timeout_rule, SEARCH_LIMITS, TABLE_LIMIT, TABLE_SIZE,
)
from .constituency_annotate import LossKind, SearchLimits, annotate_constituency
from .out_of_reach import OutOfReach, out_of_reach_reason
from .progress import SentenceProgress
from .systems import DegreeOpt, LabeledOpt, OrderOpt, RootOpt, ReduceOpt, VariantOpt, system_from_options

if TYPE_CHECKING:  # numpy comes with these: constituency runs do without
    from treetool.sentence import Sentence

#: The default ``--max-states``: at most about 4 s and 80 MB of exact search per sentence (measured: 40 us and
#: 0.8 kB a configuration), so a default run ends on any treebank. Swap's search expands about as many
#: configurations for every sentence of one length: 7,828 for 6 words, 61,650 for 7, about 550,000 for 8, so every
#: sentence of up to 7 words is searched and longer ones are skipped and counted (--max-states 600000: 8 words).
DEFAULT_MAX_STATES = 100_000

Policy = choices("Policy", POLICIES)
OracleKind = choices("OracleKind", ORACLE_KINDS)
StepFormat = choices("StepFormat", (*DEPENDENCY_FORMATS, "parquet"))
Algorithm = choices("Algorithm", ALGORITHMS)
Strategy = choices("Strategy", STRATEGIES)

#: The longest sentence the constituency systems' exact search takes by default (a dependency system declares
#: its own: ``exact_max_length``, swap's 7).
DEFAULT_MAX_LENGTH = 10

AnnotateOnTimeout = on_timeout_option(f" or a limit of the work itself (exact search: --max-length, --max-states; "
                                      f"{TABLE_SIZE}: arc-standard's cubic algorithm, --loss paper)")

RULES = (
    OnlyWhen(("error_rate", "seed"), lambda v: v["policy"] == "explore", "needs --policy explore"),
    OnlyWhen(("predicted", "align"), lambda v: v["policy"] == "predicted", "needs --policy predicted"),
    # Which dynamic oracle takes which option is the system's declaration (OracleSpec.options); the messages
    # name the built-in system that declares it.
    OnlyWhen(("prefer_monotonic",), lambda v: "prefer_monotonic" in v["oracle_options"],
             "needs --system nm-arc-eager and its dynamic oracle"),
    *(OnlyWhen((name,), lambda v, name=name: name in v["oracle_options"],
               "needs --system arc-standard and its dynamic oracle (Nederhof 2019)") for name in ("algorithm", "strategy")),
    OnlyWhen(("max_length",), lambda v: v["exact"],
             "acts only with exact search (--oracle exact, or a system without a published dynamic oracle)"),
    OnlyWhen(("max_states",), lambda v: v["exact"],
             "acts only with exact search (--oracle exact, or a system without a published dynamic oracle)"),
    OnlyWhen(("vocabulary",), lambda v: v["output_format"] == "parquet", "needs --format parquet"),
    no_lift("annotate"),
    on_timeout_rule(lambda v: v["exact"] or v["cubic"], f"{SEARCH_LIMITS}, or arc-standard's cubic algorithm ({TABLE_LIMIT})"),
)


@cli_command
def annotate_command(
    ctx: typer.Context,
    files: Files,
    system: Annotated[str, typer.Option("--system", "-s", metavar="NAME", help="Transition system: arc-eager, arc-hybrid, nm-arc-eager (published dynamic oracles), arc-standard, attardi, swap, or package.module:ClassName (exact search); top-down or in-order for Penn Treebank trees.", show_default=False)],
    degree: DegreeOpt = None,
    variant: VariantOpt = None,
    reduce: ReduceOpt = None,
    order: OrderOpt = None,
    root: RootOpt = None,
    labeled: LabeledOpt = False,
    prefer_monotonic: Annotated[bool, typer.Option("--prefer-monotonic", help="nm-arc-eager: among the optimal actions, only those also optimal for the monotonic oracle, when there are any (Honnibal et al. 2013 section 6).")] = False,
    policy: Annotated[Policy, typer.Option("--policy", help="static: follow the static oracle; explore: random errors at --error-rate; predicted: follow the trees of --predicted.")] = Policy.static,
    error_rate: Annotated[float, typer.Option("--error-rate", metavar="P", help="explore: probability (0 to 1) of a random non-optimal action at each step.")] = 0.1,
    seed: Annotated[int, typer.Option("--seed", help="explore: the random stream of each sentence is derived from the seed and the sentence's position in its file.")] = 0,
    predicted: Annotated[Optional[str], typer.Option("--predicted", metavar="FILE", help="predicted: the trees to follow (e.g. a parser's output), paired with FILE's sentences as --align says.", show_default=False)] = None,
    align: Annotated[Align, align_option("--predicted")] = Align.id,
    oracle: Annotated[Optional[OracleKind], typer.Option("--oracle", help="dynamic: the system's published dynamic oracle; exact: exhaustive search (sentences of up to --max-length words) [default: dynamic where published, else exact].", show_default=False)] = None,
    algorithm: Annotated[Optional[Algorithm], typer.Option("--algorithm", help="arc-standard: Nederhof's cubic (any tree), quadratic or linear (projective gold trees; a non-projective sentence is an error, see --on-error) algorithm; auto: linear where the gold tree is projective, else cubic [default: auto].", show_default=False)] = None,
    strategy: Annotated[Optional[Strategy], typer.Option("--strategy", help="arc-standard: count only computations where, from each configuration on, the top and the buffer words take left children before right ones (left-before-right), also no new left children for the other stack words (strict), or right before left [default: none].", show_default=False)] = None,
    max_length: Annotated[Optional[int], typer.Option("--max-length", min=1, metavar="N", help="Exact search: a longer sentence is skipped and counted (an error with --on-timeout fail) [default: the system's exact_max_length: 7 for swap, whose search of an 8-word sentence passes the default --max-states; else 10].", show_default=False)] = None,
    max_states: Annotated[int, typer.Option("--max-states", min=1, metavar="N", help="Exact search: the most configurations it expands for one sentence (its time and memory, the same on every machine); a sentence that needs more is skipped and counted (an error with --on-timeout fail).")] = DEFAULT_MAX_STATES,
    max_seconds: MaxSeconds = None,
    on_timeout: AnnotateOnTimeout = None,
    output_format: Annotated[StepFormat, typer.Option("--format", help="jsonl: one object per step; tsv: sent_id, step, taken, optimal, costs (see above); parquet: one row per step, typed columns, zstd (-o FILE; needs pyarrow: pip install 'treetool[parquet]').")] = StepFormat.jsonl,
    vocabulary: Annotated[bool, typer.Option("--vocabulary", help="parquet: the costs as one int column per action id of the training-loop API's vocabulary (system.actions(labels); with --labeled the labels of the input files), -1 where illegal, instead of a list aligned with the legal actions.")] = False,
    output: Output = "-",
    from_format: FromFormat = None,
    on_error: OnErrorOpt = OnError.fail,
    rejects: PtbRejects = None,
    quiet: Quiet = False,
    loss: Annotated[Optional[LossKind], typer.Option("--loss", help="Constituency systems (PTB input): exact = the true minimum Hamming loss (exhaustive search where the parsers' limits may bind, sentences of up to --max-length words); paper = the formula of Fernández-González & Gómez-Rodríguez 2018 (not exact: see the Constituency page of the documentation); authors = in-order only, the scoring of the authors' released parser; search = exhaustive search only.", show_default=False)] = None,
    labels_file: Annotated[Optional[str], typer.Option("--labels", metavar="FILE", help="Constituency systems: the non-terminal labels costed for NT(X)/PJ(X), one per line [default: the gold labels of the input files].", show_default=False)] = None,
    jobs: Jobs = 1,
    shard: ShardOpt = None,
) -> None:
    """Walk every sentence from the initial to a final configuration, writing the oracle's costs at each step.

    Each step gives the configuration (stack, buffer, heads, labels with
    --labeled), the cost of every legal action (how many more words end up
    with a wrong head, or label with --labeled, than the best tree still
    reachable), the optimal actions (cost 0) and the action taken.

    Exact search (swap, attardi --degree 3 and more, your own systems,
    --oracle exact) is exponential: it stops after --max-states
    configurations per sentence (default 100,000, about 4 s: swap then
    covers every sentence of up to 7 words) or --max-length words, and a
    sentence beyond either is skipped and counted on stderr. --max-seconds
    bounds any system's walk. Arc-standard's cubic algorithm (for a
    non-projective tree) and --loss paper skip a sentence whose tables would
    take more than 1 GB. --on-timeout fail makes any of these an error.

    \b
    jsonl: {"sent_id", "step", "stack", "buffer", "heads", ["labels",]
           "costs", "optimal", "action"}; heads has n+1 entries, heads[0] = -1,
           -1 = no head yet; step counts from 1.
    parquet: the same fields as typed columns, costs as "legal" + "costs"
           lists (or "cost:ACTION" columns with --vocabulary); see the
           documentation (Training files in Parquet).
    tsv:   sent_id TAB step TAB taken TAB optimal TAB costs, where optimal is
           the optimal actions separated by spaces and costs is ACTION=COST
           separated by spaces, in the system's legal order.

    Examples:

    \b
      treetool annotate train.conllu --system arc-eager --policy explore --error-rate 0.1 --seed 1 -o steps.jsonl.gz
      treetool annotate train.conllu --system arc-hybrid --labeled --policy predicted --predicted parsed.conllu
      treetool annotate train.conllu --system arc-eager --policy predicted --predicted parsed.conllx --align position
      treetool annotate train.conllu --system swap --max-length 6 --format tsv
      treetool annotate train.conllu --system arc-standard --strategy left-before-right --max-seconds 2
      treetool annotate train.conllu --system arc-eager --policy explore --format parquet -o steps.parquet
      treetool annotate silver.conllu --system arc-eager --policy explore --seed 1 --shard 2/8 -o part2.jsonl

    Constituency systems (--system top-down or in-order) read PTB trees and
    write jsonl only: {"sent_id", "step", "stack", "buffer", "built",
    ["finished",] "costs", "optimal", "action"} (see the documentation).

    \b
      treetool annotate wsj_0001.mrg --system in-order --policy explore --seed 1 -o steps.jsonl
      treetool annotate train.mrg --system top-down --loss paper --labels labels.txt --jobs 2
    """
    shard_input(files, shard)
    if shard is not None and predicted is not None:
        raise InapplicableOption("--shard cannot pair --predicted's sentences with one shard of the gold file: "
                                 "shard both files alike with filter --ids, or run without --shard")
    if system in CONSTITUENCY_SYSTEMS:
        max_length = DEFAULT_MAX_LENGTH if max_length is None else max_length
        limits = SearchLimits(max_length, max_states, max_seconds, on_timeout is not None and on_timeout.value == "fail")
        return annotate_constituency(ctx, files, system, policy.value, error_rate, seed, predicted, loss,
                                     labels_file, limits, output_format.value, output, from_format, on_error,
                                     rejects, quiet, jobs, shard)
    if loss is not None or labels_file is not None:
        raise InapplicableOption(f"{'--loss' if loss is not None else '--labels'} needs a constituency system "
                                 "(--system top-down or in-order)")
    chosen = system_from_options(ctx)
    max_length = chosen.exact_max_length if max_length is None else max_length
    for path, fmt in input_formats(files, from_format):
        if fmt == "ptb":
            raise TreebankError(f"{system} is a dependency system and needs a CoNLL-U or CoNLL-X treebank; "
                                "for PTB trees use --system top-down or in-order", filename=path)
    inputs = dependency_inputs(ctx, files, from_format)
    kind = _oracle_kind(chosen, oracle)
    refuse_inapplicable(ctx, RULES, exact=kind == "exact", cubic=_runs_cubic(chosen, kind, algorithm),
                        oracle_options=chosen.oracle_spec.options if kind == "dynamic" else ())
    if policy.value == "predicted" and predicted is None:
        raise InapplicableOption("--policy predicted needs --predicted FILE")
    walk_policy = Explore(error_rate, seed) if policy.value == "explore" else Static()
    limits = dict(labeled=labeled, kind=kind, max_length=max_length, max_seconds=max_seconds,
                  max_states=max_states if kind == "exact" else None,
                  options=_oracle_options(prefer_monotonic, algorithm, strategy))
    if output_format.value == "parquet":
        actions = _vocabulary(chosen, inputs, labeled) if vocabulary else None
        # The writer process replays a built-in system's walks; a user's system may not pickle, nor import there
        # (its module found from the current folder), so its walks, like labelled ones, carry their configurations.
        # It derives the optimal actions where they are the cost-0 ones (not trusted of a user's oracle).
        replays = system in SYSTEMS and not labeled
        derived = system in SYSTEMS and optimal_is_cost_zero(chosen, kind, limits["options"])
        walk = functools.partial(_walk_columns, chosen, actions, resolve_jobs(jobs) > 1, not replays, not derived,
                                 **limits)
        metadata = {"command": "annotate", "system": chosen.describe(), "labelled": labeled,
                    "seed": seed if policy.value == "explore" else None, "options": run_options(ctx)}
        open_output = functools.partial(parquet_output, output,
                                        lambda: StepColumns(chosen if replays else None, labeled,
                                                            None if actions is None else actions.actions, derived),
                                        metadata)
    else:
        walk = functools.partial(_walk_text, chosen, DEPENDENCY_FORMATS[output_format.value], **limits)
        open_output = functools.partial(AtomicOutput, output)
    beyond = OutOfReach("exact search" if kind == "exact" else "oracle",
                        fail=on_timeout is not None and on_timeout.value == "fail")
    cubic_note = _cubic_note if _runs_cubic(chosen, kind, algorithm) and max_seconds is None else None
    with (
        error_policy(on_error, rejects) as errors,
        open_output() as out,
        SentenceProgress(quiet) as progress,
        SentencePool(jobs, on_error=errors) as pool,
    ):
        trees = PredictedTrees(predicted, from_format, pool.report, align.value) if predicted else None

        def tasks(path: str, fmt: str) -> Iterator[tuple[tuple[int, Sentence], tuple]]:
            sentences = ((s.position, s) for s in read_treebank(path, fmt, on_error=trees or pool.report,
                                                                shard=shard))
            if cubic_note is not None:
                sentences = cubic_note(sentences)
            return (((p, s), (s.head_list, s.deprels if labeled else None, s.identifier(p),
                              trees.policy_for(s, p) if trees is not None else walk_policy, p))
                    for p, s in sentences)

        for path, results in pool.map_files(walk, ((path, tasks(path, fmt)) for path, fmt in inputs)):
            for (position, sentence), outcome in progress.track(results, path, lambda r: len(r[0][1].raw)):
                try:
                    text = outcome.get()
                except OracleUnavailable as err:
                    if kind == "exact" and len(sentence) > max_length:
                        beyond.add(sentence, f"longer than --max-length {max_length}", err)
                    else:
                        errors(_unavailable(chosen, kind, err, sentence))
                    continue
                except IncompleteDerivation as err:
                    errors(TreebankError(str(err), filename=sentence.filename, line=sentence.line,
                                         sent_id=sentence.sent_id, raw=sentence.raw))
                    continue
                except SentenceTimeout as err:
                    beyond.add(sentence, out_of_reach_reason(err, max_seconds, max_states), err)
                    continue
                out.write(text)  # bytes: encoded text, or a pickled record for Parquet
        if trees is not None:
            trees.finish()
    beyond.report()


def _runs_cubic(system: TransitionSystem, kind: str, algorithm: Any) -> bool:
    """Whether a non-projective sentence gets arc-standard's cubic algorithm (whose tables are limited to 1 GB)."""
    chosen = algorithm.value if algorithm is not None else "auto"
    return system.name == "arc-standard" and kind == "dynamic" and chosen in ("auto", "cubic")


def _cubic_note(sentences: Iterator[tuple[int, Sentence]]) -> Iterator[tuple[int, Sentence]]:
    """``sentences``, with a note on stderr at the first non-projective one (once per file).

    Nederhof's cubic algorithm is cubic in the sentence per step (under a
    millisecond on a typical UD sentence, far more on a sentence of hundreds
    of words), so a run over original trees can take much longer; the
    defaults stay (no budget, the exact costs), but the user is told why and
    what bounds it.
    """
    from treetool.trees import is_projective

    for position, sentence in sentences:
        yield position, sentence
        if not is_projective(sentence.head_list):
            error(f"treetool: note: sentence {sentence.identifier(position)} is not projective: arc-standard's "
                  "dynamic oracle runs Nederhof's cubic algorithm on such sentences (cubic in their length at every "
                  "step); --max-seconds S bounds each, or projectivize the input first")
            break
    yield from sentences


def _oracle_options(prefer_monotonic: bool, algorithm: Any, strategy: Any) -> dict[str, Any]:
    """The options given for the system's dynamic oracle (the RULES refuse them for any other)."""
    options: dict[str, Any] = {"prefer_monotonic": True} if prefer_monotonic else {}
    if algorithm is not None:
        options["algorithm"] = algorithm.value
    if strategy is not None:
        options["strategy"] = strategy.value
    return options


def _oracle_kind(system: TransitionSystem, asked: Any) -> str:
    """``--oracle`` resolved: the published dynamic oracle when there is one, else exact search."""
    published = system.oracle_spec.published is not None
    if asked is None:
        return "dynamic" if published else "exact"
    if asked.value == "dynamic" and not published:
        raise InapplicableOption(f"--oracle dynamic: {system.describe()} has no published dynamic oracle; "
                                 "--oracle exact searches exhaustively, on sentences of up to --max-length words")
    return asked.value


def _walk_text(system: TransitionSystem, encode: Callable[[str, Iterator[Step]], str],
               sentence: tuple[list[int], list[str] | None, str, Any, int], *, labeled: bool, kind: str,
               max_length: int, max_seconds: float | None, max_states: int | None, options: dict[str, Any]) -> bytes:
    """The encoded walk of one sentence (heads, labels or None, id, policy, position): the work of ``--jobs``."""
    heads, labels, sent_id, policy, position = sentence
    steps = annotate_sentence(system, heads, labels, policy=policy, position=position, oracle=kind,
                              max_length=max_length, max_seconds=max_seconds, max_states=max_states,
                              oracle_options=options)
    return encode(sent_id, steps).encode("utf-8")


def _walk_columns(system: TransitionSystem, actions: Any, packed: bool, configurations: bool, optimal: bool,
                  sentence: tuple[list[int], list[str] | None, str, Any, int], *, labeled: bool, kind: str,
                  max_length: int, max_seconds: float | None, max_states: int | None, options: dict[str, Any]) -> bytes:
    """The record of one sentence's walk for Parquet (pickled; ``packed``, ``configurations`` and ``optimal`` as
    :func:`walk_record`), with its cost vectors over ``actions`` when given: the work of ``--jobs``."""
    heads, labels, sent_id, policy, position = sentence
    steps = annotate_sentence(system, heads, labels, policy=policy, position=position, oracle=kind,
                              max_length=max_length, max_seconds=max_seconds, max_states=max_states,
                              oracle_options=options)
    vector = None if actions is None else functools.partial(_cost_vector, actions, as_heads(heads))
    return walk_record(sent_id, steps, vector, packed, configurations, optimal)


def _cost_vector(actions: Any, gold: list[int], step: Step) -> Any:
    """``oracle.cost_vector(config, actions)`` of the step's configuration, from the costs the walk has
    already asked the oracle for (``CostVectors.cost_vector`` is this, with the costs asked again)."""
    config = Configuration(step.stack, step.buffer, step.heads, step.labels)
    return actions.vector(actions.entries(config, step.costs), gold)


def _vocabulary(system: TransitionSystem, inputs: list[tuple[str, str]], labeled: bool) -> Any:
    """``--vocabulary``: ``system.actions(labels)``, the labels those of the input files (read once first)
    when labelled."""
    labels = None
    if labeled:
        unreadable = [path for path, _ in inputs if not readable_twice(path)]
        if unreadable:
            raise InapplicableOption(f"--vocabulary --labeled reads the labels of the input first, so it needs "
                                     f"files, not {'stdin' if unreadable[0] == '-' else 'a pipe'}")
        labels = treebank_labels(s for path, fmt in inputs for s in read_treebank(path, fmt, on_error=_ignore))
        if not labels:
            raise InapplicableOption("--vocabulary --labeled: the input has no labelled sentence to take the "
                                     "labels from")
    try:
        return system.actions(labels)
    except ValueError as err:
        raise InapplicableOption(f"--vocabulary: {err}") from None


def _ignore(err: Exception) -> None:
    """A bad sentence met while reading the labels for ``--vocabulary``: the walk's reading reports it."""


def _unavailable(system: TransitionSystem, kind: str, err: OracleUnavailable, sentence: Sentence) -> TreebankError:
    """A sentence the oracle cannot serve, as bad input naming it."""
    missing = "" if system.oracle_spec.published else f"{system.describe()} has no published dynamic oracle; "
    limit = "--max-length raises the limit, " if kind == "exact" else ""
    message = f"{missing}{err} ({limit}--on-error skip skips such sentences)"
    return TreebankError(message, filename=sentence.filename, line=sentence.line, sent_id=sentence.sent_id,
                         raw=sentence.raw)


# ---------------------------------------------------------------- --predicted


class PredictedTrees:
    """The sentences of ``--predicted``, taken in step with the gold files.

    Used as the gold reader's ``on_error``: a bad gold sentence that
    ``--on-error skip`` skips is counted, and its predicted counterpart is
    dropped unread, so the two files stay aligned.
    """

    def __init__(self, path: str, from_format: Any, on_error: Any, align: str) -> None:
        (_, fmt), = input_formats([path], from_format)
        if fmt == "ptb":
            raise TreebankError("--predicted needs a dependency treebank (CoNLL-U or CoNLL-X)", filename=path)
        self._trees = enumerate(read_treebank(path, fmt), 1)
        self._on_error = on_error
        self._align = align
        self._gold_skipped = self._dropped = 0

    def __call__(self, err: TreebankError) -> None:
        self._on_error(err)
        self._gold_skipped += 1

    def _next(self) -> tuple[int, Sentence] | None:
        while self._dropped < self._gold_skipped:
            self._dropped += 1
            next(self._trees, None)
        return next(self._trees, None)

    def policy_for(self, gold: Sentence, position: int) -> Predicted:
        """The predicted tree of ``gold``: the next one, which must have the same id and length (``--align id``) or
        the same words (``--align position``)."""
        wanted = gold.identifier(position)
        found = self._next()
        if found is None:
            raise TreebankError(f"sentence {wanted} has no predicted tree (--predicted ends before it)",
                                filename=gold.filename, line=gold.line)
        number, tree = found
        if self._align == "position":
            check_counterpart(number, gold, tree, "position")
        elif tree.identifier(number) != wanted:
            raise TreebankError(f"the predicted sentence is {tree.identifier(number)}, the gold one (in the same "
                                f"place) {wanted}: the files must hold the same sentences in the same order"
                                f"{missing_id_hint(gold, tree)}", filename=tree.filename, line=tree.line)
        if len(tree) != len(gold):
            raise TreebankError(f"the predicted tree of {wanted} has {len(tree)} words, the gold one {len(gold)}",
                                filename=tree.filename, line=tree.line)
        return Predicted(tree.head_list, tree.deprels)

    def finish(self) -> None:
        """Raise if ``--predicted`` holds sentences after the last gold one."""
        extra = self._next()
        if extra is not None:
            number, tree = extra
            raise TreebankError(f"sentence {tree.identifier(number)} is not in the gold files",
                                filename=tree.filename, line=tree.line)
