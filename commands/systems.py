"""Options naming a transition system, shared by ``oracle``, ``replay``, ``coverage`` (and ``annotate``).

``--system`` takes a built-in name or ``package.module:ClassName``; the
system's own options (``--degree``, ``--variant``, ``--reduce``, ``--order``, ``--root``)
are passed only when given, and one the system does not take is refused, as
every option that cannot act is.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from treetool.oracles.layout import ROOT_POSITIONS
from treetool.oracles.option_values import NM_VARIANTS, REDUCE_MODES, SWAP_ORDERS
from treetool.oracles.errors import SystemSpecError
from treetool.oracles.registry import SYSTEMS, make_system
from treetool.oracles.system import TransitionSystem

from .common import InapplicableOption, choices, given_options, plain_value

Variant = choices("Variant", NM_VARIANTS)
Reduce = choices("Reduce", REDUCE_MODES)
Order = choices("Order", SWAP_ORDERS)
Root = choices("Root", ROOT_POSITIONS)

SystemOpt = Annotated[str, typer.Option(
    "--system", "-s", metavar="NAME",
    help=f"Transition system: {', '.join(SYSTEMS)}, or package.module:ClassName for your own.",
)]
#: ``--system`` of the commands that also take the constituency systems (``oracle``, ``replay``).
AnySystemOpt = Annotated[str, typer.Option(
    "--system", "-s", metavar="NAME",
    help=f"Transition system: {', '.join(SYSTEMS)}, or package.module:ClassName for your own; "
         "top-down or in-order for Penn Treebank trees.",
)]
DegreeOpt = Annotated[Optional[int], typer.Option(
    "--degree", min=1, metavar="D", help="attardi: the largest reduction degree [default: 2].", show_default=False)]
VariantOpt = Annotated[Optional[Variant], typer.Option(
    "--variant", help="nm-arc-eager: non-monotonic Left-Arc (L), Reduce (D) or both (LD) [default: LD].",
    show_default=False)]
ReduceOpt = Annotated[Optional[Reduce], typer.Option(
    "--reduce", help="arc-eager, nm-arc-eager: reduce as soon as allowed (eager) or only when needed (lazy) "
    "[default: eager].", show_default=False)]
OrderOpt = Annotated[Optional[Order], typer.Option(
    "--order", help="swap: eager (Nivre 2009) or lazy (Nivre, Kuhlmann & Hall 2009) swapping [default: eager].",
    show_default=False)]
RootOpt = Annotated[Optional[Root], typer.Option(
    "--root", help="arc-eager, nm-arc-eager, arc-hybrid: the root 0 at the bottom of the stack (first) or at the end "
    "of the buffer (last) [default: last for arc-eager and nm-arc-eager, first for arc-hybrid].", show_default=False)]
LabeledOpt = Annotated[bool, typer.Option("--labeled", help="Labelled transitions: LA(nsubj), RA2(obj), ...")]

SYSTEM_OPTIONS = ("degree", "variant", "reduce", "order", "root")


def system_from_options(ctx: typer.Context) -> TransitionSystem:
    """The system ``--system`` names, built with the system options the user gave; refused with ``--labeled``
    when it makes unlabelled configurations all the same (a user's system that ignores ``labeled``)."""
    given = given_options(ctx)
    options: dict[str, Any] = {}
    for name in SYSTEM_OPTIONS:
        value = ctx.params.get(name)
        if name in given and value is not None:
            options[name] = plain_value(value)
    try:
        system = make_system(ctx.params["system"], **options)
    except SystemSpecError as err:
        raise InapplicableOption(f"--system: {err}") from None
    if ctx.params.get("labeled") and getattr(system.initial(1, labeled=True), "labels", None) is None:
        raise InapplicableOption(f"--labeled: {ctx.params['system']} makes no labelled configurations (its "
                                 "initial(n, labeled=True) has labels None)")
    return system


def static_oracle_jobs(system: TransitionSystem, jobs: int) -> int:
    """The processes for ``--jobs`` of a run of ``system``'s static oracle (``oracle``, ``coverage``), declared:
    ``jobs`` when the oracle is super-linear (it takes a budget: swap's, the generic search), else one, for a
    linear oracle costs tens of microseconds a sentence, less than sending the sentence to a worker and its result
    back (reading the input, in this process, costs as much again)."""
    return jobs if system.oracle_spec.static_takes_budget else 1
