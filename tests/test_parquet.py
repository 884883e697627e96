"""``annotate`` / ``oracle --format parquet`` and ``treetool.steps.read`` (issue 26, parts 1 and 2).

Every value of a Parquet file is checked against the JSON lines of the same run (the JSONL writer is tested on
its own in test_annotate.py); ``--vocabulary`` cost columns against ``oracle.cost_vector`` computed here from
each step's configuration; the reader's batches against the JSON lines parsed here.  The tests that need
pyarrow skip with the reason when it is not installed; the error without it is tested by hiding it.
"""

from __future__ import annotations

import bz2
import collections
import gc
import gzip
import json
import lzma
import os
import pickle
import random
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest

from treetool.formats.files import FileAccessError
from treetool.oracles import Configuration, get_system
from treetool.oracles.errors import OracleUnavailable
from treetool.oracles.annotate import Explore, Predicted, annotate_sentence, optimal_is_cost_zero

from conftest import SAMPLE_DATA, force_workers, run_cli as run
from oracle_trees import rooted_tree

pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'treetool[parquet]')")
import pyarrow.parquet as pq  # noqa: E402

from treetool import steps  # noqa: E402
import treetool.formats.step_columns as step_columns  # noqa: E402
from treetool.formats.parquet import ParquetOutput  # noqa: E402

LABELS = ["nsubj", "obj", "amod", "det", "case", "nmod"]


def treebank(path, count: int = 40, seed: int = 1) -> list[tuple[list[int], list[str]]]:
    """``count`` random trees (non-projective ones among them) written to ``path`` as CoNLL-U; their
    (heads, labels)."""
    rng = random.Random(seed)
    trees, lines = [], []
    for number in range(count):
        n = rng.randint(1, 14)
        heads = rooted_tree(n, rng)
        labels = [""] + ["root" if heads[w] == 0 else rng.choice(LABELS) for w in range(1, n + 1)]
        trees.append((heads, labels))
        lines.append(f"# sent_id = s{number}\n")
        lines += [f"{w}\tw{w}\t_\t_\t_\t_\t{heads[w]}\t{labels[w]}\t_\t_\n" for w in range(1, n + 1)]
        lines.append("\n")
    path.write_text("".join(lines), encoding="utf-8")
    return trees


