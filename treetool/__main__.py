"""``python -m treetool`` runs the command line."""

from treetool.commands.app import main

main()
