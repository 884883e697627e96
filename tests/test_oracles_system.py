"""The transition-system interface: spellings, registry, user systems, replay, declared properties.

Transition rules are checked against hand-worked configurations taken from
the issue's definitions; the two optional declarations (``monotonic``,
``detached_words_final``) that the exhaustive search relies on are verified
on random walks for every built-in system.
"""

from __future__ import annotations

import random

import pytest

from oracle_trees import SYSTEM_SPECS, all_trees, make, random_tree, spec_id
from treetool.oracles import (
    SYSTEMS,
    Configuration,
    IllegalAction,
    IncompleteDerivation,
    SystemSpecError,
    format_action,
    get_system,
    load_system,
    make_system,
    parse_action,
    search_oracle,
)

# ---------------------------------------------------------------------------
# spellings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("SH", ("SH", 1, None)),
        ("LA", ("LA", 1, None)),
        ("LA1", ("LA", 1, None)),
        ("RA3", ("RA", 3, None)),
        ("LA(nsubj)", ("LA", 1, "nsubj")),
        ("RA2(acl:relcl)", ("RA", 2, "acl:relcl")),
        ("RE(obj)", ("RE", 1, "obj")),
    ],
)
def test_parse_action(text, parsed):
    assert parse_action(text) == parsed


@pytest.mark.parametrize("text", ["", "la", "LA()", "LA0", "LA(x", "2LA", "SH SH", None])
def test_parse_action_refuses_malformed(text):
    with pytest.raises(IllegalAction):
        parse_action(text)


def test_format_action_is_canonical():
    assert format_action("LA") == "LA"
    assert format_action("LA", 1, "nsubj") == "LA(nsubj)"
    assert format_action("RA", 2) == "RA2"
    assert format_action("RA", 2, "obj") == "RA2(obj)"
    for text in ["SH", "RA2(obj)", "LA(nmod:poss)", "SW"]:
        assert format_action(*parse_action(text)) == text


# ---------------------------------------------------------------------------
# registry and user systems
# ---------------------------------------------------------------------------


def test_registry_builds_every_system():
    for name in SYSTEMS:
        system = get_system(name)
        assert system.name == name
    assert get_system("attardi", degree=3).degree == 3
    assert get_system("attardi", degree=3).describe() == "attardi (degree=3)"
    assert get_system("arc-standard", degree=None).name == "arc-standard"  # None: option not given
    assert [name for name in SYSTEMS if get_system(name).bottom_up] == ["arc-standard", "attardi"]


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("arc-standerd", {}, "unknown transition system"),
        ("arc-standard", {"degree": 2}, "does not take option degree"),
        ("attardi", {"degree": 0}, "degree must be a positive integer"),
        ("attardi", {"order": "lazy"}, "its options: degree"),
        ("swap", {"order": "late"}, "order must be one of eager, lazy"),
        ("nm-arc-eager", {"variant": "X"}, "variant must be one of L, D, LD"),
        ("arc-eager", {"reduce": "never"}, "reduce must be one of eager, lazy"),
    ],
)
def test_registry_refuses_bad_names_and_options(name, options, message):
    with pytest.raises(SystemSpecError, match=message):
        get_system(name, **options)


def test_load_system_subclass_and_duck_typed():
    mine = load_system("example_system:MyArcStandard")
    assert mine.name == "my-arc-standard"
    assert mine.oracle_spec.static is None and mine.oracle_spec.published is None  # nothing declared: the searches
    duck = load_system("example_system:DuckTypedArcStandard")
    assert duck.static_oracle([-1, 2, 0]) == ["SH", "SH", "LA", "RA"]
    assert duck.run(["SH", "SH", "LA", "RA"], 2).heads == (-1, 2, 0)
    assert make_system("example_system:MyArcStandard").name == "my-arc-standard"
    assert get_system("arc-standard").oracle_spec.static is not None


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_module_xyz:Sys", "cannot import no_such_module_xyz"),
        ("example_system:Missing", "has no attribute Missing"),
        ("example_system:NotASystem", "missing apply, is_final"),
        ("example_system:Incomplete", "abstract methods not implemented: is_final"),
        ("example_system", "expected package.module:ClassName"),
    ],
)
def test_load_system_errors_are_one_line(spec, message):
    with pytest.raises(SystemSpecError, match=message) as info:
        load_system(spec)
    assert "\n" not in str(info.value)


def test_load_system_refuses_options_the_class_does_not_take():
    with pytest.raises(SystemSpecError, match="does not take option degree"):
        load_system("example_system:MyArcStandard", degree=2)