def jsonl(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def annotate_both(tmp_path, *options: str, vocabulary: bool = False) -> tuple[list[dict], object]:
    """The JSON lines and the Parquet file (``--vocabulary``: its cost columns) of one ``annotate`` run over
    :func:`treebank`."""
    source = tmp_path / "t.conllu"
    treebank(source)
    text = run("annotate", source, *options)
    assert text.returncode == 0, text.stderr
    target = tmp_path / "steps.parquet"
    columns = run("annotate", source, *options, *(["--vocabulary"] if vocabulary else []), "--format", "parquet",
                  "-o", target)
    assert columns.returncode == 0 and columns.stdout == b"", columns.stderr
    return jsonl(text.stdout), pq.ParquetFile(target)


RUNS = [
    ("arc-eager", "--policy", "explore", "--error-rate", "0.3", "--seed", "7"),
    ("arc-hybrid", "--labeled", "--policy", "explore", "--error-rate", "0.5"),
    ("nm-arc-eager", "--variant", "LD", "--labeled"),
    ("arc-standard", "--policy", "explore"),
    ("swap", "--labeled", "--max-length", "6", "--on-error", "skip"),
    ("attardi", "--labeled", "--policy", "explore", "--error-rate", "0.4"),
    ("nm-arc-eager", "--variant", "D", "--policy", "explore", "--error-rate", "0.5", "--seed", "3"),
    ("nm-arc-eager", "--prefer-monotonic", "--policy", "explore", "--error-rate", "0.5"),  # optimal not derived
    ("arc-hybrid", "--oracle", "exact", "--max-length", "7", "--policy", "explore", "--on-error", "skip"),
]


@pytest.mark.parametrize("run_options", RUNS, ids=[r[0] + ("-labeled" if "--labeled" in r else "") for r in RUNS])
def test_every_value_of_the_parquet_file_is_the_jsonl_one(tmp_path, run_options):
    system, *options = run_options
    records, file = annotate_both(tmp_path, "--system", system, *options)
    labelled = "--labeled" in options
    expected_columns = ["sent_id", "step", "stack", "buffer", "heads", *(["labels"] if labelled else []),
                        "legal", "costs", "optimal", "action"]
    assert file.schema_arrow.names == expected_columns
    rows = file.read().to_pylist()
    assert len(rows) == len(records) > 0
    for row, record in zip(rows, records):
        assert row["legal"] == list(record["costs"]) and row["costs"] == list(record["costs"].values())
        record = {**record, "legal": row["legal"], "costs": row["costs"]}
        assert row == record
    metadata = json.loads(file.metadata.metadata[b"treetool"])
    assert metadata["command"] == "annotate" and metadata["schema_version"] == 1 and metadata["labelled"] == labelled
    variant = {"variant": options[options.index("--variant") + 1]} if "--variant" in options else {}
    assert metadata["system"] == get_system(system, **variant).describe()
    assert set(metadata["actions"]) == {a for r in records for a in [*r["costs"], *r["optimal"], r["action"]]}


@pytest.mark.parametrize("system", ["arc-eager", "swap"])
def test_a_predicted_walk_with_its_own_labels_is_the_jsonl_one(tmp_path, system):
    """The actions taken carry the predicted tree's labels: the writer, which replays the configurations from
    the actions, must give the labels they set, not the gold ones."""
    rng = random.Random(5)
    predicted = []
    for number, (heads, _) in enumerate(treebank(tmp_path / "gold.conllu")):
        n = len(heads) - 1
        tree = rooted_tree(n, rng)
        predicted.append(f"# sent_id = s{number}\n")
        predicted += [f"{w}\tw{w}\t_\t_\t_\t_\t{tree[w]}\t{'root' if tree[w] == 0 else rng.choice(LABELS)}\t_\t_\n"
                      for w in range(1, n + 1)]
        predicted.append("\n")
    (tmp_path / "predicted.conllu").write_text("".join(predicted), encoding="utf-8")
    records, file = annotate_both(tmp_path, "--system", system, "--labeled", "--policy", "predicted", "--predicted",
                                  tmp_path / "predicted.conllu", "--on-error", "skip",
                                  *(["--max-length", "7"] if system == "swap" else []))
    rows = file.read().to_pylist()
    assert len(rows) == len(records) > 0
    assert any(r["labels"] != rows[0]["labels"] for r in rows)
    for row, record in zip(rows, records):
        assert {k: row[k] for k in ("sent_id", "step", "stack", "buffer", "heads", "labels", "action")} == \
            {k: record[k] for k in ("sent_id", "step", "stack", "buffer", "heads", "labels", "action")}


@pytest.mark.parametrize("system_name", ["arc-eager", "arc-hybrid", "arc-standard", "nm-arc-eager", "attardi", "swap"])
@pytest.mark.parametrize("labelled", [False, True], ids=["unlabelled", "labelled"])
def test_the_writer_replays_the_configurations_the_walk_went_through(system_name, labelled):
    """A record without configurations (the run's own process) and one with them give the same columns: the
    replay by the actions taken reaches every configuration the walk met, labels included (the predicted
    policy's actions carry labels the gold tree does not have)."""
    system = get_system(system_name)
    rng = random.Random(11)
    for number in range(40):
        n = rng.randint(1, 7)
        heads = rooted_tree(n, rng)
        labels = ["", *(rng.choice(LABELS) for _ in range(n))] if labelled else None
        if number % 2:
            policy = Explore(0.4, number)
        else:
            other = [""] + [rng.choice(LABELS) for _ in range(n)] if labelled else None
            policy = Predicted(rooted_tree(n, rng), other)
        steps = list(annotate_sentence(system, heads, labels, policy=policy, position=number, oracle="exact"))
        whole = tuple(zip(*steps))
        for configurations in (False, True):
            for optimal in (False, True):
                record = step_columns.walk_record("s", steps, configurations=configurations, optimal=optimal)
                sent_id, size, fields, _ = pickle.loads(record)
                assert size == n and len(fields) == 8
                assert [k for k, field in enumerate(fields) if field is None] == \
                    [*([] if configurations else [0, 1, 2, 3, 4]), *([] if optimal else [6])]
        taken = pickle.loads(step_columns.walk_record("s", steps))[2]
        replayed = step_columns.replayed(system, labelled, n, taken)
        assert replayed[1:] == whole[1:]
        assert step_columns.sentence_steps("s", replayed) == step_columns.sentence_steps("s", whole)


#: Systems with each of their options, and the options of their dynamic oracles, whose optimal actions
#: the writer derives: every one must keep to it.
DERIVED = [("arc-eager", {}, [{}]), ("arc-eager", {"root": "first", "reduce": "lazy"}, [{}]),
           ("arc-hybrid", {}, [{}]), ("arc-hybrid", {"root": "last"}, [{}]),
           ("arc-standard", {}, [{}, *({"algorithm": a} for a in ("cubic", "quadratic")),
                                 *({"strategy": s} for s in ("left-before-right", "strict", "right-before-left"))]),
           *(("nm-arc-eager", {"variant": v}, [{}, {"prefer_monotonic": True}]) for v in ("L", "D", "LD")),
           *(("attardi", {"degree": d}, [{}]) for d in (1, 2, 3)),
           ("swap", {}, [{}]), ("swap", {"order": "lazy"}, [{}])]


@pytest.mark.parametrize("system_name, system_options, oracle_options", DERIVED,
                         ids=[f"{name}{''.join(f'-{v}' for v in options.values())}" for name, options, _ in DERIVED])
@pytest.mark.parametrize("kind", ["dynamic", "exact"])
@pytest.mark.parametrize("labelled", [False, True], ids=["unlabelled", "labelled"])
def test_optimal_actions_are_the_cost_zero_ones_where_the_writer_derives_them(system_name, system_options,
                                                                              oracle_options, kind, labelled):
    """The writer derives a step's optimal actions as its legal ones of cost 0, in order, wherever
    ``optimal_is_cost_zero`` says so: checked here against the oracle's own ``optimal`` along exploring and
    predicted walks; nm-arc-eager's ``prefer_monotonic`` narrows them on some step, and is declared to."""
    system = get_system(system_name, **system_options)
    if kind == "dynamic" and system.oracle_spec.published is None:
        pytest.skip("no published oracle: its dynamic oracle is the exact search, tested as such")
    rng = random.Random(3)
    narrowed, walked = 0, collections.Counter()
    for number in range(30):
        n = rng.randint(1, 6 if system_name == "swap" else 7)
        heads = rooted_tree(n, rng)
        labels = ["", *(rng.choice(LABELS) for _ in range(n))] if labelled else None
        other = [""] + [rng.choice(LABELS) for _ in range(n)] if labelled else None
        policy = Explore(0.4, number) if number % 2 else Predicted(rooted_tree(n, rng), other)
        for options in oracle_options if kind == "dynamic" else [{}]:
            try:
                steps = annotate_sentence(system, heads, labels, policy=policy, position=number, oracle=kind,
                                          oracle_options=options)
            except OracleUnavailable:  # arc-standard's quadratic algorithm and strategies: projective trees only
                continue
            walked[str(options)] += 1
            derivable = [step.optimal == [a for a, cost in step.costs.items() if cost == 0] for step in steps]
            if optimal_is_cost_zero(system, kind, options):
                assert all(derivable), (heads, options)
            else:
                narrowed += not all(derivable)
    assert (narrowed > 0) == (kind == "dynamic" and "prefer_monotonic" in system.oracle_spec.narrowing)
    assert all(walked[str(options)] >= 10 for options in (oracle_options if kind == "dynamic" else [{}])), walked


USER_SYSTEM = """
import threading
from treetool.oracles import Configuration, IllegalAction, TransitionSystem


class Mine(TransitionSystem):  # arc-standard, unlabelled: found from the current folder, holding a lock
    def __init__(self):
        self.lock = threading.Lock()

    def initial(self, n, labeled=False):
        return Configuration((0,), tuple(range(1, n + 1)), (-1,) * (n + 1), None)

    def legal(self, c):
        arcs = ["LA", "RA"] if len(c.stack) > 2 else ["RA"] if len(c.stack) == 2 else []
        return (["SH"] if c.buffer else []) + arcs

    def apply(self, c, action):
        if action not in self.legal(c):
            raise IllegalAction(action, "not legal here")
        if action == "SH":
            return Configuration(c.stack + c.buffer[:1], c.buffer[1:], c.heads, None)
        head, dep = (c.stack[-1], c.stack[-2]) if action == "LA" else (c.stack[-2], c.stack[-1])
        return Configuration(c.stack[:-2] + (head,), c.buffer, c.heads[:dep] + (head,) + c.heads[dep + 1:], None)

    def is_final(self, c):
        return len(c.stack) == 1 and not c.buffer
"""


def test_a_users_system_that_neither_pickles_nor_imports_in_the_writer_is_written(tmp_path):
    """The writer process replays built-in systems' walks; a user's system found from the current folder
    (``python -m treetool`` there) and holding a lock could reach it by neither way: its walks carry their
    configurations. The run had failed with a traceback, or blamed pyarrow."""
    (tmp_path / "mine.py").write_text(USER_SYSTEM, encoding="utf-8")
    treebank(tmp_path / "t.conllu", count=15)
    command = [sys.executable, "-m", "treetool", "annotate", "t.conllu", "--system", "mine:Mine", "--max-length", "8",
               "--policy", "explore", "--error-rate", "0.4"]
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    text = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, timeout=120)
    assert text.returncode == 0, text.stderr
    columns = subprocess.run([*command, "--format", "parquet", "-o", "steps.parquet"], cwd=tmp_path, env=environment,
                             capture_output=True, timeout=120)
    assert columns.returncode == 0, columns.stderr
    rows, records = pq.read_table(tmp_path / "steps.parquet").to_pylist(), jsonl(text.stdout)
    assert len(rows) == len(records) > 0
    for row, record in zip(rows, records):
        assert {k: row[k] for k in ("sent_id", "step", "stack", "buffer", "heads", "optimal", "action")} == \
            {k: record[k] for k in ("sent_id", "step", "stack", "buffer", "heads", "optimal", "action")}


