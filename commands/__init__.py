"""The ``treetool`` command line: one thin module per subcommand.

Each subcommand parses its options, calls a public library function from
:mod:`treetool` (or :mod:`treetool.oracles`), and prints.
"""
