"""Transition systems with their static and dynamic oracles."""