def test_a_row_group_without_any_label_yet(tmp_path):
    """A one-word sentence's arc-standard walk records no step with a label (SH, then RA ends it): a row group of
    such walks has an empty label table (its lookup once failed with a traceback)."""
    source = tmp_path / "one.conllu"
    source.write_text("1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    options = ("annotate", source, "--system", "arc-standard", "--labeled")
    records = jsonl(run(*options).stdout)
    target = tmp_path / "one.parquet"
    written = run(*options, "--format", "parquet", "-o", target)
    assert written.returncode == 0, written.stderr
    rows = pq.read_table(target).to_pylist()
    assert [row["labels"] for row in rows] == [record["labels"] for record in records] == [[None, None]] * 2


def test_standard_types_only_strings_dictionary_encoded_and_zstd(tmp_path):
    _, file = annotate_both(tmp_path, "--system", "arc-eager", "--labeled")
    assert b"ARROW:schema" not in file.metadata.metadata  # no Arrow extension or dictionary type to rebuild
    assert {str(f.type) for f in file.schema_arrow} == {"string", "int32", "list<element: int32>",
                                                       "list<element: string>"}
    group = file.metadata.row_group(0)
    chunks = {group.column(i).path_in_schema: group.column(i) for i in range(group.num_columns)}
    assert all(c.compression == "ZSTD" for c in chunks.values())
    for name in ("sent_id", "labels.list.element", "legal.list.element", "optimal.list.element", "action"):
        assert chunks[name].has_dictionary_page, name


@pytest.mark.parametrize("vocabulary", [[], ["--vocabulary"]], ids=["lists", "vocabulary"])
def test_jobs_write_the_same_file(tmp_path, monkeypatch, vocabulary):
    source = tmp_path / "t.conllu"
    treebank(source, count=30)
    options = ("annotate", source, "--system", "arc-eager", "--labeled", "--policy", "explore", "--format", "parquet",
               *vocabulary)
    assert run(*options, "-o", tmp_path / "one.parquet").returncode == 0
    starts = force_workers(monkeypatch)
    result = run(*options, "-o", tmp_path / "two.parquet", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert starts, "the workers did not start"
    one, two = (pq.ParquetFile(tmp_path / name) for name in ("one.parquet", "two.parquet"))
    assert one.read().equals(two.read()) and one.num_row_groups == two.num_row_groups
    one_metadata, two_metadata = (json.loads(f.metadata.metadata[b"treetool"]) for f in (one, two))
    assert two_metadata.pop("options")["jobs"] == 2 and one_metadata.pop("options")["jobs"] == 1
    assert one_metadata == two_metadata


def test_a_vocabulary_pickles_as_its_system_and_labels():
    import pickle

    actions = get_system("attardi", degree=2).actions(["b", "a"])
    copy = pickle.loads(pickle.dumps(actions))
    assert copy.actions == actions.actions and copy.labels == ("b", "a") and copy.system.describe() == \
        actions.system.describe()


def test_row_groups_are_written_as_the_run_streams(tmp_path, monkeypatch):
    monkeypatch.setattr(step_columns, "ROWS_PER_GROUP", 50)
    records, file = annotate_both(tmp_path, "--system", "arc-hybrid", "--policy", "explore")
    sizes = [file.metadata.row_group(i).num_rows for i in range(file.num_row_groups)]
    assert len(sizes) > 3 and all(size >= 50 for size in sizes[:-1]) and sum(sizes) == len(records)
    assert [r["step"] for r in file.read().to_pylist()] == [r["step"] for r in records]


@pytest.mark.parametrize("system", ["arc-eager", "arc-hybrid", "attardi"])
def test_vocabulary_columns_are_the_oracles_cost_vectors(tmp_path, system):
    """``--vocabulary --labeled``: column ``cost:A`` of a step is ``oracle.cost_vector(config, actions)``[id of A],
    the oracle and the vocabulary built here (labels: those of the input, sorted)."""
    source = tmp_path / "t.conllu"
    trees = treebank(source)
    target = tmp_path / "v.parquet"
    options = ("annotate", source, "--system", system, "--labeled", "--policy", "explore", "--error-rate", "0.4")
    result = run(*options, "--format", "parquet", "--vocabulary", "-o", target)
    assert result.returncode == 0, result.stderr
    records = jsonl(run(*options).stdout)
    chosen = get_system(system)
    actions = chosen.actions(sorted({label for _, labels in trees for label in labels[1:]}))
    table = pq.read_table(target)
    assert table.column_names[6:-2] == [f"cost:{a}" for a in actions]
    costs = np.column_stack([table.column(f"cost:{a}").to_numpy() for a in actions])
    by_id = {f"s{i}": tree for i, tree in enumerate(trees)}
    oracles = {}
    for row, record in enumerate(records):
        heads, labels = by_id[record["sent_id"]]
        if record["step"] == 1:
            oracles[record["sent_id"]] = chosen.dynamic_oracle(heads, labels)
        config = Configuration(tuple(record["stack"]), tuple(record["buffer"]), tuple(record["heads"]),
                               tuple(record["labels"]))
        assert costs[row].tolist() == oracles[record["sent_id"]].cost_vector(config, actions).tolist()
    assert json.loads(pq.ParquetFile(target).metadata.metadata[b"treetool"])["actions"][:len(actions)] == list(actions)


def test_oracle_rows_are_the_jsonl_records(tmp_path):
    source = tmp_path / "t.conllu"
    treebank(source)
    target = tmp_path / "o.parquet"
    for on_unparsable in ("skip", "projectivize"):
        options = ("oracle", source, "--system", "arc-eager", "--labeled", "--on-unparsable", on_unparsable)
        assert run(*options, "--format", "parquet", "-o", target).returncode == 0
        records = jsonl(run(*options, "--format", "jsonl").stdout)
        rows = pq.read_table(target).to_pylist()
        assert len(rows) == len(records) == 40
        assert any(r["actions"] is None for r in records) == (on_unparsable == "skip")
        assert any(r.get("projectivized") for r in records) == (on_unparsable == "projectivize")
        for row, record in zip(rows, records):
            assert row == {"reason": None, "projectivized": False, **record}


@pytest.mark.parametrize("output, reason", [
    ("-", "not stdout"),
    ("/dev/stdout", "a regular file"),
    ("steps.parquet.gz", "without a compression suffix"),
])
def test_parquet_needs_a_regular_file(tmp_path, monkeypatch, output, reason):
    monkeypatch.chdir(tmp_path)
    for command in (("annotate", "--system", "arc-eager"), ("oracle",)):
        result = run(command[0], SAMPLE_DATA / "en_sample.conllu", *command[1:], "--format", "parquet", "-o", output)
        assert result.returncode == 2 and result.stdout == b""
        assert result.stderr.decode().startswith("treetool: error: --format parquet: ") and reason in result.stderr.decode()
        assert result.stderr.count(b"\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_folder_for_parquet_is_said_to_be_one(tmp_path):
    """As for every output: the folder is named, not called a pipe or a device."""
    (tmp_path / "steps.parquet").mkdir()
    for command in (("annotate", "--system", "arc-eager"), ("oracle",)):
        result = run(command[0], SAMPLE_DATA / "en_sample.conllu", *command[1:], "--format", "parquet",
                     "-o", tmp_path / "steps.parquet")
        assert result.returncode == 1 and result.stdout == b""
        assert result.stderr.decode() == f"treetool: error: {tmp_path / 'steps.parquet'}: Is a directory\n"
    assert [p.name for p in tmp_path.iterdir()] == ["steps.parquet"]


def test_parquet_never_replaces_the_input(tmp_path):
    source = tmp_path / "t.conllu"
    treebank(source)
    before = source.read_bytes()
    result = run("annotate", source, "--system", "arc-eager", "--format", "parquet", "-o", source)
    assert result.returncode == 2 and b"is the input" in result.stderr
    assert source.read_bytes() == before


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")  # the writer closed at collection
def test_a_failed_run_leaves_no_file_and_says_only_why(tmp_path):
    source = tmp_path / "t.conllu"
    treebank(source, count=3)
    with source.open("a", encoding="utf-8") as text:
        text.write("1\tw\t_\t_\t_\t_\t5\troot\t_\t_\n\n")  # head out of range, after three good sentences
    result = run("annotate", source, "--system", "arc-eager", "--format", "parquet", "-o", tmp_path / "s.parquet")
    gc.collect()  # a writer left open would close now, writing to the dropped file
    assert result.returncode == 2 and b"out of range" in result.stderr
    assert result.stderr.count(b"\n") == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.conllu"]


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE and SIGXFSZ (POSIX)")
def test_a_write_failure_in_the_writer_process_leaves_no_file_and_says_only_why(tmp_path):
    """The writer process (which inherits the limit) cannot write past 1 kB: its error, raised by the run."""
    resource = pytest.importorskip("resource", reason="needs RLIMIT_FSIZE (POSIX)")
    source = tmp_path / "t.conllu"
    treebank(source, count=40)
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    disposition = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, limits[1]))
    try:
        result = run("annotate", source, "--system", "arc-eager", "--format", "parquet", "-o", tmp_path / "s.parquet")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, disposition)
    assert result.returncode == 1 and result.stderr.count(b"\n") == 1, result.stderr
    assert b"File too large" in result.stderr and b"s.parquet" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.conllu"]