def test_example_system_derives_what_arc_standard_derives():
    """The documentation.s example (tests/example_system.py), through the generic search, agrees with the built-in oracle on every tree n <= 5."""
    mine = load_system("example_system:MyArcStandard")
    builtin = get_system("arc-standard")
    for n in range(1, 6):
        for tree in all_trees(n):
            sequence = mine.static_oracle(tree)
            assert (sequence is not None) == (builtin.static_oracle(tree) is not None)
            if sequence is not None:
                assert mine.replay(sequence, n).heads == tree
                assert builtin.replay(sequence, n).heads == tree


# ---------------------------------------------------------------------------
# transitions on hand-worked configurations
# ---------------------------------------------------------------------------


def _config(stack, buffer, heads):
    return Configuration(tuple(stack), tuple(buffer), tuple(heads))


def test_arc_standard_rules():
    system = get_system("arc-standard")
    c = _config([0, 1, 2], [3], [-1, -1, -1, -1])
    assert system.legal(c) == ["SH", "LA", "RA"]
    assert system.apply(c, "LA") == _config([0, 2], [3], [-1, 2, -1, -1])
    assert system.apply(c, "RA") == _config([0, 1], [3], [-1, -1, 1, -1])
    assert system.legal(_config([0, 1], [], [-1, -1])) == ["RA"]  # the root is never a dependent


def test_attardi_rules():
    system = get_system("attardi", degree=2)
    c = _config([0, 1, 2, 3], [], [-1, -1, -1, -1])
    assert system.legal(c) == ["LA", "RA", "LA2", "RA2"]
    assert system.apply(c, "LA2") == _config([0, 2, 3], [], [-1, 3, -1, -1])
    assert system.apply(c, "RA2") == _config([0, 1, 2], [], [-1, -1, -1, 1])
    assert system.legal(_config([0, 1, 2], [], [-1, -1, -1])) == ["LA", "RA", "RA2"]
    with pytest.raises(IllegalAction, match="degree 3 exceeds"):
        system.apply(c, "LA3")


def test_arc_hybrid_rules():
    system = get_system("arc-hybrid")
    c = _config([0, 1, 2], [3], [-1, -1, -1, -1])
    assert system.legal(c) == ["SH", "LA", "RA"]
    assert system.apply(c, "LA") == _config([0, 1], [3], [-1, -1, 3, -1])
    assert system.apply(c, "RA") == _config([0, 1], [3], [-1, -1, 1, -1])
    assert system.legal(_config([0], [1], [-1, -1])) == ["SH"]


def test_arc_eager_rules():
    system = get_system("arc-eager")
    assert system.initial(2) == _config([], [1, 2, 0], [-1, -1, -1])
    c = _config([1], [2, 0], [-1, -1, -1])
    assert system.legal(c) == ["SH", "LA", "RA"]
    assert system.apply(c, "RA") == _config([1, 2], [0], [-1, -1, 1])
    assert system.legal(_config([1, 2], [0], [-1, -1, 1])) == ["RE"]  # 0 only onto an empty stack; 2 has a head
    assert system.legal(_config([], [0], [-1, 0, 1])) == ["SH"]
    assert system.is_final(_config([0], [], [-1, 0, 1]))


def test_nm_arc_eager_rules():
    c = _config([1, 2], [0], [-1, -1, 1])  # s0 = 2 has a head, s1 = 1 has none
    left = get_system("nm-arc-eager", variant="L")
    assert left.legal(c) == ["LA", "RE"]
    assert left.apply(c, "LA") == _config([1], [0], [-1, -1, 0])  # 1 -> 2 replaced by 0 -> 2
    d = _config([1, 2], [3, 0], [-1, -1, -1, -1])  # s0 = 2 headless
    reduce = get_system("nm-arc-eager", variant="D")
    assert reduce.legal(d) == ["SH", "LA", "RA", "RE"]
    assert reduce.apply(d, "RE") == _config([1], [3, 0], [-1, -1, 1, -1])  # adds s1 -> s0
    labelled = Configuration(d.stack, d.buffer, d.heads, (None,) * 4)
    assert reduce.apply(labelled, "RE(obj)").labels == (None, None, "obj", None)
    assert "RE" not in get_system("arc-eager").legal(d)
    assert "RE" not in reduce.legal(_config([2], [3, 0], [-1, -1, -1, -1]))  # no s1


