"""Options that cannot act, refused for every command: repeats, flag pairs, numbers that are not numbers.

The cases are enumerated from the typer app itself (every command, every
option of the kind), so an option added later is covered without a new
test.  Each refusal is a usage error: exit 2, one line ``treetool: error:
...``, nothing written, which ``refused`` checks.
"""

from __future__ import annotations

from typing import Any

import pytest
import typer.main

from conftest import SAMPLE_DATA, CliResult, run_cli
from treetool.commands.app import COMMANDS, app

EN = SAMPLE_DATA / "en_sample.conllu"
PTB = SAMPLE_DATA / "wsj_sample.mrg"


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """Relative names (``x.png``) land in a temporary directory should a refusal regress and a command run."""
    monkeypatch.chdir(tmp_path)


def command(name: str) -> Any:
    return typer.main.get_command(app).get_command(None, name)


def options(name: str) -> list[Any]:
    return [p for p in command(name).params if p.param_type_name == "option"]


def base_args(name: str, but: str = "") -> list[str]:
    """A command line that click parses: the command, its arguments, its required options but ``but``."""
    args = [name, EN, EN] if name == "diff" else [name, EN]
    return args + [arg for p in options(name) if p.required and p.name != but for arg in (p.opts[0], "arc-eager")]


def a_value(param: Any) -> str:
    """A value click accepts for ``param`` (a .png name passes --plot's check and any other text option)."""
    choices = getattr(param.type, "choices", None)
    if choices:
        return str(choices[0])
    if param.name == "shard":
        return "1/2"
    return "1" if param.type.name in ("int", "int range", "float", "float range") else "x.png"


def refused(result: CliResult, start: str) -> str:
    """The one line of a usage error that starts ``treetool: error: {start}``."""
    err = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b"", err
    assert err.count("\n") == 1 and err.startswith(f"treetool: error: {start}"), err
    return err


SINGLE_VALUED = [(name, p) for name in COMMANDS for p in options(name) if not p.is_flag and not p.multiple]
FLAG_PAIRS = [(name, p) for name in COMMANDS for p in options(name) if p.secondary_opts]
FLOATS = [(name, p) for name in COMMANDS for p in options(name) if p.type.name == "float"]


def test_the_tables_hold_every_kind():
    """The app has options of each kind (else the tests below would pass over nothing)."""
    assert {p.name for _, p in FLAG_PAIRS} >= {"projective", "clean"}
    assert {p.name for _, p in FLOATS} == {"max_seconds", "error_rate"}
    assert {name for name, _ in SINGLE_VALUED} == set(COMMANDS)


@pytest.mark.parametrize("name,param", SINGLE_VALUED, ids=[f"{n} {p.opts[0]}" for n, p in SINGLE_VALUED])
def test_a_single_valued_option_given_twice_is_refused(name, param):
    value = a_value(param)
    spellings = param.opts[-1], param.opts[0]  # -o then --output: one option however it is spelled
    result = run_cli(*base_args(name, but=param.name), spellings[0], value, spellings[1], value)
    refused(result, f"{param.opts[0]} is given 2 times ({value}, {value}): it takes one value")


def test_the_message_shows_both_values():
    refused(run_cli("oracle", EN, "--max-seconds", "1", "--max-seconds=2"),
            "--max-seconds is given 2 times (1, 2)")
    refused(run_cli("filter", EN, "-o", "a.conllu", "-o", "b.conllu"), "--output is given 2 times (a.conllu, b.conllu)")


def test_a_multi_valued_option_takes_each_value(tmp_path):
    assert run_cli("view", EN, "--sent-id", "en-1", "--sent-id", "en-2").returncode == 0
    out = tmp_path / "out.oracle"
    result = run_cli("oracle", PTB, "--system", "top-down", "--vocab", PTB, "--vocab", PTB, "-o", out)
    assert result.returncode == 0, result.stderr


def test_a_repeated_plain_flag_means_the_same_thing():
    assert run_cli("stats", EN, "--by-length", "--by-length").returncode == 0