def test_a_writer_process_that_ends_early_fails_the_run_and_leaves_no_file(tmp_path):
    """The writer process killed (as the out-of-memory killer would): the run's close says so, and the file is
    dropped; a writer that said nothing is never taken for one that finished."""
    out = ParquetOutput(str(tmp_path / "s.parquet"), step_columns.StepColumns(get_system("arc-eager"), False), {})
    os.kill(out._writer.pid, signal.SIGKILL)
    record = step_columns.walk_record("s1", annotate_sentence(get_system("arc-eager"), [-1, 2, 0, 2]))
    with pytest.raises(FileAccessError, match="writer process ended before finishing the file"):
        with out:
            for _ in range(10):
                out.write(record)
    assert out._writer.returncode == -signal.SIGKILL
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="closed or has failed"):  # not a raw descriptor another file may reuse
        out.write(record)


class _Unpicklable(step_columns.StepColumns):
    def __reduce__(self):
        raise TypeError("cannot be pickled")


def test_columns_that_cannot_reach_the_writer_leave_no_file(tmp_path):
    with pytest.raises(TypeError, match="cannot be pickled"):
        ParquetOutput(str(tmp_path / "s.parquet"), _Unpicklable(get_system("arc-eager"), False), {})
    assert list(tmp_path.iterdir()) == []


