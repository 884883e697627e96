"""``python -m treetool`` runs the command line."""

from commands.app import main

main()