def test_swap_rules():
    system = get_system("swap")
    c = _config([0, 1, 2], [3], [-1, -1, -1, -1])
    assert system.legal(c) == ["SH", "LA", "RA", "SW"]
    assert system.apply(c, "SW") == _config([0, 2], [1, 3], [-1, -1, -1, -1])
    assert "SW" not in system.legal(_config([0, 2, 1], [3], [-1, -1, -1, -1]))  # needs s1 < s0
    assert "SW" not in system.legal(_config([0, 1], [2], [-1, -1, -1]))  # needs s1 != 0


# ---------------------------------------------------------------------------
# replay
# ---------------------------------------------------------------------------


def test_run_names_the_illegal_step():
    system = get_system("arc-standard")
    with pytest.raises(IllegalAction) as info:
        system.run(["SH", "SH", "LA", "LA"], 2)
    assert info.value.step == 4
    assert str(info.value).startswith("step 4: illegal action 'LA'")
    with pytest.raises(IllegalAction, match="step 1: .*not a transition spelling"):
        system.run(["shift"], 2)


def test_replay_requires_a_final_configuration():
    system = get_system("arc-standard")
    assert system.replay(["SH", "SH", "LA", "RA"], 2).heads == (-1, 2, 0)
    with pytest.raises(IncompleteDerivation, match="not final"):
        system.replay(["SH", "SH", "LA"], 2)


def test_run_labels_when_the_actions_carry_labels():
    system = get_system("arc-standard")
    config = system.run(["SH", "SH", "LA(nsubj)", "RA(root)"], 2)
    assert config.labels == (None, "nsubj", "root")
    assert system.run(["SH", "SH", "LA", "RA"], 2).labels is None
    unlabelled = system.run(["SH", "SH"], 2)
    with pytest.raises(IllegalAction, match="labelled transition needs a labelled configuration"):
        system.apply(unlabelled, "LA(x)")


# ---------------------------------------------------------------------------
# declared properties, verified on random walks
# ---------------------------------------------------------------------------


def _random_configurations(system, rng, n, walks=20):
    for _ in range(walks):
        config = system.initial(n, labeled=True)
        while True:
            yield config
            actions = system.legal(config)
            if not actions:
                break
            action = rng.choice(actions)
            if action[:2] in ("LA", "RA"):
                action = f"{action}({rng.choice('ab')})"
            config = system.apply(config, action)


@pytest.mark.parametrize("spec", SYSTEM_SPECS, ids=spec_id)
def test_declared_properties_hold(spec):
    """detached_words_final: detached words never change or gain dependents, and the
    rules ignore them; monotonic: a head, once set, never changes."""
    system = make(spec)
    rng = random.Random(7)
    for n in (3, 5, 7):
        for config in _random_configurations(system, rng, n):
            active = set(config.stack) | set(config.buffer)
            detached = [w for w in range(1, n + 1) if w not in active]
            # scramble the detached words' arcs: the rules must not notice
            scrambled_heads = list(config.heads)
            for w in detached:
                scrambled_heads[w] = (scrambled_heads[w] + 1) % (n + 1)
            twin = Configuration(config.stack, config.buffer, tuple(scrambled_heads), config.labels)
            assert system.legal(twin) == system.legal(config)
            assert system.is_final(twin) == system.is_final(config)
            for action in system.legal(config):
                after = system.apply(config, action)
                twin_after = system.apply(twin, action)
                for w in range(1, n + 1):
                    if system.detached_words_final and w in detached:
                        assert after.heads[w] == config.heads[w] and after.labels[w] == config.labels[w]
                    elif after.heads[w] != config.heads[w]:
                        assert after.heads[w] not in detached  # never a detached head
                        assert not (system.monotonic and config.heads[w] != -1)
                        assert twin_after.heads[w] == after.heads[w]
                assert (twin_after.stack, twin_after.buffer) == (after.stack, after.buffer)


def test_random_tree_helper_makes_trees():
    rng = random.Random(3)
    for n in range(1, 12):
        tree = random_tree(n, rng)
        for w in range(1, n + 1):
            seen, x = set(), w
            while x != 0:
                assert x not in seen
                seen.add(x)
                x = tree[x]


def test_all_trees_helper_is_complete():
    for n in range(1, 7):
        trees = list(all_trees(n))
        assert len(trees) == len(set(trees)) == (n + 1) ** (n - 1)  # Cayley's formula


def test_search_oracle_on_user_system_respects_budget():
    from treetool.budget import Budget, SentenceTimeout

    mine = load_system("example_system:MyArcStandard")
    with pytest.raises(SentenceTimeout):
        search_oracle(mine, [-1, 2, 0, 2, 3, 4], budget=Budget(max_states=2))