class _ImportedHereOnly(step_columns.SequenceColumns):
    """Its module (this test file) is not on the writer process's path."""


def test_columns_the_writer_cannot_import_are_said_so_not_blamed_on_pyarrow(tmp_path):
    with pytest.raises(FileAccessError, match=r"s\.parquet: the Parquet writer process cannot import what it was "
                                              r"given \(No module named"):
        with ParquetOutput(str(tmp_path / "s.parquet"), _ImportedHereOnly(), {}):
            pass
    assert list(tmp_path.iterdir()) == []


def test_a_broken_pipe_in_the_writer_is_a_write_failure_not_a_reader_gone(tmp_path):
    """The command line takes a BrokenPipeError for its reader gone away (exit 0): the writer's own, met
    writing the file, must fail the run."""
    with ParquetOutput(str(tmp_path / "s.parquet"), step_columns.StepColumns(get_system("arc-eager"), False), {}) as out:
        with pytest.raises(FileAccessError, match="s.parquet"):
            out._raise_failure(BrokenPipeError(32, "Broken pipe"))


def test_an_interrupt_while_waiting_for_the_writer_drops_the_file_and_ends_the_writer(tmp_path, monkeypatch):
    """^C or a signal's exception arriving while close waits for the writer (the last moment of every run): no
    file, not even the temporary one, and no writer left running."""
    out = ParquetOutput(str(tmp_path / "s.parquet"), step_columns.StepColumns(get_system("arc-eager"), False), {})
    record = step_columns.walk_record("s1", annotate_sentence(get_system("arc-eager"), [-1, 2, 0, 2]))

    waited = ParquetOutput._outcome

    def interrupted(self):  # the first wait for the report is interrupted
        monkeypatch.setattr(ParquetOutput, "_outcome", waited)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        with out:
            out.write(record)
            monkeypatch.setattr(ParquetOutput, "_outcome", interrupted)
    assert out._writer.wait(timeout=10) == -signal.SIGKILL
    assert list(tmp_path.iterdir()) == []