@pytest.mark.parametrize("name,param", FLAG_PAIRS, ids=[f"{n} {p.opts[0]}" for n, p in FLAG_PAIRS])
@pytest.mark.parametrize("reverse", [False, True], ids=["yes-no", "no-yes"])
def test_both_sides_of_a_flag_pair_are_refused(name, param, reverse):
    sides = [param.opts[0], param.secondary_opts[0]]
    result = run_cli(*base_args(name), *(reversed(sides) if reverse else sides))
    refused(result, f"{sides[0]} and {sides[1]} exclude each other")


def test_one_side_of_a_flag_pair_given_twice_is_accepted():
    assert run_cli("filter", EN, "--projective", "--projective").returncode == 0


@pytest.mark.parametrize("name,param", FLOATS, ids=[f"{n} {p.opts[0]}" for n, p in FLOATS])
@pytest.mark.parametrize("nan", ["nan", "NaN", "-nan"])
def test_nan_is_refused_for_every_float_option(name, param, nan):
    refused(run_cli(*base_args(name), param.opts[0], nan), f"{param.opts[0]} must be a number (got nan)")


OUT_OF_RANGE = [
    ("--error-rate", value, "must be between 0 and 1") for value in ("inf", "-inf", "-0.1", "1.5", "2")
] + [
    ("--max-seconds", value, "must be a positive number of seconds") for value in ("0", "-1", "-inf")
]


@pytest.mark.parametrize("option,value,reason", OUT_OF_RANGE)
def test_a_number_out_of_its_range_is_refused(option, value, reason):
    result = run_cli("annotate", EN, "--system", "arc-eager", "--policy", "explore", option, value)
    refused(result, f"{option} {reason} (got {float(value):g})")


@pytest.mark.parametrize("value", ["0", "1", "0.25"])
def test_an_error_rate_within_the_range_runs(value):
    result = run_cli("annotate", EN, "--system", "arc-eager", "--policy", "explore", "--error-rate", value)
    assert result.returncode == 0, result.stderr


def test_swap_refuses_on_unparsable_projectivize():
    refused(run_cli("oracle", EN, "--system", "swap", "--on-unparsable", "projectivize"),
            "--on-unparsable projectivize cannot act with --system swap")
    assert run_cli("oracle", EN, "--system", "swap", "--on-unparsable", "fail").returncode == 0


TREEBANK_WRITERS = [("filter", EN), ("projectivize", EN), ("deprojectivize", EN), ("replay", EN), ("filter", PTB)]


@pytest.mark.parametrize("command_name,source", TREEBANK_WRITERS, ids=[f"{c} {s.suffix}" for c, s in TREEBANK_WRITERS])
def test_an_output_format_that_cannot_hold_the_trees_is_refused_up_front(tmp_path, command_name, source):
    """PTB brackets cannot hold dependency trees nor CoNLL constituency trees: refused before the output is
    opened (an existing file is kept), whether --to or the -o name asks for it."""
    target = tmp_path / ("out.conllu" if source == PTB else "out.mrg")
    target.write_text("kept\n")
    held = "constituency" if source == PTB else "dependency"
    refused(run_cli(command_name, source, "-o", target), f"-o {target} cannot hold the {held} trees of {source}")
    assert target.read_text() == "kept\n"
    if command_name in ("projectivize", "deprojectivize"):  # dependency trees only: --to offers no ptb
        result = run_cli(command_name, source, "--to", "ptb")
        assert result.returncode == 2 and b"'ptb' is not one of 'conllu', 'conllx'" in result.stderr
    elif source != PTB:
        refused(run_cli(command_name, source, "--to", "ptb"), f"--to ptb cannot hold the {held} trees of {source}")


@pytest.mark.parametrize("command_name", ["projectivize", "deprojectivize", "diff", "coverage"])
def test_dependency_only_commands_offer_no_ptb_format(command_name):
    """Their --help lists the formats they read; PTB brackets are refused as any other unknown format."""
    shown = run_cli(command_name, "--help").stdout.decode()
    assert "--from <conllu|conllx>" in shown and "ptb" not in shown.split("--from", 1)[1].split("\n")[0]
    result = run_cli(command_name, EN, EN, "--from", "ptb")
    assert result.returncode == 2 and b"'ptb' is not one of 'conllu', 'conllx'" in result.stderr