def test_a_parquet_output_leaves_the_jobs_pool_free_to_fork(tmp_path):
    """No thread of its own: with one, ``--jobs`` would spawn its workers (ten times the start-up) instead of
    forking them."""
    from treetool.parallel import start_method

    if sys.platform == "darwin" or not hasattr(os, "fork"):
        pytest.skip("the pool forks only where fork is the platform's ordinary start method")
    with ParquetOutput(str(tmp_path / "s.parquet"), step_columns.StepColumns(get_system("arc-eager"), False), {}):
        assert start_method() == "fork"


def test_pyarrow_found_but_failing_in_the_writer_is_one_line(tmp_path, monkeypatch):
    """A pyarrow that is installed but does not import (a numpy it was not built for): the run only looks it
    up, the writer process fails to import it, and the run says so in one line (exit 2), leaving no file."""
    fake = tmp_path / "fake" / "pyarrow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('built for another numpy')\n")
    source = tmp_path / "t.conllu"
    treebank(source, count=3)
    monkeypatch.setenv("PYTHONPATH", str(fake.parent))  # the writer process's, not this one's sys.path
    result = run("annotate", source, "--system", "arc-eager", "--format", "parquet", "-o", tmp_path / "s.parquet")
    assert result.returncode == 2 and result.stderr.count(b"\n") == 1, result.stderr
    assert b"built for another numpy" in result.stderr and b"treetool[parquet]" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake", "t.conllu"]


def test_the_run_leaves_pyarrow_to_the_writer_process(tmp_path):
    """The run's process never imports pyarrow (a tenth of a second of its start): the writer process does."""
    source, target = tmp_path / "t.conllu", tmp_path / "s.parquet"
    treebank(source, count=3)
    argv = ["treetool", "annotate", str(source), "--system", "arc-eager", "--format", "parquet", "-o", str(target)]
    code = ("import atexit, runpy, sys; atexit.register(lambda: print(sorted(m for m in sys.modules if "
            f"m.split('.')[0] == 'pyarrow'))); sys.argv = {argv!r}; runpy.run_module('treetool', run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n" and pq.read_table(target).num_rows > 0


def test_vocabulary_needs_parquet_and_labels_from_a_file():
    sample = SAMPLE_DATA / "en_sample.conllu"
    result = run("annotate", sample, "--system", "arc-eager", "--vocabulary")
    assert result.returncode == 2 and b"--vocabulary needs --format parquet" in result.stderr
    result = run("annotate", "-", "--system", "arc-eager", "--labeled", "--vocabulary", "--format", "parquet",
                 "-o", "never.parquet", stdin=sample.read_bytes())
    assert result.returncode == 2 and b"needs files, not stdin" in result.stderr


def test_a_labelled_vocabulary_of_an_input_without_labels_says_so(tmp_path):
    empty = tmp_path / "empty.conllu"
    empty.write_bytes(b"")
    result = run("annotate", empty, "--system", "arc-eager", "--labeled", "--vocabulary", "--format", "parquet",
                 "-o", tmp_path / "never.parquet")
    assert result.returncode == 2 and result.stderr.count(b"\n") == 1
    assert b"the input has no labelled sentence" in result.stderr and b"labels=None" not in result.stderr
    assert not (tmp_path / "never.parquet").exists()


# ---------------------------------------------------------------- the reader


def expected_rows(records: list[dict], actions: tuple[str, ...]) -> list[tuple]:
    """Each JSON record as the reader should give it: (step, stack, buffer, heads, costs, optimal, action id)."""
    ids = {a: i for i, a in enumerate(actions)}
    rows = []
    for r in records:
        costs = [-1] * len(actions)
        for action, cost in r["costs"].items():
            costs[ids[action]] = cost
        optimal = [a in r["optimal"] for a in actions]
        rows.append((r["step"], r["stack"], r["buffer"], r["heads"], costs, optimal, ids[r["action"]]))
    return rows


def batch_rows(batch: steps.StepBatch) -> list[tuple]:
    def lists(offsets, values):
        return [values[offsets[i]:offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]

    assert (batch.legal == (batch.costs >= 0)).all()
    return list(zip(batch.step.tolist(), lists(batch.stack_offsets, batch.stack),
                    lists(batch.buffer_offsets, batch.buffer), lists(batch.heads_offsets, batch.heads),
                    batch.costs.tolist(), batch.optimal.tolist(), batch.action.tolist()))


@pytest.mark.parametrize("vocabulary", [False, True], ids=["lists", "vocabulary"])
def test_reader_batches_hold_the_jsonl_steps(tmp_path, monkeypatch, vocabulary):
    monkeypatch.setattr(step_columns, "ROWS_PER_GROUP", 64)
    monkeypatch.setattr(steps, "ROWS_PER_GROUP", 64)
    records, _ = annotate_both(tmp_path, "--system", "arc-eager", "--labeled", "--policy", "explore",
                               vocabulary=vocabulary)
    (tmp_path / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    parquet_batches = list(steps.read(str(tmp_path / "steps.parquet"), batch_size=10))
    actions = parquet_batches[0].actions
    expected = expected_rows(records, actions)
    if vocabulary:  # the costs of every labelling (tested against the oracle above), read here by pyarrow
        table = pq.read_table(tmp_path / "steps.parquet")
        assert actions[:len(table.column_names) - 8] == tuple(n[5:] for n in table.column_names[6:-2])
        columns = [table.column(f"cost:{a}").to_numpy() if f"cost:{a}" in table.column_names
                   else np.full(table.num_rows, -1) for a in actions]
        vectors = np.column_stack(columns).tolist()
        assert all(vector[a] == cost for vector, (*_, costs, _, _) in zip(vectors, expected)
                   for a, cost in enumerate(costs) if cost >= 0)  # the gold labelling's costs: the JSONL's
        expected = [(*row[:4], vector, *row[5:]) for row, vector in zip(expected, vectors)]
    assert [row for b in parquet_batches for row in batch_rows(b)] == expected
    assert max(len(b) for b in parquet_batches) == 10
    if not vocabulary:  # JSON lines have the costs of the legal actions only
        jsonl_batches = list(steps.read(str(tmp_path / "steps.jsonl"), batch_size=7, actions=actions))
        assert [row for b in jsonl_batches for row in batch_rows(b)] == expected
        own = list(steps.read(str(tmp_path / "steps.jsonl"), batch_size=7))
        assert set(own[0].actions) == set(actions) and [len(b) for b in own] == [len(b) for b in jsonl_batches]


@pytest.mark.parametrize("name", ["steps.parquet", "steps.jsonl"])
def test_shuffled_batches_hold_every_step_once_in_an_order_set_by_the_seed(tmp_path, monkeypatch, name):
    monkeypatch.setattr(step_columns, "ROWS_PER_GROUP", 64)
    monkeypatch.setattr(steps, "ROWS_PER_GROUP", 64)
    records, _ = annotate_both(tmp_path, "--system", "arc-hybrid", "--policy", "explore")
    (tmp_path / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    actions = ("SH", "LA", "RA")

    def rows(seed):
        batches = steps.read(str(tmp_path / name), batch_size=16, shuffle=True, seed=seed, actions=actions)
        return [row for b in batches for row in batch_rows(b)]

    def key(row):
        return json.dumps(row)

    first = rows(1)
    in_order = expected_rows(records, actions)
    assert sorted(first, key=key) == sorted(in_order, key=key)
    assert rows(1) == first and rows(2) != first and first != in_order
    if name.endswith(".parquet"):  # a row group ends with a sentence: at least 64 steps
        metadata = pq.ParquetFile(tmp_path / name).metadata
        sizes = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    else:
        sizes = [64] * (len(in_order) // 64) + [len(in_order) % 64] * bool(len(in_order) % 64)
    ends = np.cumsum(sizes).tolist()
    groups = [sorted(map(key, in_order[end - size:end])) for size, end in zip(sizes, ends)]
    visited, position = [], 0
    while position < len(first):  # the output is the groups one after the other, each in some order
        found = next(i for i, group in enumerate(groups) if i not in visited
                     and sorted(map(key, first[position:position + len(group)])) == group)
        visited.append(found)
        position += len(groups[found])
    assert len(visited) == len(groups) > 2 and visited != sorted(visited)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_compressed_json_lines_read_as_the_plain_file(tmp_path, monkeypatch, compress):
    monkeypatch.setattr(steps, "ROWS_PER_GROUP", 16)
    treebank(tmp_path / "t.conllu")
    records = jsonl(run("annotate", tmp_path / "t.conllu", "--system", "arc-hybrid", "--policy", "explore").stdout)
    text = "".join(json.dumps(r) + "\n" for r in records).encode()
    (tmp_path / "plain.jsonl").write_bytes(text)
    (tmp_path / "packed.jsonl").write_bytes(compress(text))  # recognised by content, not by name
    actions = ("SH", "LA", "RA")
    expected = expected_rows(records, actions)
    for shuffle in (False, True):  # shuffled: groups found again by seeking in the decompressed stream
        def rows(name):
            batches = steps.read(str(tmp_path / name), batch_size=10, shuffle=shuffle, seed=3, actions=actions)
            return [row for b in batches for row in batch_rows(b)]
        with warnings.catch_warnings(record=True) as caught:  # every file it opened, closed
            warnings.simplefilter("always", ResourceWarning)
            assert rows("packed.jsonl") == rows("plain.jsonl")
            gc.collect()
        assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
        assert (rows("plain.jsonl") == expected) is not shuffle and len(rows("plain.jsonl")) == len(expected)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_cut_off_compressed_json_lines_are_refused_naming_the_file(tmp_path, compress):
    line = ('{"step": 1, "stack": [0], "buffer": [1], "heads": [-1, -1], "costs": {"SH": 0}, "optimal": ["SH"], '
            '"action": "SH"}\n')
    packed = compress(line.encode() * 2000)
    path = tmp_path / "cut.jsonl"
    path.write_bytes(packed[:len(packed) // 2])  # a cut-off copy: no end-of-stream marker
    with pytest.raises(ValueError) as refused:
        list(steps.read(str(path)))
    assert str(refused.value).startswith(f"{path}: truncated compressed data")


@pytest.mark.parametrize("text,said", [
    ('{"step": 1, "stack": [0], "buffer": [1], "heads": [-1, -1], "costs": {"SH": 0}, "optimal": ["SH"], '
     '"action": "SH"}\n{"sent_id": "1", "step": 1, "stack": [], "buffer": 0, "built": [], "costs": {"NT(S)": 0}, '
     '"optimal": ["NT(S)"], "action": "NT(S)"}\n', ":2: not a dependency step record of treetool annotate"),
    ("# sent_id = 1\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n", ":1: not a JSON line"),
], ids=["constituency steps", "CoNLL-U"])
@pytest.mark.parametrize("actions", [None, ("SH", "LA", "RA")], ids=["own vocabulary", "given vocabulary"])
def test_a_file_of_other_lines_is_refused_naming_the_line(tmp_path, text, said, actions):
    path = tmp_path / "other.jsonl"
    path.write_text(text)
    with pytest.raises(ValueError) as refused:
        list(steps.read(str(path), actions=actions))
    assert str(refused.value).startswith(f"{path}{said}")


@pytest.mark.parametrize("library", ["pandas", "polars", "datasets"])
def test_dataframe_libraries_read_the_files_without_custom_code(tmp_path, library):
    module = pytest.importorskip(library, reason=f"{library} is not installed")
    records, _ = annotate_both(tmp_path, "--system", "arc-eager", "--labeled", "--policy", "explore")
    path = str(tmp_path / "steps.parquet")
    if library == "datasets":
        rows = module.load_dataset("parquet", data_files=path, split="train", cache_dir=str(tmp_path / "cache"))
        first = rows[0]
    else:
        frame = module.read_parquet(path)
        rows, first = frame, (frame.iloc[0] if library == "pandas" else frame.row(0, named=True))
    assert len(rows) == len(records)
    assert list(first["heads"]) == records[0]["heads"] and first["action"] == records[0]["action"]
    assert dict(zip(first["legal"], first["costs"])) == records[0]["costs"]


def test_reader_refuses_a_parquet_file_that_is_not_annotate_steps(tmp_path):
    target = tmp_path / "o.parquet"
    assert run("oracle", SAMPLE_DATA / "en_sample.conllu", "--format", "parquet", "-o", target).returncode == 0
    with pytest.raises(ValueError, match="not a step file"):
        next(steps.read(str(target)))


@pytest.mark.parametrize("command", [["oracle", "--system", "arc-eager"],
                                     ["annotate", "--system", "arc-eager", "--policy", "explore"]])
def test_a_shard_is_recorded_in_the_metadata(tmp_path, command):
    source = tmp_path / "train.conllu"
    source.write_bytes((SAMPLE_DATA / "en_sample.conllu").read_bytes())
    out = tmp_path / "part.parquet"
    result = run(*command, source, "--shard", "1/2", "--format", "parquet", "-o", out)
    assert result.returncode == 0, result.stderr
    assert json.loads(pq.ParquetFile(out).metadata.metadata[b"treetool"])["options"]["shard"] == "1/2"


@pytest.mark.parametrize("name, vocabulary",
                         [("steps.jsonl", False), ("steps.parquet", False), ("steps.parquet", True)],
                         ids=["jsonl", "parquet", "parquet-vocabulary"])
def test_an_action_missing_from_the_given_vocabulary_is_named(tmp_path, name, vocabulary):
    """``actions=`` without the labelled spellings of a labelled file: the same ValueError for every format (the
    JSON lines and the ``--vocabulary`` cost columns raised a bare KeyError)."""
    records, _ = annotate_both(tmp_path, "--system", "arc-hybrid", "--labeled", vocabulary=vocabulary)
    (tmp_path / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ValueError, match=r"^the action '(LA|RA)\(\w+\)' is not in the action vocabulary$"):
        list(steps.read(str(tmp_path / name), actions=("SH", "LA", "RA")))


ONE_STEP = ('{"step": 1, "stack": [0], "buffer": [1], "heads": [-1, -1], "costs": {"SH": 0}, "optimal": ["SH"], '
            '"action": "SH"}\n')


@pytest.mark.parametrize("actions, error, said", [
    (("SH", "LA", "SH", "RA"), ValueError, "actions must be distinct .*'SH' given more than once"),
    ("SHLARA", TypeError, "actions must be a list of action spellings .*not the string 'SHLARA'"),
], ids=["a spelling twice", "a string"])
def test_a_vocabulary_that_cannot_give_one_id_per_spelling_is_refused(tmp_path, actions, error, said):
    """A spelling given twice left the column of its first id empty (SH read as never legal, at id 2); a string
    was taken for its letters and refused for a spelling of the file, not for what it is."""
    path = tmp_path / "one.jsonl"
    path.write_text(ONE_STEP)
    with pytest.raises(error, match=said):
        steps.read(str(path), actions=actions)  # at the call, before any batch is asked for


@pytest.mark.parametrize("size, error", [("3", TypeError), (2.5, TypeError), (0, ValueError)])
def test_batch_size_is_a_positive_int(tmp_path, size, error):
    path = tmp_path / "one.jsonl"
    path.write_text(ONE_STEP * 5)
    with pytest.raises(error, match=f"batch_size must be .*{size!r}"):
        steps.read(str(path), batch_size=size)
    assert [len(b) for b in steps.read(str(path), batch_size=np.int64(2))] == [2, 2, 1]  # numpy's ints are ints
